"""Algorithm tests for :class:`skcgm.cluster.SumOfMinKMeans`.

Expected values come from scikit-learn, closed forms or brute force written
here, never from the implementation.
"""

import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from joblib import parallel_config
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.datasets import load_digits, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils.estimator_checks import (
    check_sample_weight_equivalence_on_dense_data,
    check_sample_weight_equivalence_on_sparse_data,
)
from threadpoolctl import threadpool_info

from skcgm.cluster import SumOfMinKMeans
from skcgm.utils._threads import effective_n_threads
from skcgm.utils.estimator_checks import expected_failed_checks

# --------------------------------------------------------------------------------------
# Independent helpers


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def _half_sq_dist(X, centers):
    """``0.5 * ||y_i - x_j||^2``, computed directly (no norm expansion)."""
    diff = _dense(X)[:, None, :].astype(np.float64) - np.asarray(centers, np.float64)
    return 0.5 * np.einsum("ijk,ijk->ij", diff, diff)


def _kl_matrix(X, centers):
    """Generalized KL ``D(y_i || x_j)``, center second (positive data)."""
    Y = np.asarray(X, np.float64)[:, None, :]
    C = np.asarray(centers, np.float64)[None]
    return np.sum(Y * np.log(Y / C) - Y + C, axis=2)


def _blobs(seed, n_samples=60, n_centers=4, n_features=2, std=1.0, sep=10.0):
    rng = np.random.RandomState(seed)
    centers = rng.uniform(-sep, sep, size=(n_centers, n_features))
    X, y = make_blobs(
        n_samples=n_samples, centers=centers, cluster_std=std, random_state=rng
    )
    return X, y


def _assert_non_increasing(history, rtol=1e-12):
    history = np.asarray(history, dtype=np.float64)
    assert history.ndim == 1 and history.size >= 2
    assert np.all(np.diff(history) <= rtol * np.abs(history[:-1])), history


# --------------------------------------------------------------------------------------
# 1. Same iterates as scikit-learn's Lloyd


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize(
    "solver, eta0", [("exact", None), ("gd", 1.0)], ids=["exact", "gd"]
)
def test_sum_of_min_kmeans_matches_sklearn_lloyd(seed, sparse, solver, eta0):
    X, _ = _blobs(seed, n_samples=90, n_centers=4, n_features=3, std=2.0)
    if sparse:
        X[np.abs(X) < 1.0] = 0.0
    init, _ = kmeans_plusplus(X, 4, random_state=seed)
    Xfit = sp.csr_matrix(X) if sparse else X
    km = KMeans(4, init=init, n_init=1, algorithm="lloyd", tol=0).fit(Xfit)
    est = SumOfMinKMeans(4, init=init, solver=solver, eta0=eta0, tol=0).fit(Xfit)
    assert est.cluster_centers_.dtype == np.float64
    np.testing.assert_allclose(est.cluster_centers_, km.cluster_centers_, atol=1e-10)
    np.testing.assert_array_equal(est.labels_, km.labels_)
    np.testing.assert_allclose(est.inertia_, km.inertia_, rtol=1e-10)


def test_sum_of_min_kmeans_sample_weight_matches_sklearn_lloyd(global_random_seed):
    X, _ = _blobs(global_random_seed, n_samples=80, n_centers=3, std=1.5)
    w = np.random.RandomState(global_random_seed).uniform(0.2, 3.0, X.shape[0])
    init, _ = kmeans_plusplus(X, 3, sample_weight=w, random_state=global_random_seed)
    km = KMeans(3, init=init, n_init=1, algorithm="lloyd", tol=0)
    km.fit(X, sample_weight=w)
    est = SumOfMinKMeans(3, init=init, tol=0).fit(X, sample_weight=w)
    np.testing.assert_allclose(est.cluster_centers_, km.cluster_centers_, atol=1e-10)
    np.testing.assert_array_equal(est.labels_, km.labels_)
    np.testing.assert_allclose(est.inertia_, km.inertia_, rtol=1e-10)


# --------------------------------------------------------------------------------------
# 3. Monotone objective


@pytest.mark.parametrize(
    "params",
    [
        dict(solver="exact"),
        dict(solver="exact", loss="kl"),
        dict(solver="gd", eta0=1.0),
        dict(solver="gd", eta0=0.3),
    ],
    ids=["exact", "exact-kl", "gd-1", "gd-0.3"],
)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_sum_of_min_kmeans_objective_history_non_increasing(
    global_random_seed, params, weighted
):
    X, _ = _blobs(global_random_seed, n_samples=80, n_centers=4, std=3.0)
    if params.get("loss") == "kl":
        X = np.exp(X / 5.0)
    rng = np.random.RandomState(global_random_seed)
    w = rng.uniform(0.2, 3.0, X.shape[0]) if weighted else None
    est = SumOfMinKMeans(
        5, reclassify_every=1, tol=0, max_iter=60, random_state=0, **params
    ).fit(X, sample_weight=w)
    assert isinstance(est.objective_history_, np.ndarray)
    _assert_non_increasing(est.objective_history_)
    np.testing.assert_allclose(est.objective_history_[-1], est.objective_, rtol=1e-12)


# --------------------------------------------------------------------------------------
# 6. Edge cases


def test_sum_of_min_kmeans_single_cluster_is_weighted_mean(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.normal(size=(25, 3))
    w = rng.uniform(0.1, 4.0, size=25)
    est = SumOfMinKMeans(1, random_state=0).fit(X, sample_weight=w)
    mean = np.average(X, axis=0, weights=w)
    np.testing.assert_allclose(est.cluster_centers_[0], mean, atol=1e-12)
    np.testing.assert_array_equal(est.labels_, 0)
    expected_inertia = np.sum(w * np.sum((X - mean) ** 2, axis=1))
    np.testing.assert_allclose(est.inertia_, expected_inertia, rtol=1e-12)


@pytest.mark.parametrize("solver", ["exact", "gd", "momentum"])
@pytest.mark.parametrize("empty_cluster", ["relocate", "keep"])
def test_sum_of_min_kmeans_fewer_distinct_points_than_clusters(solver, empty_cluster):
    X = np.repeat(np.array([[0.0, 1.0], [2.0, 3.0], [4.0, -1.0]]), 4, axis=0)
    est = SumOfMinKMeans(5, solver=solver, empty_cluster=empty_cluster, random_state=0)
    with pytest.warns(ConvergenceWarning):
        est.fit(X)
    assert est.cluster_centers_.shape == (5, 2)
    assert np.all(np.isfinite(est.cluster_centers_))
    assert np.all((est.labels_ >= 0) & (est.labels_ < 5))
    assert np.isfinite(est.inertia_) and est.inertia_ <= 1e-12
    assert np.all(np.isfinite(est.transform(X)))
    np.testing.assert_array_equal(est.predict(X), est.labels_)


def test_sum_of_min_kmeans_duplicated_points_recovers_distinct_points():
    base = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0], [6.0, 6.0]])
    X = np.repeat(base, 6, axis=0)
    for seed in range(5):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            est = SumOfMinKMeans(4, random_state=seed).fit(X)
        np.testing.assert_array_equal(
            np.unique(est.cluster_centers_, axis=0), np.unique(base, axis=0)
        )
        assert est.inertia_ == 0.0
        # each group of duplicates shares one label, and the 4 labels differ
        labels = est.labels_.reshape(4, 6)
        assert np.all(labels == labels[:, :1])
        assert np.unique(labels[:, 0]).size == 4


def test_sum_of_min_kmeans_duplicating_the_dataset_changes_nothing():
    X, _ = _blobs(8, n_samples=50, n_centers=3, std=2.0)
    init = X[[0, 10, 20]].copy()
    once = SumOfMinKMeans(3, init=init, tol=0).fit(X)
    twice = SumOfMinKMeans(3, init=init, tol=0).fit(np.vstack([X, X]))
    np.testing.assert_allclose(
        twice.cluster_centers_, once.cluster_centers_, atol=1e-10
    )
    np.testing.assert_array_equal(twice.labels_, np.tile(once.labels_, 2))
    np.testing.assert_allclose(twice.objective_, once.objective_, rtol=1e-10)
    np.testing.assert_allclose(twice.inertia_, 2 * once.inertia_, rtol=1e-10)


def test_sum_of_min_kmeans_one_feature():
    rng = np.random.RandomState(0)
    X = np.concatenate([rng.normal(0, 1, 30), rng.normal(10, 1, 30)])[:, None]
    init = np.array([[X[0, 0]], [X[-1, 0]]])
    km = KMeans(2, init=init, n_init=1, algorithm="lloyd", tol=0).fit(X)
    est = SumOfMinKMeans(2, init=init, tol=0).fit(X)
    assert est.cluster_centers_.shape == (2, 1)
    np.testing.assert_allclose(est.cluster_centers_, km.cluster_centers_, atol=1e-10)
    np.testing.assert_array_equal(est.labels_, km.labels_)
    # also with the default seeding
    est = SumOfMinKMeans(2, random_state=0).fit(X)
    np.testing.assert_allclose(
        np.sort(est.cluster_centers_[:, 0]),
        [X[:30].mean(), X[30:].mean()],
        atol=1e-10,
    )


def test_sum_of_min_kmeans_float32_is_kept():
    X, _ = _blobs(1, n_samples=50, n_centers=3)
    init = X[[0, 1, 2]]
    est64 = SumOfMinKMeans(3, init=init, tol=0).fit(X)
    est32 = SumOfMinKMeans(3, init=init.astype(np.float32), tol=0)
    est32.fit(X.astype(np.float32))
    assert est32.cluster_centers_.dtype == np.float32
    assert est32.transform(X.astype(np.float32)).dtype == np.float32
    assert est32.fit_transform(X.astype(np.float32)).dtype == np.float32
    np.testing.assert_allclose(
        est32.cluster_centers_, est64.cluster_centers_, rtol=1e-4, atol=1e-4
    )
    # default seeding also keeps float32
    est = SumOfMinKMeans(3, random_state=0).fit(X.astype(np.float32))
    assert est.cluster_centers_.dtype == np.float32


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_sum_of_min_kmeans_float32_makes_no_float64_copy(layout):
    # A float64 copy of X's values would take twice their bytes: the whole
    # fit, seeding included, stays below that in traced allocations.
    import tracemalloc

    X = np.random.RandomState(0).standard_normal((20_000, 64)).astype(np.float32)
    if layout == "csr":
        X[np.abs(X) < 1.0] = 0.0
        X = sp.csr_matrix(X)
    values = X.data if layout == "csr" else X
    tracemalloc.start()
    try:
        est = SumOfMinKMeans(8, random_state=0, max_iter=5).fit(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert est.cluster_centers_.dtype == np.float32
    assert peak < 2 * values.nbytes


def test_sum_of_min_kmeans_csr_equals_dense(global_random_seed, csr_container):
    X, _ = _blobs(global_random_seed, n_samples=60, n_centers=3, n_features=4)
    X[np.abs(X) < 2.0] = 0.0
    params = dict(n_clusters=3, random_state=global_random_seed, tol=0)
    dense = SumOfMinKMeans(**params).fit(X)
    sparse = SumOfMinKMeans(**params).fit(csr_container(X))
    np.testing.assert_allclose(
        sparse.cluster_centers_, dense.cluster_centers_, rtol=0, atol=1e-10
    )
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    np.testing.assert_allclose(sparse.inertia_, dense.inertia_, rtol=1e-10)
    np.testing.assert_allclose(
        sparse.transform(csr_container(X)), dense.transform(X), rtol=0, atol=1e-9
    )
    np.testing.assert_array_equal(sparse.predict(csr_container(X)), dense.labels_)


def test_sum_of_min_kmeans_sample_weight_equals_repetition(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X, _ = _blobs(global_random_seed, n_samples=50, n_centers=3, std=2.5)
    reps = rng.randint(1, 4, size=X.shape[0])
    init = X[[0, 1, 2]].copy()
    weighted = SumOfMinKMeans(3, init=init, tol=0)
    weighted.fit(X, sample_weight=reps.astype(float))
    repeated = SumOfMinKMeans(3, init=init, tol=0).fit(np.repeat(X, reps, axis=0))
    np.testing.assert_allclose(
        weighted.cluster_centers_, repeated.cluster_centers_, atol=1e-10
    )
    np.testing.assert_array_equal(np.repeat(weighted.labels_, reps), repeated.labels_)
    np.testing.assert_allclose(weighted.objective_, repeated.objective_, rtol=1e-10)
    np.testing.assert_allclose(weighted.inertia_, repeated.inertia_, rtol=1e-10)
    np.testing.assert_allclose(
        weighted.objective_history_, repeated.objective_history_, rtol=1e-10
    )
    assert weighted.n_iter_ == repeated.n_iter_


def test_sum_of_min_kmeans_n_jobs_does_not_change_result():
    X, _ = _blobs(3, n_samples=80, n_centers=4, std=3.0)
    params = dict(n_clusters=4, n_init=4, random_state=0)
    one = SumOfMinKMeans(n_jobs=1, **params).fit(X)
    two = SumOfMinKMeans(n_jobs=2, **params).fit(X)
    np.testing.assert_array_equal(one.cluster_centers_, two.cluster_centers_)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    assert one.inertia_ == two.inertia_
    assert one.n_iter_ == two.n_iter_


def test_sum_of_min_kmeans_same_random_state_same_result():
    X, _ = _blobs(4, n_samples=60, n_centers=4, std=3.0)
    a = SumOfMinKMeans(4, init="random", random_state=7).fit(X)
    b = SumOfMinKMeans(4, init="random", random_state=7).fit(X)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    np.testing.assert_array_equal(a.labels_, b.labels_)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_sum_of_min_kmeans_does_not_modify_input(sparse):
    X, _ = _blobs(0, n_samples=40, n_centers=3)
    w = np.linspace(0.5, 2.0, X.shape[0])
    X_in = sp.csr_matrix(X) if sparse else X
    X_before = _dense(X_in).copy()
    w_before = w.copy()
    est = SumOfMinKMeans(3, random_state=0).fit(X_in, sample_weight=w)
    est.transform(X_in)
    est.predict(X_in)
    est.score(X_in, sample_weight=w)
    np.testing.assert_array_equal(_dense(X_in), X_before)
    np.testing.assert_array_equal(w, w_before)


@pytest.mark.parametrize(
    "params, name",
    [
        (dict(n_clusters=0), "n_clusters"),
        (dict(solver="foo"), "solver"),
        (dict(loss="foo"), "loss"),
        (dict(init="foo"), "init"),
        (dict(init_score="foo"), "init_score"),
        (dict(empty_cluster="foo"), "empty_cluster"),
        (dict(n_init=0), "n_init"),
        (dict(max_iter=0), "max_iter"),
        (dict(tol=-1.0), "tol"),
        (dict(reclassify_every=0), "reclassify_every"),
        (dict(momentum=1.5), "momentum"),
        (dict(size_change_factor=0.5), "size_change_factor"),
        (dict(eta0=-1.0), "eta0"),
    ],
)
def test_sum_of_min_kmeans_bad_parameters_raise(params, name):
    X, _ = _blobs(0, n_samples=20, n_centers=2)
    with pytest.raises(ValueError, match=name):
        SumOfMinKMeans(**params).fit(X)


def test_sum_of_min_kmeans_fewer_samples_than_clusters_raises():
    X = np.arange(6.0).reshape(3, 2)
    with pytest.raises(ValueError):
        SumOfMinKMeans(5, random_state=0).fit(X)


def test_sum_of_min_kmeans_bad_init_array_shape_raises():
    X, _ = _blobs(0, n_samples=20, n_centers=2)
    with pytest.raises(ValueError):
        SumOfMinKMeans(3, init=X[:2]).fit(X)
    with pytest.raises(ValueError):
        SumOfMinKMeans(2, init=np.zeros((2, 3))).fit(X)


# --------------------------------------------------------------------------------------
# 5. KL divergence through the estimator


def test_sum_of_min_kmeans_kl_transform_is_divergence(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = np.vstack([rng.uniform(0.1, 0.5, (15, 2)), rng.uniform(5.0, 9.0, (15, 2))])
    est = SumOfMinKMeans(2, loss="kl", random_state=global_random_seed).fit(X)
    D = _kl_matrix(X, est.cluster_centers_)
    np.testing.assert_allclose(est.transform(X), D, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(est.labels_, np.argmin(D, axis=1))
    np.testing.assert_allclose(est.inertia_, D.min(axis=1).sum(), rtol=1e-10)
    for j in range(2):
        mask = est.labels_ == j
        np.testing.assert_allclose(
            est.cluster_centers_[j], X[mask].mean(axis=0), rtol=1e-10
        )


def test_sum_of_min_kmeans_kl_rejects_negative_data():
    X = np.array([[1.0, 2.0], [0.5, -0.1], [3.0, 1.0]])
    with pytest.raises(ValueError, match="non-negative"):
        SumOfMinKMeans(2, loss="kl").fit(X)
    est = SumOfMinKMeans(2, loss="kl", random_state=0).fit(np.abs(X) + 0.5)
    with pytest.raises(ValueError, match="non-negative"):
        est.predict(X)


def test_sum_of_min_kmeans_kl_rejects_gd_solver():
    X = np.random.RandomState(0).uniform(0.5, 2.0, size=(10, 2))
    with pytest.raises(ValueError):
        SumOfMinKMeans(2, loss="kl", solver="gd").fit(X)


# --------------------------------------------------------------------------------------
# 8. transform / score / inertia / predict


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_sum_of_min_kmeans_transform_is_euclidean_distance_as_kmeans(sparse):
    # Issue 15, point 6: KMeans.transform's Euclidean distances (the half
    # squared distances of the loss before).
    X, _ = _blobs(2, n_samples=50, n_centers=3)
    X_new = np.random.RandomState(1).normal(scale=5.0, size=(7, 2))
    Xf = sp.csr_matrix(X) if sparse else X
    init = X[[0, 20, 40]]
    est = SumOfMinKMeans(3, init=init, tol=0).fit(Xf)
    km = KMeans(3, init=init, n_init=1, tol=0).fit(Xf)
    expected = euclidean_distances(X_new, est.cluster_centers_)
    np.testing.assert_allclose(est.transform(X_new), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(est.transform(X_new), km.transform(X_new), rtol=1e-10)
    expected_train = euclidean_distances(X, est.cluster_centers_)
    np.testing.assert_allclose(est.fit_transform(Xf), expected_train, atol=1e-9)
    # A sample on a center is at distance 0, not at a rounding's square root.
    on_center = est.transform(est.cluster_centers_)
    assert np.all(on_center >= 0) and np.all(np.isfinite(on_center))
    np.testing.assert_allclose(np.diag(on_center), 0, atol=1e-6)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_sum_of_min_kmeans_score_and_inertia(global_random_seed, weighted):
    X, _ = _blobs(global_random_seed, n_samples=60, n_centers=3, std=2.0)
    rng = np.random.RandomState(global_random_seed)
    w = rng.uniform(0.3, 2.0, X.shape[0]) if weighted else None
    est = SumOfMinKMeans(3, random_state=global_random_seed).fit(X, sample_weight=w)
    ww = np.ones(X.shape[0]) if w is None else w
    expected = np.sum(ww * np.sum((X - est.cluster_centers_[est.labels_]) ** 2, 1))
    np.testing.assert_allclose(est.inertia_, expected, rtol=1e-10)
    np.testing.assert_allclose(est.inertia_, 2 * ww.sum() * est.objective_, rtol=1e-10)
    np.testing.assert_allclose(est.score(X, sample_weight=w), -est.inertia_, rtol=1e-10)
    # on new data: -(sum of min squared distances)
    X_new = rng.normal(scale=5.0, size=(9, 2))
    min_sq = (euclidean_distances(X_new, est.cluster_centers_) ** 2).min(axis=1)
    np.testing.assert_allclose(est.score(X_new), -min_sq.sum(), rtol=1e-10)


def test_sum_of_min_kmeans_predict_training_data_equals_labels(global_random_seed):
    X, _ = _blobs(global_random_seed, n_samples=70, n_centers=4, std=2.0)
    est = SumOfMinKMeans(4, random_state=global_random_seed).fit(X)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    labels = SumOfMinKMeans(4, random_state=global_random_seed).fit_predict(X)
    np.testing.assert_array_equal(labels, est.labels_)
    X_new = np.random.RandomState(0).normal(scale=8.0, size=(10, 2))
    expected = np.argmin(_half_sq_dist(X_new, est.cluster_centers_), axis=1)
    np.testing.assert_array_equal(est.predict(X_new), expected)


def test_sum_of_min_kmeans_feature_names_out():
    X, _ = _blobs(0, n_samples=30, n_centers=3)
    est = SumOfMinKMeans(3, random_state=0).fit(X)
    names = est.get_feature_names_out()
    np.testing.assert_array_equal(names, [f"sumofminkmeans{j}" for j in range(3)])


# --------------------------------------------------------------------------------------
# 9. KMeans' conventions (issue 15, points 6, 16, 5 and 1)


def _kmeans_parity_cases():
    """Data sets, weights and sizes on which Lloyd runs several iterations."""
    X, _ = _blobs(0, n_samples=120, n_centers=4, n_features=3, std=2.0)
    yield "blobs", X, None, 4
    X, _ = _blobs(1, n_samples=200, n_centers=5, n_features=2, std=4.0)
    yield "overlapping-blobs", X, None, 5
    X = load_digits().data[:300]
    yield "digits", X, None, 6
    X, _ = _blobs(2, n_samples=150, n_centers=3, n_features=4, std=3.0)
    X[np.abs(X) < 2.0] = 0.0
    yield "csr", sp.csr_matrix(X), None, 3
    X, _ = _blobs(3, n_samples=150, n_centers=4, std=3.0)
    w = np.random.RandomState(3).uniform(0.2, 3.0, X.shape[0])
    yield "weighted", X, w, 4


@pytest.mark.parametrize("max_iter", [300, 2])
@pytest.mark.parametrize("case", list(_kmeans_parity_cases()), ids=lambda case: case[0])
def test_sum_of_min_kmeans_equals_kmeans_lloyd_including_n_iter(case, max_iter):
    name, X, w, n_clusters = case
    init, _ = kmeans_plusplus(_dense(X), n_clusters, random_state=0)
    km = KMeans(
        n_clusters, init=init, n_init=1, algorithm="lloyd", tol=0, max_iter=max_iter
    ).fit(X, sample_weight=w)
    est = SumOfMinKMeans(n_clusters, init=init, tol=0, max_iter=max_iter)
    est.fit(X, sample_weight=w)
    np.testing.assert_array_equal(est.labels_, km.labels_)
    np.testing.assert_allclose(est.cluster_centers_, km.cluster_centers_, atol=1e-8)
    np.testing.assert_allclose(est.inertia_, km.inertia_, rtol=1e-10)
    assert est.n_iter_ == km.n_iter_
    if max_iter == 300:
        assert km.n_iter_ > 2  # the runs are not trivial
        # Stopped on a repeated partition: one history entry per iteration.
        assert est.objective_history_.shape == (est.n_iter_,)
    else:
        assert est.objective_history_.shape == (max_iter + 1,)


def test_sum_of_min_kmeans_fewer_distinct_clusters_warns_as_kmeans():
    # Three distinct points, five given centers: no seeding involved, so only
    # the check after the fit can warn, with KMeans' text.
    base = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, -1.0]])
    X = np.repeat(base, 4, axis=0)
    init = np.vstack([base, base[:2] + 0.1])
    with pytest.warns(ConvergenceWarning) as km_record:
        KMeans(5, init=init, n_init=1).fit(X)
    with pytest.warns(ConvergenceWarning) as record:
        est = SumOfMinKMeans(5, init=init).fit(X)
    messages = [str(w.message) for w in record]
    assert messages == [str(w.message) for w in km_record]
    assert messages == [
        "Number of distinct clusters (3) found smaller than n_clusters (5). "
        "Possibly due to duplicate points in X."
    ]
    assert np.unique(est.labels_).size == 3


def test_sum_of_min_kmeans_seeding_on_duplicates_warns_once():
    X = np.repeat(np.array([[0.0, 1.0], [2.0, 3.0], [4.0, -1.0]]), 4, axis=0)
    with pytest.warns(ConvergenceWarning) as record:
        SumOfMinKMeans(5, init="k-means++", n_init=3, random_state=0).fit(X)
    assert len(record) == 1


def test_sum_of_min_kmeans_init_array_with_n_init_warns_and_runs_once(capsys):
    X, _ = _blobs(0, n_samples=60, n_centers=3)
    init = X[[0, 20, 40]]
    with pytest.warns(RuntimeWarning) as km_record:
        KMeans(3, init=init, n_init=3).fit(X)
    with pytest.warns(RuntimeWarning) as record:
        est = SumOfMinKMeans(3, init=init, n_init=3, verbose=1).fit(X)
    expected = str(km_record[0].message).replace("KMeans", "SumOfMinKMeans")
    assert [str(w.message) for w in record] == [expected]
    assert expected == (
        "Explicit initial center position passed: performing only one init "
        "in SumOfMinKMeans instead of n_init=3."
    )
    assert capsys.readouterr().out.count("Initialization complete") == 1
    single = SumOfMinKMeans(3, init=init, n_init=1).fit(X)
    np.testing.assert_array_equal(est.cluster_centers_, single.cluster_centers_)


@pytest.mark.parametrize(
    "init_shape",
    [(2, 2), (3, 3)],
    ids=["wrong-n-clusters", "wrong-n-features"],
)
def test_sum_of_min_kmeans_init_shape_errors_are_kmeans(init_shape):
    X, _ = _blobs(0, n_samples=20, n_centers=2)
    init = np.zeros(init_shape)
    with pytest.raises(ValueError) as km_error:
        KMeans(3, init=init, n_init=1).fit(X)
    with pytest.raises(ValueError) as error:
        SumOfMinKMeans(3, init=init).fit(X)
    assert str(error.value) == str(km_error.value)
    assert "does not match the number of" in str(error.value)


def _verbose_lines(text):
    return [line for line in text.splitlines() if line]


def test_sum_of_min_kmeans_verbose_lines_are_kmeans_lines(capsys):
    X, _ = _blobs(1, n_samples=200, n_centers=5, std=4.0)
    init, _ = kmeans_plusplus(X, 5, random_state=0)
    KMeans(5, init=init, n_init=1, tol=0, verbose=1).fit(X)
    km_lines = _verbose_lines(capsys.readouterr().out)
    SumOfMinKMeans(5, init=init, tol=0, verbose=1).fit(X)
    lines = _verbose_lines(capsys.readouterr().out)
    assert len(lines) == len(km_lines) > 4
    for line, km_line in zip(lines, km_lines):
        head, _, value = line.rpartition(" ")
        km_head, _, km_value = km_line.rpartition(" ")
        assert head == km_head
        if head.startswith("Iteration"):
            np.testing.assert_allclose(
                float(value.rstrip(".")), float(km_value.rstrip(".")), rtol=1e-10
            )
        else:
            assert value == km_value


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_sum_of_min_kmeans_verbose_with_n_jobs_prints_in_the_caller(capsys, backend):
    # Issue 15, point 16: the lines of parallel runs reach the caller's
    # sys.stdout (what a notebook shows), the same lines as with one job.
    X, _ = _blobs(2, n_samples=120, n_centers=4, std=3.0)
    params = dict(n_clusters=4, init="uniform", n_init=3, random_state=0, verbose=1)
    SumOfMinKMeans(n_jobs=1, **params).fit(X)
    sequential = capsys.readouterr().out
    with parallel_config(backend=backend):
        SumOfMinKMeans(n_jobs=2, **params).fit(X)
    parallel = capsys.readouterr().out
    assert sequential.count("Initialization complete") == 3
    assert parallel == sequential


def test_sum_of_min_kmeans_parallel_runs_keep_threads_within_the_cores():
    # Issue 15, point 5: under a thread backend every run sees BLAS held to
    # one thread and at most cores // n_jobs block threads.
    X, _ = _blobs(2, n_samples=80, n_centers=3, std=3.0)
    seen = []

    def init(X, n_clusters, random_state):
        blas = [
            pool["num_threads"]
            for pool in threadpool_info()
            if pool["user_api"] == "blas"
        ]
        seen.append((max(blas), effective_n_threads()))
        return X[random_state.choice(X.shape[0], n_clusters, replace=False)]

    cores = effective_n_threads()
    with parallel_config(backend="threading"):
        SumOfMinKMeans(3, init=init, n_init=4, n_jobs=2, random_state=0).fit(X)
    assert len(seen) == 4
    for blas_threads, block_threads in seen:
        assert blas_threads == 1
        assert block_threads <= max(1, cores // 2)


@pytest.mark.parametrize(
    "check",
    [
        check_sample_weight_equivalence_on_dense_data,
        check_sample_weight_equivalence_on_sparse_data,
    ],
)
@pytest.mark.parametrize("loss", ["squared_euclidean", "kl"])
def test_sum_of_min_kmeans_fixed_init_passes_sample_weight_equivalence(check, loss):
    # The published expected failure's cause is the random seeding: with a
    # fixed init array (the check's data has 30 features) the check passes.
    init = np.random.RandomState(0).uniform(0.2, 0.8, size=(3, 30))
    estimator = SumOfMinKMeans(3, init=init, loss=loss)
    assert expected_failed_checks(estimator) == {}
    check("SumOfMinKMeans", estimator)


def test_sum_of_min_kmeans_random_seedings_publish_the_expected_failures():
    for init in ["k-means++", "uniform", "random"]:
        assert set(expected_failed_checks(SumOfMinKMeans(init=init))) == {
            "check_sample_weight_equivalence_on_dense_data",
            "check_sample_weight_equivalence_on_sparse_data",
        }


# --------------------------------------------------------------------------------------
# Numerical range and consistency of the fitted attributes (issue 16)


def _brute_inertia(X, centers, sample_weight=None):
    """Weighted sum of the smallest squared distances, computed directly."""
    smallest = 2 * _half_sq_dist(X, centers).min(axis=1)
    weights = np.ones(len(smallest)) if sample_weight is None else sample_weight
    return float(smallest @ np.asarray(weights, np.float64))


# One gd step from random centres leaves a cluster empty, which is the case.
@pytest.mark.filterwarnings(
    "ignore:Number of distinct clusters:sklearn.exceptions.ConvergenceWarning"
)
def test_sum_of_min_kmeans_gd_attributes_belong_to_the_returned_centers():
    # The gd step relocated an empty cluster after the last reclassification:
    # the labels, objective and inertia were those of the partition before it.
    X = np.random.RandomState(0).rand(10, 2) * 5
    model = SumOfMinKMeans(
        4,
        init="random",
        solver="gd",
        eta0=0.5,
        max_iter=1,
        n_init=1,
        random_state=8,
    ).fit(X)
    losses = _half_sq_dist(X, model.cluster_centers_)
    assert_array_equal(model.labels_, losses.argmin(axis=1))
    assert_array_equal(model.labels_, model.predict(X))
    assert model.objective_ == pytest.approx(losses.min(axis=1).mean(), rel=1e-12)
    assert model.objective_ == model.objective_history_[-1]
    assert model.inertia_ == pytest.approx(
        _brute_inertia(X, model.cluster_centers_), rel=1e-12
    )


@pytest.mark.parametrize(
    "solver, eta0",
    [("momentum", 10.0), ("momentum", 1e10), ("gd", 1e10), ("gd", 3.0)],
)
def test_sum_of_min_kmeans_diverging_step_keeps_best_finite_iterate(solver, eta0):
    X, _ = _blobs(0)
    with pytest.warns(ConvergenceWarning, match="eta0"):
        model = SumOfMinKMeans(3, solver=solver, eta0=eta0, random_state=0).fit(X)
    assert np.all(np.isfinite(model.cluster_centers_))
    assert np.all(np.isfinite(model.objective_history_))
    # The best iterate: no worse than the start, and its own attributes.
    assert model.objective_ <= model.objective_history_[0]
    assert model.objective_ == model.objective_history_[-1]
    assert_array_equal(model.labels_, model.predict(X))
    assert model.inertia_ == pytest.approx(
        _brute_inertia(X, model.cluster_centers_), rel=1e-9
    )


def test_sum_of_min_kmeans_weights_invariant_to_a_common_scale():
    # Weights whose sum overflows float64: the clustering does not depend on
    # their scale, so it equals the fit with unit weights.
    X, _ = _blobs(0, n_samples=40)
    X = X * 1e-10
    weights = np.full(X.shape[0], 1e307)
    model = SumOfMinKMeans(3, random_state=0).fit(X, sample_weight=weights)
    reference = SumOfMinKMeans(3, random_state=0).fit(X)
    assert_allclose(model.cluster_centers_, reference.cluster_centers_, rtol=1e-12)
    assert_array_equal(model.labels_, reference.labels_)
    assert model.inertia_ == pytest.approx(1e307 * reference.inertia_, rel=1e-9)


def test_sum_of_min_kmeans_inertia_overflow_names_sample_weight():
    X, _ = _blobs(0, n_samples=20)
    with pytest.raises(ValueError, match="sample_weight"):
        SumOfMinKMeans(2, random_state=0).fit(
            X * 1e150, sample_weight=np.full(X.shape[0], 1e300)
        )


@pytest.mark.parametrize("dtype, scale", [(np.float64, 1e160), (np.float32, 1e30)])
def test_sum_of_min_kmeans_refuses_data_whose_squares_overflow(dtype, scale):
    X, _ = _blobs(0, n_samples=20)
    with pytest.raises(ValueError, match="X holds values up to .* Scale the data"):
        SumOfMinKMeans(2, random_state=0).fit((X * scale).astype(dtype))
    model = SumOfMinKMeans(2, random_state=0).fit(X.astype(dtype))
    for method in (model.predict, model.transform, model.score):
        with pytest.raises(ValueError, match="X holds values up to"):
            method((X * scale).astype(dtype))


def test_sum_of_min_kmeans_uniform_init_needs_enough_weighted_samples():
    X, _ = _blobs(0, n_samples=10)
    weights = np.r_[1.0, 1.0, np.zeros(8)]
    with pytest.raises(
        ValueError, match=r"init='uniform'.*n_clusters=3.*sample_weight.* 2 "
    ):
        SumOfMinKMeans(3, init="uniform", random_state=0).fit(X, sample_weight=weights)


def test_fit_reaches_the_kernel_in_three_calls():
    # estimator -> solver object -> the loss family's reclassification with
    # the group statistics -> compiled kernel, the shape of a fit the
    # architecture asks for: the restarts prepare the runs, fit calls solve.
    X, _ = make_blobs(n_samples=300, centers=3, random_state=0)
    chains = []

    def record(frame, event, arg):
        if event == "call" and frame.f_code.co_name == "reclassify_partition":
            names = []
            while frame is not None:
                names.append(frame.f_code.co_name)
                frame = frame.f_back
            if "fit" in names:
                chains.append(names[: names.index("fit") + 1][::-1])

    sys.setprofile(record)
    try:
        SumOfMinKMeans(3, n_init=1, random_state=0).fit(X)
    finally:
        sys.setprofile(None)
    assert chains
    assert min(chains, key=len) == ["fit", "solve", "reclassify_partition"]
