"""The static properties file that makes an installer pick poetry-cuda's label, with no plugin run.

uv's wheel-variant prototype reads, from the file ``UV_VARIANT_LOCK`` names, what each
provider would have reported, in place of running it (TOML, ``[metadata]`` version 0.1):

    [metadata]
    created-by = "poetry-cuda 0.1.0"
    version = "0.1"

    [[provider]]
    namespace = "nvidia"
    plugin-api = "nvidia_variant_provider.plugin:NvidiaVariantPlugin"
    resolved = ["nvidia-variant-provider==0.0.2"]

    [provider.properties]
    cuda_version_lower_bound = ["12.0"]
    sm_arch = ["86_real", "60_real"]

Each ``[[provider]]`` stands for a provider the package's metadata declares: its
``plugin-api`` as declared, ``resolved`` a version of each requirement that satisfies it,
and ``properties`` the supported values, best first. A provider the installer would query
but the file lacks is an error there, so every queried one is written, an empty table where
the target supports nothing of it. Providers whose values the metadata itself gives
(torch's ``priority``) are not queried and not written.

The values are pinned to the label poetry-cuda chose (`variant_label.choose_label`): each
feature lists only that label's own values that the target supports, so another label is
admitted only where it shares them; where such a label would rank first, the values it
shares are dropped until the chosen label ranks first (`pinned`).
"""

from __future__ import annotations

import json
import re

from typing import TYPE_CHECKING

from poetry_cuda.errors import NoVariantError
from poetry_cuda.planning.variant_label import NVIDIA
from poetry_cuda.planning.variant_label import gpu_serves
from poetry_cuda.planning.variant_label import provider_order
from poetry_cuda.planning.variant_label import with_static
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.planning.targets import Target
    from poetry_cuda.planning.variant_label import Supported
    from poetry_cuda.planning.variant_metadata import Provider
    from poetry_cuda.planning.variant_metadata import VariantMetadata


LOCK_VERSION = "0.1"  # the prototype reads >=0.1,<0.2
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)")


@frozen
class ProviderAnswer:
    """One ``[[provider]]`` of the file."""

    namespace: str
    plugin_api: str | None
    resolved: tuple[str, ...]
    properties: dict[str, list[str]]


def pinned(metadata: VariantMetadata, label: str, targets: Sequence[Target]) -> Supported:
    """Supported values that make `label` the installer's first choice on `target`.

    Each feature of the label keeps its values the target supports (an ``sm_arch`` value
    that serves at least one GPU of the targets, a ``gfx_arch`` or ``device_ip`` one of
    them has; every other value as published), every other
    namespace nothing; then, while another label ranks first, the values it shares with
    `label` in a feature `label` keeps others of are dropped. A NoVariantError (exit 3)
    when no such values exist.
    """
    properties = metadata.variants[label]
    supported: Supported = {namespace: {} for namespace in metadata.namespaces}
    for namespace, features in properties.items():
        for feature, values in features.items():
            served = [value for value in values if gpu_serves(namespace, feature, value, targets)]
            # A ROCm or XPU label the plan chose whose published gfx or device IP leaves out
            # the GPU (audited): its own values, so the installer still takes it.
            supported[namespace][feature] = served or (list(values) if namespace != NVIDIA else [])
    while True:
        order = provider_order(metadata, with_static(metadata, supported))
        if order and order[0] == label:
            return supported
        rival = next((other for other in order if other != label), None)
        if rival is None or not _narrow(supported, metadata.variants[rival]):
            said = f"{rival} shares every value" if rival else "the label is not admitted"
            raise NoVariantError(
                f"{metadata.where}: no static properties make an installer pick {label} on "
                f"{', '.join(target.label for target in targets)}",
                why=f"{said}, and ranks first by the metadata's own priorities",
                fix="pin the chosen wheel by its URL and hash instead",
            )


def _narrow(supported: Supported, rival: dict[str, dict[str, tuple[str, ...]]]) -> bool:
    """Drop from one feature the values `rival` shares, where others remain."""
    for namespace, features in rival.items():
        for feature, values in features.items():
            kept = supported.get(namespace, {}).get(feature, [])
            rest = [value for value in kept if value not in values]
            if rest and len(rest) < len(kept):
                supported[namespace][feature] = rest
                return True
    return False


def answers(
    metadata: VariantMetadata, supported: Supported, target: Target
) -> tuple[ProviderAnswer, ...]:
    """One answer per provider an installer would query for `target`."""
    return tuple(
        ProviderAnswer(
            provider.namespace,
            provider.plugin_api,
            tuple(_resolved(requirement) for requirement in provider.requires),
            {
                feature: list(values)
                for feature, values in supported.get(provider.namespace, {}).items()
                if values
            },
        )
        for provider in metadata.providers
        if _queried(provider, target)
    )


def _queried(provider: Provider, target: Target) -> bool:
    """Whether an installer runs the provider on `target`: at install time, not optional,
    and its ``enable-if`` marker true there."""
    if not provider.install_time or provider.optional or provider.static is not None:
        return False
    if provider.builtin is not None:
        return False
    return provider.enable_if is None or _marker(provider.enable_if, target)


_SYSTEMS = {"linux": "Linux", "windows": "Windows", "macos": "Darwin"}


def _marker(text: str, target: Target) -> bool:
    from packaging.markers import Marker  # only for a provider with an enable-if marker

    machine = target.platform.split("-", 1)[1]
    environment = {
        "platform_system": _SYSTEMS[target.os],
        "sys_platform": {"linux": "linux", "windows": "win32", "macos": "darwin"}[target.os],
        "platform_machine": "AMD64" if target.os == "windows" and machine == "x86_64" else machine,
        "os_name": "nt" if target.os == "windows" else "posix",
    }
    try:
        return Marker(text).evaluate(environment)
    except ValueError:  # InvalidMarker and UndefinedEnvironmentName are ValueErrors
        return True  # an installer that cannot read it would query the provider


def _resolved(requirement: str) -> str:
    """``name==version`` for a version the requirement admits: its lower bound, else 0."""
    found = _REQUIREMENT.fullmatch(requirement)
    if found is None:
        return requirement
    name, spec = found[1], found[2].split(";", 1)[0]
    for clause in spec.split(","):
        clause = clause.strip()
        for operator in ("==", ">=", "~="):
            if clause.startswith(operator) and "*" not in clause:
                return f"{name}=={clause[len(operator) :].strip()}"
    return f"{name}==0"


def render(entries: tuple[ProviderAnswer, ...], created_by: str, comment: list[str]) -> str:
    """The file's TOML; `comment` lines head it (what it was made for and why)."""
    lines = [f"# {line}" for line in comment]
    lines += ["[metadata]", f"created-by = {_string(created_by)}", f'version = "{LOCK_VERSION}"']
    for entry in entries:
        lines += ["", "[[provider]]", f"namespace = {_string(entry.namespace)}"]
        if entry.plugin_api is not None:
            lines.append(f"plugin-api = {_string(entry.plugin_api)}")
        lines.append(f"resolved = {_strings(entry.resolved)}")
        lines += ["", "[provider.properties]"]
        lines += [f"{feature} = {_strings(v)}" for feature, v in entry.properties.items()]
    return "\n".join(lines) + "\n"


def _string(text: str) -> str:
    return json.dumps(text)  # a TOML basic string: JSON's escapes are TOML's


def _strings(values: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(_string(value) for value in values) + "]"
