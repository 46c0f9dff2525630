"""Tests of the linear minimization oracles against brute force over vertices.

The shared protocol (counters, clone, pickle, repr, contains, radius) for
every LMO of :mod:`skcgm.oracles`, and the LP-based, matrix and product
oracles; the coordinate and norm-ball sets are in ``test_lmo_sets.py``.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import inspect
import itertools
import pickle
import warnings

import joblib
import numpy as np
import pytest
from scipy.optimize import linprog, minimize
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skcgm import oracles
from skcgm.online import POBGA
from skcgm.oracles import (
    BirkhoffLMO,
    BoxLMO,
    CappedSimplexLMO,
    ConvexHullLMO,
    DownClosedPolytopeLMO,
    ExactMIPS,
    KSparseLMO,
    L1BallLMO,
    L2BallLMO,
    LinfBallLMO,
    LMOResult,
    NuclearNormBallLMO,
    PolytopeLMO,
    ProductLMO,
    SimplexLMO,
)


class _ArgmaxIndex:
    """A tiny exact MIPS index: argmax_i <q, a_i>, scoring every atom."""

    def fit(self, atoms):
        self.atoms_ = np.asarray(atoms)
        return self

    def query(self, q):
        scores = self.atoms_ @ q
        i = int(np.argmax(scores))
        return i, float(scores[i]), self.atoms_.shape[0]


def _simplex_vertices(d, radius):
    return radius * np.eye(d)


def _l1_vertices(d, radius):
    # Numbered as L1BallLMO numbers them: +r e_i is i, -r e_i is d + i.
    return radius * np.vstack([np.eye(d), -np.eye(d)])


@pytest.mark.parametrize(
    "lmo, vertices",
    [
        (SimplexLMO(), _simplex_vertices(5, 1.0)),
        (SimplexLMO(radius=2.5), _simplex_vertices(5, 2.5)),
        (L1BallLMO(), _l1_vertices(5, 1.0)),
        (L1BallLMO(radius=0.3), _l1_vertices(5, 0.3)),
    ],
)
def test_lmo_vertex_is_optimal_against_brute_force(lmo, vertices):
    rng = np.random.RandomState(0)
    for _ in range(50):
        grad = rng.standard_normal(5)
        result = lmo(grad)
        assert isinstance(result, LMOResult)
        vertex, index, n_scored = result
        # The answer is a vertex of the set, numbered as documented.
        np.testing.assert_array_equal(vertex, vertices[index])
        # Optimal: no vertex (hence no point of the set) does better.
        assert grad @ vertex <= (vertices @ grad).min() + 1e-12
        assert n_scored == 5


def test_simplex_lmo_ties_to_lowest_index_and_keeps_dtype():
    vertex, index, _ = SimplexLMO()(np.array([1.0, -2.0, -2.0], dtype=np.float32))
    assert index == 1
    assert vertex.dtype == np.float32


def test_l1_ball_lmo_zero_direction_returns_a_vertex():
    vertex, index, _ = L1BallLMO(radius=2.0)(np.zeros(3))
    assert np.abs(vertex).sum() == pytest.approx(2.0)
    np.testing.assert_array_equal(vertex, _l1_vertices(3, 2.0)[index])


@pytest.mark.parametrize("radius", [0.0, -1.0, "1"])
def test_lmo_rejects_bad_radius(radius):
    with pytest.raises(ValueError, match="radius"):
        SimplexLMO(radius=radius)(np.ones(2))
    with pytest.raises(ValueError, match="radius"):
        L1BallLMO(radius=radius)(np.ones(2))


def test_lmo_rejects_non_vector_direction():
    with pytest.raises(ValueError, match="1-D"):
        SimplexLMO()(np.ones((2, 2)))


def _assert_argmin_over_atoms(lmo, atoms, rng):
    """For 30 directions drawn from ``rng``: the atom of least inner product,
    every atom scored."""
    for _ in range(30):
        grad = rng.standard_normal(atoms.shape[1])
        vertex, index, n_scored = lmo(grad)
        assert index == np.argmin(atoms @ grad)
        np.testing.assert_array_equal(vertex, atoms[index])
        assert n_scored == atoms.shape[0]


@pytest.mark.parametrize("chunk_size", [1, 3, 65536])
def test_convex_hull_lmo_exact_scan_equals_argmin_over_atoms(chunk_size):
    rng = np.random.RandomState(1)
    atoms = rng.standard_normal((40, 6))
    lmo = ConvexHullLMO(chunk_size=chunk_size).fit(atoms)
    _assert_argmin_over_atoms(lmo, atoms, rng)


def _mips_indexes():
    indexes = [_ArgmaxIndex()]
    try:
        from skcgm.oracles import ExactMIPS
    except ImportError:  # pragma: no cover - the MIPS module is optional here
        return indexes
    return [*indexes, ExactMIPS()]


@pytest.mark.parametrize("mips", _mips_indexes(), ids=lambda m: type(m).__name__)
def test_convex_hull_lmo_with_exact_mips_equals_argmin_over_atoms(mips):
    rng = np.random.RandomState(2)
    atoms = rng.standard_normal((50, 4))
    lmo = ConvexHullLMO(mips=mips).fit(atoms)
    # The given index is left unfitted; a fitted copy is stored.
    assert lmo.mips_ is not mips
    assert not hasattr(mips, "atoms_")
    _assert_argmin_over_atoms(lmo, atoms, rng)


def test_convex_hull_lmo_vertex_optimal_over_hull_points():
    # Brute force over random convex combinations of the atoms: none beats
    # the returned vertex.
    rng = np.random.RandomState(3)
    atoms = rng.uniform(size=(8, 3))
    lmo = ConvexHullLMO().fit(atoms)
    weights = rng.dirichlet(np.ones(8), size=500)
    points = weights @ atoms
    for _ in range(10):
        grad = rng.standard_normal(3)
        vertex, _, _ = lmo(grad)
        assert grad @ vertex <= (points @ grad).min() + 1e-12


def test_convex_hull_lmo_errors():
    with pytest.raises(NotFittedError):
        ConvexHullLMO()(np.ones(2))
    lmo = ConvexHullLMO().fit(np.eye(3))
    with pytest.raises(ValueError, match="features"):
        lmo(np.ones(2))
    with pytest.raises(ValueError, match="mips"):
        ConvexHullLMO(mips="exact").fit(np.eye(3))
    with pytest.raises(ValueError, match="chunk_size"):
        ConvexHullLMO(chunk_size=0).fit(np.eye(3))


def test_lmos_pickle_clone_and_repr():
    lmo = ConvexHullLMO(mips=_ArgmaxIndex()).fit(np.eye(3))
    restored = pickle.loads(pickle.dumps(lmo))
    assert restored(np.array([0.0, -1.0, 0.0])).index == 1
    assert clone(SimplexLMO(radius=3.0)).radius == 3.0
    assert repr(L1BallLMO(radius=2.0)) == "L1BallLMO(radius=2.0)"
    assert clone(ConvexHullLMO(chunk_size=7)).get_params()["chunk_size"] == 7


# ---------------------------------------------------------------------------
# The protocol, shared by every LMO of skcgm.oracles


def _all_lmos():
    """One instance of every LMO, all of dimension 4."""
    rng = np.random.RandomState(20)
    return [
        SimplexLMO(n_features=4),
        L1BallLMO(radius=2.0),
        ConvexHullLMO().fit(rng.standard_normal((6, 4))),
        BoxLMO(lower=-1.0, upper=[1.0, 2.0, 0.5, 1.0]),
        CappedSimplexLMO(radius=1.5),
        L2BallLMO(),
        LinfBallLMO(bound=0.5, n_features=4),
        KSparseLMO(n_nonzero=2, n_features=4),
        NuclearNormBallLMO(radius=2.0, shape=(2, 2)),
        BirkhoffLMO(n=2),
        PolytopeLMO(A_ub=[[1.0, 1.0, 1.0, 1.0]], b_ub=[2.0], bounds=(-1, 1)),
        DownClosedPolytopeLMO(A=rng.uniform(size=(3, 4)), b=np.ones(3)),
        ProductLMO([SimplexLMO(n_features=2), L2BallLMO(n_features=2)]),
    ]


@pytest.mark.parametrize("lmo", _all_lmos(), ids=lambda lmo: type(lmo).__name__)
def test_lmo_protocol(lmo):
    rng = np.random.RandomState(21)
    lmo.reset_counter()
    assert lmo.n_calls_ == 0
    radius = lmo.radius
    assert isinstance(radius, float) and radius > 0
    assert lmo.n_features in (None, 4)
    for call in range(1, 6):
        grad = rng.standard_normal(4)
        before = grad.copy()
        result = lmo(grad)
        assert isinstance(result, LMOResult)
        vertex, index, n_scored = result
        assert isinstance(vertex, np.ndarray) and vertex.shape == (4,)
        assert vertex.dtype == np.float64
        assert not np.shares_memory(vertex, grad)
        assert isinstance(index, int) and isinstance(n_scored, int)
        assert index >= -1 and n_scored >= -1
        np.testing.assert_array_equal(grad, before)
        assert lmo.contains(vertex, tol=1e-8)
        assert np.linalg.norm(vertex) <= radius + 1e-9
        assert lmo.n_calls_ == call
    # Vertices are new arrays: writing to one leaves the oracle intact.
    grad = rng.standard_normal(4)
    first = lmo(grad).vertex
    expected = first.copy()
    first[:] = 123.0
    np.testing.assert_array_equal(lmo(grad).vertex, expected)
    assert lmo.reset_counter() is lmo and lmo.n_calls_ == 0
    assert lmo.contains_origin == lmo.contains(np.zeros(4))
    if hasattr(lmo, "project"):
        y = 3 * rng.standard_normal(4)
        x = lmo.project(y)
        assert lmo.contains(x)
        np.testing.assert_allclose(lmo.project(x), x, atol=1e-9)
        # The projection inequality, checked with one LMO call (exact for
        # a convex set): <y - x, s - x> <= 0 at s = argmax <y - x, s>.
        s = lmo(x - y).vertex
        assert (y - x) @ (s - x) <= 1e-8
        assert lmo.n_calls_ == 1


@pytest.mark.parametrize("lmo", _all_lmos(), ids=lambda lmo: type(lmo).__name__)
def test_lmo_clone_pickle_and_repr(lmo):
    grad = np.array([0.3, -1.0, 0.2, 0.5])
    expected = lmo(grad)
    restored = pickle.loads(pickle.dumps(lmo))
    np.testing.assert_array_equal(restored(grad).vertex, expected.vertex)
    assert restored.n_calls_ == 2
    cloned = clone(lmo)
    assert type(cloned) is type(lmo) and cloned.n_calls_ == 0
    assert set(cloned.get_params()) == set(lmo.get_params())
    if not isinstance(lmo, ConvexHullLMO):  # clone drops the fitted atoms
        np.testing.assert_array_equal(cloned(grad).vertex, expected.vertex)
    assert repr(lmo).startswith(type(lmo).__name__ + "(")
    with pytest.raises(ValueError, match="Invalid parameter"):
        lmo.set_params(not_a_parameter=1)


def test_all_lmos_covers_every_exported_lmo_class():
    exported = {
        name
        for name in oracles.__all__
        if name.endswith("LMO") and inspect.isclass(getattr(oracles, name))
    }
    assert {type(lmo).__name__ for lmo in _all_lmos()} == exported


@pytest.mark.parametrize("lmo", _all_lmos(), ids=lambda lmo: type(lmo).__name__)
def test_lmo_params_round_trip_through_clone_and_set_params(lmo):
    params = lmo.get_params(deep=True)
    cloned = clone(lmo)
    assert joblib.hash(cloned.get_params(deep=True)) == joblib.hash(params)
    assert repr(cloned) == repr(lmo)
    # set_params with the object's own parameters changes nothing.
    assert cloned.set_params(**cloned.get_params(deep=False)) is cloned
    assert joblib.hash(cloned.get_params(deep=True)) == joblib.hash(params)
    with pytest.raises(ValueError, match="Invalid parameter 'nope'"):
        cloned.set_params(nope=1)


@pytest.mark.parametrize("lmo", _all_lmos(), ids=lambda lmo: type(lmo).__name__)
def test_lmo_html_repr(lmo):
    html = lmo._repr_html_()
    assert isinstance(html, str) and type(lmo).__name__ in html
    bundle = lmo._repr_mimebundle_()
    assert bundle["text/plain"] == repr(lmo)
    assert type(lmo).__name__ in bundle["text/html"]


def test_nested_parameters_of_a_convex_hull_lmo():
    # The MIPS index of a ConvexHullLMO is a nested parameter, and the LMO
    # of a learner one level above it.
    lmo = ConvexHullLMO(mips=ExactMIPS(block_size=5))
    assert lmo.get_params(deep=True)["mips__block_size"] == 5
    assert lmo.set_params(mips__block_size=7).mips.block_size == 7
    learner = POBGA(lmo, horizon=10)
    assert learner.get_params(deep=True)["lmo__mips__block_size"] == 7
    learner.set_params(lmo__chunk_size=3, lmo__mips__block_size=2)
    assert lmo.chunk_size == 3 and lmo.mips.block_size == 2
    cloned = clone(learner)
    assert cloned.lmo is not lmo and cloned.lmo.mips is not lmo.mips
    assert cloned.get_params(deep=True)["lmo__mips__block_size"] == 2
    # A fitted ConvexHullLMO (it has fit) is drawn inside the learner's diagram.
    lmo.fit(np.eye(3))
    html = learner._repr_html_()
    assert "POBGA" in html and "ConvexHullLMO" in html


def test_repr_shows_changed_parameters_and_array_shapes():
    assert repr(SimplexLMO()) == "SimplexLMO()"
    # Sorted by name, as scikit-learn's repr.
    assert repr(BoxLMO(upper=2.0, n_features=3)) == "BoxLMO(n_features=3, upper=2.0)"
    lmo = DownClosedPolytopeLMO(A=np.ones((4, 5)), b=np.ones(4))
    assert repr(lmo) == (
        "DownClosedPolytopeLMO(A=<ndarray of shape (4, 5)>, b=array([1., 1., 1., 1.]))"
    )
    assert repr(lmo.set_params(upper=0.5)).endswith("upper=0.5)")


def test_get_params_returns_raw_values_for_computed_properties():
    # `radius` and `n_features` are also protocol properties computed from
    # the parameters; get_params must return what was given (clone checks).
    lmo = PolytopeLMO(bounds=[(0, 1), (0, 2)])
    assert lmo.get_params()["radius"] is None
    assert lmo.radius == pytest.approx(np.sqrt(5))
    box = BoxLMO(upper=[1.0, 1.0])
    assert box.get_params()["n_features"] is None and box.n_features == 2
    assert clone(lmo).get_params()["radius"] is None


# ---------------------------------------------------------------------------
# Polytopes by linear programming: brute force by vertex enumeration


def _box_rows(lower, upper):
    d = lower.shape[0]
    return np.vstack([-np.eye(d), np.eye(d)]), np.concatenate([-lower, upper])


@pytest.mark.parametrize("seed", range(4))
def test_polytope_lmo_against_vertex_enumeration(seed, polytope_vertices):
    rng = np.random.RandomState(seed)
    d = 3
    A_ub = rng.standard_normal((3, d))
    b_ub = rng.uniform(0.5, 1.5, size=3)
    lower, upper = -np.ones(d), rng.uniform(0.5, 2.0, size=d)
    lmo = PolytopeLMO(A_ub=A_ub, b_ub=b_ub, bounds=list(zip(lower, upper)))
    G_box, h_box = _box_rows(lower, upper)
    vertices = polytope_vertices(
        np.vstack([A_ub, G_box]), np.concatenate([b_ub, h_box])
    )
    for _ in range(20):
        grad = rng.standard_normal(d)
        vertex, index, n_scored = lmo(grad)
        assert grad @ vertex <= (vertices @ grad).min() + 1e-9
        # HiGHS returns a vertex (a basic solution).
        assert np.abs(vertices - vertex).max(axis=1).min() <= 1e-8
        assert (index, n_scored) == (-1, -1)
    assert lmo.n_features == d
    assert lmo.radius == pytest.approx(np.linalg.norm(np.maximum(1.0, upper)))
    assert lmo.radius >= np.linalg.norm(vertices, axis=1).max() - 1e-12


def test_polytope_lmo_with_equalities_and_contains():
    # The simplex {x >= 0, sum x = 1} as a general polytope.
    lmo = PolytopeLMO(A_eq=np.ones((1, 3)), b_eq=[1.0], radius=1.0)
    rng = np.random.RandomState(22)
    for _ in range(10):
        grad = rng.standard_normal(3)
        np.testing.assert_allclose(lmo(grad).vertex, SimplexLMO()(grad).vertex)
    assert lmo.contains([0.2, 0.3, 0.5]) and not lmo.contains([0.2, 0.3, 0.6])
    assert not lmo.contains([-0.1, 0.6, 0.5]) and not lmo.contains_origin
    assert lmo.radius == 1.0
    cube = PolytopeLMO(A_ub=[[1.0, 1.0]], b_ub=[1.5], bounds=(0, 1))
    for _ in range(50):
        x = rng.uniform(-0.2, 1.2, size=2)
        inside = bool(np.all(x >= 0) and np.all(x <= 1) and x.sum() <= 1.5)
        assert cube.contains(x) == inside
    assert cube.contains_origin


def test_polytope_lmo_errors():
    with pytest.raises(ValueError, match="empty"):
        PolytopeLMO(A_ub=[[1.0, 1.0]], b_ub=[-1.0])(np.ones(2))
    with pytest.raises(ValueError, match="unbounded"):
        PolytopeLMO(A_ub=[[1.0, -1.0]], b_ub=[1.0])(np.array([-1.0, -1.0]))
    with pytest.raises(ValueError, match="radius"):
        _ = PolytopeLMO(A_ub=[[1.0, 1.0]], b_ub=[1.0]).radius
    with pytest.raises(ValueError, match="radius"):
        _ = PolytopeLMO(bounds=(0, 1)).radius  # no dimension
    assert PolytopeLMO(bounds=(0, 1)).n_features is None
    bad = [
        (dict(A_ub=[[1.0, 1.0]]), "A_ub"),
        (dict(A_ub=[[1.0, 1.0]], b_ub=[1.0, 2.0]), "b_ub"),
        (dict(A_ub=[1.0, 1.0], b_ub=[1.0]), "A_ub"),
        (dict(A_ub=[[1.0, np.nan]], b_ub=[1.0]), "A_ub"),
        (dict(A_ub=[[1.0, 1.0]], b_ub=[1.0], A_eq=[[1.0]], b_eq=[1.0]), "A_eq"),
        (dict(bounds=(1, 0)), "bounds"),
        (dict(bounds="zero"), "bounds"),
        (dict(bounds=(0, "a")), "bounds"),
        (dict(A_ub=[[1.0, 1.0]], b_ub=[1.0], bounds=[(0, 1)] * 3), "bounds"),
        (dict(bounds=(0, 1), radius=-1.0), "radius"),
    ]
    for params, name in bad:
        with pytest.raises(ValueError, match=name):
            PolytopeLMO(**params)(np.ones(2))


def _random_packing(rng, n_constraints, n_features):
    A = rng.uniform(size=(n_constraints, n_features))
    A *= rng.uniform(size=A.shape) < 0.8
    return A, rng.uniform(0.3, 1.5, size=n_constraints)


@pytest.mark.parametrize("seed", range(4))
def test_down_closed_lmo_against_vertex_enumeration(seed, polytope_vertices):
    rng = np.random.RandomState(seed)
    d = 3
    A, b = _random_packing(rng, 2, d)
    upper = rng.uniform(0.3, 1.5, size=d)
    lmo = DownClosedPolytopeLMO(A=A, b=b, upper=upper)
    G_box, h_box = _box_rows(np.zeros(d), upper)
    vertices = polytope_vertices(np.vstack([A, G_box]), np.concatenate([b, h_box]))
    for _ in range(20):
        grad = rng.standard_normal(d) + rng.choice([0.0, 1.0])
        vertex = lmo(grad).vertex
        assert grad @ vertex <= (vertices @ grad).min() + 1e-9
        # Still a vertex, although the LP only sees the coordinates g_i < 0.
        assert np.abs(vertices - vertex).max(axis=1).min() <= 1e-8
    np.testing.assert_array_equal(lmo(np.ones(d)).vertex, np.zeros(d))
    assert lmo.radius == pytest.approx(np.linalg.norm(upper))
    assert lmo.radius >= np.linalg.norm(vertices, axis=1).max()
    assert lmo.n_features == d and lmo.contains_origin


def test_down_closed_lmo_against_linprog_in_higher_dimension():
    rng = np.random.RandomState(23)
    A, b = _random_packing(rng, 5, 30)
    lmo = DownClosedPolytopeLMO(A=A, b=b, upper=1.0)
    for _ in range(10):
        grad = rng.standard_normal(30)
        res = linprog(grad, A_ub=A, b_ub=b, bounds=(0, 1), method="highs")
        vertex = lmo(grad).vertex
        assert grad @ vertex == pytest.approx(res.fun, abs=1e-9)
        assert lmo.contains(vertex)


def _down_closed_cases():
    rng = np.random.RandomState(24)
    for _ in range(10):
        d, m = rng.randint(2, 8), rng.randint(1, 4)
        A, b = _random_packing(rng, m, d)
        upper = rng.uniform(0.2, 1.5, size=d)
        y = rng.choice([0.5, 2.0]) * rng.standard_normal(d) + 0.3
        yield A, b, upper, y


@pytest.mark.parametrize("A, b, upper, y", list(_down_closed_cases()))
def test_down_closed_projection_against_slsqp_and_kkt(
    A, b, upper, y, polytope_vertices
):
    lmo = DownClosedPolytopeLMO(A=A, b=b, upper=upper)
    x = lmo.project(y)
    # Feasible exactly (no tolerance).
    assert lmo.contains(x, tol=0.0)
    result = minimize(
        lambda z: 0.5 * np.sum((z - y) ** 2),
        np.zeros_like(y),
        jac=lambda z: z - y,
        bounds=list(zip(np.zeros_like(upper), upper)),
        constraints=[{"type": "ineq", "fun": lambda z: b - A @ z, "jac": lambda z: -A}],
        method="SLSQP",
        options={"ftol": 1e-12, "maxiter": 500},
    )
    assert result.status in (0, 8), result.message
    np.testing.assert_allclose(x, result.x, atol=1e-6)
    # The projection inequality against every vertex: exact KKT.
    d = y.shape[0]
    G_box, h_box = _box_rows(np.zeros(d), upper)
    vertices = polytope_vertices(np.vstack([A, G_box]), np.concatenate([b, h_box]))
    assert ((vertices - x) @ (y - x)).max() <= 1e-10


def test_down_closed_projection_to_round_off_on_the_nqp_scale():
    # The NQP benchmark's set (A ~ U[0, 1], b = 1, u = 1): the gap of the
    # projection inequality, max_s <y - x, s - x> over the set (one LP), is
    # at round-off level, and the point is feasible exactly.
    rng = np.random.RandomState(25)
    A = rng.uniform(size=(10, 200))
    lmo = DownClosedPolytopeLMO(A=A, b=np.ones(10))
    for scale in [0.05, 1.0]:
        y = scale * rng.standard_normal(200) + 0.05
        x = lmo.project(y)
        assert lmo.contains(x, tol=0.0)
        res = linprog(-(y - x), A_ub=A, b_ub=np.ones(10), bounds=(0, 1), method="highs")
        assert -res.fun - (y - x) @ x <= 1e-10
    # Points of the set are fixed points; b = 0 rows force coordinates to 0.
    inside = lmo.project(np.full(200, 1e-3))
    np.testing.assert_array_equal(inside, np.full(200, 1e-3))
    zero_row = DownClosedPolytopeLMO(A=[[1.0, 0.0], [1.0, 1.0]], b=[0.0, 1.0])
    np.testing.assert_allclose(zero_row.project([2.0, 3.0]), [0.0, 1.0])


def test_down_closed_errors():
    bad = [
        (dict(A=[[1.0, -1.0]], b=[1.0]), "A"),
        (dict(A=[1.0, 1.0], b=[1.0]), "A"),
        (dict(A=[[1.0, 1.0]], b=[-1.0]), "b"),
        (dict(A=[[1.0, 1.0]], b=[1.0, 1.0]), "b"),
        (dict(A=[[1.0, 1.0]], b=[1.0], upper=[1.0, 1.0, 1.0]), "upper"),
        (dict(A=[[1.0, 1.0]], b=[1.0], upper=-1.0), "upper"),
    ]
    for params, name in bad:
        lmo = DownClosedPolytopeLMO(**params)
        for call in [lmo, lmo.project]:
            with pytest.raises(ValueError, match=f"'{name}'"):
                call(np.ones(2))


# ---------------------------------------------------------------------------
# Birkhoff polytope, nuclear-norm ball, products


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_birkhoff_lmo_against_brute_force_over_permutations(n):
    rng = np.random.RandomState(26)
    # itertools yields permutations in lexicographic order, the numbering.
    vertices = np.array(
        [np.eye(n)[list(p)].ravel() for p in itertools.permutations(range(n))]
    )
    lmo = BirkhoffLMO(n=n)
    for _ in range(15):
        grad = rng.standard_normal(n * n)
        vertex, index, n_scored = lmo(grad)
        np.testing.assert_array_equal(vertex, vertices[index])
        assert grad @ vertex <= (vertices @ grad).min() + 1e-12
        assert n_scored == -1
    assert lmo.radius == pytest.approx(np.sqrt(n)) and lmo.n_features == n * n


def test_birkhoff_contains_index_and_errors():
    lmo = BirkhoffLMO(n=3)
    rng = np.random.RandomState(27)
    weights = rng.dirichlet(np.ones(6))
    permutations = [np.eye(3)[list(p)] for p in itertools.permutations(range(3))]
    doubly_stochastic = sum(w * p for w, p in zip(weights, permutations))
    assert lmo.contains(doubly_stochastic.ravel())
    assert not lmo.contains((doubly_stochastic * 1.01).ravel())
    assert not lmo.contains_origin
    # Beyond 20! > 2**63 the rank is not returned.
    assert BirkhoffLMO(n=21)(rng.standard_normal(441)).index == -1
    assert BirkhoffLMO(n=20)(-np.eye(20).ravel()).index == 0
    with pytest.raises(ValueError, match="'n'"):
        BirkhoffLMO(n=0)(np.ones(1))


@pytest.mark.parametrize("shape", [(2, 3), (4, 4), (120, 101)])
def test_nuclear_norm_lmo_attains_the_dual_norm(shape):
    # min over the ball of <G, X> is -r ||G||_2 (spectral norm), attained at
    # a rank-one matrix of nuclear norm r; (120, 101) takes the svds path.
    rng = np.random.RandomState(28)
    lmo = NuclearNormBallLMO(radius=1.5, shape=shape)
    for _ in range(3):
        grad = rng.standard_normal(shape[0] * shape[1])
        vertex, index, n_scored = lmo(grad)
        spectral = np.linalg.norm(grad.reshape(shape), 2)
        assert grad @ vertex == pytest.approx(-1.5 * spectral, rel=1e-10)
        singular = np.linalg.svd(vertex.reshape(shape), compute_uv=False)
        assert singular[0] == pytest.approx(1.5) and singular[1] < 1e-10
        assert (index, n_scored) == (-1, -1)
    # A deterministic answer (fixed ARPACK start).
    np.testing.assert_array_equal(lmo(grad).vertex, vertex)
    np.testing.assert_array_equal(
        NuclearNormBallLMO(radius=2.0, shape=(2, 2))(np.zeros(4)).vertex,
        [-2.0, 0.0, 0.0, 0.0],
    )


def test_nuclear_norm_projection_kkt_and_contains():
    rng = np.random.RandomState(29)
    lmo = NuclearNormBallLMO(radius=1.0, shape=(3, 4))
    for _ in range(10):
        y = rng.standard_normal(12)
        x = lmo.project(y)
        singular = np.linalg.svd(x.reshape(3, 4), compute_uv=False)
        assert singular.sum() <= 1.0 + 1e-12
        # Variational inequality: max over the ball of <y - x, z> is
        # r ||y - x||_2 (spectral norm), so <y - x, z - x> <= 0 for all z.
        gap = np.linalg.norm((y - x).reshape(3, 4), 2) - (y - x) @ x
        assert gap <= 1e-10
        assert lmo.contains(y) == (
            np.linalg.svd(y.reshape(3, 4), compute_uv=0).sum() <= 1
        )
    small = 0.1 * rng.standard_normal(12) / 10
    np.testing.assert_array_equal(lmo.project(small), small)
    for params, name in [
        (dict(), "shape"),
        (dict(shape=(2, 0)), "shape"),
        (dict(shape=(2.0, 2)), "shape"),
        (dict(shape=(2, 2), radius=-1.0), "radius"),
    ]:
        with pytest.raises(ValueError, match=name):
            NuclearNormBallLMO(**params)(np.ones(4))


def test_product_lmo_against_brute_force_over_the_product_of_vertices():
    rng = np.random.RandomState(30)
    lmo = ProductLMO([SimplexLMO(n_features=3), BoxLMO(upper=[1.0, 2.0])])
    simplex, box = np.eye(3), np.array([[0, 0], [1, 0], [0, 2], [1, 2]], float)
    vertices = np.array([np.concatenate([s, t]) for s in simplex for t in box])
    for _ in range(20):
        grad = rng.standard_normal(5)
        vertex, index, n_scored = lmo(grad)
        assert np.any(np.all(vertices == vertex, axis=1))
        assert grad @ vertex <= (vertices @ grad).min() + 1e-12
        assert (index, n_scored) == (-1, 5)
    assert lmo.n_features == 5
    assert lmo.radius == pytest.approx(np.sqrt(1 + 5))
    assert lmo.radius == pytest.approx(np.linalg.norm(vertices, axis=1).max())
    # The factors are called too, and count.
    assert lmo.n_calls_ == 20 and lmo.lmos[0].n_calls_ == 20
    assert not lmo.contains_origin
    assert lmo.contains([0.5, 0.5, 0.0, 1.0, 1.0])
    assert not lmo.contains([0.5, 0.5, 0.0, 1.0, 2.5])
    y = rng.standard_normal(5) * 2
    np.testing.assert_allclose(
        lmo.project(y),
        np.concatenate([lmo.lmos[0].project(y[:3]), lmo.lmos[1].project(y[3:])]),
    )


def test_product_lmo_project_only_when_every_factor_has_one():
    with_projection = ProductLMO([L2BallLMO(n_features=2), LinfBallLMO(n_features=1)])
    assert hasattr(with_projection, "project")
    without = ProductLMO([L2BallLMO(n_features=2), BirkhoffLMO(n=2)])
    assert not hasattr(without, "project")
    assert without.n_features == 6 and without.radius == pytest.approx(np.sqrt(3))
    for lmos in [[], "abc", [SimplexLMO()], [1.0]]:
        with pytest.raises(ValueError, match="lmos"):
            ProductLMO(lmos)(np.ones(2))


def test_convex_hull_radius_contains_and_origin():
    # A triangle in the plane: membership against its facet inequalities.
    atoms = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.5, 0.2]])
    lmo = ConvexHullLMO().fit(atoms)
    assert lmo.radius == 2.0 and lmo.n_features == 2
    rng = np.random.RandomState(31)
    for _ in range(40):
        x = rng.uniform(-0.5, 2.5, size=2)
        inside = x[0] >= 0 and x[1] >= 0 and x[0] / 2 + x[1] <= 1
        assert lmo.contains(x) == inside
    assert lmo.contains_origin
    assert not ConvexHullLMO().fit(atoms[1:3]).contains_origin
    assert ConvexHullLMO().n_features is None
    with pytest.raises(NotFittedError):
        _ = ConvexHullLMO().radius
    # The atom returned is a copy.
    vertex = lmo(np.array([-1.0, 0.0])).vertex
    vertex[0] = 99.0
    assert lmo.atoms_[1, 0] == 2.0


# ---------------------------------------------------------------------------
# Numerical range (issue 16): directions and points far from unit magnitude


def _small_packing(polytope_vertices):
    # {0 <= x <= 1, x_0 + x_1 <= 1, x_0 <= 0.5}: min <(-1, -0.5), x> = -0.75
    # at (0.5, 0.5), while the vertex (0, 1) only gives -0.5.
    A, b = np.array([[1.0, 1.0], [1.0, 0.0]]), np.array([1.0, 0.5])
    G_box, h_box = _box_rows(np.zeros(2), np.ones(2))
    vertices = polytope_vertices(np.vstack([A, G_box]), np.concatenate([b, h_box]))
    return A, b, vertices


@pytest.mark.parametrize("scale", [1e-300, 1e-8, 1.0, 1e30, 1e300])
def test_lp_lmos_are_exact_at_every_scale_of_the_direction(scale, polytope_vertices):
    # HiGHS judges optimality with absolute tolerances on the costs: a tiny
    # direction got a non-minimizing vertex, a huge one a RuntimeError.
    A, b, vertices = _small_packing(polytope_vertices)
    grad = np.array([-1.0, -0.5])
    best = (vertices @ grad).min()
    for lmo in (
        DownClosedPolytopeLMO(A=A, b=b),
        PolytopeLMO(A_ub=A, b_ub=b, bounds=(0, 1)),
    ):
        vertex = lmo(grad * scale).vertex
        assert grad @ vertex <= best + 1e-9, type(lmo).__name__
        assert lmo.contains(vertex)


def test_mono_and_meta_fw_run_on_an_lp_lmo_with_huge_gradients(polytope_vertices):
    from skcgm.online import MetaFW, MonoFW

    A, b, _ = _small_packing(polytope_vertices)
    for learner in (
        MonoFW(DownClosedPolytopeLMO(A=A, b=b), 5, random_state=0),
        MetaFW(DownClosedPolytopeLMO(A=A, b=b), 5, random_state=0),
    ):
        for _ in range(4):
            learner.decide()
            q = learner.query_point()
            # The largest gradients the learners accept (their squares
            # stay in range), far beyond HiGHS's cost range.
            learner.update(np.full(q.shape, 1e150))
        assert np.isfinite(learner.decide()).all()


@pytest.mark.parametrize(
    "lmo, y, expected",
    [
        (KSparseLMO(n_nonzero=1, bound=1.0), [2e17, 1e17], [1.0, 0.0]),
        (KSparseLMO(n_nonzero=1, bound=1.0), [-1e308, 1e308, 0.0], [-0.5, 0.5, 0.0]),
        (KSparseLMO(n_nonzero=2, bound=1.0), [1e17, 1.5, 1.2], [1.0, 0.65, 0.35]),
        (SimplexLMO(), [2e17, 1e17], [1.0, 0.0]),
        (SimplexLMO(), [1e308, -1e308], [1.0, 0.0]),
        (SimplexLMO(), [1e-300, 0.0], [0.5, 0.5]),
        (CappedSimplexLMO(), [2e17, 1e17], [1.0, 0.0]),
        (L1BallLMO(), [-2e17, 1e17], [-1.0, 0.0]),
        (L1BallLMO(), [1e308, 1e308], [0.5, 0.5]),
        (L2BallLMO(), [1e308, -1e308], [0.5**0.5, -(0.5**0.5)]),
        (L2BallLMO(), [1e-300, 0.0], [1e-300, 0.0]),
        (NuclearNormBallLMO(shape=(2, 2)), [1e300, 0.0, 0.0, 1e299], [1, 0, 0, 0]),
        (NuclearNormBallLMO(shape=(2, 2)), [1e308, 0.0, 0.0, 1e308], [0.5, 0, 0, 0.5]),
        (LinfBallLMO(), [1e308, -1e308], [1.0, -1.0]),
    ],
)
def test_projections_of_far_points_are_exact_and_inside(lmo, y, expected):
    y = np.array(y)
    y_before = y.copy()
    x = lmo.project(y)
    np.testing.assert_allclose(x, expected, rtol=1e-12, atol=1e-12)
    assert lmo.contains(x)
    np.testing.assert_array_equal(y, y_before)


def test_contains_of_far_points_is_false_without_overflow():
    far = np.array([1e308, -1e308, 1e308, 1e308])
    for lmo in (
        L2BallLMO(),
        L1BallLMO(),
        SimplexLMO(),
        CappedSimplexLMO(),
        NuclearNormBallLMO(shape=(2, 2)),
        PolytopeLMO(A_ub=[[1.0, 1.0, 1.0, 1.0]], b_ub=[1.0], bounds=(None, None)),
        PolytopeLMO(A_eq=[[1.0, 1.0, 1.0, 1.0]], b_eq=[1.0], bounds=(None, None)),
        ConvexHullLMO().fit(np.eye(4)),
    ):
        # numpy attributes a sum's overflow to itself, not to skcgm.
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            assert not lmo.contains(far), lmo
        assert not lmo.contains(np.abs(far)), lmo


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_matrix_and_hull_lmos_at_extreme_scales_of_the_direction(scale):
    rng = np.random.RandomState(0)
    grad = rng.standard_normal(9)
    atoms = rng.standard_normal((6, 9))
    for lmo in (
        NuclearNormBallLMO(shape=(3, 3)),
        BirkhoffLMO(n=3),
        ConvexHullLMO().fit(atoms * 10.0),
    ):
        expected = lmo(grad).vertex
        np.testing.assert_allclose(lmo(grad * scale).vertex, expected, atol=1e-12)
    # Past the square range of float64, the matrix products overflow.
    vertex = ConvexHullLMO().fit(atoms * 10.0)(grad / np.abs(grad).max() * 1e308)
    assert np.isfinite(vertex.vertex).all()


def test_convex_hull_lmo_refuses_atoms_whose_squares_overflow():
    with pytest.raises(ValueError, match="atoms .*Scale"):
        ConvexHullLMO().fit(np.full((2, 2), 1e200))


def test_down_closed_projection_refuses_points_whose_squares_overflow():
    lmo = DownClosedPolytopeLMO(A=[[1.0, 1.0]], b=[1.0])
    with pytest.raises(ValueError, match="y .*Scale"):
        lmo.project(np.array([1e300, 1e299]))
    # In range: a point of the set (the rounding of y alone, 1e134, exceeds
    # the diameter of the set, so every point of it is as accurate).
    x = lmo.project(np.array([1e150, 1e149]))
    assert lmo.contains(x) and np.isfinite(x).all()


def test_lp_lmos_heed_small_entries_of_the_direction(polytope_vertices):
    # With HiGHS's default dual tolerance (1e-7), the cost 1e-7 was ignored:
    # -0.9999999 returned where -1.0000001 is attained (found by hypothesis).
    A, b = np.array([[1.62434536, -0.61175641, -0.52817175]]), np.array([0.91418145])
    grad = np.array([0.0, 1e-7, 1.0])
    G_box, h_box = _box_rows(-np.ones(3), np.ones(3))
    vertices = polytope_vertices(np.vstack([A, G_box]), np.concatenate([b, h_box]))
    vertex = PolytopeLMO(A_ub=A, b_ub=b, bounds=(-1, 1))(grad).vertex
    assert grad @ vertex <= (vertices @ grad).min() + 1e-12
