"""The solver objects of the local-sensitivity family: the same runs as the
public functions, the 'auto' rule and the reports of a run cut short."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skcgm.optim import (
    ProximalPointResult,
    approximate_proximal_point,
    full_batch_lbfgs,
)
from skcgm.optim.proximal_point import (
    SOLVERS,
    LBFGSSolver,
    OneVsRestProblem,
    ProximalPointSolver,
    auto_solver,
    make_solver,
)
from skcgm.oracles import LogisticLoss


def _problem(n_classes=2, n=600, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, 4))
    y = np.digitize(X @ rng.standard_normal(4) + rng.standard_normal(n), [0.0, 1.0])
    y = np.minimum(y, n_classes - 1)
    classes = np.arange(n_classes)
    return OneVsRestProblem(
        X, y, classes, np.ones(n_classes), 1.0 / n, float(n), n, fit_intercept=True
    )


# Six rounds end short of tol: the function warns, the solver reports.
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_proximal_point_solver_runs_approximate_proximal_point():
    problem = _problem()
    options = dict(sample_size=60, scores="theorem10", max_iter=6)
    (result,) = ProximalPointSolver(**options).solve(
        problem, None, None, np.random.RandomState(3)
    )
    # One seed per problem, drawn from the solver's random_state.
    (seed,) = problem.seeds(np.random.RandomState(3))
    expected = approximate_proximal_point(
        LogisticLoss(),
        problem.X,
        alpha=problem.alpha,
        signs=problem.signs(0),
        fit_intercept=True,
        n_iter_no_change=10,
        random_state=seed,
        **options,
    )
    assert_array_equal(result.coef, expected.coef)
    for key, values in expected.history.items():
        assert_array_equal(result.history[key], values)
    assert_array_equal(result.sample_indices, expected.sample_indices)
    assert result.n_passes is None


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_lbfgs_solver_runs_full_batch_lbfgs_per_class(n_jobs):
    problem = _problem(n_classes=3)
    start = [None, np.full(5, 0.1), None]
    results = LBFGSSolver(tol=1e-8, n_jobs=n_jobs).solve(problem, start, None, 0)
    for k, result in enumerate(results):
        expected = full_batch_lbfgs(
            LogisticLoss(),
            problem.X,
            alpha=problem.alpha,
            signs=problem.signs(k),
            fit_intercept=True,
            tol=1e-8,
            x0=start[k],
        )
        assert_array_equal(result.coef, expected.coef)
    # The starting points are the caller's still.
    assert_array_equal(start[1], np.full(5, 0.1))


def test_auto_solver_and_the_registry():
    assert auto_solver("full", 0.1, 10**6, 5, on_chunks=False) == "lbfgs"
    assert auto_solver("uniform", 0.1, 100, 5, on_chunks=False) == "proximal_point"
    assert auto_solver("uniform", "auto", 9_999, 5, on_chunks=False) == "lbfgs"
    assert auto_solver("uniform", "auto", 10_000, 5, on_chunks=False) == (
        "proximal_point"
    )
    # On chunks: 10% of the rows, at most 100,000, against 2,000 per
    # coefficient.
    assert (
        auto_solver("uniform", "auto", 100_000, 5, on_chunks=True) == "proximal_point"
    )
    assert auto_solver("uniform", "auto", 100_000, 6, on_chunks=True) == "lbfgs"
    assert set(SOLVERS) == {"proximal_point", "lbfgs"}
    solver = make_solver("proximal_point", max_iter=3, n_jobs=2, unknown=1)
    assert isinstance(solver, ProximalPointSolver)
    assert (solver.max_iter, solver.n_jobs) == (3, 2)


def _stopped(grad_norm, n_passes=None, converged=False):
    history = {"grad_norm": np.array([1.0, grad_norm])}
    return ProximalPointResult(
        np.zeros(2), 1, converged, history, None, None, None, n_passes=n_passes
    )


def test_shortfall_names_max_iter_and_where_the_run_stopped():
    solver = ProximalPointSolver(tol=1e-4)
    reason = solver.shortfall([_stopped(0.5), _stopped(0.25)])
    assert reason.startswith(
        "max_iter=100 rounds: the gradient norm is 0.5 > tol=0.0001."
    )
    assert solver.shortfall([_stopped(0.5, converged=True)]) is None
    # One round on chunks is max_iter='auto' by design.
    assert solver.shortfall([_stopped(np.nan, n_passes=2)]) is None
    reason = ProximalPointSolver(max_iter=3).shortfall([_stopped(np.nan, 4)])
    assert reason.startswith("max_iter=3 rounds on the dask array: the gradient")
    reason = LBFGSSolver(max_iter=2).shortfall([_stopped(0.5, n_passes=3)])
    assert reason.startswith(
        "max_iter=2 L-BFGS iterations on the dask array: the largest gradient"
    )


def test_options_of_the_in_memory_rounds_are_refused_on_chunks():
    da = pytest.importorskip("dask.array")
    problem = _problem()
    problem.X, problem.y = (
        da.from_array(problem.X, chunks=200),
        da.from_array(problem.y, chunks=200),
    )
    solver = ProximalPointSolver(sampling="leverage", radius="lemma12")
    with pytest.raises(ValueError, match="sampling='leverage', radius='lemma12': "):
        solver.solve(problem, None, None, 0)
