# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False, cdivision=True
"""Compiled candidate handling of the LSH index.

The point of the index is to score a few percent of the atoms; with NumPy,
gathering those rows into a new array (and de-duplicating the bucket contents
by sorting) cost about as much as the full BLAS scan it replaces, because the
gather allocates and writes as many bytes as it reads. These loops read each
candidate row in place, once.
"""

import numpy as np

from cython cimport floating


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil


def union_candidates(const Py_ssize_t[::1] items, int[::1] marks, int stamp):
    """Distinct entries of ``items`` in order of first appearance.

    ``marks`` (one int per atom) remembers which atoms were seen: an atom is
    new when its mark differs from ``stamp``, so the buffer never needs
    clearing between queries as long as every query uses a fresh stamp.
    """
    cdef Py_ssize_t n_items = items.shape[0]
    cdef Py_ssize_t i, atom, count = 0
    out = np.empty(n_items, dtype=np.intp)
    cdef Py_ssize_t[::1] out_view = out
    with nogil:
        for i in range(n_items):
            atom = items[i]
            if marks[atom] != stamp:
                marks[atom] = stamp
                out_view[count] = atom
                count += 1
    return out[:count]


def hamming_distances(
    const long long[:, ::1] codes,
    const Py_ssize_t[::1] rows,
    const long long[::1] query_codes,
):
    """Summed Hamming distance between the codes of ``rows`` and the query's.

    Over all tables, the number of differing sign bits estimates the angle
    between an atom and the query (each bit differs with probability
    :math:`\\theta / \\pi`), a ranking that costs integers, not inner
    products.
    """
    cdef Py_ssize_t n_rows = rows.shape[0]
    cdef Py_ssize_t n_tables = codes.shape[1]
    cdef Py_ssize_t i, t
    cdef long long total
    out = np.empty(n_rows, dtype=np.int64)
    cdef long long[::1] out_view = out
    with nogil:
        for i in range(n_rows):
            total = 0
            for t in range(n_tables):
                total += __builtin_popcountll(codes[rows[i], t] ^ query_codes[t])
            out_view[i] = total
    return out


def best_inner_product(
    const floating[:, ::1] atoms,
    const Py_ssize_t[::1] rows,
    const floating[::1] query,
):
    """Row of ``rows`` with the largest inner product with ``query``.

    Ties go to the lowest atom index, as with :func:`numpy.argmax` over
    sorted rows. Returns ``(atom index, inner product)``; ``rows`` must not be
    empty.
    """
    cdef Py_ssize_t n_rows = rows.shape[0]
    cdef Py_ssize_t n_features = atoms.shape[1]
    cdef Py_ssize_t i, j, row, best_row = rows[0]
    cdef double a0, a1, a2, a3, value, best_value = -np.inf
    with nogil:
        for i in range(n_rows):
            row = rows[i]
            # Four partial sums let the adds of one row overlap.
            a0 = a1 = a2 = a3 = 0.0
            j = 0
            while j + 4 <= n_features:
                a0 += atoms[row, j] * query[j]
                a1 += atoms[row, j + 1] * query[j + 1]
                a2 += atoms[row, j + 2] * query[j + 2]
                a3 += atoms[row, j + 3] * query[j + 3]
                j += 4
            while j < n_features:
                a0 += atoms[row, j] * query[j]
                j += 1
            value = (a0 + a1) + (a2 + a3)
            if value > best_value or (value == best_value and row < best_row):
                best_value = value
                best_row = row
    return best_row, best_value
