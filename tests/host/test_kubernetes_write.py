"""`--write-targets DIR`: one profile per node group, written atomically into DIR, replacing
only the profiles it wrote before (`host.kubernetes.write_profiles`)."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.host.kubernetes import NodeGroup
from poetry_cuda.host.kubernetes import read_cluster
from poetry_cuda.host.kubernetes import slug
from poetry_cuda.host.kubernetes import write_profiles
from poetry_cuda.host.profiles import load_target


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kubernetes"
NAMES = ["k8s-a100-535.json", "k8s-l4-570.json", "k8s-rtx5090-570.json"]


def listed(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def mixed() -> tuple[NodeGroup, ...]:
    document = json.loads((FIXTURES / "mixed-x86_64.json").read_text(encoding="utf-8"))
    return read_cluster(document, "mixed-x86_64.json").groups


def test_one_profile_per_group_in_a_new_folder(tmp_path: Path) -> None:
    folder = tmp_path / "deploy" / "hosts"
    written, stale = write_profiles(mixed(), folder)
    assert [path.name for path in written] == NAMES
    assert stale == []
    assert listed(folder) == NAMES  # no temporary file left
    profile = load_target(folder / "k8s-rtx5090-570.json", label="hosts/k8s-rtx5090-570.json")
    assert profile.label == "the 4 nodes of k8s-rtx5090-570"
    assert profile.nodes is not None
    assert profile.nodes.names == tuple(f"gpu-rtx5090-{i}" for i in range(4))


def test_writing_again_replaces_its_own_profiles(tmp_path: Path) -> None:
    write_profiles(mixed(), tmp_path)
    before = {name: (tmp_path / name).read_bytes() for name in NAMES}
    (tmp_path / NAMES[0]).write_text('{"nodes": {"count": 1, "names": ["old"]}, "os": "linux"}')
    write_profiles(mixed(), tmp_path)
    assert {name: (tmp_path / name).read_bytes() for name in NAMES} == before


@pytest.mark.parametrize(
    "content",
    [
        '{"schema": 1, "os": "linux", "driver": {"version": "535.183.01"}}',  # a hand-written profile
        "not json",
        '["nodes"]',
        '{"nodes": 4}',
    ],
)
def test_a_file_it_did_not_write_stops_every_write(tmp_path: Path, content: str) -> None:
    (tmp_path / "k8s-l4-570.json").write_text(content)
    with pytest.raises(InputFileError) as caught:
        write_profiles(mixed(), tmp_path)
    assert caught.value.what == (
        f"{tmp_path / 'k8s-l4-570.json'}: not a profile written from Kubernetes; "
        "no profile was written"
    )
    assert listed(tmp_path) == ["k8s-l4-570.json"]
    assert (tmp_path / "k8s-l4-570.json").read_text() == content


def test_a_link_is_never_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    write_profiles(mixed()[:1], tmp_path / "elsewhere")
    own = (tmp_path / "elsewhere" / NAMES[0]).read_text()
    outside.write_text(own)  # even a link to one of its own profiles
    folder = tmp_path / "hosts"
    folder.mkdir()
    (folder / NAMES[0]).symlink_to(outside)
    with pytest.raises(InputFileError, match=r"k8s-a100-535\.json: a symbolic link"):
        write_profiles(mixed(), folder)
    assert outside.read_text() == own
    assert listed(folder) == [NAMES[0]]
    (folder / NAMES[0]).unlink()
    (folder / NAMES[0]).symlink_to(tmp_path / "missing.json")  # a dangling one too
    with pytest.raises(InputFileError, match="a symbolic link"):
        write_profiles(mixed(), folder)
    assert not (tmp_path / "missing.json").exists()


def test_a_folder_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "k8s-l4-570.json").mkdir()
    with pytest.raises(InputFileError, match="not a profile written from Kubernetes"):
        write_profiles(mixed(), tmp_path)
    (tmp_path / "file").write_text("")
    with pytest.raises(InputFileError, match="cannot create the folder"):
        write_profiles(mixed(), tmp_path / "file" / "hosts")


def test_its_earlier_profiles_no_group_wrote_are_named(tmp_path: Path) -> None:
    gone = tmp_path / "k8s-v100-470.json"
    gone.write_text('{"os": "linux", "nodes": {"count": 2, "names": ["a", "b"]}}')
    (tmp_path / "k8s-by-hand.json").write_text('{"os": "linux"}')  # not its own: not named
    (tmp_path / "k8s-link.json").symlink_to(gone)
    written, stale = write_profiles(mixed(), tmp_path)
    assert stale == [gone]
    assert len(written) == 3
    assert gone.exists()  # named, never removed


def test_names_stay_inside_the_folder(tmp_path: Path) -> None:
    document = json.loads((FIXTURES / "mixed-x86_64.json").read_text(encoding="utf-8"))
    for item in document["items"]:
        labels = item["metadata"]["labels"]
        if "nvidia.com/gpu.product" in labels:
            labels["nvidia.com/gpu.product"] = "../../../etc/NVIDIA-A100"
    # No label value Kubernetes admits holds a '/': such a product is refused, and a
    # group's name is made of its products' words alone.
    with pytest.raises(InputFileError, match="not a label value"):
        read_cluster(document, "nodes.json")
    assert slug("../../../etc/NVIDIA-A100") == "etc-nvidia-a100"
    for item in document["items"]:
        labels = item["metadata"]["labels"]
        if "nvidia.com/gpu.product" in labels:
            labels["nvidia.com/gpu.product"] = "x..-..-..-etc-NVIDIA-A100"
    groups = read_cluster(document, "nodes.json").groups
    folder = tmp_path / "hosts"
    written, _ = write_profiles(groups, folder)
    assert all(path.parent == folder for path in written)
    assert sorted(path.name for path in tmp_path.rglob("*.json")) == sorted(
        path.name for path in written
    )
