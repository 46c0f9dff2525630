# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

cdef struct Secular:
    # The secular equation of a rank-one update, kept part of size n_kept.
    Py_ssize_t k
    Py_ssize_t n_kept
    Py_ssize_t n_deflated
    double rho
    double* poles
    double* w
    double* roots
    double* signs
    double* Q
    double* vecs
    double* kept_cols
    double* work
    Py_ssize_t* kept
    Py_ssize_t* order

cdef int secular_prepare(
    Secular* sec, Py_ssize_t k, double* d, double* V, const double* update,
    double* scratch, Py_ssize_t* index,
) noexcept nogil
cdef int secular_roots(Secular* sec) noexcept nogil
cdef void secular_weights(Secular* sec) noexcept nogil
cdef void secular_rotate(Secular* sec, double* d, double* V) noexcept nogil
cdef void secular_finish(Secular* sec, double* d, double* V) noexcept nogil
cdef int rank_one_update_inplace(
    Py_ssize_t k, double* d, double* V, const double* update,
    double* scratch, Py_ssize_t* index,
) noexcept nogil
