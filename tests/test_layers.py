"""The package's imports run downwards through its layers.

The layers, from the bottom (``ARCHITECTURE.md``): ``utils`` < ``oracles`` <
``optim`` < the estimators and online learners (``online``, ``cluster``,
``linear_model``, ``sampling``, ``neural_network``, and ``base``, the
base classes they share) < ``datasets`` <
``experiments`` < the command line (``_cli``, ``__main__`` and the package's
``__init__``, which re-exports the estimators). Every module of
``src/skcgm`` is parsed with :mod:`ast`, nothing is imported, so a cycle or a
broken module still gets a readable failure.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

_SRC = Path(__file__).resolve().parents[1] / "src"
_PACKAGE = "skcgm"

_ESTIMATORS = frozenset(
    {"online", "cluster", "linear_model", "sampling", "neural_network"}
)
_RANK = {
    "utils": 0,
    "_version": 0,
    "oracles": 1,
    "optim": 2,
    **dict.fromkeys(_ESTIMATORS, 3),
    # The base classes the estimators share; not an estimator of its own.
    "base": 3,
    "datasets": 4,
    "experiments": 5,
    "cli": 6,
}
_CLI = frozenset({"_cli", "__main__"})
# The solver families of ``skcgm.optim``, one subpackage each; what two of
# them share lives in ``utils`` or ``oracles``.
_FAMILIES = frozenset(
    {"sum_of_min", "compadagrad", "proximal_point", "conditional_gradient"}
)

# (importing module, imported module) pairs allowed to run upwards, each with
# its reason. all_estimators walks the whole package, as scikit-learn's own
# sklearn.utils.discovery does, so it imports the package from inside a
# function.
_ALLOWED_UPWARD = frozenset({("skcgm.utils.discovery", "skcgm")})

# Private names cross a layer only out of ``utils`` (issue 17): a shared
# helper lives in ``skcgm.utils``, and a lower layer's API used by a higher
# one drops its leading underscore in its (private) module.


def _module_name(path):
    parts = list(path.relative_to(_SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    """``{module name: (path, is_package)}`` for every module of the package."""
    return {
        _module_name(path): (path, path.name == "__init__.py")
        for path in sorted((_SRC / _PACKAGE).rglob("*.py"))
    }


def _unit(module):
    """The layer unit of a module: its subpackage, ``cli`` or ``_version``."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in _CLI:
        return "cli"
    return parts[1]


def _imports(module, path, is_package):
    """Yield ``(imported module, name or None)`` for every skcgm import.

    Relative imports are resolved; ``from skcgm import cluster`` and
    ``from .. import cluster`` yield the subpackage ``skcgm.cluster``. Imports
    inside functions count as much as those at the top.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == _PACKAGE:
                    yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != _PACKAGE:
                continue
            for alias in node.names:
                if target == _PACKAGE and alias.name in _RANK:
                    yield f"{_PACKAGE}.{alias.name}", None
                else:
                    yield target, alias.name


def _all_imports():
    """``[(importing module, imported module, name or None)]``, sorted."""
    return sorted(
        (module, target, name)
        for module, (path, is_package) in _modules().items()
        for target, name in _imports(module, path, is_package)
    )


def _is_private(name):
    return name is not None and name.startswith("_") and not name.startswith("__")


def upward_imports():
    """Imports of a higher layer than the importing module's, sorted."""
    return [
        (module, target, name)
        for module, target, name in _all_imports()
        if _RANK[_unit(target)] > _RANK[_unit(module)]
        and (module, target) not in _ALLOWED_UPWARD
    ]


def cross_estimator_imports():
    """Imports of one estimator subpackage by another, sorted."""
    return [
        (module, target, name)
        for module, target, name in _all_imports()
        if _unit(module) in _ESTIMATORS
        and _unit(target) in _ESTIMATORS
        and _unit(module) != _unit(target)
    ]


def private_crossings():
    """Private names imported from another layer than ``utils``, sorted."""
    return [
        (module, target, name)
        for module, target, name in _all_imports()
        if _is_private(name) and _unit(target) not in (_unit(module), "utils")
    ]


def _family(module):
    """The solver family of a module of ``skcgm.optim``, or None elsewhere."""
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "optim":
        return parts[2]
    return None


def cross_family_imports():
    """Imports of one solver family of ``skcgm.optim`` by another, sorted."""
    return [
        (module, target, name)
        for module, target, name in _all_imports()
        if _family(module) is not None
        and _family(target) is not None
        and _family(module) != _family(target)
    ]


def _package(module, is_package):
    return module if is_package else module.rpartition(".")[0]


def _exported(path):
    """The names of a module's ``__all__``, or None without one."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            getattr(target, "id", None) == "__all__" for target in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return None


def unexported_crossings():
    """Names imported from a module of another package that its ``__all__`` lacks.

    Inside one package, modules share what they like; across packages (a
    family and its ``losses``, ``optim`` and an estimator) only what the
    imported module names in its ``__all__``. Dunders and submodules aside.
    """
    modules = _modules()
    found = []
    for module, target, name in _all_imports():
        if name is None or target not in modules or f"{target}.{name}" in modules:
            continue
        if name.startswith("__"):
            continue
        if _package(module, modules[module][1]) == _package(target, modules[target][1]):
            continue
        exported = _exported(modules[target][0])
        if exported is None or name not in exported:
            found.append((module, target, name))
    return found


def test_every_module_maps_to_a_layer():
    units = {_unit(module) for module in _modules()}
    assert units <= set(_RANK), sorted(units - set(_RANK))


@pytest.mark.parametrize(
    "module, level, imported, expected",
    [
        ("skcgm.optim._policy", 2, "oracles._mips", "skcgm.oracles._mips"),
        ("skcgm.optim", 1, "_policy", "skcgm.optim._policy"),
        ("skcgm.optim._policy", 1, "_frank_wolfe", "skcgm.optim._frank_wolfe"),
    ],
)
def test_relative_imports_are_resolved(tmp_path, module, level, imported, expected):
    path = tmp_path / "module.py"
    path.write_text(f"from {'.' * level}{imported} import name\n", encoding="utf-8")
    is_package = module == "skcgm.optim"
    assert list(_imports(module, path, is_package)) == [(expected, "name")]


def test_no_upward_import():
    assert upward_imports() == []


def test_optim_holds_only_solver_families():
    families = {_family(module) for module in _modules()} - {None}
    assert families == set(_FAMILIES)
    loose = [
        m
        for m in _modules()
        if m.startswith("skcgm.optim.") and _family(m) not in _FAMILIES
    ]
    assert loose == []


def test_solver_families_never_import_each_other():
    assert cross_family_imports() == []


def test_no_estimator_imports_another_estimator():
    assert cross_estimator_imports() == []


def test_names_cross_packages_only_through_all():
    assert unexported_crossings() == []


def test_private_names_cross_layers_only_out_of_utils():
    assert private_crossings() == []


def test_importing_optim_does_not_load_online():
    code = "import skcgm.optim, sys; print('skcgm.online' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
