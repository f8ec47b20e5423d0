"""Small value types for the three kinds of version poetry-cuda compares.

* `CudaVersion`: a CUDA toolkit or driver-API version, ``12.4``; spelled ``cu124`` in
  variant names and ``12040`` by NVML.
* `ComputeCapability`: a GPU architecture, ``8.9``; spelled ``sm_89`` by compilers.
* `DriverVersion`: an NVIDIA driver version, ``550.54.14``; compared numerically, printed
  as it was written.

Every type parses strictly, raises `ValueError` with the offending text, and its
`str()` round-trips.
"""

from __future__ import annotations

import re

from dataclasses import field
from functools import total_ordering

from poetry_cuda.records import frozen


# ASCII digits only (`\d` and `str.isdigit` also take other scripts' digits and superscripts),
# and few enough that no part is ever an absurdly large number.
_NUMBER = re.compile(r"[0-9]{1,9}")
_DOTTED = re.compile(r"^([0-9]{1,9})\.([0-9]{1,9})$")
_VARIANT = re.compile(r"^cu([0-9]{2,3})$")
_SM = re.compile(r"^(?:sm|compute)_([0-9]{2,3})[af]?$")


@frozen(order=True)
class CudaVersion:
    """A CUDA major.minor version (patch levels never change compatibility)."""

    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> CudaVersion:
        """Parse ``12.4``, ``12.4.131`` (patch dropped) or a variant name ``cu124``.

        >>> CudaVersion.parse("cu118")
        CudaVersion(major=11, minor=8)
        """
        text = text.strip()
        variant = _VARIANT.match(text)
        if variant:
            digits = variant.group(1)
            return cls(int(digits[:-1]), int(digits[-1]))
        parts = text.split(".")
        if 2 <= len(parts) <= 4 and all(_NUMBER.fullmatch(p) for p in parts):
            return cls(int(parts[0]), int(parts[1]))
        raise ValueError(f"not a CUDA version: {text!r} (expected e.g. '12.4' or 'cu124')")

    @classmethod
    def from_nvml(cls, value: int) -> CudaVersion:
        """Decode NVML's ``1000 * major + 10 * minor`` encoding: 12040 is 12.4."""
        if value <= 0:
            raise ValueError(f"not an NVML CUDA version: {value}")
        return cls(value // 1000, (value % 1000) // 10)

    @property
    def variant(self) -> str:
        """The variant name PyTorch and Paddle use for this version: ``cu124``."""
        return f"cu{self.major}{self.minor}"

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


@frozen(order=True)
class ComputeCapability:
    """A GPU architecture, major.minor: 8.9 is Ada, 12.0 is consumer Blackwell."""

    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> ComputeCapability:
        """Parse ``8.9`` or ``sm_89`` (also ``sm_120``, ``sm_90a``, ``compute_75``)."""
        text = text.strip()
        dotted = _DOTTED.match(text)
        if dotted:
            return cls(int(dotted.group(1)), int(dotted.group(2)))
        sm = _SM.match(text.lower())
        if sm:
            digits = sm.group(1)
            return cls(int(digits[:-1]), int(digits[-1]))
        raise ValueError(f"not a compute capability: {text!r} (expected e.g. '8.9' or 'sm_89')")

    @property
    def sm(self) -> str:
        """The compiler's spelling: ``sm_89``."""
        return f"sm_{self.major}{self.minor}"

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


@total_ordering
@frozen
class DriverVersion:
    """An NVIDIA driver version such as ``550.54.14`` or ``580``.

    Compared by its numeric parts (``470.82.01`` < ``470.141.03``); `str()` gives the
    text as written, leading zeros included.
    """

    text: str
    parts: tuple[int, ...] = field(compare=False, repr=False)

    @classmethod
    def parse(cls, text: str) -> DriverVersion:
        text = text.strip()
        pieces = text.split(".")
        if not 1 <= len(pieces) <= 4 or not all(_NUMBER.fullmatch(p) for p in pieces):
            raise ValueError(f"not a driver version: {text!r} (expected e.g. '550.54.14')")
        return cls(text, tuple(int(p) for p in pieces))

    def _key(self) -> tuple[int, ...]:
        return self.parts + (0,) * (4 - len(self.parts))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DriverVersion):
            return NotImplemented
        return self._key() == other._key()

    def __lt__(self, other: DriverVersion) -> bool:
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        return self.text
