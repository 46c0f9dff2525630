"""Fast instances of every estimator for the common estimator checks.

The single home of the parameters used to build fast test instances of every
estimator (``INIT_PARAMS``), in the manner of scikit-learn's
``sklearn/utils/_test_common/instance_generator.py``. The checks each estimator
is expected to fail are public:
:func:`skcgm.utils.estimator_checks.expected_failed_checks`.

``INIT_PARAMS`` is keyed by estimator class. It is built on first access from a
table keyed by class name, through :func:`skcgm.utils.discovery.all_estimators`,
so this module imports even while an estimator listed here does not exist yet.
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
    "MixedMLPRegressor": dict(max_iter=50),
    "SumOfMinKMeans": dict(max_iter=20, n_init=1),
}


def _by_class(table):
    """Re-key ``table`` by the estimator classes that exist now."""
    from .discovery import all_estimators

    classes = dict(all_estimators())
    return {classes[name]: value for name, value in table.items() if name in classes}


def __getattr__(name):
    # PEP 562: INIT_PARAMS is built on first access,
    # once the estimator modules can be imported.
    if name == "INIT_PARAMS":
        value = _by_class(_INIT_PARAMS_BY_NAME)
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
