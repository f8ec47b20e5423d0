"""Every URL poetry-cuda writes is https, except for loopback hosts, however the URL is spelled."""

from __future__ import annotations

import pytest

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from poetry_cuda.errors import ConfigError
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.urls import check_index_url


ACCEPTED = [
    "https://mirror.example/pytorch-wheels/{variant}",
    "https://{variant}.mirror.example/simple",
    "HTTPS://mirror.example/whl",  # schemes are case-insensitive
    "https://mirror.example:8443/whl",
    "http://127.0.0.1:8080/whl/{variant}",
    "http://127.3.4.5/whl",  # all of 127.0.0.0/8
    "http://localhost/whl",
    "http://LOCALHOST:3141/root/pypi",
    "HTTP://127.0.0.1/whl",
    "http://[::1]/whl",
    "http://[::1]:8080/whl",
]

REJECTED = [
    # A loopback-looking prefix of a public name.
    "http://127.0.0.1.evil.com/whl",
    "http://localhost.evil.com/whl",
    "http://localhost./whl",
    # Other spellings of loopback that some clients resolve and others don't: refuse them all.
    "http://0x7f000001/whl",
    "http://2130706433/whl",
    "http://127.1/whl",
    "http://[::ffff:127.0.0.1]/whl",
    # The host is whatever follows the userinfo.
    "http://127.0.0.1@evil.com/whl",
    "http://localhost:80@evil.com/whl",
    "http://127.0.0.1\\@evil.com/whl",
    # Whitespace and control characters, which parsers strip or split differently.
    " https://mirror.example/whl",
    "https://mirror.example/whl ",
    "https://mirror.example/whl\n",
    "https://mirror.exa mple/whl",
    "https://mirror.\nexample/whl",
    "http://127.0.0.1\t.evil.com/whl",
    "http://127.0.\r0.1/whl",
    "https://mirror.example/\x00whl",
    "https://mirror.example/whl\x7f",
    "https://mirror.example\u00a0/whl",
    "https://mirror.example/whl\u2028",
    # Malformed authorities.
    "https://[::1/whl",
    "http://[::1]x/whl",
    "https://mirror.example:port/whl",
    "http://127.0.0.1:99999/whl",
    "https:///whl",
    "https://",
    "https:/mirror.example/whl",
    # Other schemes.
    "http://mirror.example/whl",
    "ftp://mirror.example/whl",
    "file:///srv/whl",
    "git+https://mirror.example/whl",
    "mirror.example/whl",
    "//mirror.example/whl",
    "",
]


@pytest.mark.parametrize("url", ACCEPTED)
def test_accepted(url: str) -> None:
    assert check_index_url(url, "mirrors.pytorch") == url


@pytest.mark.parametrize("url", REJECTED)
def test_rejected_with_a_config_error(url: str) -> None:
    # A URL with a user name is refused for its credentials before its host is judged; a
    # malformed one says what is wrong with it.
    problem = (
        r"(.* is not an https URL|the URL holds credentials|.* is not a well-formed URL: "
        r"|.* holds (whitespace|a control character))"
    )
    with pytest.raises(ConfigError, match=rf"mirrors\.pytorch: {problem}"):
        check_index_url(url, "mirrors.pytorch")


@pytest.mark.parametrize("url", REJECTED)
def test_rejected_in_pyproject(url: str) -> None:
    document = {"tool": {"poetry-cuda": {"mirrors": {"pytorch": url}}}}
    with pytest.raises(ConfigError, match=r"mirrors\.pytorch"):
        parse_settings(document)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_is_a_url_or_a_config_error(text: str) -> None:
    try:
        accepted = check_index_url(text, "mirrors.pytorch")
    except ConfigError:
        return
    assert accepted == text
    assert text.lower().startswith(("https://", "http://"))
    assert not any(c.isspace() or not c.isprintable() for c in text)


hosts = st.sampled_from(["127.0.0.1", "localhost", "[::1]", "mirror.example", "evil.com"])


@settings(max_examples=300, deadline=None)
@given(
    scheme=st.sampled_from(["http", "https", "HTTP", "Https"]),
    userinfo=st.sampled_from(["", "u@", "127.0.0.1@", "localhost:1@", "a:b@"]),
    host=hosts,
    suffix=st.sampled_from(["", ".evil.com", ".", "@evil.com", "\\@evil.com", ":8080"]),
    path=st.sampled_from(["", "/", "/whl/{variant}", "?x=@evil.com", "#@evil.com"]),
)
def test_plain_http_reaches_loopback_only(
    scheme: str, userinfo: str, host: str, suffix: str, path: str
) -> None:
    url = f"{scheme}://{userinfo}{host}{suffix}{path}"
    try:
        check_index_url(url, "mirrors.pytorch")
    except ConfigError:
        return
    if scheme.lower() == "http":
        # Accepted plain http: the host every parser sees is a loopback one.
        assert host in ("127.0.0.1", "localhost", "[::1]")
        assert suffix in ("", ":8080")
