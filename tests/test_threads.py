"""The threads of skcgm's kernels (skcgm.utils._threads, skcgm.utils._openmp).

The counts a test asserts are those the OpenMP runtime reports inside a
region (``omp_get_num_threads``, through ``record_threads``), never a time.
"""

import itertools
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from joblib import Parallel, cpu_count, delayed
from skcgm.utils._openmp import openmp_enabled, openmp_max_threads
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_info, threadpool_limits

from skcgm.cluster import SumOfMinKMeans
from skcgm.linear_model import CompAdaGradClassifier, LocalSensitivityLogistic
from skcgm.utils._blocks import map_row_blocks
from skcgm.utils._threads import (
    MIN_WORK_PER_THREAD,
    ThreadChooser,
    effective_n_threads,
    record_threads,
    region_threads,
    report_threads,
    thread_chooser,
)

MANY_CORES = effective_n_threads() >= 2 and openmp_enabled()


# Sizes never fitted before in the process.
_SIZES = itertools.count(40_000, 7)


def _kmeans_fit(n_samples):
    # A fresh size of work for every call: its thread chooser has not timed
    # anything yet, so its first pass runs on every thread allowed.
    X, _ = make_blobs(n_samples, 16, centers=8, random_state=0)
    SumOfMinKMeans(8, n_init=1, max_iter=3, random_state=0).fit(X)


def _blocks_pass():
    # 16 blocks of 2**17 values: a region the pool shares out.
    map_row_blocks(lambda rows: rows.stop - rows.start, 32, 2**16)


def _compadagrad_fit():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((300, 40))
    CompAdaGradClassifier(max_iter=2, tol=None).fit(X, X[:, 0] > 0)


def _local_sensitivity_fit():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((20000, 30))
    with warnings.catch_warnings():
        # Two rounds: not converged, on purpose.
        warnings.simplefilter("ignore", ConvergenceWarning)
        LocalSensitivityLogistic(max_iter=2, random_state=0).fit(X, X[:, 0] > 0)


KERNELS = {
    "lloyd": lambda: _kmeans_fit(next(_SIZES)),
    "blocks": _blocks_pass,
    "compadagrad": _compadagrad_fit,
    "local sensitivity": _local_sensitivity_fit,
}


def _teams(kernel):
    with record_threads() as teams:
        KERNELS[kernel]()
    return teams


def test_the_kernels_runtime_is_one_threadpoolctl_limits():
    # threadpoolctl finds the runtime the kernels link (beside
    # scikit-learn's own copy) and its limit reaches them.
    assert any(pool["user_api"] == "openmp" for pool in threadpool_info())
    with threadpool_limits(1, user_api="openmp"):
        assert openmp_max_threads() == 1
        assert effective_n_threads() == 1
    assert effective_n_threads() == min(openmp_max_threads(), cpu_count())


@pytest.mark.skipif(not MANY_CORES, reason="one core: every region runs on one")
@pytest.mark.parametrize("kernel", ["lloyd", "blocks"])
def test_a_large_region_runs_on_every_thread_allowed(kernel):
    teams = _teams(kernel)
    assert teams and max(teams) == effective_n_threads()


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_threadpool_limits_make_every_kernel_run_on_one_thread(kernel):
    with threadpool_limits(1):
        teams = _teams(kernel)
    assert set(teams) <= {1}


def test_compadagrad_opens_no_parallel_region():
    # The step is a chain of small products: its parallelism is the
    # one-vs-rest problems (n_jobs), never threads inside a step.
    assert _teams("compadagrad") == []


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_omp_num_threads_makes_every_kernel_run_on_one_thread(kernel):
    # The runtime reads OMP_NUM_THREADS when it starts: a fresh process.
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_threads import _teams
        print(max(_teams({kernel!r}), default=1))
        """
    )
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == "1"


def _teams_in_worker(kernel):
    return _teams(kernel), effective_n_threads()


# pytest imports this module under --import-mode=importlib, a name a worker
# process cannot import: its functions travel to the workers by value, through
# the cloudpickle joblib's loky pickles with (vendored in older joblib).
try:
    import cloudpickle
except ImportError:
    from joblib.externals import cloudpickle
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_joblib_workers_share_out_the_cores(kernel):
    # joblib's process workers get cores // n_jobs threads each, as
    # scikit-learn's kernels do inside them: one each on two cores.
    results = Parallel(n_jobs=2, backend="loky")(
        delayed(_teams_in_worker)(kernel) for _ in range(2)
    )
    budget = max(1, cpu_count() // 2)
    for teams, allowed in results:
        assert allowed == budget
        assert set(teams) <= set(range(1, budget + 1))


def test_region_threads_keeps_a_share_of_work_per_thread():
    with threadpool_limits(8, user_api="openmp"):
        top = effective_n_threads()
        assert region_threads(0) == 1
        assert region_threads(2 * MIN_WORK_PER_THREAD - 1) == 1
        assert region_threads(2 * MIN_WORK_PER_THREAD) == min(2, top)
        assert region_threads(1e12) == top


def test_record_threads_sees_every_report_inside_its_block():
    report_threads(5)
    with record_threads() as outer:
        report_threads(2)
        with record_threads() as inner:
            report_threads(1)
    report_threads(7)
    assert outer == [2, 1]
    assert inner == [1]


def _run(chooser, times_of, n_regions):
    """The counts the chooser picks when a region takes ``times_of(i, n)``."""
    picked = []
    for i in range(n_regions):
        n_threads = chooser.threads()
        picked.append(n_threads)
        chooser.record(n_threads, times_of(i, n_threads))
    return picked


@pytest.mark.parametrize("faster", [1, 2])
def test_thread_chooser_keeps_the_faster_count(faster):
    with threadpool_limits(2, user_api="openmp"):
        if effective_n_threads() < 2:
            pytest.skip("one core")
        chooser = ThreadChooser(work=1e12)
        picked = _run(chooser, lambda i, n: 1.0 if n == faster else 3.0, 200)
    # Both tried first (twice: the first run of each is not counted), then
    # the faster nearly always: the slower one only in trials of two runs,
    # ever further apart (the faster runs 8, 16, ... trials' time between).
    assert picked[:4] == [2, 2, 1, 1]
    slower = np.array([i for i, n in enumerate(picked) if n != faster])
    trials = slower[slower >= 4]
    assert len(trials) % 2 == 0 and len(trials) <= 2 * 5
    assert np.all(trials[1::2] - trials[::2] == 1)
    assert np.all(np.diff(trials[::2]) >= 8)


def test_thread_chooser_does_not_count_a_first_run_that_starts_threads():
    # A first run that pays for starting the threads (here 100 times the
    # others) does not make the chooser keep one thread.
    with threadpool_limits(2, user_api="openmp"):
        if effective_n_threads() < 2:
            pytest.skip("one core")
        chooser = ThreadChooser(work=1e12)
        starts = iter([100.0])
        picked = _run(
            chooser,
            lambda i, n: next(starts, 0.5) if n == 2 else 1.0,
            20,
        )
    # Then two threads: the first trial of one thread waits until two
    # threads have run 8 trials' time (8 x 2 x 1.0 s, 32 runs).
    assert picked[:4] == [2, 2, 1, 1]
    assert picked[4:] == [2] * 16


def test_thread_chooser_follows_a_machine_that_gets_busy_and_idle_again():
    with threadpool_limits(2, user_api="openmp"):
        if effective_n_threads() < 2:
            pytest.skip("one core")
        chooser = ThreadChooser(work=1e12)

        def times_of(i, n):
            busy = 100 <= i < 400
            if n == 1:
                return 1.0
            return 3.0 if busy else 0.6

        picked = np.array(_run(chooser, times_of, 800))
    # Two threads while idle, one while busy, two again once idle: each
    # switch within the longest interval between trials.
    assert np.mean(picked[50:100] == 2) > 0.9
    assert np.mean(picked[100 + 10 : 400] == 1) > 0.9
    assert np.mean(picked[400 + 260 :] == 2) > 0.9


def test_thread_chooser_of_a_small_region_is_one_thread():
    chooser = ThreadChooser(work=MIN_WORK_PER_THREAD)
    assert _run(chooser, lambda i, n: 1.0, 5) == [1] * 5


def test_thread_choosers_are_shared_by_kernel_and_work():
    a = thread_chooser("test kernel", 123456)
    assert thread_chooser("test kernel", 123456) is a
    assert thread_chooser("test kernel", 123457) is not a
    assert thread_chooser("other kernel", 123456) is not a
