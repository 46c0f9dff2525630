"""Tests of KernelHerdingSampler against brute-force MMD computations."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel

from skcgm.sampling import KernelHerdingSampler


def _mixture(n=600, seed=0):
    rng = np.random.RandomState(seed)
    half = n // 2
    return np.concatenate(
        [rng.normal(-2.0, 1.0, (half, 2)), rng.normal(2.0, 0.7, (n - half, 2))]
    )


def _mmd2(K, a, b):
    """Brute-force ||sum_i a_i Phi(x_i) - sum_j b_j Phi(x_j)||^2 from a Gram."""
    d = a - b
    return float(d @ K @ d)


def _dense_weights(sampler, n):
    a = np.zeros(n)
    a[sampler.sample_indices_] = sampler.sample_weights_
    return a


def test_herding_beats_random_subsets():
    X = _mixture()
    n, m, gamma = X.shape[0], 64, 0.5
    K = rbf_kernel(X, gamma=gamma)
    uniform = np.full(n, 1.0 / n)
    sampler = KernelHerdingSampler(m, gamma=gamma).fit(X)
    herding = _mmd2(K, _dense_weights(sampler, n), uniform)
    rng = np.random.RandomState(0)
    random_mmd2 = []
    for _ in range(7):
        b = np.zeros(n)
        b[rng.choice(n, m, replace=False)] = 1.0 / m
        random_mmd2.append(_mmd2(K, b, uniform))
    assert herding < np.median(random_mmd2)
    assert np.isclose(sampler.mmd_history_[-1], herding, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("step", ["herding", "fw", "line_search"])
def test_kernel_trick_agrees_with_identity_features(step):
    X = _mixture(200, seed=1) + 0.5
    exact = KernelHerdingSampler(30, kernel="linear", step=step).fit(X)
    identity = KernelHerdingSampler(
        30, kernel="linear", feature_map="identity", step=step
    ).fit(X)
    np.testing.assert_array_equal(exact.sample_indices_, identity.sample_indices_)
    np.testing.assert_allclose(exact.sample_weights_, identity.sample_weights_)
    assert exact.n_iter_ == identity.n_iter_
    np.testing.assert_allclose(
        exact.mmd_history_, identity.mmd_history_, rtol=1e-6, atol=1e-12
    )
    np.testing.assert_allclose(exact.score(X), identity.score(X), atol=1e-10)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"step": "fw"},
        {"step": "line_search"},
        {"feature_map": "rff", "random_state": 0},
        {"feature_map": "nystroem", "random_state": 0},
        {"feature_map": "rff", "maxip": "lsh", "random_state": 0},
    ],
)
def test_weights_valid(params):
    X = _mixture(300)
    sampler = KernelHerdingSampler(40, **params).fit(X)
    idx, w = sampler.sample_indices_, sampler.sample_weights_
    assert idx.dtype == np.intp and w.shape == idx.shape
    assert len(np.unique(idx)) == len(idx) <= 40
    assert np.all((idx >= 0) & (idx < X.shape[0]))
    assert np.all(w > 0)
    np.testing.assert_allclose(w.sum(), 1.0)
    assert sampler.mmd_history_.shape == sampler.n_scored_.shape == (sampler.n_iter_,)


def test_herding_weights_are_uniform_over_the_multiset():
    # step='herding' is eta_t = 1/(t+1): every selection weighs 1/T.
    X = _mixture(100)
    sampler = KernelHerdingSampler(150, gamma=2.0).fit(X)
    assert sampler.n_iter_ == 100  # clipped to the number of rows
    counts = sampler.sample_weights_ * sampler.n_iter_
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    assert np.round(counts).sum() == sampler.n_iter_


@pytest.mark.parametrize("step", ["herding", "fw", "line_search"])
def test_mmd_history_matches_brute_force(step):
    X = _mixture(80, seed=2)
    n, gamma = X.shape[0], 0.3
    K = rbf_kernel(X, gamma=gamma)
    sample_weight = np.random.RandomState(0).uniform(0.5, 2.0, n)
    p = sample_weight / sample_weight.sum()
    sampler = KernelHerdingSampler(25, gamma=gamma, step=step).fit(
        X, sample_weight=sample_weight
    )
    # Independent replay: argmax of the brute-force MMD decrease direction
    # <mu - w, Phi(x_i)> = (K p - K a)_i with dense Gram algebra.
    a = np.zeros(n)
    expected = []
    for t in range(sampler.n_iter_):
        scores = K @ (p - a)
        i = int(np.argmax(scores))
        e = np.zeros(n)
        e[i] = 1.0
        if t == 0:
            eta = 1.0
        elif step == "herding":
            eta = 1.0 / (t + 1)
        elif step == "fw":
            eta = 2.0 / (t + 2)
        else:
            eta = np.clip((p - a) @ K @ (e - a) / ((e - a) @ K @ (e - a)), 0, 1)
        a = (1 - eta) * a + eta * e
        expected.append(_mmd2(K, a, p))
    np.testing.assert_allclose(sampler.mmd_history_, expected, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(_dense_weights(sampler, n), a, atol=1e-12)
    assert np.isclose(-sampler.score(X), _mmd2(K, a, np.full(n, 1.0 / n)))


def test_mmd_history_matches_brute_force_explicit_features():
    X = _mixture(80, seed=3)
    sampler = KernelHerdingSampler(
        20, feature_map="rff", n_components=64, random_state=0
    ).fit(X)
    F = sampler.feature_map_.transform(X)
    K = linear_kernel(F)
    p = np.full(X.shape[0], 1.0 / X.shape[0])
    a = _dense_weights(sampler, X.shape[0])
    assert np.isclose(sampler.mmd_history_[-1], _mmd2(K, a, p), rtol=1e-8)
    assert np.isclose(-sampler.score(X), _mmd2(K, a, p), rtol=1e-8)


def _clustered(n_per_cluster=100, seed=0):
    rng = np.random.RandomState(seed)
    centers = rng.normal(0.0, 6.0, (8, 2))
    return np.concatenate([c + 0.3 * rng.randn(n_per_cluster, 2) for c in centers])


def test_lsh_matches_exact_with_many_tables():
    X = _clustered(25)
    params = {"feature_map": "rff", "n_components": 64, "random_state": 0}
    exact = KernelHerdingSampler(30, **params).fit(X)
    lsh = KernelHerdingSampler(30, maxip="lsh", n_tables=128, n_bits=2, **params).fit(X)
    np.testing.assert_array_equal(exact.sample_indices_, lsh.sample_indices_)
    np.testing.assert_allclose(exact.mmd_history_, lsh.mmd_history_)


def test_lsh_scores_fewer_candidates_on_clustered_data():
    X = _clustered(100)
    n = X.shape[0]
    params = {"feature_map": "rff", "n_components": 64, "random_state": 0}
    exact = KernelHerdingSampler(40, **params).fit(X)
    lsh = KernelHerdingSampler(40, maxip="lsh", n_tables=8, n_bits=8, **params).fit(X)
    assert np.all(exact.n_scored_ == n)
    assert lsh.n_scored_.mean() < n
    assert lsh.mmd_history_[-1] < 3 * exact.mmd_history_[-1]


@pytest.mark.parametrize("n_candidates", [40, 0.05])
def test_lsh_candidate_cap_bounds_the_inner_products(n_candidates):
    X = _clustered(100)
    n = X.shape[0]
    params = {"feature_map": "rff", "n_components": 64, "random_state": 0}
    lsh = KernelHerdingSampler(
        40,
        maxip="lsh",
        n_tables=8,
        n_bits=6,
        n_probes=4,
        n_candidates=n_candidates,
        **params,
    ).fit(X)
    # At most 40 candidates (5% of 800) per iteration, plus a full scan on
    # the iterations where the index returned no descent vertex.
    fallback = lsh.n_scored_ > 40
    assert np.all(lsh.n_scored_[~fallback] <= 40)
    assert np.all(lsh.n_scored_[fallback] <= 40 + n)
    assert lsh.n_scored_.mean() < 0.25 * n


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fit_resample_equals_fit_and_indexing(dtype):
    X = _mixture(120).astype(dtype)
    sampler = KernelHerdingSampler(20)
    result = sampler.fit_resample(X)
    assert isinstance(result, tuple) and len(result) == 2
    X_res, y_res = result
    assert y_res is None
    assert X_res.dtype == dtype
    fitted = KernelHerdingSampler(20).fit(X)
    np.testing.assert_array_equal(X_res, X[fitted.sample_indices_])
    y = np.arange(X.shape[0])
    X_res, y_res = sampler.fit_resample(X, y)
    np.testing.assert_array_equal(y_res, fitted.sample_indices_)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"kernel": "linear"},
        {"feature_map": "rff", "random_state": 0},
        {"feature_map": "identity", "kernel": "linear"},
    ],
)
def test_sparse_input_matches_dense(params):
    X = _mixture(100)
    dense = KernelHerdingSampler(15, **params).fit(X)
    X_res, _ = KernelHerdingSampler(15, **params).fit_resample(sp.csr_matrix(X))
    assert sp.issparse(X_res)
    np.testing.assert_allclose(X_res.toarray(), X[dense.sample_indices_])


def test_per_class_keeps_class_proportions():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 2))
    y = np.repeat([0, 1, 2], [240, 120, 40])
    X[y == 1] += 4.0
    sampler = KernelHerdingSampler(50, per_class=True, gamma=0.5)
    X_res, y_res = sampler.fit_resample(X, y)
    # Budgets 30, 15, 5; herding may select a row twice, never more here.
    counts = np.bincount(y_res, minlength=3)
    np.testing.assert_allclose(counts, [30, 15, 5], atol=1)
    # Class weights keep the class masses exactly.
    class_mass = np.bincount(y_res, weights=sampler.sample_weights_, minlength=3)
    np.testing.assert_allclose(class_mass, [0.6, 0.3, 0.1])
    assert sampler.n_iter_ == 50
    # At least one selection per class, even when its quota rounds to 0.
    _, y_res = KernelHerdingSampler(5, per_class=True).fit_resample(X, y)
    assert set(y_res) == {0, 1, 2}


@pytest.mark.parametrize(
    "params",
    [
        {"feature_map": "rff"},
        {"feature_map": "nystroem"},
        {"feature_map": "rff", "maxip": "lsh", "n_bits": 6},
    ],
)
def test_same_random_state_same_result(params):
    X = _clustered(30)
    first = KernelHerdingSampler(25, random_state=3, **params).fit(X)
    second = KernelHerdingSampler(25, random_state=3, **params).fit(X)
    np.testing.assert_array_equal(first.sample_indices_, second.sample_indices_)
    np.testing.assert_array_equal(first.sample_weights_, second.sample_weights_)
    np.testing.assert_array_equal(first.n_scored_, second.n_scored_)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_samples": 0}, "n_samples"),
        ({"kernel": "poly"}, "kernel"),
        ({"gamma": -1.0}, "gamma"),
        ({"feature_map": "fourier"}, "feature_map"),
        ({"n_components": 0}, "n_components"),
        ({"maxip": "faiss"}, "maxip"),
        ({"n_bits": 63}, "n_bits"),
        ({"step": "2/(t+2)"}, "step"),
        ({"maxip": "lsh"}, "maxip='lsh'"),
        ({"feature_map": "rff", "kernel": "linear"}, "kernel='rbf'"),
        ({"feature_map": "identity"}, "kernel='linear'"),
    ],
)
def test_bad_params_raise(params, match):
    with pytest.raises(ValueError, match=match):
        KernelHerdingSampler(**{"n_samples": 5, **params}).fit(_mixture(20))


def test_per_class_needs_1d_y():
    X = _mixture(20)
    with pytest.raises(ValueError, match="1-D y"):
        KernelHerdingSampler(5, per_class=True).fit(X, np.zeros((20, 2)))


def test_zero_weight_rows_are_not_selected():
    X = _mixture(60)
    sample_weight = np.ones(60)
    sample_weight[::2] = 0.0
    sampler = KernelHerdingSampler(20).fit(X, sample_weight=sample_weight)
    assert np.all(sampler.sample_indices_ % 2 == 1)
    reference = KernelHerdingSampler(20).fit(X[1::2])
    np.testing.assert_array_equal(
        sampler.sample_indices_, 2 * reference.sample_indices_ + 1
    )


def test_lsh_falls_back_to_the_exact_scan_instead_of_stopping():
    # A coarse index (few tables, many bits) returns non-descent vertices;
    # the sampler must then ask the exact scan (its cost counted, so some
    # iteration scores more than n rows) and keep herding to n_samples.
    from skcgm.experiments import make_gaussian_mixture

    X = make_gaussian_mixture(5000, 2, random_state=0)
    common = dict(feature_map="rff", gamma=0.25, random_state=0)
    lsh = KernelHerdingSampler(60, maxip="lsh", n_tables=2, n_bits=10, **common).fit(X)
    exact = KernelHerdingSampler(60, maxip="exact", **common).fit(X)
    assert lsh.n_iter_ == exact.n_iter_ == 60
    assert max(lsh.n_scored_) > X.shape[0]
    assert lsh.mmd_history_[-1] < 5 * exact.mmd_history_[-1]
