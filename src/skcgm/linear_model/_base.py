"""What the linear classifiers of the package share."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets

from ..utils._sklearn_compat import (
    LinearClassifierMixin,
    SparseCoefMixin,
    validate_data,
)
from ..utils._validation import check_square_range


def _check_warm_start(previous, n_features, classes):
    """Refuse to continue a fit on other features or classes.

    ``previous`` is the ``(n_features, classes)`` of the fit to continue.
    """
    n_previous, previous_classes = previous
    if (
        n_previous != n_features
        or previous_classes.shape != classes.shape
        or np.any(previous_classes != classes)
    ):
        raise ValueError(
            "warm_start=True continues the previous fit, which had "
            f"{n_previous} features and classes {previous_classes!r}; got "
            f"{n_features} features and classes {classes!r}."
        )


class _BaseLinearClassifier(LinearClassifierMixin, SparseCoefMixin, BaseEstimator):
    """Base class of the linear classifiers: their input and log-probabilities.

    They take dense or CSR rows in float32 or float64 (kept), and a subclass
    with probability estimates defines ``predict_proba``.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _validate_X_y(self, X, y, reset, return_magnitude=False):
        """Validated ``(X, y)``, and the largest ``|X|`` if ``return_magnitude``."""
        # Finiteness is checked by check_square_range, in the pass over X it
        # makes anyway (scikit-learn's error, one pass over X saved).
        X, y = validate_data(
            self,
            X,
            y,
            reset=reset,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            order="C",
            ensure_all_finite=False,
        )
        check_classification_targets(y)
        magnitude = check_square_range(X, estimator_name=type(self).__name__)
        return (X, y, magnitude) if return_magnitude else (X, y)

    def predict_log_proba(self, X):
        """Log of the probability estimates (see :meth:`predict_proba`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probability of every class, in the order of :attr:`classes_`.
        """
        return np.log(self.predict_proba(X))
