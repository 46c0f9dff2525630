"""Tests of the CompAdaGrad state and composite step against dense oracles.

Every reference is computed independently of the implementation: the proximal
matrix of eq. (5) or eq. (19) is formed densely from the gradients seen, and
each step is solved densely (a linear solve for l2, scikit-learn's
``lars_path_gram`` for l1).
"""

import warnings

import numpy as np
import pytest
from scipy.linalg import null_space
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import lars_path_gram

from skcgm.optim import (
    CompAdaGradState,
    compadagrad_step,
    init_compadagrad_state,
)
from skcgm.optim.compadagrad import _step as _compadagrad
from skcgm.oracles import SRHT


def _sqrt_psd_from_rows(Z):
    """(Z^T Z)^{1/2} from the SVD of Z: zero singular values stay at rounding level."""
    _, sv, Vt = np.linalg.svd(Z, full_matrices=True)
    sv = np.concatenate([sv, np.zeros(Vt.shape[0] - sv.shape[0])])
    return (Vt.T * sv) @ Vt


def _dense_proximal_matrix(projection, grads, *, tau, delta, variant):
    """H_t of eq. (5) ('paper'), eq. (19) ('theory', any tau) or eq. (19) with
    the subspace part over sqrt(k) ('balanced') or sqrt(k / r_t)
    ('adaptive'), densely."""
    Pi = projection.components_
    k, n = Pi.shape
    c2 = projection.scale_**2
    Z = np.asarray(grads)  # (t, n): G_t = Z^T Z
    H = np.zeros((n, n))
    if k:
        if variant == "paper":
            w, V = np.linalg.eigh(Pi @ Z.T @ Z @ Pi.T + delta * np.eye(k))
            H += Pi.T @ ((V * np.sqrt(w)) @ V.T) @ Pi
        else:
            Pt = Pi / np.sqrt(c2)
            K = _sqrt_psd_from_rows(Z @ Pt.T) + delta * np.eye(k)
            if variant == "balanced":
                # The subspace step at the rate eta sqrt(k).
                K /= np.sqrt(k)
            elif variant == "adaptive":
                # At the rate eta sqrt(k / r), r = (tr S^{1/2})^2 / tr S from
                # the singular values of Z Pi~^T (1 while S = 0).
                sv = np.linalg.svd(Z @ Pt.T, compute_uv=False)
                r = sv.sum() ** 2 / np.sum(sv**2) if np.sum(sv**2) > 0 else 1.0
                K /= np.sqrt(k / max(r, 1.0))
            H += Pt.T @ K @ Pt
    if k < n:
        P_perp = np.eye(n) - Pi.T @ Pi / c2
        diag = np.sum((Z @ P_perp) ** 2, axis=0)  # diag(P_perp G_t P_perp)
        H += tau * P_perp @ np.diag(np.sqrt(diag) + delta) @ P_perp
    return H


def _dense_l2_step(H, x, g, eta, lam):
    """argmin eta <g, x> + ||x - x_t||_H^2 / 2 + lam ||x||^2 / 2."""
    n = H.shape[0]
    return np.linalg.solve(H + lam * np.eye(n), H @ x - eta * g)


def _dense_l1_step(H, x, g, eta, lam):
    """argmin <u, x> + x^T H x / 2 + lam ||x||_1, u = eta g - H x_t (eq. 16)."""
    u = eta * g - H @ x
    _, _, coefs = lars_path_gram(
        Xy=-u, Gram=H, n_samples=1, alpha_min=lam, method="lasso"
    )
    return coefs[:, -1]


def _gradients(n_steps, n_features, seed, rank=None):
    """Random gradients, optionally correlated (in a low-dimensional span)."""
    rng = np.random.RandomState(seed)
    if rank is None:
        return rng.standard_normal((n_steps, n_features))
    basis = rng.standard_normal((rank, n_features))
    return rng.standard_normal((n_steps, rank)) @ basis + 0.1 * rng.standard_normal(
        (n_steps, n_features)
    )


def _dense_steps(projection, grads, *, tau, delta, variant, coef=None, **params):
    """Step a new state on ``grads``; yield ``(state, x_t, g_t, H_t)`` after each step.

    ``x_t`` is the iterate before the step, ``g_t`` the zero-padded gradient
    and ``H_t`` the dense proximal matrix of the gradients so far; ``params``
    (``eta``, ``alpha``, ``penalty``, ...) go to ``compadagrad_step``.
    """
    state = init_compadagrad_state(projection, coef=coef)
    n = projection.n_padded_
    seen = []
    for grad in grads:
        g = np.zeros(n)
        g[: grad.shape[0]] = grad
        seen.append(g)
        x = state.coef.copy()
        compadagrad_step(
            state, grad, projection, tau=tau, delta=delta, variant=variant, **params
        )
        H = _dense_proximal_matrix(
            projection, seen, tau=tau, delta=delta, variant=variant
        )
        yield state, x, g, H


def _run_against_dense(projection, grads, *, eta, alpha, penalty, **options):
    """Step the state and the dense reference side by side; max abs errors."""
    errors = []
    lam = 0.0 if penalty is None else eta * alpha
    steps = _dense_steps(
        projection, grads, eta=eta, alpha=alpha, penalty=penalty, **options
    )
    for state, x, g, H in steps:
        if penalty == "l1" and lam > 0:
            expected = _dense_l1_step(H, x, g, eta, lam)
        else:
            expected = _dense_l2_step(H, x, g, eta, lam)
        errors.append(np.abs(state.coef - expected).max())
    return state, np.asarray(errors)


# -- the two exact limits ----------------------------------------------------


@pytest.mark.parametrize("penalty", ["l2", None])
@pytest.mark.parametrize("n_features", [12, 16])
def test_full_subspace_equals_full_matrix_adagrad(penalty, n_features):
    # k = n_padded: one step and then several equal the brute-force
    # full-matrix AdaGrad step with H_t = (G_t + delta I)^{1/2}.
    grads = _gradients(6, n_features, seed=0, rank=3)
    eta, alpha, delta = 0.7, 0.05, 1e-2
    lam = 0.0 if penalty is None else eta * alpha
    coefs = []
    for seed in (0, 1, 2):
        projection = SRHT(16, random_state=seed).fit(n_features)
        assert projection.n_components_ == projection.n_padded_ == 16
        state = init_compadagrad_state(projection)
        G = np.zeros((16, 16))
        x_ref = np.zeros(16)
        for grad in grads:
            g = np.zeros(16)
            g[:n_features] = grad
            G += np.outer(g, g)
            w, V = np.linalg.eigh(G + delta * np.eye(16))
            H = (V * np.sqrt(w)) @ V.T
            x_ref = np.linalg.solve(H + lam * np.eye(16), H @ x_ref - eta * g)
            compadagrad_step(
                state, grad, projection, eta=eta, alpha=alpha, penalty=penalty
            )
            np.testing.assert_allclose(state.coef, x_ref, rtol=0, atol=1e-10)
        coefs.append(state.coef.copy())
    # Rotation invariance: the random signs and rows do not matter.
    for other in coefs[1:]:
        np.testing.assert_allclose(other, coefs[0], rtol=0, atol=1e-10)
    # Zero-padded features keep zero coefficients in the full-matrix limit.
    np.testing.assert_allclose(coefs[0][n_features:], 0.0, atol=1e-12)


def test_full_subspace_one_step_without_penalty_is_normalized_gradient_step():
    # G_1 = g g^T: x_2 = -eta (g g^T + delta I)^{-1/2} g = -eta g / sqrt(|g|^2 + delta).
    projection = SRHT(8, random_state=0).fit(8)
    g = np.random.RandomState(0).standard_normal(8)
    state = compadagrad_step(
        init_compadagrad_state(projection),
        g,
        projection,
        eta=0.3,
        alpha=0.0,
        delta=0.5,
    )
    expected = -0.3 * g / np.sqrt(g @ g + 0.5)
    np.testing.assert_allclose(state.coef, expected, rtol=0, atol=1e-12)


def test_full_subspace_theory_variant_is_full_matrix_with_delta_outside():
    # 'theory' with k = n: H_t = G_t^{1/2} + delta I.
    n_features, eta, delta = 8, 0.5, 1e-2
    grads = _gradients(5, n_features, seed=1)
    projection = SRHT(8, scaling="srht", random_state=0).fit(n_features)
    state = init_compadagrad_state(projection)
    x_ref = np.zeros(8)
    for t, g in enumerate(grads):
        H = _sqrt_psd_from_rows(grads[: t + 1]) + delta * np.eye(8)
        x_ref = np.linalg.solve(H, H @ x_ref - eta * g)
        compadagrad_step(
            state, g, projection, eta=eta, alpha=0.0, penalty=None, variant="theory"
        )
        np.testing.assert_allclose(state.coef, x_ref, rtol=0, atol=1e-10)


def test_full_subspace_l1_step_equals_lasso():
    n_features, eta, alpha, delta = 16, 0.5, 0.4, 1e-2
    grads = _gradients(6, n_features, seed=2, rank=4)
    projection = SRHT(16, random_state=0).fit(n_features)
    state, errors = _run_against_dense(
        projection,
        grads,
        eta=eta,
        alpha=alpha,
        penalty="l1",
        tau=1.0,
        delta=delta,
        variant="paper",
    )
    assert errors.max() < 1e-8
    assert 0 < np.count_nonzero(state.coef) < 16


@pytest.mark.parametrize("n_features", [5, 8])
def test_zero_components_equals_diagonal_adagrad(n_features):
    # k = 0, tau = 1: Duchi's diagonal AdaGrad, H = delta I + diag(G_t)^{1/2},
    # with the closed forms of note Section 1.4 for l2, l1 and no penalty.
    grads = _gradients(7, n_features, seed=3)
    eta, alpha, delta = 0.4, 0.3, 1e-2
    projection = SRHT(0, random_state=0).fit(n_features)
    for penalty in ("l2", "l1", None):
        state = init_compadagrad_state(projection)
        x = np.zeros(n_features)
        sq = np.zeros(n_features)
        lam = 0.0 if penalty is None else eta * alpha
        n_zeros = 0
        for g in grads:
            sq += g * g
            h = delta + np.sqrt(sq)
            if penalty == "l1":
                z = x - eta * g / h
                x = np.sign(z) * np.maximum(np.abs(z) - lam / h, 0.0)
            else:
                x = (h * x - eta * g) / (h + lam)
            compadagrad_step(
                state, g, projection, eta=eta, alpha=alpha, penalty=penalty
            )
            np.testing.assert_allclose(state.coef[:n_features], x, rtol=0, atol=1e-12)
            np.testing.assert_array_equal(state.coef[n_features:], 0.0)
            n_zeros += np.sum(x == 0)
        np.testing.assert_allclose(state.complement_sq[:n_features], sq, rtol=1e-14)
        # The soft threshold was active.
        assert (n_zeros > 0) == (penalty == "l1")


# -- one step against the dense solve -------------------------------------------


@pytest.mark.parametrize("variant", ["paper", "theory", "balanced", "adaptive"])
@pytest.mark.parametrize("scaling", ["srht", "orthonormal"])
@pytest.mark.parametrize("n_components, tau", [(3, 1.0), (6, 0.3), (11, 2.0)])
def test_l2_step_equals_dense_solve(variant, scaling, n_components, tau):
    # (Pi^T K Pi + P_perp D P_perp + lambda I) x = (...) x_t - eta g, with the
    # proximal matrix formed densely, over several steps from a non-zero x_1.
    n_features = 13
    grads = _gradients(8, n_features, seed=n_components, rank=2)
    projection = SRHT(n_components, scaling=scaling, random_state=4).fit(n_features)
    coef = np.random.RandomState(5).standard_normal(n_features)
    _, errors = _run_against_dense(
        projection,
        grads,
        eta=0.8,
        alpha=0.2,
        penalty="l2",
        tau=tau,
        delta=1e-2,
        variant=variant,
        coef=coef,
    )
    assert errors.max() < 1e-10


def test_l2_step_with_tau_zero_and_positive_alpha():
    # Allowed: the complement part is then -P_perp g / lambda (note 2.3).
    projection = SRHT(4, random_state=0).fit(16)
    grads = _gradients(3, 16, seed=0)
    _, errors = _run_against_dense(
        projection,
        grads,
        eta=0.5,
        alpha=0.5,
        penalty="l2",
        tau=0.0,
        delta=1e-2,
        variant="paper",
    )
    assert errors.max() < 1e-10


@pytest.mark.parametrize("variant", ["paper", "theory", "balanced", "adaptive"])
@pytest.mark.parametrize("n_components", [2, 5, 9])
def test_theory_and_paper_variants_match_dense_mirror_descent(variant, n_components):
    # Several steps (fewer and more than k, so S is singular then full rank) of
    # composite mirror descent with psi of eq. (19) ('theory', tau = 1) or
    # eq. (5) ('paper'); no penalty, as in the regret analysis.
    grads = _gradients(12, 16, seed=7, rank=3)
    projection = SRHT(n_components, scaling="srht", random_state=1).fit(16)
    _, errors = _run_against_dense(
        projection,
        grads,
        eta=0.5,
        alpha=0.0,
        penalty=None,
        tau=1.0,
        delta=1e-2,
        variant=variant,
    )
    assert errors.max() < 1e-10


def test_theory_variant_does_not_depend_on_the_projection_scaling():
    grads = _gradients(6, 10, seed=8)
    results = []
    for scaling in ("srht", "orthonormal"):
        projection = SRHT(4, scaling=scaling, random_state=3).fit(10)
        state = init_compadagrad_state(projection)
        for g in grads:
            compadagrad_step(state, g, projection, eta=0.5, alpha=0.1, variant="theory")
        results.append(state.coef)
    np.testing.assert_allclose(results[0], results[1], rtol=0, atol=1e-12)


def _run_l1(projection, grads, *, oracle, alpha, variant, tau=0.8):
    """Run l1 steps; max error against ``oracle(H, x, g, eta, lam)`` and zeros."""
    eta = 0.5
    errors, n_zeros = [], 0
    steps = _dense_steps(
        projection,
        grads,
        eta=eta,
        alpha=alpha,
        penalty="l1",
        tau=tau,
        delta=1e-2,
        variant=variant,
    )
    for state, x, g, H in steps:
        expected = oracle(H, x, g, eta, eta * alpha)
        errors.append(np.abs(state.coef - expected).max())
        n_zeros += np.sum(state.coef == 0)
        # Optimality (KKT) of (16): c = -u - H x equals lam sign(x) on the
        # support and is at most lam elsewhere.
        u = eta * g - H @ x
        c = -u - H @ state.coef
        support = state.coef != 0
        lam = eta * alpha
        np.testing.assert_allclose(
            c[support], lam * np.sign(state.coef[support]), atol=1e-10
        )
        assert np.all(np.abs(c[~support]) <= lam + 1e-10)
    return np.asarray(errors), n_zeros


@pytest.mark.parametrize("variant", ["paper", "theory", "balanced", "adaptive"])
@pytest.mark.parametrize("n_features, n_components", [(16, 3), (31, 8), (32, 12)])
@pytest.mark.parametrize("alpha", [0.05, 0.3, 1.0])
def test_l1_step_equals_lars_path_gram(variant, n_features, n_components, alpha):
    # The LASSO (16) on the implicit Gram matrix equals lars_path_gram on the
    # dense A, step after step, k in between 0 and n (the warm-support and
    # the homotopy paths are both taken along the runs).
    grads = _gradients(10, n_features, seed=n_features, rank=3)
    projection = SRHT(n_components, random_state=n_components).fit(n_features)
    errors, n_zeros = _run_l1(
        projection, grads, oracle=_dense_l1_step, alpha=alpha, variant=variant
    )
    assert errors.max() < 1e-8
    if alpha >= 0.3:
        assert n_zeros > 0


def _dense_elasticnet_coordinate_descent(H, x, g, eta, lam1, lam2):
    """argmin eta <g, z> + ||z - x||_H^2 / 2 + lam1 ||z||_1 + lam2 ||z||^2 / 2.

    Cyclic coordinate descent on the dense H, to convergence: the exact
    per-step composite subproblem, written independently of the solver.
    """
    u = eta * g - H @ x
    z = np.zeros_like(u)
    for _ in range(100_000):
        previous = z.copy()
        for i in range(z.shape[0]):
            r = -u[i] - H[i] @ z + H[i, i] * z[i]
            z[i] = np.sign(r) * max(abs(r) - lam1, 0.0) / (H[i, i] + lam2)
        if np.abs(z - previous).max() < 1e-15:
            break
    return z


def _dense_l1_coordinate_descent(H, x, g, eta, lam):
    """Eq. (16) by cyclic coordinate descent on the dense H, to convergence."""
    return _dense_elasticnet_coordinate_descent(H, x, g, eta, lam, 0.0)


@pytest.mark.parametrize("variant", ["paper", "theory"])
@pytest.mark.parametrize("n_features, n_components", [(12, 3), (20, 8)])
def test_l1_step_with_many_padded_features_equals_coordinate_descent(
    variant, n_features, n_components
):
    # Many zero-padded coordinates give exactly tied columns of A (equal
    # diagonal entries, mirrored by the Hadamard structure). scikit-learn's
    # lars_path_gram then returns non-optimal points for some of these steps
    # (KKT violated by ~0.1, checked when this test was written); the
    # homotopy here handles ties with zero-length steps and matches a
    # converged coordinate descent.
    grads = _gradients(10, n_features, seed=n_features, rank=3)
    projection = SRHT(n_components, random_state=n_components).fit(n_features)
    for alpha in (0.3, 1.0):
        errors, n_zeros = _run_l1(
            projection,
            grads,
            oracle=_dense_l1_coordinate_descent,
            alpha=alpha,
            variant=variant,
        )
        assert errors.max() < 1e-8
        assert n_zeros > 0


def _implicit_problem(seed, n_features=24, n_components=6, n_steps=5):
    """An implicit Gram matrix and its dense copy, after a few l2 steps."""
    projection = SRHT(n_components, random_state=seed).fit(n_features)
    grads = _gradients(n_steps, n_features, seed=seed, rank=2)
    state = init_compadagrad_state(projection)
    for g in grads:
        compadagrad_step(state, g, projection, eta=0.5, alpha=0.1)
    Pi = projection.components_
    c2 = projection.scale_**2
    mu, V = np.linalg.eigh(state.subspace_gram)
    kappa = np.sqrt(np.maximum(mu, 0) + 1e-2)
    d = 0.9 * (np.sqrt(state.complement_sq) + 1e-2)
    Q = (V * kappa) @ V.T + (Pi * d) @ Pi.T / c2**2
    gram = _compadagrad._ImplicitGram(Pi, Q, 1.0 / c2, d)
    n = Pi.shape[1]
    P_perp = np.eye(n) - Pi.T @ Pi / c2
    A = Pi.T @ ((V * kappa) @ V.T) @ Pi + P_perp @ np.diag(d) @ P_perp
    return gram, A


def test_implicit_gram_entries_and_products_match_dense():
    gram, A = _implicit_problem(0)
    n = A.shape[0]
    rng = np.random.RandomState(0)
    beta = rng.standard_normal(n)
    np.testing.assert_allclose(gram.matvec(beta), A @ beta, atol=1e-12)
    idx = np.array([1, 4, 7, 30])
    P_act = gram.Pi[:, idx]
    np.testing.assert_allclose(
        gram.matvec_active(idx, beta[idx], P_act), A[:, idx] @ beta[idx], atol=1e-12
    )
    # Corrected eq. (17) on the diagonal and eq. (18) off it.
    col, diag = gram.column(9, P_act, gram.d[idx])
    assert diag == pytest.approx(A[9, 9], rel=1e-12)
    np.testing.assert_allclose(col, A[idx, 9], atol=1e-12)
    np.testing.assert_allclose(
        gram.submatrix(P_act, gram.d[idx]), A[np.ix_(idx, idx)], atol=1e-12
    )


@pytest.mark.parametrize("seed", range(4))
def test_lasso_solvers_equal_lars_path_gram(seed):
    # The homotopy from 0, the active-set iterations from 0, from the solution
    # and from a wrong guess, all give the minimizer of lars_path_gram.
    gram, A = _implicit_problem(seed)
    n = A.shape[0]
    rng = np.random.RandomState(seed)
    u = rng.standard_normal(n)
    lam_max = np.abs(u).max()
    for frac in (1.1, 0.7, 0.2, 0.02):
        lam = frac * lam_max
        _, _, coefs = lars_path_gram(
            Xy=-u, Gram=A, n_samples=1, alpha_min=lam, method="lasso"
        )
        expected = coefs[:, -1]
        x = _compadagrad._lasso_homotopy(u, lam, gram)
        np.testing.assert_allclose(x, expected, rtol=0, atol=1e-9)
        for x0 in (np.zeros(n), expected, rng.standard_normal(n)):
            y = _compadagrad._lasso_active_set(u, lam, gram, x0)
            assert y is not None
            np.testing.assert_allclose(y, expected, rtol=0, atol=1e-9)
            z = _compadagrad._solve_lasso(u, lam, gram, x0)
            np.testing.assert_allclose(z, expected, rtol=0, atol=1e-9)


def test_lasso_active_set_gives_up_and_solve_lasso_falls_back(monkeypatch):
    gram, A = _implicit_problem(2)
    n = A.shape[0]
    u = np.random.RandomState(2).standard_normal(n)
    lam = 0.05 * np.abs(u).max()
    assert _compadagrad._lasso_active_set(u, lam, gram, np.zeros(n), max_iter=1) is None
    # One iteration is not enough here: the homotopy takes over.
    monkeypatch.setattr(_compadagrad._lasso_active_set, "__defaults__", (1,))
    x = _compadagrad._solve_lasso(u, lam, gram, np.zeros(n))
    _, _, coefs = lars_path_gram(
        Xy=-u, Gram=A, n_samples=1, alpha_min=lam, method="lasso"
    )
    np.testing.assert_allclose(x, coefs[:, -1], rtol=0, atol=1e-9)


@pytest.mark.parametrize("size", [4, 20])
def test_active_system_dense_and_woodbury_solves(size):
    # Blocks of at most 2k coordinates are factored densely, larger ones with
    # the Woodbury identity on diagonal plus rank 2k.
    gram, A = _implicit_problem(3, n_features=60, n_components=4)
    idx = np.sort(np.random.RandomState(0).choice(64, size=size, replace=False))
    system = _compadagrad._ActiveSystem(gram, idx)
    assert system.dense == (size <= 8)
    r = np.random.RandomState(1).standard_normal(size)
    np.testing.assert_allclose(
        system.solve(r), np.linalg.solve(A[np.ix_(idx, idx)], r), rtol=1e-10
    )


def test_lasso_homotopy_warns_when_stopped_early():
    gram, A = _implicit_problem(1)
    u = np.random.RandomState(1).standard_normal(A.shape[0])
    with pytest.warns(ConvergenceWarning, match="homotopy steps"):
        x = _compadagrad._lasso_homotopy(u, 1e-3, gram, max_iter=2)
    assert np.all(np.isfinite(x))


# -- structure -------------------------------------------------------------------


@pytest.mark.parametrize("scaling", ["srht", "orthonormal"])
def test_srht_weighted_gram_equals_the_dense_product(scaling):
    # Pi B Pi^T from one Walsh-Hadamard transform (the XOR identity) equals
    # the dense product with the explicit Pi.
    rng = np.random.RandomState(0)
    projection = SRHT(7, scaling=scaling, random_state=1).fit(50)
    Pi = projection.components_
    b = rng.uniform(0.1, 2.0, size=Pi.shape[1])
    gram, _ = _compadagrad._srht_weighted_gram(
        b, projection.rows_, projection.scale_**2
    )
    np.testing.assert_allclose(gram, (Pi * b) @ Pi.T, rtol=1e-12, atol=1e-12)


def test_l2_step_decouples_over_the_subspace_and_its_complement(monkeypatch):
    # x_par solves (10) over Im(P) and x_perp solves (11) over Im(P_perp),
    # each checked with a dense solve in a basis of its space; Pi x_perp = 0.
    parts = []
    original = _compadagrad._l2_step_parts

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        parts.append(result[:2])
        return result

    monkeypatch.setattr(_compadagrad, "_l2_step_parts", spy)
    n_features, eta, alpha, tau, delta = 16, 0.6, 0.3, 0.7, 1e-2
    projection = SRHT(5, random_state=0).fit(n_features)
    Pi = projection.components_
    c2 = projection.scale_**2
    P = Pi.T @ Pi / c2
    P_perp = np.eye(16) - P
    basis_par = Pi.T / np.sqrt(c2)  # orthonormal basis of Im(P)
    basis_perp = null_space(Pi)  # orthonormal basis of Im(P_perp)
    grads = _gradients(4, n_features, seed=9)
    state = init_compadagrad_state(projection, coef=np.linspace(-1, 1, 16))
    lam = eta * alpha
    for t, g in enumerate(grads):
        x = state.coef.copy()
        compadagrad_step(
            state, g, projection, eta=eta, alpha=alpha, tau=tau, delta=delta
        )
        x_par, x_perp = parts[-1]
        np.testing.assert_allclose(Pi @ x_perp, 0.0, atol=1e-12)
        np.testing.assert_allclose(P @ x_par, x_par, atol=1e-12)
        np.testing.assert_allclose(P @ state.coef, x_par, atol=1e-12)
        np.testing.assert_allclose(x_par + x_perp, state.coef, atol=0)
        # (10): min <P g, x> + |x - P x_t|^2_{Pi^T K Pi} / 2 + lam |x|^2 / 2 on Im P.
        G = sum(np.outer(h, h) for h in grads[: t + 1])
        w, V = np.linalg.eigh(Pi @ G @ Pi.T + delta * np.eye(5))
        M = Pi.T @ ((V * np.sqrt(w)) @ V.T) @ Pi
        B = basis_par
        coeff = np.linalg.solve(
            B.T @ M @ B + lam * np.eye(5), B.T @ M @ (P @ x) - eta * B.T @ (P @ g)
        )
        np.testing.assert_allclose(x_par, B @ coeff, atol=1e-12)
        # (11): the same over Im P_perp with D = tau (diag(G_perp)^{1/2} + delta).
        D = np.diag(tau * (np.sqrt(np.diag(P_perp @ G @ P_perp)) + delta))
        B = basis_perp
        coeff = np.linalg.solve(
            B.T @ D @ B + lam * np.eye(B.shape[1]),
            B.T @ D @ (P_perp @ x) - eta * B.T @ (P_perp @ g),
        )
        np.testing.assert_allclose(x_perp, B @ coeff, atol=1e-12)


def test_subspace_only_gradients_give_full_matrix_adagrad_whatever_tau():
    # Note 4.2, property 5: gradients in Im(Pi~^T), orthonormal scaling, no
    # penalty: full-matrix AdaGrad, and x stays in Im(P).
    projection = SRHT(4, scaling="orthonormal", random_state=0).fit(16)
    Pt = projection.components_
    rng = np.random.RandomState(0)
    grads = rng.standard_normal((6, 4)) @ Pt
    for tau in (0.1, 1.0, 5.0):
        state = init_compadagrad_state(projection)
        x_ref = np.zeros(16)
        G = np.zeros((16, 16))
        for g in grads:
            G += np.outer(g, g)
            w, V = np.linalg.eigh(G + 1e-2 * np.eye(16))
            x_ref = x_ref - 0.5 * ((V / np.sqrt(w)) @ V.T) @ g
            compadagrad_step(
                state, g, projection, eta=0.5, alpha=0.0, penalty=None, tau=tau
            )
        np.testing.assert_allclose(state.coef, x_ref, atol=1e-10)
        np.testing.assert_allclose(state.complement_sq, 0.0, atol=1e-25)


def test_state_statistics_are_the_running_sums():
    projection = SRHT(3, random_state=0).fit(10)
    Pi = projection.components_
    P_perp = np.eye(16) - Pi.T @ Pi / projection.scale_**2
    grads = _gradients(5, 10, seed=0)
    state = init_compadagrad_state(projection)
    for g in grads:
        compadagrad_step(state, g, projection, eta=0.1, alpha=0.01)
    Z = np.hstack([grads, np.zeros((5, 6))])
    np.testing.assert_allclose(state.subspace_gram, Pi @ Z.T @ Z @ Pi.T, atol=1e-12)
    np.testing.assert_allclose(
        state.complement_sq, np.sum((Z @ P_perp) ** 2, axis=0), atol=1e-12
    )
    assert state.n_updates == 5 and state.n_flops > 0


# -- cost --------------------------------------------------------------------


def _step_flops(n_components, n_features, penalty="l2"):
    """Flops counted for the second step (the first one has S of rank 1)."""
    projection = SRHT(n_components, random_state=0).fit(n_features)
    state = init_compadagrad_state(projection)
    rng = np.random.RandomState(0)
    compadagrad_step(
        state, rng.standard_normal(n_features), projection, eta=0.1, alpha=1e-3
    )
    before = state.n_flops
    compadagrad_step(
        state, rng.standard_normal(n_features), projection, eta=0.1, alpha=1e-3
    )
    return state.n_flops - before


@pytest.mark.parametrize(
    "n_components, dims",
    [
        (0, [256, 512, 1024, 2048, 4096]),
        (4, [256, 512, 1024, 2048, 4096]),
        (8, [256, 512, 1024, 2048, 4096]),
        # With k = 32 the d-independent k^3 terms (eigendecomposition,
        # Cholesky) still weigh at d = 256: the slope is measured further out.
        (32, [4096, 8192, 16384, 32768, 65536]),
    ],
)
def test_flops_per_update_grow_linearly_in_d(n_components, dims):
    flops = np.array([_step_flops(n_components, d) for d in dims], dtype=float)
    slope = np.polyfit(np.log(dims), np.log(flops), 1)[0]
    assert 0.9 <= slope <= 1.15
    # Linear up to the log factor of the one Walsh-Hadamard transform that
    # builds Pi B Pi^T: the cost per added feature grows at most like log d.
    per_feature = np.diff(flops) / np.diff(dims)
    assert np.all(np.diff(per_feature) >= 0)
    assert per_feature[-1] / per_feature[0] <= np.log2(dims[-1]) / np.log2(dims[0])


def test_flops_are_deterministic_and_count_the_k_cubed_terms():
    assert _step_flops(32, 1024) == _step_flops(32, 1024)
    small, large = _step_flops(8, 1024), _step_flops(32, 1024)
    assert large > 4 * small  # O(n k) + O(k^3)


# -- reproducibility and input handling ------------------------------------------


@pytest.mark.parametrize("penalty", ["l2", "l1"])
def test_reproducible_under_random_state(penalty):
    grads = _gradients(5, 20, seed=0)

    def run(seed):
        projection = SRHT(6, random_state=seed).fit(20)
        state = init_compadagrad_state(projection)
        for g in grads:
            compadagrad_step(state, g, projection, eta=0.3, alpha=0.1, penalty=penalty)
        return state

    a, b, c = run(0), run(0), run(1)
    np.testing.assert_array_equal(a.coef, b.coef)
    np.testing.assert_array_equal(a.subspace_gram, b.subspace_gram)
    assert a.n_flops == b.n_flops
    assert not np.allclose(a.coef, c.coef)


def test_init_state():
    projection = SRHT(3, random_state=0).fit(5)
    state = init_compadagrad_state(projection)
    assert isinstance(state, CompAdaGradState)
    assert state.coef.shape == (8,) and state.coef.dtype == np.float64
    assert state.subspace_gram.shape == (3, 3)
    assert state.complement_sq.shape == (8,)
    assert (state.n_updates, state.n_flops) == (0, 0)
    coef = np.arange(5.0)
    state = init_compadagrad_state(projection, coef=coef)
    np.testing.assert_array_equal(state.coef, [0, 1, 2, 3, 4, 0, 0, 0])
    state.coef[0] = 10.0
    assert coef[0] == 0.0  # copied
    state = init_compadagrad_state(projection, coef=np.ones(8), dtype=np.float32)
    assert state.coef.dtype == state.subspace_gram.dtype == np.float32
    with pytest.raises(ValueError, match="coef must be a 1-D array"):
        init_compadagrad_state(projection, coef=np.ones(6))
    with pytest.raises(ValueError, match="coef must not contain NaN"):
        init_compadagrad_state(projection, coef=[np.nan] * 5)
    with pytest.raises(ValueError, match="dtype must be"):
        init_compadagrad_state(projection, dtype=np.int64)
    with pytest.raises(ValueError, match="projection must be a fitted"):
        init_compadagrad_state(SRHT(3))


def test_float32_state_is_close_to_float64():
    grads = _gradients(5, 12, seed=0)
    projection = SRHT(4, random_state=0).fit(12)
    states = [
        init_compadagrad_state(projection, dtype=dtype)
        for dtype in (np.float64, np.float32)
    ]
    for state in states:
        for g in grads:
            compadagrad_step(state, g, projection, eta=0.3, alpha=0.1)
    assert states[1].coef.dtype == np.float32
    np.testing.assert_allclose(states[1].coef, states[0].coef, rtol=1e-4, atol=1e-5)


def test_grad_is_not_modified_and_may_be_padded():
    projection = SRHT(3, random_state=0).fit(6)
    g = np.random.RandomState(0).standard_normal(6)
    g_copy = g.copy()
    a = compadagrad_step(
        init_compadagrad_state(projection), g, projection, eta=1, alpha=0
    )
    np.testing.assert_array_equal(g, g_copy)
    g_pad = np.concatenate([g, np.zeros(2)])
    b = compadagrad_step(
        init_compadagrad_state(projection), g_pad, projection, eta=1, alpha=0
    )
    np.testing.assert_array_equal(g_pad[:6], g_copy)
    np.testing.assert_allclose(a.coef, b.coef, rtol=0, atol=0)
    assert isinstance(a.n_flops, int) and a.n_updates == 1


def test_penalty_none_ignores_alpha_and_l1_with_zero_alpha_is_unpenalized():
    grads = _gradients(4, 10, seed=0)
    projection = SRHT(3, random_state=0).fit(10)
    results = []
    for penalty, alpha in ((None, 5.0), (None, 0.0), ("l1", 0.0), ("l2", 0.0)):
        state = init_compadagrad_state(projection)
        for g in grads:
            compadagrad_step(
                state, g, projection, eta=0.5, alpha=alpha, penalty=penalty
            )
        results.append(state.coef)
    for other in results[1:]:
        np.testing.assert_allclose(other, results[0], rtol=0, atol=1e-14)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"eta": 0.0}, "'eta' parameter"),
        ({"eta": -1.0}, "'eta' parameter"),
        ({"eta": np.inf}, "'eta' parameter"),
        ({"eta": True}, "'eta' parameter"),
        ({"alpha": -0.1}, "'alpha' parameter"),
        ({"alpha": "1"}, "'alpha' parameter"),
        ({"tau": -1.0}, "'tau' parameter"),
        ({"delta": 0.0}, "'delta' parameter"),
        ({"penalty": "l3"}, "'penalty' parameter"),
        ({"penalty": "elasticnet", "l1_ratio": 1.5}, "'l1_ratio' parameter"),
        ({"penalty": "elasticnet", "l1_ratio": None}, "'l1_ratio' parameter"),
        ({"tau": 0.0, "penalty": "elasticnet"}, "'tau' parameter"),
        ({"variant": "dual"}, "'variant' parameter"),
        ({"tau": 0.0, "alpha": 0.0}, "'tau' parameter"),
        ({"tau": 0.0, "penalty": "l1"}, "'tau' parameter"),
    ],
)
def test_bad_parameters_are_named(params, match):
    projection = SRHT(2, random_state=0).fit(4)
    state = init_compadagrad_state(projection)
    kwargs = {"eta": 0.1, "alpha": 0.1, **params}
    with pytest.raises(ValueError, match=match):
        compadagrad_step(state, np.ones(4), projection, **kwargs)
    assert state.n_updates == 0


def test_tau_zero_is_allowed_for_the_full_subspace():
    projection = SRHT(4, random_state=0).fit(4)
    state = init_compadagrad_state(projection)
    compadagrad_step(state, np.ones(4), projection, eta=0.1, alpha=0.0, tau=0.0)
    assert np.all(np.isfinite(state.coef))


def test_bad_grad_state_and_projection():
    projection = SRHT(2, random_state=0).fit(5)
    state = init_compadagrad_state(projection)
    with pytest.raises(ValueError, match="grad must be a 1-D array"):
        compadagrad_step(state, np.ones(7), projection, eta=0.1, alpha=0.1)
    with pytest.raises(ValueError, match="grad must not contain NaN"):
        compadagrad_step(state, [np.nan, 0, 0, 0, 0], projection, eta=0.1, alpha=0.1)
    other = SRHT(3, random_state=0).fit(5)
    with pytest.raises(ValueError, match="state does not match the projection"):
        compadagrad_step(state, np.ones(5), other, eta=0.1, alpha=0.1)
    with pytest.raises(TypeError, match="state must be a CompAdaGradState"):
        compadagrad_step({}, np.ones(5), projection, eta=0.1, alpha=0.1)
    with pytest.raises(ValueError, match="projection must be a fitted"):
        compadagrad_step(state, np.ones(5), SRHT(2), eta=0.1, alpha=0.1)


def test_l1_steps_emit_no_warning_on_typical_data():
    grads = _gradients(20, 64, seed=0, rank=4)
    projection = SRHT(8, random_state=0).fit(64)
    state = init_compadagrad_state(projection)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for g in grads:
            compadagrad_step(state, g, projection, eta=0.5, alpha=1.0, penalty="l1")
    assert 0 < np.count_nonzero(state.coef) < 64


@pytest.mark.parametrize("n_components", [4, 8])
def test_adaptive_rate_between_balanced_and_theory(n_components):
    # 'adaptive' divides the subspace part by sqrt(k / r_t): after one
    # gradient S is rank one (r = 1), the step of 'balanced'; once the
    # gradients fill the subspace evenly (S = c I, r = k), that of 'theory'.
    n_features = 8
    projection = SRHT(n_components, scaling="orthonormal", random_state=2)
    projection.fit(n_features)
    g = np.random.RandomState(3).standard_normal(n_features)
    steps = {}
    for variant in ("balanced", "theory", "adaptive"):
        state = init_compadagrad_state(projection)
        compadagrad_step(state, g, projection, eta=0.5, alpha=0.1, variant=variant)
        steps[variant] = state.coef.copy()
    np.testing.assert_allclose(steps["adaptive"], steps["balanced"], rtol=1e-12)
    assert not np.allclose(steps["balanced"], steps["theory"])
    # The rows of Pi~ (orthonormal) as gradients: S = I after k steps, so
    # r = k on the last step only; compare it from the same state.
    rows = projection.components_ / projection.scale_
    before = init_compadagrad_state(projection)
    for row in rows[:-1]:
        compadagrad_step(before, row, projection, eta=0.5, alpha=0.0, variant="theory")
    coefs = {}
    for variant in ("theory", "adaptive"):
        state = init_compadagrad_state(projection, coef=before.coef)
        state.subspace_gram[...] = before.subspace_gram
        state.complement_sq[...] = before.complement_sq
        compadagrad_step(
            state, rows[-1], projection, eta=0.5, alpha=0.0, variant=variant
        )
        np.testing.assert_allclose(
            state.subspace_gram, np.eye(n_components), atol=1e-12
        )
        coefs[variant] = state.coef
    # Entries that cancel to rounding level (1e-15 against 0.7) are compared
    # at the scale of the step, not relative to their own rounding.
    scale = np.abs(coefs["theory"]).max()
    np.testing.assert_allclose(
        coefs["adaptive"], coefs["theory"], rtol=1e-10, atol=1e-12 * scale
    )


# -- elastic net ---------------------------------------------------------------


@pytest.mark.parametrize("variant", ["paper", "theory", "balanced", "adaptive"])
@pytest.mark.parametrize(
    "n_features, n_components", [(12, 0), (12, 3), (20, 8), (16, 16)]
)
@pytest.mark.parametrize("l1_ratio", [0.15, 0.7])
def test_elasticnet_step_equals_coordinate_descent(
    variant, n_features, n_components, l1_ratio
):
    # The ridge part moves into the metric (A + lam2 I keeps A's structure);
    # every step must be the exact minimizer of the composite subproblem.
    grads = _gradients(8, n_features, seed=n_features + n_components, rank=3)
    projection = SRHT(n_components, random_state=1).fit(n_features)
    eta, alpha, tau, delta = 0.5, 0.6, 0.7, 1e-2
    lam1, lam2 = eta * alpha * l1_ratio, eta * alpha * (1 - l1_ratio)
    n_zeros = 0
    params = dict(eta=eta, alpha=alpha, penalty="elasticnet", l1_ratio=l1_ratio)
    steps = _dense_steps(
        projection, grads, tau=tau, delta=delta, variant=variant, **params
    )
    for state, x, g, H in steps:
        expected = _dense_elasticnet_coordinate_descent(H, x, g, eta, lam1, lam2)
        np.testing.assert_allclose(state.coef, expected, rtol=0, atol=1e-8)
        n_zeros += np.sum(state.coef == 0)
    assert n_zeros > 0


@pytest.mark.parametrize("n_components", [0, 3, 8])
def test_elasticnet_limits_are_l1_and_l2(n_components):
    grads = _gradients(6, 8, seed=3, rank=2)
    projection = SRHT(n_components, random_state=0).fit(8)
    for l1_ratio, penalty in [(1.0, "l1"), (0.0, "l2")]:
        net = init_compadagrad_state(projection)
        ref = init_compadagrad_state(projection)
        for g in grads:
            kwargs = dict(eta=0.5, alpha=0.4, delta=1e-2)
            compadagrad_step(
                net, g, projection, penalty="elasticnet", l1_ratio=l1_ratio, **kwargs
            )
            compadagrad_step(ref, g, projection, penalty=penalty, **kwargs)
        np.testing.assert_allclose(net.coef, ref.coef, rtol=1e-12, atol=1e-14)


# -- overflow ----------------------------------------------------------------


@pytest.mark.parametrize("penalty", ["l2", "l1"])
@pytest.mark.parametrize("errstate", ["ignore", "raise"])
def test_overflowing_step_raises_and_leaves_the_state_unchanged(penalty, errstate):
    # Gradients of 1e200 overflow the outer products (1e400): the step must
    # say so before LAPACK sees the infinities ("eigenvalues did not
    # converge"), whatever the caller's numpy error state, and not half-update
    # the state.
    projection = SRHT(3, random_state=0).fit(8)
    state = init_compadagrad_state(projection)
    kwargs = dict(eta=0.1, alpha=0.1, penalty=penalty)
    compadagrad_step(state, np.arange(8.0), projection, **kwargs)
    before = {
        name: np.copy(getattr(state, name))
        for name in ("coef", "subspace_gram", "complement_sq")
    }
    eigh_before = state.subspace_eigh
    with np.errstate(all=errstate):
        with pytest.raises(FloatingPointError, match="overflowed"):
            compadagrad_step(state, np.full(8, 1e200), projection, **kwargs)
    for name, value in before.items():
        np.testing.assert_array_equal(getattr(state, name), value)
    assert state.n_updates == 1
    assert state.subspace_eigh is eigh_before
    # The state still works.
    compadagrad_step(state, np.ones(8), projection, **kwargs)
    assert np.isfinite(state.coef).all()


def test_ill_conditioned_complement_falls_back_to_least_squares(monkeypatch):
    # With the Cholesky factorization refused, the weighted least-squares
    # solve gives the same l2 step (to rounding).
    grads = _gradients(6, 20, seed=0, rank=2)
    projection = SRHT(4, random_state=0).fit(20)
    states = [init_compadagrad_state(projection) for _ in range(2)]
    for g in grads:
        compadagrad_step(states[0], g, projection, eta=0.5, alpha=0.1)

    def refuse(M):
        raise np.linalg.LinAlgError("refused")

    monkeypatch.setattr(_compadagrad, "_cholesky", refuse)
    for g in grads:
        compadagrad_step(states[1], g, projection, eta=0.5, alpha=0.1)
    np.testing.assert_allclose(states[1].coef, states[0].coef, rtol=1e-9, atol=1e-12)


def test_tiny_delta_on_coordinates_without_gradient_gives_a_finite_step():
    # delta = 1e-30 on coordinates that never see a gradient gives B entries
    # of 1e30 next to 1: Pi B Pi^T from the transform was not numerically
    # positive definite on these gradients (LinAlgError "dpotrf info=2").
    rng = np.random.RandomState(0)
    grads = rng.standard_normal((40, 3)) * (rng.rand(40, 3) < 0.5)
    projection = SRHT(2, random_state=0).fit(3)
    state = init_compadagrad_state(projection)
    for g in grads:
        compadagrad_step(state, g, projection, eta=0.1, alpha=0.0, delta=1e-30)
    assert state.n_updates == 40
    assert np.isfinite(state.coef).all()
