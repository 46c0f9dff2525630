"""Tests of the projection-free projections: SHFW, infeasible projection, FW projection.

Honest oracles: the projection property (37) is verified both by the one-call
certificate and independently, by ``scipy.optimize.linprog(method="highs")``
over the polytope's inequalities and at random points of the set; exact
projections come from closed forms (clipping, the sort-based simplex
projection).
"""

import warnings

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning

from skcgm.oracles import (
    BoxLMO,
    CappedSimplexLMO,
    DownClosedPolytopeLMO,
    L1BallLMO,
    SimplexLMO,
)
from skcgm.oracles._projection import (
    FWProjectionResult,
    InfeasibleProjectionResult,
    SHFWResult,
    check_infeasible_projection,
    frank_wolfe_projection,
    infeasible_projection,
    infeasible_projection_lmo_bound,
    separating_hyperplane_fw,
)


class _Inequalities:
    """The set of an LMO as {A_ub x <= b_ub, A_eq x = b_eq, lower <= x <= upper}.

    The honest oracle of these tests: linprog(method="highs") and explicit
    inequality checks, independent of the LMO classes under test.
    """

    def __init__(self, lower, upper, A_ub=None, b_ub=None, A_eq=None, b_eq=None):
        self.lower, self.upper = np.asarray(lower, float), np.asarray(upper, float)
        self.A_ub, self.A_eq = A_ub, A_eq
        self.b_ub = None if b_ub is None else np.asarray(b_ub, float)
        self.b_eq = None if b_eq is None else np.asarray(b_eq, float)

    def min_linear(self, c):
        """min_{z in K} <c, z> by linprog."""
        lower = np.broadcast_to(self.lower, c.shape)
        upper = np.broadcast_to(self.upper, c.shape)
        bounds = [
            (lo if np.isfinite(lo) else None, up if np.isfinite(up) else None)
            for lo, up in zip(lower, upper)
        ]
        res = linprog(
            c,
            A_ub=self.A_ub,
            b_ub=self.b_ub,
            A_eq=self.A_eq,
            b_eq=self.b_eq,
            bounds=bounds,
            method="highs",
        )
        assert res.status == 0
        return res.fun

    def contains(self, x, tol=1e-9):
        inside = np.all(x >= self.lower - tol) and np.all(x <= self.upper + tol)
        if self.A_ub is not None:
            inside &= np.all(self.A_ub @ x <= self.b_ub + tol)
        if self.A_eq is not None:
            inside &= np.all(np.abs(self.A_eq @ x - self.b_eq) <= tol)
        return bool(inside)


def _down_closed(rng, n_features, n_constraints):
    """{0 <= x <= 1, A x <= 1}, A ~ U[0, 1]: the NQP set, R <= sqrt(n)."""
    A = rng.uniform(size=(n_constraints, n_features))
    b = np.ones(n_constraints)
    return DownClosedPolytopeLMO(A, b, upper=1.0), _Inequalities(0.0, 1.0, A, b)


def _simplex(n_features, radius=1.0):
    ones = np.ones((1, n_features))
    return SimplexLMO(radius=radius, n_features=n_features), _Inequalities(
        0.0, np.inf, A_eq=ones, b_eq=[radius]
    )


def _capped_simplex(n_features, radius=1.0):
    ones = np.ones((1, n_features))
    return CappedSimplexLMO(radius=radius, n_features=n_features), _Inequalities(
        0.0, np.inf, ones, [radius]
    )


def _l1_ball(n_features, radius=1.0):
    # ||x||_1 <= r as 2^n inequalities: fine for the small n used here.
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * n_features))
    signs = signs.reshape(n_features, -1).T
    return L1BallLMO(radius=radius, n_features=n_features), _Inequalities(
        -np.inf, np.inf, signs, np.full(len(signs), radius)
    )


def _box(rng, n_features):
    lower = -rng.uniform(size=n_features)
    upper = rng.uniform(size=n_features)
    return BoxLMO(lower, upper), _Inequalities(lower, upper)


def _vertex(lmo, g):
    answer = lmo(g)
    return np.asarray(answer[0] if isinstance(answer, tuple) else answer, dtype=float)


def _random_feasible(lmo, rng, n_features, n_vertices=4):
    """A random convex combination of LMO vertices."""
    vertices = [
        _vertex(lmo, rng.standard_normal(n_features)) for _ in range(n_vertices)
    ]
    return rng.dirichlet(np.ones(n_vertices)) @ np.array(vertices)


def _instances(n_instances=15, seed=0):
    rng = np.random.RandomState(seed)
    for k in range(n_instances):
        n_features = rng.randint(2, 7)
        if k % 5 == 0:
            lmo, honest = _down_closed(rng, n_features, rng.randint(1, 5))
        elif k % 5 == 1:
            lmo, honest = _simplex(n_features, radius=rng.uniform(0.5, 2.0))
        elif k % 5 == 2:
            lmo, honest = _l1_ball(n_features, radius=rng.uniform(0.5, 2.0))
        elif k % 5 == 3:
            lmo, honest = _capped_simplex(n_features, radius=rng.uniform(0.5, 2.0))
        else:
            lmo, honest = _box(rng, n_features)
        yield rng, n_features, lmo, honest


def _assert_projection_property(lmo, honest, y0, y_tilde, rng, n_features):
    """(37) against linprog, and at random points of the set."""
    shift = y_tilde - y0
    worst = y_tilde @ y_tilde - y0 @ y0 - 2.0 * honest.min_linear(shift)
    assert worst <= 1e-8
    for _ in range(20):
        z = _random_feasible(lmo, rng, n_features)
        assert np.sum((y_tilde - z) ** 2) <= np.sum((y0 - z) ** 2) + 1e-9


def _feasible_start(lmo, honest, rng, n_features):
    x0 = _vertex(lmo, rng.standard_normal(n_features)) * rng.uniform(0.2, 1.0)
    if not honest.contains(x0):  # the simplex and a box may miss the origin
        x0 = _random_feasible(lmo, rng, n_features)
    return x0


# --------------------------------------------------------------------------
# Lemma 1 contract of the infeasible projection


def test_infeasible_projection_satisfies_lemma_1_on_random_sets():
    n_nontrivial = 0
    for rng, n_features, lmo, honest in _instances():
        R = lmo.radius
        x0 = _feasible_start(lmo, honest, rng, n_features)
        y0 = x0 + rng.standard_normal(n_features) * R * rng.uniform(0.1, 1.5)
        eps = R**2 * rng.uniform(0.002, 0.05)
        lmo.reset_counter()
        x_before, y_before = x0.copy(), y0.copy()
        x, y_tilde, n_lmo_calls, n_outer, status = infeasible_projection(
            lmo, x0, y0, eps
        )
        np.testing.assert_array_equal(x0, x_before)
        np.testing.assert_array_equal(y0, y_before)
        assert status == "ok"
        assert n_lmo_calls == lmo.n_calls_
        dist2 = np.sum((x0 - y0) ** 2)
        # One SHFW call (Lemma 6), within bound (4).
        assert n_outer <= 1
        assert n_lmo_calls <= infeasible_projection_lmo_bound(R, eps, 0.0)
        assert n_lmo_calls <= infeasible_projection_lmo_bound(R, eps, dist2)
        assert honest.contains(x, tol=1e-9)
        assert np.linalg.norm(y_tilde) <= R * (1 + 1e-12)
        assert np.sum((x - y_tilde) ** 2) <= 3 * eps
        # Certified with one LMO call...
        calls = lmo.n_calls_
        assert check_infeasible_projection(lmo, y0, x, y_tilde, eps)
        assert lmo.n_calls_ == calls + 1
        # ... and independently.
        _assert_projection_property(lmo, honest, y0, y_tilde, rng, n_features)
        y1 = y0 / max(1.0, np.linalg.norm(y0) / R)
        n_nontrivial += not np.allclose(y_tilde, y1)
    assert n_nontrivial >= 3  # the step (39) pulled y several times


def test_infeasible_projection_accepts_a_bare_callable():
    # Any callable returning the vertex itself, with the radius given.
    lmo, honest = _simplex(3)
    y0 = np.array([1.0, 1.0, -0.5])
    expected = infeasible_projection(lmo, np.array([0.0, 0.0, 1.0]), y0, eps=0.01)
    result = infeasible_projection(
        lambda g: lmo(g).vertex, np.array([0.0, 0.0, 1.0]), y0, eps=0.01, radius=1.0
    )
    np.testing.assert_array_equal(result.x, expected.x)
    np.testing.assert_array_equal(result.y_tilde, expected.y_tilde)
    assert result[2:] == expected[2:]


def test_infeasible_projection_early_return_uses_y0_and_returns_y1():
    # ||x0 - y0||^2 <= 3 eps: no LMO call, x = x0, y_tilde = y0 shrunk onto R B.
    lmo, _ = _simplex(2)
    x0 = np.array([1.0, 0.0])
    y0 = np.array([1.05, 0.0])
    result = infeasible_projection(lmo, x0, y0, eps=0.001)
    assert isinstance(result, InfeasibleProjectionResult)
    assert result.n_lmo_calls == 0 and lmo.n_calls_ == 0 and result.n_outer == 0
    np.testing.assert_array_equal(result.x, x0)
    np.testing.assert_allclose(result.y_tilde, [1.0, 0.0])
    assert result.x is not x0


def test_infeasible_projection_is_one_shfw_call_and_one_pull():
    # A plain transcription of Algorithm 3, then the step (39) once, with
    # gamma = 1 - sqrt(3 eps) / ||y_1 - x_1||.
    rng = np.random.RandomState(3)
    lmo, _ = _down_closed(rng, 4, 3)
    x0 = np.zeros(4)
    y0 = rng.uniform(0.5, 1.5, size=4)
    eps, R = 0.03, lmo.radius

    x, y, calls = x0, y0 / max(1.0, np.linalg.norm(y0) / R), 0
    while True:
        v = _vertex(lmo, x - y)
        calls += 1
        if np.sum((x - y) ** 2) <= 3 * eps or (x - y) @ (x - v) <= eps:
            break
        sigma = np.clip((y - x) @ (v - x) / np.sum((v - x) ** 2), 0, 1)
        x = x + sigma * (v - x)
    d = y - x
    assert d @ d > 3 * eps  # separated: the pull is taken
    gamma = 1 - np.sqrt(3 * eps * (1 - 1e-8)) / np.linalg.norm(d)
    y = y - gamma * d
    result = infeasible_projection(lmo, x0, y0, eps)
    np.testing.assert_allclose(result.x, x, atol=1e-12)
    np.testing.assert_allclose(result.y_tilde, y, atol=1e-12)
    assert (result.n_lmo_calls, result.n_outer, result.status) == (calls, 1, "ok")


def _lmo_with_budget(lmo, budget):
    """A bare callable LMO that raises after ``budget`` calls (instead of hanging)."""
    calls = []

    def call(g):
        calls.append(1)
        if len(calls) > budget:
            raise RuntimeError(f"more than {budget} LMO calls")
        return lmo(g)

    return call


def test_infeasible_projection_of_a_far_point_ends_after_one_shfw_call():
    # Issue 16: the printed gamma = 2 eps / ||x0 - y0||^2 moved y by 1e-9 of
    # its distance per step here (bound (4) ~ 1e14 LMO calls).
    lmo = BoxLMO(n_features=1)
    budgeted = _lmo_with_budget(lmo, 1000)
    y0 = np.array([-3000.0])
    result = infeasible_projection(budgeted, np.zeros(1), y0, 0.005, radius=1.0)
    assert result.status == "ok" and result.n_lmo_calls == 1 and result.n_outer == 1
    np.testing.assert_array_equal(result.x, [0.0])
    assert np.sum((result.x - result.y_tilde) ** 2) <= 3 * 0.005
    assert check_infeasible_projection(lmo, y0, result.x, result.y_tilde, 0.005)


@pytest.mark.parametrize("scale", [1e200, 1e300, np.finfo(np.float64).max])
def test_infeasible_projection_of_a_huge_point_is_its_radial_projection(scale):
    # ||y0||^2 overflows: the radial projection onto R B keeps y0's direction
    # (it was 0, with a RuntimeWarning), and the answer is certified.
    lmo = CappedSimplexLMO(n_features=2)
    y0 = np.array([scale, scale / 2])
    x, y_tilde, _, _, status = infeasible_projection(lmo, np.zeros(2), y0, 0.01)
    assert status == "ok"
    np.testing.assert_allclose(x, [0.75, 0.25], atol=0.1)
    assert np.sum((x - y_tilde) ** 2) <= 0.03
    direction = y_tilde - x
    assert direction @ np.array([1.0, 0.5]) > 0  # pulled from y0's side
    assert np.all(np.isfinite(y_tilde)) and np.linalg.norm(y_tilde) <= 1.0


def test_lmo_calls_are_capped_by_default():
    # A tiny eps: Lemma 6 allows 27 R^2 / eps ~ 3e13 SHFW iterations (Frank-
    # Wolfe's gap decays like 1/k against a face); the default caps at 10000.
    lmo = CappedSimplexLMO(n_features=4)
    budgeted = _lmo_with_budget(lmo, 20_000)
    y = np.array([0.6, 0.5, 0.4, -1.0])  # projects inside a 2-face
    x, n_lmo_calls, status = separating_hyperplane_fw(
        budgeted, np.zeros(4), y, eps=1e-12
    )
    assert (n_lmo_calls, status) == (10_000, "max_lmo_calls")
    assert lmo.contains(x, tol=1e-9)


def test_infeasible_projection_cap_warns_and_keeps_37():
    rng = np.random.RandomState(4)
    lmo, honest = _down_closed(rng, 5, 3)
    x0 = np.zeros(5)
    y0 = np.full(5, 1.2)
    eps = 1e-8
    with pytest.warns(ConvergenceWarning, match="max_lmo_calls"):
        x, y_tilde, n_lmo_calls, n_outer, status = infeasible_projection(
            lmo, x0, y0, eps, max_lmo_calls=5
        )
    assert status == "max_lmo_calls" and n_lmo_calls == 5
    assert honest.contains(x) and np.linalg.norm(y_tilde) <= lmo.radius + 1e-12
    _assert_projection_property(lmo, honest, y0, y_tilde, rng, 5)
    assert not check_infeasible_projection(lmo, y0, x, y_tilde, eps)  # not close


def test_infeasible_projection_cap_on_a_close_pair_is_ok():
    lmo, _ = _simplex(2)
    x0, y0 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    # SHFW needs 2 calls (one update, then the closeness test); with a cap of
    # 1 the pair is already close after the update.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = infeasible_projection(lmo, x0, y0, eps=0.01, max_lmo_calls=1)
    assert result.status == "ok" and result.n_lmo_calls == 1
    np.testing.assert_allclose(result.x, [0.0, 1.0])


def test_check_infeasible_projection_rejects_wrong_answers():
    rng = np.random.RandomState(5)
    lmo, honest = _down_closed(rng, 4, 2)
    eps = 0.03
    y0 = np.full(4, 1.3)
    x, y_tilde, *_ = infeasible_projection(lmo, np.zeros(4), y0, eps)
    assert check_infeasible_projection(lmo, y0, x, y_tilde, eps)
    # y_tilde moved along random directions: the certificate agrees with
    # linprog on whether (37) still holds (both ways).
    verdicts = []
    for _ in range(20):
        w = rng.standard_normal(4)
        moved = y_tilde + 0.1 * w / np.linalg.norm(w)
        violation = moved @ moved - y0 @ y0 - 2 * honest.min_linear(moved - y0)
        close = np.sum((x - moved) ** 2) <= 3 * eps
        inside_ball = np.linalg.norm(moved) <= lmo.radius
        expected = bool(violation <= 1e-9 and close and inside_ball)
        assert check_infeasible_projection(lmo, y0, x, moved, eps) == expected
        verdicts.append(expected)
    assert any(verdicts)
    # y0 in K is its own only infeasible projection: every move is wrong,
    # although the pair stays close and inside R B.
    y_inside = _random_feasible(lmo, rng, 4) * 0.5
    assert check_infeasible_projection(lmo, y_inside, y_inside, y_inside, eps)
    for _ in range(20):
        w = rng.standard_normal(4)
        moved = y_inside + 0.05 * w / np.linalg.norm(w)
        assert moved @ moved - y_inside @ y_inside > 2 * honest.min_linear(
            moved - y_inside
        )
        assert not check_infeasible_projection(lmo, y_inside, y_inside, moved, eps)
    # A point of K "projected" onto another point: rejected by (37) although
    # x and y_tilde are close and inside R B.
    inside = np.full(4, 0.1)
    assert not check_infeasible_projection(lmo, inside, inside, inside + 0.05, eps)
    # Infeasible x, y_tilde outside R B, a pair that is not close.
    assert not check_infeasible_projection(lmo, y0, x + 2.0, y_tilde, eps)
    assert not check_infeasible_projection(lmo, y0, x, y_tilde * 10, eps, radius=1.0)
    assert not check_infeasible_projection(lmo, y0, np.zeros(4), y_tilde, eps)


def test_check_infeasible_projection_needs_contains():
    lmo, _ = _simplex(2)
    with pytest.raises(ValueError, match="contains"):
        check_infeasible_projection(
            lambda g: lmo(g), np.ones(2), [1.0, 0.0], [1.0, 0.0], 0.1, radius=1.0
        )


# --------------------------------------------------------------------------
# SHFW


def test_shfw_postconditions_on_random_sets():
    statuses = set()
    for rng, n_features, lmo, honest in _instances(n_instances=20, seed=1):
        x1 = _random_feasible(lmo, rng, n_features)
        if rng.uniform() < 0.5:
            y = rng.standard_normal(n_features) * lmo.radius
        else:  # near the set
            y = _random_feasible(lmo, rng, n_features)
            y += 0.05 * rng.standard_normal(n_features)
        eps = lmo.radius**2 * rng.uniform(0.001, 0.05)
        lmo.reset_counter()
        x, n_lmo_calls, status = separating_hyperplane_fw(lmo, x1, y, eps)
        statuses.add(status)
        assert n_lmo_calls == lmo.n_calls_
        per_call_bound = infeasible_projection_lmo_bound(lmo.radius, eps, 0.0)
        assert 1 <= n_lmo_calls <= per_call_bound
        assert honest.contains(x, tol=1e-9)
        dist2 = np.sum((x - y) ** 2)
        if status == "close":
            assert dist2 <= 3 * eps
        else:
            assert status == "separated" and dist2 > 3 * eps
            # <y - x, z - x> <= eps for all z in K: max over K by linprog.
            assert -honest.min_linear(-(y - x)) - (y - x) @ x <= eps + 1e-9
    assert statuses == {"close", "separated"}


def test_shfw_calls_the_lmo_before_the_tests():
    lmo, _ = _simplex(3)
    x1 = np.array([0.0, 1.0, 0.0])
    result = separating_hyperplane_fw(lmo, x1, x1, eps=0.1)
    assert isinstance(result, SHFWResult)
    assert result[1:] == (1, "close") and lmo.n_calls_ == 1
    np.testing.assert_array_equal(result.x, x1)
    assert result.x is not x1


def test_shfw_max_lmo_calls():
    rng = np.random.RandomState(6)
    lmo, honest = _down_closed(rng, 6, 3)
    y = np.full(6, 0.6)
    x, n_lmo_calls, status = separating_hyperplane_fw(
        lmo, np.zeros(6), y, eps=1e-8, max_lmo_calls=3
    )
    assert (n_lmo_calls, status) == (3, "max_lmo_calls")
    assert honest.contains(x)
    result = separating_hyperplane_fw(lmo, np.zeros(6), y, 1e-8, max_lmo_calls=0)
    assert result[1:] == (0, "max_lmo_calls")


# --------------------------------------------------------------------------
# The bound (4)


def test_infeasible_projection_lmo_bound_formula():
    assert infeasible_projection_lmo_bound(1.0, 0.27, 0.81) == 98 * 2.5
    assert infeasible_projection_lmo_bound(2.0, 0.5, 0.1) == 214  # max(1, .) = 1
    # The printed first factor is <= 0 for eps >= 13.5 R^2: clipped at 1.
    assert infeasible_projection_lmo_bound(1.0, 20.0, 100.0) == int(100 * 80 / 1600 + 1)
    assert infeasible_projection_lmo_bound(1.0, 1e-300, 1e300) > 0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"radius": 0.0, "eps": 1.0, "dist2": 1.0}, "radius"),
        ({"radius": 1.0, "eps": -1.0, "dist2": 1.0}, "eps"),
        ({"radius": 1.0, "eps": 1.0, "dist2": -1.0}, "dist2"),
        ({"radius": 1.0, "eps": 1.0, "dist2": np.nan}, "dist2"),
    ],
)
def test_infeasible_projection_lmo_bound_validates(kwargs, match):
    with pytest.raises(ValueError, match=match):
        infeasible_projection_lmo_bound(**kwargs)


# --------------------------------------------------------------------------
# Frank-Wolfe projection


def _project_simplex(y, radius):
    """Sort-based Euclidean projection onto {x >= 0, sum x = r}."""
    u = np.sort(y)[::-1]
    css = np.cumsum(u) - radius
    k = np.nonzero(u - css / np.arange(1, len(y) + 1) > 0)[0][-1]
    return np.maximum(y - css[k] / (k + 1), 0.0)


@pytest.mark.parametrize("seed", range(5))
def test_frank_wolfe_projection_certifies_distance_to_the_projection(seed):
    rng = np.random.RandomState(seed)
    n_features = rng.randint(2, 10)
    radius = rng.uniform(0.5, 2.0)
    y = rng.standard_normal(n_features)
    lmo, _ = _simplex(n_features, radius)
    x, gap, n_iter, n_lmo_calls = frank_wolfe_projection(
        lmo, y, tol=1e-8, max_iter=10_000
    )
    assert gap <= 1e-8
    assert n_lmo_calls == n_iter + 2 == lmo.n_calls_
    exact = _project_simplex(y, radius)
    assert np.sum((x - exact) ** 2) <= 2 * gap + 1e-12
    assert x.sum() == pytest.approx(radius) and x.min() >= 0


@pytest.mark.parametrize("seed", range(3))
def test_frank_wolfe_projection_on_the_nqp_set(seed):
    # Against the dual-QP projection of DownClosedPolytopeLMO.
    rng = np.random.RandomState(seed)
    lmo, _ = _down_closed(rng, 6, 3)
    y = rng.uniform(-0.5, 1.5, size=6)
    x, gap, *_ = frank_wolfe_projection(lmo, y, tol=1e-6, max_iter=100_000)
    assert gap <= 1e-6
    assert np.sum((x - lmo.project(y)) ** 2) <= 2 * gap + 1e-9


def test_frank_wolfe_projection_from_a_given_start_and_not_converged():
    rng = np.random.RandomState(7)
    lmo, _ = _down_closed(rng, 5, 2)
    y = np.full(5, 1.0)
    x0 = np.zeros(5)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        result = frank_wolfe_projection(lmo, y, x0, tol=1e-12, max_iter=2)
    assert isinstance(result, FWProjectionResult)
    assert result.n_iter == 2 and result.n_lmo_calls == 3 and result.gap > 1e-12
    np.testing.assert_array_equal(x0, np.zeros(5))
    # A point inside the set is its own projection (after one LMO call).
    inside = np.full(5, 0.01)
    result = frank_wolfe_projection(lmo, inside, inside)
    np.testing.assert_array_equal(result.x, inside)
    assert (result.gap, result.n_iter, result.n_lmo_calls) == (0.0, 0, 1)


# --------------------------------------------------------------------------
# Input validation


def test_projection_functions_validate_input():
    lmo, _ = _simplex(2)
    x0, y0 = np.array([1.0, 0.0]), np.array([0.0, 2.0])
    with pytest.raises(ValueError, match="eps"):
        infeasible_projection(lmo, x0, y0, eps=0.0)
    with pytest.raises(ValueError, match="y0 must have 2"):
        infeasible_projection(lmo, x0, np.ones(3), eps=0.1)
    with pytest.raises(ValueError, match="x0 must lie in the set"):
        infeasible_projection(lmo, np.array([2.0, 0.0]), y0, eps=0.1)
    with pytest.raises(ValueError, match="max_lmo_calls"):
        infeasible_projection(lmo, x0, y0, eps=0.1, max_lmo_calls=-1)
    with pytest.raises(ValueError, match="radius"):
        infeasible_projection(lambda g: np.zeros(2), x0, y0, eps=0.1)
    with pytest.raises(ValueError, match="radius"):
        infeasible_projection(lmo, x0, y0, eps=0.1, radius=-1.0)
    with pytest.raises(ValueError, match="lmo"):
        infeasible_projection("lmo", x0, y0, eps=0.1)
    with pytest.raises(ValueError, match="finite"):
        separating_hyperplane_fw(lmo, x0, [np.inf, 0.0], eps=0.1)
    with pytest.raises(ValueError, match="x1 must lie in the set"):
        separating_hyperplane_fw(lmo, np.zeros(2), y0, eps=0.1)
    with pytest.raises(ValueError, match="max_iter"):
        frank_wolfe_projection(lmo, y0, max_iter=-1)
    with pytest.raises(ValueError, match="tol"):
        frank_wolfe_projection(lmo, y0, tol=0)
    with pytest.raises(ValueError, match="tol"):
        check_infeasible_projection(lmo, y0, x0, x0, 0.1, tol=-1.0)
    with pytest.raises(ValueError, match="shape"):
        frank_wolfe_projection(lambda g: np.zeros(3), y0)
    assert lmo.n_calls_ == 0  # every check ran before any work
