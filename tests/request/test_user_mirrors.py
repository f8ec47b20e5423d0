"""Reading `POETRY_CUDA_MIRROR_<FAMILY>` and choosing the sources it redirects."""

from __future__ import annotations

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.request.settings import Settings
from poetry_cuda.request.user_mirrors import redirects
from poetry_cuda.request.user_mirrors import user_mirrors
from poetry_cuda.request.user_mirrors import variable
from poetry_cuda.request.user_mirrors import with_user_redist


SJTU = "https://mirror.sjtu.edu.cn/pytorch-wheels/{variant}/"
UPSTREAM = "https://download.pytorch.org/whl/cu124"


def test_no_variable_no_mirror() -> None:
    assert user_mirrors({"PATH": "/bin", "POETRY_CUDA_TARGET": "x.json"}) == {}


def test_each_family_key_has_its_variable() -> None:
    environ = {variable("pytorch"): SJTU, variable("paddle"): " https://m.example/paddle "}
    assert user_mirrors(environ) == {"pytorch": SJTU, "paddle": "https://m.example/paddle"}


def test_an_empty_value_is_no_mirror() -> None:
    assert user_mirrors({"POETRY_CUDA_MIRROR_PYTORCH": ""}) == {}


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("POETRY_CUDA_MIRROR_PYTORCH", "http://mirror.example/{variant}", "is not an https URL"),
        (
            "POETRY_CUDA_MIRROR_PYTORCH",
            "mirror.example/{variant}",
            "neither a URL nor a known mirror",
        ),
        ("POETRY_CUDA_MIRROR_PYTORCH", "https://m.example/x?token=1", "query string"),
        ("POETRY_CUDA_MIRROR_PADDLE", "https://u:secret@m.example/", "credentials"),
        ("POETRY_CUDA_MIRROR_TORCH", SJTU, "no package family of that name"),
    ],
)
def test_a_malformed_variable_names_itself(name: str, value: str, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        user_mirrors({name: value})
    assert raised.value.what.startswith(f"{name}: ")
    assert said in raised.value.what
    assert "secret" not in raised.value.render()
    assert raised.value.exit_code == 2


def test_loopback_http_is_allowed() -> None:
    local = "http://127.0.0.1:8080/whl/{variant}"
    assert user_mirrors({"POETRY_CUDA_MIRROR_PYTORCH": local}) == {"pytorch": local}


def test_a_managed_source_is_redirected_to_its_variant_on_the_mirror() -> None:
    families = load().families
    (found,) = redirects([("pytorch-cu124", UPSTREAM)], families, {"pytorch": SJTU})
    assert found.name == "pytorch-cu124"
    assert found.upstream == UPSTREAM
    assert found.mirror == "https://mirror.sjtu.edu.cn/pytorch-wheels/cu124/"
    assert found.variable == "POETRY_CUDA_MIRROR_PYTORCH"
    assert found.cache.startswith("pytorch-cu124-mirror-")  # never the upstream's cache


def test_a_template_without_the_placeholder_gets_the_variant_appended() -> None:
    families = load().families
    (found,) = redirects([("pytorch-cu124", UPSTREAM)], families, {"pytorch": "https://m.example/"})
    assert found.mirror == "https://m.example/cu124"


def test_a_projects_configured_mirror_source_is_redirected_too() -> None:
    family = next(f for f in load().families if f.mirror_key == "pytorch")
    url = "https://team.example/whl/cu121"
    name = family.source_name("cu121", url, mirrored=True)
    (found,) = redirects([(name, url)], load().families, {"pytorch": SJTU})
    assert (found.name, found.upstream) == (name, url)
    assert found.mirror == "https://mirror.sjtu.edu.cn/pytorch-wheels/cu121/"


def test_the_users_own_sources_are_never_redirected() -> None:
    sources = [
        ("pytorch", UPSTREAM),  # a hand-written name
        ("pytorch-cu124", "https://elsewhere.example/whl/cu124"),  # our name, not our URL
        ("local-pypi", "https://pypi.example/simple"),
    ]
    assert redirects(sources, load().families, {"pytorch": SJTU}) == []


def test_only_the_families_with_a_mirror_are_redirected() -> None:
    paddle = "https://www.paddlepaddle.org.cn/packages/stable/cu118/"
    sources = [("pytorch-cu124", UPSTREAM), ("paddle-cu118", paddle)]
    found = redirects(sources, load().families, {"pytorch": SJTU})
    assert [r.name for r in found] == ["pytorch-cu124"]
    both = redirects(sources, load().families, {"pytorch": SJTU, "paddle": "https://p.example"})
    assert [(r.name, r.mirror) for r in both][1] == ("paddle-cu118", "https://p.example/cu118")


def test_a_mirror_equal_to_the_committed_url_redirects_nothing() -> None:
    template = "https://download.pytorch.org/whl/{variant}"
    assert redirects([("pytorch-cu124", UPSTREAM)], load().families, {"pytorch": template}) == []


def test_the_plugin_looks_for_the_same_variables() -> None:
    from poetry_cuda.cli.plugin import MIRROR_VARIABLES
    from poetry_cuda.request.user_mirrors import PREFIX

    assert MIRROR_VARIABLES == PREFIX


def test_a_known_mirror_is_named_by_its_name() -> None:
    found = user_mirrors({"POETRY_CUDA_MIRROR_PYTORCH": "sjtu"})
    assert found == {"pytorch": "https://mirror.sjtu.edu.cn/pytorch-wheels/{variant}/"}


@pytest.mark.parametrize(
    ("value", "says"),
    [("aliyun", "flat listing of wheels, which Poetry cannot use"), ("nope", "known mirror")],
)
def test_a_name_poetry_cannot_use_is_refused(value: str, says: str) -> None:
    with pytest.raises(ConfigError) as raised:
        user_mirrors({"POETRY_CUDA_MIRROR_PYTORCH": value})
    assert raised.value.what.startswith("POETRY_CUDA_MIRROR_PYTORCH: ")
    assert says in raised.value.what


def test_the_redist_mirror_is_this_users_too() -> None:
    """POETRY_CUDA_MIRROR_CUDA_REDIST replaces the redist base URL, not a package family."""
    environ = {"POETRY_CUDA_MIRROR_CUDA_REDIST": "https://mirror.example/cuda/redist/"}
    assert user_mirrors(environ) == {}
    assert with_user_redist(Settings(), environ).redist_url == "https://mirror.example/cuda/redist/"
    assert with_user_redist(Settings(), {}) == Settings()
    with pytest.raises(ConfigError) as raised:
        with_user_redist(Settings(), {"POETRY_CUDA_MIRROR_CUDA_REDIST": "http://mirror.example/"})
    assert raised.value.what.startswith("POETRY_CUDA_MIRROR_CUDA_REDIST: ")
