"""`plan --check-index`'s judgement of an index page, without the network."""

from __future__ import annotations

import ast

from pathlib import Path

from poetry_cuda.doctor.index_check import Page
from poetry_cuda.doctor.index_check import judge
from poetry_cuda.doctor.index_check import links
from poetry_cuda.doctor.index_check import page_url


WHEEL = "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"


def test_a_flat_listing_with_entities_serves_the_version() -> None:
    body = f'<a href="{WHEEL.replace("+", "&#43;")}">{WHEEL}</a><a href="../">up</a>'
    page = Page("https://mirror.example/wheels/cu124/", links(body))
    report = judge(page, "torch", "2.5.1+cu124", "flat", "download.pytorch.org")
    assert (report.ok, report.found, report.elsewhere) == (True, ("2.5.1+cu124",), ())


def test_links_back_upstream_are_named() -> None:
    href = f"https://download.pytorch.org/whl/cu124/torch/{WHEEL.replace('+', '%2B')}#sha256=ab"
    page = Page("https://mirror.example/whl/cu124/torch/", (href,))
    report = judge(page, "torch", "2.5.1+cu124", "simple", "download.pytorch.org")
    assert report.ok
    assert report.elsewhere == ("download.pytorch.org",)
    assert report.upstream == "download.pytorch.org"
    assert "upstream" in "\n".join(report.lines())


def test_a_page_without_the_version_does_not_serve_it() -> None:
    page = Page("https://mirror.example/whl/cu124/torch/", ("torch-2.4.1+cu124-py3-none-any.whl",))
    report = judge(page, "torch", "2.5.1+cu124", "simple", None)
    assert not report.ok
    assert report.lines()[0] == (
        "torch 2.5.1+cu124: NOT served by https://mirror.example/whl/cu124/torch/ "
        "(it lists: 2.4.1+cu124)"
    )


def test_other_packages_of_a_flat_listing_are_ignored() -> None:
    page = Page("https://m.example/cu124/", ("torchvision-0.20.1+cu124-py3-none-any.whl",))
    assert not judge(page, "torch", None, "flat", None).serves


def test_a_problem_is_reported_as_not_served() -> None:
    report = judge(
        Page("https://m.example/x/", problem="HTTP 403 Forbidden"), "torch", None, "simple", None
    )
    assert not report.ok
    assert report.to_json()["problem"] == "HTTP 403 Forbidden"


def test_the_page_asked_for_each_layout() -> None:
    assert page_url("https://m.example/whl/cu124", "Torch_Audio", "simple") == (
        "https://m.example/whl/cu124/torch-audio/"
    )
    assert page_url("https://m.example/wheels/cu124", "torch", "flat") == (
        "https://m.example/wheels/cu124/"
    )


def test_credentials_never_reach_the_report() -> None:
    page = Page("https://user:token@m.example/whl/cu124/torch/", problem="HTTP 404 Not Found")
    report = judge(page, "torch", None, "simple", None)
    assert "token" not in "\n".join(report.lines())
    assert "token" not in str(report.to_json())


def test_every_url_opened_in_the_package_has_a_timeout() -> None:
    """The online steps wait a bounded time, whatever the server does (`urlopen`, or an
    opener's `open`; tests/security/test_index_check_hostile.py holds the total limits)."""
    package = Path(__file__).resolve().parents[2] / "poetry_cuda"
    opened = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            on = node.func.value
            if node.func.attr == "urlopen" or (
                node.func.attr == "open" and isinstance(on, ast.Name) and on.id == "opener"
            ):
                opened.append((path.name, any(k.arg == "timeout" for k in node.keywords)))
    assert ("web.py", True) in opened
    assert all(timed for _, timed in opened), opened
