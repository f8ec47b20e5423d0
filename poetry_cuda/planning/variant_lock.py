"""The wheel-variant label `lock` records for a package whose family the project opts into
wheel variants (`[tool.poetry-cuda.wheel-variants]`).

Neither Poetry nor a released uv installs a variant wheel by plain `poetry install` /
`uv sync`: Poetry reads the label as part of the platform tag and refuses the wheel, uv
asks for its wheel-variants preview and then runs its own provider. PyTorch's variant
wheels are its ordinary builds repacked (``cuda12.6`` is ``cu126``), so the managed
entries keep pinning the ordinary build, and the label is chosen to be that build: the
label poetry-cuda's rules give the targets (`variant_label.choose_for_all`) must name the
planned variant, else the planned build has no variant wheel for the targets and the plan
is made again without it (`VariantPick.matches`). cuda.lock records the label and its
published properties, for a variant-aware installer (`variant-properties`) and the audit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.names import canonical_name
from poetry_cuda.planning.gpu_stacks import needs_stack
from poetry_cuda.planning.variant_label import choose_for_all
from poetry_cuda.planning.variant_label import variant_name
from poetry_cuda.planning.variant_metadata import property_lines
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Nvidia
    from poetry_cuda.knowledge.model import Release
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.plan import Choice
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.planning.variant_metadata import VariantMetadata
    from poetry_cuda.request.settings import Policy


@frozen
class VariantPick:
    """The label chosen for a package on every target, its properties, and why."""

    package: str
    variant: str  # the planned build
    label: str
    properties: tuple[str, ...]  # `variant_metadata.property_lines`
    reason: Localized
    audit: tuple[Localized, ...]

    @property
    def matches(self) -> bool:
        """Whether the label is the planned build (``cuda12.8`` of ``cu128``)."""
        return variant_name(self.label) == self.variant


def metadata_file(package: str, version: str) -> str:
    """``torch-2.9.1-variants.json``: the file a variant index lists beside the wheels
    (PEP 825: the name as a wheel's file name writes it)."""
    return f"{canonical_name(package).replace('-', '_')}-{version}-variants.json"


def public_version(choice: Choice) -> str | None:
    """``2.9.1`` of ``2.9.1+cu128``: the version the variant wheels carry."""
    if choice.version is None:
        return None
    return choice.version.removesuffix(choice.label) if choice.label else choice.version


def pick_variant(
    choice: Choice,
    metadata: VariantMetadata,
    targets: Sequence[Target],
    nvidia: Nvidia,
    *,
    release: Release | None,
    policy: Policy,
    allow_cpu_fallback: bool = False,
) -> VariantPick:
    """The label of `metadata` for `choice` on every target, by poetry-cuda's rules (a
    target with AMD or Intel GPUs: the label of the ROCm or XPU build `choice` is); a
    NoVariantError (exit 3) when none serves every target, or the metadata has no label
    of the planned ROCm or XPU build."""
    # A target whose GPUs are AMD's or Intel's gets the label of the plan's build for it.
    planned = choice.variant if choice.accelerator in ("rocm", "xpu") else "cpu"
    chosen = choose_for_all(
        metadata,
        targets,
        nvidia,
        release=release,
        policy=policy,
        package=choice.name,
        allow_cpu_fallback=allow_cpu_fallback,
        stacks={target.label: planned for target in targets if needs_stack(target)},
    )
    return VariantPick(
        choice.name,
        choice.variant,
        chosen.label,
        property_lines(metadata.variants[chosen.label]),
        chosen.reason,
        chosen.audit,
    )
