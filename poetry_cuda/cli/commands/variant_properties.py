"""`variant-properties`: the static properties file with which uv picks poetry-cuda's label.

For a package's wheel-variant metadata (the index's ``{name}-{version}-variants.json``,
`--variants`) and the targets (`--target`, else this machine), the label is chosen by
poetry-cuda's rules (`planning.variant_label`) and the file written that makes uv's
wheel-variant preview pick it with no provider plugin run (`planning.variant_properties`;
uv reads it from the path in ``UV_VARIANT_LOCK``). The file goes to `-o FILE`, written
whole or not at all, or to stdout; the choice, its reason and any audit line go to stderr.

No released uv reads ``UV_VARIANT_LOCK`` yet (uv 0.13 selects variants in preview with its
vendored NVIDIA provider; the file is its prototype's): the tests check the file against the
prototype's format, and the label choice against what uv 0.13 installs from a loopback
variant index with the provider's facts forced (``NV_VARIANT_PROVIDER_FORCE_*``).
"""

from __future__ import annotations

import os

from pathlib import Path
from typing import TYPE_CHECKING
from typing import ClassVar

from poetry_cuda.cli.commands.base import POLICY_OPTION
from poetry_cuda.cli.commands.base import TARGET_OPTION
from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.markup import escape
from poetry_cuda.errors import UsageError


if TYPE_CHECKING:
    from poetry_cuda.request.settings import Policy


class VariantPropertiesCommand(CudaCommand):
    name = "variant-properties"
    description = (
        "Write the static properties file (UV_VARIANT_LOCK) with which uv picks the wheel "
        "variant poetry-cuda chose."
    )
    options: ClassVar[tuple[Option, ...]] = (
        TARGET_OPTION,
        Option(
            "variants",
            "The package's {name}-{version}-variants.json, as its variant index serves it.",
            flag=False,
            value="FILE",
        ),
        POLICY_OPTION,
        Option("output", "Write the file here instead of stdout.", flag=False, short="o"),
    )

    def run_command(self) -> int:
        from poetry_cuda import __version__
        from poetry_cuda.files import read_bounded
        from poetry_cuda.knowledge.packaged import load
        from poetry_cuda.planning.targets import load_targets
        from poetry_cuda.planning.variant_label import choose_for_all
        from poetry_cuda.planning.variant_metadata import FILE_LIMIT
        from poetry_cuda.planning.variant_metadata import parse_variants_json
        from poetry_cuda.planning.variant_properties import answers
        from poetry_cuda.planning.variant_properties import pinned
        from poetry_cuda.planning.variant_properties import render
        from poetry_cuda.request.settings import Settings

        given = self.option("variants")
        if not given:
            raise UsageError(
                "variant-properties needs the package's variant metadata",
                why="the labels and their properties are the package's: each version "
                "publishes them in {name}-{version}-variants.json beside its variant wheels",
                fix="download it from the variant index (torch: "
                "https://download.pytorch.org/whl/variant/) and pass --variants FILE",
            )
        path = Path(given)
        metadata = parse_variants_json(read_bounded(path, limit=FILE_LIMIT), str(path))
        kb = load()
        package, version = _name_and_version(path.name)
        family = kb.family_of(package) if package else None
        release = None
        if family is not None and version:
            release = next((r for r in family.releases if version.startswith(f"{r.series}.")), None)
        targets, warnings, _ = load_targets(
            None,
            Settings(),
            self.option("target"),
            os.environ,
            kb.nvidia,
            detect=self.detect_this_machine,
        )
        for warning in warnings:
            self.warn(warning)
        given_policy = self.option("policy") or "newest"
        policy: Policy = "native" if given_policy == "native" else "newest"
        if given_policy != policy:
            raise UsageError(f"--policy: {given_policy!r} is not newest or native")
        choice = choose_for_all(
            metadata, targets, kb.nvidia, release=release, policy=policy, package=package
        )
        supported = pinned(metadata, choice.label, targets)
        entries = answers(metadata, supported, targets[0])
        said = ", ".join(target.label for target in targets)
        text = render(
            entries,
            f"poetry-cuda {__version__}",
            [
                f"written by poetry-cuda variant-properties for {said}: {choice.label}",
                "uv reads it from the path in UV_VARIANT_LOCK (wheel-variants preview)",
            ],
        )
        self.line_error(f"<info>Variant</info>: {escape(choice.label)} ({escape(choice.reason)})")
        for line in choice.audit:
            self.line_error(f"<comment>Audit</comment>: {escape(line)}")
        output = self.option("output")
        if output:
            from poetry_cuda.files import write_atomic

            write_atomic(Path(output), text)
            self.line_error(f"Wrote {escape(output)}")
        else:
            self.raw(text.rstrip("\n"))
        return 0


def _name_and_version(filename: str) -> tuple[str, str]:
    """``torch``, ``2.9.0`` of ``torch-2.9.0-variants.json`` (empty for another name)."""
    stem = filename.removesuffix("-variants.json")
    if stem == filename or stem.count("-") != 1:
        return "", ""
    name, version = stem.split("-")
    return name.replace("_", "-").lower(), version
