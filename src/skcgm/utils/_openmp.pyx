# cython: language_level=3
"""The OpenMP runtime that skcgm's compiled kernels link, as they see it.

A process may hold several OpenMP runtimes: scikit-learn's wheels bring their
own copy of libgomp, skcgm's kernels link the compiler's. A thread count read
through scikit-learn's helper is that of scikit-learn's copy; this module is
built with the OpenMP flags of the kernels, so its answers come from the
runtime the kernels run on. ``OMP_NUM_THREADS``,
:func:`threadpoolctl.threadpool_limits` (which sets every OpenMP runtime it
finds loaded, this one included) and the limits joblib gives its workers all
reach it. Built without OpenMP, every answer is one thread.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import threading
from contextlib import contextmanager

def openmp_enabled():
    """Whether the compiled kernels were built with OpenMP.

    Returns
    -------
    enabled : bool
        False when the compiler had no OpenMP: the kernels then run on one
        thread.

    Examples
    --------
    >>> from skcgm.utils._openmp import openmp_enabled
    >>> isinstance(openmp_enabled(), bool)
    True
    """
    return bool(SKCGM_OPENMP)


def openmp_max_threads():
    """``omp_get_max_threads()`` of the kernels' runtime, in the calling thread.

    The value a parallel region opened by this thread without an explicit
    thread count would get: ``OMP_NUM_THREADS`` or the number of processors
    at start-up, as lowered since by ``omp_set_num_threads`` (threadpoolctl)
    in this thread.

    Returns
    -------
    n_threads : int
        At least 1; 1 without OpenMP.

    Examples
    --------
    >>> from threadpoolctl import threadpool_limits
    >>> from skcgm.utils._openmp import openmp_max_threads
    >>> with threadpool_limits(1):
    ...     openmp_max_threads()
    1
    """
    return max_threads()


# The recorders of record_threads, here rather than in a module of Python
# source: a test collector may import a .py module a second time, and the
# kernels must report to the recorders the tests read.
_recorders = []
_recorders_lock = threading.Lock()


def report_threads(n_threads):
    """Report the team size of a parallel region that has run.

    Parameters
    ----------
    n_threads : int
        The number of threads the region ran on, as the runtime reported it
        inside the region (``omp_get_num_threads``), or as many as a pool
        ran it on.
    """
    if _recorders:
        with _recorders_lock:
            for recorder in _recorders:
                recorder.append(int(n_threads))


@contextmanager
def record_threads():
    """Record the team size of every parallel region run inside the block.

    Yields
    ------
    teams : list of int
        Filled as regions run, in every thread of the process: one entry a
        region.

    Examples
    --------
    >>> from skcgm.utils._openmp import record_threads, report_threads
    >>> with record_threads() as teams:
    ...     report_threads(2)
    >>> teams
    [2]
    """
    teams = []
    with _recorders_lock:
        _recorders.append(teams)
    try:
        yield teams
    finally:
        with _recorders_lock:
            _recorders.remove(teams)
