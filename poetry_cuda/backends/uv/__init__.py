"""The uv backend: the real `uv lock` and `uv sync` (`runner`), and the pyproject.toml tables
poetry-cuda writes for uv (`editor`)."""
