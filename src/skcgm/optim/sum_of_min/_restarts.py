"""Restarts of a solver: ``n_init`` runs from seeds drawn up front, the best kept."""

import warnings

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ...utils._blocks import blas_controller, is_dask_array, single_threaded_blas
from ...utils._progress import Progress
from ...utils._random import MAX_SEED
from ...utils._threads import effective_n_threads

__all__ = ["Restarts", "resolve_n_init", "warn_if_fewer_distinct"]


def resolve_n_init(n_init, init, naming):
    """The number of runs, as :class:`sklearn.cluster.KMeans` resolves it.

    'auto' means one run for k-means++ or given parameters, else 10: seeded
    or given starts are good enough alone, uniform and random ones are not.
    Given parameters make every run the same, so they get one run and a
    RuntimeWarning when more were asked for, with KMeans' text.
    """
    given = not isinstance(init, str) and not callable(init)
    if n_init == "auto":
        return 1 if given or init == "k-means++" else 10
    if given and n_init != 1:
        what = naming.explicit or naming.params
        warnings.warn(
            f"Explicit {what} passed: performing only one init in "
            f"{naming.owner} instead of n_init={n_init}.",
            RuntimeWarning,
            stacklevel=3,
        )
        return 1
    return n_init


def _logged_run(solver, problem, initialize, sample_weight, seed, progress, n_threads):
    """One restart in a joblib worker: thread budget applied, lines kept.

    The lines are returned for the caller's process to print; the budget is
    thread-local (OpenMP's per-thread setting), so it holds the block threads
    of :func:`~skcgm.utils._blocks.map_row_blocks` in this worker only.
    """
    lines = []
    log = progress(lines.append)
    random_state = np.random.RandomState(seed)
    with blas_controller().limit(limits=n_threads, user_api="openmp"):
        with np.errstate(all="ignore"):
            start = initialize(
                problem, sample_weight=sample_weight, random_state=random_state
            )
            log("Initialization complete")
            result = solver.solve(problem, start, sample_weight, random_state, log)
    return result, lines


def _silent(write):
    """The progress of a run without verbose lines."""
    return Progress(None)


class Restarts:
    """The ``n_init`` runs of a solver, each from its own start; the best of them.

    The one restart helper of the sum-of-minimum estimators and of
    :func:`~skcgm.optim.sum_of_minimum`. It prepares the runs and keeps the
    best, but the caller makes the calls of ``solve`` itself, as
    :class:`sklearn.cluster.KMeans` loops over its ``n_init`` in ``fit``, so
    that no frame of the restarts stands between the caller and the solver::

        with np.errstate(all="ignore"):
            runs = restarts.in_workers()
            for arguments in restarts:
                runs.append(restarts.solver.solve(*arguments))
        best = restarts.best(runs)

    The seeds of the runs are drawn up front from ``random_state``, so the
    result does not depend on ``n_jobs`` or the joblib backend; every run
    draws its start and its solver's randomness from its own seed. Runs on
    the chunks of a dask array go one after the other and draw in turn from
    ``random_state`` itself (each run's seeding draws a seed per chunk).
    numpy's warnings are silenced around the runs (by the caller above, by
    :meth:`in_workers` in its workers, whose error state is their own): the
    gradient solvers detect their own overflow, and the exact ones cannot
    overflow on data within :func:`~skcgm.utils._validation.check_square_range`.

    Sequential runs print their verbose lines as they go. Parallel runs keep
    them and the caller's process prints them, run after run, as the results
    arrive, so that they show where ``fit`` was called (a notebook does not
    see a worker process's output) and read as with ``n_jobs=1``. Workers are
    threads unless a joblib backend says otherwise (the runs spend their time
    in NumPy and BLAS, which release the GIL, and threads need no copy of the
    data); their threads are budgeted so that runs times threads stays within
    the cores: BLAS held to one thread for all the runs (process-wide, so
    set once rather than raced on by the workers), and the block threads of
    each run to the cores divided by the concurrent runs.

    Parameters
    ----------
    problem : object
        The bound problem the solver takes.
    solver : object
        Has ``solve(problem, start, sample_weight, random_state, progress)``
        returning a result with an ``objective``, and a ``name``.
    initialize : callable
        ``initialize(problem, sample_weight=..., random_state=...)`` returns
        the start of a run.
    sample_weight : ndarray of shape (n_samples,) or None
        Weights of the samples, as the solver takes them.
    n_init : int
        Number of runs.
    random_state : int, RandomState instance or None, default=None
        Draws the seeds of the runs.
    n_jobs : int, default=None
        Number of runs in parallel through joblib.
    verbose : int, default=0
        Print the verbose lines of the runs.
    progress : callable, default=Progress
        ``progress(write)`` makes the verbose lines of a run.
    naming : Naming, default=None
        The caller's words: ``naming.step`` names the step in the warning
        of diverged runs; None: the engine's ``eta0``.

    Attributes
    ----------
    solver : object
        The solver of the runs.
    n_parallel : int
        Number of runs made at once, in joblib workers when above one.
    """

    def __init__(
        self,
        problem,
        solver,
        initialize,
        sample_weight,
        n_init,
        *,
        random_state=None,
        n_jobs=None,
        verbose=0,
        progress=Progress,
        naming=None,
    ):
        self.problem = problem
        self.solver = solver
        self.initialize = initialize
        self.sample_weight = sample_weight
        self.verbose = verbose
        self.progress = progress
        self.step = "eta0" if naming is None else naming.step
        self.n_init = n_init
        self.n_jobs = n_jobs
        random_state = check_random_state(random_state)
        if is_dask_array(problem.X):
            # Every pass of a run is spread over the chunks already.
            self._stream, self._seeds, self.n_parallel = random_state, None, 1
        else:
            self._seeds = random_state.randint(MAX_SEED, size=n_init)
            self.n_parallel = min(effective_n_jobs(n_jobs), n_init)

    def __iter__(self):
        """Yield the arguments of ``solve`` of every run made by the caller.

        A run's start is made when the caller asks for its arguments; none
        are yielded when the runs go in parallel (:meth:`in_workers`).

        Yields
        ------
        arguments : tuple
            ``(problem, start, sample_weight, random_state, progress)``.
        """
        if self.n_parallel > 1:
            return
        log = self.progress(print if self.verbose else None)
        for run in range(self.n_init):
            if self._seeds is None:
                state = self._stream
            else:
                state = np.random.RandomState(self._seeds[run])
            start = self.initialize(
                self.problem, sample_weight=self.sample_weight, random_state=state
            )
            log("Initialization complete")
            yield self.problem, start, self.sample_weight, state, log

    def in_workers(self):
        """Make the runs in joblib workers when they go in parallel.

        Returns
        -------
        runs : list
            The results of the runs, in the order of their seeds; empty when
            the runs go one after the other (the caller makes them).
        """
        if self.n_parallel == 1:
            return []
        n_threads = max(1, effective_n_threads() // self.n_parallel)
        runs = []
        with single_threaded_blas():
            outputs = Parallel(
                n_jobs=self.n_jobs, prefer="threads", return_as="generator"
            )(
                delayed(_logged_run)(
                    self.solver,
                    self.problem,
                    self.initialize,
                    self.sample_weight,
                    seed,
                    self.progress if self.verbose else _silent,
                    n_threads,
                )
                for seed in self._seeds
            )
            for result, lines in outputs:
                for line in lines:
                    print(line)
                runs.append(result)
        return runs

    def best(self, runs):
        """The run of lowest objective, the first of them on ties.

        As in :class:`sklearn.cluster.KMeans`; a
        :class:`~sklearn.exceptions.ConvergenceWarning` tells of the runs
        that diverged and were cut back to their best iterate.

        Parameters
        ----------
        runs : list
            The results of all the runs.

        Returns
        -------
        best : object
            The result of lowest objective.
        """
        _warn_if_diverged(runs, self.solver, self.step)
        return min(runs, key=lambda run: run.objective)


def _warn_if_diverged(runs, solver, step="eta0"):
    """The ConvergenceWarning of runs cut back to their best iterate.

    ``step`` is the caller's parameter holding the solver's ``eta0``; the
    solver is named only where the caller chooses it by ``eta0``.
    """
    n_diverged = sum(getattr(run, "diverged", False) for run in runs)
    if not n_diverged:
        return
    eta0 = getattr(solver, "eta0", None)
    if eta0 is None:
        advice = "with the default step"
    elif step == "eta0":
        advice = (
            f"with eta0={eta0!r}: use a smaller eta0 "
            "(None gives the step of the convergence theorems)"
        )
    else:
        advice = f"with {step}={eta0!r}: use a smaller {step}"
    subject = f"solver={solver.name!r}" if step == "eta0" else "The fit"
    warnings.warn(
        f"{subject} diverged in {n_diverged} of {len(runs)} run(s) "
        f"{advice}. The iterates overflowed or the objective ended above its "
        "initial value; each such run was cut back to its iterate of lowest "
        "objective.",
        ConvergenceWarning,
        stacklevel=3,
    )


def warn_if_fewer_distinct(result, n_clusters, naming):
    """KMeans' ConvergenceWarning when some groups of a result serve no sample.

    Counting the non-empty groups of :meth:`~SumOfMinResult.group_sizes` is
    O(n), where a sort (``np.unique``) took a tenth of a small fit.
    """
    n_distinct = int(np.count_nonzero(result.group_sizes(n_clusters)))
    if n_distinct < n_clusters:
        cause = naming.empty.format(n_lost=n_clusters - n_distinct)
        warnings.warn(
            f"Number of distinct {naming.groups} ({n_distinct}) found smaller "
            f"than n_{naming.groups} ({n_clusters}). {cause}",
            ConvergenceWarning,
            stacklevel=3,
        )
