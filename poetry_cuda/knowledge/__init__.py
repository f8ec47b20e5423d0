"""The knowledge base: NVIDIA's driver tables and each package's CUDA builds.

The typed model (`model`), the sourced tables it is read from (``data/*.toml``, read and
validated by `_loader`, cached by `cache`) and the packaged base (`packaged.load()`).
"""
