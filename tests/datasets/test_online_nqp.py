"""Tests of the online NQP generators (note 002, 4.2 P1 and P3)."""

import pickle

import numpy as np
import pytest
from scipy.optimize import linprog

from skcgm.datasets import make_decentralized_nqp, make_online_nqp
from skcgm.online._objectives import QuadraticObjective
from skcgm.oracles import DownClosedPolytopeLMO


def _assert_monotone_dr_submodular(f, rng):
    assert isinstance(f, QuadraticObjective)
    np.testing.assert_array_equal(f.H, f.H.T)
    assert f.H.max() <= 0  # DR-submodular
    assert f.value(np.zeros(f.n_features)) == 0.0
    # Monotone on [0, 1]^n: the gradient H (x - 1) is non-negative, at most 1.
    X = rng.uniform(size=(50, f.n_features))
    gradients = X @ f.H + f.h
    assert gradients.min() >= -1e-12 and gradients.max() <= 1 + 1e-12
    # ... and values increase along random non-negative directions.
    for x in X[:10]:
        d = rng.uniform(size=f.n_features) * (1 - x)
        assert f.value(x + d) >= f.value(x) - 1e-12
    assert f.lipschitz <= 1.0


@pytest.mark.parametrize("adversary", ["iid", "switching", "fixed"])
def test_make_online_nqp_objectives_are_monotone_dr_submodular(adversary):
    rng = np.random.RandomState(0)
    lmo, objectives = make_online_nqp(
        6, 3, 40, adversary=adversary, noise=0.2, random_state=0
    )
    assert len(objectives) == 40
    for f in objectives:
        _assert_monotone_dr_submodular(f, rng)
        assert f.noise == 0.2 and f.n_features == 6


def test_make_online_nqp_set_is_down_closed_and_contains_zero():
    rng = np.random.RandomState(1)
    lmo, _ = make_online_nqp(5, 4, 10, random_state=1)
    assert isinstance(lmo, DownClosedPolytopeLMO)
    assert lmo.contains(np.zeros(5)) and lmo.contains_origin
    assert lmo.radius == pytest.approx(np.sqrt(5))
    A = np.asarray(lmo.A)
    assert A.shape == (4, 5) and A.min() >= 0 and A.max() <= 1
    np.testing.assert_array_equal(lmo.b, np.ones(4))
    for _ in range(20):
        vertex = lmo(rng.standard_normal(5)).vertex
        # Every point below a feasible point is feasible (linprog-free check
        # of the inequalities).
        below = vertex * rng.uniform(size=5)
        for point in (vertex, below):
            assert np.all(A @ point <= 1 + 1e-9)
            assert np.all(point >= -1e-12) and np.all(point <= 1 + 1e-12)
            assert lmo.contains(point)
    # The LMO agrees with linprog over the defining inequalities.
    c = rng.standard_normal(5)
    res = linprog(c, A_ub=A, b_ub=np.ones(4), bounds=(0, 1), method="highs")
    assert c @ lmo(c).vertex == pytest.approx(res.fun, abs=1e-9)


def test_make_online_nqp_adversaries():
    _, iid = make_online_nqp(4, 2, 30, adversary="iid", random_state=0)
    assert not np.array_equal(iid[0].H, iid[1].H)
    _, fixed = make_online_nqp(4, 2, 30, adversary="fixed", random_state=0)
    assert all(np.array_equal(f.H, fixed[0].H) for f in fixed)
    _, switching = make_online_nqp(4, 2, 30, adversary="switching", random_state=0)
    # Two regimes alternating every ceil(30 / 10) = 3 rounds.
    regimes = [0 if np.array_equal(f.H, switching[0].H) else 1 for f in switching]
    assert regimes == [(t // 3) % 2 for t in range(30)]
    assert not np.array_equal(switching[0].H, switching[3].H)
    # Each regime favours its own half of the coordinates.
    weights0 = -switching[0].H.sum(axis=1)
    weights1 = -switching[3].H.sum(axis=1)
    assert set(np.argsort(weights0)[-2:]).isdisjoint(np.argsort(weights1)[-2:])


def test_make_online_nqp_is_seeded_and_lazy():
    lmo_a, a = make_online_nqp(5, 2, 20, random_state=3)
    lmo_b, b = make_online_nqp(5, 2, 20, random_state=np.random.RandomState(3))
    np.testing.assert_array_equal(lmo_a.A, lmo_b.A)
    for fa, fb in zip(a, b):
        np.testing.assert_array_equal(fa.H, fb.H)
        np.testing.assert_array_equal(fa.h, fb.h)
    _, c = make_online_nqp(5, 2, 20, random_state=4)
    assert not np.array_equal(a[0].H, c[0].H)
    # Random access rebuilds the same round; negative indices and slices work.
    np.testing.assert_array_equal(a[7].H, a[7].H)
    np.testing.assert_array_equal(a[-1].H, a[19].H)
    assert [f.n_features for f in a[2:5]] == [5, 5, 5]
    with pytest.raises(IndexError):
        a[20]
    with pytest.raises(TypeError):
        a[1.0]
    restored = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(restored[5].H, a[5].H)
    assert "20 online NQP rounds" in repr(a)
    # A Generator is accepted.
    _, g = make_online_nqp(5, 2, 3, random_state=np.random.default_rng(0))
    assert len(list(g)) == 3


@pytest.mark.parametrize("adversary", ["iid", "switching", "fixed"])
def test_make_decentralized_nqp(adversary):
    rng = np.random.RandomState(0)
    lmo, objectives = make_decentralized_nqp(
        4, 2, 20, 3, adversary=adversary, noise=0.05, random_state=0
    )
    assert isinstance(lmo, DownClosedPolytopeLMO) and len(objectives) == 20
    for round_objectives in objectives:
        assert len(round_objectives) == 3
        for f in round_objectives:
            _assert_monotone_dr_submodular(f, rng)
            assert f.noise == 0.05
    # Nodes have their own local functions.
    assert not np.array_equal(objectives[0][0].H, objectives[0][1].H)


@pytest.mark.parametrize("adversary", ["iid", "switching", "fixed"])
def test_decentralized_with_one_node_is_the_centralized_stream(adversary):
    lmo_c, central = make_online_nqp(5, 3, 25, adversary=adversary, random_state=7)
    lmo_d, decentral = make_decentralized_nqp(
        5, 3, 25, 1, adversary=adversary, random_state=7
    )
    np.testing.assert_array_equal(lmo_c.A, lmo_d.A)
    for f, nodes in zip(central, decentral):
        np.testing.assert_array_equal(f.H, nodes[0].H)
        np.testing.assert_array_equal(f.h, nodes[0].h)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_features": 0}, "n_features"),
        ({"n_constraints": 1.5}, "n_constraints"),
        ({"horizon": 0}, "horizon"),
        ({"adversary": "random"}, "adversary"),
        ({"noise": -0.1}, "noise"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_bad_input_raises(kwargs, match):
    params = {"n_features": 3, "n_constraints": 2, "horizon": 5, **kwargs}
    with pytest.raises(ValueError, match=match):
        make_online_nqp(**params)
    with pytest.raises(ValueError, match=match):
        make_decentralized_nqp(n_nodes=2, **params)
    with pytest.raises(ValueError, match="n_nodes"):
        make_decentralized_nqp(3, 2, 5, 0)
