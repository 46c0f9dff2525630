"""Tests of local-sensitivity scores and the approximate proximal point method."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from skcgm.optim import (
    ProximalPointResult,
    approximate_proximal_point,
    local_sensitivity_scores,
)
from skcgm.optim.proximal_point._in_memory import (
    _trust_region_minimum,
    sample_gram,
)
from skcgm.oracles import LogisticLoss

LOSS = LogisticLoss()

# Runs with tol=0 (a fixed number of rounds, as the paper's experiments)
# always end with a ConvergenceWarning; tested once, explicitly, below.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _synthetic(seed, n=600, d=30, noise=0.1):
    """The paper's synthetic recipe (Section 6), scaled down.

    A i.i.d. standard normal, x0 standard normal, labels sign(A x0 + 0.1 N(0, 1));
    returns the rows with the labels absorbed, the features and the labels.
    """
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d))
    y = np.sign(X @ rng.standard_normal(d) + noise * rng.standard_normal(n))
    return y[:, None] * X, X, y


def _objective(A, x, alpha, u=None, pen=None):
    n = A.shape[0]
    u = np.ones(n) if u is None else u
    pen = np.ones(A.shape[1], dtype=bool) if pen is None else pen
    return u @ LOSS.value(A @ x) / n + 0.5 * alpha * x[pen] @ x[pen]


def _gradient(A, x, alpha, u=None, pen=None):
    n = A.shape[0]
    u = np.ones(n) if u is None else u
    pen = np.ones(A.shape[1], dtype=bool) if pen is None else pen
    grad = A.T @ (u * LOSS.derivative(A @ x)) / n
    grad[pen] += alpha * x[pen]
    return grad


def _optimum(A, alpha, u=None, pen=None):
    """High-accuracy minimizer of F by L-BFGS on all the data."""
    d = A.shape[1]
    result = minimize(
        lambda x: (_objective(A, x, alpha, u, pen), _gradient(A, x, alpha, u, pen)),
        np.zeros(d),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10000},
    )
    return result.x, result.fun


def _small_problem(seed, n=30, d=3):
    rng = np.random.RandomState(seed)
    A = rng.standard_normal((n, d)) * rng.uniform(0.5, 3.0, (n, 1))
    u = rng.uniform(0.2, 2.0, n)
    center = rng.standard_normal(d) * rng.uniform(0.0, 3.0)
    return rng, A, u, center


def _points_in_ball(rng, d, radius, n_points=20000):
    """Uniform points in the ball, points on its sphere, and the centre."""
    Z = rng.standard_normal((n_points, d))
    Z /= np.linalg.norm(Z, axis=1)[:, None]
    inside = Z * radius * rng.uniform(0.0, 1.0, (n_points, 1)) ** (1.0 / d)
    sphere = Z[:2000] * radius
    return np.vstack([inside, sphere, np.zeros((1, d))])


# ---------------------------------------------------------------------------
# Local sensitivity scores


@pytest.mark.parametrize("seed", range(8))
def test_theorem9_bounds_the_sensitivity_of_the_quadratic_model(seed):
    # Deterministic check of Theorem 9 (errata T1-T6 applied): for every z in
    # the ball, the i-th term of the quadratic model over the model itself is
    # at most beta l_i + u_i f_i / (n eta).
    rng, A, u, center = _small_problem(seed)
    n, d = A.shape
    lam, radius = rng.uniform(0.05, 2.0), rng.uniform(0.05, 2.0)
    alpha = [0.0, 0.01, 0.5, 5.0][seed % 4]
    pen = np.array([True, True, False])  # an unpenalized intercept-like column
    bound, info = local_sensitivity_scores(
        LOSS,
        A,
        center,
        prox_weight=lam,
        radius=radius,
        alpha=alpha,
        sample_weight=u,
        penalized=pen,
        scores="theorem9",
    )
    assert info["bound_valid"]
    t0 = A @ center
    f0, f1, f2 = LOSS.value(t0), LOSS.derivative(t0), LOSS.second_derivative(t0)
    # The leverage maximizers z ~ (C^T C + D)^{-1} c_i, scaled into the ball,
    # are the worst directions of the leverage term.
    Z = _points_in_ball(rng, d, radius)
    T = Z @ A.T
    terms = (u / n) * (f0 + T * f1 + 0.5 * T**2 * f2)
    X = center + Z
    model = terms.sum(axis=1) + 0.5 * alpha * np.sum(X[:, pen] ** 2, axis=1)
    model += lam * np.sum(Z**2, axis=1)
    # eta is the minimum of the model on the ball.
    assert model.min() >= info["eta"] - 1e-12
    ratios = terms / model[:, None]
    assert np.all(ratios.max(axis=0) <= bound + 1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_theorem10_scores_bound_sampled_true_local_sensitivities(seed):
    # Theorem 10 assumes a non-negative cubic remainder and uses eta for the
    # minimum of the true proximal function (note 2.5), so it is checked
    # here on fixed draws, not as a theorem: the true ratios stay below.
    rng, A, u, center = _small_problem(seed + 100)
    n, d = A.shape
    lam, radius, alpha = rng.uniform(0.05, 2.0), rng.uniform(0.05, 2.0), 0.1
    bound, _ = local_sensitivity_scores(
        LOSS, A, center, prox_weight=lam, radius=radius, alpha=alpha, sample_weight=u
    )
    Z = _points_in_ball(rng, d, radius)
    X = center + Z
    terms = (u / n) * LOSS.value(X @ A.T)
    proximal = terms.sum(axis=1) + 0.5 * alpha * np.sum(X**2, axis=1)
    proximal += lam * np.sum(Z**2, axis=1)
    assert np.all((terms / proximal[:, None]).max(axis=0) <= bound)


def test_local_sensitivity_score_variants_are_ordered():
    rng, A, u, center = _small_problem(3, n=80, d=4)
    kwargs = dict(prox_weight=0.3, radius=0.5, alpha=0.05, sample_weight=u)
    lev, info = local_sensitivity_scores(
        LOSS, A, center, scores="leverage_only", **kwargs
    )
    thm9, info9 = local_sensitivity_scores(LOSS, A, center, scores="theorem9", **kwargs)
    thm10, info10 = local_sensitivity_scores(LOSS, A, center, **kwargs)
    np.testing.assert_allclose(lev, info9["leverage"])
    assert np.all(thm9 >= info9["beta"] * lev)
    assert np.all(thm10 >= thm9) and info10["beta"] >= 1
    # Leverage of an n x (d + 1) matrix: the sum is at most d + 1.
    assert lev.sum() <= A.shape[1] + 1
    np.testing.assert_allclose(info10["total_sensitivity"], thm10.sum())
    np.testing.assert_allclose(info10["model_center"], _objective(A, center, 0.05, u))


def test_local_sensitivity_leverage_matches_the_block_matrix_by_brute_force():
    # l_i = c_i^T (C0^T C0 + diag(lambda I, gamma_min))^{-1} c_i with
    # C0 = [H^{1/2} A, H^{-1/2} alpha] built from the naive derivatives.
    rng, A, u, center = _small_problem(4, n=40, d=3)
    n, d = A.shape
    lam, radius, alpha = 0.4, 0.3, 2.0  # ||center|| > radius: gamma_min > 0
    _, info = local_sensitivity_scores(
        LOSS, A, center, prox_weight=lam, radius=radius, alpha=alpha, sample_weight=u
    )
    t = A @ center
    f1, f2 = LOSS.derivative(t), LOSS.second_derivative(t)
    H, a = u * f2 / n, u * f1 / n
    C0 = np.column_stack([np.sqrt(H)[:, None] * A, a / np.sqrt(H)])
    gamma_min = 0.5 * alpha * max(0.0, np.linalg.norm(center) - radius) ** 2
    assert gamma_min > 0
    np.testing.assert_allclose(info["gamma_min"], gamma_min)
    M = C0.T @ C0 + np.diag([lam] * d + [gamma_min])
    expected = np.einsum("ij,ji->i", C0, np.linalg.solve(M, C0.T))
    np.testing.assert_allclose(info["leverage"], expected, atol=1e-12)


@pytest.mark.parametrize("radius", [0.05, 1.0, 10.0])
def test_trust_region_minimum_matches_slsqp(radius):
    rng = np.random.RandomState(5)
    M = rng.standard_normal((4, 4))
    Q, b = M @ M.T + 0.1 * np.eye(4), 3.0 * rng.standard_normal(4)
    value, z = _trust_region_minimum(Q, b, radius)
    reference = minimize(
        lambda z: b @ z + 0.5 * z @ Q @ z,
        np.zeros(4),
        jac=lambda z: b + Q @ z,
        constraints=[{"type": "ineq", "fun": lambda z: radius**2 - z @ z}],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 500},
    )
    np.testing.assert_allclose(value, reference.fun, rtol=1e-7, atol=1e-10)
    assert np.linalg.norm(z) <= radius * (1 + 1e-10)
    np.testing.assert_allclose(value, b @ z + 0.5 * z @ Q @ z)


def test_local_sensitivity_with_a_negative_model_falls_back_to_leverage():
    # Far from the boundary, with a huge ball and no penalty, the quadratic
    # model goes negative (eta <= 0): Theorem 9 does not apply.
    rng = np.random.RandomState(0)
    A = rng.standard_normal((20, 2))
    center = -9.0 * A.mean(axis=0) / np.linalg.norm(A.mean(axis=0))
    scores, info = local_sensitivity_scores(
        LOSS, A, center, prox_weight=1e-3, radius=50.0, alpha=0.0
    )
    assert info["eta"] <= 0 and not info["bound_valid"]
    assert np.all(np.isfinite(scores)) and np.all(scores >= info["leverage"])


def test_local_sensitivity_and_rounds_survive_margins_near_minus_1000():
    # e^{-t} overflows below t = -709.78: Delta = -inf, beta = inf, the bound
    # is inf where the leverage is positive; no warning, no NaN, and the
    # rounds sample by the leverage (the limit of s / sum(s)).
    rng = np.random.RandomState(0)
    A = rng.standard_normal((50, 3))
    center = np.array([400.0, 0.0, 0.0])
    assert (A @ center).min() < -709.78
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores, info = local_sensitivity_scores(
            LOSS, A, center, prox_weight=1.0, radius=1.0, alpha=0.1
        )
    assert info["beta"] == np.inf and not np.any(np.isnan(scores))
    assert np.all(np.isfinite(info["leverage"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = approximate_proximal_point(
            LOSS,
            A,
            alpha=0.1,
            x0=center,
            sample_size=20,
            max_iter=3,
            tol=0.0,
            random_state=0,
        )
    assert np.all(np.diff(result.history["objective"]) < 0)
    np.testing.assert_allclose(result.sampling_probabilities.sum(), 1.0)


def test_local_sensitivity_sketched_leverage_is_close_to_exact():
    A, _, _ = _synthetic(0, n=3000, d=10)
    center = np.full(10, 0.1)
    kwargs = dict(prox_weight=0.5, radius=0.3, alpha=1e-3)
    exact, info = local_sensitivity_scores(LOSS, A, center, **kwargs)
    sketched, info_s = local_sensitivity_scores(
        LOSS, A, center, leverage="sketch", random_state=0, **kwargs
    )
    ratio = info_s["leverage"] / info["leverage"]
    assert np.mean((ratio >= 0.5) & (ratio <= 2.0)) >= 0.95
    np.testing.assert_allclose(info_s["eta"], info["eta"], rtol=0.05)
    np.testing.assert_allclose(sketched.sum(), exact.sum(), rtol=0.2)


def test_sampled_gram_of_every_row_at_unit_weight_gives_the_exact_scores(
    property_settings,
):
    @given(
        seed=st.integers(0, 2**31 - 1),
        n=st.integers(2, 60),
        scores=st.sampled_from(["theorem9", "theorem10", "leverage_only"]),
        sparse=st.booleans(),
    )
    def check(seed, n, scores, sparse):
        # The estimate of leverage='sample' is a sum over the drawn rows: every
        # row drawn once with weight 1 is the exact Gram matrix.
        rng, A, u, center = _small_problem(seed % 1000, n=n, d=3)
        u[rng.uniform(size=n) < 0.2] = 0.0
        u[0] = 1.0
        if sparse:
            A = sp.csr_matrix(A)
        kwargs = dict(
            prox_weight=0.3, radius=0.5, alpha=0.05, sample_weight=u, scores=scores
        )
        exact, info = local_sensitivity_scores(LOSS, A, center, **kwargs)
        sampled, info_s = local_sensitivity_scores(
            LOSS,
            A,
            center,
            leverage="sample",
            gram_sample=(np.arange(n), np.ones(n)),
            **kwargs,
        )
        np.testing.assert_allclose(sampled, exact, rtol=1e-9, atol=1e-300)
        if scores != "leverage_only":
            np.testing.assert_allclose(info_s["eta"], info["eta"], rtol=1e-9)

    property_settings(check)()


def test_sampled_gram_is_unbiased_and_its_scores_close_to_exact():
    A, _, _ = _synthetic(0, n=3000, d=10)
    u = np.random.RandomState(1).uniform(0.5, 1.5, 3000)
    center = np.full(10, 0.1)
    # Rows drawn in two halves with weight 2: the two estimates average to
    # the Gram matrix of every row.
    order = np.random.RandomState(0).permutation(3000)
    halves = [order[:1500], order[1500:]]
    grams = [
        sample_gram(LOSS, A[half], u[half], np.full(1500, 2.0), center, 3000, 0.7)
        for half in halves
    ]
    whole = sample_gram(LOSS, A, u, np.ones(3000), center, 3000, 0.7)
    np.testing.assert_allclose((grams[0] + grams[1]) / 2, whole, rtol=1e-12)
    kwargs = dict(prox_weight=0.5, radius=0.3, alpha=1e-3, sample_weight=u)
    exact, info = local_sensitivity_scores(LOSS, A, center, **kwargs)
    sampled, info_s = local_sensitivity_scores(
        LOSS,
        A,
        center,
        leverage="sample",
        gram_sample=(halves[0], np.full(1500, 2.0)),
        **kwargs,
    )
    ratio = info_s["leverage"] / info["leverage"]
    assert np.mean((ratio >= 0.8) & (ratio <= 1.25)) >= 0.95
    np.testing.assert_allclose(info_s["eta"], info["eta"], rtol=0.05)
    np.testing.assert_allclose(sampled.sum(), exact.sum(), rtol=0.1)


def test_sampled_leverage_needs_its_rows():
    A, _, _ = _synthetic(1, n=50, d=4)
    kwargs = dict(prox_weight=0.5, radius=0.3, alpha=1e-3, leverage="sample")
    with pytest.raises(ValueError, match="needs gram_sample"):
        local_sensitivity_scores(LOSS, A, np.zeros(4), **kwargs)
    for bad in [
        (np.array([0, 50]), np.ones(2)),
        (np.array([0, 1]), np.ones(3)),
        (np.array([0.5, 1.0]), np.ones(2)),
        (np.array([0, 1]), -np.ones(2)),
        (np.array([], dtype=int), np.ones(0)),
    ]:
        with pytest.raises(ValueError, match="gram_sample must be"):
            local_sensitivity_scores(LOSS, A, np.zeros(4), gram_sample=bad, **kwargs)
    with pytest.raises(ValueError, match="sampling='leverage' takes"):
        approximate_proximal_point(
            LOSS, A, alpha=0.1, sampling="leverage", leverage="sample"
        )


def test_local_sensitivity_zero_weight_rows_score_zero_and_sparse_matches():
    rng, A, u, center = _small_problem(6, n=50, d=3)
    u[:5] = 0.0
    kwargs = dict(prox_weight=0.2, radius=0.4, alpha=0.1, sample_weight=u)
    scores, _ = local_sensitivity_scores(LOSS, A, center, **kwargs)
    assert np.all(scores[:5] == 0) and np.all(scores[5:] > 0)
    sparse_scores, _ = local_sensitivity_scores(
        LOSS, sp.csr_matrix(A), center, **kwargs
    )
    np.testing.assert_allclose(sparse_scores, scores, rtol=1e-10)


# ---------------------------------------------------------------------------
# Lemma 12, Lemma 19 and the exact proximal point method


@pytest.mark.parametrize("seed", range(4))
def test_lemma12_radius_contains_the_exact_proximal_point(seed):
    A, _, _ = _synthetic(seed, n=200, d=5, noise=1.0)
    rng = np.random.RandomState(seed)
    alpha, y = 0.05, rng.standard_normal(5)
    lam = rng.uniform(0.01, 1.0)
    grad_norm = np.linalg.norm(_gradient(A, y, alpha))
    # argmin F(x) + lam ||x - y||^2 by L-BFGS, to high accuracy.
    prox = minimize(
        lambda x: (
            _objective(A, x, alpha) + lam * (x - y) @ (x - y),
            _gradient(A, x, alpha) + 2 * lam * (x - y),
        ),
        y,
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-13, "ftol": 1e-16, "maxiter": 10000},
    ).x
    lemma12 = grad_norm / (2 * lam + alpha)  # mu = alpha: all coordinates penalized
    assert np.linalg.norm(prox - y) <= lemma12 + 1e-8
    # Algorithm 2's radius g / (sqrt(g) + mu) is larger with lambda = sqrt(g)
    # (erratum T9), so its ball contains the proximal point too.
    assert grad_norm / (np.sqrt(grad_norm) + alpha) >= grad_norm / (
        2 * np.sqrt(grad_norm) + alpha
    )
    # One round of the exact method from y with that lambda finds it.
    result = approximate_proximal_point(
        LOSS,
        A,
        alpha=alpha,
        sampling="full",
        x0=y,
        prox_weight=lam,
        radius="lemma12",
        max_iter=1,
        tol=0.0,
        inner_tol=1e-12,
        max_inner_iter=20000,
    )
    np.testing.assert_allclose(result.coef, prox, atol=1e-7)


def test_full_sampling_matches_logistic_regression_with_intercept_and_weights():
    # sklearn: C sum_i s_i logloss_i + ||w||^2 / 2, intercept unpenalized, is
    # F with u = s, alpha = 1 / (C n) and an unpenalized column of ones.
    _, X, y = _synthetic(1, n=300, d=5, noise=2.0)
    s = np.random.RandomState(0).uniform(0.5, 2.0, 300)
    C, n = 0.5, 300
    # lbfgs stops near a gradient norm of 1e-8 even at tol=1e-12 (coef off by
    # ~1e-6 on ill-conditioned data); newton-cholesky is exact to 1e-11.
    reference = LogisticRegression(
        C=C, tol=1e-12, max_iter=10000, solver="newton-cholesky"
    ).fit(X, y, sample_weight=s)
    A = y[:, None] * np.column_stack([X, np.ones(n)])
    pen = np.array([True] * 5 + [False])
    result = approximate_proximal_point(
        LOSS,
        A,
        alpha=1.0 / (C * n),
        sample_weight=s,
        penalized=pen,
        sampling="full",
        tol=1e-10,
        max_iter=500,
        max_inner_iter=1000,
    )
    assert result.converged
    np.testing.assert_allclose(result.coef[:5], reference.coef_.ravel(), atol=1e-6)
    np.testing.assert_allclose(result.coef[5], reference.intercept_[0], atol=1e-6)
    assert result.history["grad_norm"][-1] <= 1e-10


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sampling", ["full", "local_sensitivity"])
def test_lazy_signed_rows_with_fewer_rows_than_columns_match_written_rows(
    fit_intercept, sampling
):
    # n < d (+ 1): the smoothness constant is taken from the n x n Gram
    # matrix, which failed on the lazy signed rows of 'full' (TypeError). The
    # same rows written out as an array are the oracle: every round must
    # agree to rounding.
    rng = np.random.RandomState(0)
    X = rng.standard_normal((4, 7))
    y = np.array([1.0, -1.0, -1.0, 1.0])
    columns = [X, np.ones((4, 1))] if fit_intercept else [X]
    A = y[:, None] * np.hstack(columns)
    pen = np.array([True] * 7 + [False] * fit_intercept)
    params = dict(alpha=0.1, sampling=sampling, max_iter=20, tol=0.0, random_state=0)
    lazy = approximate_proximal_point(
        LOSS, X, signs=y, fit_intercept=fit_intercept, **params
    )
    written = approximate_proximal_point(LOSS, A, penalized=pen, **params)
    np.testing.assert_allclose(lazy.coef, written.coef, rtol=1e-10, atol=1e-12)
    assert lazy.history["objective"][-1] < lazy.history["objective"][0]


def test_full_sampling_converges_to_the_optimum_and_contracts_like_lemma19():
    A, _, _ = _synthetic(2, n=300, d=10, noise=1.0)
    alpha = 1e-2
    x_star, f_star = _optimum(A, alpha)
    result = approximate_proximal_point(
        LOSS,
        A,
        alpha=alpha,
        sampling="full",
        tol=1e-9,
        max_iter=300,
        inner_tol=1e-6,
        max_inner_iter=5000,
    )
    assert result.converged
    np.testing.assert_allclose(result.coef, x_star, atol=1e-6)
    h = result.history
    gap = h["objective"] - f_star
    assert np.all(np.diff(h["objective"]) <= 1e-12)  # monotone
    # Lemma 19 (un-halved prox): F(x_t) - F* <= 2 lam/(mu + 2 lam) (F(x_{t-1}) - F*),
    # up to the inner solver's accuracy.
    lam = h["prox_weight"][1:]
    contraction = 2 * lam / (alpha + 2 * lam)
    assert np.all(gap[1:] <= contraction * gap[:-1] + 1e-12)
    np.testing.assert_allclose(lam, np.sqrt(h["grad_norm"][:-1]))
    np.testing.assert_allclose(h["radius"][1:], h["grad_norm"][:-1] / (lam + alpha))
    assert np.all(np.isnan(h["total_sensitivity"]))
    np.testing.assert_array_equal(result.sample_indices, np.arange(300))
    np.testing.assert_array_equal(result.sample_weight, np.ones(300))
    assert result.sampling_probabilities is None


# ---------------------------------------------------------------------------
# Sampled rounds


def test_local_sensitivity_beats_uniform_on_the_synthetic_recipe():
    # Same m, rounds and inner budget; relative error F(x_T)/F* - 1 over seeds.
    # Measured on 44 seeds: local is lower in 98% of them, and the ratio of
    # the medians over blocks of 7 seeds is at most 0.68 (0.66 overall).
    alpha, errors = 1e-2, {"local_sensitivity": [], "uniform": []}
    for seed in range(7):
        A, _, _ = _synthetic(seed, n=600, d=30)
        _, f_star = _optimum(A, alpha)
        for sampling in errors:
            result = approximate_proximal_point(
                LOSS,
                A,
                alpha=alpha,
                sample_size=100,
                sampling=sampling,
                max_iter=40,
                tol=0.0,
                random_state=seed,
            )
            errors[sampling].append((result.history["objective"][-1] - f_star) / f_star)
    local = np.asarray(errors["local_sensitivity"])
    uniform = np.asarray(errors["uniform"])
    assert np.median(local) <= 0.85 * np.median(uniform)
    assert np.sum(local < uniform) >= 5


def test_sampled_rounds_decrease_the_error():
    A, _, _ = _synthetic(3, n=600, d=10, noise=1.0)
    alpha = 1e-2
    _, f_star = _optimum(A, alpha)
    result = approximate_proximal_point(
        LOSS, A, alpha=alpha, sample_size=0.1, max_iter=20, tol=0.0, random_state=0
    )
    gap = (result.history["objective"] - f_star) / f_star
    # m = 60 of 600 rows: the error reaches the sampling floor (about 1%
    # here; 'full' goes on to 0) well within 20 rounds.
    assert gap[-1] <= 3e-2
    assert gap[-1] <= 0.05 * gap[1]
    h = result.history
    assert np.all(np.diff(h["n_inner_iter"]) >= 1)
    assert np.all(h["total_sensitivity"][1:] > 0)
    assert np.all(h["total_sensitivity"][1:] < A.shape[0])
    assert np.all(h["n_distinct"][1:] <= 60)
    assert result.sample_weight.shape == result.sample_indices.shape
    np.testing.assert_allclose(result.sampling_probabilities.sum(), 1.0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sampling": "uniform"},
        {"sampling": "leverage"},
        {"sampling": "leverage", "leverage": "sketch"},
        {"leverage": "sketch"},
        {"leverage": "sample"},
        {"leverage": "sample", "replace": False},
        {"scores": "theorem9"},
        {"scores": "leverage_only"},
        {"radius": None},
        {"radius": "lemma12"},
        {"radius": 0.5, "prox_weight": 0.1},
        {"replace": False},
    ],
)
def test_every_sampler_and_option_reduces_the_objective(kwargs):
    A, _, _ = _synthetic(4, n=400, d=8, noise=1.0)
    alpha = 1e-2
    _, f_star = _optimum(A, alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = approximate_proximal_point(
            LOSS, A, alpha=alpha, sample_size=80, max_iter=15, random_state=0, **kwargs
        )
    gap = (result.history["objective"] - f_star) / f_star
    assert gap[-1] <= 0.1 * gap[0]
    assert isinstance(result, ProximalPointResult)
    assert len(result.history["objective"]) == result.n_iter + 1


def test_uniform_and_leverage_never_sample_zero_weight_rows():
    A, _, _ = _synthetic(5, n=200, d=4, noise=1.0)
    u = np.ones(200)
    u[::2] = 0.0
    for sampling in ("uniform", "leverage", "local_sensitivity"):
        result = approximate_proximal_point(
            LOSS,
            A,
            alpha=0.1,
            sample_weight=u,
            sample_size=50,
            sampling=sampling,
            max_iter=2,
            tol=0.0,
            random_state=0,
        )
        assert np.all(result.sample_indices % 2 == 1)
        assert np.all(result.sampling_probabilities[::2] == 0)


def test_proximal_point_is_reproducible_and_does_not_modify_inputs():
    A, _, _ = _synthetic(6, n=300, d=6, noise=1.0)
    u = np.random.RandomState(0).uniform(0.5, 1.5, 300)
    x0, pen = np.full(6, 0.1), np.array([True] * 5 + [False])
    copies = [a.copy() for a in (A, u, x0, pen)]
    kwargs = dict(
        alpha=0.01,
        sample_weight=u,
        penalized=pen,
        sample_size=40,
        max_iter=5,
        tol=0.0,
        x0=x0,
    )
    first = approximate_proximal_point(LOSS, A, random_state=3, **kwargs)
    again = approximate_proximal_point(
        LOSS, A, random_state=np.random.RandomState(3), **kwargs
    )
    other = approximate_proximal_point(LOSS, A, random_state=4, **kwargs)
    np.testing.assert_array_equal(first.coef, again.coef)
    np.testing.assert_array_equal(first.sample_indices, again.sample_indices)
    for key in first.history:
        np.testing.assert_array_equal(first.history[key], again.history[key])
    assert not np.array_equal(first.coef, other.coef)
    for original, copy in zip((A, u, x0, pen), copies):
        np.testing.assert_array_equal(original, copy)
    assert first.coef is not x0


def test_proximal_point_sparse_and_float32_inputs(csr_container):
    A, _, _ = _synthetic(7, n=300, d=6, noise=1.0)
    dense = approximate_proximal_point(
        LOSS, A, alpha=0.01, sample_size=50, max_iter=5, tol=0.0, random_state=0
    )
    sparse = approximate_proximal_point(
        LOSS,
        csr_container(A),
        alpha=0.01,
        sample_size=50,
        max_iter=5,
        tol=0.0,
        random_state=0,
    )
    np.testing.assert_allclose(sparse.coef, dense.coef, rtol=1e-8, atol=1e-10)
    full64 = approximate_proximal_point(
        LOSS, A, alpha=0.01, sampling="full", tol=1e-8, max_iter=200
    )
    full32 = approximate_proximal_point(
        LOSS, A.astype(np.float32), alpha=0.01, sampling="full", tol=1e-5, max_iter=200
    )
    assert full32.coef.dtype == np.float64
    np.testing.assert_allclose(full32.coef, full64.coef, atol=1e-4)


def test_proximal_point_warns_when_not_converged_and_callback_stops():
    A, _, _ = _synthetic(8, n=200, d=5, noise=1.0)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        result = approximate_proximal_point(LOSS, A, alpha=0.01, max_iter=2, tol=1e-12)
    assert result.n_iter == 2 and not result.converged
    seen = []

    def stop_at_three(t, x, grad_norm):
        seen.append((t, grad_norm))
        return t == 3

    result = approximate_proximal_point(
        LOSS, A, alpha=0.01, max_iter=50, tol=0.0, callback=stop_at_three
    )
    assert result.n_iter == 3 and result.converged
    assert [t for t, _ in seen] == [1, 2, 3]
    np.testing.assert_allclose(seen[-1][1], result.history["grad_norm"][-1])


def test_proximal_point_verbose_prints_rounds(capsys):
    A, _, _ = _synthetic(9, n=100, d=3, noise=1.0)
    approximate_proximal_point(LOSS, A, alpha=0.1, max_iter=2, tol=0.0, verbose=1)
    out = capsys.readouterr().out
    assert "round 0" in out and "round 2" in out


def test_proximal_point_starting_at_the_optimum_does_nothing():
    A, _, _ = _synthetic(10, n=100, d=3, noise=1.0)
    x_star, _ = _optimum(A, 0.1)
    result = approximate_proximal_point(LOSS, A, alpha=0.1, x0=x_star, tol=1e-6)
    assert result.n_iter == 0 and result.converged
    np.testing.assert_array_equal(result.coef, x_star)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"alpha": -1.0}, "alpha"),
        ({"sampling": "importance"}, "sampling"),
        ({"sample_size": 0}, "sample_size"),
        ({"sample_size": 1.5}, "sample_size"),
        ({"sample_size": 51}, "sample_size"),
        ({"scores": "theorem11"}, "scores"),
        ({"prox_weight": 0.0}, "prox_weight"),
        ({"radius": -1.0}, "radius"),
        ({"radius": "paper"}, "radius"),
        ({"mu": -0.1}, "mu"),
        ({"max_iter": -1}, "max_iter"),
        ({"tol": -1.0}, "tol"),
        ({"max_inner_iter": 0}, "max_inner_iter"),
        ({"inner_tol": -1.0}, "inner_tol"),
        ({"leverage": "qr"}, "leverage"),
        ({"n_components": 0}, "n_components"),
        ({"sample_weight": np.ones(3)}, "sample_weight"),
        ({"sample_weight": -np.ones(50)}, "sample_weight"),
        ({"sample_weight": np.zeros(50)}, "non-zero"),
        ({"penalized": np.ones(3, dtype=bool)}, "penalized"),
        ({"penalized": np.ones(4)}, "penalized"),
        ({"x0": np.zeros(5)}, "x0"),
        ({"x0": np.full(4, np.nan)}, "x0"),
    ],
)
def test_proximal_point_bad_input_names_the_parameter(kwargs, match):
    A, _, _ = _synthetic(11, n=50, d=4, noise=1.0)
    kwargs = {"alpha": 0.1, **kwargs}
    with pytest.raises(ValueError, match=match):
        approximate_proximal_point(LOSS, A, **kwargs)


def test_bad_loss_and_data_are_refused():
    A, _, _ = _synthetic(12, n=50, d=4, noise=1.0)
    with pytest.raises(ValueError, match="loss"):
        approximate_proximal_point(object(), A, alpha=0.1)
    with pytest.raises(ValueError, match="A"):
        approximate_proximal_point(LOSS, np.full((5, 2), np.nan), alpha=0.1)
    with pytest.raises(ValueError, match="center"):
        local_sensitivity_scores(
            LOSS, A, np.zeros(3), prox_weight=1.0, radius=1.0, alpha=0.1
        )
    for name in ("prox_weight", "radius"):
        kwargs = {"prox_weight": 1.0, "radius": 1.0, name: 0.0}
        with pytest.raises(ValueError, match=name):
            local_sensitivity_scores(LOSS, A, np.zeros(4), alpha=0.1, **kwargs)


def test_n_iter_no_change_stops_where_a_callback_with_the_same_rule_stops():
    # The noise-floor rule against the same rule written as a callback on the
    # full objective: same stopping round, same iterate, no warning, and the
    # objective has not improved on its best for exactly n_iter_no_change rounds.
    A, _, _ = _synthetic(13, n=400, d=5, noise=1.0)
    kwargs = dict(alpha=0.01, sample_size=20, max_iter=200, tol=0.0, random_state=0)
    state = {"best": _objective(A, np.zeros(5), 0.01), "count": 0}

    def callback(t, x, grad_norm):
        value = _objective(A, x, 0.01)
        if value < state["best"]:
            state["best"], state["count"] = value, 0
        else:
            state["count"] += 1
        return state["count"] >= 3

    by_callback = approximate_proximal_point(LOSS, A, callback=callback, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        stalled = approximate_proximal_point(LOSS, A, n_iter_no_change=3, **kwargs)
    assert stalled.stalled and not by_callback.stalled
    assert stalled.n_iter == by_callback.n_iter < 200
    np.testing.assert_array_equal(stalled.coef, by_callback.coef)
    objective = stalled.history["objective"]
    assert np.all(objective[-3:] >= objective[:-3].min())
    assert objective[-4] == objective[:-3].min()


class _BlasThreadsSeen:
    """The logistic loss, recording the BLAS thread counts it runs under."""

    def __init__(self):
        from threadpoolctl import ThreadpoolController

        self._controller = ThreadpoolController()
        self.seen = set()

    def _record(self):
        blas = self._controller.select(user_api="blas").info()
        self.seen.update(library["num_threads"] for library in blas)

    def derivative(self, t):
        # The inner solver's gradients.
        self._record()
        return LOSS.derivative(t)

    def _value_derivatives(self, t):
        # The full objective and gradient of every round.
        self._record()
        return LOSS._value_derivatives(t)

    def __getattr__(self, name):
        return getattr(LOSS, name)


@pytest.mark.parametrize("sampling", ["full", "local_sensitivity", "uniform"])
def test_proximal_point_runs_with_one_blas_thread_and_restores_the_limit(sampling):
    # The passes over all the rows run on our own threads, the rest are
    # small BLAS calls: the whole run holds BLAS to one thread (the inner
    # solver's gradients, on the sample or on all the rows, included), and
    # gives the caller's limit back.
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads():
        return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}

    A, _, _ = _synthetic(0, n=200, d=5)
    loss = _BlasThreadsSeen()
    with threadpool_limits(limits=2, user_api="blas"):
        outer = blas_threads()
        if outer == {1}:
            pytest.skip("BLAS runs a single thread on this machine")
        approximate_proximal_point(
            loss, A, alpha=0.1, sampling=sampling, max_iter=3, random_state=0
        )
        assert blas_threads() == outer
    assert loss.seen == {1}


@pytest.mark.parametrize(
    "eigenvalue, b, radius",
    [
        # Rounding flipped the sign of the bracket: brentq raised "f(a) and
        # f(b) must have different signs" (issue 16).
        (7.90066523e-300, 1.12279492e-49, 6.512570612871311e246),
        # A radius that underflows: ||b|| / r was inf, then NaN in brentq.
        (2.8e-305, 3.0e-213, 1e-320),
    ],
)
def test_trust_region_minimum_at_the_ends_of_the_float64_range(eigenvalue, b, radius):
    from skcgm.optim.proximal_point._in_memory import _trust_region_minimum

    value, z = _trust_region_minimum(np.array([[eigenvalue]]), np.array([b]), radius)
    assert np.isfinite(value) and np.isfinite(z).all()
    assert abs(z[0]) <= radius * (1 + 1e-12)
    assert value <= 0.0
