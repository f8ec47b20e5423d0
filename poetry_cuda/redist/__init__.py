"""`toolkit = "redist"`: NVIDIA's redistributable CUDA archives, kept once per machine.

`manifest` reads a ``redistrib_<release>.json`` and picks the archives nvcc needs (the
table ``components.toml``, read by `components`); `fetch` downloads over https (http for
loopback hosts only) with a timeout and a size limit; `store` keeps each verified archive
unpacked once per user, shared by every project; `assemble` builds a project's CUDA_HOME
of links into the store.
"""
