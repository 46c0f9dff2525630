"""Small data-dependent checks shared by the estimators and solvers."""

import numpy as np

from ._sklearn_compat import _check_sample_weight


def check_sample_weight(sample_weight, X, dtype=None):
    """Validate ``sample_weight``: non-negative, finite, not all zero.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,), float or None
        Weights of the samples; None means unit weights.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data the weights belong to.
    dtype : dtype, default=None
        dtype of the returned weights.

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,)
        The validated weights (ones when ``sample_weight`` is None).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.utils._validation import check_sample_weight
    >>> check_sample_weight(None, np.zeros((3, 2)))
    array([1., 1., 1.])
    """
    sample_weight = _check_sample_weight(
        sample_weight, X, dtype=dtype, ensure_non_negative=True
    )
    # scikit-learn < 1.7 accepts all-zero weights; the weighted objective is
    # then 0/0, so refuse them here with scikit-learn's newer message.
    if not np.any(sample_weight > 0):
        raise ValueError("Sample weights must contain at least one non-zero number.")
    return sample_weight
