# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False, cdivision=True
"""Compiled Lloyd pass of the squared Euclidean loss, dense and CSR.

One call reclassifies a block of rows and gathers their group sums. The cross
terms :math:`\\langle y_i, x_j \\rangle` of a chunk of rows come from one GEMM
into a buffer small enough to stay in cache, and the argmin and the sums read
them from there at once: no block of scores is written to memory and read
back, and no thread holds more than one chunk of them. The loops run without
the GIL on ``n_threads`` OpenMP threads, as scikit-learn's Lloyd iteration
does (a Python thread pool cost more in hand-offs than a pass over 10,000
rows). The rows are cut into parts of whole chunks, as many as the shape of
the data says whatever the number of threads; every part sums into buffers of its own, added up in
part order at the end, so that a pass gives the same result, bit for bit, on
any number of threads (restarts run in parallel on one thread each must
match those run one after the other). Built without OpenMP, the same loops
run on one thread.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from cython cimport floating
from cython.parallel cimport parallel, prange, threadid

from ...utils._openmp cimport team_size
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy
from scipy.linalg.cython_blas cimport dgemm, sgemm

ctypedef fused index_t:
    int
    long long

# Rows per GEMM: a chunk's CHUNK x k scores stay in the core's cache
# (scikit-learn's Lloyd iteration chunks by 256 rows too).
cdef Py_ssize_t CHUNK = 256
# Per-thread buffers start this many elements apart at least (two cache lines
# of float32), so that threads writing their own scores never share a line.
cdef Py_ssize_t PAD = 32
# Parts of a pass, each with its own sums: up to PARTS, to share among a few
# threads dynamically (a thread slowed by another process takes fewer), but
# at least ROWS_PER_GROUP rows per group of a part, so that zeroing and adding
# the parts' sums costs a fraction of reading the rows (at k = d = 256 and
# 10,000 rows, 32 parts of sums took a sixth of the pass).
cdef Py_ssize_t PARTS = 32
cdef Py_ssize_t MIN_PARTS = 4
cdef Py_ssize_t ROWS_PER_GROUP = 8
# The scores of a chunk are laid out by center (k x CHUNK, the argmin on
# vector registers along the rows) at few features or many centers, and by
# row (CHUNK x k, one argmin per row) otherwise: measured per pass over 1e4
# and 1e5 rows, by center took 0.6-0.9x the time at d <= 8 or k >= 128, and
# up to 1.7x at d = 16-32 with k <= 64, where OpenBLAS runs the transposed
# GEMM slower.
cdef Py_ssize_t FEW_FEATURES = 8
cdef Py_ssize_t MANY_PARAMS = 128


cdef inline Py_ssize_t _n_parts(
    Py_ssize_t n_rows, Py_ssize_t n_chunks, Py_ssize_t n_params
) noexcept nogil:
    """Parts of a pass: a function of the data's shape, not of the threads."""
    return max(1, min(PARTS, n_chunks,
                      max(MIN_PARTS, n_rows // (ROWS_PER_GROUP * n_params))))


cdef inline Py_ssize_t _padded(Py_ssize_t size) noexcept nogil:
    """``size`` rounded up to a multiple of PAD, plus PAD."""
    return (size + PAD - 1) // PAD * PAD + PAD


cdef inline void _scores(
    const floating* rows,
    const floating* centers,
    const floating* half_center_sq,
    floating* out,
    int n_rows,
    int n_params,
    int n_features,
    bint by_center,
) noexcept nogil:
    """``half_center_sq[j] - <rows[i], centers[j]>`` for a chunk, by one GEMM.

    ``out`` is filled with the half squared norms and the GEMM subtracts the
    cross terms from them (``beta = 1``), as scikit-learn's Lloyd iteration
    does: the argmin then reads one array. By row, ``out[i, j]`` (n_rows x
    k, row-major) is the column-major k x n_rows product of the centers (d x
    k column-major, transposed) and the rows (d x n_rows). By center,
    ``out[j, i]`` (k x CHUNK, row-major) is the column-major CHUNK x k
    product of the rows, transposed, and the centers, so that the argmin of
    :func:`_closest_rows` runs along the rows of the chunk.
    """
    cdef char transa = b"T"
    cdef char transb = b"N"
    cdef floating minus_one = -1.0
    cdef floating one = 1.0
    cdef int m = n_rows if by_center else n_params
    cdef int n = n_params if by_center else n_rows
    cdef int ldc = <int> CHUNK if by_center else n_params
    cdef const floating* a = rows if by_center else centers
    cdef const floating* b = centers if by_center else rows
    cdef Py_ssize_t i, j
    cdef floating value
    if by_center:
        for j in range(n_params):
            value = half_center_sq[j]
            for i in range(n_rows):
                out[j * CHUNK + i] = value
    else:
        for i in range(n_rows):
            memcpy(out + i * n_params, half_center_sq, n_params * sizeof(floating))
    if floating is double:
        dgemm(&transa, &transb, &m, &n, &n_features, &minus_one,
              <double*> a, &n_features, <double*> b, &n_features, &one, out, &ldc)
    else:
        sgemm(&transa, &transb, &m, &n, &n_features, &minus_one,
              <float*> a, &n_features, <float*> b, &n_features, &one, out, &ldc)


cdef inline void _closest_rows(
    const floating* scores,
    Py_ssize_t n_rows,
    Py_ssize_t n_params,
    floating* best_value,
    floating* best_index,
) noexcept nogil:
    """:func:`_closest` of every row of a chunk, from its k x CHUNK scores.

    The loops run along the rows, each center in turn, so that the compiler
    puts them on vector registers; the index of the best center is kept in
    ``floating`` (exact below 2**24) to share the lanes of the scores. Ties
    go to the lowest index, as in :func:`_closest` (eq. 3.6).
    """
    cdef Py_ssize_t i, j
    cdef floating value, index
    cdef const floating* column
    for i in range(n_rows):
        best_value[i] = scores[i]
        best_index[i] = 0
    for j in range(1, n_params):
        column = scores + j * CHUNK
        index = <floating> j
        for i in range(n_rows):
            value = column[i]
            best_index[i] = index if value < best_value[i] else best_index[i]
            best_value[i] = value if value < best_value[i] else best_value[i]


cdef inline Py_ssize_t _closest(
    const floating* scores,
    Py_ssize_t n_params,
    floating* best_value,
) noexcept nogil:
    """Index of the smallest score :math:`\\frac12\\|x_j\\|^2 - \\langle
    y, x_j \\rangle`, ties to the lowest (eq. 3.6), and that score."""
    cdef Py_ssize_t j, best = 0
    cdef floating smallest = scores[0]
    for j in range(1, n_params):
        if scores[j] < smallest:
            smallest = scores[j]
            best = j
    best_value[0] = smallest
    return best


cdef void _add_part_sums(
    const floating* per_part,
    Py_ssize_t n_parts,
    Py_ssize_t stride,
    floating[:, ::1] sums,
) noexcept nogil:
    """Add every part's sums (``stride`` apart) into ``sums``, in part order."""
    cdef Py_ssize_t t, j, f
    cdef Py_ssize_t n_params = sums.shape[0]
    cdef Py_ssize_t n_features = sums.shape[1]
    for t in range(n_parts):
        for j in range(n_params):
            for f in range(n_features):
                sums[j, f] += per_part[t * stride + j * n_features + f]


cdef tuple _add_part_totals(
    const double* per_part,
    Py_ssize_t n_parts,
    Py_ssize_t stride,
    double[::1] counts,
    bint with_sums,
):
    """The weighted loss and weight of all parts, and their group counts.

    Every part's block holds its weighted loss, its weight, then one count
    per group; they are added in part order.
    """
    cdef Py_ssize_t t, j
    cdef double loss = 0.0
    cdef double weight = 0.0
    for t in range(n_parts):
        loss += per_part[t * stride]
        weight += per_part[t * stride + 1]
        if with_sums:
            for j in range(counts.shape[0]):
                counts[j] += per_part[t * stride + 2 + j]
    return loss, weight


def assign_dense(
    const floating[:, ::1] X,
    const floating[:, ::1] centers,
    const floating[::1] half_center_sq,
    const floating[::1] half_sample_sq,
    const floating[::1] sample_weight,
    Py_ssize_t[::1] labels,
    double[::1] min_losses,
    floating[:, ::1] sums,
    double[::1] counts,
    bint with_sums,
    int n_threads,
):
    """Closest center of every row of dense ``X``, and the weighted group sums.

    The loss of row :math:`i` and center :math:`j` is
    ``half_sample_sq[i] + half_center_sq[j] - <X[i], centers[j]>``; the
    smallest wins, ties going to the lowest index, and its value, clipped at
    zero, goes to ``min_losses`` unless it is empty (a Lloyd iteration needs
    only their weighted sum: not writing them saves a fifth of the memory
    traffic of a pass at small d). With ``with_sums``, ``sums[j]`` and
    ``counts[j]`` (zeroed by the caller) receive
    :math:`\\sum_{i \\in C_j} w_i y_i` and :math:`\\sum_{i \\in C_j} w_i`.
    Parts of whole chunks of ``CHUNK`` rows are shared dynamically among
    ``n_threads`` threads; BLAS must be held to one thread by the caller.

    Returns :math:`(\\sum_i w_i \\min_j f_i(x_j), \\sum_i w_i)`, from which
    the objective (eq. 1.1) follows without another pass, and the number of
    threads the OpenMP runtime ran the pass on.
    """
    cdef Py_ssize_t n_rows = X.shape[0]
    cdef Py_ssize_t n_params = centers.shape[0]
    cdef Py_ssize_t n_features = X.shape[1]
    cdef Py_ssize_t n_chunks = (n_rows + CHUNK - 1) // CHUNK
    cdef Py_ssize_t sums_size = _padded(n_params * n_features) if with_sums else 0
    # A thread's k x CHUNK scores, then the best value and index of each row.
    cdef Py_ssize_t cross_size = _padded(CHUNK * n_params) + 2 * _padded(CHUNK)
    cdef Py_ssize_t totals_size = _padded(2 + n_params)
    cdef Py_ssize_t n_parts, part, chunk, start, stop, i, f, best
    cdef floating weight
    cdef double loss, chunk_loss, chunk_weight
    cdef bint with_losses = min_losses.shape[0] > 0
    cdef bint by_center = n_features <= FEW_FEATURES or n_params >= MANY_PARAMS
    cdef int team = 1
    cdef int* team_out = &team
    cdef floating* cross
    cdef floating* chunk_best
    cdef floating* chunk_index
    cdef floating* local_sums
    cdef double* local_totals
    cdef floating* all_cross
    cdef floating* all_sums
    cdef double* all_totals
    cdef tuple totals
    if n_rows == 0:
        return 0.0, 0.0, 1
    n_parts = _n_parts(n_rows, n_chunks, n_params)
    n_threads = <int> max(1, min(n_threads, n_parts))
    all_cross = <floating*> malloc(n_threads * cross_size * sizeof(floating))
    all_sums = <floating*> calloc(max(1, n_parts * sums_size), sizeof(floating))
    all_totals = <double*> calloc(n_parts * totals_size, sizeof(double))
    if all_cross == NULL or all_sums == NULL or all_totals == NULL:
        free(all_cross)
        free(all_sums)
        free(all_totals)
        raise MemoryError()
    with nogil, parallel(num_threads=n_threads):
        if threadid() == 0:
            # Through a pointer: a variable assigned in the block would be
            # private to each thread.
            team_out[0] = team_size()
        cross = all_cross + threadid() * cross_size
        chunk_best = cross + _padded(CHUNK * n_params)
        chunk_index = chunk_best + _padded(CHUNK)
        for part in prange(n_parts, schedule="dynamic"):
            local_sums = all_sums + part * sums_size
            local_totals = all_totals + part * totals_size
            for chunk in range(part * n_chunks // n_parts,
                               (part + 1) * n_chunks // n_parts):
                start = chunk * CHUNK
                stop = min(start + CHUNK, n_rows)
                _scores(&X[start, 0], &centers[0, 0], &half_center_sq[0], cross,
                        <int> (stop - start), <int> n_params, <int> n_features,
                        by_center)
                if by_center:
                    _closest_rows(cross, stop - start, n_params, chunk_best,
                                  chunk_index)
                else:
                    for i in range(stop - start):
                        chunk_index[i] = <floating> _closest(
                            cross + i * n_params, n_params, &chunk_best[i])
                # The chunk's totals in registers: through the part's array,
                # which the compiler cannot tell apart from the outputs, every
                # row would load and store them.
                chunk_loss = 0.0
                chunk_weight = 0.0
                for i in range(start, stop):
                    best = <Py_ssize_t> chunk_index[i - start]
                    loss = (<double> chunk_best[i - start]
                            + <double> half_sample_sq[i])
                    loss = loss if loss > 0 else 0.0
                    labels[i] = best
                    if with_losses:
                        min_losses[i] = loss
                    weight = sample_weight[i]
                    chunk_loss = chunk_loss + weight * loss
                    chunk_weight = chunk_weight + weight
                    if with_sums:
                        local_totals[2 + best] += weight
                        for f in range(n_features):
                            local_sums[best * n_features + f] += weight * X[i, f]
                local_totals[0] += chunk_loss
                local_totals[1] += chunk_weight
    if with_sums:
        _add_part_sums(all_sums, n_parts, sums_size, sums)
    totals = _add_part_totals(all_totals, n_parts, totals_size, counts, with_sums)
    free(all_cross)
    free(all_sums)
    free(all_totals)
    return (*totals, team)


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
    double[::1] counts,
    bint with_sums,
    int n_threads,
):
    """:func:`assign_dense` for the rows of a CSR matrix.

    The cross terms of a row cost :math:`O(\\mathrm{nnz} \\cdot k)`, read
    from the centers transposed (``centers_t[f, j]``) so that every stored
    entry updates k contiguous scores.
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef Py_ssize_t n_params = centers.shape[0]
    cdef Py_ssize_t n_features = centers.shape[1]
    cdef Py_ssize_t n_chunks = (n_rows + CHUNK - 1) // CHUNK
    cdef Py_ssize_t sums_size = _padded(n_params * n_features) if with_sums else 0
    cdef Py_ssize_t cross_size = _padded(n_params)
    cdef Py_ssize_t totals_size = _padded(2 + n_params)
    cdef Py_ssize_t n_parts, part, chunk, i, j, p, best, offset
    cdef floating best_value, weight, value
    cdef double loss, chunk_loss, chunk_weight
    cdef bint with_losses = min_losses.shape[0] > 0
    cdef floating* cross
    cdef floating* local_sums
    cdef double* local_totals
    cdef floating* all_cross
    cdef floating* all_sums
    cdef double* all_totals
    cdef floating* centers_t
    cdef tuple totals
    cdef int team = 1
    cdef int* team_out = &team
    if n_rows <= 0:
        return 0.0, 0.0, 1
    n_parts = _n_parts(n_rows, n_chunks, n_params)
    n_threads = <int> max(1, min(n_threads, n_parts))
    all_cross = <floating*> malloc(n_threads * cross_size * sizeof(floating))
    all_sums = <floating*> calloc(max(1, n_parts * sums_size), sizeof(floating))
    all_totals = <double*> calloc(n_parts * totals_size, sizeof(double))
    centers_t = <floating*> malloc(n_features * n_params * sizeof(floating))
    if (all_cross == NULL or all_sums == NULL or all_totals == NULL
            or centers_t == NULL):
        free(all_cross)
        free(all_sums)
        free(all_totals)
        free(centers_t)
        raise MemoryError()
    with nogil:
        for j in range(n_params):
            for p in range(n_features):
                centers_t[p * n_params + j] = centers[j, p]
    with nogil, parallel(num_threads=n_threads):
        if threadid() == 0:
            # Through a pointer: a variable assigned in the block would be
            # private to each thread.
            team_out[0] = team_size()
        cross = all_cross + threadid() * cross_size
        for part in prange(n_parts, schedule="dynamic"):
            local_sums = all_sums + part * sums_size
            local_totals = all_totals + part * totals_size
            for chunk in range(part * n_chunks // n_parts,
                               (part + 1) * n_chunks // n_parts):
                chunk_loss = 0.0
                chunk_weight = 0.0
                for i in range(chunk * CHUNK, min(chunk * CHUNK + CHUNK, n_rows)):
                    memcpy(cross, &half_center_sq[0], n_params * sizeof(floating))
                    for p in range(indptr[i], indptr[i + 1]):
                        value = data[p]
                        offset = indices[p] * n_params
                        for j in range(n_params):
                            cross[j] -= value * centers_t[offset + j]
                    best = _closest(cross, n_params, &best_value)
                    loss = <double> best_value + <double> half_sample_sq[i]
                    loss = loss if loss > 0 else 0.0
                    labels[i] = best
                    if with_losses:
                        min_losses[i] = loss
                    weight = sample_weight[i]
                    chunk_loss = chunk_loss + weight * loss
                    chunk_weight = chunk_weight + weight
                    if with_sums:
                        local_totals[2 + best] += weight
                        for p in range(indptr[i], indptr[i + 1]):
                            local_sums[best * n_features + indices[p]] += weight * data[p]
                local_totals[0] += chunk_loss
                local_totals[1] += chunk_weight
    if with_sums:
        _add_part_sums(all_sums, n_parts, sums_size, sums)
    totals = _add_part_totals(all_totals, n_parts, totals_size, counts, with_sums)
    free(all_cross)
    free(all_sums)
    free(all_totals)
    free(centers_t)
    return (*totals, team)
