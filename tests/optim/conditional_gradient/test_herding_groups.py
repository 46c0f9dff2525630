"""Tests of GroupHerding, the solver of KernelHerdingSampler, and its contract.

Oracles: a :class:`KernelHerding` run on the rows of one group, the sampler's
own fitted attributes, and the counting rules of :func:`apportion`.
"""

import numpy as np
import pytest

from skcgm.optim import KernelHerding
from skcgm.optim.conditional_gradient._herding import (
    GroupHerding,
    HerdingProblem,
    apportion,
)
from skcgm.sampling import KernelHerdingSampler


def _data(seed, n=80, d=3):
    return np.random.RandomState(seed).standard_normal((n, d))


def test_kernel_herding_takes_the_contracts_arguments_by_name(global_random_seed):
    # The random state is part of the family's contract, unused by one run.
    X = _data(global_random_seed)
    p = np.random.RandomState(global_random_seed).dirichlet(np.ones(X.shape[0]))
    solver = KernelHerding(max_iter=12, learning_rate="fw")
    positional = solver.solve(X, p)
    named = solver.solve(X, sample_weight=p, random_state=global_random_seed)
    np.testing.assert_array_equal(positional.index_history, named.index_history)
    np.testing.assert_array_equal(positional.weights, named.weights)


@pytest.mark.parametrize("learning_rate", ["herding", "fw", "line_search"])
def test_one_group_is_one_kernel_herding_run(global_random_seed, learning_rate):
    X = _data(global_random_seed)
    weights = np.random.RandomState(global_random_seed).uniform(0.5, 2.0, 80)
    group = np.flatnonzero(np.arange(80) % 3 != 0)
    problem = HerdingProblem(X, [group], np.array([10]))
    solver = GroupHerding(gamma=0.5, learning_rate=learning_rate)
    result = solver.solve(problem, weights, global_random_seed)
    run = KernelHerding(gamma=0.5, learning_rate=learning_rate, max_iter=10).solve(
        X[group], weights[group] / weights[group].sum()
    )
    np.testing.assert_array_equal(result.support, group[run.active_set])
    np.testing.assert_allclose(result.support_weight, run.weights, rtol=1e-15)
    np.testing.assert_allclose(
        result.objective_history, 2.0 * run.objective_history[1:], rtol=1e-15
    )
    # 'fw' and 'line_search' round the weights to whole rows: a row of a
    # small weight can get none.
    assert result.sample_indices.shape == (10,)
    assert set(result.sample_indices) <= set(result.support)
    if learning_rate == "herding":
        np.testing.assert_array_equal(result.sample_indices, group[run.index_history])


def test_groups_are_herded_apart_with_their_budgets(global_random_seed):
    X = _data(global_random_seed, n=90)
    groups = [np.arange(0, 60), np.arange(60, 90)]
    budgets = np.array([8, 4])
    problem = HerdingProblem(X, groups, budgets, labels=["a", "b"])
    result = GroupHerding(gamma=0.5).solve(problem, np.ones(90))
    first, second = result.sample_indices[:8], result.sample_indices[8:]
    assert np.all(first < 60) and np.all(second >= 60)
    assert result.objective_history.shape == (12,)
    assert result.n_scored.tolist() == [60] * 8 + [30] * 4
    # Every group's weights scaled by its share of the selections.
    in_first = result.support < 60
    assert result.support_weight[in_first].sum() == pytest.approx(8 / 12)
    assert result.support_weight.sum() == pytest.approx(1.0)


def test_explicit_features_search_their_lmo(global_random_seed):
    # The linear kernel's features are the rows: the scan over them selects
    # what the kernel trick selects.
    X = _data(global_random_seed)
    groups, budgets = [np.arange(80)], np.array([15])
    weights = np.ones(80)
    solver = GroupHerding(kernel="linear", learning_rate="line_search")
    trick = solver.solve(HerdingProblem(X, groups, budgets), weights)
    scan = solver.solve(HerdingProblem(X, groups, budgets, features=True), weights)
    np.testing.assert_array_equal(trick.support, scan.support)
    lsh = GroupHerding(kernel="linear", maxip="lsh", n_tables=2, n_bits=2)
    result = lsh.solve(HerdingProblem(X, groups, budgets, features=True), weights, 0)
    again = lsh.solve(HerdingProblem(X, groups, budgets, features=True), weights, 0)
    # The index is drawn from the random state.
    np.testing.assert_array_equal(result.sample_indices, again.sample_indices)


def test_the_sampler_holds_its_solvers_result(global_random_seed):
    X = _data(global_random_seed, n=120)
    y = np.repeat([0, 1], [90, 30])
    sampler = KernelHerdingSampler(12, per_class=True, random_state=0).fit(X, y)
    groups = [np.arange(90), np.arange(90, 120)]
    problem = HerdingProblem(X, groups, np.array([9, 3]), labels=[0, 1])
    result = sampler._solver().solve(problem, np.ones(120), 0)
    np.testing.assert_array_equal(sampler.sample_indices_, result.sample_indices)
    np.testing.assert_array_equal(sampler.support_weight_, result.support_weight)
    np.testing.assert_array_equal(sampler.objective_history_, result.objective_history)
    assert sampler.sampling_strategy_ == {0: 9, 1: 3}


@pytest.mark.parametrize("minimum", [0, 1, 2])
def test_apportion_sums_to_the_total_and_keeps_the_minimum(minimum):
    rng = np.random.RandomState(minimum)
    for _ in range(50):
        shares = rng.dirichlet(np.full(rng.randint(1, 6), 0.3))
        total = minimum * shares.shape[0] + rng.randint(0, 30)
        counts = apportion(total, shares, minimum)
        assert counts.sum() == total
        assert np.all(counts >= minimum)
        if minimum == 0:
            # Largest remainder: every count is its quota rounded down or up.
            assert np.all(np.abs(counts - total * shares) < 1)
