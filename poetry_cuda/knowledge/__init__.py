"""The knowledge base: NVIDIA's driver tables and each package's CUDA builds.

The typed model (`model`), the sourced tables it is read from (``data/*.toml``, read and
validated by `_loader`, shipped compiled to JSON as well, `compiled`) and the packaged base
(`packaged.load()`).
"""
