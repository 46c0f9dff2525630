"""The benchmark scripts use skcgm's public API only (issue 40, point 5).

Every ``benchmarks/*.py`` is parsed with :mod:`ast` (nothing of it runs) and
every import of skcgm, at the top or inside a function, must name a public
module (no part of its dotted path starts with an underscore) and, for
``from ... import name``, a name the module lists in its ``__all__``: what a
user of the installed package may rely on. ``AWAITING_PUBLIC_ENTRY`` lists
the private imports still waiting for the public entry that will replace
them; it may only shrink.
"""

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

# (script, module, name) -> the public entry that would replace it.
AWAITING_PUBLIC_ENTRY = {}


def _scripts():
    return sorted(BENCHMARKS.glob("*.py"))


def skcgm_imports(path):
    """``(module, name or None)`` of every skcgm import of a script."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "skcgm":
                    yield alias.name, None
        elif isinstance(node, ast.ImportFrom) and not node.level:
            if (node.module or "").split(".")[0] == "skcgm":
                for alias in node.names:
                    yield node.module, alias.name


def _is_public(module, name):
    if any(part.startswith("_") for part in module.split(".")):
        return False
    if name is None:
        return True
    imported = importlib.import_module(module)
    is_package = hasattr(imported, "__path__")
    if is_package and importlib.util.find_spec(f"{module}.{name}") is not None:
        # A subpackage, e.g. ``from skcgm import datasets``.
        return not name.startswith("_")
    return name in getattr(imported, "__all__", ())


def private_imports(path):
    """The imports of ``path`` outside skcgm's public API."""
    return [
        (path.name, module, name)
        for module, name in skcgm_imports(path)
        if not _is_public(module, name)
    ]


def test_the_scripts_are_found():
    names = {path.name for path in _scripts()}
    assert {"_common.py", "bench_kmeans.py", "_defaults_compadagrad.py"} <= names


@pytest.mark.parametrize("path", _scripts(), ids=lambda path: path.name)
def test_script_imports_only_public_skcgm(path):
    unexpected = [
        found for found in private_imports(path) if found not in AWAITING_PUBLIC_ENTRY
    ]
    assert unexpected == [], (
        "import the public API (a name of a subpackage's __all__, or a "
        "documented skcgm.experiments entry) instead of"
    )


def test_awaiting_entries_are_still_imported():
    found = {entry for path in _scripts() for entry in private_imports(path)}
    assert set(AWAITING_PUBLIC_ENTRY) <= found, (
        "a private import was replaced: drop it from AWAITING_PUBLIC_ENTRY"
    )


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from skcgm.cluster import SumOfMinKMeans", []),
        ("import skcgm", []),
        ("from skcgm import datasets", []),
        ("from skcgm.experiments import run_defaults_panel", []),
        (
            "from skcgm.optim.sum_of_min._dask import dask_objective",
            [("x.py", "skcgm.optim.sum_of_min._dask", "dask_objective")],
        ),
        (
            "def f():\n    from skcgm.experiments import _herding",
            [("x.py", "skcgm.experiments", "_herding")],
        ),
        (
            "from skcgm.utils import _blocks",
            [("x.py", "skcgm.utils", "_blocks")],
        ),
        (
            "import skcgm.utils._blocks",
            [("x.py", "skcgm.utils._blocks", None)],
        ),
        (
            "from skcgm.experiments import TrialRunner",
            [("x.py", "skcgm.experiments", "TrialRunner")],
        ),
    ],
)
def test_private_imports_are_caught(tmp_path, source, expected):
    path = tmp_path / "x.py"
    path.write_text(source + "\n", encoding="utf-8")
    assert private_imports(path) == expected
