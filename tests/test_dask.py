"""skcgm's joblib parallelism runs unchanged on a dask cluster.

Results must not depend on the joblib backend: the restarts of
SumOfMinKMeans draw their seeds up front, and GridSearchCV fits independent
clones. A two-worker local cluster stands in for a real one.
"""

import joblib
import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score, make_scorer
from sklearn.model_selection import GridSearchCV

from skcgm.cluster import SumOfMinKMeans

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(
        n_samples=120, centers=3, n_features=2, cluster_std=1.5, random_state=0
    )
    return X, y


def test_grid_search_on_dask_matches_default_backend(dask_client, blobs):
    X, y = blobs
    param_grid = {"n_clusters": [2, 3, 4], "solver": ["exact", "gd"]}

    def grid_search(n_jobs):
        return GridSearchCV(
            SumOfMinKMeans(n_init=2, random_state=0),
            param_grid,
            scoring=make_scorer(adjusted_rand_score),
            cv=3,
            n_jobs=n_jobs,
        ).fit(X, y)

    # Reference on the default backend, sequentially: starting the loky workers
    # costs about 6 s on 2 cores, and the next test covers loky already.
    reference = grid_search(n_jobs=1)
    with distributed.get_task_stream(dask_client) as task_stream:
        with joblib.parallel_backend("dask"):
            on_dask = grid_search(n_jobs=-1)
    # The fits did run on the cluster.
    assert len(task_stream.data) > 0

    assert_array_equal(
        on_dask.cv_results_["mean_test_score"],
        reference.cv_results_["mean_test_score"],
    )
    assert on_dask.best_params_ == reference.best_params_
    # ARI is 1 on these well-separated blobs with the right number of clusters.
    assert on_dask.best_params_["n_clusters"] == 3
    assert_array_equal(
        on_dask.best_estimator_.cluster_centers_,
        reference.best_estimator_.cluster_centers_,
    )


def test_restarts_on_dask_match_default_backend_and_sequential(dask_client):
    X, _ = make_blobs(n_samples=300, centers=5, n_features=3, random_state=1)

    def fit(n_jobs):
        return SumOfMinKMeans(
            n_clusters=5, n_init=4, n_jobs=n_jobs, random_state=0
        ).fit(X)

    sequential = fit(n_jobs=1)
    default_backend = fit(n_jobs=2)
    with distributed.get_task_stream(dask_client) as task_stream:
        with joblib.parallel_backend("dask"):
            on_dask = fit(n_jobs=2)
    assert len(task_stream.data) > 0

    for other in (default_backend, on_dask):
        assert_array_equal(other.cluster_centers_, sequential.cluster_centers_)
        assert_array_equal(other.labels_, sequential.labels_)
        assert other.inertia_ == sequential.inertia_
        assert other.n_iter_ == sequential.n_iter_
    assert np.isfinite(sequential.inertia_)
