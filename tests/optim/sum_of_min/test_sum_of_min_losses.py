"""Tests of the per-sample loss families of the sum-of-minimum engine.

Mostly the generalized Kullback-Leibler (I-)divergence and its behaviour at the
boundary of its domain (zeros in the data, centers that would reach zero).
Expected values come from formulas written here (the divergence with
``0 log 0 = 0``), from scipy's bounded minimizer, or from the planted labels of
a Poisson mixture; scikit-learn's KMeans is the reference point for recovery.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import minimize
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score
from threadpoolctl import threadpool_limits

from skcgm.cluster import SumOfMinKMeans
from skcgm.optim import (
    KLDivergenceLoss,
    SquaredEuclideanLoss,
    SumOfMinLoss,
    generalized_kmeans_plusplus,
    sum_of_minimum,
)

# --------------------------------------------------------------------------------------
# Independent helpers


def _i_divergence(Y, centers):
    """``D(y || x) = sum_l y_l log(y_l / x_l) - y_l + x_l``, ``0 log 0 = 0``.

    Written coordinate by coordinate from the definition: a coordinate with
    ``y_l = 0`` contributes ``x_l`` (for ``x_l >= 0``), one with ``y_l > 0`` and
    ``x_l = 0`` contributes ``+inf``; a negative center coordinate is outside
    the domain of ``h(x) = sum x log x`` and gives ``+inf``.
    """
    Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y, np.float64)
    C = np.asarray(centers, np.float64)
    out = np.zeros((Y.shape[0], C.shape[0]))
    for i, y in enumerate(Y):
        for j, x in enumerate(C):
            total = 0.0
            for yl, xl in zip(y, x):
                if xl < 0 or (yl > 0 and xl == 0):
                    total = np.inf
                    break
                total += xl if yl == 0 else yl * np.log(yl / xl) - yl + xl
            out[i, j] = total
    return out


def _poisson_mixture(seed, n_samples=300):
    """Three well-separated Poisson rate profiles; ~60% of rows hold a zero."""
    rng = np.random.RandomState(seed)
    rates = np.array([[0.3, 8.0, 3.0], [6.0, 0.5, 9.0], [12.0, 12.0, 0.4]])
    labels = rng.randint(3, size=n_samples)
    X = rng.poisson(rates[labels]).astype(np.float64)
    return X, labels, rates


def _count_data_with_zeros(seed, n_samples=40, n_features=4):
    rng = np.random.RandomState(seed)
    X = rng.poisson(rng.uniform(0.2, 6.0, size=(n_samples, n_features)))
    return X.astype(np.float64)


# --------------------------------------------------------------------------------------
# 1. The divergence, its domain and its boundary


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kl_loss_matrix_is_generalized_i_divergence(global_random_seed, sparse, dtype):
    X = _count_data_with_zeros(global_random_seed)
    assert np.any(X == 0)
    rng = np.random.RandomState(global_random_seed)
    centers = rng.uniform(0.05, 7.0, size=(5, X.shape[1]))
    Xb = sp.csr_matrix(X.astype(dtype)) if sparse else X.astype(dtype)
    loss = KLDivergenceLoss().bind(Xb)
    expected = _i_divergence(X, centers)
    rtol = 1e-10 if dtype == np.float64 else 1e-4
    got = loss.loss_matrix(centers.astype(dtype))
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=50 * rtol)
    for j in range(centers.shape[0]):
        np.testing.assert_allclose(
            loss.loss_vector(centers[j].astype(dtype)), expected[:, j], rtol=rtol
        )


def test_kl_loss_zero_center_coordinate_is_finite_only_where_data_is_zero():
    # 0 log 0 = 0: a zero coordinate of the center costs nothing on rows that
    # are zero there and +inf on rows that are positive there.
    X = np.array([[0.0, 2.0], [1.0, 2.0], [0.0, 0.0]])
    centers = np.array([[0.0, 1.0], [1.0, 1.0]])
    loss = KLDivergenceLoss().bind(X)
    expected = _i_divergence(X, centers)
    assert np.isinf(expected[1, 0]) and np.isfinite(expected[0, 0])
    with pytest.warns(RuntimeWarning, match="infinite"):
        got = loss.loss_matrix(centers)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    with pytest.warns(RuntimeWarning, match="infinite"):
        np.testing.assert_allclose(loss.loss_vector(centers[0]), expected[:, 0])


def test_kl_loss_negative_center_is_outside_the_domain():
    X = np.array([[0.0, 2.0], [1.0, 2.0]])
    loss = KLDivergenceLoss().bind(X)
    with pytest.warns(RuntimeWarning, match="infinite"):
        got = loss.loss_matrix(np.array([[-1.0, 1.0], [1.0, 1.0]]))
    assert np.all(np.isinf(got[:, 0])) and np.all(np.isfinite(got[:, 1]))
    assert not np.any(np.isnan(got))


def test_kl_loss_centers_inside_the_domain_do_not_warn():
    X = _count_data_with_zeros(0)
    loss = KLDivergenceLoss().bind(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.all(np.isfinite(loss.loss_matrix(np.full((2, X.shape[1]), 1e-9))))


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_kl_loss_rejects_negative_data_naming_x(sparse):
    X = np.array([[1.0, 2.0], [0.5, -0.1], [3.0, 1.0]])
    with pytest.raises(ValueError, match=r"X .*non-negative"):
        KLDivergenceLoss().bind(sp.csr_matrix(X) if sparse else X)


def test_kl_loss_floor_is_relative_to_the_data_scale():
    X = _count_data_with_zeros(1)
    floor = KLDivergenceLoss().bind(X).floor
    assert floor == pytest.approx(1e-2 * X.mean(), rel=1e-12)
    assert KLDivergenceLoss().bind(1e3 * X).floor == pytest.approx(1e3 * floor)
    small = KLDivergenceLoss(relative_floor=1e-6).bind(X).floor
    assert small == pytest.approx(1e-4 * floor)
    # all-zero data has no scale: the floor falls back to the relative value
    assert KLDivergenceLoss().bind(np.zeros((3, 2))).floor == pytest.approx(1e-2)


@pytest.mark.parametrize("floor", [0.0, -1e-3, np.inf, np.nan, 1.0, "0.1"])
def test_kl_loss_rejects_invalid_relative_floor(floor):
    with pytest.raises(ValueError, match="relative_floor"):
        KLDivergenceLoss(relative_floor=floor).bind(np.ones((2, 2)))


# --------------------------------------------------------------------------------------
# 2. Oracles over the centers' domain x >= floor


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_kl_group_minimizer_is_bounded_minimizer_of_group_objective(
    global_random_seed, weighted
):
    rng = np.random.RandomState(global_random_seed)
    X = _count_data_with_zeros(global_random_seed, n_samples=12, n_features=3)
    X[:, 2] = 0  # a coordinate where every member is zero
    w = rng.uniform(0.5, 2.0, size=12) if weighted else np.ones(12)
    loss = KLDivergenceLoss(relative_floor=1e-3).bind(X)
    membership = sp.csr_matrix(w[None, :])
    center = loss.group_minimizer(
        np.ones((1, 3)), loss.group_statistics(membership), np.array([w.sum()])
    )[0]

    def objective(x):
        return float(w @ _i_divergence(X, x[None])[:, 0])

    bounded = minimize(
        objective,
        np.full(3, 1.0),
        method="L-BFGS-B",
        bounds=[(loss.floor, None)] * 3,
        options={"ftol": 1e-15, "gtol": 1e-12},
    )
    np.testing.assert_allclose(center, bounded.x, rtol=1e-5, atol=1e-9)
    mean = np.average(X, axis=0, weights=w)
    np.testing.assert_allclose(center, np.maximum(mean, loss.floor), rtol=1e-12)
    assert center[2] == loss.floor


def test_kl_group_minimizer_keeps_empty_groups_inside_the_domain():
    X = np.array([[1.0, 0.0], [3.0, 2.0]])
    loss = KLDivergenceLoss().bind(X)
    membership = sp.csr_matrix(np.array([[1.0, 1.0], [0.0, 0.0]]))
    params = np.array([[5.0, 5.0], [0.0, 4.0]])
    centers = loss.group_minimizer(
        params, loss.group_statistics(membership), np.array([2.0, 0.0])
    )
    np.testing.assert_allclose(centers[0], [2.0, 1.0])
    np.testing.assert_array_equal(centers[1], [loss.floor, 4.0])


def test_kl_sample_minimizers_and_min_values_over_the_domain(global_random_seed):
    X = _count_data_with_zeros(global_random_seed)
    loss = KLDivergenceLoss(relative_floor=1e-2).bind(X)
    idx = np.arange(X.shape[0])
    minimizers = loss.sample_minimizers(idx, np.random.RandomState(0))
    np.testing.assert_array_equal(minimizers, np.maximum(X, loss.floor))
    expected = np.diag(_i_divergence(X, minimizers))
    np.testing.assert_allclose(loss.sample_min_values(), expected, rtol=1e-12)
    # each minimizer beats a grid of other points of the domain
    grid = np.maximum(X[:, None, :] + np.array([-0.5, 0.0, 0.5])[:, None], loss.floor)
    for i in range(5):
        assert np.all(_i_divergence(X[i : i + 1], grid[i])[0] >= expected[i] - 1e-12)
    # a sample's own minimizer, and its duplicates, have a gap of exactly zero
    X[1] = X[0]
    loss = KLDivergenceLoss(relative_floor=1e-2).bind(X)
    gaps = loss.gap_vector(loss.sample_minimizers([0], None)[0])
    assert gaps[0] == 0 and gaps[1] == 0
    assert np.all(np.isfinite(gaps))


def test_kl_random_params_are_inside_the_domain():
    X = 1e9 * _count_data_with_zeros(0)
    loss = KLDivergenceLoss().bind(X)
    params = loss.random_params(50, np.random.RandomState(0), np.float64)
    assert params.shape == (50, X.shape[1])
    assert np.all(params >= loss.floor)


def test_kl_seeds_are_inside_the_domain_and_one_per_planted_cluster():
    X, labels, _ = _poisson_mixture(0)
    hits = 0
    for seed in range(20):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            params, indices = generalized_kmeans_plusplus(
                X, 3, loss="kl", random_state=seed
            )
        assert np.all(params > 0)
        hits += len(set(labels[indices])) == 3
    # Uniform seeding covers the three clusters 2 times in 9 (about 4 in 20).
    assert hits >= 12


# --------------------------------------------------------------------------------------
# 3. The estimator on count data with zeros (issue 15, point 12)


def test_sum_of_min_kmeans_kl_recovers_planted_poisson_mixture_with_zeros():
    X, labels, _ = _poisson_mixture(0)
    assert np.mean(np.any(X == 0, axis=1)) > 0.55
    reference = KMeans(3, n_init=10, random_state=0).fit(X)
    assert adjusted_rand_score(labels, reference.labels_) > 0.9
    for seed in range(3):
        est = SumOfMinKMeans(3, loss="kl", random_state=seed).fit(X)
        assert adjusted_rand_score(labels, est.labels_) >= 0.9
        assert np.all(est.cluster_centers_ > 0)
        assert np.isfinite(est.inertia_)


def test_sum_of_min_kmeans_kl_new_row_outside_training_support():
    X, labels, rates = _poisson_mixture(0)
    est = SumOfMinKMeans(3, loss="kl", random_state=0).fit(X)
    row = np.array([[0.0, 6.0, 2.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        distances = est.transform(row)
        label = est.predict(row)[0]
        score = est.score(row)
    assert np.all(np.isfinite(distances))
    np.testing.assert_allclose(distances, _i_divergence(row, est.cluster_centers_))
    # the planted cluster whose rates are closest, here the one of rates (0.3, 8, 3)
    planted = np.argmin(_i_divergence(row, rates)[0])
    assert planted == 0
    assert np.bincount(est.labels_[labels == planted]).argmax() == label
    assert np.isfinite(score) and score == pytest.approx(-distances.min())


@pytest.mark.parametrize("method", ["fit", "predict", "transform", "score"])
def test_sum_of_min_kmeans_kl_rejects_negative_data(method):
    X = np.array([[1.0, 2.0], [0.5, -0.1], [3.0, 1.0]])
    est = SumOfMinKMeans(2, loss="kl", random_state=0)
    if method != "fit":
        est.fit(np.abs(X))
    with pytest.raises(ValueError, match=r"X .*non-negative"):
        getattr(est, method)(X)


def test_sum_of_min_kmeans_kl_warns_on_initial_centers_outside_the_domain():
    X, _, _ = _poisson_mixture(0, n_samples=60)
    init = np.array([[0.0, 8.0, 3.0], [6.0, 0.0, 9.0], [12.0, 12.0, 0.0]])
    with pytest.warns(RuntimeWarning, match="infinite"):
        est = SumOfMinKMeans(3, loss="kl", init=init).fit(X)
    assert np.all(est.cluster_centers_ > 0)
    assert np.isfinite(est.score(X))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    X=arrays(
        np.float64,
        st.tuples(st.integers(4, 12), st.integers(1, 4)),
        elements=st.sampled_from([0.0, 0.0, 0.5, 1.0, 3.0, 40.0]),
    ),
    n_clusters=st.integers(1, 3),
    new=arrays(np.float64, 4, elements=st.floats(0, 1e3)),
)
def test_kl_fitted_centers_give_finite_losses_on_any_non_negative_data(
    X, n_clusters, new
):
    with warnings.catch_warnings():
        # duplicate rows may give fewer distinct clusters than asked
        warnings.simplefilter("ignore", category=UserWarning)
        warnings.filterwarnings("error", category=RuntimeWarning)
        res = sum_of_minimum(X, n_clusters, loss="kl", random_state=0)
        assert np.all(res.params > 0)
        assert np.isfinite(res.objective)
        new_rows = np.vstack([X, new[: X.shape[1]][None]])
        losses = KLDivergenceLoss().bind(new_rows).loss_matrix(res.params)
    assert np.all(np.isfinite(losses)) and np.all(losses >= 0)
    np.testing.assert_array_equal(res.labels, losses[:-1].argmin(axis=1))


# --------------------------------------------------------------------------------------
# 4. Squared Euclidean: no boundary


def test_squared_euclidean_loss_is_finite_everywhere():
    X = np.array([[-1e3, 0.0], [0.0, 2.0]])
    loss = SquaredEuclideanLoss().bind(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        losses = loss.loss_matrix(np.array([[-5.0, 3.0], [0.0, 0.0]]))
    expected = 0.5 * ((X[:, None, :] - np.array([[-5.0, 3.0], [0.0, 0.0]])) ** 2)
    np.testing.assert_allclose(losses, expected.sum(axis=2), rtol=1e-12)


# --------------------------------------------------------------------------------------
# reclassify and partition_statistics against brute force, for both families


def _family_data(loss_name, seed, sparse):
    rng = np.random.RandomState(seed)
    if loss_name == "kl":
        X = rng.poisson(2.0, size=(60, 4)).astype(np.float64)
        loss = KLDivergenceLoss()
        params = rng.uniform(0.5, 4.0, size=(3, 4))
    else:
        X = rng.standard_normal((60, 4))
        X[rng.uniform(size=X.shape) < 0.3] = 0.0
        loss = SquaredEuclideanLoss()
        params = rng.standard_normal((3, 4))
    weights = rng.uniform(0.0, 3.0, size=X.shape[0])
    X_in = sp.csr_matrix(X) if sparse else X
    return X, loss.bind(X_in), params, weights


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("loss_name", ["squared_euclidean", "kl"])
def test_reclassify_is_argmin_of_loss_matrix(loss_name, sparse, global_random_seed):
    X, problem, params, weights = _family_data(loss_name, global_random_seed, sparse)
    if loss_name == "kl":
        expected_losses = _i_divergence(X, params)
    else:
        expected_losses = 0.5 * ((X[:, None, :] - params[None]) ** 2).sum(axis=2)
    labels, min_losses, objective, statistics = problem.reclassify(
        params, weights, with_statistics=True
    )
    np.testing.assert_array_equal(labels, expected_losses.argmin(axis=1))
    np.testing.assert_allclose(min_losses, expected_losses.min(axis=1), atol=1e-10)
    np.testing.assert_allclose(
        objective, np.average(expected_losses.min(axis=1), weights=weights)
    )
    # The statistics gathered in the same pass are the weighted group sums.
    expected_sums = np.stack(
        [weights[labels == j] @ X[labels == j] for j in range(params.shape[0])]
    )
    (sums,) = statistics
    np.testing.assert_allclose(sums, expected_sums, atol=1e-10)
    assert problem.reclassify(params, weights)[3] is None


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("loss_name", ["squared_euclidean", "kl"])
def test_partition_statistics_are_weighted_group_sums(
    loss_name, sparse, global_random_seed
):
    X, problem, _, weights = _family_data(loss_name, global_random_seed, sparse)
    n_params = 5  # group 4 left empty
    labels = np.random.RandomState(global_random_seed).randint(4, size=X.shape[0])
    (sums,), counts = problem.partition_statistics(labels, weights, n_params)
    for j in range(n_params):
        members = labels == j
        np.testing.assert_allclose(sums[j], weights[members] @ X[members], atol=1e-10)
        assert counts[j] == pytest.approx(weights[members].sum())
    assert counts[4] == 0 and not sums[4].any()


# The dense pass lays a chunk's scores out by center at few features or many
# centers and by row otherwise: (7, 5) and (12, 130) take the first, (20, 5)
# the second.
@pytest.mark.parametrize("n_features, n_params", [(7, 5), (20, 5), (12, 130)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["dense", "csr32", "csr64"])
def test_squared_euclidean_pass_over_chunks_is_brute_force(
    layout, dtype, n_features, n_params
):
    # 1000 rows: several GEMM chunks of the compiled pass, the last one short.
    rng = np.random.RandomState(0)
    X = rng.standard_normal((1000, n_features)).astype(dtype)
    X[rng.uniform(size=X.shape) < 0.4] = 0.0
    params = rng.standard_normal((n_params, n_features)).astype(dtype)
    weights = rng.uniform(0.0, 2.0, size=1000)
    X_in = X
    if layout != "dense":
        X_in = sp.csr_matrix(X)
        index = np.int32 if layout == "csr32" else np.int64
        X_in.indices = X_in.indices.astype(index)
        X_in.indptr = X_in.indptr.astype(index)
    problem = SquaredEuclideanLoss().bind(X_in)
    labels, min_losses, _, (sums,) = problem.reclassify(
        params, weights, with_statistics=True
    )
    X64, params64 = X.astype(np.float64), params.astype(np.float64)
    expected = 0.5 * ((X64[:, None, :] - params64[None]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(labels, expected.argmin(axis=1))
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(min_losses, expected.min(axis=1), rtol=rtol, atol=rtol)
    # float32 data keep float32 sums.
    assert sums.dtype == dtype
    expected_sums = np.stack(
        [weights[labels == j] @ X64[labels == j] for j in range(n_params)]
    )
    np.testing.assert_allclose(sums, expected_sums, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("n_features, n_params", [(3, 6), (20, 6), (20, 130)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_squared_euclidean_pass_breaks_ties_to_the_lowest_index(
    dtype, n_features, n_params
):
    # Every center appears twice (rows j and j + n_params / 2): whichever
    # layout the pass uses for the scores, a row goes to the first copy of
    # its closest center, as np.argmin and KMeans do (eq. 3.6). Small
    # integers make every score exact: a GEMM need not give two equal
    # columns equal results in floating point (OpenBLAS's edge tiles round
    # otherwise), and the ties are then those of the exact scores.
    rng = np.random.RandomState(3)
    half = rng.randint(-4, 5, size=(n_params // 2, n_features)).astype(dtype)
    params = np.vstack([half, half])
    X = (
        half[rng.randint(n_params // 2, size=700)]
        + rng.randint(-1, 2, size=(700, n_features))
    ).astype(dtype)
    problem = SquaredEuclideanLoss().bind(X)
    labels, _, _, _ = problem.reclassify(params, np.ones(700))
    X64, half64 = X.astype(np.float64), half.astype(np.float64)
    expected = (((X64[:, None, :] - half64[None]) ** 2).sum(axis=2)).argmin(axis=1)
    np.testing.assert_array_equal(labels, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_squared_euclidean_partition_pass_on_one_and_two_threads(layout, dtype):
    # The Lloyd pass shares its chunks among OpenMP threads: the same result,
    # bit for bit, on one thread and two, and the objective, group sums and
    # group weights gathered in the pass equal the brute-force ones.
    rng = np.random.RandomState(1)
    X = rng.standard_normal((3000, 6)).astype(dtype)
    X[rng.uniform(size=X.shape) < 0.3] = 0.0
    params = rng.standard_normal((9, 6)).astype(dtype)
    weights = rng.uniform(0.0, 2.0, size=3000).astype(dtype)
    problem = SquaredEuclideanLoss().bind(sp.csr_matrix(X) if layout == "csr" else X)
    runs = []
    for n_threads in (1, 2):
        with threadpool_limits(n_threads, user_api="openmp"):
            runs.append(problem.reclassify_partition(params, weights))
    (labels, objective, (sums,), counts), other = runs
    np.testing.assert_array_equal(labels, other[0])
    assert objective == other[1]
    np.testing.assert_array_equal(sums, other[2][0])
    np.testing.assert_array_equal(counts, other[3])
    X64, params64, w64 = (a.astype(np.float64) for a in (X, params, weights))
    losses = 0.5 * ((X64[:, None, :] - params64[None]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(labels, losses.argmin(axis=1))
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    expected = (w64 @ losses.min(axis=1)) / w64.sum()
    for run in runs:
        np.testing.assert_allclose(run[1], expected, rtol=rtol)
        np.testing.assert_allclose(
            run[3], np.bincount(labels, weights=w64, minlength=9), rtol=rtol
        )
        np.testing.assert_allclose(
            run[2][0],
            np.stack([w64[labels == j] @ X64[labels == j] for j in range(9)]),
            rtol=rtol,
            atol=rtol,
        )
    assert sums.dtype == dtype
    # The generic protocol (reclassify, then the weights of the groups) agrees.
    generic = SumOfMinLoss.reclassify_partition(problem, params, weights)
    np.testing.assert_array_equal(generic[0], labels)
    np.testing.assert_allclose(generic[1], objective, rtol=rtol)
    np.testing.assert_allclose(generic[3], counts, rtol=rtol)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    n_rows=st.integers(2, 40),
    n_params=st.integers(1, 6),
    sparse=st.booleans(),
    data=st.data(),
)
def test_relocated_statistics_equal_a_fresh_pass(n_rows, n_params, sparse, data):
    # KMeans' update of the sums for the moved rows, against the statistics of
    # the new partition recomputed over all the rows.
    rng = np.random.RandomState(data.draw(st.integers(0, 2**31 - 1)))
    X = rng.standard_normal((n_rows, 3))
    weights = rng.uniform(0.0, 2.0, size=n_rows)
    problem = SquaredEuclideanLoss().bind(sp.csr_matrix(X) if sparse else X)
    before = rng.randint(n_params, size=n_rows)
    moved = np.flatnonzero(rng.uniform(size=n_rows) < 0.3)
    after = before.copy()
    after[moved] = rng.randint(n_params, size=moved.size)
    statistics, _ = problem.partition_statistics(before, weights, n_params)
    (sums,), counts = problem.relocated_statistics(
        statistics, moved, before[moved], after, weights, n_params
    )
    (expected,), expected_counts = problem.partition_statistics(
        after, weights, n_params
    )
    np.testing.assert_allclose(sums, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(counts, expected_counts, rtol=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("loss_name", ["squared_euclidean", "kl"])
def test_assigned_losses_are_the_loss_matrix_at_the_labels(loss_name, sparse):
    # Labels that are not the closest parameters: the loss at the given one.
    rng = np.random.RandomState(3)
    X = rng.poisson(2.0, size=(70, 4)).astype(np.float64)
    loss = SquaredEuclideanLoss() if loss_name == "squared_euclidean" else None
    loss = loss or KLDivergenceLoss()
    problem = loss.bind(sp.csr_matrix(X) if sparse else X)
    params = rng.uniform(0.5, 3.0, size=(5, 4))
    labels = rng.randint(5, size=70)
    expected = problem.loss_matrix(params)[np.arange(70), labels]
    np.testing.assert_allclose(
        problem.assigned_losses(params, labels), expected, rtol=1e-10, atol=1e-12
    )
