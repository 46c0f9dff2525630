"""Quadratic objectives of the online NQP benchmark (Chen et al. 2018b)."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from numbers import Real

import numpy as np

from ..utils._params import StrictInterval
from ..utils._random import as_rng
from ..utils._sklearn_compat import validate_params
from ..utils._validation import check_vector
from ._boosting import _check_quadratic

__all__ = ["QuadraticObjective"]

_NON_NEGATIVE = [StrictInterval(Real, 0, None, closed="left")]


class QuadraticObjective:
    """A quadratic reward with an unbiased, bounded stochastic gradient.

    .. math::

        f(x) = \\frac12 x^\\top H x + h^\\top x, \\qquad \\nabla f(x) = H x + h,

    with symmetric :math:`H`, so :math:`f(0) = 0` (Assumption A2). It is
    continuous DR-submodular iff every entry of :math:`H` is
    :math:`\\le 0` (Bian et al. 2017), and monotone on :math:`[0, u]` when
    moreover :math:`H u + h \\ge 0` (the gradient is smallest at :math:`u`).
    The stochastic gradient

    .. math::

        \\tilde\\nabla f(x) = \\nabla f(x) + \\delta \\frac{\\xi}{\\|\\xi\\|},
        \\qquad \\xi \\sim \\mathcal{N}(0, I),

    is unbiased and within :math:`\\delta` of the gradient almost surely, as
    Assumption A3 requires (unbounded Gaussian noise would break it).

    A plain object, not an estimator: the online learners and
    ``run_online`` only call :meth:`value`, :meth:`grad` and
    :meth:`stochastic_grad`.

    Parameters
    ----------
    H : array-like of shape (n_features, n_features)
        Symmetric matrix (copied).
    h : array-like of shape (n_features,)
        Linear term (copied).
    noise : float, default=0.0
        Norm :math:`\\delta \\ge 0` of the gradient noise.

    Attributes
    ----------
    H : ndarray of shape (n_features, n_features)
        The matrix, float64.
    h : ndarray of shape (n_features,)
        The linear term, float64.
    noise : float
        The noise norm.
    n_features : int
        Dimension.

    See Also
    --------
    skcgm.datasets.make_online_nqp : Streams of such objectives.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online._objectives import QuadraticObjective
    >>> H = -np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> f = QuadraticObjective(H, -H @ np.ones(2), noise=0.1)
    >>> f.value(np.ones(2)), f.grad(np.ones(2))
    (1.5, array([0., 0.]))
    >>> f.is_dr_submodular(), f.is_monotone_on(1.0)
    (True, True)
    >>> float(np.linalg.norm(f.stochastic_grad(np.ones(2), random_state=0)))
    0.1
    """

    @validate_params({"noise": _NON_NEGATIVE}, prefer_skip_nested_validation=True)
    def __init__(self, H, h, *, noise=0.0):
        H, h = _check_quadratic(H, h)
        self.H = H
        self.h = h
        self.noise = float(noise)
        self.n_features = H.shape[0]

    def __repr__(self):
        return (
            f"{type(self).__name__}(n_features={self.n_features}, noise={self.noise!r})"
        )

    def value(self, x):
        """Value of the objective.

        Parameters
        ----------
        x : array-like of shape (n_features,)
            The point.

        Returns
        -------
        value : float
            :math:`\\frac12 x^\\top H x + h^\\top x`.
        """
        x = check_vector(x, "x", self.n_features, allow_empty=True)
        return float(0.5 * x @ (self.H @ x) + self.h @ x)

    def grad(self, x):
        """Exact gradient.

        Parameters
        ----------
        x : array-like of shape (n_features,)
            The point.

        Returns
        -------
        gradient : ndarray of shape (n_features,)
            :math:`H x + h`.
        """
        x = check_vector(x, "x", self.n_features, allow_empty=True)
        return self.H @ x + self.h

    def stochastic_grad(self, x, random_state=None):
        """Unbiased gradient with noise of norm exactly ``noise``.

        Parameters
        ----------
        x : array-like of shape (n_features,)
            The point.
        random_state : None, int, RandomState or Generator, default=None
            The noise stream: one standard normal vector of length
            ``n_features`` is drawn per call when ``noise > 0``, nothing when
            ``noise == 0``.

        Returns
        -------
        gradient : ndarray of shape (n_features,)
            :math:`H x + h + \\delta \\xi / \\|\\xi\\|`.
        """
        gradient = self.grad(x)
        rng = as_rng(random_state)
        if self.noise > 0:
            xi = rng.standard_normal(self.n_features)
            norm = np.linalg.norm(xi)
            # A zero Gaussian vector has probability 0; the guard keeps the
            # noise bounded even then.
            if norm > 0:
                gradient += self.noise * xi / norm
        return gradient

    def is_dr_submodular(self, tol=0.0):
        """Whether the objective is DR-submodular (all :math:`H_{ij} \\le 0`).

        Parameters
        ----------
        tol : float, default=0.0
            Entries up to ``tol`` count as non-positive.

        Returns
        -------
        answer : bool
            True iff ``H.max() <= tol``.
        """
        return bool(np.max(self.H) <= tol)

    def is_monotone_on(self, upper=1.0, tol=0.0):
        """Whether a DR-submodular objective is monotone on the box :math:`[0, u]`.

        For :math:`H \\le 0` the gradient decreases coordinate-wise in
        :math:`x`, so monotonicity on :math:`[0, u]` is
        :math:`\\nabla f(u) = H u + h \\ge 0`.

        Parameters
        ----------
        upper : float or array-like of shape (n_features,), default=1.0
            The corner :math:`u \\ge 0` of the box.
        tol : float, default=0.0
            Gradient entries down to ``-tol`` count as non-negative.

        Returns
        -------
        answer : bool
            True iff the objective is DR-submodular and :math:`H u + h \\ge -tol`.
        """
        upper = np.broadcast_to(np.asarray(upper, dtype=np.float64), (self.n_features,))
        if np.any(upper < 0) or not np.all(np.isfinite(upper)):
            raise ValueError("upper must be finite and non-negative.")
        return self.is_dr_submodular(tol) and bool(np.min(self.grad(upper)) >= -tol)

    @property
    def lipschitz(self):
        """Smoothness constant :math:`L = \\|H\\|_2` (Definition 1)."""
        return float(np.linalg.norm(self.H, 2))

    @validate_params({"radius": _NON_NEGATIVE}, prefer_skip_nested_validation=True)
    def grad_bound(self, radius):
        """Bound :math:`G` on the stochastic gradient norm over a ball (Assumption A3).

        Parameters
        ----------
        radius : float
            Radius :math:`R` of a ball containing the decision set.

        Returns
        -------
        bound : float
            :math:`\\|h\\| + \\|H\\|_2 R + \\delta \\ge \\|\\tilde\\nabla f(x)\\|`
            for :math:`\\|x\\| \\le R`.
        """
        return float(np.linalg.norm(self.h) + self.lipschitz * radius + self.noise)
