"""The messages a user meets most often, in English and in Chinese.

Many of the people who meet the problems poetry-cuda solves read Chinese first, so the
commonest messages (no driver, no build for a GPU, an index out of reach, a hidden system
requirement, doctor's findings) have a Chinese text beside the English one. Code builds a
`Message` (an id and its parameters) where it would have built the English string; the
language is chosen once, at the interface edge, from the user's locale (`language_of`), and
the text is rendered only when printed. English is the default, and `str()` of a message
is its English text, so everything that stores or compares text keeps seeing English.
"""

from __future__ import annotations

import string

from dataclasses import field
from typing import TYPE_CHECKING
from typing import Final
from typing import Literal
from typing import NamedTuple
from typing import TypeAlias

from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping

Language = Literal["en", "zh"]
# The locale variables in the order POSIX consults them for messages.
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


class Texts(NamedTuple):
    """One message in each language, with the same `{placeholders}`."""

    en: str
    zh: str


MessageId = Literal[
    "error.why",
    "error.fix",
    "did-you-mean",
    "usage.unknown-command",
    "usage.either",
    "usage.and",
    "usage.list-fix",
    "usage.unknown-option",
    "usage.needs-value",
    "usage.takes-no-value",
    "usage.options-fix",
    "exact.stdout",
    "exact.stderr",
    "exact.refused",
    "exact.undecodable",
    "exact.no-code",
    "exact.fix",
    "usage.no-arguments",
    "interrupted",
    "stdout.closed",
    "stdout.closed-why",
    "stdout.closed-fix",
    "crash.what",
    "crash.why",
    "crash.fix",
    "usage.pass-example",
    "os.not-found",
    "os.not-a-folder",
    "os.permission",
    "usage.cannot-enter",
    "usage.give-folder",
    "usage.project-not-folder",
    "usage.project-names-folder",
    "run.no-command",
    "run.no-command-why",
    "run.no-command-fix",
    "run.not-found",
    "run.not-found-why",
    "run.not-found-fix",
    "run.not-executable",
    "run.not-executable-why",
    "run.not-executable-fix",
    "driver.none",
    "driver.too-old",
    "no-variant.first-line",
    "no-variant.first-line-pinned",
    "no-variant.first-line-allowed",
    "no-variant.none-serves",
    "no-variant.no-kernels",
    "no-variant.no-kernels-on",
    "no-variant.why",
    "no-variant.why-python",
    "no-variant.why-excluded",
    "no-variant.fix-versions",
    "no-variant.fix-cpu",
    "no-variant.fix-or-pass-cuda",
    "no-variant.fix-or-change",
    "no-variant.fix-or-cpu-fallback",
    "no-variant.fix-or-narrow-python",
    "no-variant.fix-narrow-python",
    "unknown-cuda.what",
    "unknown-cuda.why",
    "unknown-cuda.fix",
    "unmatched-cuda.what",
    "unmatched-cuda.why",
    "unmatched-cuda.fix",
    "cuda.not-a-request",
    "cuda.request-forms",
    "cuda.request-fix",
    "schema.at",
    "schema.unknown-key",
    "schema.not-one-of",
    "schema.missing-one-of",
    "schema.empty",
    "schema.missing",
    "schema.expected",
    "type.string",
    "type.integer",
    "type.boolean",
    "type.bytes",
    "type.table",
    "type.tables",
    "type.list",
    "type.strings",
    "type.values",
    "type.paths",
    "type.path",
    "type.url",
    "type.features",
    "type.namespaces",
    "type.packages",
    "type.provider",
    "type.cuda-major",
    "type.cuda-major-example",
    "type.object",
    "type.objects",
    "type.platform-variants",
    "type.member-versions",
    "config.correct",
    "config.write-example",
    "config.known-keys",
    "target.not-found",
    "target.not-found-fix",
    "target.unreadable",
    "target.make-utf8",
    "target.not-json",
    "target.is-profile",
    "target.write-with-detect",
    "profile.schema-why",
    "profile.schema-fix",
    "plan.header",
    "plan.no-packages",
    "plan.from",
    "plan.expects",
    "plan.extras",
    "plan.fork-extra",
    "plan.fork-group",
    "plan.fork-marker",
    "plan.fork-where",
    "plan.fork-serves",
    "plan.added",
    "backend.line",
    "backend.setting",
    "backend.uv-lock",
    "backend.tool-uv",
    "backend.poetry-lock",
    "backend.tool-poetry",
    "backend.build-backend",
    "backend.dependency-groups",
    "backend.none-installed",
    "backend.only-installed",
    "backend.first-installed",
    "backend.recorded",
    "lock.first",
    "plan.base-image",
    "plan.base-image-none",
    "image.needs",
    "image.no-cuda-build",
    "image.builds-for",
    "image.driver-cap",
    "image.none-meets",
    "image.wheels-bring",
    "image.devel",
    "image.runtime",
    "image.cudnn-pin",
    "image.no-tensorrt",
    "image.unconfirmed",
    "image.driver-bound",
    "verdict.not-published",
    "verdict.cpu-build",
    "verdict.not-planned",
    "verdict.stack-gpu",
    "verdict.stack-no-gpu",
    "verdict.needs-driver",
    "verdict.driver-at-least",
    "verdict.cuda-driver",
    "verdict.needs-newer",
    "verdict.needs-floor",
    "verdict.at-least",
    "verdict.minor-compatible",
    "verdict.native",
    "verdict.no-kernels",
    "verdict.sass",
    "verdict.sass-via",
    "verdict.ptx",
    "verdict.ptx-not-native",
    "verdict.policy-native",
    "reason.labelled",
    "reason.driver-supports",
    "reason.every-target",
    "reason.asks-for",
    "reason.ruled-out",
    "reason.excluded-by",
    "reason.older-release",
    "reason.constraints-exclude",
    "reason.not-published-for-allowed",
    "reason.cpu-asked-pinned",
    "reason.cpu-asked",
    "reason.cpu-macos",
    "reason.cpu-no-driver",
    "reason.cpu-no-driver-unplanned",
    "reason.rocm-build",
    "reason.xpu-build",
    "stacks.mixed-what",
    "stacks.mixed-why",
    "stacks.mixed-fix",
    "stacks.fork-unserved",
    "stacks.fork-unserved-gfx",
    "stacks.fork-unserved-driver",
    "stacks.fork-unserved-fix",
    "stacks.fork-unserved-cpu",
    "variant.no-stack-label",
    "variant.no-stack-label-why",
    "variant.no-stack-label-fix",
    "variant.file-unnamed",
    "variant.file-unnamed-fix",
    "label.foreign",
    "label.unknown",
    "label.none-serves",
    "label.none-listed",
    "label.none-serves-fix",
    "label.fallback",
    "label.planned-cpu",
    "label.no-driver",
    "label.installer-picks",
    "label.stack",
    "label.plan-gives",
    "label.publishes-without",
    "label.gets",
    "label.none-serves-all",
    "label.none-serves-all-fix",
    "label.newest-for-all",
    "label.arches-differ",
    "label.runs-minor",
    "label.runs-native",
    "label.lower-bound",
    "label.audit",
    "label.chosen",
    "label.wrote",
    "release.newest-unconstrained",
    "release.newest-admitted",
    "release.fallback",
    "release.none-admitted",
    "release.no-project",
    "release.metadata",
    "env.rocm-build",
    "env.xpu-build",
    "rocm.unknown-gfx",
    "rocm.cpu-fallback",
    "rocm.or-cpu-fallback",
    "rocm.passed-over",
    "rocm.driver-cannot-run",
    "rocm.no-build-for",
    "rocm.none-serves",
    "rocm.none-matches",
    "rocm.served-from",
    "rocm.known-unserved",
    "rocm.override",
    "rocm.override-warned",
    "rocm.driver-unknown",
    "rocm.driver-not-known",
    "rocm.platform",
    "rocm.platform-windows",
    "rocm.cuda-serves-one",
    "rocm.cuda-serves",
    "rocm.left-out",
    "xpu.unsupported-gpu",
    "xpu.no-aot",
    "xpu.no-level-zero",
    "xpu.none-serves",
    "xpu.from",
    "xpu.fix",
    "reason.only-minor-compatible",
    "reason.only-minor-compatible-on",
    "plan.earlier-machine",
    "passed.over",
    "passed.python-gap-one",
    "passed.python-gap-many",
    "passed.no-build-matches",
    "passed.no-cuda-build-admitted",
    "passed.every-target",
    "passed.none-runs",
    "passed.none-runs-natively",
    "passed.none-allowed-runs",
    "passed.none-allowed-runs-natively",
    "passed.no-members-one",
    "passed.no-members-many",
    "passed.not-served",
    "passed.unpublished",
    "passed.chose-as-asked",
    "passed.cpu-fallback",
    "passed.prerelease-pinned",
    "plan.recorded-fallback",
    "available.no-other",
    "available.fallback",
    "available.missing",
    "available.unchecked",
    "available.no-version",
    "available.no-platform",
    "available.no-python",
    "lock.waiting",
    "undo.restored",
    "undo.as-before-one",
    "undo.as-before",
    "undo.kept-one",
    "undo.kept-one-sentence",
    "undo.kept",
    "undo.kept-sentence",
    "undo.failed",
    "undo.failed-sentence",
    "undo.did-not-finish",
    "undo.sentence",
    "undo.previous-finished",
    "undo.previous-stopped",
    "env.no-lock",
    "env.no-lock-why",
    "env.no-lock-fix",
    "sync.no-lock",
    "sync.no-lock-why",
    "sync.lock-first",
    "sync.extra",
    "sync.platform-fork",
    "sync.would-run",
    "sync.running",
    "sync.toolkit",
    "plan.serves-no-gpu",
    "plan.recorded-targets",
    "plan.user-mirror",
    "plan.user-mirror-uv",
    "plan.mirror",
    "warning.line",
    "nvcc.mismatch-cuda",
    "nvcc.mismatch-need",
    "nvcc.mismatch-fix-cuda",
    "nvcc.mismatch-fix-need",
    "redist.unreachable",
    "redist.unreachable-upstream",
    "redist.unreachable-mirror",
    "redist.unreachable-fix",
    "redist.no-archives",
    "redist.no-archives-why",
    "redist.no-archives-fix",
    "redist.redirect-refused",
    "redist.redirect-refused-fix",
    "redist.too-large",
    "redist.too-large-why",
    "redist.check-mirror",
    "redist.cut-short",
    "redist.cut-short-why",
    "redist.cut-short-fix",
    "redist.status",
    "redist.status-fix",
    "redist.broken-answer",
    "redist.too-many-redirects",
    "redist.cannot-download",
    "redist.cannot-download-fix",
    "redist.no-component",
    "redist.no-component-why",
    "redist.no-component-fix",
    "redist.no-platform",
    "redist.no-platform-why",
    "redist.no-platform-fix",
    "redist.no-release",
    "redist.no-release-why",
    "redist.no-release-fix",
    "lock.no-change",
    "lock.locked",
    "lock.wrote",
    "check.stale",
    "lock.file-missing",
    "cuda-lock.damaged-why",
    "cuda-lock.damaged-fix",
    "cuda-lock.overlong",
    "cuda-lock.version",
    "cuda-lock.version-why",
    "cuda-lock.version-fix",
    "stale.pyproject",
    "stale.managed",
    "stale.targets",
    "stale.plan-chooses",
    "stale.lock-records",
    "check.fix",
    "check.fresh",
    "detect.host",
    "detect.where",
    "detect.this-machine",
    "detect.driver",
    "detect.none-found",
    "detect.kubernetes-missing",
    "detect.kubernetes-missing-why",
    "detect.kubernetes-missing-fix",
    "k8s.why",
    "k8s.fix",
    "k8s.label-why",
    "k8s.stdin",
    "k8s.not-json",
    "k8s.not-json-fix",
    "k8s.not-text",
    "k8s.unreadable-document",
    "k8s.too-costly",
    "k8s.too-costly-why",
    "k8s.too-costly-fix",
    "k8s.closed",
    "k8s.closed-fix",
    "k8s.terminal",
    "k8s.terminal-fix",
    "k8s.cannot-read",
    "k8s.too-large",
    "k8s.too-large-why",
    "k8s.too-large-fix",
    "k8s.selector",
    "k8s.selector-why",
    "k8s.selector-fix",
    "k8s.top-level",
    "k8s.an-object",
    "k8s.a-list",
    "k8s.a-node",
    "k8s.a-string",
    "k8s.expected-a-string",
    "k8s.not-a-list",
    "k8s.not-a-node",
    "k8s.bad-node-name",
    "k8s.node",
    "k8s.label",
    "k8s.label-fix",
    "k8s.label-too-long",
    "k8s.not-label-value",
    "k8s.not-a-number",
    "k8s.not-a",
    "k8s.driver-version",
    "k8s.cuda-version",
    "k8s.without",
    "k8s.not-driver-part",
    "k8s.no-arch",
    "k8s.no-arch-why",
    "k8s.no-arch-fix",
    "k8s.not-machine",
    "k8s.not-os",
    "k8s.twice",
    "k8s.no-driver",
    "k8s.restart-gfd",
    "k8s.options-need",
    "k8s.options-need-fix",
    "k8s.with-target",
    "k8s.with-target-fix",
    "k8s.no-group",
    "k8s.no-group-selected",
    "k8s.no-group-why",
    "k8s.no-group-fix",
    "k8s.wrote",
    "k8s.cluster",
    "k8s.groups-one",
    "k8s.groups",
    "k8s.nodes-one",
    "k8s.nodes",
    "k8s.matched",
    "k8s.no-groups",
    "k8s.cpu-only",
    "k8s.unlabelled",
    "k8s.as",
    "k8s.capability",
    "k8s.no-capability",
    "k8s.devices-in-all",
    "k8s.gpus-in-all",
    "k8s.unknown",
    "k8s.group",
    "k8s.group-gpus",
    "k8s.group-driver",
    "k8s.group-nodes",
    "k8s.and-more",
    "k8s.unlabelled-warning-one",
    "k8s.unlabelled-warning",
    "k8s.stale-profile",
    "k8s.no-folder",
    "k8s.no-folder-fix",
    "k8s.in-the-way-link",
    "k8s.in-the-way",
    "k8s.in-the-way-why",
    "k8s.in-the-way-fix",
    "detect.none-macos",
    "detect.unknown",
    "detect.highest-cuda",
    "detect.gpu",
    "detect.memory",
    "detect.gpus",
    "detect.none-reported",
    "detect.toolkit",
    "detect.nvcc",
    "detect.no-nvcc",
    "detect.toolkits",
    "detect.at",
    "detect.probes",
    "detect.rocm-no-user-space",
    "detect.amdgpu-in-tree",
    "detect.xpu-driver",
    "detect.not-a-target",
    "detect.capability",
    "detect.device-ip",
    "probe.found",
    "probe.absent",
    "probe.skipped",
    "probe.error",
    "probe.timeout",
    "probe.not-needed",
    "probe.not-needed-because",
    "probe.gave-driver",
    "probe.linux-only",
    "probe.gave-every-fact",
    "probe.given-explicitly",
    "probe.no-nvidia-library",
    "probe.no-nvidia-module",
    "probe.not-found",
    "probe.not-installed",
    "probe.no-cudnn",
    "probe.no-libcudnn",
    "probe.no-kfd",
    "probe.no-gpu-node",
    "probe.no-pci-gpu",
    "probe.no-intel-gpu",
    "probe.no-toolkit",
    "probe.toolkit-at",
    "probe.not-a-folder",
    "probe.nvcc-outside",
    "probe.macos",
    "probe.not-a-node",
    "probe.file-skipped",
    "probe.no-version-in",
    "install.run-live",
    "install.run-dead",
    "install.stale",
    "install.user-mirror",
    "install.locked",
    "install.shared-failed",
    "run.without-environment",
    "resolution.poetry-failed",
    "resolution.poetry-why",
    "resolution.poetry-fix",
    "resolution.uv-failed",
    "resolution.uv-why",
    "resolution.uv-fix",
    "resolution.uv-timeout",
    "resolution.timeout-why",
    "resolution.timeout-fix",
    "system.title",
    "system.no-resolver",
    "system.needs",
    "system.needs-because",
    "system.to-satisfy",
    "doctor.area.host",
    "doctor.area.locks",
    "doctor.area.environment",
    "doctor.area.system",
    "doctor.area.deep",
    "doctor.summary",
    "doctor.fix-lock",
    "doctor.fix-driver",
    "doctor.driver-but-cuda-locked",
    "doctor.gpu-less",
    "doctor.gpu-less-target",
    "doctor.gpu-less-fix",
    "doctor.no-gpu",
    "doctor.no-gpu-fix",
    "doctor.variant-cannot-run",
    "doctor.no-cuda-lock",
    "doctor.stale-cuda-lock",
    "doctor.knowledge-cache-damaged",
    "doctor.knowledge-cache-fix",
    "doctor.system-met-by",
    "doctor.system-found",
    "doctor.system-version-unknown",
    "doctor.system-version-unknown-fix",
    "doctor.system-found-only",
    "doctor.system-none-found",
    "doctor.fix-lock-uv",
    "doctor.lock-unserved",
    "doctor.stack-no-gpu",
    "doctor.stack-build",
    "doctor.gfx-served",
    "doctor.gfx-unserved",
    "doctor.fix-lock-this",
    "doctor.macos",
    "doctor.driver",
    "doctor.gpu",
    "doctor.toolkit",
    "doctor.cudnn",
    "doctor.no-venv",
    "doctor.no-venv-fix",
    "doctor.venv-at",
    "doctor.no-site-packages",
    "doctor.recreate-venv",
    "doctor.not-installed",
    "doctor.install-locked",
    "doctor.cpu-build-installed",
    "doctor.install-replaces-cpu",
    "doctor.other-version",
    "doctor.missing-wheels",
    "doctor.needs-no-gpu",
    "doctor.variant-runs",
    "doctor.gpu-kernels",
    "doctor.lock-records",
    "doctor.lock-fresh",
    "doctor.locks-agree",
    "doctor.shell-agrees",
    "doctor.installed-for",
    "doctor.nvidia-wheels",
    "doctor.nvidia-size",
    "doctor.no-requirement",
    "doctor.macos-no-requirement",
    "doctor.no-project",
    "doctor.no-project-fix",
    "doctor.lockfile-stale",
    "doctor.recorded-fix",
    "doctor.fix-driver-uv",
    "doctor.shell-fix",
    "doctor.shell-fix-uv",
    "doctor.image-fix",
    "doctor.image-not-cuda",
    "doctor.image-cuda",
    "doctor.image-no-cudnn",
    "doctor.image-cudnn",
    "doctor.image-meets",
    "doctor.image-meets-cudnn",
    "doctor.image-end-of-life",
    "doctor.image-end-of-life-fix",
    "damage.missing",
    "damage.not-regular",
    "damage.size",
    "damage.unreadable",
    "damage.contents",
    "damage.record-unreadable",
    "records.more",
    "records.damaged",
    "records.damaged-fix",
    "records.twice",
    "records.twice-fix",
    "records.store-modified",
    "records.store-modified-fix",
    "records.how-deep",
    "records.how-quick",
    "records.sound",
    "records.lock-twice-fix",
    "builds.not-installed",
    "builds.unknown",
    "builds.unknown-fix",
    "builds.carries",
    "builds.own-list",
    "builds.row-wrong",
    "builds.row-wrong-fix",
    "builds.gpu",
    "builds.relock",
    "builds.no-kernels",
    "builds.sass",
    "builds.sass-via",
    "builds.no-jit",
    "builds.ptx-only",
    "builds.ptx-only-fix",
    "fatbin.malformed",
    "fatbin.malformed-why",
    "fatbin.malformed-fix",
    "fatbin.header-past-end",
    "fatbin.header-size",
    "fatbin.no-names",
    "fatbin.section-past-end",
    "fatbin.container-past-end",
    "fatbin.entry-past-end",
    "fatbin.bad-arch",
    "fatbin.not-elf",
    "fatbin.reinstall",
    "fatbin.not-elf64",
    "fatbin.not-regular",
    "deep.timeout",
    "deep.cannot-run",
    "deep.exited",
    "deep.run-fix",
    "deep.import-fails",
    "deep.import-fails-fix",
    "deep.import-works",
    "deep.check-fails",
    "deep.check-fails-fix",
    "deep.cpu-build",
    "deep.cpu-build-fix",
    "deep.unavailable",
    "deep.unavailable-fix",
    "deep.sees",
    "toolkit.fix",
    "toolkit.assemble-again",
    "toolkit.other-platforms",
    "toolkit.lock-for-this",
    "toolkit.no-archives",
    "toolkit.archive-missing",
    "toolkit.not-assembled",
    "toolkit.other-archives",
    "toolkit.no-nvcc",
    "toolkit.other-nvcc",
    "toolkit.nvcc-mismatch",
    "toolkit.nvcc-mismatch-fix",
    "toolkit.assembled",
    "index.title",
    "index.how",
    "index.any-version",
    "index.unreadable",
    "index.not-served",
    "index.served",
    "index.redirected",
    "index.links-elsewhere",
    "index.links-upstream",
    "index.links-local",
    "extra.sync-fix",
    "extra.sync-fix-uv",
    "extra.macos",
    "extra.no-driver",
    "extra.no-cpu",
    "extra.cpu",
    "extra.none-runs",
    "extra.fallback",
    "extra.highest",
    "extra.not",
    "extra.refused",
    "extra.cpu-only-with",
    "extra.refused-why",
    "extra.refused-fix-driver",
    "extra.refused-fix-no-driver",
    "extra.none-fits",
    "extra.fits",
    "extra.described-extra",
    "extra.described-fork",
    "extra.install-fix",
    "extra.none-installed",
    "extra.foreign-installed",
    "extra.installed",
    "extra.installed-cannot-run",
    "extra.cpu-installed",
    "extra.other-installed",
    "files.not-replaced",
    "files.not-replaced-why",
    "files.not-replaced-fix",
    "files.stream-failed",
    "files.stream-failed-fix",
    "file.folder",
    "file.fifo",
    "file.character-device",
    "file.block-device",
    "file.socket",
    "file.link",
    "file.not-found",
    "file.unreadable",
    "file.unreadable-fix",
    "file.not-utf8-fix",
    "file.not-regular",
    "file.not-regular-why",
    "file.not-regular-fix",
    "file.too-large",
    "file.too-large-why",
    "file.too-large-fix",
    "file.not-toml",
    "file.not-toml-fix",
    "file.unreadable-toml",
    "file.unreadable-toml-fix",
    "file.larger-than-kib",
    "file.not-regular-but",
    "store.no-space",
    "store.no-space-why",
    "store.no-space-fix",
    "store.invalid-wheel",
    "store.invalid-wheel-why",
    "store.invalid-wheel-fix",
    "store.archive-store",
    "store.archives-empty",
    "store.archive",
    "store.archive-removed",
    "store.used-by",
    "store.used-by-none",
    "store.wheel-store",
    "store.wheels-empty",
    "store.wheel",
    "store.wheels",
    "store.wheel-removed",
    "store.unreadable",
    "store.unreadable-fix",
    "store.damaged",
    "store.damaged-fix",
    "store.verified",
    "store.file-changed",
    "store.records-not-one",
    "store.record-unreadable",
    "store.not-in-record",
    "store.other-sha256",
    "store.other-size",
    "shared.poetry-only",
    "shared.would-link",
    "shared.in-place",
    "shared.linked",
    "shared.copied",
    "shared.hard-links",
    "shared.fetched",
    "shared.removed",
    "shared.note",
    "shared.left",
]

CATALOGUE: Final[Mapping[MessageId, Texts]] = {
    # The labels of an error's second and third lines.
    "error.why": Texts("Why: {why}", "原因：{why}"),
    "error.fix": Texts("Fix: {fix}", "解决办法：{fix}"),
    # After an unknown command, option, config key or value: the known ones nearest to it.
    "did-you-mean": Texts("Did you mean {names}?", "你是不是想输入 {names}？"),
    # Usage errors of both front ends (the console script and `poetry cuda`).
    "usage.unknown-command": Texts(
        'The command "{name}" does not exist.', '命令 "{name}" 不存在。'
    ),
    "usage.either": Texts("{first} or {last}", "{first} 或 {last}"),
    "usage.and": Texts(
        "{first} and {last}",
        "{first} 和 {last}",
    ),
    "usage.list-fix": Texts(
        "`{lister}` shows the commands, `{program} <command> --help` their options",
        "`{lister}` 列出所有命令，`{program} <command> --help` 列出命令的选项",
    ),
    "usage.unknown-option": Texts('The option "{name}" does not exist.', '选项 "{name}" 不存在。'),
    "usage.needs-value": Texts('The option "{name}" needs a value.', '选项 "{name}" 需要一个值。'),
    "usage.takes-no-value": Texts(
        'The option "{name}" takes no value.', '选项 "{name}" 不接受值。'
    ),
    "usage.options-fix": Texts(
        "`{command} --help` shows its options", "`{command} --help` 列出它的选项"
    ),
    "exact.stdout": Texts(
        "standard output",
        "标准输出",
    ),
    "exact.stderr": Texts(
        "standard error",
        "标准错误",
    ),
    "exact.refused": Texts(
        "{stream} cannot carry this output: its encoding, {encoding}, has no character for {character} in {around}",
        "{stream}无法承载这段输出：它的编码 {encoding} 中没有 {around} 里的字符 {character}",
    ),
    "exact.undecodable": Texts(
        "a file name holds bytes the file system encoding could not decode; this output is read back by a program (a shell's eval), so anything written in its place would set a different value",
        "文件名中有文件系统编码无法解码的字节；这段输出会被程序读回（shell 的 eval），写入任何替代内容都会设置成另一个值",
    ),
    "exact.no-code": Texts(
        "a path or value holds a character {encoding} has no code for; this output is read back by a program (a shell's eval), so anything written in its place would set a different value",
        "路径或值中有 {encoding} 无法编码的字符；这段输出会被程序读回（shell 的 eval），写入任何替代内容都会设置成另一个值",
    ),
    "exact.fix": Texts(
        "run the command under a UTF-8 locale (LANG=C.UTF-8, or PYTHONIOENCODING=utf-8); `env --shell json` writes ASCII only",
        "在 UTF-8 区域设置下运行命令（LANG=C.UTF-8，或 PYTHONIOENCODING=utf-8）；`env --shell json` 只输出 ASCII",
    ),
    "usage.no-arguments": Texts(
        'No arguments expected for "{command}", got "{word}".',
        '"{command}" 不接受参数，却收到了 "{word}"。',
    ),
    "interrupted": Texts("Interrupted.", "已中断。"),
    "stdout.closed": Texts("standard output is closed", "标准输出已关闭"),
    "stdout.closed-why": Texts(
        "poetry-cuda prints its result on standard output", "poetry-cuda 把结果写到标准输出"
    ),
    "stdout.closed-fix": Texts(
        "run it with standard output open: redirect it to a file, or to /dev/null",
        "在标准输出打开时运行：把它重定向到文件或 /dev/null",
    ),
    "crash.what": Texts(
        "poetry-cuda stopped on an unexpected error: {error}",
        "poetry-cuda 因意外错误而停止：{error}",
    ),
    "crash.why": Texts(
        "this is a bug in poetry-cuda, not a problem of the project",
        "这是 poetry-cuda 的缺陷，不是项目的问题",
    ),
    "crash.fix": Texts(
        "please report it with the command line and what -v prints",
        "请报告这个问题，附上命令行和 -v 的输出",
    ),
    "usage.pass-example": Texts("pass e.g. {example}", "例如传入 {example}"),
    "os.not-found": Texts("No such file or directory", "没有这个文件或文件夹"),
    "os.not-a-folder": Texts("Not a directory", "不是文件夹"),
    "os.permission": Texts("Permission denied", "没有权限"),
    "usage.cannot-enter": Texts(
        "--directory: cannot work in {folder}: {problem}",
        "--directory：无法进入 {folder}：{problem}",
    ),
    "usage.give-folder": Texts("give {option} an existing folder", "给 {option} 一个已有的文件夹"),
    "usage.project-not-folder": Texts(
        "--project: {folder} is not a folder", "--project：{folder} 不是文件夹"
    ),
    "usage.project-names-folder": Texts(
        "--project names the folder of the project (or one inside it)",
        "--project 指定项目所在的文件夹（或其中的某个文件夹）",
    ),
    # `run`'s command: missing, not found, not executable.
    "run.no-command": Texts("run: no command given", "run：没有给出命令"),
    "run.no-command-why": Texts(
        "run executes a command with the project's CUDA environment",
        "run 在项目的 CUDA 环境中执行一条命令",
    ),
    "run.no-command-fix": Texts(
        "write the command after run, e.g. `{example}`", "把命令写在 run 后面，例如 `{example}`"
    ),
    "run.not-found": Texts("run: command not found: {command}", "run：找不到命令：{command}"),
    "run.not-found-why": Texts(
        "it is neither a path to a file nor a program on the project's PATH",
        "它既不是文件路径，也不是项目 PATH 上的程序",
    ),
    "run.not-found-fix": Texts(
        "check the spelling, install it in the project's environment, or give its path; "
        "`poetry cuda env` shows the PATH it runs with",
        "检查拼写，把它安装到项目的环境里，或给出它的路径；`poetry cuda env` 会显示运行时的 PATH",
    ),
    "run.not-executable": Texts(
        "run: cannot execute {program}: {problem}", "run：无法执行 {program}：{problem}"
    ),
    "run.not-executable-why": Texts(
        "the file exists but the system refused to run it", "文件存在，但系统拒绝运行它"
    ),
    "run.not-executable-fix": Texts(
        "make it executable (chmod +x) or run it with its interpreter, e.g. `{example}`",
        "给它加上执行权限（chmod +x），或用它的解释器运行，例如 `{example}`",
    ),
    "driver.none": Texts("no NVIDIA driver found", "未找到 NVIDIA 驱动"),
    "driver.too-old": Texts(
        "driver {version} is older than every CUDA release poetry-cuda knows",
        "驱动 {version} 比 poetry-cuda 已知的所有 CUDA 版本都旧",
    ),
    "no-variant.first-line": Texts(
        "No variant of {lead} satisfies every target ({asked}):",
        "{lead} 没有能满足所有目标主机的构建（{asked}）：",
    ),
    "no-variant.first-line-pinned": Texts(
        "No variant of {lead} satisfies every target ({asked}; the project pins {pin}: "
        "{pinned_by}):",
        "{lead} 没有能满足所有目标主机的构建（{asked}；项目固定了 {pin}：{pinned_by}）：",
    ),
    "no-variant.first-line-allowed": Texts(
        "No build of {lead} that the project allows can be locked ({asked}):",
        "项目允许的 {lead} 版本中没有可以锁定的构建（{asked}）：",
    ),
    "no-variant.none-serves": Texts(
        "  no known {lead} build serves these targets",
        "  没有已知的 {lead} 构建能用于这些目标主机",
    ),
    "no-variant.no-kernels": Texts(
        "  no build of {lead} has kernels for {sm}",
        "  {lead} 没有任何构建包含 {sm} 的内核（kernel）",
    ),
    "no-variant.no-kernels-on": Texts(
        "  no build of {lead} has kernels for {sm} on {target}",
        "  {lead} 没有任何构建包含 {sm} 的内核（kernel），无法用于 {target}",
    ),
    "no-variant.why": Texts(
        "every GPU of every target must have kernels in the build, and its driver must run "
        "the build's CUDA version",
        "每台目标主机的每块 GPU 都必须在该构建中有对应的内核（kernel），"
        "且主机的驱动必须能运行该构建所用的 CUDA 版本",
    ),
    "no-variant.why-python": Texts(
        "a lock must install on every Python the project's requires-python ({python}) admits, "
        "and Python {gap} is outside the Requires-Python of {releases}",
        "锁定的构建必须能安装在项目 requires-python（{python}）允许的每个 Python 上，"
        "而 Python {gap} 不在 {releases} 的 Requires-Python 之内",
    ),
    "no-variant.why-excluded": Texts(
        "{said} excludes every other build of the versions the project allows",
        "{said} 排除了项目允许的版本中的其他所有构建",
    ),
    "no-variant.fix-versions": Texts(
        "{lead} versions that would serve these targets: {first} to {last} ({variants}); "
        "allow one of them in pyproject.toml",
        "能用于这些目标主机的 {lead} 版本：{first} 到 {last}（{variants}）；"
        "请在 pyproject.toml 中允许其中之一",
    ),
    "no-variant.fix-cpu": Texts(
        'plan CPU builds with cuda = "cpu"', '设置 cuda = "cpu"，改用 CPU 版'
    ),
    "no-variant.fix-or-pass-cuda": Texts(
        ", or pass --cuda with one of them (and `lock --adopt` to move the project's pins "
        "off {pin})",
        "；或用 --cuda 指定其中之一（并用 `lock --adopt` 把项目对 {pin} 的固定改掉）",
    ),
    "no-variant.fix-or-change": Texts(", or change {said}", "；或修改 {said}"),
    "no-variant.fix-or-narrow-python": Texts(
        ", or narrow the project's requires-python to leave out Python {gap}",
        "；或收窄项目的 requires-python，把 Python {gap} 排除在外",
    ),
    "no-variant.fix-narrow-python": Texts(
        "narrow the project's requires-python to leave out Python {gap}, or allow a {lead} "
        "version whose Requires-Python admits it (newest: {newest})",
        "收窄项目的 requires-python，把 Python {gap} 排除在外；"
        "或允许 Requires-Python 包含它的 {lead} 版本（最新为 {newest}）",
    ),
    "no-variant.fix-or-cpu-fallback": Texts(
        ", or set allow-cpu-fallback = true in [tool.poetry-cuda] to accept a CPU build",
        "；或在 [tool.poetry-cuda] 中设置 allow-cpu-fallback = true，接受 CPU 版",
    ),
    "unknown-cuda.what": Texts(
        "{said}: no known build of {lead} has this CUDA version",
        "{said}：{lead} 没有这个 CUDA 版本的已知构建",
    ),
    "unknown-cuda.why": Texts(
        "{lead} is published for {variants}", "{lead} 发布的 CUDA 构建有：{variants}"
    ),
    "unknown-cuda.fix": Texts(
        "use one of them (e.g. {example}), or auto to let poetry-cuda choose",
        "改用其中之一（例如 {example}），或用 auto 让 poetry-cuda 自动选择",
    ),
    "unmatched-cuda.what": Texts(
        "{said}: no {lead} version the project allows has a build of this CUDA version",
        "{said}：项目允许的 {lead} 版本都没有这个 CUDA 版本的构建",
    ),
    "unmatched-cuda.why": Texts(
        "the {lead} versions the project allows are published for {variants}; {matching} "
        "builds exist for {lead} {first} to {last}",
        "项目允许的 {lead} 版本只发布了 {variants}；{matching} 构建只有 {lead} {first} 到 "
        "{last} 才有",
    ),
    "unmatched-cuda.fix": Texts(
        "ask for one of {variants} (e.g. {example}), or allow {lead} {first} to {last} in "
        "pyproject.toml",
        "改用 {variants} 之一（例如 {example}），或在 pyproject.toml 中允许 {lead} {first} 到 {last}",
    ),
    # A `cuda` value (the setting, or --cuda) that is no CUDA request at all.
    "cuda.not-a-request": Texts(
        "{key}: {value} is not a CUDA request", "{key}：{value} 不是有效的 CUDA 要求"
    ),
    "cuda.request-forms": Texts(
        "it must be 'auto', 'cpu', a variant such as 'cu124', a version such as '12.4', or a "
        "range such as '>=12.1,<12.7'",
        "它只能是 'auto'、'cpu'、变体（如 'cu124'）、版本（如 '12.4'）或范围（如 '>=12.1,<12.7'）",
    ),
    "cuda.request-fix": Texts(
        'write e.g. cuda = "cu124" in {table} or pass --cuda cu124',
        '在 {table} 中写入例如 cuda = "cu124"，或传入 --cuda cu124',
    ),
    # A document's bad key or value (`schema.Table`): where, then what is wrong with it.
    "schema.at": Texts("{where}: {problem}", "{where}：{problem}"),
    "schema.unknown-key": Texts("unknown key", "未知的键"),
    "schema.not-one-of": Texts(
        "{value} is not one of {options}", "{value} 不是 {options} 中的一个"
    ),
    "schema.missing-one-of": Texts(
        "missing (expected one of {options})", "缺少这一项（应为 {options} 中的一个）"
    ),
    "schema.empty": Texts("must not be empty", "不能为空"),
    "schema.missing": Texts(
        "missing (expected {what})",
        "缺失（应为{what}）",
    ),
    "schema.expected": Texts(
        "expected {what}, got {got}",
        "应为{what}，实际是 {got}",
    ),
    "type.string": Texts(
        "a string",
        "字符串",
    ),
    "type.integer": Texts(
        "an integer",
        "整数",
    ),
    "type.boolean": Texts(
        "a boolean",
        "布尔值",
    ),
    "type.bytes": Texts(
        "a number of bytes",
        "字节数",
    ),
    "type.table": Texts(
        "a table",
        "表",
    ),
    "type.tables": Texts(
        "an array of tables",
        "表数组",
    ),
    "type.list": Texts(
        "a list",
        "列表",
    ),
    "type.strings": Texts(
        "a list of strings",
        "字符串列表",
    ),
    "type.values": Texts(
        "a list of values",
        "值列表",
    ),
    "type.paths": Texts(
        "a list of paths",
        "路径列表",
    ),
    "type.path": Texts(
        "a path",
        "路径",
    ),
    "type.url": Texts(
        "a URL",
        "网址",
    ),
    "type.features": Texts(
        "a table of features",
        "由特性组成的表",
    ),
    "type.namespaces": Texts(
        "a table of namespaces",
        "由命名空间组成的表",
    ),
    "type.packages": Texts(
        "a table of packages",
        "由包组成的表",
    ),
    "type.provider": Texts(
        "a provider table",
        "提供者表",
    ),
    "type.cuda-major": Texts(
        "a CUDA major version",
        "CUDA 主版本号",
    ),
    "type.cuda-major-example": Texts(
        "a CUDA major such as 12",
        "CUDA 主版本号（如 12）",
    ),
    "type.object": Texts(
        "an object",
        "对象",
    ),
    "type.objects": Texts(
        "a list of objects",
        "对象列表",
    ),
    "type.platform-variants": Texts(
        "a table of platform = variant",
        "由 platform = variant 组成的表",
    ),
    "type.member-versions": Texts(
        "a list of {{member = version}} tables",
        "由 {{member = version}} 表组成的列表",
    ),
    "config.correct": Texts("correct it in {table}", "请在 {table} 中改正"),
    "config.write-example": Texts("write e.g. {example}", "改为例如 {example}"),
    "config.known-keys": Texts(
        "remove it; the known keys are {keys}", "删除它；已知的键有：{keys}"
    ),
    # A target file (--target, `targets`) that cannot be read as a host profile.
    "target.not-found": Texts("{name}: target file not found", "{name}：找不到目标主机文件"),
    "target.not-found-fix": Texts(
        "check the path given to --target, `targets` or POETRY_CUDA_TARGET",
        "检查传给 --target、`targets` 或 POETRY_CUDA_TARGET 的路径",
    ),
    "target.unreadable": Texts(
        "{name}: cannot read the target file ({problem})",
        "{name}：无法读取目标主机文件（{problem}）",
    ),
    "target.make-utf8": Texts("make the file readable UTF-8 JSON", "把文件改成可读的 UTF-8 JSON"),
    "target.not-json": Texts(
        "{name}: not valid JSON (line {line}, column {column}: {problem})",
        '{name}：不是有效的 JSON（第 {line} 行第 {column} 列，解析器的原话是 "{problem}"）',
    ),
    "target.is-profile": Texts(
        "a target file is a host profile in JSON (docs/host-profiles.md)",
        "目标主机文件是 JSON 格式的主机描述文件（docs/host-profiles.md）",
    ),
    "target.write-with-detect": Texts(
        "write it with `poetry-cuda detect --json > FILE` on the target machine",
        "在目标机器上用 `poetry-cuda detect --json > FILE` 生成它",
    ),
    "profile.schema-why": Texts(
        "a host profile must follow the schema in poetry-cuda's docs/host-profiles.md",
        "主机描述文件必须符合 poetry-cuda 的 docs/host-profiles.md 规定的格式",
    ),
    "profile.schema-fix": Texts(
        "compare it with docs/host-profiles.md and with the output of `poetry-cuda detect --json`",
        "对照 docs/host-profiles.md 和 `poetry-cuda detect --json` 的输出检查它",
    ),
    # `plan`'s report around the choices (the reasons are recorded facts, quoted as written).
    "plan.header": Texts(
        "Plan for {targets} (policy {policy})", "计划（目标主机：{targets}；策略：{policy}）"
    ),
    "plan.no-packages": Texts(
        "The project has no CUDA-flavoured packages.", "项目中没有带 CUDA 变体的包。"
    ),
    "plan.from": Texts(" from {where}", "，来自 {where}"),
    "plan.expects": Texts(", expects {version}", "，预期版本 {version}"),
    "plan.extras": Texts(
        "Forks (one per extra, group or platform marker, as the project declares them; each "
        "planned on its own; `sync` installs the one that fits the machine):",
        "分支（项目声明的每个 extra、依赖组或平台标记各一个，各自单独规划；`sync` 安装适合本机的那个）：",
    ),
    "plan.fork-extra": Texts("extra", "可选依赖 extra"),
    "plan.fork-group": Texts("group", "依赖组"),
    "plan.fork-marker": Texts("platform marker", "平台标记"),
    "plan.fork-where": Texts("{kind}, where {marker}", "{kind}，条件 {marker}"),
    "plan.fork-serves": Texts(" for {targets}", "，用于 {targets}"),
    "plan.added": Texts(
        "Added to the {group} group (from PyPI):", "加入 {group} 依赖组的包（来自 PyPI）："
    ),
    "backend.line": Texts("Backend: {name} ({reason})", "包管理器：{name}（{reason}）"),
    "backend.setting": Texts(
        'backend = "{setting}" in [tool.poetry-cuda]',
        '[tool.poetry-cuda] 设置了 backend = "{setting}"',
    ),
    "backend.uv-lock": Texts("uv.lock exists", "已有 uv.lock"),
    "backend.tool-uv": Texts("pyproject.toml has [tool.uv]", "pyproject.toml 里有 [tool.uv]"),
    "backend.poetry-lock": Texts("poetry.lock exists", "已有 poetry.lock"),
    "backend.tool-poetry": Texts(
        "pyproject.toml has [tool.poetry]", "pyproject.toml 里有 [tool.poetry]"
    ),
    "backend.build-backend": Texts("the build backend is {name}", "构建后端是 {name}"),
    "backend.dependency-groups": Texts(
        "pyproject.toml has [dependency-groups]", "pyproject.toml 里有 [dependency-groups]"
    ),
    # A plain PEP 621 project: no lock file and no table of one manager names it.
    "backend.none-installed": Texts(
        "nothing in the project names a package manager, and neither poetry nor uv is installed",
        "项目里没有任何迹象指明包管理器，且 poetry 和 uv 都没有安装",
    ),
    "backend.only-installed": Texts(
        "nothing in the project names a package manager, and only {name} is installed",
        "项目里没有任何迹象指明包管理器，且只安装了 {name}",
    ),
    "backend.first-installed": Texts(
        "nothing in the project names a package manager; {name} and {other} are both "
        'installed and {name} comes first: backend = "{other}" in [tool.poetry-cuda] '
        "chooses {other}",
        "项目里没有任何迹象指明包管理器；{name} 和 {other} 都已安装，优先使用 {name}："
        '在 [tool.poetry-cuda] 里设置 backend = "{other}" 即改用 {other}',
    ),
    "backend.recorded": Texts("cuda.lock records it", "cuda.lock 里记录的"),
    "lock.first": Texts(
        "The project has no {file} yet: this lock creates it with {name}",
        "项目还没有 {file}：这次锁定将用 {name} 创建它",
    ),
    "plan.base-image": Texts(
        "Base image for containers: {image} ({reason})", "容器基础镜像：{image}（{reason}）"
    ),
    "plan.base-image-none": Texts(
        "Base image for containers: none ({reason})", "容器基础镜像：无（{reason}）"
    ),
    "image.needs": Texts("{package} needs {kind} {spec}", "{package} 需要 {kind} {spec}"),
    "image.no-cuda-build": Texts(
        "the lock installs no CUDA build: any Python image serves",
        "锁定的包里没有 CUDA 版：任何 Python 镜像都可以",
    ),
    "image.builds-for": Texts(
        "the lock's builds are for CUDA {cuda}", "锁定的是 CUDA {cuda} 的构建"
    ),
    "image.driver-cap": Texts(
        ", with a driver for CUDA {cuda} or older", "，且驱动最高支持 CUDA {cuda}"
    ),
    "image.none-meets": Texts(
        "no {repository} image this release knows meets the lock ({needs}): start from an "
        "OS image and install them in the Dockerfile",
        "本版本已知的 {repository} 镜像都不满足锁文件（{needs}）：请从操作系统镜像开始，"
        "在 Dockerfile 里安装它们",
    ),
    "image.wheels-bring": Texts(
        "the wheels bring every CUDA library of CUDA {cuda}: the base image is enough",
        "wheel 自带 CUDA {cuda} 的全部库：base 镜像就够了",
    ),
    "image.devel": Texts(
        "{needs}: nvcc and the CUDA headers are in the devel image",
        "{needs}：devel 镜像里有 nvcc 和 CUDA 头文件",
    ),
    "image.runtime": Texts(
        "{needs}: the CUDA libraries are in the runtime image",
        "{needs}：runtime 镜像里有 CUDA 库",
    ),
    "image.cudnn-pin": Texts(
        "its cuDNN flavour pins cuDNN {cudnn}", "它的 cuDNN 版固定为 cuDNN {cudnn}"
    ),
    "image.no-tensorrt": Texts(
        "TensorRT is in none of these images: install it in the Dockerfile",
        "这些镜像都不带 TensorRT：请在 Dockerfile 里安装",
    ),
    "image.driver-bound": Texts(
        "CUDA {image}, because the oldest driver among the Linux targets runs CUDA <= {cuda}",
        "用 CUDA {image}，因为 Linux 目标主机中最旧的驱动最高支持 CUDA {cuda}",
    ),
    "image.unconfirmed": Texts(
        "{cuda}'s row is not confirmed: NVIDIA may have changed or deleted the tag",
        "{cuda} 这一行未经确认：NVIDIA 可能已修改或删除该标签",
    ),
    "verdict.not-published": Texts(
        "{name} is not published for {platform}", "{name} 没有 {platform} 的构建"
    ),
    "verdict.cpu-build": Texts("{name} is a CPU build", "{name} 是 CPU 版"),
    "verdict.not-planned": Texts(
        "{name} is a {stack} build, not planned yet", "{name} 是 {stack} 版，目前还不规划"
    ),
    "verdict.stack-gpu": Texts(
        "{name} is the {stack} build, for the GPUs here ({gpus})",
        "{name} 是 {stack} 版，适用于本机的 GPU（{gpus}）",
    ),
    "verdict.stack-no-gpu": Texts(
        "{name} is the {stack} build, and no {stack} GPU is here",
        "{name} 是 {stack} 版，本机没有 {stack} GPU",
    ),
    "verdict.needs-driver": Texts("{name} needs an NVIDIA driver", "{name} 需要 NVIDIA 驱动"),
    "verdict.driver-at-least": Texts("a driver >= {version}", " >= {version} 的驱动"),
    "verdict.cuda-driver": Texts("a CUDA {cuda} driver", "支持 CUDA {cuda} 的驱动"),
    "verdict.needs-newer": Texts(
        "{name} needs {needs}; the driver supports CUDA <= {cuda}",
        "{name} 需要{needs}；驱动最高支持 CUDA {cuda}",
    ),
    "verdict.needs-floor": Texts(
        "{name} needs {needs}, or >= {floor} for CUDA {major}.x minor-version compatibility; "
        "the driver is {driver}",
        "{name} 需要{needs}，或 >= {floor} 以借助 CUDA {major}.x 的小版本兼容运行；"
        "当前驱动是 {driver}",
    ),
    "verdict.at-least": Texts("{fact} (>= {version})", "{fact}（需 >= {version}）"),
    "verdict.minor-compatible": Texts(
        "{name} runs through CUDA {major}.x minor-version compatibility",
        "{name} 借助 CUDA {major}.x 的小版本兼容运行",
    ),
    "verdict.native": Texts("{name} runs natively", "{name} 原生运行"),
    "verdict.no-kernels": Texts(
        "{name} has no SASS for {sm} (it ships {arches}) and no PTX for it",
        "{name} 没有 {sm} 的 SASS（它带的是 {arches}），也没有能用的 PTX",
    ),
    "verdict.sass": Texts("{sm} has SASS in {name}", "{name} 含 {sm} 的 SASS"),
    "verdict.sass-via": Texts(
        "{sm} has SASS in {name} (its {arch} build)", "{name} 含 {sm} 能用的 SASS（{arch} 的）"
    ),
    "verdict.ptx": Texts(
        "{sm} runs {name}'s compute_{arch} PTX", "{sm} 运行 {name} 的 compute_{arch} PTX"
    ),
    "verdict.ptx-not-native": Texts(
        "{name} has no SASS for {sm} and its PTX needs a native driver",
        "{name} 没有 {sm} 的 SASS，它的 PTX 需要原生支持其 CUDA 的驱动",
    ),
    "verdict.policy-native": Texts(
        "{detail}, which policy native does not rely on", "{detail}，而 native 策略不依赖这一点"
    ),
    "reason.labelled": Texts("{label}: {reason}", "{label}：{reason}"),
    "reason.driver-supports": Texts(
        "driver {version} supports CUDA <= {cuda}", "驱动 {version} 最高支持 CUDA {cuda}"
    ),
    "reason.every-target": Texts("{name} runs on every target", "{name} 能在每台目标主机上运行"),
    "reason.asks-for": Texts(
        "the project asks for {asked}: {pinned_by}; {reason}",
        "项目要求 {asked}：{pinned_by}；{reason}",
    ),
    "reason.ruled-out": Texts("{name} ruled out: {why}", "不选 {name}：{why}"),
    "reason.excluded-by": Texts("{name} excluded by {said}", "{name} 被 {said} 排除"),
    "reason.older-release": Texts(
        "the newest {lead} with it is {older}, older than {version}",
        "有它的最新 {lead} 是 {older}，比 {version} 旧",
    ),
    "reason.constraints-exclude": Texts(
        "the project's constraints exclude it", "项目的版本约束排除了它"
    ),
    "reason.not-published-for-allowed": Texts(
        "not published for the {lead} versions the project allows",
        "项目允许的 {lead} 版本都没有这个构建",
    ),
    "reason.cpu-asked-pinned": Texts(
        "the project asks for the CPU build: {pinned_by}", "项目要求 CPU 版：{pinned_by}"
    ),
    "reason.cpu-asked": Texts("{said} asks for the CPU build", "{said} 要求 CPU 版"),
    "reason.cpu-macos": Texts(
        "macOS has no CUDA builds; PyPI's build is the CPU build",
        "macOS 没有 CUDA 版；PyPI 上的就是 CPU 版",
    ),
    "reason.cpu-no-driver": Texts(
        "no target has an NVIDIA driver", "没有一台目标主机装有 NVIDIA 驱动"
    ),
    "reason.cpu-no-driver-unplanned": Texts(
        "no target has an NVIDIA driver; {gpus}: no {stacks} build is planned for them here",
        "没有一台目标主机装有 NVIDIA 驱动；{gpus}：这里没有为它们规划 {stacks} 版",
    ),
    "reason.rocm-build": Texts(
        "{gpus}: {variant} is built for {gfx}, and is the newest ROCm build the project "
        "allows that serves them",
        "{gpus}：{variant} 为 {gfx} 编译，是项目允许的、能用于这些 GPU 的最新 ROCm 版",
    ),
    "reason.xpu-build": Texts(
        "{gpus}: Intel GPUs of Arc's device IP or newer run the {variant} build",
        "{gpus}：Arc 及更新设备 IP 的 Intel GPU 运行 {variant} 版",
    ),
    "stacks.mixed-what": Texts(
        "no one build of {lead} serves every target",
        "没有一个 {lead} 版本能服务所有目标主机",
    ),
    "stacks.mixed-why": Texts(
        "{needs}; one lock installs one build of a family",
        "{needs}；一个锁文件只为一个包族安装一个版本",
    ),
    "stacks.mixed-fix": Texts(
        "lock for the machines of one kind (--target), or offer each build as its own extra "
        "of {lead} (a multi-variant project)",
        "只为同一类机器加锁（--target），或把每个版本作为 {lead} 的单独 extra 提供（多版本项目）",
    ),
    "stacks.fork-unserved": Texts(
        "{lead} {build} does not serve the GPUs here: {gpus}",
        "{lead} {build} 不能用于本机的 GPU：{gpus}",
    ),
    "stacks.fork-unserved-gfx": Texts(
        "{build} is not built for {gfx}; {instead} is",
        "{build} 没有为 {gfx} 编译；{instead} 有",
    ),
    "stacks.fork-unserved-driver": Texts(
        "the amdgpu kernel driver here cannot run {build}; it runs {instead}",
        "本机的 amdgpu 内核驱动不能运行 {build}；它能运行 {instead}",
    ),
    "stacks.fork-unserved-fix": Texts(
        "add an extra or group whose torch is {instead} and lock again, or set "
        "allow-cpu-fallback = true in [tool.poetry-cuda] to install the CPU build here",
        "添加一个 torch 为 {instead} 的 extra 或依赖组后重新加锁，或在 [tool.poetry-cuda] 中设置 "
        "allow-cpu-fallback = true 以在本机安装 CPU 版",
    ),
    "stacks.fork-unserved-cpu": Texts(
        "set allow-cpu-fallback = true in [tool.poetry-cuda] to install the CPU build here",
        "在 [tool.poetry-cuda] 中设置 allow-cpu-fallback = true 以在本机安装 CPU 版",
    ),
    "variant.no-stack-label": Texts(
        "{what}: no variant label for {build}, the build the plan gives {target}",
        "{what}：计划给 {target} 的 {build} 版没有对应的 wheel 变体标签",
    ),
    "variant.no-stack-label-why": Texts(
        "the variant metadata lists {labels}; a ROCm or XPU build's label is its index's name",
        "变体元数据只列出 {labels}；ROCm 或 XPU 版的标签就是其索引的名字",
    ),
    "variant.no-stack-label-fix": Texts(
        "use a release whose variant metadata lists {build} (--variants FILE, or widen the "
        "torch constraint), or install {build} from the family's own index (leave the family "
        "out of [tool.poetry-cuda.wheel-variants])",
        "改用变体元数据列出 {build} 的版本（--variants FILE，或放宽 torch 约束），或从该包族"
        "自己的索引安装 {build}（不在 [tool.poetry-cuda.wheel-variants] 中列出该包族）",
    ),
    "variant.file-unnamed": Texts(
        "--variants: the file name does not say the torch release "
        "(torch-VERSION-variants.json) the ROCm or XPU build is planned for",
        "--variants：文件名没有写明 ROCm 或 XPU 版所依据的 torch 版本（torch-VERSION-variants.json）",
    ),
    "variant.file-unnamed-fix": Texts(
        "give the file its index name, e.g. torch-2.10.0-variants.json",
        "按索引中的名字命名该文件，例如 torch-2.10.0-variants.json",
    ),
    "label.foreign": Texts(
        "{label} needs {foreign} hardware, not an NVIDIA GPU",
        "{label} 需要 {foreign} 的硬件，而不是 NVIDIA GPU",
    ),
    "label.unknown": Texts(
        "{what} {label}: not in the knowledge base; judged by its published properties",
        "{what} {label}：知识库中没有它；按它发布的属性判断",
    ),
    "label.none-serves": Texts(
        "{what}: no variant label serves {target}",
        "{what}：没有哪个变体标签能服务 {target}",
    ),
    "label.none-listed": Texts(
        "it lists no label",
        "它没有列出任何标签",
    ),
    "label.none-serves-fix": Texts(
        "plan for another target, or install a build from the family's own index",
        "为另一台目标主机制定计划，或从该包族自己的索引安装构建",
    ),
    "label.fallback": Texts(
        "{label}: no CUDA label runs on {target}, so the CPU build because allow-cpu-fallback = true",
        "{label}：没有能在 {target} 上运行的 CUDA 标签，因为 allow-cpu-fallback = true，所以选 CPU 版",
    ),
    "label.planned-cpu": Texts(
        "{label}: the plan gives {target} the CPU build",
        "{label}：计划给 {target} 的是 CPU 版",
    ),
    "label.no-driver": Texts(
        "{label}: {target} has no NVIDIA driver, so the CPU build",
        "{label}：{target} 没有 NVIDIA 驱动，所以选 CPU 版",
    ),
    "label.installer-picks": Texts(
        "{what}: a variant-enabled installer picks {installer} on {target} (its NVIDIA provider looks at the driver and the highest GPU only); poetry-cuda chose {label}",
        "{what}：支持变体的安装器在 {target} 上会选 {installer}（它的 NVIDIA 提供者只看驱动和最高的 GPU）；poetry-cuda 选的是 {label}",
    ),
    "label.stack": Texts(
        "{label}: the plan's {stack} build for {gpus}",
        "{label}：计划为 {gpus} 选的 {stack} 构建",
    ),
    "label.plan-gives": Texts(
        "{label}: the plan gives {target} {build}",
        "{label}：计划给 {target} 的是 {build}",
    ),
    "label.publishes-without": Texts(
        "{what} {build}: publishes {published}, without {missing} of {target}; the knowledge base has the build serve it, and decides",
        "{what} {build}：发布的是 {published}，不含 {target} 的 {missing}；知识库认为该构建支持它，以知识库为准",
    ),
    "label.gets": Texts(
        "{target} gets {label}",
        "{target} 得到 {label}",
    ),
    "label.none-serves-all": Texts(
        "{what}: no variant label serves every target",
        "{what}：没有哪个变体标签能服务所有目标主机",
    ),
    "label.none-serves-all-fix": Texts(
        "plan for fewer targets, or give each its own properties file",
        "减少目标主机，或为每台目标主机各写一个属性文件",
    ),
    "label.newest-for-all": Texts(
        "{label}: the newest build every target runs",
        "{label}：所有目标主机都能运行的最新构建",
    ),
    "label.arches-differ": Texts(
        "{what} {label}: publishes nvidia :: sm_arch :: {said}; the knowledge base has {has} for {platform}, and decides",
        "{what} {label}：发布的是 nvidia :: sm_arch :: {said}；知识库中 {platform} 上是 {has}，以知识库为准",
    ),
    "label.runs-minor": Texts(
        "{target}'s driver (CUDA {cuda}) runs it only through minor-version compatibility",
        "{target} 的驱动（CUDA {cuda}）只能通过次版本兼容运行它",
    ),
    "label.runs-native": Texts(
        "{target}'s driver (CUDA {cuda}) runs it natively; an older one would run it only through minor-version compatibility",
        "{target} 的驱动（CUDA {cuda}）能原生运行它；更旧的驱动只能通过次版本兼容运行它",
    ),
    "label.lower-bound": Texts(
        "{what} {label}: publishes {published} for a build of CUDA {cuda}; {runs}",
        "{what} {label}：为 CUDA {cuda} 的构建发布了 {published}；{runs}",
    ),
    "label.audit": Texts(
        "audit: {text}",
        "核查：{text}",
    ),
    "label.chosen": Texts(
        "Variant: {label} ({reason})",
        "变体：{label}（{reason}）",
    ),
    "label.wrote": Texts(
        "Wrote {path}",
        "已写入 {path}",
    ),
    "release.newest-unconstrained": Texts(
        "the newest known: no {package} constraint to honour",
        "已知最新的版本：没有需要遵守的 {package} 约束",
    ),
    "release.newest-admitted": Texts(
        "the newest the project's {package} {constraints} admits",
        "项目的 {package} {constraints} 允许的最新版本",
    ),
    "release.fallback": Texts(
        "the newest known, as a fallback (see the warning)",
        "已知最新的版本，作为后备（见警告）",
    ),
    "release.none-admitted": Texts(
        "{constraints} admits no {package} release with published wheel variants (known: {known}), so no variant wheel will match it; the file uses {newest}'s metadata, the newest known. Pass the wanted release's {package}-<version>-variants.json with --variants FILE, or admit one of {known}",
        "{constraints} 不允许任何发布了 wheel 变体的 {package} 版本（已知：{known}），所以没有变体 wheel 能与之匹配；文件使用已知最新的 {newest} 的元数据。请用 --variants FILE 传入所需版本的 {package}-<version>-variants.json，或允许 {known} 中的一个",
    ),
    "release.no-project": Texts(
        "no project here",
        "这里没有项目",
    ),
    "release.metadata": Texts(
        "Variant metadata: {package} {version}'s, as published ({reason}); source: {source}",
        "变体元数据：{package} {version} 发布的元数据（{reason}）；来源：{source}",
    ),
    "env.rocm-build": Texts(
        "no CUDA toolkit applies: the {variant} build's wheels bring the HIP and ROCm "
        "libraries they load, and only the amdgpu kernel driver comes from the system; "
        "HIP_VISIBLE_DEVICES picks the GPUs",
        "不适用 CUDA 工具包：{variant} 版的 wheel 自带所加载的 HIP 和 ROCm 库，只有 amdgpu "
        "内核驱动来自系统；用 HIP_VISIBLE_DEVICES 选择 GPU",
    ),
    "env.xpu-build": Texts(
        "no CUDA toolkit applies: the {variant} build's wheels bring Intel's SYCL runtime, "
        "and Intel's GPU driver (Level Zero) comes from the system; ZE_AFFINITY_MASK picks "
        "the GPUs",
        "不适用 CUDA 工具包：{variant} 版的 wheel 自带 Intel 的 SYCL 运行时，Intel GPU 驱动"
        "（Level Zero）来自系统；用 ZE_AFFINITY_MASK 选择 GPU",
    ),
    "rocm.unknown-gfx": Texts(
        "{gfx} is in no ROCm build this version of poetry-cuda knows: check the name rocminfo "
        "prints for the GPU (a GPU newer than this knowledge needs a newer poetry-cuda)",
        "{gfx} 不在此版本 poetry-cuda 所知的任何 ROCm 版中：核对 rocminfo 显示的 GPU 名称"
        "（比此知识库更新的 GPU 需要更新的 poetry-cuda）",
    ),
    "rocm.cpu-fallback": Texts(
        "plan the CPU build with allow-cpu-fallback = true in [tool.poetry-cuda]",
        "在 [tool.poetry-cuda] 中设置 allow-cpu-fallback = true，规划 CPU 版",
    ),
    "rocm.or-cpu-fallback": Texts(
        "or plan the CPU build with allow-cpu-fallback = true in [tool.poetry-cuda]",
        "或在 [tool.poetry-cuda] 中设置 allow-cpu-fallback = true，规划 CPU 版",
    ),
    # A ROCm or XPU target's plan: the releases passed over, and the refusals.
    "rocm.passed-over": Texts(
        "{label}: newer torch passed over: {passed}", "{label}：跳过了更新的 torch：{passed}"
    ),
    "rocm.driver-cannot-run": Texts(
        "torch {version} ({names}) needs a ROCm the amdgpu driver {driver} does not run (it "
        "runs ROCm {low} to {high})",
        "torch {version}（{names}）需要的 ROCm 版本 amdgpu 驱动 {driver} 运行不了"
        "（它能运行 ROCm {low} 到 {high}）",
    ),
    "rocm.no-build-for": Texts(
        "torch {version} ({names}) has no build for {gfx}",
        "torch {version}（{names}）没有 {gfx} 的构建",
    ),
    "rocm.none-serves": Texts(
        "{label}: no pytorch.org ROCm build of {asked} serves {listed}",
        "{label}：pytorch.org 上没有能用于 {listed} 的 {asked} ROCm 构建",
    ),
    "rocm.none-matches": Texts(
        "no offered torch version matches {asked}", "没有符合 {asked} 的 torch 版本"
    ),
    "rocm.served-from": Texts(
        "{gfx} is served from torch {first}: widen the torch constraint",
        "torch {first} 起才有 {gfx} 的构建：请放宽 torch 的版本约束",
    ),
    # The knowledge base's own words about a GPU no pytorch.org wheel serves, quoted.
    "rocm.known-unserved": Texts(
        "{reason}; {hint}", 'poetry-cuda 知识库的原文："{reason}; {hint}"'
    ),
    "rocm.override": Texts(
        "unsupported workaround: set HSA_OVERRIDE_GFX_VERSION={override}",
        "不受支持的变通办法：设置 HSA_OVERRIDE_GFX_VERSION={override}",
    ),
    "rocm.override-warned": Texts(
        "unsupported workaround: set HSA_OVERRIDE_GFX_VERSION={override} ({warning})",
        "不受支持的变通办法：设置 HSA_OVERRIDE_GFX_VERSION={override}（{warning}）",
    ),
    "rocm.driver-unknown": Texts(
        "{label}: the amdgpu kernel driver's version is unknown (an in-tree driver has none), "
        "so whether it runs the build's ROCm is not checked",
        "{label}：amdgpu 内核驱动的版本未知（内核自带的驱动没有版本号），"
        "因此没有检查它能否运行该构建的 ROCm",
    ),
    "rocm.driver-not-known": Texts(
        "{label}: amdgpu {module} is not in the knowledge base's driver table, so whether it "
        "runs the build's ROCm is not checked",
        "{label}：知识库的驱动表里没有 amdgpu {module}，因此没有检查它能否运行该构建的 ROCm",
    ),
    "rocm.platform": Texts(
        "{label}: {listed} would need a ROCm build, but pytorch.org publishes ROCm wheels for "
        "{platforms} only, not {platform}; the plan gives this target the CPU build",
        "{label}：{listed} 需要 ROCm 版，但 pytorch.org 只为 {platforms} 发布 ROCm wheel，"
        "没有 {platform} 的；计划为这台目标主机选 CPU 版",
    ),
    "rocm.platform-windows": Texts(
        "{said} (AMD publishes Windows builds itself: see AMD's ROCm on Radeon and Ryzen "
        "documentation)",
        "{said}（AMD 自己发布 Windows 版，见 AMD 的 ROCm on Radeon and Ryzen 文档）",
    ),
    "rocm.cuda-serves-one": Texts(
        "{target}: the plan serves its NVIDIA GPUs with CUDA builds; {listed} is not served (set the accelerator the project wants to plan ROCm or XPU builds instead)",
        "{target}：计划用 CUDA 构建服务它的 NVIDIA GPU；{listed} 不在服务范围内（如要改为计划 ROCm 或 XPU 构建，请设置项目要用的加速器）",
    ),
    "rocm.cuda-serves": Texts(
        "{target}: the plan serves its NVIDIA GPUs with CUDA builds; {listed} are not served (set the accelerator the project wants to plan ROCm or XPU builds instead)",
        "{target}：计划用 CUDA 构建服务它的 NVIDIA GPU；{listed} 不在服务范围内（如要改为计划 ROCm 或 XPU 构建，请设置项目要用的加速器）",
    ),
    "rocm.left-out": Texts(
        "{target}: the plan serves its GPUs with {stack} builds; {kind} is not served",
        "{target}：计划用 {stack} 构建服务它的 GPU；{kind} 不在服务范围内",
    ),
    "xpu.unsupported-gpu": Texts(
        "{label}: {gpu} is older than Arc (device IP {ip}) or of unknown IP: PyTorch XPU does "
        "not support it, so it gets the CPU build",
        "{label}：{gpu} 比 Arc（设备 IP {ip}）旧，或 IP 未知：PyTorch XPU 不支持它，所以它用 CPU 版",
    ),
    "xpu.no-aot": Texts(
        "{label}: torch {version}+xpu has no ahead-of-time kernels for {gpu}: they are compiled "
        "at first use (slow first run)",
        "{label}：torch {version}+xpu 没有为 {gpu} 预先编译的内核（kernel）："
        "首次使用时才编译（第一次运行较慢）",
    ),
    "xpu.no-level-zero": Texts(
        "{label}: Intel's Level Zero GPU driver was not found, and the +xpu build needs it: "
        "{install}",
        "{label}：没有找到 Intel 的 Level Zero GPU 驱动，而 +xpu 版需要它；"
        '安装方法（poetry-cuda 知识库的原文）："{install}"',
    ),
    "xpu.none-serves": Texts(
        "{label}: no pytorch.org XPU build of {asked} serves {listed} on {platform}",
        "{label}：pytorch.org 上没有能在 {platform} 上用于 {listed} 的 {asked} XPU 构建",
    ),
    "xpu.from": Texts(
        "+xpu wheels exist from torch {first} on, for {platforms}",
        "从 torch {first} 起才有 +xpu 的 wheel，平台有：{platforms}",
    ),
    "xpu.fix": Texts(
        "allow torch>={first}, or plan the CPU build with allow-cpu-fallback",
        "允许 torch>={first}，或用 allow-cpu-fallback 规划 CPU 版",
    ),
    "reason.only-minor-compatible": Texts(
        "{name} is only minor-compatible and the policy is native",
        "{name} 只能借助小版本兼容运行，而策略是 native",
    ),
    "reason.only-minor-compatible-on": Texts(
        "{name} is only minor-compatible on {label} and the policy is native",
        "{name} 在 {label} 上只能借助小版本兼容运行，而策略是 native",
    ),
    "plan.serves-no-gpu": Texts(
        "no target has an NVIDIA driver, so this plan serves no GPU (CPU builds only); "
        "lock on a GPU machine, or pass --target FILE with a GPU host's profile",
        "没有一台目标主机装有 NVIDIA 驱动，所以这份计划不服务任何 GPU（只有 CPU 版）；"
        "请在有 GPU 的机器上锁定，或用 --target FILE 传入一台 GPU 主机的描述文件",
    ),
    "env.no-lock": Texts("{project} has no cuda.lock", "{project} 里没有 cuda.lock"),
    "env.no-lock-why": Texts(
        "the project's CUDA environment follows the CUDA version and the system requirements "
        "recorded in cuda.lock",
        "项目的 CUDA 环境取决于 cuda.lock 记录的 CUDA 版本和系统要求",
    ),
    "env.no-lock-fix": Texts(
        "run `poetry cuda lock` (or `poetry-cuda lock`) first",
        "先运行 `poetry cuda lock`（或 `poetry-cuda lock`）",
    ),
    "sync.no-lock": Texts(
        "no cuda.lock in {project}: nothing is locked for CUDA yet",
        "{project} 里没有 cuda.lock：还没有为 CUDA 锁定任何东西",
    ),
    "sync.no-lock-why": Texts(
        "sync installs what cuda.lock and the package manager's lock record",
        "sync 安装的是 cuda.lock 和包管理器的锁文件所记录的内容",
    ),
    "sync.lock-first": Texts(
        "run `poetry cuda lock` (or `poetry-cuda lock`), then sync",
        "先运行 `poetry cuda lock`（或 `poetry-cuda lock`），再 sync",
    ),
    "sync.extra": Texts(
        "Extra: {extra} for {family} ({reason})",
        "extra：{family} 使用 {extra}（{reason}）",
    ),
    # A platform fork is the package manager's to install (its markers choose it).
    "sync.platform-fork": Texts(
        "Platform fork: {extra} for {family} ({reason})",
        "平台分支：{family} 使用 {extra}（{reason}）",
    ),
    "sync.would-run": Texts(
        "Would run: {command}",
        "将运行：{command}",
    ),
    "sync.running": Texts(
        "Running: {command}",
        "正在运行：{command}",
    ),
    "sync.toolkit": Texts(
        "Toolkit: {toolkit} (redist)",
        "工具包：{toolkit}（redist）",
    ),
    "available.no-other": Texts(
        "{missing}, and no other build fits ({why}): locking as planned; the package manager "
        "reports what the index lacks",
        "{missing}，也没有别的构建适用（{why}）：按计划锁定；索引缺少什么由包管理器报告",
    ),
    "available.fallback": Texts("{missing}: falling back to {other}", "{missing}：改用 {other}"),
    "available.missing": Texts(
        "{name} {version} is not on {where} ({lacks})", "{where} 上没有 {name} {version}（{lacks}）"
    ),
    "available.unchecked": Texts(
        "could not check that {url} serves {name} {version}: {problem}; locking as planned",
        "无法确认 {url} 是否提供 {name} {version}：{problem}；按计划锁定",
    ),
    "available.no-version": Texts("it lists no {version} wheel", "索引里没有 {version} 的 wheel"),
    "available.no-platform": Texts("no wheel for {platform}", "没有 {platform} 的 wheel"),
    "available.no-python": Texts(
        "no wheel for {platform} and Python {python}", "没有 {platform}、Python {python} 的 wheel"
    ),
    "lock.waiting": Texts(
        "Waiting for another poetry-cuda run on {project} (up to {limit} s)…",
        "正在等待 {project} 上的另一个 poetry-cuda 运行结束（最多 {limit} 秒）…",
    ),
    "undo.restored": Texts(
        " (restored: {names})",
        "（已恢复：{names}）",
    ),
    "undo.as-before-one": Texts(
        "{names} is as before{restored}",
        "{names} 与之前一致{restored}",
    ),
    "undo.as-before": Texts(
        "{names} are as before{restored}",
        "{names} 与之前一致{restored}",
    ),
    "undo.kept-one": Texts(
        "kept {names} as it is: changed by someone else during the run; review the managed entries",
        "保留了 {names} 的现状：运行期间它被别人改动了；请检查托管的条目",
    ),
    "undo.kept-one-sentence": Texts(
        "Kept {names} as it is: changed by someone else during the run; review the managed entries",
        "保留了 {names} 的现状：运行期间它被别人改动了；请检查托管的条目",
    ),
    "undo.kept": Texts(
        "kept {names} as they are: changed by someone else during the run; review the managed entries",
        "保留了 {names} 的现状：运行期间它们被别人改动了；请检查托管的条目",
    ),
    "undo.kept-sentence": Texts(
        "Kept {names} as they are: changed by someone else during the run; review the managed entries",
        "保留了 {names} 的现状：运行期间它们被别人改动了；请检查托管的条目",
    ),
    "undo.failed": Texts(
        "could not restore {names}",
        "无法恢复 {names}",
    ),
    "undo.failed-sentence": Texts(
        "Could not restore {names}",
        "无法恢复 {names}",
    ),
    "undo.did-not-finish": Texts(
        "The run did not finish: {line}.",
        "运行没有完成：{line}。",
    ),
    "undo.sentence": Texts(
        "{line}.",
        "{line}。",
    ),
    "undo.previous-finished": Texts(
        "A previous run (process {pid}) had finished; removed its journal.",
        "之前的一次运行（进程 {pid}）已完成；已删除它的日志。",
    ),
    "undo.previous-stopped": Texts(
        "A previous run (process {pid}) stopped before it finished; undid its changes:",
        "之前的一次运行（进程 {pid}）没有完成就停止了；已撤销它的改动：",
    ),
    "plan.recorded-fallback": Texts(
        "{builds}: not on the index when cuda.lock was written, so planned without; `lock` "
        "asks the index again",
        "{builds}：写入 cuda.lock 时索引上没有，所以计划时不考虑；`lock` 会重新询问索引",
    ),
    "passed.over": Texts("{lead} {series} passed over: {why}", "跳过了 {lead} {series}：{why}"),
    "passed.python-gap-one": Texts(
        "{lead} {version} requires Python {requires} and the project's requires-python admits "
        "{gap}; narrow requires-python to leave it out to allow it",
        "{lead} {version} 要求 Python {requires}，而项目的 requires-python 还允许 {gap}；"
        "收窄 requires-python 把它排除在外，才能用这个版本",
    ),
    "passed.python-gap-many": Texts(
        "{lead} {version} requires Python {requires} and the project's requires-python admits "
        "{gap}; narrow requires-python to leave them out to allow it",
        "{lead} {version} 要求 Python {requires}，而项目的 requires-python 还允许 {gap}；"
        "收窄 requires-python 把它们排除在外，才能用这个版本",
    ),
    "passed.no-build-matches": Texts("no build matches {said}", "没有构建符合 {said}"),
    "passed.no-cuda-build-admitted": Texts(
        "the project's constraints admit no CUDA build", "项目的版本约束不允许任何 CUDA 构建"
    ),
    "passed.every-target": Texts("every target", "每台目标主机"),
    "passed.none-runs": Texts(
        "no build runs on {where} ({ruled})", "没有构建能在 {where} 上运行（{ruled}）"
    ),
    "passed.none-runs-natively": Texts(
        "no build runs natively on {where} ({ruled})", "没有构建能在 {where} 上原生运行（{ruled}）"
    ),
    "passed.none-allowed-runs": Texts(
        "no build that {said} allows runs on {where} ({ruled})",
        "{said} 允许的构建都不能在 {where} 上运行（{ruled}）",
    ),
    "passed.none-allowed-runs-natively": Texts(
        "no build that {said} allows runs natively on {where} ({ruled})",
        "{said} 允许的构建都不能在 {where} 上原生运行（{ruled}）",
    ),
    "passed.no-members-one": Texts(
        "{names} has no {members} build at a version the project allows ({asked}); widening "
        "that constraint would let it be considered",
        "{names} 没有项目允许的 {members} 版本的构建（{asked}）；放宽这个约束才会考虑它",
    ),
    "passed.no-members-many": Texts(
        "{names} have no {members} build at a version the project allows ({asked}); widening "
        "that constraint would let them be considered",
        "{names} 都没有项目允许的 {members} 版本的构建（{asked}）；放宽这个约束才会考虑它们",
    ),
    "passed.unpublished": Texts(
        "{names}: no {members} build is published with this release",
        "{names}：这个版本没有发布 {members} 的构建",
    ),
    "passed.not-served": Texts(
        "{names}: the index does not serve the versions the project allows",
        "{names}：索引上没有项目允许的版本",
    ),
    "passed.chose-as-asked": Texts(
        "no target has an NVIDIA driver; chose {variant} as {said} asks",
        "没有一台目标主机装有 NVIDIA 驱动；按 {said} 的要求选了 {variant}",
    ),
    "passed.prerelease-pinned": Texts(
        "{lead} {version} is a pre-release the knowledge base does not list; {said}, so it "
        "is used as the project pins it, assumed built like {lead} {series} {variants}",
        "{lead} {version} 是知识库未收录的预发布版；{said}，因此按项目的固定原样使用，"
        "假定其构建与 {lead} {series} {variants} 相同",
    ),
    "passed.cpu-fallback": Texts(
        "{lead}: no CUDA variant runs on every target; using the CPU build because "
        "allow-cpu-fallback = true",
        "{lead}：没有 CUDA 变体能在每台目标主机上运行；因为 allow-cpu-fallback = true，改用 CPU 版",
    ),
    "plan.earlier-machine": Texts("the machine of an earlier lock", "上次锁定时的机器"),
    "plan.recorded-targets": Texts(
        "the targets cuda.lock records ({labels})", "cuda.lock 记录的目标主机（{labels}）"
    ),
    "plan.user-mirror": Texts(
        "Per-user mirror ({variable}): this machine fetches {source} from {mirror}; "
        "the lock records {upstream}",
        "个人镜像（{variable}）：本机从 {mirror} 获取 {source}；锁文件里记录的仍是 {upstream}",
    ),
    "plan.user-mirror-uv": Texts(
        "{variables}: a per-user mirror works with Poetry projects only; in this uv project "
        "`lock` refuses it (set the mirror in [tool.poetry-cuda.mirrors] instead)",
        "{variables}：个人镜像只对 Poetry 项目有效；这是 uv 项目，`lock` 会拒绝它"
        "（请改在 [tool.poetry-cuda.mirrors] 中设置镜像）",
    ),
    "plan.mirror": Texts("Mirror: {said}", "镜像：{said}"),
    "warning.line": Texts("Warning: {text}", "警告：{text}"),
    "nvcc.mismatch-cuda": Texts(
        "the nvcc on PATH ({path}) is CUDA {version}, but the locked builds are CUDA {cuda}: "
        "extensions it compiles would not match them",
        "PATH 上的 nvcc（{path}）是 CUDA {version}，而锁定的构建是 CUDA {cuda} 版："
        "用它编译的扩展与这些构建不匹配",
    ),
    "nvcc.mismatch-need": Texts(
        "the nvcc on PATH ({path}) is CUDA {version}, but {package} needs nvcc {spec}",
        "PATH 上的 nvcc（{path}）是 CUDA {version}，而 {package} 需要 nvcc {spec}",
    ),
    "nvcc.mismatch-fix-cuda": Texts(
        "install a CUDA {major}.x toolkit (env and run put it first on PATH), or set "
        'toolkit = "redist" in [tool.poetry-cuda] to give the project its own nvcc',
        "安装一个 CUDA {major}.x 工具包（env 和 run 会把它放到 PATH 最前面），或在 "
        '[tool.poetry-cuda] 中设置 toolkit = "redist"，让项目用上自己的 nvcc',
    ),
    "nvcc.mismatch-fix-need": Texts(
        '{satisfy}; or set toolkit = "redist" in [tool.poetry-cuda] to give the project its '
        "own nvcc",
        '{satisfy}；或在 [tool.poetry-cuda] 中设置 toolkit = "redist"，让项目用上自己的 nvcc',
    ),
    "redist.unreachable": Texts(
        'toolkit = "redist": lock could not read NVIDIA\'s archive listing: {what}',
        'toolkit = "redist"：lock 无法读取 NVIDIA 的归档清单：{what}',
    ),
    "redist.unreachable-upstream": Texts(
        "lock records the nvcc archives' sha256 from {url}, NVIDIA's own site (no cuda-redist "
        "mirror is set)",
        "lock 要从 {url}（NVIDIA 官方站点；未设置 cuda-redist 镜像）读取 nvcc 归档的 sha256",
    ),
    "redist.unreachable-mirror": Texts(
        "lock records the nvcc archives' sha256 from the cuda-redist mirror in use, {url}",
        "lock 要从正在使用的 cuda-redist 镜像 {url} 读取 nvcc 归档的 sha256",
    ),
    "redist.unreachable-fix": Texts(
        "check the network, or name a mirror of NVIDIA's redist directory: "
        '[tool.poetry-cuda.mirrors] cuda-redist = "https://..." (for yourself only: '
        "POETRY_CUDA_MIRROR_CUDA_REDIST), then run lock again",
        "检查网络，或者为 NVIDIA 的 redist 目录指定镜像："
        '[tool.poetry-cuda.mirrors] cuda-redist = "https://..."（只对自己生效：'
        "POETRY_CUDA_MIRROR_CUDA_REDIST），然后重新运行 lock",
    ),
    "redist.no-archives": Texts(
        'toolkit = "redist": NVIDIA publishes no redistributable archives for CUDA {cuda}',
        'toolkit = "redist"：NVIDIA 没有发布 CUDA {cuda} 的可再分发归档',
    ),
    "redist.no-archives-why": Texts(
        "NVIDIA's redistributable archives start with CUDA {first}",
        "NVIDIA 的可再分发归档从 CUDA {first} 开始提供",
    ),
    "redist.no-archives-fix": Texts(
        'use a CUDA version from {first} on, or set toolkit = "system" and install the CUDA {cuda} toolkit',
        '使用 {first} 及以后的 CUDA 版本，或设置 toolkit = "system" 并安装 CUDA {cuda} 工具包',
    ),
    "redist.redirect-refused": Texts(
        "{source}: redirected to {target}, which is refused",
        "{source}：重定向到了 {target}，已拒绝",
    ),
    "redist.redirect-refused-fix": Texts(
        "use a mirror that serves the files over https itself",
        "使用自己通过 https 提供文件的镜像",
    ),
    "redist.too-large": Texts(
        "{url}: larger than the {limit} bytes expected",
        "{url}：超过了预期的 {limit} 字节",
    ),
    "redist.too-large-why": Texts(
        "the manifest gives each archive's size; anything more is not NVIDIA's archive",
        "清单给出了每个归档的大小；更大的就不是 NVIDIA 的归档",
    ),
    "redist.check-mirror": Texts(
        "check that the redist base URL (or its mirror) serves NVIDIA's own files",
        "确认 redist 基础 URL（或它的镜像）提供的是 NVIDIA 自己的文件",
    ),
    "redist.cut-short": Texts(
        "{url}: the download ended after {got} of {expected} bytes",
        "{url}：下载在 {expected} 字节中的第 {got} 字节处中断",
    ),
    "redist.cut-short-why": Texts(
        "the connection closed before the whole file came",
        "连接在整个文件传完之前就关闭了",
    ),
    "redist.cut-short-fix": Texts(
        "run the command again; the download is redone from the start",
        "重新运行命令；下载会从头开始",
    ),
    "redist.status": Texts(
        "{url}: the server answered {code} {reason}",
        "{url}：服务器返回 {code} {reason}",
    ),
    "redist.status-fix": Texts(
        "check the redist base URL (the cuda-redist mirror) and that it holds the release",
        "检查 redist 基础 URL（cuda-redist 镜像），并确认其中有这个版本",
    ),
    "redist.broken-answer": Texts(
        "a broken HTTP answer ({kind})",
        "HTTP 应答损坏（{kind}）",
    ),
    "redist.too-many-redirects": Texts(
        "redirected more than {count} times",
        "重定向超过了 {count} 次",
    ),
    "redist.cannot-download": Texts(
        "{url}: cannot download ({problem})",
        "{url}：无法下载（{problem}）",
    ),
    "redist.cannot-download-fix": Texts(
        "check the network connection, or set a cuda-redist mirror",
        "检查网络连接，或设置 cuda-redist 镜像",
    ),
    "redist.no-component": Texts(
        "{name}: no component {missing}",
        "{name}：没有组件 {missing}",
    ),
    "redist.no-component-why": Texts(
        "nvcc of CUDA {cuda} needs {components} (source: {source})",
        "CUDA {cuda} 的 nvcc 需要 {components}（来源：{source}）",
    ),
    "redist.no-component-fix": Texts(
        "check that the redist base URL serves NVIDIA's manifest for this release",
        "确认 redist 基础 URL 提供的是 NVIDIA 为这个版本发布的清单",
    ),
    "redist.no-platform": Texts(
        "{name}: {component} has no archive for {platform} (it has: {offered})",
        "{name}：{component} 没有 {platform} 的归档（它有：{offered}）",
    ),
    "redist.no-platform-why": Texts(
        "NVIDIA does not publish {component} for {platform}",
        "NVIDIA 没有为 {platform} 发布 {component}",
    ),
    "redist.no-platform-fix": Texts(
        'use toolkit = "system" on {platform}, or a CUDA release that has it',
        '在 {platform} 上使用 toolkit = "system"，或换一个有它的 CUDA 版本',
    ),
    "redist.no-release": Texts(
        "the redist directory lists no release of CUDA {cuda} (newest: {shown})",
        "redist 目录中没有 CUDA {cuda} 的任何版本（最新的是：{shown}）",
    ),
    "redist.no-release-why": Texts(
        "each CUDA release has its own redistrib_<release>.json",
        "每个 CUDA 版本都有自己的 redistrib_<release>.json",
    ),
    "redist.no-release-fix": Texts(
        "lock a CUDA version the directory has, or check the cuda-redist mirror",
        "锁定目录中有的 CUDA 版本，或检查 cuda-redist 镜像",
    ),
    # What `lock` did.
    "lock.no-change": Texts("pyproject.toml: no change", "pyproject.toml：没有改动"),
    "lock.locked": Texts(
        "Locked {name} {version} from {source}", "已锁定 {name} {version}，来自 {source}"
    ),
    "lock.wrote": Texts("Wrote cuda.lock", "已写入 cuda.lock"),
    # `lock --check`: the header above the reasons, its fix, and the all-clear.
    "check.stale": Texts("cuda.lock is stale:", "cuda.lock 已过期："),
    "lock.file-missing": Texts("{file} does not exist", "{file} 不存在"),
    "cuda-lock.damaged-why": Texts(
        "cuda.lock is written by poetry-cuda and was changed or damaged since",
        "cuda.lock 由 poetry-cuda 写入，之后被改动或损坏了",
    ),
    "cuda-lock.damaged-fix": Texts(
        "restore it from version control, or remove it and run `poetry cuda lock` to write it anew",
        "从版本控制中恢复它，或删除它并运行 `poetry cuda lock` 重新写入",
    ),
    "cuda-lock.overlong": Texts(
        "{path}: {where}: a value of {length} characters, more than the {limit} poetry-cuda ever writes there",
        "{path}：{where}：值有 {length} 个字符，超过了 poetry-cuda 在这里会写入的 {limit} 个",
    ),
    "cuda-lock.version": Texts(
        "{path}: version {version} is not supported (this poetry-cuda reads 1 and {current})",
        "{path}：不支持版本 {version}（这个 poetry-cuda 读取版本 1 和 {current}）",
    ),
    "cuda-lock.version-why": Texts(
        "the file was written by a different poetry-cuda release",
        "这个文件是由另一个版本的 poetry-cuda 写入的",
    ),
    "cuda-lock.version-fix": Texts(
        "upgrade poetry-cuda, or run `poetry cuda lock` to write it for this release",
        "升级 poetry-cuda，或运行 `poetry cuda lock` 为当前版本重新写入",
    ),
    "stale.pyproject": Texts(
        "the CUDA-relevant parts of pyproject.toml changed since the lock",
        "锁定之后，pyproject.toml 中与 CUDA 相关的部分有了改动",
    ),
    "stale.managed": Texts(
        "the managed entries in pyproject.toml differ from the plan",
        "pyproject.toml 中托管的条目与计划不同",
    ),
    "stale.targets": Texts(
        "the targets' facts (driver, CUDA, GPUs) changed since the lock",
        "锁定之后，目标主机的信息（驱动、CUDA、GPU）有了变化",
    ),
    "stale.plan-chooses": Texts(
        "{name}: the plan chooses {variant} from {source}",
        "{name}：计划选择的是 {variant}，来自 {source}",
    ),
    "stale.lock-records": Texts(
        "{name}: {file} records {variant} from {source}",
        "{name}：{file} 记录的是 {variant}，来自 {source}",
    ),
    "check.fix": Texts("run `{command}`", "运行 `{command}`"),
    "check.fresh": Texts(
        "cuda.lock and the managed configuration are fresh.", "cuda.lock 和托管的配置都是最新的。"
    ),
    # `detect`'s report: labels and the sentences around what was found.
    "detect.host": Texts("Host", "主机"),
    "detect.this-machine": Texts("this machine", "本机"),
    "detect.where": Texts(" ({os} {machine})", "（{os} {machine}）"),
    "detect.driver": Texts("NVIDIA driver", "NVIDIA 驱动"),
    "detect.none-found": Texts("none found", "未找到"),
    "detect.kubernetes-missing": Texts("{file}: file not found", "{file}：文件不存在"),
    "detect.kubernetes-missing-why": Texts(
        "`detect --kubernetes` reads the node list that `kubectl get nodes -o json` prints, "
        "from a file or from standard input",
        "`detect --kubernetes` 读取 `kubectl get nodes -o json` 输出的节点列表，来自文件或标准输入",
    ),
    "detect.kubernetes-missing-fix": Texts(
        "write it first with `kubectl get nodes -o json > {file}`, or pipe it in: "
        "`kubectl get nodes -o json | {detect} --kubernetes -`",
        "先用 `kubectl get nodes -o json > {file}` 写出这个文件，或用管道传入："
        "`kubectl get nodes -o json | {detect} --kubernetes -`",
    ),
    "k8s.why": Texts(
        "`detect --kubernetes` reads what `kubectl get nodes -o json` prints",
        "`detect --kubernetes` 读取的是 `kubectl get nodes -o json` 的输出",
    ),
    "k8s.fix": Texts(
        "give it the output of `kubectl get nodes -o json` (a List or NodeList, or one Node)",
        "传入 `kubectl get nodes -o json` 的输出（List、NodeList 或单个 Node）",
    ),
    "k8s.label-why": Texts(
        "GPU Feature Discovery writes this label, and a plan for the node depends on it: poetry-cuda guesses no value",
        "这个标签由 GPU Feature Discovery 写入，节点的计划依赖它：poetry-cuda 不会猜测它的值",
    ),
    "k8s.stdin": Texts(
        "standard input",
        "标准输入",
    ),
    "k8s.not-json": Texts(
        "{name}: not valid JSON (line {line}, column {column}: {error})",
        "{name}：不是有效的 JSON（第 {line} 行第 {column} 列：{error}）",
    ),
    "k8s.not-json-fix": Texts(
        "give it the output of `kubectl get nodes -o json` (not `-o yaml` or `-o wide`)",
        "传入 `kubectl get nodes -o json` 的输出（不是 `-o yaml` 或 `-o wide`）",
    ),
    "k8s.not-text": Texts(
        "{name}: not UTF-8 or UTF-16 text ({reason} at byte {at})",
        "{name}：不是 UTF-8 或 UTF-16 文本（第 {at} 字节：{reason}）",
    ),
    "k8s.unreadable-document": Texts(
        "{name}: not a readable document",
        "{name}：无法读取的文档",
    ),
    "k8s.too-costly": Texts(
        "{name}: {values} JSON values in {size} bytes, more than a node list holds for its size",
        "{name}：{size} 字节中有 {values} 个 JSON 值，超过了同样大小的节点列表所能有的数量",
    ),
    "k8s.too-costly-why": Texts(
        "parsing them would take about {memory} MiB of memory; `kubectl get nodes -o json` has one value in 10 bytes or more",
        "解析它们大约需要 {memory} MiB 内存；`kubectl get nodes -o json` 的输出每个值至少占 10 字节",
    ),
    "k8s.too-costly-fix": Texts(
        "give it the output of `kubectl get nodes -o json`, or keep only what poetry-cuda reads: {slimmed}",
        "传入 `kubectl get nodes -o json` 的输出，或只保留 poetry-cuda 读取的部分：{slimmed}",
    ),
    "k8s.closed": Texts(
        "{name} is closed",
        "{name} 已关闭",
    ),
    "k8s.closed-fix": Texts(
        "pipe kubectl's output in, or give a file",
        "用管道传入 kubectl 的输出，或给出一个文件",
    ),
    "k8s.terminal": Texts(
        "{name} is a terminal, not kubectl's output",
        "{name} 是终端，不是 kubectl 的输出",
    ),
    "k8s.terminal-fix": Texts(
        "pipe it in: kubectl get nodes -o json | poetry-cuda detect --kubernetes=-",
        "用管道传入：kubectl get nodes -o json | poetry-cuda detect --kubernetes=-",
    ),
    "k8s.cannot-read": Texts(
        "{name}: cannot read it ({error})",
        "{name}：无法读取（{error}）",
    ),
    "k8s.too-large": Texts(
        "{name}: larger than {limit} MiB",
        "{name}：超过 {limit} MiB",
    ),
    "k8s.too-large-why": Texts(
        "`kubectl get nodes -o json` of the largest cluster Kubernetes supports stays below this; reading more could exhaust the memory",
        "Kubernetes 支持的最大集群的 `kubectl get nodes -o json` 输出也小于这个大小；读取更多可能耗尽内存",
    ),
    "k8s.too-large-fix": Texts(
        "keep only what poetry-cuda reads: {slimmed}",
        "只保留 poetry-cuda 读取的部分：{slimmed}",
    ),
    "k8s.selector": Texts(
        "--selector {text}: {term} is not KEY=VALUE",
        "--selector {text}：{term} 不是 KEY=VALUE",
    ),
    "k8s.selector-why": Texts(
        "a selector keeps the nodes a pod's nodeSelector would: those whose label KEY has exactly VALUE",
        "选择器保留的节点与 pod 的 nodeSelector 相同：标签 KEY 的值恰好是 VALUE 的节点",
    ),
    "k8s.selector-fix": Texts(
        "write it as in the pod spec, e.g. --selector nvidia.com/gpu.product=NVIDIA-L4 (repeat it, or join terms with commas)",
        "按 pod spec 中的写法，例如 --selector nvidia.com/gpu.product=NVIDIA-L4（可重复给出，或用逗号连接多个条件）",
    ),
    "k8s.top-level": Texts(
        "(top level)",
        "（顶层）",
    ),
    "k8s.an-object": Texts(
        "an object",
        "对象",
    ),
    "k8s.a-list": Texts(
        "a list of nodes",
        "节点列表",
    ),
    "k8s.a-node": Texts(
        "a node",
        "节点",
    ),
    "k8s.a-string": Texts(
        "a string",
        "字符串",
    ),
    "k8s.expected-a-string": Texts(
        "expected a string",
        "应为字符串",
    ),
    "k8s.not-a-list": Texts(
        "{kind}: expected a List or NodeList of nodes",
        "{kind}：应为由节点组成的 List 或 NodeList",
    ),
    "k8s.not-a-node": Texts(
        "{kind}: not a Node",
        "{kind}：不是 Node",
    ),
    "k8s.bad-node-name": Texts(
        "expected a node name (1 to {limit} lower-case letters, digits, '-' and '.'), got {got}",
        "应为节点名（1 到 {limit} 个小写字母、数字、'-' 和 '.'），实际是 {got}",
    ),
    "k8s.node": Texts(
        "node {node}",
        "节点 {node}",
    ),
    "k8s.label": Texts(
        "label {label}: {problem}",
        "标签 {label}：{problem}",
    ),
    "k8s.label-fix": Texts(
        "correct the label (kubectl label node {node} {key}=... --overwrite), or restart gpu-feature-discovery on the node to write it again",
        "更正这个标签（kubectl label node {node} {key}=... --overwrite），或在该节点上重启 gpu-feature-discovery 让它重新写入",
    ),
    "k8s.label-too-long": Texts(
        "longer than a label value may be ({limit})",
        "超过了标签值的长度上限（{limit}）",
    ),
    "k8s.not-label-value": Texts(
        "not a label value (letters, digits, '-', '_' and '.')",
        "不是标签值（字母、数字、'-'、'_' 和 '.'）",
    ),
    "k8s.not-a-number": Texts(
        "not a number",
        "不是数字",
    ),
    "k8s.not-a": Texts(
        "not {what}",
        "不是{what}",
    ),
    "k8s.driver-version": Texts(
        "a driver version",
        "驱动版本",
    ),
    "k8s.cuda-version": Texts(
        "a CUDA version (12.4)",
        "CUDA 版本（如 12.4）",
    ),
    "k8s.without": Texts(
        "given without {missing}",
        "缺少 {missing}",
    ),
    "k8s.not-driver-part": Texts(
        "not a part of a driver version (digits)",
        "不是驱动版本的一部分（应为数字）",
    ),
    "k8s.no-arch": Texts(
        "no kubernetes.io/arch label and no status.nodeInfo.architecture",
        "既没有 kubernetes.io/arch 标签，也没有 status.nodeInfo.architecture",
    ),
    "k8s.no-arch-why": Texts(
        "a plan depends on the machine (x86_64 or aarch64 builds)",
        "计划取决于机器架构（x86_64 或 aarch64 的构建）",
    ),
    "k8s.no-arch-fix": Texts(
        "give the whole output of `kubectl get nodes -o json`",
        "传入 `kubectl get nodes -o json` 的完整输出",
    ),
    "k8s.not-machine": Texts(
        "not a machine architecture (amd64, arm64)",
        "不是机器架构（amd64、arm64）",
    ),
    "k8s.not-os": Texts(
        "not an operating system GPU nodes run (linux)",
        "不是 GPU 节点运行的操作系统（linux）",
    ),
    "k8s.twice": Texts(
        "node {node} is listed twice",
        "节点 {node} 出现了两次",
    ),
    "k8s.no-driver": Texts(
        "GPU labels without a driver: neither nvidia.com/cuda.driver-version.* nor nvidia.com/cuda.runtime-version.* (nor their older names)",
        "有 GPU 标签却没有驱动：既没有 nvidia.com/cuda.driver-version.*，也没有 nvidia.com/cuda.runtime-version.*（及它们的旧名称）",
    ),
    "k8s.restart-gfd": Texts(
        "restart gpu-feature-discovery on the node to write its labels again",
        "在该节点上重启 gpu-feature-discovery，让它重新写入标签",
    ),
    "k8s.options-need": Texts(
        "--write-targets, --selector and --gpu-only are options of --kubernetes",
        "--write-targets、--selector 和 --gpu-only 是 --kubernetes 的选项",
    ),
    "k8s.options-need-fix": Texts(
        "add --kubernetes FILE (or --kubernetes=- for standard input) with the output of `kubectl get nodes -o json`",
        "加上 --kubernetes FILE（或用 --kubernetes=- 读标准输入），传入 `kubectl get nodes -o json` 的输出",
    ),
    "k8s.with-target": Texts(
        "--target and --kubernetes cannot be combined",
        "--target 和 --kubernetes 不能同时使用",
    ),
    "k8s.with-target-fix": Texts(
        "validate profiles with `detect --target FILE`, or group a cluster's nodes with `detect --kubernetes FILE`",
        "用 `detect --target FILE` 校验主机配置，或用 `detect --kubernetes FILE` 为集群节点分组",
    ),
    "k8s.no-group": Texts(
        "{origin}: no node with GPU Feature Discovery labels; no profile was written",
        "{origin}：没有带 GPU Feature Discovery 标签的节点；没有写入任何主机配置",
    ),
    "k8s.no-group-selected": Texts(
        "{origin}: no node with GPU Feature Discovery labels matches the selector; no profile was written",
        "{origin}：没有与选择器匹配、带 GPU Feature Discovery 标签的节点；没有写入任何主机配置",
    ),
    "k8s.no-group-why": Texts(
        "a profile is written for each group of GPU nodes that GPU Feature Discovery labelled with their driver and compute capability",
        "每组由 GPU Feature Discovery 标注了驱动和计算能力的 GPU 节点各写一份主机配置",
    ),
    "k8s.no-group-fix": Texts(
        "check the selector, and that GPU Feature Discovery (NVIDIA's device plugin or GPU Operator) runs on the GPU nodes",
        "检查选择器，并确认 GPU 节点上运行着 GPU Feature Discovery（NVIDIA 的 device plugin 或 GPU Operator）",
    ),
    "k8s.wrote": Texts(
        "Wrote {path} ({label})",
        "已写入 {path}（{label}）",
    ),
    "k8s.cluster": Texts(
        "Cluster: {origin}, {nodes}; {gpu_nodes} with GPU labels in {groups}",
        "集群：{origin}，{nodes}；其中 {gpu_nodes} 个带 GPU 标签，分为 {groups}",
    ),
    "k8s.groups-one": Texts(
        "{count} group",
        "{count} 组",
    ),
    "k8s.groups": Texts(
        "{count} groups",
        "{count} 组",
    ),
    "k8s.nodes-one": Texts(
        "{count} node",
        "{count} 个节点",
    ),
    "k8s.nodes": Texts(
        "{count} nodes",
        "{count} 个节点",
    ),
    "k8s.matched": Texts(
        "  {count} of them match --selector {terms}",
        "  其中 {count} 个与 --selector {terms} 匹配",
    ),
    "k8s.no-groups": Texts(
        "GPU node groups: none",
        "GPU 节点组：无",
    ),
    "k8s.cpu-only": Texts(
        "CPU-only nodes ({count})",
        "仅有 CPU 的节点（{count}）",
    ),
    "k8s.unlabelled": Texts(
        "GPU nodes without GPU Feature Discovery labels ({count})",
        "没有 GPU Feature Discovery 标签的 GPU 节点（{count}）",
    ),
    "k8s.as": Texts(
        "{products} (as {partitions})",
        "{products}（划分为 {partitions}）",
    ),
    "k8s.capability": Texts(
        "compute capability {cc} ({sm})",
        "计算能力 {cc}（{sm}）",
    ),
    "k8s.no-capability": Texts(
        "no compute capability labelled",
        "没有标注计算能力",
    ),
    "k8s.devices-in-all": Texts(
        "{count} devices in all",
        "共 {count} 个设备",
    ),
    "k8s.gpus-in-all": Texts(
        "{count} GPUs in all",
        "共 {count} 个 GPU",
    ),
    "k8s.unknown": Texts(
        "unknown",
        "未知",
    ),
    "k8s.group": Texts(
        "{name}: {nodes}, {where}",
        "{name}：{nodes}，{where}",
    ),
    "k8s.group-gpus": Texts(
        "  GPUs: {products}, {gpus}",
        "  GPU：{products}，{gpus}",
    ),
    "k8s.group-driver": Texts(
        "  NVIDIA driver: {driver}, highest CUDA {cuda}",
        "  NVIDIA 驱动：{driver}，最高 CUDA {cuda}",
    ),
    "k8s.group-nodes": Texts(
        "  Nodes: {names}",
        "  节点：{names}",
    ),
    "k8s.and-more": Texts(
        "{names} and {count} more",
        "{names} 等（另有 {count} 个）",
    ),
    "k8s.unlabelled-warning-one": Texts(
        "{nodes} with an NVIDIA GPU but without GPU Feature Discovery labels ({names}) is in no group: nothing tells their driver and compute capability; run GPU Feature Discovery (NVIDIA's device plugin or GPU Operator) on them",
        "有 NVIDIA GPU 但没有 GPU Feature Discovery 标签的 {nodes}（{names}）不属于任何组：无从得知它们的驱动和计算能力；请在这些节点上运行 GPU Feature Discovery（NVIDIA 的 device plugin 或 GPU Operator）",
    ),
    "k8s.unlabelled-warning": Texts(
        "{nodes} with an NVIDIA GPU but without GPU Feature Discovery labels ({names}) are in no group: nothing tells their driver and compute capability; run GPU Feature Discovery (NVIDIA's device plugin or GPU Operator) on them",
        "有 NVIDIA GPU 但没有 GPU Feature Discovery 标签的 {nodes}（{names}）不属于任何组：无从得知它们的驱动和计算能力；请在这些节点上运行 GPU Feature Discovery（NVIDIA 的 device plugin 或 GPU Operator）",
    ),
    "k8s.stale-profile": Texts(
        "{path}: a profile written from Kubernetes that this run did not write again; if its nodes are gone, remove it (plans serve them while it is there)",
        "{path}：这是之前从 Kubernetes 写入、本次没有重写的主机配置；如果它的节点已不存在，请删除它（只要它还在，计划就会服务这些节点）",
    ),
    "k8s.no-folder": Texts(
        "{folder}: cannot create the folder for the profiles ({error})",
        "{folder}：无法创建存放主机配置的文件夹（{error}）",
    ),
    "k8s.no-folder-fix": Texts(
        "give --write-targets a folder (or a path where one can be created)",
        "给 --write-targets 一个文件夹（或一个可以创建文件夹的路径）",
    ),
    "k8s.in-the-way-link": Texts(
        "{path}: a symbolic link; no profile was written",
        "{path}：是符号链接；没有写入任何主机配置",
    ),
    "k8s.in-the-way": Texts(
        "{path}: not a profile written from Kubernetes; no profile was written",
        "{path}：不是从 Kubernetes 写入的主机配置；没有写入任何主机配置",
    ),
    "k8s.in-the-way-why": Texts(
        "`detect --kubernetes --write-targets` replaces only the profiles it wrote (regular files with a `nodes` entry), and never writes through a link",
        "`detect --kubernetes --write-targets` 只替换它自己写入的主机配置（带 `nodes` 条目的普通文件），并且从不通过链接写入",
    ),
    "k8s.in-the-way-fix": Texts(
        "move that file away, or give --write-targets another folder",
        "移走那个文件，或给 --write-targets 另一个文件夹",
    ),
    "detect.none-macos": Texts("none (macOS has no CUDA)", "无（macOS 没有 CUDA）"),
    "detect.unknown": Texts("unknown", "未知"),
    "detect.highest-cuda": Texts("Highest CUDA the driver supports", "驱动支持的最高 CUDA"),
    "detect.gpu": Texts(
        "{index}: {name}, compute capability {capability} ({sm}){memory}",
        "{index}：{name}，计算能力 {capability}（{sm}）{memory}",
    ),
    "detect.memory": Texts(", {mib} MiB", "，显存 {mib} MiB"),
    "detect.gpus": Texts("GPUs", "GPU"),
    "detect.none-reported": Texts("none reported", "驱动没有报告任何 GPU"),
    "detect.toolkit": Texts("{version} at {root}{nvcc}", "{version}，位于 {root}{nvcc}"),
    "detect.nvcc": Texts(", nvcc {path}", "，nvcc 为 {path}"),
    "detect.no-nvcc": Texts(", no nvcc", "，没有 nvcc"),
    "detect.toolkits": Texts("CUDA toolkits", "CUDA 工具包"),
    "detect.at": Texts("{version} at {path}", "{version}，位于 {path}"),
    "detect.probes": Texts("Probes", "探测结果"),
    "detect.rocm-no-user-space": Texts("no user space installed", "没有安装用户态组件"),
    "detect.amdgpu-in-tree": Texts(
        ", amdgpu in-tree (version unknown)", "，amdgpu 为内核自带（版本未知）"
    ),
    "detect.xpu-driver": Texts("Intel XPU driver", "Intel XPU 驱动"),
    "detect.not-a-target": Texts("Not a target", "不作为目标"),
    "detect.capability": Texts(
        "compute capability {capability} ({sm})", "计算能力 {capability}（{sm}）"
    ),
    "detect.device-ip": Texts(", device IP {ip}", "，设备 IP {ip}"),
    # What each probe did, and the commonest of what it says (the rest quotes a tool).
    "probe.found": Texts("found", "已找到"),
    "probe.absent": Texts("absent", "未发现"),
    "probe.skipped": Texts("skipped", "已跳过"),
    "probe.error": Texts("error", "出错"),
    "probe.timeout": Texts("timeout", "超时"),
    "probe.not-needed": Texts("not needed", "不需要"),
    "probe.not-needed-because": Texts("not needed: {why}", "不需要：{why}"),
    "probe.gave-driver": Texts("{probe} gave the driver version", "{probe} 已给出驱动版本"),
    "probe.linux-only": Texts("Linux only", "只用于 Linux"),
    "probe.gave-every-fact": Texts(
        "the probes before it gave every fact", "之前的探测已给出全部信息"
    ),
    "probe.given-explicitly": Texts(
        "driver {version} given explicitly", "明确指定了驱动 {version}"
    ),
    "probe.no-nvidia-library": Texts(
        "no NVIDIA driver: {library} not found", "没有 NVIDIA 驱动：找不到 {library}"
    ),
    "probe.no-nvidia-module": Texts(
        "no NVIDIA kernel module: neither {first} nor {second} exists",
        "没有 NVIDIA 内核模块：{first} 和 {second} 都不存在",
    ),
    "probe.not-found": Texts("{program} not found", "找不到 {program}"),
    "probe.not-installed": Texts("{program} is not installed", "没有安装 {program}"),
    "probe.no-cudnn": Texts("no cuDNN found", "没有找到 cuDNN"),
    "probe.no-libcudnn": Texts("no libcudnn in the linker cache", "链接器缓存里没有 libcudnn"),
    "probe.no-kfd": Texts(
        "no KFD topology: amdgpu is not loaded", "没有 KFD 拓扑：amdgpu 没有加载"
    ),
    "probe.no-gpu-node": Texts("{topology}: no GPU node", "{topology}：没有 GPU 节点"),
    "probe.no-pci-gpu": Texts("no {vendor} GPU on the PCI bus", "PCI 总线上没有 {vendor} GPU"),
    "probe.no-intel-gpu": Texts("no Intel GPU", "没有 Intel GPU"),
    "probe.no-toolkit": Texts("no CUDA toolkit found", "没有找到 CUDA 工具包"),
    "probe.toolkit-at": Texts(
        "{version} at {root} (via {source})", "{version}，位于 {root}（经由 {source}）"
    ),
    "probe.not-a-folder": Texts("{setting} is not a folder", "{setting} 不是文件夹"),
    "probe.nvcc-outside": Texts(
        "PATH: {nvcc} is not inside a toolkit folder", "PATH：{nvcc} 不在任何工具包文件夹里"
    ),
    "probe.macos": Texts("macOS has no NVIDIA CUDA driver", "macOS 没有 NVIDIA CUDA 驱动"),
    "probe.not-a-node": Texts(
        "{name}: not a node number, skipped",
        "{name}：不是节点编号，已跳过",
    ),
    "probe.file-skipped": Texts(
        "{path}: {problem}, skipped",
        "{path}：{problem}，已跳过",
    ),
    "probe.no-version-in": Texts(
        "{path}: no driver version in it",
        "{path}：其中没有驱动版本",
    ),
    # The plugin's warnings before `poetry install` installs the lock.
    "install.run-live": Texts(
        "another poetry-cuda run is changing pyproject.toml and the locks now "
        "({journal} is its journal); install once it has finished",
        "另一个 poetry-cuda 运行正在修改 pyproject.toml 和锁文件（{journal} 是它的日志）；"
        "请等它结束后再安装",
    ),
    "install.run-dead": Texts(
        "a poetry-cuda run stopped before it finished and left {journal}; "
        "run `poetry cuda lock` to undo it before installing",
        "有一次 poetry-cuda 运行没有完成就停下了，留下了 {journal}；"
        "安装前请运行 `poetry cuda lock` 撤销它的改动",
    ),
    "install.stale": Texts(
        "cuda.lock is stale: the CUDA-relevant parts of pyproject.toml changed since it was "
        "written; run `poetry cuda lock`",
        "cuda.lock 已过期：写入它之后，pyproject.toml 中与 CUDA 相关的部分有了改动；"
        "请运行 `poetry cuda lock`",
    ),
    "install.user-mirror": Texts(
        "{source} is fetched from {mirror} ({variable}); the lock records {upstream}",
        "{source} 改从 {mirror} 获取（{variable}）；锁文件里记录的仍是 {upstream}",
    ),
    "install.locked": Texts("{name} {version} from {source}", "{name} {version}，来自 {source}"),
    "install.shared-failed": Texts(
        "{problem}; Poetry installs as usual", "{problem}；Poetry 照常安装"
    ),
    "run.without-environment": Texts(
        "{problem}; running without the project's CUDA environment",
        "{problem}；本次运行不使用项目的 CUDA 环境",
    ),
    "resolution.poetry-failed": Texts("Poetry's resolution failed:", "Poetry 解析依赖失败："),
    "resolution.poetry-why": Texts(
        "Poetry could not lock the project with the chosen CUDA sources",
        "Poetry 无法用所选的 CUDA 软件源（source，即 Poetry 的包索引）锁定项目",
    ),
    "resolution.poetry-fix": Texts(
        "read Poetry's message above; `poetry cuda plan` shows what was chosen",
        "请阅读上面 Poetry 的输出；`poetry cuda plan` 会显示选择了什么",
    ),
    "resolution.uv-failed": Texts("uv's resolution failed:", "uv 解析依赖失败："),
    "resolution.uv-why": Texts(
        "uv could not lock the project with the chosen CUDA indexes",
        "uv 无法用所选的 CUDA 包索引（index）锁定项目",
    ),
    "resolution.uv-fix": Texts(
        "read uv's message above; `poetry-cuda plan` shows what was chosen",
        "请阅读上面 uv 的输出；`poetry-cuda plan` 会显示选择了什么",
    ),
    "resolution.uv-timeout": Texts(
        "`{command}` did not finish within {seconds} seconds",
        "`{command}` 在 {seconds} 秒内没有完成",
    ),
    "resolution.timeout-why": Texts(
        "an index may be unreachable or very slow", "某个包索引可能无法访问，或者非常慢"
    ),
    "resolution.timeout-fix": Texts(
        "check the indexes in pyproject.toml, then run `poetry-cuda lock` again",
        "检查 pyproject.toml 中的包索引，然后重新运行 `poetry-cuda lock`",
    ),
    "system.title": Texts("System requirements", "系统依赖"),
    "system.no-resolver": Texts(
        "(no resolver installs these):", "（任何依赖解析器都不会安装这些）："
    ),
    "system.needs": Texts("{package} needs {kind}{spec}", "{package} 需要 {kind}{spec}"),
    "system.needs-because": Texts(
        "{package} needs {kind}{spec}: {reason}", "{package} 需要 {kind}{spec}：{reason}"
    ),
    "system.to-satisfy": Texts("to satisfy: {satisfy}", "满足方法：{satisfy}"),
    "doctor.area.host": Texts("Host", "主机"),
    "doctor.area.locks": Texts("Locks", "锁文件"),
    "doctor.area.environment": Texts("Installed environment", "已安装的环境"),
    "doctor.area.system": Texts("System requirements", "系统依赖"),
    "doctor.area.deep": Texts("Inside the environment (--deep)", "环境内部检查（--deep）"),
    "doctor.summary": Texts(
        "{ok} ok, {warn} warning(s), {fail} failure(s)",
        "{ok} 项正常，{warn} 项警告，{fail} 项失败",
    ),
    "doctor.fix-lock": Texts(
        "run `poetry cuda lock` (or `poetry-cuda lock`)",
        "运行 `poetry cuda lock`（或 `poetry-cuda lock`）",
    ),
    "doctor.fix-driver": Texts(
        "install the NVIDIA driver (https://www.nvidia.com/Download/index.aspx, or your "
        "distribution's nvidia-driver package), or lock for the CPU with "
        "`poetry cuda lock --cuda cpu`",
        "安装 NVIDIA 驱动（https://www.nvidia.com/Download/index.aspx ，或发行版的 "
        "nvidia-driver 软件包），或用 `poetry cuda lock --cuda cpu` 锁定 CPU 版",
    ),
    "doctor.driver-but-cuda-locked": Texts(
        "{problem}; cuda.lock locks CUDA builds", "{problem}；而 cuda.lock 锁定的是 CUDA 构建"
    ),
    "doctor.gpu-less": Texts(
        "this machine has no GPU and is not among cuda.lock's targets: the locked GPU builds "
        "install here and run on the CPU",
        "本机没有 GPU，也不在 cuda.lock 的目标主机之中：锁定的 GPU 构建在本机安装后只能用 CPU 运行",
    ),
    "doctor.gpu-less-target": Texts(
        "this machine has no GPU; cuda.lock's targets include it, so the GPU builds chosen "
        "for the other targets install here and run on the CPU",
        "本机没有 GPU；cuda.lock 的目标主机包括本机，为其他目标主机选的 GPU 构建在本机安装后只能用 CPU 运行",
    ),
    "doctor.gpu-less-fix": Texts(
        "nothing to do where no GPU is wanted (a CPU-only CI job); on a machine meant to "
        "run the GPU builds, install its GPU driver, and run `doctor --strict` there, which "
        "fails where the driver or GPU is missing",
        "不需要 GPU 的机器（例如只有 CPU 的 CI 任务）无需处理；在要运行 GPU 构建的机器上，"
        "请安装 GPU 驱动，并在那里运行 `doctor --strict`：缺少驱动或 GPU 时它会报告失败",
    ),
    "doctor.no-gpu": Texts("the driver reports no GPU", "驱动没有报告任何 GPU"),
    "doctor.no-gpu-fix": Texts(
        "check that the GPU is visible (CUDA_VISIBLE_DEVICES, container --gpus)",
        "检查 GPU 是否可见（CUDA_VISIBLE_DEVICES、容器的 --gpus 参数）",
    ),
    "doctor.variant-cannot-run": Texts(
        "{package} {variant} cannot run here: {fact}", "{package} {variant} 无法在本机运行：{fact}"
    ),
    "doctor.no-cuda-lock": Texts(
        "no {file}: nothing is locked for CUDA yet, so only the host was checked",
        "没有 {file}：还没有为 CUDA 锁定任何内容，因此只检查了主机",
    ),
    "doctor.stale-cuda-lock": Texts(
        "{file} is stale: the CUDA-relevant parts of pyproject.toml changed since it was written",
        "{file} 已过期：写入它之后，pyproject.toml 中与 CUDA 相关的部分有了改动",
    ),
    "doctor.knowledge-cache-damaged": Texts(
        "the installed poetry-cuda's knowledge cache is damaged: every command reads the "
        "TOML instead (slower)",
        "已安装的 poetry-cuda 的知识库缓存已损坏：每条命令都改读 TOML 文件（较慢）",
    ),
    "doctor.knowledge-cache-fix": Texts("reinstall poetry-cuda", "重新安装 poetry-cuda"),
    "doctor.system-met-by": Texts("{needs}: met by {by}", "{needs}：已由 {by} 满足"),
    "doctor.system-found": Texts("{needs}: {found}", "{needs}：{found}"),
    "doctor.system-version-unknown": Texts(
        "{needs}: found {found}, whose exact version is unknown",
        "{needs}：找到 {found}，但无法确定它的确切版本",
    ),
    "doctor.system-version-unknown-fix": Texts(
        "make sure it is{spec}; otherwise {satisfy}",
        "请确认它的版本满足{spec}；否则{satisfy}",
    ),
    "doctor.system-found-only": Texts(
        "{needs} ({reason}); found only {others}", "{needs}（{reason}）；只找到 {others}"
    ),
    "doctor.macos": Texts(
        "macOS has no CUDA: the PyPI builds are installed here",
        "macOS 没有 CUDA：这里安装的是 PyPI 上的构建",
    ),
    "doctor.driver": Texts(
        "driver {driver} supports CUDA <= {cuda} [{source}]",
        "驱动 {driver} 支持的 CUDA 最高为 {cuda} [{source}]",
    ),
    "doctor.gpu": Texts(
        "GPU {index}: {name}, compute capability {capability}",
        "GPU {index}：{name}，计算能力 {capability}",
    ),
    "doctor.toolkit": Texts(
        "CUDA toolkit {version} at {root}{nvcc}", "CUDA 工具包 {version}，位于 {root}{nvcc}"
    ),
    "doctor.cudnn": Texts(
        "cuDNN {version} at {path} ({source})", "cuDNN {version}，位于 {path}（{source}）"
    ),
    "doctor.no-venv": Texts(
        "no virtual environment found for the project", "没有找到项目的虚拟环境"
    ),
    "doctor.no-venv-fix": Texts(
        "run `{install}` to create it and install the lock",
        "运行 `{install}`，创建虚拟环境并安装锁定的内容",
    ),
    "doctor.venv-at": Texts("virtual environment at {root}", "虚拟环境位于 {root}"),
    "doctor.no-site-packages": Texts(
        "{root} has no site-packages folder", "{root} 里没有 site-packages 文件夹"
    ),
    "doctor.recreate-venv": Texts("delete it and run `{install}`", "删除它，然后运行 `{install}`"),
    "doctor.not-installed": Texts("{name} is not installed", "没有安装 {name}"),
    "doctor.install-locked": Texts(
        "run `{install}` to install the locked build", "运行 `{install}`，安装锁定的构建"
    ),
    "doctor.install-replaces-cpu": Texts(
        "run `{install}` to install the locked build (it replaces the CPU build)",
        "运行 `{install}`，安装锁定的构建（它会替换 CPU 版）",
    ),
    "doctor.cpu-build-installed": Texts(
        "a CPU build of {name} ({version}) is installed where cuda.lock locks {variant} "
        "({locked}): torch.cuda.is_available() will be False",
        "安装的是 {name} 的 CPU 版（{version}），而 cuda.lock 锁定的是 {variant}（{locked}）："
        "torch.cuda.is_available() 将为 False",
    ),
    "doctor.other-version": Texts(
        "{name} {version} is installed; cuda.lock records {expected}",
        "安装的是 {name} {version}；cuda.lock 记录的是 {expected}",
    ),
    "doctor.missing-wheels": Texts(
        "{name} {version} depends on {missing}, which is not installed",
        "{name} {version} 依赖 {missing}，但没有安装",
    ),
    # doctor's "ok" findings.
    "doctor.needs-no-gpu": Texts(
        "{package} {variant} needs no GPU", "{package} {variant} 不需要 GPU"
    ),
    "doctor.variant-runs": Texts("{package} {variant}: {fact}", "{package} {variant}：{fact}"),
    "doctor.gpu-kernels": Texts("GPU {index}: {kernels}", "GPU {index}：{kernels}"),
    "doctor.lock-records": Texts("{file} records {count} package(s)", "{file} 记录了 {count} 个包"),
    "doctor.lock-fresh": Texts("{file} matches pyproject.toml", "{file} 与 pyproject.toml 一致"),
    "doctor.locks-agree": Texts(
        "{lockfile} locks {name} {version} from {source}",
        "{lockfile} 锁定的是 {name} {version}，来自 {source}",
    ),
    "doctor.shell-agrees": Texts(
        "the shell's CUDA variables agree with the project", "shell 的 CUDA 变量与项目一致"
    ),
    "doctor.installed-for": Texts(
        "{name} {version} (built for CUDA {cuda})", "{name} {version}（为 CUDA {cuda} 编译）"
    ),
    "doctor.nvidia-wheels": Texts(
        "the {count} nvidia-* wheels {package} depends on are installed",
        "{package} 依赖的 {count} 个 nvidia-* wheel 都已安装",
    ),
    "doctor.nvidia-size": Texts(
        "{count} nvidia-* wheel(s) installed, {size} in site-packages/nvidia",
        "已安装 {count} 个 nvidia-* wheel，site-packages/nvidia 中共 {size}",
    ),
    "doctor.no-requirement": Texts(
        "cuda.lock records no system requirement", "cuda.lock 没有记录任何系统依赖"
    ),
    "doctor.macos-no-requirement": Texts(
        "macOS installs CPU builds: no system CUDA needed",
        "macOS 安装的是 CPU 版：不需要系统 CUDA",
    ),
    "doctor.no-project": Texts(
        "no pyproject.toml here or in any folder above: only the host was checked",
        "这里和上级文件夹中都没有 pyproject.toml：只检查了主机",
    ),
    "doctor.no-project-fix": Texts(
        "run doctor inside a project (or pass --directory / --project to poetry)",
        "在项目里运行 doctor（或给 poetry 传入 --directory / --project）",
    ),
    "doctor.lockfile-stale": Texts(
        "{lockfile} is stale: it no longer fits pyproject.toml ({why})",
        "{lockfile} 已过期：它与 pyproject.toml 不再相符（{why}）",
    ),
    # The same fixes for a uv project, where only the script runs: no `poetry cuda` there.
    "doctor.fix-driver-uv": Texts(
        "install the NVIDIA driver (https://www.nvidia.com/Download/index.aspx, or your "
        "distribution's nvidia-driver package), or lock for the CPU with "
        "`poetry-cuda lock --cuda cpu`",
        "安装 NVIDIA 驱动（https://www.nvidia.com/Download/index.aspx ，或发行版的 "
        "nvidia-driver 软件包），或用 `poetry-cuda lock --cuda cpu` 锁定 CPU 版",
    ),
    "doctor.shell-fix": Texts(
        "run commands through `poetry cuda run -- CMD` (or `poetry run`), or load the "
        'project\'s environment with `eval "$(poetry cuda env)"`',
        "通过 `poetry cuda run -- CMD`（或 `poetry run`）运行命令，或用 "
        '`eval "$(poetry cuda env)"` 载入项目的环境',
    ),
    "doctor.shell-fix-uv": Texts(
        "run commands through `poetry-cuda run -- CMD`, or load the project's environment "
        'with `eval "$(poetry-cuda env)"`',
        '通过 `poetry-cuda run -- CMD` 运行命令，或用 `eval "$(poetry-cuda env)"` 载入项目的环境',
    ),
    "doctor.image-fix": Texts(
        "build the image FROM {image} (`poetry-cuda plan` names it)",
        "以 {image} 为基础镜像构建（FROM {image}；`poetry-cuda plan` 会给出它）",
    ),
    "doctor.image-not-cuda": Texts(
        "this {runtime} container is not built from an NVIDIA CUDA image, and the lock needs "
        "the system libraries of {image}",
        "这个 {runtime} 容器不是基于 NVIDIA CUDA 镜像构建的，而锁文件需要 {image} 中的系统库",
    ),
    "doctor.image-cuda": Texts(
        "the container's image has CUDA {found}; the lock's base image {image} has CUDA {wanted}",
        "容器镜像中是 CUDA {found}；锁文件记录的基础镜像 {image} 是 CUDA {wanted}",
    ),
    "doctor.image-no-cudnn": Texts(
        "the container's CUDA {cuda} image has no cuDNN; the lock needs {image}",
        "容器的 CUDA {cuda} 镜像中没有 cuDNN；锁文件需要 {image}",
    ),
    "doctor.image-cudnn": Texts(
        "the container's image has cuDNN {found}; the lock needs cuDNN {major} ({image})",
        "容器镜像中是 cuDNN {found}；锁文件需要 cuDNN {major}（{image}）",
    ),
    "doctor.image-meets": Texts(
        "{runtime} container with CUDA {cuda} meets {image}",
        "{runtime} 容器（CUDA {cuda}）满足 {image}",
    ),
    "doctor.image-meets-cudnn": Texts(
        "{runtime} container with CUDA {cuda} and cuDNN {cudnn} meets {image}",
        "{runtime} 容器（CUDA {cuda}，cuDNN {cudnn}）满足 {image}",
    ),
    "doctor.image-end-of-life": Texts(
        "NVIDIA has marked this CUDA image end-of-life: its tag will be deleted",
        "NVIDIA 已将这个 CUDA 镜像标记为停止支持（end-of-life）：它的标签将被删除",
    ),
    "doctor.image-end-of-life-fix": Texts(
        "move to a supported tag of the same CUDA minor ({image})",
        "换用同一 CUDA 次版本仍受支持的标签（{image}）",
    ),
    "damage.missing": Texts(
        "missing",
        "缺失",
    ),
    "damage.not-regular": Texts(
        "not a regular file",
        "不是普通文件",
    ),
    "damage.size": Texts(
        "{size} bytes, recorded {recorded}",
        "{size} 字节，记录的是 {recorded}",
    ),
    "damage.unreadable": Texts(
        "cannot be read",
        "无法读取",
    ),
    "damage.contents": Texts(
        "other contents than the wheel's (sha256 differs)",
        "内容与 wheel 中的不同（sha256 不一致）",
    ),
    "damage.record-unreadable": Texts(
        "unreadable ({error})",
        "无法读取（{error}）",
    ),
    "records.more": Texts(
        "and {count} more",
        "另有 {count} 个",
    ),
    "records.damaged": Texts(
        "{name} {version}: {count} installed files are not what its wheel holds: {listed}",
        "{name} {version}：有 {count} 个已安装的文件与它的 wheel 中的不一致：{listed}",
    ),
    "records.damaged-fix": Texts(
        "install it again: run `{sync}`",
        "重新安装它：运行 `{sync}`",
    ),
    "records.twice": Texts(
        "{name} is installed twice ({folders}): the versions share their files, and what is left matches at most one",
        "{name} 安装了两次（{folders}）：两个版本共用文件，剩下的最多只与其中一个一致",
    ),
    "records.twice-fix": Texts(
        "run `poetry cuda lock` (one version per target), then `{sync}`",
        "运行 `poetry cuda lock`（每台目标主机一个版本），然后运行 `{sync}`",
    ),
    "records.store-modified": Texts(
        "the shared store's entry of {filename} ({folder}) was modified after it was linked into this environment: {listed}",
        "共享存储中 {filename} 的条目（{folder}）在链接进这个环境之后被修改了：{listed}",
    ),
    "records.store-modified-fix": Texts(
        "run `poetry cuda sync`: the entry is unpacked again from the locked wheel and linked anew",
        "运行 `poetry cuda sync`：会从锁定的 wheel 重新解压该条目并重新链接",
    ),
    "records.how-deep": Texts(
        "every sha256",
        "逐个校验 sha256",
    ),
    "records.how-quick": Texts(
        "sizes and times; --deep reads every sha256",
        "校验大小和时间；--deep 会逐个校验 sha256",
    ),
    "records.sound": Texts(
        "{count} CUDA-bearing distributions, {files} files, as their RECORD says ({how})",
        "{count} 个带 CUDA 的发行包、{files} 个文件与各自的 RECORD 一致（{how}）",
    ),
    "records.lock-twice-fix": Texts(
        "{pin}; `poetry cuda lock` refuses such a lock",
        "{pin}；`poetry cuda lock` 会拒绝这样的锁",
    ),
    "builds.not-installed": Texts(
        "{libraries} is not installed",
        "没有安装 {libraries}",
    ),
    "builds.unknown": Texts(
        "{name}: the installed build's architectures are unknown: {problem}",
        "{name}：无法得知已安装构建的架构：{problem}",
    ),
    "builds.unknown-fix": Texts(
        "run `{install}` to install the locked build again",
        "运行 `{install}`，重新安装锁定的构建",
    ),
    "builds.carries": Texts(
        "{label} carries {arches} ({source})",
        "{label} 带有 {arches}（{source}）",
    ),
    "builds.own-list": Texts(
        "{module}'s own list",
        "{module} 自己的列表",
    ),
    "builds.row-wrong": Texts(
        "{carries}, but cuda.lock (the knowledge base's row for {row}) says {recorded}: the row is wrong; the checks below go by the build",
        "{carries}，但 cuda.lock（知识库中 {row} 的条目）记录的是 {recorded}：这个条目有误；下面的检查以构建为准",
    ),
    "builds.row-wrong-fix": Texts(
        "report it to poetry-cuda: the knowledge base row for {row} ({version}) should list {arches}",
        "向 poetry-cuda 报告：知识库中 {row}（{version}）的条目应列出 {arches}",
    ),
    "builds.gpu": Texts(
        "GPU {index} ({name}, {sm})",
        "GPU {index}（{name}，{sm}）",
    ),
    "builds.relock": Texts(
        "lock again for this GPU: {lock} with this machine among the targets (`--target this`); the plan picks a build with kernels for {sm} (should it pick this one again, its knowledge base row is wrong: choose another build with `--cuda`)",
        "为这块 GPU 重新锁定：把这台机器加入目标主机（`--target this`）后{lock}；计划会选择带有 {sm} 内核的构建（如果它再次选中这个构建，说明知识库条目有误：请用 `--cuda` 选择另一个构建）",
    ),
    "builds.no-kernels": Texts(
        "{about} has no kernels in {name}'s installed build: it carries {arches}",
        "{about} 在 {name} 已安装的构建中没有内核：该构建带有 {arches}",
    ),
    "builds.sass": Texts(
        "{about}: SASS in {name}'s build",
        "{about}：{name} 的构建中有 SASS",
    ),
    "builds.sass-via": Texts(
        "{about}: SASS in {name}'s build (its {sm} build)",
        "{about}：{name} 的构建中有 SASS（它的 {sm} 构建）",
    ),
    "builds.no-jit": Texts(
        "{about}: {name}'s build has no SASS for it, and the driver (CUDA <= {driver}) cannot JIT-compile its CUDA {cuda} {ptx} PTX",
        "{about}：{name} 的构建中没有它的 SASS，而驱动（CUDA <= {driver}）无法 JIT 编译其 CUDA {cuda} 的 {ptx} PTX",
    ),
    "builds.ptx-only": Texts(
        "{about}: no SASS in {name}'s build, only {ptx} PTX, JIT-compiled at first use",
        "{about}：{name} 的构建中没有 SASS，只有 {ptx} PTX，首次使用时 JIT 编译",
    ),
    "builds.ptx-only-fix": Texts(
        "the first run compiles the kernels and caches them (minutes); for SASS, {relock}",
        "第一次运行会编译并缓存内核（需要几分钟）；要获得 SASS，{relock}",
    ),
    "fatbin.malformed": Texts(
        "{name}: not a fat binary layout poetry-cuda can read ({detail})",
        "{name}：不是 poetry-cuda 能读取的 fat binary 布局（{detail}）",
    ),
    "fatbin.malformed-why": Texts(
        "NVIDIA does not document the layout; poetry-cuda reads the headers nvcc writes",
        "NVIDIA 没有公开这种布局；poetry-cuda 读取的是 nvcc 写入的头部",
    ),
    "fatbin.malformed-fix": Texts(
        "report this to poetry-cuda with the library's package and version",
        "向 poetry-cuda 报告这个问题，附上该库所属的包和版本",
    ),
    "fatbin.header-past-end": Texts(
        "a header at byte {at} runs past the end of the file",
        "第 {at} 字节处的头部超出了文件末尾",
    ),
    "fatbin.header-size": Texts(
        "section headers of {size} bytes",
        "节头大小为 {size} 字节",
    ),
    "fatbin.no-names": Texts(
        "no section names",
        "没有节名",
    ),
    "fatbin.section-past-end": Texts(
        "{section} runs past the end of the file",
        "{section} 超出了文件末尾",
    ),
    "fatbin.container-past-end": Texts(
        "a container at byte {at} runs past its section",
        "第 {at} 字节处的容器超出了所在的节",
    ),
    "fatbin.entry-past-end": Texts(
        "an entry at byte {at} runs past its container",
        "第 {at} 字节处的条目超出了所在的容器",
    ),
    "fatbin.bad-arch": Texts(
        "architecture {arch} in the entry at byte {at}",
        "第 {at} 字节处的条目中有架构 {arch}",
    ),
    "fatbin.not-elf": Texts(
        "{name}: not an ELF file",
        "{name}：不是 ELF 文件",
    ),
    "fatbin.reinstall": Texts(
        "reinstall the package",
        "重新安装这个包",
    ),
    "fatbin.not-elf64": Texts(
        "{name}: not a 64-bit little-endian ELF file",
        "{name}：不是 64 位小端序 ELF 文件",
    ),
    "fatbin.not-regular": Texts(
        "{name}: not a regular file",
        "{name}：不是普通文件",
    ),
    "deep.timeout": Texts(
        "the check did not finish within {seconds} s",
        "检查没有在 {seconds} 秒内完成",
    ),
    "deep.cannot-run": Texts(
        "{python}: {error}",
        "{python}：{error}（无法运行）",
    ),
    "deep.exited": Texts(
        "{python} exited with {code}: {said}",
        "{python} 以退出码 {code} 结束：{said}",
    ),
    "deep.run-fix": Texts(
        "run the check yourself: `poetry run python -c 'import torch'` shows the error",
        "自己运行检查：`poetry run python -c 'import torch'` 会显示错误",
    ),
    "deep.import-fails": Texts(
        "import {module} fails: {error}",
        "import {module} 失败：{error}",
    ),
    "deep.import-fails-fix": Texts(
        "run `{install}`; a missing system library is named in the error",
        "运行 `{install}`；缺少的系统库会在错误中写明",
    ),
    "deep.import-works": Texts(
        "import {module} works ({version})",
        "import {module} 正常（{version}）",
    ),
    "deep.check-fails": Texts(
        "{module}'s own check fails: {error}",
        "{module} 自带的检查失败：{error}",
    ),
    "deep.check-fails-fix": Texts(
        "install the system libraries listed under System requirements",
        "安装“系统依赖”下列出的系统库",
    ),
    "deep.cpu-build": Texts(
        "torch {version} is a CPU build (torch.version.cuda is None); cuda.lock locks {variant}",
        "torch {version} 是 CPU 版（torch.version.cuda 为 None）；而 cuda.lock 锁定的是 {variant}",
    ),
    "deep.cpu-build-fix": Texts(
        "run `{install}` to install the locked build",
        "运行 `{install}`，安装锁定的构建",
    ),
    "deep.unavailable": Texts(
        "torch {version} (CUDA {cuda}): torch.cuda.is_available() is False",
        "torch {version}（CUDA {cuda}）：torch.cuda.is_available() 为 False",
    ),
    "deep.unavailable-fix": Texts(
        "check the driver (see Host above) and that the GPU is visible to this process",
        "检查驱动（见上面的“主机”部分），并确认这个进程能看到 GPU",
    ),
    "deep.sees": Texts(
        "torch sees GPU {index} ({sm})",
        "torch 能看到 GPU {index}（{sm}）",
    ),
    "toolkit.fix": Texts(
        "run `poetry cuda env` (or `poetry-cuda env`, or `sync`): it fetches and assembles it",
        "运行 `poetry cuda env`（或 `poetry-cuda env`，或 `sync`）：它会获取并组装工具包",
    ),
    "toolkit.assemble-again": Texts(
        "run `poetry cuda env` (or `poetry-cuda env`, or `sync`): it assembles it again",
        "运行 `poetry cuda env`（或 `poetry-cuda env`，或 `sync`）：它会重新组装工具包",
    ),
    "toolkit.other-platforms": Texts(
        'toolkit = "redist": cuda.lock records the toolkit archives for {recorded}, and this machine is {platform}',
        'toolkit = "redist"：cuda.lock 记录的是 {recorded} 的工具包归档，而这台机器是 {platform}',
    ),
    "toolkit.lock-for-this": Texts(
        "lock again with this machine among the targets (`--target this`)",
        "把这台机器加入目标主机后重新锁定（`--target this`）",
    ),
    "toolkit.no-archives": Texts(
        'toolkit = "redist": cuda.lock records no toolkit archives for this platform',
        'toolkit = "redist"：cuda.lock 没有记录这个平台的工具包归档',
    ),
    "toolkit.archive-missing": Texts(
        "{archive} is not in the shared store, or not whole",
        "{archive} 不在共享存储中，或不完整",
    ),
    "toolkit.not-assembled": Texts(
        "the project's CUDA toolkit is not assembled",
        "项目的 CUDA 工具包还没有组装",
    ),
    "toolkit.other-archives": Texts(
        "the project's CUDA toolkit was assembled from other archives than cuda.lock records",
        "项目的 CUDA 工具包是用 cuda.lock 记录之外的归档组装的",
    ),
    "toolkit.no-nvcc": Texts(
        "the project's CUDA toolkit has no nvcc",
        "项目的 CUDA 工具包中没有 nvcc",
    ),
    "toolkit.other-nvcc": Texts(
        "the project's CUDA toolkit runs {nvcc}, not the stored nvcc",
        "项目的 CUDA 工具包运行的是 {nvcc}，而不是存储中的 nvcc",
    ),
    "toolkit.nvcc-mismatch": Texts(
        "the project's nvcc is {nvcc}, but its CUDA (torch's) is {cuda}",
        "项目的 nvcc 是 {nvcc}，而它的 CUDA（torch 的）是 {cuda}",
    ),
    "toolkit.nvcc-mismatch-fix": Texts(
        "lock again: cuda.lock then records the toolkit of the project's CUDA version",
        "重新锁定：之后 cuda.lock 会记录与项目 CUDA 版本一致的工具包",
    ),
    "toolkit.assembled": Texts(
        "nvcc {nvcc} assembled from the shared store, as cuda.lock records",
        "nvcc {nvcc} 已按 cuda.lock 的记录从共享存储组装",
    ),
    "index.title": Texts(
        "Index check ({how}):",
        "索引检查（{how}）：",
    ),
    "index.how": Texts(
        "online: at most {page} s a page, redirects included, and {total} s in all",
        "联网：每个页面（含重定向）最多 {page} 秒，总共最多 {total} 秒",
    ),
    "index.any-version": Texts(
        "{name} (any version)",
        "{name}（任意版本）",
    ),
    "index.unreadable": Texts(
        "{what}: cannot read {url}: {problem}",
        "{what}：无法读取 {url}：{problem}",
    ),
    "index.not-served": Texts(
        "{what}: NOT served by {url} (it lists: {listed})",
        "{what}：{url} 不提供（它列出的是：{listed}）",
    ),
    "index.served": Texts(
        "{what}: served by {url}",
        "{what}：由 {url} 提供",
    ),
    "index.redirected": Texts(
        "  redirected to {url}",
        "  重定向到 {url}",
    ),
    "index.links-elsewhere": Texts(
        "  its file links point elsewhere: {hosts}",
        "  它的文件链接指向别处：{hosts}",
    ),
    "index.links-upstream": Texts(
        "  its file links point elsewhere: {hosts} (upstream: downloads go to the family's own index)",
        "  它的文件链接指向别处：{hosts}（上游：下载会去包族自己的索引）",
    ),
    "index.links-local": Texts(
        "  its file links point at the index itself",
        "  它的文件链接指向索引本身",
    ),
    "extra.sync-fix": Texts(
        "run `poetry cuda sync` (or `poetry-cuda sync`)",
        "运行 `poetry cuda sync`（或 `poetry-cuda sync`）",
    ),
    "extra.sync-fix-uv": Texts(
        "run `poetry-cuda sync`",
        "运行 `poetry-cuda sync`",
    ),
    "extra.macos": Texts(
        "macOS has no CUDA",
        "macOS 没有 CUDA",
    ),
    "extra.no-driver": Texts(
        "this machine has no NVIDIA driver",
        "这台机器没有 NVIDIA 驱动",
    ),
    "extra.no-cpu": Texts(
        "{host}, and no extra of {family} is a CPU build",
        "{host}，而 {family} 的 extra 中没有 CPU 版",
    ),
    "extra.cpu": Texts(
        "{host}: {extra} is the CPU build",
        "{host}：{extra} 是 CPU 版",
    ),
    "extra.none-runs": Texts(
        "no CUDA extra of {family} runs here ({driver})",
        "{family} 的 CUDA extra 都不能在这里运行（{driver}）",
    ),
    "extra.fallback": Texts(
        "no CUDA extra runs here ({driver}); {fallback}",
        "没有能在这里运行的 CUDA extra（{driver}）；{fallback}",
    ),
    "extra.highest": Texts(
        "the highest-CUDA extra that runs here: {driver}; {detail}",
        "能在这里运行的 CUDA 版本最高的 extra：{driver}；{detail}",
    ),
    "extra.not": Texts(
        "not {extra}: {detail}",
        "不选 {extra}：{detail}",
    ),
    "extra.refused": Texts(
        "No extra of {family} fits this machine: {reason}.",
        "{family} 没有适合这台机器的 extra：{reason}。",
    ),
    "extra.cpu-only-with": Texts(
        "a GPU machine gets the CPU build only with {fallback}",
        "有 GPU 的机器只有设置了 {fallback} 才会安装 CPU 版",
    ),
    "extra.refused-why": Texts(
        "sync installs, for each family, the extra whose build runs on this machine's driver and GPUs",
        "sync 为每个包族安装能在这台机器的驱动和 GPU 上运行的那个 extra",
    ),
    "extra.refused-fix-driver": Texts(
        "update the NVIDIA driver, or add an extra whose build this driver runs and lock again; to install the CPU build here, set {fallback}",
        "升级 NVIDIA 驱动，或添加一个这个驱动能运行的 extra 并重新锁定；要在这里安装 CPU 版，请设置 {fallback}",
    ),
    "extra.refused-fix-no-driver": Texts(
        "install the NVIDIA driver, or add a cpu extra to the project and lock again",
        "安装 NVIDIA 驱动，或给项目添加一个 cpu extra 并重新锁定",
    ),
    "extra.none-fits": Texts(
        "no extra of {family} fits this machine: {reason}",
        "{family} 没有适合这台机器的 extra：{reason}",
    ),
    "extra.fits": Texts("{extra} fits here: {reason}", "{extra}适合这台机器：{reason}"),
    # How a fork is named: an extra (or group) by its name, a platform fork by its marker.
    "extra.described-extra": Texts("the {name} extra", "extra（{name}）"),
    "extra.described-fork": Texts("the platform fork {marker}", "平台分支（{marker}）"),
    "extra.install-fix": Texts(
        "{sync} to install the {extra} extra",
        "{sync}，安装 {extra} extra",
    ),
    "extra.none-installed": Texts(
        "no build of {family} is installed (extras {names})",
        "没有安装 {family} 的任何构建（extra：{names}）",
    ),
    "extra.foreign-installed": Texts(
        "{build} is installed: the build of none of cuda.lock's extras ({names})",
        "安装的是 {build}：不属于 cuda.lock 的任何 extra（{names}）",
    ),
    "extra.installed": Texts("{extra} is installed ({build})", "已安装 {extra}（{build}）"),
    "extra.installed-cannot-run": Texts(
        "the {extra} extra is installed ({build}) but cannot run here: {detail}",
        "已安装 {extra} extra（{build}），但它不能在这里运行：{detail}",
    ),
    "extra.cpu-installed": Texts(
        "the {extra} extra (a CPU build) is installed ({build}) on a machine whose GPU the {best} extra serves: torch.cuda.is_available() will be False",
        "这台机器的 GPU 可由 {best} extra 支持，却安装了 {extra} extra（CPU 版，{build}）：torch.cuda.is_available() 将为 False",
    ),
    "extra.other-installed": Texts(
        "the {extra} extra is installed ({build}); {best} is the one that fits here best",
        "已安装 {extra} extra（{build}）；最适合这里的是 {best}",
    ),
    # What cuda.lock records is quoted as written, and said to be quoted.
    "doctor.recorded-fix": Texts("{satisfy}", "{satisfy}（cuda.lock 记录的办法）"),
    "doctor.system-none-found": Texts(
        "{needs} ({reason}); none found", "{needs}（{reason}）；一个也没有找到"
    ),
    "doctor.fix-lock-uv": Texts(
        "run `uv run poetry-cuda lock` (or `poetry-cuda lock`)",
        "运行 `uv run poetry-cuda lock`（或 `poetry-cuda lock`）",
    ),
    "doctor.lock-unserved": Texts(
        "{package} {variant} is a CPU build: cuda.lock's targets do not include this "
        "machine, so its GPU is left unused",
        "{package} {variant} 是 CPU 版：cuda.lock 的目标主机不包括本机，本机的 GPU 不会被用上",
    ),
    "doctor.stack-no-gpu": Texts(
        "{package} {variant} is a {stack} build, and this machine has no GPU it runs on: it "
        "runs on the CPU here",
        "{package} {variant} 是 {stack} 版，本机没有它能用的 GPU：在本机只能用 CPU 运行",
    ),
    "doctor.stack-build": Texts(
        "{package} {variant} is a {stack} build for {gpus}",
        "{package} {variant} 是为 {gpus} 准备的 {stack} 版",
    ),
    "doctor.gfx-served": Texts(
        "{gpu}: {package} {variant} is built for it",
        "{gpu}：{package} {variant} 为它编译",
    ),
    "doctor.gfx-unserved": Texts(
        "{gpu}: {package} {variant} is not built for it (it is built for {arches})",
        "{gpu}：{package} {variant} 没有为它编译（只为 {arches} 编译）",
    ),
    "doctor.fix-lock-this": Texts(
        "lock again with this machine among the targets: run `{lock} --target this`, or add "
        "its profile (`detect --json`) to `targets`",
        "把本机加入目标主机后重新锁定：运行 `{lock} --target this`，或把本机的描述文件"
        "（`detect --json`）加入 `targets`",
    ),
    # A file a command writes (`-o FILE`, cuda.lock, the profiles of --write-targets).
    "files.not-replaced": Texts(
        "{path}: not a regular file but {kind}; nothing was written",
        "{path}：不是普通文件，而是 {kind}；没有写入任何内容",
    ),
    "files.not-replaced-why": Texts(
        "poetry-cuda replaces only a regular file, whole; it writes a command's output to a "
        "named pipe or a character device as a stream, and never replaces a device, a "
        "folder or a socket",
        "poetry-cuda 只整体替换普通文件；命令的输出写到命名管道或字符设备时按流写入，"
        "绝不替换设备、文件夹或套接字",
    ),
    "files.not-replaced-fix": Texts(
        "move it away, or give the path of a regular file (or of a new one)",
        "把它移走，或给出一个普通文件（或新文件）的路径",
    ),
    "files.stream-failed": Texts(
        "{path}: cannot write to it ({error})", "{path}：无法写入（{error}）"
    ),
    "files.stream-failed-fix": Texts(
        "check that {path} takes what is written to it (a pipe needs its reader)",
        "检查 {path} 能否接收写入的内容（管道需要有读取方）",
    ),
    "file.folder": Texts(
        "a folder",
        "文件夹",
    ),
    "file.fifo": Texts(
        "a named pipe (FIFO)",
        "命名管道（FIFO）",
    ),
    "file.character-device": Texts(
        "a character device",
        "字符设备",
    ),
    "file.block-device": Texts(
        "a block device",
        "块设备",
    ),
    "file.socket": Texts(
        "a socket",
        "套接字",
    ),
    "file.link": Texts(
        "a symbolic link",
        "符号链接",
    ),
    "file.not-found": Texts(
        "{name}: file not found",
        "{name}：找不到文件",
    ),
    "file.unreadable": Texts(
        "{name}: cannot read the file ({error})",
        "{name}：无法读取文件（{error}）",
    ),
    "file.unreadable-fix": Texts(
        "make the file readable",
        "让这个文件可读",
    ),
    "file.not-utf8-fix": Texts(
        "make the file readable UTF-8 text",
        "把文件改成可读的 UTF-8 文本",
    ),
    "file.not-regular": Texts(
        "{name}: not a regular file but {kind}",
        "{name}：不是普通文件，而是{kind}",
    ),
    "file.not-regular-why": Texts(
        "poetry-cuda reads its input only from regular files, so that a pipe or a device cannot block it or fill the memory",
        "poetry-cuda 只从普通文件读取输入，以免管道或设备让它阻塞或占满内存",
    ),
    "file.not-regular-fix": Texts(
        "point it at the file itself (a link to a regular file is fine)",
        "让它指向文件本身（指向普通文件的链接也可以）",
    ),
    "file.too-large": Texts(
        "{name}: larger than {limit} MiB",
        "{name}：超过 {limit} MiB",
    ),
    "file.too-large-why": Texts(
        "no file of this kind comes near {limit} MiB; reading it whole could exhaust the memory",
        "这类文件不会接近 {limit} MiB；整个读入可能耗尽内存",
    ),
    "file.too-large-fix": Texts(
        "check that the path names the right file",
        "检查路径是否指向正确的文件",
    ),
    "file.not-toml": Texts(
        "{path}: not valid TOML ({error})",
        "{path}：不是有效的 TOML（{error}）",
    ),
    "file.not-toml-fix": Texts(
        "correct the syntax at the position shown",
        "更正所示位置的语法",
    ),
    "file.unreadable-toml": Texts(
        "{path}: not readable TOML",
        "{path}：无法读取的 TOML",
    ),
    "file.unreadable-toml-fix": Texts(
        "replace the value: no key poetry-cuda reads holds anything like it",
        "替换这个值：poetry-cuda 读取的键都不会是这样的值",
    ),
    "file.larger-than-kib": Texts(
        "larger than {limit} KiB",
        "超过 {limit} KiB",
    ),
    "file.not-regular-but": Texts(
        "not a regular file but {kind}",
        "不是普通文件，而是{kind}",
    ),
    # The shared wheel store (`install = "shared"`).
    "store.no-space": Texts(
        "{wheel}: no space left to add it to the shared wheel store at {root} ({error})",
        "{wheel}：共享 wheel 存储 {root} 所在的磁盘空间不足，无法加入（{error}）",
    ),
    "store.no-space-why": Texts(
        "a wheel is downloaded and unpacked into the store before its files are linked into "
        "the environment; nothing of it was kept, and nothing was installed",
        "wheel 先下载并解压到存储中，再把文件链接进环境；它的任何部分都没有保留，也没有安装任何东西",
    ),
    "store.no-space-fix": Texts(
        "free space at {root} (`poetry-cuda store --prune` removes what no project uses), or "
        "set {variable} to a folder on a disk with room, then run again",
        "释放 {root} 所在磁盘的空间（`poetry-cuda store --prune` 会删除没有项目使用的内容），"
        "或把 {variable} 设为空间充足的磁盘上的文件夹，然后重新运行",
    ),
    "store.invalid-wheel": Texts(
        "{wheel} (from {origin}): not an installable wheel: {problem}",
        "{wheel}（来自 {origin}）：不是可安装的 wheel：{problem}",
    ),
    "store.invalid-wheel-why": Texts(
        "its sha256 is the one poetry.lock records, so the file as published is malformed; "
        "pip and Poetry's installer refuse it too, and nothing of it was left installed",
        "它的 sha256 与 poetry.lock 记录的一致，说明发布的文件本身有问题；pip 和 Poetry 的"
        "安装器同样会拒绝它，它的任何部分都没有留在环境中",
    ),
    "store.invalid-wheel-fix": Texts(
        "report it to the publisher of {name}, and lock a version of it whose wheel installs",
        "向 {name} 的发布者报告这个问题，并锁定一个 wheel 能正常安装的版本",
    ),
    "store.archive-store": Texts(
        "Store {root}",
        "存储 {root}",
    ),
    "store.archives-empty": Texts(
        '  empty: no project with toolkit = "redist" has assembled its toolkit here',
        '  空：没有哪个 toolkit = "redist" 的项目在这里组装过工具包',
    ),
    "store.archive": Texts(
        "  {archive}, {size} MiB, {users}",
        "  {archive}，{size} MiB，{users}",
    ),
    "store.archive-removed": Texts(
        "Removed {archive}, {size} MiB",
        "已删除 {archive}，{size} MiB",
    ),
    "store.used-by": Texts(
        "used by {projects}",
        "使用者：{projects}",
    ),
    "store.used-by-none": Texts(
        "used by no project",
        "没有项目使用",
    ),
    "store.wheel-store": Texts(
        "Wheel store {root}",
        "wheel 存储 {root}",
    ),
    "store.wheels-empty": Texts(
        '  empty: no project with install = "shared" has installed from here',
        '  空：没有哪个 install = "shared" 的项目从这里安装过',
    ),
    "store.wheel": Texts(
        "  {name} {version}, {size} MiB, {users}",
        "  {name} {version}，{size} MiB，{users}",
    ),
    "store.wheels": Texts(
        "  {count} wheels, {size} MiB unpacked",
        "  {count} 个 wheel，解压后 {size} MiB",
    ),
    "store.wheel-removed": Texts(
        "Removed {name} {version} ({filename}), {size} MiB",
        "已删除 {name} {version}（{filename}），{size} MiB",
    ),
    "store.unreadable": Texts(
        "the store at {root} cannot be read ({error})",
        "无法读取 {root} 处的存储（{error}）",
    ),
    "store.unreadable-fix": Texts(
        "check the folder's permissions, or point {variable} at another folder",
        "检查该文件夹的权限，或把 {variable} 指向另一个文件夹",
    ),
    "store.damaged": Texts(
        "Damaged {name} ({folder}): {problems}",
        "已损坏 {name}（{folder}）：{problems}",
    ),
    "store.damaged-fix": Texts(
        "the next command that needs a damaged entry fetches it again; `store --prune` removes them now",
        "下一个需要已损坏条目的命令会重新获取它；`store --prune` 会立即删除它们",
    ),
    "store.verified": Texts(
        "Verified {count} entries: every file as it was unpacked",
        "已校验 {count} 个条目：每个文件都与解压时一致",
    ),
    "store.file-changed": Texts(
        "{path}: other contents than unpacked (sha256 differs)",
        "{path}：内容与解压时不同（sha256 不一致）",
    ),
    "store.records-not-one": Texts(
        "the wheel holds {count} .dist-info/RECORD files, not one",
        "wheel 中有 {count} 个 .dist-info/RECORD 文件，而不是一个",
    ),
    "store.record-unreadable": Texts(
        "{path} cannot be read ({error})",
        "无法读取 {path}（{error}）",
    ),
    "store.not-in-record": Texts(
        "{path}: not listed in the wheel's RECORD",
        "{path}：没有列在 wheel 的 RECORD 中",
    ),
    "store.other-sha256": Texts(
        "{path}: another sha256 than the wheel's RECORD lists",
        "{path}：sha256 与 wheel 的 RECORD 所列不同",
    ),
    "store.other-size": Texts(
        "{path}: another size than the wheel's RECORD lists",
        "{path}：大小与 wheel 的 RECORD 所列不同",
    ),
    "shared.poetry-only": Texts(
        'install = "shared" applies to Poetry projects; {backend} installs as usual (uv links its files from its own cache already)',
        'install = "shared" 只适用于 Poetry 项目；{backend} 照常安装（uv 本来就从它自己的缓存链接文件）',
    ),
    "shared.would-link": Texts(
        "Would link the locked wheels from the store at {root}",
        "将从 {root} 处的存储链接锁定的 wheel",
    ),
    "shared.in-place": Texts(
        " ({count} already in place)",
        "（{count} 个已就位）",
    ),
    "shared.linked": Texts(
        "Linked {files} files of {count} distributions from the store at {root} into {environment}{kept}",
        "已从 {root} 处的存储把 {count} 个发行包的 {files} 个文件链接到 {environment}{kept}",
    ),
    "shared.copied": Texts(
        "Copied {files} files of {count} distributions from the store at {root} into {environment}{kept}",
        "已从 {root} 处的存储把 {count} 个发行包的 {files} 个文件复制到 {environment}{kept}",
    ),
    "shared.hard-links": Texts(
        "Note: these files are hard links, one copy shared by the store and every project linked "
        "to it: patch none in place (an edit is found and undone on the next sync); "
        'install = "copy" in [tool.poetry-cuda] gives this project private copies',
        "注意：这些文件是硬链接，存储和所有链接到它的项目共用同一份：不要就地修改（修改会在下次 sync 时"
        '被发现并还原）；在 [tool.poetry-cuda] 中设置 install = "copy" 可让本项目使用自己的副本',
    ),
    "shared.fetched": Texts(
        "Fetched into the store: {count} wheels",
        "已获取到存储中：{count} 个 wheel",
    ),
    "shared.removed": Texts(
        "Removed: {names}",
        "已删除：{names}",
    ),
    "shared.note": Texts(
        "Note: {note}",
        "注意：{note}",
    ),
    "shared.left": Texts(
        "Left to Poetry: {name} {version} ({why})",
        "交给 Poetry 安装：{name} {version}（{why}）",
    ),
}


@frozen
class Message:
    """A catalogue message and its parameters, rendered in a language when printed."""

    id: MessageId
    params: Mapping[str, object] = field(default_factory=dict)

    def text(self, language: Language = "en") -> str:
        template = CATALOGUE[self.id].zh if language == "zh" else CATALOGUE[self.id].en
        return template.format(
            **{name: localize(value, language) for name, value in self.params.items()}
        )

    def __str__(self) -> str:
        return self.text()


# Separators between a phrase's parts, in Chinese: full-width, as Chinese punctuation is.
_FULL_WIDTH = {"; ": "；", ", ": "，", ": ": "：", ". ": "。"}
# Chinese puts no space after its own full-width punctuation.
_FULL_WIDTH_ENDS = ("。", "；", "，", "：", "？", "）")


@frozen
class Phrase:
    """Texts shown one after the other (a message, then a tool's output it quotes); the
    separator takes the reader's punctuation (a semicolon is full-width in Chinese)."""

    parts: tuple[Localized, ...]
    separator: str = ""

    def text(self, language: Language = "en") -> str:
        texts = [localize(part, language) for part in self.parts]
        if language != "zh":
            return self.separator.join(texts)
        separator = _FULL_WIDTH.get(self.separator, self.separator)
        joined = texts[:1]
        for text in texts[1:]:
            space = separator == " " and joined[-1].endswith(_FULL_WIDTH_ENDS)
            joined.append(("" if space else separator) + text)
        return "".join(joined)

    def __str__(self) -> str:
        return self.text()


# What a message may be made of: plain text (shown as it is in every language), a
# catalogue message, or a phrase of both.
Localized: TypeAlias = "str | Message | Phrase"


def message(id: MessageId, /, **params: object) -> Message:
    return Message(id, params)


def localize(value: object, language: Language) -> str:
    """`value` as shown to a reader of `language`; plain values as they are."""
    if isinstance(value, (Message, Phrase)):
        return value.text(language)
    return str(value)


def translated(value: object) -> bool:
    """Whether `value` reads in Chinese where Chinese is asked: a catalogue message, a phrase
    that opens with one (what follows may quote a tool), or nothing to say.

    A label ("Why", "Fix") goes with an untranslated text only in its English form: a
    reader never meets a Chinese label before an English sentence.
    """
    if isinstance(value, Message):
        return True
    if isinstance(value, Phrase):
        return bool(value.parts) and translated(value.parts[0])
    return not str(value)


def did_you_mean(
    word: str, known: Iterable[str], quote: str = "", prefix: str = ""
) -> Message | None:
    """The `known` names nearest to a mistyped `word` ("Did you mean --target?"), each in
    `quote`s after `prefix` (the namespace they are shown in: "cuda "); None where none is
    near. For commands, options, config keys and values alike. difflib's similarity ratio
    catches swapped letters (`polcy`, `tagret`, `lokc`) as well as one-letter slips."""
    import difflib  # only for a mistyped word

    close = difflib.get_close_matches(word, list(dict.fromkeys(known)), n=3, cutoff=0.6)
    if not close:
        return None
    shown = [f"{quote}{prefix}{name}{quote}" for name in close]
    names: Localized = shown[-1]
    if shown[:-1]:
        names = message("usage.either", first=", ".join(shown[:-1]), last=shown[-1])
    return message("did-you-mean", names=names)


def labels_language(parts: Iterable[object], language: Language) -> Language:
    """The language of the labels before `parts`: `language`, unless one part is English."""
    return language if all(translated(part) for part in parts) else "en"


def locale_of(environ: Mapping[str, str]) -> str:
    """The locale that names the language and codeset of messages: the first of `LC_ALL`,
    `LC_MESSAGES` and `LANG` that is set and not empty, as POSIX consults them; "" for none
    (the C locale)."""
    return next((environ[name] for name in LOCALE_VARIABLES if environ.get(name)), "")


def language_of(environ: Mapping[str, str]) -> Language:
    """The language of the user's locale: Chinese for a `zh` locale (zh_CN, zh_TW, zh_HK,
    zh_SG), else English.

    The locale is `locale_of`'s; the C (POSIX) locale, or none, means English. Otherwise
    GNU's `LANGUAGE` list, where given, goes first, as gettext reads it: its first entry
    in a language the catalogue has decides ("fr:zh_CN" is Chinese, "fr" English).
    """
    locale = locale_of(environ)
    if locale.split(".")[0].split("@")[0] in ("", "C", "POSIX"):
        return "en"
    wanted = environ.get("LANGUAGE", "")
    candidates = [*wanted.split(":")] if wanted else [locale]
    for candidate in candidates:
        if candidate.lower().startswith("zh"):
            return "zh"
        if candidate.lower().startswith("en"):
            return "en"
    return "en"


def codeset_of(environ: Mapping[str, str]) -> str | None:
    """The character set `locale_of`'s locale names ("gb18030" for zh_CN.GB18030), as
    Python's codec name; None where it names none or one Python lacks."""
    import codecs  # only where a locale names a codeset

    locale = locale_of(environ)
    if "." not in locale:
        return None
    try:
        return codecs.lookup(locale.split(".", 1)[1].split("@")[0]).name
    except LookupError:
        return None


def placeholders(template: str) -> set[str]:
    """The `{names}` a template fills in."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
