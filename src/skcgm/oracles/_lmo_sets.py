"""Linear minimization oracles over coordinate sets and norm balls.

Boxes, the capped simplex, the l2 and l-infinity balls and the k-sparse
polytope: every LMO is a closed-form coordinate rule, and every set has a
cheap exact Euclidean projection ``project``. The protocol is the one of
:class:`~skcgm.oracles._lmo._BaseLMO`.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral, Real

import numpy as np

from ..utils._params import StrictInterval
from ._lmo import (
    N_FEATURES,
    POSITIVE,
    LMOResult,
    _bitmask_index,
    _NFeaturesLMO,
    _project_capped_simplex,
    _ProjectionLMO,
    _radius_property,
    _RadiusLMO,
    _unit_direction,
    _validated_n_features,
    bound_array,
    validated_radius,
)

__all__ = ["BoxLMO", "CappedSimplexLMO", "KSparseLMO", "L2BallLMO", "LinfBallLMO"]

# A bound of a box: a finite real, or an array of them (checked entrywise).
_BOUND = [StrictInterval(Real, None, None, closed="neither"), "array-like"]


class BoxLMO(_ProjectionLMO):
    """Linear minimization oracle over a box.

    The set is :math:`\\mathcal{C} = \\{x : l \\le x \\le u\\}` (entrywise);
    the minimizer of :math:`\\langle g, s \\rangle` is separable,

    .. math::

        s_i = \\begin{cases} u_i & g_i < 0, \\\\ l_i & g_i \\ge 0,
        \\end{cases}

    (ties to the lower bound). ``index`` is :math:`\\sum_{i : s_i = u_i >
    l_i} 2^i`, the bit mask of the coordinates at their upper bound, when
    ``n_features <= 62`` (-1 beyond, so that an index fits in an int64);
    ``n_scored`` is ``n_features``. The radius is exact:

    .. math::

        R = \\big\\|\\max(|l|, |u|)\\big\\|_2 .

    Parameters
    ----------
    lower : float or array-like of shape (n_features,), default=0.0
        The lower bounds :math:`l` (a scalar applies to every coordinate).
    upper : float or array-like of shape (n_features,), default=1.0
        The upper bounds :math:`u \\ge l`.
    n_features : int or None, default=None
        The dimension. None takes it from an array bound, or leaves the set
        dimension-free when both bounds are scalars (``radius`` then needs
        it).

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    LinfBallLMO : The box :math:`[-b, b]^d`.
    DownClosedPolytopeLMO : A box cut by packing constraints.

    Notes
    -----
    ``contains`` tests :math:`l - \\text{tol} \\le x \\le u + \\text{tol}`;
    ``project`` clips :math:`y` to :math:`[l, u]`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import BoxLMO
    >>> lmo = BoxLMO(lower=0.0, upper=[1.0, 2.0, 3.0])
    >>> vertex, index, n_scored = lmo(np.array([-1.0, 2.0, -3.0]))
    >>> vertex, index, n_scored
    (array([1., 0., 3.]), 5, 3)
    >>> lmo.project(np.array([2.0, -1.0, 1.5]))
    array([1. , 0. , 1.5])
    >>> round(lmo.radius, 4)
    3.7417
    """

    _parameter_constraints: dict = {
        "lower": _BOUND,
        "upper": _BOUND,
        "n_features": N_FEATURES,
    }
    _keeps_float32 = True

    def __init__(self, lower=0.0, upper=1.0, n_features=None):
        self.lower = lower
        self.upper = upper
        self.n_features = n_features

    def _bounds(self):
        """``(lower, upper, n_features)``, bounds 0-d or 1-D, validated."""
        return self._ensure_params()

    def _validate_params(self):
        """The constraints, and the checks that no constraint expresses.

        The entries of the bounds, their lengths and ``lower <= upper``;
        returns the bounds parsed (see :meth:`_bounds`).
        """
        super()._validate_params()
        lower = bound_array("BoxLMO", "lower", self.lower)
        upper = bound_array("BoxLMO", "upper", self.upper)
        n_features = self.__dict__["n_features"]
        n_features = None if n_features is None else int(n_features)
        for name, bound in (("lower", lower), ("upper", upper)):
            if bound.ndim == 0:
                continue
            if n_features is None:
                n_features = bound.shape[0]
            elif bound.shape[0] != n_features:
                raise ValueError(
                    f"The '{name}' parameter of BoxLMO has {bound.shape[0]} "
                    f"entries, but the box has {n_features} features (from "
                    "n_features or the other bound)."
                )
        if np.any(lower > upper):
            raise ValueError(
                "The 'lower' parameter of BoxLMO must be <= 'upper' entrywise."
            )
        return lower, upper, n_features

    def _dimension(self):
        return self._bounds()[2]

    @property
    def n_features(self):
        """Dimension of the box: ``n_features``, or an array bound's length, or None."""
        return self._dimension()

    @n_features.setter
    def n_features(self, value):
        self.__dict__["n_features"] = value

    def _lmo(self, grad):
        lower, upper, _ = self._bounds()
        at_upper = (grad < 0) & np.broadcast_to(upper > lower, grad.shape)
        vertex = np.where(at_upper, upper, lower).astype(grad.dtype, copy=False)
        return LMOResult(vertex, _bitmask_index(at_upper), grad.shape[0])

    def _contains(self, x, tol):
        lower, upper, _ = self._bounds()
        return bool(np.all(x >= lower - tol) and np.all(x <= upper + tol))

    @property
    def radius(self):
        """Radius :math:`R = \\|\\max(|l|, |u|)\\|_2` of the box (needs d)."""
        lower, upper, n_features = self._bounds()
        if n_features is None:
            raise ValueError(
                "The radius of a BoxLMO with scalar bounds depends on the "
                "dimension: pass n_features=..."
            )
        corner = np.broadcast_to(np.maximum(np.abs(lower), np.abs(upper)), n_features)
        return float(np.linalg.norm(corner))

    @property
    def contains_origin(self):
        """Whether the origin belongs to the box (l <= 0 <= u)."""
        lower, upper, _ = self._bounds()
        return bool(np.all(lower <= 0) and np.all(upper >= 0))

    def _project(self, y):
        lower, upper, _ = self._bounds()
        return np.clip(y, lower, upper)


class LinfBallLMO(_NFeaturesLMO):
    """Linear minimization oracle over the l-infinity ball.

    The set is :math:`\\mathcal{C} = \\{x : \\|x\\|_\\infty \\le b\\}`; the
    minimizer of :math:`\\langle g, s \\rangle` is

    .. math::

        s_i = \\begin{cases} b & g_i < 0, \\\\ -b & g_i \\ge 0 \\end{cases}

    (ties to :math:`-b`). ``index`` is the bit mask :math:`\\sum_{i : s_i =
    b} 2^i` when ``n_features <= 62``, else -1; ``n_scored`` is
    ``n_features``. The size parameter is not called ``radius``, since the
    radius of the ball is

    .. math::

        R = b \\sqrt{d},

    which needs the dimension :math:`d`.

    Parameters
    ----------
    bound : float, default=1.0
        The bound :math:`b > 0` on every coordinate.
    n_features : int or None, default=None
        The dimension :math:`d`; None accepts any dimension, but then
        ``radius`` raises.

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    BoxLMO : Any box.
    KSparseLMO : The l-infinity ball cut by an l1 ball.

    Notes
    -----
    ``contains`` tests :math:`\\|x\\|_\\infty \\le b + \\text{tol}`;
    ``project`` clips to :math:`[-b, b]`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import LinfBallLMO
    >>> lmo = LinfBallLMO(bound=2.0, n_features=2)
    >>> lmo(np.array([-1.0, 3.0])).vertex
    array([ 2., -2.])
    >>> round(lmo.radius, 4)
    2.8284
    """

    _parameter_constraints: dict = {"bound": POSITIVE, "n_features": N_FEATURES}

    def __init__(self, bound=1.0, n_features=None):
        self.bound = bound
        self.n_features = n_features

    def _bound(self):
        """The validated bound b."""
        return float(self.bound)

    def _lmo(self, grad):
        bound = self._bound()
        at_upper = grad < 0
        vertex = np.where(at_upper, bound, -bound).astype(grad.dtype, copy=False)
        return LMOResult(vertex, _bitmask_index(at_upper), grad.shape[0])

    def _contains(self, x, tol):
        return np.abs(x).max() <= self._bound() + tol

    @property
    def radius(self):
        """Radius R = b sqrt(n_features) of the ball (exact; needs n_features)."""
        self._ensure_params()
        bound = self._bound()
        n_features = _validated_n_features(self)
        if n_features is None:
            raise ValueError(
                "The radius of LinfBallLMO is bound * sqrt(n_features): pass "
                "n_features=..."
            )
        return bound * float(np.sqrt(n_features))

    def _project(self, y):
        bound = self._bound()
        return np.clip(y, -bound, bound)


class CappedSimplexLMO(_RadiusLMO):
    """Linear minimization oracle over the capped simplex.

    The set is :math:`\\mathcal{C} = \\{x \\ge 0 : \\sum_i x_i \\le r\\}`, the
    l1 ball intersected with the non-negative orthant (a down-closed set:
    :math:`0 \\in \\mathcal{C}`, as Assumption A1 of the POBGA paper asks).
    Its vertices are :math:`0` and :math:`r e_i`; the minimizer of
    :math:`\\langle g, s \\rangle` is

    .. math::

        s = \\begin{cases} r e_{i^*} & g_{i^*} < 0, \\\\ 0 &
        \\min_i g_i \\ge 0, \\end{cases} \\qquad i^* =
        \\operatorname{argmin}_i g_i

    (ties to the lowest index, and to the origin when :math:`\\min_i g_i =
    0`). ``index`` is :math:`i^*` for :math:`r e_{i^*}` and ``n_features``
    for the origin; ``n_scored`` is ``n_features``. :math:`R = r`.

    Parameters
    ----------
    radius : float, default=1.0
        The cap :math:`r > 0` on the sum of the coordinates.
    n_features : int or None, default=None
        The dimension; None accepts any dimension.

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    SimplexLMO : The simplex :math:`\\sum_i x_i = r`.
    L1BallLMO : The l1 ball.

    Notes
    -----
    ``contains`` tests :math:`x_i \\ge -\\text{tol}` and :math:`\\sum_i x_i
    \\le r + \\text{tol}`. ``project`` returns :math:`\\max(y, 0)` when its
    sum is at most :math:`r`, else the simplex projection of :math:`y` (the
    sum constraint is then active, by the KKT conditions).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import CappedSimplexLMO
    >>> lmo = CappedSimplexLMO(radius=2.0)
    >>> lmo(np.array([1.0, -1.0]))
    LMOResult(vertex=array([0., 2.]), index=1, n_scored=2)
    >>> lmo(np.array([1.0, 0.0]))  # the origin, numbered n_features
    LMOResult(vertex=array([0., 0.]), index=2, n_scored=2)
    >>> lmo.project(np.array([3.0, -1.0]))
    array([2., 0.])
    """

    radius = _radius_property("Radius R = max ||x||_2 of the set, the cap r.")

    def _lmo(self, grad):
        n_features = grad.shape[0]
        i = int(np.argmin(grad))
        vertex = np.zeros_like(grad)
        if grad[i] < 0:
            vertex[i] = validated_radius(self)
            return LMOResult(vertex, i, n_features)
        return LMOResult(vertex, n_features, n_features)

    def _contains(self, x, tol):
        # The largest entry is compared first, so that the sum stays in range.
        bound = validated_radius(self) + tol
        return bool(np.all(x >= -tol) and x.max() <= bound and x.sum() <= bound)

    def _project(self, y):
        return _project_capped_simplex(y, validated_radius(self))


class L2BallLMO(_RadiusLMO):
    """Linear minimization oracle over the Euclidean ball.

    The set is :math:`\\mathcal{C} = \\{x : \\|x\\|_2 \\le r\\}`; the minimizer
    of :math:`\\langle g, s \\rangle` is

    .. math::

        s = -r \\frac{g}{\\|g\\|_2}

    (computed on :math:`g / \\|g\\|_\\infty` so that no norm overflows). A zero
    direction, for which every point of the sphere is a minimizer, gives the
    fixed vertex :math:`-r e_0`. The ball has a continuum of extreme points:
    ``index`` and ``n_scored`` are -1. :math:`R = r`.

    Parameters
    ----------
    radius : float, default=1.0
        The radius :math:`r > 0` of the ball.
    n_features : int or None, default=None
        The dimension; None accepts any dimension.

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    L1BallLMO : The l1 ball.
    NuclearNormBallLMO : The nuclear-norm ball of matrices.

    Notes
    -----
    ``contains`` tests :math:`\\|x\\|_2 \\le r + \\text{tol}`; ``project``
    rescales: :math:`y \\min(1, r / \\|y\\|_2)`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import L2BallLMO
    >>> lmo = L2BallLMO(radius=5.0)
    >>> lmo(np.array([3.0, -4.0])).vertex
    array([-3.,  4.])
    >>> lmo.project(np.array([6.0, 8.0]))
    array([3., 4.])
    """

    radius = _radius_property("Radius R = max ||x||_2 of the ball, the ``radius`` r.")

    def _lmo(self, grad):
        radius = validated_radius(self)
        if not grad.any():
            vertex = np.zeros_like(grad)
            vertex[0] = -radius
        else:
            direction = _unit_direction(grad)
            vertex = direction * (-radius / np.linalg.norm(direction))
        return LMOResult(vertex, -1, -1)

    def _contains(self, x, tol):
        return _stable_norm(x) <= validated_radius(self) + tol

    def _project(self, y):
        radius = validated_radius(self)
        if _stable_norm(y) <= radius:
            return y.copy()
        # Rescaled from y / max|y_i|, whose norm is in range even when the
        # norm of y is not.
        direction = _unit_direction(y)
        return direction * (radius / np.linalg.norm(direction))


def _stable_norm(x):
    """``||x||_2`` without underflow of the squares; inf past float range."""
    scale = np.abs(x).max()
    if scale == 0:
        return 0.0
    # ||x / scale|| is in [1, sqrt(d)]: the product only overflows when the
    # norm itself is beyond the float range, and inf then compares right.
    with np.errstate(over="ignore"):
        return float(scale * np.linalg.norm(x / scale))


def _linf_l1_magnitudes(a, bound, n_nonzero):
    """:math:`\\operatorname{clip}(a - \\theta, 0, b)` for ``a >= 0``, with
    :math:`\\theta \\ge 0` the multiplier of :math:`\\sum_i x_i \\le k b`.

    :math:`\\theta = 0` when the l1 constraint is slack at
    :math:`\\min(a, b)`. Otherwise :math:`\\varphi(\\theta) = \\sum_i
    \\operatorname{clip}(a_i - \\theta, 0, b) = k b` has a root, found exactly
    by evaluating the piecewise-linear :math:`\\varphi` at every breakpoint
    with sorted prefix sums and interpolating on the crossing piece, in
    :math:`O(d \\log d)`.
    """
    clipped = np.minimum(a, bound)
    # Compared in units of b, so that the sum stays in range.
    if (clipped / bound).sum() <= n_nonzero:
        return clipped
    # The constraint is active, so k < d. The k-th largest entry c is either
    # strictly between theta and theta + b, or the answer is b on the k
    # largest entries and 0 elsewhere (any other answer sums to less or more
    # than k b). In the shifted frame d = a - c, tau = theta - c, a root is
    # then in [-b, 0], so clipping d to [-2b, b] changes no answer, and the
    # breakpoints d_i - b are exact to round-off relative to b however large
    # a is (a_i - b rounds to a_i for a_i ~ 1e17 b).
    n = a.shape[0]
    c = np.partition(a, n - n_nonzero)[n - n_nonzero]
    d = np.clip(a - c, -2.0 * bound, bound)
    total = n_nonzero * bound
    sorted_d = np.sort(d)
    prefix = np.concatenate([[0.0], np.cumsum(sorted_d)])
    taus = np.unique(np.concatenate([sorted_d, sorted_d - bound]))

    def phi(tau):
        # Entries <= tau give 0, entries with d_i - b >= tau give b, the rest
        # d_i - tau (hi >= lo also when d_i - b rounds to d_i).
        lo = np.searchsorted(sorted_d, tau, side="right")
        hi = np.maximum(np.searchsorted(sorted_d - bound, tau, side="left"), lo)
        return bound * (n - hi) + (prefix[hi] - prefix[lo]) - tau * (hi - lo)

    values = phi(taus)
    # values[0] = n b > k b > 0 = values[-1]: the root is on a piece.
    k = np.flatnonzero(values >= total)[-1]
    tau = taus[k]
    if values[k] > total:
        t1, v0, v1 = taus[k + 1], values[k], values[k + 1]
        tau = tau + (v0 - total) * (t1 - tau) / (v0 - v1)
    return np.clip(d - tau, 0.0, bound)


class KSparseLMO(_NFeaturesLMO):
    """Linear minimization oracle over the k-sparse polytope.

    The set is :math:`\\mathcal{C} = \\{x : \\|x\\|_\\infty \\le b,\\
    \\|x\\|_1 \\le k b\\}`, the convex hull of the k-sparse vectors with
    entries in :math:`\\{-b, 0, b\\}` (FrankWolfe.jl's ``KSparseLMO``). With
    :math:`I` the :math:`k` coordinates of largest :math:`|g_i|`, the
    minimizer of :math:`\\langle g, s \\rangle` is

    .. math::

        s_i = \\begin{cases} -b\\,\\sigma(g_i) & i \\in I, \\\\ 0 & i \\notin I,
        \\end{cases} \\qquad \\sigma(t) = 1 \\text{ if } t \\ge 0 \\text{
        else } -1,

    always a vertex with exactly :math:`\\min(k, d)` non-zeros (a zero
    :math:`g_i` in :math:`I` gets :math:`-b`; ties in :math:`|g_i|` are
    broken by ``np.argpartition``). ``index`` is -1; ``n_scored`` is
    ``n_features``. With :math:`k \\ge d` the set is the l-infinity ball.
    The radius is

    .. math::

        R = b \\sqrt{\\min(k, d)},

    exact when ``n_features`` is known, else the upper bound
    :math:`b\\sqrt{k}`.

    Parameters
    ----------
    n_nonzero : int
        The sparsity :math:`k \\ge 1`.
    bound : float, default=1.0
        The bound :math:`b > 0` on every coordinate.
    n_features : int or None, default=None
        The dimension :math:`d`; None accepts any dimension.

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    LinfBallLMO : The l-infinity ball (:math:`k \\ge d`).
    L1BallLMO : The l1 ball (:math:`k = 1`, up to scaling).

    Notes
    -----
    ``contains`` tests :math:`\\|x\\|_\\infty \\le b + \\text{tol}` and
    :math:`\\|x\\|_1 \\le k b + \\text{tol}`. ``project`` is exact: by the
    KKT conditions,
    :math:`x_i = \\operatorname{sign}(y_i)\\operatorname{clip}(|y_i| -
    \\theta, 0, b)` with :math:`\\theta \\ge 0` the multiplier of the l1
    constraint, found exactly as the root of a piecewise-linear function
    (:math:`O(d \\log d)`).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import KSparseLMO
    >>> lmo = KSparseLMO(n_nonzero=2, bound=1.0)
    >>> lmo(np.array([0.5, -3.0, 2.0, 0.1])).vertex
    array([ 0.,  1., -1.,  0.])
    >>> lmo.project(np.array([3.0, 2.0, 0.0]))
    array([1., 1., 0.])
    """

    _parameter_constraints: dict = {
        "n_nonzero": [StrictInterval(Integral, 1, None, closed="left")],
        "bound": POSITIVE,
        "n_features": N_FEATURES,
    }

    def __init__(self, n_nonzero, bound=1.0, n_features=None):
        self.n_nonzero = n_nonzero
        self.bound = bound
        self.n_features = n_features

    def _params(self):
        """The validated ``(k, b)``."""
        return int(self.n_nonzero), float(self.bound)

    def _lmo(self, grad):
        n_nonzero, bound = self._params()
        n_features = grad.shape[0]
        k = min(n_nonzero, n_features)
        if k == n_features:
            support = np.arange(n_features)
        else:
            support = np.argpartition(-np.abs(grad), k - 1)[:k]
        vertex = np.zeros_like(grad)
        vertex[support] = np.where(grad[support] < 0, bound, -bound)
        return LMOResult(vertex, -1, n_features)

    def _contains(self, x, tol):
        n_nonzero, bound = self._params()
        absolute = np.abs(x)
        return (
            absolute.max() <= bound + tol and absolute.sum() <= n_nonzero * bound + tol
        )

    @property
    def radius(self):
        """Radius R = b sqrt(min(k, d)); the bound b sqrt(k) when d is unknown."""
        self._ensure_params()
        n_nonzero, bound = self._params()
        n_features = _validated_n_features(self)
        if n_features is not None:
            n_nonzero = min(n_nonzero, n_features)
        return bound * float(np.sqrt(n_nonzero))

    def _project(self, y):
        n_nonzero, bound = self._params()
        magnitudes = _linf_l1_magnitudes(np.abs(y), bound, n_nonzero)
        # + 0.0 turns the -0.0 of sign(y) * 0 into 0.0.
        return np.sign(y) * magnitudes + 0.0
