"""The knowledge base: NVIDIA's driver tables, each package's CUDA builds, and the tables
beside them (mirrors known by name, toolkit wheels, redistributable components).

The typed model (`model`), the sourced tables it is read from (``data/*.toml``, each row
checked by `tables`, shipped compiled to JSON as well, `compiled`) and the one loader
that reads them (`loader`: `load()` and the single tables).
"""
