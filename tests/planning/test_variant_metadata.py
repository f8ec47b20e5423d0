"""Wheel-variant metadata: the shapes PyTorch published (draft v0.0.x) and PEP 825/850's."""

from __future__ import annotations

import contextlib
import json

from typing import Any

import pytest

from hypothesis import given
from hypothesis import strategies as st

from poetry_cuda.errors import InputFileError
from poetry_cuda.planning.variant_metadata import parse_variant_json
from poetry_cuda.planning.variant_metadata import parse_variants_json
from poetry_cuda.planning.variant_metadata import wheel_label
from tests.support.variant_world import TORCH_28
from tests.support.variant_world import TORCH_29
from tests.support.variant_world import TORCH_29_PEP850
from tests.support.variant_world import TORCH_210
from tests.support.variant_world import wheel_metadata


def _parse(document: Any, where: str = "torch-2.9.0-variants.json") -> Any:
    return parse_variants_json(json.dumps(document).encode(), where)


def test_torch_28_draft_with_hash_era_labels() -> None:
    metadata = _parse(TORCH_28)
    assert metadata.generation == "draft"
    assert list(metadata.variants) == ["00000000", "cu126", "cu128", "cu129"]
    assert metadata.variants["cu128"]["nvidia"]["cuda_version_lower_bound"] == ("12.8",)
    assert metadata.provider("nvidia").enable_if.startswith("platform_system")


def test_torch_29_priority_comes_from_default_priorities_property() -> None:
    metadata = _parse(TORCH_29)
    assert metadata.namespaces == ("nvidia", "intel", "amd", "priority")
    assert metadata.static_values("priority") == {"order": ("1", "2", "3")}
    assert metadata.static_values("nvidia") is None  # a plugin answers for it
    assert metadata.variants["cuda13.0"]["priority"] == {"order": ("1",)}


def test_torch_210_static_properties_and_install_time() -> None:
    metadata = _parse(TORCH_210)
    assert metadata.static_values("priority") == {"order": ("1", "2", "3")}
    assert metadata.provider("priority").install_time is False
    assert "rocm7.1" in metadata.variants


def test_pep850_static_provider() -> None:
    metadata = _parse(TORCH_29_PEP850)
    assert metadata.generation == "pep825"
    assert metadata.static_values("priority") == {"order": ("1", "2", "3")}
    assert metadata.provider("nvidia").plugin_api.endswith(":NvidiaVariantPlugin")


def test_pep825_strict_has_no_providers() -> None:
    document = {
        "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
        "default-priorities": {"namespace": ["x86_64", "blas_lapack"]},
        "variants": {"x86_64_v3_openblas": {"blas_lapack": {"library": ["openblas"]},
                                            "x86_64": {"level": ["v3"]}}},
    }  # fmt: skip
    metadata = _parse(document)
    assert metadata.providers == ()
    assert metadata.variants["x86_64_v3_openblas"]["x86_64"] == {"level": ("v3",)}


def test_a_wheel_holds_its_own_label_only() -> None:
    own = json.dumps(wheel_metadata(TORCH_29, "cuda12.8")).encode()
    assert list(parse_variant_json(own, "variant.json", "cuda12.8").variants) == ["cuda12.8"]
    with pytest.raises(InputFileError, match=r"variant.json: variants: lists cuda12.8"):
        parse_variant_json(own, "variant.json", "cuda12.6")
    with pytest.raises(InputFileError, match="exactly one label"):
        parse_variant_json(json.dumps(TORCH_29).encode(), "variant.json")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update({"$schema": "https://example.org/x.json"}), r"\$schema: .*no variant"),
        (lambda d: d.pop("$schema"), r"\$schema: missing"),
        (lambda d: d["variants"].update({"CUDA": {}}), r'variants\."CUDA": is not a variant label'),
        (
            lambda d: d["variants"]["cuda12.8"]["nvidia"].update({"sm_arch": []}),
            r"variants\.cuda12\.8\.nvidia\.sm_arch: must list at least one value",
        ),
        (
            lambda d: d["variants"]["cuda12.8"]["nvidia"].update({"sm_arch": ["86 real"]}),
            r"sm_arch\[0\]: '86 real' is not a value",
        ),
        (
            lambda d: d["variants"]["cuda12.8"].update({"rocm": {"x": ["1"]}}),
            r"variants\.cuda12\.8\.rocm: is not in default-priorities\.namespace",
        ),
        (lambda d: d["providers"]["nvidia"].update({"install": 1}), r"providers\.nvidia\.install"),
        (lambda d: d["providers"]["nvidia"].update({"requires": "x"}), r"requires: expected"),
        (lambda d: d.update({"extra": 1}), r"extra: unknown key"),
        (lambda d: d["default-priorities"].update({"namespace": []}), "at least one namespace"),
    ],
)
def test_hostile_metadata_names_the_file_and_field(change: Any, message: str) -> None:
    document = json.loads(json.dumps(TORCH_29))
    change(document)
    with pytest.raises(InputFileError, match=message) as raised:
        _parse(document)
    assert str(raised.value).startswith("torch-2.9.0-variants.json: ")
    assert raised.value.exit_code == 2


@pytest.mark.parametrize(
    "data",
    [b"", b"[]", b"{", b"\xff\xfe", b'{"a": 1, "a": 2}', b"[" * 100000, b'"x"'],
)
def test_unreadable_json_is_one_error(data: bytes) -> None:
    with pytest.raises(InputFileError, match=r"^x\.json: "):
        parse_variants_json(data, "x.json")


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=3)))  # fmt: skip
def test_any_json_parses_or_is_refused_cleanly(document: Any) -> None:
    with contextlib.suppress(InputFileError):
        _parse({**TORCH_29, "variants": document})


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-cuda13.0.whl", "cuda13.0"),
        ("torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-00000000.whl", "00000000"),
        ("torch-2.9.0-py3-none-any-null.whl", "null"),
        ("torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64.whl", None),
        ("torch-2.9.0-1-cp313-cp313-manylinux_2_28_x86_64.whl", None),  # a build tag
        ("torch-2.9.0-1-cp313-cp313-win_amd64-cuda12.8.whl", "cuda12.8"),
    ],
)
def test_wheel_label(name: str, label: str | None) -> None:
    assert wheel_label(name) == label


def test_properties_are_written_one_per_value_and_read_back() -> None:
    from poetry_cuda.planning.variant_metadata import is_property_line
    from poetry_cuda.planning.variant_metadata import property_lines

    lines = property_lines(
        {"nvidia": {"sm_arch": ("86_real", "80_real")}, "priority": {"order": ("2",)}}
    )
    assert lines == (
        "nvidia :: sm_arch :: 80_real",
        "nvidia :: sm_arch :: 86_real",
        "priority :: order :: 2",
    )
    assert all(is_property_line(line) for line in lines)
    assert not is_property_line("nvidia :: sm_arch")
    assert not is_property_line("nvidia::sm_arch::86_real")
