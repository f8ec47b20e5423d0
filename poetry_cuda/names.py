"""Distribution and extra names in their canonical form (PEP 503), as indexes compare them.

packaging's `canonicalize_name` gives the same names (a test holds the two equal), but its
module loads packaging's wheel-tag machinery, and with it logging, subprocess and
sysconfig, which the commands that only compare names need nowhere else.
"""

from __future__ import annotations

import re


_SEPARATORS = re.compile(r"[-_.]+")


def canonical_name(name: str) -> str:
    """``Torch_Vision.Extra`` -> ``torch-vision-extra``: lower case, each run of ``-_.`` one ``-``."""
    return _SEPARATORS.sub("-", name).lower()
