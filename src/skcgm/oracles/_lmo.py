"""Linear minimization oracles (LMOs).

An LMO over a compact convex set :math:`\\mathcal{C}` returns a vertex

.. math::

    s = \\operatorname{argmin}_{s \\in \\mathcal{C}} \\langle g, s \\rangle

for a direction :math:`g` (the sign convention of ARCHITECTURE.md: a
minimizer; call ``lmo(-g)`` for the maximizer). Every LMO here is a small
picklable object holding hyper-parameters only; an index built over data (the
atoms of :class:`ConvexHullLMO`) is built once in ``fit``.

Every ``__call__`` returns an :class:`LMOResult` ``(vertex, index,
n_scored)``: the vertex, a compact integer index of it among the vertices of
the set (which a Frank-Wolfe driver uses to keep convex weights on vertices),
and the number of candidates scored (the cost counter of the MaxIP paper).
"""

import copy
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_array

from ..utils._sklearn_compat import HasMethods, Interval, validate_params


class LMOResult(NamedTuple):
    """Answer of a linear minimization oracle.

    A named tuple, so ``vertex, index, n_scored = lmo(g)`` works.

    Parameters
    ----------
    vertex : ndarray of shape (n_features,)
        A minimizer :math:`s \\in \\operatorname{argmin}_{s \\in \\mathcal{C}}
        \\langle g, s \\rangle`, a vertex of the set.
    index : int
        Index of ``vertex`` among the vertices of the set (see each oracle
        for the numbering).
    n_scored : int
        Number of candidates (coordinates or atoms) whose score was computed.

    See Also
    --------
    SimplexLMO, L1BallLMO, ConvexHullLMO : The oracles that return it.

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


def _check_radius(radius):
    if not (isinstance(radius, Real) and not isinstance(radius, bool) and radius > 0):
        raise ValueError(f"The radius must be a positive real number, got {radius!r}.")


def _check_direction(grad):
    grad = np.asarray(grad)
    if grad.ndim != 1:
        raise ValueError(
            f"The direction grad must be a 1-D array, got shape {grad.shape}."
        )
    if grad.dtype.kind not in "fc":
        grad = grad.astype(np.float64)
    return grad


class _BaseLMO:
    """Hyper-parameters as attributes, an informative repr."""

    _parameters = ()

    def get_params(self, deep=True):
        """Get the hyper-parameters of this oracle.

        Parameters
        ----------
        deep : bool, default=True
            Unused; present for :func:`sklearn.base.clone`.

        Returns
        -------
        params : dict
            Hyper-parameter names mapped to their values.
        """
        return {name: getattr(self, name) for name in self._parameters}

    def __repr__(self):
        args = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._parameters)
        return f"{type(self).__name__}({args})"


class SimplexLMO(_BaseLMO):
    """Linear minimization oracle over the scaled probability simplex.

    The set is :math:`\\mathcal{C} = \\{x \\in \\mathbb{R}^d : x \\ge 0,
    \\sum_i x_i = r\\}` with radius :math:`r`; its vertices are
    :math:`r e_i`, and the minimizer of :math:`\\langle g, s \\rangle` is
    :math:`r e_{i^*}` with :math:`i^* = \\operatorname{argmin}_i g_i` (ties to
    the lowest index).

    Parameters
    ----------
    radius : float, default=1.0
        The sum :math:`r > 0` of the coordinates of every point of the set.

    See Also
    --------
    L1BallLMO : The oracle over the l1 ball.
    ConvexHullLMO : The oracle over the convex hull of given atoms.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import SimplexLMO
    >>> lmo = SimplexLMO(radius=2.0)
    >>> lmo(np.array([3.0, -1.0, 0.0])).vertex
    array([0., 2., 0.])
    """

    _parameters = ("radius",)

    def __init__(self, radius=1.0):
        self.radius = radius

    def __call__(self, grad):
        """Return the vertex of the simplex minimizing a linear function.

        Parameters
        ----------
        grad : array-like of shape (n_features,)
            The direction :math:`g`.

        Returns
        -------
        result : LMOResult
            ``vertex`` is :math:`r e_i` (dtype of ``grad``), ``index`` is
            :math:`i` in ``[0, n_features)``, ``n_scored`` is ``n_features``.
        """
        _check_radius(self.radius)
        grad = _check_direction(grad)
        index = int(np.argmin(grad))
        vertex = np.zeros_like(grad)
        vertex[index] = self.radius
        return LMOResult(vertex, index, grad.shape[0])


class L1BallLMO(_BaseLMO):
    """Linear minimization oracle over the l1 ball.

    The set is :math:`\\mathcal{C} = \\{x : \\|x\\|_1 \\le r\\}`; its
    vertices are :math:`\\pm r e_i`, and the minimizer of
    :math:`\\langle g, s \\rangle` is :math:`-r\\,\\operatorname{sign}(g_{i^*})
    e_{i^*}` with :math:`i^* = \\operatorname{argmax}_i |g_i|` (ties to the
    lowest index; a zero direction gives :math:`-r e_0`).

    Parameters
    ----------
    radius : float, default=1.0
        The radius :math:`r > 0` of the ball.

    See Also
    --------
    SimplexLMO : The oracle over the scaled simplex.
    ConvexHullLMO : The oracle over the convex hull of given atoms.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import L1BallLMO
    >>> vertex, index, n_scored = L1BallLMO(radius=3.0)(np.array([1.0, -2.0]))
    >>> vertex, index
    (array([0., 3.]), 1)
    """

    _parameters = ("radius",)

    def __init__(self, radius=1.0):
        self.radius = radius

    def __call__(self, grad):
        """Return the vertex of the l1 ball minimizing a linear function.

        Parameters
        ----------
        grad : array-like of shape (n_features,)
            The direction :math:`g`.

        Returns
        -------
        result : LMOResult
            ``vertex`` is :math:`\\pm r e_i` (dtype of ``grad``); ``index`` is
            :math:`i` for :math:`+r e_i` and ``n_features + i`` for
            :math:`-r e_i`; ``n_scored`` is ``n_features``.
        """
        _check_radius(self.radius)
        grad = _check_direction(grad)
        n_features = grad.shape[0]
        i = int(np.argmax(np.abs(grad)))
        vertex = np.zeros_like(grad)
        if grad[i] < 0:
            vertex[i] = self.radius
            index = i
        else:
            vertex[i] = -self.radius
            index = n_features + i
        return LMOResult(vertex, index, n_features)


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

    See Also
    --------
    SimplexLMO : The oracle over the scaled simplex.
    L1BallLMO : The oracle over the l1 ball.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import ConvexHullLMO
    >>> atoms = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> lmo = ConvexHullLMO().fit(atoms)
    >>> vertex, index, n_scored = lmo(np.array([-1.0, 0.5]))
    >>> vertex, index, n_scored
    (array([1., 0.]), 1, 3)
    """

    _parameters = ("mips", "chunk_size")

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
        _check_chunk_size(self.chunk_size)
        if self.mips is not None:
            _check_mips(self.mips)
        self.atoms_ = check_array(
            atoms, dtype=[np.float64, np.float32], ensure_min_samples=1
        )
        self.n_atoms_ = self.atoms_.shape[0]
        self.mips_ = (
            None if self.mips is None else copy.deepcopy(self.mips).fit(self.atoms_)
        )
        return self

    def __call__(self, grad):
        """Return the atom minimizing a linear function.

        Parameters
        ----------
        grad : array-like of shape (n_features,)
            The direction :math:`g`.

        Returns
        -------
        result : LMOResult
            ``vertex`` is the atom ``atoms_[index]`` (a view of a row),
            ``index`` its row in ``[0, n_atoms)``, ``n_scored`` the number of
            atoms scored (``n_atoms`` for the exact scan, fewer for an LSH
            index).
        """
        if not hasattr(self, "atoms_"):
            raise NotFittedError(
                "This ConvexHullLMO instance is not fitted yet. Call 'fit' with "
                "the atoms before using it."
            )
        grad = _check_direction(grad)
        if grad.shape[0] != self.atoms_.shape[1]:
            raise ValueError(
                f"grad has {grad.shape[0]} features, but the atoms have "
                f"{self.atoms_.shape[1]}."
            )
        if self.mips_ is None:
            index = _chunked_argmin(self.atoms_, grad, self.chunk_size)
            n_scored = self.n_atoms_
        else:
            index, _, n_scored = self.mips_.query(-grad)
        index = int(index)
        return LMOResult(self.atoms_[index], index, int(n_scored))


@validate_params(
    {"chunk_size": [Interval(Integral, 1, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def _check_chunk_size(chunk_size):
    return chunk_size


@validate_params(
    {"mips": [HasMethods(["fit", "query"])]},
    prefer_skip_nested_validation=True,
)
def _check_mips(mips):
    return mips
