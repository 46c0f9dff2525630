"""The rows :math:`a_i = b_i [x_i, 1]` of a GLM, applied without building them.

The proximal point solver works on rows with the labels absorbed,
:math:`a_i = b_i x_i` (and a constant coordinate for an intercept). Writing
them out copies the data once per fit (160 MB at n = 10^6, d = 20, longer to
write than a full-data L-BFGS iteration takes to read it); this operator
gives the products and the row blocks the solver needs straight from ``X``.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from contextlib import nullcontext

import numpy as np
import scipy.sparse as sp

from ...utils._blocks import map_row_blocks
from ...utils._threads import report_threads
from ._signed_rows_fast import signed_gram, signed_leverage
from ._signed_rows_fast import write_rows as _write_rows

__all__ = [
    "row_source",
    "scaled_gram",
    "scaled_leverage",
    "scaled_rows",
    "signed_gram",
    "signed_rows",
    "write_rows",
]


class _SignedRows:
    """Read-only :math:`A = \\operatorname{diag}(b)\\,[X, \\mathbf 1]`.

    Supports what the solver uses of a dense matrix: ``shape``, ``dtype``,
    ``A @ x``, ``A.T @ v``, and ``A[rows]`` for a slice or an index array,
    which returns the dense rows (a new array). Products are in the dtype of
    ``X``, as for an array.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Dense float32 or float64 data, validated by the caller.
    signs : ndarray of shape (n_samples,) or None
        The labels :math:`b_i`; None means ones.
    fit_intercept : bool
        Append the constant coordinate (the last column of ``A``).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point._signed_rows import _SignedRows, signed_rows
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> A = _SignedRows(X, np.array([1.0, -1.0]), fit_intercept=True)
    >>> A[:]
    array([[ 1.,  2.,  1.],
           [-3., -4., -1.]])
    >>> bool(np.allclose(A @ np.ones(3), A[:] @ np.ones(3)))
    True
    """

    def __init__(self, X, signs, fit_intercept):
        self.X = X
        self.signs = (
            None if signs is None else np.ascontiguousarray(signs, dtype=X.dtype)
        )
        self.fit_intercept = bool(fit_intercept)
        self.n_features = X.shape[1]
        self.shape = (X.shape[0], X.shape[1] + int(self.fit_intercept))
        self.dtype = X.dtype
        self.ndim = 2

    @property
    def T(self):
        return _Transposed(self)

    def __matmul__(self, x):
        d = self.n_features
        coef = x[:d]
        t = np.empty(self.shape[0], dtype=np.result_type(self.X, x))

        def fill(rows):
            # Blocks of rows on our threads, as rmatvec: the solver holds
            # BLAS to one thread.
            np.matmul(self.X[rows], coef, out=t[rows])

        map_row_blocks(fill, self.shape[0], 1)
        if self.fit_intercept:
            t += x[d]
        if self.signs is not None:
            t *= self.signs
        return t

    def rmatvec(self, v):
        weighted = v if self.signs is None else v * self.signs
        # Partial products of row blocks on threads: at n = 10^6, d = 20
        # measured faster than OpenBLAS's own transposed product (17 ms
        # against 25 ms on 2 cores).
        parts = map_row_blocks(
            lambda rows: self.X[rows].T @ weighted[rows], self.shape[0], 1
        )
        if parts:
            product = np.sum(parts, axis=0)
        else:
            # No rows: a sum of no blocks, zeros of the right length.
            product = np.zeros(self.n_features, dtype=np.result_type(self.X, v))
        if self.fit_intercept:
            product = np.append(product, weighted.sum(dtype=product.dtype))
        return product

    def __getitem__(self, rows):
        return self.block(rows)

    def block(self, rows, out=None):
        """Rows ``rows`` of :math:`A`, in the dtype of ``X``, written into
        ``out`` when given (see :func:`write_rows`)."""
        return write_rows(
            self.X,
            rows,
            signs=self.signs,
            intercept=self.fit_intercept,
            dtype=self.dtype,
            out=out,
        )

    def squared_row_norms(self):
        """:math:`\\|a_i\\|^2 = \\|x_i\\|^2 + 1` (the signs do not count), float64."""
        norms = np.empty(self.shape[0])

        def fill(rows):
            X_rows = self.X[rows]
            norms[rows] = np.einsum("ij,ij->i", X_rows, X_rows, dtype=np.float64)

        map_row_blocks(fill, self.shape[0], self.n_features)
        if self.fit_intercept:
            norms += 1.0
        return norms


class _Transposed:
    """``A.T`` of a :class:`_SignedRows`, for ``A.T @ v`` only."""

    def __init__(self, rows):
        self.rows = rows

    def __matmul__(self, v):
        return self.rows.rmatvec(v)


def _selected_rows(rows, n):
    """``(start, indices, count)`` of ``rows``: a slice with unit step gives
    its start and no indices; anything else gives checked indices in
    ``[0, n)``, as NumPy's indexing would read them."""
    if isinstance(rows, slice):
        start, stop, step = rows.indices(n)
        if step == 1:
            return start, None, max(0, stop - start)
        rows = np.arange(start, stop, step)
    rows = np.asarray(rows)
    if rows.dtype == bool:
        if rows.shape != (n,):
            raise IndexError(
                f"boolean index has shape {rows.shape}; the rows need shape ({n},)."
            )
        rows = np.flatnonzero(rows)
    if rows.ndim != 1 or (rows.size and rows.dtype.kind not in "iu"):
        raise IndexError("rows must be a slice, or a 1-d integer or boolean array.")
    rows = rows.astype(np.intp, copy=False)
    if rows.size and (rows.min() < -n or rows.max() >= n):
        raise IndexError(f"row index out of range for {n} rows.")
    if rows.size and rows.min() < 0:
        rows = np.where(rows < 0, rows + n, rows)
    return 0, np.ascontiguousarray(rows), rows.size


def write_rows(
    X,
    rows,
    *,
    signs=None,
    row_scale=None,
    intercept=False,
    extra=None,
    dtype=np.float64,
    out=None,
):
    """Rows of :math:`[\\operatorname{diag}(s \\odot b) [X, \\mathbf 1], e]`.

    A new array; one compiled pass writes it (:mod:`._signed_rows_fast`): the
    exact leverage scores write every block of the data twice per round.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Dense float32 or float64 data.
    rows : slice or array of int or bool
        The rows to write, as for ``X[rows]``.
    signs : ndarray of shape (n_samples,) in the dtype of ``X``, default=None
        Labels :math:`b`; None means ones.
    row_scale : ndarray of shape (n_samples,), default=None
        Float64 row factors :math:`s`; None means ones.
    intercept : bool, default=False
        Append the column :math:`s \\odot b`.
    extra : ndarray of shape (n_samples,), default=None
        Float64 last column :math:`e`, not scaled.
    dtype : {np.float32, np.float64}, default=np.float64
        Dtype of the block.
    out : ndarray, default=None
        A C-contiguous array of the block's shape and ``dtype`` to write
        into, such as a :func:`~skcgm.utils._blocks.scratch_buffer`; None
        means a new array. A reused buffer saves the page faults of a fresh
        one, which cost as much as the writing itself in processes that
        return freed memory to the system at once (dask's workers).

    Returns
    -------
    block : ndarray of shape (n_rows, n_features + intercept + (extra given))
        C-contiguous.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point._signed_rows import write_rows
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> write_rows(X, [2, 0], signs=np.array([1.0, 1.0, -1.0]), intercept=True)
    array([[-5., -6., -1.],
           [ 1.,  2.,  1.]])
    """
    n, d = X.shape
    start, indices, count = _selected_rows(rows, n)
    width = d + int(intercept) + int(extra is not None)
    block = np.empty((count, width), dtype=dtype) if out is None else out
    if count:
        _write_rows(X, start, indices, signs, row_scale, intercept, extra, block)
    return block


def signed_rows(X, signs=None, fit_intercept=False):
    """The solver's rows :math:`a_i = b_i [x_i, 1]`, lazily for dense ``X``.

    Dense ``X`` always gets the lazy operator, even with nothing to apply:
    its products run on threads over blocks of rows, the solver holding
    BLAS to one thread.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Validated float32 or float64 data.
    signs : ndarray of shape (n_samples,), default=None
        Labels :math:`b_i`; None means ones.
    fit_intercept : bool, default=False
        Append a constant coordinate.

    Returns
    -------
    A : _SignedRows or sparse matrix
        The lazy operator for dense ``X``; for sparse ``X``, ``X`` itself
        when there is nothing to apply, else a CSR matrix (its products need
        the rows written out).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point._signed_rows import signed_rows
    >>> X = np.eye(2)
    >>> signed_rows(X)[:]
    array([[1., 0.],
           [0., 1.]])
    >>> signed_rows(X, np.array([1.0, -1.0]), fit_intercept=True).shape
    (2, 3)
    """
    if not sp.issparse(X):
        return _SignedRows(X, signs, fit_intercept)
    if signs is None and not fit_intercept:
        return X
    A = X if signs is None else sp.diags(signs.astype(X.dtype)) @ X
    if fit_intercept:
        column = np.ones(X.shape[0], dtype=X.dtype) if signs is None else signs
        A = sp.hstack([A, sp.csr_matrix(column.astype(X.dtype)[:, None])])
    return sp.csr_matrix(A)


def row_source(A):
    """``(X, signs, intercept)`` of dense rows, as the compiled passes read them.

    Lazy signed rows give their data, labels and intercept; a dense array
    is its own data, unsigned, without intercept.
    """
    if isinstance(A, _SignedRows):
        return A.X, A.signs, A.fit_intercept
    return A, None, False


def scaled_rows(A, row_scale, extra=None):
    """The rows of :math:`[\\operatorname{diag}(s) A, e]`, written whole in float64.

    For the sketches, which take the matrix whole; the exact passes read it
    by chunks (:func:`scaled_gram`, :func:`scaled_leverage`).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point._signed_rows import scaled_rows, signed_rows
    >>> A = signed_rows(np.array([[1.0], [2.0]]), np.array([1.0, -1.0]), True)
    >>> scaled_rows(A, np.array([1.0, 0.5]), np.array([3.0, 4.0]))
    array([[ 1. ,  1. ,  3. ],
           [-1. , -0.5,  4. ]])
    """
    X, signs, intercept = row_source(A)
    return write_rows(
        X,
        slice(None),
        signs=signs,
        row_scale=row_scale,
        intercept=intercept,
        extra=extra,
    )


def _pass_threads(chooser):
    """The thread count of a pass, timed by ``chooser``; one without.

    A pass that does not repeat (a sample's Gram matrix, a chunk's task,
    whose parallelism is the dask workers') is not worth waking threads
    for: on a busy machine a woken thread may wait a scheduler slice for a
    core, and spins on it after the pass.
    """
    return nullcontext(1) if chooser is None else chooser.timed()


def scaled_gram(
    A, row_scale=None, extra=None, *, rows=None, weights=None, chooser=None
):
    """The float64 Gram matrix :math:`C^\\top W C` of the scaled rows of ``A``.

    .. math::

        C = [\\operatorname{diag}(s) A,\\ e], \\qquad
        W = \\operatorname{diag}(w),

    over the rows ``rows`` (all when None), in one compiled pass that writes
    each chunk of rows once into a thread's buffer (:func:`signed_gram`):
    :math:`C` is never written whole, and float32 rows are promoted a chunk
    at a time.

    Parameters
    ----------
    A : ndarray or lazy signed rows of shape (n, p)
        Dense rows (of :func:`signed_rows`, or a float32 or float64 array).
    row_scale : ndarray of shape (n,), default=None
        Float64 factors :math:`s`; None means ones.
    extra : ndarray of shape (n,), default=None
        Float64 last column :math:`e`; None means no such column.
    rows : ndarray of int of shape (m,), default=None
        The rows summed over (repetitions count again); None means all.
    weights : ndarray of shape (m,), default=None
        Non-negative weights :math:`w` of ``rows``; None means ones.
    chooser : ThreadChooser, default=None
        The thread count of a pass that repeats (the rounds'); None means
        one thread.

    Returns
    -------
    gram : ndarray of shape (p + (extra given), p + (extra given))

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point._signed_rows import scaled_gram, signed_rows
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> A = signed_rows(X, np.array([1.0, -1.0]), fit_intercept=True)
    >>> bool(np.allclose(scaled_gram(A), A[:].T @ A[:]))
    True
    """
    X, signs, intercept = row_source(A)
    width = A.shape[1] + int(extra is not None)
    if rows is not None:
        rows = np.ascontiguousarray(rows, dtype=np.intp)
    gram = np.empty((width, width))
    with _pass_threads(chooser) as n_threads:
        team = signed_gram(
            X, rows, signs, row_scale, intercept, extra, weights, gram, n_threads
        )
    report_threads(team)
    return gram


def scaled_leverage(A, row_scale, extra, transform, chooser=None):
    """Scores :math:`\\|T c_i\\|^2` of the rows :math:`c_i` of
    :math:`[\\operatorname{diag}(s) A, e]`, clipped to [0, 1].

    One compiled pass (:func:`signed_leverage`): each chunk of rows is
    written once and multiplied in place by the lower triangular ``transform``
    of :func:`~skcgm.oracles._leverage.leverage_transform`, so the scores are
    the ridge leverage scores of that transform's Gram matrix and ridge.

    Parameters
    ----------
    A : ndarray or lazy signed rows of shape (n, p)
        Dense rows.
    row_scale : ndarray of shape (n,) or None
        Float64 factors :math:`s`; None means ones.
    extra : ndarray of shape (n,) or None
        Float64 last column :math:`e`; None means none.
    transform : ndarray of shape (q, q)
        Lower triangular, ``q`` the width of the scaled rows.
    chooser : ThreadChooser, default=None
        The thread count of a pass that repeats (the rounds'); None means
        one thread.

    Returns
    -------
    scores : ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point._signed_rows import scaled_leverage
    >>> from skcgm.oracles._leverage import leverage_transform
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    >>> T = leverage_transform(A.T @ A, np.ones(2))
    >>> scaled_leverage(A, None, None, T)
    array([0.5       , 0.33333333, 0.33333333])
    """
    X, signs, intercept = row_source(A)
    transform = np.ascontiguousarray(transform, dtype=np.float64)
    scores = np.empty(A.shape[0])
    with _pass_threads(chooser) as n_threads:
        team = signed_leverage(
            X, signs, row_scale, intercept, extra, transform, scores, n_threads
        )
    report_threads(team)
    return np.clip(scores, 0.0, 1.0, out=scores)
