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
roots come from LAPACK's ``dlaed4`` and the orthogonal eigenvectors from Gu
and Eisenstat's recomputed update vector, as LAPACK's ``dlaed9`` (the merge
step of ``dstedc``) computes them.

The update is cut into stages (:c:type:`Secular`): the deflation, one root
at a time, the update vector by rows, the eigenvectors and their rotation
into the old basis by columns. Within a stage the pieces are independent,
so the compiled CompAdaGrad step runs them on OpenMP threads; every piece
does the same arithmetic whichever thread runs it, and the rotation is
always cut in the same two halves, so the result does not depend on the
number of threads.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from libc.math cimport copysign, fabs, sqrt
from libc.string cimport memcpy
from scipy.linalg.cython_blas cimport dgemm, dgemv, dnrm2
from scipy.linalg.cython_lapack cimport dlaed4

# Doubles and indices of the scratch space of a Secular problem.
SCRATCH_DOUBLES_PER_SQUARE = 4
SCRATCH_DOUBLES_PER_ROW = 5
SCRATCH_INDICES_PER_ROW = 3


cdef int secular_prepare(
    Secular* sec, Py_ssize_t k, double* d, double* V, const double* update,
    double* scratch, Py_ssize_t* index,
) noexcept nogil:
    """Deflate ``V diag(d) V^T + u u^T`` and set up its secular equation.

    ``scratch`` holds ``5 k + 4 k^2`` doubles and ``index`` ``3 k``
    indices. Deflated pairs are rotated in ``d`` and ``V`` (Fortran-ordered
    ``k x k``). Returns 1 when there is nothing to solve (``u`` orthogonal
    to every eigenvector), else 0.
    """
    cdef Py_ssize_t i, j, pj
    cdef double rho = 0.0, znorm, tol, c, s, tau, t, a, b, dmax = 0.0
    cdef double eps = 2.220446049250313e-16, one_d = 1.0, zero_d = 0.0
    cdef int kv = <int>k, one = 1
    cdef char transt = b"T"
    cdef double* z = scratch
    sec.k = k
    sec.poles = scratch + k
    sec.w = scratch + 2 * k
    sec.roots = scratch + 3 * k
    sec.signs = scratch + 4 * k
    sec.Q = scratch + 5 * k
    sec.vecs = sec.Q + k * k
    sec.kept_cols = sec.vecs + k * k
    sec.work = sec.kept_cols + k * k
    sec.kept = index
    sec.order = index + k
    sec.infos = index + 2 * k
    sec.n_kept = 0
    sec.n_deflated = 0

    # z = V^T u.
    dgemv(&transt, &kv, &kv, &one_d, V, &kv, <double*>update, &one, &zero_d, z, &one)
    for j in range(k):
        rho += z[j] * z[j]
        dmax = max(dmax, fabs(d[j]))
    if rho == 0.0:
        return 1

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
            sec.n_deflated += 1
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
            sec.n_deflated += 1
        else:
            sec.kept[sec.n_kept] = pj
            sec.n_kept += 1
        pj = j
    if pj >= 0:
        sec.kept[sec.n_kept] = pj
        sec.n_kept += 1

    # The secular equation of the kept part: poles d[kept] (strictly
    # increasing after deflation), a unit update vector, weight rho.
    a = 0.0
    for i in range(sec.n_kept):
        sec.poles[i] = d[sec.kept[i]]
        sec.w[i] = z[sec.kept[i]]
        a += sec.w[i] * sec.w[i]
    for i in range(sec.n_kept):
        sec.w[i] /= sqrt(a)
        sec.signs[i] = sec.w[i]
    sec.rho = rho * a
    for j in range(sec.n_kept):
        memcpy(sec.kept_cols + j * k, V + sec.kept[j] * k, k * sizeof(double))
    return 0


cdef int secular_root(Secular* sec, Py_ssize_t j) noexcept nogil:
    """Root ``j`` of the secular equation (dlaed4): ``roots[j]`` and the
    differences ``poles - roots[j]`` in column ``j`` of ``Q``. Returns
    LAPACK's info."""
    cdef int kk = <int>sec.n_kept, jj = <int>j + 1, info = 0
    dlaed4(&kk, &jj, sec.poles, sec.w, sec.Q + j * sec.n_kept, &sec.rho,
           sec.roots + j, &info)
    sec.infos[j] = info
    return info


cdef void secular_weights(Secular* sec, Py_ssize_t i0, Py_ssize_t i1) noexcept nogil:
    """Gu and Eisenstat's update vector, rows ``i0:i1`` (all roots known).

    As dlaed9: the entry i is the product over the roots of the differences,
    in the order of the roots, which makes the eigenvectors orthogonal to
    working precision.
    """
    cdef Py_ssize_t kk = sec.n_kept, i, j
    cdef double* w = sec.work  # rows i0:i1 of the new vector, in place
    if kk <= 2:
        return
    for i in range(i0, i1):
        w[i] = sec.Q[i + i * kk]
    # The roots outermost, the rows innermost, as dlaed9 loops: the product
    # of each row then runs in the order of the roots, and the inner loop
    # has no dependency between iterations.
    for j in range(kk):
        for i in range(i0, min(j, i1)):
            w[i] = w[i] * (sec.Q[i + j * kk] / (sec.poles[i] - sec.poles[j]))
        for i in range(max(j + 1, i0), i1):
            w[i] = w[i] * (sec.Q[i + j * kk] / (sec.poles[i] - sec.poles[j]))
    for i in range(i0, i1):
        sec.w[i] = copysign(sqrt(-w[i]), sec.signs[i])


cdef void secular_rotate(
    Secular* sec, double* d, double* V, Py_ssize_t j0, Py_ssize_t j1,
) noexcept nogil:
    """Eigenvectors ``j0:j1`` of the secular problem, rotated into ``V``.

    The new eigenvector j of the kept part is ``V[:, kept] s_j`` with
    ``s_j`` the normalized ``w / (poles - root_j)`` (dlaed9's formula); the
    eigenvalue is the root.
    """
    cdef Py_ssize_t kk = sec.n_kept, k = sec.k, i, j
    cdef double temp, alpha = 1.0, beta = 0.0
    cdef int kv = <int>k, kki = <int>kk, width = <int>(j1 - j0), one = 1
    cdef char transa = b"N"
    if width <= 0:
        return
    for j in range(j0, j1):
        if kk <= 2:
            # dlaed4 returns the eigenvectors of a 1 x 1 or 2 x 2 problem.
            memcpy(sec.vecs + j * kk, sec.Q + j * kk, kk * sizeof(double))
            continue
        for i in range(kk):
            sec.Q[i + j * kk] = sec.w[i] / sec.Q[i + j * kk]
        temp = dnrm2(&kki, sec.Q + j * kk, &one)
        for i in range(kk):
            sec.vecs[i + j * kk] = sec.Q[i + j * kk] / temp
    if sec.n_deflated == 0:
        # Every column kept, in order: the product goes straight into V.
        dgemm(&transa, &transa, &kv, &width, &kki, &alpha, sec.kept_cols, &kv,
              sec.vecs + j0 * kk, &kki, &beta, V + j0 * k, &kv)
        for j in range(j0, j1):
            d[j] = sec.roots[j]
        return
    dgemm(&transa, &transa, &kv, &width, &kki, &alpha, sec.kept_cols, &kv,
          sec.vecs + j0 * kk, &kki, &beta, sec.work + j0 * k, &kv)
    for j in range(j0, j1):
        d[sec.kept[j]] = sec.roots[j]
        memcpy(V + sec.kept[j] * k, sec.work + j * k, k * sizeof(double))


cdef void secular_finish(Secular* sec, double* d, double* V) noexcept nogil:
    """Sort the eigenpairs by eigenvalue (only deflation unsorts them)."""
    cdef Py_ssize_t k = sec.k, i, j
    cdef Py_ssize_t* order = sec.order
    cdef double* copy = sec.kept_cols  # no longer needed
    if sec.n_deflated == 0:
        return
    for i in range(k):
        order[i] = i
    for i in range(1, k):
        j = i
        while j > 0 and d[order[j - 1]] > d[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    memcpy(copy, V, k * k * sizeof(double))
    for j in range(k):
        sec.poles[j] = d[order[j]]
        memcpy(V + j * k, copy + order[j] * k, k * sizeof(double))
    memcpy(d, sec.poles, k * sizeof(double))


cdef int rank_one_update_inplace(
    Py_ssize_t k, double* d, double* V, const double* update,
    double* scratch, Py_ssize_t* index,
) noexcept nogil:
    """Eigenpairs of ``V diag(d) V^T + u u^T``, written over ``d`` and ``V``.

    ``d`` (ascending) and the orthonormal columns of the Fortran-ordered
    ``k x k`` array ``V`` are replaced by the updated eigenpairs, the stages
    run in order on the calling thread. ``scratch`` holds ``5 k + 4 k^2``
    doubles and ``index`` ``3 k`` indices. Returns 0, or LAPACK's nonzero
    ``info`` when the root finder did not converge: ``d`` and ``V`` are then
    left partly updated and the caller must decompose the matrix afresh.
    """
    cdef Secular sec
    cdef Py_ssize_t j, half
    cdef int info
    if secular_prepare(&sec, k, d, V, update, scratch, index):
        return 0
    for j in range(sec.n_kept):
        info = secular_root(&sec, j)
        if info != 0:
            return info
    secular_weights(&sec, 0, sec.n_kept)
    half = sec.n_kept // 2
    secular_rotate(&sec, d, V, 0, half)
    secular_rotate(&sec, d, V, half, sec.n_kept)
    secular_finish(&sec, d, V)
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
