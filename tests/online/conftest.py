"""Fixtures of the online tests."""

import numpy as np
import pytest

from skcgm.online import QuadraticObjective


class BudgetLMO:
    """Delegates to an LMO, raising after ``budget`` calls.

    A learner whose loop would not end fails fast instead of hanging the
    suite; every other attribute (radius, contains, project, ...) is the
    wrapped LMO's.
    """

    def __init__(self, lmo, budget):
        self.lmo = lmo
        self.budget = budget
        self.n_calls = 0

    def __call__(self, direction):
        self.n_calls += 1
        if self.n_calls > self.budget:
            raise RuntimeError(f"more than {self.budget} LMO calls")
        return self.lmo(direction)

    def __getattr__(self, name):
        return getattr(self.lmo, name)


@pytest.fixture
def budget_lmo():
    """The class :class:`BudgetLMO`: ``budget_lmo(lmo, budget)``."""
    return BudgetLMO


def _quadratic(rng, n_features, noise=0.0):
    """A monotone DR-submodular quadratic on [0, 1]^n with f(0) = 0."""
    M = rng.uniform(size=(n_features, n_features))
    H = -(M + M.T) / (2 * n_features)
    return QuadraticObjective(H, -H @ np.ones(n_features), noise=noise)


def _objectives(n_features, horizon, seed=0, noise=0.0):
    """Monotone DR-submodular quadratics on [0, 1]^n, f(0) = 0, one per round."""
    rng = np.random.RandomState(seed)
    return [_quadratic(rng, n_features, noise) for _ in range(horizon)]


def _local_objectives(n_features, horizon, n_nodes, seed=0, noise=0.0):
    """Per round, one such quadratic per node."""
    rng = np.random.RandomState(seed)
    return [
        [_quadratic(rng, n_features, noise) for _ in range(n_nodes)]
        for _ in range(horizon)
    ]


def _play(learner, gradients):
    """Drive the protocol with gradients(t, q); return decisions, queries."""
    decisions, queries = [], []
    for t in range(learner.horizon):
        decisions.append(learner.decide())
        q = learner.query_point()
        queries.append(q)
        learner.update(gradients(t, q))
    return np.array(decisions), np.array(queries)


@pytest.fixture
def make_quadratic():
    """``make_quadratic(rng, n_features, noise=0.0)``: a monotone
    DR-submodular quadratic on [0, 1]^n with f(0) = 0, drawn from ``rng``."""
    return _quadratic


@pytest.fixture
def make_objectives():
    """``make_objectives(n_features, horizon, seed=0, noise=0.0)``: a stream of
    monotone DR-submodular quadratics on [0, 1]^n with f(0) = 0."""
    return _objectives


@pytest.fixture
def make_local_objectives():
    """``make_local_objectives(n_features, horizon, n_nodes, seed=0, noise=0.0)``:
    per round, a list of ``n_nodes`` such quadratics."""
    return _local_objectives


@pytest.fixture
def play():
    """``play(learner, gradients)``: plays ``learner.horizon`` rounds, the
    gradient of round t at query q being ``gradients(t, q)``; returns the
    decisions and the queries as arrays."""
    return _play
