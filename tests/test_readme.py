"""The README's command lists agree with what they describe: every registered
``reproduce`` experiment is listed (and nothing else), and the documentation
build is the one CI runs."""

import re
from pathlib import Path

import pytest

from skcgm.experiments._registry import EXPERIMENTS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"

pytestmark = pytest.mark.skipif(
    not (README.exists() and CI.exists()), reason="needs the repository checkout"
)


def test_readme_lists_every_reproduce_experiment():
    listed = re.findall(
        r"^python -m skcgm reproduce ([a-z0-9][a-z0-9-]*)",
        README.read_text(),
        re.MULTILINE,
    )
    assert len(listed) == len(set(listed)), listed
    assert set(listed) == set(EXPERIMENTS)


def _sphinx_command(text):
    (line,) = [line for line in text.splitlines() if "python -m sphinx" in line]
    return line.strip()


def test_readme_builds_the_documentation_as_ci_does():
    assert _sphinx_command(README.read_text()) == _sphinx_command(CI.read_text())
    assert 'pip install ".[docs]"' in README.read_text()
