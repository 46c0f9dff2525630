"""Tests of the EM baseline for mixtures of linear regressions."""

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.stats import norm
from sklearn.base import clone

from skcgm.experiments._baselines import _MixedLinearEM, fit_em_mixed_linear


def _two_lines(n_samples, noise, random_state, intercept=(0.0, 0.0)):
    rng = np.random.RandomState(random_state)
    coef = np.array([[2.0, -1.0], [-1.5, 0.5]])
    X = rng.standard_normal((n_samples, 2))
    labels = rng.rand(n_samples) < 0.3
    labels = labels.astype(int)
    y = (X * coef[labels]).sum(axis=1) + np.asarray(intercept)[labels]
    y += noise * rng.standard_normal(n_samples)
    return X, y, coef, labels


def _matched(true, estimated):
    cost = np.linalg.norm(true[:, None] - estimated[None], axis=2)
    rows, cols = linear_sum_assignment(cost)
    return cols[np.argsort(rows)]


def test_em_recovers_two_well_separated_lines(global_random_seed):
    X, y, coef, labels = _two_lines(400, 0.05, global_random_seed)
    result = fit_em_mixed_linear(X, y, 2, n_init=3, random_state=global_random_seed)
    order = _matched(coef, result.coef)
    # Least squares on the true groups: what EM should reach, up to the soft
    # assignment of the few points near where the lines cross.
    oracle = np.stack(
        [np.linalg.lstsq(X[labels == j], y[labels == j])[0] for j in (0, 1)]
    )
    np.testing.assert_allclose(result.coef[order], oracle, atol=0.01)
    np.testing.assert_allclose(
        result.weights[order], np.bincount(labels) / 400, atol=0.01
    )
    np.testing.assert_allclose(result.sigma, 0.05, rtol=0.2)
    np.testing.assert_array_equal(result.intercept, 0.0)
    assert result.converged


def test_em_fits_intercepts(global_random_seed):
    X, y, coef, _ = _two_lines(400, 0.01, global_random_seed, intercept=(3.0, -2.0))
    result = fit_em_mixed_linear(
        X, y, 2, fit_intercept=True, n_init=3, random_state=global_random_seed
    )
    order = _matched(coef, result.coef)
    np.testing.assert_allclose(result.coef[order], coef, atol=0.01)
    np.testing.assert_allclose(result.intercept[order], [3.0, -2.0], atol=0.01)


def test_em_log_likelihood_matches_scipy_and_never_decreases():
    X, y, _, _ = _two_lines(300, 0.3, 0)
    values = []
    for max_iter in range(8):
        result = fit_em_mixed_linear(X, y, 2, max_iter=max_iter, tol=0, random_state=1)
        assert result.n_iter == max_iter
        # Independent oracle: the mixture density from scipy at the returned
        # parameters.
        density = sum(
            w * norm.pdf(y, loc=X @ c + b, scale=s)
            for w, c, b, s in zip(
                result.weights, result.coef, result.intercept, result.sigma
            )
        )
        assert result.log_likelihood == pytest.approx(np.log(density).mean())
        values.append(result.log_likelihood)
    # EM's monotonicity: each M-step does not decrease the likelihood.
    assert np.all(np.diff(values) >= -1e-12)
    assert values[-1] > values[0]


def test_em_keeps_the_best_of_n_init_and_is_reproducible():
    X, y, _, _ = _two_lines(200, 0.5, 3)
    best = fit_em_mixed_linear(X, y, 3, n_init=4, random_state=7)
    again = fit_em_mixed_linear(X, y, 3, n_init=4, random_state=7)
    np.testing.assert_array_equal(best.coef, again.coef)
    # n_init=1 from the same random_state runs the first of those starts.
    high = np.iinfo(np.int32).max
    rng = np.random.RandomState
    assert rng(7).randint(high, size=4)[0] == rng(7).randint(high, size=1)[0]
    first = fit_em_mixed_linear(X, y, 3, n_init=1, random_state=7)
    assert best.log_likelihood >= first.log_likelihood


def test_em_wrapper_predicts_the_mixture_mean():
    X, y, _, _ = _two_lines(200, 0.05, 0)
    estimator = clone(_MixedLinearEM(2, n_init=2, random_state=0)).fit(X, y)
    components = estimator.predict_components(X[:5])
    assert components.shape == (5, 2)
    np.testing.assert_allclose(components, X[:5] @ estimator.coef_.T)
    np.testing.assert_allclose(
        estimator.predict(X[:5]), components @ estimator.weights_
    )
