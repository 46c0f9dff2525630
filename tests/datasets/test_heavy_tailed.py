"""Tests of make_heavy_tailed_classification."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skcgm.datasets import make_heavy_tailed_classification
from skcgm.utils._sklearn_compat import InvalidParameterError


def test_heavy_tailed_classification_shapes_and_labels():
    X, y = make_heavy_tailed_classification(500, 7, random_state=0)
    assert X.shape == (500, 7) and X.dtype == np.float64
    assert y.shape == (500,) and set(np.unique(y)) == {0, 1}
    X, y, coef = make_heavy_tailed_classification(
        500, 7, signal=3.0, coef=True, random_state=0
    )
    assert coef.shape == (7,)
    assert np.linalg.norm(coef) == pytest.approx(3.0)


def test_heavy_tailed_classification_is_deterministic():
    first = make_heavy_tailed_classification(300, 4, coef=True, random_state=42)
    again = make_heavy_tailed_classification(300, 4, coef=True, random_state=42)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    other = make_heavy_tailed_classification(300, 4, random_state=43)
    assert not np.array_equal(first[0], other[0])
    # coef=True only appends the coefficients: same draws.
    np.testing.assert_array_equal(
        make_heavy_tailed_classification(300, 4, random_state=42)[0], first[0]
    )


def test_heavy_tailed_rows_have_a_power_law_tail():
    n = 20000
    heavy, _ = make_heavy_tailed_classification(
        n, 5, df=2.0, n_outliers=0, random_state=0
    )
    gaussian, _ = make_heavy_tailed_classification(
        n, 5, df=np.inf, n_outliers=0, random_state=0
    )
    heavy_norms = np.linalg.norm(heavy, axis=1)
    gaussian_norms = np.linalg.norm(gaussian, axis=1)
    # Gaussian row norms are chi with 5 degrees of freedom: the largest of
    # 20,000 is about 3 times the median. A t with 2 degrees of freedom has a
    # tail P(|x| > s) ~ s^-2: the largest is tens of times the median.
    assert gaussian_norms.max() < 4 * np.median(gaussian_norms)
    assert heavy_norms.max() > 30 * np.median(heavy_norms)
    # Tail index: P(norm > 10 median) is a few per cent, not ~0.
    assert 0.005 < np.mean(heavy_norms > 10 * np.median(heavy_norms)) < 0.05


def test_planted_rows_are_the_high_leverage_points():
    X, y = make_heavy_tailed_classification(
        2000, 5, df=np.inf, n_outliers=6, outlier_scale=50.0, random_state=0
    )
    norms = np.linalg.norm(X, axis=1)
    top = np.argsort(norms)[-6:]
    assert norms[top].min() > 10 * np.median(norms)
    # Leverage scores of the planted rows: close to 1 each, while the others
    # share the rest of the trace (d = 5).
    Q, _ = np.linalg.qr(X)
    leverage = np.einsum("ij,ij->i", Q, Q)
    assert leverage[top].sum() > 0.5 * leverage.sum()


def test_labels_follow_the_logistic_model_on_the_unscaled_rows():
    X, y, coef = make_heavy_tailed_classification(
        20000, 4, df=np.inf, n_outliers=0, intercept=0.5, coef=True, random_state=0
    )
    model = LogisticRegression(C=1e6).fit(X, y)
    np.testing.assert_allclose(model.coef_.ravel(), coef, atol=0.1)
    assert model.intercept_[0] == pytest.approx(0.5, abs=0.1)
    # Scaling the planted rows does not touch the labels.
    _, y_planted = make_heavy_tailed_classification(
        20000, 4, df=np.inf, n_outliers=100, random_state=0
    )
    np.testing.assert_array_equal(y_planted, y)


@pytest.mark.parametrize(
    "params",
    [
        {"n_samples": 0},
        {"n_features": 0},
        {"df": 0.0},
        {"df": -1.0},
        {"n_outliers": -1},
        {"outlier_scale": 0.0},
        {"signal": -1.0},
        {"coef": "yes"},
        {"n_samples": True},
    ],
)
def test_invalid_parameters_are_refused(params):
    with pytest.raises(InvalidParameterError):
        make_heavy_tailed_classification(**params)


def test_more_outliers_than_samples_is_refused():
    with pytest.raises(ValueError, match="n_outliers=11 exceeds n_samples=10"):
        make_heavy_tailed_classification(10, 2, n_outliers=11)
