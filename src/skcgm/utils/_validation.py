"""Small data-dependent checks shared by the estimators, oracles and solvers.

Hyper-parameters are validated by scikit-learn's ``_parameter_constraints``
and ``validate_params``; what is here checks data (points, weights, ranges)
and the values computed from the parameters (an oracle's radius).
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import assert_all_finite, check_array

from ._magnitude import contiguous_largest_magnitude
from ._math import MAX_RADIUS
from ._sklearn_compat import _check_feature_names, _check_sample_weight

__all__ = [
    "check_atoms",
    "check_dask_data",
    "check_matrix",
    "check_sample_weight",
    "check_square_range",
    "check_vector",
    "dask_class_counts",
    "is_dask_frame",
    "is_finite_real",
    "largest_magnitude",
    "resolve_radius",
]

# The dtypes whose magnitudes order as the integers of their bits.
_BIT_ORDERED = (np.dtype(np.float32), np.dtype(np.float64))


def is_finite_real(value):
    """Whether ``value`` is a finite real number (a bool is not)."""
    return (
        not isinstance(value, bool) and isinstance(value, Real) and np.isfinite(value)
    )


def resolve_radius(owner, lmo, radius=None):
    """The radius R of Assumption A1: ``radius`` if given, else ``lmo.radius``.

    ``radius``, when given, has passed its constraint (a positive real);
    ``lmo.radius``, a value the oracle computes, is checked here. A
    ValueError when R is missing, not positive, or so large that its square
    overflows float64 (issue 16's range policy: 27 R^2 and the squared
    distances between points of the ball of radius R must stay finite).
    """
    if radius is not None:
        name, value = "radius", float(radius)
    else:
        try:
            value = lmo.radius
        except (AttributeError, ValueError) as exc:
            raise ValueError(
                f"{owner} needs the radius R = max ||x|| of the set, which "
                f"lmo.radius does not give for {lmo!r} ({exc}); pass radius=..."
            ) from None
        if value is None:
            raise ValueError(
                f"{owner} needs the radius R = max ||x|| of the set: lmo.radius "
                f"is None for {lmo!r}; pass radius=..."
            )
        name = "radius (from lmo.radius)"
        if not is_finite_real(value) or value <= 0:
            raise ValueError(
                f"The '{name}' parameter of {owner} must be a positive real "
                f"number; got {value!r}."
            )
        value = float(value)
    if value > MAX_RADIUS:
        raise ValueError(
            f"The '{name}' parameter of {owner} is {value:.3g}: its square "
            f"overflows float64 (radii up to {MAX_RADIUS:.3g} are accepted). "
            "Scale the set, the points and the gradients down by a common factor."
        )
    return value


def check_vector(
    x,
    name,
    n_features=None,
    *,
    owner=None,
    allow_empty=False,
    keep_float32=False,
    finite=True,
    copy=False,
):
    """A 1-D float64 array of real numbers, or a ValueError naming ``name``.

    Parameters
    ----------
    x : array-like of shape (n_features,)
        The vector (a point, a direction, a linear term).
    name : str
        Its name in the error messages.
    n_features : int or None, default=None
        The number of entries it must have; None accepts any.
    owner : str or None, default=None
        The object whose ``n_features`` fixes the length, named in the message.
    allow_empty : bool, default=False
        Whether a vector of no entry is accepted.
    keep_float32 : bool, default=False
        Whether a float32 vector stays float32 (the closed-form oracles).
    finite : bool, default=True
        Whether NaN and infinite entries are refused.
    copy : bool, default=False
        Whether the result is always a new array; otherwise ``x`` itself may
        be returned, and callers copy before writing.

    Returns
    -------
    vector : ndarray of shape (n_features,)
        The validated vector.

    Examples
    --------
    >>> from skcgm.utils._validation import check_vector
    >>> check_vector([1, 2], "x", 2)
    array([1., 2.])
    >>> check_vector([1.0, 2.0], "x", 3)
    Traceback (most recent call last):
    ...
    ValueError: x must have 3 entries; got 2.
    """
    try:
        array = np.asarray(x)
    except (TypeError, ValueError):  # a ragged sequence
        array = None
    if array is None or array.dtype.kind not in "biuf":
        got = f"{x!r}" if array is None else f"dtype {array.dtype}"
        raise ValueError(f"{name} must be a 1-D array of real numbers; got {got}.")
    if array.ndim != 1 or (array.shape[0] == 0 and not allow_empty):
        kind = "1-D array" if allow_empty else "non-empty 1-D array"
        raise ValueError(f"{name} must be a {kind}; got shape {array.shape}.")
    if not (keep_float32 and array.dtype == np.float32):
        array = array.astype(np.float64, copy=copy)
    elif copy:
        array = array.copy()
    if n_features is not None and array.shape[0] != n_features:
        where = "" if owner is None else f", the n_features of {owner}"
        raise ValueError(
            f"{name} must have {n_features} entries{where}; got {array.shape[0]}."
        )
    if finite and not np.isfinite(array).all():
        raise ValueError(
            f"{name} must contain only finite values (no NaN or infinity)."
        )
    return array


def check_matrix(x, name, *, square=False, accepted=None):
    """A new non-empty 2-D float64 array of finite reals, or a ValueError.

    The ValueError names ``name`` and what is accepted. The matrix
    counterpart of :func:`check_vector`, for matrices given as parameters or
    arguments (constraint matrices, quadratic forms, gossip and adjacency
    matrices), with the same rules: integer and bool entries become float64,
    other dtypes are refused.

    Parameters
    ----------
    x : array-like of shape (n_rows, n_columns)
        The matrix.
    name : str
        Its name in the error messages (``"H"``, or ``"The 'A' parameter of
        PolytopeLMO"``).
    square : bool, default=False
        Whether the matrix must be square.
    accepted : str or None, default=None
        What is accepted, named in the message for a value that is not an
        array of real numbers; None means "a 2-D array of real numbers" (or
        "a square matrix of real numbers").

    Returns
    -------
    matrix : ndarray of shape (n_rows, n_columns)
        The validated matrix, a new array.

    Examples
    --------
    >>> from skcgm.utils._validation import check_matrix
    >>> check_matrix([[1, 0], [0, 1]], "H", square=True)
    array([[1., 0.],
           [0., 1.]])
    >>> check_matrix([[1.0, 0.0]], "H", square=True)
    Traceback (most recent call last):
    ...
    ValueError: H must be a non-empty square matrix; got shape (1, 2).
    """
    kind = "square matrix" if square else "2-D array"
    try:
        array = np.asarray(x)
    except (TypeError, ValueError):  # a ragged sequence
        array = None
    if array is None or array.dtype.kind not in "biuf":
        got = f"{x!r}" if array is None else f"dtype {array.dtype}"
        accepted = f"a {kind} of real numbers" if accepted is None else accepted
        raise ValueError(f"{name} must be {accepted}; got {got}.")
    if (
        array.ndim != 2
        or 0 in array.shape
        or (square and array.shape[0] != array.shape[1])
    ):
        raise ValueError(f"{name} must be a non-empty {kind}; got shape {array.shape}.")
    matrix = array.astype(np.float64, copy=True)
    if not np.isfinite(matrix).all():
        raise ValueError(
            f"{name} must contain only finite values (no NaN or infinity)."
        )
    return matrix


def check_atoms(atoms, *, input_name="atoms"):
    """Validate points to search or span: a dense 2-D float array in range.

    :func:`sklearn.utils.check_array` (finite, at least one row, float32
    kept, other dtypes as float64, no sparse matrix), then
    :func:`check_square_range`: the oracles over atoms (a convex hull, a
    maximum-inner-product index) form their squared norms and inner
    products.

    Parameters
    ----------
    atoms : array-like of shape (n_atoms, n_features)
        The atoms.
    input_name : str, default="atoms"
        The name of the input in the error messages.

    Returns
    -------
    atoms : ndarray of shape (n_atoms, n_features)
        The validated atoms, float32 or float64.

    Examples
    --------
    >>> from skcgm.utils._validation import check_atoms
    >>> check_atoms([[0, 1], [1, 0]])
    array([[0., 1.],
           [1., 0.]])
    """
    atoms = check_array(
        atoms,
        dtype=[np.float64, np.float32],
        accept_sparse=False,
        input_name=input_name,
    )
    check_square_range(atoms, input_name=input_name)
    return atoms


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


def largest_magnitude(values):
    """The largest absolute value of an array, 0.0 if it is empty.

    Contiguous float32 and float64 arrays are read once, in compiled code
    (:mod:`skcgm.utils._magnitude`); other arrays by two NumPy reductions,
    with no temporary the size of the data (estimators that read X in place
    keep their memory at that of X).

    Parameters
    ----------
    values : ndarray
        The values.

    Returns
    -------
    magnitude : float
        :math:`\\max_i |v_i|`; ``inf`` or ``nan`` if a value is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.utils._validation import largest_magnitude
    >>> largest_magnitude(np.array([[1.0, -3.0], [2.0, 0.5]]))
    3.0
    """
    if (
        values.size
        and values.dtype in _BIT_ORDERED
        and (values.flags.c_contiguous or values.flags.f_contiguous)
    ):
        return contiguous_largest_magnitude(values)
    return float(max(np.max(values, initial=0.0), -np.min(values, initial=0.0)))


def check_square_range(X, *, input_name="X", dtype=None, estimator_name=None):
    """Refuse data whose squared row norms would overflow its dtype.

    Every estimator of skcgm forms squares of its inputs (distances, Gram
    matrices, squared gradients). Data beyond
    :math:`\\sqrt{\\mathrm{max} / (16 d)}` in absolute value, with
    :math:`\\mathrm{max}` the largest finite number of the dtype and
    :math:`d` the number of columns, would turn them into ``inf``; the
    caller gets a ValueError before any work instead of non-finite results.
    Non-finite values get scikit-learn's own error
    (:func:`sklearn.utils.assert_all_finite`), so a caller can leave out
    ``validate_data``'s separate pass for them (``ensure_all_finite=False``).

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
    estimator_name : str, default=None
        The estimator named in the error on non-finite values, as
        ``validate_data`` names it.

    Returns
    -------
    magnitude : float
        The largest absolute value of ``X`` (:func:`largest_magnitude`; 0.0
        when ``X`` is empty), for callers that need it too.

    Raises
    ------
    ValueError
        If the largest absolute value of ``X`` exceeds the bound.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.utils._validation import check_square_range
    >>> check_square_range(np.ones((2, 3)))
    1.0
    >>> check_square_range(np.full((2, 3), 1e160))
    Traceback (most recent call last):
    ...
    ValueError: X holds values up to 1e+160 in absolute value: their squares...
    """
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.size == 0:
        return 0.0
    if dtype is None:
        floating = np.issubdtype(values.dtype, np.floating)
        dtype = values.dtype if floating else np.float64
    largest = float(np.finfo(dtype).max)
    n_columns = X.shape[1] if len(X.shape) > 1 else 1
    bound = np.sqrt(largest / (16.0 * max(n_columns, 1)))
    max_abs = largest_magnitude(values)
    if not np.isfinite(max_abs):
        assert_all_finite(values, input_name=input_name, estimator_name=estimator_name)
    if max_abs > bound:
        raise ValueError(
            f"{input_name} holds values up to {max_abs:.3g} in absolute value: "
            f"their squares overflow {np.dtype(dtype).name} (values up to "
            f"{bound:.3g} are accepted for {n_columns} column(s)). Scale the "
            "data first, for example with sklearn.preprocessing.StandardScaler "
            "or MaxAbsScaler."
        )
    return max_abs


def is_dask_frame(X):
    """Whether ``X`` is a dask DataFrame, without importing dask."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "columns")


def check_dask_data(estimator, X, *y, reset=False, y_numeric=True, accept_sparse=False):
    """Check a dask array ``X`` (and its targets) without reading its chunks.

    A dask DataFrame ``X`` (and a dask Series ``y``) is read as the dask
    array of its values, whose chunk lengths take one pass over the
    partitions to count; its column names are checked and stored as
    scikit-learn does for pandas input (``feature_names_in_``).

    ``X`` must be 2-D of a float dtype, with NumPy chunks unless
    ``accept_sparse`` (then scipy.sparse chunks too), as its ``_meta`` (the
    type of its chunks) tells; anything else is a TypeError naming the chunk
    type and the conversion, raised before any task runs. It is rechunked to
    one chunk across its columns, so that a chunk holds whole rows. ``y`` (a
    dask or NumPy array) is chunked as the rows of ``X``, in its dtype (class
    labels keep theirs with ``y_numeric=False``). With ``reset`` the
    estimator's ``n_features_in_`` is set, otherwise checked, in
    scikit-learn's words. Non-finite values are refused by the first pass
    over them, not here.

    Parameters
    ----------
    estimator : estimator instance
    X : dask array
    *y : dask array or ndarray
        At most one: the targets.
    reset : bool, default=False
    y_numeric : bool, default=True
        Cast ``y`` to the dtype of ``X``.
    accept_sparse : bool, default=False
        Whether chunks that are scipy.sparse matrices are accepted (by the
        methods that call the in-memory method on every chunk).

    Returns
    -------
    X or (X, y)
        The row-chunked arrays.
    """
    from sklearn.utils.validation import check_is_fitted

    if not reset:
        check_is_fitted(estimator)
    # A dask DataFrame's _meta is the empty pandas frame of its columns, which
    # scikit-learn reads the names of (it does not read lazy frames').
    _check_feature_names(estimator, X._meta if is_dask_frame(X) else X, reset=reset)
    if is_dask_frame(X):
        X = X.to_dask_array(lengths=True)
    _check_chunk_type(estimator, X, accept_sparse)
    if X.ndim != 2 or not np.issubdtype(X.dtype, np.floating):
        raise ValueError(
            "A dask array X must be 2-D with a float dtype, got "
            f"{X.ndim} dimension(s) and dtype {X.dtype}."
        )
    if reset:
        estimator.n_features_in_ = X.shape[1]
    elif X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is "
            f"expecting {estimator.n_features_in_} features as input."
        )
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    if not y:
        return X
    import dask.array as da

    (y,) = y
    if type(y).__module__.split(".")[0] == "dask" and hasattr(y, "to_dask_array"):
        y = y.to_dask_array(lengths=True)
    y = da.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(
            f"y of shape {y.shape} does not match X of {X.shape[0]} samples."
        )
    y = y.rechunk((X.chunks[0],))
    return X, y.astype(X.dtype) if y_numeric else y


def _check_chunk_type(estimator, X, accept_sparse):
    """A TypeError unless the chunks of ``X`` are NumPy arrays (or accepted
    scipy.sparse matrices).

    The passes of the dask solvers do dense arithmetic on every chunk; given
    sparse chunks they failed inside a worker, in NumPy's words. dask records
    the chunks' type in ``X._meta``, so the check reads no chunk.
    """
    chunk = getattr(X, "_meta", None)
    if chunk is None or type(chunk) is np.ndarray:
        return
    if accept_sparse and sp.issparse(chunk):
        return
    kind = type(chunk)
    package = "scipy.sparse" if sp.issparse(chunk) else kind.__module__.split(".")[0]
    name = f"{package}.{kind.__name__}"
    convert = "chunk.toarray()" if sp.issparse(chunk) else "np.asarray(chunk)"
    kinds = (
        "NumPy array or scipy.sparse chunks" if accept_sparse else "NumPy array chunks"
    )
    raise TypeError(
        f"{type(estimator).__name__} got a dask array X with {name} chunks; it "
        f"takes {kinds} here (sparse chunks are not supported). Convert the "
        f"chunks with X.map_blocks(lambda chunk: {convert}, dtype=X.dtype), "
        "which keeps them on the workers, or pass the data in memory."
    )


# Labels take few values: count each value a strided subsample shows, a
# comparison per row and class, and sort (np.unique) only when a value was
# missed or there are many. On 250,000 labels of 2 classes: 0.2 ms against
# 2.7 ms for np.unique (8 ms inside a dask worker).
_LABEL_STRIDE = 4096
_MAX_COUNTED_CLASSES = 16


def _block_class_counts(labels):
    labels = np.asarray(labels)
    values = np.unique(labels[::_LABEL_STRIDE])
    if values.shape[0] <= _MAX_COUNTED_CLASSES:
        counts = np.array([np.count_nonzero(labels == value) for value in values])
        if counts.sum() == labels.shape[0]:
            return values, counts.astype(np.int64)
    values, counts = np.unique(labels, return_counts=True)
    return values, counts.astype(np.int64)


def dask_class_counts(y):
    """The sorted distinct values of dask targets and their counts, one pass.

    Each chunk counts its own labels; only the distinct values and their
    counts reach the client.

    Parameters
    ----------
    y : dask array of shape (n_samples,)

    Returns
    -------
    classes : ndarray
        Sorted, as :func:`numpy.unique` gives them.
    counts : ndarray of int64
        Occurrences of each class.

    Examples
    --------
    >>> import dask.array as da
    >>> from skcgm.utils._validation import dask_class_counts
    >>> dask_class_counts(da.from_array([2, 0, 2, 2, 1], chunks=2))
    (array([0, 1, 2]), array([1, 1, 3]))
    """
    import dask

    count = dask.delayed(_block_class_counts, pure=True)
    parts = dask.compute(*[count(block) for block in y.to_delayed().ravel()])
    classes, inverse = np.unique(
        np.concatenate([part[0] for part in parts]), return_inverse=True
    )
    counts = np.zeros(classes.shape[0], dtype=np.int64)
    np.add.at(counts, inverse, np.concatenate([part[1] for part in parts]))
    return classes, counts
