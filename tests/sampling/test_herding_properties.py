"""Property-based tests of KernelHerdingSampler over generated data.

Shapes down to one row, float32, integer and boolean data, C and F order,
CSR, duplicated rows, constant columns, magnitudes from 1e-300 to 1e150,
sample weights from 0 to 1e300 and every option at its boundaries: the
fitted weights are finite and sum to 1, ``fit_resample`` returns exactly
``n_samples`` rows (or a ValueError / TypeError), ``score`` is finite and
at most 0, no numpy RuntimeWarning escapes, the input is left untouched and
one random_state gives one result. The returned rows are
``X[sample_indices_]`` (imbalanced-learn's convention).
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from skcgm.sampling import KernelHerdingSampler

# feature_map, kernel and maxip combinations that the sampler accepts.
_MAPS = [
    ("exact", "rbf", "exact"),
    ("exact", "linear", "exact"),
    ("rff", "rbf", "exact"),
    ("rff", "rbf", "lsh"),
    ("nystroem", "rbf", "exact"),
    ("nystroem", "linear", "lsh"),
    ("identity", "linear", "exact"),
    ("identity", "linear", "lsh"),
]


@st.composite
def _data(draw):
    n_rows = draw(st.integers(1, 12))
    n_features = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from(["float64", "float32", "int", "bool"]))
    rng = np.random.RandomState(draw(st.integers(0, 2**31 - 1)))
    X = rng.standard_normal((n_rows, n_features))
    if draw(st.booleans()):
        X[rng.randint(n_rows, size=n_rows)] = X[0]  # duplicated rows
    if draw(st.booleans()):
        X[:, 0] = 3.0  # a constant column
    if dtype == "bool":
        X = X > 0
    elif dtype == "int":
        X = np.round(X * 10).astype(np.int64)
    else:
        scale = 10.0 ** draw(st.integers(-300, 150))
        if dtype == "float32":
            scale = float(np.clip(scale, 1e-30, 1e15))
        X = (X * scale).astype(dtype)
    container = draw(st.sampled_from(["C", "F", "csr"]))
    if container == "F":
        X = np.asfortranarray(X)
    elif container == "csr":
        X = sp.csr_matrix(X)
    return X


@st.composite
def _sample_weights(draw, n_rows):
    kind = draw(st.sampled_from(["none", "ones", "spread", "huge"]))
    if kind == "none":
        return None
    if kind == "ones":
        return np.ones(n_rows)
    exponents = st.integers(-300, 300) if kind == "spread" else st.integers(290, 300)
    weights = np.array(
        draw(st.lists(exponents, min_size=n_rows, max_size=n_rows)), dtype=float
    )
    weights = 10.0**weights
    # Some zero weights, at least one positive.
    zeros = np.array(draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows)))
    zeros[0] = False
    weights[zeros] = 0.0
    return weights


@st.composite
def _samplers(draw):
    feature_map, kernel, maxip = draw(st.sampled_from(_MAPS))
    return KernelHerdingSampler(
        n_samples=draw(st.integers(1, 15)),
        kernel=kernel,
        gamma=draw(st.sampled_from(["scale", "auto", 1e-3, 1.0, 1e3])),
        feature_map=feature_map,
        n_components=draw(st.integers(1, 8)),
        maxip=maxip,
        n_tables=draw(st.integers(1, 3)),
        n_bits=draw(st.sampled_from([0, 1, 4, 62])),
        n_probes=draw(st.integers(0, 2)),
        n_candidates=draw(st.sampled_from([None, 1, 0.5, 1.0])),
        learning_rate=draw(st.sampled_from(["herding", "fw", "line_search"])),
        per_class=draw(st.booleans()),
        random_state=0,
    )


def _equal(X, Y):
    if sp.issparse(X):
        return (X != Y).nnz == 0 and X.dtype == Y.dtype
    return (
        X.dtype == Y.dtype
        and X.flags.f_contiguous == Y.flags.f_contiguous
        and (np.array_equal(X, Y))
    )


def test_herding_fits_every_generated_input(property_settings):
    @given(data=st.data())
    def check(data):
        X = data.draw(_data())
        n_rows = X.shape[0]
        sampler = data.draw(_samplers())
        sample_weight = data.draw(_sample_weights(n_rows))
        y = np.arange(n_rows) % 2 if sampler.per_class else None
        X_before = X.copy() if sp.issparse(X) else X.copy(order="K")
        weights_before = None if sample_weight is None else sample_weight.copy()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.simplefilter("error", RuntimeWarning)
            try:
                X_res, y_res = sampler.fit_resample(X, y, sample_weight=sample_weight)
            except (ValueError, TypeError) as error:
                # The documented refusals only: a class without rows of
                # positive weight, fewer budget than classes, or one class.
                assert "per_class" in str(error), error
                return
            score = sampler.score(X)
        # Repeated rows are announced exactly when the rows run out; a weight
        # counts as herding reads it, relative to the largest (1e-24 beside
        # 1e300 is 0).
        candidates = (
            n_rows
            if sample_weight is None
            else np.sum(sample_weight / sample_weight.max() > 0)
        )
        repeats = [w for w in caught if "repeats rows" in str(w.message)]
        assert bool(repeats) == (sampler.n_samples > candidates)
        assert _equal(X, X_before)
        if sample_weight is not None:
            np.testing.assert_array_equal(sample_weight, weights_before)
        assert X_res.shape == (sampler.n_samples, X.shape[1])
        assert _equal(X_res, X[sampler.sample_indices_])
        if y is not None:
            assert y_res.shape == (sampler.n_samples,)
            np.testing.assert_array_equal(y_res, y[sampler.sample_indices_])
        weights = sampler.support_weight_
        assert np.isfinite(weights).all() and np.all(weights > 0)
        assert abs(weights.sum() - 1.0) <= 1e-12
        assert np.isfinite(sampler.objective_history_).all()
        assert np.all(sampler.objective_history_ >= 0)
        assert np.isfinite(score) and score <= 0.0
        if sample_weight is not None:
            assert np.all(sample_weight[sampler.support_] > 0)
        # One random_state, one result.
        again = KernelHerdingSampler(**sampler.get_params())
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            again.fit(X, y, sample_weight=sample_weight)
        np.testing.assert_array_equal(again.sample_indices_, sampler.sample_indices_)
        np.testing.assert_array_equal(again.support_weight_, weights)

    property_settings(check)()


def test_fit_resample_returns_the_rows_of_sample_indices(property_settings):
    # X_res == X[sample_indices_], y_res == y[sample_indices_]: what
    # imbalanced-learn's ensembles index the rows and weights of a resampled
    # set with. Few rows, to draw repeats, and both paths of per_class.
    @given(
        n_rows=st.integers(2, 12),
        n_samples=st.integers(2, 30),
        learning_rate=st.sampled_from(["herding", "fw", "line_search"]),
        refine=st.sampled_from(["auto", None]),
        per_class=st.booleans(),
        seed=st.integers(0, 2**31 - 1),
    )
    def check(n_rows, n_samples, learning_rate, refine, per_class, seed):
        rng = np.random.RandomState(seed)
        X = rng.standard_normal((n_rows, 2))
        y = np.arange(n_rows) % 2
        sampler = KernelHerdingSampler(
            n_samples, learning_rate=learning_rate, refine=refine, per_class=per_class
        )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "n_samples=.*repeats rows", UserWarning)
            X_res, y_res = sampler.fit_resample(X, y)
        rows = sampler.sample_indices_
        assert rows.dtype == np.intp and rows.shape == (n_samples,)
        np.testing.assert_array_equal(X_res, X[rows])
        np.testing.assert_array_equal(y_res, y[rows])
        # The distinct rows and their weights: every returned row is one of
        # them, and with learning_rate='herding' their weights count the
        # returned copies.
        assert np.unique(sampler.support_).size == sampler.support_.size
        assert set(rows) <= set(sampler.support_)
        counts = np.bincount(rows, minlength=n_rows)[sampler.support_]
        if learning_rate == "herding":
            np.testing.assert_allclose(sampler.support_weight_, counts / n_samples)
        else:
            # Largest remainder: within one copy of the weights.
            assert np.all(np.abs(counts - n_samples * sampler.support_weight_) < 1)
        if per_class:
            np.testing.assert_array_equal(
                np.bincount(y_res), list(sampler.sampling_strategy_.values())
            )

    property_settings(check)()
