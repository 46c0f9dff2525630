"""The release's metadata agree: one version, written down in the changelog,
and wheels configured for every Python the package supports (issue 41)."""

import re
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import skcgm

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
CHANGELOG = ROOT / "CHANGELOG.md"

pytestmark = pytest.mark.skipif(
    not (PYPROJECT.exists() and CHANGELOG.exists()),
    reason="needs the repository checkout",
)


def _pyproject():
    return tomllib.loads(PYPROJECT.read_text())


def test_the_version_has_one_source():
    config = _pyproject()
    assert "version" not in config["project"]
    assert config["project"]["dynamic"] == ["version"]
    attr = config["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "skcgm._version.__version__"
    # The installed metadata were read from it.
    assert version("skcgm") == skcgm.__version__


def test_the_version_is_semantic():
    # MAJOR.MINOR.PATCH, with .devN between releases (PEP 440 spells it so).
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+)?", skcgm.__version__)


def test_the_changelog_has_an_entry_for_the_version():
    headings = re.findall(r"^## (.+)$", CHANGELOG.read_text(), re.MULTILINE)
    assert headings[0] == "Unreleased"
    released = [heading.split()[0] for heading in headings[1:]]
    assert len(released) == len(set(released))
    if ".dev" not in skcgm.__version__:
        assert released[0] == skcgm.__version__


def test_wheels_are_built_for_every_supported_python():
    config = _pyproject()
    oldest = re.fullmatch(r">=3\.(\d+)", config["project"]["requires-python"])
    wheels = config["tool"]["cibuildwheel"]
    built = sorted(int(minor) for minor in re.findall(r"cp3(\d+)-\*", wheels["build"]))
    assert built == list(range(int(oldest.group(1)), 14))
    assert set(wheels["linux"]["archs"]) == {"x86_64", "aarch64"}
    assert any("pytest" in command for command in wheels["test-command"])
    assert (ROOT / ".github" / "workflows" / "wheels.yml").exists()
