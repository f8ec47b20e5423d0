"""The commands, served by both the Poetry plugin and the `poetry-cuda` script.

Each is a `CudaCommand` (`base`) written against a `Port`, with no cleo; `cleo_command`
serves one to cleo. `cli.registry` names them and imports each only when it runs.
"""
