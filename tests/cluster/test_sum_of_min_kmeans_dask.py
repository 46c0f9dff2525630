"""SumOfMinKMeans on dask arrays: the same Lloyd passes, run on the chunks.

A two-worker local cluster stands in for a real one; the results must equal
the in-memory ones from the same start, whatever the chunks, and the client
must never hold X.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

from skcgm.cluster import SumOfMinKMeans

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs(3000, n_features=5, centers=6, cluster_std=2.0, random_state=0)
    return X


@pytest.mark.parametrize("chunks", [3000, 500, 337])
def test_fit_equals_in_memory_from_the_same_start(dask_client, blobs, chunks):
    start = blobs[np.random.RandomState(1).choice(len(blobs), 6, replace=False)]
    params = dict(init=start, n_init=1, tol=0, max_iter=50)
    memory = SumOfMinKMeans(6, **params).fit(blobs)
    dask = SumOfMinKMeans(6, **params).fit(da.from_array(blobs, chunks=(chunks, 5)))
    assert_allclose(dask.cluster_centers_, memory.cluster_centers_, rtol=0, atol=1e-10)
    assert dask.n_iter_ == memory.n_iter_
    assert dask.inertia_ == pytest.approx(memory.inertia_, rel=1e-12)
    assert_allclose(dask.objective_history_, memory.objective_history_, rtol=1e-12)
    assert isinstance(dask.labels_, da.Array)
    assert_array_equal(dask.labels_.compute(), memory.labels_)
    # One pass per assignment: the iterations and the pass that finds the
    # partition repeated.
    assert dask.n_passes_ == len(dask.objective_history_)


def test_empty_clusters_are_relocated_as_in_memory(dask_client, blobs):
    # Two copies of one start leave a cluster empty at the first assignment.
    start = np.vstack([blobs[:5], blobs[:1]])
    params = dict(init=start, n_init=1, tol=0, max_iter=50)
    memory = SumOfMinKMeans(6, **params).fit(blobs)
    dask = SumOfMinKMeans(6, **params).fit(da.from_array(blobs, chunks=(400, 5)))
    assert len(np.unique(memory.labels_)) == 6
    assert_allclose(dask.cluster_centers_, memory.cluster_centers_, rtol=0, atol=1e-10)
    assert_array_equal(dask.labels_.compute(), memory.labels_)


def test_empty_clusters_kept_on_request(dask_client, blobs):
    start = np.vstack([blobs[:5], blobs[:1]])
    params = dict(init=start, n_init=1, tol=0, empty_cluster="keep")
    memory = SumOfMinKMeans(6, **params).fit(blobs)
    dask = SumOfMinKMeans(6, **params).fit(da.from_array(blobs, chunks=(400, 5)))
    assert_allclose(dask.cluster_centers_, memory.cluster_centers_, rtol=0, atol=1e-10)


def test_predict_and_transform_stay_lazy_and_match(dask_client, blobs):
    X = da.from_array(blobs, chunks=(700, 5))
    model = SumOfMinKMeans(6, random_state=0).fit(X)
    labels = model.predict(X)
    distances = model.transform(X)
    assert isinstance(labels, da.Array) and isinstance(distances, da.Array)
    assert_array_equal(labels.compute(), model.predict(blobs))
    assert_allclose(distances.compute(), model.transform(blobs), rtol=1e-12)
    assert_array_equal(model.labels_.compute(), model.predict(blobs))


def test_oversampling_seeding_is_reproducible_and_good(dask_client, blobs):
    X = da.from_array(blobs, chunks=(500, 5))
    first = SumOfMinKMeans(6, random_state=3).fit(X)
    again = SumOfMinKMeans(6, random_state=3).fit(X)
    assert_array_equal(first.cluster_centers_, again.cluster_centers_)
    # As good as the best of ten in-memory runs, within 1%.
    best = SumOfMinKMeans(6, n_init=10, random_state=0).fit(blobs)
    assert first.inertia_ <= 1.01 * best.inertia_
    # Seeding passes (a first, five rounds, the weights) before Lloyd's.
    assert first.n_passes_ == 7 + len(first.objective_history_)


@pytest.mark.parametrize(
    "params, sample_weight, match",
    [
        (dict(solver="gd"), None, "solver must be 'exact'"),
        (dict(loss="kl"), None, "loss must be 'squared_euclidean'"),
        ({}, "weights", "sample_weight must be None"),
    ],
)
def test_unsupported_options_raise_before_any_pass(blobs, params, sample_weight, match):
    X = da.from_array(blobs, chunks=(500, 5))
    if sample_weight == "weights":
        sample_weight = np.ones(len(blobs))
    with pytest.raises(ValueError, match=match):
        SumOfMinKMeans(6, **params).fit(X, sample_weight=sample_weight)


def test_bad_dask_input_raises(dask_client, blobs):
    with pytest.raises(ValueError, match="2-D with a float dtype"):
        SumOfMinKMeans(2).fit(da.from_array(blobs[:, 0], chunks=500))
    with pytest.raises(ValueError, match="2-D with a float dtype"):
        SumOfMinKMeans(2).fit(da.from_array(blobs.astype(int), chunks=(500, 5)))
    bad = blobs.copy()
    bad[1234, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        SumOfMinKMeans(2, random_state=0).fit(da.from_array(bad, chunks=(500, 5)))
    model = SumOfMinKMeans(2, random_state=0).fit(da.from_array(blobs, chunks=500))
    with pytest.raises(ValueError, match="X has 4 features"):
        model.predict(da.from_array(blobs[:, :4], chunks=500))


def test_fewer_distinct_points_than_clusters_warn_once(dask_client):
    X = np.repeat(np.arange(3.0)[:, None], 10, axis=0)
    with pytest.warns(ConvergenceWarning, match=r"distinct clusters \(3\)") as record:
        model = SumOfMinKMeans(5, random_state=0).fit(da.from_array(X, chunks=7))
    assert len(record) == 1
    assert model.inertia_ == 0
    assert_array_equal(np.unique(model.cluster_centers_), [0.0, 1.0, 2.0])
