"""`cuda.lock` written: deterministic TOML, the same lock always giving the same bytes.

Apart from `lockfile`, which reads it, so that a command that only reads cuda.lock
(`env`, `run`, `doctor`, `sync`) does not load the TOML writer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import tomlkit

from poetry_cuda.locking.lockfile import HEADER
from poetry_cuda.locking.lockfile import VERSION


if TYPE_CHECKING:
    from collections.abc import Iterable

    from poetry_cuda.locking.lockfile import CudaLock
    from poetry_cuda.locking.lockfile import LockedExtra
    from poetry_cuda.locking.lockfile import LockedPackage
    from poetry_cuda.locking.lockfile import LockedToolkit
    from poetry_cuda.locking.lockfile import TargetFacts
    from poetry_cuda.versions import CudaVersion
    from poetry_cuda.versions import DriverVersion


def dumps(lock: CudaLock) -> str:
    """Deterministic TOML: the same lock always gives the same bytes."""
    document = tomlkit.document()
    for line in HEADER.splitlines():
        document.add(tomlkit.comment(line))
    document.add("version", VERSION)
    document.add("content-hash", lock.content_hash)
    document.add("backend", lock.backend)
    document.add("policy", lock.policy)
    document.add("cuda", lock.cuda)
    document.add("managed-sources", _array(lock.managed_sources))
    if lock.base_image is not None:
        document.add("base-image", lock.base_image)
    document.add(tomlkit.nl())
    rows = {
        "targets": [_facts_table(t) for t in lock.targets],
        "packages": [_package_table(p) for p in lock.packages],
        "system-requirements": [
            {
                "package": r.package,
                "kind": r.kind,
                "spec": r.spec,
                "reason": r.reason,
                "satisfy": r.satisfy,
                "satisfied-by": r.satisfied_by or None,
            }
            for r in lock.system_requirements
        ],
        "extras": [_extra_table(e) for e in lock.extras],
        "unavailable": [
            {"family": u.family, "version": u.version, "variant": u.variant}
            for u in lock.unavailable
        ],
    }
    for key, tables in rows.items():
        if tables:  # an empty array of tables would be written inline, above the header
            document.add(key, _tables(tables))
    if lock.toolkit is not None:
        document.add("toolkit", _toolkit_table(lock.toolkit))
    return tomlkit.dumps(document)


def _array(items: Iterable[str]) -> Any:
    array = tomlkit.array()
    array.extend(items)
    return array


def _tables(rows: Iterable[dict[str, Any]]) -> Any:
    aot = tomlkit.aot()
    for row in rows:
        table = tomlkit.table()
        for key, value in row.items():
            if value is None:
                continue  # TOML has no null: an absent key reads back as None
            table.add(key, _array(value) if isinstance(value, tuple) else value)
        aot.append(table)
    return aot


def _facts_table(facts: TargetFacts) -> dict[str, Any]:
    return {
        "label": facts.label,
        "os": facts.os,
        "machine": facts.machine,
        "driver": _text(facts.driver),
        "cuda": _text(facts.cuda),
        "compute-capabilities": tuple(str(cc) for cc in facts.compute_capabilities),
        "amd-gfx": facts.amd_gfx or None,
        "amdgpu": facts.amdgpu,
        "intel-device-ips": facts.intel_device_ips or None,
        "level-zero": facts.level_zero,
    }


def _package_table(package: LockedPackage) -> dict[str, Any]:
    return {
        "name": package.name,
        "variant": package.variant,
        "variant-label": package.variant_label,
        "variant-properties": package.variant_properties if package.variant_label else None,
        "accelerator": package.accelerator,
        "cuda": _text(package.cuda),
        "source": package.source,
        "url": package.url,
        "version": package.version,
        "arches": package.arches,
        "reason": package.reason,
    }


def _extra_table(extra: LockedExtra) -> dict[str, Any]:
    return {
        "name": extra.name,
        "kind": extra.kind,
        "family": extra.family,
        "variant": extra.variant,
        "cuda": _text(extra.cuda),
        "arches": extra.arches,
        "serves": extra.serves,
        "reason": extra.reason,
        "marker": extra.marker or None,  # a fork's, absent before forks
        "version": extra.version,
    }


def _toolkit_table(toolkit: LockedToolkit) -> Any:
    table = tomlkit.table()
    table.add("mode", toolkit.mode)
    table.add("release", toolkit.release)
    rows = [
        {
            "component": a.component,
            "version": a.version,
            "platform": a.platform,
            "relative-path": a.relative_path,
            "sha256": a.sha256,
            "size": a.size,
        }
        for a in toolkit.archives
    ]
    if rows:
        table.add("archives", _tables(rows))
    return table


def _text(value: CudaVersion | DriverVersion | None) -> str | None:
    return None if value is None else str(value)
