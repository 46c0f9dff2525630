# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False, cdivision=True
"""CompAdaGrad's epoch on dense rows in one compiled loop.

The default path of :class:`~skcgm.linear_model.CompAdaGradClassifier`
(squared-l2 or no penalty, a subspace smaller than the padded dimension,
diagonal AdaGrad's empty one included, an SRHT projection, a margin loss of
``SGDClassifier``): per mini-batch, the margins and the loss derivative, the
batch gradient, the CompAdaGrad step of :func:`skcgm.optim.compadagrad_step`
(eqs. 13-15 of Mehta et al., 2016) and the intercept's scalar AdaGrad step,
with no Python call and no allocation per step, on the calling thread: a
step's pieces take microseconds, too little to share among threads on a
machine where other processes run (``skcgm.utils._threads``).

The products with :math:`\\Pi = c\\, R H \\Sigma` are Walsh-Hadamard
transforms, :math:`O(n \\log n)` each instead of the :math:`O(nk)` of the
explicit ``components_`` the Python step multiplies by; the subspace
eigendecomposition is updated for the rank-one change of :math:`S` (the
secular equation of :mod:`skcgm.optim.compadagrad._eigen_update`) and refreshed by
LAPACK's ``dsyevd`` every 256 steps, as in the Python step; the complement's
system :math:`\\Pi B \\Pi^\\top \\nu = \\Pi B y` is solved by Cholesky. The
arithmetic is the Python step's up to the order of summation (equal to
about 1e-15 relative per step); a step the compiled loop cannot take (a
Cholesky factorization or ``dsyevd`` that fails) is handed back to the
Python step, whose fallbacks handle it.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from libc.math cimport exp, fabs, log1p, sqrt
from libc.string cimport memcpy, memset
from scipy.linalg.cython_blas cimport daxpy, ddot, dgemv
from scipy.linalg.cython_lapack cimport dpotrf, dpotrs, dsyevd

from ._eigen_update cimport (
    Secular,
    secular_finish,
    secular_prepare,
    secular_roots,
    secular_rotate,
    secular_weights,
)

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

# As in skcgm.optim.compadagrad._step.
cdef Py_ssize_t EIGH_REFRESH_STEPS = 256
cdef double EPS = 2.220446049250313e-16
cdef double FLOAT64_MAX = 1.7976931348623157e308

def workspace_sizes(Py_ssize_t n, Py_ssize_t k, Py_ssize_t batch_size):
    """``(doubles, indices)`` of the workspace of an epoch call.

    The gradient, the batch's loss derivatives and the step's vectors and
    matrices (two of them k x k spares of S and the eigenvectors), with room
    for the rank-one update's scratch (5 k + 4 k^2 doubles, 3 k indices) or
    dsyevd's (1 + 6 k + 2 k^2 doubles, 3 + 5 k integers).
    """
    return (
        11 * n + batch_size + 10 * k + 3 * k * k + 1 + 6 * k + 4 * k * k,
        3 + 5 * k,
    )


cdef inline long long _log2(Py_ssize_t n) noexcept nogil:
    cdef long long r = 0
    while n > 1:
        n >>= 1
        r += 1
    return r


cdef inline void _fwht_one(double* a, Py_ssize_t n) noexcept nogil:
    """Unnormalized Walsh-Hadamard transform of ``a`` in place.

    Sylvester order. Two butterfly stages at a time (radix 4): the same
    additions in the same order as one stage after the other, with half
    the loads and stores.
    """
    cdef Py_ssize_t h = 1, i, j
    cdef double u0, u1, u2, u3, v0, v1, v2, v3
    while 4 * h <= n:
        i = 0
        while i < n:
            for j in range(i, i + h):
                u0 = a[j]
                u1 = a[j + h]
                u2 = a[j + 2 * h]
                u3 = a[j + 3 * h]
                v0 = u0 + u1
                v1 = u0 - u1
                v2 = u2 + u3
                v3 = u2 - u3
                a[j] = v0 + v2
                a[j + h] = v1 + v3
                a[j + 2 * h] = v0 - v2
                a[j + 3 * h] = v1 - v3
            i += 4 * h
        h *= 4
    if h < n:
        # One stage left (n an odd power of two).
        for j in range(h):
            u0 = a[j]
            u1 = a[j + h]
            a[j] = u0 + u1
            a[j + h] = u0 - u1


cdef void _fwht(double* a, double* b, Py_ssize_t n) noexcept nogil:
    """Unnormalized Walsh-Hadamard transforms of ``a`` and ``b`` (may be
    NULL) in place."""
    _fwht_one(a, n)
    if b != NULL:
        _fwht_one(b, n)


cdef inline bint _all_finite(const double* a, Py_ssize_t m) noexcept nogil:
    """Whether no entry is infinite or NaN: an all-ones exponent, tested on
    the bits with an OR over all entries (no branch, no early exit), so the
    loop runs on vector registers."""
    cdef const unsigned long long* bits = <const unsigned long long*>a
    cdef unsigned long long exponent = 0x7FF0000000000000ULL, bad = 0
    cdef Py_ssize_t i
    for i in range(m):
        bad |= (bits[i] & exponent) == exponent
    return bad == 0


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
    """``out1 = scale Pi^T u1`` and ``out2 = scale Pi^T u2`` (n entries;
    ``u2`` may be NULL)."""
    cdef Py_ssize_t i
    cdef double f = P.factor * scale
    memset(out1, 0, P.n * sizeof(double))
    for i in range(P.k):
        out1[P.rows[i]] = u1[i]
    if u2 != NULL:
        memset(out2, 0, P.n * sizeof(double))
        for i in range(P.k):
            out2[P.rows[i]] = u2[i]
    _fwht(out1, out2 if u2 != NULL else NULL, P.n)
    for i in range(P.n):
        out1[i] *= f * P.signs[i]
    if u2 != NULL:
        for i in range(P.n):
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


cdef struct Workspace:
    # n entries each.
    double* t
    double* t2
    double* pg
    double* pxb
    double* s_new
    double* dvec
    double* b
    double* by
    double* back
    double* x_new
    # k entries each.
    double* p
    double* px
    double* kappa
    double* vp
    double* vx
    double* rhs
    double* z
    double* nu
    double* mu_new
    double* mu_cut
    # k x k each, then the scratch of the eigen-update or dsyevd.
    double* S_new
    double* V_new
    double* M
    double* scratch
    Py_ssize_t* index


cdef Workspace _workspace(double* w, Py_ssize_t* iw, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    """Cut the step's workspace (see ``workspace_sizes``) into its arrays."""
    cdef Workspace ws
    ws.t = w
    ws.t2 = w + n
    ws.pg = w + 2 * n
    ws.pxb = w + 3 * n
    ws.s_new = w + 4 * n
    ws.dvec = w + 5 * n
    ws.b = w + 6 * n
    ws.by = w + 7 * n
    ws.back = w + 8 * n
    ws.x_new = w + 9 * n
    w = w + 10 * n
    ws.p = w
    ws.px = w + k
    ws.kappa = w + 2 * k
    ws.vp = w + 3 * k
    ws.vx = w + 4 * k
    ws.rhs = w + 5 * k
    ws.z = w + 6 * k
    ws.nu = w + 7 * k
    ws.mu_new = w + 8 * k
    ws.mu_cut = w + 9 * k
    w = w + 10 * k
    ws.S_new = w
    ws.V_new = w + k * k
    ws.M = w + 2 * k * k
    ws.scratch = w + 3 * k * k
    ws.index = iw
    return ws


cdef int _eigen_start(
    Projection* P, Workspace* ws, Secular* sec, const double* mu,
    const double* V, bint fresh,
) noexcept nogil:
    """The serial start of the eigenpairs of S_new into mu_new, V_new.

    Afresh (dsyevd), or the cached pairs copied and the rank-one update's
    deflation and secular equation set up. Returns 0 when the secular
    equation remains to be solved, 1 when the pairs are complete, 2 if
    dsyevd failed.
    """
    cdef Py_ssize_t k = P.k
    if fresh:
        if _eigh_fresh(k, ws.S_new, ws.mu_new, ws.V_new, ws.scratch, <int*>ws.index):
            return 2
        return 1
    memcpy(ws.mu_new, mu, k * sizeof(double))
    memcpy(ws.V_new, V, k * k * sizeof(double))
    return secular_prepare(sec, k, ws.mu_new, ws.V_new, ws.p, ws.scratch, ws.index)


cdef int _complement_factor(
    Projection* P, Step* st, Workspace* ws, const double* x,
) noexcept nogil:
    """The complement of eqs. (14)-(15) up to its system: ``B y`` into
    ``by``, ``Pi B y`` into ``nu`` and the Cholesky factor of ``Pi B Pi^T``
    into ``M``. Returns 0, or 2 if the factorization failed."""
    cdef Py_ssize_t n = P.n, k = P.k, i, j
    cdef double lam = st.lam, a
    cdef int info = 0, kk = <int>k
    cdef char uplo = b"L"
    for i in range(n):
        ws.b[i] = 1.0 / (ws.dvec[i] + lam)
        ws.by[i] = ((x[i] - ws.pxb[i]) * ws.dvec[i] - st.eta * ws.pg[i]) * ws.b[i]
    # Pi B Pi^T from one transform of b (see _srht_weighted_gram).
    memcpy(ws.t2, ws.b, n * sizeof(double))
    _fwht(ws.t2, NULL, n)
    a = st.c2 / n
    for j in range(k):
        for i in range(k):
            ws.M[i + j * k] = ws.t2[P.rows[i] ^ P.rows[j]] * a
    _apply(P, ws.by, NULL, ws.t2, NULL, ws.nu, NULL)
    dpotrf(&uplo, &kk, ws.M, &kk, &info)
    return 2 if info != 0 else 0


cdef int _complement_finish(Projection* P, Workspace* ws) noexcept nogil:
    """``nu = (Pi B Pi^T)^{-1} Pi B y`` and ``x_perp = B y - B Pi^T nu``
    into ``back``. Returns 0, or 2 if the solve failed."""
    cdef Py_ssize_t i
    cdef int info = 0, kk = <int>P.k, one = 1
    cdef char uplo = b"L"
    dpotrs(&uplo, &kk, &one, ws.M, &kk, ws.nu, &kk, &info)
    if info != 0:
        return 2
    _apply_transpose(P, ws.nu, NULL, 1.0, ws.back, NULL)
    for i in range(P.n):
        ws.back[i] = ws.by[i] - ws.b[i] * ws.back[i]
    return 0


cdef int _statistics(
    Projection* P, Step* st, Workspace* ws, Secular* sec, const double* g,
    const double* x, const double* S, const double* s, const double* mu,
    const double* V, bint fresh,
) noexcept nogil:
    """The statistics with g_t (S_new, P_perp g, s_new, D) and the start of
    the eigen-update (:func:`_eigen_start`). Returns 1 (OVERFLOW) if the
    statistics are not finite, 2 (PYTHON_STEP) if dsyevd failed, else 3
    plus the code of :func:`_eigen_start`."""
    cdef Py_ssize_t n = P.n, k = P.k, i, j
    cdef int eigen
    cdef double trace = 0.0, total = 0.0, floor
    # p = Pi g, Pi x, P g and P x.
    _apply(P, g, x, ws.t, ws.back, ws.p, ws.px)
    _apply_transpose(P, ws.p, ws.px, 1.0 / st.c2, ws.pg, ws.pxb)
    for j in range(k):
        for i in range(k):
            ws.S_new[i + j * k] = S[i + j * k] + ws.p[i] * ws.p[j]
    for i in range(n):
        ws.pg[i] = g[i] - ws.pg[i]  # P_perp g
        ws.s_new[i] = s[i] + ws.pg[i] * ws.pg[i]
    if not (_all_finite(ws.S_new, k * k) and _all_finite(ws.s_new, n)):
        return 1
    # The entries of D are at least the rounding level of the roots of s,
    # n eps sqrt(tr G_t) (see the Python step).
    for i in range(k):
        trace += ws.S_new[i + i * k]
    for i in range(n):
        total += ws.s_new[i]
    floor = n * EPS * sqrt(trace / st.c2 + total)
    for i in range(n):
        ws.dvec[i] = max(sqrt(ws.s_new[i]) + st.delta, floor) * st.tau
    eigen = _eigen_start(P, ws, sec, mu, V, fresh)
    return 2 if eigen == 2 else 3 + eigen


cdef struct Buffers:
    # The current S and eigenvectors, and a spare of each for the next ones:
    # a step writes the spares and, once it is committed, swaps the roles.
    double* S
    double* S_spare
    double* V
    double* V_spare


cdef void _sync(Buffers* buf, double* S, double* V, Py_ssize_t k) noexcept nogil:
    """Leave the current S and eigenvectors in the caller's arrays."""
    if buf.S != S:
        memcpy(S, buf.S, k * k * sizeof(double))
        buf.S_spare = buf.S
        buf.S = S
    if buf.V != V:
        memcpy(V, buf.V, k * k * sizeof(double))
        buf.V_spare = buf.V
        buf.V = V


cdef int _step(
    Projection* P, Step* st, double* x, Buffers* buf, double* s, double* mu,
    long long* counters, double* g, double* w, Py_ssize_t* iw,
) noexcept nogil:
    """One l2 CompAdaGrad step with gradient ``g``, committed if finite.

    Returns DONE, OVERFLOW (the state unchanged) or PYTHON_STEP (the state
    unchanged; the Python step must take it).
    """
    cdef Py_ssize_t n = P.n, k = P.k, i
    cdef int eigen, status
    cdef double c2 = st.c2, lam = st.lam, a, total, root_sum, rank, cut, floor
    cdef long long flops, n_updates = counters[0]
    cdef bint fresh
    cdef Secular sec
    cdef int i_one = 1, kk = <int>k
    cdef double d_one = 1.0, d_zero = 0.0
    cdef char trans_t = b"T", trans_n = b"N"
    cdef Workspace ws = _workspace(w, iw, n, k)
    cdef double* swap
    ws.S_new = buf.S_spare
    ws.V_new = buf.V_spare

    # 1. Statistics and the start of the eigen-update.
    fresh = counters[2] == 0 or n_updates % EIGH_REFRESH_STEPS == 0
    status = _statistics(P, st, &ws, &sec, g, x, buf.S, s, mu, buf.V, fresh)
    if status == 1 or status == 2:
        return status
    eigen = status - 3
    flops = 8 * n * k + 2 * k * k + 5 * n + 3 * n

    # 2. The complement's solve and the eigenpairs of S_new.
    if _complement_factor(P, st, &ws, x) or _complement_finish(P, &ws):
        return 2
    if fresh:
        flops += 9 * k * k * k
    else:
        flops += 12 * k * k + 2 * k * k * k
    if eigen == 0:
        if sec.n_kept == 0 or secular_roots(&sec) == 0:
            secular_weights(&sec)
            secular_rotate(&sec, ws.mu_new, ws.V_new)
            secular_finish(&sec, ws.mu_new, ws.V_new)
        else:
            # As the Python step: a fresh decomposition instead.
            if _eigh_fresh(
                k, ws.S_new, ws.mu_new, ws.V_new, ws.scratch, <int*>ws.index
            ):
                return 2
            flops += 9 * k * k * k - (12 * k * k + 2 * k * k * k)

    # 3. Subspace part, eq. (13), in the eigenbasis. Eigenvalues at
    # rounding level are zeros, and the metric's eigenvalues are at least
    # that level (see the Python step).
    cut = k * EPS * max(ws.mu_new[k - 1], 0.0)
    for i in range(k):
        ws.mu_cut[i] = 0.0 if ws.mu_new[i] <= cut else ws.mu_new[i]
    if st.variant == 0:
        for i in range(k):
            ws.kappa[i] = sqrt(max(ws.mu_cut[i] + st.delta, cut))
    else:
        floor = sqrt(cut / c2)
        for i in range(k):
            ws.kappa[i] = max(sqrt(ws.mu_cut[i] / c2) + st.delta, floor) / c2
        if st.variant == 2:
            a = sqrt(<double>k)
            for i in range(k):
                ws.kappa[i] /= a
            flops += k
        elif st.variant == 3:
            total = 0.0
            root_sum = 0.0
            for i in range(k):
                total += ws.mu_cut[i]
                root_sum += sqrt(ws.mu_cut[i])
            rank = root_sum * root_sum / total if total > 0 else 1.0
            a = sqrt(k / max(rank, 1.0))
            for i in range(k):
                ws.kappa[i] /= a
            flops += 3 * k
    flops += 5 * k
    dgemv(&trans_t, &kk, &kk, &d_one, ws.V_new, &kk, ws.px, &i_one, &d_zero,
          ws.vx, &i_one)
    dgemv(&trans_t, &kk, &kk, &d_one, ws.V_new, &kk, ws.p, &i_one, &d_zero,
          ws.vp, &i_one)
    for i in range(k):
        ws.rhs[i] = (
            (ws.kappa[i] * ws.vx[i] - (st.eta / c2) * ws.vp[i])
            / (c2 * ws.kappa[i] + lam)
        )
    dgemv(&trans_n, &kk, &kk, &d_one, ws.V_new, &kk, ws.rhs, &i_one, &d_zero,
          ws.z, &i_one)
    flops += 6 * k * k + 6 * k + 6 * n

    # x_new = Pi^T z + x_perp, as the Python step sums them.
    _apply_transpose(P, ws.z, NULL, 1.0, ws.t, NULL)
    for i in range(n):
        ws.x_new[i] = ws.t[i] + ws.back[i]
    if not _all_finite(ws.x_new, n):
        return 1
    flops += (
        4 * n + n * _log2(n) + 2 * k * k + (k * k * k) // 3 + 6 * n * k
        + 2 * k * k + n
    )

    # Commit.
    swap = buf.S
    buf.S = buf.S_spare
    buf.S_spare = swap
    swap = buf.V
    buf.V = buf.V_spare
    buf.V_spare = swap
    memcpy(mu, ws.mu_new, k * sizeof(double))
    memcpy(s, ws.s_new, n * sizeof(double))
    memcpy(x, ws.x_new, n * sizeof(double))
    counters[0] = n_updates + 1
    counters[1] += flops
    counters[2] = 1
    return 0


cdef int _diagonal_step(
    Py_ssize_t n, Step* st, double* x, double* s, long long* counters,
    const double* g, double* w,
) noexcept nogil:
    """One l2 step of diagonal AdaGrad (``k = 0``), committed if finite.

    The complement part of the step with the whole space as complement:
    :math:`s \\leftarrow s + g^2`, :math:`d = \\tau (\\sqrt{s} + \\delta)`
    and :math:`x \\leftarrow (d x - \\eta g) / (d + \\lambda)`, elementwise,
    in the Python step's order of operations. Returns DONE or OVERFLOW (the
    state unchanged).
    """
    cdef Py_ssize_t i
    cdef double d
    cdef double* s_new = w
    cdef double* x_new = w + n
    for i in range(n):
        s_new[i] = s[i] + g[i] * g[i]
    if not _all_finite(s_new, n):
        return 1
    for i in range(n):
        d = (sqrt(s_new[i]) + st.delta) * st.tau
        x_new[i] = (x[i] * d - st.eta * g[i]) * (1.0 / (d + st.lam))
    if not _all_finite(x_new, n):
        return 1
    memcpy(s, s_new, n * sizeof(double))
    memcpy(x, x_new, n * sizeof(double))
    counters[0] += 1
    counters[1] += 11 * n
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


cdef inline void _row_axpy(
    double a, const floating* row, double* out, Py_ssize_t m
) noexcept nogil:
    """``out += a * row`` in float64 (BLAS for float64 rows)."""
    cdef int mm = <int>m, one = 1
    cdef Py_ssize_t j
    if floating is double:
        daxpy(&mm, &a, <double*>row, &one, out, &one)
    else:
        for j in range(m):
            out[j] += a * row[j]


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
    cdef int status = 0, n_int = <int>n, one = 1
    cdef Projection P
    cdef Buffers buf
    cdef double* step_work = coeff + batch_size
    cdef Step st
    P.n = n
    P.k = k
    P.factor = scale / sqrt(<double>n)
    P.signs = &signs[0]
    if k > 0:
        buf.S = &subspace_gram[0, 0]
        buf.V = &eigvecs[0, 0]
        # The spares are the step workspace's S_new and V_new.
        buf.S_spare = step_work + 10 * n + 10 * k
        buf.V_spare = buf.S_spare + k * k
        P.rows = &rows[0]
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
                    wnorm = ddot(&n_int, &coef[0], &one, &coef[0], &one)
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
                    _row_axpy(coeff[i - start], &X[r, 0], g, n_features)
                scalars[4] = gi
                if need_loss:
                    scalars[2] += batch_loss
                    scalars[3] += (stop - start) * (alpha_l2 * (0.5 * wnorm))
                if not _all_finite(g, n_features):
                    status = 1
                    break
                if k == 0:
                    status = _diagonal_step(
                        n, &st, &coef[0], &complement_sq[0], &counters[0], g,
                        step_work,
                    )
                else:
                    status = _step(
                        &P, &st, &coef[0], &buf, &complement_sq[0], &eigvals[0],
                        &counters[0], g, step_work, &iwork[0],
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
        if k > 0:
            _sync(&buf, &subspace_gram[0, 0], &eigvecs[0, 0], k)
    return status, batch
