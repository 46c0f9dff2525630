"""Tests of Frank-Wolfe policy optimization (Algorithm 5, SFWPO)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcgm.datasets import make_action_constrained_mdp
from skcgm.optim.conditional_gradient._policy import (
    SFWPOResult,
    _action_gradient,
    _evaluate_policy,
    _q_value,
    sfwpo,
)


def _random_policy(mdp, seed):
    """A random point of every convex hull conv C(s)."""
    rng = np.random.RandomState(seed)
    w = rng.dirichlet(np.ones(mdp.n_actions), size=mdp.n_states)
    return np.einsum("sn,sni->si", w, mdp.actions)


def _bellman_value(mdp, policy, n_sweeps=2000):
    """Value by iterating the Bellman operator, one state at a time."""
    r = np.array([mdp.reward(s, policy[s]) for s in range(mdp.n_states)])
    P = np.array([mdp.transition(s, policy[s]) for s in range(mdp.n_states)])
    V = np.zeros(mdp.n_states)
    for _ in range(n_sweeps):
        V_new = r + mdp.gamma * P @ V
        if np.abs(V_new - V).max() < 1e-13:
            break
        V = V_new
    return V_new


@pytest.fixture(scope="module")
def tiny():
    return make_action_constrained_mdp(4, 6, 3, gamma=0.8, random_state=0)


@pytest.fixture(scope="module")
def mdp():
    return make_action_constrained_mdp(random_state=0)


def test_policy_evaluation_matches_bellman_iteration(tiny):
    policy = _random_policy(tiny, 1)
    V, P, J = _evaluate_policy(tiny, policy)
    V_bf = _bellman_value(tiny, policy)
    assert_allclose(V, V_bf, rtol=1e-10, atol=1e-10)
    assert J == pytest.approx(tiny.initial_distribution @ V_bf, rel=1e-10)
    # Q(s, a) for arbitrary actions against the Bellman equation on V_bf.
    rng = np.random.RandomState(2)
    for s in range(tiny.n_states):
        a = rng.standard_normal((5, 3))
        expected = tiny.reward(s, a) + tiny.gamma * tiny.transition(s, a) @ V_bf
        assert_allclose(_q_value(tiny, V, s, a), expected, rtol=1e-10)
        # Q at the policy's own action is the value.
        assert _q_value(tiny, V, s, policy[s]) == pytest.approx(V[s], rel=1e-10)


def test_action_gradient_matches_finite_differences(tiny):
    policy = _random_policy(tiny, 3)
    V, P, _ = _evaluate_policy(tiny, policy)
    G = _action_gradient(tiny, policy, V, P)
    h = 1e-6
    for s in range(tiny.n_states):
        fd = [
            (
                _q_value(tiny, V, s, policy[s] + h * e)
                - _q_value(tiny, V, s, policy[s] - h * e)
            )
            / (2 * h)
            for e in np.eye(tiny.action_dim)
        ]
        assert_allclose(G[s], fd, rtol=1e-6, atol=1e-8)


def test_deterministic_policy_gradient_theorem(tiny):
    # dJ/dpi(s) = rho(s) grad_a Q(s, pi(s)), rho = (I - gamma P)^-T mu: the
    # action gradient is the right ascent direction for J.
    policy = _random_policy(tiny, 4)
    V, P, _ = _evaluate_policy(tiny, policy)
    G = _action_gradient(tiny, policy, V, P)
    A = np.eye(tiny.n_states) - tiny.gamma * P
    rho = np.linalg.solve(A.T, tiny.initial_distribution)
    h = 1e-6
    for s in range(tiny.n_states):
        for i in range(tiny.action_dim):
            plus, minus = policy.copy(), policy.copy()
            plus[s, i] += h
            minus[s, i] -= h
            fd = (
                _evaluate_policy(tiny, plus)[2] - _evaluate_policy(tiny, minus)[2]
            ) / (2 * h)
            assert fd == pytest.approx(rho[s] * G[s, i], rel=1e-5, abs=1e-9)


def test_exact_return_is_non_decreasing_and_lemma_f1_holds(mdp):
    result = sfwpo(mdp, max_iter=30, random_state=0)
    assert isinstance(result, SFWPOResult)
    J = result.return_history
    assert result.n_iter == 30
    assert J.shape == (31,)
    assert (np.diff(J) >= 0).all()
    assert J[-1] > J[0] + 1.0
    # Lemma F.1 with the accepted smoothness estimates.
    gamma, mu_min = mdp.gamma, mdp.initial_distribution.min()
    centred = mdp.actions - mdp.actions.mean(axis=1, keepdims=True)
    d_max = 2 * np.linalg.norm(centred, axis=2).max()
    g = result.gap_history[:-1]
    L = result.smoothness_history
    bound = (1 - gamma) ** 2 * mu_min**2 / (2 * L * d_max**2) * (g**2).sum(axis=1)
    assert (np.diff(J) >= bound).all()
    # Exact gaps are non-negative (pi(s) lies in conv C(s)) and certify
    # that the best vertex was scored: the exact scan sees every action.
    assert (result.gap_history >= -1e-12).all()
    assert_array_equal(result.n_scored, mdp.n_states * mdp.n_actions)
    # The last return is that of the returned policy (independent check).
    V_bf = _bellman_value(mdp, result.policy)
    assert J[-1] == pytest.approx(mdp.initial_distribution @ V_bf, rel=1e-9)
    assert_allclose(result.value, V_bf, rtol=1e-9)


def test_policy_is_a_convex_combination_of_the_actions(mdp):
    result = sfwpo(mdp, max_iter=10, random_state=1)
    w = result.weights
    assert (w >= 0).all()
    assert_allclose(w.sum(axis=1), 1.0)
    assert_allclose(np.einsum("sn,sni->si", w, mdp.actions), result.policy)
    assert ((result.step_history >= 0) & (result.step_history <= 1)).all()


def test_exact_gap_is_the_brute_force_gap(tiny):
    result = sfwpo(tiny, max_iter=3, random_state=0)
    # Recompute the gap at the last policy by scanning all actions.
    V, P, _ = _evaluate_policy(tiny, result.policy)
    G = _action_gradient(tiny, result.policy, V, P)
    brute = (np.einsum("sni,si->sn", tiny.actions, G)).max(axis=1) - np.einsum(
        "si,si->s", result.policy, G
    )
    assert_allclose(result.gap_history[-1], brute, atol=1e-12)


def test_fixed_smoothness_step_follows_algorithm_5(tiny):
    L = 3.0
    result = sfwpo(tiny, smoothness=L, max_iter=4, random_state=0)
    centred = tiny.actions - tiny.actions.mean(axis=1, keepdims=True)
    diam = 2 * np.linalg.norm(centred, axis=2).max(axis=1)
    g = np.maximum(result.gap_history[:-1], 0)
    expected = np.minimum(
        1, (1 - tiny.gamma) * tiny.initial_distribution.min() * g / (L * diam**2)
    )
    assert_allclose(result.step_history, expected)
    assert_array_equal(result.smoothness_history, L)


def test_tol_stops_with_a_certificate(mdp):
    result = sfwpo(mdp, max_iter=200, tol=0.2, random_state=0)
    assert result.converged
    assert result.n_iter < 200
    assert np.sqrt((result.gap_history[-1] ** 2).sum()) <= 0.2
    assert np.sqrt((result.gap_history[:-1] ** 2).sum(axis=1)).min() > 0.2


def test_lsh_with_many_tables_reproduces_the_exact_run():
    small = make_action_constrained_mdp(4, 16, 3, random_state=1)
    exact = sfwpo(small, max_iter=15, random_state=0)
    lsh = sfwpo(small, maxip="lsh", n_tables=64, n_bits=6, max_iter=15, random_state=0)
    # Not a disguised exact scan: some queries score a fraction of the sets.
    assert lsh.n_scored.min() < small.n_states * small.n_actions
    assert_allclose(lsh.return_history, exact.return_history, rtol=1e-12)
    assert_allclose(lsh.policy, exact.policy, rtol=1e-12)
    assert_allclose(lsh.gap_history, exact.gap_history, atol=1e-12)


def test_lsh_scores_fewer_candidates_on_clustered_actions():
    big = make_action_constrained_mdp(8, 512, 4, n_clusters=16, random_state=0)
    exact = sfwpo(big, max_iter=15, random_state=0)
    lsh = sfwpo(big, maxip="lsh", n_tables=8, n_bits=8, max_iter=15, random_state=0)
    total = big.n_states * big.n_actions
    assert (lsh.n_scored <= total).all()
    assert lsh.n_scored.mean() < 0.3 * total
    # The approximate gaps never exceed the exact ones at the same policy...
    assert (lsh.gap_history[0] <= exact.gap_history[0] + 1e-12).all()
    # ... and the return still rises, to near the exact run's.
    gain_exact = exact.return_history[-1] - exact.return_history[0]
    gain_lsh = lsh.return_history[-1] - lsh.return_history[0]
    assert lsh.return_history[0] == exact.return_history[0]
    assert gain_lsh > 0.8 * gain_exact


@pytest.mark.parametrize("maxip", ["exact", "lsh"])
def test_reproducible_with_fixed_random_state(tiny, maxip):
    a = sfwpo(tiny, maxip=maxip, max_iter=5, random_state=7)
    b = sfwpo(tiny, maxip=maxip, max_iter=5, random_state=7)
    assert_array_equal(a.policy, b.policy)
    assert_array_equal(a.return_history, b.return_history)
    assert_array_equal(a.n_scored, b.n_scored)


def test_max_iter_zero_evaluates_the_start(tiny):
    result = sfwpo(tiny, max_iter=0, random_state=0)
    assert result.n_iter == 0
    assert result.return_history.shape == (1,)
    assert result.gap_history.shape == (1, tiny.n_states)
    assert result.step_history.shape == (0, tiny.n_states)
    # The start is one action of every set.
    assert_array_equal(result.weights.max(axis=1), 1.0)


@pytest.mark.parametrize(
    "params", [{"maxip": "ann"}, {"smoothness": 0.0}, {"max_iter": -1}, {"tol": -1.0}]
)
def test_invalid_parameters(tiny, params):
    with pytest.raises(ValueError):
        sfwpo(tiny, **params)
    with pytest.raises(ValueError):
        sfwpo(np.zeros(3))
