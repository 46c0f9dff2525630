"""Mini-batch readers of the rows of a dense array or a CSR matrix.

CompAdaGrad's epochs read the training rows a mini-batch at a time and need
two products with a batch, :math:`B w` and :math:`c^\\top B`; a reader gives
both without the per-batch overhead of slicing a scipy matrix.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import scipy.sparse as sp


class _DenseRows:
    """Mini-batches of the rows of a C-contiguous dense array."""

    def __init__(self, X):
        self.X = X

    def take(self, rows):
        # A slice is a view; an index array copies |B| rows (one pass).
        return self.X[rows]

    @staticmethod
    def matvec(batch, w):
        return batch @ w

    @staticmethod
    def rmatvec(batch, coeff, n_features):
        return coeff @ batch


class _CSRRows:
    """Mini-batches of the rows of a CSR matrix, gathered from its arrays.

    Slicing a scipy matrix costs tens of microseconds of Python overhead per
    mini-batch; gathering ``indptr``/``indices``/``data`` directly costs a
    few numpy calls, O(nnz of the batch).
    """

    def __init__(self, X):
        self.indptr = X.indptr
        self.indices = X.indices
        self.data = X.data
        self.n_samples = X.shape[0]

    def take(self, rows):
        indptr = self.indptr
        if isinstance(rows, slice):
            start, stop = rows.start, min(rows.stop, self.n_samples)
            lengths = np.diff(indptr[start : stop + 1])
            begin, end = indptr[start], indptr[stop]
            data = self.data[begin:end]
            cols = self.indices[begin:end]
        else:
            starts = indptr[rows]
            lengths = indptr[rows + 1] - starts
            # Position of the j-th stored entry of row r: starts[r] + j.
            shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
            positions = shift + np.arange(shift.shape[0])
            data = self.data[positions]
            cols = self.indices[positions]
        row_ids = np.repeat(np.arange(lengths.shape[0]), lengths)
        return data, cols, row_ids, lengths.shape[0]

    @staticmethod
    def matvec(batch, w):
        data, cols, row_ids, n_rows = batch
        return np.bincount(row_ids, weights=data * w[cols], minlength=n_rows)

    @staticmethod
    def rmatvec(batch, coeff, n_features):
        data, cols, row_ids, _ = batch
        return np.bincount(cols, weights=data * coeff[row_ids], minlength=n_features)


def _rows(X):
    """The reader of the rows of ``X``, dense or CSR."""
    return _CSRRows(X) if sp.issparse(X) else _DenseRows(X)
