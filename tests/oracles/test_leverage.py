"""Tests of the exact and sketched ridge leverage scores."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from skcgm.oracles import ridge_leverage_scores


def _brute_force(A, ridge):
    """Diagonal of the ridge hat matrix A (A^T A + D)^{-1} A^T by np.linalg.solve."""
    A = np.asarray(A, dtype=np.float64)
    D = np.diag(np.broadcast_to(np.asarray(ridge, dtype=float), (A.shape[1],)))
    return np.einsum("ij,ji->i", A, np.linalg.solve(A.T @ A + D, A.T))


def _data(seed, n=120, p=6):
    rng = np.random.RandomState(seed)
    # Heavy-tailed row scales and badly scaled columns: a few rows with
    # leverage near 1, the others small.
    return (
        rng.standard_normal((n, p))
        * np.exp(rng.standard_normal((n, 1)))
        * (np.logspace(-2, 2, p))
    )


@pytest.mark.parametrize("ridge", [1e-6, 1e-2, 1.0, 100.0])
def test_ridge_leverage_equals_hat_matrix_diagonal(ridge, global_random_seed):
    A = _data(global_random_seed)
    scores = ridge_leverage_scores(A, ridge)
    np.testing.assert_allclose(scores, _brute_force(A, ridge), rtol=0, atol=1e-10)


@pytest.mark.parametrize("ridge", [1e-3, 1.0, 30.0])
def test_ridge_leverage_sum_is_effective_dimension(ridge):
    A = _data(1, n=200, p=8)
    gram = A.T @ A
    effective_dimension = np.trace(gram @ np.linalg.inv(gram + ridge * np.eye(8)))
    scores = ridge_leverage_scores(A, ridge)
    np.testing.assert_allclose(scores.sum(), effective_dimension, rtol=1e-10)
    assert np.all((scores >= 0) & (scores <= 1))
    assert scores.sum() <= 8


def test_ridge_leverage_is_the_sensitivity_of_the_ridge_objective():
    # Lemma 17: l_i = max_z (c_i^T z)^2 / (||Cz||^2 + lambda ||z||^2), attained
    # at z = (C^T C + lambda I)^{-1} c_i; random z never exceed it.
    rng = np.random.RandomState(0)
    C, lam = rng.standard_normal((30, 4)), 0.7
    scores = ridge_leverage_scores(C, lam)
    Z = rng.standard_normal((4, 5000))
    ratios = (C @ Z) ** 2 / (np.sum((C @ Z) ** 2, axis=0) + lam * np.sum(Z**2, axis=0))
    assert np.all(ratios.max(axis=1) <= scores + 1e-12)
    for i in range(3):
        z = np.linalg.solve(C.T @ C + lam * np.eye(4), C[i])
        ratio = (C[i] @ z) ** 2 / (np.sum((C @ z) ** 2) + lam * z @ z)
        np.testing.assert_allclose(ratio, scores[i], rtol=1e-12)


def test_ridge_leverage_scaling_identity():
    # l^lambda(s C) = l^{lambda / s^2}(C) (note 003, Section 1.5).
    C = _data(2, n=50, p=5)
    np.testing.assert_allclose(
        ridge_leverage_scores(3.0 * C, 2.0),
        ridge_leverage_scores(C, 2.0 / 9.0),
        rtol=1e-10,
    )


@pytest.mark.parametrize("delta", [1.0, 1e-2, 1e-4])
def test_per_column_ridge_equals_delta_scaled_column_form(delta):
    # Erratum T6: the leverage of [B, v / delta] with ridge lambda I equals
    # the leverage of [B, v] with ridge diag(lambda I, lambda delta^2).
    rng = np.random.RandomState(3)
    B, v, lam = rng.standard_normal((40, 3)), rng.standard_normal(40), 0.5
    scaled = ridge_leverage_scores(np.column_stack([B, v / delta]), lam)
    finite = ridge_leverage_scores(
        np.column_stack([B, v]), [lam] * 3 + [lam * delta**2]
    )
    np.testing.assert_allclose(finite, scaled, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(
        finite,
        _brute_force(np.column_stack([B, v]), [lam] * 3 + [lam * delta**2]),
        atol=1e-10,
    )


def test_per_column_ridge_is_continuous_at_delta_zero():
    # At delta = 0 the scaled form is undefined; the per-column form is
    # finite and the limit of delta -> 0.
    rng = np.random.RandomState(4)
    C, lam = rng.standard_normal((40, 4)), 0.5
    at_zero = ridge_leverage_scores(C, [lam, lam, lam, 0.0])
    assert np.all(np.isfinite(at_zero))
    near_zero = ridge_leverage_scores(C, [lam, lam, lam, lam * 1e-8])
    np.testing.assert_allclose(at_zero, near_zero, atol=1e-7)
    np.testing.assert_allclose(
        at_zero, _brute_force(C, [lam, lam, lam, 0.0]), atol=1e-10
    )


def test_ridge_leverage_with_zero_ridge_is_the_plain_leverage():
    # diag(Q Q^T) from a thin QR.
    C = _data(5, n=60, p=5)
    Q, _ = np.linalg.qr(C)
    np.testing.assert_allclose(
        ridge_leverage_scores(C, np.zeros(5)), np.sum(Q**2, axis=1), atol=1e-10
    )


def test_ridge_leverage_of_a_tiny_column_is_accurate():
    # A column many orders of magnitude smaller than the others (the extra
    # column of the local-sensitivity matrix far from the decision boundary)
    # with zero ridge: the equilibrated Cholesky keeps the Schur complement.
    rng = np.random.RandomState(6)
    C = np.column_stack([rng.standard_normal((50, 3)), 1e-9 * rng.standard_normal(50)])
    ridge = [1.0, 1.0, 1.0, 0.0]
    np.testing.assert_allclose(
        ridge_leverage_scores(C, ridge), _brute_force(C, ridge), atol=1e-8
    )


def test_ridge_leverage_sparse_and_float32_match_dense(csr_container, global_dtype):
    A = _data(7, n=80, p=5)
    A[np.abs(A) < np.median(np.abs(A))] = 0.0
    expected = _brute_force(A, 0.3)
    scores = ridge_leverage_scores(csr_container(A.astype(global_dtype)), 0.3)
    atol = 1e-10 if global_dtype == np.float64 else 1e-5
    np.testing.assert_allclose(scores, expected, atol=atol)
    assert scores.dtype == np.float64
    np.testing.assert_allclose(
        ridge_leverage_scores(A.astype(global_dtype), 0.3), expected, atol=atol
    )


def test_ridge_leverage_chunked_over_many_rows_matches_brute_force():
    # More rows than one block (2**17 elements): several threaded blocks.
    rng = np.random.RandomState(8)
    A = rng.standard_normal((30000, 7))
    np.testing.assert_allclose(
        ridge_leverage_scores(A, 2.0), _brute_force(A, 2.0), atol=1e-12
    )


@pytest.mark.parametrize("n, p", [(4000, 12), (4000, 80)])
def test_sketched_leverage_within_factor_two_of_exact(n, p):
    # Stated guarantee, fixed seed: >= 95% of the rows within [1/2, 2] of
    # the exact scores (p = 80 exercises the JL projection, k = 67 < p).
    rng = np.random.RandomState(9)
    A = rng.standard_normal((n, p)) * np.exp(rng.standard_normal((n, 1)))
    exact = ridge_leverage_scores(A, 1.0)
    sketched = ridge_leverage_scores(A, 1.0, method="sketch", random_state=0)
    ratio = sketched / exact
    assert np.mean((ratio >= 0.5) & (ratio <= 2.0)) >= 0.95
    # And the effective dimension within 10%.
    np.testing.assert_allclose(sketched.sum(), exact.sum(), rtol=0.1)


def test_sketched_leverage_sparse_input(csr_container):
    A = sp.random(5000, 10, density=0.3, format="csr", random_state=10)
    A = csr_container(A)
    exact = ridge_leverage_scores(A, 0.1)
    sketched = ridge_leverage_scores(A, 0.1, method="sketch", random_state=0)
    rows = exact > 0
    ratio = sketched[rows] / exact[rows]
    assert np.mean((ratio >= 0.5) & (ratio <= 2.0)) >= 0.95
    assert np.all(sketched[~rows] == 0)


def test_sketched_leverage_is_reproducible_and_seed_dependent():
    A = _data(11, n=3000, p=40)
    first = ridge_leverage_scores(A, 1.0, method="sketch", random_state=3)
    again = ridge_leverage_scores(A, 1.0, method="sketch", random_state=3)
    other = ridge_leverage_scores(A, 1.0, method="sketch", random_state=4)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_sketch_with_enough_rows_and_small_p_is_exact():
    # n_components >= n skips the CountSketch, k >= p skips the projection.
    A = _data(12, n=100, p=5)
    np.testing.assert_allclose(
        ridge_leverage_scores(A, 0.5, method="sketch", n_components=100),
        ridge_leverage_scores(A, 0.5),
        atol=1e-12,
    )


def test_ridge_leverage_does_not_modify_its_input():
    A = _data(13, n=50, p=4)
    ridge = np.array([1.0, 0.5, 0.0, 2.0])
    A_copy, ridge_copy = A.copy(), ridge.copy()
    ridge_leverage_scores(A, ridge)
    ridge_leverage_scores(A, ridge, method="sketch", random_state=0)
    np.testing.assert_array_equal(A, A_copy)
    np.testing.assert_array_equal(ridge, ridge_copy)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"ridge": 0.0}, "ridge"),
        ({"ridge": -1.0}, "ridge"),
        ({"ridge": np.ones(3)}, "ridge"),
        ({"ridge": [1.0, -1.0, 1.0, 1.0]}, "ridge"),
        ({"ridge": [1.0, np.nan, 1.0, 1.0]}, "ridge"),
        ({"ridge": 1.0, "method": "qr"}, "method"),
        ({"ridge": 1.0, "method": "sketch", "n_components": 0}, "n_components"),
    ],
)
def test_ridge_leverage_bad_input_names_the_parameter(kwargs, match):
    A = _data(14, n=20, p=4)
    with pytest.raises(ValueError, match=match):
        ridge_leverage_scores(A, **kwargs)


def test_ridge_leverage_singular_gram_with_zero_ridge_raises():
    A = np.ones((10, 2))  # two identical columns
    with pytest.raises(ValueError, match="not positive definite"):
        ridge_leverage_scores(A, [0.0, 0.0])
    with pytest.raises(ValueError, match="not positive definite"):
        ridge_leverage_scores(A, [0.0, 0.0], method="sketch", random_state=0)
    # A positive ridge on one of them is enough.
    np.testing.assert_allclose(
        ridge_leverage_scores(A, [0.0, 1.0]), _brute_force(A, [0.0, 1.0]), atol=1e-10
    )


def test_sketch_with_columns_of_very_different_scales():
    # A column at 1e-150 next to unit ones (the extra column of the
    # local-sensitivity matrix, a tiny prox weight) failed the rank test of
    # the QR factor on rounding alone, naming 'ridge' (issue 16); the sketch
    # is equilibrated as the exact scores are.
    rng = np.random.RandomState(0)
    A = rng.standard_normal((30, 3))
    A[:, 2] *= 1e-150
    ridge = np.array([1e-3, 1e-3, 1e-302])
    exact = ridge_leverage_scores(A, ridge)
    # 60 CountSketch rows >= 30: the QR of [A; sqrt(D)] itself, exact.
    sketched = ridge_leverage_scores(A, ridge, method="sketch", random_state=0)
    assert_allclose(sketched, exact, rtol=1e-8)
