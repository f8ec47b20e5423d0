"""One copy of each wheel per user: the shared store behind `install = "shared"`.

A PyTorch project's environment is mostly CUDA libraries, gigabytes that every project and
Poetry's cache hold again. Here each wheel a lock records is fetched once, verified by the
sha256 the lock records, unpacked into a per-user store named by that sha256 (`store`), and
installed into a project's environment by linking its files (`link`: a reflink where the
filesystem has them, else a hard link, a copy only across filesystems) with the
dist-info Poetry's own installer writes (`install`), so that `poetry install` and `poetry
run` find nothing to do. `locked` reads what poetry.lock installs on this interpreter,
`fetch` finds and downloads the locked files, `usage` remembers which projects use which
entries (for `store` and `store --prune`), `sync` puts the steps together, and `record` and
`verify` check installed files against their RECORD (for doctor).
"""
