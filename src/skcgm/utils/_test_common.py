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
    "CompAdaGradClassifier": dict(batch_size=8, max_iter=20),
    "GPCAClusterer": dict(max_iter=20),
    "KernelHerdingSampler": dict(n_samples=10),
    # Half the rows per round, few inner steps and a loose gradient tolerance:
    # check_class_weight_classifiers (max_iter=1000, n_iter_no_change=20) fits
    # unscaled blobs with class weights 1000 and 1e-4, whose unpenalized
    # intercept keeps growing; with 10% of 50 rows (5 draws) per round the
    # noise-floor rule stops some seeds short of its accuracy threshold.
    # max_iter=10 keeps the sparse checks (4 one-vs-rest problems in a dozen
    # sparse formats) at about 2 s; accuracy on the blobs is still >= 0.9.
    "LocalSensitivityLogistic": dict(
        sample_size=0.5, max_iter=10, tol=1e-2, max_inner_iter=20
    ),
    "MixedLinearRegressor": dict(max_iter=20),
    "SumOfMinKMeans": dict(max_iter=20, n_init=1),
}

# Reason shared by the sample-weight equivalence checks of stochastic fits.
_SEEDING_DRAWS_DIFFER = (
    "k-means++ seeding draws from the weighted samples: a repeated sample "
    "and its integer weight give different random draws, so the fits differ "
    "(sklearn lists the same expected failure for KMeans)."
)

# Reason of the same checks for the AdaGrad family.
_ADAGRAD_NOT_LINEAR_IN_WEIGHTS = (
    "a weight scales a sample's gradient, whose square enters the AdaGrad "
    "preconditioner: one step with weight 2 is not two steps on a repeated "
    "sample, and shuffled mini-batches differ (sklearn lists the same "
    "expected failure for SGDClassifier)."
)

# Reason of the same checks for importance sampling.
_IMPORTANCE_SAMPLING_DRAWS_DIFFER = (
    "rows are drawn from the n_samples rows with probabilities proportional to "
    "their weighted sensitivities: a repeated row and its integer weight give "
    "the same objective but different draws, so the fits agree only in "
    "expectation (and at convergence with sampling='full')."
)

# {class name: {check name: one-line reason}}.
_EXPECTED_FAILED_CHECKS_BY_NAME = {
    "CompAdaGradClassifier": {
        "check_sample_weight_equivalence_on_dense_data": (
            _ADAGRAD_NOT_LINEAR_IN_WEIGHTS
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            _ADAGRAD_NOT_LINEAR_IN_WEIGHTS
        ),
    },
    "GPCAClusterer": {
        "check_sample_weight_equivalence_on_dense_data": _SEEDING_DRAWS_DIFFER,
        "check_sample_weight_equivalence_on_sparse_data": _SEEDING_DRAWS_DIFFER,
    },
    "LocalSensitivityLogistic": {
        "check_sample_weight_equivalence_on_dense_data": (
            _IMPORTANCE_SAMPLING_DRAWS_DIFFER
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            _IMPORTANCE_SAMPLING_DRAWS_DIFFER
        ),
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
