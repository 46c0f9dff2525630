"""Tests of the binary classification generators."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from skcgm.datasets import (
    make_correlated_classification,
    make_logistic_classification,
    make_sensitivity_synthetic,
    make_sparse_text_classification,
)


def test_correlated_classification_lives_near_a_rotated_low_rank_subspace():
    X, y = make_correlated_classification(
        2000, 64, n_informative=4, condition_number=10, noise=0.01, random_state=0
    )
    assert X.shape == (2000, 64)
    assert 0.4 < y.mean() < 0.6
    singular = np.linalg.svd(X, compute_uv=False)
    # Four latent scales from 1 to 1/10, then the noise floor.
    assert singular[3] / singular[0] == pytest.approx(0.1, rel=0.2)
    assert singular[4] < 0.2 * singular[3]
    # Strongly correlated features: no feature carries its own direction.
    corr = np.corrcoef(X, rowvar=False)
    assert np.median(np.abs(corr[np.triu_indices(64, 1)])) > 0.2
    again, _ = make_correlated_classification(
        2000, 64, n_informative=4, condition_number=10, noise=0.01, random_state=0
    )
    np.testing.assert_array_equal(X, again)


def test_sparse_text_classification_is_normalized_csr():
    X, y = make_sparse_text_classification(500, 300, doc_length=10, random_state=0)
    assert sp.issparse(X) and X.format == "csr"
    assert X.shape == (500, 300)
    assert y.sum() == 250
    np.testing.assert_allclose(sp.linalg.norm(X, axis=1), 1.0)
    # Fewer distinct words than words per document on average.
    assert 1 <= X.nnz / 500 <= 10
    assert X.min() >= 0


def test_synthetic_data_follow_the_papers_recipe():
    X, y, coef = make_sensitivity_synthetic(400, 20, random_state=0)
    # The recipe of section 6, drawn independently in the same order: A with
    # N(0, 1) entries, x0 ~ N(0, I), labels sign(A x0 + 0.1 N(0, 1)).
    rng = np.random.RandomState(0)
    A = rng.standard_normal((400, 20))
    x0 = rng.standard_normal(20)
    labels = np.sign(A @ x0 + 0.1 * rng.standard_normal(400))
    np.testing.assert_array_equal(X, A)
    np.testing.assert_array_equal(coef, x0)
    np.testing.assert_array_equal(y, labels)
    # The paper's size by default.
    X, y, coef = make_sensitivity_synthetic(random_state=1)
    assert X.shape == (3000, 300) and coef.shape == (300,)
    assert set(np.unique(y)) == {-1.0, 1.0}


def test_logistic_classification_labels_follow_the_logistic_model():
    X, y, coef = make_logistic_classification(
        20000, 5, signal=2.0, intercept=0.5, random_state=0
    )
    assert X.shape == (20000, 5) and set(np.unique(y)) == {0, 1}
    assert np.linalg.norm(coef) == pytest.approx(2.0)
    assert np.std(X @ coef) == pytest.approx(2.0, rel=0.05)
    # The maximum-likelihood fit recovers the planted model.
    model = LogisticRegression(C=1e6).fit(X, y)
    np.testing.assert_allclose(model.coef_.ravel(), coef, atol=0.1)
    assert model.intercept_[0] == pytest.approx(0.5, abs=0.1)


def test_logistic_classification_row_scales_are_log_normal():
    # sigma = 0 keeps the Gaussian rows and the random stream of the default.
    X0, y0, coef0 = make_logistic_classification(5000, 4, random_state=3)
    X, y, coef = make_logistic_classification(
        5000, 4, row_scale_std=0.0, random_state=3
    )
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    # sigma = 1: the same Gaussian directions scaled by e^{g_i}, g_i ~ N(0, 1).
    X1, _, coef1 = make_logistic_classification(
        20000, 4, row_scale_std=1.0, random_state=3
    )
    Z, _, _ = make_logistic_classification(20000, 4, random_state=3)
    np.testing.assert_array_equal(coef1, coef0)
    log_scales = np.log(X1[:, 0] / Z[:, 0])
    np.testing.assert_allclose(
        np.log(np.abs(X1 / Z)), np.repeat(log_scales[:, None], 4, axis=1)
    )
    assert np.mean(log_scales) == pytest.approx(0.0, abs=0.03)
    assert np.std(log_scales) == pytest.approx(1.0, rel=0.03)
    # The margins' standard deviation is signal * e^{sigma^2}.
    assert np.std(X1 @ coef1) == pytest.approx(2.0 * np.e, rel=0.1)
