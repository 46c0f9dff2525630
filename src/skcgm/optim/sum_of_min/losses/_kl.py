"""The generalized Kullback-Leibler loss of the sum-of-minimum engine."""

import warnings
from numbers import Real

import numpy as np
import scipy.sparse as sp
from scipy.special import kl_div, xlogy

from ....utils._blocks import row_blocks
from ._base import (
    SumOfMinLoss,
    _group_means,
    _group_method_doc,
    _group_sums,
    dense_rows,
)

__all__ = ["KLDivergenceLoss"]


class KLDivergenceLoss(SumOfMinLoss):
    """Generalized Kullback-Leibler divergence of a sample to a center.

    The generalized I-divergence, the Bregman divergence of
    :math:`h(x) = \\sum_l x_l \\log x_l` with the sample first,

    .. math::

        f_i(x) = d_h(y_i, x) = \\sum_{l=1}^d y_{il} \\log \\frac{y_{il}}{x_l}
        - y_{il} + x_l, \\qquad 0 \\log 0 = 0,

    are the sub-functions of the sum-of-minimum problem (eq. 1.1). The paper
    writes a Bregman divergence :math:`d(x_j, y_i)` with the center first
    (section 1); the center is second here, as in Banerjee et al. (2005),
    whom the paper cites for Bregman clustering. With the center first, a
    single zero :math:`y_{il}` makes the loss infinite at every center with
    :math:`x_l > 0` and the group minimizer, a geometric mean, collapses to
    zero in that coordinate, so count data with zeros cannot be clustered.
    With the center second, the minimizer of a group objective
    :math:`\\sum_{i \\in C} w_i f_i(x)` is the weighted mean of the group, as
    for every Bregman divergence (Banerjee et al., Proposition 1).

    **Domain.** The data must be non-negative; zeros are allowed and a
    coordinate with :math:`y_{il} = 0` contributes :math:`x_l`. A center gives
    a finite loss to :math:`y_i` exactly when :math:`x_l > 0` wherever
    :math:`y_{il} > 0` (and :math:`x \\ge 0`); otherwise the loss is
    :math:`+\\infty`. So that every center gives a finite loss to every
    non-negative sample, the parameters live in the box

    .. math::

        x_l \\ge \\varepsilon, \\qquad
        \\varepsilon = \\texttt{relative\\_floor} \\cdot
        \\frac{1}{N d} \\sum_{i, l} y_{il}

    (:math:`\\varepsilon = \\texttt{relative\\_floor}` for all-zero data),
    and every oracle is exact over it. The group objective is separable and
    convex in each coordinate, so its minimizer over the box is the clipped
    weighted mean :math:`\\max(\\sum_{i \\in C} w_i y_i / \\sum_{i \\in C} w_i,
    \\varepsilon)`, and the per-sample minimizer and minimum are

    .. math::

        x_i^* = \\max(y_i, \\varepsilon), \\qquad
        f_i^* = \\sum_{l : y_{il} < \\varepsilon} y_{il} \\log
        \\frac{y_{il}}{\\varepsilon} - y_{il} + \\varepsilon,

    so :math:`f_i^* = 0` unless :math:`y_i` has a coordinate below
    :math:`\\varepsilon`. Seeds (Algorithm 1), group minimizers (the
    parameter of an empty group is clipped too) and random parameters all
    lie in the box. Parameters given by the user may not: a loss that is
    infinite because of them raises a :class:`RuntimeWarning`.

    The gradient :math:`1 - y_i / x` is not Lipschitz near zero, so this
    family supports ``init_score='gap'`` with ``solver='exact'`` only.

    Parameters
    ----------
    relative_floor : float, default=1e-2
        Lower bound of every center coordinate, relative to the mean entry of
        the data, in the open interval (0, 1). A smaller floor biases centers
        less but makes a center with a coordinate at the floor a trap that
        only samples with a zero there can enter, so Lloyd's iterations can
        stop in worse local minima.

    Attributes
    ----------
    floor : float
        The bound :math:`\\varepsilon`, set by :meth:`bind`.

    See Also
    --------
    SquaredEuclideanLoss : The k-means loss.
    skcgm.cluster.SumOfMinKMeans : The estimator using these losses.

    References
    ----------
    A. Banerjee, S. Merugu, I. S. Dhillon and J. Ghosh, "Clustering with
    Bregman divergences", Journal of Machine Learning Research 6, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import KLDivergenceLoss
    >>> loss = KLDivergenceLoss().bind(np.array([[0.0, 4.0], [2.0, 2.0]]))
    >>> statistics = loss.group_statistics(np.ones((1, 2)))
    >>> center = loss.group_minimizer(np.ones((1, 2)), statistics, np.array([2.0]))
    >>> center
    array([[1., 3.]])
    >>> loss.loss_matrix(center).round(4)
    array([[1.1507],
           [0.5754]])
    """

    has_lipschitz_gradient = False

    def __init__(self, relative_floor=1e-2):
        self.relative_floor = relative_floor

    def _set_data(self, X, y):
        relative_floor = self.relative_floor
        if not (isinstance(relative_floor, Real) and 0 < relative_floor < 1):
            raise ValueError(
                "relative_floor must be a float in the open interval (0, 1); "
                f"got {relative_floor!r}."
            )
        values = X.data if sp.issparse(X) else X
        if np.any(values < 0):
            raise ValueError(
                "X has negative values; loss='kl' (the generalized "
                "Kullback-Leibler divergence) accepts non-negative data only."
            )
        self.X = X
        self.n_samples, self.n_features = X.shape
        mean = float(values.sum()) / max(X.shape[0] * X.shape[1], 1)
        self.floor = float(relative_floor) * (mean if mean > 0 else 1.0)
        # h(y) - sum_l y_l: the part of f_i that does not depend on the center.
        if sp.issparse(X):
            entropy = X.copy()
            entropy.data = xlogy(entropy.data, entropy.data) - entropy.data
            self._row_entropy = np.asarray(entropy.sum(axis=1)).ravel()
        else:
            self._row_entropy = (xlogy(X, X) - X).sum(axis=1)
        self._min_values = None

    def param_shape(self):
        return (self.n_features,)

    def loss_matrix(self, params, rows=slice(None)):
        # h(y) - sum y  -  <y, log x>  +  sum x: one product per block.
        interior = params > 0
        log_params = np.log(params, where=interior, out=np.zeros_like(params))
        losses = np.asarray(self.X[rows] @ log_params.T)
        losses *= -1
        losses += params.sum(axis=1)
        losses += self._row_entropy[rows][:, None]
        np.maximum(losses, 0, out=losses)
        if not interior.all():
            # Only parameters not made by the engine get here (given inits).
            boundary = (~interior).astype(losses.dtype)
            positive = (self.X[rows] > 0).astype(losses.dtype)
            losses[np.asarray(positive @ boundary.T) > 0] = np.inf
            losses[:, (params < 0).any(axis=1)] = np.inf
            _warn_infinite(losses)
        return losses

    def loss_vector(self, param):
        out = np.empty(self.n_samples, dtype=self.X.dtype)
        for rows in row_blocks(self.n_samples, self.n_features):
            out[rows] = kl_div(dense_rows(self.X, rows), param).sum(axis=1)
        if not np.all(param > 0):
            _warn_infinite(out)
        return out

    def sample_min_values(self):
        if self._min_values is None:
            # Summed exactly as loss_vector sums, so that a sample's gap at its
            # own minimizer is exactly zero and the seeding never redraws it.
            self._min_values = np.empty(self.n_samples, dtype=self.X.dtype)
            for rows in row_blocks(self.n_samples, self.n_features):
                block = dense_rows(self.X, rows)
                self._min_values[rows] = kl_div(
                    block, np.maximum(block, self.floor)
                ).sum(axis=1)
        return self._min_values

    def sample_minimizers(self, indices, random_state):
        return np.maximum(dense_rows(self.X, np.asarray(indices)), self.floor)

    def random_params(self, n_params, random_state, dtype):
        # Log-normal: the paper's Gaussian in log space, clipped into the box.
        normal = random_state.standard_normal((n_params, self.n_features))
        return np.maximum(np.exp(normal), self.floor).astype(dtype, copy=False)

    def group_statistics(self, membership, rows=slice(None)):
        return _group_sums(membership, self.X[rows])

    def group_minimizer(self, params, statistics, counts):
        return np.maximum(_group_means(params, statistics, counts), self.floor)

    group_minimizer.__doc__ = _group_method_doc(
        """Compute the minimizers of the group objectives over the box.

        The weighted mean of every group clipped at :attr:`floor`; a group of
        zero weight keeps its parameter, clipped at :attr:`floor` too.
        """,
        """
        minimizers : ndarray of shape (n_params, n_features)
            The new parameters, every coordinate at least :attr:`floor`.
        """,
    )


def _warn_infinite(losses):
    """Warn when a parameter outside the domain gives an infinite loss."""
    if np.isinf(losses).any():
        warnings.warn(
            "loss='kl' is infinite for some samples: a center has a zero or "
            "negative coordinate where a sample is positive. Centers computed "
            "by the solver are at least the loss's floor; given initial "
            "centers may not be.",
            RuntimeWarning,
            stacklevel=3,
        )
