"""Tests of the Frank-Wolfe driver on quadratics over convex hulls."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.spatial.distance import pdist
from sklearn.exceptions import ConvergenceWarning

from skcgm.optim import FrankWolfeResult, frank_wolfe
from skcgm.oracles import (
    BoxLMO,
    ConvexHullLMO,
    ExactMIPS,
    L1BallLMO,
    L2BallLMO,
    SimplexLMO,
)


def _quadratic_problem(seed=0, n_atoms=15, n_features=4):
    """f(x) = 1/2 x^T Q x + b^T x over the hull of random atoms.

    The unconstrained minimizer lies outside the hull, so the constrained one
    is on its boundary.
    """
    rng = np.random.RandomState(seed)
    atoms = rng.standard_normal((n_atoms, n_features))
    M = rng.standard_normal((n_features, n_features))
    Q = M @ M.T + 0.1 * np.eye(n_features)
    b = -Q @ (3.0 + rng.standard_normal(n_features))

    def objective(x):
        return 0.5 * x @ Q @ x + b @ x

    def grad(x):
        return Q @ x + b

    return atoms, Q, b, objective, grad


def _optimum_over_hull(atoms, Q, b):
    """min over simplex weights of the quadratic, by SLSQP."""
    G = atoms @ Q @ atoms.T
    c = atoms @ b
    n = atoms.shape[0]
    res = minimize(
        lambda w: 0.5 * w @ G @ w + c @ w,
        np.full(n, 1.0 / n),
        jac=lambda w: G @ w + c,
        bounds=[(0, 1)] * n,
        constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1.0}],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    return res.fun


def _frank_wolfe_over_hull(grad, atoms, x0=None, *, mips=None, **params):
    """frank_wolfe over the hull of ``atoms`` from ``x0`` (default: the first
    atom), its ConvergenceWarning silenced; ``params`` go to frank_wolfe."""
    x0 = atoms[0] if x0 is None else x0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return frank_wolfe(grad, ConvexHullLMO(mips).fit(atoms), x0, **params)


@pytest.mark.parametrize("step", ["2/(t+2)", "1/(t+1)", "line_search"])
def test_frank_wolfe_gap_upper_bounds_suboptimality(step):
    atoms, Q, b, objective, grad = _quadratic_problem()
    f_star = _optimum_over_hull(atoms, Q, b)
    options = dict(learning_rate=step, smoothness=Q, objective_fn=objective)
    result = _frank_wolfe_over_hull(grad, atoms, max_iter=300, tol=1e-12, **options)
    suboptimality = result.objective_history - f_star
    assert np.all(suboptimality >= -1e-9)
    assert np.all(result.gap_history >= suboptimality - 1e-9)
    # The certificate is tight enough to locate the optimum: the lower bound
    # f(x_t) - g_t approaches the SLSQP value.
    lower_bound = np.max(result.objective_history - result.gap_history)
    assert lower_bound <= f_star + 1e-9
    assert f_star - lower_bound < 0.1 * (result.objective_history[0] - f_star)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_frank_wolfe_paper_rate_bound_on_quadratic_over_hull(seed):
    # h_t <= 2 beta D^2 / (c^2 (t+1)) with c = 1 (eq. 18 of the MaxIP paper).
    atoms, Q, b, objective, grad = _quadratic_problem(seed)
    f_star = _optimum_over_hull(atoms, Q, b)
    beta = np.linalg.eigvalsh(Q)[-1]
    diameter = pdist(atoms).max()
    result = _frank_wolfe_over_hull(
        grad, atoms, max_iter=200, tol=0.0, objective_fn=objective
    )
    t = np.arange(result.n_iter + 1)
    h = result.objective_history - f_star
    bound = 2 * beta * diameter**2 / (t + 1)
    assert np.all(h[1:] <= bound[1:])


def test_frank_wolfe_approximate_step_is_clipped_and_keeps_the_bound():
    # c = 0.5: the printed 2/(c(t+2)) is 2 at t=0 and 4/3 at t=1 (erratum
    # 7.3); clipped to 1, the iterate stays in the hull and the c^-2 bound
    # holds.
    # Herding-like objective 1/2 ||x - mu||^2, mu inside the hull.
    atoms = np.random.RandomState(3).standard_normal((15, 4))
    Q, b = np.eye(4), -atoms.mean(axis=0)

    def objective(x):
        return 0.5 * x @ x + b @ x

    def grad(x):
        return x + b

    f_star = _optimum_over_hull(atoms, Q, b)
    c = 0.5
    options = dict(approximation=c, objective_fn=objective)
    result = _frank_wolfe_over_hull(grad, atoms, max_iter=100, tol=0.0, **options)
    np.testing.assert_allclose(result.step_history[:3], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(result.step_history[3], 2 / (c * 5))
    assert np.all(result.weights >= 0)
    t = np.arange(result.n_iter + 1)
    beta = np.linalg.eigvalsh(Q)[-1]
    bound = 2 * beta * pdist(atoms).max() ** 2 / (c**2 * (t + 1))
    assert np.all((result.objective_history - f_star)[1:] <= bound[1:])


@pytest.mark.parametrize("step", ["2/(t+2)", "1/(t+1)", "line_search"])
@pytest.mark.parametrize("start", ["vertex", "interior"])
def test_frank_wolfe_convex_weights_reconstruct_the_iterate(step, start):
    atoms, Q, b, objective, grad = _quadratic_problem(4)
    x0 = atoms[2] if start == "vertex" else atoms.mean(axis=0)
    options = dict(learning_rate=step, smoothness=Q)
    result = _frank_wolfe_over_hull(grad, atoms, x0, max_iter=50, tol=0.0, **options)
    assert isinstance(result, FrankWolfeResult)
    assert np.all(result.weights >= 0) and result.x0_weight >= 0
    assert result.weights.sum() + result.x0_weight == pytest.approx(1.0)
    assert len(np.unique(result.active_set)) == len(result.active_set)
    reconstructed = result.weights @ atoms[result.active_set] + result.x0_weight * x0
    np.testing.assert_allclose(reconstructed, result.x, atol=1e-10)
    if step != "line_search":
        assert result.x0_weight == 0.0


def test_frank_wolfe_herding_step_gives_uniform_weights():
    atoms, Q, b, objective, grad = _quadratic_problem(5)
    result = _frank_wolfe_over_hull(
        grad, atoms, learning_rate="1/(t+1)", max_iter=30, tol=0.0
    )
    # After T steps of 1/(t+1) every selection carries weight 1/T.
    counts = result.weights * result.n_iter
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)


@pytest.mark.parametrize("smoothness", ["matrix", "callable", "constant"])
def test_frank_wolfe_line_search_decreases_objective_monotonically(smoothness):
    atoms, Q, b, objective, grad = _quadratic_problem(6)
    curvature = {
        "matrix": Q,
        "callable": lambda d: d @ Q @ d,
        "constant": np.linalg.eigvalsh(Q)[-1],
    }[smoothness]
    options = dict(smoothness=curvature, objective_fn=objective)
    result = _frank_wolfe_over_hull(
        grad, atoms, learning_rate="line_search", max_iter=100, tol=0.0, **options
    )
    assert np.all(np.diff(result.objective_history) <= 1e-12)
    assert result.objective_history[-1] < result.objective_history[0]


def test_frank_wolfe_exact_line_search_matches_optimal_step():
    # The exact step on a quadratic minimizes f along the segment.
    atoms, Q, b, objective, grad = _quadratic_problem(7)
    result = _frank_wolfe_over_hull(
        grad, atoms, learning_rate="line_search", smoothness=Q, max_iter=1, tol=0.0
    )
    s = ConvexHullLMO().fit(atoms)(grad(atoms[0])).vertex
    etas = np.linspace(0, 1, 2001)
    values = [objective(atoms[0] + eta * (s - atoms[0])) for eta in etas]
    assert objective(result.x) <= min(values) + 1e-12


def test_frank_wolfe_stops_on_gap_and_counts():
    # Minimizer inside the simplex: the gap reaches tol.
    target = np.array([0.2, 0.3, 0.5])
    result = frank_wolfe(
        lambda x: x - target,
        SimplexLMO(),
        np.array([1.0, 0.0, 0.0]),
        learning_rate="line_search",
        smoothness=1.0,
        max_iter=10_000,
        tol=1e-6,
    )
    assert result.converged
    assert result.gap_history[-1] <= 1e-6
    assert len(result.gap_history) == result.n_iter + 1
    assert len(result.step_history) == result.n_iter
    np.testing.assert_array_equal(result.n_scored, 3)
    np.testing.assert_allclose(result.x, target, atol=1e-3)


def test_frank_wolfe_warns_when_not_converged():
    atoms, Q, b, objective, grad = _quadratic_problem()
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        result = frank_wolfe(grad, ConvexHullLMO().fit(atoms), atoms[0], max_iter=3)
    assert result.n_iter == 3 and not result.converged


def test_frank_wolfe_callback_stops_and_plain_array_lmo():
    def lmo(g):  # a plain vertex, no index: no weights are kept
        return L1BallLMO()(g).vertex

    seen = []

    def callback(t, x, gap):
        seen.append(t)
        return t == 4

    result = frank_wolfe(
        lambda x: x - 2.0, lmo, np.zeros(3), max_iter=100, callback=callback
    )
    assert seen == [0, 1, 2, 3, 4]
    assert result.n_iter == 4 and result.converged
    assert result.active_set is None and result.weights is None
    np.testing.assert_array_equal(result.n_scored, -1)


def test_frank_wolfe_keeps_float32_and_validates():
    atoms = np.eye(3, dtype=np.float32)
    result = _frank_wolfe_over_hull(lambda x: x - 0.5, atoms, max_iter=5)
    assert result.x.dtype == np.float32
    with pytest.raises(ValueError, match="smoothness"):
        frank_wolfe(
            lambda x: x, SimplexLMO(), np.ones(2) / 2, learning_rate="line_search"
        )
    with pytest.raises(ValueError, match="learning_rate"):
        frank_wolfe(lambda x: x, SimplexLMO(), np.ones(2) / 2, learning_rate="armijo")
    with pytest.raises(ValueError, match="approximation"):
        frank_wolfe(lambda x: x, SimplexLMO(), np.ones(2) / 2, approximation=0.0)
    with pytest.raises(ValueError, match="step size"):
        frank_wolfe(
            lambda x: x - np.array([1.0, 0.0]),
            SimplexLMO(),
            np.ones(2) / 2,
            learning_rate=lambda t: 2.0,
        )


def test_frank_wolfe_with_mips_index_matches_exact_scan():
    atoms, Q, b, objective, grad = _quadratic_problem(8, n_atoms=60)
    kwargs = dict(max_iter=40, tol=0.0)
    exact = _frank_wolfe_over_hull(grad, atoms, **kwargs)
    indexed = _frank_wolfe_over_hull(grad, atoms, mips=ExactMIPS(), **kwargs)
    np.testing.assert_array_equal(exact.active_set, indexed.active_set)
    np.testing.assert_allclose(exact.x, indexed.x)
    np.testing.assert_array_equal(indexed.n_scored, 60)


def test_vertices_without_an_index_keep_no_active_set():
    # The l2 ball numbers no vertex (index -1): the driver must not pool
    # every vertex into one weight slot, it reports no active set instead.
    target = np.array([3.0, -4.0])
    result = frank_wolfe(
        lambda x: x - target,
        L2BallLMO(radius=1.0),
        np.zeros(2),
        max_iter=200,
        learning_rate="line_search",
        smoothness=1.0,
    )
    assert result.active_set is None and result.weights is None
    np.testing.assert_allclose(result.x, target / 5.0, atol=1e-2)


def test_a_non_finite_gap_is_a_clear_error():
    # <grad, x - s> overflowed: a RuntimeWarning, then inf gaps and steps.
    lmo = BoxLMO(lower=-1e10, upper=1e10, n_features=2)
    with pytest.raises(ValueError, match="gap .* not finite at iteration 0"):
        frank_wolfe(lambda x: np.full(2, 1e300), lmo, np.zeros(2), max_iter=3)
