"""Tests of the digits prototype features."""

import numpy as np
import pytest

from skcgm.datasets import digits_prototype_features


def test_digits_prototype_features_are_gaussian_kernel_values():
    X_train, X_test, y_train, y_test = digits_prototype_features(
        n_prototypes=16, random_state=0
    )
    assert X_train.shape == (240, 16) and X_test.shape == (121, 16)
    assert set(y_train) == set(y_test) == {4, 9}
    assert np.all((X_train > 0) & (X_train <= 1))
    # Every prototype is a training digit: its own feature is exp(0) = 1, and
    # half of them are fours.
    rows = np.argmax(X_train, axis=0)
    np.testing.assert_allclose(X_train[rows, np.arange(16)], 1.0)
    assert np.sum(y_train[rows] == 4) == 8
    # Median heuristic: half the training-prototype distances (to distinct
    # points) are below sigma, i.e. their feature above exp(-1/2).
    values = X_train[X_train < 1]
    assert np.mean(values > np.exp(-0.5)) == pytest.approx(0.5, abs=0.01)
