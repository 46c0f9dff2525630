"""Tests of CompAdaGradSolver's contract: problem, start, weights, random state.

Oracle: CompAdaGradClassifier's own fit, warm start and partial_fit, which
call the solver once each.
"""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skcgm.linear_model import CompAdaGradClassifier
from skcgm.optim.compadagrad._solver import CompAdaGradProblem

_PARAMS = dict(n_components=2, batch_size=8, max_iter=3, tol=None)


def _data(seed=0, n_classes=3):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((90, 5))
    X[:, 1:] += 0.5 * X[:, :1]
    y = np.argmax(X @ rng.standard_normal((5, n_classes)), axis=1)
    return X, y


def _solve(model, X, y, start, random_state):
    classes = np.unique(y)
    problem = CompAdaGradProblem(X, y, classes)
    solver = model._solver(model.max_iter, model.tol, X)
    return solver.solve(problem, start, np.ones(X.shape[0]), random_state)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_fresh_start_is_the_estimators_fit(n_classes):
    X, y = _data(n_classes=n_classes)
    model = CompAdaGradClassifier(random_state=3, **_PARAMS).fit(X, y)
    result = _solve(model, X, y, None, 3)
    assert result.solution.projection.n_components_ == model.n_components_
    for state, expected in zip(result.solution.states, model.state_):
        assert_array_equal(state.coef, expected.coef)
    assert_array_equal(result.solution.intercept, model.intercept_)
    assert (result.n_iter, result.n_steps + 1) == (model.n_iter_, model.t_)
    assert_array_equal(result.best_loss, model.best_loss_)


def test_initial_values_start_a_fresh_solution():
    X, y = _data()
    coef_init = np.random.RandomState(1).standard_normal((3, 5))
    intercept_init = np.array([0.5, -0.5, 0.0])
    model = CompAdaGradClassifier(random_state=2, **_PARAMS)
    model.fit(X, y, coef_init=coef_init, intercept_init=intercept_init)
    result = _solve(model, X, y, (coef_init, intercept_init), 2)
    assert_array_equal(
        np.array([state.coef[:5] for state in result.solution.states]), model.coef_
    )


def test_a_solution_to_continue_is_copied_not_modified():
    X, y = _data()
    model = CompAdaGradClassifier(random_state=0, warm_start=True, **_PARAMS)
    model.fit(X, y)
    start = model._fitted_solution()
    before = [state.coef.copy() for state in start.states]
    intercept = start.intercept.copy()
    result = _solve(model, X, y, start, 0)
    for state, coef in zip(start.states, before):
        assert_array_equal(state.coef, coef)
    assert_array_equal(start.intercept, intercept)
    # The same epochs as the warm-started fit, which continues the same way.
    model.fit(X, y)
    for state, expected in zip(result.solution.states, model.state_):
        assert_array_equal(state.coef, expected.coef)
    assert result.solution.projection is start.projection


def test_the_problem_counts_one_binary_problem_for_two_classes():
    X, y = _data()
    assert CompAdaGradProblem(X, y, np.array([0, 1])).n_problems == 1
    assert CompAdaGradProblem(X, y, np.array([0, 1, 2])).n_problems == 3
