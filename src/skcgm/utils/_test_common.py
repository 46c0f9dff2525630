"""Instances and expected failures for the common estimator checks.

The single home of the parameters used to build fast test instances of every
estimator (``INIT_PARAMS``) and of the scikit-learn checks each estimator is
known to fail (``EXPECTED_FAILED_CHECKS``), in the manner of scikit-learn's
``sklearn/utils/_test_common/instance_generator.py``.

Both dictionaries are keyed by estimator class. They are built on first access
from tables keyed by class name, through
:func:`skcgm.utils.discovery.all_estimators`, so this module imports even while
an estimator listed here does not exist yet.

Only the sample-weight equivalence checks of stochastic fits may be listed in
``EXPECTED_FAILED_CHECKS`` without further argument; anything else needs a
tracking issue. pytest runs with ``xfail_strict = true``, so an entry whose
check starts passing turns the suite red and must be removed.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

# Fast constructor parameters, by class name. Small data, few iterations: the
# common checks only test the API, not the quality of the optimum.
_INIT_PARAMS_BY_NAME = {
    "GPCAClusterer": dict(max_iter=20),
    "KernelHerdingSampler": dict(n_samples=10),
    "MixedLinearRegressor": dict(max_iter=20),
    "SumOfMinKMeans": dict(max_iter=20, n_init=1),
}

# Reason shared by the sample-weight equivalence checks of stochastic fits.
_SEEDING_DRAWS_DIFFER = (
    "k-means++ seeding draws from the weighted samples: a repeated sample "
    "and its integer weight give different random draws, so the fits differ "
    "(sklearn lists the same expected failure for KMeans)."
)

# {class name: {check name: one-line reason}}.
_EXPECTED_FAILED_CHECKS_BY_NAME = {
    "GPCAClusterer": {
        "check_sample_weight_equivalence_on_dense_data": _SEEDING_DRAWS_DIFFER,
        "check_sample_weight_equivalence_on_sparse_data": _SEEDING_DRAWS_DIFFER,
    },
    "MixedLinearRegressor": {
        "check_sample_weight_equivalence_on_dense_data": _SEEDING_DRAWS_DIFFER,
    },
    "SumOfMinKMeans": {
        "check_sample_weight_equivalence_on_dense_data": _SEEDING_DRAWS_DIFFER,
        "check_sample_weight_equivalence_on_sparse_data": _SEEDING_DRAWS_DIFFER,
    },
}


def _by_class(table):
    """Re-key ``table`` by the estimator classes that exist now."""
    from .discovery import all_estimators

    classes = dict(all_estimators())
    return {classes[name]: value for name, value in table.items() if name in classes}


def __getattr__(name):
    # PEP 562: INIT_PARAMS and EXPECTED_FAILED_CHECKS are built on first access,
    # once the estimator modules can be imported.
    if name == "INIT_PARAMS":
        value = _by_class(_INIT_PARAMS_BY_NAME)
    elif name == "EXPECTED_FAILED_CHECKS":
        value = _by_class(_EXPECTED_FAILED_CHECKS_BY_NAME)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def _construct_instance(Estimator):
    """An instance of ``Estimator`` built with its fast test parameters."""
    return Estimator(**_INIT_PARAMS_BY_NAME.get(Estimator.__name__, {}))


def _tested_estimators(type_filter=None):
    """Yield one fast instance of every estimator of skcgm.

    Parameters
    ----------
    type_filter : str or list of str, default=None
        Passed to :func:`skcgm.utils.discovery.all_estimators`.

    Yields
    ------
    estimator : estimator instance
        A fresh instance built with the parameters of ``INIT_PARAMS``.
    """
    from .discovery import all_estimators

    for _, Estimator in all_estimators(type_filter=type_filter):
        yield _construct_instance(Estimator)


def _expected_failed_checks(estimator):
    """The checks ``estimator`` is expected to fail, with their reasons.

    Parameters
    ----------
    estimator : estimator instance
        The estimator under test.

    Returns
    -------
    failed_checks : dict
        ``{check name: reason}``; empty when every check should pass.
    """
    return dict(_EXPECTED_FAILED_CHECKS_BY_NAME.get(type(estimator).__name__, {}))
