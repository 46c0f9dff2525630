# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

cdef int rank_one_update_inplace(
    Py_ssize_t k, double* d, double* V, const double* update,
    double* scratch, Py_ssize_t* index,
) noexcept nogil
