"""numpydoc validation of the public docstrings of skcgm.

Mirrors ``sklearn/tests/test_docstrings.py``: every estimator (its class
docstring, and its public methods and properties defined in skcgm; methods
inherited from scikit-learn are validated by scikit-learn), and every public
class and function that the modules of ``_DOCUMENTED_MODULES`` list in their
``__all__`` are validated with ``numpydoc.validate``. The same errors as
scikit-learn's are ignored.
"""

import ast
import inspect
import re
from importlib import import_module
from pathlib import Path

import pytest

from skcgm.utils.discovery import all_estimators

numpydoc_validation = pytest.importorskip("numpydoc.validate")

# Ignored everywhere, as in scikit-learn:
#  - RT02: the first line of the Returns section should contain only the type
#    (we name the returned object);
#  - GL01: the summary should start on the line right after the opening quotes;
#  - GL02: a blank line should be before the closing quotes, not after (short
#    docstrings for properties).
_IGNORED_EVERYWHERE = {"RT02", "GL01", "GL02"}
# Only the class docstring needs an extended summary, a See Also section and
# examples; methods are exempt.
_IGNORED_FOR_METHODS = {"ES01", "SA01", "EX01"}


# Public modules whose exported classes and functions (``__all__``) are
# validated, besides every estimator. Add a module here once its API settles.
_DOCUMENTED_MODULES = (
    "skcgm.datasets",
    "skcgm.experiments",
    "skcgm.online",
    "skcgm.optim",
    "skcgm.oracles",
    "skcgm.utils.discovery",
    "skcgm.utils.estimator_checks",
)


def _defined_in_skcgm(obj):
    module = getattr(inspect.unwrap(obj), "__module__", None) or ""
    return module.split(".")[0] == "skcgm"


def _public_classes_and_functions():
    classes = {Klass for name, Klass in all_estimators()}
    functions = set()
    for module_name in _DOCUMENTED_MODULES:
        module = import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name, None)
            if name.startswith("_") or obj is None or not _defined_in_skcgm(obj):
                continue
            if inspect.isclass(obj):
                classes.add(obj)
            elif inspect.isfunction(inspect.unwrap(obj)):
                functions.add(obj)
    classes = sorted(classes, key=lambda k: f"{k.__module__}.{k.__qualname__}")
    functions = sorted(functions, key=lambda f: f"{f.__module__}.{f.__qualname__}")
    return classes, functions


def _method_object(Klass, name):
    obj = getattr(Klass, name)
    return obj.fget if isinstance(obj, property) else obj


def _public_methods(Klass):
    """Yield ``(Klass, None)`` then ``(Klass, name)`` for its own public methods."""
    yield Klass, None
    for name in sorted(dir(Klass)):
        if name.startswith("_"):
            continue
        obj = _method_object(Klass, name)
        if callable(obj) and not inspect.isclass(obj) and _defined_in_skcgm(obj):
            yield Klass, name


_CLASSES, _FUNCTIONS = _public_classes_and_functions()
_METHODS = [pair for Klass in _CLASSES for pair in _public_methods(Klass)]


def _filter_errors(errors, method, Klass=None):
    """Drop the errors scikit-learn ignores for this kind of object."""
    for code, message in errors:
        if code in _IGNORED_EVERYWHERE:
            continue
        # PR02 (unknown parameters) and GL08 (signature not parsed) are
        # meaningless for properties.
        if code in ("PR02", "GL08") and Klass is not None and method is not None:
            if isinstance(getattr(Klass, method), property):
                continue
        if method is not None and code in _IGNORED_FOR_METHODS:
            continue
        yield code, message


def _fail_with_errors(result, import_path, errors):
    lines = [
        f"{len(errors)} numpydoc error(s) in the docstring of {import_path}",
        f"({result['file']}:{result['file_line']}):",
    ]
    lines += [f"  - {code}: {message}" for code, message in errors]
    lines += ["", "Docstring:", result["docstring"]]
    pytest.fail("\n".join(lines), pytrace=False)


def _method_id(pair):
    Klass, method = pair
    return Klass.__name__ if method is None else f"{Klass.__name__}.{method}"


def test_public_objects_found():
    # Guard against an empty parametrization silently passing.
    assert any(Klass.__name__ == "SumOfMinKMeans" for Klass in _CLASSES)
    assert "all_estimators" in {func.__name__ for func in _FUNCTIONS}


@pytest.mark.parametrize(
    "Klass, method", _METHODS, ids=[_method_id(pair) for pair in _METHODS]
)
def test_docstring(Klass, method):
    import_path = f"{Klass.__module__}.{Klass.__qualname__}"
    if method is not None:
        import_path += f".{method}"
    result = numpydoc_validation.validate(import_path)
    errors = list(_filter_errors(result["errors"], method, Klass=Klass))
    if errors:
        _fail_with_errors(result, import_path, errors)


@pytest.mark.parametrize(
    "function", _FUNCTIONS, ids=[f"{f.__module__}.{f.__name__}" for f in _FUNCTIONS]
)
def test_function_docstring(function):
    import_path = f"{function.__module__}.{function.__name__}"
    result = numpydoc_validation.validate(import_path)
    # As scikit-learn: functions count as methods (ES01, SA01, EX01 ignored).
    errors = list(_filter_errors(result["errors"], method="function"))
    if errors:
        _fail_with_errors(result, import_path, errors)


# The implementation notes are the developers' working papers; a user has the
# papers only. Comments may cite the notes, docstrings may not.
_NOTE_CITATION = re.compile(
    r"notes?/|\d{3}_\w+\.md|\bthe note\b|project's note|\bnote,? sections?\b"
    r"|\bnote \(?section|\berrat(?:um|a) [A-Z]?\d+(?:-[A-Z]?\d+)? of\b"
    r"|\bsections? [\d.]+ of the note",
    re.IGNORECASE,
)


def _docstrings(path):
    """(line, docstring) of the module, classes and functions of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = [tree] + [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    for node in nodes:
        docstring = ast.get_docstring(node, clean=False)
        if docstring:
            yield getattr(node, "lineno", 1), docstring


_SOURCES = sorted(
    (Path(__file__).parents[1] / "src" / "skcgm").rglob("*.py"),
)


@pytest.mark.parametrize(
    "path", _SOURCES, ids=lambda path: str(path).split("src/skcgm/")[-1]
)
def test_docstrings_cite_the_papers_not_the_notes(path):
    offending = [
        f"line {line}: {match.group(0)!r}"
        for line, docstring in _docstrings(path)
        for match in [_NOTE_CITATION.search(docstring)]
        if match
    ]
    assert not offending, f"{path.name} cites the implementation notes: {offending}"
