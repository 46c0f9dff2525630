"""Generalized PCA (subspace clustering) on the sum-of-minimum engine.

The loss family of GPCA for the engine, :class:`SubspaceLoss` (eq. 1.5 and
Algorithm 5 of Ding, Chen, Wang and Yin), and the block coordinate descent of
the sum-of-product formulation the paper compares against,
:func:`sum_of_product_gpca` (model 5.1, Algorithm 6, after Peng 2023).
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array, check_random_state

from ...utils._blocks import row_blocks
from ...utils._random import random_orthonormal
from ...utils._sklearn_compat import Interval, validate_params
from ...utils._validation import check_sample_weight, check_square_range
from ._result import SumOfMinResult
from .losses._base import SumOfMinLoss, dense_rows

__all__ = [
    "SubspaceLoss",
    "SumOfProductSweeps",
    "centered_moments",
    "in_data_units",
    "product_overflow_message",
    "range_exponent",
    "rescaled",
    "sum_of_product_gpca",
]

# A sample closer than this (relative to its norm) to a subspace lies on it up
# to the rounding of the QR factorization that built the basis (~d eps).
_ON_SUBSPACE_RTOL = 8.0


def range_exponent(*arrays, dtype):
    """Exponent :math:`e` of the power of two to divide the arrays by, or 0.

    GPCA squares its data and multiplies it by the sample weights. Arrays
    whose largest absolute value lies within :math:`2^{\\pm m}`, :math:`m` a
    quarter of the dtype's exponent range (256 for float64, 32 for float32),
    are left alone (0); otherwise :math:`e` brings that value into
    :math:`[1/2, 1)`, so that neither the squares nor the sums over samples
    overflow or underflow. ``None`` entries and empty arrays are skipped.
    """
    largest = 0.0
    for values in arrays:
        if values is None:
            continue
        values = values.data if sp.issparse(values) else np.asarray(values)
        if values.size:
            largest = max(largest, float(np.max(np.abs(values))))
    limit = 2.0 ** (np.finfo(dtype).maxexp // 4)
    if largest == 0.0 or 1.0 / limit <= largest <= limit or not np.isfinite(largest):
        return 0
    return int(np.frexp(largest)[1])


def rescaled(values, exponent):
    """``values`` times :math:`2^{-e}`: exact, a copy when :math:`e \\neq 0`.

    A power of two changes the exponent of every number and none of its
    digits, so the solvers see the same problem, bit for bit, up to the
    factor: weights smaller than the largest by more than the dtype's range
    become zero, and count as nothing, as they did in the sums.
    """
    if exponent == 0:
        return values
    with np.errstate(under="ignore"):
        if sp.issparse(values):
            values = values.copy()
            values.data = np.ldexp(values.data, -exponent)
            return values
        return np.ldexp(values, -exponent)


def in_data_units(values, exponent, message):
    """Values computed on rescaled data times :math:`2^e`, in float64.

    Raises ``ValueError(message)`` if one of them is NaN or infinite: it is
    beyond the float64 range in the data's units.
    """
    with np.errstate(over="ignore", under="ignore"):
        values = np.ldexp(np.asarray(values, dtype=np.float64), exponent)
    if not np.all(np.isfinite(values)):
        raise ValueError(message)
    return values


def product_overflow_message(n_clusters):
    """The error of a sum-of-product objective beyond the float64 range."""
    return (
        f"The sum-of-product objective (5.1), a product of n_clusters="
        f"{n_clusters} squared distances, exceeds the float64 range for this "
        "X. Scale X down (the fitted bases do not depend on the scale of X) "
        "or use fewer clusters."
    )


def centered_moments(grams, sums, counts):
    """Centered second moments and means of groups of positive weight.

    :math:`\\sum_i w_i y_i y_i^T - (\\sum_i w_i y_i)(\\sum_i w_i y_i)^T /
    \\sum_i w_i`, with the mean as one factor so that no product of two sums
    is formed.
    """
    means = sums / np.asarray(counts, dtype=np.float64)[:, None]
    return grams - np.einsum("kd,ke->kde", sums, means), means


def _smallest_eigenvectors(matrices, n_vectors):
    """Eigenvectors of the ``n_vectors`` smallest eigenvalues of symmetric matrices.

    ``matrices`` has shape ``(m, d, d)``; the result ``(m, d, n_vectors)``
    holds orthonormal columns, smallest eigenvalue first.
    """
    _, vectors = np.linalg.eigh(matrices)
    return vectors[..., :n_vectors]


def _weighted_gram(block, weights):
    """:math:`\\sum_i w_i y_i y_i^T` over a dense or CSR block, in float64."""
    if sp.issparse(block):
        block = sp.csr_matrix(block, dtype=np.float64)
        gram = block.T @ (sp.diags(weights) @ block)
        return gram.toarray()
    block = np.asarray(block, dtype=np.float64)
    return block.T @ (block * weights[:, None])


class SubspaceLoss(SumOfMinLoss):
    """Half squared distance to a subspace given by an orthonormal normal basis.

    The loss of generalized PCA (subspace clustering) as a sum-of-minimum
    problem (eq. 1.5). The subspace :math:`V_j = \\{y : y^T A_j = 0\\}` of
    co-dimension :math:`r` is represented by :math:`A_j \\in \\mathbb{R}^{d
    \\times r}` with :math:`A_j^T A_j = I_r`, an orthonormal basis of its
    normal space, and

    .. math::

        f_i(A) = \\tfrac{1}{2} \\|y_i^T A\\|^2
        = \\tfrac{1}{2} \\operatorname{dist}(y_i, V)^2,
        \\qquad f_i^* = 0.

    The minimizer of :math:`f_i` is any orthonormal :math:`A` orthogonal to
    :math:`y_i`; the seeding (Algorithm 1) takes a random one, the last
    :math:`r` columns of the Q factor of :math:`[y_i, G]` with
    :math:`G \\sim N(0, 1)^{d \\times r}`. The paper does not say which
    minimizer its experiments used; this one is the choice of the authors'
    published code. The group minimizer (Algorithm 5,
    Appendix E.1) minimizes :math:`\\operatorname{tr}(A^T \\Sigma_j A)` over
    the Stiefel manifold: the eigenvectors of the :math:`r` smallest
    eigenvalues of the group's uncentered second-moment matrix
    :math:`\\Sigma_j = \\sum_{i \\in C_j} w_i y_i y_i^T`. An empty group keeps
    its parameter.

    With ``affine=True`` (an extension, not in the paper) the subspaces are
    affine, :math:`V_j = \\{y : (y - \\mu_j)^T A_j = 0\\}`, the parameter is
    :math:`[A_j, \\mu_j]` of shape ``(d, r + 1)`` (the offset is the last
    column) and :math:`f_i = \\frac{1}{2} \\|(y_i - \\mu_j)^T A_j\\|^2`. The
    per-sample minimizer takes :math:`\\mu = y_i` and a random orthonormal
    :math:`A`; the group minimizer takes the weighted mean as offset and the
    eigenvectors of the :math:`r` smallest eigenvalues of the centered
    covariance, which minimizes the group objective jointly in
    :math:`(A, \\mu)`.

    The constraint :math:`A^T A = I_r` is not a vector space, so the family has
    no Lipschitz gradients: the engine runs it with ``solver='exact'`` and
    ``init_score='gap'`` only.

    Parameters
    ----------
    codim : int
        Co-dimension :math:`r` of the subspaces, between 1 and
        ``n_features - 1``.
    affine : bool, default=False
        Affine subspaces (with an offset) instead of linear ones.

    See Also
    --------
    sum_of_product_gpca : The sum-of-product baseline (Algorithm 6).
    skcgm.cluster.GPCAClusterer : The estimator using these losses.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import SubspaceLoss
    >>> X = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 3.0]])
    >>> loss = SubspaceLoss(codim=1).bind(X)
    >>> normals = np.array([[[0.0], [1.0]], [[1.0], [0.0]]])  # y = 0, x = 0
    >>> loss.loss_matrix(normals)
    array([[0. , 0.5],
           [0. , 2. ],
           [4.5, 0. ]])
    >>> statistics = loss.group_statistics(np.array([[1.0, 1.0, 0.0]]))
    >>> np.abs(loss.group_minimizer(normals[:1], statistics, np.array([2.0])))
    array([[[0.],
            [1.]]])
    """

    has_lipschitz_gradient = False
    # The inertia is the sum of squared distances, without the half.
    inertia_scale = 2.0

    def __init__(self, codim, affine=False):
        self.codim = codim
        self.affine = affine

    def _set_data(self, X, y):
        self.X = X
        self.n_samples, self.n_features = X.shape
        if not 1 <= self.codim <= self.n_features - 1:
            raise ValueError(
                f"codim={self.codim} must be between 1 and n_features - 1 = "
                f"{self.n_features - 1}; n_features={self.n_features}."
            )

    def param_shape(self):
        return (self.n_features, self.codim + int(self.affine))

    def _split(self, params):
        """Normal bases ``(k, d, r)`` and offsets ``(k, d)`` (None if linear)."""
        if self.affine:
            return params[..., : self.codim], params[..., self.codim]
        return params, None

    def loss_matrix(self, params, rows=slice(None)):
        # One BLAS product Y @ [A_1 ... A_k], then squared sums per group of r
        # columns; the offsets enter as the constant row mu_j^T A_j.
        normals, offsets = self._split(params)
        n_params = params.shape[0]
        stacked = np.ascontiguousarray(normals.transpose(1, 0, 2)).reshape(
            self.n_features, n_params * self.codim
        )
        projections = np.asarray(self.X[rows] @ stacked)
        projections = projections.reshape(-1, n_params, self.codim)
        if offsets is not None:
            projections -= np.einsum("kd,kdr->kr", offsets, normals)
        return 0.5 * np.einsum("ikr,ikr->ik", projections, projections)

    def loss_vector(self, param):
        # Directly (y - mu)^T A, and exactly zero for samples on the subspace
        # up to the rounding of the basis, so that a seed's own sample (and
        # any sample on its subspace) gets a gap of zero and is not drawn.
        normal, offset = self._split(param)
        out = np.empty(self.n_samples, dtype=np.float64)
        rtol = _ON_SUBSPACE_RTOL * self.n_features * np.finfo(param.dtype).eps
        for rows in row_blocks(self.n_samples, self.n_features):
            block = np.asarray(dense_rows(self.X, rows), dtype=np.float64)
            if offset is not None:
                block = block - offset
            projections = block @ normal.astype(np.float64, copy=False)
            losses = 0.5 * np.einsum("ir,ir->i", projections, projections)
            scale = 0.5 * np.einsum("id,id->i", block, block)
            losses[losses <= rtol**2 * scale] = 0.0
            out[rows] = losses
        return out.astype(self.X.dtype, copy=False)

    def sample_min_values(self):
        return np.zeros(self.n_samples, dtype=self.X.dtype)

    def sample_minimizers(self, indices, random_state):
        random_state = check_random_state(random_state)
        indices = np.asarray(indices)
        samples = np.asarray(dense_rows(self.X, indices), dtype=np.float64)
        params = np.empty((indices.shape[0], *self.param_shape()))
        for param, sample in zip(params, samples):
            if self.affine:
                param[:, : self.codim] = random_orthonormal(
                    self.n_features, self.codim, random_state
                )
                param[:, self.codim] = sample
            else:
                # Q of [y, G]: its first column spans y, the others are an
                # orthonormal basis of a random r-dim subspace of y^perp.
                gaussian = random_state.standard_normal((self.n_features, self.codim))
                q, _ = np.linalg.qr(np.column_stack([sample, gaussian]))
                param[:] = q[:, 1:]
        return params.astype(self.X.dtype, copy=False)

    def random_params(self, n_params, random_state, dtype):
        normals = [
            random_orthonormal(self.n_features, self.codim, random_state)
            for _ in range(n_params)
        ]
        params = np.stack(normals) if n_params else np.empty((0, *self.param_shape()))
        if self.affine:
            offsets = random_state.standard_normal((n_params, self.n_features, 1))
            params = np.concatenate([params, offsets], axis=2)
        return params.astype(dtype, copy=False)

    def group_statistics(self, membership, rows=slice(None)):
        # Per group sum_i w_i y_i y_i^T (and sum_i w_i y_i if affine), in
        # float64, gathering each group's rows: O(n d^2) for a partition.
        membership = sp.csr_matrix(membership)
        block = self.X[rows]
        n_params = membership.shape[0]
        d = self.n_features
        grams = np.zeros((n_params, d, d))
        sums = np.zeros((n_params, d))
        for j in range(n_params):
            start, stop = membership.indptr[j], membership.indptr[j + 1]
            if start == stop:
                continue
            members = membership.indices[start:stop]
            weights = np.asarray(membership.data[start:stop], dtype=np.float64)
            grams[j] = _weighted_gram(block[members], weights)
            if self.affine:
                sums[j] = np.asarray(block[members].T @ weights).ravel()
        return (grams, sums) if self.affine else (grams,)

    def group_minimizer(self, params, statistics, counts):
        grams = statistics[0]
        filled = np.flatnonzero(counts > 0)
        new_params = params.copy()
        if filled.size == 0:
            return new_params
        moments = grams[filled]
        if self.affine:
            moments, means = centered_moments(
                moments, statistics[1][filled], counts[filled]
            )
            new_params[filled, :, self.codim] = means
        normals = _smallest_eigenvectors(moments, self.codim)
        new_params[filled, :, : self.codim] = normals
        return new_params


def _sum_of_product_objective(sq_norms, sample_weight):
    """:math:`\\sum_i w_i \\prod_j \\|y_i^T A_j\\|^2 / \\sum_i w_i`.

    Infinite or NaN when the products overflow; the callers refuse it.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        products = np.prod(sq_norms, axis=1)
        return float(sample_weight @ products / sample_weight.sum())


def _sq_norms(X, normal):
    """:math:`\\|y_i^T A\\|^2` for every sample, in float64."""
    projections = np.asarray(X @ normal)
    return np.einsum("ir,ir->i", projections, projections)


def _sum_of_product(X, init_params, sample_weight, max_iter, progress=None):
    """Validated core of :func:`sum_of_product_gpca`.

    ``progress`` (the engine's verbose lines, or None) reports the objective
    before every sweep.
    """
    params = np.array(init_params, dtype=np.float64, copy=True)
    n_params, _, codim = params.shape
    sample_weight = np.asarray(sample_weight, dtype=np.float64)
    sq_norms = np.column_stack([_sq_norms(X, normal) for normal in params])
    # The block weights w_i prod_{l != j} ||y_i^T A_l||^2 in logarithms: a
    # product of k - 1 squared distances leaves the float64 range long before
    # any of them does, and the eigenvectors of M_j do not depend on its
    # scale, so the weights are taken relative to the largest (log 0 = -inf
    # for zero weights and samples on a subspace).
    with np.errstate(divide="ignore"):
        log_sq_norms = np.log(sq_norms)
        log_weights = np.log(sample_weight)
    history = [_sum_of_product_objective(sq_norms, sample_weight)]
    others = [np.delete(np.arange(n_params), j) for j in range(n_params)]
    for sweep in range(max_iter):
        if progress is not None:
            progress.iteration(sweep, history[-1])
        # Gauss-Seidel: the columns l < j of sq_norms already hold the new A_l.
        for j in range(n_params):
            log_block = log_weights + log_sq_norms[:, others[j]].sum(axis=1)
            top = log_block.max()
            if top == -np.inf:
                # The block objective is zero for every A_j: keep A_j.
                continue
            moment = _weighted_gram(X, np.exp(log_block - top))
            params[j] = _smallest_eigenvectors(moment[None], codim)[0]
            sq_norms[:, j] = _sq_norms(X, params[j])
            with np.errstate(divide="ignore"):
                log_sq_norms[:, j] = np.log(sq_norms[:, j])
        history.append(_sum_of_product_objective(sq_norms, sample_weight))
    labels = np.argmin(sq_norms, axis=1)
    return params, labels, np.asarray(history), max_iter


class SumOfProductSweeps:
    """The sum-of-product GPCA model (5.1) as a solver of bound subspace losses.

    Runs :func:`sum_of_product_gpca`'s exactly ``max_iter`` Gauss-Seidel
    sweeps (Algorithm 6 of Ding, Chen, Wang and Yin, ICML 2024) on the data
    of a bound :class:`SubspaceLoss`, so that the restarts of the
    sum-of-minimum model serve the product model too.

    Parameters
    ----------
    max_iter : int, default=50
        Number of sweeps.

    See Also
    --------
    sum_of_product_gpca : The same sweeps from validated arrays.
    ExactLloyd : The sum-of-minimum model's solver (Algorithm 5).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import SubspaceLoss, SumOfProductSweeps
    >>> X = np.array([[1.0, 0.0], [2.0, 0.1], [0.1, 3.0], [0.0, 1.0]])
    >>> start = np.array([[[0.6], [0.8]], [[0.8], [-0.6]]])
    >>> result = SumOfProductSweeps(max_iter=5).solve(
    ...     SubspaceLoss(1).bind(X), start, np.ones(4), np.random.RandomState(0)
    ... )
    >>> result.labels
    array([1, 1, 0, 0])
    """

    #: The name of the model in :class:`~skcgm.cluster.GPCAClusterer`.
    name = "sum_of_product"
    #: The loss capabilities this solver needs (the bound data only).
    requires = ()

    def __init__(self, max_iter=50):
        self.max_iter = max_iter

    def solve(self, problem, start, sample_weight, random_state, progress=None):
        """Sweep from ``start``.

        Parameters
        ----------
        problem : SubspaceLoss
            A linear subspace loss bound to the data.
        start : ndarray of shape (n_clusters, n_features, codim)
            Initial normal bases.
        sample_weight : ndarray of shape (n_samples,)
            Weights of the samples.
        random_state : RandomState
            Unused: the sweeps are deterministic.
        progress : Progress, default=None
            Receives the objective before every sweep; None is silent.

        Returns
        -------
        result : SumOfMinResult
            The bases (in the dtype of the data), labels and objective history
            of the product model.
        """
        params, labels, history, n_iter = _sum_of_product(
            problem.X, start, sample_weight, self.max_iter, progress
        )
        return SumOfMinResult.from_run(
            start, params.astype(problem.X.dtype, copy=False), labels, history, n_iter
        )


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "init_params": ["array-like"],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def sum_of_product_gpca(X, init_params, *, max_iter=50, sample_weight=None):
    """Block coordinate descent for the sum-of-product GPCA model.

    The baseline of the sum-of-minimum paper's GPCA experiments (model 5.1,
    Algorithm 6, after Peng 2023): minimize over orthonormal normal bases
    :math:`A_j^T A_j = I_r`

    .. math::

        G(A_1, \\dots, A_k) = \\frac{1}{\\sum_i w_i} \\sum_{i=1}^N w_i
        \\prod_{j=1}^k \\|y_i^T A_j\\|^2

    (no half) by Gauss-Seidel sweeps over the blocks: with the others fixed,
    :math:`G` is :math:`\\operatorname{tr}(A_j^T M_j A_j)`,

    .. math::

        M_j = \\sum_i w_i w_{ij} y_i y_i^T, \\qquad
        w_{ij} = \\prod_{l<j} \\|y_i^T A_l^{(t+1)}\\|^2
        \\prod_{l>j} \\|y_i^T A_l^{(t)}\\|^2,

    minimized exactly by the eigenvectors of the :math:`r` smallest
    eigenvalues of :math:`M_j`. So :math:`G` never increases. As in the
    paper, exactly ``max_iter`` sweeps are made (no early stop).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The points :math:`y_i`.
    init_params : array-like of shape (n_clusters, n_features, codim)
        Initial normal bases :math:`A_j^{(0)}` (orthonormal columns); the
        paper starts from the generalized k-means++ seeding (Algorithm 1), as
        for the sum-of-minimum model.
    max_iter : int, default=50
        Number of sweeps (50 in the paper's Table 1, 10 in Table 2).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights :math:`w_i`; None means unit weights.

    Returns
    -------
    params : ndarray of shape (n_clusters, n_features, codim)
        The final normal bases, in float64.
    labels : ndarray of shape (n_samples,)
        :math:`\\arg\\min_j \\|y_i^T A_j\\|^2`, ties to the lowest index.
    objective_history : ndarray of shape (max_iter + 1,)
        :math:`G` at the initialization and after every sweep.
    n_iter : int
        Number of sweeps, ``max_iter``.

    Raises
    ------
    ValueError
        If the squares of ``X`` overflow, or if :math:`G` (a product of
        ``n_clusters`` squared distances) exceeds the float64 range at the
        initialization or after a sweep: scale ``X`` down.

    See Also
    --------
    SubspaceLoss : The sum-of-minimum GPCA loss (Algorithm 5).
    skcgm.cluster.GPCAClusterer : The estimator with both models.

    Notes
    -----
    A block whose weights :math:`w_{ij}` all vanish (every sample lies on
    another subspace) has a zero objective and keeps its basis. The weights
    are formed in logarithms, and data and ``sample_weight`` far from unit
    scale are divided by a power of two (exactly) before the sweeps, so that
    the products of squared distances neither overflow nor underflow; the
    bases do not depend on these scales. One sweep
    costs :math:`O(k N d^2)` plus :math:`k` eigendecompositions of
    :math:`d \\times d` matrices.

    References
    ----------
    L. Ding, J. Chen, X. Wang and W. Yin, "Efficient algorithms for
    sum-of-minimum optimization", ICML 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import sum_of_product_gpca
    >>> X = np.array([[1.0, 0.0], [2.0, 0.1], [0.1, 3.0], [0.0, 1.0]])
    >>> init = np.array([[[0.6], [0.8]], [[0.8], [-0.6]]])
    >>> params, labels, history, n_iter = sum_of_product_gpca(X, init, max_iter=5)
    >>> labels
    array([1, 1, 0, 0])
    >>> bool(history[-1] <= history[0]), n_iter
    (True, 5)
    """
    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32])
    init_params = check_array(init_params, ensure_2d=False, allow_nd=True)
    n_features = X.shape[1]
    if (
        init_params.ndim != 3
        or init_params.shape[1] != n_features
        or not 1 <= init_params.shape[2] <= n_features - 1
    ):
        raise ValueError(
            "init_params must have shape (n_clusters, n_features, codim) with "
            f"n_features={n_features} and 1 <= codim <= n_features - 1; got "
            f"shape {init_params.shape}."
        )
    check_square_range(X, input_name="X")
    sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
    x_exponent = range_exponent(X, dtype=X.dtype)
    params, labels, history, n_iter = _sum_of_product(
        rescaled(X, x_exponent),
        init_params,
        rescaled(sample_weight, range_exponent(sample_weight, dtype=np.float64)),
        max_iter,
    )
    n_clusters = init_params.shape[0]
    history = in_data_units(
        history, 2 * n_clusters * x_exponent, product_overflow_message(n_clusters)
    )
    return params, labels, history, n_iter
