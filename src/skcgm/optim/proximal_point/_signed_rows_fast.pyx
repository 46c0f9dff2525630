# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False, cdivision=True
"""Writing blocks of scaled rows :math:`[s_i b_i x_i,\\ s_i b_i,\\ e_i]`.

The exact local-sensitivity bounds read the matrix :math:`[\\operatorname{diag}
(s) A, e]` twice per round, block by block, and each block is written from
``X`` first. In NumPy that takes a broadcast product into a strided view and
two strided column writes, about 2 ns per element, more than the BLAS call that
reads the block afterwards (ARCHITECTURE.md, "Kernels"); one pass over the
rows writes it at memory speed, without holding the GIL.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from cython.parallel cimport parallel, prange, threadid
from libc.math cimport sqrt
from libc.stdlib cimport calloc, free, malloc
from scipy.linalg.cython_blas cimport dsyrk, dtrmm

from ...utils._openmp cimport team_size

ctypedef fused data_t:
    float
    double

ctypedef fused block_t:
    float
    double


def write_rows(
    const data_t[:, :] X,
    Py_ssize_t start,
    const Py_ssize_t[::1] rows,
    const data_t[::1] signs,
    const double[::1] row_scale,
    bint intercept,
    const double[::1] extra,
    block_t[:, ::1] out,
):
    """Fill ``out`` with rows of :math:`[\\operatorname{diag}(s \\odot b) [X, 1], e]`.

    Row ``k`` of ``out`` comes from row ``r = rows[k]`` of ``X`` (or
    ``start + k`` when ``rows`` is None): :math:`c_r x_r`, then :math:`c_r`
    if ``intercept``, then :math:`e_r` if ``extra`` is given, with
    :math:`c_r = b_r s_r` (a missing ``signs`` or ``row_scale`` counts as
    ones). Indices are trusted: the caller checks them.
    """
    cdef Py_ssize_t m = out.shape[0], d = X.shape[1], last = out.shape[1] - 1
    cdef Py_ssize_t k, j, r
    cdef bint has_rows = rows is not None, has_signs = signs is not None
    cdef bint has_scale = row_scale is not None, has_extra = extra is not None
    cdef double c
    with nogil:
        for k in range(m):
            r = rows[k] if has_rows else start + k
            c = 1.0
            if has_signs:
                c = signs[r]
            if has_scale:
                c = c * row_scale[r]
            for j in range(d):
                out[k, j] = <block_t>(c * X[r, j])
            if intercept:
                out[k, d] = <block_t>c
            if has_extra:
                out[k, last] = <block_t>extra[r]


# Rows written and multiplied at a time: a CHUNK x (d + 2) float64 block stays
# in a core's cache at the widths the solver meets (d up to a few hundred).
cdef Py_ssize_t CHUNK = 256
# Parts of a pass, each with its own sums, added in part order at the end:
# as many as the shape of the data gives whatever the number of threads, so
# that a pass gives the same result, bit for bit, on any number of threads
# (the thread chooser of the rounds switches counts between passes). Up to
# PARTS, to share among a few threads dynamically (a thread slowed by another
# process takes fewer), within PART_BUDGET doubles of part Gram matrices.
cdef Py_ssize_t PARTS = 32
cdef Py_ssize_t PART_BUDGET = 2**22


cdef inline Py_ssize_t _n_chunks(Py_ssize_t n_rows) noexcept nogil:
    return (n_rows + CHUNK - 1) // CHUNK


cdef inline void _fill_block(
    const data_t[:, :] X,
    const Py_ssize_t[::1] rows,
    const data_t[::1] signs,
    const double[::1] row_scale,
    bint intercept,
    const double[::1] extra,
    const double[::1] weights,
    Py_ssize_t start,
    Py_ssize_t stop,
    Py_ssize_t width,
    double* block,
) noexcept nogil:
    """Rows ``start:stop`` of the selection, scaled, into ``block`` (row-major).

    Row ``k`` is :math:`\\sqrt{w_k}\\,[c_r x_r, c_r, e_r]` with
    :math:`r` = ``rows[k]`` (or ``k``) and :math:`c_r = b_r s_r`.
    """
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k, j, r
    cdef double c, root
    cdef double* out
    for k in range(start, stop):
        r = rows[k] if rows is not None else k
        root = sqrt(weights[k]) if weights is not None else 1.0
        c = root
        if signs is not None:
            c = c * signs[r]
        if row_scale is not None:
            c = c * row_scale[r]
        out = block + (k - start) * width
        for j in range(d):
            out[j] = c * X[r, j]
        if intercept:
            out[d] = c
        if extra is not None:
            out[width - 1] = root * extra[r]


def signed_gram(
    const data_t[:, :] X,
    const Py_ssize_t[::1] rows,
    const data_t[::1] signs,
    const double[::1] row_scale,
    bint intercept,
    const double[::1] extra,
    const double[::1] weights,
    double[:, ::1] gram,
    int n_threads,
):
    """:math:`\\sum_k w_k c_k c_k^\\top` over the selected rows, in float64.

    :math:`c_k` is row ``rows[k]`` (every row when ``rows`` is None) of
    :math:`[\\operatorname{diag}(s \\odot b) [X, \\mathbf 1], e]`, as
    :func:`write_rows` writes it, and :math:`w_k` is ``weights[k]`` (ones
    when None; non-negative). Every chunk of rows is written once into a
    thread's buffer and added by one BLAS ``syrk``: the matrix is never
    written whole. ``gram`` (square, of the rows' width) is overwritten.
    Indices are trusted; BLAS must be held to one thread by the caller.

    Returns the number of threads the OpenMP runtime ran the pass on.
    """
    cdef Py_ssize_t n_rows = rows.shape[0] if rows is not None else X.shape[0]
    cdef Py_ssize_t width = gram.shape[0]
    cdef Py_ssize_t n_chunks = _n_chunks(n_rows)
    cdef Py_ssize_t n_parts = max(1, min(PARTS, n_chunks,
                                         PART_BUDGET // max(1, width * width)))
    cdef Py_ssize_t part, chunk, start, stop, i, j, t
    cdef int w = <int> width, k_rows
    cdef char uplo = b"U"
    cdef char trans = b"N"
    cdef double one = 1.0
    cdef int team = 1
    cdef int* team_out = &team
    cdef double* block
    cdef double* part_gram
    cdef double* all_blocks
    cdef double* all_grams
    cdef double value
    gram[:, :] = 0.0
    if n_rows == 0 or width == 0:
        return 1
    n_threads = <int> max(1, min(n_threads, n_parts))
    all_blocks = <double*> malloc(n_threads * CHUNK * width * sizeof(double))
    all_grams = <double*> calloc(n_parts * width * width, sizeof(double))
    if all_blocks == NULL or all_grams == NULL:
        free(all_blocks)
        free(all_grams)
        raise MemoryError()
    with nogil, parallel(num_threads=n_threads):
        if threadid() == 0:
            team_out[0] = team_size()
        block = all_blocks + threadid() * CHUNK * width
        for part in prange(n_parts, schedule="dynamic"):
            part_gram = all_grams + part * width * width
            for chunk in range(part * n_chunks // n_parts,
                               (part + 1) * n_chunks // n_parts):
                start = chunk * CHUNK
                stop = min(start + CHUNK, n_rows)
                _fill_block(X, rows, signs, row_scale, intercept, extra, weights,
                            start, stop, width, block)
                # The row-major block is the column-major width x rows
                # matrix M: M M^T into the upper triangle (column-major).
                k_rows = <int> (stop - start)
                dsyrk(&uplo, &trans, &w, &k_rows, &one, block, &w, &one,
                      part_gram, &w)
    # Column-major upper (i <= j) is entry i + j * width; both halves filled.
    for t in range(n_parts):
        part_gram = all_grams + t * width * width
        for j in range(width):
            for i in range(j + 1):
                gram[i, j] += part_gram[i + j * width]
    for j in range(width):
        for i in range(j):
            gram[j, i] = gram[i, j]
    free(all_blocks)
    free(all_grams)
    return team


def signed_leverage(
    const data_t[:, :] X,
    const data_t[::1] signs,
    const double[::1] row_scale,
    bint intercept,
    const double[::1] extra,
    const double[:, ::1] transform,
    double[::1] scores,
    int n_threads,
):
    """:math:`\\|T c_i\\|^2` of every row :math:`c_i` of
    :math:`[\\operatorname{diag}(s \\odot b) [X, \\mathbf 1], e]`.

    ``transform`` is the lower triangular :math:`T` of
    :func:`~skcgm.oracles._leverage.leverage_transform` (row-major); every
    chunk of rows is written once into a thread's buffer and multiplied in
    place by one BLAS ``trmm``, half the flops of a general product.
    ``scores`` (one per row of ``X``) is overwritten, not clipped. BLAS must
    be held to one thread by the caller.

    Returns the number of threads the OpenMP runtime ran the pass on.
    """
    cdef Py_ssize_t n_rows = X.shape[0]
    cdef Py_ssize_t width = transform.shape[0]
    cdef Py_ssize_t n_chunks = _n_chunks(n_rows)
    cdef Py_ssize_t n_parts = max(1, min(PARTS, n_chunks))
    cdef Py_ssize_t part, chunk, start, stop, i, j
    cdef int w = <int> width, k_rows
    # Row-major T is column-major T^T, upper triangular: T M = (T^T)^T M.
    cdef char side = b"L"
    cdef char uplo = b"U"
    cdef char transa = b"T"
    cdef char diag = b"N"
    cdef double one = 1.0
    cdef int team = 1
    cdef int* team_out = &team
    cdef double* block
    cdef double* all_blocks
    cdef double total, value
    # Every row, unweighted (typed: a bare None matches no fused signature).
    cdef const Py_ssize_t[::1] all_rows = None
    cdef const double[::1] no_weights = None
    if n_rows == 0 or width == 0:
        scores[:] = 0.0
        return 1
    n_threads = <int> max(1, min(n_threads, n_parts))
    all_blocks = <double*> malloc(n_threads * CHUNK * width * sizeof(double))
    if all_blocks == NULL:
        raise MemoryError()
    with nogil, parallel(num_threads=n_threads):
        if threadid() == 0:
            team_out[0] = team_size()
        block = all_blocks + threadid() * CHUNK * width
        for part in prange(n_parts, schedule="dynamic"):
            for chunk in range(part * n_chunks // n_parts,
                               (part + 1) * n_chunks // n_parts):
                start = chunk * CHUNK
                stop = min(start + CHUNK, n_rows)
                _fill_block(X, all_rows, signs, row_scale, intercept, extra, no_weights,
                            start, stop, width, block)
                k_rows = <int> (stop - start)
                dtrmm(&side, &uplo, &transa, &diag, &w, &k_rows, &one,
                      <double*> &transform[0, 0], &w, block, &w)
                for i in range(stop - start):
                    total = 0.0
                    for j in range(width):
                        value = block[i * width + j]
                        total = total + value * value
                    scores[start + i] = total
    free(all_blocks)
    return team
