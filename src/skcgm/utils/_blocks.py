"""Block-wise evaluation of row-separable kernels on a few threads.

Kernels over the rows of a data set (loss matrices, assignments, group sums)
are computed in blocks of bounded memory, reusing one scratch buffer per
thread for the block's loss matrix. BLAS and the compiled kernels release the
GIL, so the blocks run on a small thread pool, with BLAS held to one thread
inside it to avoid oversubscription, as scikit-learn's KMeans does.
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import lru_cache

import numpy as np
from threadpoolctl import ThreadpoolController

from ._threads import mark_block_thread, region_threads, report_threads

__all__ = [
    "blas_controller",
    "is_dask_array",
    "map_row_blocks",
    "row_blocks",
    "scratch_buffer",
    "single_threaded_blas",
]

# Rows per block so that a block of an (n_rows, n_columns) float64 matrix stays
# near 1 MiB: large enough for BLAS, small enough to stay in a core's cache.
_BLOCK_ELEMENTS = 2**17


def is_dask_array(X):
    """Whether ``X`` is a dask array, without importing dask."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "chunks")


def row_blocks(n_rows, n_columns):
    """Slices covering ``range(n_rows)`` in blocks of bounded size.

    Parameters
    ----------
    n_rows : int
        Number of rows to cover.
    n_columns : int
        Width of the per-block result; wider results get shorter blocks.

    Returns
    -------
    blocks : list of slice
        Consecutive slices, in order.

    Examples
    --------
    >>> from skcgm.utils._blocks import row_blocks
    >>> row_blocks(5, 2**16)
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    step = max(1, _BLOCK_ELEMENTS // max(1, n_columns))
    return [slice(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]


@lru_cache(maxsize=1)
def blas_controller():
    # Built once: a controller scans the loaded libraries, milliseconds that
    # would otherwise be paid by every partial_fit call.
    return ThreadpoolController()


@lru_cache(maxsize=1)
def _blas_libraries():
    return tuple(blas_controller().select(user_api="blas").lib_controllers)


@contextmanager
def single_threaded_blas():
    """Context manager limiting BLAS to one thread, process-wide.

    For loops of small BLAS calls, where threads cost more than they gain,
    and around threads that each run their own BLAS calls. It sets the
    libraries' thread counts directly: threadpoolctl's ``limit`` rebuilds
    its description of every library on each use, a tenth of a millisecond
    that a Lloyd pass over 10,000 rows would pay again and again.

    Yields
    ------
    None
        The previous thread counts come back on exit.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.utils._blocks import single_threaded_blas
    >>> with single_threaded_blas():
    ...     float(np.ones(3) @ np.ones(3))
    3.0
    """
    if getattr(_held, "blas", False):
        # Inside another such block of this thread: BLAS is held already
        # (asking the libraries costs tens of microseconds, a fifth of a
        # small Lloyd pass).
        yield
        return
    saved = [(library, library.get_num_threads()) for library in _blas_libraries()]
    saved = [(library, count) for library, count in saved if count not in (None, 1)]
    for library, _ in saved:
        library.set_num_threads(1)
    _held.blas = True
    try:
        yield
    finally:
        _held.blas = False
        for library, count in saved:
            library.set_num_threads(count)


_held = threading.local()


def map_row_blocks(func, n_rows, n_columns):
    """Apply ``func`` to every block of rows, on threads when there are several.

    The number of threads follows :func:`skcgm.utils._threads.region_threads`
    (the user's limits; a block of work at least per thread), so
    ``OMP_NUM_THREADS``, :func:`threadpoolctl.threadpool_limits` and joblib's
    limits inside its workers apply.

    Parameters
    ----------
    func : callable
        Called as ``func(rows)`` with a slice; it may write to disjoint rows
        of shared arrays but no other shared state.
    n_rows, n_columns : int
        Passed to :func:`row_blocks`.

    Returns
    -------
    results : list
        ``func(rows)`` for every block, in block order.

    Examples
    --------
    >>> from skcgm.utils._blocks import map_row_blocks
    >>> map_row_blocks(lambda rows: rows.stop - rows.start, 5, 2**16)
    [2, 2, 1]
    """
    blocks = row_blocks(n_rows, n_columns)
    # A block that maps blocks itself runs them on its own thread (the
    # policy gives one there): waiting on the pool from one of its own
    # threads could leave no thread to run them.
    n_threads = min(region_threads(n_rows * n_columns), len(blocks))
    if n_threads <= 1:
        return [func(rows) for rows in blocks]
    with single_threaded_blas():
        results = list(_pool(n_threads).map(func, blocks))
    report_threads(n_threads)
    return results


_pools = {}
_pools_lock = threading.Lock()


def _forget_pools():
    # A forked child has the parent's pools but none of their threads.
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools)


def _pool(n_threads):
    """The process's pool of ``n_threads`` threads, started once.

    Starting threads for every pass cost more than the pass itself on small
    data (a Lloyd iteration over 10,000 rows: 2 ms of thread start-up for
    0.1 ms of work); the pools live as long as the process. Callers on
    several threads share a pool safely.
    """
    with _pools_lock:
        pool = _pools.get(n_threads)
        if pool is None:
            pool = _pools[n_threads] = ThreadPoolExecutor(
                n_threads,
                thread_name_prefix="skcgm-blocks",
                initializer=mark_block_thread,
            )
        return pool


_scratch = threading.local()


def scratch_buffer(n_rows, n_columns, dtype, slot=0):
    """A per-thread reusable array of shape ``(n_rows, n_columns)``.

    Fresh multi-megabyte arrays in every block cost page faults that dominate
    cheap kernels; each worker thread keeps one buffer and reuses it. The
    content is garbage and is overwritten by the caller.

    Parameters
    ----------
    n_rows, n_columns : int
        Shape of the buffer needed.
    dtype : dtype
        Its dtype.
    slot : int, default=0
        Which of the thread's buffers of this dtype: a kernel that needs two
        at once (a block and its transform) asks for two slots.

    Returns
    -------
    buffer : ndarray of shape (n_rows, n_columns)
        A C-contiguous view into the thread's buffer.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.utils._blocks import scratch_buffer
    >>> scratch_buffer(3, 2, np.float64).shape
    (3, 2)
    """
    dtype = np.dtype(dtype)
    size = n_rows * n_columns
    buffers = getattr(_scratch, "buffers", None)
    if buffers is None:
        buffers = _scratch.buffers = {}
    buffer = buffers.get((dtype, slot))
    if buffer is None or buffer.size < size:
        buffer = buffers[dtype, slot] = np.empty(size, dtype=dtype)
    return buffer[:size].reshape(n_rows, n_columns)
