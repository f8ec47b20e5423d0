"""`variant-properties`: the static properties file with which uv picks poetry-cuda's label.

For a package's wheel-variant metadata and the targets (`--target`, the project's `targets`,
else this machine), the label is chosen by
poetry-cuda's rules (`planning.variant_label`; a target with AMD or Intel GPUs gets the label
of the ROCm or XPU build the plan's rule gives it for the metadata's release, and the
project's `allow-cpu-fallback` holds as in `plan`) and the file written that makes uv's
wheel-variant preview pick it with no provider plugin run (`planning.variant_properties`;
uv reads it from the path in ``UV_VARIANT_LOCK``). The file goes to `-o FILE`, written
whole or not at all (a pipe or device as a stream: `files.write_output`), or to stdout; the choice, its reason and any audit line go to stderr.

The metadata is torch's as its variant releases published it (the knowledge base's
``variants/releases.toml``): the newest release the project's torch constraint admits, or the
newest known outside a project or where the project sets none; stderr names the release.
`--variants FILE` (an index's ``{name}-{version}-variants.json``) overrides it, for another
release or package.

No released uv reads ``UV_VARIANT_LOCK`` yet (uv 0.13 selects variants in preview with its
vendored NVIDIA provider; the file is its prototype's): the tests check the file against the
prototype's format, and the label choice against what uv 0.13 installs from a loopback
variant index with the provider's facts forced (``NV_VARIANT_PROVIDER_FORCE_*``).
"""

from __future__ import annotations

import os

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar

from poetry_cuda.cli.commands.base import POLICY_OPTION
from poetry_cuda.cli.commands.base import TARGET_OPTION
from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.commands.base import labelled_line
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape
from poetry_cuda.errors import UsageError
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.planning.targets import Target
    from poetry_cuda.planning.variant_metadata import VariantMetadata
    from poetry_cuda.request.settings import Policy


PACKAGE = "torch"  # the package whose published variant metadata the knowledge base holds
STDOUT = "-"  # `-o -`: standard output, as without -o


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
            "Use this {name}-{version}-variants.json (as the package's variant index serves "
            "it) instead of torch's published metadata for the newest release the project "
            "admits.",
            flag=False,
            value="FILE",
        ),
        POLICY_OPTION,
        Option(
            "output",
            "Write the file here instead of stdout (- for stdout; a pipe or device is "
            "written to as a stream).",
            flag=False,
            short="o",
        ),
    )

    def run_command(self) -> int:
        from poetry_cuda import __version__
        from poetry_cuda.files import read_bounded
        from poetry_cuda.files import read_toml
        from poetry_cuda.knowledge.packaged import load
        from poetry_cuda.planning.targets import load_targets
        from poetry_cuda.planning.variant_label import choose_for_all
        from poetry_cuda.planning.variant_metadata import FILE_LIMIT
        from poetry_cuda.planning.variant_metadata import parse_variants_json
        from poetry_cuda.planning.variant_properties import answers
        from poetry_cuda.planning.variant_properties import pinned
        from poetry_cuda.planning.variant_properties import render
        from poetry_cuda.planning.variant_release import known_release
        from poetry_cuda.request.project import nearest_project
        from poetry_cuda.request.settings import Settings
        from poetry_cuda.request.settings import parse_settings

        kb = load()
        project = nearest_project(self.project_start())
        pyproject = read_toml(project / "pyproject.toml") if project is not None else None
        given = self.option("variants")
        if given:
            path = Path(given)
            metadata = parse_variants_json(read_bounded(path, limit=FILE_LIMIT), str(path))
            package, version = _name_and_version(path.name)
        else:
            package, version, metadata = self._published(pyproject)
        family = kb.family_of(package) if package else None
        release = known_release(family, version)
        settings = parse_settings(pyproject) if pyproject is not None else Settings()
        targets, warnings, _ = load_targets(
            project,
            settings,
            self.option("target"),
            os.environ,
            kb.nvidia,
            detect=self.detect_this_machine,
        )
        for warning in warnings:
            self.warn(warning)
        given_policy = self.option("policy") or settings.policy
        policy: Policy = "native" if given_policy == "native" else "newest"
        if given_policy != policy:
            from poetry_cuda.planning.planner import bad_policy

            raise bad_policy(given_policy)
        stacks = self._stacks(package, version, targets, settings.allow_cpu_fallback)
        choice = choose_for_all(
            metadata,
            targets,
            kb.nvidia,
            release=release,
            policy=policy,
            package=package,
            allow_cpu_fallback=settings.allow_cpu_fallback,
            stacks=stacks,
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
        language = user_language()
        chosen = message("label.chosen", label=choice.label, reason=choice.reason)
        self.line_error(labelled_line(chosen.text(language)))
        for line in choice.audit:
            audit = message("label.audit", text=line).text(language)
            self.line_error(labelled_line(audit, "comment"))
        output = self.option("output")
        if output and output != STDOUT:
            from poetry_cuda.files import write_output

            write_output(Path(output), text)
            self.line_error(escape(message("label.wrote", path=output).text(language)))
        else:
            self.raw(text.rstrip("\n"))
        return 0

    def _stacks(
        self, package: str, version: str, targets: Sequence[Target], allow_cpu_fallback: bool
    ) -> dict[str, str]:
        """The build the plan gives each target whose GPUs are AMD's or Intel's, from the
        metadata's release (`gpu_stacks.plan_target`, as `plan` does), its warnings said:
        ``rocm7.1``, ``xpu``, or ``cpu``."""
        from poetry_cuda.knowledge.packaged import rocm
        from poetry_cuda.knowledge.packaged import xpu
        from poetry_cuda.messages import message
        from poetry_cuda.planning.gpu_stacks import FAMILY
        from poetry_cuda.planning.gpu_stacks import GpuStacks
        from poetry_cuda.planning.gpu_stacks import needs_stack
        from poetry_cuda.planning.gpu_stacks import plan_target

        needing = [target for target in targets if needs_stack(target)]
        if needing and not version:
            raise UsageError(
                message("variant.file-unnamed"), fix=message("variant.file-unnamed-fix")
            )
        if package != FAMILY:  # ROCm and XPU builds are planned for torch alone
            return {target.label: "cpu" for target in needing}
        stacks = GpuStacks(rocm(), xpu())
        planned = {}
        for target in needing:
            plan = plan_target(target, [version], stacks, allow_cpu_fallback)
            for warning in plan.warnings:
                self.warn(warning)
            planned[target.label] = plan.variant or "cpu"
        return planned

    def _published(self, pyproject: dict[str, Any] | None) -> tuple[str, str, VariantMetadata]:
        """torch's published metadata for the newest release the project admits, said on
        stderr with its source."""
        from poetry_cuda.backends.readers import READERS
        from poetry_cuda.knowledge.variant_releases import load as load_releases
        from poetry_cuda.knowledge.variant_releases import releases_of
        from poetry_cuda.planning.variant_metadata import parse_variants_json
        from poetry_cuda.planning.variant_release import pick_release
        from poetry_cuda.request.dependencies import read_dependencies

        rows = releases_of(PACKAGE, load_releases())
        declared = read_dependencies(pyproject, READERS) if pyproject is not None else ()
        pick = pick_release(PACKAGE, [row.version for row in rows], declared)
        row = next(row for row in rows if row.version == pick.version)
        if pick.warning is not None:
            self.warn(pick.warning)
        reason = (
            pick.reason
            if pyproject is not None
            else Phrase((pick.reason, message("release.no-project")), "; ")
        )
        said = message(
            "release.metadata",
            package=PACKAGE,
            version=row.version,
            reason=reason,
            source=row.source,
        )
        self.line_error(labelled_line(said.text(user_language())))
        metadata = parse_variants_json(row.data, f"{PACKAGE} {row.version}'s {row.file}")
        return PACKAGE, row.version, metadata


def _name_and_version(filename: str) -> tuple[str, str]:
    """``torch``, ``2.9.0`` of ``torch-2.9.0-variants.json`` (empty for another name)."""
    stem = filename.removesuffix("-variants.json")
    if stem == filename or stem.count("-") != 1:
        return "", ""
    name, version = stem.split("-")
    return name.replace("_", "-").lower(), version
