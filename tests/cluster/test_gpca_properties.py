"""Property-based tests of :class:`skcgm.cluster.GPCAClusterer` (issue 16).

Hypothesis draws the data (one row upwards, float64/float32/int/bool, C or F
order, CSR, duplicated rows, constant columns, magnitudes from 1e-300 to
1e160), the sample weights (0 to 1e300) and every parameter at its
boundaries. Every fit either raises a clear ValueError or TypeError (one of
the messages listed below, never LAPACK's or NumPy's), or returns finite
fitted attributes of the right shape and dtype, whose objective is the one
recomputed here from the fitted bases, with ``labels_ == predict(X)``, no
NumPy floating-point warning, the input unchanged and the same result for
the same ``random_state``.
"""

import re
import warnings

import numpy as np
import scipy.sparse as sp
from hypothesis import event, given
from hypothesis import strategies as st

from skcgm.cluster import GPCAClusterer

# The errors a user may get, each naming a parameter or the data.
_EXPECTED_ERRORS = re.compile(
    "|".join(
        [
            r"parameter of GPCAClusterer must be",  # parameter validation
            r"n_samples=\d+ should be >= n_clusters=\d+",
            r"GPCAClusterer needs at least 2 features",
            r"subspace_dim=\d+ must be between 1 and n_features - 1",
            r"affine=True is only available with model='sum_of_min'",
            r"X holds values up to",
            r"Input X contains infinity",  # float32 cast of 1e150
            r"Input sample_weight contains infinity",  # float32 cast of 1e300
            # Fewer samples of positive weight than clusters to draw from.
            r"init='uniform'.*n_clusters=\d+.*sample_weight",
            r"offsets of init are too large for the scale of X",
            r"Sample weights must contain at least one non-zero number",
            r"exceeds the float64 range",  # objective or inertia, named
        ]
    )
)

_MAGNITUDES = [1e-300, 1e-150, 1e-30, 1.0, 1e18, 1e30, 1e150, 1e160]
_WEIGHTS = [0.0, 1e-300, 1e-5, 1.0, 3.0, 1e30, 1e300]


def _pow2_exponent(*arrays):
    """Exponent e with max |arrays| * 2**-e in [1/2, 1) (0 for zeros)."""
    largest = max(float(np.max(np.abs(a))) if a.size else 0.0 for a in arrays)
    return int(np.frexp(largest)[1]) if largest > 0 else 0


def _reference(X, weights, normals, offsets, model, eps):
    """Objective and inertia of the fitted model, recomputed in float64.

    Computed on the data and weights divided by powers of two (exactly), then
    scaled back, so that neither the squares of 1e150 nor the weights of
    1e300 overflow here. Returns the objective and the inertia with an
    absolute tolerance for each: ``eps`` times the largest possible terms of
    their sums.
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    x_exp = _pow2_exponent(X, offsets)
    w_exp = _pow2_exponent(w)
    Xs, ws = np.ldexp(X, -x_exp), np.ldexp(w, -w_exp)
    mus = np.ldexp(np.asarray(offsets, dtype=np.float64), -x_exp)
    sq = np.stack(
        [
            np.sum(((Xs - mu) @ A.astype(np.float64)) ** 2, axis=1)
            for A, mu in zip(normals, mus)
        ],
        axis=1,
    )
    nearest = sq.min(axis=1)
    # The largest squared distance of a sample to an offset (its norm when
    # linear) bounds every term: rounding errors are relative to it.
    scale = max(float(np.max(np.sum((Xs[:, None] - mus) ** 2, axis=2))), 1.0)
    k = sq.shape[1]
    with np.errstate(over="ignore", under="ignore"):
        inertia = np.ldexp(ws @ nearest, 2 * x_exp + w_exp)
        inertia_atol = np.ldexp(eps * scale * ws.sum(), 2 * x_exp + w_exp)
        if model == "sum_of_min":
            objective = np.ldexp(0.5 * (ws @ nearest) / ws.sum(), 2 * x_exp)
            objective_atol = np.ldexp(eps * scale, 2 * x_exp)
        else:
            objective = np.ldexp((ws @ np.prod(sq, axis=1)) / ws.sum(), 2 * k * x_exp)
            objective_atol = np.ldexp(eps * k * scale**k, 2 * k * x_exp)
    # Capped so that numpy.isclose can add it to rtol * abs(desired).
    largest = np.finfo(np.float64).max / 4
    return (
        objective,
        min(objective_atol, largest),
        inertia,
        min(inertia_atol, largest),
    )


@st.composite
def _data(draw):
    n_samples = draw(st.integers(1, 10))
    n_features = draw(st.sampled_from([1, 2, 2, 3, 4]))
    dtype = draw(st.sampled_from(["float64", "float32", "int64", "bool"]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features))
    if draw(st.booleans()) and n_samples > 1:
        # Duplicated rows.
        X[rng.randint(n_samples, size=n_samples // 2 + 1)] = X[0]
    if draw(st.booleans()):
        # A constant column.
        X[:, rng.randint(n_features)] = draw(st.sampled_from([0.0, 1.0]))
    if draw(st.booleans()):
        X[rng.uniform(size=X.shape) < 0.5] = 0.0
    if dtype == "bool":
        X = X > 0
    elif dtype == "int64":
        X = np.round(3 * X).astype(np.int64)
    else:
        magnitude = draw(st.sampled_from(_MAGNITUDES))
        with np.errstate(over="ignore", under="ignore"):
            X = (X * magnitude).astype(dtype)
    if draw(st.booleans()):
        X = np.asfortranarray(X)
    if draw(st.booleans()):
        X = sp.csr_matrix(X)
    return X


@st.composite
def _weights(draw, n_samples):
    kind = draw(st.sampled_from(["none", "constant", "mixed"]))
    if kind == "none":
        return None
    if kind == "constant":
        return np.full(n_samples, draw(st.sampled_from(_WEIGHTS)))
    values = draw(
        st.lists(st.sampled_from(_WEIGHTS), min_size=n_samples, max_size=n_samples)
    )
    return np.asarray(values)


@st.composite
def _params(draw, n_samples, n_features):
    affine = draw(st.booleans())
    model = draw(st.sampled_from(["sum_of_min", "sum_of_product"]))
    n_clusters = draw(st.integers(1, n_samples + 1))
    subspace_dim = draw(st.one_of(st.none(), st.integers(1, max(n_features, 1))))
    init = draw(st.sampled_from(["k-means++", "uniform", "random", "array"]))
    if init == "array":
        dim = n_features - 1 if subspace_dim is None else subspace_dim
        codim = max(n_features - dim, 1)
        rng = np.random.RandomState(draw(st.integers(0, 100)))
        normals = [
            np.linalg.qr(rng.standard_normal((n_features, codim)))[0]
            for _ in range(n_clusters)
        ]
        init = np.stack(normals)
        if affine:
            offsets = rng.standard_normal((n_clusters, n_features, 1))
            init = np.concatenate([init, offsets], axis=2)
    return dict(
        n_clusters=n_clusters,
        subspace_dim=subspace_dim,
        affine=affine,
        model=model,
        init=init,
        n_init=draw(st.sampled_from(["auto", 1, 2])),
        max_iter=draw(st.sampled_from([0, 1, 2, 3, 50, 50])),
        tol=draw(st.sampled_from([0.0, 1e-4, 1.0])),
        random_state=draw(st.integers(0, 1000)),
    )


def _fit(params, X, weights):
    """Fit, recording warnings; None and the message for an expected error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model = GPCAClusterer(**params).fit(X, sample_weight=weights)
        except (ValueError, TypeError) as error:
            assert type(error).__name__ != "LinAlgError", error
            assert _EXPECTED_ERRORS.search(str(error)), repr(error)
            event(f"error: {_EXPECTED_ERRORS.search(str(error)).group()}")
            return None, caught
    event("fitted")
    return model, caught


def _assert_no_floating_point_warning(caught):
    for warning in caught:
        assert not (
            issubclass(warning.category, RuntimeWarning)
            and "encountered" in str(warning.message)
            and "skcgm" in warning.filename
        ), (warning.filename, warning.message)


def test_gpca_fit_is_finite_consistent_and_reproducible_for_every_input(
    property_settings,
):
    @given(data=st.data())
    def check(data):
        X = data.draw(_data(), label="X")
        n_samples, n_features = X.shape
        weights = data.draw(_weights(n_samples), label="sample_weight")
        params = data.draw(_params(n_samples, n_features), label="params")
        X_before = X.copy()
        weights_before = None if weights is None else weights.copy()

        model, caught = _fit(params, X, weights)
        _assert_no_floating_point_warning(caught)
        if sp.issparse(X):
            assert (X != X_before).nnz == 0
        else:
            np.testing.assert_array_equal(X, X_before)
        if weights is not None:
            np.testing.assert_array_equal(weights, weights_before)
        if model is None:
            return

        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
        k = params["n_clusters"]
        dim = n_features - 1 if params["subspace_dim"] is None else None
        dim = params["subspace_dim"] if dim is None else dim
        codim = n_features - dim
        assert model.labels_.shape == (n_samples,)
        assert set(np.unique(model.labels_)) <= set(range(k))
        assert model.normal_bases_.shape == (k, n_features, codim)
        assert model.subspace_bases_.shape == (k, n_features, dim)
        assert model.offsets_.shape == (k, n_features)
        for name in ["normal_bases_", "subspace_bases_", "offsets_"]:
            value = getattr(model, name)
            assert value.dtype == dtype, name
            assert np.all(np.isfinite(value)), name
        atol = 1e-4 if dtype == np.float32 else 1e-10
        for A, U in zip(model.normal_bases_, model.subspace_bases_):
            basis = np.concatenate([A, U], axis=1).astype(np.float64)
            np.testing.assert_allclose(basis.T @ basis, np.eye(n_features), atol=atol)
        history = model.objective_history_
        assert history.shape == (model.n_iter_ + 1,)
        assert 0 <= model.n_iter_ <= params["max_iter"]
        assert np.all(np.isfinite(history)) and np.all(history >= 0)
        assert np.isfinite(model.objective_) and np.isfinite(model.inertia_)
        assert model.objective_ == history[-1]

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            labels = model.predict(X)
            distances = model.transform(X)
        _assert_no_floating_point_warning(caught)
        np.testing.assert_array_equal(model.labels_, labels)
        assert distances.shape == (n_samples, k) and distances.dtype == dtype
        assert np.all(np.isfinite(distances))

        dense = X.toarray() if sp.issparse(X) else np.asarray(X)
        w = np.ones(n_samples) if weights is None else weights
        # Rounding of the sums, and of the subnormal numbers below `tiny`.
        eps = 50 * n_features * k * float(np.finfo(dtype).eps)
        tiny = 16 * np.finfo(np.float64).tiny
        objective, objective_atol, inertia, inertia_atol = _reference(
            dense, w, model.normal_bases_, model.offsets_, params["model"], eps
        )
        np.testing.assert_allclose(
            model.objective_, objective, rtol=eps, atol=objective_atol + tiny
        )
        np.testing.assert_allclose(
            model.inertia_, inertia, rtol=eps, atol=inertia_atol + tiny
        )

        again, _ = _fit(params, X, weights)
        np.testing.assert_array_equal(again.labels_, model.labels_)
        np.testing.assert_array_equal(again.normal_bases_, model.normal_bases_)
        np.testing.assert_array_equal(again.objective_history_, history)

    property_settings(check)()
