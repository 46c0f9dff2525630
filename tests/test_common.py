"""scikit-learn's common checks on every estimator of skcgm.

As in ``sklearn/tests/test_common.py``: ``parametrize_with_checks`` over one
fast instance of every estimator found by
:func:`skcgm.utils.discovery.all_estimators`, then the checks that
``parametrize_with_checks`` does not yield, run directly.
"""

import warnings
from importlib import import_module

import pytest
from scipy.linalg import LinAlgWarning
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import (
    check_dataframe_column_names_consistency,
    check_estimator,
    check_get_feature_names_out_error,
    check_global_output_transform_pandas,
    check_param_validation,
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
    parametrize_with_checks,
)

import skcgm
from skcgm.utils._test_common import INIT_PARAMS, _tested_estimators
from skcgm.utils.discovery import all_estimators
from skcgm.utils.estimator_checks import expected_failed_checks

# Warnings the checks trigger on purpose (one sample, constant data, ...).
_CHECK_WARNINGS = (FutureWarning, ConvergenceWarning, UserWarning, LinAlgWarning)


def _estimator_id(estimator):
    return type(estimator).__name__


def _run_check(check, estimator, request, ignore=_CHECK_WARNINGS):
    """Run ``check`` on ``estimator``, honouring its expected failures."""
    reason = expected_failed_checks(estimator).get(check.__name__)
    if reason is not None:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    with warnings.catch_warnings():
        for category in ignore:
            warnings.simplefilter("ignore", category)
        check(type(estimator).__name__, estimator)


# xfail_strict = true in pyproject.toml: parametrize_with_checks marks every
# expected failure strict, so a listed check that starts passing fails the run.
# (No xfail_strict= keyword: scikit-learn 1.7, the floor, does not have it.)
@parametrize_with_checks(
    list(_tested_estimators()), expected_failed_checks=expected_failed_checks
)
def test_sklearn_compatible_estimator(estimator, check):
    with warnings.catch_warnings():
        for category in _CHECK_WARNINGS:
            warnings.simplefilter("ignore", category)
        check(estimator)


@pytest.mark.parametrize(
    "Estimator",
    [Estimator for _, Estimator in all_estimators()],
    ids=[name for name, _ in all_estimators()],
)
def test_check_estimator_with_published_expected_failures(Estimator):
    # What a user runs in a plain script: the default instance, scikit-learn's
    # check_estimator and skcgm's published expected failures, nothing else.
    estimator = Estimator()
    with warnings.catch_warnings():
        for category in _CHECK_WARNINGS:
            warnings.simplefilter("ignore", category)
        results = check_estimator(
            estimator,
            expected_failed_checks=expected_failed_checks(estimator),
            on_skip=None,
            on_fail=None,
        )
    failed = {
        result["check_name"]: repr(result["exception"])
        for result in results
        if result["status"] == "failed"
    }
    assert not failed


def test_expected_failed_checks_of_foreign_estimators_is_empty():
    from sklearn.cluster import KMeans

    assert expected_failed_checks(KMeans()) == {}


@pytest.mark.parametrize(
    "Estimator",
    [Estimator for _, Estimator in all_estimators()],
    ids=[name for name, _ in all_estimators()],
)
def test_expected_failed_checks_have_reasons(Estimator):
    for check_name, reason in expected_failed_checks(Estimator()).items():
        assert check_name.startswith("check_")
        assert isinstance(reason, str) and len(reason) > 20


# The checks below are not yielded by parametrize_with_checks; scikit-learn and
# imbalanced-learn run them directly.
@pytest.mark.parametrize("estimator", list(_tested_estimators()), ids=_estimator_id)
def test_check_param_validation(estimator, request):
    _run_check(check_param_validation, estimator, request)


@pytest.mark.parametrize("estimator", list(_tested_estimators()), ids=_estimator_id)
def test_pandas_column_name_consistency(estimator, request):
    pytest.importorskip("pandas")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        _run_check(
            check_dataframe_column_names_consistency,
            estimator,
            request,
            ignore=(FutureWarning, ConvergenceWarning),
        )
    for warning in record:
        assert "was fitted without feature names" not in str(warning.message)


_TRANSFORMERS = list(_tested_estimators(type_filter="transformer"))


@pytest.mark.parametrize("estimator", _TRANSFORMERS, ids=_estimator_id)
@pytest.mark.parametrize(
    "check",
    [
        check_transformer_get_feature_names_out,
        check_transformer_get_feature_names_out_pandas,
        check_get_feature_names_out_error,
    ],
    ids=lambda check: check.__name__,
)
def test_transformer_get_feature_names_out(estimator, check, request):
    _run_check(check, estimator, request)


@pytest.mark.parametrize("estimator", _TRANSFORMERS, ids=_estimator_id)
@pytest.mark.parametrize(
    "check",
    [
        check_set_output_transform,
        check_set_output_transform_pandas,
        check_global_output_transform_pandas,
    ],
    ids=lambda check: check.__name__,
)
def test_set_output_transform(estimator, check, request):
    _run_check(check, estimator, request)


def test_all_estimators_finds_sum_of_min_kmeans():
    from skcgm.cluster import SumOfMinKMeans

    estimators = all_estimators()
    assert ("SumOfMinKMeans", SumOfMinKMeans) in estimators
    assert ("SumOfMinKMeans", SumOfMinKMeans) in all_estimators(type_filter="cluster")
    assert ("SumOfMinKMeans", SumOfMinKMeans) in all_estimators(
        type_filter=["classifier", "transformer"]
    )
    assert ("SumOfMinKMeans", SumOfMinKMeans) not in all_estimators(
        type_filter="regressor"
    )
    assert issubclass(SumOfMinKMeans, ClusterMixin)
    assert issubclass(SumOfMinKMeans, TransformerMixin)


def test_all_estimators_sorted_public_concrete():
    estimators = all_estimators()
    names = [name for name, _ in estimators]
    assert names == sorted(names)
    assert len(set(names)) == len(names), "two estimators share a name"
    for name, Estimator in estimators:
        assert not name.startswith("_")
        assert not name.lower().startswith("base"), f"{name} is a base class"
        assert issubclass(Estimator, BaseEstimator)
        assert Estimator.__module__.startswith("skcgm.")


def test_all_estimators_rejects_unknown_type_filter():
    with pytest.raises(ValueError, match="type_filter must be"):
        all_estimators(type_filter="sampler")
    with pytest.raises(ValueError, match="type_filter must be"):
        all_estimators(type_filter=["cluster", "sampler"])


def test_init_params_cover_tested_estimators():
    # Every key of INIT_PARAMS is a discovered estimator, and its fast
    # parameters are real constructor parameters.
    discovered = {Estimator for _, Estimator in all_estimators()}
    for Estimator, params in INIT_PARAMS.items():
        assert Estimator in discovered
        assert set(params) <= set(Estimator().get_params())


def _public_subpackage(module_name):
    """``skcgm.cluster`` for ``skcgm.cluster._sum_of_min_kmeans``."""
    parts = module_name.split(".")
    public = [parts[0]]
    for part in parts[1:]:
        if part.startswith("_"):
            break
        public.append(part)
    return ".".join(public)


@pytest.mark.parametrize(
    "name, Estimator", all_estimators(), ids=[name for name, _ in all_estimators()]
)
def test_estimator_importable_from_its_subpackage(name, Estimator):
    subpackage_name = _public_subpackage(Estimator.__module__)
    assert subpackage_name != "skcgm", (
        f"{name} is defined in {Estimator.__module__}, outside any subpackage"
    )
    subpackage = import_module(subpackage_name)
    assert getattr(subpackage, name, None) is Estimator, (
        f"{name} is not importable from {subpackage_name}"
    )
    assert name in getattr(subpackage, "__all__", ()), (
        f"{name} is missing from {subpackage_name}.__all__"
    )
    # The estimators are re-exported at the top level (ARCHITECTURE.md).
    assert getattr(skcgm, name, None) is Estimator, f"skcgm.{name} is missing"
    assert name in skcgm.__all__, f"{name} is missing from skcgm.__all__"
