"""Projection-free "projections": Frank-Wolfe projection and infeasible projection.

A set :math:`\\mathcal{K}` known only through its linear minimization oracle
(LMO) has no cheap Euclidean projection. This module gives three substitutes,
each counting its LMO calls:

- :func:`frank_wolfe_projection`: Frank-Wolfe with exact line search on
  :math:`\\frac12 \\|x - y\\|^2`, an approximate projection with a certified
  gap;
- :func:`separating_hyperplane_fw` (SHFW, Algorithm 3 of Liao et al.,
  Appendix D, after Garber and Kretzu 2022): a feasible point that is either
  close to :math:`y` or defines a hyperplane separating :math:`y` from
  :math:`\\mathcal{K}`;
- :func:`infeasible_projection` (the oracle :math:`\\mathcal{O}_{IP}` of
  Lemma 1, Algorithm 4): a pair :math:`(x, \\tilde y)` with :math:`x \\in
  \\mathcal{K}` close to :math:`\\tilde y`, and :math:`\\tilde y` at least as
  close as :math:`y_0` to every point of :math:`\\mathcal{K}`, in at most
  eq. (4) LMO calls (:func:`infeasible_projection_lmo_bound`), with the
  exact one-call certificate :func:`check_infeasible_projection`.

The LMO is any callable ``lmo(g)`` returning ``argmin_{s in K} <g, s>``,
either as an :class:`~skcgm.oracles.LMOResult` (or any tuple whose first entry
is the vertex) or as the vertex itself. ``radius`` (:math:`R` of Assumption
A1) defaults to ``lmo.radius`` and ``contains`` to ``lmo.contains``.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import math
import sys
import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..utils._math import scaled_norm
from ..utils._params import StrictInterval
from ..utils._sklearn_compat import validate_params
from ..utils._validation import check_square_range, check_vector, resolve_radius

__all__ = [
    "FWProjectionResult",
    "InfeasibleProjectionResult",
    "SHFWResult",
    "check_infeasible_projection",
    "frank_wolfe_projection",
    "infeasible_projection",
    "infeasible_projection_lmo_bound",
    "infeasible_projection_unchecked",
    "separating_hyperplane_fw",
]

# Tolerance of the feasibility check of the warm starts x0 / x1: LP-based
# oracles return vertices feasible only to the solver's tolerance (HiGHS:
# 1e-7), and convex combinations of them inherit it.
_START_TOL = 1e-6

# The default cap on the LMO calls of SHFW and of one infeasible projection:
# every loop stops by a count, even when a tiny eps makes Lemma 6's bound
# 27 R^2 / eps astronomically large.
_DEFAULT_MAX_LMO_CALLS = 10_000

# The pull of Algorithm 4 lands y this fraction of sqrt(3 eps) from x, so
# that round-off cannot push ||x - y||^2 back above 3 eps.
_CLOSE_MARGIN = 1.0 - 1e-8


class FWProjectionResult(NamedTuple):
    """Result of :func:`frank_wolfe_projection`.

    A named tuple, so ``x, gap, n_iter, n_lmo_calls = result`` works. For
    an exact LMO the gap certifies the distance to the exact projection
    :math:`\\Pi_{\\mathcal{K}}[y]`: by 1-strong convexity of
    :math:`\\frac12\\|x - y\\|^2`,
    :math:`\\|x - \\Pi_{\\mathcal{K}}[y]\\|^2 \\le 2\\,\\text{gap}`.

    Parameters
    ----------
    x : ndarray of shape (n_features,)
        The last iterate, a convex combination of vertices.
    gap : float
        Frank-Wolfe gap :math:`\\langle x - y, x - v \\rangle` at ``x``.
    n_iter : int
        Number of Frank-Wolfe updates.
    n_lmo_calls : int
        LMO calls made (``n_iter + 1``, plus one for the default start).

    See Also
    --------
    frank_wolfe_projection : The function that returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import SimplexLMO
    >>> from skcgm.oracles._projection import frank_wolfe_projection
    >>> result = frank_wolfe_projection(SimplexLMO(), np.array([1.0, 0.0]))
    >>> result.x, result.gap, result.n_iter, result.n_lmo_calls
    (array([1., 0.]), 0.0, 0, 2)
    """

    x: np.ndarray
    gap: float
    n_iter: int
    n_lmo_calls: int


class SHFWResult(NamedTuple):
    """Result of :func:`separating_hyperplane_fw` (Algorithm 3).

    A named tuple, so ``x, n_lmo_calls, status = result`` works. ``status``
    says which test of step 4 stopped the algorithm: ``'close'`` when
    :math:`\\|x - y\\|^2 \\le 3\\epsilon` (checked first), ``'separated'``
    when the Frank-Wolfe gap is :math:`\\le \\epsilon` while :math:`\\|x -
    y\\|^2 > 3\\epsilon`, so that :math:`\\langle y - x, z - x \\rangle \\le
    \\epsilon` for every :math:`z \\in \\mathcal{K}` and :math:`y - x`
    separates :math:`y` from :math:`\\mathcal{K}`; ``'max_lmo_calls'`` when the
    cap was reached first.

    Parameters
    ----------
    x : ndarray of shape (n_features,)
        The returned feasible point :math:`\\tilde x`.
    n_lmo_calls : int
        LMO calls made.
    status : {'close', 'separated', 'max_lmo_calls'}
        Why the algorithm stopped.

    See Also
    --------
    separating_hyperplane_fw : The function that returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import SimplexLMO
    >>> from skcgm.oracles._projection import separating_hyperplane_fw
    >>> x1, y = np.array([1.0, 0.0]), np.array([2.0, 2.0])
    >>> separating_hyperplane_fw(SimplexLMO(), x1, y, eps=0.1)
    SHFWResult(x=array([0.5, 0.5]), n_lmo_calls=2, status='separated')
    """

    x: np.ndarray
    n_lmo_calls: int
    status: str


class InfeasibleProjectionResult(NamedTuple):
    """Result of :func:`infeasible_projection` (Lemma 1, Algorithm 4).

    A named tuple, so ``x, y_tilde, n_lmo_calls, n_outer, status = result``
    works. With ``status='ok'``, :math:`x \\in \\mathcal{K}`,
    :math:`\\|\\tilde y\\| \\le R`, :math:`\\|x - \\tilde y\\|^2 \\le
    3\\epsilon` and :math:`\\|\\tilde y - z\\|^2 \\le \\|y_0 - z\\|^2` for
    every :math:`z \\in \\mathcal{K}`; with ``'max_lmo_calls'`` all but the
    closeness still hold.

    Parameters
    ----------
    x : ndarray of shape (n_features,)
        The feasible point.
    y_tilde : ndarray of shape (n_features,)
        The infeasible projection :math:`\\tilde y`.
    n_lmo_calls : int
        LMO calls made.
    n_outer : int
        SHFW calls of Algorithm 4: 0 when :math:`\\|x_0 - y_0\\|^2 \\le
        3\\epsilon`, else 1 (the step of :func:`infeasible_projection` ends
        the loop of (39) after one call).
    status : {'ok', 'max_lmo_calls'}
        Whether the closeness test was met within the LMO-call cap.

    See Also
    --------
    infeasible_projection : The function that returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import SimplexLMO
    >>> from skcgm.oracles._projection import infeasible_projection
    >>> x0, y0 = np.array([1.0, 0.0]), np.array([1.0, 0.1])
    >>> infeasible_projection(SimplexLMO(), x0, y0, eps=0.01)
    InfeasibleProjectionResult(x=array([1., 0.]), y_tilde=array([0.99503719,
    0.09950372]), n_lmo_calls=0, n_outer=0, status='ok')
    """

    x: np.ndarray
    y_tilde: np.ndarray
    n_lmo_calls: int
    n_outer: int
    status: str


# --------------------------------------------------------------------------
# Validation


# The constraints shared by the functions of this module.
_POSITIVE = [StrictInterval(Real, 0, None, closed="neither")]
_LMO_CALLS = [StrictInterval(Integral, 0, None, closed="left"), None]


def _lmo_calls_cap(max_lmo_calls):
    """The LMO-call cap: ``max_lmo_calls``, or the default cap when None."""
    return _DEFAULT_MAX_LMO_CALLS if max_lmo_calls is None else int(max_lmo_calls)


def _check_start(lmo, x, name):
    """ValueError if an LMO with ``contains`` says ``x`` is outside the set."""
    contains = getattr(lmo, "contains", None)
    if contains is not None and not contains(x, tol=_START_TOL):
        raise ValueError(
            f"{name} must lie in the set of the lmo (a feasible warm start); "
            f"lmo.contains({name}) is False."
        )


def _vertex(lmo, direction):
    """The vertex of one LMO call, as a new float64 array."""
    answer = lmo(direction)
    if isinstance(answer, tuple):
        answer = answer[0]
    vertex = np.array(answer, dtype=np.float64).reshape(-1)
    if vertex.shape != direction.shape:
        raise ValueError(
            f"lmo returned a vertex of shape {vertex.shape} for a direction of "
            f"shape {direction.shape}."
        )
    return vertex


# --------------------------------------------------------------------------
# Frank-Wolfe projection


@validate_params(
    {
        "lmo": [callable],
        "y": ["array-like"],
        "x0": ["array-like", None],
        "tol": _POSITIVE,
        "max_iter": [StrictInterval(Integral, 0, None, closed="left")],
    },
    prefer_skip_nested_validation=False,
)
def frank_wolfe_projection(lmo, y, x0=None, *, tol=1e-6, max_iter=1000):
    """Approximate Euclidean projection by Frank-Wolfe with exact line search.

    Minimizes :math:`\\frac12 \\|x - y\\|^2` over :math:`\\mathcal{K}`:

    .. math::

        v_t = \\operatorname{argmin}_{v \\in \\mathcal{K}} \\langle x_t - y,
        v \\rangle, \\quad g_t = \\langle x_t - y, x_t - v_t \\rangle, \\quad
        x_{t+1} = x_t + \\sigma_t (v_t - x_t), \\quad \\sigma_t =
        \\min\\Big(1, \\frac{g_t}{\\|v_t - x_t\\|^2}\\Big),

    stopping when the gap :math:`g_t \\le` ``tol``. Then
    :math:`\\|x_t - \\Pi_{\\mathcal{K}}[y]\\|^2 \\le 2 g_t`. This is the
    "straightforward" approach of Appendix D that SHFW improves on, and the
    approximate projection of footnote 1 (Meta-FW).

    Parameters
    ----------
    lmo : callable
        Linear minimization oracle of :math:`\\mathcal{K}`.
    y : array-like of shape (n_features,)
        The point to project.
    x0 : array-like of shape (n_features,) or None, default=None
        Feasible start. None starts at the vertex ``lmo(-y)``, the first
        Frank-Wolfe vertex from the origin (one extra LMO call).
    tol : float, default=1e-6
        Gap tolerance (> 0).
    max_iter : int, default=1000
        Maximum number of updates; reaching it with the gap above ``tol``
        warns with a :class:`~sklearn.exceptions.ConvergenceWarning`.

    Returns
    -------
    result : FWProjectionResult
        ``(x, gap, n_iter, n_lmo_calls)``.

    See Also
    --------
    infeasible_projection : Fewer LMO calls for the guarantees online
        learning needs.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import SimplexLMO
    >>> from skcgm.oracles._projection import frank_wolfe_projection
    >>> result = frank_wolfe_projection(SimplexLMO(), np.array([2.0, 1.0, -1.0]))
    >>> result.x, result.gap, result.n_lmo_calls
    (array([1., 0., 0.]), 0.0, 2)
    """
    y = check_vector(y, "y", copy=True)
    tol = float(tol)
    n_lmo_calls = 0
    if x0 is None:
        x = _vertex(lmo, -y)
        n_lmo_calls += 1
    else:
        x = check_vector(x0, "x0", y.shape[0], copy=True)
        _check_start(lmo, x, "x0")
    n_iter = 0
    while True:
        residual = x - y
        v = _vertex(lmo, residual)
        n_lmo_calls += 1
        direction = v - x
        gap = float(-(residual @ direction))
        if gap <= tol or n_iter == max_iter:
            break
        sigma = min(1.0, gap / float(direction @ direction))
        x += sigma * direction
        n_iter += 1
    if gap > tol:
        warnings.warn(
            f"frank_wolfe_projection stopped at max_iter={max_iter} with gap "
            f"{gap:.3g} > tol={tol:.3g}.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return FWProjectionResult(x, gap, n_iter, n_lmo_calls)


# --------------------------------------------------------------------------
# SHFW (Algorithm 3) and the infeasible projection oracle (Algorithm 4)


def _shfw(lmo, x, y, eps, max_lmo_calls):
    """Algorithm 3 on validated inputs, at most ``max_lmo_calls`` LMO calls.

    Returns the :class:`SHFWResult` and the Frank-Wolfe gap
    :math:`\\langle x - y, x - v \\rangle` at its ``x`` (inf when no LMO call
    was made): for every :math:`z \\in \\mathcal{K}`, :math:`\\langle y - x,
    z - x \\rangle \\le` gap, the cut :func:`_pull` uses.
    """
    n_lmo_calls = 0
    gap = math.inf
    while n_lmo_calls < max_lmo_calls:
        # Step 3, the LMO before the tests as printed.
        residual = x - y
        v = _vertex(lmo, residual)
        n_lmo_calls += 1
        direction = v - x
        gap = float(-(residual @ direction))
        # Step 4: the closeness test is reported first, as Algorithm 4 reads it.
        if float(residual @ residual) <= 3.0 * eps:
            return SHFWResult(x, n_lmo_calls, "close"), gap
        if gap <= eps:
            return SHFWResult(x, n_lmo_calls, "separated"), gap
        # Steps 7-8: exact line search on ||y - x - sigma (v - x)||^2; gap >
        # eps > 0 makes ||v - x|| > 0.
        sigma = min(1.0, gap / float(direction @ direction))
        step = x + sigma * direction
        if n_lmo_calls == max_lmo_calls:
            # Out of calls: the updated point is kept only when it is close
            # (a test without an LMO call); otherwise x, whose gap is known.
            residual = step - y
            if float(residual @ residual) <= 3.0 * eps:
                return SHFWResult(step, n_lmo_calls, "close"), gap
            break
        x = step
    return SHFWResult(x, n_lmo_calls, "max_lmo_calls"), gap


@validate_params(
    {
        "lmo": [callable],
        "x1": ["array-like"],
        "y": ["array-like"],
        "eps": _POSITIVE,
        "max_lmo_calls": _LMO_CALLS,
    },
    prefer_skip_nested_validation=False,
)
def separating_hyperplane_fw(lmo, x1, y, eps, *, max_lmo_calls=None):
    """Separating hyperplane via Frank-Wolfe (SHFW, Algorithm 3).

    Frank-Wolfe with exact line search on :math:`\\|x - y\\|^2` from a
    feasible :math:`x_1`, stopped as soon as

    .. math::

        \\langle x_i - y, x_i - v_i \\rangle \\le \\epsilon \\quad
        \\text{or} \\quad \\|x_i - y\\|^2 \\le 3 \\epsilon,
        \\qquad v_i = \\operatorname{argmin}_{x \\in \\mathcal{K}}
        \\langle x_i - y, x \\rangle.

    The LMO is called before the tests, as printed (so every call makes at
    least one LMO call). On return either :math:`\\tilde x` is close to
    :math:`y`, or :math:`\\langle y - \\tilde x, z - \\tilde x \\rangle \\le
    \\epsilon` for all :math:`z \\in \\mathcal{K}` while :math:`\\|\\tilde x -
    y\\|^2 > 3\\epsilon`, so that :math:`y - \\tilde x` separates :math:`y`
    from :math:`\\mathcal{K}`. Garber and Kretzu (2022, Lemma 6) bound the
    iterations by :math:`\\lceil 27R^2/\\epsilon - 2 \\rceil`.

    Parameters
    ----------
    lmo : callable
        Linear minimization oracle of :math:`\\mathcal{K}`.
    x1 : array-like of shape (n_features,)
        Feasible start (not modified). Checked with ``lmo.contains`` (to
        1e-6) when the oracle has one.
    y : array-like of shape (n_features,)
        The target point.
    eps : float
        Tolerance :math:`\\epsilon > 0`.
    max_lmo_calls : int or None, default=None
        Cap on the LMO calls; None is 10000. Lemma 6 of Garber and Kretzu
        bounds the calls by :math:`\\lceil 27R^2/\\epsilon - 2 \\rceil` for an
        exact LMO, so the default is only reached for :math:`\\epsilon <
        27 R^2 / 10002` or by round-off. When the cap is reached the status
        is ``'max_lmo_calls'`` and ``x`` is the last iterate whose gap was
        computed (or, when it is close to ``y``, the one after it, with
        status ``'close'``).

    Returns
    -------
    result : SHFWResult
        ``(x, n_lmo_calls, status)`` with status ``'close'``, ``'separated'``
        or ``'max_lmo_calls'``.

    See Also
    --------
    infeasible_projection : Algorithm 4, which calls it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import SimplexLMO
    >>> from skcgm.oracles._projection import separating_hyperplane_fw
    >>> x1, y = np.array([1.0, 0.0]), np.array([0.4, 0.6])
    >>> separating_hyperplane_fw(SimplexLMO(), x1, y, eps=0.01)
    SHFWResult(x=array([0.4, 0.6]), n_lmo_calls=2, status='close')
    """
    x = check_vector(x1, "x1", copy=True)
    y = check_vector(y, "y", x.shape[0], copy=True)
    _check_start(lmo, x, "x1")
    return _shfw(lmo, x, y, float(eps), _lmo_calls_cap(max_lmo_calls))[0]


@validate_params(
    {
        "radius": _POSITIVE,
        "eps": _POSITIVE,
        "dist2": [StrictInterval(Real, 0, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def infeasible_projection_lmo_bound(radius, eps, dist2):
    """LMO-call bound (4) of the infeasible projection oracle (Lemma 1).

    .. math::

        \\Big\\lceil \\frac{27 R^2}{\\epsilon} - 2 \\Big\\rceil \\cdot
        \\max\\Big(1, \\frac{\\|x_0 - y_0\\|^2 (\\|x_0 - y_0\\|^2 -
        \\epsilon)}{4 \\epsilon^2} + 1\\Big),

    the SHFW cost times the number of SHFW calls (Lemma 1), rounded
    down to an integer. The first factor is clipped below at 1: Algorithm 3
    makes at least one LMO call, while the printed factor is :math:`\\le 0`
    for :math:`\\epsilon \\ge 13.5 R^2`, a corner the paper's proof leaves
    out (there every SHFW call returns after one LMO call, since
    :math:`\\|x_i - y_i\\|^2 \\le 4R^2 \\le 3\\epsilon`, and one suffices).

    Parameters
    ----------
    radius : float
        :math:`R > 0` with :math:`\\mathcal{K} \\subseteq R\\mathcal{B}`.
    eps : float
        Tolerance :math:`\\epsilon > 0`.
    dist2 : float
        :math:`\\|x_0 - y_0\\|^2 \\ge 0`.

    Returns
    -------
    bound : int
        The bound, clipped at ``sys.maxsize``.

    See Also
    --------
    infeasible_projection : The oracle it bounds.

    Examples
    --------
    >>> from skcgm.oracles._projection import infeasible_projection_lmo_bound
    >>> infeasible_projection_lmo_bound(radius=1.0, eps=0.27, dist2=0.81)
    245
    >>> infeasible_projection_lmo_bound(radius=1.0, eps=0.1, dist2=1.0)
    6298
    """
    radius = resolve_radius("infeasible_projection_lmo_bound", None, radius)
    eps, dist2 = float(eps), float(dist2)
    # Relative slack 1e-12 so that round-off does not move an exact integer
    # across the ceiling or the floor (27 / 0.27 - 2 is 98, 0.1**2 > 0.01).
    per_shfw = 27.0 * radius**2 / eps - 2.0
    if not per_shfw < sys.maxsize:  # a tiny eps: no integer to round
        return sys.maxsize
    per_shfw = max(1, math.ceil(per_shfw - 1e-12 * max(1.0, abs(per_shfw))))
    # Factored so that a tiny eps overflows to inf (clipped) instead of
    # underflowing eps**2 to 0.
    n_shfw = max(1.0, (dist2 / (2.0 * eps)) * ((dist2 - eps) / (2.0 * eps)) + 1.0)
    bound = per_shfw * n_shfw
    if not bound < sys.maxsize:
        return sys.maxsize
    return int(math.floor(bound + 1e-12 * bound))


def _pull(x, y, gap, eps):
    """The step of Algorithm 4 after SHFW: ``y`` pulled towards ``x``, or None.

    Every :math:`z \\in \\mathcal{K}` satisfies :math:`\\langle d, z - x
    \\rangle \\le g` with :math:`d = y - x` and :math:`g` the Frank-Wolfe gap
    at :math:`x`, so for :math:`\\|d\\|^2 > g` the half-space :math:`H =
    \\{z : \\langle d, z - x \\rangle \\le g\\}` contains :math:`\\mathcal{K}`
    and not :math:`y`. The points :math:`y - \\gamma d` with :math:`0 \\le
    \\gamma \\le 1 - g / \\|d\\|^2` are the segment from :math:`y` to its
    projection onto :math:`H`; they are at least as close as :math:`y` to
    every point of :math:`H`, hence of :math:`\\mathcal{K}` (37). The pull
    goes the least distance along it that brings :math:`y` within
    :math:`\\sqrt{3\\epsilon}` of :math:`x` (a margin below), and stops at
    the projection onto :math:`H` when that is farther.
    """
    d = y - x
    dist = scaled_norm(d)
    if not gap < dist * dist:
        return None
    target = max(math.sqrt(3.0 * eps * _CLOSE_MARGIN), gap / dist)
    if target >= dist:
        return None
    return x + (target / dist) * d


def infeasible_projection_unchecked(lmo, x0, y0, eps, radius, max_lmo_calls):
    """Algorithm 4 on validated inputs, with the pull of :func:`_pull`.

    Returns the :class:`InfeasibleProjectionResult` without warning.
    """
    # Step 2: radial projection onto R B, through y0 / max|y0| so that
    # neither the norm nor the direction overflows (||y0|| may be inf).
    norm_y0 = scaled_norm(y0)
    if norm_y0 > radius:
        direction = y0 / float(np.max(np.abs(y0)))
        y = direction * (radius / scaled_norm(direction))
    else:
        y = y0.copy()
    # Step 3: the test uses y0. ||x0 - y0|| >= ||y0|| - ||x0|| decides it
    # without squaring a huge y0.
    if norm_y0 - scaled_norm(x0) <= math.sqrt(3.0 * eps):
        residual = x0 - y0
        if float(residual @ residual) <= 3.0 * eps:
            return InfeasibleProjectionResult(x0.copy(), y, 0, 0, "ok")
    (x, n_lmo_calls, status), gap = _shfw(lmo, x0.copy(), y, eps, max_lmo_calls)
    if status != "close":
        # Step 8 with the pull: after a separation, (x, y_pulled) is close.
        pulled = _pull(x, y, gap, eps)
        if pulled is not None:
            y = pulled
        residual = x - y
        if float(residual @ residual) > 3.0 * eps:
            return InfeasibleProjectionResult(x, y, n_lmo_calls, 1, "max_lmo_calls")
    return InfeasibleProjectionResult(x, y, n_lmo_calls, 1, "ok")


@validate_params(
    {
        "lmo": [callable],
        "x0": ["array-like"],
        "y0": ["array-like"],
        "eps": _POSITIVE,
        "radius": [*_POSITIVE, None],
        "max_lmo_calls": _LMO_CALLS,
    },
    prefer_skip_nested_validation=False,
)
def infeasible_projection(lmo, x0, y0, eps, *, radius=None, max_lmo_calls=None):
    """Infeasible projection oracle :math:`\\mathcal{O}_{IP}` (Lemma 1, Algorithm 4).

    Given a feasible :math:`x_0 \\in \\mathcal{K} \\subseteq R\\mathcal{B}`
    and any :math:`y_0`, Algorithm 4 of Liao et al. (Garber and Kretzu 2022,
    Algorithm 3) sets :math:`y_1 = y_0 / \\max\\{1, \\|y_0\\|/R\\}`, returns
    :math:`(x_0, y_1)` at once when :math:`\\|x_0 - y_0\\|^2 \\le 3\\epsilon`
    (the test uses :math:`y_0`, the answer :math:`y_1`), and otherwise runs
    SHFW (Algorithm 3) from :math:`x_0` towards :math:`y_1`. When SHFW
    separates :math:`y_1` from :math:`\\mathcal{K}` (Frank-Wolfe gap
    :math:`g \\le \\epsilon` at :math:`x_1` while :math:`\\|d\\|^2 >
    3\\epsilon`, :math:`d = y_1 - x_1`), the step (39)
    :math:`y_2 = y_1 - \\gamma d` is taken once, with

    .. math::

        \\gamma = 1 - \\frac{\\sqrt{3\\epsilon}}{\\|d\\|}, \\qquad
        \\text{so that} \\quad \\|x_1 - y_2\\| = \\sqrt{3\\epsilon},

    and :math:`(x_1, y_2)` is returned. The output satisfies Lemma 1:
    :math:`x \\in \\mathcal{K}`, :math:`\\|\\tilde y\\| \\le R`,
    :math:`\\|x - \\tilde y\\|^2 \\le 3\\epsilon`, and

    .. math::

        \\|\\tilde y - z\\|^2 \\le \\|y_0 - z\\|^2 \\quad \\forall z \\in
        \\mathcal{K}, \\qquad (37)

    in at most one SHFW call, :math:`\\lceil 27 R^2/\\epsilon - 2 \\rceil` LMO
    calls (Lemma 6 of Garber and Kretzu), within bound (4)
    (:func:`infeasible_projection_lmo_bound`).

    Parameters
    ----------
    lmo : callable
        Linear minimization oracle of :math:`\\mathcal{K}`.
    x0 : array-like of shape (n_features,)
        Feasible warm start (not modified). Checked with ``lmo.contains``
        (to 1e-6) when the oracle has one.
    y0 : array-like of shape (n_features,)
        The point to project (not modified); any finite size.
    eps : float
        Tolerance :math:`\\epsilon > 0`.
    radius : float or None, default=None
        :math:`R`, an upper bound on :math:`\\|x\\|` over
        :math:`\\mathcal{K}` (Assumption A1); None reads ``lmo.radius``.
    max_lmo_calls : int or None, default=None
        Cap on the LMO calls; None is 10000 (reached only for
        :math:`\\epsilon < 27R^2/10002` or by round-off). When the cap is
        hit before SHFW separates or gets close, the status is
        ``'max_lmo_calls'`` and a
        :class:`~sklearn.exceptions.ConvergenceWarning` is raised; the answer
        still satisfies feasibility and (37), with :math:`\\tilde y` pulled
        as close to :math:`x` as the last Frank-Wolfe gap allows (see
        Notes). A cap hit on a close pair returns it with status ``'ok'``.

    Returns
    -------
    result : InfeasibleProjectionResult
        ``(x, y_tilde, n_lmo_calls, n_outer, status)``; ``n_outer`` is 0 on
        the early return and 1 otherwise.

    See Also
    --------
    check_infeasible_projection : Exact certificate of the output.
    separating_hyperplane_fw : The inner solver (Algorithm 3).

    Notes
    -----
    **The step.** Algorithm 4 prints :math:`\\gamma = 2\\epsilon/\\|x_0 -
    y_0\\|^2` and repeats SHFW and the step until the pair is close: for a
    far :math:`y_0` that is a step of relative size :math:`2\\epsilon /
    \\|x_0 - y_0\\|^2`, and bound (4) grows like :math:`\\|x_0 -
    y_0\\|^4/\\epsilon^2` SHFW calls (about :math:`10^{14}` LMO calls for
    :math:`R = 1`, :math:`\\epsilon = 0.005` and :math:`\\|x_0 - y_0\\| =
    3000`). The paper leaves :math:`\\gamma` as a parameter of (39), and
    the argument of Lemma 7 of Garber and Kretzu allows any :math:`\\gamma`
    up to :math:`2(1 - g/\\|d\\|^2)`: with :math:`g` the Frank-Wolfe gap at
    :math:`x_1`, every :math:`z \\in \\mathcal{K}` has :math:`\\langle d, z -
    x_1 \\rangle \\le g`, so

    .. math::

        \\|y_1 - \\gamma d - z\\|^2 \\le \\|y_1 - z\\|^2
        - 2\\gamma(\\|d\\|^2 - g) + \\gamma^2 \\|d\\|^2 \\le \\|y_1 - z\\|^2.

    After a separation (:math:`g \\le \\epsilon < \\|d\\|^2/3`) the
    :math:`\\gamma` above is in that range and lands :math:`y_2` at distance
    :math:`\\sqrt{3\\epsilon}` from :math:`x_1` (times :math:`1 - 10^{-8}`,
    against round-off), the distance at which the printed small steps stop:
    the loop of (39) ends after its first step. When the cap stops SHFW
    with :math:`g > \\epsilon`, the same step with :math:`\\|x_1 - y_2\\| =
    \\max(\\sqrt{3\\epsilon}, g/\\|d\\|)` is taken when :math:`g < \\|d\\|^2`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import SimplexLMO
    >>> from skcgm.oracles._projection import infeasible_projection
    >>> x0, y0 = np.array([1.0, 0.0]), np.array([1.2, 1.2])
    >>> x, y_tilde, n_lmo_calls, n_outer, status = infeasible_projection(
    ...     SimplexLMO(), x0, y0, eps=0.01)
    >>> x, np.round(y_tilde, 4), n_lmo_calls, n_outer, status
    (array([0.5, 0.5]), array([0.6225, 0.6225]), 2, 1, 'ok')
    >>> bool(np.sum((x - y_tilde) ** 2) <= 3 * 0.01)
    True
    """
    x0 = check_vector(x0, "x0", copy=True)
    y0 = check_vector(y0, "y0", x0.shape[0], copy=True)
    eps = float(eps)
    radius = resolve_radius("infeasible_projection", lmo, radius)
    max_lmo_calls = _lmo_calls_cap(max_lmo_calls)
    _check_start(lmo, x0, "x0")
    result = infeasible_projection_unchecked(lmo, x0, y0, eps, radius, max_lmo_calls)
    if result.status == "max_lmo_calls":
        residual = result.x - result.y_tilde
        warnings.warn(
            f"infeasible_projection reached max_lmo_calls={max_lmo_calls} "
            f"with ||x - y_tilde||^2 = {float(residual @ residual):.3g} > "
            f"3 eps = {3.0 * eps:.3g}; y_tilde is still an infeasible "
            "projection and x is feasible, but they are not close.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return result


@validate_params(
    {
        "lmo": [callable],
        "y0": ["array-like"],
        "x": ["array-like"],
        "y_tilde": ["array-like"],
        "eps": _POSITIVE,
        "radius": [*_POSITIVE, None],
        "tol": [StrictInterval(Real, 0, None, closed="left")],
    },
    prefer_skip_nested_validation=False,
)
def check_infeasible_projection(lmo, y0, x, y_tilde, eps, *, radius=None, tol=1e-9):
    """Certify the output of an infeasible projection oracle (Lemma 1), exactly.

    Checks :math:`x \\in \\mathcal{K}` (``lmo.contains(x, tol)``),
    :math:`\\|\\tilde y\\| \\le R`, :math:`\\|x - \\tilde y\\|^2 \\le
    3\\epsilon` and the projection property (37) for all :math:`z \\in
    \\mathcal{K}` with ONE LMO call: the map

    .. math::

        z \\mapsto \\|\\tilde y - z\\|^2 - \\|y_0 - z\\|^2 = \\|\\tilde y\\|^2 -
        \\|y_0\\|^2 - 2 \\langle \\tilde y - y_0, z \\rangle

    is affine, so it is non-positive on :math:`\\mathcal{K}` iff it is at
    :math:`z^* = \\operatorname{argmin}_{z \\in \\mathcal{K}} \\langle
    \\tilde y - y_0, z \\rangle`. Exact for any convex
    set and exact LMO.

    Parameters
    ----------
    lmo : callable
        Linear minimization oracle of :math:`\\mathcal{K}`, with a
        ``contains(x, tol)`` method.
    y0 : array-like of shape (n_features,)
        The point that was projected.
    x : array-like of shape (n_features,)
        The claimed feasible point.
    y_tilde : array-like of shape (n_features,)
        The claimed infeasible projection.
    eps : float
        Tolerance :math:`\\epsilon > 0` of the oracle.
    radius : float or None, default=None
        :math:`R`; None reads ``lmo.radius``.
    tol : float, default=1e-9
        Slack: passed to ``lmo.contains``, and relative to
        :math:`s = \\max(1, R^2, \\|y_0\\|^2)` in the three inequalities
        (:math:`\\|\\tilde y\\|^2 \\le R^2 + s\\,tol`, and so on).

    Returns
    -------
    certified : bool
        True iff the four conditions hold.

    See Also
    --------
    infeasible_projection : The oracle it certifies.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import BoxLMO
    >>> from skcgm.oracles._projection import (
    ...     check_infeasible_projection, infeasible_projection)
    >>> lmo = BoxLMO(n_features=2)
    >>> y0 = np.array([2.0, -1.0])
    >>> x, y_tilde, *_ = infeasible_projection(lmo, np.zeros(2), y0, eps=0.01)
    >>> check_infeasible_projection(lmo, y0, x, y_tilde, eps=0.01)
    True
    >>> check_infeasible_projection(lmo, y0, x, y_tilde + 0.2, eps=0.01)
    False
    """
    y0 = check_vector(y0, "y0", copy=True)
    x = check_vector(x, "x", y0.shape[0], copy=True)
    y_tilde = check_vector(y_tilde, "y_tilde", y0.shape[0], copy=True)
    # The certificate compares squared norms.
    for point, name in ((y0, "y0"), (x, "x"), (y_tilde, "y_tilde")):
        check_square_range(point, input_name=name)
    eps, tol = float(eps), float(tol)
    radius = resolve_radius("check_infeasible_projection", lmo, radius)
    contains = getattr(lmo, "contains", None)
    if contains is None:
        raise ValueError(
            "check_infeasible_projection needs an lmo with a contains(x, tol) "
            f"method; {type(lmo).__name__} has none."
        )
    scale = max(1.0, radius**2, float(y0 @ y0))
    slack = scale * tol
    if not contains(x, tol=tol):
        return False
    if float(y_tilde @ y_tilde) > radius**2 + slack:
        return False
    if float((x - y_tilde) @ (x - y_tilde)) > 3.0 * eps + slack:
        return False
    shift = y_tilde - y0
    z = _vertex(lmo, shift)
    worst = float(y_tilde @ y_tilde - y0 @ y0 - 2.0 * (shift @ z))
    return worst <= slack
