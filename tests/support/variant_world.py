"""A wheel-variant index (PEP 825) of tiny stand-in torch wheels, on 127.0.0.1.

The metadata has the shapes PyTorch published for torch 2.8 (draft schema, hash-era labels
``cu126``, ``00000000``), 2.9 (draft v0.0.2: labels ``cuda12.6``, ``cuda12.8``, ``cuda13.0``,
``rocm6.4``, ``xpu``, ``null``; a ``priority`` namespace ranked by
``default-priorities.property``) and 2.10 (v0.0.3: ``static-properties``), as in the
configurations PyTorch repacked its wheels with; and torch 2.9's labels in the PEP 825 +
PEP 850 form that uv's wheel-variants preview reads (the draft schemas it refuses).

`build_world` writes one wheel per label (its ``variant.json`` holding that label alone, a
module recording the label) and the version's ``{name}-{version}-variants.json``;
`serve_index` serves them as a PEP 503 index whose project page links the JSON file beside
the wheels, as a variant index must.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import functools
import hashlib
import html
import json
import threading
import zipfile

from http.server import SimpleHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import TYPE_CHECKING
from typing import Any


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


SCHEMA = "https://variants-schema.wheelnext.dev/"
NVIDIA_PROVIDER = {
    "enable-if": "platform_system == 'Linux' or platform_system == 'Windows'",
    "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
    "requires": ["nvidia-variant-provider>=0.0.2,<1.0.0"],
}
SM_126 = ["50_real", "60_real", "70_real", "75_real", "80_real", "86_real", "90_real"]
SM_128 = ["70_real", "75_real", "80_real", "86_real", "90_real", "100_real", "120_real"]
SM_130 = ["75_real", "80_real", "86_real", "90_real", "100_real", "120_real", "120_virtual"]
GFX = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101"]


def _cuda(bound: str, arches: list[str], order: str | None) -> dict[str, Any]:
    label: dict[str, Any] = {"nvidia": {"cuda_version_lower_bound": [bound], "sm_arch": arches}}
    if order is not None:
        label["priority"] = {"order": [order]}
    return label


# wheelnext/variant-repack configs/torch-2.8/torch-2.8.0-variants.json (after 2025-07-30).
TORCH_28: dict[str, Any] = {
    "$schema": SCHEMA,
    "default-priorities": {"namespace": ["nvidia"]},
    "providers": {
        "nvidia": {**NVIDIA_PROVIDER, "requires": ["nvidia-variant-provider>=0.0.1,<1.0.0"]}
    },
    "variants": {
        "00000000": {},
        "cu126": _cuda("12.0", SM_126, None),
        "cu128": _cuda("12.8", sorted(SM_128), None),
        "cu129": _cuda("12.9", sorted([*SM_128, "120_virtual"]), None),
    },
}

# configs/torch-2.9/torch-2.9.0-variants.json (draft v0.0.2).
TORCH_29: dict[str, Any] = {
    "$schema": f"{SCHEMA}v0.0.2.json",
    "default-priorities": {
        "namespace": ["nvidia", "intel", "amd", "priority"],
        "property": {"priority": {"order": ["1", "2", "3"]}},
    },
    "providers": {
        "nvidia": NVIDIA_PROVIDER,
        "intel": {
            "enable-if": "platform_system == 'Linux' or platform_system == 'Windows'",
            "plugin-api": "intel_variant_provider.plugin:IntelVariantPlugin",
            "requires": ["intel-variant-provider>=0.0.2,<1.0.0"],
        },
        "amd": {
            "enable-if": "platform_system == 'Linux'",
            "plugin-api": "amd_variant_provider.plugin:AMDVariantPlugin",
            "requires": ["amd-variant-provider>=0.0.2,<1.0.0"],
        },
        "priority": {"plugin-use": "none", "requires": []},
    },
    "variants": {
        "null": {},
        "cuda12.6": _cuda("12.0", SM_126, "3"),
        "cuda12.8": _cuda("12.0", SM_128, "2"),
        "cuda13.0": _cuda("13.0", SM_130, "1"),
        "rocm6.4": {"amd": {"gfx_arch": GFX, "rocm_version": ["6.4"]}},
        "xpu": {"intel": {"device_ip": ["12.55.8", "12.60.7", "12.71.4", "20.1.0"]}},
    },
}

# configs/torch-2.10/torch-2.10.0-variants.json (draft v0.0.3: install-time, static-properties).
TORCH_210: dict[str, Any] = {
    "$schema": f"{SCHEMA}v0.0.3.json",
    "default-priorities": {"namespace": ["nvidia", "intel", "amd", "priority"]},
    "providers": {
        **{k: v for k, v in TORCH_29["providers"].items() if k != "priority"},
        "priority": {"install-time": False, "requires": []},
    },
    "static-properties": {"priority": {"order": ["1", "2", "3"]}},
    "variants": {
        **{k: v for k, v in TORCH_29["variants"].items() if k != "rocm6.4"},
        "rocm7.1": {"amd": {"gfx_arch": [*GFX, "gfx950"], "rocm_version": ["7.1"]}},
    },
}

# torch 2.9's labels as PEP 825 + PEP 850 write them, which uv 0.13's preview reads; its
# vendored NVIDIA provider serves only a `requires` that admits version 0.0.1.
TORCH_29_PEP850: dict[str, Any] = {
    "$schema": f"{SCHEMA}peps/850/v0.2.0.json",
    "default-priorities": {"namespace": ["nvidia", "amd", "intel", "priority"]},
    "providers": {
        "nvidia": {
            "requires": ["nvidia-variant-provider>=0.0.1,<1.0.0"],
            "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
        },
        "amd": {
            "requires": ["amd-variant-provider>=0.0.2,<1.0.0"],
            "plugin-api": "amd_variant_provider.plugin:AMDVariantPlugin",
        },
        "intel": {
            "requires": ["intel-variant-provider>=0.0.3,<1.0.0"],
            "plugin-api": "intel_variant_provider.plugin:IntelVariantPlugin",
        },
        "priority": {"static-properties": {"order": ["1", "2", "3"]}},
    },
    "variants": {
        label: {ns: {f: sorted(v) for f, v in features.items()} for ns, features in props.items()}
        for label, props in TORCH_29["variants"].items()
    },
}


def wheel_metadata(document: dict[str, Any], label: str) -> dict[str, Any]:
    """A wheel's variant.json: the version's metadata with its one label."""
    own = copy.deepcopy({key: value for key, value in document.items() if key != "variants"})
    own["variants"] = {label: document["variants"][label]}
    return own


def _record(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def build_wheel(
    folder: Path, name: str, version: str, label: str | None, variant: dict[str, Any] | None
) -> Path:
    """A pure-Python wheel whose module records `label` (None: a plain wheel)."""
    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": f"LABEL = {label!r}\n".encode(),
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    if variant is not None:
        files[f"{dist}/variant.json"] = json.dumps(variant, indent=2).encode()
    record = "".join(f"{path},{_record(data)},{len(data)}\n" for path, data in files.items())
    files[f"{dist}/RECORD"] = (record + f"{dist}/RECORD,,\n").encode()
    path = folder / (f"{name}-{version}-py3-none-any" + (f"-{label}" if label else "") + ".whl")
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    return path


def build_world(
    folder: Path, document: dict[str, Any], *, name: str = "torch", version: str = "2.9.0"
) -> Path:
    """One wheel per label of `document`, a plain wheel, and the version's JSON file."""
    folder.mkdir(parents=True, exist_ok=True)
    for label in document["variants"]:
        build_wheel(folder, name, version, label, wheel_metadata(document, label))
    build_wheel(folder, name, version, None, None)
    path = folder / f"{name}-{version}-variants.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def _write_index(files: Path, root: Path) -> None:
    """``root/simple/<name>/index.html`` linking every wheel and JSON file of `files`."""
    by_name: dict[str, list[Path]] = {}
    for path in sorted(files.iterdir()):
        by_name.setdefault(path.name.split("-")[0].replace("_", "-").lower(), []).append(path)
    for name, paths in by_name.items():
        page = root / "simple" / name
        page.mkdir(parents=True, exist_ok=True)
        links = [
            f'<a href="../../files/{html.escape(p.name)}#sha256='
            f'{hashlib.sha256(p.read_bytes()).hexdigest()}">{html.escape(p.name)}</a><br/>'
            for p in paths
        ]
        page.joinpath("index.html").write_text(
            "<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n"
        )


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve_index(files: Path, root: Path) -> Iterator[str]:
    """Serve `files` (the wheels and JSON files of `build_world`) as a PEP 503 index under
    `root`: yields the index URL (``http://127.0.0.1:PORT/simple/``)."""
    (root / "files").mkdir(parents=True, exist_ok=True)
    for path in files.iterdir():
        (root / "files" / path.name).write_bytes(path.read_bytes())
    _write_index(root / "files", root)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
