"""Adopting a project's hand-written CUDA configuration: pure decisions over it.

Three rules (SPEC, "Adopting an existing project"):

- a variant the project already pins is the request for its family, unless the `cuda`
  setting or `--cuda` says otherwise (`request_for`);
- a hand-written index at the URL the plan chooses is used as it is, under the authors'
  name (`adopted_source`), and the pins on it stay as written;
- every other hand-written entry the plan contradicts is a conflict; `review` lists them
  all at once, with the indexes that taking them over would leave unused, so that one
  `lock --adopt` resolves them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.accelerators import accelerator_of
from poetry_cuda.errors import ConfigError
from poetry_cuda.planning.plan import Source
from poetry_cuda.records import frozen
from poetry_cuda.request.settings import CudaRequest


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.accelerators import Accelerator
    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.request.handwritten import HandIndex
    from poetry_cuda.request.handwritten import HandPin
    from poetry_cuda.request.handwritten import HandWritten
    from poetry_cuda.request.settings import Settings
    from poetry_cuda.versions import CudaVersion


_STACKS: tuple[Accelerator | None, ...] = ("rocm", "xpu")  # planned by `gpu_stacks`, never asked


def request_for(family: Family, settings: Settings, hand: HandWritten) -> CudaRequest:
    """What is asked of `family`: the cuda setting, else the variant the project pins."""
    if settings.cuda.kind != "auto":
        return settings.cuda
    cudas = {v.name: v.cuda for release in family.releases for v in release.variants}
    written: list[HandPin | HandIndex] = [*hand.asked(family.name), *hand.implicit(family.name)]
    # A ROCm or XPU build is the one `gpu_stacks` plans for AMD or Intel targets, not a
    # request for the CPU build: its source is adopted where the plan's equals it.
    shown = [e for e in written if accelerator_of(e.variant) not in _STACKS]
    if not shown:
        return settings.cuda
    variants: dict[str, CudaVersion | None] = {}
    for entry in shown:
        variants.setdefault(entry.variant, cudas.get(entry.variant))
    cuda_entries = [e for e in shown if cudas.get(e.variant) is not None] or shown
    return CudaRequest.pinned(variants, cuda_entries[0].evidence)


def pinned_request(
    plan: Plan, settings: Settings, hand: HandWritten, families: Sequence[Family]
) -> str | None:
    """The `cuda` value that keeps the authors' variant once `lock --adopt` took the pins over.

    Only where the request came from the pins (no cuda setting, no --cuda) and the pins
    of every planned family name one and the same CUDA variant.
    """
    planned = {choice.family for choice in plan.packages}
    asked = {
        request.text
        for family in families
        if family.name in planned
        and (request := request_for(family, settings, hand)).pinned_by
        and request.kind == "version"
    }
    if len(asked) != 1:
        return None
    only = asked.pop()
    return None if "," in only else only


def _same_url(first: str, second: str) -> bool:
    return first.strip().rstrip("/") == second.strip().rstrip("/")


def adopted_source(family: Family, variant: str, chosen: Source, hand: HandWritten) -> Source:
    """The authors' own index where it is the one the plan chose, else `chosen`: one a
    source can name (an unnamed index or an extra-index-url serves as found beside it).
    Where the plan takes PyPI's upload of the variant, the family's index of that variant
    the authors pin it to serves it as well (Paddle's cu118 index, PyPI's CUDA 11.8 build).
    An index whose name and URL are the ones poetry-cuda gives it is ours, as
    `managed.is_our_source` has it, though a pin of the authors' names it."""
    for index in hand.indexes:
        same = index.family == family.name and index.variant == variant and index.named
        pinned = chosen.is_pypi and any(p.index == index.name for p in hand.pins)
        ours = family.names(index.name, index.url)
        if same and (pinned or _same_url(index.url, chosen.url)) and not ours:
            return Source(index.name, index.url, adopted=True)
    return chosen


@frozen
class Conflict:
    """A hand-written entry the plan contradicts, and why."""

    entry: str  # where and what: "[tool.poetry.dependencies] torch = { source = ... }"
    why: str

    @property
    def said(self) -> str:
        return f"{self.entry}: {self.why}"


@frozen
class Adoption:
    """What the plan makes of the authors' CUDA configuration."""

    kept: frozenset[str] = frozenset()  # packages whose own pins stay exactly as written
    conflicts: tuple[Conflict, ...] = ()
    taken: tuple[HandPin, ...] = ()  # the pins `lock --adopt` rewrites
    unused: tuple[HandIndex, ...] = ()  # the indexes `lock --adopt` removes
    outdated: tuple[HandIndex, ...] = ()  # Poetry 1.x sources `lock --adopt` makes explicit

    @property
    def needed(self) -> bool:
        return bool(self.conflicts)

    def error(self, command: str) -> ConfigError:
        """The refusal that lists every conflict and names the command that takes them over."""
        entries = "entry" if len(self.conflicts) == 1 else "entries"
        head = f"pyproject.toml configures CUDA builds by hand in {len(self.conflicts)} {entries}"
        lines = [f"{head} the plan contradicts:"]
        lines.extend(f"  {conflict.said}" for conflict in self.conflicts)
        if self.unused:
            lines.append("and taking them over leaves unused:")
            lines.extend(f"  {index.said}" for index in self.unused)
        return ConfigError(
            "\n".join(lines),
            why="poetry-cuda pins CUDA-flavoured packages to the chosen index itself, and "
            "changes no hand-written entry unless asked to",
            fix=f"run `{command} --adopt` to take them over (add --dry-run to see the diff "
            "first); or ask for the build they pin (--cuda, or cuda in [tool.poetry-cuda])",
        )


def review(plan: Plan, hand: HandWritten) -> Adoption:
    """Which hand-written entries stay, and which the plan contradicts (every one)."""
    choices = {c.name: c for c in plan.packages}
    conflicts: list[Conflict] = []
    taken: list[HandPin] = []
    settled: set[str] = set()  # packages with a pin that stays
    # A pin in an extra stands beside the plan unless its family offers one build per extra.
    forked = {pin.family for pin in hand.pins if pin.extra is not None and hand.extras(pin.family)}
    for pin in hand.pins:
        choice = choices.get(pin.package)
        if choice is None or choice.family != pin.family or pin.family in forked:
            continue
        why = _contradiction(pin, choice.variant, choice.source)
        if why is None:
            if pin.kind == "index":
                settled.add(pin.package)
            continue
        conflicts.append(Conflict(f"{pin.where} {pin.written}", why))
        taken.append(pin)
    taken_packages = {pin.package for pin in taken}
    # A package with any contradicted entry is taken over whole (its other entries too).
    taken.extend(
        p
        for p in hand.pins
        if p.package in taken_packages and p not in taken and p.family not in forked
    )
    chosen = {c.family: c for c in plan.packages}
    unused: list[HandIndex] = []
    for index in hand.indexes:
        choice = chosen.get(index.family)
        if choice is None or hand.extras(index.family):
            continue
        if choice.source.adopted and choice.source.name == index.name:
            continue
        users = hand.users.get(index.name, frozenset())
        if index.implicit and index.variant != choice.variant:
            conflicts.append(
                Conflict(
                    index.said,
                    f"serves {index.variant} builds of {choice.family} to the resolver without "
                    f"a pin, and the plan chooses {choice.variant} ({choice.source.name})",
                )
            )
            unused.append(index)
        elif users and users <= taken_packages:
            unused.append(index)
    outdated = [i for i in hand.indexes if i.old_priority and i not in unused]
    conflicts.extend(
        Conflict(
            index.said,
            f"{index.old_priority} is a Poetry 1.x setting, which Poetry 2 refuses; --adopt "
            'writes priority = "explicit" (only the packages pinned to it come from it)',
        )
        for index in outdated
    )
    return Adoption(
        kept=frozenset(settled - taken_packages),
        conflicts=tuple(conflicts),
        taken=tuple(taken),
        unused=tuple(unused),
        outdated=tuple(outdated),
    )


def _contradiction(pin: HandPin, variant: str, source: Source) -> str | None:
    """Why `pin` cannot stay beside the plan's choice, or None when it can."""
    chose = f"the plan chooses {variant} ({source.name}, {source.url})"
    if pin.kind == "url":
        return (
            f"pins the {pin.variant} wheel {pin.version} by URL, one file for every platform "
            f"it matches; {chose}, through its index"
        )
    if pin.kind == "label":
        if pin.variant == variant:
            return None
        return f"pins the {pin.variant} build ({pin.version}+{pin.variant}); {chose}"
    if pin.variant == "cpu" and pin.marker and variant != "cpu":
        return None  # the authors' CPU build for other platforms (macOS), beside the CUDA one
    if _same_url(pin.url, source.url):
        return None
    if pin.variant == variant:  # the same build from another URL: the mirror configured
        return f"takes {variant} from {pin.index} ({pin.url}); the plan takes it from {source.url}"
    return f"pins {pin.variant} through {pin.index} ({pin.url}); {chose}"
