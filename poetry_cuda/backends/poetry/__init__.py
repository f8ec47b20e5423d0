"""The Poetry backend: Poetry's own lock and install (`runner`), the pyproject.toml tables
poetry-cuda writes for it (`editor`), what Poetry 2 cannot lock (`rules`), and per-user
mirrors inside Poetry's own process (`mirror`)."""
