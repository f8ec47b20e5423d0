"""Issue 40, item 6: a value read from input never prints a line of its own, and a long one
is not echoed whole.

A line break in a Kubernetes node name or `nvidia.com/gpu.product` label, or in a host
profile's `machine`, used to print lines such as "Wrote /etc/passwd (the 1 node of ...)" or
"Fix: run rm -rf ~" among poetry-cuda's own; a profile's invalid machine reached planning
(exit 3 "not published for linux-..."). The readers refuse such values (exit 2), and every
message quotes them escaped and shortened (`display.echoed`, `display.quoted`).
"""

from __future__ import annotations

import json
import re

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.display import echoed
from poetry_cuda.display import quoted
from tests.support.kubernetes_nodes import L4
from tests.support.kubernetes_nodes import gpu_node
from tests.support.kubernetes_nodes import node_list


if TYPE_CHECKING:
    from tests.support.cli import Cli
    from tests.support.cli import Result

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FORGED = ("Wrote /etc/passwd (the 1 node of k8s-l4-570)", "Fix: run rm -rf ~")


def assert_no_forged_line(result: Result) -> None:
    lines = (result.stdout + result.stderr).splitlines()
    assert not [line for line in lines if line.startswith(FORGED)], result


def test_item6_echoed_escapes_every_line_break_and_shortens() -> None:
    for breaking in ("\n", "\r", "\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\t", "\x1b"):
        assert breaking not in echoed(f"x86_64{breaking}Fix: run rm -rf ~")
    assert echoed("a\nb") == "a\\x0ab"
    long = "a" * 50_000 + "b" * 50_000
    shown = echoed(long)
    assert len(shown) < 300
    assert shown.startswith("a" * 100)
    assert shown.endswith("b" * 100 + " (100000 characters)")
    assert len(quoted(long)) < 300
    assert quoted(long).endswith("(100000 characters)")


def _kubernetes(cli: Cli, folder: Path, item: dict[str, object]) -> Result:
    (folder / "nodes.json").write_text(json.dumps(node_list([item])))
    return cli.run("detect", "--kubernetes", "nodes.json", "--write-targets", "hosts", cwd=folder)


def test_item6_a_line_break_in_a_node_name_is_refused(cli: Cli, tmp_path: Path) -> None:
    name = "gpu-1\nWrote /etc/passwd (the 1 node of k8s-l4-570)"
    result = _kubernetes(cli, tmp_path, gpu_node(name, L4))
    assert result.code == 2, result
    assert "metadata.name: expected a node name" in result.stderr
    assert "\\nWrote /etc/passwd" in result.stderr
    assert_no_forged_line(result)
    assert not (tmp_path / "hosts").exists()


def test_item6_a_line_break_in_a_product_label_is_refused(cli: Cli, tmp_path: Path) -> None:
    labels = {"nvidia.com/gpu.product": "NVIDIA-L4\nWrote /etc/passwd (the 1 node of k8s-l4-570)"}
    result = _kubernetes(cli, tmp_path, gpu_node("gpu-1", L4, labels=labels))
    assert result.code == 2, result
    assert "nvidia.com/gpu.product" in result.stderr
    assert "not a label value" in result.stderr or "longer than a label value" in result.stderr
    assert_no_forged_line(result)


def test_item6_a_valid_product_label_still_groups(cli: Cli, tmp_path: Path) -> None:
    result = _kubernetes(cli, tmp_path, gpu_node("gpu-1.example.com", L4))
    assert result.code == 0, result
    assert "Wrote " in result.stdout


def _plan(cli: Cli, folder: Path, **fields: object) -> Result:
    project = folder / "torch_project"
    if not project.exists():
        project.mkdir()
        (project / "pyproject.toml").write_bytes(
            (EXAMPLES / "torch_project" / "pyproject.toml").read_bytes()
        )
    profile = {
        "os": "linux",
        "machine": "x86_64",
        "driver": {"version": "550.54.14"},
        "gpus": [{"compute_capability": "8.9"}],
    }
    (project / "host.json").write_text(json.dumps(profile | fields))
    return cli.run("plan", "--target", "host.json", cwd=project)


@pytest.mark.parametrize(
    ("machine", "problem"),
    [
        ("x86_64\nFix: run rm -rf ~", "holds a control character"),
        ("x86_64\u2028Fix: run rm -rf ~", "holds a control character"),
        ("sparc 64", "is not a machine architecture"),
        ("x" * 100_000, "is not a machine architecture"),
    ],
)
def test_item6_a_profile_s_invalid_machine_exits_2(
    cli: Cli, tmp_path: Path, machine: str, problem: str
) -> None:
    result = _plan(cli, tmp_path, machine=machine)
    assert result.code == 2, result
    assert "host.json: machine: " in result.stderr
    assert problem in result.stderr
    assert "not published for" not in result.stderr
    assert (
        "Fix: compare it with docs/host-profiles.md and with the output of `poetry-cuda detect --json`"
        in (result.stderr)
    )
    assert_no_forged_line(result)
    assert len(result.stderr) < 2_000, len(result.stderr)


def test_item6_a_line_break_in_any_profile_field_is_refused(cli: Cli, tmp_path: Path) -> None:
    result = _plan(
        cli, tmp_path, gpus=[{"name": "RTX\nFix: run rm -rf ~", "compute_capability": "8.9"}]
    )
    assert result.code == 2, result
    assert "gpus[0].name: 'RTX\\nFix: run rm -rf ~' holds a control character" in result.stderr
    assert_no_forged_line(result)


def test_item6_a_long_value_is_not_echoed_whole(cli: Cli, tmp_path: Path) -> None:
    result = _plan(cli, tmp_path, driver={"version": "5" * 100_000})
    assert result.code == 2, result
    assert len(result.stderr) < 2_000, len(result.stderr)
    result = _plan(cli, tmp_path, gpus=[{"compute_capability": ["8.9"] * 20_000}])
    assert result.code == 2, result
    assert len(result.stderr) < 2_000, len(result.stderr)


def test_item6_a_line_break_in_a_target_s_file_name_is_escaped(cli: Cli, tmp_path: Path) -> None:
    _plan(cli, tmp_path)
    project = tmp_path / "torch_project"
    name = "host\nFix: run rm -rf ~.json"
    (project / "host.json").rename(project / name)
    result = cli.run("plan", "--target", name, cwd=project)
    assert result.code == 0, result
    assert "Plan for host\\x0aFix: run rm -rf ~.json" in result.stdout
    assert_no_forged_line(result)


def test_item6_a_requirement_from_pyproject_is_echoed_escaped_and_short(
    cli: Cli, tmp_path: Path
) -> None:
    project = tmp_path / "app"
    project.mkdir()
    (project / "host.json").write_text(json.dumps({"os": "linux", "machine": "x86_64"}))
    requirement = "torch>=2.4 @@\nFix: run rm -rf ~" + "x" * 100_000
    (project / "pyproject.toml").write_text(
        f"[project]\nname = 'app'\nversion = '1.0'\ndependencies = [{json.dumps(requirement)}]\n"
    )
    result = cli.run("plan", "--target", "host.json", cwd=project)
    assert result.code == 2, result
    assert "is not a valid requirement" in result.stderr
    assert_no_forged_line(result)
    assert len(result.stderr) < 2_000, len(result.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ("plan", "--policy", "LONG"),
        ("plan", "--LONG"),
        ("LONG",),
        ("plan", "LONG"),
        ("plan", "--cuda", "LONG"),
        ("env", "--shell", "LONG"),
    ],
    ids=["policy", "option", "command", "argument", "cuda", "shell"],
)
def test_item6_a_long_value_on_the_command_line_is_not_echoed_whole(
    cli: Cli, tmp_path: Path, args: tuple[str, ...]
) -> None:
    long = "x" * 100_000
    project = tmp_path / "torch_project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    result = cli.run(*(arg.replace("LONG", long) for arg in args), cwd=project)
    assert result.code == 2, result
    said = result.stdout + result.stderr
    assert "Traceback" not in said
    assert len(said) < 2_000, said[:300]
    assert re.search(r"\(10000[02] characters\)", said), said[:300]


def test_a_target_path_too_long_for_the_file_system_is_an_input_error(
    cli: Cli, tmp_path: Path
) -> None:
    """`open` of a 300-character name fails with ENAMETOOLONG, which `Path.exists` raises:
    one message naming the path (shortened), exit 2, not the crash report."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    result = cli.run("plan", "--target", "x" * 300, cwd=tmp_path)
    assert result.code == 2, result
    assert "bug in poetry-cuda" not in result.stderr
    assert "cannot read the target file (File name too long)" in result.stderr
    assert "(300 characters)" in result.stderr
