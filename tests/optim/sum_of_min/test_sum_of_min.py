"""Algorithm tests for the sum-of-minimum engine (``skcgm.optim``).

Every expected value is derived independently of the implementation: from the
paper (Ding, Chen, Wang, Yin 2024; see ``notes/004_sum_of_min.md``), closed
forms, brute force written here, or scikit-learn.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from joblib import parallel_config
from scipy.optimize import minimize
from scipy.stats import chisquare
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

from skcgm.optim import generalized_kmeans_plusplus, sum_of_minimum
from skcgm.optim.sum_of_min._momentum import _controlled_reclassify

# --------------------------------------------------------------------------------------
# Independent helpers (reference implementations written from the paper)


def _half_sq_dist(X, centers):
    """``0.5 * ||y_i - x_j||^2`` as an (n_samples, n_clusters) matrix, direct form."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    diff = X[:, None, :].astype(np.float64) - np.asarray(centers, np.float64)[None]
    return 0.5 * np.einsum("ijk,ijk->ij", diff, diff)


def _kl_matrix(X, centers):
    """Generalized KL ``D(y_i || x_j) = sum y log(y / x) - y + x`` (positive data)."""
    Y = np.asarray(X, np.float64)[:, None, :]
    C = np.asarray(centers, np.float64)[None]
    return np.sum(Y * np.log(Y / C) - Y + C, axis=2)


def _objective(loss_matrix, sample_weight=None):
    """The paper's ``F = sum_i w_i min_j f_i(x_j) / sum_i w_i``."""
    w = np.ones(loss_matrix.shape[0]) if sample_weight is None else sample_weight
    return np.sum(w * loss_matrix.min(axis=1)) / np.sum(w)


def _blobs(seed, n_samples=60, n_centers=4, n_features=2, std=1.0, sep=10.0):
    rng = np.random.RandomState(seed)
    centers = rng.uniform(-sep, sep, size=(n_centers, n_features))
    X, y = make_blobs(
        n_samples=n_samples, centers=centers, cluster_std=std, random_state=rng
    )
    return X, y, centers


def _reference_kmeans_plusplus(X, n_clusters, random_state, sample_weight=None):
    """Algorithm 1 with the draw protocol documented in API.md (sklearn's).

    First index ``rs.choice(n, p=w / sum(w))``; then per round
    ``u = rs.uniform() * sum(w v)`` and ``searchsorted(cumsum(w v), u)`` with
    ``v_i = min_j 0.5 ||y_i - x_j||^2`` (gap score, f_i* = 0).
    """
    rs = np.random.RandomState(random_state)
    n = X.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    indices = [rs.choice(n, p=w / w.sum())]
    v = _half_sq_dist(X, X[indices[0]][None])[:, 0]
    for _ in range(1, n_clusters):
        weights = w * v
        u = rs.uniform() * weights.sum()
        idx = min(int(np.searchsorted(np.cumsum(weights), u)), n - 1)
        indices.append(idx)
        v = np.minimum(v, _half_sq_dist(X, X[idx][None])[:, 0])
    return np.asarray(indices)


def _second_seed_probabilities(X, sample_weight=None):
    """Exact P(second index = i): closed form of eq. (3.2)-(3.4), first drawn ~ w."""
    n = X.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    D = _half_sq_dist(X, X)  # D[i, j] = v_i when the first center is y_j
    probs = np.zeros(n)
    for first in range(n):
        gap = w * D[:, first]
        probs += (w[first] / w.sum()) * gap / gap.sum()
    return probs


def _reference_lloyd(X, centers, sample_weight, n_steps):
    """Plain Lloyd (mean update) returning iterates, partitions and F values."""
    iterates, partitions, objectives = [centers], [], []
    for _ in range(n_steps):
        L = _half_sq_dist(X, centers)
        labels = np.argmin(L, axis=1)
        objectives.append(_objective(L, sample_weight))
        partitions.append(labels)
        new = centers.copy()
        for j in range(centers.shape[0]):
            mask = labels == j
            assert mask.any(), "reference Lloyd hit an empty cluster: change the data"
            new[j] = np.average(X[mask], axis=0, weights=sample_weight[mask])
        centers = new
        iterates.append(centers)
    return iterates, partitions, objectives


def _brute_controlled_reclassify(labels, target, sample_weight, alpha, order):
    """Sequential ControlledReclassify of Appendix B.2 (STOP at first violation)."""
    n_clusters = max(labels.max(), target.max()) + 1
    start = np.bincount(labels, weights=sample_weight, minlength=n_clusters)
    current = start.copy()
    new = labels.copy()
    for i in order:
        a, b = new[i], target[i]
        if a == b:
            continue
        trial = current.copy()
        trial[a] -= sample_weight[i]
        trial[b] += sample_weight[i]
        if any(not (start[j] / alpha <= trial[j] <= alpha * start[j]) for j in (a, b)):
            break
        current = trial
        new[i] = b
    return new


def _assert_fixed_point(res, X, losses, objective_rtol, **mean_tol):
    """At a Lloyd fixed point: the labels are the argmin of ``losses`` (the
    losses of every sample at ``res.params``), the objective is their mean
    minimum (to ``objective_rtol``) and every non-empty cluster's center is
    its mean (to ``mean_tol``, the tolerances of ``assert_allclose``)."""
    np.testing.assert_array_equal(res.labels, np.argmin(losses, axis=1))
    np.testing.assert_allclose(res.objective, _objective(losses), rtol=objective_rtol)
    for j in range(res.params.shape[0]):
        mask = res.labels == j
        if mask.any():
            np.testing.assert_allclose(res.params[j], X[mask].mean(axis=0), **mean_tol)


def _kmeans_and_sum_of_minimum(seed):
    """KMeans and sum_of_minimum (tol=0) from the same k-means++ seeding of
    80 blobs in 4 centers; returns the data, the seeding and both fits."""
    X, _, _ = _blobs(seed, n_samples=80, n_centers=4, std=2.5)
    init, _ = kmeans_plusplus(X, 4, random_state=seed)
    km = KMeans(4, init=init, n_init=1, algorithm="lloyd", tol=0).fit(X)
    return X, init, km, sum_of_minimum(X, 4, init=init, tol=0)


def _weighted_blobs(seed, weighted):
    """100 blobs in 5 centers and, when ``weighted``, random sample weights."""
    X, _, _ = _blobs(seed, n_samples=100, n_centers=5, std=2.0)
    rng = np.random.RandomState(seed)
    return X, rng.uniform(0.1, 3.0, size=X.shape[0]) if weighted else None


def _assert_non_increasing(history, rtol=1e-12):
    history = np.asarray(history, dtype=np.float64)
    assert history.ndim == 1 and history.size >= 2
    increase = np.diff(history)
    slack = rtol * np.abs(history[:-1])
    assert np.all(increase <= slack), (history, increase)


# --------------------------------------------------------------------------------------
# 1. Exact / GD(gamma = 1) Lloyd equals scikit-learn's Lloyd


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize(
    "solver, eta0", [("exact", None), ("gd", 1.0)], ids=["exact", "gd"]
)
def test_sum_of_minimum_lloyd_matches_sklearn_kmeans(seed, sparse, solver, eta0):
    X, _, _ = _blobs(seed, n_samples=80, n_centers=4, n_features=3, std=2.0)
    init, _ = kmeans_plusplus(X, 4, random_state=seed)
    Xfit = sp.csr_matrix(X) if sparse else X

    km = KMeans(4, init=init, n_init=1, algorithm="lloyd", tol=0, max_iter=300)
    km.fit(Xfit)
    res = sum_of_minimum(
        Xfit,
        4,
        init=init,
        solver=solver,
        eta0=eta0,
        tol=0,
        max_iter=300,
    )
    np.testing.assert_allclose(res.params, km.cluster_centers_, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(res.labels, km.labels_)
    # inertia_ = sum_i ||y_i - c||^2 = 2 N F
    np.testing.assert_allclose(2 * X.shape[0] * res.objective, km.inertia_, rtol=1e-10)
    assert res.converged


@pytest.mark.parametrize("seed", [0, 3])
def test_sum_of_minimum_n_iter_is_kmeans_n_iter_minus_one(seed):
    # API.md: n_iter counts parameter updates, one less than KMeans' n_iter_.
    _, _, km, res = _kmeans_and_sum_of_minimum(seed)
    assert res.n_iter == km.n_iter_ - 1


@pytest.mark.parametrize("seed", [0, 1])
def test_sum_of_minimum_gd_unit_step_equals_exact_iterate_by_iterate(seed):
    X, _, _ = _blobs(seed, n_samples=70, n_centers=3, std=2.5)
    init, _ = kmeans_plusplus(X, 3, random_state=seed)
    exact = sum_of_minimum(X, 3, init=init, solver="exact", tol=0)
    gd = sum_of_minimum(X, 3, init=init, solver="gd", eta0=1.0, tol=0)
    h_exact = np.asarray(exact.objective_history)
    h_gd = np.asarray(gd.objective_history)
    m = min(h_exact.size, h_gd.size)
    np.testing.assert_allclose(h_gd[:m], h_exact[:m], rtol=1e-12, atol=0)
    np.testing.assert_allclose(gd.params, exact.params, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(gd.labels, exact.labels)


def test_sum_of_minimum_history_matches_reference_lloyd_and_outputs():
    rng = np.random.RandomState(7)
    X, _, _ = _blobs(7, n_samples=90, n_centers=3, std=2.0)
    w = rng.uniform(0.5, 2.0, size=X.shape[0])
    init = X[[0, 1, 2]].copy()
    res = sum_of_minimum(X, 3, init=init, sample_weight=w, tol=0, max_iter=100)
    _, _, ref_objectives = _reference_lloyd(X, init, w, n_steps=60)
    history = np.asarray(res.objective_history)
    assert history.size <= len(ref_objectives)
    np.testing.assert_allclose(history, ref_objectives[: history.size], rtol=1e-12)
    # final outputs are consistent with the final params
    L = _half_sq_dist(X, res.params)
    np.testing.assert_array_equal(res.labels, np.argmin(L, axis=1))
    np.testing.assert_allclose(res.objective, _objective(L, w), rtol=1e-12)
    np.testing.assert_allclose(res.init_params, init)
    assert res.labels.dtype == np.intp


# --------------------------------------------------------------------------------------
# 2. Seeding (Algorithm 1 / 4)

_TINY = np.array(
    [[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [3.0, 1.0], [-1.0, -2.5], [4.0, 4.0]]
)
_TINY_WEIGHTS = np.array([1.0, 3.0, 0.5, 2.0, 1.0, 4.0])


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("n_clusters", [2, 3])
def test_generalized_kmeans_plusplus_matches_closed_form_draws(weighted, n_clusters):
    w = _TINY_WEIGHTS if weighted else None
    for seed in range(300):
        expected = _reference_kmeans_plusplus(_TINY, n_clusters, seed, w)
        centers, indices = generalized_kmeans_plusplus(
            _TINY, n_clusters, sample_weight=w, random_state=seed
        )
        np.testing.assert_array_equal(indices, expected)
        np.testing.assert_array_equal(centers, _TINY[expected])


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_generalized_kmeans_plusplus_matches_sklearn_one_local_trial(
    global_random_seed, weighted
):
    X, w = _weighted_blobs(global_random_seed, weighted)
    for seed in range(global_random_seed, global_random_seed + 5):
        sk_centers, sk_indices = kmeans_plusplus(
            X, 5, sample_weight=w, n_local_trials=1, random_state=seed
        )
        centers, indices = generalized_kmeans_plusplus(
            X, 5, sample_weight=w, random_state=seed
        )
        np.testing.assert_array_equal(indices, sk_indices)
        np.testing.assert_allclose(centers, sk_centers, rtol=0, atol=0)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_generalized_kmeans_plusplus_gap_and_gradient_scores_agree(
    global_random_seed, weighted
):
    # For f_i = 1/2 ||x - y_i||^2, ||grad f_i||^2 = 2 (f_i - f_i*): identical weights.
    X, w = _weighted_blobs(global_random_seed, weighted)
    for seed in range(5):
        _, idx_gap = generalized_kmeans_plusplus(
            X, 6, sample_weight=w, init_score="gap", random_state=seed
        )
        _, idx_grad = generalized_kmeans_plusplus(
            X, 6, sample_weight=w, init_score="gradient", random_state=seed
        )
        np.testing.assert_array_equal(idx_gap, idx_grad)


def test_generalized_kmeans_plusplus_second_seed_chi_square():
    n_runs = 3000
    rs = np.random.RandomState(0)
    counts = np.zeros(_TINY.shape[0])
    for _ in range(n_runs):
        _, indices = generalized_kmeans_plusplus(_TINY, 2, random_state=rs)
        counts[indices[1]] += 1
    probs = _second_seed_probabilities(_TINY)
    assert np.all(probs > 0)
    _, p_value = chisquare(counts, n_runs * probs)
    assert p_value > 1e-3


def test_generalized_kmeans_plusplus_second_seed_frequencies_match_sklearn():
    # empirical frequencies from sklearn's one-trial k-means++ vs ours (same draws)
    n_runs = 1000
    ours = np.zeros(_TINY.shape[0])
    theirs = np.zeros(_TINY.shape[0])
    for seed in range(n_runs):
        _, idx = generalized_kmeans_plusplus(
            _TINY, 2, sample_weight=_TINY_WEIGHTS, random_state=seed
        )
        _, sk_idx = kmeans_plusplus(
            _TINY,
            2,
            sample_weight=_TINY_WEIGHTS,
            n_local_trials=1,
            random_state=seed,
        )
        ours[idx[1]] += 1
        theirs[sk_idx[1]] += 1
    np.testing.assert_array_equal(ours, theirs)
    probs = _second_seed_probabilities(_TINY, _TINY_WEIGHTS)
    _, p_value = chisquare(ours, n_runs * probs)
    assert p_value > 1e-3


@pytest.mark.parametrize("init", ["k-means++", "uniform"])
def test_sum_of_minimum_seeds_are_distinct_data_rows(global_random_seed, init):
    X, _, _ = _blobs(global_random_seed, n_samples=50, n_centers=5)
    res = sum_of_minimum(X, 5, init=init, max_iter=1, random_state=global_random_seed)
    C0 = np.asarray(res.init_params)
    dists = _half_sq_dist(X, C0)
    rows = np.argmin(dists, axis=0)
    np.testing.assert_array_equal(dists[rows, np.arange(5)], 0.0)
    assert np.unique(rows).size == 5


def test_generalized_kmeans_plusplus_never_repicks_a_zero_gap_point():
    # four distinct points, each repeated: the seeds must be the four points.
    base = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0], [5.0, 5.0]])
    X = np.repeat(base, 7, axis=0)
    for seed in range(30):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            centers, _ = generalized_kmeans_plusplus(X, 4, random_state=seed)
        np.testing.assert_array_equal(
            np.unique(centers, axis=0), np.unique(base, axis=0)
        )


def test_generalized_kmeans_plusplus_fewer_distinct_points_warns():
    X = np.repeat(np.array([[0.0, 1.0], [2.0, 3.0], [4.0, -1.0]]), 3, axis=0)
    with pytest.warns(ConvergenceWarning):
        centers, indices = generalized_kmeans_plusplus(X, 5, random_state=0)
    assert centers.shape == (5, 2)
    assert np.all(np.isfinite(centers))
    assert np.unique(indices).size == 5  # filled from unused indices
    np.testing.assert_array_equal(centers, X[indices])
    assert np.unique(centers, axis=0).shape[0] == 3


# --------------------------------------------------------------------------------------
# 3 and 7. Monotonicity, Theorem 4.6 and Theorem 4.1


@pytest.mark.parametrize(
    "config",
    [
        dict(solver="exact"),
        dict(solver="exact", weighted=True),
        dict(solver="exact", empty_cluster="keep"),
        dict(solver="exact", loss="kl"),
        dict(solver="exact", loss="kl", weighted=True),
        dict(solver="gd"),
        dict(solver="gd", eta0=1.0, weighted=True),
        dict(solver="gd", eta0=0.5),
        dict(solver="gd", eta0=0.2, weighted=True),
    ],
    ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()),
)
def test_sum_of_minimum_objective_is_non_increasing(global_random_seed, config):
    config = dict(config)
    weighted = config.pop("weighted", False)
    rng = np.random.RandomState(global_random_seed)
    X, _, _ = _blobs(global_random_seed, n_samples=80, n_centers=4, std=3.0)
    if config.get("loss") == "kl":
        X = np.exp(X / 5.0)  # positive data
    w = rng.uniform(0.2, 3.0, size=X.shape[0]) if weighted else None
    for seed in range(3):
        res = sum_of_minimum(
            X,
            5,
            sample_weight=w,
            reclassify_every=1,
            tol=0,
            max_iter=60,
            random_state=seed,
            **config,
        )
        _assert_non_increasing(res.objective_history)


def test_sum_of_minimum_gd_theorem_4_6_descent():
    # Algorithm 2, gamma = 1/L = 1, r = 1 on k-means. Along the iterates
    # g_t = sum_j (|C_j| / N) ||grad F_j(x_j)||^2 <= 2 L (F(x^t) - F(x^{t+1}))
    # (proof of Thm D.1), hence mean_t g_t <= 2 L (F(x^0) - F*) / (T + 1).
    X, _, _ = _blobs(11, n_samples=100, n_centers=4, std=3.0)
    w = np.ones(X.shape[0])
    init = X[[0, 1, 2, 3]].copy()
    res = sum_of_minimum(
        X, 4, init=init, solver="gd", eta0=1.0, reclassify_every=1, tol=0
    )
    history = np.asarray(res.objective_history)
    _assert_non_increasing(history)
    assert history[0] - history[-1] >= 0
    assert history.size >= 3

    iterates, partitions, objectives = _reference_lloyd(X, init, w, history.size)
    np.testing.assert_allclose(history, objectives[: history.size], rtol=1e-12)
    g = []
    for centers, labels in zip(iterates, partitions):
        counts = np.bincount(labels, minlength=4)
        means = np.array([X[labels == j].mean(axis=0) for j in range(4)])
        grad = centers - means  # grad F_j(x_j) = x_j - mean(C_j)
        g.append(np.sum(counts / X.shape[0] * np.sum(grad**2, axis=1)))
    g = np.asarray(g[: history.size - 1])
    F = history
    assert np.all(g <= 2 * (F[:-1] - F[1:]) + 1e-12)
    T = g.size - 1
    assert g.mean() <= 2 * (F[0] - F[-1]) / (T + 1) + 1e-12


def test_generalized_kmeans_plusplus_theorem_4_1_monte_carlo():
    # E F(M_init) <= 8 (2 + ln k) F*  (L = mu = 1), with F* <= F(true centers).
    k = 5
    X, y, true_centers = _blobs(3, n_samples=200, n_centers=k, std=1.0, sep=50.0)
    means = np.array([X[y == j].mean(axis=0) for j in range(k)])
    F_ub = min(
        _objective(_half_sq_dist(X, true_centers)), _objective(_half_sq_dist(X, means))
    )
    values = []
    for seed in range(100):
        centers, _ = generalized_kmeans_plusplus(X, k, random_state=seed)
        values.append(_objective(_half_sq_dist(X, centers)))
    assert np.mean(values) <= 8 * (2 + np.log(k)) * F_ub


# --------------------------------------------------------------------------------------
# 4. Momentum: ControlledReclassify (Appendix B.2)


def test_controlled_reclassify_stops_at_first_violation():
    # s = [3, 3, 3], alpha = 1.5 -> every size must stay in [2, 4.5].
    labels = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    target = np.array([1, 1, 0, 1, 1, 1, 0, 2, 2])
    w = np.ones(9)
    order = np.arange(9)
    # move 0 -> 1: sizes [2, 4, 3] ok; move 1 -> 1: [1, 5, 3] violates -> STOP.
    # (Skipping instead of stopping would also move sample 6 to class 0.)
    new, n_moved = _controlled_reclassify(labels, target, w, 1.5, order)
    np.testing.assert_array_equal(new, [1, 0, 0, 1, 1, 1, 2, 2, 2])
    assert n_moved == 1


def test_controlled_reclassify_bounds_are_inclusive():
    # s = [4, 2], alpha = 1.5: bounds [8/3, 6] and [4/3, 3].
    labels = np.array([0, 0, 0, 0, 1, 1])
    target = np.ones(6, dtype=labels.dtype)
    new, n_moved = _controlled_reclassify(labels, target, np.ones(6), 1.5, np.arange(6))
    # sizes [3, 3]: 3 == 1.5 * 2 accepted; next [2, 4] violates both bounds.
    np.testing.assert_array_equal(new, [1, 0, 0, 0, 1, 1])
    assert n_moved == 1


def test_controlled_reclassify_empty_class_stays_empty():
    labels = np.array([0, 0, 0, 2, 2, 2])
    target = np.array([1, 0, 0, 1, 2, 0])
    new, n_moved = _controlled_reclassify(labels, target, np.ones(6), 2.0, np.arange(6))
    np.testing.assert_array_equal(new, labels)
    assert n_moved == 0


@pytest.mark.parametrize("alpha", [1.1, 1.5, 2.0, 3.0])
@pytest.mark.parametrize("weights", ["unit", "integer", "float"])
def test_controlled_reclassify_matches_sequential_brute_force(
    global_random_seed, alpha, weights
):
    rng = np.random.default_rng(global_random_seed)
    for _ in range(40):
        n = int(rng.integers(5, 40))
        k = int(rng.integers(2, 6))
        labels = rng.integers(0, k, size=n)
        labels[:k] = np.arange(k)  # every class non-empty
        rng.shuffle(labels)
        # targets: mostly equal, some moves
        target = np.where(rng.random(n) < 0.4, rng.integers(0, k, size=n), labels)
        if weights == "unit":
            w = np.ones(n)
        elif weights == "integer":
            w = rng.integers(1, 4, size=n).astype(float)
        else:
            w = rng.uniform(0.1, 2.0, size=n)
        order = rng.permutation(n)
        expected = _brute_controlled_reclassify(labels, target, w, alpha, order)
        new, n_moved = _controlled_reclassify(
            labels.copy(), target.copy(), w, alpha, order
        )
        np.testing.assert_array_equal(new, expected)
        assert n_moved == np.count_nonzero(expected != labels)


@pytest.mark.parametrize("alpha", [1.2, 1.5, 2.5])
def test_controlled_reclassify_keeps_sizes_within_factor(global_random_seed, alpha):
    rng = np.random.default_rng(global_random_seed)
    for _ in range(50):
        n, k = 30, 4
        labels = rng.integers(0, k, size=n)
        labels[:k] = np.arange(k)
        target = rng.integers(0, k, size=n)  # aggressive moves
        w = rng.uniform(0.1, 2.0, size=n)
        new, _ = _controlled_reclassify(labels, target, w, alpha, rng.permutation(n))
        before = np.bincount(labels, weights=w, minlength=k)
        after = np.bincount(new, weights=w, minlength=k)
        assert np.all(after >= before / alpha - 1e-12)
        assert np.all(after <= alpha * before + 1e-12)
        # samples only move to their target
        moved = new != labels
        np.testing.assert_array_equal(new[moved], target[moved])


@pytest.mark.parametrize("momentum, factor", [(0.8, 1.5), (0.5, 2.0), (0.9, 3.0)])
def test_sum_of_minimum_momentum_warns_when_theorem_4_7_does_not_apply(
    momentum, factor
):
    X, _, _ = _blobs(0, n_samples=40, n_centers=3)
    with pytest.warns(ConvergenceWarning):
        sum_of_minimum(
            X,
            3,
            solver="momentum",
            momentum=momentum,
            size_change_factor=factor,
            max_iter=20,
            random_state=0,
        )


def test_sum_of_minimum_momentum_returns_valid_result(global_random_seed):
    X, _, _ = _blobs(global_random_seed, n_samples=80, n_centers=4)
    res = sum_of_minimum(
        X,
        4,
        solver="momentum",
        momentum=0.5,
        size_change_factor=1.5,
        max_iter=100,
        random_state=global_random_seed,
    )
    assert res.params.shape == (4, 2)
    assert np.all(np.isfinite(res.params))
    L = _half_sq_dist(X, res.params)
    np.testing.assert_array_equal(res.labels, np.argmin(L, axis=1))
    np.testing.assert_allclose(res.objective, _objective(L), rtol=1e-12)
    assert np.all(np.isfinite(res.objective_history))


# --------------------------------------------------------------------------------------
# 5. KL divergence loss


def _kl_brute_force_minimizer(Y, w):
    def fun(z):
        x = np.exp(z)
        value = np.sum(w[:, None] * (Y * (np.log(Y) - z) - Y + x))
        grad = x * w.sum() - w @ Y
        return value, grad

    z0 = np.log(Y.mean(axis=0))
    out = minimize(fun, z0, jac=True, method="BFGS", options={"gtol": 1e-12})
    return np.exp(out.x)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_kl_loss_group_minimizer_is_weighted_mean(global_random_seed, weighted):
    rng = np.random.RandomState(global_random_seed)
    Y = rng.uniform(0.2, 5.0, size=(12, 3))
    w = rng.uniform(0.5, 2.0, size=12) if weighted else np.ones(12)
    res = sum_of_minimum(
        Y, 1, loss="kl", sample_weight=w if weighted else None, random_state=0
    )
    brute = _kl_brute_force_minimizer(Y, w)
    np.testing.assert_allclose(res.params[0], brute, rtol=1e-6)
    mean = np.average(Y, axis=0, weights=w)
    np.testing.assert_allclose(res.params[0], mean, rtol=1e-10)
    expected_F = np.sum(w * _kl_matrix(Y, res.params)[:, 0]) / w.sum()
    np.testing.assert_allclose(res.objective, expected_F, rtol=1e-10)


def test_kl_loss_one_dimension_grid():
    y = np.array([[0.5], [1.0], [4.0], [2.5]])
    grid = np.linspace(0.3, 4.0, 200001)
    values = np.sum(y.T * np.log(y.T / grid[:, None]) - y.T + grid[:, None], 1)
    res = sum_of_minimum(y, 1, loss="kl", random_state=0)
    np.testing.assert_allclose(res.params[0, 0], grid[np.argmin(values)], atol=1e-4)


def test_kl_loss_labels_and_objective_use_divergence(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    Y = np.vstack(
        [
            rng.uniform(0.1, 0.5, size=(20, 2)),
            rng.uniform(3.0, 6.0, size=(20, 2)),
            rng.uniform(20.0, 30.0, size=(20, 2)),
        ]
    )
    res = sum_of_minimum(Y, 3, loss="kl", random_state=global_random_seed)
    # at convergence, every center is the mean of its cluster
    _assert_fixed_point(res, Y, _kl_matrix(Y, res.params), 1e-10, rtol=1e-10)


def test_kl_loss_rejects_negative_data():
    X = np.array([[1.0, 2.0], [0.5, -0.1], [3.0, 1.0]])
    with pytest.raises(ValueError, match="non-negative"):
        sum_of_minimum(X, 2, loss="kl", random_state=0)


@pytest.mark.parametrize(
    "options",
    [dict(solver="gd"), dict(solver="momentum"), dict(init_score="gradient")],
)
def test_kl_loss_rejects_unsupported_options(options):
    X = np.random.RandomState(0).uniform(0.5, 2.0, size=(10, 2))
    with pytest.raises(ValueError):
        sum_of_minimum(X, 2, loss="kl", random_state=0, **options)


# --------------------------------------------------------------------------------------
# 6. Edge cases of the engine


def test_sum_of_minimum_single_cluster_is_weighted_mean(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.normal(size=(30, 4))
    w = rng.uniform(0.1, 5.0, size=30)
    res = sum_of_minimum(X, 1, sample_weight=w, random_state=0)
    mean = np.average(X, axis=0, weights=w)
    np.testing.assert_allclose(res.params[0], mean, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(res.labels, 0)
    np.testing.assert_allclose(
        res.objective, _objective(_half_sq_dist(X, mean[None]), w), rtol=1e-12
    )


@pytest.mark.parametrize("empty_cluster", ["relocate", "keep"])
@pytest.mark.parametrize("solver", ["exact", "gd", "momentum"])
def test_sum_of_minimum_fewer_distinct_points_than_clusters(empty_cluster, solver):
    X = np.repeat(np.array([[0.0, 1.0], [2.0, 3.0], [4.0, -1.0]]), 4, axis=0)
    with pytest.warns(ConvergenceWarning):
        res = sum_of_minimum(
            X, 5, solver=solver, empty_cluster=empty_cluster, random_state=0
        )
    assert res.params.shape == (5, 2)
    assert np.all(np.isfinite(res.params))
    assert np.all((res.labels >= 0) & (res.labels < 5))
    assert np.isfinite(res.objective)
    assert res.objective <= 1e-12


def test_sum_of_minimum_csr_equals_dense(global_random_seed, csr_container):
    X, _, _ = _blobs(global_random_seed, n_samples=60, n_centers=3, n_features=4)
    X[np.abs(X) < 2.0] = 0.0
    dense = sum_of_minimum(X, 3, random_state=global_random_seed, tol=0)
    sparse = sum_of_minimum(csr_container(X), 3, random_state=global_random_seed, tol=0)
    np.testing.assert_allclose(sparse.params, dense.params, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(sparse.labels, dense.labels)
    np.testing.assert_allclose(sparse.objective, dense.objective, rtol=1e-10)


def test_sum_of_minimum_float32_keeps_dtype():
    X, _, _ = _blobs(0, n_samples=50, n_centers=3)
    init = X[[0, 1, 2]]
    res64 = sum_of_minimum(X, 3, init=init, tol=0)
    res32 = sum_of_minimum(X.astype(np.float32), 3, init=init.astype(np.float32), tol=0)
    assert res32.params.dtype == np.float32
    np.testing.assert_allclose(res32.params, res64.params, rtol=1e-4, atol=1e-4)


def test_sum_of_minimum_sample_weight_equals_repetition():
    rng = np.random.RandomState(5)
    X, _, _ = _blobs(5, n_samples=50, n_centers=3, std=2.5)
    reps = rng.randint(1, 4, size=X.shape[0])
    X_rep = np.repeat(X, reps, axis=0)
    init = X[[0, 1, 2]].copy()
    weighted = sum_of_minimum(X, 3, init=init, sample_weight=reps.astype(float), tol=0)
    repeated = sum_of_minimum(X_rep, 3, init=init, tol=0)
    np.testing.assert_allclose(weighted.params, repeated.params, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(np.repeat(weighted.labels, reps), repeated.labels)
    np.testing.assert_allclose(weighted.objective, repeated.objective, rtol=1e-10)
    np.testing.assert_allclose(
        weighted.objective_history, repeated.objective_history, rtol=1e-10
    )


def test_sum_of_minimum_n_jobs_does_not_change_result():
    X, _, _ = _blobs(2, n_samples=60, n_centers=4, std=3.0)
    one = sum_of_minimum(X, 4, n_init=4, random_state=3, n_jobs=1)
    two = sum_of_minimum(X, 4, n_init=4, random_state=3, n_jobs=2)
    np.testing.assert_array_equal(one.params, two.params)
    np.testing.assert_array_equal(one.labels, two.labels)
    assert one.objective == two.objective


def test_sum_of_minimum_n_init_result_is_lloyd_fixed_point():
    X, _, _ = _blobs(4, n_samples=60, n_centers=5, std=2.0)
    best = sum_of_minimum(X, 5, init="random", n_init=6, tol=0, random_state=0)
    L = _half_sq_dist(X, best.params)
    _assert_fixed_point(best, X, L, 1e-12, rtol=0, atol=1e-10)


def test_sum_of_minimum_does_not_modify_inputs():
    X, _, _ = _blobs(0, n_samples=40, n_centers=3)
    w = np.linspace(0.5, 2.0, 40)
    init = X[[0, 1, 2]].copy()
    X_copy, w_copy, init_copy = X.copy(), w.copy(), init.copy()
    sum_of_minimum(X, 3, init=init, sample_weight=w)
    Xs = sp.csr_matrix(X)
    Xs_copy = Xs.copy()
    sum_of_minimum(Xs, 3, sample_weight=w, random_state=0)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(w, w_copy)
    np.testing.assert_array_equal(init, init_copy)
    np.testing.assert_array_equal(Xs.toarray(), Xs_copy.toarray())


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(n_clusters=0), "n_clusters"),
        (dict(solver="foo"), "solver"),
        (dict(loss="foo"), "loss"),
        (dict(init_score="foo"), "init_score"),
        (dict(empty_cluster="foo"), "empty_cluster"),
        (dict(max_iter=-1), "max_iter"),
        (dict(tol=-1.0), "tol"),
        (dict(reclassify_every=0), "reclassify_every"),
        (dict(solver="momentum", momentum=1.5), "momentum"),
        (dict(solver="momentum", size_change_factor=0.5), "size_change_factor"),
        (dict(solver="gd", eta0=-1.0), "eta0"),
    ],
)
def test_sum_of_minimum_bad_parameters_raise(kwargs, name):
    X, _, _ = _blobs(0, n_samples=20, n_centers=2)
    kwargs = dict(kwargs)
    n_clusters = kwargs.pop("n_clusters", 2)
    with pytest.raises(ValueError, match=name):
        sum_of_minimum(X, n_clusters, random_state=0, **kwargs)


def test_sum_of_minimum_more_clusters_than_samples_raises():
    X = np.arange(6.0).reshape(3, 2)
    with pytest.raises(ValueError):
        sum_of_minimum(X, 5, random_state=0)
    with pytest.raises(ValueError):
        generalized_kmeans_plusplus(X, 5, random_state=0)


# --------------------------------------------------------------------------------------
# KMeans' conventions and parallel runs (issue 15, points 6 and 16)


@pytest.mark.parametrize("seed", [0, 3])
def test_sum_of_minimum_partition_repeated_completes_kmeans_n_iter(seed):
    X, init, km, res = _kmeans_and_sum_of_minimum(seed)
    assert res.partition_repeated
    assert res.n_iter + 1 == km.n_iter_
    capped = sum_of_minimum(X, 4, init=init, tol=0, max_iter=1)
    assert not capped.partition_repeated and capped.n_iter == 1


@pytest.mark.parametrize(
    "init, match",
    [
        (np.zeros((2, 2)), "does not match the number of clusters 3."),
        (np.zeros((3, 4)), "does not match the number of features of the data 2."),
    ],
)
def test_sum_of_minimum_init_shape_errors_name_the_wrong_dimension(init, match):
    X, _, _ = _blobs(0, n_samples=20, n_centers=2)
    with pytest.raises(ValueError, match=match):
        sum_of_minimum(X, 3, init=init)


def test_sum_of_minimum_init_array_with_n_init_runs_once():
    X, _, _ = _blobs(0, n_samples=20, n_centers=2)
    with pytest.warns(RuntimeWarning, match="one init in sum_of_minimum"):
        sum_of_minimum(X, 2, init=X[:2], n_init=2)


@pytest.mark.parametrize("solver", ["exact", "gd", "momentum"])
def test_sum_of_minimum_verbose_parallel_lines_match_sequential(solver, capfd):
    # capfd sees the file descriptors too: no line may come from a worker
    # process directly, and none may be lost or interleaved.
    X, _, _ = _blobs(5, n_samples=90, n_centers=3, std=3.0)
    options = dict(solver=solver, init="uniform", n_init=3, random_state=0)
    sum_of_minimum(X, 3, n_jobs=1, verbose=1, **options)
    sequential = capfd.readouterr().out
    with parallel_config(backend="loky"):
        sum_of_minimum(X, 3, n_jobs=2, verbose=1, **options)
    parallel = capfd.readouterr().out
    assert sequential.count("Initialization complete") == 3
    assert "Iteration 1, objective " in sequential
    assert parallel == sequential
