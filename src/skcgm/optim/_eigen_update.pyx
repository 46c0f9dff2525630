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
from scipy.linalg.cython_blas cimport dgemm
from scipy.linalg.cython_lapack cimport dlaed9


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
    cdef Py_ssize_t i, j, pj, n_kept = 0, n_deflated = 0
    cdef double rho, znorm, tol, c, s, tau, t, a, b, dmax = 0.0
    cdef double eps = 2.220446049250313e-16
    cdef int info = 0, kk, one = 1
    cdef double alpha = 1.0, beta = 0.0
    cdef char transa = b"N"

    V_arr = np.array(eigvecs, dtype=np.float64, order="F", copy=True)
    d_arr = np.array(eigvals, dtype=np.float64, copy=True)
    # Scratch: z and the secular problem (poles, update, roots), the kept
    # columns of V, dlaed9's work array and the small eigenvectors.
    scratch = np.empty(4 * k + 3 * k * k, dtype=np.float64)
    index = np.empty(2 * k, dtype=np.intp)
    cdef double[::1, :] V = V_arr
    cdef double[::1] d = d_arr
    cdef double[::1] buf = scratch
    cdef double* z = &buf[0]
    cdef double* poles = &buf[k]
    cdef double* w = &buf[2 * k]
    cdef double* roots = &buf[3 * k]
    cdef double* kept_cols = &buf[4 * k]
    cdef double* work = &buf[4 * k + k * k]
    cdef double* vecs = &buf[4 * k + 2 * k * k]
    cdef Py_ssize_t[::1] idx = index
    cdef Py_ssize_t* kept = &idx[0]
    cdef Py_ssize_t* order = &idx[k]

    with nogil:
        rho = 0.0
        for j in range(k):
            a = 0.0
            for i in range(k):
                a += V[i, j] * update[i]
            z[j] = a
            rho += a * a
            dmax = max(dmax, fabs(d[j]))
    if rho == 0.0:
        return d_arr, V_arr, True

    with nogil:
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
                    a = V[i, pj]
                    b = V[i, j]
                    V[i, pj] = c * a + s * b
                    V[i, j] = c * b - s * a
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
        return d_arr, V_arr, False

    cdef int kv = <int>k
    with nogil:
        if n_kept > 0:
            for j in range(n_kept):
                for i in range(k):
                    kept_cols[i + j * k] = V[i, kept[j]]
            dgemm(&transa, &transa, &kv, &kk, &kk, &alpha, kept_cols, &kv,
                  vecs, &kk, &beta, work, &kv)
            for j in range(n_kept):
                d[kept[j]] = roots[j]
                for i in range(k):
                    V[i, kept[j]] = work[i + j * k]
        # Insertion sort of the k eigenvalues (already sorted but for the
        # deflated ones).
        for i in range(k):
            order[i] = i
        for i in range(1, k):
            j = i
            while j > 0 and d[order[j - 1]] > d[order[j]]:
                order[j - 1], order[j] = order[j], order[j - 1]
                j -= 1
    if n_deflated == 0:
        return d_arr, V_arr, True
    perm = index[k:]
    return d_arr[perm], np.asfortranarray(V_arr[:, perm]), True
