"""CompAdaGrad: full-matrix AdaGrad in a random subspace, diagonal in its complement.

Mehta, Rendell, Varghese and Webers, "CompAdaGrad: A Compressed,
Complementary, Computationally-Efficient Adaptive Gradient Method" (2016),
is composite mirror descent (eq. 2)

.. math::

    x_{t+1} = \\operatorname{argmin}_x \\; \\eta \\langle g_t, x \\rangle
    + \\eta \\varphi(x) + \\tfrac12 \\|x - x_t\\|_{H_t}^2

with the proximal matrix of eq. (5), full-matrix AdaGrad in the fixed
subspace spanned by the rows of a subsampled randomized Hadamard transform
:math:`\\Pi` (:class:`~skcgm.oracles.SRHT`) plus diagonal AdaGrad on the
orthogonal complement :math:`P^\\perp`,

.. math::

    H_t = \\Pi^\\top (\\Pi G_t \\Pi^\\top + \\delta I)^{1/2} \\Pi
    + \\tau P^\\perp \\big(\\operatorname{diag}(G_t^\\perp)^{1/2}
    + \\delta I\\big) P^\\perp,
    \\qquad G_t = \\sum_{s \\le t} g_s g_s^\\top,
    \\quad G_t^\\perp = P^\\perp G_t P^\\perp.

This module keeps the per-problem state (:class:`CompAdaGradState`: the
iterate, :math:`S = \\Pi G_t \\Pi^\\top` and :math:`s = \\operatorname{diag}
(G_t^\\perp)`) and performs one update (:func:`compadagrad_step`): the
squared-l2 step in closed form (eqs. 13-15) and the l1 step as an exact
LASSO solved on the implicit Gram matrix (eqs. 16-18, with eq. 17 corrected:
the paper prints a product where the diagonal entry has a sum), with an
optional ridge term for the elastic net. Equation numbers are the paper's.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import warnings
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
from scipy.linalg import cho_factor, cho_solve, lu_factor, lu_solve, solve_triangular
from scipy.linalg.lapack import dpotrf, dpotrs, dsyevd
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ...oracles._sketches import fwht
from ...utils._params import StrictInterval
from ...utils._sklearn_compat import (
    StrOptions,
    validate_parameter_constraints,
    validate_params,
)
from ._eigen_update import rank_one_eigh_update

__all__ = [
    "DELTA_BOUNDS",
    "CompAdaGradState",
    "compadagrad_step",
    "init_compadagrad_state",
]

# Conventional flop counts of the dense factorizations (one multiply or one
# add is one flop): symmetric eigendecomposition with eigenvectors ~ 9 k^3
# (Golub and Van Loan, "Matrix Computations", symmetric QR algorithm) and
# Cholesky ~ k^3 / 3.
_EIGH_FLOPS_PER_CUBE = 9
_CHOLESKY_FLOPS_DIVISOR = 3
# A rank-one eigen-update: 2 k^3 for the product with the old eigenvectors
# and, per root of the secular equation, a few O(k) iterations plus the O(k)
# eigenvector formula, counted as 12 k^2 in all.
_EIGH_UPDATE_FLOPS_PER_SQUARE = 12
# Steps between two fresh eigendecompositions of S: rounding in the rank-one
# updates grows like the number of updates (2e-14 relative after 2500 at
# k = 32), so an occasional restart keeps it at the 1e-15 level for 1/256 of
# the cost of a fresh decomposition per step.
_EIGH_REFRESH_STEPS = 256
_EPS = float(np.finfo(np.float64).eps)

# Relative tolerance of the KKT check that certifies an l1 solution, and the
# smallest denominator of a homotopy step.
_KKT_RTOL = 1e-10
_STEP_EPS = 1e-12
# Block principal pivoting of the l1 step: iterations before falling back to
# the homotopy, and full exchanges allowed without fewer infeasibilities.
_ACTIVE_SET_MAX_ITER = 100
_FULL_EXCHANGES = 3

# The accepted damping, [2^-1022, 2^1022]: the normal float64 numbers whose
# reciprocal is normal too. A step divides by delta where a coordinate or a
# direction has no gradient yet (1 / d in the diagonal step, B = (D + lambda
# I)^{-1} in eqs. 14-15): a subnormal delta made that infinite (NaN steps),
# and a delta above 2^1022 made B subnormal, whose Gram Pi B Pi^T then lost
# its digits.
DELTA_BOUNDS = (2.0**-1022, 2.0**1022)

# The hyper-parameters of a step (compadagrad_step and _make_stepper).
_STEP_CONSTRAINTS = {
    "eta": [StrictInterval(Real, 0, None, closed="neither")],
    "alpha": [StrictInterval(Real, 0, None, closed="left")],
    "penalty": [StrOptions({"l2", "l1", "elasticnet"}), None],
    "l1_ratio": [StrictInterval(Real, 0, 1, closed="both"), None],
    "tau": [StrictInterval(Real, 0, None, closed="left")],
    "delta": [StrictInterval(Real, *DELTA_BOUNDS, closed="both")],
    "variant": [StrOptions({"paper", "theory", "balanced", "adaptive"})],
}


@dataclass(eq=False)
class CompAdaGradState:
    """State of one CompAdaGrad problem: iterate and preconditioner statistics.

    A plain record, created by :func:`init_compadagrad_state` and updated in
    place by :func:`compadagrad_step`. All vectors live in the padded
    dimension :math:`n` of the projection (features zero-padded to a power of
    two); the first ``n_features`` entries of ``coef`` are the model.

    Parameters
    ----------
    coef : ndarray of shape (n_padded,)
        The iterate :math:`x_t`, padded. The padded coordinates can become
        non-zero (the projector :math:`P` mixes coordinates); they do not
        change :math:`\\langle x_t, a \\rangle` for zero-padded data.
    subspace_gram : ndarray of shape (n_components, n_components)
        :math:`S = \\Pi G_t \\Pi^\\top`, the running sum of
        :math:`(\\Pi g_s)(\\Pi g_s)^\\top` with the projection's own
        :math:`\\Pi` (``projection.components_``).
    complement_sq : ndarray of shape (n_padded,)
        :math:`s = \\operatorname{diag}(G_t^\\perp)`, the running sum of the
        squared complement gradients :math:`(P^\\perp g_s)^2`.
    n_updates : int, default=0
        Number of steps taken.
    n_flops : int, default=0
        Floating-point operations spent in the steps, counted analytically
        per operation executed (deterministic; see :func:`compadagrad_step`).
    subspace_eigh : tuple or None, default=None
        ``(eigenvalues, eigenvectors, n_updates)``: the eigendecomposition of
        ``subspace_gram`` (eigenvalues ascending) left by the step that
        brought the count to ``n_updates``, which the next step updates for its rank-one
        change of :math:`S` instead of decomposing :math:`S` again. Any other
        value of ``n_updates`` (a state edited by hand) makes the step
        decompose :math:`S` from scratch.

    See Also
    --------
    init_compadagrad_state : Create a state.
    compadagrad_step : Update it.

    Examples
    --------
    >>> from skcgm.optim import init_compadagrad_state
    >>> from skcgm.oracles import SRHT
    >>> state = init_compadagrad_state(SRHT(2, random_state=0).fit(3))
    >>> state.coef.shape, state.subspace_gram.shape, state.n_updates
    ((4,), (2, 2), 0)
    """

    coef: np.ndarray = field(repr=False)
    subspace_gram: np.ndarray = field(repr=False)
    complement_sq: np.ndarray = field(repr=False)
    n_updates: int = 0
    n_flops: int = 0
    subspace_eigh: tuple = field(default=None, repr=False, compare=False)


# The fitted attributes of the sketch that the step reads, checked by
# scikit-learn's check_is_fitted (a NotFittedError is a ValueError).
_PROJECTION_FITTED = ["components_", "n_padded_", "n_features_in_", "scale_"]
_PROJECTION_NOT_FITTED = (
    "projection must be a fitted skcgm.oracles.SRHT (call "
    "projection.fit(n_features) first); this %(name)s is not fitted."
)


def init_compadagrad_state(projection, coef=None, dtype=np.float64):
    """Create the state of one CompAdaGrad problem.

    :math:`S = 0`, :math:`s = 0` and :math:`x_1` = ``coef`` (0 by default:
    the paper leaves :math:`x_1` unstated, and its regret bound, eq. 8, is
    smallest for :math:`x_1 = 0` when nothing is known of :math:`x^*`).

    Parameters
    ----------
    projection : SRHT
        The fitted :class:`~skcgm.oracles.SRHT` that fixes :math:`\\Pi`, its
        padded dimension :math:`n` and :math:`k` = ``n_components_``.
    coef : array-like of shape (n_features,) or (n_padded,), default=None
        Initial iterate; zero-padded to :math:`n` and copied. None starts
        from 0.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        dtype of the stored arrays; the steps compute in float64 either way.

    Returns
    -------
    state : CompAdaGradState
        A fresh state, ``n_updates = n_flops = 0``.

    See Also
    --------
    compadagrad_step : One CompAdaGrad update of the state.

    Examples
    --------
    >>> from skcgm.optim import init_compadagrad_state
    >>> from skcgm.oracles import SRHT
    >>> projection = SRHT(1, random_state=0).fit(3)
    >>> state = init_compadagrad_state(projection, coef=[1.0, 2.0, 3.0])
    >>> state.coef
    array([1., 2., 3., 0.])
    """
    check_is_fitted(projection, _PROJECTION_FITTED, msg=_PROJECTION_NOT_FITTED)
    dtype = np.dtype(dtype)
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"dtype must be numpy.float64 or numpy.float32; got {dtype}.")
    n = projection.n_padded_
    k = projection.components_.shape[0]
    x = np.zeros(n, dtype=dtype)
    if coef is not None:
        coef = np.asarray(coef, dtype=np.float64)
        if coef.ndim != 1 or coef.shape[0] not in (projection.n_features_in_, n):
            raise ValueError(
                f"coef must be a 1-D array of n_features={projection.n_features_in_} "
                f"or n_padded={n} entries; got shape {coef.shape}."
            )
        if not np.all(np.isfinite(coef)):
            raise ValueError("coef must not contain NaN or infinity.")
        x[: coef.shape[0]] = coef
    return CompAdaGradState(
        coef=x,
        subspace_gram=np.zeros((k, k), dtype=dtype),
        complement_sq=np.zeros(n, dtype=dtype),
    )


def _check_state(state, n, k):
    if not isinstance(state, CompAdaGradState):
        raise TypeError(
            "state must be a CompAdaGradState (see init_compadagrad_state); got "
            f"{type(state).__name__}."
        )
    if (
        state.coef.shape != (n,)
        or state.subspace_gram.shape != (k, k)
        or state.complement_sq.shape != (n,)
    ):
        raise ValueError(
            f"state does not match the projection (n_padded={n}, n_components={k}): "
            f"coef {state.coef.shape}, subspace_gram {state.subspace_gram.shape}, "
            f"complement_sq {state.complement_sq.shape}."
        )


def _padded_grad(grad, n_features, n):
    """``grad`` as a float64 vector of length ``n`` (no copy when it already is)."""
    g = np.asarray(grad)
    if g.ndim != 1 or g.shape[0] not in (n_features, n):
        raise ValueError(
            f"grad must be a 1-D array of n_features={n_features} or n_padded={n} "
            f"entries; got shape {g.shape}."
        )
    if g.shape[0] == n:
        g = np.asarray(g, dtype=np.float64)
    else:
        padded = np.zeros(n)
        padded[:n_features] = g
        g = padded
    if not np.isfinite(g).all():
        raise ValueError("grad must not contain NaN or infinity.")
    return g


@validate_params(_STEP_CONSTRAINTS, prefer_skip_nested_validation=True)
def compadagrad_step(
    state,
    grad,
    projection,
    *,
    eta,
    alpha,
    penalty="l2",
    l1_ratio=0.15,
    tau=1.0,
    delta=1e-2,
    variant="paper",
):
    """One CompAdaGrad composite mirror-descent update, in place.

    First the statistics take in the gradient (:math:`G_t` includes
    :math:`g_t`, as in AdaGrad): :math:`S \\leftarrow S + (\\Pi g_t)(\\Pi
    g_t)^\\top` and :math:`s \\leftarrow s + (P^\\perp g_t)^2`. Then, with
    :math:`g = \\eta g_t`, :math:`\\lambda = \\eta\\,\\alpha` and
    :math:`D = \\tau (\\sqrt{s} + \\delta)`, the iterate becomes

    .. math::

        x_{t+1} = \\operatorname{argmin}_x \\langle g, x \\rangle
        + \\tfrac12 \\|x - x_t\\|_A^2 + \\lambda \\varphi(x), \\qquad
        A = \\Pi^\\top K \\Pi + P^\\perp D P^\\perp,

    (eq. 9), where :math:`P = \\Pi^\\top \\Pi / c^2` (``c`` =
    ``projection.scale_``) and, by ``variant``,

    - 'paper' (eq. 5): :math:`K = (S + \\delta I)^{1/2}` with the projection's
      :math:`\\Pi` (the paper's :math:`\\sqrt{n/k}\\,RH\\Sigma` for an
      :class:`~skcgm.oracles.SRHT` with ``scaling='srht'``): :math:`\\delta`
      inside the root;
    - 'theory' (eq. 19, the proximal function of the regret bound, Theorem
      C): :math:`\\Pi^\\top K \\Pi = \\tilde\\Pi^\\top ((\\tilde\\Pi G_t
      \\tilde\\Pi^\\top)^{1/2} + \\delta I) \\tilde\\Pi` with the orthonormal
      rows :math:`\\tilde\\Pi = \\Pi / c`, whatever the projection's scaling:
      :math:`\\delta` outside the root. Theorem C has :math:`\\tau = 1`.
    - 'balanced' (not in the paper): 'theory' with the subspace part
      divided by :math:`\\sqrt{k}`, :math:`\\Pi^\\top K \\Pi = k^{-1/2}
      \\tilde\\Pi^\\top ((\\tilde\\Pi G_t \\tilde\\Pi^\\top)^{1/2} + \\delta I)
      \\tilde\\Pi`, i.e. the subspace step at the rate :math:`\\eta
      \\sqrt{k}` and the complement step at :math:`\\eta`. The regret bound
      (eq. 8) has a subspace term :math:`\\frac{1}{2\\eta} \\max_t \\|P(x^* -
      x_t)\\|_2^2 \\operatorname{tr}(\\cdot) + \\eta \\operatorname{tr}(\\cdot)`
      and a complement term with :math:`\\|P^\\perp(x^* - x_t)\\|_\\infty^2`
      instead; each is smallest at :math:`\\eta` equal to its own diameter,
      and for a dense :math:`x^*` the Euclidean diameter of a
      :math:`k`-dimensional subspace is about :math:`\\sqrt{k}` times the
      sup-norm one (up to a logarithmic factor). A block-diagonal metric
      with a rate per block keeps the bound (the two terms add up). With
      one rate for both, as in 'theory', the subspace moves every
      coordinate by about :math:`\\eta / \\sqrt{n}` on the first step where
      the complement moves it by :math:`\\eta`.
    - 'adaptive' (not in the paper): 'balanced' with :math:`\\sqrt{k}`
      replaced by :math:`\\sqrt{k / r_t}`, where :math:`r_t = (\\sum_j
      \\mu_j^{1/2})^2 / \\sum_j \\mu_j \\in [1, k]` is the effective rank
      :math:`(\\operatorname{tr} S^{1/2})^2 / \\operatorname{tr} S`
      (:math:`\\mu_j` the eigenvalues of :math:`S`). On
      gradients spread evenly over :math:`r` dense directions of the
      subspace, diagonal AdaGrad's step is :math:`\\sqrt{k / r}` times
      the whitened one of 'theory'; the factor is :math:`\\sqrt{k}` while
      the gradients span one direction and falls to 1 ('theory') as they
      fill the subspace. A heuristic: the rate changes with :math:`t`, so
      the regret bound (eq. 8) does not cover it.

    **Squared l2**, :math:`\\varphi(x) = \\frac12 \\|x\\|^2`: closed form. The
    problem splits over :math:`\\operatorname{Im} P` and its complement
    (eqs. 10-11). With :math:`K = V \\operatorname{diag}(\\kappa) V^\\top`
    (one :math:`k \\times k` eigendecomposition),

    .. math::

        x_\\parallel = \\Pi^\\top (c^2 K + \\lambda I)^{-1}
        (K \\Pi x_t - \\Pi g / c^2) \\qquad \\text{(eq. 13)},

    and, with :math:`B = (D + \\lambda I)^{-1}` and :math:`y = -P^\\perp g +
    D P^\\perp x_t`,

    .. math::

        x_\\perp = B (y - \\Pi^\\top \\nu), \\qquad
        \\nu = (\\Pi B \\Pi^\\top)^{-1} \\Pi B y \\qquad \\text{(eqs. 14-15)},

    eq. (15) simplified: the paper's right-hand side :math:`\\Pi B(y - D B y
    - \\lambda B y + y)`, as printed, has three more terms, which cancel since
    :math:`(D + \\lambda I) B = I`. :math:`x_{t+1} = x_\\parallel +
    x_\\perp`, with :math:`\\Pi x_\\perp = 0`.

    **l1**, :math:`\\varphi(x) = \\|x\\|_1`: the LASSO of eq. (16),
    :math:`\\min_x \\langle u, x \\rangle + \\frac12 x^\\top A x + \\lambda
    \\|x\\|_1` with :math:`u = g - A x_t`, solved exactly on the implicit Gram
    matrix :math:`A` (never formed): products :math:`A\\beta` by eq. (26)
    and entries by eqs. (17)-(18), written with the columns :math:`p_i` of
    :math:`\\Pi`, :math:`\\rho = 1 / c^2` and :math:`Q = K + \\rho^2 \\Pi D
    \\Pi^\\top`,

    .. math::

        A_{ii} = d_i + p_i^\\top Q p_i - 2 \\rho\\, d_i \\|p_i\\|^2, \\qquad
        A_{ij} = p_i^\\top Q p_j - \\rho (d_i + d_j)\\, p_i^\\top p_j,

    where the diagonal is eq. (17) corrected: the paper prints the product
    :math:`d_i \\langle RHe_i, QRHe_i \\rangle` where the sum :math:`d_i +
    \\langle RHe_i, QRHe_i \\rangle` belongs (checked against the dense
    :math:`A`). An
    active-set method (block principal pivoting) starts from the support and
    signs of :math:`x_t`; each iteration solves the linear system of the
    guessed support, of the form diagonal plus rank :math:`2k` (Woodbury
    identity), and the point is returned once it satisfies the optimality
    (KKT) conditions of (16), which certify the unique minimizer. If the
    iterations do not settle, the LARS-lasso homotopy of the paper (Efron et
    al., 2004) runs from 0 instead, with the entries (17)-(18) feeding an
    incrementally updated Cholesky factor.

    **Elastic net**, :math:`\\varphi(x) = r \\|x\\|_1 + \\frac{1 - r}{2}
    \\|x\\|^2` with :math:`r` = ``l1_ratio`` (not in the paper): the ridge
    part moves into the metric, :math:`A' = A + \\lambda (1 - r) I =
    \\Pi^\\top (K + \\lambda (1 - r) I / c^2) \\Pi + P^\\perp (D + \\lambda
    (1 - r) I) P^\\perp` since :math:`P + P^\\perp = I`, which has the
    structure of :math:`A` with shifted :math:`K` and :math:`D`; the step is
    the LASSO (16) in :math:`A'` with :math:`u = g - A x_t` and penalty
    :math:`\\lambda r`, solved exactly as above. ``l1_ratio=1`` is 'l1',
    ``l1_ratio=0`` the closed-form 'l2' step.

    ``penalty=None`` is :math:`\\lambda = 0` (``alpha`` ignored). The limits
    are exact: ``n_components_ = 0`` with ``tau=1`` is diagonal AdaGrad,
    :math:`H_t = \\delta I + \\operatorname{diag}(G_t)^{1/2}`; ``n_components_
    = n_padded_`` is full-matrix AdaGrad, :math:`H_t = (G_t + \\delta
    I)^{1/2}` ('paper'), :math:`G_t^{1/2} + \\delta I` ('theory') or
    :math:`(G_t^{1/2} + \\delta I) / \\sqrt{n}` ('balanced') or
    :math:`(G_t^{1/2} + \\delta I) / \\sqrt{n / r_t}` ('adaptive').

    Parameters
    ----------
    state : CompAdaGradState
        The state of the problem, updated in place.
    grad : array-like of shape (n_features,) or (n_padded,)
        The (mini-batch averaged) loss gradient :math:`g_t` at
        ``state.coef``; zero-padded if it has ``n_features`` entries. Not
        modified.
    projection : SRHT
        The fitted :class:`~skcgm.oracles.SRHT` the state was created with;
        its explicit ``components_`` :math:`\\Pi` is used for every product.
    eta : float
        The constant learning rate :math:`\\eta > 0`.
    alpha : float
        The regularization strength :math:`\\alpha \\ge 0`:
        :math:`\\varphi(x) = \\frac{\\alpha}{2} \\|x\\|^2` ('l2', the convention
        of :class:`~sklearn.linear_model.SGDClassifier`),
        :math:`\\alpha \\|x\\|_1` ('l1') or :math:`\\alpha (r \\|x\\|_1 +
        \\frac{1 - r}{2} \\|x\\|^2)` ('elasticnet').
    penalty : {'l2', 'l1', 'elasticnet', None}, default='l2'
        The composite regularizer :math:`\\varphi`.
    l1_ratio : float, default=0.15
        The mixing parameter :math:`0 \\le r \\le 1` of 'elasticnet' (as in
        :class:`~sklearn.linear_model.SGDClassifier`); ignored otherwise.
    tau : float, default=1.0
        Weight :math:`\\tau \\ge 0` of the complement (diagonal) part. 0 is
        allowed only when the complement is empty (``n_components_ =
        n_padded_``) or when the penalty is a pure ridge (``penalty='l2'``,
        or 'elasticnet' with ``l1_ratio=0``) with ``alpha > 0``.
    delta : float, default=1e-2
        The damping :math:`\\delta = \\delta_r = \\delta_c` (the paper
        ties them and tunes them, reporting no value). 1e-2 leaves unit-scale
        gradients almost undamped (diagonal steps :math:`\\eta g_i / (|g_i| +
        \\delta)`) while bounding the first steps on coordinates and
        directions with tiny gradients; inside the root ('paper') it acts as
        :math:`\\sqrt{\\delta} = 0.1` on the subspace. Accepted in
        :math:`[2^{-1022}, 2^{1022}]`, the normal float64 numbers whose
        reciprocal is normal too. With a subspace, the metric never falls
        below the rounding level of the statistics (:math:`\\epsilon` the
        float64 machine epsilon): an eigenvalue :math:`\\mu_j \\le k
        \\epsilon \\mu_{\\max}` of :math:`S` counts as 0 and the
        eigenvalue :math:`\\kappa_j` of the subspace term is at least
        :math:`(k \\epsilon \\mu_{\\max})^{1/2}` (with :math:`\\mu` the
        eigenvalues of :math:`\\tilde\\Pi G_t \\tilde\\Pi^\\top` except
        for 'paper'), and the entries of :math:`D / \\tau` are at
        least :math:`n \\epsilon (\\operatorname{tr} S / c^2 + \\sum_i
        s_i)^{1/2} = n \\epsilon (\\operatorname{tr} G_t)^{1/2}`, the
        rounding error of :math:`P^\\perp g` summed over the steps. The
        gradient's component along a zeroed eigenvector :math:`v` is
        rounding noise too, :math:`(v^\\top \\Pi g_t)^2 \\le v^\\top S v`:
        divided by :math:`\\delta` alone it would move :math:`x` by up to
        :math:`\\eta (k \\epsilon \\mu_{\\max})^{1/2} / \\delta`
        (:math:`10^{281}` at ``delta=1e-300``), at the floor by at most
        about :math:`\\eta` (times the variant's rate). Resolved directions
        are above the floor, so a :math:`\\delta` above it is used exactly
        as given, and so is any :math:`\\delta` in the diagonal limit
        (``n_components_ = 0``), whose statistics are exact.
    variant : {'paper', 'theory', 'balanced', 'adaptive'}, default='paper'
        Where :math:`\\delta` sits in the subspace part, which :math:`\\Pi`
        is used and the rate of the subspace step (see above). The default
        here is the paper's eq. (5); the classifier
        (:class:`~skcgm.linear_model.CompAdaGradClassifier`) defaults to
        'balanced'.

    Returns
    -------
    state : CompAdaGradState
        The same object: ``coef`` is :math:`x_{t+1}`, the statistics include
        :math:`g_t`, ``n_updates`` is incremented and ``n_flops`` increased
        by the operations of this step.

    Raises
    ------
    FloatingPointError
        If the step overflows: the updated statistics, the preconditioner or
        the new iterate are not finite (badly scaled gradients, a huge
        ``eta``). The state is then left unchanged.

    See Also
    --------
    init_compadagrad_state : Create the state.
    skcgm.oracles.SRHT : The projection.

    Notes
    -----
    **Cost.** With the explicit :math:`k \\times n` matrix :math:`\\Pi`, an l2
    step costs :math:`O(n k^2 + k^3)`: a few products with :math:`\\Pi`
    (:math:`O(nk)` each), :math:`\\Pi B \\Pi^\\top` (:math:`O(nk^2)`, a
    symmetric rank-k update), one eigendecomposition and one Cholesky
    factorization of :math:`k \\times k` matrices. It is linear in :math:`n`
    for fixed :math:`k`. Since :math:`S` changes by the rank-one
    :math:`(\\Pi g_t)(\\Pi g_t)^\\top`, the eigendecomposition is the
    previous step's updated through the secular equation (Bunch, Nielsen and
    Sorensen 1978; LAPACK's ``dlaed9``), :math:`O(k^3)` for one product but
    four times cheaper than a fresh ``dsyevd`` at :math:`k = 32`, with a fresh
    decomposition every 256 steps against the growth of rounding errors.
    The diagonal limit costs :math:`O(n)`. An l1 step costs
    :math:`O(m k^2 + k^3 + nk)` per active-set iteration for a support of
    size :math:`m` (a few iterations when the support changes little from
    step to step), or :math:`O(nk + m^2)` per homotopy step in the fallback.

    **Flop counts** (``state.n_flops``) add, per operation executed, its
    conventional count: :math:`2mn` for an :math:`m \\times n` matrix-vector
    product, :math:`n k (k+1)` for :math:`W W^\\top` with :math:`W \\in
    \\mathbb{R}^{k \\times n}`, :math:`9k^3` for a symmetric
    eigendecomposition, :math:`2k^3 + 12k^2` for its rank-one update,
    :math:`k^3/3` for a Cholesky factorization,
    :math:`2k^2` for a solve with its factor, one per elementwise operation.
    They are deterministic, so tests can check the complexity in :math:`n`.
    The rounding floors of the metric (see ``delta``), :math:`O(n + k)`
    sums and comparisons that leave the step unchanged unless
    :math:`\\delta` is below the rounding level, are not counted.

    References
    ----------
    N. A. Mehta, A. Rendell, A. Varghese and C. Webers, "CompAdaGrad: A
    Compressed, Complementary, Computationally-Efficient Adaptive Gradient
    Method", arXiv:1609.03319, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import compadagrad_step, init_compadagrad_state
    >>> from skcgm.oracles import SRHT
    >>> projection = SRHT(0).fit(3)   # k = 0: diagonal AdaGrad
    >>> state = init_compadagrad_state(projection)
    >>> state = compadagrad_step(state, [1.0, -2.0, 0.0], projection, eta=1.0,
    ...                          alpha=0.0, delta=1.0)
    >>> state.coef   # -eta * g / (|g| + delta)
    array([-0.5       ,  0.66666667,  0.        ,  0.        ])
    >>> projection = SRHT(4).fit(3)   # k = n: full-matrix AdaGrad
    >>> state = init_compadagrad_state(projection)
    >>> state = compadagrad_step(state, [3.0, 4.0, 0.0], projection, eta=1.0,
    ...                          alpha=0.0, delta=1e-12)
    >>> np.round(state.coef, 6)   # -g / ||g||
    array([-0.6, -0.8,  0. ,  0. ])
    """
    check_is_fitted(projection, _PROJECTION_FITTED, msg=_PROJECTION_NOT_FITTED)
    k, n = projection.components_.shape
    _check_state(state, n, k)
    params = _step_params(
        projection, eta, alpha, penalty, l1_ratio, tau, delta, variant
    )
    g = _padded_grad(grad, projection.n_features_in_, n)
    # Overflow is detected by the explicit checks of _update, whatever the
    # caller's numpy error state.
    with np.errstate(all="ignore"):
        return _update(state, g, projection, *params)


def _step_params(projection, eta, alpha, penalty, l1_ratio, tau, delta, variant):
    """``(eta, lam1, lam2, tau, delta, variant)`` of a step.

    The parameters have passed ``_STEP_CONSTRAINTS``; the rules between them
    are checked here. ``lam1`` and ``lam2`` are the l1 and ridge strengths
    of the rescaled step, eta * alpha * r and eta * alpha * (1 - r) for the
    l1 ratio r.
    """
    k, n = projection.components_.shape
    eta, alpha, tau, delta = float(eta), float(alpha), float(tau), float(delta)
    if penalty == "elasticnet":
        if l1_ratio is None:
            raise ValueError(
                "The 'l1_ratio' parameter of compadagrad_step must be a float in "
                "[0, 1] when penalty='elasticnet'; got None."
            )
        l1_ratio = float(l1_ratio)
    else:
        l1_ratio = {"l1": 1.0, "l2": 0.0, None: 0.0}[penalty]
    lam = 0.0 if penalty is None else eta * alpha
    lam1, lam2 = lam * l1_ratio, lam * (1.0 - l1_ratio)
    # Paper, Section 4.1: A is positive definite for tau > 0; with tau = 0
    # only a ridge term keeps the complement step defined (x_perp = -P_perp
    # g / lambda), an l1 term alone does not.
    if tau == 0.0 and k != n and not (lam1 == 0.0 and lam2 > 0.0):
        raise ValueError(
            "The 'tau' parameter of compadagrad_step must be > 0 unless the "
            "subspace is the whole space (n_components_ == n_padded_) or the "
            "penalty is a pure ridge ('l2', or 'elasticnet' with l1_ratio=0) "
            "with alpha > 0: with tau=0 the metric of the step is singular on "
            "the complement of the subspace."
        )
    return eta, lam1, lam2, tau, delta, variant


def _make_stepper(projection, **options):
    """``step(state, grad)``: :func:`compadagrad_step` with checks done once.

    ``options`` are the keyword arguments of :func:`compadagrad_step`, all
    of them (``eta``, ``alpha``, ``penalty``, ``l1_ratio``, ``tau``,
    ``delta``, ``variant``). For estimators, which validate their data and
    parameters once per fit: the per-call checks cost a tenth of a step at
    k = 32. ``grad`` must be a float64 vector of ``n_features`` or
    ``n_padded`` entries. A non-finite ``grad`` raises FloatingPointError,
    as an overflow inside the step does: the estimator computed it, so it is
    an overflow of the fit, not bad input. The caller sets the numpy error
    state (see :func:`compadagrad_step`).
    """
    check_is_fitted(projection, _PROJECTION_FITTED, msg=_PROJECTION_NOT_FITTED)
    validate_parameter_constraints(
        _STEP_CONSTRAINTS, options, caller_name="compadagrad_step"
    )
    params = _step_params(projection, **options)
    n_features, n = projection.n_features_in_, projection.n_padded_

    def step(state, grad):
        if not np.isfinite(grad).all():
            raise FloatingPointError("The gradient is not finite.")
        if grad.shape[0] != n:
            padded = np.zeros(n)
            padded[:n_features] = grad
            grad = padded
        return _update(state, grad, projection, *params)

    return step


def _update(state, g, projection, eta, lam1, lam2, tau, delta, variant):
    """The step of :func:`compadagrad_step` on checked arguments.

    ``g`` is the padded float64 gradient, ``lam1`` and ``lam2`` the l1 and
    ridge strengths of the rescaled step (:func:`_step_params`). The
    state changes only once the whole step is known to be finite.
    """
    Pi = projection.components_
    k, n = Pi.shape
    full = k == n
    c2 = float(projection.scale_) ** 2
    x = np.asarray(state.coef, dtype=np.float64)
    flops = 0

    # 1. Statistics, including g_t.
    l1 = lam1 > 0.0
    p = px = px_back = None
    l2_split = k and not full and not l1
    if l2_split:
        # The l2 step needs Pi x_t and P x_t too: one pass over Pi gives
        # Pi g_t and Pi x_t, one over Pi^T gives P g_t and P x_t.
        both = Pi @ np.column_stack((g, x))
        p, px = both[:, 0], both[:, 1]
        flops += 4 * n * k
    elif k:
        p = Pi @ g
        flops += 2 * n * k
    subspace_gram = complement_sq = None
    if k:
        # Summed in float64, stored in the state's dtype, as an in-place +=.
        subspace_gram = (state.subspace_gram + np.outer(p, p)).astype(
            state.subspace_gram.dtype, copy=False
        )
        flops += 2 * k * k
    gperp = None
    if not full:
        if not k:
            gperp = g
        elif l1:
            gperp = g - Pi.T @ (p / c2)
            flops += 2 * n * k + n + k
        else:
            back = Pi.T @ both
            back *= 1.0 / c2
            gperp = g - back[:, 0]
            px_back = back[:, 1]
            flops += 4 * n * k + 3 * n
        complement_sq = (state.complement_sq + gperp * gperp).astype(
            state.complement_sq.dtype, copy=False
        )
        flops += 2 * n
    # Checked before any factorization: LAPACK on an overflowed matrix fails
    # with an unrelated message ("eigenvalues did not converge").
    _check_finite(subspace_gram, complement_sq)

    # 2. Preconditioner: K' = V diag(kappa) V^T such that the subspace part of
    # A is Pi^T K' Pi with the projection's Pi, and the diagonal D.
    V = kappa = dvec = eigh_cache = None
    if k:
        mu, V, eigh_flops = _subspace_eigh(state, subspace_gram, p)
        eigh_cache = (mu, V, state.n_updates + 1)
        # S is PSD: eigenvalues at rounding level are zeros (S has rank < k for
        # the first k steps). Left as they are, the square root of 'theory'
        # would turn a 1e-16 rounding error into a 1e-8 one.
        mu = mu.copy()
        cut = k * _EPS * max(float(mu[-1]), 0.0)
        mu[mu <= cut] = 0.0
        # The gradient's component along a zeroed eigenvector v is rounding
        # noise too, bounded only by (v^T p)^2 <= v^T S v <= cut (S includes
        # p p^T): divided by delta alone it would move x by up to eta
        # sqrt(cut) / delta (1e281 at delta=1e-300, issue 38). So the
        # metric's eigenvalues are at least that level, sqrt(cut) in the
        # units of the root: then no direction moves by more than eta (times
        # the variant's rate), AdaGrad's bound in exact arithmetic. Resolved
        # eigenvalues (mu > cut) are above it: only a delta below the
        # rounding level changes anything.
        if variant == "paper":
            kappa = np.sqrt(np.maximum(mu + delta, cut))
        else:
            # (S~)^{1/2} + delta I with S~ = S / c^2, moved onto Pi = c Pi~.
            kappa = np.maximum(np.sqrt(mu / c2) + delta, np.sqrt(cut / c2)) / c2
            if variant == "balanced":
                # The subspace part at its own bound-optimal rate, eta
                # sqrt(k): its regret term is measured in ||P(x* - x_t)||_2,
                # about sqrt(k) times the ||.||_inf of the complement's term
                # for dense x* (note 001, section 4.1; see the docstring).
                kappa /= np.sqrt(k)
                flops += k
            elif variant == "adaptive":
                # sqrt(k / r), r = (tr S^{1/2})^2 / tr S: the factor by
                # which diagonal AdaGrad's step on gradients spread evenly
                # over r dense directions exceeds the whitened subspace
                # step; sqrt(k) ('balanced') while the gradients span one
                # direction, 1 ('theory') once they fill the subspace.
                total = float(mu.sum())
                rank = float(np.sqrt(mu).sum()) ** 2 / total if total > 0 else 1.0
                kappa /= np.sqrt(k / max(rank, 1.0))
                flops += 3 * k
        flops += eigh_flops + 5 * k
    if not full:
        dvec = np.sqrt(np.asarray(complement_sq, dtype=np.float64))
        dvec += delta
        if k:
            # P_perp g = g - Pi^T Pi g / c^2 comes out of inner products of
            # length up to n, with absolute rounding errors up to about
            # n eps ||g||: the roots of s are resolved only to n eps
            # sqrt(tr G_t), tr G_t = tr S / c^2 + sum(s). A coordinate whose
            # complement gradients cancel to rounding level would, with a
            # delta below that, get an entry of D so small that the weighted
            # projection of eqs. (14)-(15) amplifies the errors (1e125 at
            # delta=1e-300 on gradients in the subspace). Without a subspace
            # (diagonal AdaGrad) nothing mixes the coordinates: s is exact.
            total = float(np.trace(subspace_gram)) / c2 + float(
                np.sum(complement_sq, dtype=np.float64)
            )
            np.maximum(dvec, n * _EPS * np.sqrt(total), out=dvec)
        dvec *= tau
        flops += 3 * n

    # 3. Composite step.
    if l1:
        try:
            x_new, step_flops = _l1_step(x, g, Pi, c2, V, kappa, dvec, eta, lam1, lam2)
        except np.linalg.LinAlgError as exc:
            # The metric is positive definite in exact arithmetic; LAPACK
            # finds it singular only when its complement part underflowed
            # (tau * delta below the float64 range of the subspace part).
            raise FloatingPointError(
                "The l1 CompAdaGrad step underflowed: its metric is singular "
                "to working precision; the state is unchanged."
            ) from exc
    else:
        x_par, x_perp, step_flops = _l2_step_parts(
            x,
            gperp,
            p,
            px,
            px_back,
            Pi,
            c2,
            V,
            kappa,
            dvec,
            eta,
            lam2,
            rows=getattr(projection, "rows_", None),
        )
        if x_par is None or x_perp is None:
            x_new = x_perp if x_par is None else x_par
        else:
            x_new = x_par + x_perp
            step_flops += n
    _check_finite(x_new)
    if k:
        state.subspace_gram[...] = subspace_gram
        state.subspace_eigh = eigh_cache
    if not full:
        state.complement_sq[...] = complement_sq
    state.coef[:] = x_new
    state.n_updates += 1
    state.n_flops += flops + step_flops
    return state


def _check_finite(*arrays):
    """Raise FloatingPointError if an array (None: skipped) is not finite."""
    for array in arrays:
        if array is not None and not np.isfinite(array).all():
            raise FloatingPointError(
                "The CompAdaGrad step overflowed (non-finite statistics or "
                "iterate); the state is unchanged."
            )


def _subspace_eigh(state, subspace_gram, p):
    """Eigenpairs of the updated :math:`S` = ``subspace_gram``.

    ``subspace_gram`` is the state's :math:`S` plus :math:`p p^\\top`. Updates
    the cached decomposition of the previous :math:`S` for the rank-one
    change (Bunch-Nielsen-Sorensen, see :mod:`skcgm.optim.compadagrad._eigen_update`),
    or decomposes :math:`S` afresh when there is no valid cache, every
    ``_EIGH_REFRESH_STEPS`` steps, and when LAPACK's secular solver fails.
    Returns ``(eigenvalues, eigenvectors, flops)``; the caller stores them in
    ``state.subspace_eigh`` with the step.
    """
    k = p.shape[0]
    cache = state.subspace_eigh
    fresh = (
        cache is None
        or cache[2] != state.n_updates
        or state.n_updates % _EIGH_REFRESH_STEPS == 0
    )
    if not fresh:
        mu, V, ok = rank_one_eigh_update(cache[0], cache[1], np.ascontiguousarray(p))
        fresh = not ok
        flops = _EIGH_UPDATE_FLOPS_PER_SQUARE * k * k + 2 * k**3
    if fresh:
        try:
            mu, V = _eigh(np.asarray(subspace_gram, dtype=np.float64))
        except np.linalg.LinAlgError as exc:
            # A finite symmetric matrix defeats LAPACK only when its entries
            # are near the overflow threshold.
            raise FloatingPointError(
                "The eigendecomposition of the subspace statistics failed: "
                "they are too large to be represented."
            ) from exc
        V = np.asfortranarray(V)
        flops = _EIGH_FLOPS_PER_CUBE * k**3
    return mu, V, flops


def _eigh(S):
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix.

    LAPACK's divide and conquer ``dsyevd`` called directly: for k x k
    matrices with k in the tens, the wrappers of :func:`numpy.linalg.eigh`
    cost a noticeable share of a step.
    """
    mu, V, info = dsyevd(S, compute_v=1, lower=1)
    if info != 0:
        return np.linalg.eigh(S)
    return mu, V


def _cholesky(M):
    """Lower Cholesky factor of a symmetric positive definite matrix (dpotrf)."""
    L, info = dpotrf(M, lower=1, clean=0)
    if info != 0:
        raise np.linalg.LinAlgError(
            f"matrix not positive definite (dpotrf info={info})"
        )
    return L


def _cho_solve(L, b):
    """Solve with the factor of :func:`_cholesky` (dpotrs)."""
    x, info = dpotrs(L, b, lower=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"dpotrs failed (info={info})")
    return x


def _srht_weighted_gram(b, rows, c2):
    """:math:`\\Pi B \\Pi^\\top` of an SRHT from one Walsh-Hadamard transform.

    With :math:`\\Pi = c R H \\Sigma` and the Sylvester matrix
    :math:`W = \\sqrt{n} H`, :math:`W_{al} W_{bl} = W_{a \\oplus b, l}` (the
    parities of :math:`a \\wedge l` and :math:`b \\wedge l` add up to that of
    :math:`(a \\oplus b) \\wedge l`) and :math:`\\Sigma^2 = I`, so

    .. math::

        (\\Pi B \\Pi^\\top)_{ij} = \\frac{c^2}{n} (W b)_{r_i \\oplus r_j}:

    every entry is one coefficient of the transform of the diagonal
    :math:`b`, :math:`O(n \\log n + k^2)` in all instead of the
    :math:`O(n k \\log k)` of the paper's column-by-column construction
    (proof of eqs. 14-15) or the :math:`O(n k^2)` of a dense product.
    Returns ``(matrix, flops)``.
    """
    n = b.shape[0]
    transformed = fwht(b, normalize=False)
    gram = transformed[np.bitwise_xor.outer(rows, rows)]
    gram *= c2 / n
    k = rows.shape[0]
    return gram, n * int(np.log2(n)) + 2 * k * k


def _l2_step_parts(
    x, gperp, p, px, px_back, Pi, c2, V, kappa, dvec, eta, lam, rows=None
):
    """Subspace and complement parts of the squared-l2 step (eqs. 13-15).

    ``p = Pi g_t``, ``px = Pi x_t`` (None when ``k = n``: then computed here)
    and ``px_back = P x_t``; ``gperp = P_perp g_t``; ``rows`` are the SRHT's
    selected rows when ``Pi`` is an SRHT (its weighted Gram then comes from
    one transform), None for a general ``Pi``. Returns ``(x_par, x_perp,
    flops)``; a part is None when its space is empty (``k = 0`` or ``k = n``).
    """
    k, n = Pi.shape
    flops = 0
    x_par = x_perp = z = None
    if k:
        # Eq. (13), generalized to Pi Pi^T = c^2 I, in the eigenbasis of K'.
        if px is None:
            px = Pi @ x
            flops += 2 * n * k
        rhs = kappa * (V.T @ px) - (eta / c2) * (V.T @ p)
        z = V @ (rhs / (c2 * kappa + lam))
        flops += 6 * k * k + 6 * k
    if dvec is None:
        # Full subspace: no complement.
        x_par = Pi.T @ z
        return x_par, None, flops + 2 * n * k
    # Complement, eqs. (14)-(15): y = -P_perp g + D P_perp x_t and
    # x_perp = B (y - Pi^T nu), B = (D + lambda I)^{-1}.
    b = 1.0 / (dvec + lam)
    By = x - px_back if k else x.copy()
    By *= dvec
    By -= eta * gperp
    By *= b
    flops += 6 * n
    if not k:
        return None, By, flops
    # nu = (Pi B Pi^T)^{-1} Pi B y (eq. 15 simplified, note Section 2.3).
    if rows is None:
        # A general Pi: the symmetric rank-k product W W^T, W = Pi B^{1/2}.
        W = Pi * np.sqrt(b)
        M = W @ W.T
        gram_flops = n * k * (k + 1)
    else:
        M, gram_flops = _srht_weighted_gram(b, rows, c2)
    rhs = Pi @ By
    try:
        nu = _cho_solve(_cholesky(M), rhs)
    except np.linalg.LinAlgError:
        # M is positive definite, but a B whose entries span many orders of
        # magnitude (a tiny delta on coordinates that never saw a gradient)
        # loses that to rounding in the transform. nu is also the
        # least-squares solution of min ||B^{1/2} (Pi^T nu - y)|| (its normal
        # equations are M nu = Pi B y), whose SVD solve does not square the
        # conditioning.
        root_b = np.sqrt(b)
        nu = np.linalg.lstsq((Pi * root_b).T, By / root_b, rcond=None)[0]
        gram_flops += 4 * n * k * k
    # One product with Pi^T gives x_par = Pi^T z and Pi^T nu.
    back = Pi.T @ np.column_stack((z, nu))
    x_par = back[:, 0]
    x_perp = By - b * back[:, 1]
    flops += (
        2 * n
        + gram_flops
        + k**3 // _CHOLESKY_FLOPS_DIVISOR
        + 2 * n * k
        + 2 * k * k
        + 4 * n * k
        + 2 * n
    )
    return x_par, x_perp, flops


class _ImplicitGram:
    """The Gram matrix A of the l1 step, never formed (paper, Section 4.2).

    ``A = diag(d) - rho (Pi^T Pi D + D Pi^T Pi) + Pi^T Q Pi`` with
    ``Q = K' + rho^2 Pi D Pi^T``: eq. (26) for products and the corrected
    eq. (17) and eq. (18) for entries, written with the columns of the
    projection's Pi (``rho = 1 / c^2``). Counts its flops.
    """

    def __init__(self, Pi, Q, rho, d):
        self.Pi = Pi
        self.Q = Q
        self.rho = rho
        self.d = d
        self.flops = 0

    def matvec(self, beta):
        """A @ beta for a dense beta (eq. 26)."""
        Pi, d, rho = self.Pi, self.d, self.rho
        k, n = Pi.shape
        db = d * beta
        t1 = Pi @ beta
        t2 = self.Q @ t1 - rho * (Pi @ db)
        both = Pi.T @ np.column_stack((t2, t1))
        out = both[:, 0] - (rho * d) * both[:, 1]
        out += db
        self.flops += 8 * n * k + 2 * k * k + 2 * k + 5 * n
        return out

    def matvec_active(self, idx, vals, P_act):
        """A @ beta for beta supported on ``idx`` (columns ``P_act`` of Pi)."""
        Pi, d, rho = self.Pi, self.d, self.rho
        k, n = Pi.shape
        m = idx.shape[0]
        db = d[idx] * vals
        t1 = P_act @ vals
        t2 = self.Q @ t1 - rho * (P_act @ db)
        both = Pi.T @ np.column_stack((t2, t1))
        out = both[:, 0] - (rho * d) * both[:, 1]
        out[idx] += db
        self.flops += 4 * k * m + 2 * k * k + 2 * k + 4 * n * k + 3 * n + 2 * m
        return out

    def column(self, i, P_act, d_act):
        """A[active, i] (eq. 18) and A[i, i] (corrected eq. 17)."""
        p_i = self.Pi[:, i]
        q_i = self.Q @ p_i
        d_i = self.d[i]
        diag = d_i + p_i @ q_i - 2.0 * self.rho * d_i * (p_i @ p_i)
        col = P_act.T @ q_i - self.rho * (d_act + d_i) * (P_act.T @ p_i)
        k, m = P_act.shape
        self.flops += 2 * k * k + 4 * k + 5 + 4 * k * m + 3 * m
        return col, diag

    def submatrix(self, P_act, d_act):
        """A[active, active] from eqs. (17)-(18) at once."""
        k, m = P_act.shape
        inner = P_act.T @ P_act
        G = P_act.T @ (self.Q @ P_act)
        G -= self.rho * (d_act[:, None] + d_act[None, :]) * inner
        G[np.diag_indices(m)] += d_act
        self.flops += 2 * k * m * m + 2 * k * k * m + 2 * k * m * m + 4 * m * m + m
        return G


def _l1_step(x, g, Pi, c2, V, kappa, dvec, eta, lam1, lam2):
    """The l1 or elastic-net composite step: exact LASSO (16), implicit Gram.

    The ridge strength ``lam2`` shifts the metric, A' = A + lam2 I, which
    keeps A's structure: Pi^T (K' + lam2 I / c^2) Pi + P_perp (D + lam2 I)
    P_perp, because P = Pi^T Pi / c^2 and P + P_perp = I. Then u = g - A x_t
    = g - A' x_t + lam2 x_t.
    """
    k, n = Pi.shape
    flops = 0
    if not k:
        # Diagonal AdaGrad: soft thresholding of D x_t - g, scaled by
        # 1 / (d_i + lam2) (note Section 1.4, with the ridge term).
        z = dvec * x - eta * g
        x_new = np.sign(z) * np.maximum(np.abs(z) - lam1, 0.0) / (dvec + lam2)
        return x_new, 7 * n
    rho = 1.0 / c2
    Q = (V * (kappa + lam2 * rho)) @ V.T
    flops += 2 * k**3 + k * k + 2 * k
    if dvec is None:
        # Full subspace: the complement is empty, A' = Pi^T K' Pi.
        d = np.zeros(n)
    else:
        d = dvec + lam2
        W = Pi * np.sqrt(d)
        Q += (rho * rho) * (W @ W.T)
        flops += 2 * n + n * k + n * k * (k + 1) + 2 * k * k
    gram = _ImplicitGram(Pi, Q, rho, d)
    u = eta * g - gram.matvec(x)
    if lam2:
        u += lam2 * x
        flops += 2 * n
    flops += 2 * n
    x_new = _solve_lasso(u, lam1, gram, x)
    return x_new, flops + gram.flops


class _ActiveSystem:
    """Factorization of the active block A[idx, idx] of the implicit Gram matrix.

    Small blocks (or an empty complement, d = 0) are formed from eqs.
    (17)-(18) and Cholesky-factored, O(m^2 k + m^3). Larger ones use the
    structure diagonal plus rank 2k, ``A[idx, idx] = D + U C U^T`` with
    ``U = [P^T, D P^T]`` (``P = Pi[:, idx]``) and ``C = [[Q, -rho I], [-rho
    I, 0]]``, and the Woodbury identity

        (D + U C U^T)^{-1} = D^{-1} - D^{-1} U (C^{-1} + U^T D^{-1} U)^{-1}
        U^T D^{-1},  C^{-1} = [[0, -I / rho], [-I / rho, -Q / rho^2]],

    in O(m k^2 + k^3): linear in the size m of the block.
    """

    def __init__(self, gram, idx):
        self.gram = gram
        self.idx = idx
        self.P = gram.Pi[:, idx]
        self.d = gram.d[idx]
        k, m = self.P.shape
        self.dense = m <= 2 * k or not np.all(self.d > 0)
        if self.dense:
            G = gram.submatrix(self.P, self.d)
            self.factor = cho_factor(G, lower=True, check_finite=False)
            gram.flops += m**3 // _CHOLESKY_FLOPS_DIVISOR
        else:
            rho, P = gram.rho, self.P
            self.d_inv = 1.0 / self.d
            B11 = (P * self.d_inv) @ P.T
            B12 = P @ P.T
            B22 = (P * self.d) @ P.T
            B12[np.diag_indices(k)] -= 1.0 / rho
            capacitance = np.block([[B11, B12], [B12.T, B22 - gram.Q / rho**2]])
            self.lu = lu_factor(capacitance, check_finite=False)
            gram.flops += 6 * k * k * m + 2 * k * m + 2 * k * k + 2 * (2 * k) ** 3 // 3

    def solve(self, r):
        """A[idx, idx]^{-1} r."""
        m = r.shape[0]
        if self.dense:
            self.gram.flops += 2 * m * m
            return cho_solve(self.factor, r, check_finite=False)
        k = self.P.shape[0]
        y = self.d_inv * r
        t = np.concatenate((self.P @ y, self.P @ r))
        s = lu_solve(self.lu, t, check_finite=False)
        out = y - self.d_inv * (self.P.T @ s[:k]) - self.P.T @ s[k:]
        self.gram.flops += 10 * k * m + 8 * k * k + 4 * m
        return out


def _solve_lasso(u, lam, gram, x0):
    """Minimize <u, x> + x^T A x / 2 + lam ||x||_1 exactly, warm-started at x0.

    The active-set iterations (:func:`_lasso_active_set`) usually certify the
    minimizer in a few reduced solves; the homotopy (:func:`_lasso_homotopy`)
    is the fallback that always terminates.
    """
    x = _lasso_active_set(u, lam, gram, x0)
    if x is None:
        x = _lasso_homotopy(u, lam, gram)
    return x


def _lasso_active_set(u, lam, gram, x0, max_iter=_ACTIVE_SET_MAX_ITER):
    """Block principal pivoting for the LASSO (16); None if not certified.

    With c = -u - A x (minus the gradient of the smooth part), a point is the
    unique minimizer iff c_i = lam sign(x_i) on its support and |c_i| <= lam
    elsewhere (A is positive definite). Starting from the support and signs
    of x0, each iteration solves A[S, S] x_S = -u_S - lam s_S with x = 0 off
    S, then exchanges the infeasible coordinates: support coordinates whose
    sign disagrees leave, outside coordinates with |c_i| > lam join with the
    sign of c_i. As in the block principal pivoting of Judice and Pires (and
    Kim and Park for non-negative least squares), all of them are exchanged
    while their number decreases, a few times more if it does not, and then
    only the last one (Murty's rule) until it decreases again. Starting from
    the previous iterate, few coordinates change from one step to the next.
    """
    n = u.shape[0]
    active = x0 != 0
    signs = np.sign(x0)
    best = n + 1
    full_exchanges_left = _FULL_EXCHANGES
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        x = np.zeros(n)
        if idx.size:
            s_act = signs[idx]
            try:
                system = _ActiveSystem(gram, idx)
            except (np.linalg.LinAlgError, ValueError):
                return None  # numerically singular block: use the homotopy
            x_act = system.solve(-u[idx] - lam * s_act)
            c = -u - gram.matvec_active(idx, x_act, system.P)
            if not system.dense:
                # One step of iterative refinement with the exact residual.
                x_act = x_act + system.solve(c[idx] - lam * s_act)
                c = -u - gram.matvec_active(idx, x_act, system.P)
                gram.flops += 2 * n
            x[idx] = x_act
            gram.flops += 2 * n
        else:
            c = -u
        leave = active & (x * signs <= 0.0)
        join = ~active & (np.abs(c) > lam * (1.0 + _KKT_RTOL))
        infeasible = leave | join
        n_infeasible = int(np.count_nonzero(infeasible))
        gram.flops += 6 * n
        if n_infeasible == 0:
            return x
        if n_infeasible < best:
            best = n_infeasible
            full_exchanges_left = _FULL_EXCHANGES
        elif full_exchanges_left > 0:
            full_exchanges_left -= 1
        else:
            last = np.flatnonzero(infeasible)[-1]
            infeasible[:] = False
            infeasible[last] = True
            leave &= infeasible
            join &= infeasible
        active[leave] = False
        signs[leave] = 0.0
        active[join] = True
        signs[join] = np.sign(c[join])
    return None


def _lasso_homotopy(u, lam, gram, max_iter=None):
    """Minimize <u, x> + x^T A x / 2 + lam ||x||_1 for the implicit A.

    Follows the LARS-lasso path (Efron et al., 2004) from x = 0 at
    lambda_max = ||u||_inf down to ``lam``: the active correlations
    c = -u - A x all equal +-C while C decreases; a variable joins when its
    correlation reaches C, leaves when its coefficient crosses zero. The
    active Gram matrix is kept as an incrementally updated Cholesky factor.
    """
    n = u.shape[0]
    Pi = gram.Pi
    d = gram.d

    if max_iter is None:
        max_iter = 10 * n + 100
    x = np.zeros(n)
    c = -u.copy()
    C = float(np.abs(c).max(initial=0.0))
    if C <= lam:
        return x
    in_active = np.zeros(n, dtype=bool)
    active = []
    signs_active = []
    k = Pi.shape[0]
    cap = 16
    P_buf = np.empty((k, cap))
    L = np.zeros((cap, cap))
    G_act = np.zeros((cap, cap))

    def add(j):
        nonlocal P_buf, L, G_act, cap
        m = len(active)
        if m == cap:
            cap *= 2
            P_buf = np.concatenate([P_buf, np.empty((k, cap - m))], axis=1)
            L = np.pad(L, ((0, cap - m), (0, cap - m)))
            G_act = np.pad(G_act, ((0, cap - m), (0, cap - m)))
        col, diag = gram.column(j, P_buf[:, :m], d[active] if m else d[:0])
        G_act[:m, m] = col
        G_act[m, :m] = col
        G_act[m, m] = diag
        if m:
            row = solve_triangular(L[:m, :m], col, lower=True, check_finite=False)
            pivot = diag - row @ row
            L[m, :m] = row
            gram.flops += m * m + 2 * m
        else:
            pivot = diag
        # A is positive definite; clamp rounding in nearly dependent columns.
        L[m, m] = np.sqrt(max(pivot, np.finfo(float).eps * abs(diag)))
        P_buf[:, m] = Pi[:, j]
        active.append(j)
        signs_active.append(1.0 if c[j] > 0 else -1.0)
        in_active[j] = True

    def remove(position):
        nonlocal L
        j = active.pop(position)
        signs_active.pop(position)
        in_active[j] = False
        x[j] = 0.0
        m = len(active)
        keep = np.delete(np.arange(m + 1), position)
        G_act[:m, :m] = G_act[np.ix_(keep, keep)]
        P_buf[:, :m] = P_buf[:, keep]
        L[:, :] = 0.0
        if m:
            L[:m, :m] = np.linalg.cholesky(G_act[:m, :m])
            gram.flops += m**3 // _CHOLESKY_FLOPS_DIVISOR
        return j

    add(int(np.argmax(np.abs(c))))
    dropped = -1
    converged = False
    for _ in range(max_iter):
        m = len(active)
        idx = np.asarray(active, dtype=np.intp)
        s_act = np.asarray(signs_active)
        # Direction: A_act w = s keeps every active |c_i| equal while they
        # decrease at unit rate.
        w = cho_solve((L[:m, :m], True), s_act, check_finite=False)
        a = gram.matvec_active(idx, w, P_buf[:, :m])
        gram.flops += 2 * m * m
        gamma_stop = C - lam
        # Join: the first inactive j with |c_j - gamma a_j| = C - gamma.
        with np.errstate(divide="ignore", invalid="ignore"):
            den_plus = 1.0 - a
            den_minus = 1.0 + a
            g_plus = np.where(
                den_plus > _STEP_EPS, np.maximum(C - c, 0.0) / den_plus, np.inf
            )
            g_minus = np.where(
                den_minus > _STEP_EPS, np.maximum(C + c, 0.0) / den_minus, np.inf
            )
        gammas = np.minimum(g_plus, g_minus)
        gammas[in_active] = np.inf
        if dropped >= 0:
            # Its correlation equals C at the drop: it must not rejoin at once.
            gammas[dropped] = np.inf
        j_join = int(np.argmin(gammas))
        gamma_join = gammas[j_join]
        # Drop (lasso modification): the first active coefficient to hit zero.
        x_act = x[idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(x_act * w < 0.0, -x_act / w, np.inf)
        i_drop = int(np.argmin(ratios))
        gamma_drop = ratios[i_drop]
        gram.flops += 12 * n + 4 * m
        gamma = min(gamma_stop, gamma_join, gamma_drop)
        x[idx] += gamma * w
        c -= gamma * a
        C -= gamma
        gram.flops += 2 * m + 2 * n
        if gamma_stop <= gamma_join and gamma_stop <= gamma_drop:
            converged = True
            break
        if gamma_drop < gamma_join:
            dropped = remove(i_drop)
        else:
            add(j_join)
            dropped = -1
    if not converged:
        warnings.warn(
            f"The l1 CompAdaGrad step did not reach lambda={lam:.3g} in "
            f"{max_iter} homotopy steps; the last point of the path is returned.",
            ConvergenceWarning,
            stacklevel=4,
        )
    # Polish on the final support and signs: A_act x_act = -u_act - lam s,
    # which removes the rounding accumulated along the path.
    m = len(active)
    if m:
        idx = np.asarray(active, dtype=np.intp)
        s_act = np.asarray(signs_active)
        x_act = cho_solve((L[:m, :m], True), -u[idx] - lam * s_act, check_finite=False)
        gram.flops += 2 * m * m + 2 * m
        if np.all(x_act * s_act >= 0.0):
            x[idx] = x_act
    return x
