"""SGDClassifier's early stopping split: a stratified held-out fraction.

The stochastic solvers of the linear classifiers stop, on request, on the
score of rows set aside before the fit rather than on the training objective,
as :class:`~sklearn.linear_model.SGDClassifier` does, with its errors.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit

__all__ = ["early_stopping_mask", "split_off_validation"]


def early_stopping_mask(
    y, sample_weight, early_stopping, validation_fraction, random_state
):
    """Boolean mask of the validation rows (all False without early stopping).

    SGDClassifier's split: stratified, ``validation_fraction`` of the rows,
    drawn from ``random_state``, with its errors. ``sample_weight`` is the
    caller's, not yet checked.
    """
    validation_mask = np.zeros(y.shape[0], dtype=bool)
    if not early_stopping:
        return validation_mask
    cv = StratifiedShuffleSplit(
        test_size=validation_fraction, random_state=random_state
    )
    try:
        idx_train, idx_val = next(cv.split(np.zeros((y.shape[0], 1)), y))
    except ValueError as error:
        message = str(error)
        if "test_size" not in message and "train_size" not in message:
            raise
        # The splitter's words name its own test_size and train_size: say
        # which of the user's parameters set them.
        n_classes = np.unique(y).shape[0]
        n_validation = int(np.ceil(validation_fraction * y.shape[0]))
        raise ValueError(
            f"early_stopping=True with validation_fraction="
            f"{validation_fraction!r} holds out {n_validation} of the "
            f"{y.shape[0]} samples and trains on the other "
            f"{y.shape[0] - n_validation}: both sets need a sample of each "
            f"of the {n_classes} classes. Change validation_fraction, pass "
            "more samples, or disable early_stopping."
        ) from error
    # Unchecked weights: other shapes are refused by check_sample_weight.
    weights = None if sample_weight is None else np.asarray(sample_weight)
    if (
        weights is not None
        and weights.shape == y.shape
        and not np.any(weights[idx_val] > 0)
    ):
        raise ValueError(
            "The sample weights for validation set are all zero, consider "
            "using a different random state."
        )
    if idx_train.shape[0] == 0 or idx_val.shape[0] == 0:
        raise ValueError(
            f"Splitting {y.shape[0]} samples into a train set and a "
            "validation set with validation_fraction="
            f"{validation_fraction!r} led to an empty set "
            f"({idx_train.shape[0]} and {idx_val.shape[0]} samples). Please "
            "either change validation_fraction, increase number of samples, "
            "or disable early_stopping."
        )
    validation_mask[idx_val] = True
    return validation_mask


def split_off_validation(X, y, sample_weight, validation_mask):
    """``(X, y, sample_weight)`` of the training rows and the held-out triple.

    The held-out triple is None when ``validation_mask`` selects no row (no
    early stopping). Raises when the training rows have no positive weight.
    """
    if not validation_mask.any():
        return X, y, sample_weight, None
    train = np.flatnonzero(~validation_mask)
    validation = (
        X[validation_mask],
        y[validation_mask],
        sample_weight[validation_mask],
    )
    X, y, sample_weight = X[train], y[train], sample_weight[train]
    if not np.any(sample_weight > 0):
        raise ValueError("Sample weights must contain at least one non-zero number.")
    return X, y, sample_weight, validation
