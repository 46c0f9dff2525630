"""Tests of importance sampling with unbiased weights (Definition 2)."""

import numpy as np
import pytest

from skcgm.oracles import LogisticLoss, importance_sample, ridge_leverage_scores
from skcgm.oracles._sampling import _poisson_inclusion


def test_importance_sample_weights_are_counts_over_m_p():
    p = np.array([0.4, 0.3, 0.2, 0.1, 0.0])
    m = 50
    indices, weights = importance_sample(p, m, random_state=0)
    # The same draws, by hand.
    draws = np.random.RandomState(0).choice(5, size=m, replace=True, p=p)
    counts = np.bincount(draws, minlength=5)
    np.testing.assert_array_equal(indices, np.flatnonzero(counts))
    np.testing.assert_allclose(weights, counts[indices] / (m * p[indices]))
    assert np.all(np.diff(indices) > 0)
    assert indices.dtype == np.intp
    assert 4 not in indices  # p = 0 is never drawn
    np.testing.assert_allclose(np.sum(weights * p[indices]), 1.0)


def test_importance_sample_normalizes_scores():
    scores = np.array([4.0, 3.0, 2.0, 1.0])
    a = importance_sample(scores, 20, random_state=1)
    b = importance_sample(scores / scores.sum(), 20, random_state=1)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_allclose(a[1], b[1])


def _logistic_problem(seed=0, n=300, d=4):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d)) * np.exp(rng.standard_normal((n, 1)))
    y = np.sign(X @ rng.standard_normal(d) + rng.standard_normal(n))
    return y[:, None] * X, rng.standard_normal(d)


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("distribution", ["uniform", "leverage", "skewed"])
def test_importance_sampling_is_unbiased(distribution, replace):
    # Mean over seeds of F^{(P,m)}(x) (eq. 2) within 3 standard errors of F(x).
    A, x = _logistic_problem()
    n = A.shape[0]
    loss, alpha = LogisticLoss(), 0.1
    values = loss.value(A @ x)
    full = values.mean() + 0.5 * alpha * x @ x
    if distribution == "uniform":
        p = np.full(n, 1.0 / n)
    elif distribution == "leverage":
        p = ridge_leverage_scores(A, 1.0)
    else:
        # A skewed distribution unrelated to the values.
        p = np.random.RandomState(1).exponential(size=n) ** 2
    estimates = []
    for seed in range(1000):
        indices, weights = importance_sample(p, 30, random_state=seed, replace=replace)
        estimates.append(weights @ values[indices] / n + 0.5 * alpha * x @ x)
    estimates = np.asarray(estimates)
    standard_error = estimates.std(ddof=1) / np.sqrt(estimates.size)
    assert abs(estimates.mean() - full) <= 3 * standard_error
    assert standard_error > 0


def test_poisson_inclusion_probabilities_sum_to_m_and_are_capped():
    p = np.array([0.5, 0.2, 0.1, 0.1, 0.05, 0.05, 0.0])
    for m in range(1, 7):
        pi = _poisson_inclusion(p, m)
        np.testing.assert_allclose(pi.sum(), m)
        assert np.all((pi >= 0) & (pi <= 1))
        assert pi[-1] == 0
        # Proportional to p below the cap.
        free = pi < 1
        if not np.any(free & (p > 0)):
            continue
        ratios = pi[free & (p > 0)] / p[free & (p > 0)]
        np.testing.assert_allclose(ratios, ratios[0])


def test_importance_sample_without_replacement_has_distinct_indices_of_size_m():
    p = np.random.RandomState(2).exponential(size=200)
    sizes = []
    for seed in range(300):
        indices, weights = importance_sample(p, 40, random_state=seed, replace=False)
        assert np.all(np.diff(indices) > 0)
        assert np.all(weights >= 1)
        sizes.append(indices.size)
    np.testing.assert_allclose(
        np.mean(sizes), 40, atol=3 * np.std(sizes) / np.sqrt(300)
    )


def test_importance_sample_is_reproducible_and_does_not_modify_p():
    p = np.random.RandomState(3).uniform(size=50)
    p_copy = p.copy()
    first = importance_sample(p, 25, random_state=np.random.RandomState(7))
    again = importance_sample(p, 25, random_state=7)
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])
    np.testing.assert_array_equal(p, p_copy)


@pytest.mark.parametrize(
    "p, m, kwargs, match",
    [
        ([0.5, -0.1, 0.6], 2, {}, "'p'"),
        ([0.5, np.nan, 0.5], 2, {}, "'p'"),
        ([0.0, 0.0], 2, {}, "'p'"),
        ([[0.5, 0.5]], 2, {}, "'p'"),
        ([], 2, {}, "'p'"),
        ([0.5, 0.5], 0, {}, "'m'"),
        ([0.5, 0.5], 1.5, {}, "'m'"),
        ([0.5, 0.5, 0.0], 3, {"replace": False}, "'m'"),
        ([0.5, 0.5], 1, {"replace": "yes"}, "'replace'"),
    ],
)
def test_importance_sample_bad_input_names_the_parameter(p, m, kwargs, match):
    with pytest.raises(ValueError, match=match):
        importance_sample(p, m, **kwargs)


@pytest.mark.parametrize("seed", range(3))
def test_importance_sample_draws_are_those_of_rng_choice(seed):
    # The sorted-uniform search is the inverse CDF of the same uniforms as
    # RandomState.choice: same distinct indices and counts, zeros never drawn.
    rng = np.random.RandomState(seed)
    p = rng.exponential(size=5000) * (rng.uniform(size=5000) > 0.2)
    p /= p.sum()
    indices, weights = importance_sample(p, 3000, random_state=seed)
    draws = np.random.RandomState(seed).choice(5000, size=3000, replace=True, p=p)
    expected, counts = np.unique(draws, return_counts=True)
    np.testing.assert_array_equal(indices, expected)
    np.testing.assert_allclose(weights, counts / (3000 * p[expected]), rtol=1e-15)
    assert np.all(p[indices] > 0)
