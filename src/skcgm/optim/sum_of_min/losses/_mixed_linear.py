"""The l2-regularized mixed linear regression loss of the sum-of-minimum engine."""

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ....utils._blocks import row_blocks
from ._base import SumOfMinLoss

__all__ = ["MixedLinearLoss"]

#: Smallest Cholesky pivot, relative to its diagonal entry, that the direct
#: ridge solve accepts: below it the penalty is lost in the rounding of the
#: Gram, and the eigendecomposition takes over (see _ridge_solve).
_PIVOT_RATIO = np.sqrt(np.finfo(np.float64).eps)


def _ridge_solve(gram, rhs, penalty):
    """Solve :math:`(G + \\mu I) x = r` for a positive semi-definite Gram G.

    A Cholesky solve when every pivot keeps at least :data:`_PIVOT_RATIO` of
    its diagonal entry, which is accurate however different the scales of the
    features. Otherwise :math:`\\mu` is below the rounding of :math:`G` in some
    direction (a group of fewer samples than features, with features of large
    scale), where the right-hand side :math:`r = A^\\top W b` lies in the range
    of :math:`G = A^\\top W A` and so does the solution: the eigenvalues of
    :math:`G` within rounding of zero (:math:`p \\epsilon \\lambda_{max}`) are
    left out, as a pseudo-inverse leaves them out, unless :math:`\\mu`
    exceeds that rounding.

    Parameters
    ----------
    gram : ndarray of shape (p, p)
        :math:`G`, float64.
    rhs : ndarray of shape (p,)
        :math:`r`, float64.
    penalty : float
        :math:`\\mu > 0`.

    Returns
    -------
    solution : ndarray of shape (p,)
    """
    matrix = gram + penalty * np.eye(gram.shape[0])
    try:
        factor = np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        factor = None
    if factor is not None and np.all(
        np.diag(factor) ** 2 >= _PIVOT_RATIO * np.diag(matrix)
    ):
        return scipy.linalg.cho_solve((factor, True), rhs)
    values, vectors = np.linalg.eigh(gram)
    rounding = gram.shape[0] * np.finfo(np.float64).eps * max(values.max(), 0.0)
    kept = (values > rounding) | (penalty > rounding)
    inverse = np.where(kept, 1.0 / (np.maximum(values, 0.0) + penalty), 0.0)
    return vectors @ (inverse * (vectors.T @ rhs))


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
    The minimizers :math:`(0, b_i)` are constant predictors, useless seeds
    (single 'k-means++' runs of
    :class:`~skcgm.linear_model.MixedLinearRegressor` from them recover
    none of 40 planted mixtures of 4 components), so
    :meth:`sample_minimizers` returns instead the minimizers of :math:`f_i`
    among the models through the centroid :math:`(\\bar a, \\bar b)` of the
    bound data, the minimizers without intercept of the centred data:

    .. math::

        w_i = \\frac{(b_i - \\bar b)(a_i - \\bar a)}
        {\\|a_i - \\bar a\\|^2 + \\alpha}, \\qquad
        c_i = \\bar b - \\bar a^\\top w_i.

    The seeding scores (:meth:`gap_vector`, :meth:`grad_sq_norm_vector`)
    stay those of :math:`f_i`, and :meth:`sample_min_values` its minima.

    Dense data only; :meth:`bind` needs the targets ``y``.

    Parameters
    ----------
    alpha : float, default=0.01
        The penalty :math:`\\alpha > 0`, the paper's :math:`\\lambda`.
    fit_intercept : bool, default=False
        Whether every parameter carries an unpenalized intercept.
    centroid : tuple of (ndarray, float), default=None
        The means :math:`(\bar a, \bar b)` of the inputs and the targets
        through which the seeds with an intercept pass; None takes those of
        the bound data. Given when the loss is bound to part of the data (a
        chunk of a dask array), so that every part seeds as the whole would.

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

    def __init__(self, alpha=0.01, fit_intercept=False, centroid=None):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.centroid = centroid

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
        self._penalized = np.ones(self._design.shape[1])
        self._penalized[self.n_features :] = 0
        # alpha/2 ||x||^2 is computed in float64 for coefficients of unit
        # size (random initialization) and larger.
        largest_alpha = np.finfo(np.float64).max / (16.0 * self._design.shape[1])
        if not self.alpha <= largest_alpha:
            raise ValueError(
                f"alpha={self.alpha!r} is too large: the penalty alpha/2 ||x||^2 "
                "of coefficients of unit size overflows float64 (alpha up to "
                f"{largest_alpha:.3g} is accepted for {self._design.shape[1]} "
                "coefficients)."
            )
        sq_norms = np.einsum("ij,ij->i", X, X, dtype=np.float64)
        self._max_sq_norm = float(sq_norms.max()) + self.fit_intercept
        if self.fit_intercept:
            self._min_values = np.zeros(self.n_samples)
            # The seeds: the minimizers of f_i over the models through the
            # centroid of the data, i.e. the minimizers without intercept of
            # the centred data. The minimizers (0, b_i) themselves are
            # constant predictors, from which Lloyd's algorithm seldom finds
            # the slopes.
            if self.centroid is None:
                self._x_mean = X.mean(axis=0, dtype=np.float64)
                self._y_mean = float(y.mean(dtype=np.float64))
            else:
                self._x_mean = np.asarray(self.centroid[0], dtype=np.float64)
                self._y_mean = float(self.centroid[1])
            centred = X.astype(np.float64) - self._x_mean
            centred_sq_norms = np.einsum("ij,ij->i", centred, centred)
            with np.errstate(over="ignore"):
                scale = (y.astype(np.float64) - self._y_mean) / (
                    centred_sq_norms + self.alpha
                )
            self._seed_scale = np.where(centred_sq_norms > 0, scale, 0.0)
        else:
            # x_i* = (b_i / (||a_i||^2 + alpha)) a_i, zero for a zero row
            # (where b_i / alpha may overflow). The scale is stored so that
            # gap_vector recomputes x_i* with the very same rounding and a
            # sample's own minimizer has a gap of exactly zero.
            y64 = y.astype(np.float64)
            with np.errstate(over="ignore"):
                scale = y64 / (sq_norms + self.alpha)
            self._scale = np.where(sq_norms > 0, scale, 0.0)
            # alpha / (||a_i||^2 + alpha) <= 1 first: alpha * y_i may overflow.
            self._min_values = 0.5 * y64 * y64 * (self.alpha / (sq_norms + self.alpha))

    def for_chunks(self, X, y=None):
        """Return the loss every chunk of a dask array binds, and the passes it took.

        One pass gives the centroid of the whole data, through which the
        seeds with an intercept pass (``centroid``), and the mean square of
        the targets, which the returned copy holds as ``target_mean_square``
        (the scale of exactly fitted targets).

        Parameters
        ----------
        X : dask array of shape (n_samples, n_features)
            The inputs, chunked by rows.
        y : dask array of shape (n_samples,), default=None
            The targets, chunked as the rows of ``X``.

        Returns
        -------
        loss : MixedLinearLoss
            The unbound loss the chunks bind.
        n_passes : int
            The passes over the data it took, one.
        """
        import dask

        x_mean, y_mean, y_square = dask.compute(
            X.mean(axis=0), y.mean(), (y * y).mean()
        )
        centroid = (x_mean, y_mean) if self.fit_intercept else None
        loss = MixedLinearLoss(self.alpha, self.fit_intercept, centroid=centroid)
        loss.target_mean_square = float(y_square)
        return loss, 1

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
        return (self._scale[rows, None] * self.X[rows]).astype(self.X.dtype)

    def _penalty(self, params):
        """The float64 penalty :math:`\\frac{\\alpha}{2}\\|x\\|^2` of the parameters."""
        params = params.astype(np.float64, copy=False)
        return (
            0.5 * self.alpha * np.einsum("jl,jl,l->j", params, params, self._penalized)
        )

    def loss_matrix(self, params, rows=slice(None)):
        # In float64 whatever the dtype: the squares of float32 residuals
        # and the penalty of a large alpha may exceed float32.
        losses = self._design[rows].astype(np.float64) @ params.T.astype(np.float64)
        losses -= self.y[rows][:, None]
        np.square(losses, out=losses)
        losses *= 0.5
        losses += self._penalty(params)
        return losses

    def loss_vector(self, param):
        # The residual itself, not an expansion of its square.
        residuals = self._design.astype(np.float64) @ param.astype(np.float64)
        residuals -= self.y
        return 0.5 * residuals * residuals + self._penalty(param[None])[0]

    def gap_vector(self, param):
        # f_i(x) - f_i* = 1/2 (x - x_i*)^T H_i (x - x_i*) exactly, f_i being
        # quadratic: zero, not rounding noise, at a sample's own minimizer.
        gaps = np.empty(self.n_samples)
        for rows in row_blocks(self.n_samples, self._design.shape[1]):
            diff = (param - self._minimizers(rows)).astype(np.float64)
            projected = np.einsum("ij,ij->i", self._design[rows], diff, dtype=float)
            penalty = np.einsum("ij,ij,j->i", diff, diff, self._penalized)
            gaps[rows] = 0.5 * (projected * projected + self.alpha * penalty)
        return gaps

    def grad_sq_norm_vector(self, param):
        # grad f_i(x) = H_i (x - x_i*): exactly zero at x_i*, unlike the
        # residual form (a_i^T x - b_i) a_i + alpha x, which rounds.
        sq_norms = np.empty(self.n_samples)
        for rows in row_blocks(self.n_samples, self._design.shape[1]):
            design = self._design[rows].astype(np.float64, copy=False)
            diff = (param - self._minimizers(rows)).astype(np.float64)
            projected = np.einsum("ij,ij->i", design, diff)
            gradients = projected[:, None] * design
            gradients += self.alpha * self._penalized * diff
            sq_norms[rows] = np.einsum("ij,ij->i", gradients, gradients)
        return sq_norms

    def sample_min_values(self):
        return self._min_values

    def sample_minimizers(self, indices, random_state):
        indices = np.asarray(indices, dtype=np.intp)
        if not self.fit_intercept:
            return self._minimizers(indices)
        # The models through the centroid (see _set_data), not the constant
        # minimizers: the seeds of 'k-means++' and 'uniform'.
        coef = self._seed_scale[indices, None] * (self.X[indices] - self._x_mean)
        seeds = np.empty((indices.shape[0], self._design.shape[1]))
        seeds[:, :-1] = coef
        seeds[:, -1] = self._y_mean - coef @ self._x_mean
        return seeds.astype(self.X.dtype)

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
            # float64 sums whatever the data's dtype: the Gram of float32 rows
            # loses what the ridge solve needs.
            group = design[membership.indices[members]].astype(np.float64)
            weighted = group * membership.data[members, None].astype(np.float64)
            second[j] = weighted.T @ group
            cross[j] = weighted.T @ targets[membership.indices[members]]
        return second, cross

    def _regularized(self, second, counts):
        """:math:`\\sum_i w_i a_i a_i^\\top + \\alpha W_j P` for every group."""
        penalty = self.alpha * np.diag(self._penalized)
        return second + counts[:, None, None] * penalty

    def _group_ridge(self, second, cross, weight):
        """The ridge solution (E.2) of one group from its statistics, float64.

        Divided by the group's weight :math:`W_j` first, the system
        :math:`(\\sum_i w_i a_i a_i^\\top / W_j + \\alpha I) x = \\sum_i w_i
        b_i a_i / W_j` has the scale of the data whatever the weights (a
        group of tiny weights would otherwise need a subnormal penalty).
        """
        second, cross = second / weight, cross / weight
        if not self.fit_intercept:
            return _ridge_solve(second, cross, self.alpha)
        # The intercept is not penalized: eliminate it (the weighted means
        # centre the Gram), solve for the coefficients, then recover it from
        # the zero derivative in the intercept.
        means = second[:-1, -1]
        gram = second[:-1, :-1] - np.outer(means, means)
        rhs = cross[:-1] - means * cross[-1]
        # A feature constant over the group centres to zero up to the
        # rounding of its uncentred second moment, which would otherwise
        # pose as variance: its coefficient is exactly zero.
        rounding = 4 * gram.shape[0] * np.finfo(np.float64).eps
        constant = np.diag(gram) <= rounding * np.diag(second)[:-1]
        gram[constant] = 0
        gram[:, constant] = 0
        rhs[constant] = 0
        coef = _ridge_solve(gram, rhs, self.alpha)
        return np.append(coef, cross[-1] - means @ coef)

    def group_minimizer(self, params, statistics, counts):
        second, cross = statistics
        minimizers = params.copy()
        # Solved in float64 whatever the data's dtype: small (p, p) systems,
        # better conditioned than their float32 rounding.
        for j in np.flatnonzero(counts > 0):
            minimizers[j] = self._group_ridge(second[j], cross[j], float(counts[j]))
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
