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
