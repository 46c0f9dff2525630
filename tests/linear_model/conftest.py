"""Fixtures of the linear model tests: checks shared by several estimators."""

import numpy as np
import pytest
from numpy.testing import assert_allclose


def _check_csr_equals_dense(Estimator, params, X, y, csr_container):
    """``Estimator(**params)`` fitted on CSR and dense ``X``: the same model."""
    dense = Estimator(**params).fit(X, y)
    sparse = Estimator(**params).fit(csr_container(X), y)
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)
    assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-10, atol=1e-12)
    assert_allclose(
        sparse.decision_function(csr_container(X)), dense.decision_function(X)
    )


def _check_warm_start_needs_the_same_problem(warm, X, y):
    """A warm-started fit refuses fewer features and fewer classes (``y`` with
    classes 0, 1 and 2: the 2s become 1s)."""
    with pytest.raises(ValueError, match="warm_start"):
        warm.fit(X[:, :4], y)
    with pytest.raises(ValueError, match="warm_start"):
        warm.fit(X, np.where(y == 2, 1, y))


@pytest.fixture
def check_csr_equals_dense():
    """``check_csr_equals_dense(Estimator, params, X, y, csr_container)``:
    fits on ``csr_container(X)`` and on ``X`` give the same coefficients,
    intercepts and decision values."""
    return _check_csr_equals_dense


@pytest.fixture
def check_warm_start_needs_the_same_problem():
    """``check_warm_start_needs_the_same_problem(warm, X, y)``: the fitted
    warm-started ``warm`` refuses other features or classes with a
    ValueError naming warm_start."""
    return _check_warm_start_needs_the_same_problem
