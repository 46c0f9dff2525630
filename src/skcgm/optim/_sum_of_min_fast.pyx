# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False, cdivision=True
"""Compiled Lloyd pass of the squared Euclidean loss, dense and CSR.

One call reclassifies a block of rows and gathers their group sums. The cross
terms :math:`\\langle y_i, x_j \\rangle` of a chunk of rows come from one GEMM
into a buffer small enough to stay in cache, and the argmin and the sums read
them from there at once: no block of scores is written to memory and read
back, and no thread holds more than one chunk of them. The loops run without
the GIL, so that blocks can run on several threads.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from cython cimport floating
from libc.stdlib cimport free, malloc
from scipy.linalg.cython_blas cimport dgemm, sgemm

ctypedef fused index_t:
    int
    long long

# Rows per GEMM: a chunk's CHUNK x k scores stay in the core's cache
# (scikit-learn's Lloyd iteration chunks by 256 rows too).
cdef Py_ssize_t CHUNK = 256


cdef inline void _cross(
    const floating* rows,
    const floating* centers,
    floating* out,
    int n_rows,
    int n_params,
    int n_features,
) noexcept nogil:
    """``out[i, j] = <rows[i], centers[j]>``, row-major, by one GEMM.

    Row-major ``out`` (n_rows x k) is the column-major k x n_rows product of
    the column-major views of the centers (d x k, transposed) and the rows
    (d x n_rows).
    """
    cdef char transa = b"T"
    cdef char transb = b"N"
    cdef floating one = 1.0
    cdef floating zero = 0.0
    if floating is double:
        dgemm(&transa, &transb, &n_params, &n_rows, &n_features, &one,
              <double*> centers, &n_features, <double*> rows, &n_features,
              &zero, out, &n_params)
    else:
        sgemm(&transa, &transb, &n_params, &n_rows, &n_features, &one,
              <float*> centers, &n_features, <float*> rows, &n_features,
              &zero, out, &n_params)


cdef inline Py_ssize_t _closest(
    const floating* cross,
    const floating[::1] half_center_sq,
    Py_ssize_t n_params,
    floating* best_value,
) noexcept nogil:
    """Index of the smallest :math:`\\frac12\\|x_j\\|^2 - \\langle y, x_j
    \\rangle`, ties to the lowest (eq. 3.6), and that value."""
    cdef Py_ssize_t j, best = 0
    cdef floating value, smallest = half_center_sq[0] - cross[0]
    for j in range(1, n_params):
        value = half_center_sq[j] - cross[j]
        if value < smallest:
            smallest = value
            best = j
    best_value[0] = smallest
    return best


def assign_dense(
    const floating[:, ::1] X,
    const floating[:, ::1] centers,
    const floating[::1] half_center_sq,
    const floating[::1] half_sample_sq,
    const floating[::1] sample_weight,
    Py_ssize_t[::1] labels,
    double[::1] min_losses,
    floating[:, ::1] sums,
    bint with_sums,
):
    """Closest center of every row of a dense block, and the weighted group sums.

    The loss of row :math:`i` and center :math:`j` is
    ``half_sample_sq[i] + half_center_sq[j] - <X[i], centers[j]>``; the
    smallest wins, ties going to the lowest index, and its value, clipped at
    zero, goes to ``min_losses``. With ``with_sums``, ``sums[j]`` (zeroed by
    the caller) receives :math:`\\sum_{i \\in C_j} w_i y_i`.
    """
    cdef Py_ssize_t n_rows = X.shape[0]
    cdef Py_ssize_t n_params = centers.shape[0]
    cdef Py_ssize_t n_features = X.shape[1]
    cdef Py_ssize_t start, stop, i, f, best
    cdef floating best_value, weight
    cdef double loss
    cdef floating* cross
    if n_rows == 0:
        return
    cross = <floating*> malloc(CHUNK * n_params * sizeof(floating))
    if cross == NULL:
        raise MemoryError()
    with nogil:
        start = 0
        while start < n_rows:
            stop = min(start + CHUNK, n_rows)
            _cross(&X[start, 0], &centers[0, 0], cross, <int> (stop - start),
                   <int> n_params, <int> n_features)
            for i in range(start, stop):
                best = _closest(cross + (i - start) * n_params, half_center_sq,
                                n_params, &best_value)
                labels[i] = best
                loss = <double> best_value + <double> half_sample_sq[i]
                min_losses[i] = loss if loss > 0 else 0.0
                if with_sums:
                    weight = sample_weight[i]
                    for f in range(n_features):
                        sums[best, f] += weight * X[i, f]
            start = stop
    free(cross)


def assign_csr(
    const floating[::1] data,
    const index_t[::1] indices,
    const index_t[::1] indptr,
    const floating[:, ::1] centers,
    const floating[::1] half_center_sq,
    const floating[::1] half_sample_sq,
    const floating[::1] sample_weight,
    Py_ssize_t[::1] labels,
    double[::1] min_losses,
    floating[:, ::1] sums,
    bint with_sums,
):
    """:func:`assign_dense` for the rows of a CSR block.

    The cross terms of a row cost :math:`O(\\mathrm{nnz} \\cdot k)`, read
    from the centers transposed (``centers_t[f, j]``) so that every stored
    entry updates k contiguous scores.
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef Py_ssize_t n_params = centers.shape[0]
    cdef Py_ssize_t n_features = centers.shape[1]
    cdef Py_ssize_t i, j, p, best
    cdef floating best_value, weight, value
    cdef double loss
    cdef floating* cross
    cdef floating* centers_t
    if n_rows <= 0:
        return
    cross = <floating*> malloc(n_params * sizeof(floating))
    centers_t = <floating*> malloc(n_features * n_params * sizeof(floating))
    if cross == NULL or centers_t == NULL:
        free(cross)
        free(centers_t)
        raise MemoryError()
    with nogil:
        for j in range(n_params):
            for p in range(n_features):
                centers_t[p * n_params + j] = centers[j, p]
        for i in range(n_rows):
            for j in range(n_params):
                cross[j] = 0
            for p in range(indptr[i], indptr[i + 1]):
                value = data[p]
                for j in range(n_params):
                    cross[j] += value * centers_t[indices[p] * n_params + j]
            best = _closest(cross, half_center_sq, n_params, &best_value)
            labels[i] = best
            loss = <double> best_value + <double> half_sample_sq[i]
            min_losses[i] = loss if loss > 0 else 0.0
            if with_sums:
                weight = sample_weight[i]
                for p in range(indptr[i], indptr[i + 1]):
                    sums[best, indices[p]] += weight * data[p]
    free(cross)
    free(centers_t)
