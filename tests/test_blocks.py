"""The block threads shared by the row-separable kernels (skcgm.utils._blocks)."""

import multiprocessing
import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from skcgm.utils import _blocks
from skcgm.utils._blocks import map_row_blocks, row_blocks
from skcgm.utils._threads import effective_n_threads

# Blocks of 2 rows: 2**17 // 2**16.
WIDE = 2**16


def test_blocks_cover_the_rows_in_order():
    results = map_row_blocks(lambda rows: (rows.start, rows.stop), 9, WIDE)
    assert results == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 9)]
    assert [slice(*r) for r in results] == row_blocks(9, WIDE)


def test_the_threads_are_started_once():
    n_threads = min(effective_n_threads(), 20)
    if n_threads < 2:
        pytest.skip("one core: the blocks run on the calling thread")

    def name(rows):
        return threading.current_thread().name

    map_row_blocks(name, 40, WIDE)
    pool = _blocks._pool(n_threads)
    before = set(pool._threads)
    names = set(map_row_blocks(name, 40, WIDE))
    assert set(pool._threads) == before
    assert names <= {thread.name for thread in before}


def test_a_block_that_maps_blocks_does_not_wait_on_its_own_pool():
    # Every pool thread waiting for blocks queued behind it would hang; the
    # inner map runs on the pool thread itself.
    def outer(rows):
        return sum(map_row_blocks(lambda inner: inner.stop - inner.start, 6, WIDE))

    assert map_row_blocks(outer, 8, WIDE) == [6, 6, 6, 6]


def test_one_thread_runs_on_the_caller():
    with threadpool_limits(1, user_api="openmp"):
        names = map_row_blocks(lambda rows: threading.current_thread().name, 8, WIDE)
    assert set(names) == {threading.current_thread().name}


def _child_sum(queue):
    queue.put(sum(map_row_blocks(lambda rows: rows.stop - rows.start, 10, WIDE)))


def test_a_forked_child_starts_its_own_threads():
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    map_row_blocks(lambda rows: None, 10, WIDE)  # the parent's pool exists
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_sum, args=(queue,))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0
    assert queue.get(timeout=1) == 10


def test_blocks_give_the_serial_result():
    X = np.random.RandomState(0).standard_normal((1001, 3))
    parts = map_row_blocks(lambda rows: X[rows].sum(axis=0), 1001, 2**14)
    np.testing.assert_allclose(np.sum(parts, axis=0), X.sum(axis=0), rtol=1e-12)


def test_single_threaded_blas_restores_every_library():
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        with _blocks.single_threaded_blas():
            assert set(blas_threads()) <= {1}
        assert blas_threads() == before
