"""Property-based tests of the sum-of-minimum estimators (issue 16).

Every generated input, data and parameters at their boundaries, must give
either a clear ValueError or TypeError naming the user's input, or a fitted
model whose attributes are finite, of the right shape and dtype, and belong to
the returned parameters: ``labels_`` is what ``predict``/``assign`` give on
the training data, and ``inertia_``/``objective_`` are recomputed here from
``cluster_centers_``/``coef_`` by brute force (direct differences, float64).
No numpy floating-point warning may escape, the inputs are not modified, and
the same ``random_state`` gives the same model.
"""

import re
import warnings

import numpy as np
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from skcgm.cluster import SumOfMinKMeans
from skcgm.linear_model import MixedLinearRegressor

# Errors must name what the user gave, not an internal (numpy's "Fewer
# non-zero entries in p than size", a LinAlgError, a private parameter).
_USER_WORDS = re.compile(
    r"\bX\b|\by\b|sample_weight|n_clusters|n_components|n_samples|alpha|"
    r"init|eta0|momentum|loss|solver|Input|parameter|sparse|Sample weights"
)
_FP_WARNING = re.compile(
    r"(overflow|invalid value|divide by zero|underflow) encountered"
)
# Scales of the data, from subnormal to beyond the squares' range, finite in
# the dtype (sklearn's own checks of infinite input warn before skcgm runs).
_MAGNITUDES = {
    np.float64: [0.0, 1e-310, 1e-300, 1e-150, 1e-20, 1.0, 1e5, 1e20, 1e150, 1e160],
    np.float32: [0.0, 1e-40, 1e-20, 1.0, 1e5, 1e18, 1e30],
}
_WEIGHTS = [0.0, 1e-300, 1e-5, 1.0, 3.0, 1e150, 1e300]


@st.composite
def _data(draw, sparse=False):
    """Small data sets at the boundaries of shape, dtype, layout and scale."""
    n_samples = draw(st.integers(1, 10))
    n_features = draw(st.integers(1, 3))
    values = np.array(
        draw(
            st.lists(
                st.floats(-4, 4, allow_nan=False, width=32),
                min_size=n_samples * n_features,
                max_size=n_samples * n_features,
            )
        )
    ).reshape(n_samples, n_features)
    if draw(st.booleans()):
        values[n_samples // 2 :] = values[0]  # duplicated rows
    if draw(st.booleans()):
        values[:, 0] = values[0, 0]  # a constant column
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64, np.bool_]))
    if dtype in (np.float64, np.float32):
        scale = draw(st.sampled_from(_MAGNITUDES[dtype]))
        X = (values * scale).astype(dtype)
    else:
        X = np.round(values).astype(dtype)
    if draw(st.booleans()):
        X = np.asfortranarray(X)
    if sparse and draw(st.booleans()):
        X = sp.csr_matrix(X)
    return X


@st.composite
def _sample_weight(draw, n_samples):
    if draw(st.booleans()):
        return None
    return np.array(
        draw(
            st.lists(st.sampled_from(_WEIGHTS), min_size=n_samples, max_size=n_samples)
        )
    )


def _common_params(draw, n_samples, n_groups):
    return dict(
        init=draw(st.sampled_from(["k-means++", "uniform", "random"])),
        init_score=draw(st.sampled_from(["gap", "gradient"])),
        solver=draw(st.sampled_from(["exact", "gd", "momentum"])),
        max_iter=draw(st.sampled_from([1, 2, 5, 300])),
        tol=draw(st.sampled_from([0.0, 1e-4, 1.0])),
        n_init=draw(st.sampled_from([1, 2])),
        random_state=draw(st.integers(0, 3)),
    )


def _copy(value):
    if value is None:
        return None
    return value.copy()


def _same(before, after):
    if before is None:
        return after is None
    if sp.issparse(before):
        return (before != after).nnz == 0
    return np.array_equal(before, after)


def _fit(make_model, *args, sample_weight):
    """Fit, recording warnings; None for a clear ValueError or TypeError."""
    copies = [_copy(arg) for arg in (*args, sample_weight)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model = make_model().fit(*args, sample_weight=sample_weight)
        except (ValueError, TypeError) as error:
            assert not isinstance(error, np.linalg.LinAlgError), error
            assert _USER_WORDS.search(str(error)), str(error)
            model = None
    leaked = [w for w in caught if _FP_WARNING.search(str(w.message))]
    assert not leaked, [f"{w.filename}:{w.lineno}: {w.message}" for w in leaked]
    for before, after in zip(copies, (*args, sample_weight)):
        assert _same(before, after), "an input was modified"
    return model


def _float64(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


def test_sum_of_min_kmeans_properties(property_settings):
    @given(data=st.data())
    def check(data):
        X = data.draw(_data(sparse=True), label="X")
        n_samples = X.shape[0]
        sample_weight = data.draw(_sample_weight(n_samples), label="sample_weight")
        params = _common_params(data.draw, n_samples, None)
        params.update(
            n_clusters=data.draw(st.integers(1, n_samples + 1)),
            loss=data.draw(st.sampled_from(["squared_euclidean", "kl"])),
            eta0=data.draw(st.sampled_from([None, 1e-12, 0.5, 1.0, 1.9, 10.0, 1e10])),
            reclassify_every=data.draw(st.integers(1, 3)),
            momentum=data.draw(st.sampled_from([0.0, 0.5, 0.9])),
            size_change_factor=data.draw(st.sampled_from([1.01, 1.5, 10.0])),
            empty_cluster=data.draw(st.sampled_from(["relocate", "keep"])),
        )
        model = _fit(lambda: SumOfMinKMeans(**params), X, sample_weight=sample_weight)
        if model is None:
            return
        k, n_features = params["n_clusters"], X.shape[1]
        expected_dtype = np.float32 if X.dtype == np.float32 else np.float64
        centers = model.cluster_centers_
        assert centers.shape == (k, n_features)
        assert centers.dtype == expected_dtype
        assert np.all(np.isfinite(centers))
        assert np.all(np.isfinite(model.objective_history_))
        assert model.objective_ == model.objective_history_[-1]
        assert model.labels_.shape == (n_samples,)
        assert_array_equal(model.labels_, model.predict(X))
        # The inertia of the returned centers, by direct differences.
        X64, centers64 = _float64(X), centers.astype(np.float64)
        weights = np.ones(n_samples) if sample_weight is None else sample_weight
        if params["loss"] == "squared_euclidean":
            diff = X64[:, None, :] - centers64[None]
            losses = np.einsum("ijk,ijk->ij", diff, diff)
            # The engine expands ||y - x||^2; its rounding is relative to
            # the squared norms of the samples and centers.
            scale = (X64**2).sum(axis=1).max() + (centers64**2).sum(axis=1).max()
        else:
            with np.errstate(all="ignore"):
                Y, C = X64[:, None, :], centers64[None]
                losses = np.where(Y > 0, Y * np.log(Y / C), 0.0) - Y + C
            losses = losses.sum(axis=2)
            scale = (X64 + centers64.max()).sum(axis=1).max()
        expected = losses.min(axis=1) @ (weights / weights.max())
        inertia = model.inertia_ / weights.max()
        eps = np.finfo(expected_dtype).eps
        # Plus underflow: a loss of subnormal terms keeps none of its digits.
        total = (weights / weights.max()).sum()
        tiny = np.finfo(expected_dtype).tiny
        slack = 64 * eps * (expected + scale * total) + 4 * n_features * tiny * total
        assert np.isfinite(model.inertia_)
        assert abs(inertia - expected) <= slack, (inertia, expected)
        # Same random_state, same model.
        again = _fit(lambda: SumOfMinKMeans(**params), X, sample_weight=sample_weight)
        assert_array_equal(again.cluster_centers_, centers)
        assert_array_equal(again.labels_, model.labels_)

    property_settings(check)()


def test_mixed_linear_regressor_properties(property_settings):
    @given(data=st.data())
    def check(data):
        X = data.draw(_data(), label="X")
        n_samples = X.shape[0]
        y = data.draw(_data(), label="y_source")[:, 0]
        y = np.resize(np.asarray(y, dtype=np.float64), n_samples)
        sample_weight = data.draw(_sample_weight(n_samples), label="sample_weight")
        params = _common_params(data.draw, n_samples, None)
        params.update(
            n_components=data.draw(st.integers(1, n_samples + 1)),
            alpha=data.draw(st.sampled_from([1e-12, 1e-3, 0.01, 1.0, 1e10, 1e300])),
            fit_intercept=data.draw(st.booleans()),
        )
        model = _fit(
            lambda: MixedLinearRegressor(**params), X, y, sample_weight=sample_weight
        )
        if model is None:
            return
        k, n_features = params["n_components"], X.shape[1]
        expected_dtype = np.float32 if X.dtype == np.float32 else np.float64
        coef, intercept = model.coef_, model.intercept_
        assert coef.shape == (k, n_features) and intercept.shape == (k,)
        assert coef.dtype == expected_dtype
        for name in ("coef_", "intercept_", "weights_", "objective_history_"):
            assert np.all(np.isfinite(getattr(model, name))), name
        assert model.objective_ == model.objective_history_[-1]
        assert_array_equal(model.labels_, model.assign(X, y))
        assert np.all(np.isfinite(model.predict(X)))
        # The objective of the returned coefficients, written out.
        X64 = _float64(X)
        y64 = y.astype(expected_dtype).astype(np.float64)
        coef64, intercept64 = coef.astype(np.float64), intercept.astype(np.float64)
        residuals = X64 @ coef64.T + intercept64 - y64[:, None]
        penalty = 0.5 * params["alpha"] * (coef64**2).sum(axis=1)
        losses = 0.5 * residuals**2 + penalty
        weights = np.ones(n_samples) if sample_weight is None else sample_weight
        weights = weights / weights.max()
        expected = losses.min(axis=1) @ weights / weights.sum()
        # Residuals that cancel keep the rounding of their terms, summed in
        # another order by the estimator: allow it. The weights are float32
        # for float32 data; subnormal objectives lose relative precision.
        terms = (
            np.abs(X64) @ np.abs(coef64.T) + np.abs(intercept64) + np.abs(y64)[:, None]
        )
        error = 8 * (n_features + 1) * np.finfo(np.float64).eps * terms
        slack = (np.abs(residuals) * error + error**2).max()
        rtol = 1e-6 if expected_dtype == np.float32 else 1e-9
        assert np.isclose(model.objective_, expected, rtol=rtol, atol=slack + 1e-290), (
            model.objective_,
            expected,
        )
        again = _fit(
            lambda: MixedLinearRegressor(**params), X, y, sample_weight=sample_weight
        )
        assert_array_equal(again.coef_, coef)
        assert_array_equal(again.labels_, model.labels_)

    property_settings(check)()
