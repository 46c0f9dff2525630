"""Tests of the linear minimization oracles against brute force over vertices."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skcgm.oracles import ConvexHullLMO, L1BallLMO, LMOResult, SimplexLMO


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


@pytest.mark.parametrize("chunk_size", [1, 3, 65536])
def test_convex_hull_lmo_exact_scan_equals_argmin_over_atoms(chunk_size):
    rng = np.random.RandomState(1)
    atoms = rng.standard_normal((40, 6))
    lmo = ConvexHullLMO(chunk_size=chunk_size).fit(atoms)
    for _ in range(30):
        grad = rng.standard_normal(6)
        vertex, index, n_scored = lmo(grad)
        assert index == np.argmin(atoms @ grad)
        np.testing.assert_array_equal(vertex, atoms[index])
        assert n_scored == 40


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
    for _ in range(30):
        grad = rng.standard_normal(4)
        vertex, index, n_scored = lmo(grad)
        assert index == np.argmin(atoms @ grad)
        np.testing.assert_array_equal(vertex, atoms[index])
        assert n_scored == 50


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
