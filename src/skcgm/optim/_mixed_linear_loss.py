"""The l2-regularized mixed linear regression loss of the sum-of-minimum engine."""

import numpy as np
import scipy.sparse as sp

from ..utils._blocks import row_blocks
from ._sum_of_min_losses import SumOfMinLoss


class MixedLinearLoss(SumOfMinLoss):
    """Squared residual of a linear model plus a ridge penalty, per sample.

    The sub-functions of l2-regularized mixed linear regression (section 1.3b
    of Ding, Chen, Wang and Yin; Appendix E.2), for inputs :math:`a_i` and
    targets :math:`b_i`:

    .. math::

        f_i(x) = \\tfrac{1}{2} (a_i^\\top x - b_i)^2
        + \\tfrac{\\alpha}{2} \\|x\\|^2,

    the penalty inside the minimum, once per sample, as in the paper's
    experiments. Every :math:`f_i` is :math:`\\alpha`-strongly convex with
    Hessian :math:`a_i a_i^\\top + \\alpha I`, so (Sherman-Morrison)

    .. math::

        x_i^* = \\frac{b_i a_i}{\\|a_i\\|^2 + \\alpha}, \\quad
        f_i^* = \\frac{\\alpha b_i^2}{2 (\\|a_i\\|^2 + \\alpha)}, \\quad
        \\nabla f_i(x) = (a_i^\\top x - b_i) a_i + \\alpha x, \\quad
        L = \\max_i \\|a_i\\|^2 + \\alpha.

    The group minimizer is the ridge solution of eq. (E.2),

    .. math::

        x_j = \\Big(\\sum_{i \\in C_j} w_i a_i a_i^\\top + \\alpha W_j I\\Big)^{-1}
        \\sum_{i \\in C_j} w_i b_i a_i, \\qquad W_j = \\sum_{i \\in C_j} w_i,

    with unit weights ``Ridge(alpha=alpha * len(C_j), fit_intercept=False)``
    fitted on the group.

    With ``fit_intercept=True`` a parameter is :math:`(w, c)` of shape
    ``(n_features + 1,)``, the intercept :math:`c` last and not penalized:
    :math:`f_i(w, c) = \\frac{1}{2}(a_i^\\top w + c - b_i)^2 +
    \\frac{\\alpha}{2}\\|w\\|^2`. Then :math:`x_i^* = (0, b_i)` and
    :math:`f_i^* = 0` (the intercept alone fits one sample at no cost),
    :math:`L = \\max_i \\|a_i\\|^2 + 1 + \\alpha`, and the group minimizer is
    ``Ridge(alpha=alpha * len(C_j), fit_intercept=True)``. The losses stay
    strongly convex, the Hessian :math:`(a_i, 1)(a_i, 1)^\\top +
    \\alpha \\operatorname{diag}(1, \\dots, 1, 0)` being positive definite.

    Dense data only; :meth:`bind` needs the targets ``y``.

    Parameters
    ----------
    alpha : float, default=0.01
        The penalty :math:`\\alpha > 0`, the paper's :math:`\\lambda`.
    fit_intercept : bool, default=False
        Whether every parameter carries an unpenalized intercept.

    See Also
    --------
    SquaredEuclideanLoss : The k-means loss.
    skcgm.linear_model.MixedLinearRegressor : The estimator using these losses.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import MixedLinearLoss
    >>> loss = MixedLinearLoss(alpha=1.0).bind(np.array([[1.0], [2.0]]), [1.0, 0.0])
    >>> loss.loss_matrix(np.array([[1.0], [0.0]]))
    array([[0.5, 0.5],
           [2.5, 0. ]])
    >>> loss.sample_minimizers([0], None), loss.sample_min_values()
    (array([[0.5]]), array([0.25, 0.  ]))
    """

    def __init__(self, alpha=0.01, fit_intercept=False):
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def _set_data(self, X, y):
        if sp.issparse(X):
            raise TypeError(
                "MixedLinearLoss needs dense data; sparse input is not supported."
            )
        if y is None:
            raise ValueError("MixedLinearLoss needs the targets y.")
        if not self.alpha > 0:
            raise ValueError(f"alpha must be positive, got {self.alpha!r}.")
        X = np.asarray(X)
        y = np.asarray(y, dtype=X.dtype).reshape(-1)
        if y.shape[0] != X.shape[0]:
            raise ValueError(
                f"X has {X.shape[0]} samples but y has {y.shape[0]} targets."
            )
        self.X, self.y = X, y
        self.n_samples, self.n_features = X.shape
        # The design (a_i, 1) with the intercept, and the mask of the
        # penalized coordinates: the intercept is not penalized.
        if self.fit_intercept:
            self._design = np.hstack([X, np.ones((X.shape[0], 1), dtype=X.dtype)])
        else:
            self._design = X
        self._penalized = np.ones(self._design.shape[1], dtype=X.dtype)
        self._penalized[self.n_features :] = 0
        sq_norms = np.einsum("ij,ij->i", X, X, dtype=np.float64)
        self._max_sq_norm = float(sq_norms.max()) + self.fit_intercept
        if self.fit_intercept:
            self._min_values = np.zeros(self.n_samples, dtype=X.dtype)
        else:
            # x_i* = (b_i / (||a_i||^2 + alpha)) a_i. The scale is stored so
            # that gap_vector recomputes x_i* with the very same rounding and
            # a sample's own minimizer has a gap of exactly zero.
            self._scale = (y / (sq_norms + self.alpha)).astype(X.dtype)
            self._min_values = (
                0.5 * self.alpha * y * y / (sq_norms + self.alpha)
            ).astype(X.dtype)

    def param_shape(self):
        return (self._design.shape[1],)

    def _minimizers(self, rows):
        """The minimizers :math:`x_i^*` of a block or an index array of samples."""
        if self.fit_intercept:
            targets = self.y[rows]
            minimizers = np.zeros(
                (targets.shape[0], self._design.shape[1]), self.X.dtype
            )
            minimizers[:, -1] = targets
            return minimizers
        return self._scale[rows, None] * self.X[rows]

    def _penalty(self, params):
        """The penalty :math:`\\frac{\\alpha}{2}\\|x\\|^2` of every parameter."""
        return (
            0.5 * self.alpha * np.einsum("jl,jl,l->j", params, params, self._penalized)
        )

    def loss_matrix(self, params, rows=slice(None)):
        losses = self._design[rows] @ params.T
        losses -= self.y[rows][:, None]
        np.square(losses, out=losses)
        losses *= 0.5
        losses += self._penalty(params)
        return losses

    def loss_vector(self, param):
        # The residual itself, not an expansion of its square.
        residuals = self._design @ param - self.y
        return 0.5 * residuals * residuals + self._penalty(param[None])[0]

    def gap_vector(self, param):
        # f_i(x) - f_i* = 1/2 (x - x_i*)^T H_i (x - x_i*) exactly, f_i being
        # quadratic: zero, not rounding noise, at a sample's own minimizer.
        gaps = np.empty(self.n_samples, dtype=self.X.dtype)
        for rows in row_blocks(self.n_samples, self._design.shape[1]):
            diff = param - self._minimizers(rows)
            projected = np.einsum("ij,ij->i", self._design[rows], diff)
            penalty = np.einsum("ij,ij,j->i", diff, diff, self._penalized)
            gaps[rows] = 0.5 * (projected * projected + self.alpha * penalty)
        return gaps

    def grad_sq_norm_vector(self, param):
        # grad f_i(x) = H_i (x - x_i*): exactly zero at x_i*, unlike the
        # residual form (a_i^T x - b_i) a_i + alpha x, which rounds.
        sq_norms = np.empty(self.n_samples, dtype=self.X.dtype)
        for rows in row_blocks(self.n_samples, self._design.shape[1]):
            design = self._design[rows]
            diff = param - self._minimizers(rows)
            projected = np.einsum("ij,ij->i", design, diff)
            gradients = projected[:, None] * design
            gradients += self.alpha * self._penalized * diff
            sq_norms[rows] = np.einsum("ij,ij->i", gradients, gradients)
        return sq_norms

    def sample_min_values(self):
        return self._min_values

    def sample_minimizers(self, indices, random_state):
        return self._minimizers(np.asarray(indices, dtype=np.intp))

    def random_params(self, n_params, random_state, dtype):
        # The paper's random initialization: i.i.d. standard Gaussian.
        shape = (n_params, *self.param_shape())
        return random_state.standard_normal(shape).astype(dtype, copy=False)

    def lipschitz(self):
        return self._max_sq_norm + self.alpha

    def group_statistics(self, membership, rows=slice(None)):
        """Compute the sufficient statistics of the groups over a block.

        Parameters
        ----------
        membership : {sparse matrix, ndarray} of shape (n_params, n_rows)
            The weight :math:`w_i` at ``(j, i)`` for every sample :math:`i`
            of group :math:`j`.
        rows : slice, default=slice(None)
            The samples, a contiguous block of rows of the bound data.

        Returns
        -------
        statistics : tuple of ndarray
            The weighted second moments :math:`\\sum_i w_i a_i a_i^\\top`, of
            shape ``(n_params, *param_shape, *param_shape)``, and the weighted
            cross moments :math:`\\sum_i w_i b_i a_i`, of shape ``(n_params,
            *param_shape)``, in float64 (:math:`a_i` extended by a one with
            ``fit_intercept=True``).
        """
        membership = sp.csr_matrix(membership)
        design, targets = self._design[rows], self.y[rows]
        n_params, width = membership.shape[0], design.shape[1]
        second = np.zeros((n_params, width, width))
        cross = np.zeros((n_params, width))
        # One pass over each group's rows: O(n_rows * width^2) in all.
        for j in range(n_params):
            members = slice(membership.indptr[j], membership.indptr[j + 1])
            if members.start == members.stop:
                continue
            group = design[membership.indices[members]]
            weighted = group * membership.data[members, None]
            second[j] = weighted.T @ group
            cross[j] = weighted.T @ targets[membership.indices[members]]
        return second, cross

    def _regularized(self, second, counts):
        """:math:`\\sum_i w_i a_i a_i^\\top + \\alpha W_j P` for every group."""
        penalty = self.alpha * np.diag(self._penalized.astype(np.float64))
        return second + counts[:, None, None] * penalty

    def group_minimizer(self, params, statistics, counts):
        second, cross = statistics
        filled = counts > 0
        minimizers = params.copy()
        if filled.any():
            # Solved in float64 whatever the data's dtype: a small (k, p, p)
            # system, better conditioned than its float32 rounding.
            matrices = self._regularized(second[filled], counts[filled])
            solution = np.linalg.solve(matrices, cross[filled][:, :, None])
            minimizers[filled] = solution[:, :, 0]
        return minimizers

    def group_gradient(self, params, statistics, counts):
        second, cross = statistics
        filled = counts > 0
        gradients = np.zeros(params.shape, dtype=np.float64)
        if filled.any():
            weight = counts[filled].astype(np.float64)
            matrices = self._regularized(second[filled], weight)
            products = np.einsum("jab,jb->ja", matrices, params[filled])
            gradients[filled] = (products - cross[filled]) / weight[:, None]
        return gradients.astype(params.dtype, copy=False)
