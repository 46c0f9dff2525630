"""Per-sample loss families for the sum-of-minimum engine.

A loss family describes the sub-functions :math:`f_i` of the sum-of-minimum
problem (Ding, Chen, Wang and Yin, eq. 1.1)

.. math::

    F(x_1, \\dots, x_k) = \\frac{1}{N} \\sum_{i=1}^N \\min_{1 \\le j \\le k} f_i(x_j).

An instance holds hyper-parameters only; :meth:`SumOfMinLoss.bind` returns a
copy tied to a data set, with whatever the family precomputes from it. The
engine in :mod:`skcgm.optim._sum_of_min` only talks to bound losses through the
methods of :class:`SumOfMinLoss`, so a new application (mixed linear
regression, subspace clustering, ...) is a new subclass, not a new loop.
"""

import copy
from abc import ABCMeta, abstractmethod

import numpy as np
import scipy.sparse as sp
from scipy.special import kl_div, xlogy

from ..utils._blocks import row_blocks
from ._sum_of_min_fast import assign_and_sum


def group_membership(labels, sample_weight, n_params):
    """Sparse ``(n_params, n_rows)`` matrix holding each sample's weight in its group.

    Built column-wise (one entry per sample), which needs no sorting, and whose
    product with a dense block of data is a single pass over the block.
    """
    n_rows = labels.shape[0]
    return sp.csc_matrix(
        (sample_weight, labels, np.arange(n_rows + 1)), shape=(n_params, n_rows)
    )


def _dense_rows(X, rows):
    """Rows of a dense array or CSR matrix as a dense array."""
    block = X[rows]
    return block.toarray() if sp.issparse(block) else block


# Docstrings of the optional protocol methods, which only some families
# define; SumOfMinLoss.__init_subclass__ attaches them to the subclasses.
_OPTIONAL_DOCS = {
    "lipschitz": """Return the Lipschitz constant :math:`L` of the gradients.

        Returns
        -------
        lipschitz : float
            The constant of Assumption 2.1; ``1 / lipschitz()`` is the
            default step of ``solver='gd'`` (Theorem 4.6).
        """,
    "grad_sq_norm_vector": """Compute the squared gradient norms at a parameter.

        The seeding score :math:`\\|\\nabla f_i(x)\\|^2` of Algorithm 4
        (eq. 3.5).

        Parameters
        ----------
        param : ndarray of shape param_shape
            The parameter :math:`x`.

        Returns
        -------
        sq_norms : ndarray of shape (n_samples,)
            :math:`\\|\\nabla f_i(x)\\|^2` for every sample.
        """,
    "group_gradient": """Compute the gradients of the group objectives (eq. 3.7).

        :math:`\\nabla F_j(x_j) = \\sum_{i \\in C_j} w_i \\nabla f_i(x_j) /
        \\sum_{i \\in C_j} w_i`, zero for an empty group.

        Parameters
        ----------
        params : ndarray of shape (n_params, *param_shape)
            The parameters :math:`x_1, \\dots, x_{n\\_params}`.
        statistics : tuple of ndarray
            Group statistics from :meth:`group_statistics`, summed over all
            row blocks.
        counts : ndarray of shape (n_params,)
            Total weight :math:`\\sum_{i \\in C_j} w_i` of every group.

        Returns
        -------
        gradients : ndarray of shape (n_params, *param_shape)
            The gradient of every group objective at its parameter.
        """,
    "group_minimizer": """Compute the closed-form minimizers of the group objectives.

        :math:`\\arg\\min_x \\sum_{i \\in C_j} w_i f_i(x)` for every
        group; a group of zero weight keeps its parameter.

        Parameters
        ----------
        params : ndarray of shape (n_params, *param_shape)
            The parameters :math:`x_1, \\dots, x_{n\\_params}`.
        statistics : tuple of ndarray
            Group statistics from :meth:`group_statistics`, summed over all
            row blocks.
        counts : ndarray of shape (n_params,)
            Total weight :math:`\\sum_{i \\in C_j} w_i` of every group.

        Returns
        -------
        minimizers : ndarray of shape (n_params, *param_shape)
            The new parameters.
        """,
}


class SumOfMinLoss(metaclass=ABCMeta):
    """Base class of the per-sample loss families of the sum-of-minimum engine.

    Subclasses implement the oracles the paper's algorithms need: the matrix of
    losses :math:`f_i(x_j)`, the per-sample minimizers :math:`x_i^*` and minimum
    values :math:`f_i^*` (seeding, Algorithm 1), gradients (Algorithm 4 and the
    gradient solvers, Algorithms 2 and 3), the Lipschitz constant of the
    gradients and, when there is one, the closed-form group minimizer.

    An instance holds hyper-parameters only; data-dependent state is set by
    :meth:`bind` on a copy and never on the instance the user passed.

    Families with ``has_lipschitz_gradient = True`` also define
    ``lipschitz()``, ``grad_sq_norm_vector(param)`` and
    ``group_gradient(params, statistics, counts)``; families with
    ``has_group_minimizer = True`` define ``group_minimizer(params, statistics,
    counts)``. Both group methods work from the sufficient statistics of
    :meth:`group_statistics`, which add up over blocks of rows, so the engine
    gathers them in the same pass over the data as the reclassification.
    A subclass method without a docstring gets the protocol's.

    See Also
    --------
    SquaredEuclideanLoss : The k-means loss.
    KLDivergenceLoss : The generalized Kullback-Leibler divergence.

    Examples
    --------
    >>> from skcgm.optim import SquaredEuclideanLoss, SumOfMinLoss
    >>> isinstance(SquaredEuclideanLoss(), SumOfMinLoss)
    True
    """

    #: Whether ``group_minimizer`` is available (``solver='exact'``).
    has_group_minimizer = True
    #: Whether the gradients are Lipschitz (``solver='gd'``/``'momentum'`` and
    #: ``init_score='gradient'``).
    has_lipschitz_gradient = True
    #: ``inertia = inertia_scale * sum_i w_i min_j f_i(x_j)``.
    inertia_scale = 1.0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, method in vars(cls).items():
            if not callable(method) or method.__doc__ or name.startswith("_"):
                continue
            inherited = getattr(super(cls, cls), name, None)
            method.__doc__ = getattr(inherited, "__doc__", None) or _OPTIONAL_DOCS.get(
                name
            )

    def bind(self, X, y=None):
        """Return a copy of the loss bound to the data ``X`` (and ``y``).

        Parameters
        ----------
        X : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Validated training data.
        y : ndarray of shape (n_samples,), default=None
            Targets, for the families that have them.

        Returns
        -------
        bound : SumOfMinLoss
            A new instance holding the data and its precomputed quantities.
        """
        bound = copy.copy(self)
        bound._set_data(X, y)
        return bound

    @abstractmethod
    def _set_data(self, X, y):
        """Validate and precompute from the data; set ``n_samples``."""

    @abstractmethod
    def param_shape(self):
        """Return the shape of one parameter :math:`x_j`.

        Returns
        -------
        shape : tuple of int
            ``(n_features,)`` for centers, a matrix shape for subspace bases.
        """

    @abstractmethod
    def loss_matrix(self, params, rows=slice(None)):
        """Compute the losses :math:`f_i(x_j)` of a block of samples.

        Parameters
        ----------
        params : ndarray of shape (n_params, *param_shape)
            The parameters :math:`x_1, \\dots, x_{n\\_params}`.
        rows : slice, default=slice(None)
            The samples, a contiguous block of rows of the bound data.

        Returns
        -------
        losses : ndarray of shape (n_rows, n_params)
            :math:`f_i(x_j)`, possibly ``inf``.
        """

    def assign(self, params, rows=slice(None), sample_weight=None, out=None):
        """Find the closest parameter of every sample of a block (eq. 3.6).

        Ties go to the lowest index, as :func:`numpy.argmin` does.

        Parameters
        ----------
        params : ndarray of shape (n_params, *param_shape)
            The parameters :math:`x_1, \\dots, x_{n\\_params}`.
        rows : slice, default=slice(None)
            The samples, a contiguous block of rows of the bound data.
        sample_weight : ndarray of shape (n_rows,), default=None
            Weights of the block's samples. When given, the group statistics
            of the new partition over the block are returned too, gathered in
            the same pass.
        out : ndarray of shape (n_rows, n_params), default=None
            Scratch space the family may use for the block's losses instead
            of allocating.

        Returns
        -------
        labels : ndarray of shape (n_rows,)
            Index of the smallest loss of every sample.
        min_losses : ndarray of shape (n_rows,)
            That loss.
        statistics : tuple of ndarray or None
            :meth:`group_statistics` of the new partition, or None without
            ``sample_weight``.
        """
        losses = self.loss_matrix(params, rows)
        labels = losses.argmin(axis=1)
        min_losses = np.take_along_axis(losses, labels[:, None], axis=1)[:, 0]
        statistics = None
        if sample_weight is not None:
            membership = group_membership(labels, sample_weight, params.shape[0])
            statistics = self.group_statistics(membership, rows)
        return labels, min_losses, statistics

    @abstractmethod
    def group_statistics(self, membership, rows=slice(None)):
        """Compute the sufficient statistics of the groups over a block.

        Parameters
        ----------
        membership : sparse matrix of shape (n_params, n_rows)
            The weight :math:`w_i` at ``(j, i)`` for every sample :math:`i`
            of group :math:`j`.
        rows : slice, default=slice(None)
            The samples, a contiguous block of rows of the bound data.

        Returns
        -------
        statistics : tuple of ndarray
            Arrays that add up over row blocks.
        """

    @abstractmethod
    def loss_vector(self, param):
        """Compute the loss of every sample at one parameter, without cancellation.

        Used by the seeding, where a sample's own minimizer must give a gap of
        exactly zero.

        Parameters
        ----------
        param : ndarray of shape param_shape
            The parameter :math:`x`.

        Returns
        -------
        losses : ndarray of shape (n_samples,)
            :math:`f_i(x)` for every sample.
        """

    def gap_vector(self, param):
        """Compute the optimality gap of every sample at a parameter (eq. 3.2).

        Parameters
        ----------
        param : ndarray of shape param_shape
            The parameter :math:`x`.

        Returns
        -------
        gaps : ndarray of shape (n_samples,)
            :math:`f_i(x) - f_i^*`, clipped at zero against rounding.
        """
        gap = self.loss_vector(param) - self.sample_min_values()
        return np.maximum(gap, 0, out=gap)

    @abstractmethod
    def sample_min_values(self):
        """Return the minimum value :math:`f_i^*` of every sample.

        Returns
        -------
        min_values : ndarray of shape (n_samples,)
            :math:`f_i^* = \\min_x f_i(x)`.
        """

    @abstractmethod
    def sample_minimizers(self, indices, random_state):
        """Return the minimizers :math:`x_i^*` of some samples (eqs. 3.1, 3.4).

        Parameters
        ----------
        indices : array-like of int
            The samples.
        random_state : RandomState instance or None
            For families whose minimizer is not unique.

        Returns
        -------
        minimizers : ndarray of shape (n_indices, *param_shape)
            :math:`x_i^*` for every index.
        """

    @abstractmethod
    def random_params(self, n_params, random_state, dtype):
        """Draw random parameters for ``init='random'``.

        Parameters
        ----------
        n_params : int
            How many.
        random_state : RandomState instance
            The generator.
        dtype : dtype
            Their dtype.

        Returns
        -------
        params : ndarray of shape (n_params, *param_shape)
            The paper's random initialization (section 5.2).
        """


class SquaredEuclideanLoss(SumOfMinLoss):
    """Half squared Euclidean distance, the loss of k-means.

    .. math::

        f_i(x) = \\tfrac{1}{2} \\|x - y_i\\|^2, \\qquad x_i^* = y_i, \\quad
        f_i^* = 0, \\quad \\nabla f_i(x) = x - y_i, \\quad L = \\mu = 1.

    The group minimizer is the weighted mean of the group, so the generalized
    Lloyd algorithm is the classic one (section 1.3a of the note on the paper).

    See Also
    --------
    KLDivergenceLoss : The generalized Kullback-Leibler divergence.
    skcgm.cluster.SumOfMinKMeans : The estimator using these losses.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import SquaredEuclideanLoss
    >>> loss = SquaredEuclideanLoss().bind(np.array([[0.0, 0.0], [2.0, 0.0]]))
    >>> loss.loss_matrix(np.array([[1.0, 0.0]]))
    array([[0.5],
           [0.5]])
    """

    inertia_scale = 2.0

    def _set_data(self, X, y):
        # The compiled kernel reads rows of X: keep dense data C-ordered.
        self.X = X if sp.issparse(X) else np.ascontiguousarray(X)
        self.n_samples, self.n_features = X.shape
        if sp.issparse(X):
            self._half_sq_norms = 0.5 * np.asarray(X.multiply(X).sum(axis=1)).ravel()
        else:
            self._half_sq_norms = 0.5 * np.einsum("ij,ij->i", X, X)
        self._half_sq_norms = self._half_sq_norms.astype(X.dtype, copy=False)

    def param_shape(self):
        return (self.n_features,)

    def loss_matrix(self, params, rows=slice(None)):
        # 1/2||y||^2 - <y, x> + 1/2||x||^2: one BLAS product per block.
        losses = self.X[rows] @ params.T
        losses = np.asarray(losses)
        losses *= -1
        losses += 0.5 * np.einsum("ij,ij->i", params, params)
        losses += self._half_sq_norms[rows][:, None]
        return np.maximum(losses, 0, out=losses)

    def assign(self, params, rows=slice(None), sample_weight=None, out=None):
        block = self.X[rows]
        if sp.issparse(block):
            return super().assign(params, rows, sample_weight, out)
        # argmin_j 1/2||x_j||^2 - <y, x_j> does not need 1/2||y||^2: one BLAS
        # product (a C-ordered right operand makes it ~2x faster), then one
        # compiled pass per sample for the argmin and the group sums.
        neg_params_t = np.ascontiguousarray(-params.T)
        scores = np.matmul(block, neg_params_t, out=out)
        n_rows, n_params = scores.shape
        labels = np.empty(n_rows, dtype=np.intp)
        min_losses = np.empty(n_rows, dtype=np.float64)
        with_sums = sample_weight is not None
        sums = np.zeros((n_params if with_sums else 0, self.n_features), block.dtype)
        assign_and_sum(
            scores,
            0.5 * np.einsum("ij,ij->i", params, params),
            self._half_sq_norms[rows],
            block,
            sample_weight if with_sums else np.empty(0, block.dtype),
            labels,
            min_losses,
            sums,
            with_sums,
        )
        return labels, min_losses, (sums,) if with_sums else None

    def loss_vector(self, param):
        # The BLAS expansion, then an exact recomputation of the few samples
        # whose value is within rounding of zero, so duplicates of the seed
        # get a gap of exactly 0 and are never drawn.
        half_param_sq = 0.5 * float(param @ param)
        losses = np.asarray(self.X @ -param).ravel()
        losses += self._half_sq_norms
        losses += half_param_sq
        scale = self._half_sq_norms + half_param_sq
        eps = 8 * np.finfo(losses.dtype).eps
        close = np.flatnonzero(losses <= eps * scale)
        if close.size:
            diff = _dense_rows(self.X, close) - param
            losses[close] = 0.5 * np.einsum("ij,ij->i", diff, diff)
        return np.maximum(losses, 0, out=losses)

    def grad_sq_norm_vector(self, param):
        return 2 * self.loss_vector(param)

    def sample_min_values(self):
        return np.zeros(self.n_samples, dtype=self.X.dtype)

    def sample_minimizers(self, indices, random_state):
        return np.array(_dense_rows(self.X, np.asarray(indices)), copy=True)

    def random_params(self, n_params, random_state, dtype):
        return random_state.standard_normal((n_params, self.n_features)).astype(
            dtype, copy=False
        )

    def lipschitz(self):
        return 1.0

    def group_statistics(self, membership, rows=slice(None)):
        sums = membership @ self.X[rows]
        return (sums.toarray() if sp.issparse(sums) else np.asarray(sums),)

    def group_minimizer(self, params, statistics, counts):
        (sums,) = statistics
        means = params.copy()
        filled = counts > 0
        means[filled] = sums[filled] / counts[filled, None]
        return means

    def group_gradient(self, params, statistics, counts):
        # grad F_j(x_j) = x_j - mean(C_j); empty groups give x_j - x_j = 0.
        return params - self.group_minimizer(params, statistics, counts)


class KLDivergenceLoss(SumOfMinLoss):
    """Generalized Kullback-Leibler divergence with the centroid first.

    The Bregman divergence of :math:`h(x) = \\sum_l x_l \\log x_l`,

    .. math::

        f_i(x) = d_h(x, y_i) = \\sum_l x_l \\log \\frac{x_l}{y_{il} - x_l + y_{il},

    with :math:`0 \\log 0 = 0`, so :math:`f_i(x) = +\\infty` when
    :math:`x_l > 0 = y_{il}` for some coordinate. Here :math:`x_i^* = y_i` and
    :math:`f_i^* = 0`. Because the centroid is the first argument, the group
    minimizer solves :math:`\\nabla h(x) = \\operatorname{mean}_{i \\in C}
    \\nabla h(y_i)`: the coordinate-wise weighted geometric mean, zero in every
    coordinate where a member of the group is zero (section 1.3a of the note).
    The gradient :math:`\\log x - \\log y_i` is not Lipschitz, so this family
    supports ``init_score='gap'`` with ``solver='exact'`` only. Data must be
    non-negative.

    See Also
    --------
    SquaredEuclideanLoss : The k-means loss.
    skcgm.cluster.SumOfMinKMeans : The estimator using these losses.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import KLDivergenceLoss
    >>> loss = KLDivergenceLoss().bind(np.array([[1.0, 4.0], [4.0, 1.0]]))
    >>> statistics = loss.group_statistics(np.ones((1, 2)))
    >>> loss.group_minimizer(np.zeros((1, 2)), statistics, np.array([2.0]))
    array([[2., 2.]])
    """

    has_lipschitz_gradient = False

    def _set_data(self, X, y):
        values = X.data if sp.issparse(X) else X
        if np.any(values < 0):
            raise ValueError(
                "loss='kl' needs non-negative data; X has negative values."
            )
        self.X = X
        self.n_samples, self.n_features = X.shape
        if sp.issparse(X):
            positive = X.copy()
            positive.eliminate_zeros()
            self._log_y = positive.copy()
            self._log_y.data = np.log(positive.data)
            self._support = positive.copy()
            self._support.data = np.ones_like(positive.data)
            self._row_sums = np.asarray(X.sum(axis=1)).ravel()
        else:
            support = X > 0
            self._log_y = np.log(X, where=support, out=np.zeros_like(X))
            self._support = support.astype(X.dtype)
            self._row_sums = X.sum(axis=1)

    def param_shape(self):
        return (self.n_features,)

    def loss_matrix(self, params, rows=slice(None)):
        # sum_l x log x - x  -  sum_{l in supp y} x_l log y_l  +  sum_l y_l,
        # infinite where supp(x) is not inside supp(y).
        entropy = (xlogy(params, params) - params).sum(axis=1)
        losses = np.asarray(self._log_y[rows] @ params.T)
        losses *= -1
        losses += entropy
        losses += self._row_sums[rows][:, None]
        param_support = (params > 0).astype(params.dtype)
        overlap = np.asarray(self._support[rows] @ param_support.T)
        losses[overlap < param_support.sum(axis=1)] = np.inf
        return np.maximum(losses, 0, out=losses)

    def loss_vector(self, param):
        out = np.empty(self.n_samples, dtype=self.X.dtype)
        for rows in row_blocks(self.n_samples, self.n_features):
            out[rows] = kl_div(param, _dense_rows(self.X, rows)).sum(axis=1)
        return out

    def sample_min_values(self):
        return np.zeros(self.n_samples, dtype=self.X.dtype)

    def sample_minimizers(self, indices, random_state):
        return np.array(_dense_rows(self.X, np.asarray(indices)), copy=True)

    def random_params(self, n_params, random_state, dtype):
        # Log-normal: positive like the data, the paper's Gaussian in log space.
        normal = random_state.standard_normal((n_params, self.n_features))
        return np.exp(normal).astype(dtype, copy=False)

    def group_statistics(self, membership, rows=slice(None)):
        log_sums = membership @ self._log_y[rows]
        # A coordinate of the geometric mean is positive only if it is positive
        # for every member of positive weight: count members, not weights.
        members = sp.csr_matrix(membership, copy=True)
        members.data = (members.data > 0).astype(self.X.dtype)
        n_positive = members @ self._support[rows]
        n_members = np.asarray(members.sum(axis=1)).ravel()
        return tuple(
            stat.toarray() if sp.issparse(stat) else np.asarray(stat)
            for stat in (log_sums, n_positive, n_members)
        )

    def group_minimizer(self, params, statistics, counts):
        log_sums, n_positive, n_members = statistics
        filled = counts > 0
        centers = params.copy()
        geometric = np.exp(log_sums[filled] / counts[filled, None])
        geometric[n_positive[filled] < n_members[filled, None]] = 0
        centers[filled] = geometric
        return centers
