"""How many threads a parallel kernel of skcgm runs on.

One policy for every kernel, so that skcgm behaves like scikit-learn's own
kernels on a user's machine, which is never idle:

- **The user's limits.** The count is scikit-learn's: ``OMP_NUM_THREADS``
  when set, else the processors this process may use, as lowered by
  :func:`threadpoolctl.threadpool_limits` or by the limits joblib gives its
  workers. It is read from the OpenMP runtime skcgm's extensions link
  (:mod:`skcgm.utils._openmp`), not from scikit-learn's copy, so a limit set
  on either runtime's API reaches the kernels that run on ours.
- **Work enough to share.** A parallel region ends when its last thread does;
  on a busy machine that thread may wait a whole scheduler slice (a few
  milliseconds) for a core. A region is shared out only when each thread
  gets at least :data:`MIN_WORK_PER_THREAD` units of work; smaller regions
  run on the calling thread. Step-by-step solvers (a CompAdaGrad step, a
  Frank-Wolfe iteration) never open a region per step: their parallelism is
  across independent problems, through joblib (``n_jobs``).
- **Measured, where a region repeats.** A region run again and again with the
  same work (a Lloyd pass) takes its thread count from a
  :class:`ThreadChooser`, which times it on one thread and on all and keeps
  the faster: all on an idle machine, one on a busy one, where a second
  thread costs more in waiting than it computes.
- **No nesting.** A thread of skcgm's block pool
  (:func:`skcgm.utils._blocks.map_row_blocks`) runs its kernels on one thread:
  the pool already shares out the cores.

Every parallel region reports the size of its team
(:func:`~skcgm.utils._openmp.report_threads`), so that tests can count,
inside a fit, the threads a kernel actually ran on
(:func:`~skcgm.utils._openmp.record_threads`).
"""

import os
import threading
import time
from contextlib import contextmanager
from functools import lru_cache

from joblib import cpu_count

from ._openmp import openmp_max_threads, record_threads, report_threads

# The work of a region per thread, in multiply-adds (or values read), below
# which a second thread cannot pay for itself: a Lloyd pass of 2,000 rows at
# d = 2, k = 8 (about 2**15) took 46 us on one thread and 31 us on two when
# both were awake, a gain that one wake-up of an idle worker outweighs
# (benchmarks/HISTORY.md, "Threads on a busy machine").
MIN_WORK_PER_THREAD = 2**15
# ThreadChooser: the times kept per thread count, and the time the faster
# count runs between two trials of the slower one, in multiples of a trial's
# time, at first and at most.
_KEPT_TIMES = 3
_FIRST_INTERVAL = 8
_LONGEST_INTERVAL = 256
# An idle OpenMP worker spins for 7.5 to 8.5 ms on the 2-core VM of
# benchmarks/HISTORY.md before it sleeps; a region after a longer gap may wake it.
WARM_GAP = 0.005

_local = threading.local()


def mark_block_thread():
    """Mark the calling thread as one of skcgm's block threads."""
    _local.block_thread = True


def in_block_thread():
    """Whether the caller runs on one of skcgm's block threads.

    Kernels with threads of their own run single-threaded there: the blocks
    already share out the cores.

    Returns
    -------
    inside : bool
        True on a thread of :func:`skcgm.utils._blocks.map_row_blocks`' pool.

    Examples
    --------
    >>> from skcgm.utils._threads import in_block_thread
    >>> in_block_thread()
    False
    """
    return getattr(_local, "block_thread", False)


def effective_n_threads():
    """The threads the user allows skcgm's kernels, in the calling thread.

    As scikit-learn's ``_openmp_effective_n_threads`` counts them, on the
    runtime skcgm's kernels link: ``OMP_NUM_THREADS`` if set, else the
    smaller of the runtime's count and the processors joblib sees (affinity
    and cgroup quotas included); one thread on a block thread.

    Returns
    -------
    n_threads : int
        At least 1.

    Examples
    --------
    >>> from threadpoolctl import threadpool_limits
    >>> from skcgm.utils._threads import effective_n_threads
    >>> with threadpool_limits(1):
    ...     effective_n_threads()
    1
    """
    if in_block_thread():
        return 1
    return max(1, min(openmp_max_threads(), _processors()))


@lru_cache(maxsize=1)
def _processors():
    # The bound on the runtime's count: none under OMP_NUM_THREADS (the
    # runtime read it when it started; so does scikit-learn's helper), else
    # the processors joblib sees. Read once: joblib reads the cgroup quotas
    # anew on every call, 80 us, more than a small Lloyd pass.
    if os.environ.get("OMP_NUM_THREADS"):
        return float("inf")
    return cpu_count()


# A forked child may run on other processors than its parent.
os.register_at_fork(after_in_child=_processors.cache_clear)


def region_threads(work):
    """Threads for one parallel region carrying ``work`` units of work.

    Parameters
    ----------
    work : float
        The region's work, in multiply-adds or values read.

    Returns
    -------
    n_threads : int
        :func:`effective_n_threads`, but no more than gives each thread
        :data:`MIN_WORK_PER_THREAD` units; at least 1.

    Examples
    --------
    >>> from skcgm.utils._threads import MIN_WORK_PER_THREAD, region_threads
    >>> region_threads(MIN_WORK_PER_THREAD)
    1
    """
    by_work = int(work // MIN_WORK_PER_THREAD)
    return max(1, min(effective_n_threads(), by_work))


class ThreadChooser:
    """Thread counts for a region that runs again and again with the same work.

    On an idle machine a region is fastest on every thread the user allows.
    On a busy one a region ends only when its last thread does, and that
    thread may wait a scheduler slice for a core: one thread is then faster
    (a Lloyd pass of 1e4 rows took 0.65 ms on one thread and 3.4 ms on two,
    on average, with one of two cores kept busy). The chooser times the
    region on one thread and on :func:`region_threads`, keeps the faster by
    the median of its last three times, and tries the other again once the
    faster has run 8 times as long as a trial takes, then twice as long each
    time the other loses again (up to 256 times): trials cost a bounded
    share of the time, whatever the size of the region. A trial is two runs,
    the first of which wakes the threads that slept while the other count
    ran, and the second, if faster, takes over. A machine that gets busy or
    idle during a
    fit is thus followed. Runs that pay for starting or waking threads are
    not counted: the first run on each count, and a run that follows the
    previous one after more than ``warm_gap`` seconds, when idle OpenMP
    threads have gone to sleep (such a run takes the best count). The
    region's result must not depend on its thread count.

    A region that never follows itself within :data:`WARM_GAP` (one pass of
    a round that does other work between its passes) always wakes its
    threads, and their waking, and their spinning after the region while
    the round goes on, are part of its cost: such a region is chosen with
    ``warm_gap=math.inf``, every run counted.

    Parameters
    ----------
    work : float
        The region's work, as :func:`region_threads` takes it.
    warm_gap : float, default=WARM_GAP
        The longest pause, in seconds, after which a run still counts.

    Examples
    --------
    >>> from threadpoolctl import threadpool_limits
    >>> from skcgm.utils._threads import ThreadChooser
    >>> chooser = ThreadChooser(work=2**30)
    >>> with threadpool_limits(2):
    ...     for seconds in (0.5, 0.010, 0.5, 0.001):  # two runs on each count
    ...         chooser.record(chooser.threads(), seconds)
    ...     chooser.threads()  # one thread was faster
    1
    """

    def __init__(self, work, warm_gap=WARM_GAP):
        self.work = work
        self.warm_gap = warm_gap
        self._started = set()
        self._times = {}
        self._interval = _FIRST_INTERVAL
        # The time the best count may still run before the next trial.
        self._budget = None
        # A trial under way: [the count tried, the best count it has to
        # beat, whether its first run (which wakes the threads) is done].
        self._trial = None
        # Whether the run being chosen for will be counted; when the last
        # run ended.
        self._counted = False
        self._last_end = None

    def threads(self):
        """The thread count of the next run of the region.

        Returns
        -------
        n_threads : int
            At least 1, at most :func:`region_threads` of the work.
        """
        top = region_threads(self.work)
        self._counted = (
            self._last_end is not None
            and time.perf_counter() - self._last_end <= self.warm_gap
        )
        if top == 1:
            self._trial = None
            return 1
        for count in (top, 1):
            if not self._times.get(count):
                self._trial = None
                return count
        if self._trial is not None:
            if self._counted:
                return self._trial[0]
            # A pause broke the trial; the next one starts afresh.
            self._trial = None
        best = min((top, 1), key=self._median)
        other = 1 if best == top else top
        if self._budget is None:
            self._budget = self._interval * self._trial_cost(other)
        if not self._counted:
            return best
        if self._budget <= 0:
            self._trial = [other, best, False]
            return other
        return best

    def record(self, n_threads, seconds):
        """Record that a run of the region on ``n_threads`` took ``seconds``.

        Parameters
        ----------
        n_threads : int
            The count :meth:`threads` gave.
        seconds : float
            The run's wall time.
        """
        self._last_end = time.perf_counter()
        first = n_threads not in self._started
        self._started.add(n_threads)
        if first or not self._counted:
            return
        times = self._times.setdefault(n_threads, [])
        trial = self._trial
        if trial is not None and trial[0] == n_threads:
            if not trial[2]:
                # The trial's first run woke the threads; the next is judged.
                trial[2] = True
                return
            # Judged by its own time (the count's older times are from
            # another state of the machine): it takes over if it beat the
            # best count, else the next trial waits twice as long.
            self._trial = None
            won = seconds < self._median(trial[1])
            if won:
                times.clear()
            self._interval = (
                _FIRST_INTERVAL if won else min(2 * self._interval, _LONGEST_INTERVAL)
            )
            self._budget = None
        elif self._budget is not None:
            self._budget -= seconds
        times.append(seconds)
        del times[:-_KEPT_TIMES]

    @contextmanager
    def timed(self):
        """The thread count of a run of the region, timed and recorded.

        :meth:`threads`, then :meth:`record` with the wall time of the
        ``with`` block; a block that raises is not recorded.

        Yields
        ------
        n_threads : int
            The count to run the region on.

        Examples
        --------
        >>> from skcgm.utils._threads import ThreadChooser
        >>> chooser = ThreadChooser(work=1)
        >>> with chooser.timed() as n_threads:
        ...     n_threads
        1
        """
        n_threads = self.threads()
        start = time.perf_counter()
        yield n_threads
        self.record(n_threads, time.perf_counter() - start)

    def _trial_cost(self, count):
        # A trial is two runs on the count tried.
        return 2 * self._median(count)

    def _median(self, count):
        # Of at most three times: the middle one, or the larger of two.
        times = self._times.get(count)
        return sorted(times)[len(times) // 2] if times else float("inf")


__all__ = [
    "MIN_WORK_PER_THREAD",
    "ThreadChooser",
    "effective_n_threads",
    "in_block_thread",
    "mark_block_thread",
    "record_threads",
    "region_threads",
    "report_threads",
    "thread_chooser",
]

_choosers = {}
_choosers_lock = threading.Lock()
# Choosers kept at most (the oldest go first): one per kernel and size of work.
_MAX_CHOOSERS = 64


def thread_chooser(kernel, work, warm_gap=WARM_GAP):
    """The process's :class:`ThreadChooser` of ``kernel`` at ``work``.

    Shared by every call with the same key, so that what one fit measured
    serves the next: a loop of fits does not try one thread again each time.

    Parameters
    ----------
    kernel : str
        The name of the kernel.
    work : float
        The work of one of its regions.
    warm_gap : float, default=WARM_GAP
        Passed to :class:`ThreadChooser`.

    Returns
    -------
    chooser : ThreadChooser

    Examples
    --------
    >>> from skcgm.utils._threads import thread_chooser
    >>> thread_chooser("example", 2**20) is thread_chooser("example", 2**20)
    True
    """
    key = (kernel, work)
    with _choosers_lock:
        chooser = _choosers.pop(key, None) or ThreadChooser(work, warm_gap)
        _choosers[key] = chooser
        while len(_choosers) > _MAX_CHOOSERS:
            del _choosers[next(iter(_choosers))]
    return chooser
