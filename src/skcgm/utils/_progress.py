"""The verbose lines of one solver run."""

import time

__all__ = ["Progress", "TimedProgress"]


class Progress:
    """The verbose lines of one run, in :class:`sklearn.cluster.KMeans`' words.

    ``write`` is ``print`` for a run in the caller's process and a list's
    ``append`` for a run in a joblib worker, whose lines the caller prints
    (a worker's standard output does not reach a notebook); None is silent.
    ``scale`` turns the objective :math:`F` into the reported quantity (the
    inertia, for estimators that define one).
    """

    def __init__(self, write, quantity="objective", scale=1.0):
        self.write = write
        self.quantity = quantity
        self.scale = scale

    def __call__(self, text):
        if self.write is not None:
            self.write(text)

    def iteration(self, n_iter, objective):
        self(f"Iteration {n_iter}, {self.quantity} {self.scale * objective}.")

    def converged(self, n_iter, reason):
        self(f"Converged at iteration {n_iter}: {reason}.")


class TimedProgress(Progress):
    """Verbose lines stamped with the seconds elapsed since the run began.

    For solvers whose iterations are many and cheap: at ``verbose=1`` a line
    every ``period`` iterations (about ``n_lines`` lines over ``max_iter``
    iterations, and always the last one), at ``verbose >= 2`` a line per
    iteration. ``start`` is a :func:`time.perf_counter` reading, so that the
    runs of one fit (one per class, say) share a clock.
    """

    def __init__(self, verbose, max_iter, *, start=None, n_lines=10, write=print):
        super().__init__(write if verbose else None, quantity="objective")
        self.period = 1 if verbose >= 2 else max(1, -(-max_iter // n_lines))
        self.start = time.perf_counter() if start is None else start

    @property
    def active(self):
        """Whether the lines are written at all."""
        return self.write is not None

    def elapsed(self):
        """Seconds since ``start``."""
        return time.perf_counter() - self.start

    def due(self, n_iter, last=False):
        """Whether iteration ``n_iter`` (counted from 1) gets a line."""
        return self.active and (last or n_iter % self.period == 0)

    def stamped(self, text):
        """Write ``text`` followed by the elapsed time."""
        self(f"{text}, elapsed {self.elapsed():.2f} s.")
