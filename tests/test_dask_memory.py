"""The client never holds X: fits of dask arrays larger than a worker's memory.

X (8,000,000 x 10 float64, 640 MB) is drawn on the workers chunk by chunk and
is larger than either worker's memory limit, so a fit must run on the chunks;
only small results (sums, sampled rows) may reach the client, whose traced
peak must stay below 5% of X. A worker's resident memory peaked near 400 MB in
these fits (200 MB of it at start-up), below the 95% of the limit at which
dask restarts it.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skcgm.cluster import SumOfMinKMeans
from skcgm.linear_model import LocalSensitivityLogistic

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

N_SAMPLES, N_FEATURES = 8_000_000, 10
NBYTES = N_SAMPLES * N_FEATURES * 8
MEMORY_LIMIT = 560e6


@pytest.fixture(scope="module")
def big_X(dask_cluster):
    assert NBYTES > MEMORY_LIMIT
    with warnings.catch_warnings():
        # dask's notes on the workers' unmanaged memory.
        warnings.simplefilter("ignore", UserWarning)
        dask_cluster(memory_limit=f"{MEMORY_LIMIT:.0f}")
    return da.random.RandomState(0).standard_normal(
        (N_SAMPLES, N_FEATURES), chunks=(200_000, N_FEATURES)
    )


def _client_peak(fit):
    """The client's traced peak of allocations while ``fit`` runs."""
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = fit()
        return model, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_sum_of_min_kmeans_client_never_holds_x(big_X):
    start = np.asarray(big_X[:4].compute())
    model, peak = _client_peak(
        lambda: SumOfMinKMeans(4, init=start, n_init=1, max_iter=2, tol=0).fit(big_X)
    )
    assert peak < 0.05 * NBYTES
    assert model.n_passes_ == 3
    assert np.all(np.isfinite(model.cluster_centers_))


def test_local_sensitivity_logistic_client_never_holds_x(big_X):
    y = (big_X[:, 0] + big_X[:, 1] > 0).astype(np.int64)
    model, peak = _client_peak(
        lambda: LocalSensitivityLogistic(sample_size=20_000, random_state=0).fit(
            big_X, y
        )
    )
    assert peak < 0.05 * NBYTES
    # max_iter='auto': the uniform start and one round, whose draws come
    # with the centre's sums.
    assert model.n_passes_ == 2
    assert model.coef_[0, 0] > 1 and model.coef_[0, 1] > 1
