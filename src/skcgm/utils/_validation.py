"""Small data-dependent checks shared by the estimators and solvers."""

import numpy as np
import scipy.sparse as sp

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


def check_square_range(X, *, input_name="X", dtype=None):
    """Refuse data whose squared row norms would overflow its dtype.

    Every estimator of skcgm forms squares of its inputs (distances, Gram
    matrices, squared gradients). Data beyond
    :math:`\\sqrt{\\mathrm{max} / (16 d)}` in absolute value, with
    :math:`\\mathrm{max}` the largest finite number of the dtype and
    :math:`d` the number of columns, would turn them into ``inf``; the
    caller gets a ValueError before any work instead of non-finite results.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features) or \
            (n_samples,)
        Validated (finite) data; a float dtype is checked against its own
        range, any other dtype against float64's.
    input_name : str, default="X"
        The name of the input in the error message.
    dtype : dtype, default=None
        The dtype whose range bounds the squares, for data that will be cast
        to it (targets of float32 inputs); None means the dtype of ``X`` as
        described above.

    Raises
    ------
    ValueError
        If the largest absolute value of ``X`` exceeds the bound.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.utils._validation import check_square_range
    >>> check_square_range(np.ones((2, 3)))
    >>> check_square_range(np.full((2, 3), 1e160))
    Traceback (most recent call last):
    ...
    ValueError: X holds values up to 1e+160 in absolute value: their squares...
    """
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.size == 0:
        return
    if dtype is None:
        floating = np.issubdtype(values.dtype, np.floating)
        dtype = values.dtype if floating else np.float64
    largest = float(np.finfo(dtype).max)
    n_columns = X.shape[1] if len(X.shape) > 1 else 1
    bound = np.sqrt(largest / (16.0 * max(n_columns, 1)))
    max_abs = float(np.max(np.abs(values)))
    if max_abs > bound:
        raise ValueError(
            f"{input_name} holds values up to {max_abs:.3g} in absolute value: "
            f"their squares overflow {np.dtype(dtype).name} (values up to "
            f"{bound:.3g} are accepted for {n_columns} column(s)). Scale the "
            "data first, for example with sklearn.preprocessing.StandardScaler "
            "or MaxAbsScaler."
        )
