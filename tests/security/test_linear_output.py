"""The output edge reads any text in linear time: a value from a clone cannot stall a command.

`shown` used to redact with two regular expressions that read a long run of URL-like
characters once per position they tried to start at: a 20 kB mirror URL took `plan` ten
seconds, and a 60 kB variant in a committed cuda.lock stalled `doctor`. These tests give it
a megabyte of each such shape and check what it prints (no timing: the algorithm is linear by
construction, see `display.shown`), and hold its output equal to those expressions' on
short texts, which they still read quickly.
"""

from __future__ import annotations

import re

import pytest

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from poetry_cuda.display import CONTROL
from poetry_cuda.display import redact_url
from poetry_cuda.display import shown


MB = 1_000_000

# The expressions `shown` replaced: the reference for what it prints.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s<>\"'`]+")
_USER_PASSWORD = re.compile(r"[^\s<>\"'`/@:]+:[^\s<>\"'`/@]*@(?=[\w\[])")


def reference(text: str) -> str:
    redacted = _USER_PASSWORD.sub("***@", _URL.sub(lambda m: redact_url(m.group()), text))
    return CONTROL.sub(_escaped, redacted)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


# What URLs, credentials and the text around them are made of, in pieces a run can repeat.
PIECES = [
    *"aZ09:/@[]?#&=.+-_ \t\n<>\"'`é中\x1b\x9b\u202e",
    "://",
    "https://",
    "u:p@",
    "@h",
    "?token=",
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_shown_prints_what_the_expressions_printed(text: str) -> None:
    assert shown(text) == reference(text)


@pytest.mark.parametrize(
    "text",
    [
        "see https://alice:pw@mirror.example/whl/cu124?token=abc for torch",
        "connect to alice:pw@127.0.0.1:9 failed; retry alice:pw@[::1]:8080",
        "ftp://h/x http://u@h/ torch 2.5.1+cu124 (a: b@c) mail a@b.org",
        "Poetry: HTTPSConnectionPool(host='u:p@h', port=443): <https://u:p@h/simple/>",
    ],
)
def test_shown_prints_what_the_expressions_printed_on_messages(text: str) -> None:
    assert shown(text) == reference(text)


def test_a_megabyte_of_one_scheme_like_run() -> None:
    text = "a" * MB
    assert shown(text) == text
    assert shown(text + "://") == text + "://"  # no URL without a character after it


def test_a_megabyte_long_url_keeps_its_scheme_and_path() -> None:
    scheme, path = "x" * (MB // 2), "y" * (MB // 2)
    assert shown(f"{scheme}://{path}") == f"{scheme}://{path}"
    assert shown(f"{scheme}://u:p@h/{path}?q=1") == f"{scheme}://***@h/{path}?q=***"


def test_a_megabyte_of_colons_and_at_signs() -> None:
    assert shown("a:" * (MB // 2)) == "a:" * (MB // 2)
    assert shown(":@" * (MB // 2)) == ":@" * (MB // 2)
    # One password running to the last `@`: everything before the host goes.
    assert shown("a:" * (MB // 2) + "@host") == "***@host"
    # Each `user:password@` before a word is one credential; the last has no host after it.
    assert shown("a:b@" * (MB // 4)) == "***@" * (MB // 4 - 1) + "a:b@"


def test_a_megabyte_of_url_starts() -> None:
    assert shown("://" * (MB // 3)) == "://" * (MB // 3)
    assert shown("a://" * (MB // 4)) == "a://" * (MB // 4)
    many = "https://u:p@h/x " * (MB // 16)
    assert shown(many) == "https://***@h/x " * (MB // 16)


def test_a_megabyte_url_with_many_credentials_keeps_only_its_host() -> None:
    assert shown("http://" + "u:p@" * (MB // 4) + "h/x") == "http://***@h/x"


def test_a_megabyte_of_controls_is_escaped() -> None:
    assert shown("\x1b" * MB) == "\\x1b" * MB
