"""Tests of the action-constrained MDP generator."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcgm.datasets import ActionConstrainedMDP, make_action_constrained_mdp


def _fields(mdp):
    return (
        mdp.actions,
        mdp.reward_offset,
        mdp.reward_linear,
        mdp.reward_quadratic,
        mdp.transition_weights,
        mdp.transition_bias,
        mdp.initial_distribution,
    )


@pytest.mark.parametrize("n_clusters", [None, 3])
def test_deterministic_under_random_state(n_clusters):
    a = make_action_constrained_mdp(5, 7, 3, n_clusters=n_clusters, random_state=4)
    b = make_action_constrained_mdp(5, 7, 3, n_clusters=n_clusters, random_state=4)
    c = make_action_constrained_mdp(5, 7, 3, n_clusters=n_clusters, random_state=5)
    for x, y in zip(_fields(a), _fields(b)):
        assert_array_equal(x, y)
    assert not np.array_equal(a.actions, c.actions)


def test_shapes_and_types():
    mdp = make_action_constrained_mdp(6, 9, 2, gamma=0.8, random_state=0)
    assert isinstance(mdp, ActionConstrainedMDP)
    assert (mdp.n_states, mdp.n_actions, mdp.action_dim) == (6, 9, 2)
    assert mdp.actions.shape == (6, 9, 2)
    assert mdp.reward_quadratic.shape == (6, 2, 2)
    assert mdp.transition_weights.shape == (6, 6, 2)
    assert mdp.gamma == 0.8


@pytest.mark.parametrize("n_clusters", [None, 4])
def test_rewards_in_unit_interval_on_the_convex_hulls(n_clusters):
    mdp = make_action_constrained_mdp(8, 20, 3, n_clusters=n_clusters, random_state=1)
    rng = np.random.RandomState(0)
    for s in range(mdp.n_states):
        on_set = mdp.reward(s, mdp.actions[s])
        assert on_set.min() == pytest.approx(0.0, abs=1e-12)
        assert on_set.max() <= 1.0 + 1e-12
        # Random points of the convex hull (the policies' domain).
        w = rng.dirichlet(np.full(mdp.n_actions, 0.3), size=200)
        inside = mdp.reward(s, w @ mdp.actions[s])
        assert inside.min() >= -1e-12
        assert inside.max() <= 1.0 + 1e-12
        # The quadratic form is the stored concave linear-quadratic reward.
        H = mdp.reward_quadratic[s]
        assert_allclose(H, H.T)
        assert np.linalg.eigvalsh(H).min() > 0
        a = rng.standard_normal(3)
        expected = mdp.reward_offset[s] + mdp.reward_linear[s] @ a - 0.5 * a @ H @ a
        assert mdp.reward(s, a) == pytest.approx(expected)


def test_transitions_are_stochastic_and_mu_is_a_distribution():
    mdp = make_action_constrained_mdp(7, 11, 4, random_state=2)
    for s in range(mdp.n_states):
        P = mdp.transition(s, mdp.actions[s])
        assert P.shape == (11, 7)
        assert (P >= 0).all()
        assert_allclose(P.sum(axis=1), 1.0)
    mu = mdp.initial_distribution
    assert (mu > 0).all()
    assert mu.sum() == pytest.approx(1.0)


def test_transition_depends_smoothly_on_the_action():
    mdp = make_action_constrained_mdp(4, 5, 3, random_state=3)
    a = mdp.actions[0, 0]
    e = np.array([1e-6, 0.0, 0.0])
    step = np.abs(mdp.transition(0, a + e) - mdp.transition(0, a)).max()
    assert 0 < step < 1e-5


def test_reward_gradient_matches_finite_differences():
    mdp = make_action_constrained_mdp(3, 5, 4, random_state=6)
    a = mdp.actions[1, 2]
    h = 1e-6
    fd = [
        (mdp.reward(1, a + h * e) - mdp.reward(1, a - h * e)) / (2 * h)
        for e in np.eye(4)
    ]
    assert_allclose(mdp.reward_gradient(1, a), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "params",
    [{"n_states": 0}, {"gamma": 1.0}, {"gamma": 0.0}, {"n_clusters": 0}],
)
def test_invalid_parameters(params):
    with pytest.raises(ValueError):
        make_action_constrained_mdp(**params)
