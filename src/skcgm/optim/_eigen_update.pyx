# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False, cdivision=True
"""Rank-one update of a symmetric eigendecomposition.

CompAdaGrad's subspace Gram matrix changes by a rank-one term every step,
:math:`S_t = S_{t-1} + p p^\\top`. A fresh LAPACK eigendecomposition of the
``k x k`` matrix (``dsyevd``, 140 us at k = 32 on the benchmark machine) was a
quarter of a step; the eigenpairs of :math:`V \\operatorname{diag}(\\mu)
V^\\top + p p^\\top` follow from those of :math:`S_{t-1}` through the secular
equation (Bunch, Nielsen and Sorensen 1978) in :math:`O(k^2)` plus one
``k x k`` product. The deflation rules are those of LAPACK's ``dlaed2``; the
roots and the orthogonal eigenvectors (Gu and Eisenstat's recomputed update
vector) come from LAPACK's ``dlaed9``, the routine behind the merge step of
``dstedc``.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from libc.math cimport fabs, sqrt
from libc.string cimport memcpy
from scipy.linalg.cython_blas cimport dgemm, dgemv
from scipy.linalg.cython_lapack cimport dlaed9

# Doubles and indices of the scratch space of rank_one_update_inplace.
SCRATCH_DOUBLES_PER_SQUARE = 4
SCRATCH_DOUBLES_PER_ROW = 4
SCRATCH_INDICES_PER_ROW = 2


cdef int rank_one_update_inplace(
    Py_ssize_t k, double* d, double* V, const double* update,
    double* scratch, Py_ssize_t* index,
) noexcept nogil:
    """Eigenpairs of ``V diag(d) V^T + u u^T``, written over ``d`` and ``V``.

    ``d`` (ascending) and the orthonormal columns of the Fortran-ordered
    ``k x k`` array ``V`` are replaced by the updated eigenpairs. ``scratch``
    holds ``4 k + 4 k^2`` doubles and ``index`` ``2 k`` indices. Returns 0,
    or LAPACK's nonzero ``info`` when the secular-equation solver did not
    converge: ``d`` and ``V`` are then left partly updated and the caller
    must decompose the matrix afresh.
    """
    cdef Py_ssize_t i, j, pj, n_kept = 0, n_deflated = 0
    cdef double rho = 0.0, znorm, tol, c, s, tau, t, a, b, dmax = 0.0
    cdef double eps = 2.220446049250313e-16
    cdef int info = 0, kk = 0, one = 1, kv = <int>k
    cdef double alpha = 1.0, beta = 0.0
    cdef char transa = b"N", transt = b"T"
    # z and the secular problem (poles, update, roots), the kept columns of
    # V, dlaed9's work array, the small eigenvectors and a copy of V for the
    # final ordering.
    cdef double* z = scratch
    cdef double* poles = scratch + k
    cdef double* w = scratch + 2 * k
    cdef double* roots = scratch + 3 * k
    cdef double* kept_cols = scratch + 4 * k
    cdef double* work = kept_cols + k * k
    cdef double* vecs = work + k * k
    cdef double* copy = vecs + k * k
    cdef Py_ssize_t* kept = index
    cdef Py_ssize_t* order = index + k

    # z = V^T u.
    dgemv(&transt, &kv, &kv, &alpha, V, &kv, <double*>update, &one, &beta, z, &one)
    for j in range(k):
        rho += z[j] * z[j]
        dmax = max(dmax, fabs(d[j]))
    if rho == 0.0:
        return 0

    znorm = sqrt(rho)
    for i in range(k):
        z[i] /= znorm
    # dlaed2's tolerance, with the matrix scale made explicit: a coupling
    # below it is a rounding-level perturbation of S.
    tol = 8.0 * eps * max(dmax, rho)
    pj = -1
    for j in range(k):
        if rho * fabs(z[j]) <= tol:
            # Negligible component: (mu_j, v_j) is already an eigenpair.
            n_deflated += 1
            continue
        if pj < 0:
            pj = j
            continue
        # A Givens rotation of two (nearly) equal eigenvalues moves all of
        # the update onto v_j; v_pj then decouples up to tol.
        s = z[pj]
        c = z[j]
        tau = sqrt(c * c + s * s)
        t = d[j] - d[pj]
        c /= tau
        s = -s / tau
        if fabs(t * c * s) <= tol:
            z[j] = tau
            z[pj] = 0.0
            for i in range(k):
                a = V[i + pj * k]
                b = V[i + j * k]
                V[i + pj * k] = c * a + s * b
                V[i + j * k] = c * b - s * a
            a = d[pj]
            b = d[j]
            d[pj] = a * c * c + b * s * s
            d[j] = a * s * s + b * c * c
            n_deflated += 1
        else:
            kept[n_kept] = pj
            n_kept += 1
        pj = j
    if pj >= 0:
        kept[n_kept] = pj
        n_kept += 1

    if n_kept > 0:
        # The secular equation of the kept part: poles d[kept] (strictly
        # increasing after deflation), a unit update vector, weight rho.
        a = 0.0
        for i in range(n_kept):
            poles[i] = d[kept[i]]
            w[i] = z[kept[i]]
            a += w[i] * w[i]
        for i in range(n_kept):
            w[i] /= sqrt(a)
        rho *= a
        kk = <int>n_kept
        dlaed9(&kk, &one, &kk, &kk, roots, work, &kk, &rho, poles, w,
               vecs, &kk, &info)
        if info != 0:
            return info
        for j in range(n_kept):
            memcpy(kept_cols + j * k, V + kept[j] * k, k * sizeof(double))
        dgemm(&transa, &transa, &kv, &kk, &kk, &alpha, kept_cols, &kv,
              vecs, &kk, &beta, work, &kv)
        for j in range(n_kept):
            d[kept[j]] = roots[j]
            memcpy(V + kept[j] * k, work + j * k, k * sizeof(double))
    if n_deflated == 0:
        return 0
    # Insertion sort of the k eigenvalues (already sorted but for the
    # deflated ones), then the permutation applied to d and V.
    for i in range(k):
        order[i] = i
    for i in range(1, k):
        j = i
        while j > 0 and d[order[j - 1]] > d[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    memcpy(copy, V, k * k * sizeof(double))
    for j in range(k):
        poles[j] = d[order[j]]
        memcpy(V + j * k, copy + order[j] * k, k * sizeof(double))
    memcpy(d, poles, k * sizeof(double))
    return 0


def rank_one_eigh_update(const double[::1] eigvals, eigvecs, const double[::1] update):
    """Eigenpairs of :math:`V \\operatorname{diag}(\\mu) V^\\top + u u^\\top`.

    Parameters
    ----------
    eigvals : ndarray of shape (k,)
        Eigenvalues :math:`\\mu` in ascending order.
    eigvecs : ndarray of shape (k, k)
        Orthonormal eigenvectors :math:`V`, one per column.
    update : ndarray of shape (k,)
        The vector :math:`u`.

    Returns
    -------
    eigvals : ndarray of shape (k,)
        The new eigenvalues, ascending.
    eigvecs : ndarray of shape (k, k)
        The new eigenvectors (a new Fortran-ordered array).
    ok : bool
        False when LAPACK's secular-equation solver did not converge; the
        caller must then recompute the decomposition from scratch.
    """
    cdef Py_ssize_t k = eigvals.shape[0]
    cdef int info
    V_arr = np.array(eigvecs, dtype=np.float64, order="F", copy=True)
    d_arr = np.array(eigvals, dtype=np.float64, copy=True)
    scratch = np.empty(
        SCRATCH_DOUBLES_PER_ROW * k + SCRATCH_DOUBLES_PER_SQUARE * k * k,
        dtype=np.float64,
    )
    index = np.empty(SCRATCH_INDICES_PER_ROW * k, dtype=np.intp)
    cdef double[::1, :] V = V_arr
    cdef double[::1] d = d_arr
    cdef double[::1] buf = scratch
    cdef Py_ssize_t[::1] idx = index
    if k == 0:
        return d_arr, V_arr, True
    with nogil:
        info = rank_one_update_inplace(k, &d[0], &V[0, 0], &update[0], &buf[0], &idx[0])
    return d_arr, V_arr, info == 0
