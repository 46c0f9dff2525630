"""Tests of the coordinate and norm-ball LMOs and of every closed-form projection.

Honest oracles only: each LMO is checked against brute force over the
enumerated vertices of its set; each projection against a closed form, an
independent QP solve (SLSQP) or the variational inequality
:math:`\\langle y - P(y), v - P(y) \\rangle \\le 0` checked exhaustively over
the enumerated vertices (the KKT conditions of a projection onto a
polytope).
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from skcgm.oracles import (
    BoxLMO,
    CappedSimplexLMO,
    KSparseLMO,
    L1BallLMO,
    L2BallLMO,
    LinfBallLMO,
    SimplexLMO,
)


def _box_vertices(lower, upper):
    # Row i is the corner with bit j of i set iff coordinate j is at upper:
    # the numbering of BoxLMO and LinfBallLMO.
    d = lower.shape[0]
    bits = (np.arange(2**d)[:, None] >> np.arange(d)) & 1
    return np.where(bits == 1, upper, lower)


def _ksparse_vertices(d, k, bound):
    k = min(k, d)
    vertices = []
    for support in itertools.combinations(range(d), k):
        for signs in itertools.product([-1.0, 1.0], repeat=k):
            v = np.zeros(d)
            v[list(support)] = bound * np.array(signs)
            vertices.append(v)
    return np.array(vertices)


def _assert_optimal(grad, vertex, vertices, atol=1e-12):
    assert grad @ vertex <= (vertices @ grad).min() + atol


def _assert_projection_vi(y, x, vertices, atol=1e-10):
    """<y - x, v - x> <= 0 for every vertex v: x is the projection (KKT)."""
    assert ((vertices - x) @ (y - x)).max() <= atol


def _slsqp_projection(y, constraints, bounds=None):
    """argmin 1/2 ||x - y||^2 by SLSQP at a tight tolerance, from 0."""
    result = minimize(
        lambda x: 0.5 * np.sum((x - y) ** 2),
        np.zeros_like(y),
        jac=lambda x: x - y,
        bounds=bounds,
        constraints=constraints,
        method="SLSQP",
        options={"ftol": 1e-12, "maxiter": 500},
    )
    # Status 8 ("positive directional derivative in the line search") is
    # SLSQP stalling at round-off, next to the optimum.
    assert result.status in (0, 8), result.message
    return result.x


# ---------------------------------------------------------------------------
# BoxLMO and LinfBallLMO


@pytest.mark.parametrize("seed", range(3))
def test_box_lmo_against_brute_force_over_corners(seed):
    rng = np.random.RandomState(seed)
    d = 5
    lower = rng.uniform(-2, 0.5, size=d)
    upper = lower + rng.uniform(0.1, 2, size=d)
    lmo = BoxLMO(lower=lower, upper=upper)
    vertices = _box_vertices(lower, upper)
    for _ in range(40):
        grad = rng.standard_normal(d)
        vertex, index, n_scored = lmo(grad)
        np.testing.assert_array_equal(vertex, vertices[index])
        _assert_optimal(grad, vertex, vertices)
        assert n_scored == d
    assert lmo.n_calls_ == 40
    assert lmo.radius == pytest.approx(np.linalg.norm(vertices, axis=1).max())
    assert lmo.n_features == d


def test_box_lmo_scalar_bounds_and_ties():
    lmo = BoxLMO(lower=-1.0, upper=2.0)
    assert lmo.n_features is None
    vertex, index, _ = lmo(np.array([0.0, -1.0, 3.0]))
    # A zero entry goes to the lower bound.
    np.testing.assert_array_equal(vertex, [-1.0, 2.0, -1.0])
    assert index == 2
    with pytest.raises(ValueError, match="n_features"):
        _ = lmo.radius
    assert BoxLMO(-1.0, 2.0, n_features=3).radius == pytest.approx(2 * np.sqrt(3))
    # Degenerate coordinates (l = u) never set a bit: the id stays unique.
    vertex, index, _ = BoxLMO(lower=[0.0, 1.0], upper=[1.0, 1.0])(np.array([1.0, -1]))
    np.testing.assert_array_equal(vertex, [0.0, 1.0])
    assert index == 0


def test_box_lmo_index_is_minus_one_beyond_62_features():
    _, index, n_scored = BoxLMO(n_features=63)(-np.ones(63))
    assert index == -1 and n_scored == 63
    _, index, _ = BoxLMO(n_features=62)(-np.ones(62))
    assert index == 2**62 - 1


@pytest.mark.parametrize("bound", [0.5, 2.0])
def test_linf_ball_lmo_against_brute_force(bound):
    rng = np.random.RandomState(4)
    d = 4
    lmo = LinfBallLMO(bound=bound, n_features=d)
    vertices = _box_vertices(-bound * np.ones(d), bound * np.ones(d))
    for _ in range(30):
        grad = rng.standard_normal(d)
        vertex, index, n_scored = lmo(grad)
        np.testing.assert_array_equal(vertex, vertices[index])
        _assert_optimal(grad, vertex, vertices)
    assert lmo.radius == pytest.approx(np.linalg.norm(vertices, axis=1).max())
    with pytest.raises(ValueError, match="n_features"):
        _ = LinfBallLMO().radius


def test_box_and_linf_projections_are_clipping_and_kkt():
    rng = np.random.RandomState(5)
    lower, upper = np.array([-1.0, 0.0, 0.5]), np.array([1.0, 2.0, 0.5])
    box = BoxLMO(lower, upper)
    linf = LinfBallLMO(bound=0.7)
    for _ in range(20):
        y = 2 * rng.standard_normal(3)
        x = box.project(y)
        np.testing.assert_array_equal(x, np.minimum(np.maximum(y, lower), upper))
        _assert_projection_vi(y, x, _box_vertices(lower, upper))
        x = linf.project(y)
        np.testing.assert_array_equal(x, np.clip(y, -0.7, 0.7))
        _assert_projection_vi(y, x, _box_vertices(-0.7 * np.ones(3), 0.7 * np.ones(3)))


def test_box_contains_matches_definition():
    rng = np.random.RandomState(6)
    lower, upper = np.array([-1.0, 0.0]), np.array([1.0, 2.0])
    lmo = BoxLMO(lower, upper)
    for _ in range(100):
        x = rng.uniform(-2, 3, size=2)
        assert lmo.contains(x) == bool(np.all((lower <= x) & (x <= upper)))
    assert lmo.contains(np.array([1.0 + 1e-10, 0.0]))
    assert not lmo.contains(np.array([1.0 + 1e-10, 0.0]), tol=0.0)
    assert not lmo.contains(np.array([np.nan, 0.0]))
    assert lmo.contains_origin
    assert not BoxLMO(lower=0.5, upper=1.0).contains_origin


# ---------------------------------------------------------------------------
# Simplex, capped simplex, l1 ball: LMOs and projections


@pytest.mark.parametrize("radius", [1.0, 2.5])
def test_capped_simplex_lmo_against_brute_force(radius):
    rng = np.random.RandomState(7)
    d = 5
    lmo = CappedSimplexLMO(radius=radius)
    # r e_i is numbered i, the origin d.
    vertices = np.vstack([radius * np.eye(d), np.zeros(d)])
    for shift in [0.0, 1.0, -1.0]:
        for _ in range(20):
            grad = rng.standard_normal(d) + shift
            vertex, index, n_scored = lmo(grad)
            np.testing.assert_array_equal(vertex, vertices[index])
            _assert_optimal(grad, vertex, vertices)
            assert n_scored == d
    # Ties between e_i and the origin go to the origin.
    assert lmo(np.array([0.0, 1.0])).index == 2
    assert lmo.radius == radius and lmo.contains_origin


def _simplex_like_cases():
    rng = np.random.RandomState(8)
    for _ in range(15):
        d = rng.randint(1, 7)
        radius = rng.uniform(0.3, 3.0)
        scale = rng.choice([0.1, 1.0, 5.0])
        yield d, radius, scale * rng.standard_normal(d)


@pytest.mark.parametrize("d, radius, y", list(_simplex_like_cases()))
def test_simplex_projection_against_slsqp_and_kkt(d, radius, y):
    x = SimplexLMO(radius=radius).project(y)
    reference = _slsqp_projection(
        y,
        [{"type": "eq", "fun": lambda z: z.sum() - radius}],
        bounds=[(0, None)] * d,
    )
    np.testing.assert_allclose(x, reference, atol=1e-6)
    _assert_projection_vi(y, x, radius * np.eye(d))
    assert SimplexLMO(radius=radius).contains(x)


@pytest.mark.parametrize("d, radius, y", list(_simplex_like_cases()))
def test_capped_simplex_projection_against_slsqp_and_kkt(d, radius, y):
    x = CappedSimplexLMO(radius=radius).project(y)
    reference = _slsqp_projection(
        y,
        [{"type": "ineq", "fun": lambda z: radius - z.sum()}],
        bounds=[(0, None)] * d,
    )
    np.testing.assert_allclose(x, reference, atol=1e-6)
    _assert_projection_vi(y, x, np.vstack([radius * np.eye(d), np.zeros(d)]))
    assert CappedSimplexLMO(radius=radius).contains(x)


@pytest.mark.parametrize("d, radius, y", list(_simplex_like_cases()))
def test_l1_ball_projection_against_slsqp_and_kkt(d, radius, y):
    x = L1BallLMO(radius=radius).project(y)
    # The l1 ball as the smooth QP over (p, q) >= 0, sum(p + q) <= r, x = p - q.
    yy = np.concatenate([y, -y])
    pq = _slsqp_projection(
        yy,
        [{"type": "ineq", "fun": lambda z: radius - z.sum()}],
        bounds=[(0, None)] * (2 * d),
    )
    np.testing.assert_allclose(x, pq[:d] - pq[d:], atol=1e-6)
    _assert_projection_vi(y, x, radius * np.vstack([np.eye(d), -np.eye(d)]))
    assert L1BallLMO(radius=radius).contains(x)


def test_simplex_projections_fix_points_of_the_set_and_copy():
    rng = np.random.RandomState(9)
    w = rng.dirichlet(np.ones(4))
    for lmo, point in [
        (SimplexLMO(radius=2.0), 2.0 * w),
        (CappedSimplexLMO(radius=2.0), 1.5 * w),
        (L1BallLMO(radius=2.0), 1.5 * w * np.array([1, -1, 1, -1])),
    ]:
        before = point.copy()
        x = lmo.project(point)
        np.testing.assert_allclose(x, point, atol=1e-14)
        np.testing.assert_array_equal(point, before)
        assert x is not point and not np.shares_memory(x, point)


def test_simplex_contains_matches_definition():
    lmo = SimplexLMO(radius=2.0, n_features=3)
    assert lmo.contains([1.0, 1.0, 0.0])
    assert not lmo.contains([1.0, 0.5, 0.0])
    assert not lmo.contains([2.5, -0.5, 0.0])
    assert lmo.contains([1.0, 1.0, 1e-10]) and not lmo.contains([1.0, 1, 1e-10], 0)
    assert not lmo.contains_origin
    capped = CappedSimplexLMO(radius=2.0)
    assert capped.contains([1.0, 0.5]) and capped.contains([0.0, 0.0])
    assert not capped.contains([1.0, 1.5]) and not capped.contains([-0.1, 0.0])
    l1 = L1BallLMO(radius=2.0)
    assert l1.contains([1.0, -1.0]) and not l1.contains([1.5, -1.0])


# ---------------------------------------------------------------------------
# L2BallLMO


def test_l2_ball_lmo_is_optimal_against_points_of_the_sphere():
    rng = np.random.RandomState(10)
    lmo = L2BallLMO(radius=1.5)
    sphere = rng.standard_normal((2000, 3))
    sphere *= 1.5 / np.linalg.norm(sphere, axis=1, keepdims=True)
    for _ in range(20):
        grad = rng.standard_normal(3)
        vertex, index, n_scored = lmo(grad)
        np.testing.assert_allclose(vertex, -1.5 * grad / np.linalg.norm(grad))
        # Cauchy-Schwarz: the minimum over the ball is -r ||g||.
        assert grad @ vertex == pytest.approx(-1.5 * np.linalg.norm(grad))
        _assert_optimal(grad, vertex, sphere)
        assert (index, n_scored) == (-1, -1)


def test_l2_ball_lmo_zero_and_extreme_directions():
    vertex = L2BallLMO(radius=2.0)(np.zeros(3)).vertex
    np.testing.assert_array_equal(vertex, [-2.0, 0.0, 0.0])
    # No overflow or underflow of the squared norm.
    for scale in [1e-200, 1e200]:
        vertex = L2BallLMO()(np.array([3.0, 4.0]) * scale).vertex
        np.testing.assert_allclose(vertex, [-0.6, -0.8])


def test_l2_ball_projection_closed_form_and_contains():
    rng = np.random.RandomState(11)
    lmo = L2BallLMO(radius=2.0)
    for _ in range(20):
        y = 3 * rng.standard_normal(4)
        x = lmo.project(y)
        expected = y * min(1.0, 2.0 / np.linalg.norm(y))
        np.testing.assert_allclose(x, expected, rtol=1e-14)
        assert lmo.contains(x)
        assert lmo.contains(y) == (np.linalg.norm(y) <= 2.0)
        # The variational inequality against many points of the ball.
        z = rng.standard_normal((500, 4))
        z *= 2.0 * rng.uniform(size=(500, 1)) / np.linalg.norm(z, axis=1, keepdims=True)
        assert ((z - x) @ (y - x)).max() <= 1e-10


# ---------------------------------------------------------------------------
# KSparseLMO


@pytest.mark.parametrize("d, k", [(4, 1), (4, 2), (5, 3), (3, 3), (3, 5)])
def test_ksparse_lmo_against_brute_force(d, k):
    rng = np.random.RandomState(12)
    lmo = KSparseLMO(n_nonzero=k, bound=0.5)
    vertices = _ksparse_vertices(d, k, 0.5)
    for _ in range(30):
        grad = rng.standard_normal(d)
        vertex, index, n_scored = lmo(grad)
        # A vertex of the set (exactly min(k, d) entries +-b) and optimal.
        assert np.any(np.all(vertices == vertex, axis=1))
        _assert_optimal(grad, vertex, vertices)
        assert (index, n_scored) == (-1, d)
    # A zero direction still gives a vertex.
    assert np.any(np.all(vertices == lmo(np.zeros(d)).vertex, axis=1))
    exact = KSparseLMO(n_nonzero=k, bound=0.5, n_features=d)
    assert exact.radius == pytest.approx(np.linalg.norm(vertices, axis=1).max())
    assert lmo.radius == pytest.approx(0.5 * np.sqrt(k))


def _ksparse_cases():
    rng = np.random.RandomState(13)
    for _ in range(12):
        d = rng.randint(2, 6)
        k = rng.randint(1, d + 1)
        bound = rng.uniform(0.2, 2.0)
        yield d, k, bound, rng.choice([0.3, 1.0, 4.0]) * rng.standard_normal(d)


@pytest.mark.parametrize("d, k, bound, y", list(_ksparse_cases()))
def test_ksparse_projection_against_kkt_and_slsqp(d, k, bound, y):
    lmo = KSparseLMO(n_nonzero=k, bound=bound)
    x = lmo.project(y)
    assert lmo.contains(x)
    _assert_projection_vi(y, x, _ksparse_vertices(d, k, bound))
    # The smooth QP over (p, q): 0 <= p, q <= b, sum(p + q) <= k b.
    pq = _slsqp_projection(
        np.concatenate([y, -y]),
        [{"type": "ineq", "fun": lambda z: k * bound - z.sum()}],
        bounds=[(0, bound)] * (2 * d),
    )
    np.testing.assert_allclose(x, pq[:d] - pq[d:], atol=1e-6)


def test_ksparse_projection_on_ties_and_large_inputs():
    # Equal magnitudes: the threshold splits them evenly.
    x = KSparseLMO(n_nonzero=1, bound=1.0).project(np.array([2.0, -2.0, 2.0]))
    np.testing.assert_allclose(x, [1 / 3, -1 / 3, 1 / 3])
    rng = np.random.RandomState(14)
    y = 3 * rng.standard_normal(2000)
    lmo = KSparseLMO(n_nonzero=50, bound=0.8)
    x = lmo.project(y)
    assert np.abs(x).sum() == pytest.approx(50 * 0.8)
    assert lmo.contains(x, tol=1e-9)
    # The variational inequality at the LMO's vertex (exact for a polytope).
    v = lmo(-(y - x)).vertex
    assert (y - x) @ (v - x) <= 1e-9


def test_ksparse_contains_matches_definition():
    lmo = KSparseLMO(n_nonzero=2, bound=1.0)
    assert lmo.contains([1.0, -1.0, 0.0]) and lmo.contains([0.7, 0.7, 0.6])
    assert not lmo.contains([1.0, 1.0, 0.1]) and not lmo.contains([1.2, 0.0, 0.0])


# ---------------------------------------------------------------------------
# Shared behaviour of the closed-form sets


_CLOSED_FORM = [
    BoxLMO(lower=-1.0, upper=2.0),
    LinfBallLMO(),
    CappedSimplexLMO(),
    L2BallLMO(),
    KSparseLMO(2),
    SimplexLMO(),
    L1BallLMO(),
]


@pytest.mark.parametrize("lmo", _CLOSED_FORM, ids=repr)
def test_closed_form_lmos_keep_float32_and_never_modify_inputs(lmo):
    grad = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    before = grad.copy()
    vertex = lmo(grad).vertex
    assert vertex.dtype == np.float32
    np.testing.assert_array_equal(grad, before)
    assert lmo(np.array([1, -2, 0])).vertex.dtype == np.float64
    y = np.array([3.0, -2.0, 0.5])
    before = y.copy()
    x = lmo.project(y)
    np.testing.assert_array_equal(y, before)
    assert x.dtype == np.float64 and not np.shares_memory(x, y)
    # Projections are idempotent and land in the set.
    assert lmo.contains(x)
    np.testing.assert_allclose(lmo.project(x), x, atol=1e-12)


@pytest.mark.parametrize(
    "lmo, name",
    [
        (BoxLMO(lower=2.0, upper=1.0), "lower"),
        (BoxLMO(lower=np.nan), "lower"),
        (BoxLMO(upper=[[1.0]]), "upper"),
        (BoxLMO(lower=[0.0, 0.0], upper=[1.0, 1.0, 1.0]), "upper"),
        (BoxLMO(upper=[1.0, 1.0], n_features=3), "upper"),
        (BoxLMO(n_features=0), "n_features"),
        (LinfBallLMO(bound=-1.0), "bound"),
        (LinfBallLMO(n_features=2.5), "n_features"),
        (CappedSimplexLMO(radius=0.0), "radius"),
        (L2BallLMO(radius=np.inf), "radius"),
        (L2BallLMO(radius=True), "radius"),
        (KSparseLMO(n_nonzero=0), "n_nonzero"),
        (KSparseLMO(n_nonzero=1.5), "n_nonzero"),
        (KSparseLMO(n_nonzero=2, bound="1"), "bound"),
        (SimplexLMO(n_features=-3), "n_features"),
    ],
    ids=repr,
)
def test_closed_form_lmos_reject_bad_parameters(lmo, name):
    for call in [
        lambda: lmo(np.ones(3)),
        lambda: lmo.contains(np.ones(3)),
        lambda: lmo.project(np.ones(3)),
        lambda: lmo.radius,
    ]:
        with pytest.raises(ValueError, match=name):
            call()


def test_closed_form_lmos_reject_bad_points():
    lmo = BoxLMO(upper=[1.0, 2.0])
    with pytest.raises(ValueError, match="features"):
        lmo(np.ones(3))
    with pytest.raises(ValueError, match="finite"):
        lmo(np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match="finite"):
        lmo.project(np.array([np.inf, 1.0]))
    with pytest.raises(ValueError, match="1-D"):
        lmo.project(np.ones((2, 1)))
    with pytest.raises(ValueError, match="real"):
        lmo(np.array([1j, 1.0]))
    with pytest.raises(ValueError, match="tol"):
        lmo.contains(np.ones(2), tol=-1.0)
    # A failed call does not count.
    assert lmo.n_calls_ == 0
