"""The approximate proximal point method with local-sensitivity sampling.

Raj, Musco and Mackey, "Importance Sampling via Local Sensitivity" (AISTATS
2020), minimize a finite sum of GLM losses (Definition 1)

.. math::

    F(x) = \\frac1n \\sum_{i=1}^n u_i f(a_i^\\top x)
    + \\frac{\\alpha}{2} \\|x_{\\mathcal P}\\|^2

(labels absorbed into the rows, :math:`a_i = b_i x_i`; :math:`u_i` sample
weights; :math:`\\mathcal P` the penalized coordinates, e.g. all but an
intercept) by proximal point rounds (Algorithm 2)

.. math::

    x_t \\approx \\operatorname{argmin}_{\\|x - x_{t-1}\\| \\le r_t}
    F^s(x) + \\lambda_t \\|x - x_{t-1}\\|^2,
    \\qquad \\lambda_t = \\sqrt{\\|\\nabla F(x_{t-1})\\|},
    \\quad r_t = \\frac{\\|\\nabla F(x_{t-1})\\|}{\\lambda_t + \\mu},

where :math:`F^s` is :math:`F` with the sum replaced by a reweighted
subsample of :math:`m` terms drawn with probabilities proportional to upper
bounds on their *local* sensitivities on the ball: the ridge leverage
scores of the local quadratic model (Theorem 9) plus a Lipschitz-Hessian
correction (Theorem 10), with the slips of the printed statements
corrected (listed in :func:`local_sensitivity_scores` and in the user
guide). :func:`local_sensitivity_scores` computes the scores; the rounds of
:func:`~skcgm.optim.approximate_proximal_point` (and of
:class:`~skcgm.optim.proximal_point.ProximalPointSolver` in memory) are the
steps of :class:`_Rounds` here.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh, norm
from scipy.optimize import brentq
from sklearn.utils import check_array, check_random_state

from ...oracles._leverage import (
    gram_matrix,
    leverage_from_transform,
    leverage_transform,
    sketched_leverage,
)
from ...oracles._sampling import importance_sample
from ...utils._blocks import single_threaded_blas
from ...utils._params import StrictInterval
from ...utils._sklearn_compat import HasMethods, StrOptions, validate_params
from ...utils._threads import report_threads, thread_chooser
from ...utils._validation import check_sample_weight, check_vector
from ._signed_rows import (
    row_source,
    scaled_gram,
    scaled_leverage,
    scaled_rows,
    signed_gram,
    signed_rows,
)

__all__ = [
    "ProximalPointResult",
    "local_sensitivity_scores",
    "sample_gram",
]

_LOSS_METHODS = [
    "value",
    "derivative",
    "second_derivative",
    "derivative_ratio",
    "sqrt_derivative_ratio",
]


@dataclass
class ProximalPointResult:
    """Result of :func:`approximate_proximal_point`.

    A plain record; every field is also an attribute. The arrays of
    ``history`` are indexed by the iterate: entry ``t`` describes
    :math:`x_t`, ``t = 0, ..., n_iter``, and the round that produced it
    (NaN or 0 at ``t = 0``).

    Parameters
    ----------
    coef : ndarray of shape (n_features,)
        The last iterate :math:`x_T`, ``T = n_iter``.
    n_iter : int
        Number of proximal point rounds run.
    converged : bool
        Whether :math:`\\|\\nabla F(x_T)\\| \\le` ``tol`` (or the callback
        stopped the run) before ``max_iter`` rounds.
    history : dict of ndarray
        Per-iterate arrays of length ``n_iter + 1``:

        - ``'objective'``: :math:`F(x_t)`;
        - ``'grad_norm'``: :math:`\\|\\nabla F(x_t)\\|`;
        - ``'prox_weight'``: :math:`\\lambda_t`;
        - ``'radius'``: :math:`r_t` (``inf`` without a ball);
        - ``'total_sensitivity'``: :math:`\\sum_i s_i` of the scores the
          round sampled by (NaN for the other samplers; ``inf`` when the
          bound exceeds the float64 range, and the round then samples by
          the leverage scores);
        - ``'n_inner_iter'``: cumulative inner gradient steps up to
          :math:`x_t` (the horizontal axis of the paper's Figure 2);
        - ``'n_distinct'``: distinct rows in the round's subsample.
    sample_indices : ndarray of shape (n_distinct,)
        Distinct rows sampled in the last round, sorted.
    sample_weight : ndarray of shape (n_distinct,)
        Their importance weights :math:`c_i / (m p_i)` (not multiplied by the
        sample weights :math:`u_i`); all ones for ``sampling='full'``.
    sampling_probabilities : ndarray of shape (n_samples,) or None
        The distribution :math:`P` of the last round; None for 'full'.
    stalled : bool, default=False
        Whether the run stopped because :math:`F(x_t)` had not improved on
        its best value for ``n_iter_no_change`` rounds.
    n_passes : int or None, default=None
        Passes over the chunks of a dask array made by the
        :meth:`~skcgm.optim.proximal_point.ProximalPointSolver.solve` (or
        :meth:`~skcgm.optim.proximal_point.LBFGSSolver.solve`) call that
        returned this result, all its one-vs-rest problems together; None
        in memory.

    See Also
    --------
    approximate_proximal_point : The solver that returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import approximate_proximal_point
    >>> from skcgm.oracles import LogisticLoss
    >>> A = np.array([[1.0, 2.0], [-1.0, 1.0], [2.0, -1.0], [0.5, 0.5]])
    >>> result = approximate_proximal_point(
    ...     LogisticLoss(), A, alpha=0.1, sampling="full", tol=1e-10)
    >>> result.converged, bool(result.history["grad_norm"][-1] <= 1e-10)
    (True, True)
    """

    coef: np.ndarray
    n_iter: int
    converged: bool
    history: dict = field(repr=False)
    sample_indices: np.ndarray = field(repr=False)
    sample_weight: np.ndarray = field(repr=False)
    sampling_probabilities: np.ndarray = field(repr=False)
    stalled: bool = False
    n_passes: int = field(default=None, repr=False)


# ---------------------------------------------------------------------------
# Problem data: validation and the full objective


def _check_penalized(penalized, d):
    if penalized is None:
        return np.ones(d, dtype=bool)
    pen = np.asarray(penalized)
    if pen.shape != (d,) or pen.dtype != bool:
        raise ValueError(
            f"penalized must be None or a boolean mask of shape ({d},), one entry "
            f"per column of A; got dtype {pen.dtype} and shape {pen.shape}."
        )
    return pen


def _matvec(A, x):
    """:math:`Ax` in float64, without promoting a float32 ``A``."""
    return np.asarray(A @ x.astype(A.dtype, copy=False), dtype=np.float64)


def _rmatvec(A, v):
    """:math:`A^\\top v` in float64, without promoting a float32 ``A``."""
    return np.asarray(A.T @ v.astype(A.dtype, copy=False), dtype=np.float64)


def _check_signs(signs, n):
    if signs is None:
        return None
    b = np.asarray(signs, dtype=np.float64)
    if b.shape != (n,) or not np.all(np.isfinite(b)):
        raise ValueError(
            f"signs must be None or a finite array of shape ({n},), one label per "
            f"row of A; got shape {b.shape}."
        )
    return b


def _checked_problem(
    loss, A, sample_weight, penalized, alpha, signs=None, fit_intercept=False
):
    """The :class:`_Problem` of validated data, weights and penalty mask.

    With ``signs`` or ``fit_intercept`` the rows :math:`b_i [x_i, 1]` are
    applied on the fly
    (:func:`~skcgm.optim.proximal_point._signed_rows.signed_rows`); the
    intercept coordinate, last, is never penalized.
    """
    X = check_array(
        A, accept_sparse="csr", dtype=[np.float64, np.float32], input_name="A"
    )
    n, d = X.shape
    pen = _check_penalized(penalized, d)
    if fit_intercept:
        pen = np.append(pen, False)
    A = signed_rows(X, _check_signs(signs, n), fit_intercept)
    u = check_sample_weight(sample_weight, X, dtype=np.float64)
    return _Problem(loss, A, u, pen, alpha)


@dataclass
class _Point:
    """An iterate with its margins, loss terms, objective and gradient."""

    x: np.ndarray
    margins: np.ndarray
    value: np.ndarray
    derivative: np.ndarray
    second_derivative: np.ndarray
    objective: float
    gradient: np.ndarray


def _loss_terms(loss, t):
    """:math:`f, f', f''` at the margins, fused when the loss can."""
    fused = getattr(loss, "_value_derivatives", None)
    if fused is not None:
        return fused(t)
    return loss.value(t), loss.derivative(t), loss.second_derivative(t)


class _Problem:
    """F, its gradient and the sampled subproblems, for one data set."""

    def __init__(self, loss, A, u, pen, alpha):
        self.loss = loss
        self.A = A
        self.u = u
        # All weights positive: weighted sums need no mask (the usual case).
        self.all_weighted = bool(np.all(u > 0))
        self.pen = pen
        self.alpha = float(alpha)
        self.n, self.d = A.shape
        # (X, signs, intercept) of dense rows, which the compiled passes
        # read; None for sparse rows, whose passes are scipy's.
        self.rows = None if sp.issparse(A) else row_source(A)

    def weighted_cubed_row_norms(self):
        """:math:`u_i \\|a_i\\|^3`, computed once (the constants of Theorem 10)."""
        if not hasattr(self, "_weighted_cubed_row_norms"):
            cubed = _row_norms(self.A)
            cubed *= cubed * cubed
            cubed *= self.u
            self._weighted_cubed_row_norms = cubed
        return self._weighted_cubed_row_norms

    def weight_fractions(self):
        """:math:`u_i / n`, computed once."""
        if not hasattr(self, "_weight_fractions"):
            self._weight_fractions = self.u / self.n
        return self._weight_fractions

    def evaluate(self, x):
        """F and its gradient at ``x``, with the terms the bounds reuse."""
        margins = _matvec(self.A, x)
        value, derivative, second = _loss_terms(self.loss, margins)
        data = float(self.u @ value) / self.n
        objective = data + 0.5 * self.alpha * float(x[self.pen] @ x[self.pen])
        gradient = _rmatvec(self.A, self.u * derivative) / self.n
        gradient[self.pen] += self.alpha * x[self.pen]
        return _Point(x, margins, value, derivative, second, objective, gradient)


# ---------------------------------------------------------------------------
# Theorems 9 and 10


def _trust_region_minimum(Q, b, radius):
    """:math:`\\min_{\\|z\\| \\le r} b^\\top z + \\frac12 z^\\top Q z` for Q > 0.

    Eigendecomposition :math:`Q = V \\operatorname{diag}(e) V^\\top`; the
    minimizer is :math:`z(\\nu) = -(Q + \\nu I)^{-1} b` with :math:`\\nu = 0`
    if it lies in the ball, else the root of :math:`\\|z(\\nu)\\| = r`
    (decreasing in :math:`\\nu`, bracketed by :math:`[0, \\|b\\|/r]`). Q is
    positive definite here (it contains :math:`2\\lambda I`), so there is no
    "hard case". Returns the value and the minimizer.
    """
    eigenvalues, vectors = eigh(Q)
    b_rot = vectors.T @ b

    # scipy's norm is BLAS nrm2, which scales: numpy's squares its entries,
    # which under- or overflow beyond 1e+-154.
    def step_norm(nu):
        return float(norm(b_rot / (eigenvalues + nu), check_finite=False))

    nu = 0.0
    if np.isfinite(radius) and step_norm(0.0) > radius:
        high = float(norm(b, check_finite=False)) / radius
        if not np.isfinite(high):
            # A radius at the float64 underflow threshold: the ball is its
            # centre to working precision.
            return 0.0, np.zeros_like(b)
        if step_norm(high) >= radius:
            # ||z(high)|| <= ||b|| / high = r in exact arithmetic; rounding
            # with eigenvalues near the underflow threshold can flip the sign
            # of the bracket, whose end is then the root to working precision.
            nu = high
        else:
            nu = brentq(
                lambda v: step_norm(v) - radius,
                0.0,
                high,
                xtol=1e-15 * high,
                rtol=1e-13,
            )
    z_rot = -b_rot / (eigenvalues + nu)
    value = float(b_rot @ z_rot + 0.5 * (eigenvalues * z_rot) @ z_rot)
    return value, vectors @ z_rot


def sample_gram(loss, A, u, weights, center, n, extra_scale):
    """Estimate of the Gram matrix of :math:`C_0` from a weighted sample.

    For rows :math:`a_j` drawn with importance weights :math:`w_j` (count
    over expected count, so that sums over the sample estimate sums over
    all rows without bias),

    .. math::

        \\hat G = \\sum_{j \\in S} w_j\\, c_j c_j^\\top, \\qquad
        c_j = \\Big[\\sqrt{\\tfrac{u_j f''(t_j)}{n}}\\, a_j,\\;
        \\kappa \\sqrt{\\tfrac{u_j}{n}} \\tfrac{f'(t_j)}{\\sqrt{f''(t_j)}}\\Big],
        \\qquad t_j = a_j^\\top y,

    the rows of :math:`C_0` (see :func:`local_sensitivity_scores`) with the
    extra column scaled by ``extra_scale`` :math:`\\kappa`, the factor that
    brings the column of all rows to unit max-norm. ``A``, ``u`` and
    ``weights`` are the sample's rows; ``n`` counts all rows.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point._in_memory import sample_gram
    >>> from skcgm.oracles import LogisticLoss
    >>> A = np.random.RandomState(0).standard_normal((40, 3))
    >>> ones = np.ones(40)
    >>> G = sample_gram(LogisticLoss(), A, ones, ones, np.zeros(3), 40, 1.0)
    >>> G.shape, bool(np.allclose(G[:3, :3], A.T @ A / 160))
    ((4, 4), True)
    """
    margins = _matvec(A, center)
    _, _, second = _loss_terms(loss, margins)
    fractions = np.asarray(weights, dtype=np.float64) * u / n
    row_scale = np.sqrt(fractions * second)
    extra = loss.sqrt_derivative_ratio(margins) * np.sqrt(fractions) * extra_scale
    if sp.issparse(A):
        C = sp.hstack(
            [sp.diags(row_scale) @ A, sp.csr_matrix(extra[:, None])], format="csr"
        )
        return gram_matrix(C)
    return scaled_gram(A, row_scale, extra)


@dataclass
class _TaylorColumns:
    """The leverage matrix :math:`C_0 = [\\operatorname{diag}(s) A, e]` of
    the Taylor model at a centre, by its row scales and extra column, and
    the terms of :math:`\\Delta`."""

    row_scale: np.ndarray
    extra: np.ndarray
    extra_scale: float
    terms: np.ndarray


def _taylor_columns(problem, point):
    """:class:`_TaylorColumns` at ``point``, :meth:`_Problem.evaluate` at
    the centre (its loss terms are the Taylor model's, eq. 3)."""
    loss = problem.loss
    margins, f0, f2 = point.margins, point.value, point.second_derivative
    # Taylor model at the centre (eq. 3): H = diag(u f''/n), alpha_y = u f'/n.
    # The leverage matrix C0 = [H^{1/2} A, H^{-1/2} alpha_y] with the closed
    # form H^{-1/2} alpha_y = sqrt(u/n) f'/sqrt(f'') = -sqrt(u/n) e^{-t/2}
    # (note 1.1): no division by a vanishing f''.
    # In place where possible: at n = 10^6 each fresh temporary costs about
    # as much as the arithmetic on it.
    fractions = problem.weight_fractions()
    row_scale = np.multiply(fractions, f2)
    np.sqrt(row_scale, out=row_scale)
    root = loss.sqrt_derivative_ratio(margins)
    # Delta's terms f - f'^2 / (2 f''), with f'^2 / f'' = e^{-t} the square of
    # the extra column's root; -inf when a margin below -709 overflows e^{-t}
    # (then beta = inf).
    with np.errstate(over="ignore"):
        terms = np.square(root)
    terms *= -0.5
    terms += f0
    extra = root
    extra *= np.sqrt(fractions)
    # Scale the extra column to unit max-norm, and its ridge by the square of
    # the same factor (the leverage is unchanged): e^{-t/2} reaches 1e217 at
    # t = -1000 and its square would overflow the Gram matrix.
    extra_scale = max(float(extra.max()), -float(extra.min()))
    extra_scale = 1.0 / extra_scale if extra_scale > 0 else 1.0
    extra *= extra_scale
    return _TaylorColumns(row_scale, extra, extra_scale, terms)


def _local_sensitivity(
    problem,
    point,
    columns,
    gram,
    lam,
    radius,
    scores,
    leverage,
    n_components,
    rng,
    gram_sample=None,
    chooser=None,
):
    """Scores and diagnostics of :func:`local_sensitivity_scores`, unvalidated.

    ``point`` is :meth:`_Problem.evaluate` at the centre and ``columns`` its
    :func:`_taylor_columns`. ``gram`` is the Gram matrix of :math:`C_0`
    when the caller has computed it (the rounds do, in their first pass over
    the data), else None. ``gram_sample`` is the ``(indices, weights)`` of
    ``leverage='sample'``; ``chooser`` times the leverage pass of dense rows.
    """
    loss, A, u, pen, alpha = (
        problem.loss,
        problem.A,
        problem.u,
        problem.pen,
        problem.alpha,
    )
    n, d = problem.n, problem.d
    center, f0 = point.x, point.value
    row_scale, extra = columns.row_scale, columns.extra
    extra_scale, terms = columns.extra_scale, columns.terms
    fractions = problem.weight_fractions()
    C0 = None
    if sp.issparse(A):
        C0 = sp.hstack(
            [sp.diags(row_scale) @ A, sp.csr_matrix(extra[:, None])], format="csr"
        )
    elif leverage == "sketch":
        # The sketches take the matrix whole.
        C0 = scaled_rows(A, row_scale, extra)
    c_pen = float(np.linalg.norm(center[pen]))
    # delta = min over the ball of gamma (Theorem 9); 0 as soon as the ball
    # meets the unpenalized subspace, e.g. at x0 = 0 (erratum T6).
    gamma_min = 0.5 * alpha * max(0.0, c_pen - radius) ** 2
    # Ridge of the leverage: lambda on the d model coordinates as printed;
    # on the extra coordinate (z_bar = [z, 1]) the proof's eq. (13) needs a
    # ridge at most 2 gamma_min (with the 1/2 of g_i, errata T2 and T5): the
    # printed lambda delta^2 with delta = gamma_min can exceed it. gamma_min
    # is valid and finite at delta = 0 (T6: the column is not divided by
    # delta, its ridge is scaled instead).
    ridge = np.full(d + 1, lam)
    ridge[d] = gamma_min * extra_scale**2
    if not np.any(extra != 0) and gamma_min == 0:
        # A zero column has zero leverage whatever its ridge.
        ridge[d] = 1.0
    if leverage != "sketch":
        if gram is None and leverage == "exact":
            gram = (
                gram_matrix(C0) if C0 is not None else scaled_gram(A, row_scale, extra)
            )
        elif gram is None:
            indices, weights = gram_sample
            gram = sample_gram(
                loss, A[indices], u[indices], weights, center, n, extra_scale
            )
        try:
            transform = leverage_transform(gram, ridge)
        except ValueError:
            transform = leverage_transform(gram, _floored_ridge(ridge, np.diag(gram)))
        if C0 is not None:
            lev = leverage_from_transform(C0, transform)
        else:
            lev = scaled_leverage(A, row_scale, extra, transform, chooser)
    else:
        try:
            lev, upper = sketched_leverage(C0, ridge, n_components, rng)
        except ValueError:
            floored = _floored_ridge(ridge, _squared_column_norms(C0))
            lev, upper = sketched_leverage(C0, floored, n_components, rng)
        # eta from the sketched Gram matrix R^T R - D: same O(nnz log n) cost,
        # (1 +- eps) accuracy of the quadratic term.
        gram = upper.T @ upper - np.diag(ridge)
    info = {"leverage": lev, "gamma_min": gamma_min}
    if scores == "leverage_only":
        info.update(
            beta=np.nan,
            eta=np.nan,
            delta=np.nan,
            bound_valid=False,
            model_center=np.nan,
        )
        info["total_sensitivity"] = float(lev.sum())
        return lev, info
    # eta = min over the ball of the quadratic model F~ (a trust-region QP in
    # d dimensions): F~(c + z) = const + b^T z + 1/2 z^T Q z.
    data_value = float(u @ f0) / n
    const = data_value + 0.5 * alpha * c_pen**2
    Q = gram[:d, :d] + 2.0 * lam * np.eye(d)
    Q[pen, pen] += alpha
    # The model's linear term is the gradient of F at the centre.
    model_min, _ = _trust_region_minimum(Q, point.gradient, radius)
    eta = const + model_min
    # Delta = sum_i (u_i/n) [f_i - f'_i^2 / (2 f''_i)] (errata T1, T2). Rows
    # with u_i = 0 are left out rather than multiplied (0 * inf).
    if problem.all_weighted:
        delta = float(u @ terms) / n
    else:
        weighted = u > 0
        delta = float(u[weighted] @ terms[weighted]) / n
    info.update(delta=delta, eta=eta, model_center=const)
    if eta > 0:
        beta = max(1.0, 1.0 - delta / eta)
        # u_i f_i / (n eta), in the buffer of Delta's terms.
        additive = np.multiply(fractions, f0, out=terms)
        additive /= eta
        info["bound_valid"] = True
    else:
        # The model is not positive on the ball: Theorem 9 does not apply.
        # Fall back to the leverage term (note 2.5).
        beta, additive = 1.0, np.zeros(n)
        info["bound_valid"] = False
    info["beta"] = beta
    if np.isfinite(beta):
        result = np.multiply(lev, beta)
        result += additive
    else:
        # An infinite bound wherever the leverage is positive (not inf * 0).
        result = np.where(lev > 0, np.inf, additive)
    if scores == "theorem10":
        # C_i = u_i |f'''|_max ||a_i||^3, the Lipschitz constant of the
        # Hessian of u_i f(a_i^T x) (note 1.8), times
        # min(r / lambda, r^3 / eta) / (6 n), a factor common to all rows.
        # In float64, not Python floats: r^3 of a huge radius is inf (the
        # bound then exceeds the float64 range), not an OverflowError.
        factor = np.float64(radius) / lam
        if eta > 0:
            factor = min(factor, np.float64(radius) ** 3 / eta)
        factor *= loss.third_derivative_bound / (6.0 * n)
        # Into the buffer of the row scales, free once the Gram matrix is built.
        result += np.multiply(problem.weighted_cubed_row_norms(), factor, out=row_scale)
    info["total_sensitivity"] = float(result.sum())
    return result, info


def _floored_ridge(ridge, squared_norms):
    """``ridge`` raised to a floor relative to the columns' squared norms.

    A ridge many orders of magnitude below the data (a prox weight of
    1e-300) is exact in theory but leaves the Schur complement of the extra
    column of the leverage matrix to rounding, and the factorization fails.
    Used only after that failure: a floor of ``1e-12`` times the largest
    squared column norm (at least the smallest normal float) gives the
    scores of a slightly larger ridge, which differ from the exact ones only
    in the directions the data spans at that relative level or below.
    """
    largest = float(np.max(squared_norms, initial=0.0))
    floor = max(1e-12 * largest, np.finfo(np.float64).tiny)
    return np.maximum(ridge, floor)


def _squared_column_norms(C):
    if sp.issparse(C):
        return np.asarray(C.multiply(C).sum(axis=0), dtype=np.float64).ravel()
    return np.einsum("ij,ij->j", C, C, dtype=np.float64)


def _row_norms(A):
    if hasattr(A, "squared_row_norms"):
        return np.sqrt(A.squared_row_norms())
    if sp.issparse(A):
        return np.sqrt(np.asarray(A.multiply(A).sum(axis=1), dtype=np.float64).ravel())
    return np.sqrt(np.einsum("ij,ij->i", A, A, dtype=np.float64))


_PROBLEM_CONSTRAINTS = {
    "loss": [HasMethods(_LOSS_METHODS)],
    "A": ["array-like", "sparse matrix"],
    "alpha": [StrictInterval(Real, 0, None, closed="left")],
    "sample_weight": ["array-like", None],
    "penalized": ["array-like", None],
    "leverage": [StrOptions({"exact", "sketch", "sample"})],
    "n_components": [StrictInterval(Integral, 1, None, closed="left"), None],
    "random_state": ["random_state"],
}


@validate_params(
    {
        **_PROBLEM_CONSTRAINTS,
        "center": ["array-like"],
        "prox_weight": [StrictInterval(Real, 0, None, closed="neither")],
        "radius": [StrictInterval(Real, 0, None, closed="neither")],
        "scores": [StrOptions({"theorem10", "theorem9", "leverage_only"})],
        "gram_sample": [tuple, None],
    },
    prefer_skip_nested_validation=True,
)
def local_sensitivity_scores(
    loss,
    A,
    center,
    *,
    prox_weight,
    radius,
    alpha,
    sample_weight=None,
    penalized=None,
    scores="theorem10",
    leverage="exact",
    n_components=None,
    random_state=None,
    gram_sample=None,
):
    """Upper bounds on the local sensitivities of a GLM finite sum on a ball.

    For :math:`F(x) = \\frac1n \\sum_i u_i f(a_i^\\top x) + \\frac{\\alpha}{2}
    \\|x_{\\mathcal P}\\|^2`, the proximal function
    :math:`F_{\\lambda,y}(x) = F(x) + \\lambda\\|x - y\\|^2` (Definition 8, no
    1/2) and the ball :math:`B(r, y)`, returns the bound of Theorem 9 plus
    the term of Theorem 10, with the corrections listed below,

    .. math::

        s_i = \\beta\\, \\ell_i + \\frac{u_i f(t_i)}{n \\eta}
        + \\min\\Big(\\frac{C_i r}{6 n \\lambda},
        \\frac{C_i r^3}{6 n \\eta}\\Big),
        \\qquad t_i = a_i^\\top y,

    where, with :math:`H = \\operatorname{diag}(u_i f''(t_i)/n)` and
    :math:`\\alpha_y = (u_i f'(t_i)/n)_i`,

    - :math:`\\ell_i` is the ridge leverage score of row :math:`i` of
      :math:`C_0 = [H^{1/2} A,\\; H^{-1/2}\\alpha_y]` (the closed form
      :math:`-\\sqrt{u_i/n}\\, e^{-t_i/2}` for the logistic loss) with ridge
      :math:`\\operatorname{diag}(\\lambda I_d, \\gamma_{\\min})`,
      :math:`\\gamma_{\\min} = \\min_{B(r,y)} \\frac{\\alpha}{2}\\|x_{\\mathcal
      P}\\|^2 = \\frac{\\alpha}{2}\\max(0, \\|y_{\\mathcal P}\\| - r)^2`. The
      paper divides the extra column by :math:`\\delta = \\gamma_{\\min}`,
      which is 0 whenever the ball meets the unpenalized coordinates (every
      first round from :math:`x_0 = 0`); dividing a column by
      :math:`\\delta` is scaling its ridge by :math:`\\delta^2`, and the
      proof of Theorem 9 (Appendix A, eq. 13, whose printed
      :math:`-\\delta` is :math:`-\\lambda\\delta^2`) needs that ridge to be
      at most :math:`2\\gamma_{\\min}`: :math:`\\gamma_{\\min}` is, and it
      is finite at 0. The Gram matrix of :math:`C_0` is formed directly, not
      through the block inverse of Section 2.1 (whose printed bottom-right
      entry drops the :math:`1/\\delta^2` and the :math:`H^{-1/2}`);
    - :math:`\\eta = \\min_{B(r,y)} \\tilde F_{\\lambda,y}` is the minimum of
      the quadratic model (eq. 3, with its :math:`\\frac12` on the Hessian
      term, which Section 2.2 drops, and :math:`\\gamma(y)` counted once) on
      the ball, a trust-region problem solved exactly (eigendecomposition
      and a 1-D root);
    - :math:`\\beta = \\max(1, 1 - \\Delta/\\eta)`,
      :math:`\\Delta = \\frac1n \\sum_i u_i [f(t_i) - f'(t_i)^2/(2 f''(t_i))]`,
      where the paper prints :math:`f'^2/(4 f')` in Theorem 9 and a
      quarter in Appendix A: completing the square of
      :math:`\\frac12\\|H^{1/2}Az + H^{-1/2}\\alpha_y\\|^2` gives this
      half; :math:`f'^2/f'' = e^{-t}` in closed form;
    - the additive term is divided by :math:`n`, which the paper's "O(1)
      additive factor" needs (printed :math:`f_i/\\eta`);
    - :math:`C_i = u_i \\sup|f'''| \\|a_i\\|^3`, the Lipschitz constant of the
      Hessian of the :math:`i`-th term (Theorem 10).

    ``scores='theorem9'`` drops the last term (a bound for the quadratic model
    :math:`\\tilde F_{\\lambda,y}` itself); ``'leverage_only'`` returns
    :math:`\\ell_i` alone. In Theorem 10's term the minimum of the true
    proximal function on the ball, which is not computable, is replaced by
    :math:`\\eta`, that of its quadratic model.

    Parameters
    ----------
    loss : object
        The per-sample loss :math:`f`, e.g.
        :class:`~skcgm.oracles.LogisticLoss`: methods ``value``,
        ``derivative``, ``second_derivative``, ``derivative_ratio``
        (:math:`f'^2/f''`), ``sqrt_derivative_ratio``
        (:math:`f'/\\sqrt{f''}`) and the attribute ``third_derivative_bound``.
    A : {array-like, sparse matrix} of shape (n_samples, n_features)
        Rows :math:`a_i` (labels absorbed, intercept column included if any);
        float32 or float64, CSR accepted. Not modified.
    center : array-like of shape (n_features,)
        The centre :math:`y` of the ball and of the proximal term.
    prox_weight : float
        :math:`\\lambda > 0`.
    radius : float
        :math:`r > 0`.
    alpha : float
        L2 penalty :math:`\\alpha \\ge 0`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights :math:`u_i`, not all zero; None means ones.
    penalized : array-like of shape (n_features,) of bool, default=None
        The penalized coordinates :math:`\\mathcal P`; None means all.
    scores : {'theorem10', 'theorem9', 'leverage_only'}, default='theorem10'
        Which bound to return.
    leverage : {'exact', 'sketch', 'sample'}, default='exact'
        How :math:`\\ell_i` is computed
        (:func:`~skcgm.oracles.ridge_leverage_scores`). With 'sketch', the
        quadratic term of :math:`\\eta` uses the sketched Gram matrix too,
        so no :math:`O(n d^2)` product is formed. With 'sample', the Gram
        matrix of :math:`C_0` (in the leverage and in :math:`\\eta`) is
        estimated from the weighted rows ``gram_sample``
        (:func:`~skcgm.optim.proximal_point._in_memory.sample_gram`), and only the
        scores themselves read every row.
    n_components : int, default=None
        CountSketch rows for ``leverage='sketch'`` (None: :math:`20(d+1)`).
    random_state : int, RandomState instance or None, default=None
        Seeds the sketch; unused by 'exact' and 'sample'.
    gram_sample : tuple of two arrays, default=None
        ``(indices, weights)``: rows of ``A`` drawn with importance weights
        (count over expected count), for ``leverage='sample'``, which
        requires it. :func:`~skcgm.optim.approximate_proximal_point` passes
        the previous round's draws.

    Returns
    -------
    scores : ndarray of shape (n_samples,)
        The upper bounds :math:`s_i \\ge 0` (0 for rows with :math:`u_i = 0`).
    info : dict
        Diagnostics: ``'leverage'`` (:math:`\\ell`), ``'beta'``, ``'eta'``,
        ``'delta'`` (:math:`\\Delta`), ``'gamma_min'``, ``'model_center'``
        (:math:`\\tilde F_{\\lambda,y}(y) = F(y)`), ``'total_sensitivity'``
        (:math:`\\sum_i s_i`) and ``'bound_valid'``: False when
        :math:`\\eta \\le 0`, where Theorem 9 does not apply and the scores
        fall back to :math:`\\ell_i` (plus the :math:`r/\\lambda` term of
        Theorem 10).

    See Also
    --------
    approximate_proximal_point : The solver that samples by these scores.
    skcgm.oracles.ridge_leverage_scores : The leverage scores.

    Notes
    -----
    Cost: one :math:`O(nd)` pass for the margins and :math:`C_0`, the Gram
    matrix and the scores in :math:`O(nd^2)` ('exact'), the scores in
    :math:`O(nd^2)` and the Gram matrix in :math:`O(|S| d^2)` ('sample'), or
    :math:`O(\\operatorname{nnz}(A) \\log n + d^3)` ('sketch'), and an
    :math:`O(d^3)` eigendecomposition for :math:`\\eta`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import local_sensitivity_scores
    >>> from skcgm.oracles import LogisticLoss
    >>> A = np.random.RandomState(0).standard_normal((50, 3))
    >>> scores, info = local_sensitivity_scores(
    ...     LogisticLoss(), A, np.zeros(3), prox_weight=0.5, radius=0.2, alpha=0.01)
    >>> scores.shape, bool(np.all(scores >= info["leverage"]))
    ((50,), True)
    >>> bool(info["leverage"].sum() <= 4)
    True
    """
    problem = _checked_problem(loss, A, sample_weight, penalized, alpha)
    d = problem.d
    center = check_vector(center, "center", d)
    if leverage == "sample":
        gram_sample = _checked_gram_sample(gram_sample, problem.n)
    # As in approximate_proximal_point: the passes over the rows run on our
    # own threads, the d x d algebra is small; a bound beyond the float64
    # range is inf, without a numpy warning.
    with single_threaded_blas(), np.errstate(all="ignore"):
        point = problem.evaluate(center)
        return _local_sensitivity(
            problem,
            point,
            _taylor_columns(problem, point),
            None,
            float(prox_weight),
            float(radius),
            scores,
            leverage,
            n_components,
            check_random_state(random_state),
            gram_sample,
        )


def _checked_gram_sample(gram_sample, n):
    """``(indices, weights)`` of ``leverage='sample'`` as arrays, or an error."""
    if gram_sample is None or len(gram_sample) != 2:
        raise ValueError(
            "leverage='sample' needs gram_sample=(indices, weights), the rows "
            f"that estimate the Gram matrix; got gram_sample={gram_sample!r}."
        )
    indices, weights = np.asarray(gram_sample[0]), np.asarray(gram_sample[1])
    if (
        indices.ndim != 1
        or indices.shape != weights.shape
        or indices.size == 0
        or not np.issubdtype(indices.dtype, np.integer)
        or not np.issubdtype(weights.dtype, np.number)
        or indices.min() < 0
        or indices.max() >= n
        or not np.all(np.isfinite(weights) & (weights >= 0))
    ):
        raise ValueError(
            "gram_sample must be (indices, weights): a non-empty 1-d array of "
            f"row indices in [0, {n}) and as many finite non-negative weights."
        )
    return indices, weights.astype(np.float64)


# ---------------------------------------------------------------------------
# The inner solver


def _largest_eigenvalue(A_s, coef):
    """:math:`\\lambda_{\\max}(A_s^\\top \\operatorname{diag}(c) A_s)`, c >= 0.

    From the smaller of the two Gram matrices; the :math:`d \\times d` one is
    accumulated over row blocks on threads, so the full data
    (``sampling='full'``) is never copied.
    """
    m, d = A_s.shape
    root = np.sqrt(coef)
    if m < d:
        if sp.issparse(A_s):
            B = (sp.diags(root) @ A_s).toarray()
        else:
            # A_s[:] writes out the lazy signed rows of 'full' (m x d, small
            # here since m < d); a view for an array.
            B = np.asarray(A_s[:], dtype=np.float64) * root[:, None]
        gram = B @ B.T
    elif sp.issparse(A_s):
        gram = (A_s.T @ sp.diags(coef) @ A_s).toarray()
    else:
        gram = scaled_gram(A_s, root)
    return float(eigh(gram, eigvals_only=True)[-1]) if gram.size else 0.0


def _ball_prox_fista(problem, A_s, coef, lam, center, radius, lipschitz, max_iter, tol):
    """Projected accelerated gradient with adaptive restart on the subproblem.

    Minimizes :math:`\\phi(x) = \\sum_j c_j f(a_j^\\top x) + \\frac{\\alpha}{2}
    \\|x_{\\mathcal P}\\|^2 + \\lambda\\|x - y\\|^2` over
    :math:`\\|x - y\\| \\le r` from :math:`x = y`: FISTA (Beck and Teboulle)
    with step :math:`1/L` and the gradient restart of O'Donoghue and Candes,
    stopped when the gradient mapping
    :math:`L\\|y_k - P(y_k - \\nabla\\phi(y_k)/L)\\|` is at most ``tol``.
    Returns the iterate and the number of gradient evaluations.
    """
    loss, pen, alpha = problem.loss, problem.pen, problem.alpha
    x = center.copy()
    y = x
    momentum = 1.0
    n_steps = 0
    finite_ball = np.isfinite(radius)
    for _ in range(max_iter):
        margins = _matvec(A_s, y)
        grad = _rmatvec(A_s, coef * loss.derivative(margins))
        grad[pen] += alpha * y[pen]
        grad += 2.0 * lam * (y - center)
        x_new = y - grad / lipschitz
        if finite_ball:
            offset = x_new - center
            norm = float(np.linalg.norm(offset))
            if norm > radius:
                x_new = center + offset * (radius / norm)
        n_steps += 1
        step = y - x_new
        if lipschitz * float(np.linalg.norm(step)) <= tol:
            return x_new, n_steps
        if float(step @ (x_new - x)) > 0:
            # Gradient restart: the momentum points uphill.
            momentum = 1.0
            y = x_new
        else:
            next_momentum = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * momentum**2))
            y = x_new + ((momentum - 1.0) / next_momentum) * (x_new - x)
            momentum = next_momentum
        x = x_new
    return x, n_steps


# ---------------------------------------------------------------------------
# Algorithm 2


def _normalized(scores, u):
    """``scores`` as probabilities; uniform over the weighted rows if all 0.

    Rows near the float64 underflow threshold have leverage scores of 0 to
    working precision: no row is then more informative than another.
    """
    total = float(scores.sum())
    if total > 0:
        return scores / total
    return (u > 0) / float(np.count_nonzero(u > 0))


def _checked_progress(point, t):
    """``(F(x_t), ||grad F(x_t)||)``, or a ValueError if they overflowed."""
    objective = point.objective
    grad_norm = float(np.linalg.norm(point.gradient))
    if not (np.isfinite(objective) and np.isfinite(grad_norm)):
        raise ValueError(
            f"Floating-point overflow in round {t} of the proximal point method: "
            f"the objective ({objective:.3g}) or its gradient (norm "
            f"{grad_norm:.3g}) is not finite. Scale the data, for example with "
            "sklearn.preprocessing.StandardScaler, or the sample weights."
        )
    return objective, grad_norm


def _sample_size(sample_size, n):
    if isinstance(sample_size, Integral):
        if sample_size > n:
            raise ValueError(
                f"sample_size={sample_size} exceeds the number of rows of A ({n}); "
                "pass at most n_samples or a fraction in (0, 1]."
            )
        return int(sample_size)
    return max(1, math.ceil(float(sample_size) * n))


def _static_leverage(problem, leverage, n_components, rng):
    """Ridge leverage of :math:`\\sqrt{u} \\odot A`, ridge :math:`n\\alpha` on
    the penalized columns (a floor keeps it defined without penalty)."""
    A, u, n = problem.A, problem.u, problem.n
    root = np.sqrt(u)
    if sp.issparse(A):
        weighted = sp.diags(root) @ A
        gram = gram_matrix(weighted)
    else:
        gram = scaled_gram(A, root)
    # At least the smallest normal float: a subnormal ridge overflows the
    # equilibration of the Cholesky factorization (1 / ridge).
    floor = max(1e-10 * float(np.trace(gram)) / problem.d, np.finfo(float).tiny)
    ridge = np.maximum(n * problem.alpha * problem.pen, floor)
    if leverage != "exact":
        if not sp.issparse(A):
            weighted = scaled_rows(A, root)
        return sketched_leverage(weighted, ridge, n_components, rng)[0]
    if sp.issparse(A):
        return leverage_from_transform(weighted, leverage_transform(gram, ridge))
    return scaled_leverage(A, root, None, leverage_transform(gram, ridge))


def _radius(rule, grad_norm, lam, mu, t, prox_weight):
    """The radius :math:`r_t` of round ``t`` by ``rule`` (Algorithm 2, line 5).

    A ValueError when a rule's radius overflows: the prox weight is too
    small for the data.
    """
    if rule == "algorithm2":
        r = grad_norm / (lam + mu)
    elif rule == "lemma12":
        r = grad_norm / (2.0 * lam + mu)
    elif rule is None:
        return np.inf
    else:
        r = float(rule)
    if np.isinf(r):
        raise ValueError(
            f"prox_weight={prox_weight!r} is too small for this data: the "
            f"radius ||grad F|| / (prox_weight + mu) of round {t} exceeds "
            "the float64 range (||grad F|| = "
            f"{grad_norm:.3g}). Use a larger prox_weight or 'sqrt_grad', "
            "or scale the data."
        )
    return r


class _Rounds:
    """Algorithm 2 in memory on one problem, step by step.

    The constructor is the setup (the static distributions, the full data's
    Lipschitz constant for 'full', :math:`F(x_0)`); :meth:`round` runs one
    round (lines 4-10) and :meth:`result` gives the
    :class:`ProximalPointResult`. Its caller,
    :meth:`~skcgm.optim.proximal_point.ProximalPointSolver.minimize`, holds
    BLAS to one thread and ignores floating-point warnings around the steps.

    Parameters
    ----------
    solver : ProximalPointSolver
        The hyper-parameters, with concrete values (no 'auto').
    problem : _Problem
        The validated problem.
    x : ndarray of shape (n_coefficients,)
        The starting point :math:`x_0`, owned by the run.
    rng : RandomState
        The stream of the draws and sketches.
    """

    def __init__(self, solver, problem, x, rng):
        self.solver, self.problem, self.rng = solver, problem, rng
        sampling, leverage = solver.sampling, solver.leverage
        u, n = problem.u, problem.n
        self.m = _sample_size(solver.sample_size, n) if sampling != "full" else n
        if sampling == "leverage" and leverage == "sample":
            raise ValueError(
                "leverage='sample' estimates the Gram matrix of the local-"
                "sensitivity scores; sampling='leverage' takes leverage='exact' "
                "or 'sketch'."
            )
        self.mu = problem.alpha if solver.mu == "auto" else float(solver.mu)
        positive = np.flatnonzero(u > 0)
        self.smoothness = float(getattr(problem.loss, "second_derivative_bound", 0.25))
        self.alpha_curvature = problem.alpha if np.any(problem.pen) else 0.0
        self.probabilities = self.gram_sample = None
        if sampling == "local_sensitivity" and leverage == "sample":
            self.gram_sample = importance_sample(
                (u > 0) / float(positive.size),
                self.m,
                random_state=rng,
                replace=solver.replace,
            )
        if sampling == "uniform":
            self.probabilities = (u > 0) / float(positive.size)
        elif sampling == "leverage":
            static = _static_leverage(problem, leverage, solver.n_components, rng)
            self.probabilities = _normalized(static, u)
        self.indices = self.weights = np.empty(0)
        if sampling == "full":
            # Every round's subproblem is the full data's: its constants once.
            self.indices, self.weights = positive, np.ones(positive.size)
            A_full = problem.A[positive] if positive.size < n else problem.A
            coef_full = u[positive] / n
            lipschitz = self.smoothness * _largest_eigenvalue(A_full, coef_full)
            self.full = A_full, coef_full, lipschitz
        # The two passes over the rows of a round's exact scores repeat with
        # the same work: their thread counts are measured (one thread on a
        # busy machine, where a second waits more than it computes). The
        # rest of a round runs between them, so they always wake their
        # threads: every run counts.
        work = n * (problem.d + 1) ** 2
        self.gram_threads = thread_chooser("local-sensitivity gram", work, math.inf)
        self.leverage_threads = thread_chooser(
            "local-sensitivity leverage", work / 2, math.inf
        )
        self.point = problem.evaluate(x)
        objective, self.grad_norm = _checked_progress(self.point, 0)
        self.history = {
            "objective": [objective],
            "grad_norm": [self.grad_norm],
            "prox_weight": [np.nan],
            "radius": [np.nan],
            "total_sensitivity": [np.nan],
            "n_inner_iter": [0],
            "n_distinct": [0],
        }
        if solver.verbose:
            print(
                f"Proximal point round 0: objective {objective:.8g}, grad "
                f"{self.grad_norm:.3g}"
            )
        self.converged = self.grad_norm <= solver.tol
        self.best, self.n_no_change, self.stalled = objective, 0, False
        self.t = self.total_inner = 0

    def done(self):
        """Whether the run has stopped: converged, stalled or ``max_iter``."""
        return self.converged or self.stalled or self.t >= self.solver.max_iter

    def round(self):
        """Round :math:`t`: the ball, the draws, the subproblem, the new
        iterate and the stopping rules."""
        solver, problem = self.solver, self.problem
        self.t += 1
        t, grad_norm = self.t, self.grad_norm
        prox_weight = solver.prox_weight
        lam = float(math.sqrt(grad_norm) if prox_weight == "sqrt_grad" else prox_weight)
        r = _radius(solver.radius, grad_norm, lam, self.mu, t, prox_weight)
        total_sensitivity = np.nan
        if solver.sampling == "local_sensitivity":
            # An infinite ball (radius=None) takes the Lemma 12 radius.
            score_radius = r if np.isfinite(r) else grad_norm / (2.0 * lam + self.mu)
            columns = _taylor_columns(problem, self.point)
            gram = None
            if solver.leverage == "exact" and problem.rows is not None:
                # The Gram matrix of C0 (Theorem 9): the round's first pass
                # over X, one compiled pass writing each chunk of the scaled
                # rows once (sparse rows and the estimates: _local_sensitivity).
                X, signs, intercept = problem.rows
                gram = np.empty((problem.d + 1, problem.d + 1))
                with self.gram_threads.timed() as n_threads:
                    team = signed_gram(
                        X,
                        None,
                        signs,
                        columns.row_scale,
                        intercept,
                        columns.extra,
                        None,
                        gram,
                        n_threads,
                    )
                report_threads(team)
            scores, info = _local_sensitivity(
                problem,
                self.point,
                columns,
                gram,
                lam,
                score_radius,
                solver.scores,
                solver.leverage,
                solver.n_components,
                self.rng,
                self.gram_sample,
                self.leverage_threads,
            )
            total_sensitivity = info["total_sensitivity"]
            if np.isfinite(total_sensitivity) and total_sensitivity > 0:
                self.probabilities = scores / total_sensitivity
            else:
                # beta = inf (Delta = -inf from margins below -709): the
                # scores are dominated by, and proportional to, the leverage.
                self.probabilities = _normalized(info["leverage"], problem.u)
        A_s, coef, lipschitz = self._subproblem_rows()
        lipschitz += self.alpha_curvature + 2.0 * lam
        x, n_steps = _ball_prox_fista(
            problem,
            A_s,
            coef,
            lam,
            self.point.x,
            r,
            lipschitz,
            solver.max_inner_iter,
            solver.inner_tol * grad_norm,
        )
        self.total_inner += n_steps
        self.point = problem.evaluate(x)
        objective, self.grad_norm = _checked_progress(self.point, t)
        for key, value in (
            ("objective", objective),
            ("grad_norm", self.grad_norm),
            ("prox_weight", lam),
            ("radius", r),
            ("total_sensitivity", total_sensitivity),
            ("n_inner_iter", self.total_inner),
            ("n_distinct", len(self.indices)),
        ):
            self.history[key].append(value)
        if solver.verbose:
            print(
                f"Proximal point round {t}: objective {objective:.8g}, grad "
                f"{self.grad_norm:.3g}, lambda {lam:.3g}, radius {r:.3g}, inner "
                f"steps {n_steps}, sampled {len(self.indices)}"
            )
        self._stopping_rules(objective, x)

    def _subproblem_rows(self):
        """The round's rows, their weights :math:`w_j u_j / n` and the
        subproblem's smoothness, from this round's draws (line 8)."""
        if self.solver.sampling == "full":
            return self.full
        problem = self.problem
        self.indices, self.weights = importance_sample(
            self.probabilities,
            self.m,
            random_state=self.rng,
            replace=self.solver.replace,
        )
        self.gram_sample = self.indices, self.weights
        A_s = problem.A[self.indices]
        coef = self.weights * problem.u[self.indices] / problem.n
        return A_s, coef, self.smoothness * _largest_eigenvalue(A_s, coef)

    def _stopping_rules(self, objective, x):
        """The gradient norm against ``tol``, ``n_iter_no_change`` and the
        callback, after round :math:`t`."""
        solver = self.solver
        self.converged = self.grad_norm <= solver.tol
        if objective < self.best:
            self.best, self.n_no_change = objective, 0
        else:
            self.n_no_change += 1
        patience = solver.n_iter_no_change
        self.stalled = patience is not None and self.n_no_change >= patience
        callback = solver.callback
        if callback is not None and callback(self.t, x, self.grad_norm) is True:
            self.converged = True

    def result(self):
        """The last iterate, the history and the last round's sample."""
        history = {
            key: np.asarray(
                value, dtype=np.intp if key.startswith("n_") else np.float64
            )
            for key, value in self.history.items()
        }
        return ProximalPointResult(
            coef=self.point.x,
            n_iter=self.t,
            converged=bool(self.converged),
            history=history,
            sample_indices=np.asarray(self.indices, dtype=np.intp),
            sample_weight=np.asarray(self.weights, dtype=np.float64),
            sampling_probabilities=self.probabilities,
            stalled=self.stalled,
        )
