"""Tests of KernelHerdingSampler against brute-force MMD computations."""

import contextlib
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import DataConversionWarning
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
    a[sampler.support_] = sampler.support_weight_
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
    assert np.isclose(sampler.objective_history_[-1], herding, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("step", ["herding", "fw", "line_search"])
def test_kernel_trick_agrees_with_identity_features(step):
    X = _mixture(200, seed=1) + 0.5
    exact = KernelHerdingSampler(30, kernel="linear", learning_rate=step).fit(X)
    identity = KernelHerdingSampler(
        30, kernel="linear", feature_map="identity", learning_rate=step
    ).fit(X)
    np.testing.assert_array_equal(exact.support_, identity.support_)
    np.testing.assert_allclose(exact.support_weight_, identity.support_weight_)
    assert exact.n_iter_ == identity.n_iter_
    np.testing.assert_allclose(
        exact.objective_history_, identity.objective_history_, rtol=1e-6, atol=1e-12
    )
    np.testing.assert_allclose(exact.score(X), identity.score(X), atol=1e-10)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"learning_rate": "fw"},
        {"learning_rate": "line_search"},
        {"feature_map": "rff", "random_state": 0},
        {"feature_map": "nystroem", "random_state": 0},
        {"feature_map": "rff", "maxip": "lsh", "random_state": 0},
    ],
)
def test_weights_valid(params):
    X = _mixture(300)
    sampler = KernelHerdingSampler(40, **params).fit(X)
    idx, w = sampler.support_, sampler.support_weight_
    assert idx.dtype == np.intp and w.shape == idx.shape
    assert len(np.unique(idx)) == len(idx) <= 40
    assert np.all((idx >= 0) & (idx < X.shape[0]))
    assert np.all(w > 0)
    np.testing.assert_allclose(w.sum(), 1.0)
    assert (
        sampler.objective_history_.shape
        == sampler.n_scored_.shape
        == (sampler.n_iter_,)
    )


@contextlib.contextmanager
def _no_user_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        yield


def _repeats_warning(n_samples, n_rows):
    # More selections than rows repeat rows, with a warning naming both;
    # otherwise no warning at all.
    if n_samples > n_rows:
        return pytest.warns(UserWarning, match=f"n_samples={n_samples} .* {n_rows}:")
    return _no_user_warning()


def test_herding_weights_are_uniform_over_the_multiset():
    # learning_rate='herding' is eta_t = 1/(t+1): every selection weighs 1/T. More
    # selections than rows are allowed (a row is then selected again).
    X = _mixture(100)
    with _repeats_warning(150, 100):
        sampler = KernelHerdingSampler(150, gamma=2.0).fit(X)
    assert sampler.n_iter_ == 150
    counts = sampler.support_weight_ * sampler.n_iter_
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    assert np.round(counts).sum() == sampler.n_iter_


@pytest.mark.parametrize("step", ["herding", "fw", "line_search"])
def test_mmd_history_matches_brute_force(step):
    X = _mixture(80, seed=2)
    n, gamma = X.shape[0], 0.3
    K = rbf_kernel(X, gamma=gamma)
    sample_weight = np.random.RandomState(0).uniform(0.5, 2.0, n)
    p = sample_weight / sample_weight.sum()
    sampler = KernelHerdingSampler(25, gamma=gamma, learning_rate=step).fit(
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
    np.testing.assert_allclose(
        sampler.objective_history_, expected, rtol=1e-7, atol=1e-12
    )
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
    assert np.isclose(sampler.objective_history_[-1], _mmd2(K, a, p), rtol=1e-8)
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
    np.testing.assert_array_equal(exact.support_, lsh.support_)
    np.testing.assert_allclose(exact.objective_history_, lsh.objective_history_)


def test_lsh_scores_fewer_candidates_on_clustered_data():
    X = _clustered(100)
    n = X.shape[0]
    params = {"feature_map": "rff", "n_components": 64, "random_state": 0}
    exact = KernelHerdingSampler(40, **params).fit(X)
    lsh = KernelHerdingSampler(40, maxip="lsh", n_tables=8, n_bits=8, **params).fit(X)
    assert np.all(exact.n_scored_ == n)
    assert lsh.n_scored_.mean() < n
    assert lsh.objective_history_[-1] < 3 * exact.objective_history_[-1]


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
    # Budgets 30, 15, 5, repeats included.
    np.testing.assert_array_equal(np.bincount(y_res, minlength=3), [30, 15, 5])
    # Class weights keep the class masses exactly (whole budgets here).
    class_mass = np.bincount(
        y[sampler.support_], weights=sampler.support_weight_, minlength=3
    )
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
    np.testing.assert_array_equal(first.support_, second.support_)
    np.testing.assert_array_equal(first.support_weight_, second.support_weight_)
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
        ({"learning_rate": "2/(t+2)"}, "learning_rate"),
        ({"maxip": "lsh", "feature_map": "exact"}, "maxip='lsh'"),
        ({"gamma": None}, "gamma"),
        ({"gamma": "svc"}, "gamma"),
        ({"feature_map": "rff", "kernel": "linear"}, "kernel='rbf'"),
        ({"feature_map": "identity"}, "kernel='linear'"),
    ],
)
def test_bad_params_raise(params, match):
    with pytest.raises(ValueError, match=match):
        KernelHerdingSampler(**{"n_samples": 5, **params}).fit(_mixture(20))


def test_per_class_needs_one_class_per_row():
    X = _mixture(20)
    with pytest.raises(ValueError, match="not supported with per_class=True"):
        KernelHerdingSampler(5, per_class=True).fit(X, np.zeros((20, 2)))


def test_zero_weight_rows_are_not_selected():
    X = _mixture(60)
    sample_weight = np.ones(60)
    sample_weight[::2] = 0.0
    # gamma='scale' reads the variance of every row, as SVC's: fix the
    # kernel, so that both fits herd in the same one.
    sampler = KernelHerdingSampler(20, gamma="auto").fit(X, sample_weight=sample_weight)
    assert np.all(sampler.support_ % 2 == 1)
    reference = KernelHerdingSampler(20, gamma="auto").fit(X[1::2])
    np.testing.assert_array_equal(sampler.support_, 2 * reference.support_ + 1)


def test_lsh_falls_back_to_the_exact_scan_instead_of_stopping():
    # A coarse index (few tables, many bits) returns non-descent vertices;
    # the sampler must then ask the exact scan (its cost counted, so some
    # iteration scores more than n rows) and keep herding to n_samples.
    from skcgm.datasets import make_gaussian_mixture

    X = make_gaussian_mixture(5000, 2, random_state=0)
    common = dict(feature_map="rff", gamma=0.25, random_state=0)
    lsh = KernelHerdingSampler(60, maxip="lsh", n_tables=2, n_bits=10, **common).fit(X)
    exact = KernelHerdingSampler(60, maxip="exact", **common).fit(X)
    assert lsh.n_iter_ == exact.n_iter_ == 60
    assert max(lsh.n_scored_) > X.shape[0]
    assert lsh.objective_history_[-1] < 5 * exact.objective_history_[-1]


def _unweighted_mmd2(X_rows, X, gamma):
    """Brute-force squared MMD between the uniform measures on two row sets."""
    return float(
        rbf_kernel(X_rows, X_rows, gamma=gamma).mean()
        - 2.0 * rbf_kernel(X_rows, X, gamma=gamma).mean()
        + rbf_kernel(X, X, gamma=gamma).mean()
    )


def _imbalanced(n_major=160, n_minor=40, seed=0):
    rng = np.random.RandomState(seed)
    X = np.concatenate([rng.normal(0, 1, (n_major, 2)), rng.normal(3, 1, (n_minor, 2))])
    return X, np.repeat([0, 1], [n_major, n_minor])


@pytest.mark.parametrize("per_class", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_samples", [40, 200, 450])
def test_fit_resample_returns_the_herded_multiset(per_class, sparse, n_samples):
    # n_samples=200 on 200 rows used to return 162 distinct rows, whose
    # unweighted measure is not the herded one; 450 > 200 rows needs repeats.
    X, y = _imbalanced()
    gamma = 0.5
    sampler = KernelHerdingSampler(n_samples, gamma=gamma, per_class=per_class)
    with _repeats_warning(n_samples, X.shape[0]):
        X_res, y_res = sampler.fit_resample(sp.csr_matrix(X) if sparse else X, y)
    X_res = X_res.toarray() if sparse else X_res
    assert X_res.shape == (n_samples, 2) and y_res.shape == (n_samples,)
    np.testing.assert_array_equal(X_res, X[sampler.sample_indices_])
    np.testing.assert_array_equal(y_res, y[sampler.sample_indices_])
    # The uniform measure on the returned rows is the weighted subset.
    weighted = _mmd2(
        rbf_kernel(X, gamma=gamma),
        _dense_weights(sampler, X.shape[0]),
        np.full(X.shape[0], 1.0 / X.shape[0]),
    )
    assert abs(_unweighted_mmd2(X_res, X, gamma) - weighted) < 1e-10
    counts = np.bincount(sampler.sample_indices_, minlength=X.shape[0])
    np.testing.assert_allclose(
        counts / n_samples, _dense_weights(sampler, X.shape[0]), atol=1e-12
    )
    if per_class:
        # Exact class counts, 4:1 as in the data (the old code gave 31/8
        # instead of 32/8 for n_samples=40).
        np.testing.assert_array_equal(
            np.bincount(y_res), [4 * n_samples // 5, n_samples // 5]
        )
        assert sampler.sampling_strategy_ == {
            0: 4 * n_samples // 5,
            1: n_samples // 5,
        }


def test_sample_indices_follow_the_selection_order():
    # Brute-force replay of the herding recursion: the returned rows are the
    # rows it selects, one per iteration, repeats included.
    X = _mixture(60, seed=4)
    gamma, T = 0.7, 90
    K = rbf_kernel(X, gamma=gamma)
    p = np.full(X.shape[0], 1.0 / X.shape[0])
    a = np.zeros(X.shape[0])
    picks = []
    for t in range(T):
        i = int(np.argmax(K @ (p - a)))
        picks.append(i)
        a *= 1.0 - 1.0 / (t + 1)
        a[i] += 1.0 / (t + 1)
    with _repeats_warning(T, X.shape[0]):
        sampler = KernelHerdingSampler(T, gamma=gamma).fit(X)
    np.testing.assert_array_equal(sampler.sample_indices_, picks)
    assert sampler.n_iter_ == T
    _, first = np.unique(picks, return_index=True)
    np.testing.assert_array_equal(sampler.support_, np.asarray(picks)[np.sort(first)])


@pytest.mark.parametrize("learning_rate", ["fw", "line_search"])
@pytest.mark.parametrize("per_class", [False, True])
def test_fit_resample_rounds_the_weights_of_other_steps(learning_rate, per_class):
    X, y = _imbalanced()
    n_samples = 50
    sampler = KernelHerdingSampler(
        n_samples, learning_rate=learning_rate, per_class=per_class
    )
    X_res, y_res = sampler.fit_resample(X, y)
    assert X_res.shape[0] == y_res.shape[0] == n_samples
    counts = np.bincount(sampler.sample_indices_, minlength=X.shape[0])
    weights = _dense_weights(sampler, X.shape[0])
    # Every row is repeated round(n_samples * weight) times, up or down.
    assert np.all(np.abs(counts - n_samples * weights) < 1)
    assert set(np.flatnonzero(counts)) <= set(sampler.support_)
    if per_class:
        np.testing.assert_array_equal(np.bincount(y_res), [40, 10])


def test_fit_resample_uses_sample_weight():
    X = _mixture(80, seed=5)
    sample_weight = np.random.RandomState(0).uniform(0, 3, 80)
    sample_weight[::4] = 0.0
    X_before = X.copy()
    X_res, _ = KernelHerdingSampler(30).fit_resample(X, sample_weight=sample_weight)
    fitted = KernelHerdingSampler(30).fit(X, sample_weight=sample_weight)
    np.testing.assert_array_equal(X_res, X[fitted.sample_indices_])
    assert np.all(fitted.sample_indices_ % 4 != 0)
    unweighted = KernelHerdingSampler(30).fit(X)
    assert not np.array_equal(fitted.sample_indices_, unweighted.sample_indices_)
    np.testing.assert_array_equal(X, X_before)


@pytest.mark.parametrize("per_class", [False, True])
@pytest.mark.parametrize(
    "y_shape", [(21,), (19,), (19, 2)], ids=["longer", "shorter", "2d"]
)
def test_y_of_another_length_raises(per_class, y_shape):
    X = _mixture(20)
    y = np.zeros(y_shape, dtype=int)
    y.flat[::2] = 1
    sampler = KernelHerdingSampler(5, per_class=per_class)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        sampler.fit(X, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        sampler.fit_resample(X, y)


def test_y_is_carried_along_without_per_class():
    # Without per_class, y may be any target (here continuous and 2-D).
    X = _mixture(50)
    y = np.random.RandomState(0).normal(size=(50, 2))
    sampler = KernelHerdingSampler(12)
    _, y_res = sampler.fit_resample(X, y)
    np.testing.assert_array_equal(y_res, y[sampler.sample_indices_])


def test_per_class_needs_y():
    with pytest.raises(ValueError, match="y is None.*per_class=True"):
        KernelHerdingSampler(5, per_class=True).fit(_mixture(20))


@pytest.mark.parametrize(
    "y, match",
    [
        (np.linspace(0.0, 1.0, 20), "continuous"),
        (np.random.RandomState(0).normal(size=(20, 2)), "continuous-multioutput"),
        (np.tile([[1, 1, 0], [0, 1, 1]], (10, 1)), "Multilabel"),
        (np.zeros(20), "at least 2 classes"),
    ],
    ids=["continuous", "continuous-multioutput", "multilabel", "one-class"],
)
def test_per_class_refuses_targets_without_classes(y, match):
    with pytest.raises(ValueError, match=match):
        KernelHerdingSampler(5, per_class=True).fit_resample(_mixture(20), y)


def test_per_class_accepts_column_and_one_hot_y():
    X, y = _imbalanced()
    reference = KernelHerdingSampler(20, per_class=True).fit(X, y)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        column = KernelHerdingSampler(20, per_class=True).fit(X, y[:, None])
    one_hot = np.eye(2, dtype=int)[y]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, y_res = KernelHerdingSampler(20, per_class=True).fit_resample(X, one_hot)
    for other in (column,):
        np.testing.assert_array_equal(other.sample_indices_, reference.sample_indices_)
    np.testing.assert_array_equal(y_res, one_hot[reference.sample_indices_])


def test_per_class_budgets_sum_to_n_samples():
    # Three tiny classes each get one selection; the old rounding then
    # returned 12 rows for n_samples=10.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 2))
    y = np.repeat([0, 1, 2, 3], [388, 4, 4, 4])
    sampler = KernelHerdingSampler(10, per_class=True)
    _, y_res = sampler.fit_resample(X, y)
    np.testing.assert_array_equal(np.bincount(y_res), [7, 1, 1, 1])
    with pytest.raises(ValueError, match="n_samples"):
        KernelHerdingSampler(3, per_class=True).fit(X, y)


def test_list_input_gives_lists():
    X, y = _imbalanced(40, 10)
    X_res, y_res = KernelHerdingSampler(8, per_class=True).fit_resample(
        X.tolist(), y.tolist()
    )
    assert isinstance(X_res, list) and isinstance(y_res, list)
    X_arr, y_arr = KernelHerdingSampler(8, per_class=True).fit_resample(X, y)
    np.testing.assert_array_equal(X_res, X_arr)
    np.testing.assert_array_equal(y_res, y_arr)


def test_get_feature_names_out_is_the_input_names():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(_mixture(30), columns=["a", "b"])
    sampler = KernelHerdingSampler(5).fit(X)
    np.testing.assert_array_equal(sampler.get_feature_names_out(), ["a", "b"])
    X_res, _ = sampler.fit_resample(X)
    assert list(X_res.columns) == ["a", "b"] and X_res.shape == (5, 2)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    n_rows=st.integers(1, 12),
    n_samples=st.integers(1, 30),
    gamma=st.floats(0.05, 5.0),
    seed=st.integers(0, 2**16),
)
def test_herding_multiset_is_the_weighted_subset(n_rows, n_samples, gamma, seed):
    X = np.random.RandomState(seed).normal(size=(n_rows, 2))
    sampler = KernelHerdingSampler(n_samples, gamma=gamma)
    with _repeats_warning(n_samples, n_rows):
        X_res, _ = sampler.fit_resample(X)
    assert X_res.shape[0] == n_samples
    counts = np.bincount(sampler.sample_indices_, minlength=n_rows)
    np.testing.assert_allclose(
        counts / n_samples, _dense_weights(sampler, n_rows), atol=1e-12
    )


# Numerical range (issue 16)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"kernel": "linear"},
        {"kernel": "linear", "feature_map": "identity", "learning_rate": "fw"},
        {"per_class": True, "learning_rate": "line_search"},
    ],
)
def test_huge_sample_weights_give_finite_results(params):
    # The total weight overflowed: 0 * inf weights, inf masses.
    rng = np.random.RandomState(0)
    X = rng.standard_normal((30, 2))
    y = np.repeat([0, 1], 15)
    sample_weight = np.full(30, 1e308)
    sample_weight[::3] = 1e300
    sampler = KernelHerdingSampler(5, **params).fit(X, y, sample_weight=sample_weight)
    reference = KernelHerdingSampler(5, **params).fit(
        X, y, sample_weight=sample_weight / 1e308
    )
    np.testing.assert_array_equal(sampler.support_, reference.support_)
    np.testing.assert_allclose(sampler.support_weight_, reference.support_weight_)
    np.testing.assert_allclose(sampler.objective_history_, reference.objective_history_)
    assert np.isfinite(sampler.score(X))


@pytest.mark.parametrize("per_class", [True, False])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_labels_with_nan_or_infinity_are_refused_on_both_paths(per_class, bad):
    # imbalanced-learn's samplers: "Input y contains NaN."; without per_class
    # y is only carried along, and came back holding the NaN.
    X = np.random.RandomState(0).standard_normal((6, 2))
    y = np.array([0.0, 1.0, bad, 0.0, 1.0, 1.0])
    message = "Input y contains " + ("NaN" if np.isnan(bad) else "infinity")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match=message):
            KernelHerdingSampler(3, per_class=per_class).fit_resample(X, y)
        with pytest.raises(ValueError, match=message):
            KernelHerdingSampler(3, per_class=per_class).fit_resample(
                X, sp.csr_matrix(y.reshape(-1, 1))
            )


@pytest.mark.parametrize("per_class", [True, False])
def test_more_samples_than_rows_warns_naming_both(per_class):
    X = np.random.RandomState(0).standard_normal((10, 2))
    y = np.arange(10) % 2
    weight = np.ones(10)
    weight[:3] = 0.0
    with pytest.warns(UserWarning, match=r"n_samples=12 .* positive weight, 7"):
        X_res, _ = KernelHerdingSampler(12, per_class=per_class).fit_resample(
            X, y, sample_weight=weight
        )
    assert X_res.shape[0] == 12
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        KernelHerdingSampler(7, per_class=per_class).fit_resample(
            X, y, sample_weight=weight
        )


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_data_whose_squares_overflow_is_refused(kernel):
    X = np.random.RandomState(0).standard_normal((6, 2)) * 1e200
    with pytest.raises(ValueError, match="X .*Scale"):
        KernelHerdingSampler(3, kernel=kernel).fit(X)
    sampler = KernelHerdingSampler(3, kernel=kernel).fit(X / 1e200)
    with pytest.raises(ValueError, match="X .*Scale"):
        sampler.score(X)


def test_linear_kernel_score_of_large_data_is_finite():
    # Within the square range, the sum of the n**2 kernel entries overflowed.
    X = (np.random.RandomState(0).standard_normal((60, 2)) + 3.0) * 1e152
    sampler = KernelHerdingSampler(5, kernel="linear").fit(X)
    score = sampler.score(X)
    diff = (
        X.mean(axis=0) / 1e152 - sampler.support_weight_ @ X[sampler.support_] / 1e152
    )
    assert score == pytest.approx(-(diff @ diff) * 1e304, rel=1e-9)


def test_linear_nystroem_features_scale_with_the_data():
    # Nystroem floors its eigenvalues at the absolute 1e-12: on duplicated
    # rows of size 1e145 the zero eigenvalues blew the features up by 1e6
    # (found by the property tests).
    # Three picks: the three distinct rows reproduce the mean exactly, after
    # which every candidate ties and rounding would decide a fourth pick.
    X = np.repeat(np.random.RandomState(0).standard_normal((3, 2)), 2, axis=0)
    params = dict(feature_map="nystroem", kernel="linear", random_state=0)
    small = KernelHerdingSampler(3, **params).fit(X)
    large = KernelHerdingSampler(3, **params).fit(X * 1e145)
    np.testing.assert_array_equal(large.support_, small.support_)
    # Up to round-off relative to the largest squared MMD.
    expected = small.objective_history_ * 1e290
    atol = 1e-9 * expected.max()
    np.testing.assert_allclose(large.objective_history_, expected, rtol=1e-7, atol=atol)
    assert large.score(X * 1e145) == pytest.approx(small.score(X) * 1e290, abs=atol)


@pytest.mark.parametrize("per_class", [False, True])
def test_verbose_prints_one_line_per_iteration_with_the_mmd(capsys, per_class):
    X = _mixture(60, seed=0)
    y = np.repeat([0, 1], 30)
    quiet = KernelHerdingSampler(12, per_class=per_class).fit(X, y)
    assert capsys.readouterr().out == ""
    loud = KernelHerdingSampler(12, per_class=per_class, verbose=2).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    lines = [line for line in lines if line.startswith("Iteration")]
    assert len(lines) == loud.n_iter_
    # The printed squared MMD is the recorded objective, and verbosity does
    # not change the fit.
    printed = [float(line.split("squared MMD ")[1].split(",")[0]) for line in lines]
    np.testing.assert_allclose(printed, loud.objective_history_, rtol=1e-5)
    np.testing.assert_array_equal(quiet.support_, loud.support_)
