"""CompAdaGrad's subspace dimension chosen from the data (n_components='auto')."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from skcgm.linear_model import CompAdaGradClassifier
from skcgm.optim.compadagrad import _auto as _compadagrad_auto
from skcgm.optim.compadagrad._auto import auto_n_components, correlation_spectrum


def _spectrum_data(n_samples, n_features, decades, seed=0, noise=0.0):
    """Rows whose covariance has log-spaced eigenvalues over ``decades``."""
    rng = np.random.RandomState(seed)
    scales = np.logspace(0.0, -decades / 2.0, n_features)
    rotation = np.linalg.qr(rng.standard_normal((n_features, n_features)))[0]
    X = rng.standard_normal((n_samples, n_features)) * scales @ rotation
    return X + noise * rng.standard_normal(X.shape)


def test_correlation_spectrum_is_that_of_the_unit_rows(property_settings):
    # Brute force: the correlation matrix of the sampled rows scaled to unit
    # norm, over the columns that are not all zero.
    @given(
        n_samples=st.integers(1, 60),
        n_features=st.integers(1, 8),
        zero_column=st.booleans(),
        seed=st.integers(0, 2**16),
    )
    def check(n_samples, n_features, zero_column, seed):
        rng = np.random.RandomState(seed)
        X = rng.standard_normal((n_samples, n_features)) * rng.uniform(
            0.01, 100.0, n_features
        )
        if zero_column:
            X[:, 0] = 0.0
        spectrum = correlation_spectrum(X)
        rows = X[np.linalg.norm(X, axis=1) > 0]
        U = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        kept = np.abs(U).sum(axis=0) > 0
        M = U[:, kept].T @ U[:, kept]
        C = M / np.sqrt(np.outer(np.diag(M), np.diag(M)))
        expected = np.sort(np.linalg.eigvalsh(C))[::-1] if kept.any() else []
        assert_allclose(spectrum, np.clip(expected, 0, None), atol=1e-10)
        assert spectrum.sum() == pytest.approx(kept.sum())

    property_settings(check)()


def test_correlation_spectrum_reads_at_most_four_rows_per_feature():
    # 1000 rows at least, 4 d beyond: a bounded sample of a large X.
    X = _spectrum_data(20_000, 300, 3.0)
    sampled = X[:: 20_000 // 1200][:1200]
    assert_allclose(correlation_spectrum(X), correlation_spectrum(sampled))


@pytest.mark.parametrize(
    "decades, noise, expected",
    [
        # Uncorrelated features: no subspace.
        (0.0, 0.0, 0),
        # Correlated over one decade: diagonal AdaGrad's scaling suffices.
        (1.0, 0.0, 0),
        # Two to four decades of variance: the full matrix.
        (3.0, 0.0, 64),
        (3.8, 0.0, 64),
        # A tail of nearly empty directions: diagonal AdaGrad.
        (8.0, 0.0, 0),
    ],
)
def test_auto_takes_the_full_matrix_on_a_spread_spectrum(decades, noise, expected):
    X = _spectrum_data(2000, 64, decades, noise=noise)
    assert auto_n_components(X) == expected


def test_auto_takes_diagonal_adagrad_on_sparse_rows_and_many_dimensions(
    monkeypatch,
):
    X = _spectrum_data(2000, 64, 3.0)
    assert auto_n_components(X) == 64
    assert auto_n_components(sp.csr_matrix(X)) == 0
    # Beyond the largest padded dimension of a full step.
    monkeypatch.setattr(_compadagrad_auto, "MAX_FULL_PADDED", 32)
    assert auto_n_components(X) == 0


def test_auto_on_degenerate_columns():
    X = _spectrum_data(500, 16, 3.0)
    # A constant zero column is left out of the correlations.
    padded = np.hstack([X, np.zeros((500, 1))])
    assert auto_n_components(padded) == 17
    assert auto_n_components(np.zeros((50, 4))) == 0
    assert auto_n_components(X[:, :1]) == 0


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("decades, expected_k", [(3.0, 32), (0.0, 0)])
def test_the_estimator_fits_what_auto_chose(decades, expected_k):
    X = _spectrum_data(600, 20, decades, seed=1)
    y = (X @ np.random.RandomState(2).standard_normal(20) > 0).astype(int)
    params = dict(max_iter=3, tol=None, random_state=0)
    auto = CompAdaGradClassifier(**params).fit(X, y)
    # The full matrix lives in the padded space (32 for 20 features).
    assert auto.n_components_ == expected_k
    explicit = CompAdaGradClassifier(
        n_components=20 if expected_k else 0, **params
    ).fit(X, y)
    assert_allclose(auto.coef_, explicit.coef_, rtol=0, atol=0)
    # partial_fit decides on its first call and keeps the choice.
    online = CompAdaGradClassifier(**params)
    online.partial_fit(X[:300], y[:300], classes=[0, 1])
    online.partial_fit(np.random.RandomState(3).standard_normal((300, 20)), y[300:])
    assert online.n_components_ == expected_k
