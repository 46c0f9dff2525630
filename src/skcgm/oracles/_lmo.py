"""Linear minimization oracles (LMOs): the protocol and the first three sets.

An LMO over a compact convex set :math:`\\mathcal{C}` returns a vertex

.. math::

    s = \\operatorname{argmin}_{s \\in \\mathcal{C}} \\langle g, s \\rangle

for a direction :math:`g` (the sign convention of ARCHITECTURE.md: a
minimizer; call ``lmo(-g)`` for the maximizer). The paper of POBGA counts
these calls as its computational cost ("linear optimization steps", Table
1). Every LMO here is a small picklable object holding
hyper-parameters only; an index built over data (the atoms of
:class:`ConvexHullLMO`) is built once in ``fit``.

The protocol, shared by every oracle (a subclass of :class:`_BaseLMO`):

- ``lmo(grad)`` returns an :class:`LMOResult` ``(vertex, index, n_scored)``:
  the vertex (a new array of shape ``(n_features,)``; matrix sets are
  flattened row-major), a compact integer id of it among the vertices of the
  set (which a Frank-Wolfe driver uses to keep convex weights on vertices),
  -1 when the set has no such numbering, and the number of candidates scored
  (``n_features`` for coordinate rules, -1 when meaningless, e.g. an LP);
- ``n_calls_`` counts the calls since construction or ``reset_counter()``;
- ``radius`` is :math:`R = \\max_{x \\in \\mathcal{C}} \\|x\\|_2` (exact, or a
  documented upper bound: Assumption A1 of the paper), ``n_features`` the
  dimension (None for a dimension-free set), ``contains(x, tol)`` tests
  membership, ``contains_origin`` tells whether :math:`0 \\in \\mathcal{C}`;
- ``project(y)``, the Euclidean projection, exists only on the sets that
  have a cheap exact one (the subclasses of :class:`_ProjectionLMO`, and a
  product of such sets).

Vertices are float64, except that the closed-form coordinate oracles keep a
float32 direction's dtype (and :class:`ConvexHullLMO` the dtype of its
atoms).
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import copy
from abc import ABC, abstractmethod
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy.optimize import linprog
from sklearn.utils.validation import check_is_fitted

from ..utils._params import ParamsMixin, StrictInterval
from ..utils._sklearn_compat import HasMethods, validate_parameter_constraints
from ..utils._validation import check_atoms, check_vector

__all__ = [
    "ConvexHullLMO",
    "L1BallLMO",
    "LMOResult",
    "N_FEATURES",
    "POSITIVE",
    "SimplexLMO",
    "bound_array",
    "validated_radius",
]


class LMOResult(NamedTuple):
    """Answer of a linear minimization oracle.

    A named tuple, so ``vertex, index, n_scored = lmo(g)`` works.

    Parameters
    ----------
    vertex : ndarray of shape (n_features,)
        A minimizer :math:`s \\in \\operatorname{argmin}_{s \\in \\mathcal{C}}
        \\langle g, s \\rangle`, a vertex of the set (a new array).
    index : int
        Index of ``vertex`` among the vertices of the set (see each oracle
        for the numbering), or -1 when the set has no compact numbering.
    n_scored : int
        Number of candidates (coordinates or atoms) whose score was
        computed, or -1 when meaningless (a linear program, an SVD).

    See Also
    --------
    SimplexLMO, L1BallLMO, ConvexHullLMO : Oracles that return it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import SimplexLMO
    >>> vertex, index, n_scored = SimplexLMO()(np.array([0.5, -1.0]))
    >>> vertex, index, n_scored
    (array([0., 1.]), 1, 2)
    """

    vertex: np.ndarray
    index: int
    n_scored: int


# Vertex ids are kept below 2**63 so that they fit in an intp array (the
# active set of a Frank-Wolfe driver); larger numberings give -1.
_MAX_INDEX_BITS = 62


# --------------------------------------------------------------------------
# Constraints and validation helpers, shared by the modules of the LMO library.

# The n_features parameter of the oracles: a dimension, or None (any).
N_FEATURES = [StrictInterval(Integral, 1, None, closed="left"), None]
# A positive real (a radius, a bound).
POSITIVE = [StrictInterval(Real, 0, None, closed="neither")]
# The tol argument of contains.
_TOL = {"tol": [StrictInterval(Real, 0, None, closed="left")]}


def bound_array(owner, name, value):
    """A bound given as a real or an array: a float64 scalar or 1-D array.

    The parameter's constraint has checked its type (a finite real, or an
    array-like); the entries of an array are checked here.
    """
    if isinstance(value, Real):  # finite: the constraint checked it
        return np.float64(value)
    array = np.asarray(value)
    label = f"The '{name}' parameter of {owner}"
    if array.ndim == 0:
        return check_vector(array.reshape(1), label)[0]
    return check_vector(array, label, copy=True)


def _bitmask_index(mask):
    """``sum_i 2**i`` over the set entries of ``mask``, or -1 past 62 bits."""
    if mask.shape[0] > _MAX_INDEX_BITS:
        return -1
    return int(np.left_shift(np.int64(1), np.flatnonzero(mask)).sum())


def _unit_direction(grad):
    """``grad / max_i |g_i|``, or ``grad`` itself when it is zero.

    The minimizers of :math:`\\langle g, s \\rangle` do not change when
    :math:`g` is scaled by a positive number; the oracles that call a solver
    (a linear program, an SVD, an assignment) or form products pass it the
    scaled direction, whose entries are at most 1 in absolute value, so that
    the solver's absolute tolerances apply to costs of a fixed scale and no
    product overflows.
    """
    scale = np.abs(grad).max()
    return grad if scale == 0 else grad / scale


def validated_radius(lmo):
    """The ``radius`` parameter as a float, in a method that validated it."""
    return float(lmo.__dict__["radius"])


def _validated_n_features(lmo):
    """The ``n_features`` parameter, in a method that validated it."""
    value = lmo.__dict__["n_features"]
    return None if value is None else int(value)


def _radius_property(doc):
    """A ``radius`` hyper-parameter read back validated as a float.

    The raw value lives in ``__dict__`` so that ``get_params`` returns it
    unchanged (as :func:`sklearn.base.clone` requires); reading it validates
    every hyper-parameter (``_validate_params`` checks ``radius``), once per
    parameter change (:meth:`~skcgm.utils._params.ParamsMixin._ensure_params`).
    """

    def fget(self):
        self._ensure_params()
        return validated_radius(self)

    def fset(self, value):
        self.__dict__["radius"] = value

    return property(fget, fset, doc=doc)


def _n_features_property():
    """An ``n_features`` hyper-parameter read back validated."""

    def fget(self):
        self._ensure_params()
        return _validated_n_features(self)

    def fset(self, value):
        self.__dict__["n_features"] = value

    return property(
        fget,
        fset,
        doc="Dimension of the set, or None (dimension-free) when not given.",
    )


# --------------------------------------------------------------------------
# Exact Euclidean projections with a closed form.


def _project_simplex(y, radius):
    """Projection onto :math:`\\{x \\ge 0, \\sum_i x_i = r\\}` by sorting.

    Held, Wolfe and Crowder (1974); Duchi et al. (2008), Figure 1:
    :math:`x = \\max(y - \\theta, 0)` with the threshold :math:`\\theta` read
    off the sorted entries, in :math:`O(n \\log n)`.
    """
    # The projection commutes with shifts along the all-ones vector: working
    # on y - max(y) keeps the entries that matter within r of 0, where the
    # sums below are exact to round-off relative to r (on y itself, y_i ~
    # 1e17 absorbed r = 1). The threshold is then at least -r (the largest
    # entry gets at most r), so entries below -r give 0 and are clipped
    # there; the subtraction can only overflow for them.
    with np.errstate(over="ignore"):
        shifted = np.maximum(y - y.max(), -radius)
    u = np.sort(shifted)[::-1]
    css = np.cumsum(u) - radius
    k = np.arange(1, y.shape[0] + 1)
    positive = np.flatnonzero(u - css / k > 0)
    # The first entry is positive in exact arithmetic (it equals r > 0).
    rho = positive[-1] if positive.shape[0] else 0
    theta = css[rho] / (rho + 1)
    return np.maximum(shifted - theta, 0.0)


def _project_capped_simplex(y, radius):
    """Projection onto :math:`\\{x \\ge 0, \\sum_i x_i \\le r\\}`.

    Either the sum constraint is slack at the projection onto the orthant,
    :math:`\\max(y, 0)`, or it is active and the answer is the simplex
    projection (KKT conditions).
    """
    x = np.maximum(y, 0.0)
    # Comparing the largest entry first keeps the sum in range.
    if x.max() <= radius and x.sum() <= radius:
        return x
    return _project_simplex(y, radius)


def _project_l1_ball(y, radius):
    """Projection onto the l1 ball (Duchi et al. 2008, section 4)."""
    absolute = np.abs(y)
    # Comparing the largest entry first keeps the sum in range.
    if absolute.max() <= radius and absolute.sum() <= radius:
        return y.copy()
    # + 0.0 turns the -0.0 of sign(y) * 0 into 0.0.
    return np.sign(y) * _project_simplex(absolute, radius) + 0.0


# --------------------------------------------------------------------------
# The protocol.


class _BaseLMO(ParamsMixin, ABC):
    """Base class of the linear minimization oracles: the shared protocol.

    A subclass stores its hyper-parameters in ``__init__`` (``get_params``,
    ``set_params``, clone and repr follow its signature, as for scikit-learn's
    estimators) and declares their ``_parameter_constraints``, which
    ``_validate_params`` checks, with the rules between parameters that no
    constraint expresses (``lower <= upper``); every public method calls
    ``_ensure_params``, which validates once per parameter change, so that a
    bad value raises a ValueError naming it before any work. It implements
    ``_lmo(grad)`` on a validated direction,
    ``_contains(x, tol)``, and the properties ``radius`` and ``n_features``;
    it overrides ``contains_origin`` (True by default) when the origin may be
    outside the set. ``__call__`` counts the calls in ``n_calls_``.
    """

    # Whether a float32 direction gives a float32 vertex (closed-form rules).
    _keeps_float32 = False

    # -- the call counter --------------------------------------------------

    @property
    def n_calls_(self):
        """Number of LMO calls since construction or the last ``reset_counter``."""
        return self.__dict__.get("_n_calls", 0)

    def reset_counter(self):
        """Set the call counter ``n_calls_`` back to 0.

        Returns
        -------
        self : object
            This oracle.
        """
        self._n_calls = 0
        return self

    # -- the protocol ------------------------------------------------------

    def __call__(self, grad):
        """Return a vertex of the set minimizing :math:`\\langle g, s \\rangle`.

        Parameters
        ----------
        grad : array-like of shape (n_features,)
            The direction :math:`g`, finite.

        Returns
        -------
        result : LMOResult
            The vertex, its index (see the class docstring) and the number of
            candidates scored.
        """
        self._ensure_params()
        grad = check_vector(
            grad,
            "grad",
            self._dimension(),
            owner=type(self).__name__,
            keep_float32=self._keeps_float32,
        )
        result = self._lmo(grad)
        # Only successful calls count.
        self._n_calls = self.n_calls_ + 1
        return result

    def contains(self, x, tol=1e-9):
        """Tell whether a point belongs to the set, up to a tolerance.

        Parameters
        ----------
        x : array-like of shape (n_features,)
            The point. A point with a NaN entry belongs to no set.
        tol : float, default=1e-9
            Absolute slack granted to every defining inequality of the set
            (see the class docstring), e.g. :math:`x_i \\ge -\\text{tol}`.

        Returns
        -------
        inside : bool
            Whether ``x`` satisfies the constraints of the set up to ``tol``.
        """
        self._ensure_params()
        owner = type(self).__name__
        validate_parameter_constraints(
            _TOL, {"tol": tol}, caller_name=f"{owner}.contains"
        )
        x = check_vector(x, "x", self._dimension(), owner=owner, finite=False)
        if not np.isfinite(x).all():
            return False
        return bool(self._contains(x, float(tol)))

    def _validated_point(self, y):
        """The point to project, validated (float64, a copy when converted)."""
        self._ensure_params()
        return check_vector(y, "y", self._dimension(), owner=type(self).__name__)

    def _dimension(self):
        """``n_features``, in a method that validated the parameters."""
        return self.n_features

    @abstractmethod
    def _lmo(self, grad):
        """The LMO on a validated direction."""

    @abstractmethod
    def _contains(self, x, tol):
        """Membership of a validated finite point."""

    @property
    @abstractmethod
    def radius(self):
        """Radius :math:`R = \\max_{x \\in \\mathcal{C}} \\|x\\|_2` (or a bound)."""

    @property
    @abstractmethod
    def n_features(self):
        """Dimension of the set, or None for a dimension-free set."""

    @property
    def contains_origin(self):
        """Whether the origin belongs to the set (the default: always)."""
        self._ensure_params()
        return True


class _ProjectionLMO(_BaseLMO):
    """An oracle whose set has a cheap exact Euclidean projection ``project``.

    A subclass implements ``_project(y)`` on a validated point. The sets
    without such a projection derive from :class:`_BaseLMO` directly, so
    that ``hasattr(lmo, "project")`` tells the oracles that have one.
    """

    def project(self, y):
        """Euclidean projection onto the set (see the class's Notes).

        Parameters
        ----------
        y : array-like of shape (n_features,)
            The point to project.

        Returns
        -------
        x : ndarray of shape (n_features,)
            :math:`\\operatorname{argmin}_{x \\in \\mathcal{C}} \\|x - y\\|_2`
            (up to round-off where there is no closed form), a new float64
            array.
        """
        return self._project(self._validated_point(y))

    @abstractmethod
    def _project(self, y):
        """The projection of a validated point."""


class _NFeaturesLMO(_ProjectionLMO):
    """A closed-form oracle whose dimension is its ``n_features`` parameter.

    ``n_features`` is a hyper-parameter, None for any dimension, read back
    validated; a float32 direction gives a float32 vertex.
    """

    _keeps_float32 = True
    n_features = _n_features_property()
    _dimension = _validated_n_features


class _RadiusLMO(_NFeaturesLMO):
    """An oracle with the hyper-parameters ``(radius, n_features)``.

    The sets scaled by a radius :math:`r > 0` (simplex, capped simplex, l1
    and l2 balls); a subclass defines ``radius = _radius_property(doc)``.
    """

    _parameter_constraints: dict = {"radius": POSITIVE, "n_features": N_FEATURES}

    def __init__(self, radius=1.0, n_features=None):
        self.radius = radius
        self.n_features = n_features


_SIMPLEX_RADIUS_DOC = (
    "Radius R = max ||x||_2 of the set, the ``radius`` parameter validated "
    "(the norm of a vertex r e_i)."
)


class SimplexLMO(_RadiusLMO):
    """Linear minimization oracle over the scaled probability simplex.

    The set is :math:`\\mathcal{C} = \\{x \\in \\mathbb{R}^d : x \\ge 0,
    \\sum_i x_i = r\\}` with radius :math:`r`; its vertices are
    :math:`r e_i`, and the minimizer of :math:`\\langle g, s \\rangle` is

    .. math::

        s = r e_{i^*}, \\qquad i^* = \\operatorname{argmin}_i g_i

    (ties to the lowest index; ``index`` is :math:`i^*`, ``n_scored`` is
    ``n_features``). :math:`R = r`, and the origin is not in the set.

    Parameters
    ----------
    radius : float, default=1.0
        The sum :math:`r > 0` of the coordinates of every point of the set.
    n_features : int or None, default=None
        The dimension :math:`d`; None accepts any dimension.

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    CappedSimplexLMO : The oracle over :math:`\\{x \\ge 0, \\sum x \\le r\\}`.
    L1BallLMO : The oracle over the l1 ball.
    ConvexHullLMO : The oracle over the convex hull of given atoms.

    Notes
    -----
    ``contains`` tests :math:`x_i \\ge -\\text{tol}` and
    :math:`|\\sum_i x_i - r| \\le \\text{tol}`. ``project`` is the sort-based
    simplex projection (Held, Wolfe and Crowder 1974; Duchi et al. 2008),
    :math:`O(d \\log d)`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import SimplexLMO
    >>> lmo = SimplexLMO(radius=2.0)
    >>> lmo(np.array([3.0, -1.0, 0.0])).vertex
    array([0., 2., 0.])
    >>> lmo.project(np.array([3.0, 0.0, 0.0]))
    array([2., 0., 0.])
    >>> lmo.n_calls_
    1
    """

    radius = _radius_property(_SIMPLEX_RADIUS_DOC)

    def _lmo(self, grad):
        index = int(np.argmin(grad))
        vertex = np.zeros_like(grad)
        vertex[index] = validated_radius(self)
        return LMOResult(vertex, index, grad.shape[0])

    def _contains(self, x, tol):
        # The largest entry is compared first, so that the sum stays in range.
        radius = validated_radius(self)
        return (
            (x >= -tol).all()
            and x.max() <= radius + tol
            and abs(x.sum() - radius) <= tol
        )

    @property
    def contains_origin(self):
        """Whether the origin belongs to the set: never, as r > 0."""
        return False

    def _project(self, y):
        return _project_simplex(y, validated_radius(self))


class L1BallLMO(_RadiusLMO):
    """Linear minimization oracle over the l1 ball.

    The set is :math:`\\mathcal{C} = \\{x : \\|x\\|_1 \\le r\\}`; its
    vertices are :math:`\\pm r e_i`, and the minimizer of
    :math:`\\langle g, s \\rangle` is

    .. math::

        s = -r\\,\\operatorname{sign}(g_{i^*}) e_{i^*}, \\qquad
        i^* = \\operatorname{argmax}_i |g_i|

    (ties to the lowest index; a zero direction gives :math:`-r e_0`).
    ``index`` is :math:`i` for :math:`+r e_i` and ``n_features + i`` for
    :math:`-r e_i`; ``n_scored`` is ``n_features``. :math:`R = r`.

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
    SimplexLMO : The oracle over the scaled simplex.
    L2BallLMO : The oracle over the l2 ball.
    ConvexHullLMO : The oracle over the convex hull of given atoms.

    Notes
    -----
    ``contains`` tests :math:`\\|x\\|_1 \\le r + \\text{tol}`. ``project`` is
    the projection of Duchi, Shalev-Shwartz, Singer and Chandra (2008):
    :math:`y` itself inside the ball, else
    :math:`\\operatorname{sign}(y) \\odot P_{\\Delta_r}(|y|)` with
    :math:`P_{\\Delta_r}` the simplex projection.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import L1BallLMO
    >>> vertex, index, n_scored = L1BallLMO(radius=3.0)(np.array([1.0, -2.0]))
    >>> vertex, index
    (array([0., 3.]), 1)
    >>> L1BallLMO(radius=1.0).project(np.array([2.0, -1.0]))
    array([1., 0.])
    """

    radius = _radius_property("Radius R = max ||x||_2 of the ball, the ``radius`` r.")

    def _lmo(self, grad):
        n_features = grad.shape[0]
        i = int(np.argmax(np.abs(grad)))
        vertex = np.zeros_like(grad)
        if grad[i] < 0:
            vertex[i] = validated_radius(self)
            index = i
        else:
            vertex[i] = -validated_radius(self)
            index = n_features + i
        return LMOResult(vertex, index, n_features)

    def _contains(self, x, tol):
        # The largest entry is compared first, so that the sum stays in range.
        absolute, bound = np.abs(x), validated_radius(self) + tol
        return absolute.max() <= bound and absolute.sum() <= bound

    def _project(self, y):
        return _project_l1_ball(y, validated_radius(self))


def _chunked_argmin(atoms, grad, chunk_size):
    """``argmin_i <a_i, g>`` by blocks of rows (ties to the lowest index)."""
    best_index, best_score = 0, np.inf
    for start in range(0, atoms.shape[0], chunk_size):
        scores = atoms[start : start + chunk_size] @ grad
        i = int(np.argmin(scores))
        if scores[i] < best_score:
            best_index, best_score = start + i, scores[i]
    return best_index


class ConvexHullLMO(_BaseLMO):
    """Linear minimization oracle over the convex hull of finitely many atoms.

    For atoms :math:`S = \\{a_1, \\dots, a_n\\}` the minimizer of
    :math:`\\langle g, s \\rangle` over :math:`\\mathcal{B}(S)` is an atom,

    .. math::

        s = a_{i^*}, \\qquad i^* = \\operatorname{argmin}_i \\langle g, a_i
        \\rangle = \\operatorname{argmax}_i \\langle -g, a_i \\rangle,

    the Frank-Wolfe direction search of Problem C.1 of the MaxIP paper, a
    maximum-inner-product search over the atoms. ``fit`` builds the search
    index once; every call then issues one query ``mips.query(-g)``.
    ``index`` is the row of the atom, ``n_scored`` the number of atoms
    scored. :math:`R = \\max_i \\|a_i\\|_2` exactly (a convex function is
    maximal at an atom).

    Parameters
    ----------
    mips : object or None, default=None
        An unfitted maximum-inner-product index with ``fit(atoms)`` and
        ``query(q) -> (index, score, n_scored)`` returning
        :math:`\\operatorname{argmax}_i \\langle q, a_i \\rangle` (such as
        ``ExactMIPS`` or ``LSHMIPS`` of :mod:`skcgm.oracles`). A copy is
        fitted; the given object is left untouched. None means an exact,
        chunked BLAS scan over all atoms (Algorithm 1 of the paper); an
        approximate index gives Algorithm 2.
    chunk_size : int, default=65536
        Number of atoms scored per matrix-vector product by the exact scan
        (bounds the scratch memory); unused with a ``mips`` index.

    Attributes
    ----------
    atoms_ : ndarray of shape (n_atoms, n_features)
        The atoms, the vertices of the set (numbered by their row).
    n_atoms_ : int
        Number of atoms.
    mips_ : object or None
        The fitted copy of ``mips``.
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    SimplexLMO : The oracle over the scaled simplex.
    L1BallLMO : The oracle over the l1 ball.

    Notes
    -----
    ``contains`` solves the linear program
    :math:`\\min_{w \\in \\Delta, t} t` subject to
    :math:`\\|\\sum_i w_i a_i - x\\|_\\infty \\le t` with
    ``scipy.optimize.linprog(method="highs")`` and tests
    :math:`t^* \\le \\text{tol}`; it costs one LP over ``n_atoms`` weights.
    There is no ``project``: no cheap exact projection onto a hull exists.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import ConvexHullLMO
    >>> atoms = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> lmo = ConvexHullLMO().fit(atoms)
    >>> vertex, index, n_scored = lmo(np.array([-1.0, 0.5]))
    >>> vertex, index, n_scored
    (array([1., 0.]), 1, 3)
    >>> lmo.contains(np.array([0.5, 0.5])), lmo.radius
    (True, 1.0)
    """

    _parameter_constraints: dict = {
        "mips": [HasMethods(["fit", "query"]), None],
        "chunk_size": [StrictInterval(Integral, 1, None, closed="left")],
    }
    _keeps_float32 = True

    def __init__(self, mips=None, chunk_size=65536):
        self.mips = mips
        self.chunk_size = chunk_size

    def fit(self, atoms):
        """Store the atoms and build the search index over them.

        Parameters
        ----------
        atoms : array-like of shape (n_atoms, n_features)
            The points whose convex hull is the feasible set.

        Returns
        -------
        self : ConvexHullLMO
            The fitted oracle.
        """
        # The constraints only: the oracle is not fitted yet.
        super()._validate_params()
        self.atoms_ = check_atoms(atoms)
        self.n_atoms_ = self.atoms_.shape[0]
        self.mips_ = (
            None if self.mips is None else copy.deepcopy(self.mips).fit(self.atoms_)
        )
        return self

    def _validate_params(self):
        super()._validate_params()
        check_is_fitted(
            self,
            "atoms_",
            msg="This %(name)s instance is not fitted yet. Call 'fit' with the "
            "atoms before using it.",
        )

    def _lmo(self, grad):
        grad = _unit_direction(grad)
        if self.mips_ is None:
            index = _chunked_argmin(self.atoms_, grad, self.chunk_size)
            n_scored = self.n_atoms_
        else:
            index, _, n_scored = self.mips_.query(-grad)
        index = int(index)
        return LMOResult(self.atoms_[index].copy(), index, int(n_scored))

    def _contains(self, x, tol):
        atoms = self.atoms_.astype(np.float64, copy=False)
        # The hull lies in the bounding box of the atoms: a point outside it
        # needs no linear program (whose data it would put out of range).
        if np.any(x < atoms.min(axis=0) - tol) or np.any(x > atoms.max(axis=0) + tol):
            return False
        n_atoms, n_features = atoms.shape
        # Variables (w, t): minimize t subject to -t <= atoms.T w - x <= t,
        # sum(w) = 1, w >= 0.
        c = np.zeros(n_atoms + 1)
        c[-1] = 1.0
        ones = np.ones((n_features, 1))
        A_ub = np.block([[atoms.T, -ones], [-atoms.T, -ones]])
        b_ub = np.concatenate([x, -x])
        A_eq = np.ones((1, n_atoms + 1))
        A_eq[0, -1] = 0.0
        res = linprog(
            c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=(0, None),
            method="highs",
        )  # fmt: skip
        return res.status == 0 and res.fun <= tol

    @property
    def radius(self):
        """Radius R = max_i ||a_i||_2 of the hull (exact); needs ``fit``."""
        self._ensure_params()
        return float(np.sqrt(np.einsum("ij,ij->i", self.atoms_, self.atoms_).max()))

    @property
    def n_features(self):
        """Dimension of the atoms, or None before ``fit``."""
        atoms = self.__dict__.get("atoms_")
        return None if atoms is None else int(atoms.shape[1])

    @property
    def contains_origin(self):
        """Whether the origin is in the hull (within ``contains``' default tol)."""
        self._ensure_params()
        return self.contains(np.zeros(self.atoms_.shape[1]))
