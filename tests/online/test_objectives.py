"""Tests of the quadratic objective of the online NQP benchmark."""

import numpy as np
import pytest

from skcgm.online._objectives import QuadraticObjective


def _objective(seed=0, n_features=4, noise=0.0):
    rng = np.random.RandomState(seed)
    M = rng.uniform(size=(n_features, n_features))
    H = -(M + M.T) / 2.0
    return QuadraticObjective(H, -H @ np.ones(n_features), noise=noise)


def test_value_and_grad_are_the_quadratic():
    f = _objective()
    x = np.random.RandomState(1).uniform(size=4)
    assert f.value(x) == pytest.approx(0.5 * x @ f.H @ x + f.h @ x)
    assert f.value(np.zeros(4)) == 0.0
    step = 1e-6
    numeric = [
        (f.value(x + step * e) - f.value(x - step * e)) / (2 * step) for e in np.eye(4)
    ]
    np.testing.assert_allclose(f.grad(x), numeric, rtol=1e-6)


def test_stochastic_grad_is_unbiased_and_bounded():
    f = _objective(noise=0.3)
    x = np.full(4, 0.5)
    rng = np.random.RandomState(0)
    samples = np.array([f.stochastic_grad(x, rng) for _ in range(20_000)])
    deviations = np.linalg.norm(samples - f.grad(x), axis=1)
    np.testing.assert_allclose(deviations, 0.3)
    standard_error = samples.std(axis=0) / np.sqrt(samples.shape[0])
    assert np.all(np.abs(samples.mean(axis=0) - f.grad(x)) < 5 * standard_error)
    assert np.linalg.norm(samples, axis=1).max() <= f.grad_bound(np.sqrt(4)) + 1e-12


def test_stochastic_grad_without_noise_is_exact_and_draws_nothing():
    f = _objective(noise=0.0)
    rng = np.random.RandomState(0)
    state = rng.get_state()[1].copy()
    np.testing.assert_array_equal(
        f.stochastic_grad(np.ones(4), rng), f.grad(np.ones(4))
    )
    np.testing.assert_array_equal(rng.get_state()[1], state)


def test_stochastic_grad_streams():
    f = _objective(noise=1.0)
    x = np.ones(4)
    np.testing.assert_array_equal(f.stochastic_grad(x, 3), f.stochastic_grad(x, 3))
    g1 = f.stochastic_grad(x, np.random.default_rng(0))
    g2 = f.stochastic_grad(x, np.random.default_rng(0))
    np.testing.assert_array_equal(g1, g2)


def test_dr_submodularity_and_monotonicity():
    f = _objective()
    assert f.is_dr_submodular()
    assert f.is_monotone_on(1.0)
    # Monotone on [0, 1]^n: the gradient is non-negative at every sampled point.
    X = np.random.RandomState(2).uniform(size=(200, 4))
    assert np.all(X @ f.H + f.h >= -1e-12)
    not_dr = QuadraticObjective(np.eye(2), np.zeros(2))
    assert not not_dr.is_dr_submodular()
    assert not not_dr.is_monotone_on(1.0)
    decreasing = QuadraticObjective(-np.eye(2), 0.5 * np.ones(2))
    assert decreasing.is_dr_submodular()
    assert decreasing.is_monotone_on(0.5)
    assert not decreasing.is_monotone_on(1.0)


def test_lipschitz_is_the_spectral_norm():
    f = _objective()
    assert f.lipschitz == pytest.approx(np.abs(np.linalg.eigvalsh(f.H)).max())
    x, y = np.random.RandomState(3).uniform(size=(2, 4))
    assert (
        np.linalg.norm(f.grad(x) - f.grad(y))
        <= f.lipschitz * np.linalg.norm(x - y) + 1e-12
    )


def test_inputs_are_copied_not_modified():
    H = -np.eye(3)
    h = np.ones(3)
    f = QuadraticObjective(H, h)
    H[0, 0] = 5.0
    h[0] = 7.0
    assert f.H[0, 0] == -1.0 and f.h[0] == 1.0
    x = np.ones(3)
    f.grad(x)[0] = 100.0
    np.testing.assert_array_equal(x, np.ones(3))
    assert "n_features=3" in repr(f)


@pytest.mark.parametrize(
    "H, h, noise, match",
    [
        ([[0.0, 1.0], [0.0, 0.0]], [0.0, 0.0], 0.0, "symmetric"),
        ([[0.0, 0.0]], [0.0], 0.0, "square"),
        (np.eye(2), [0.0], 0.0, "h must have 2"),
        (np.eye(2), [0.0, 0.0], -1.0, "noise"),
        (np.eye(2), [0.0, 0.0], np.inf, "noise"),
        ([[np.nan, 0], [0, 0]], [0.0, 0.0], 0.0, "finite"),
    ],
)
def test_bad_input_raises(H, h, noise, match):
    with pytest.raises(ValueError, match=match):
        QuadraticObjective(H, h, noise=noise)


def test_bad_point_raises():
    f = _objective()
    with pytest.raises(ValueError, match="x must have 4"):
        f.value(np.ones(3))
    with pytest.raises(ValueError, match="radius"):
        f.grad_bound(-1.0)
