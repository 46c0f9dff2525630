"""Linear minimization oracle over the nuclear-norm ball of matrices.

Matrices are flattened row-major, so that every oracle of the library takes
and returns vectors; the protocol is the one of
:class:`~skcgm.oracles._lmo._BaseLMO`.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral

import numpy as np
from scipy.sparse.linalg import svds

from ._lmo import (
    POSITIVE,
    LMOResult,
    _project_capped_simplex,
    _ProjectionLMO,
    _radius_property,
    _unit_direction,
    validated_radius,
)

__all__ = ["NuclearNormBallLMO"]

# Up to this min(m, n), a dense LAPACK SVD is cheap (milliseconds) and exact
# to round-off; beyond, ARPACK's top singular pair (svds, k=1) avoids the
# cubic cost of the full decomposition.
_DENSE_SVD_MAX_DIM = 100


def _top_singular_pair(matrix):
    """Left and right singular vectors of the largest singular value."""
    if min(matrix.shape) <= _DENSE_SVD_MAX_DIM:
        u, _, vt = np.linalg.svd(matrix, full_matrices=False)
        return u[:, 0], vt[0]
    # A fixed starting vector keeps ARPACK deterministic.
    v0 = np.random.RandomState(0).standard_normal(min(matrix.shape))
    u, _, vt = svds(matrix, k=1, v0=v0)
    return u[:, 0], vt[0]


class NuclearNormBallLMO(_ProjectionLMO):
    """Linear minimization oracle over the nuclear-norm ball of matrices.

    The set is :math:`\\mathcal{C} = \\{X \\in \\mathbb{R}^{m \\times n} :
    \\|X\\|_* = \\sum_k \\sigma_k(X) \\le r\\}`, vectors being the row-major
    flattening of the matrices. Its extreme points are the rank-one matrices
    :math:`r u v^\\top` with unit :math:`u, v`; the minimizer of
    :math:`\\langle G, X \\rangle` is

    .. math::

        S = -r\\, u_1 v_1^\\top,

    with :math:`(u_1, v_1)` the top singular pair of :math:`G` (a zero
    direction gives :math:`-r e_1 e_1^\\top`). The pair comes from
    ``np.linalg.svd`` when :math:`\\min(m, n) \\le 100` and from
    ``scipy.sparse.linalg.svds(k=1)`` (ARPACK, a fixed starting vector)
    beyond, where the full SVD would cost :math:`O(m n \\min(m, n))`.
    ``index`` and ``n_scored`` are -1. :math:`R = r` (the Frobenius norm of
    a vertex).

    Parameters
    ----------
    radius : float, default=1.0
        The radius :math:`r > 0` of the ball.
    shape : tuple of int
        The shape :math:`(m, n)` of the matrices (required; ``n_features``
        is :math:`m n`).

    Attributes
    ----------
    n_calls_ : int
        Number of calls since construction or the last ``reset_counter``.

    See Also
    --------
    L1BallLMO : The l1 ball, the nuclear ball of diagonal matrices.
    L2BallLMO : The Euclidean ball.

    Notes
    -----
    ``project`` takes a full SVD :math:`Y = U \\operatorname{diag}(\\sigma)
    V^\\top` and projects the singular values onto the l1 ball:
    :math:`P(Y) = U \\operatorname{diag}(P_{\\|\\cdot\\|_1 \\le r}(\\sigma))
    V^\\top`, exact (von Neumann's trace inequality); it is the projection of
    the OBGA baseline on matrix benchmarks and costs one SVD. ``contains``
    tests :math:`\\|X\\|_* \\le r + \\text{tol}`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import NuclearNormBallLMO
    >>> lmo = NuclearNormBallLMO(radius=2.0, shape=(2, 2))
    >>> lmo(np.array([-3.0, 0.0, 0.0, 1.0])).vertex
    array([2., 0., 0., 0.])
    >>> lmo.project(np.array([3.0, 0.0, 0.0, 1.0]))
    array([2., 0., 0., 0.])
    """

    _parameter_constraints: dict = {"radius": POSITIVE, "shape": [tuple, list]}
    radius = _radius_property("Radius R = max ||X||_F of the ball, the ``radius`` r.")

    def __init__(self, radius=1.0, shape=None):
        self.radius = radius
        self.shape = shape

    def _validate_params(self):
        super()._validate_params()
        # A rule on the entries, which no constraint expresses.
        shape = self.shape
        if len(shape) != 2 or not all(
            isinstance(s, Integral) and not isinstance(s, bool) and s >= 1
            for s in shape
        ):
            raise ValueError(
                "The 'shape' parameter of NuclearNormBallLMO must be a pair (m, n) "
                f"of ints >= 1; got {shape!r}."
            )

    def _shape(self):
        """The validated ``(m, n)``."""
        return int(self.shape[0]), int(self.shape[1])

    def _dimension(self):
        m, n = self._shape()
        return m * n

    @property
    def n_features(self):
        """Dimension m * n of the flattened matrices."""
        self._ensure_params()
        return self._dimension()

    def _lmo(self, grad):
        radius = validated_radius(self)
        m, n = self._shape()
        if not grad.any():
            vertex = np.zeros(m * n)
            vertex[0] = -radius
            return LMOResult(vertex, -1, -1)
        u, v = _top_singular_pair(_unit_direction(grad).reshape(m, n))
        return LMOResult(-radius * np.outer(u, v).ravel(), -1, -1)

    def _contains(self, x, tol):
        scale = np.abs(x).max()
        if scale == 0:
            return True
        # The SVD of x / max|x_ij| stays in range; the nuclear norm overflows
        # to inf only past the float range, where inf compares right.
        singular_values = np.linalg.svd(
            (x / scale).reshape(self.shape), compute_uv=False
        )
        with np.errstate(over="ignore"):
            return scale * singular_values.sum() <= validated_radius(self) + tol

    def _project(self, y):
        m, n = self._shape()
        if self._contains(y, 0.0):
            return y.copy()
        # The SVD of Y / max|Y_ij| stays in range. The projection is
        # homogeneous, P_r(c Y) = c P_{r/c}(Y); the radius r/c can only
        # underflow to 0 when r is below the rounding error of the singular
        # values of c Y, and it cannot overflow, since Y is outside the ball.
        scale = np.abs(y).max()
        u, s, vt = np.linalg.svd((y / scale).reshape(m, n), full_matrices=False)
        with np.errstate(under="ignore"):
            radius = validated_radius(self) / scale
        # The singular values are non-negative: their l1-ball projection is
        # the capped-simplex one.
        s = _project_capped_simplex(s, radius) * scale
        return ((u * s) @ vt).ravel()
