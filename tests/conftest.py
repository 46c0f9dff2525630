"""Shared pytest fixtures for the skcgm test suite.

``global_random_seed``
    Parametrized from the ``SKCGM_TESTS_GLOBAL_RANDOM_SEED`` environment variable,
    as scikit-learn's ``SKLEARN_TESTS_GLOBAL_RANDOM_SEED``: unset means 42; an
    integer in [0, 99] runs that seed; ``"a-b"`` runs every seed from a to b
    inclusive; ``"all"`` runs the 100 seeds in [0, 99]. A test using it must
    pass for every seed in [0, 99], so that it is not tuned to one lucky seed
    while staying deterministic by default.
``global_dtype``
    ``np.float64`` and ``np.float32``.
``csr_container``
    ``scipy.sparse.csr_matrix`` and ``scipy.sparse.csr_array``.
``array_container``
    The dense and CSR containers: ``np.asarray``, ``csr_matrix`` and
    ``csr_array``.
``dask_cluster``
    ``dask_cluster(**options)`` opens a two-worker ``distributed.LocalCluster``
    (one process and one thread per worker, as on a real cluster, no
    dashboard) with a client, the default one from then on; ``options`` go to
    the cluster. Every cluster of a module is closed after its last test.
``dask_client``
    The client of one such cluster with the default options, shared by the
    tests of a module (it starts in about 2 s).
``property_settings``
    The hypothesis settings of a property-based test, in two budgets: "ci"
    (derandomized, ``SKCGM_PROPERTY_EXAMPLES`` examples, 100 by default) in the
    default run, and "slow" (500 random examples) behind the ``slow`` marker.
    Use it as ``property_settings(given(...)(check))()``.

Doctests that draw need matplotlib, the optional "plot" extra: without it they
are skipped, as the plotting tests skip themselves.
"""

import importlib.util
import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, settings

_SEED_ENV_VAR = "SKCGM_TESTS_GLOBAL_RANDOM_SEED"
_SEED_RANGE = range(100)
_DEFAULT_SEEDS = [42]


def _global_random_seeds():
    """Seeds selected by ``SKCGM_TESTS_GLOBAL_RANDOM_SEED``."""
    value = os.environ.get(_SEED_ENV_VAR)
    if value is None or value.strip() == "":
        return list(_DEFAULT_SEEDS)
    value = value.strip()
    try:
        if value == "all":
            seeds = list(_SEED_RANGE)
        elif "-" in value:
            start, stop = value.split("-")
            seeds = list(range(int(start), int(stop) + 1))
        else:
            seeds = [int(value)]
    except ValueError:
        seeds = []
    if not seeds or min(seeds) < _SEED_RANGE.start or max(seeds) >= _SEED_RANGE.stop:
        raise ValueError(
            f"The environment variable {_SEED_ENV_VAR} must be an integer in "
            "[0, 99], a range 'a-b' of such integers or 'all', got "
            f"{value!r}."
        )
    return seeds


_DRAWING_DOCTESTS = {"skcgm.experiments._plot.draw"}


def pytest_collection_modifyitems(config, items):
    # Called with every collected item, the package's doctests included.
    if importlib.util.find_spec("matplotlib") is not None:
        return
    skip = pytest.mark.skip(reason='needs matplotlib: pip install "skcgm[plot]"')
    for item in items:
        if item.name in _DRAWING_DOCTESTS:
            item.add_marker(skip)


def pytest_generate_tests(metafunc):
    """Parametrize ``global_random_seed`` from ``SKCGM_TESTS_GLOBAL_RANDOM_SEED``."""
    if "global_random_seed" in metafunc.fixturenames:
        metafunc.parametrize("global_random_seed", _global_random_seeds())


def pytest_report_header(config):
    seeds = _global_random_seeds()
    if len(seeds) > 1:
        shown = f"{seeds[0]}..{seeds[-1]} ({len(seeds)} seeds)"
    else:
        shown = str(seeds[0])
    return f"global_random_seed: {shown} (set {_SEED_ENV_VAR} to change it)"


@pytest.fixture(params=[np.float64, np.float32], ids=["float64", "float32"])
def global_dtype(request):
    """Floating dtypes every algorithm must keep."""
    return request.param


@pytest.fixture(params=[sp.csr_matrix, sp.csr_array], ids=["csr_matrix", "csr_array"])
def csr_container(request):
    """Sparse CSR containers, the legacy matrix and the newer array."""
    return request.param


@pytest.fixture(
    params=[np.asarray, sp.csr_matrix, sp.csr_array],
    ids=["ndarray", "csr_matrix", "csr_array"],
)
def array_container(request):
    """Dense and CSR containers, for estimators that accept sparse input."""
    return request.param


_PROPERTY_EXAMPLES_ENV_VAR = "SKCGM_PROPERTY_EXAMPLES"


@pytest.fixture(
    params=[pytest.param("ci", id="ci"), pytest.param("slow", marks=pytest.mark.slow)]
)
def property_settings(request):
    """Hypothesis settings: derandomized in the default run, 500 examples slow."""
    common = dict(
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    if request.param == "slow":
        return settings(max_examples=500, **common)
    examples = int(os.environ.get(_PROPERTY_EXAMPLES_ENV_VAR, "100"))
    return settings(max_examples=examples, derandomize=True, **common)


@pytest.fixture(scope="module")
def dask_cluster():
    """Factory of two-worker local dask clusters with their clients, closed after
    the module."""
    from contextlib import ExitStack

    distributed = pytest.importorskip("distributed")
    with ExitStack() as stack:

        def start(**options):
            cluster = stack.enter_context(
                distributed.LocalCluster(
                    n_workers=2,
                    threads_per_worker=1,
                    host="127.0.0.1",
                    dashboard_address=None,
                    processes=True,
                    **options,
                )
            )
            return stack.enter_context(distributed.Client(cluster))

        yield start


@pytest.fixture(scope="module")
def dask_client(dask_cluster):
    """A client of a default two-worker cluster, for the tests of a module."""
    return dask_cluster()
