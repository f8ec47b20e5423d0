"""Every parser, on arbitrary and on adversarial input, returns a value or raises poetry-cuda's own
error (a `ValueError` with its own message, for the version types); round trips are identity.

The plain `st.text()` properties live beside each parser's tests (tests/host/, test_versions.py);
these go where text alone rarely reaches: digits of other scripts and superscripts, numbers with
thousands of digits, nesting deeper than a recursive parser goes, near-valid documents.
"""

from __future__ import annotations

import contextlib
import json

from typing import TYPE_CHECKING
from typing import Any

import pytest
import tomlkit

from hypothesis import HealthCheck
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.host.cudnn import parse_header
from poetry_cuda.host.cudnn import parse_ldconfig
from poetry_cuda.host.cudnn import parse_library_name
from poetry_cuda.host.procfs import parse_proc_driver_version
from poetry_cuda.host.procfs import parse_sys_module_version
from poetry_cuda.host.profiles import load_target
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.host.smi import parse_header_cuda
from poetry_cuda.host.smi import parse_query
from poetry_cuda.host.toolkits import parse_dist_info
from poetry_cuda.host.toolkits import parse_nvcc_version
from poetry_cuda.host.toolkits import parse_version_json
from poetry_cuda.host.toolkits import parse_version_txt
from poetry_cuda.locking import lockfile
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.locking.lockfile import TargetFacts
from poetry_cuda.locking.lockfile_toml import dumps
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.request.settings import KEYS
from poetry_cuda.request.settings import POLICIES
from poetry_cuda.request.settings import CudaRequest
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from pathlib import Path


FAST = settings(max_examples=150, deadline=None)
FILES = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
HUGE = "9" * 5000  # past CPython's limit on int() of a decimal string
DEEP = 100_000  # past any recursive parser's depth

# Digits that `str.isdigit` or `\d` accept and version parsers must not: superscripts, Arabic-
# Indic, Devanagari, fullwidth.
ODD_DIGITS = "²³¹٠١٢٣٤٥٦٧٨٩०१२३४५६७८९０１２３４５６７８９"
digit = st.sampled_from("0123456789" + ODD_DIGITS)
number = st.one_of(st.text(digit, min_size=1, max_size=4), st.just(HUGE))
version_text = st.lists(number, min_size=1, max_size=5).map(".".join)
version_like = st.one_of(
    version_text,
    version_text.map(lambda v: f"cu{v.replace('.', '')}"),
    version_text.map(lambda v: f"sm_{v.replace('.', '')}"),
    st.text(max_size=20),
)


def _is_ascii_number(text: str) -> bool:
    return all(part.isascii() and part.isdigit() for part in text.split("."))


# --- versions ----------------------------------------------------------------------------------


@FAST
@given(version_like)
def test_version_types_raise_only_their_own_value_error(text: str) -> None:
    for parse, message in (
        (CudaVersion.parse, "not a CUDA version"),
        (ComputeCapability.parse, "not a compute capability"),
        (DriverVersion.parse, "not a driver version"),
    ):
        try:
            value = parse(text)
        except ValueError as error:
            assert str(error).startswith(message), (text, error)
        else:
            assert parse(str(value)) == value
            assert str(value).isascii()


@FAST
@given(st.lists(st.integers(0, 10**9 - 1), min_size=1, max_size=4))
def test_driver_version_round_trips_its_text(parts: list[int]) -> None:
    text = ".".join(str(p) for p in parts)
    assert str(DriverVersion.parse(text)) == text


@FAST
@given(st.integers(1, 99), st.integers(0, 9))
def test_compute_capability_round_trips_both_spellings(major: int, minor: int) -> None:
    capability = ComputeCapability(major, minor)
    assert ComputeCapability.parse(str(capability)) == capability
    assert ComputeCapability.parse(capability.sm) == capability


@FAST
@given(version_like)
def test_cuda_request_is_a_request_or_a_config_error(text: str) -> None:
    with contextlib.suppress(PoetryCudaError):
        CudaRequest.parse(text)


# --- detection parsers -------------------------------------------------------------------------

smi_row = st.lists(st.one_of(version_like, st.just(" N/A"), st.just("[N/A]")), max_size=8).map(
    ", ".join
)


@FAST
@given(st.lists(smi_row, max_size=4).map("\n".join), st.booleans())
def test_smi_query_never_raises(text: str, with_compute_cap: bool) -> None:
    gpus, driver = parse_query(text, with_compute_cap=with_compute_cap)
    for gpu in gpus:
        assert 0 <= gpu.index < 10**9
    if driver is not None:
        assert _is_ascii_number(str(driver))


@FAST
@given(version_like)
def test_smi_header_never_raises(version: str) -> None:
    cuda = parse_header_cuda(f"| Driver Version: 550.54.14   CUDA Version: {version}  |")
    if cuda is not None:
        assert CudaVersion.parse(str(cuda)) == cuda


@FAST
@given(version_like, st.sampled_from(["NVRM version: NVIDIA UNIX x86_64 Kernel Module  ", ""]))
def test_procfs_parsers_give_driver_versions(version: str, prefix: str) -> None:
    for text, parse in (
        (f"{prefix}{version}  Thu Feb 22 01:44:30 UTC 2024\n", parse_proc_driver_version),
        (f"{version}\n", parse_sys_module_version),
    ):
        found = parse(text)
        if found is not None:
            assert str(DriverVersion.parse(found)) == found


@FAST
@given(version_like)
def test_toolkit_parsers_give_cuda_versions(version: str) -> None:
    texts = (
        (json.dumps({"cuda": {"version": version}}), parse_version_json),
        (f"CUDA Version {version}\n", parse_version_txt),
        (f"Cuda compilation tools, release {version}, V{version}\n", parse_nvcc_version),
    )
    for text, parse in texts:
        found = parse(text)
        if found is not None:
            assert _is_ascii_number(found)
            CudaVersion.parse(found)
    found = parse_dist_info([f"nvidia_cuda_nvcc-{version}.dist-info"])
    if found is not None:
        assert _is_ascii_number(found)


@pytest.mark.parametrize(
    "text", ["[" * DEEP, '{"cuda":' * DEEP, f'{{"cuda": {{"version": "{HUGE}.1"}}}}', HUGE]
)
def test_version_json_survives_deep_and_huge_documents(text: str) -> None:
    assert parse_version_json(text) is None


@FAST
@given(version_like, version_like, version_like)
@example("8", "a\rb\x85c", "0")  # splitlines() once cut the path at "\r" (found by this test)
def test_cudnn_parsers_give_numbers(major: str, minor: str, patch: str) -> None:
    header = (
        f"#define CUDNN_MAJOR {major}\n#define CUDNN_MINOR {minor}\n"
        f"#define CUDNN_PATCHLEVEL {patch}\n"
    )
    found = parse_header(header)
    if found is not None:
        assert _is_ascii_number(found)
    for name in (f"libcudnn.so.{major}", f"cudnn64_{major}.dll"):
        found = parse_library_name(name)
        if found is not None:
            assert _is_ascii_number(found)
    for _soname, path in parse_ldconfig(f"\tlibcudnn.so.{major} (libc6,x86-64) => /x/{minor}\n"):
        # ldconfig's format cannot carry a newline or edge blanks in a path; all else is kept.
        if "\n" not in minor and minor == minor.strip():
            assert path == f"/x/{minor}"


# --- host profiles -----------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | version_like,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(version_like, inner, max_size=3),
    max_leaves=8,
)
profile_keys = st.sampled_from(
    ["schema", "os", "machine", "driver", "gpus", "toolkits", "cudnn", "version", "cuda"]
)
near_profiles = st.fixed_dictionaries(
    {"os": st.sampled_from(["linux", "windows", "macos", "LINUX", ""])},
    optional={
        "schema": st.one_of(st.just(1), json_values),
        "machine": json_values,
        "driver": st.one_of(
            st.fixed_dictionaries({}, optional={"version": json_values, "cuda": json_values}),
            json_values,
        ),
        "gpus": st.lists(
            st.fixed_dictionaries(
                {"compute_capability": json_values},
                optional={"index": json_values, "name": json_values},
            ),
            max_size=3,
        ),
        "toolkits": st.lists(st.dictionaries(profile_keys, json_values, max_size=3), max_size=2),
        "cudnn": st.lists(st.dictionaries(profile_keys, json_values, max_size=3), max_size=2),
    },
)


@FAST
@given(st.one_of(near_profiles, json_values))
def test_profiles_are_profiles_or_input_errors(document: Any) -> None:
    try:
        profile = profile_from_json(document, "target.json")
    except PoetryCudaError:
        return
    again = profile_from_json(profile.to_json(), "target.json")
    assert again.to_json() == profile.to_json()


@pytest.mark.parametrize(
    "text",
    [
        "[" * DEEP + "]" * DEEP,
        '{"os": "linux", "extra": ' + "[" * DEEP + "]" * DEEP + "}",
        f'{{"os": "linux", "schema": {HUGE}}}',
        '{"os": "linux", "driver": {"version": "5²0"}}',
        f'{{"os": "linux", "driver": {{"version": "{HUGE}"}}}}',
        '{"os": "linux", "schema": NaN}',
        '{"os": "linux", "schema": 1e999}',
    ],
)
def test_target_files_that_break_json_parsers(tmp_path: Path, text: str) -> None:
    path = tmp_path / "target.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PoetryCudaError, match=r"target\.json"):
        load_target(path)


# --- settings ----------------------------------------------------------------------------------

setting_values = st.one_of(
    json_values, st.lists(version_like, max_size=3), st.sampled_from(["auto", "cpu", "cu124"])
)


@FAST
@given(
    st.dictionaries(
        st.sampled_from([*sorted(KEYS), "other"]),
        st.one_of(
            setting_values,
            st.dictionaries(st.sampled_from(["pytorch", "paddle", "x"]), setting_values),
            st.dictionaries(
                version_like,
                st.one_of(st.fixed_dictionaries({"needs": st.lists(version_like)}), json_values),
            ),
        ),
        max_size=4,
    )
)
def test_settings_are_settings_or_config_errors(table: dict[str, Any]) -> None:
    with contextlib.suppress(PoetryCudaError):
        parse_settings({"tool": {"poetry-cuda": table}})


# --- cuda.lock ---------------------------------------------------------------------------------

texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
# The keys whose values other code parses hold what poetry-cuda writes there.
cuda_versions = st.sampled_from(["11.8", "12.4", "12.6", "13.0"]).map(CudaVersion.parse)
target_facts = st.builds(
    TargetFacts,
    label=texts,
    os=st.sampled_from(["linux", "windows", "macos"]),
    machine=texts,
    driver=st.none()
    | st.sampled_from(["550.54.14", "470.256.02", "580.65.06"]).map(DriverVersion.parse),
    cuda=st.none() | cuda_versions,
    compute_capabilities=st.lists(
        st.sampled_from(["7.5", "8.6", "8.9", "9.0"]).map(ComputeCapability.parse), max_size=3
    ).map(tuple),
)
locked_packages = st.builds(
    LockedPackage,
    name=texts,
    variant=texts,
    cuda=st.none() | cuda_versions,
    source=texts,
    url=texts,
    version=st.none() | texts,
    arches=st.lists(texts, max_size=3).map(tuple),
    reason=texts,
)
requirements = st.builds(
    SystemRequirement,
    package=texts,
    kind=texts,
    spec=st.sampled_from(["", ">=8.6,<9", ">=12.1"]),
    reason=texts,
    satisfy=texts,
)
locks = st.builds(
    CudaLock,
    content_hash=texts,
    backend=texts,
    policy=st.sampled_from(POLICIES),
    cuda=st.sampled_from(["auto", "cpu", "cu124", "12.4", ">=12.1,<12.7"]),
    targets=st.lists(target_facts, max_size=2).map(tuple),
    packages=st.lists(locked_packages, max_size=3).map(tuple),
    system_requirements=st.lists(requirements, max_size=2).map(tuple),
    managed_sources=st.lists(texts, max_size=2).map(tuple),
)


@FILES
@given(locks)
def test_cuda_lock_round_trips(tmp_path: Path, lock: CudaLock) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(dumps(lock), encoding="utf-8")
    assert lockfile.read(path) == lock
    assert dumps(lockfile.read(path)) == dumps(lock)


@FILES
@given(
    locks,
    st.sampled_from(["version", "backend", "cuda", "packages", "targets", "managed-sources"]),
)
def test_a_damaged_cuda_lock_is_read_or_refused(tmp_path: Path, lock: CudaLock, key: str) -> None:
    document = tomlkit.parse(dumps(lock))
    for replacement in (None, 1.5, True, [1], {"a": 1}, "x"):
        if replacement is None:
            document.pop(key, None)
        else:
            document[key] = replacement
        path = tmp_path / "cuda.lock"
        path.write_text(tomlkit.dumps(document), encoding="utf-8")
        try:
            lockfile.read(path)
        except PoetryCudaError as error:
            assert "cuda.lock" in error.what


@FILES
@given(st.text(max_size=200))
def test_any_text_as_cuda_lock(tmp_path: Path, text: str) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    with contextlib.suppress(PoetryCudaError):
        lockfile.read(path)


@pytest.mark.parametrize(
    "text",
    [
        "version = 1\nx = " + "[" * DEEP + "]" * DEEP + "\n",
        "version = 1\nx = " + "{a = " * 2000 + "1" + "}" * 2000 + "\n",
        f"version = {HUGE}\n",
        f"version = 1\nx = {HUGE}\n",
    ],
)
def test_cuda_locks_that_break_toml_parsers(tmp_path: Path, text: str) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PoetryCudaError, match=r"cuda\.lock"):
        lockfile.read(path)
