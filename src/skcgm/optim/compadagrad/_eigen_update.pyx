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
roots follow LAPACK's ``dlaed4`` (its iteration with the sums over the poles
on vector registers, ``dlaed4`` itself where that iteration does not
converge) and the orthogonal eigenvectors come from Gu and Eisenstat's
recomputed update vector, as LAPACK's ``dlaed9`` (the merge step of
``dstedc``) computes them.

The update runs in stages (:c:type:`Secular`): the deflation, the roots, the
update vector, the eigenvectors and their rotation into the old basis. The
compiled CompAdaGrad step calls them one after the other, between its own
stages.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from libc.math cimport copysign, fabs, sqrt
from libc.string cimport memcpy
from scipy.linalg.cython_blas cimport ddot, dgemm, dgemv, dnrm2
from scipy.linalg.cython_lapack cimport dlaed4

cdef double FLOAT64_MAX = 1.7976931348623157e308

# Iterations of an inner root before dlaed4 is asked instead (dlaed4 allows
# 30; its two-pole steps converge in 2 to 4).
cdef Py_ssize_t MAX_ITERATIONS = 12

# Doubles and indices of the scratch space of a Secular problem.
SCRATCH_DOUBLES_PER_SQUARE = 4
SCRATCH_DOUBLES_PER_ROW = 5
SCRATCH_INDICES_PER_ROW = 2


cdef int secular_prepare(
    Secular* sec, Py_ssize_t k, double* d, double* V, const double* update,
    double* scratch, Py_ssize_t* index,
) noexcept nogil:
    """Deflate ``V diag(d) V^T + u u^T`` and set up its secular equation.

    ``scratch`` holds ``5 k + 4 k^2`` doubles and ``index`` ``2 k``
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


cdef struct Sums:
    # The secular function without its origin's term, split at the origin.
    double psi
    double dpsi
    double phi
    double dphi
    double erretm


cdef extern from *:
    """
    /* The terms of the secular function over poles start..stop-1: their sum,
       the sum of their derivatives and that of the terms weighted by their
       distance to the origin (dlaed4 adds the partial sums of psi and phi
       into its error bound; their total is this weighted sum). Every term
       has the sign of its side, so the order of summation changes the sums
       by rounding only: four lanes of a vector register each sum every
       fourth term. GCC on x86-64 Linux builds an AVX2 and FMA copy beside
       the baseline one and picks it at load time where the processor has
       them (the divisions, four at a time, are most of a root's cost). */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \\
        && defined(__GLIBC__)
    #define SKCGM_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
    #else
    #define SKCGM_CLONES
    #endif
    #if defined(__GNUC__) || defined(__clang__)
    typedef double skcgm_v4d __attribute__((vector_size(32)));
    static SKCGM_CLONES void skcgm_side(
        const double* w, const double* shifted, double tau, Py_ssize_t start,
        Py_ssize_t stop, Py_ssize_t origin, double* value, double* slope,
        double* bound)
    {
        Py_ssize_t i, end = stop - (stop - start) % 4;
        skcgm_v4d P = {0, 0, 0, 0}, D = {0, 0, 0, 0}, E = {0, 0, 0, 0};
        skcgm_v4d wv, sv, t, four = {4, 4, 4, 4};
        skcgm_v4d dist = {0, 1, 2, 3};
        double p, d, e, t0;
        dist += (double)(start - origin);
        for (i = start; i < end; i += 4) {
            memcpy(&wv, w + i, sizeof(wv));
            memcpy(&sv, shifted + i, sizeof(sv));
            t = wv / (sv - tau);
            P += wv * t;
            D += t * t;
            E += dist * (wv * t);
            dist += four;
        }
        p = (P[0] + P[1]) + (P[2] + P[3]);
        d = (D[0] + D[1]) + (D[2] + D[3]);
        e = (E[0] + E[1]) + (E[2] + E[3]);
        for (i = end; i < stop; i++) {
            t0 = w[i] / (shifted[i] - tau);
            p += w[i] * t0;
            d += t0 * t0;
            e += (double)(i - origin) * (w[i] * t0);
        }
        *value = p;
        *slope = d;
        *bound = fabs(e);
    }
    #else
    static void skcgm_side(
        const double* w, const double* shifted, double tau, Py_ssize_t start,
        Py_ssize_t stop, Py_ssize_t origin, double* value, double* slope,
        double* bound)
    {
        Py_ssize_t i;
        double p = 0, d = 0, e = 0, t0;
        for (i = start; i < stop; i++) {
            t0 = w[i] / (shifted[i] - tau);
            p += w[i] * t0;
            d += t0 * t0;
            e += (double)(i - origin) * (w[i] * t0);
        }
        *value = p;
        *slope = d;
        *bound = fabs(e);
    }
    #endif
    """
    void _side "skcgm_side"(
        const double* w, const double* shifted, double tau, Py_ssize_t start,
        Py_ssize_t stop, Py_ssize_t origin, double* value, double* slope,
        double* bound,
    ) noexcept nogil


cdef inline void _sums(
    const double* w, const double* shifted, double tau, Py_ssize_t origin,
    Py_ssize_t kk, Sums* out,
) noexcept nogil:
    """psi and its derivative over the poles below the origin, phi and its
    derivative over those above, and dlaed4's error bound of their sum."""
    cdef double below, above
    _side(w, shifted, tau, 0, origin, origin, &out.psi, &out.dpsi, &below)
    _side(w, shifted, tau, origin + 1, kk, origin, &out.phi, &out.dphi, &above)
    out.erretm = below + above


cdef int _inner_root(Secular* sec, Py_ssize_t j, double* shifted) noexcept nogil:
    """Root ``j < n_kept - 1`` by dlaed4's iteration on two poles.

    dlaed4's initial guess, origin, convergence test and safeguards, and its
    two-pole steps (the middle way, switching to fixed weights as it does);
    where dlaed4 would interpolate three poles (its dlaed6 branch), the
    two-pole step is taken too. ``shifted`` receives ``poles - origin``.
    Returns 0 with ``roots[j]`` and column ``j`` of ``Q`` set, or 1 if the
    iteration did not converge in MAX_ITERATIONS (the caller then asks
    dlaed4).
    """
    cdef Py_ssize_t kk = sec.n_kept, i, ii, it
    cdef const double* d = sec.poles
    cdef const double* w = sec.w
    cdef double rhoinv = 1.0 / sec.rho, eps = 2.220446049250313e-16
    cdef double delta_, midpt, c, value, a, b, tau, lower, upper, origin_pole
    cdef double temp, dw, eta, prew, di, dip1, wi2, wip12, psi, dpsi, dphi
    cdef bint orgati, swtch
    cdef Sums sums
    cdef double* out = sec.Q + j * kk

    delta_ = d[j + 1] - d[j]
    midpt = delta_ / 2.0
    for i in range(kk):
        shifted[i] = d[i] - d[j]
    # The function at the midpoint, to choose the origin (the closer pole).
    _sums(w, shifted, midpt, j, kk, &sums)
    wi2 = w[j] * w[j]
    wip12 = w[j + 1] * w[j + 1]
    temp = w[j + 1] / (shifted[j + 1] - midpt)
    c = rhoinv + sums.psi + (sums.phi - w[j + 1] * temp)
    value = c + wi2 / (shifted[j] - midpt) + w[j + 1] * temp
    orgati = value > 0.0
    if orgati:
        a = c * delta_ + wi2 + wip12
        b = wi2 * delta_
        if a > 0.0:
            tau = 2.0 * b / (a + sqrt(fabs(a * a - 4.0 * b * c)))
        else:
            tau = (a - sqrt(fabs(a * a - 4.0 * b * c))) / (2.0 * c)
        lower = 0.0
        upper = midpt
        ii = j
    else:
        a = c * delta_ - wi2 - wip12
        b = wip12 * delta_
        if a < 0.0:
            tau = 2.0 * b / (a - sqrt(fabs(a * a + 4.0 * b * c)))
        else:
            tau = -(a + sqrt(fabs(a * a + 4.0 * b * c))) / (2.0 * c)
        lower = -midpt
        upper = 0.0
        ii = j + 1
        for i in range(kk):
            shifted[i] = d[i] - d[j + 1]
    origin_pole = d[ii]

    swtch = False
    prew = 0.0
    for it in range(MAX_ITERATIONS):
        _sums(w, shifted, tau, ii, kk, &sums)
        temp = w[ii] / (shifted[ii] - tau)
        dw = sums.dpsi + sums.dphi + temp * temp
        temp = w[ii] * temp
        value = rhoinv + sums.phi + sums.psi + temp
        if it > 0 and value * prew > 0.0 and fabs(value) > fabs(prew) / 10.0:
            swtch = not swtch
        if (
            fabs(value) <= eps * (
                8.0 * (sums.phi - sums.psi) + sums.erretm + 2.0 * rhoinv
                + 3.0 * fabs(temp) + fabs(tau) * dw
            )
        ):
            sec.roots[j] = origin_pole + tau
            for i in range(kk):
                out[i] = shifted[i] - tau
            return 0
        if value <= 0.0:
            lower = max(lower, tau)
        else:
            upper = min(upper, tau)
        di = shifted[j] - tau
        dip1 = shifted[j + 1] - tau
        temp = w[ii] / (shifted[ii] - tau)
        dpsi = sums.dpsi + temp * temp if orgati else sums.dpsi
        dphi = sums.dphi if orgati else sums.dphi + temp * temp
        if not swtch:
            # The middle way: the far pole's term kept as it is.
            if orgati:
                temp = w[j] / di
                c = value - dip1 * dw - (d[j] - d[j + 1]) * temp * temp
            else:
                temp = w[j + 1] / dip1
                c = value - di * dw - (d[j + 1] - d[j]) * temp * temp
        else:
            # Fixed weights: each side's derivative on its own pole.
            c = value - di * dpsi - dip1 * dphi
        a = (di + dip1) * value - di * dip1 * dw
        b = di * dip1 * value
        if c == 0.0:
            if a == 0.0:
                if swtch:
                    a = di * di * dpsi + dip1 * dip1 * dphi
                elif orgati:
                    a = wi2 + dip1 * dip1 * (sums.dpsi + sums.dphi)
                else:
                    a = wip12 + di * di * (sums.dpsi + sums.dphi)
            eta = b / a
        elif a <= 0.0:
            eta = (a - sqrt(fabs(a * a - 4.0 * b * c))) / (2.0 * c)
        else:
            eta = 2.0 * b / (a + sqrt(fabs(a * a - 4.0 * b * c)))
        # eta must have the sign opposite to the function's: a Newton step
        # where rounding says otherwise, bisection outside the bracket.
        if value * eta >= 0.0:
            eta = -value / dw
        temp = tau + eta
        if temp > upper or temp < lower:
            if value < 0.0:
                eta = (upper - tau) / 2.0
            else:
                eta = (lower - tau) / 2.0
        prew = value
        tau = tau + eta
    return 1


cdef int secular_roots(Secular* sec) noexcept nogil:
    """Every root of the secular equation: ``roots`` and the differences
    ``poles - roots[j]`` in column ``j`` of ``Q``.

    The inner roots by :func:`_inner_root`, whose sums run on vector
    registers (LAPACK's dlaed4 runs the same iteration one term at a time,
    three times slower at k = 64); the last root, the problems of at most
    two poles and any inner root that did not converge by dlaed4. Returns
    0, or the first nonzero info of dlaed4 (the caller then decomposes
    afresh).
    """
    cdef Py_ssize_t kk = sec.n_kept, j
    cdef int n = <int>kk, jj, info
    for j in range(kk):
        # sec.work is free until the update vector is recomputed.
        if kk > 2 and j < kk - 1 and _inner_root(sec, j, sec.work) == 0:
            continue
        jj = <int>j + 1
        info = 0
        dlaed4(&n, &jj, sec.poles, sec.w, sec.Q + j * kk, &sec.rho,
               sec.roots + j, &info)
        if info != 0:
            return info
    return 0


cdef void secular_weights(Secular* sec) noexcept nogil:
    """Gu and Eisenstat's update vector (all roots known).

    As dlaed9: the entry i is the product over the roots of the differences,
    in the order of the roots, which makes the eigenvectors orthogonal to
    working precision.
    """
    cdef Py_ssize_t kk = sec.n_kept, i, j
    cdef double* w = sec.work  # the new vector, in place
    if kk <= 2:
        return
    for i in range(kk):
        w[i] = sec.Q[i + i * kk]
    # The roots outermost, the rows innermost, as dlaed9 loops: the product
    # of each row then runs in the order of the roots, and the inner loop
    # has no dependency between iterations.
    for j in range(kk):
        for i in range(j):
            w[i] = w[i] * (sec.Q[i + j * kk] / (sec.poles[i] - sec.poles[j]))
        for i in range(j + 1, kk):
            w[i] = w[i] * (sec.Q[i + j * kk] / (sec.poles[i] - sec.poles[j]))
    for i in range(kk):
        sec.w[i] = copysign(sqrt(-w[i]), sec.signs[i])


cdef void secular_rotate(Secular* sec, double* d, double* V) noexcept nogil:
    """The eigenvectors of the secular problem, rotated into ``V``.

    The new eigenvector j of the kept part is ``V[:, kept] s_j`` with
    ``s_j`` the normalized ``w / (poles - root_j)`` (dlaed9's formula); the
    eigenvalue is the root.
    """
    cdef Py_ssize_t kk = sec.n_kept, k = sec.k, i, j
    cdef double norm, alpha = 1.0, beta = 0.0
    cdef int kv = <int>k, kki = <int>kk, one = 1
    cdef char transa = b"N"
    cdef double* column
    if kk == 0:
        return
    for j in range(kk):
        column = sec.Q + j * kk
        if kk <= 2:
            # dlaed4 returns the eigenvectors of a 1 x 1 or 2 x 2 problem.
            memcpy(sec.vecs + j * kk, column, kk * sizeof(double))
            continue
        for i in range(kk):
            column[i] = sec.w[i] / column[i]
        # The plain norm; dnrm2's scaling (three times slower) only where
        # the squares leave the range of doubles.
        norm = sqrt(ddot(&kki, column, &one, column, &one))
        if not (norm > 0.0 and norm <= FLOAT64_MAX):
            norm = dnrm2(&kki, column, &one)
        for i in range(kk):
            sec.vecs[i + j * kk] = column[i] / norm
    if sec.n_deflated == 0:
        # Every column kept, in order: the product goes straight into V.
        dgemm(&transa, &transa, &kv, &kki, &kki, &alpha, sec.kept_cols, &kv,
              sec.vecs, &kki, &beta, V, &kv)
        for j in range(kk):
            d[j] = sec.roots[j]
        return
    dgemm(&transa, &transa, &kv, &kki, &kki, &alpha, sec.kept_cols, &kv,
          sec.vecs, &kki, &beta, sec.work, &kv)
    for j in range(kk):
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
    run in order. ``scratch`` holds ``5 k + 4 k^2`` doubles and ``index``
    ``2 k`` indices. Returns 0, or LAPACK's nonzero
    ``info`` when the root finder did not converge: ``d`` and ``V`` are then
    left partly updated and the caller must decompose the matrix afresh.
    """
    cdef Secular sec
    cdef int info
    if secular_prepare(&sec, k, d, V, update, scratch, index):
        return 0
    info = secular_roots(&sec)
    if info != 0:
        return info
    secular_weights(&sec)
    secular_rotate(&sec, d, V)
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
