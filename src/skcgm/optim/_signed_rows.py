"""The rows :math:`a_i = b_i [x_i, 1]` of a GLM, applied without building them.

The proximal point solver works on rows with the labels absorbed,
:math:`a_i = b_i x_i` (and a constant coordinate for an intercept). Writing
them out copies the data once per fit (160 MB at n = 10^6, d = 20, longer to
write than a full-data L-BFGS iteration takes to read it); this operator
gives the products and the row blocks the solver needs straight from ``X``.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import scipy.sparse as sp


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
    >>> from skcgm.optim._signed_rows import _SignedRows, signed_rows
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
        self.signs = None if signs is None else signs.astype(X.dtype, copy=False)
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
        t = self.X @ x[:d]
        if self.fit_intercept:
            t += x[d]
        if self.signs is not None:
            t *= self.signs
        return t

    def rmatvec(self, v):
        weighted = v if self.signs is None else v * self.signs
        product = self.X.T @ weighted
        if self.fit_intercept:
            product = np.append(product, weighted.sum(dtype=product.dtype))
        return product

    def __getitem__(self, rows):
        return self.block(rows)

    def block(self, rows, row_scale=None, extra=None):
        """Rows ``rows`` of :math:`[\\operatorname{diag}(s) A, e]`, written once.

        ``row_scale`` :math:`s` (None means ones) and the optional last
        column ``extra`` :math:`e` are full-length vectors indexed by
        ``rows`` here; the block is a new float64 array when either is
        given, else in the dtype of ``X``.
        """
        X_rows = self.X[rows]
        scale = None if self.signs is None else self.signs[rows]
        if row_scale is not None:
            scale = row_scale[rows] if scale is None else scale * row_scale[rows]
        dtype = self.dtype if row_scale is None and extra is None else np.float64
        width = self.shape[1] + int(extra is not None)
        block = np.empty((X_rows.shape[0], width), dtype=dtype)
        d = self.n_features
        if scale is None:
            block[:, :d] = X_rows
        else:
            np.multiply(X_rows, scale[:, None], out=block[:, :d])
        if self.fit_intercept:
            block[:, d] = 1 if scale is None else scale
        if extra is not None:
            block[:, -1] = extra[rows]
        return block

    def squared_row_norms(self):
        """:math:`\\|a_i\\|^2 = \\|x_i\\|^2 + 1` (the signs do not count), float64."""
        norms = np.einsum("ij,ij->i", self.X, self.X, dtype=np.float64)
        if self.fit_intercept:
            norms += 1.0
        return norms


class _Transposed:
    """``A.T`` of a :class:`_SignedRows`, for ``A.T @ v`` only."""

    def __init__(self, rows):
        self.rows = rows

    def __matmul__(self, v):
        return self.rows.rmatvec(v)


def signed_rows(X, signs=None, fit_intercept=False):
    """The solver's rows :math:`a_i = b_i [x_i, 1]`, lazily for dense ``X``.

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
    A : ndarray, csr_matrix or _SignedRows
        ``X`` itself when there is nothing to apply; a CSR matrix for sparse
        ``X`` (its products need the rows written out); the lazy operator
        otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim._signed_rows import signed_rows
    >>> X = np.eye(2)
    >>> signed_rows(X) is X
    True
    >>> signed_rows(X, np.array([1.0, -1.0]), fit_intercept=True).shape
    (2, 3)
    """
    if signs is None and not fit_intercept:
        return X
    if not sp.issparse(X):
        return _SignedRows(X, signs, fit_intercept)
    A = X if signs is None else sp.diags(signs.astype(X.dtype)) @ X
    if fit_intercept:
        column = np.ones(X.shape[0], dtype=X.dtype) if signs is None else signs
        A = sp.hstack([A, sp.csr_matrix(column.astype(X.dtype)[:, None])])
    return sp.csr_matrix(A)
