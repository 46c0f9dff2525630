"""Linear minimization oracles over polytopes given by inequalities, and products.

A general polytope and the down-closed packing polytope of the NQP
benchmark (Chen et al. 2018b) are LMOs by linear programming
(``scipy.optimize.linprog(method="highs")``); the Birkhoff polytope by the
assignment problem; a product of sets by one LMO per factor. The protocol is
the one of :class:`~skcgm.oracles._lmo._BaseLMO`.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import math
from numbers import Integral, Real

import numpy as np
from scipy.optimize import linear_sum_assignment, linprog, minimize
from sklearn.utils.metaestimators import available_if

from ..utils._params import StrictInterval
from ..utils._validation import check_matrix, check_square_range, check_vector
from ._lmo import (
    POSITIVE,
    LMOResult,
    _BaseLMO,
    _ProjectionLMO,
    _unit_direction,
    bound_array,
)

__all__ = ["BirkhoffLMO", "DownClosedPolytopeLMO", "PolytopeLMO", "ProductLMO"]

# HiGHS's default tolerances (1e-7) let a cost of 1e-7 of the (unit-scaled)
# direction go unheeded; its tightest ones leave 1e-10 of its value.
_LP_OPTIONS = {
    "dual_feasibility_tolerance": 1e-10,
    "primal_feasibility_tolerance": 1e-10,
}


def _solve_lp(owner, c, **constraints):
    """A vertex minimizing ``c @ x`` (HiGHS), or a clear error."""
    res = linprog(c, method="highs", options=_LP_OPTIONS, **constraints)
    if res.status == 0:
        return res.x
    if res.status == 2:
        raise ValueError(
            f"The feasible set of {owner} is empty: the linear program is "
            f"infeasible ({res.message})"
        )
    if res.status == 3:
        raise ValueError(
            f"The feasible set of {owner} is unbounded in this direction, so it "
            f"is not a compact set: give finite bounds ({res.message})"
        )
    raise RuntimeError(f"linprog failed on the LMO of {owner}: {res.message}")


def _rhs(owner, name, value, n_rows):
    """A right-hand side, one finite real per row of its matrix."""
    return check_vector(value, f"The '{name}' parameter of {owner}", n_rows, copy=True)


def _parsed_bounds(owner, bounds, n_features):
    """``bounds`` as linprog takes them -> ``(lower, upper, n_features)``.

    A pair ``(lb, ub)`` applies to every coordinate (0-d arrays); a sequence
    of ``n_features`` pairs gives one per coordinate. None is -inf / +inf.
    """
    try:
        table = np.array(bounds, dtype=object)
    except ValueError:
        table = None
    if table is None or table.ndim not in (1, 2) or table.shape[-1] != 2:
        raise ValueError(
            f"The 'bounds' parameter of {owner} must be a pair (lb, ub) or a "
            f"sequence of n_features pairs; got {bounds!r}."
        )
    infinity = np.array([-np.inf, np.inf], dtype=object)
    table = np.where(table == None, infinity, table)  # noqa: E711 - elementwise
    try:
        table = table.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"The 'bounds' parameter of {owner} must hold reals or None; "
            f"got {bounds!r}."
        ) from None
    lower, upper = table[..., 0], table[..., 1]
    if np.isnan(table).any() or np.any(lower > upper) or np.any(lower == np.inf):
        raise ValueError(
            f"The 'bounds' parameter of {owner} must have lb <= ub, lb < inf "
            f"and no NaN; got {bounds!r}."
        )
    if table.ndim == 2:
        if n_features is not None and table.shape[0] != n_features:
            raise ValueError(
                f"The 'bounds' parameter of {owner} has {table.shape[0]} pairs, "
                f"but the constraints have {n_features} columns."
            )
        n_features = table.shape[0]
    return lower, upper, n_features


def _box_radius(lower, upper, n_features):
    """``||max(|l|, |u|)||_2``, an upper bound on the norm of the box's points."""
    corner = np.maximum(np.abs(lower), np.abs(upper))
    return float(np.linalg.norm(np.broadcast_to(corner, n_features)))


class PolytopeLMO(_BaseLMO):
    """Linear minimization oracle over a polytope, by linear programming.

    The set is

    .. math::

        \\mathcal{C} = \\{x : A_{ub} x \\le b_{ub},\\ A_{eq} x = b_{eq},\\
        l \\le x \\le u\\},

    in the form of ``scipy.optimize.linprog``, which computes the minimizer
    of :math:`\\langle g, s \\rangle` (``method="highs"``; its simplex or
    interior point with crossover returns a vertex, feasible to about
    1e-9). ``index`` and ``n_scored`` are -1. An empty set or a direction in
    which the set is unbounded raises a ValueError naming the problem.

    Parameters
    ----------
    A_ub : array-like of shape (n_ub, n_features) or None, default=None
        Inequality constraint matrix.
    b_ub : array-like of shape (n_ub,) or None, default=None
        Inequality right-hand side; given with ``A_ub``.
    A_eq : array-like of shape (n_eq, n_features) or None, default=None
        Equality constraint matrix.
    b_eq : array-like of shape (n_eq,) or None, default=None
        Equality right-hand side; given with ``A_eq``.
    bounds : pair or sequence of pairs, default=(0, None)
        Bounds ``(lb, ub)`` on every coordinate, or one pair per coordinate;
        None means no bound, as for ``linprog``.
    radius : float or None, default=None
        :math:`R \\ge \\max_{x \\in \\mathcal{C}} \\|x\\|_2`, trusted as given
        (computing the exact maximum of a norm over a polytope is NP-hard).
        None bounds it by the box, :math:`\\|\\max(|l|, |u|)\\|_2`, when every
        bound is finite; ``radius`` raises a ValueError otherwise.

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    DownClosedPolytopeLMO : The packing polytope, with a projection.
    BoxLMO : A box alone, in closed form.

    Notes
    -----
    ``n_features`` comes from the matrices or the per-coordinate bounds
    (None when neither gives it). ``contains`` tests every constraint with
    the absolute slack ``tol``. There is no ``project``: projecting onto a
    general polytope is a quadratic program.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import PolytopeLMO
    >>> lmo = PolytopeLMO(A_ub=[[1.0, 1.0]], b_ub=[1.0], bounds=(0, 1))
    >>> lmo(np.array([-1.0, -2.0])).vertex
    array([0., 1.])
    >>> lmo.radius, lmo.contains(np.array([0.5, 0.5]))
    (1.4142135623730951, True)
    """

    _parameter_constraints: dict = {
        "A_ub": ["array-like", None],
        "b_ub": ["array-like", None],
        "A_eq": ["array-like", None],
        "b_eq": ["array-like", None],
        "bounds": ["array-like"],
        "radius": [*POSITIVE, None],
    }

    def __init__(
        self, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(0, None), radius=None
    ):
        self.A_ub = A_ub
        self.b_ub = b_ub
        self.A_eq = A_eq
        self.b_eq = b_eq
        self.bounds = bounds
        self.radius = radius

    def _parsed(self):
        """Validated constraints as a dict (0 rows for an absent pair)."""
        return self._ensure_params()

    def _validate_params(self):
        """The constraints checked and parsed (see :meth:`_parsed`)."""
        super()._validate_params()
        owner = "PolytopeLMO"
        n_features = None
        parsed = {}
        for A_name, b_name in (("A_ub", "b_ub"), ("A_eq", "b_eq")):
            A, b = getattr(self, A_name), getattr(self, b_name)
            if (A is None) != (b is None):
                raise ValueError(
                    f"The '{A_name}' and '{b_name}' parameters of {owner} must be "
                    f"given together; got {A_name}={A!r}, {b_name}={b!r}."
                )
            if A is None:
                parsed[A_name] = parsed[b_name] = None
                continue
            A = check_matrix(A, f"The '{A_name}' parameter of {owner}")
            if n_features is not None and A.shape[1] != n_features:
                raise ValueError(
                    f"The '{A_name}' parameter of {owner} has {A.shape[1]} columns, "
                    f"but A_ub has {n_features}."
                )
            n_features = A.shape[1]
            parsed[A_name] = A
            parsed[b_name] = _rhs(owner, b_name, b, A.shape[0])
        lower, upper, n_features = _parsed_bounds(owner, self.bounds, n_features)
        radius = self.__dict__["radius"]
        if radius is not None:
            radius = float(radius)
        parsed.update(lower=lower, upper=upper, n_features=n_features, radius=radius)
        return parsed

    @property
    def n_features(self):
        """Dimension, from the matrices or the per-coordinate bounds, or None."""
        return self._parsed()["n_features"]

    @property
    def radius(self):
        """Bound R >= max ||x||_2: the ``radius`` parameter, else from finite bounds."""
        p = self._parsed()
        if p["radius"] is not None:
            return p["radius"]
        finite = np.isfinite(p["lower"]).all() and np.isfinite(p["upper"]).all()
        if not finite or p["n_features"] is None:
            raise ValueError(
                "PolytopeLMO cannot bound max ||x||_2 without finite bounds on "
                "every coordinate and a known dimension: pass radius=..."
            )
        return _box_radius(p["lower"], p["upper"], p["n_features"])

    @radius.setter
    def radius(self, value):
        self.__dict__["radius"] = value

    def _lmo(self, grad):
        p = self._parsed()
        n_features = grad.shape[0]
        bounds = np.column_stack(
            [
                np.broadcast_to(p["lower"], n_features),
                np.broadcast_to(p["upper"], n_features),
            ]
        )
        vertex = _solve_lp(
            "PolytopeLMO",
            _unit_direction(grad),
            A_ub=p["A_ub"],
            b_ub=p["b_ub"],
            A_eq=p["A_eq"],
            b_eq=p["b_eq"],
            bounds=bounds,
        )
        return LMOResult(np.asarray(vertex, dtype=np.float64), -1, -1)

    def _contains(self, x, tol):
        p = self._parsed()
        if not (np.all(x >= p["lower"] - tol) and np.all(x <= p["upper"] + tol)):
            return False
        # Rows compared in units of max(1, max|x_i|), so that the products
        # stay in range for far points.
        scale = max(1.0, float(np.abs(x).max()))
        x = x / scale
        if p["A_ub"] is not None and np.any(p["A_ub"] @ x > (p["b_ub"] + tol) / scale):
            return False
        if p["A_eq"] is not None and np.any(
            np.abs(p["A_eq"] @ x - p["b_eq"] / scale) > tol / scale
        ):
            return False
        return True

    @property
    def contains_origin(self):
        """Whether the origin satisfies every constraint exactly."""
        p = self._parsed()
        inside = bool(np.all(p["lower"] <= 0) and np.all(p["upper"] >= 0))
        if p["b_ub"] is not None:
            inside &= bool(np.all(p["b_ub"] >= 0))
        if p["b_eq"] is not None:
            inside &= bool(np.all(p["b_eq"] == 0))
        return inside


# L-BFGS-B settings of the dual projection: run until the projected gradient
# (the primal infeasibility) is at round-off level.
_DUAL_OPTIONS = {"maxiter": 20000, "maxfun": 40000, "ftol": 1e-16, "gtol": 1e-13}
_POLISH_STEPS = 5
_FEASIBILITY_RETRIES = 4


class _DownClosedProjector:
    """Projection onto :math:`\\{0 \\le x \\le u, A x \\le b\\}` through the dual.

    The Lagrangian of :math:`\\min \\frac12 \\|x - y\\|^2` over the box with
    multipliers :math:`\\lambda \\ge 0` on :math:`A x \\le b` is minimized by
    :math:`x(\\lambda) = \\operatorname{clip}(y - A^\\top \\lambda, 0, u)`; the
    dual function

    .. math::

        q(\\lambda) = \\tfrac12 \\|x(\\lambda) - y\\|^2 + \\lambda^\\top
        (A x(\\lambda) - b)

    is concave and differentiable with gradient :math:`A x(\\lambda) - b`
    (Danskin), maximized over :math:`\\lambda \\ge 0` by L-BFGS-B.
    """

    def __init__(self, A, b, upper):
        # Every row alone implies x_i <= b_j / A_ji (A, b >= 0): capping the
        # box changes nothing in the set, but fixes to 0 the coordinates of
        # the rows with b_j = 0, so that scaling towards 0 below restores
        # feasibility, and it shrinks the dual.
        with np.errstate(divide="ignore"):
            ratio = np.where(A > 0, b[:, None] / np.where(A > 0, A, 1.0), np.inf)
        self.cap = np.minimum(upper, ratio.min(axis=0))
        # Rows that no point of the capped box can violate play no role.
        active = A @ self.cap > b
        self.A, self.b = A[active], b[active]
        self.A_full, self.b_full = A, b

    def x_of(self, y, lam):
        return np.clip(y - self.A.T @ lam, 0.0, self.cap)

    def feasible(self, x):
        """Scale ``x`` (in the box) towards 0 until ``A x <= b``: down-closed.

        Checked on every row as evaluated in floating point; the scaled
        product can round one ulp above ``b``, hence the few retries with a
        relative margin of about 1e-13.
        """
        for attempt in range(_FEASIBILITY_RETRIES):
            Ax = self.A_full @ x
            over = Ax > self.b_full
            if not over.any():
                break
            shrink = np.min(self.b_full[over] / Ax[over])
            x = x * (shrink * (1.0 - attempt * 2.0**-43))
        return x

    def gap(self, y, lam):
        """``(x, f(x) - q(lam))`` with ``x`` feasible: ``||x - x*||^2 <= 2 gap``."""
        x_lam = self.x_of(y, lam)
        d = x_lam - y
        dual = 0.5 * d @ d + lam @ (self.A @ x_lam - self.b)
        x = self.feasible(x_lam)
        e = x - y
        return x, max(0.5 * e @ e - dual, 0.0)

    def neg_dual(self, lam, y):
        x = self.x_of(y, lam)
        residual = self.A @ x - self.b
        d = x - y
        return -(0.5 * d @ d + lam @ residual), -residual

    def polish(self, y, lam):
        """One Newton step on the active set of ``lam`` (exact once identified).

        With the free coordinates :math:`F` (strictly inside the box at
        :math:`x(\\lambda)`) and the rows :math:`J` with :math:`\\lambda_j >
        0`, the KKT conditions :math:`A_J x = b_J`, :math:`x_F = y_F -
        A_{JF}^\\top \\lambda_J` are a linear system in :math:`\\lambda_J`.
        """
        z = y - self.A.T @ lam
        free = (z > 0) & (z < self.cap)
        rows = lam > 0
        if not rows.any():
            return lam
        x_fixed = np.clip(z, 0.0, self.cap)
        x_fixed[free] = 0.0
        A_JF = self.A[np.ix_(rows, free)]
        rhs = A_JF @ y[free] + self.A[rows] @ x_fixed - self.b[rows]
        mu = np.linalg.lstsq(A_JF @ A_JF.T, rhs, rcond=None)[0]
        new = np.zeros_like(lam)
        new[rows] = np.maximum(mu, 0.0)
        return new

    def __call__(self, y):
        x = np.clip(y, 0.0, self.cap)
        if self.A.shape[0] == 0 or np.all(self.A @ x <= self.b):
            return self.feasible(x)
        m = self.A.shape[0]
        res = minimize(
            self.neg_dual,
            np.zeros(m),
            args=(y,),
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, None)] * m,
            options=_DUAL_OPTIONS,
        )
        lam = res.x
        best_x, best_gap = self.gap(y, lam)
        for _ in range(_POLISH_STEPS):
            if best_gap == 0.0:
                break
            lam_new = self.polish(y, lam)
            x_new, gap_new = self.gap(y, lam_new)
            if gap_new >= best_gap:
                break
            lam, best_x, best_gap = lam_new, x_new, gap_new
        return best_x


class DownClosedPolytopeLMO(_ProjectionLMO):
    """Linear minimization oracle over a down-closed packing polytope.

    The set is

    .. math::

        \\mathcal{C} = \\{x \\in \\mathbb{R}^d : 0 \\le x \\le u,\\ A x \\le b\\},
        \\qquad A \\ge 0,\\ b \\ge 0,

    the constraint set of the non-convex quadratic programming (NQP)
    benchmark of online DR-submodular maximization (Chen et al. 2018b; the
    POBGA paper reports no experiments). It contains the
    origin and is down-closed (:math:`0 \\le y \\le x \\in \\mathcal{C}`
    implies :math:`y \\in \\mathcal{C}`). The LMO is a linear program
    (``scipy.optimize.linprog(method="highs")``) over the coordinates with
    :math:`g_i < 0` only: the others are 0 at a minimizer (down-closedness),
    so the answer stays a vertex; a direction :math:`g \\ge 0` returns 0
    without an LP. ``index`` and ``n_scored`` are -1. The radius is the
    upper bound

    .. math::

        R = \\|u\\|_2 \\ge \\max_{x \\in \\mathcal{C}} \\|x\\|_2,

    exact when :math:`u \\in \\mathcal{C}`.

    Parameters
    ----------
    A : array-like of shape (n_constraints, n_features)
        The packing matrix, entries :math:`\\ge 0`.
    b : array-like of shape (n_constraints,)
        The right-hand side, entries :math:`\\ge 0`.
    upper : float or array-like of shape (n_features,), default=1.0
        The upper bounds :math:`u \\ge 0` (a scalar applies to every
        coordinate).

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    PolytopeLMO : Any polytope, without a projection.
    BoxLMO : The box alone.

    Notes
    -----
    ``project`` is the exact Euclidean projection used by the projection-based
    baselines (OBGA on the NQP benchmark). It solves the dual of the
    quadratic program: with multipliers :math:`\\lambda \\ge 0` of
    :math:`A x \\le b`, the Lagrangian is minimized over the box by

    .. math::

        x(\\lambda) = \\operatorname{clip}(y - A^\\top \\lambda, 0, u),

    and the concave dual :math:`q(\\lambda) = \\frac12 \\|x(\\lambda) - y\\|^2
    + \\lambda^\\top (A x(\\lambda) - b)` (gradient :math:`A x(\\lambda) - b`)
    is maximized by L-BFGS-B to round-off tolerance, then refined by Newton
    steps on the identified active set. The returned point is made exactly
    feasible by scaling :math:`x(\\lambda)` towards 0 (allowed by
    down-closedness), and the duality gap certifies it:
    :math:`\\|x - P(y)\\|^2 \\le 2 (\\frac12 \\|x - y\\|^2 - q(\\lambda))`,
    which is at round-off level (about 1e-9 in distance or better) on the
    problems tested. The cost is :math:`O(m d)` per dual iteration; it is
    meant for few constraints :math:`m`, and a point whose squares overflow
    raises a ValueError (the dual objective holds :math:`\\|x - y\\|^2`).
    ``contains`` tests :math:`-\\text{tol} \\le x \\le u + \\text{tol}`
    and :math:`A x \\le b + \\text{tol}`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import DownClosedPolytopeLMO
    >>> lmo = DownClosedPolytopeLMO(A=[[1.0, 1.0]], b=[1.0], upper=1.0)
    >>> lmo(np.array([-1.0, -2.0])).vertex
    array([0., 1.])
    >>> lmo.project(np.array([1.0, 1.0]))
    array([0.5, 0.5])
    >>> round(lmo.radius, 4)
    1.4142
    """

    _parameter_constraints: dict = {
        "A": ["array-like"],
        "b": ["array-like"],
        "upper": [StrictInterval(Real, 0, None, closed="left"), "array-like"],
    }

    def __init__(self, A, b, upper=1.0):
        self.A = A
        self.b = b
        self.upper = upper

    def _parsed(self):
        """The validated ``(A, b, upper)``, ``upper`` one entry per column."""
        return self._ensure_params()

    def _validate_params(self):
        """The parameters checked and parsed (see :meth:`_parsed`)."""
        super()._validate_params()
        owner = "DownClosedPolytopeLMO"
        A = check_matrix(self.A, f"The 'A' parameter of {owner}")
        if np.any(A < 0):
            raise ValueError(f"The 'A' parameter of {owner} must be non-negative.")
        b = _rhs(owner, "b", self.b, A.shape[0])
        if np.any(b < 0):
            raise ValueError(f"The 'b' parameter of {owner} must be non-negative.")
        upper = bound_array(owner, "upper", self.upper)
        if upper.ndim == 1 and upper.shape[0] != A.shape[1]:
            raise ValueError(
                f"The 'upper' parameter of {owner} has {upper.shape[0]} entries, "
                f"but A has {A.shape[1]} columns."
            )
        if np.any(upper < 0):
            raise ValueError(f"The 'upper' parameter of {owner} must be non-negative.")
        return A, b, np.broadcast_to(upper, A.shape[1])

    @property
    def n_features(self):
        """Dimension d, the number of columns of A."""
        return self._parsed()[0].shape[1]

    @property
    def radius(self):
        """Upper bound R = ||u||_2 on max ||x||_2 (exact when u is feasible)."""
        return float(np.linalg.norm(self._parsed()[2]))

    def _lmo(self, grad):
        A, b, upper = self._parsed()
        vertex = np.zeros(grad.shape[0])
        grad = _unit_direction(grad)
        columns = np.flatnonzero(grad < 0)
        if columns.shape[0] > 0:
            bounds = np.column_stack([np.zeros(columns.shape[0]), upper[columns]])
            x = _solve_lp(
                "DownClosedPolytopeLMO",
                grad[columns],
                A_ub=A[:, columns],
                b_ub=b,
                bounds=bounds,
            )
            # HiGHS may step outside the box by round-off.
            vertex[columns] = np.clip(x, 0.0, upper[columns])
        return LMOResult(vertex, -1, -1)

    def _contains(self, x, tol):
        A, b, upper = self._parsed()
        return bool(
            np.all(x >= -tol) and np.all(x <= upper + tol) and np.all(A @ x <= b + tol)
        )

    def _project(self, y):
        # The dual objective holds ||x - y||^2.
        check_square_range(y, input_name="y")
        A, b, upper = self._parsed()
        return _DownClosedProjector(A, b, upper)(y)


def _permutation_rank(permutation):
    """Rank of a permutation in lexicographic order (its Lehmer code)."""
    n = permutation.shape[0]
    # c_i = #{j > i : p_j < p_i}; rank = sum_i c_i (n - 1 - i)!, by Horner.
    smaller_after = np.triu(permutation[None, :] < permutation[:, None], 1).sum(axis=1)
    rank = 0
    for i in range(n):
        rank = rank * (n - i) + int(smaller_after[i])
    return rank


# 20! < 2**63 <= 21!: larger permutation ranks would not fit in an int64.
_MAX_RANKED_PERMUTATION = 20


class BirkhoffLMO(_BaseLMO):
    """Linear minimization oracle over the Birkhoff polytope.

    The set is the polytope of doubly stochastic :math:`n \\times n` matrices,
    flattened row-major,

    .. math::

        \\mathcal{C} = \\{X \\ge 0 : X \\mathbf{1} = \\mathbf{1},\\ X^\\top
        \\mathbf{1} = \\mathbf{1}\\},

    whose vertices are the permutation matrices (Birkhoff-von Neumann). The
    minimizer of :math:`\\langle G, X \\rangle` is the permutation matrix of
    an optimal assignment, ``scipy.optimize.linear_sum_assignment(G)``
    (:math:`O(n^3)`). ``index`` is the rank of the permutation
    :math:`\\pi` (row :math:`i` to column :math:`\\pi(i)`) in lexicographic
    order when :math:`n \\le 20` (else -1, as :math:`21! > 2^{63}`);
    ``n_scored`` is -1. :math:`R = \\sqrt{n}`, the Frobenius norm of a
    permutation matrix.

    Parameters
    ----------
    n : int
        The size :math:`n \\ge 1` of the matrices; ``n_features`` is
        :math:`n^2`.

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    SimplexLMO : The simplex, one row of the polytope.
    ProductLMO : A product of sets, e.g. of row simplices.

    Notes
    -----
    ``contains`` tests :math:`X_{ij} \\ge -\\text{tol}` and every row and
    column sum within ``tol`` of 1. There is no ``project``: the Euclidean
    projection onto the Birkhoff polytope has no closed form.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import BirkhoffLMO
    >>> lmo = BirkhoffLMO(n=2)
    >>> vertex, index, n_scored = lmo(np.array([1.0, 0.0, 0.0, 1.0]))
    >>> vertex, index
    (array([0., 1., 1., 0.]), 1)
    """

    _parameter_constraints: dict = {
        "n": [StrictInterval(Integral, 1, None, closed="left")]
    }

    def __init__(self, n):
        self.n = n

    @property
    def n_features(self):
        """Dimension n**2 of the flattened matrices."""
        self._ensure_params()
        return int(self.n) ** 2

    @property
    def radius(self):
        """Radius R = sqrt(n), the norm of a permutation matrix (exact)."""
        self._ensure_params()
        return math.sqrt(self.n)

    @property
    def contains_origin(self):
        """Whether the origin belongs to the set: never."""
        self._ensure_params()
        return False

    def _lmo(self, grad):
        n = int(self.n)
        # The solver sums costs along augmenting paths.
        rows, columns = linear_sum_assignment(_unit_direction(grad).reshape(n, n))
        vertex = np.zeros(n * n)
        vertex[rows * n + columns] = 1.0
        index = _permutation_rank(columns) if n <= _MAX_RANKED_PERMUTATION else -1
        return LMOResult(vertex, index, -1)

    def _contains(self, x, tol):
        n = int(self.n)
        matrix = x.reshape(n, n)
        return bool(
            np.all(matrix >= -tol)
            and np.all(np.abs(matrix.sum(axis=0) - 1.0) <= tol)
            and np.all(np.abs(matrix.sum(axis=1) - 1.0) <= tol)
        )


def _factors_project(product):
    return all(hasattr(lmo, "project") for lmo in product.lmos)


class ProductLMO(_BaseLMO):
    """Linear minimization oracle over a Cartesian product of sets.

    For sets :math:`\\mathcal{C}_1, \\dots, \\mathcal{C}_p` of dimensions
    :math:`d_1, \\dots, d_p`, the set is :math:`\\mathcal{C} = \\mathcal{C}_1
    \\times \\dots \\times \\mathcal{C}_p` (points are concatenations); the
    LMO is separable,

    .. math::

        \\operatorname{argmin}_{s \\in \\mathcal{C}} \\langle g, s \\rangle =
        \\big(\\operatorname{argmin}_{s_k \\in \\mathcal{C}_k} \\langle g_k, s_k
        \\rangle\\big)_{k=1}^p ,

    one call of every factor per call (so the factors' own counters count
    too), and

    .. math::

        R = \\Big(\\sum_k R_k^2\\Big)^{1/2}.

    ``index`` is -1; ``n_scored`` is the sum of the factors' (-1 if one is
    -1).

    Parameters
    ----------
    lmos : list of LMO
        The factor oracles, each with a known ``n_features``.

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    SimplexLMO : A factor of a per-row simplex product.
    BoxLMO : A product of intervals, directly.

    Notes
    -----
    ``project`` exists when every factor has one (the projection onto a
    product is the product of the projections). ``contains`` and
    ``contains_origin`` ask every factor.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import L2BallLMO, ProductLMO, SimplexLMO
    >>> lmo = ProductLMO([SimplexLMO(n_features=2), L2BallLMO(n_features=2)])
    >>> lmo(np.array([1.0, -1.0, 3.0, 4.0])).vertex
    array([ 0. ,  1. , -0.6, -0.8])
    >>> round(lmo.radius, 4)
    1.4142
    """

    _parameter_constraints: dict = {"lmos": [list, tuple]}

    def __init__(self, lmos):
        self.lmos = lmos

    def _sizes(self):
        """The validated dimensions of the factors."""
        return self._ensure_params()

    def _validate_params(self):
        """The factors checked; their dimensions (see :meth:`_sizes`)."""
        super()._validate_params()
        lmos = self.lmos
        if len(lmos) == 0:
            raise ValueError(
                "The 'lmos' parameter of ProductLMO must be a non-empty list of "
                f"LMOs; got {lmos!r}."
            )
        sizes = []
        for k, lmo in enumerate(lmos):
            if not (callable(lmo) and hasattr(lmo, "contains")):
                raise ValueError(
                    "The 'lmos' parameter of ProductLMO must hold LMOs (callable, "
                    f"with contains and n_features); entry {k} is {lmo!r}."
                )
            n_features = lmo.n_features
            if n_features is None:
                raise ValueError(
                    f"The 'lmos' parameter of ProductLMO: entry {k} ({lmo!r}) has "
                    "no dimension; pass n_features=... to it."
                )
            sizes.append(int(n_features))
        return tuple(sizes)

    def _blocks(self):
        sizes = self._sizes()
        ends = np.cumsum(sizes)
        return [slice(end - size, end) for size, end in zip(sizes, ends)]

    @property
    def n_features(self):
        """Dimension, the sum of the factors' dimensions."""
        return int(sum(self._sizes()))

    @property
    def radius(self):
        """Radius R = sqrt(sum_k R_k**2) (exact when every R_k is)."""
        self._ensure_params()
        return math.sqrt(sum(lmo.radius**2 for lmo in self.lmos))

    @property
    def contains_origin(self):
        """Whether the origin belongs to every factor."""
        self._ensure_params()
        return all(lmo.contains_origin for lmo in self.lmos)

    def _lmo(self, grad):
        answers = [lmo(grad[block]) for lmo, block in zip(self.lmos, self._blocks())]
        vertex = np.concatenate(
            [np.asarray(a.vertex, dtype=np.float64) for a in answers]
        )
        scored = [a.n_scored for a in answers]
        n_scored = -1 if min(scored) < 0 else int(sum(scored))
        return LMOResult(vertex, -1, n_scored)

    def _contains(self, x, tol):
        return all(
            lmo.contains(x[block], tol=tol)
            for lmo, block in zip(self.lmos, self._blocks())
        )

    @available_if(_factors_project)
    def project(self, y):
        """Euclidean projection onto the product: project every block.

        Only available when every factor has a ``project`` method.

        Parameters
        ----------
        y : array-like of shape (n_features,)
            The point to project.

        Returns
        -------
        x : ndarray of shape (n_features,)
            The concatenation of the factors' projections, a new float64
            array.
        """
        y = self._validated_point(y)
        return np.concatenate(
            [
                np.asarray(lmo.project(y[block]), dtype=np.float64)
                for lmo, block in zip(self.lmos, self._blocks())
            ]
        )
