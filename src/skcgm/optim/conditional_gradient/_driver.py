"""The Frank-Wolfe (conditional gradient) driver over a linear minimization oracle.

Algorithms 1-4 of Xu, Song, Shrivastava et al., "Breaking the linear iteration
cost barrier for some well-known conditional gradient methods using MaxIP
data-structures" (NeurIPS 2021) are this driver with the LMO
:class:`~skcgm.oracles._lmo.ConvexHullLMO` over an exact scan (Algorithms 1
and 3) or an LSH index (Algorithms 2 and 4).
"""

import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ...utils._params import StrictInterval
from ...utils._sklearn_compat import StrOptions, validate_params


@dataclass
class FrankWolfeResult:
    """Result of :func:`frank_wolfe`.

    A plain record; every field is also an attribute. Histories are indexed
    by the iterate: entry ``t`` describes :math:`x_t`, for
    ``t = 0, ..., n_iter``.

    Parameters
    ----------
    x : ndarray of shape (n_features,) or None
        The last iterate :math:`x_T`, ``T = n_iter``; None when the iterate is
        only known through a kernel (:class:`KernelHerding` with the kernel
        trick), where it is ``weights`` on the feature vectors of
        ``active_set``.
    active_set : ndarray of shape (n_active,) or None
        Indices (as numbered by the LMO) of the vertices selected, in order of
        first selection; None when the LMO returns no index.
    weights : ndarray of shape (n_active,) or None
        Convex weights of the vertices of ``active_set``: non-negative, and
        with ``x0_weight`` summing to 1, so that
        :math:`x_T = w_0 x_0 + \\sum_j \\text{weights}_j\\, v_{\\text{active\\_set}_j}`.
    x0_weight : float
        Weight :math:`w_0 = \\prod_t (1 - \\eta_t)` left on the starting point
        (0 as soon as one step is 1, as the first step of '2/(t+2)' and
        '1/(t+1)' is).
    n_iter : int
        Number of Frank-Wolfe updates.
    gap_history : ndarray of shape (n_iter + 1,)
        Frank-Wolfe duality gaps :math:`g_t = \\langle \\nabla f(x_t), x_t -
        s_t \\rangle`; for convex :math:`f` and an exact LMO,
        :math:`f(x_t) - \\min_{\\mathcal{C}} f \\le g_t`.
    objective_history : ndarray of shape (n_iter + 1,) or None
        :math:`f(x_t)` when ``objective_fn`` is given, else None.
    step_history : ndarray of shape (n_iter,)
        The step sizes :math:`\\eta_t` taken.
    n_scored : ndarray of shape (n_iter + 1,)
        Candidates scored by the LMO at every call (-1 when it does not say).
    converged : bool
        Whether the gap reached ``tol`` (or the callback stopped the run)
        before ``max_iter``.
    index_history : ndarray of shape (n_iter,) or None
        Index of the vertex of every update, in order, repeats included; None
        when the LMO returns no index.

    See Also
    --------
    frank_wolfe : The solver that returns it.
    KernelHerding : Kernel herding, which returns it too.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import frank_wolfe
    >>> from skcgm.oracles import SimplexLMO
    >>> result = frank_wolfe(lambda x: x - 1.0, SimplexLMO(), np.array([1.0, 0.0]),
    ...                      learning_rate="line_search", smoothness=1.0)
    >>> result.x, result.n_iter, result.converged
    (array([0.5, 0.5]), 1, True)
    """

    x: np.ndarray
    active_set: np.ndarray
    weights: np.ndarray
    x0_weight: float
    n_iter: int
    gap_history: np.ndarray = field(repr=False)
    objective_history: np.ndarray = field(repr=False)
    step_history: np.ndarray = field(repr=False)
    n_scored: np.ndarray = field(repr=False)
    converged: bool
    index_history: np.ndarray = field(default=None, repr=False)


class _ConvexWeights:
    """Convex weights of the vertices, updated as ``(1-eta) w + eta e_index``.

    ``sequence`` keeps the vertex of every update, repeats included.
    """

    def __init__(self):
        self.position = {}
        self.indices = []
        self.weights = np.zeros(16)
        self.x0_weight = 1.0
        self.sequence = []

    def update(self, index, eta):
        self.sequence.append(index)
        n = len(self.indices)
        self.weights[:n] *= 1.0 - eta
        self.x0_weight *= 1.0 - eta
        position = self.position.get(index)
        if position is None:
            if n == self.weights.shape[0]:
                self.weights = np.concatenate([self.weights, np.zeros(n)])
            position = self.position[index] = n
            self.indices.append(index)
        self.weights[position] += eta

    def result(self):
        """Vertices by first selection, their weights, every update's vertex."""
        n = len(self.indices)
        return (
            np.asarray(self.indices, dtype=np.intp),
            self.weights[:n].copy(),
            np.asarray(self.sequence, dtype=np.intp),
        )


def _call_lmo(lmo, grad):
    """Vertex, index (or None) and candidates scored (or -1) of one LMO call."""
    answer = lmo(grad)
    if isinstance(answer, tuple):
        vertex, index, n_scored = answer
        # A negative index is the protocol's "no compact numbering" (LPs,
        # balls): such vertices must not share one weight slot.
        if index is not None and index < 0:
            index = None
        return np.asarray(vertex), index, -1 if n_scored is None else int(n_scored)
    return np.asarray(answer), None, -1


def _step_rule(learning_rate, approximation, smoothness):
    """The step size as a function ``(t, x, direction, gap) -> eta``."""
    if callable(learning_rate):
        return lambda t, x, d, gap: learning_rate(t)
    if learning_rate == "2/(t+2)":
        # Algorithms 2 and 4 print eta_t = 2/(c(t+2)), which exceeds 1 (and
        # leaves the set) for t < 2/c - 2: clipped (note 000, section 7.3).
        return lambda t, x, d, gap: min(1.0, 2.0 / (approximation * (t + 2)))
    if learning_rate == "1/(t+1)":
        return lambda t, x, d, gap: 1.0 / (t + 1)
    # line_search
    if smoothness is None:
        raise ValueError(
            "learning_rate='line_search' needs smoothness: the matrix Q of a quadratic "
            "objective, a callable d -> d^T Q d, or a smoothness constant L."
        )
    if callable(smoothness):
        curvature = smoothness
    elif np.ndim(smoothness) == 0:
        lipschitz = float(smoothness)
        if not lipschitz > 0:
            raise ValueError(f"smoothness must be positive, got {lipschitz}.")

        def curvature(d):
            return lipschitz * float(d @ d)
    else:
        matrix = np.asarray(smoothness)

        def curvature(d):
            return float(d @ (matrix @ d))

    def line_search(t, x, d, gap):
        dQd = curvature(d)
        if not dQd > 0:
            return 1.0 if gap > 0 else 0.0
        return min(1.0, max(0.0, gap / dQd))

    return line_search


@validate_params(
    {
        "grad_fn": [callable],
        "lmo": [callable],
        "x0": ["array-like"],
        "learning_rate": [StrOptions({"2/(t+2)", "1/(t+1)", "line_search"}), callable],
        "smoothness": [
            "array-like",
            StrictInterval(Real, 0, None, closed="neither"),
            callable,
            None,
        ],
        "approximation": [StrictInterval(Real, 0, 1, closed="right")],
        "max_iter": [StrictInterval(Integral, 0, None, closed="left")],
        "tol": [StrictInterval(Real, 0, None, closed="left")],
        "objective_fn": [callable, None],
        "callback": [callable, None],
        "verbose": ["verbose"],
    },
    prefer_skip_nested_validation=True,
)
def frank_wolfe(
    grad_fn,
    lmo,
    x0,
    *,
    learning_rate="2/(t+2)",
    smoothness=None,
    approximation=1.0,
    max_iter=1000,
    tol=1e-6,
    objective_fn=None,
    callback=None,
    verbose=0,
):
    """Minimize a smooth convex function over a convex set with Frank-Wolfe.

    Solves :math:`\\min_{x \\in \\mathcal{C}} f(x)` with only a gradient and a
    linear minimization oracle (LMO) of :math:`\\mathcal{C}`:

    .. math::

        s_t = \\operatorname{argmin}_{s \\in \\mathcal{C}} \\langle \\nabla
        f(x_t), s \\rangle, \\qquad x_{t+1} = (1 - \\eta_t) x_t + \\eta_t s_t,

    (section 2.2 of the MaxIP paper) and certifies every iterate with the
    duality gap :math:`g_t = \\langle \\nabla f(x_t), x_t - s_t \\rangle \\ge
    f(x_t) - \\min_{\\mathcal{C}} f` (exact LMO, convex :math:`f`).

    With :class:`~skcgm.oracles._lmo.ConvexHullLMO` this is Algorithm 1
    (exact scan) and Algorithm 2 (LSH index, ``approximation=c``) of the
    paper; on :math:`f(w) = \\frac12 \\|w - \\mu\\|^2` over feature vectors it
    is Algorithm 3 (herding, exact) and Algorithm 4 (LSH). Two corrections
    of the paper are applied: the LMO is always an argmin of
    :math:`\\langle \\nabla f(x_t), s \\rangle`, also for herding, where
    line 6 of Algorithm 3 prints an argmax; and the approximate-oracle step
    :math:`2/(c(t+2))`, which exceeds 1 for :math:`t < 2/c - 2`, is clipped
    to 1 so that the iterate stays in the hull. With :math:`\\beta`-smooth
    :math:`f`, diameter :math:`D` of the set and a :math:`c`-approximate LMO,
    step '2/(t+2)' gives :math:`h_t \\le 2\\beta D^2 / (c^2 (t+1))` (eq. 18).

    Parameters
    ----------
    grad_fn : callable
        ``grad_fn(x)`` returns :math:`\\nabla f(x)`, an array of shape
        ``(n_features,)``.
    lmo : callable
        ``lmo(g)`` returns a minimizer of :math:`\\langle g, s \\rangle` over
        the set: an ``LMOResult`` ``(vertex, index, n_scored)`` (the oracles
        of :mod:`skcgm.oracles`) or a plain vertex array (then no convex
        weights nor counts are kept).
    x0 : array-like of shape (n_features,)
        Starting point, in the set. Its floating dtype is kept.
    learning_rate : {'2/(t+2)', '1/(t+1)', 'line_search'} or callable, default='2/(t+2)'
        Step size :math:`\\eta_t`, :math:`t = 0, 1, \\dots`: '2/(t+2)' is
        Algorithms 1-4 (:math:`\\min(1, 2/(c(t+2)))` with
        ``approximation=c``); '1/(t+1)' gives uniform weights over the
        selected vertices (classical herding); 'line_search' is the exact
        minimizing step of a quadratic
        :math:`f(x) = \\frac12 x^\\top Q x + b^\\top x`,
        :math:`\\eta_t = \\min(1, g_t / (d_t^\\top Q d_t))` with
        :math:`d_t = s_t - x_t`, and needs ``smoothness``. A callable is called
        as ``learning_rate(t)`` and must return a float in [0, 1].
    smoothness : array-like of shape (n_features, n_features), float, \
            callable or None, default=None
        Curvature for 'line_search': the matrix :math:`Q`, a callable
        ``d -> d @ Q @ d``, or a smoothness constant :math:`L` (then the
        short step :math:`\\min(1, g_t / (L \\|d_t\\|^2))`, which decreases
        any :math:`L`-smooth :math:`f`). Unused by the other steps.
    approximation : float in (0, 1], default=1.0
        The approximation ratio :math:`c` of the LMO (1 for an exact oracle);
        it scales the '2/(t+2)' step as in Algorithms 2 and 4.
    max_iter : int, default=1000
        Maximum number of updates.
    tol : float, default=1e-6
        Stop when the duality gap is at most ``tol``.
    objective_fn : callable, default=None
        ``objective_fn(x)`` returns :math:`f(x)`; recorded at every iterate.
    callback : callable, default=None
        Called as ``callback(t, x, gap)`` at every iterate; returning True
        stops the run.
    verbose : int, default=0
        Print the gap (and objective) at every iterate.

    Returns
    -------
    result : FrankWolfeResult
        The last iterate, its convex weights on the selected vertices, the
        gap, objective and step histories and the candidates scored per LMO
        call.

    See Also
    --------
    skcgm.oracles._lmo.ConvexHullLMO : LMO over the convex hull of atoms.

    Notes
    -----
    Every iterate costs one gradient and one LMO call; the gap of the last
    iterate is computed too, so ``gap_history`` certifies the returned
    ``x``. A :class:`~sklearn.exceptions.ConvergenceWarning` is raised when
    ``max_iter`` updates do not bring the gap below ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import frank_wolfe
    >>> from skcgm.oracles import ConvexHullLMO
    >>> atoms = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    >>> target = np.array([1.0, 0.5])
    >>> lmo = ConvexHullLMO().fit(atoms)
    >>> result = frank_wolfe(
    ...     lambda x: x - target, lmo, atoms[0], learning_rate="line_search",
    ...     smoothness=np.eye(2), tol=1e-8)
    >>> np.round(result.x, 6), result.converged
    (array([1. , 0.5]), True)
    >>> np.allclose(result.weights @ atoms[result.active_set], result.x)
    True
    """
    x = np.array(x0, copy=True)
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    if x.ndim != 1:
        raise ValueError(f"x0 must be a 1-D array, got shape {x.shape}.")
    step_rule = _step_rule(learning_rate, approximation, smoothness)
    weights = _ConvexWeights()
    has_indices = True
    gaps, objectives, steps, n_scored = [], [], [], []
    converged = False
    t = 0
    while True:
        grad = np.asarray(grad_fn(x))
        vertex, index, scored = _call_lmo(lmo, grad)
        direction = vertex - x
        # An overflow is reported below, as the error it is.
        with np.errstate(over="ignore", invalid="ignore"):
            gap = -float(grad @ direction)
        if not np.isfinite(gap):
            raise ValueError(
                f"The Frank-Wolfe gap <grad_fn(x), x - s> is not finite at "
                f"iteration {t}: the gradient or the LMO's vertex is not finite or "
                "their product overflows. Scale the objective or the set."
            )
        gaps.append(gap)
        n_scored.append(scored)
        if objective_fn is not None:
            objectives.append(float(objective_fn(x)))
        if verbose:
            objective = f", objective {objectives[-1]:.6g}" if objectives else ""
            print(f"Frank-Wolfe iteration {t}: gap {gap:.6g}{objective}")
        if gap <= tol or (callback is not None and callback(t, x, gap) is True):
            converged = True
            break
        if t == max_iter:
            break
        eta = float(step_rule(t, x, direction, gap))
        if not 0.0 <= eta <= 1.0:
            raise ValueError(f"The step size must be in [0, 1], got {eta} at t={t}.")
        x += eta * direction.astype(x.dtype, copy=False)
        if index is None:
            has_indices = False
        elif has_indices:
            weights.update(index, eta)
        else:
            weights.x0_weight *= 1.0 - eta
        steps.append(eta)
        t += 1
    if not converged:
        warnings.warn(
            f"Frank-Wolfe did not reach the gap tol={tol} in max_iter={max_iter} "
            f"iterations (last gap {gaps[-1]:.3g}).",
            ConvergenceWarning,
            stacklevel=3,
        )
    active_set, vertex_weights, sequence = (
        weights.result() if has_indices else (None, None, None)
    )
    return FrankWolfeResult(
        x=x,
        active_set=active_set,
        weights=vertex_weights,
        x0_weight=weights.x0_weight,
        n_iter=t,
        gap_history=np.asarray(gaps),
        objective_history=np.asarray(objectives) if objective_fn is not None else None,
        step_history=np.asarray(steps),
        n_scored=np.asarray(n_scored, dtype=np.intp),
        converged=converged,
        index_history=sequence,
    )
