"""Tests of run_online, continuous_greedy and alpha_regret."""

import itertools
import math
import re

import numpy as np
import pytest

from skcgm.online import (
    DPOBGA,
    OGA,
    POBGA,
    QuadraticObjective,
    alpha_regret,
    continuous_greedy,
    run_online,
)
from skcgm.oracles._lmo_sets import BoxLMO, CappedSimplexLMO


def _quadratic(rng, n_features, noise=0.0):
    M = rng.uniform(size=(n_features, n_features))
    H = -(M + M.T) / 2
    return QuadraticObjective(H, -H @ np.ones(n_features), noise=noise)


class _Plain:
    """An objective without H / h: alpha_regret takes its generic path."""

    def __init__(self, f):
        self.f = f

    def value(self, x):
        return self.f.value(x)

    def grad(self, x):
        return self.f.grad(x)

    def stochastic_grad(self, x, random_state=None):
        return self.f.stochastic_grad(x, random_state)


def test_run_online_rewards_decisions_and_counters():
    rng = np.random.RandomState(0)
    objectives = [_quadratic(rng, 3, noise=0.5) for _ in range(30)]
    lmo = BoxLMO(n_features=3)
    learner = POBGA(lmo, 40, block_size=5, random_state=0)
    result = run_online(learner, objectives, random_state=1)
    assert result.rewards.shape == (30,) and result.decisions.shape == (30, 3)
    expected = [f.value(x) for f, x in zip(objectives, result.decisions)]
    np.testing.assert_allclose(result.rewards, expected)
    assert result.node_rewards is None
    assert result.n_grad_calls == 30 == learner.n_rounds_
    assert result.n_projections == 6
    assert result.n_lmo_calls == learner.n_lmo_calls_
    assert result.wall_time >= 0


def test_run_online_noise_stream_independent_of_learner():
    rng = np.random.RandomState(0)
    objectives = [_quadratic(rng, 2, noise=1.0) for _ in range(20)]
    lmo = BoxLMO(n_features=2)
    a = run_online(OGA(lmo, 20, eta0=0.1), objectives, random_state=0)
    b = run_online(OGA(lmo, 20, eta0=0.1), objectives, random_state=0)
    c = run_online(OGA(lmo, 20, eta0=0.1), objectives, random_state=1)
    np.testing.assert_array_equal(a.decisions, b.decisions)
    assert not np.array_equal(a.decisions, c.decisions)


def test_run_online_validation():
    rng = np.random.RandomState(0)
    objectives = [_quadratic(rng, 2) for _ in range(5)]
    lmo = BoxLMO(n_features=2)
    with pytest.raises(ValueError, match="horizon"):
        run_online(OGA(lmo, 4), objectives)
    with pytest.raises(ValueError, match="objectives"):
        run_online(OGA(lmo, 4), [])
    with pytest.raises(ValueError, match="learner"):
        run_online(lmo, objectives)
    with pytest.raises(ValueError, match="one local objective per node"):
        run_online(DPOBGA(lmo, 5, np.full((3, 3), 1 / 3)), [objectives[:2]] * 5)


def _grid_max(f, n_points=201):
    """Brute force over a grid of the capped simplex {x >= 0, x1 + x2 <= 1}."""
    grid = np.linspace(0, 1, n_points)
    points = np.array([(a, b) for a, b in itertools.product(grid, grid) if a + b <= 1])
    return max(f.value(p) for p in points)


def test_continuous_greedy_linear_objective_picks_best_vertex():
    lmo = CappedSimplexLMO(radius=2.0, n_features=3)
    x = continuous_greedy(lmo, lambda x: np.array([0.5, 3.0, 1.0]), 3, n_steps=7)
    np.testing.assert_allclose(x, [0.0, 2.0, 0.0])
    assert lmo.n_calls_ == 7


@pytest.mark.parametrize("seed", range(3))
def test_continuous_greedy_is_1_minus_1_over_e_approximate(seed):
    # Monotone DR-submodular quadratic, max by brute force on a fine grid.
    rng = np.random.RandomState(seed)
    M = rng.uniform(size=(2, 2))
    H = -(M + M.T)
    f = QuadraticObjective(H, -H @ np.array([2.0, 2.0]))
    lmo = CappedSimplexLMO(radius=1.0, n_features=2)
    x = continuous_greedy(lmo, f.grad, 2, n_steps=200)
    assert lmo.contains(x, tol=1e-12)
    assert f.value(x) >= (1 - 1 / math.e) * _grid_max(f)


def test_continuous_greedy_validation():
    lmo = BoxLMO(n_features=2)
    with pytest.raises(ValueError, match="n_steps"):
        continuous_greedy(lmo, lambda x: x, 2, n_steps=0)
    with pytest.raises(ValueError, match="n_features"):
        continuous_greedy(lmo, lambda x: x, 0)
    with pytest.raises(ValueError, match="grad"):
        continuous_greedy(lmo, None, 2)
    with pytest.raises(ValueError, match="shape"):
        continuous_greedy(lmo, lambda x: np.ones(3), 2)


def test_alpha_regret_closed_form():
    # f(x) = <c, x> on the box: continuous greedy finds the vertex 1{c > 0}.
    f = QuadraticObjective(np.zeros((2, 2)), np.array([1.0, 2.0]))
    rewards = np.array([0.0, 1.0, 3.0])
    regret = alpha_regret(rewards, [f] * 3, BoxLMO(n_features=2), alpha=0.5)
    np.testing.assert_allclose(regret, np.cumsum(0.5 * 3.0 - rewards))
    regret = alpha_regret(rewards, [f] * 3, None, comparator=np.array([1.0, 0.0]))
    np.testing.assert_allclose(regret, np.cumsum((1 - 1 / math.e) - rewards))


def test_alpha_regret_quadratic_fast_path_equals_generic_path():
    rng = np.random.RandomState(3)
    objectives = [_quadratic(rng, 4) for _ in range(25)]
    lmo = CappedSimplexLMO(radius=1.5, n_features=4)
    result = run_online(POBGA(lmo, 25, random_state=0), objectives)
    fast = alpha_regret(result.rewards, objectives, lmo, n_steps=50)
    generic = alpha_regret(
        result.rewards, [_Plain(f) for f in objectives], lmo, n_steps=50
    )
    np.testing.assert_allclose(fast, generic, rtol=1e-10, atol=1e-10)


def test_alpha_regret_decentralized_uses_average_function():
    rng = np.random.RandomState(4)
    local = [[_quadratic(rng, 2) for _ in range(3)] for _ in range(10)]
    averaged = [
        QuadraticObjective(sum(f.H for f in fs) / 3, sum(f.h for f in fs) / 3)
        for fs in local
    ]
    lmo = BoxLMO(n_features=2)
    rewards = np.linspace(0, 1, 10)
    np.testing.assert_allclose(
        alpha_regret(rewards, local, lmo), alpha_regret(rewards, averaged, lmo)
    )


def test_alpha_regret_validation():
    f = QuadraticObjective(np.zeros((2, 2)), np.ones(2))
    lmo = BoxLMO(n_features=2)
    with pytest.raises(ValueError, match="rewards"):
        alpha_regret(np.zeros(3), [f] * 2, lmo)
    with pytest.raises(ValueError, match="alpha"):
        alpha_regret(np.zeros(2), [f] * 2, lmo, alpha=0.0)
    with pytest.raises(ValueError, match="alpha"):
        alpha_regret(np.zeros(2), [f] * 2, lmo, alpha=1.5)
    with pytest.raises(ValueError, match="n_steps"):
        alpha_regret(np.zeros(2), [f] * 2, lmo, n_steps=0)
    with pytest.raises(ValueError, match="n_features"):
        alpha_regret(np.zeros(2), [f] * 2, CappedSimplexLMO())


def test_public_functions_use_sklearn_parameter_validation():
    from skcgm.utils._sklearn_compat import InvalidParameterError

    f = QuadraticObjective(np.zeros((2, 2)), np.ones(2))
    lmo = BoxLMO(n_features=2)
    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "The 'n_steps' parameter of continuous_greedy must be an int in the "
            "range [1, inf). Got 0 instead."
        ),
    ):
        continuous_greedy(lmo, f.grad, 2, n_steps=0)
    with pytest.raises(
        InvalidParameterError,
        match=re.escape("The 'alpha' parameter of alpha_regret must be a float in"),
    ):
        alpha_regret(np.zeros(2), [f] * 2, lmo, alpha=1.5)
    with pytest.raises(
        InvalidParameterError,
        match=re.escape("The 'learner' parameter of run_online must be an instance"),
    ):
        run_online(lmo, [f] * 2)
