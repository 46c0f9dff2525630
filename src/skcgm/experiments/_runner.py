"""The trial runner every experiment shares: size, seeds, workers, progress, result."""

import os
import time
from types import SimpleNamespace

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils import check_random_state

from ..utils._random import MAX_SEED
from ._result import ExperimentResult, _versions


def _silent(message):
    """Progress sink when the caller asked for none."""


class TrialRunner:
    """One run of an experiment: its size, seed stream, workers and progress.

    Every ``run_*`` builds one from its keyword arguments, draws the seeds of
    its data and trials from :attr:`rng` in a fixed order (so a seed gives
    the same table whatever ``n_jobs``), maps its trials through
    :meth:`map` and returns :meth:`result`.

    Parameters
    ----------
    default_trials : tuple of int
        The numbers of trials at the quick and at the paper's size.
    full : bool
        The paper's size instead of the quick one.
    trials : int or None
        Number of trials; None takes the default of the size.
    random_state : int
        Seed of the run.
    n_jobs : int or None
        joblib workers of :meth:`map`.
    progress : callable or None
        Called with a one-line message per step.

    Examples
    --------
    >>> from skcgm.experiments._runner import TrialRunner
    >>> run = TrialRunner((3, 10), False, None, 0, None, None)
    >>> run.trials, run.size("quick", "full")
    (3, 'quick')
    >>> run.map(pow, [(2, 3), (3, 2)])
    [8, 9]
    """

    def __init__(self, default_trials, full, trials, random_state, n_jobs, progress):
        self.full = full
        self.trials = default_trials[bool(full)] if trials is None else trials
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.report = progress if progress is not None else _silent
        self.rng = check_random_state(random_state)
        self.cpu_count = os.cpu_count()
        self._start = time.perf_counter()

    def size(self, quick, full):
        """``full`` at the paper's size, else ``quick``."""
        return full if self.full else quick

    def settings(self, quick, full, **overrides):
        """The quick or the full settings, with the caller's overrides.

        An override of None keeps the size's setting.

        Examples
        --------
        >>> from skcgm.experiments._runner import TrialRunner
        >>> run = TrialRunner((3, 10), True, None, 0, None, None)
        >>> run.settings({"n": 10, "d": 2}, {"n": 99, "d": 5}, d=None, n=7)
        namespace(n=7, d=5)
        """
        chosen = dict(full if self.full else quick)
        chosen.update({k: v for k, v in overrides.items() if v is not None})
        return SimpleNamespace(**chosen)

    def seed(self):
        """The next seed of the run's stream."""
        return int(self.rng.randint(MAX_SEED))

    def seeds(self, n):
        """The next ``n`` seeds of the run's stream, as an array."""
        return self.rng.randint(MAX_SEED, size=n)

    def map(self, function, tasks):
        """``[function(*task) for task in tasks]`` on ``n_jobs`` workers."""
        return Parallel(n_jobs=self.n_jobs)(delayed(function)(*task) for task in tasks)

    def map_seeds(self, function, args, seeds):
        """``function(*args, chunk)`` over chunks of ``seeds``, in their order.

        A few chunks per core keep the workers busy; which worker runs a
        chunk does not change its results.
        """
        n_chunks = min(len(seeds), 4 * max(1, self.cpu_count or 1))
        chunks = np.array_split(seeds, n_chunks)
        return self.map(function, [(*args, chunk) for chunk in chunks])

    def metadata(self, **extra):
        """The run's settings, ``extra``, its wall time and the versions."""
        return {
            "trials": self.trials,
            "full": self.full,
            "random_state": self.random_state,
            "cpu_count": self.cpu_count,
            **extra,
            "wall_time_s": time.perf_counter() - self._start,
            "versions": _versions(),
        }

    def result(self, name, rows, columns, caption, **metadata):
        """The :class:`ExperimentResult`, with :meth:`metadata`."""
        return ExperimentResult(name, rows, columns, caption, self.metadata(**metadata))
