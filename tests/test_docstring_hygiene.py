"""Docstrings cite the installed package or the documentation, and no timings.

A docstring travels with the installed package, where the repository's
benchmark scripts, tests and documentation sources are not: it keeps the
reason for a default and the regime where it wins, and points to the user
guide for the measurements. Parameter descriptions in particular carry no
wall-clock figures, which go stale with the machine and the release.

Every module of the installed ``skcgm`` is imported (the compiled Cython
modules included, whose ``def`` functions keep their docstrings), and the
docstrings of the module and of every class, function, method and property
defined in it (``__module__``, so that re-exports count once) are checked:

* no docstring names a file outside the installed package (``benchmarks/``,
  ``BENCHMARKS.md``, ``tests/``, ``/tmp``, the ``doc/`` sources, ...);
* no entry of a Parameters or Other Parameters section holds a timing: a
  number followed by a time unit, or "N x faster/slower".
"""

import importlib
import inspect
import pkgutil
import re
import warnings

import pytest

import skcgm

try:
    from numpydoc.docscrape import NumpyDocString
except ImportError:  # numpydoc is in the "tests" extra; parse by hand without.
    NumpyDocString = None

# Top-level packages of the optional extras: a module that needs one of them
# is skipped when it is missing, as ``pytest.importorskip`` would; any other
# import error fails.
_OPTIONAL = {"dask", "distributed", "dask_ml", "matplotlib", "goodpoints"}

_OUTSIDE_FILE = re.compile(
    r"\bbenchmarks?/|\bBENCHMARKS(?:\.md)?\b|\btests?/|\bconftest\.py\b"
    r"|\btest_\w+\.py\b|\bbench_\w+\.py\b|\b_defaults_\w+\.py\b"
    r"|(?<![\w.])/tmp\b|\bdocs?/|\bexamples/|\b\w+\.rst\b|\bREADME\.md\b"
    r"|\bpyproject\.toml\b|\bsetup\.py\b"
)

_NUMBER = r"\d+(?:[.,]\d+)*"
_RANGE = rf"{_NUMBER}(?:\s*(?:-|–|to)\s*{_NUMBER})?"
_TIME_UNIT = (
    r"(?:s|ms|us|µs|μs|ns|secs?|seconds?|mins?|minutes?|hours?|hrs?"
    r"|CPU-seconds?|CPU-minutes?)"
)
_TIMING = re.compile(
    rf"(?<![\w^{{])(?:~|≈)?{_RANGE}\s*{_TIME_UNIT}\b"
    rf"|\b{_NUMBER}\s*(?:x|×|times)\s+(?:faster|slower|quicker|speed-?ups?)\b"
    rf"|\bspeed-?ups?\s+(?:of|by)\s+(?:about\s+|~)?{_NUMBER}"
    rf"|\b(?:faster|slower)\s+by\s+(?:about\s+|~)?{_NUMBER}\s*(?:x|×|times|%)"
    rf"|\b(?:{_RANGE}\s*times|twice|half)\s+as\s+(?:long|slow|fast|quick)"
    r"|\b(?:halves|doubles|triples)\s+the\s+(?:\w+\s+)?time\b"
    rf"|\b{_RANGE}\s*(?:%|times)\s+(?:of\s+)?the\s+(?:fit|run|solve)\s+time\b"
    rf"|\btook\s+(?:\w+\s+){{0,2}}{_NUMBER}\s*%?\s+of\s+the\s+(?:fit|run)\b",
    re.IGNORECASE,
)

_PARAMETER_SECTIONS = ("Parameters", "Other Parameters")
_NUMPYDOC_HEADERS = (
    "Parameters|Returns|Yields|Receives|Raises|Warns|Other Parameters"
    "|Attributes|Methods|See Also|Notes|Warnings|References|Examples"
)
_HEADER = re.compile(rf"^({_NUMPYDOC_HEADERS})\n-+\s*$", re.MULTILINE)


def _module_names():
    errors = []
    names = [
        info.name
        for info in pkgutil.walk_packages(
            skcgm.__path__, "skcgm.", onerror=errors.append
        )
    ]
    assert not errors, f"could not walk the packages: {errors}"
    return sorted({"skcgm", *names})


_MODULES = _module_names()


def _import(name):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing in _OPTIONAL:
            pytest.skip(f"{name} needs the optional {missing!r}")
        raise


def _members(owner, qualname, module_name, seen):
    """Yield ``(name, docstring)`` of what ``owner`` defines, recursively."""
    for attr, value in vars(owner).items():
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if isinstance(value, property):
            accessors = [value.fget, value.fset, value.fdel]
            targets = [(f"{qualname}.{attr}", func) for func in accessors if func]
        elif hasattr(value, "func") and type(value).__name__ == "cached_property":
            targets = [(f"{qualname}.{attr}", value.func)]
        else:
            targets = [(f"{qualname}.{attr}", value)]
        for name, obj in targets:
            if id(obj) in seen:
                continue
            if not (inspect.isclass(obj) or inspect.isroutine(obj)):
                continue
            if getattr(obj, "__module__", None) != module_name:
                continue
            seen.add(id(obj))
            doc = obj.__doc__ if isinstance(obj.__doc__, str) else None
            if doc:
                yield name, doc
            if inspect.isclass(obj):
                yield from _members(obj, name, module_name, seen)


def _docstrings(module):
    """``(qualified name, docstring)`` of a module and all it defines."""
    if module.__doc__:
        yield module.__name__, module.__doc__
    yield from _members(module, module.__name__, module.__name__, {id(module)})


def _parameter_entries(doc):
    """``(parameter name, text)`` of the Parameters sections of ``doc``."""
    doc = inspect.cleandoc(doc)
    if NumpyDocString is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                parsed = NumpyDocString(doc)
        except Exception:  # not numpydoc-shaped: parse the sections by hand
            parsed = None
        if parsed is not None:
            for section in _PARAMETER_SECTIONS:
                for param in parsed[section]:
                    text = " ".join([param.type, *param.desc])
                    yield param.name, text
            return
    headers = list(_HEADER.finditer(doc))
    for header, following in zip(headers, [*headers[1:], None]):
        if header.group(1) not in _PARAMETER_SECTIONS:
            continue
        end = following.start() if following else len(doc)
        # The whole section, as one entry: without numpydoc the names are
        # not told apart from the descriptions.
        yield header.group(1), " ".join(doc[header.end() : end].split())


def _excerpt(text, match, width=50):
    start, end = max(match.start() - width, 0), match.end() + width
    return " ".join(text[start:end].split())


def test_modules_found():
    # Guard against an empty walk silently passing.
    assert "skcgm.cluster._sum_of_min_kmeans" in _MODULES
    assert "skcgm.linear_model._local_sensitivity" in _MODULES
    # The compiled kernels are walked too.
    assert "skcgm.utils._magnitude" in _MODULES


@pytest.mark.parametrize("module_name", _MODULES)
def test_docstrings_cite_no_file_outside_the_package(module_name):
    module = _import(module_name)
    offending = [
        f"{name}: {match.group(0)!r} in ...{_excerpt(doc, match)}..."
        for name, doc in _docstrings(module)
        for match in _OUTSIDE_FILE.finditer(doc)
    ]
    if offending:
        pytest.fail(
            "docstrings name files outside the installed package (cite the "
            "user guide instead):\n  " + "\n  ".join(offending),
            pytrace=False,
        )


@pytest.mark.parametrize("module_name", _MODULES)
def test_parameter_docstrings_hold_no_timing(module_name):
    module = _import(module_name)
    offending = [
        f"{name}, parameter {param!r}: {match.group(0)!r} in "
        f"...{_excerpt(text, match)}..."
        for name, doc in _docstrings(module)
        for param, text in _parameter_entries(doc)
        for match in _TIMING.finditer(text)
    ]
    if offending:
        pytest.fail(
            "parameter descriptions quote timings (keep the reason and the "
            "regime, and leave the measurements to the user guide):\n  "
            + "\n  ".join(offending),
            pytrace=False,
        )


@pytest.mark.parametrize(
    "text",
    [
        "about 0.8 s on 10,000 rows",
        "12 ms per pass",
        "3 seconds",
        "40 µs per call",
        "25-30 s per fit",
        "3.2x faster than L-BFGS",
        "2 times slower",
        "a speed-up of 3.2x",
        "a minute and 2 min",
        "takes 7 to 36 times as long as the full-data fit",
        "8 is about twice as slow",
        "128 halves the fit time",
        "at 20 to 30 times the fit time",
        "the passes took a median 5% of the fit",
    ],
)
def test_timing_pattern_matches(text):
    assert _TIMING.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "two passes over the data",
        "3 samples per group",
        "at most 100 iterations",
        ":math:`3 \\times 10^{-5}` in 68 passes",
        "time limit in seconds",
        "float32 keeps 7 significant digits",
    ],
)
def test_timing_pattern_spares(text):
    assert not _TIMING.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "``benchmarks/_defaults_momentum.py``",
        "BENCHMARKS.md",
        "tests/test_common.py",
        "/tmp/run.json",
        "doc/user_guide/gpca.rst",
    ],
)
def test_outside_file_pattern_matches(text):
    assert _OUTSIDE_FILE.search(text)
