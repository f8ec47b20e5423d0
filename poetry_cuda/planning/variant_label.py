"""Which wheel-variant label (PEP 825) a target gets, by poetry-cuda's own rules.

An installer with a variant provider asks the provider what the host supports and takes the
best label the published properties admit. NVIDIA's provider looks at the driver's CUDA and
at the **highest** compute capability only, so a host with an RTX 4090 (sm 8.9) and a GTX
1080 (sm 6.1) gets torch's ``cuda13.0``, which has no kernels for the 1080. Here each label
is instead judged as any build is (`compat.judge`): every GPU of the target, SASS or PTX,
the driver's CUDA with minor-version compatibility, the architectures the knowledge base
records for that build. The published properties are read for what they say and compared:
where they disagree with the knowledge base, `LabelChoice.audit` says so, and the knowledge
base decides.

A target whose GPUs are AMD's or Intel's gets the label of the ROCm or XPU build the plan
gives it (`gpu_stacks.plan_target`): PyTorch names those labels as its indexes (``rocm7.1``,
``xpu``), and where the metadata has no label of the planned build, that is said (exit 3),
never a CPU label in its place.

`provider_order` ranks labels as PEP 825 does for given supported properties, and
`provider_supported` gives the properties NVIDIA's provider reports for a target: together,
the label a variant-enabled installer picks, which the audit names when it differs.
"""

from __future__ import annotations

import re

from dataclasses import replace
from typing import TYPE_CHECKING

from poetry_cuda.accelerators import build_accelerator
from poetry_cuda.accelerators import stack_name
from poetry_cuda.errors import NoVariantError
from poetry_cuda.knowledge.model import Variant
from poetry_cuda.knowledge.xpu import device_ip
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.planning.compat import Verdict
from poetry_cuda.planning.compat import best_fit
from poetry_cuda.planning.compat import kernels_for
from poetry_cuda.planning.gpu_stacks import needs_stack
from poetry_cuda.planning.variant_metadata import is_null
from poetry_cuda.records import frozen
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Nvidia
    from poetry_cuda.knowledge.model import Release
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.planning.variant_metadata import Properties
    from poetry_cuda.planning.variant_metadata import VariantMetadata
    from poetry_cuda.request.settings import Policy


NVIDIA = "nvidia"
LOWER_BOUND = "cuda_version_lower_bound"
SM_ARCH = "sm_arch"
AMD, GFX_ARCH = "amd", "gfx_arch"
INTEL, DEVICE_IP = "intel", "device_ip"
_CUDA_LABEL = re.compile(r"cuda(\d+)\.(\d+)")  # torch 2.9+: cuda12.8
_CU_LABEL = re.compile(r"cu(\d+)(\d)")  # torch 2.8: cu128, the index's own names
_ARCH = re.compile(r"(\d+)(\d)_(real|virtual)")  # CMake's CUDA_ARCHITECTURES: 86_real


@frozen
class LabelChoice:
    """The label a target gets, why, and where the published metadata disagrees."""

    label: str
    reason: Localized
    audit: tuple[Localized, ...]
    verdicts: tuple[tuple[str, Verdict], ...]  # every label's verdict, as published order


def variant_name(label: str) -> str:
    """The knowledge base's name of a label's build: cuda12.8 -> cu128, null -> cpu."""
    if is_null(label):
        return "cpu"
    found = _CUDA_LABEL.fullmatch(label)
    return f"cu{found[1]}{found[2]}" if found else label


def label_cuda(label: str) -> CudaVersion | None:
    """The CUDA version a label names (cuda12.8, cu128), None for any other."""
    found = _CUDA_LABEL.fullmatch(label) or _CU_LABEL.fullmatch(label)
    return CudaVersion(int(found[1]), int(found[2])) if found else None


def arch_value(cc: ComputeCapability, kind: str) -> str:
    """``86_real`` (SASS for sm_86) or ``90_virtual`` (PTX for compute_90)."""
    return f"{cc.major}{cc.minor}_{kind}"


def published_arches(
    properties: Properties,
) -> tuple[tuple[ComputeCapability, ...], tuple[ComputeCapability, ...]]:
    """The SASS and PTX architectures a label's ``nvidia :: sm_arch`` lists."""
    sass: list[ComputeCapability] = []
    ptx: list[ComputeCapability] = []
    for value in properties.get(NVIDIA, {}).get(SM_ARCH, ()):
        found = _ARCH.fullmatch(value)
        if found:
            cc = ComputeCapability(int(found[1]), int(found[2]))
            (sass if found[3] == "real" else ptx).append(cc)
    return tuple(sorted(sass)), tuple(sorted(ptx))


def _foreign(properties: Properties, metadata: VariantMetadata) -> str | None:
    """A namespace of the label that needs hardware other than NVIDIA's (amd, intel)."""
    for namespace in properties:
        if namespace != NVIDIA and metadata.static_values(namespace) is None:
            return namespace
    return None


def choose_label(
    metadata: VariantMetadata,
    target: Target,
    nvidia: Nvidia,
    *,
    release: Release | None,
    policy: Policy = "newest",
    package: str = "",
    allow_cpu_fallback: bool = False,
    stacks: Mapping[str, str] | None = None,
) -> LabelChoice:
    """The label of `metadata` whose build serves every GPU of `target` best (the CPU build,
    ``null``, without an NVIDIA driver, or with `allow_cpu_fallback` where no CUDA label
    runs), judged with the knowledge base's `release` where it has the build; a
    NoVariantError (exit 3) when no label serves the target.

    `stacks` gives, by target label, the build the plan gives each target whose GPUs are
    AMD's or Intel's (``rocm7.1``, ``xpu``, or ``cpu``): such a target gets that build's
    label."""
    what = package or metadata.where
    planned = (stacks or {}).get(target.label) if needs_stack(target) else None
    if planned is not None and planned != "cpu":
        return _stack_choice(metadata, target, planned, what)
    builds: list[Variant] = []
    labels: list[str] = []
    audit: list[Localized] = []
    refused: list[tuple[str, Verdict]] = []
    for label, properties in metadata.variants.items():
        known = _known(release, label)
        published = _published(label, properties)
        foreign = _foreign(properties, metadata)
        if foreign is not None:
            verdict = Verdict("no", message("label.foreign", label=label, foreign=foreign))
            refused.append((label, verdict))
            continue
        if known is None and published is not None and not is_null(label):
            audit.append(message("label.unknown", what=what, label=label))
        build = known or published
        if build is None:
            continue
        labels.append(label)
        builds.append(replace(build, name=label))
    fit = best_fit(builds, target, nvidia, policy=policy, allow_cpu_fallback=allow_cpu_fallback)
    verdicts = tuple(zip(labels, fit.verdicts, strict=True)) + tuple(refused)
    if fit.best is None:
        details = tuple(verdict.detail for _, verdict in verdicts)
        raise NoVariantError(
            message("label.none-serves", what=what, target=target.label),
            why=Phrase(details, "; ") if details else message("label.none-listed"),
            fix=message("label.none-serves-fix"),
        )
    label = labels[fit.best]
    verdict = fit.verdicts[fit.best]
    reason: Localized
    if fit.how == "cuda":
        reason = Phrase((label, verdict.detail), ": ")
    elif fit.how == "fallback":
        reason = message("label.fallback", label=label, target=target.label)
    elif planned == "cpu":
        reason = message("label.planned-cpu", label=label, target=target.label)
    else:
        reason = message("label.no-driver", label=label, target=target.label)
    for other, properties in metadata.variants.items():
        known = _known(release, other)
        chosen = verdict if other == label else None
        audit += _disagreements(what, other, properties, known, target, chosen=chosen)
    installer = provider_pick(metadata, target)
    if planned is None and installer is not None and installer != label:
        audit.append(
            message(
                "label.installer-picks",
                what=what,
                installer=installer,
                target=target.label,
                label=label,
            )
        )
    return LabelChoice(label, reason, tuple(audit), verdicts)


def _stack_choice(metadata: VariantMetadata, target: Target, build: str, what: str) -> LabelChoice:
    """The label of the ROCm or XPU `build` the plan gives `target` (PyTorch's labels are
    its indexes' names); a NoVariantError (exit 3) where the metadata has none."""
    if build not in metadata.variants:
        raise NoVariantError(
            message("variant.no-stack-label", what=what, build=build, target=target.label),
            why=message("variant.no-stack-label-why", labels=", ".join(metadata.variants)),
            fix=message("variant.no-stack-label-fix", build=build),
        )
    gpus = ", ".join(dict.fromkeys(gpu.describe() for gpu in target.profile.gpus))
    stack = stack_name(build_accelerator(build, has_cuda=False))
    verdicts = tuple(
        (
            label,
            Verdict("native", message("label.stack", label=label, stack=stack, gpus=target.label))
            if label == build
            else Verdict(
                "no", message("label.plan-gives", label=label, target=target.label, build=build)
            ),
        )
        for label in metadata.variants
    )
    audit: list[Localized] = [
        message(
            "label.publishes-without",
            what=what,
            build=build,
            published=f"{namespace} :: {feature} :: {', '.join(listed)}",
            missing=", ".join(missing),
            target=target.label,
        )
        for namespace, features in metadata.variants[build].items()
        for feature, listed in features.items()
        for missing in [_unlisted(namespace, feature, listed, [target])]
        if missing
    ]
    reason = message("label.stack", label=build, stack=stack, gpus=gpus)
    return LabelChoice(build, reason, tuple(audit), verdicts)


def _gpu_values(namespace: str, feature: str, targets: Sequence[Target]) -> list[str] | None:
    """What the targets' GPUs have of an AMD ``gfx_arch`` or Intel ``device_ip`` feature
    (None: another feature)."""
    gpus = [gpu for target in targets for gpu in target.profile.gpus]
    if (namespace, feature) == (AMD, GFX_ARCH):
        return [gpu.gfx for gpu in gpus if gpu.vendor == "amd" and gpu.gfx]
    if (namespace, feature) == (INTEL, DEVICE_IP):
        return [gpu.device_ip for gpu in gpus if gpu.vendor == "intel" and gpu.device_ip]
    return None


def _same(namespace: str, value: str, other: str) -> bool:
    """Whether two values name the same hardware (a device IP by architecture.release)."""
    if namespace == INTEL:
        try:
            return device_ip(value) == device_ip(other)
        except ValueError:
            return value == other
    return value == other


def gpu_serves(namespace: str, feature: str, value: str, targets: Sequence[Target]) -> bool:
    """Whether a published value serves some GPU of the targets: an ``sm_arch`` with
    kernels for one, a ``gfx_arch`` or ``device_ip`` one has; any other value does."""
    if (namespace, feature) == (NVIDIA, SM_ARCH):
        sass, ptx = published_arches({NVIDIA: {SM_ARCH: (value,)}})
        return any(kernels_for(sass, ptx, cc) for t in targets for cc in t.profile.capabilities)
    has = _gpu_values(namespace, feature, targets)
    return has is None or any(_same(namespace, value, own) for own in has)


def _unlisted(
    namespace: str, feature: str, listed: Sequence[str], targets: Sequence[Target]
) -> list[str]:
    """The targets' AMD or Intel GPU values none of `listed` names."""
    has = _gpu_values(namespace, feature, targets) or []
    return [own for own in has if not any(_same(namespace, value, own) for value in listed)]


def choose_for_all(
    metadata: VariantMetadata,
    targets: Sequence[Target],
    nvidia: Nvidia,
    *,
    release: Release | None,
    policy: Policy = "newest",
    package: str = "",
    allow_cpu_fallback: bool = False,
    stacks: Mapping[str, str] | None = None,
) -> LabelChoice:
    """One label for every target (a variant must work on each): each target's own choice
    when they agree, else the highest-CUDA label every target's verdict admits
    (`choose_label` says what `allow_cpu_fallback` and `stacks` do)."""
    choices = [
        choose_label(
            metadata,
            t,
            nvidia,
            release=release,
            policy=policy,
            package=package,
            allow_cpu_fallback=allow_cpu_fallback,
            stacks=stacks,
        )
        for t in targets
    ]
    labels = {choice.label for choice in choices}
    audit = tuple(line for choice in choices for line in choice.audit)
    if len(labels) == 1:
        reasons = tuple(
            Phrase((t.label, c.reason), ": ") for t, c in zip(targets, choices, strict=True)
        )
        return LabelChoice(choices[0].label, Phrase(reasons, "; "), audit, choices[0].verdicts)
    admitted = [
        label
        for label in metadata.variants
        if all(
            dict(choice.verdicts)[label].ok for choice in choices if label in dict(choice.verdicts)
        )
    ]
    usable = [label for label in admitted if label_cuda(label) is not None]
    if not usable:
        gets = tuple(
            message("label.gets", target=t.label, label=c.label)
            for t, c in zip(targets, choices, strict=True)
        )
        raise NoVariantError(
            message("label.none-serves-all", what=package or metadata.where),
            why=Phrase(gets, "; "),
            fix=message("label.none-serves-all-fix"),
        )
    label = max(usable, key=lambda name: label_cuda(name) or CudaVersion(0, 0))
    return LabelChoice(label, message("label.newest-for-all", label=label), audit, ())


def _known(release: Release | None, label: str) -> Variant | None:
    if release is None:
        return None
    name = variant_name(label)
    return next((v for v in release.variants if v.name == name), None)


def _published(label: str, properties: Properties) -> Variant | None:
    """A build as its published properties describe it (None: not an NVIDIA or CPU one)."""
    if is_null(label) or not properties:
        return Variant(label, None)
    cuda = label_cuda(label)
    if cuda is None or NVIDIA not in properties:
        return None
    sass, ptx = published_arches(properties)
    return Variant(label, cuda, sass, ptx)


def _disagreements(
    what: str,
    label: str,
    properties: Properties,
    known: Variant | None,
    target: Target,
    *,
    chosen: Verdict | None,
) -> list[Localized]:
    """Audit lines: where a label's published architectures and the knowledge base (its
    build for the target's platform) differ; for the chosen label (`chosen`, its verdict on
    the target), its lower bound too."""
    if known is None or known.cuda is None:
        return []
    lines: list[Localized] = []
    build = known.on(target.platform)
    sass, ptx = published_arches(properties)
    if (sass, ptx) != (tuple(sorted(build.sass)), tuple(sorted(build.ptx))):
        said = ", ".join(properties.get(NVIDIA, {}).get(SM_ARCH, ())) or "-"
        has = [arch_value(cc, "real") for cc in build.sass] + [
            arch_value(cc, "virtual") for cc in build.ptx
        ]
        lines.append(
            message(
                "label.arches-differ",
                what=what,
                label=label,
                said=said,
                has=", ".join(has) or "-",
                platform=target.platform,
            )
        )
    bounds = properties.get(NVIDIA, {}).get(LOWER_BOUND, ())
    if chosen and bounds and all(_version(bound) != known.cuda for bound in bounds):
        # The SPEC's rule: a driver whose CUDA is the build's or newer runs it natively.
        runs = message(
            "label.runs-minor" if chosen.fit == "minor-compatible" else "label.runs-native",
            target=target.label,
            cuda=target.cuda,
        )
        lines.append(
            message(
                "label.lower-bound",
                what=what,
                label=label,
                published=f"nvidia :: {LOWER_BOUND} :: {', '.join(bounds)}",
                cuda=known.cuda,
                runs=runs,
            )
        )
    return lines


def _version(text: str) -> CudaVersion | None:
    try:
        return CudaVersion.parse(text)
    except ValueError:
        return None


# PEP 825's ordering, and what NVIDIA's provider reports.


Supported = dict[str, dict[str, list[str]]]  # namespace -> feature -> values best first


def compatible(properties: Properties, supported: Mapping[str, Mapping[str, list[str]]]) -> bool:
    """PEP 825: every feature of the label has at least one supported value."""
    return all(
        any(value in supported.get(namespace, {}).get(feature, ()) for value in values)
        for namespace, features in properties.items()
        for feature, values in features.items()
    )


def provider_order(metadata: VariantMetadata, supported: Supported) -> list[str]:
    """The compatible labels of `metadata`, best first, as PEP 825 orders them: by each
    feature's best supported value (namespace, feature, value order), a label with more
    such keys before one whose keys it extends, then by label; ``null`` last."""
    namespaces = list(metadata.namespaces)
    ranked = []
    for label, properties in metadata.variants.items():
        if not compatible(properties, supported):
            continue
        keys = []
        for namespace, features in properties.items():
            order = list(supported[namespace])
            for feature, values in features.items():
                listed = supported[namespace][feature]
                best = min(listed.index(value) for value in values if value in listed)
                keys.append((namespaces.index(namespace), order.index(feature), best))
        # A label whose keys extend another's ranks first: an endless key closes each list.
        ranked.append(([*sorted(keys), (len(namespaces), 0, 0)], label))
    return [label for _, label in sorted(ranked)]


def provider_supported(target: Target) -> Supported:
    """What NVIDIA's variant provider reports for `target`: every CUDA from the driver's
    down to 11.0, and the SASS minors of the highest GPU's major, then its major's PTX."""
    if not target.runs_cuda or target.cuda is None or not target.profile.capabilities:
        return {NVIDIA: {}}
    cuda = target.cuda
    bounds = []
    for major in range(cuda.major, 10, -1):
        top = cuda.minor if major == cuda.major else 20
        bounds += [f"{major}.{minor}" for minor in range(top, -1, -1)] + [str(major)]
    cc = max(target.profile.capabilities)
    arches = [f"{cc.major}{minor}_real" for minor in range(cc.minor, -1, -1)]
    return {NVIDIA: {LOWER_BOUND: bounds, SM_ARCH: [*arches, f"{cc.major}0_virtual"]}}


def with_static(metadata: VariantMetadata, supported: Supported) -> Supported:
    """`supported`, with the namespaces whose values the metadata itself gives (torch's
    ``priority``); any other namespace supports nothing."""
    full: Supported = {}
    for namespace in metadata.namespaces:
        static = metadata.static_values(namespace)
        if static is not None:
            full[namespace] = {feature: list(values) for feature, values in static.items()}
        else:
            full[namespace] = supported.get(namespace, {})
    return full


def provider_pick(metadata: VariantMetadata, target: Target) -> str | None:
    """The label a variant-enabled installer with NVIDIA's provider picks for `target`."""
    order = provider_order(metadata, with_static(metadata, provider_supported(target)))
    return order[0] if order else None
