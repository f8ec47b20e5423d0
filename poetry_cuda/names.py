"""Distribution and extra names in their canonical form (PEP 503), as indexes compare them,
and the version a wheel's file name carries.

packaging's `canonicalize_name` gives the same names (a test holds the two equal), but its
module loads packaging's wheel-tag machinery, and with it logging, subprocess and
sysconfig, which the commands that only compare names need nowhere else.
"""

from __future__ import annotations

import re

from urllib.parse import unquote


_SEPARATORS = re.compile(r"[-_.]+")
# A wheel's file name: name-version(-build)?-python-abi-platform.whl, `+` often as %2B.
_WHEEL = re.compile(r"(?P<name>[^-/]+)-(?P<version>[^-/]+)(-\d[^-/]*)?-[^-/]+-[^-/]+-[^-/]+\.whl")


def canonical_name(name: str) -> str:
    """``Torch_Vision.Extra`` -> ``torch-vision-extra``: lower case, each run of ``-_.`` one ``-``."""
    return _SEPARATORS.sub("-", name).lower()


def wheel_version(location: str) -> str | None:
    """The version (label included) of the wheel a URL or path names, if it names one."""
    match = _WHEEL.fullmatch(unquote(location.rsplit("/", 1)[-1]))
    return match["version"] if match else None
