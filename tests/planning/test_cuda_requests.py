"""A CUDA request that names no build: exit 2 for one no known build has, exit 3 naming the
variants that exist when only releases the project does not allow have it."""

from __future__ import annotations

import re

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import NoVariantError
from poetry_cuda.request.settings import CudaRequest
from tests.support.plans import linux_host
from tests.support.plans import plan_text


RTX_4090 = linux_host("rtx4090", "550.54.14", "8.9")


def project(torch: str) -> str:
    return f'[project]\nname = "demo"\nversion = "0.1.0"\ndependencies = ["torch{torch}"]\n'


@pytest.mark.parametrize("asked", ["cu999", "99.9", ">=13.5"])
def test_a_cuda_request_no_build_has_is_bad_input(asked: str) -> None:
    request = CudaRequest.parse(asked, key="--cuda")
    with pytest.raises(ConfigError) as caught:
        plan_text(project("==2.5.1"), [RTX_4090], cuda=request)
    assert caught.value.exit_code == 2
    assert caught.value.what == f"--cuda {asked}: no known build of torch has this CUDA version"
    assert "cu118" in caught.value.why
    assert "cu124" in caught.value.why
    assert "--cuda cu" in caught.value.fix


def test_the_config_key_is_named_when_the_request_comes_from_it() -> None:
    with pytest.raises(ConfigError) as caught:
        plan_text(project("==2.5.1"), [RTX_4090], cuda=CudaRequest.parse("cu999"))
    assert caught.value.what.startswith('cuda = "cu999"')
    assert 'e.g. cuda = "cu' in caught.value.fix


def test_a_variant_only_other_releases_have_names_the_variants_that_exist() -> None:
    request = CudaRequest.parse("12.4", key="--cuda")
    with pytest.raises(NoVariantError) as caught:
        plan_text(project(">=2.15"), [RTX_4090], cuda=request)
    error = caught.value
    assert error.exit_code == 3
    assert "no torch version the project allows has a build of this CUDA version" in error.what
    assert "cu124 builds exist for torch 2.4.0 to 2.6.0" in error.why
    assert re.search(r"\(e\.g\. --cuda cu13\d\)", error.fix)
    assert "allow torch 2.4.0 to 2.6.0 in pyproject.toml" in error.fix


def test_a_request_some_admitted_build_has_is_planned() -> None:
    planned = plan_text(project("==2.5.1"), [RTX_4090], cuda=CudaRequest.parse("12.1"))
    assert [p.variant for p in planned.plan.packages] == ["cu121"]
