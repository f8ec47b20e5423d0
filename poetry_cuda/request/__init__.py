"""What the user asked for: `[tool.poetry-cuda]` settings, the project's dependencies and
their version constraints, read from pyproject.toml and validated."""
