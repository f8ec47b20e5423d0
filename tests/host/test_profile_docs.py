"""docs/host-profiles.md documents every field the profile reader accepts, its examples
read, and the reader's errors point to it (issue 39, item 9h)."""

from __future__ import annotations

import ast
import json
import re

from pathlib import Path

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.host import profiles
from poetry_cuda.host.profiles import profile_from_json


ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "host-profiles.md"
READER = Path(profiles.__file__)
# The Table accessors whose first argument is a key of the document.
ACCESSORS = {"value", "choice", "table", "tables", "texts", "parsed", "has"}
# Helpers of the reader that take (table, key, ...).
KEYED_HELPERS = {"_vendor_field", "_stack"}


def accepted_fields() -> set[str]:
    """Every key the reader asks a document for, read off its source: what it accepts."""
    tree = ast.parse(READER.read_text(encoding="utf-8"))
    keys: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        args = node.args
        if isinstance(func, ast.Attribute) and func.attr in ACCESSORS and args:
            first = args[0]
        elif isinstance(func, ast.Name) and func.id in KEYED_HELPERS and len(args) > 1:
            first = args[1]
        else:
            continue
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            keys.add(first.value)
    return keys


def test_host_profile_doc_documents_every_field_the_reader_accepts() -> None:
    text = DOC.read_text(encoding="utf-8")
    fields = accepted_fields()
    assert {"os", "compute_capability", "gfx", "device_ip", "kernel_driver", "count"} <= fields
    undocumented = sorted(f for f in fields if f"`{f}`" not in text)
    assert not undocumented, f"fields the reader accepts but {DOC.name} does not name"


def test_host_profile_doc_examples_are_profiles_the_reader_accepts() -> None:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) >= 5  # NVIDIA twice, AMD, Intel, Kubernetes nodes
    vendors: set[str] = set()
    for block in blocks:
        profile = profile_from_json(json.loads(block), "example")
        vendors.update(gpu.vendor for gpu in profile.gpus)
    assert vendors == {"nvidia", "amd", "intel"}


def test_host_profile_errors_name_the_doc() -> None:
    with pytest.raises(InputFileError) as raised:
        profile_from_json({"os": "linux", "gpus": [{"vendor": "amd"}]}, "hosts/a.json")
    assert "docs/host-profiles.md" in raised.value.render()
