"""Each project's own CUDA environment, for `env`, `run` and `poetry run`.

`project_env` reads what is on disk (cuda.lock, the virtual environment, the toolkits and
cuDNN copies of this machine); `decide` turns it into a `ProjectEnv` with pure rules;
`tree` assembles ``<venv>/cuda`` from NVIDIA's toolkit wheels (`toolkit = "wheels"`);
`shells` writes the variables for sh, fish, PowerShell or JSON.
"""
