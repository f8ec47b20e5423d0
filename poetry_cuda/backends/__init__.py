"""The package managers poetry-cuda drives: Poetry (`poetry/`) and uv (`uv/`).

A backend is the glue between the pure plan and one package manager: it writes the
managed entries into that manager's own configuration, runs the manager's own lock,
and reads back what the lock file says. Everything else (planning, verification,
cuda.lock, the transaction) is shared. What every backend offers, and what they share,
is `base`; the editing of pyproject.toml both use is `toml_edit`.
"""
