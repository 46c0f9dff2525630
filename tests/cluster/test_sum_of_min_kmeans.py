"""Algorithm tests for :class:`skcgm.cluster.SumOfMinKMeans`.

Expected values come from scikit-learn, closed forms or brute force written
here, never from the implementation.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import euclidean_distances

from skcgm.cluster import SumOfMinKMeans

# --------------------------------------------------------------------------------------
# Independent helpers


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def _half_sq_dist(X, centers):
    """``0.5 * ||y_i - x_j||^2``, computed directly (no norm expansion)."""
    diff = _dense(X)[:, None, :].astype(np.float64) - np.asarray(centers, np.float64)
    return 0.5 * np.einsum("ijk,ijk->ij", diff, diff)


def _kl_matrix(X, centers):
    """Generalized KL ``d(x_j, y_i)``, centroid first."""
    Y = np.asarray(X, np.float64)[:, None, :]
    C = np.asarray(centers, np.float64)[None]
    return np.sum(C * np.log(C / Y) - C + Y, axis=2)


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
    "solver, learning_rate", [("exact", None), ("gd", 1.0)], ids=["exact", "gd"]
)
def test_sum_of_min_kmeans_matches_sklearn_lloyd(seed, sparse, solver, learning_rate):
    X, _ = _blobs(seed, n_samples=90, n_centers=4, n_features=3, std=2.0)
    if sparse:
        X[np.abs(X) < 1.0] = 0.0
    init, _ = kmeans_plusplus(X, 4, random_state=seed)
    Xfit = sp.csr_matrix(X) if sparse else X
    km = KMeans(4, init=init, n_init=1, algorithm="lloyd", tol=0).fit(Xfit)
    est = SumOfMinKMeans(
        4, init=init, solver=solver, learning_rate=learning_rate, tol=0
    ).fit(Xfit)
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
        dict(solver="gd", learning_rate=1.0),
        dict(solver="gd", learning_rate=0.3),
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
        (dict(learning_rate=-1.0), "learning_rate"),
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
        geometric = np.exp(np.log(X[mask]).mean(axis=0))
        np.testing.assert_allclose(est.cluster_centers_[j], geometric, rtol=1e-10)


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
def test_sum_of_min_kmeans_transform_is_half_squared_distance(sparse):
    X, _ = _blobs(2, n_samples=50, n_centers=3)
    X_new = np.random.RandomState(1).normal(scale=5.0, size=(7, 2))
    Xf = sp.csr_matrix(X) if sparse else X
    est = SumOfMinKMeans(3, random_state=0).fit(Xf)
    expected = euclidean_distances(X_new, est.cluster_centers_) ** 2 / 2
    np.testing.assert_allclose(est.transform(X_new), expected, rtol=1e-10, atol=1e-12)
    expected_train = euclidean_distances(X, est.cluster_centers_) ** 2 / 2
    np.testing.assert_allclose(est.fit_transform(Xf), expected_train, atol=1e-9)


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
