"""Tests of AdamLloyd, the generalized Lloyd with Adam group steps.

Oracles: the objective of the planted networks of noisy data, the exact
ridge fit of ``MixedLinearRegressor`` (the network without hidden layer is
the linear model on the inputs and a column of ones), the stopping rules
replayed here on the history of a run that does not stop, and the objective
recomputed from the loss matrix.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcgm.datasets import make_mixed_mlp_regression
from skcgm.linear_model import MixedLinearRegressor
from skcgm.optim import AdamLloyd, MixedMLPLoss


def _planted(seed=0, n_samples=200):
    """Two small ReLU networks of 3 inputs and 3 hidden units, little noise."""
    return make_mixed_mlp_regression(
        n_samples=n_samples,
        n_features=3,
        hidden_layer_sizes=(3,),
        n_components=2,
        noise=0.01,
        random_state=seed,
    )


def _problem(seed=0, n_samples=200, alpha=1e-4):
    X, y, networks, labels = _planted(seed, n_samples)
    problem = MixedMLPLoss((3,), "relu", alpha=alpha).bind(X, y)
    return problem, networks


def _start(problem, n_params, seed):
    # Not seed 0: make_mixed_mlp_regression(random_state=0) draws its
    # networks as the first draws of that stream.
    return problem.random_params(n_params, np.random.RandomState(seed), np.float64)


def _solve(problem, start, sample_weight=None, **params):
    sample_weight = (
        np.ones(problem.n_samples) if sample_weight is None else sample_weight
    )
    return AdamLloyd(**params).solve(problem, start, sample_weight, None)


def _never_stop(max_iter):
    return dict(max_iter=max_iter, tol=0.0, n_iter_no_change=max_iter + 1)


def test_reaches_the_objective_of_the_planted_networks():
    problem, networks = _problem()
    weights = np.ones(problem.n_samples)
    truth = problem.reclassify(networks, weights)[2]
    start = _start(problem, 2, seed=1)
    result = _solve(problem, start, eta0=1e-2, **_never_stop(150))
    history = result.objective_history
    assert history[0] > 10 * truth
    assert history.min() < truth
    assert result.objective < truth
    # The result's fields describe its final parameters.
    labels, _, objective, _ = problem.reclassify(result.params, weights)
    assert_array_equal(result.labels, labels)
    assert result.objective == pytest.approx(objective, rel=1e-12)
    assert result.objective == history[-1]
    assert result.n_iter == len(history) - 1 == 150
    assert not result.converged


def test_objective_is_the_weighted_mean_of_the_smallest_losses():
    problem, _ = _problem(n_samples=60)
    weights = np.random.RandomState(2).uniform(0.2, 3.0, problem.n_samples)
    start = _start(problem, 3, seed=3)
    result = _solve(problem, start, weights, eta0=1e-2, **_never_stop(5))
    losses = problem.loss_matrix(result.params)
    assert_array_equal(result.labels, losses.argmin(axis=1))
    expected = losses.min(axis=1) @ weights / weights.sum()
    assert result.objective == pytest.approx(expected, rel=1e-12)


def test_stop_below_stops_at_the_first_epoch_below():
    problem, _ = _problem(n_samples=100)
    start = _start(problem, 2, seed=4)
    full = _solve(problem, start, eta0=1e-2, **_never_stop(40))
    history = full.objective_history
    threshold = 0.5 * (history[0] + history.min())
    first_below = int(np.flatnonzero(history < threshold)[0])
    assert 0 < first_below < 40
    stopped = _solve(problem, start, eta0=1e-2, stop_below=threshold, **_never_stop(40))
    assert len(stopped.objective_history) - 1 == first_below == stopped.n_iter
    assert_array_equal(stopped.objective_history, history[: first_below + 1])
    assert stopped.converged
    assert stopped.objective < threshold <= stopped.objective_history[:-1].min()


def test_stop_below_a_start_already_below_stops_at_once():
    problem, _ = _problem(n_samples=50)
    start = _start(problem, 2, seed=5)
    result = _solve(problem, start, stop_below=np.inf, **_never_stop(20))
    assert result.n_iter == 0 and result.converged
    assert_array_equal(result.params, start)


def _replay_stall_rule(history, tol, n_iter_no_change):
    """The epoch the rule of MLPRegressor stops at, from a full history."""
    best, stalled = np.inf, 0
    for epoch, objective in enumerate(history):
        if best < np.inf and objective > best - tol * abs(best):
            stalled += 1
        else:
            stalled = 0
        best = min(best, objective)
        if stalled >= n_iter_no_change:
            return epoch
    return None


@pytest.mark.parametrize("tol, n_iter_no_change", [(1e-2, 3), (5e-2, 2), (1.0, 4)])
def test_n_iter_no_change_and_tol_stop(tol, n_iter_no_change):
    problem, _ = _problem(n_samples=100)
    start = _start(problem, 2, seed=6)
    full = _solve(problem, start, eta0=1e-2, **_never_stop(60))
    expected = _replay_stall_rule(full.objective_history, tol, n_iter_no_change)
    assert expected is not None and expected < 60
    result = _solve(
        problem,
        start,
        eta0=1e-2,
        max_iter=60,
        tol=tol,
        n_iter_no_change=n_iter_no_change,
    )
    assert result.converged
    assert result.n_iter == expected == len(result.objective_history) - 1
    assert_array_equal(result.objective_history, full.objective_history[: expected + 1])
    if tol == 1.0:
        # No epoch can improve by the whole objective: the first n epochs stall.
        assert expected == n_iter_no_change


def test_max_iter_zero_returns_the_start():
    problem, _ = _problem(n_samples=40)
    start = _start(problem, 2, seed=7)
    result = _solve(problem, start, max_iter=0)
    assert_array_equal(result.params, start)
    assert_array_equal(result.init_params, start)
    assert result.n_iter == 0
    labels, _, objective, _ = problem.reclassify(start, np.ones(problem.n_samples))
    assert_array_equal(result.labels, labels)
    assert_array_equal(result.objective_history, [objective])
    assert not result.converged


def test_max_iter_counts_epochs_of_inner_steps():
    problem, _ = _problem(n_samples=40)
    start = _start(problem, 1, seed=8)
    one = _solve(problem, start, eta0=1e-3, inner_steps=4, **_never_stop(1))
    two = _solve(problem, start, eta0=1e-3, inner_steps=2, **_never_stop(2))
    # One group, every sample in it: the partition is fixed, so two epochs of
    # two steps are one epoch of four.
    assert_allclose(one.params, two.params, rtol=1e-12)
    assert one.n_iter == 1 and two.n_iter == 2


@pytest.mark.parametrize("alpha", [1e-3, 0.1])
def test_single_affine_network_reaches_the_ridge_fit(alpha):
    rng = np.random.RandomState(9)
    X = rng.standard_normal((60, 3))
    y = X @ [1.0, -2.0, 0.5] + 0.3 + 0.1 * rng.standard_normal(60)
    ridge = MixedLinearRegressor(1, alpha=alpha, fit_intercept=False).fit(
        np.hstack([X, np.ones((60, 1))]), y
    )
    problem = MixedMLPLoss((), "identity", alpha=alpha).bind(X, y)
    result = _solve(problem, np.zeros((1, 4)), eta0=1e-2, **_never_stop(200))
    assert result.objective == pytest.approx(ridge.objective_, rel=1e-4)
    assert result.objective >= ridge.objective_ * (1 - 1e-12)
    assert_allclose(result.params[0], ridge.coef_[0], atol=1e-3)


def test_a_group_without_samples_keeps_its_parameters():
    problem, _ = _problem(n_samples=60)
    start = _start(problem, 2, seed=10)
    # A network whose output is huge on every sample never wins one.
    start[1, -1] = 1e3
    result = _solve(problem, start, eta0=1e-2, **_never_stop(10))
    assert_array_equal(result.params[1], start[1])
    assert not np.array_equal(result.params[0], start[0])
    assert_array_equal(result.labels, 0)
    # The other network was trained as if alone (up to the rounding of
    # batched products).
    alone = _solve(problem, start[:1], eta0=1e-2, **_never_stop(10))
    assert_allclose(result.params[0], alone.params[0], rtol=1e-10, atol=1e-14)


class _ScriptedPartition:
    """The bound loss with the partition of every epoch given in advance."""

    def __init__(self, problem, partitions):
        self.problem = problem
        self.partitions = iter(partitions)

    def reclassify(self, params, sample_weight, with_statistics=False):
        labels = next(self.partitions)
        losses = self.problem.loss_matrix(params)
        min_losses = losses[np.arange(len(labels)), labels]
        objective = min_losses @ sample_weight / sample_weight.sum()
        return labels, min_losses, objective, None

    def partition_groups(self, labels, sample_weight, counts):
        return self.problem.partition_groups(labels, sample_weight, counts)

    def groups_gradient(self, params, groups):
        return self.problem.groups_gradient(params, groups)


def test_a_group_emptied_later_stops_with_its_moments():
    # Group 1 holds half the samples in the first epoch only: it steps then,
    # and its Adam moments must not carry it on once it is empty.
    problem, _ = _problem(n_samples=40)
    start = _start(problem, 2, seed=14)
    split = np.arange(40) % 2
    everyone = np.zeros(40, dtype=int)
    weights = np.ones(40)
    solver = AdamLloyd(eta0=1e-2, **_never_stop(1))
    one = solver.solve(_ScriptedPartition(problem, [split] * 2), start, weights, None)
    solver = AdamLloyd(eta0=1e-2, **_never_stop(4))
    four = solver.solve(
        _ScriptedPartition(problem, [split] + [everyone] * 4), start, weights, None
    )
    assert not np.array_equal(one.params[1], start[1])
    assert_array_equal(four.params[1], one.params[1])
    assert not np.array_equal(four.params[0], one.params[0])


def test_zero_weight_samples_are_ignored():
    problem, _ = _problem(n_samples=60)
    start = _start(problem, 2, seed=11)
    weights = np.ones(problem.n_samples)
    weights[::3] = 0.0
    result = _solve(problem, start, weights, eta0=1e-2, **_never_stop(8))
    kept = weights > 0
    X, y = problem.X[kept], problem.y[kept]
    subset = MixedMLPLoss((3,), "relu", alpha=1e-4).bind(X, y)
    expected = _solve(subset, start, eta0=1e-2, **_never_stop(8))
    assert_allclose(result.params, expected.params, rtol=1e-9, atol=1e-12)
    assert_allclose(result.objective_history, expected.objective_history, rtol=1e-9)


def test_deterministic():
    problem, _ = _problem(n_samples=80)
    start = _start(problem, 2, seed=12)
    first = _solve(problem, start, eta0=1e-2, **_never_stop(15))
    second = _solve(problem, start.copy(), eta0=1e-2, **_never_stop(15))
    assert_array_equal(first.params, second.params)
    assert_array_equal(first.labels, second.labels)
    assert_array_equal(first.objective_history, second.objective_history)
    # The start is not modified.
    assert_array_equal(start, _start(problem, 2, seed=12))


def test_float32_problem_keeps_float32_parameters():
    X, y, _, _ = _planted(n_samples=60)
    problem = MixedMLPLoss((3,), "relu", alpha=1e-4).bind(
        X.astype(np.float32), y.astype(np.float32)
    )
    start = _start(problem, 2, seed=13).astype(np.float32)
    result = _solve(problem, start, eta0=1e-2, **_never_stop(5))
    assert result.params.dtype == np.float32
    assert np.all(np.isfinite(result.params))
    assert np.all(np.diff(result.objective_history[:3]) < 0)
