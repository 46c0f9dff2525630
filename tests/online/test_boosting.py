"""Tests of the boosting surrogate: sampler, stochastic gradient, closed form."""

import numpy as np
import pytest
from scipy import integrate, stats

from skcgm.online._boosting import (
    boosted_gradient,
    boosted_quadratic,
    sample_boosting_z,
)


def _z_cdf(z):
    z = np.clip(z, 0.0, 1.0)
    return (np.exp(z - 1.0) - np.exp(-1.0)) / (1.0 - np.exp(-1.0))


def _monotone_dr_quadratic(rng, n_features):
    """H = -sym(U[0,1]) <= 0 and h = -H 1: monotone DR-submodular on [0, 1]^n."""
    M = rng.uniform(size=(n_features, n_features))
    H = -(M + M.T) / 2.0
    return H, -H @ np.ones(n_features)


def test_sample_boosting_z_matches_its_cdf():
    z = sample_boosting_z(random_state=0, size=5000)
    assert z.shape == (5000,)
    assert z.min() >= 0.0 and z.max() <= 1.0
    assert stats.kstest(z, _z_cdf).pvalue > 0.01
    # The test has power: uniform samples are rejected.
    u = np.random.RandomState(0).uniform(size=5000)
    assert stats.kstest(u, _z_cdf).pvalue < 1e-6


def test_sample_boosting_z_mean_is_one_over_e_minus_one():
    z = sample_boosting_z(random_state=1, size=200_000)
    mean = 1.0 / (np.e - 1.0)
    assert abs(z.mean() - mean) < 5 * z.std() / np.sqrt(z.size)
    # The closed-form mean is the integral of z against the density.
    density_mean, _ = integrate.quad(
        lambda t: t * np.exp(t - 1) / (1 - np.exp(-1)), 0, 1
    )
    assert density_mean == pytest.approx(mean, rel=1e-10)


def test_sample_boosting_z_streams_and_shapes():
    assert isinstance(sample_boosting_z(random_state=0), float)
    assert sample_boosting_z(random_state=0) == sample_boosting_z(random_state=0)
    assert sample_boosting_z(random_state=0, size=(2, 3)).shape == (2, 3)
    # One uniform per sample, by inverse CDF.
    u = np.random.RandomState(3).uniform(size=4)
    np.testing.assert_allclose(
        sample_boosting_z(np.random.RandomState(3), size=4), np.log1p(u * (np.e - 1))
    )
    # A Generator is drawn from directly.
    rng = np.random.default_rng(0)
    first = sample_boosting_z(rng)
    assert first == sample_boosting_z(np.random.default_rng(0))
    assert sample_boosting_z(rng) != first


@pytest.mark.parametrize("size", [-1, 1.5, (2, -1), "3"])
def test_sample_boosting_z_rejects_bad_size(size):
    with pytest.raises(ValueError, match="size"):
        sample_boosting_z(0, size=size)


def test_sample_boosting_z_rejects_bad_random_state():
    with pytest.raises(ValueError, match="random_state"):
        sample_boosting_z(random_state="seed")


def test_boosted_gradient_monte_carlo_mean_is_the_closed_form():
    rng = np.random.RandomState(0)
    n_features = 5
    H, h = _monotone_dr_quadratic(rng, n_features)
    x = rng.uniform(size=n_features)
    stream = np.random.RandomState(1)
    samples = np.array(
        [boosted_gradient(lambda q: H @ q + h, x, stream)[0] for _ in range(20_000)]
    )
    expected = H @ x / np.e + (1.0 - 1.0 / np.e) * h
    np.testing.assert_allclose(boosted_quadratic(H, h, x)[1], expected)
    standard_error = samples.std(axis=0) / np.sqrt(samples.shape[0])
    assert np.all(np.abs(samples.mean(axis=0) - expected) < 5 * standard_error)


def test_boosted_gradient_queries_the_shrunk_point_once():
    queries = []

    def grad(q):
        queries.append(q.copy())
        return 2.0 * q

    x = np.array([1.0, -2.0, 0.5])
    x_before = x.copy()
    g, z = boosted_gradient(grad, x, random_state=4)
    assert len(queries) == 1
    assert z == sample_boosting_z(4)
    np.testing.assert_allclose(queries[0], z * x)
    np.testing.assert_allclose(g, (1 - 1 / np.e) * 2.0 * z * x)
    np.testing.assert_array_equal(x, x_before)


def test_boosted_gradient_validates_input():
    with pytest.raises(ValueError, match="grad"):
        boosted_gradient("not callable", np.ones(2))
    with pytest.raises(ValueError, match="shape"):
        boosted_gradient(lambda q: np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="x"):
        boosted_gradient(lambda q: q, np.ones((2, 2)))


def test_boosted_quadratic_matches_the_integral_of_eq_2():
    rng = np.random.RandomState(2)
    H, h = _monotone_dr_quadratic(rng, 4)
    x = rng.uniform(size=4)

    def f(y):
        return 0.5 * y @ H @ y + h @ y

    integral, _ = integrate.quad(lambda z: np.exp(z - 1) / z * f(z * x), 0.0, 1.0)
    value, gradient = boosted_quadratic(H, h, x)
    assert value == pytest.approx(integral, rel=1e-9)
    # The gradient is the derivative of the value.
    step = 1e-6
    numeric = [
        (
            boosted_quadratic(H, h, x + step * e)[0]
            - boosted_quadratic(H, h, x - step * e)[0]
        )
        / (2 * step)
        for e in np.eye(4)
    ]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6)


def test_lemma_2_inequality_8_on_random_points():
    # <y - x, grad F(x)> >= (1 - 1/e) f(y) - f(x) for x, y in [0, 1]^n.
    rng = np.random.RandomState(5)
    for _ in range(20):
        n_features = rng.randint(2, 8)
        H, h = _monotone_dr_quadratic(rng, n_features)
        for _ in range(25):
            x, y = rng.uniform(size=(2, n_features)) * rng.uniform(size=(2, 1))
            _, gradient = boosted_quadratic(H, h, x)
            f_x = 0.5 * x @ H @ x + h @ x
            f_y = 0.5 * y @ H @ y + h @ y
            assert (y - x) @ gradient >= (1 - 1 / np.e) * f_y - f_x - 1e-12


def test_boosted_quadratic_validates_input():
    with pytest.raises(ValueError, match="symmetric"):
        boosted_quadratic([[0.0, 1.0], [0.0, 0.0]], np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="square"):
        boosted_quadratic(np.zeros((2, 3)), np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="h must have 2"):
        boosted_quadratic(np.zeros((2, 2)), np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="x must have 2"):
        boosted_quadratic(np.zeros((2, 2)), np.zeros(2), np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        boosted_quadratic(np.zeros((2, 2)), np.zeros(2), [np.nan, 0.0])
