"""The adoption corpus: hand-written CUDA setups of real public projects, as test fixtures.

Each `tests/fixtures/adoption/<slug>.toml` reproduces one project's pattern (its first line names
the repository and path where it was seen), reduced to what matters for CUDA, with versions the
test world serves. The fixtures name the real indexes through placeholders that `render` fills
with the world's URLs: `{pytorch}` (https://download.pytorch.org/whl), `{paddle}`
(https://www.paddlepaddle.org.cn/packages/stable) and `{pypi}` (PyPI, where a project names it).

`render` then appends, after a marker line, what only the test world needs: the
`[tool.poetry-cuda.mirrors]` of the families the fixture uses, and the PyPI stand-in as Poetry's
primary source or uv's default index. Every line above the marker is the authors' setup.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Final
from typing import Literal
from typing import TypeAlias


if TYPE_CHECKING:
    from tests.support.catalog import WorldServer


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "adoption"
SEEN_IN = "# Seen in "
LOCAL_WORLD_MARKER = (
    "# ---- Appended for the local test world; everything above is the authors' setup ----"
)
MULTI: Final = "multi"
# The package a family's pin is read from in a lock.
FAMILY_LEADS = {"torch": "torch", "paddle": "paddlepaddle-gpu"}

Backend: TypeAlias = Literal["poetry", "uv"]
Pins: TypeAlias = Mapping[str, str] | Literal["multi"]


@dataclass(frozen=True)
class AdoptionCase:
    """One fixture: its backend, the pattern it stands for and what its authors pin.

    `pins` maps a family to the variant the project pins (`{"torch": "cu126"}`), or is `MULTI`
    for a project that offers several builds as extras. `poetry_refuses` marks a file Poetry 2
    rejects as written (Poetry 1.x syntax).
    """

    slug: str
    backend: Backend
    pattern: str
    pins: Pins
    poetry_refuses: bool = False

    @property
    def fixture(self) -> Path:
        return FIXTURES / f"{self.slug}.toml"

    @property
    def seen_in(self) -> str:
        """Where the pattern was seen: the fixture's first line, without its prefix."""
        first = self.fixture.read_text().splitlines()[0]
        return first.removeprefix(SEEN_IN)


CASES = (
    AdoptionCase(
        "kokoro-fastapi",
        "uv",
        "uv extras gpu/cpu in `conflicts`, `+cu128` label in the gpu extra, sources by extra",
        MULTI,
    ),
    AdoptionCase(
        "whisperx",
        "uv",
        "uv sources list with markers: cpu index on macOS and non-x86_64, cu128 elsewhere; "
        "triton taken from the CUDA index",
        {"torch": "cu128"},
    ),
    AdoptionCase(
        "musubi-tuner",
        "uv",
        "uv extras cu124/cu128/cu130 in `conflicts`, one explicit index per extra",
        MULTI,
    ),
    AdoptionCase(
        "dia",
        "uv",
        "uv source with a linux/win32 marker on an explicit cu126 index; triton pinned from PyPI",
        {"torch": "cu126"},
    ),
    AdoptionCase(
        "nanochat",
        "uv",
        "uv extras cpu/gpu/mps in `conflicts`; mps has no source (PyPI's build)",
        MULTI,
    ),
    AdoptionCase(
        "index-tts",
        "uv",
        "uv sources with a linux/win32 marker on an index named `pytorch-cuda` (cu128), "
        "one of them for a package the project does not depend on",
        {"torch": "cu128"},
    ),
    AdoptionCase(
        "uv-guide-extras",
        "uv",
        "uv's PyTorch guide: cpu/cu124 extras in `conflicts`, sources by extra",
        MULTI,
    ),
    AdoptionCase(
        "paddle-uv",
        "uv",
        "uv explicit index for Paddle's cu126 packages, with a trailing slash",
        {"paddle": "cu126"},
    ),
    AdoptionCase(
        "pulse-from-face",
        "poetry",
        "Poetry explicit source `torchcu118`, `+cu118` label on torch, plain version on "
        "torchvision",
        {"torch": "cu118"},
    ),
    AdoptionCase(
        "hands-on-llms",
        "poetry",
        "Poetry supplemental source `torch` beside PyPI named as primary, `+cu118` label",
        {"torch": "cu118"},
    ),
    AdoptionCase(
        "tgi-server",
        "poetry",
        "Poetry explicit cu121 source that nothing pins; torch optional behind an extra",
        {},
    ),
    AdoptionCase(
        "poetry-supplemental-sources",
        "poetry",
        "Poetry supplemental sources for three variants, torch pinned to the cu121 one with "
        "caret `+cu121` constraints",
        {"torch": "cu121"},
    ),
    AdoptionCase(
        "poetry-plain-version-triton",
        "poetry",
        "Poetry explicit cu121 source, torch's version without a label; its wheels pin triton "
        "on Linux",
        {"torch": "cu121"},
    ),
    AdoptionCase(
        "poetry-url-wheels",
        "poetry",
        "Poetry URL-pinned torch wheels per platform marker (cu121 on Linux x86_64, cpu on "
        "macOS), no source",
        {"torch": "cu121"},
    ),
    AdoptionCase(
        "poetry1-secondary",
        "poetry",
        "Poetry 1.x `secondary = true` source with `+cu118` labels",
        {"torch": "cu118"},
        poetry_refuses=True,
    ),
    AdoptionCase(
        "poetry2-project-table",
        "poetry",
        "Poetry 2: PEP 621 dependencies, `[tool.poetry.dependencies]` only naming the explicit "
        "cu121 source",
        {"torch": "cu121"},
    ),
    AdoptionCase(
        "paddle-poetry",
        "poetry",
        "Poetry 2: PEP 621 dependency on paddlepaddle-gpu, explicit source for Paddle's cu126 "
        "packages",
        {"paddle": "cu126"},
    ),
)


def fill(text: str, server: WorldServer) -> str:
    """`text` with the placeholders replaced by the world's URLs (a plain replace: TOML's own
    braces stay as they are)."""
    return (
        text.replace("{pytorch}", server.url("/whl"))
        .replace("{paddle}", server.url("/packages/stable"))
        .replace("{pypi}", server.pypi_url)
    )


def authors_text(case: AdoptionCase, server: WorldServer) -> str:
    """The fixture as `render` writes it above the marker: the authors' setup, URLs filled."""
    return fill(case.fixture.read_text(), server)


def render(case: AdoptionCase, directory: Path, server: WorldServer) -> Path:
    """Write `case` as `directory/pyproject.toml` pointed at `server`; return `directory`."""
    template = case.fixture.read_text()
    mirrors = []
    if "{pytorch}" in template:
        mirrors.append(f'pytorch = "{server.pytorch_mirror}"')
    if "{paddle}" in template:
        mirrors.append(f'paddle = "{server.paddle_mirror}"')
    appended = [LOCAL_WORLD_MARKER, "[tool.poetry-cuda.mirrors]", *mirrors]
    # A project that names PyPI itself already has it, as {pypi}.
    if "{pypi}" not in template:
        appended.append("")
        if case.backend == "poetry":
            appended += ["[[tool.poetry.source]]", 'name = "local-pypi"', 'priority = "primary"']
        else:
            appended += ["[[tool.uv.index]]", 'name = "local-pypi"', "default = true"]
        appended.append(f'url = "{server.pypi_url}"')
    directory.mkdir(parents=True, exist_ok=True)
    text = authors_text(case, server).rstrip("\n") + "\n\n" + "\n".join(appended) + "\n"
    (directory / "pyproject.toml").write_text(text)
    return directory
