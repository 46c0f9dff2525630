# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False, cdivision=True
"""CompAdaGrad's epoch on dense rows in one compiled loop.

The default path of :class:`~skcgm.linear_model.CompAdaGradClassifier`
(squared-l2 or no penalty, a subspace strictly between 0 and the padded
dimension, an SRHT projection, a margin loss of ``SGDClassifier``): per
mini-batch, the margins and the loss derivative, the batch gradient, the
CompAdaGrad step of :func:`skcgm.optim.compadagrad_step` (eqs. 13-15 of
Mehta et al., 2016) and the intercept's scalar AdaGrad step, with no Python
call and no allocation per step.

The products with :math:`\\Pi = c\\, R H \\Sigma` are Walsh-Hadamard
transforms, :math:`O(n \\log n)` each instead of the :math:`O(nk)` of the
explicit ``components_`` the Python step multiplies by; the subspace
eigendecomposition is updated for the rank-one change of :math:`S` (the
secular equation of :mod:`skcgm.optim._eigen_update`) and refreshed by
LAPACK's ``dsyevd`` every 256 steps, as in the Python step; the complement's
system :math:`\\Pi B \\Pi^\\top \\nu = \\Pi B y` is solved by Cholesky. The
arithmetic is the Python step's up to the order of summation (equal to
about 1e-15 relative per step); a step the compiled loop cannot take (a
Cholesky factorization or ``dsyevd`` that fails) is handed back to the
Python step, whose fallbacks handle it.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from libc.math cimport exp, fabs, isfinite, log1p, sqrt
from libc.string cimport memcpy, memset
from scipy.linalg.cython_blas cimport ddot, dgemv
from scipy.linalg.cython_lapack cimport dpotrf, dpotrs, dsyevd

from ._eigen_update cimport rank_one_update_inplace

ctypedef fused floating:
    float
    double

# Status of an epoch call.
DONE = 0
OVERFLOW = 1
PYTHON_STEP = 2

# Loss codes (the margin losses of skcgm.oracles).
HINGE = 0
PERCEPTRON = 1
SQUARED_HINGE = 2
MODIFIED_HUBER = 3
LOG_LOSS = 4

# Variant codes.
PAPER = 0
THEORY = 1
BALANCED = 2
ADAPTIVE = 3

# As in skcgm.optim._compadagrad.
cdef Py_ssize_t EIGH_REFRESH_STEPS = 256
cdef double EPS = 2.220446049250313e-16
cdef double FLOAT64_MAX = 1.7976931348623157e308

# The slots of the scalars and counters the epoch reads and updates.
INTERCEPT, INTERCEPT_SQ, LOSS_SUM, PENALTY_SUM, GRAD_INTERCEPT = range(5)
N_UPDATES, N_FLOPS, CACHE_VALID = range(3)


def workspace_sizes(Py_ssize_t n, Py_ssize_t k, Py_ssize_t batch_size):
    """``(doubles, indices)`` of the workspace of an epoch call.

    The gradient, the batch's loss derivatives and the step's vectors and
    matrices, with room for the rank-one update's scratch (4 k + 4 k^2) or
    dsyevd's work array (1 + 6 k + 2 k^2) and its 3 + 5 k integers.
    """
    return (
        10 * n + batch_size + 10 * k + 3 * k * k + 1 + 6 * k + 4 * k * k,
        3 + 5 * k,
    )


cdef inline long long _log2(Py_ssize_t n) noexcept nogil:
    cdef long long r = 0
    while n > 1:
        n >>= 1
        r += 1
    return r


cdef void _fwht(double* a, double* b, Py_ssize_t n) noexcept nogil:
    """Unnormalized Walsh-Hadamard transforms of ``a`` and ``b`` in place.

    Sylvester order; ``b`` may be NULL. Two vectors share the loops: their
    butterflies are independent, so they fill the pipeline together.
    """
    cdef Py_ssize_t h = 1, i, j
    cdef double u, v
    while h < n:
        i = 0
        while i < n:
            for j in range(i, i + h):
                u = a[j]
                v = a[j + h]
                a[j] = u + v
                a[j + h] = u - v
            if b != NULL:
                for j in range(i, i + h):
                    u = b[j]
                    v = b[j + h]
                    b[j] = u + v
                    b[j + h] = u - v
            i += 2 * h
        h *= 2


cdef struct Projection:
    Py_ssize_t n
    Py_ssize_t k
    const Py_ssize_t* rows
    const double* signs
    double factor  # c / sqrt(n): Pi = factor R W Sigma, W the +-1 matrix


cdef void _apply(
    Projection* P, const double* v1, const double* v2, double* t1, double* t2,
    double* out1, double* out2,
) noexcept nogil:
    """``out1 = Pi v1`` and ``out2 = Pi v2`` (k entries each; ``v2`` may be
    NULL); ``t1`` and ``t2`` (n entries) keep ``W Sigma v``."""
    cdef Py_ssize_t i
    for i in range(P.n):
        t1[i] = P.signs[i] * v1[i]
    if v2 != NULL:
        for i in range(P.n):
            t2[i] = P.signs[i] * v2[i]
    _fwht(t1, t2 if v2 != NULL else NULL, P.n)
    for i in range(P.k):
        out1[i] = P.factor * t1[P.rows[i]]
    if v2 != NULL:
        for i in range(P.k):
            out2[i] = P.factor * t2[P.rows[i]]


cdef void _apply_transpose(
    Projection* P, const double* u1, const double* u2, double scale,
    double* out1, double* out2,
) noexcept nogil:
    """``out1 = scale Pi^T u1`` and ``out2 = scale Pi^T u2`` (n entries)."""
    cdef Py_ssize_t i
    cdef double f = P.factor * scale
    memset(out1, 0, P.n * sizeof(double))
    memset(out2, 0, P.n * sizeof(double))
    for i in range(P.k):
        out1[P.rows[i]] = u1[i]
        out2[P.rows[i]] = u2[i]
    _fwht(out1, out2, P.n)
    for i in range(P.n):
        out1[i] *= f * P.signs[i]
        out2[i] *= f * P.signs[i]


cdef struct Step:
    double eta
    double lam
    double tau
    double delta
    double c2
    int variant


cdef int _eigh_fresh(
    Py_ssize_t k, const double* S, double* mu, double* V, double* work,
    int* iwork,
) noexcept nogil:
    """LAPACK's dsyevd of S (lower), with scipy's default workspace."""
    cdef char jobz = b"V"
    cdef char uplo = b"L"
    cdef int kk = <int>k, lwork = <int>(1 + 6 * k + 2 * k * k)
    cdef int liwork = <int>(3 + 5 * k), info = 0
    memcpy(V, S, k * k * sizeof(double))
    dsyevd(&jobz, &uplo, &kk, V, &kk, mu, work, &lwork, iwork, &liwork, &info)
    return info


cdef int _step(
    Projection* P, Step* st, double* x, double* S, double* s, double* mu,
    double* V, long long* counters, double* g, double* w, Py_ssize_t* iw,
) noexcept nogil:
    """One l2 CompAdaGrad step with gradient ``g``, committed if finite.

    Returns DONE, OVERFLOW (the state unchanged) or PYTHON_STEP (the state
    unchanged; the Python step must take it).
    """
    cdef Py_ssize_t n = P.n, k = P.k, i, j
    cdef double c2 = st.c2, lam = st.lam, a, total, root_sum, rank, top
    cdef long long flops, n_updates = counters[0]
    cdef bint fresh
    cdef int info = 0, kk = <int>k, one = 1, i_one = 1
    cdef double d_one = 1.0, d_zero = 0.0
    cdef char trans_t = b"T", trans_n = b"N", uplo = b"L"
    # Workspace layout.
    cdef double* t = w
    cdef double* pg = t + n
    cdef double* pxb = pg + n
    cdef double* s_new = pxb + n
    cdef double* dvec = s_new + n
    cdef double* b = dvec + n
    cdef double* by = b + n
    cdef double* back = by + n
    cdef double* x_new = back + n
    cdef double* p = x_new + n
    cdef double* px = p + k
    cdef double* kappa = px + k
    cdef double* vp = kappa + k
    cdef double* vx = vp + k
    cdef double* rhs = vx + k
    cdef double* z = rhs + k
    cdef double* nu = z + k
    cdef double* mu_new = nu + k
    cdef double* mu_cut = mu_new + k
    cdef double* S_new = mu_cut + k
    cdef double* V_new = S_new + k * k
    cdef double* M = V_new + k * k
    cdef double* scratch = M + k * k  # 4 k + 4 k^2, then dsyevd's work
    cdef Py_ssize_t* index = iw  # 2 k, then dsyevd's iwork

    # 1. Statistics, including g_t: p = Pi g, Pi x, P g and P x.
    _apply(P, g, x, t, back, p, px)
    _apply_transpose(P, p, px, 1.0 / c2, pg, pxb)
    for j in range(k):
        for i in range(k):
            S_new[i + j * k] = S[i + j * k] + p[i] * p[j]
    for i in range(n):
        pg[i] = g[i] - pg[i]  # P_perp g
        s_new[i] = s[i] + pg[i] * pg[i]
    for i in range(k * k):
        if not isfinite(S_new[i]):
            return 1
    for i in range(n):
        if not isfinite(s_new[i]):
            return 1
    flops = 8 * n * k + 2 * k * k + 5 * n

    # 2. Eigenpairs of S_new: the cached ones updated, or afresh.
    fresh = counters[2] == 0 or n_updates % EIGH_REFRESH_STEPS == 0
    if not fresh:
        memcpy(mu_new, mu, k * sizeof(double))
        memcpy(V_new, V, k * k * sizeof(double))
        info = rank_one_update_inplace(k, mu_new, V_new, p, scratch, index)
        fresh = info != 0
        flops += 12 * k * k + 2 * k * k * k
    if fresh:
        info = _eigh_fresh(k, S_new, mu_new, V_new, scratch, <int*>index)
        if info != 0:
            return 2
        flops += 9 * k * k * k
    # Eigenvalues at rounding level are zeros (see the Python step).
    top = mu_new[k - 1]
    for i in range(k):
        mu_cut[i] = 0.0 if mu_new[i] <= k * EPS * top else mu_new[i]
    if st.variant == 0:
        for i in range(k):
            kappa[i] = sqrt(mu_cut[i] + st.delta)
    else:
        for i in range(k):
            kappa[i] = (sqrt(mu_cut[i] / c2) + st.delta) / c2
        if st.variant == 2:
            a = sqrt(<double>k)
            for i in range(k):
                kappa[i] /= a
            flops += k
        elif st.variant == 3:
            total = 0.0
            root_sum = 0.0
            for i in range(k):
                total += mu_cut[i]
                root_sum += sqrt(mu_cut[i])
            rank = root_sum * root_sum / total if total > 0 else 1.0
            a = sqrt(k / max(rank, 1.0))
            for i in range(k):
                kappa[i] /= a
            flops += 3 * k
    flops += 5 * k
    for i in range(n):
        dvec[i] = (sqrt(s_new[i]) + st.delta) * st.tau
    flops += 3 * n

    # 3. Subspace part, eq. (13), in the eigenbasis.
    dgemv(&trans_t, &kk, &kk, &d_one, V_new, &kk, px, &i_one, &d_zero, vx, &i_one)
    dgemv(&trans_t, &kk, &kk, &d_one, V_new, &kk, p, &i_one, &d_zero, vp, &i_one)
    for i in range(k):
        rhs[i] = (kappa[i] * vx[i] - (st.eta / c2) * vp[i]) / (c2 * kappa[i] + lam)
    dgemv(&trans_n, &kk, &kk, &d_one, V_new, &kk, rhs, &i_one, &d_zero, z, &i_one)
    flops += 6 * k * k + 6 * k

    # Complement, eqs. (14)-(15): x_perp = B (y - Pi^T nu).
    for i in range(n):
        b[i] = 1.0 / (dvec[i] + lam)
        by[i] = ((x[i] - pxb[i]) * dvec[i] - st.eta * pg[i]) * b[i]
    flops += 6 * n
    # Pi B Pi^T from one transform of b (see _srht_weighted_gram).
    memcpy(t, b, n * sizeof(double))
    _fwht(t, NULL, n)
    a = c2 / n
    for j in range(k):
        for i in range(k):
            M[i + j * k] = t[P.rows[i] ^ P.rows[j]] * a
    _apply(P, by, NULL, t, NULL, nu, NULL)
    dpotrf(&uplo, &kk, M, &kk, &info)
    if info != 0:
        return 2
    dpotrs(&uplo, &kk, &one, M, &kk, nu, &kk, &info)
    if info != 0:
        return 2
    # x_new = Pi^T z + (B y - B Pi^T nu), as the Python step sums them.
    _apply_transpose(P, nu, z, 1.0, back, t)
    for i in range(n):
        x_new[i] = t[i] + (by[i] - b[i] * back[i])
        if not isfinite(x_new[i]):
            return 1
    flops += (
        4 * n + n * _log2(n) + 2 * k * k + (k * k * k) // 3 + 6 * n * k
        + 2 * k * k + n
    )

    # Commit.
    memcpy(S, S_new, k * k * sizeof(double))
    memcpy(mu, mu_new, k * sizeof(double))
    memcpy(V, V_new, k * k * sizeof(double))
    memcpy(s, s_new, n * sizeof(double))
    memcpy(x, x_new, n * sizeof(double))
    counters[0] = n_updates + 1
    counters[1] += flops
    counters[2] = 1
    return 0


cdef inline double _row_dot(
    const floating* row, const double* w, Py_ssize_t m
) noexcept nogil:
    """``<row, w>`` in float64: BLAS for float64 rows; float32 rows widened
    with four running sums, whose independent chains the compiler overlaps.
    """
    cdef int mm = <int>m, one = 1
    cdef Py_ssize_t j
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    if floating is double:
        return ddot(&mm, <double*>row, &one, <double*>w, &one)
    for j in range(0, m - 3, 4):
        s0 += row[j] * w[j]
        s1 += row[j + 1] * w[j + 1]
        s2 += row[j + 2] * w[j + 2]
        s3 += row[j + 3] * w[j + 3]
    for j in range(m - m % 4, m):
        s0 += row[j] * w[j]
    return (s0 + s1) + (s2 + s3)


cdef inline double _hinge(double z) noexcept nogil:
    return 1.0 - z if 1.0 - z > 0.0 else 0.0


cdef inline double _derivative(int loss, double z) noexcept nogil:
    """f'(z) of the margin losses (skcgm.oracles, at the kinks as SGD)."""
    if loss == 0:
        return -1.0 if z <= 1.0 else -0.0
    if loss == 1:
        return -1.0 if z <= 0.0 else -0.0
    if loss == 2:
        return -2.0 * _hinge(z)
    if loss == 3:
        return -2.0 * _hinge(z) if z >= -1.0 else -4.0
    # -expit(-z), scipy's form.
    return -(1.0 / (1.0 + exp(z)))


cdef inline double _value(int loss, double z) noexcept nogil:
    """f(z) of the margin losses."""
    cdef double h
    if loss == 0:
        return _hinge(z)
    if loss == 1:
        return -z if -z > 0.0 else 0.0
    if loss == 2:
        h = _hinge(z)
        return h * h
    if loss == 3:
        h = _hinge(z)
        return h * h if z >= -1.0 else -4.0 * z
    # logaddexp(0, -z), numpy's form.
    if z == 0.0:
        return 0.6931471805599453
    if z > 0.0:
        return log1p(exp(-z))
    return -z + log1p(exp(z))


def dense_epoch(
    const floating[:, ::1] X,
    const Py_ssize_t[::1] order,
    const double[::1] y,
    const double[::1] signed_weights,
    const double[::1] weights,
    double[::1] coef,
    double[:, ::1] subspace_gram,
    double[::1] complement_sq,
    double[::1] eigvals,
    double[::1, :] eigvecs,
    const Py_ssize_t[::1] rows,
    const double[::1] signs,
    double scale,
    double eta,
    double lam,
    double tau,
    double delta,
    int variant,
    double alpha_l2,
    int loss,
    bint need_loss,
    bint fit_intercept,
    double coef_max,
    double x_max,
    Py_ssize_t batch_size,
    Py_ssize_t first_batch,
    bint resume,
    double[::1] scalars,
    long long[::1] counters,
    double[::1] work,
    Py_ssize_t[::1] iwork,
):
    """Run the mini-batches from ``first_batch`` on; see the module docstring.

    ``order`` (empty: the stored order) gives the rows; ``y``,
    ``signed_weights`` and ``weights`` (empty unless ``need_loss``) are in
    that order. The state arrays, ``scalars`` (intercept, its squared
    gradient sum, the loss and penalty sums, the batch's intercept gradient)
    and ``counters`` (steps, flops, whether ``eigvals``/``eigvecs`` hold the
    decomposition of ``subspace_gram``) are updated in place. With
    ``resume``, the step of ``first_batch`` was taken by the Python step:
    only its intercept update and checks remain.

    Returns ``(status, batch)``: DONE, OVERFLOW at mini-batch ``batch``, or
    PYTHON_STEP with the gradient of mini-batch ``batch`` in ``work[:n]``.
    """
    cdef Py_ssize_t n_samples = y.shape[0], n_features = X.shape[1]
    cdef Py_ssize_t n = coef.shape[0], k = rows.shape[0]
    cdef Py_ssize_t start, stop, i, j, r, batch
    cdef bint has_order = order.shape[0] > 0
    cdef double zi, dot, ci, gi, inv, coef_norm, wnorm = 0.0, batch_loss
    cdef double* g = &work[0]
    cdef double* coeff = g + n
    cdef const floating* row
    cdef int status = 0
    cdef Projection P
    cdef Step st
    P.n = n
    P.k = k
    P.rows = &rows[0]
    P.signs = &signs[0]
    P.factor = scale / sqrt(<double>n)
    st.eta = eta
    st.lam = lam
    st.tau = tau
    st.delta = delta
    st.c2 = scale * scale
    st.variant = variant

    with nogil:
        batch = first_batch
        start = first_batch * batch_size
        while start < n_samples:
            stop = min(start + batch_size, n_samples)
            if not resume:
                inv = 1.0 / (stop - start)
                gi = 0.0
                memset(g, 0, n * sizeof(double))
                batch_loss = 0.0
                if need_loss:
                    wnorm = 0.0
                    for j in range(n):
                        wnorm += coef[j] * coef[j]
                for i in range(start, stop):
                    r = order[i] if has_order else i
                    dot = _row_dot(&X[r, 0], &coef[0], n_features)
                    zi = y[i] * (dot + scalars[0])
                    ci = signed_weights[i] * _derivative(loss, zi) * inv
                    coeff[i - start] = ci
                    gi += ci
                    if need_loss:
                        batch_loss += weights[i] * _value(loss, zi)
                for i in range(start, stop):
                    r = order[i] if has_order else i
                    row = &X[r, 0]
                    ci = coeff[i - start]
                    for j in range(n_features):
                        g[j] += ci * row[j]
                scalars[4] = gi
                if need_loss:
                    scalars[2] += batch_loss
                    scalars[3] += (stop - start) * (alpha_l2 * (0.5 * wnorm))
                for j in range(n_features):
                    if not isfinite(g[j]):
                        status = 1
                        break
                if status != 0:
                    break
                status = _step(
                    &P, &st, &coef[0], &subspace_gram[0, 0], &complement_sq[0],
                    &eigvals[0], &eigvecs[0, 0], &counters[0], g, coeff + batch_size,
                    &iwork[0],
                )
                if status != 0:
                    break
            resume = False
            if fit_intercept:
                gi = scalars[4]
                scalars[1] += gi * gi
                scalars[0] -= eta * gi / (delta + sqrt(scalars[1]))
            coef_norm = 0.0
            for j in range(n_features):
                coef_norm += fabs(coef[j])
            if not (
                coef_norm <= coef_max
                and coef_norm * x_max + fabs(scalars[0]) <= coef_max
                and scalars[1] <= FLOAT64_MAX
            ):
                status = 1
                break
            batch += 1
            start = stop
    return status, batch
