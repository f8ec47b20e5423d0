"""`toolkit = "redist"`: NVIDIA's redistributable CUDA archives, kept once per machine.

`manifest` reads a ``redistrib_<release>.json`` and picks the archives nvcc needs (the
knowledge base's table ``redist_components.toml``, by `components`); `fetch` downloads
over https (http for loopback hosts only) with a timeout and a size limit; `store` keeps
each verified archive unpacked once per user, shared by every project; `assemble` builds
a project's CUDA_HOME of links into the store.
"""
