"""`install = "copy" | "shared"`: read, checked, and no part of what makes cuda.lock stale."""

from __future__ import annotations

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.locking.freshness import fingerprint
from poetry_cuda.request.settings import parse_settings


def test_copy_by_default_and_shared_when_asked() -> None:
    assert parse_settings({}).install == "copy"
    chosen = parse_settings({"tool": {"poetry-cuda": {"install": "shared"}}})
    assert chosen.install == "shared"


@pytest.mark.parametrize("value", ["hardlink", "", 1, True])
def test_another_value_is_exit_2_naming_the_choices(value: object) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_settings({"tool": {"poetry-cuda": {"install": value}}})
    assert raised.value.exit_code == 2
    assert "install" in raised.value.what
    assert "copy, shared" in raised.value.what


def test_changing_how_a_lock_is_installed_leaves_it_fresh() -> None:
    before = {"tool": {"poetry-cuda": {"cuda": "12.4"}}}
    after = {"tool": {"poetry-cuda": {"cuda": "12.4", "install": "shared"}}}
    assert fingerprint(before, ()) == fingerprint(after, ())
    other = {"tool": {"poetry-cuda": {"cuda": "12.6", "install": "shared"}}}
    assert fingerprint(other, ()) != fingerprint(after, ())
