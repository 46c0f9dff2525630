"""Per-sample loss families for the sum-of-minimum engine.

A loss family describes the sub-functions :math:`f_i` of the sum-of-minimum
problem (Ding, Chen, Wang and Yin, eq. 1.1)

.. math::

    F(x_1, \\dots, x_k) = \\frac{1}{N} \\sum_{i=1}^N \\min_{1 \\le j \\le k} f_i(x_j).

An instance holds hyper-parameters only; :meth:`SumOfMinLoss.bind` returns a
copy tied to a data set, with whatever the family precomputes from it. The
engine in :mod:`skcgm.optim.sum_of_min._engine` only talks to bound losses through the
methods of :class:`SumOfMinLoss`, so a new application (mixed linear
regression, subspace clustering, ...) is a new subclass, not a new loop.
"""

import copy
import time
import warnings
from abc import ABCMeta, abstractmethod
from numbers import Real

import numpy as np
import scipy.sparse as sp
from scipy.special import kl_div, xlogy

from ....utils._blocks import map_row_blocks, row_blocks, single_threaded_blas
from ....utils._threads import report_threads, thread_chooser
from .._fast import assign_csr, assign_dense


def group_membership(labels, sample_weight, n_params):
    """Sparse ``(n_params, n_rows)`` matrix holding each sample's weight in its group.

    Built column-wise (one entry per sample), which needs no sorting, and whose
    product with a dense block of data is a single pass over the block.
    """
    n_rows = labels.shape[0]
    return sp.csc_matrix(
        (sample_weight, labels, np.arange(n_rows + 1)), shape=(n_params, n_rows)
    )


def _group_sums(membership, block):
    """Weighted sums of the rows of every group, as a one-tuple of statistics."""
    sums = membership @ block
    return (sums.toarray() if sp.issparse(sums) else np.asarray(sums),)


def _group_means(params, statistics, counts):
    """Weighted means of the groups from :func:`_group_sums`; empty ones keep theirs."""
    (sums,) = statistics
    means = params.copy()
    filled = counts > 0
    means[filled] = sums[filled] / counts[filled, None]
    return means


def group_weights(labels, sample_weight, n_params):
    """Total weight of every group, in the dtype of the weights."""
    counts = np.bincount(labels, weights=sample_weight, minlength=n_params)
    return counts.astype(sample_weight.dtype, copy=False)


def weighted_mean(values, sample_weight):
    """Weighted mean that treats ``0 * inf`` as 0 (zero-weight samples)."""
    # A plain reduction, not a BLAS dot: cheaper than waking BLAS threads.
    total = float(np.multiply(values, sample_weight).sum())
    if np.isnan(total):
        active = sample_weight > 0
        total = float(values[active] @ sample_weight[active])
    return total / float(sample_weight.sum())


def _sum_statistics(per_block):
    """Add up per-block group statistics (tuples of arrays)."""
    return tuple(sum(parts[1:], parts[0].copy()) for parts in zip(*per_block))


def _dense_rows(X, rows):
    """Rows of a dense array or CSR matrix as a dense array."""
    block = X[rows]
    return block.toarray() if sp.issparse(block) else block


class _OptionalMethods:
    """The optional protocol methods, which only some families define.

    Never instantiated nor inherited: :class:`SumOfMinLoss` gives their
    docstrings to the methods of its subclasses that have none.
    """

    def lipschitz(self):
        """Return the Lipschitz constant :math:`L` of the gradients.

        Returns
        -------
        lipschitz : float
            The constant of Assumption 2.1; ``1 / lipschitz()`` is the
            default step of ``solver='gd'`` (Theorem 4.6).
        """

    def grad_sq_norm_vector(self, param):
        """Compute the squared gradient norms at a parameter.

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
        """

    def group_gradient(self, params, statistics, counts):
        """Compute the gradients of the group objectives (eq. 3.7).

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
        """

    def group_minimizer(self, params, statistics, counts):
        """Compute the closed-form minimizers of the group objectives.

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
        """


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
    counts)``. The gradients of the group objectives of a fixed partition,
    along which the iterative solver (:class:`~skcgm.optim.AdamLloyd`) takes
    several steps, come from :meth:`partition_groups` (once per partition)
    and :meth:`groups_gradient` (every step): the statistics and
    ``group_gradient`` unless a family, whose group objectives have no
    sufficient statistics, gathers its groups' rows itself
    (:class:`~skcgm.optim.MixedMLPLoss`). Both group methods work from the
    sufficient statistics of
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
    #: Whether ``partition_gradient`` is available (``solver='adam'``); a
    #: subclass that does not set it has it when it has ``group_gradient``.
    has_partition_gradient = True
    #: ``inertia = inertia_scale * sum_i w_i min_j f_i(x_j)``.
    inertia_scale = 1.0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "has_partition_gradient" not in vars(cls):
            cls.has_partition_gradient = cls.has_lipschitz_gradient
        for name, method in vars(cls).items():
            if not callable(method) or method.__doc__ or name.startswith("_"):
                continue
            inherited = getattr(super(cls, cls), name, None)
            optional = getattr(_OptionalMethods, name, None)
            method.__doc__ = getattr(inherited, "__doc__", None) or getattr(
                optional, "__doc__", None
            )

    def partition_groups(self, labels, sample_weight, counts):
        """Gather what the gradients of a partition's group objectives need.

        Computed once per partition, then used by :meth:`groups_gradient` at
        every step the partition holds: here the group statistics of
        :meth:`partition_statistics`.

        Parameters
        ----------
        labels : ndarray of shape (n_samples,)
            The group of every sample.
        sample_weight : ndarray of shape (n_samples,)
            Weights of the samples.
        counts : ndarray of shape (n_params,)
            Total weight of every group.

        Returns
        -------
        groups : object
            Passed to :meth:`groups_gradient`.
        """
        statistics, _ = self.partition_statistics(labels, sample_weight, len(counts))
        return statistics, counts

    def groups_gradient(self, params, groups):
        """Compute the gradients of the group objectives (eq. 3.7) of a partition.

        Parameters
        ----------
        params : ndarray of shape (n_params, *param_shape)
            The parameters :math:`x_1, \\dots, x_{n\\_params}`.
        groups : object
            From :meth:`partition_groups`.

        Returns
        -------
        gradients : ndarray of shape (n_params, *param_shape)
            The gradient of every group objective at its parameter, zero for
            a group of zero weight.
        """
        statistics, counts = groups
        return self.group_gradient(params, statistics, counts)

    def partition_gradient(self, params, labels, sample_weight, counts):
        """Compute the gradients of the group objectives of a partition (eq. 3.7).

        :meth:`groups_gradient` of :meth:`partition_groups`, for one step.

        Parameters
        ----------
        params : ndarray of shape (n_params, *param_shape)
            The parameters :math:`x_1, \\dots, x_{n\\_params}`.
        labels : ndarray of shape (n_samples,)
            The group of every sample.
        sample_weight : ndarray of shape (n_samples,)
            Weights of the samples.
        counts : ndarray of shape (n_params,)
            Total weight of every group.

        Returns
        -------
        gradients : ndarray of shape (n_params, *param_shape)
            The gradient of every group objective at its parameter, zero for
            a group of zero weight.
        """
        groups = self.partition_groups(labels, sample_weight, counts)
        return self.groups_gradient(params, groups)

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

    def assign(self, params, rows=slice(None), sample_weight=None):
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

    def reclassify(self, params, sample_weight, with_statistics=False):
        """Reclassify every sample (eq. 3.6) and evaluate the objective.

        One pass over the bound data, block by block (:meth:`assign` on each
        block), so memory stays bounded whatever the number of samples.

        Parameters
        ----------
        params : ndarray of shape (n_params, *param_shape)
            The parameters :math:`x_1, \\dots, x_{n\\_params}`.
        sample_weight : ndarray of shape (n_samples,)
            Weights :math:`w_i` of the objective.
        with_statistics : bool, default=False
            Also return the :meth:`group_statistics` of the new partition,
            gathered in the same pass.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Index of the smallest loss of every sample, ties to the lowest.
        min_losses : ndarray of shape (n_samples,)
            That loss.
        objective : float
            The weighted mean of ``min_losses`` (eq. 1.1).
        statistics : tuple of ndarray or None
            The group statistics, or None without ``with_statistics``.
        """
        labels = np.empty(self.n_samples, dtype=np.intp)
        min_losses = np.empty(self.n_samples, dtype=np.float64)

        def block(rows):
            weights = sample_weight[rows] if with_statistics else None
            labels[rows], min_losses[rows], statistics = self.assign(
                params, rows, weights
            )
            return statistics

        blocks = map_row_blocks(block, self.n_samples, params.shape[0])
        objective = weighted_mean(min_losses, sample_weight)
        statistics = _sum_statistics(blocks) if with_statistics else None
        return labels, min_losses, objective, statistics

    def assigned_losses(self, params, labels):
        """Loss of every sample at the parameter of its group.

        :math:`f_i(x_{l_i})` for the labels :math:`l`, which need not be the
        closest parameters. The generic family reads them from the loss
        matrix, block by block.

        Parameters
        ----------
        params : ndarray of shape (n_params, *param_shape)
            The parameters.
        labels : ndarray of shape (n_samples,)
            The group of every sample.

        Returns
        -------
        losses : ndarray of shape (n_samples,)
            The losses, in float64.
        """
        losses = np.empty(self.n_samples)
        for rows in row_blocks(self.n_samples, params.shape[0]):
            block = self.loss_matrix(params, rows)
            losses[rows] = np.take_along_axis(block, labels[rows, None], axis=1)[:, 0]
        return losses

    def reclassify_partition(self, params, sample_weight):
        """Reclassify every sample, with the statistics and weights of the groups.

        What a Lloyd iteration needs of a pass: :meth:`reclassify` with
        statistics, and the total weight of every new group, but not the
        loss of every sample. Families with a compiled pass gather the
        weights in it and do not store the losses.

        Parameters
        ----------
        params : ndarray of shape (n_params, *param_shape)
            The parameters :math:`x_1, \\dots, x_{n\\_params}`.
        sample_weight : ndarray of shape (n_samples,)
            Weights :math:`w_i` of the objective.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Index of the smallest loss of every sample, ties to the lowest.
        objective : float
            The weighted mean of the smallest losses (eq. 1.1).
        statistics : tuple of ndarray
            The group statistics of the new partition.
        counts : ndarray of shape (n_params,)
            Total weight of every group.
        """
        labels, _, objective, statistics = self.reclassify(
            params, sample_weight, with_statistics=True
        )
        counts = group_weights(labels, sample_weight, params.shape[0])
        return labels, objective, statistics, counts

    def partition_statistics(self, labels, sample_weight, n_params):
        """Group statistics and group weights of a given partition.

        Parameters
        ----------
        labels : ndarray of shape (n_samples,)
            The group of every sample.
        sample_weight : ndarray of shape (n_samples,)
            Weights of the samples.
        n_params : int
            Number of groups.

        Returns
        -------
        statistics : tuple of ndarray
            :meth:`group_statistics` over all the bound data.
        counts : ndarray of shape (n_params,)
            Total weight of every group.
        """

        def block(rows):
            membership = group_membership(labels[rows], sample_weight[rows], n_params)
            return self.group_statistics(membership, rows)

        per_block = map_row_blocks(block, self.n_samples, n_params)
        statistics = _sum_statistics(per_block)
        return statistics, group_weights(labels, sample_weight, n_params)

    def relocated_statistics(
        self, statistics, moved, from_labels, labels, sample_weight, n_params
    ):
        """Group statistics after some samples changed group.

        For the relocation of empty groups, whose moved samples are few. The
        generic family recomputes the statistics in a pass over the data.

        Parameters
        ----------
        statistics : tuple of ndarray
            The group statistics before the move.
        moved : ndarray of shape (n_moved,)
            Indices of the samples that changed group.
        from_labels : ndarray of shape (n_moved,)
            Their groups before the move.
        labels : ndarray of shape (n_samples,)
            The groups of all samples after the move.
        sample_weight : ndarray of shape (n_samples,)
            Weights of the samples.
        n_params : int
            Number of groups.

        Returns
        -------
        statistics : tuple of ndarray
            The group statistics after the move.
        counts : ndarray of shape (n_params,)
            Total weight of every group after the move.
        """
        return self.partition_statistics(labels, sample_weight, n_params)

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
    Lloyd algorithm is the classic one. The domain is all of
    :math:`\\mathbb{R}^d`: there is no boundary, and every loss of finite data
    and parameters is finite.

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
            # The squared entries on X's own index arrays: X.multiply(X) makes
            # several copies of X, four times the values' bytes in all.
            squares = sp.csr_matrix(
                (np.square(X.data), X.indices, X.indptr), shape=X.shape, copy=False
            )
            self._half_sq_norms = 0.5 * (squares @ np.ones(X.shape[1], X.dtype))
        else:
            self._half_sq_norms = 0.5 * np.einsum("ij,ij->i", X, X)
        self._half_sq_norms = self._half_sq_norms.astype(X.dtype, copy=False)
        # The thread chooser of the passes, looked up once per size of work.
        self._pass_threads = None

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

    def assign(self, params, rows=slice(None), sample_weight=None):
        with_sums = sample_weight is not None
        if not with_sums:
            sample_weight = np.ones(self._half_sq_norms[rows].shape[0])
        labels, min_losses, sums, _, _, _ = self._compiled_pass(
            params, rows, sample_weight, with_sums, n_threads=1
        )
        return labels, min_losses, (sums,) if with_sums else None

    def reclassify(self, params, sample_weight, with_statistics=False):
        labels, min_losses, sums, _, objective = self._reclassify_all(
            params, sample_weight, with_statistics, with_losses=True
        )
        return labels, min_losses, objective, (sums,) if with_statistics else None

    def reclassify_partition(self, params, sample_weight):
        labels, _, sums, counts, objective = self._reclassify_all(
            params, sample_weight, True, with_losses=False
        )
        return labels, objective, (sums,), counts

    def _reclassify_all(self, params, sample_weight, with_sums, with_losses):
        # One compiled call for the whole pass, its chunks shared among OpenMP
        # threads inside it (dispatching blocks to Python threads cost more
        # than the pass itself on 10,000 rows); the objective and the group
        # weights come from the same pass. The passes of a fit repeat the
        # same work (its GEMM): their thread count is measured.
        work = self.n_samples * params.size
        chooser = self._pass_threads
        if chooser is None or chooser.work != work:
            layout = "csr" if sp.issparse(self.X) else "dense"
            chooser = self._pass_threads = thread_chooser(
                f"lloyd pass, {layout} {self.X.dtype}", work
            )
        n_threads = chooser.threads()
        start = time.perf_counter()
        with single_threaded_blas():
            labels, min_losses, sums, counts, loss, weight = self._compiled_pass(
                params, slice(None), sample_weight, with_sums, n_threads, with_losses
            )
        chooser.record(n_threads, time.perf_counter() - start)
        counts = counts.astype(sample_weight.dtype, copy=False)
        return labels, min_losses, sums, counts, loss / weight

    def _compiled_pass(
        self, params, rows, sample_weight, with_sums, n_threads, with_losses=True
    ):
        # argmin_j 1/2||x_j||^2 - <y, x_j> does not need 1/2||y||^2: the
        # compiled pass takes the cross terms of 256 rows at a time from one
        # GEMM (dense) or the stored entries (CSR), and reads the argmin, the
        # group sums and the weighted losses from them while they are in
        # cache. The weights are taken in X's dtype, as KMeans does.
        params = np.ascontiguousarray(params, dtype=self.X.dtype)
        half_center_sq = 0.5 * np.einsum("ij,ij->i", params, params)
        block = self.X if rows == slice(None) else self.X[rows]
        n_rows = block.shape[0]
        n_params = params.shape[0] if with_sums else 0
        labels = np.empty(n_rows, dtype=np.intp)
        min_losses = np.empty(n_rows if with_losses else 0, dtype=np.float64)
        sums = np.zeros((n_params, self.n_features), block.dtype)
        counts = np.zeros(n_params)
        common = (
            params,
            half_center_sq,
            self._half_sq_norms[rows],
            np.asarray(sample_weight, dtype=block.dtype),
            labels,
            min_losses,
            sums,
            counts,
            with_sums,
            n_threads,
        )
        if sp.issparse(block):
            *totals, team = assign_csr(block.data, block.indices, block.indptr, *common)
        else:
            *totals, team = assign_dense(block, *common)
        report_threads(team)
        return labels, min_losses, sums, counts, *totals

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
        return _group_sums(membership, self.X[rows])

    def assigned_losses(self, params, labels):
        # O(n d) where a reclassification costs O(n k d), as KMeans computes
        # the distances of a relocation: the exact differences of dense rows,
        # the stored entries of CSR ones.
        losses = np.empty(self.n_samples)
        params = np.asarray(params, dtype=self.X.dtype)
        half_center_sq = 0.5 * np.einsum("ij,ij->i", params, params)
        for rows in row_blocks(self.n_samples, self.n_features):
            block, assigned = self.X[rows], labels[rows]
            if sp.issparse(block):
                cross = (block.multiply(params[assigned])).sum(axis=1)
                values = (
                    self._half_sq_norms[rows]
                    + half_center_sq[assigned]
                    - np.asarray(cross).ravel()
                )
                losses[rows] = np.maximum(values, 0)
            else:
                diff = block - params[assigned]
                losses[rows] = 0.5 * np.einsum("ij,ij->i", diff, diff)
        return losses

    def relocated_statistics(
        self, statistics, moved, from_labels, labels, sample_weight, n_params
    ):
        # KMeans' update: each moved row's weighted value leaves the sums of
        # its old group and joins those of its new one, no pass over the data.
        (sums,) = statistics
        rows = _dense_rows(self.X, moved) * sample_weight[moved, None]
        rows = rows.astype(sums.dtype, copy=False)
        sums = sums.copy()
        np.subtract.at(sums, from_labels, rows)
        np.add.at(sums, labels[moved], rows)
        return (sums,), group_weights(labels, sample_weight, n_params)

    def group_minimizer(self, params, statistics, counts):
        return _group_means(params, statistics, counts)

    def group_gradient(self, params, statistics, counts):
        # grad F_j(x_j) = x_j - mean(C_j); empty groups give x_j - x_j = 0.
        return params - self.group_minimizer(params, statistics, counts)


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
            out[rows] = kl_div(_dense_rows(self.X, rows), param).sum(axis=1)
        if not np.all(param > 0):
            _warn_infinite(out)
        return out

    def sample_min_values(self):
        if self._min_values is None:
            # Summed exactly as loss_vector sums, so that a sample's gap at its
            # own minimizer is exactly zero and the seeding never redraws it.
            self._min_values = np.empty(self.n_samples, dtype=self.X.dtype)
            for rows in row_blocks(self.n_samples, self.n_features):
                block = _dense_rows(self.X, rows)
                self._min_values[rows] = kl_div(
                    block, np.maximum(block, self.floor)
                ).sum(axis=1)
        return self._min_values

    def sample_minimizers(self, indices, random_state):
        return np.maximum(_dense_rows(self.X, np.asarray(indices)), self.floor)

    def random_params(self, n_params, random_state, dtype):
        # Log-normal: the paper's Gaussian in log space, clipped into the box.
        normal = random_state.standard_normal((n_params, self.n_features))
        return np.maximum(np.exp(normal), self.floor).astype(dtype, copy=False)

    def group_statistics(self, membership, rows=slice(None)):
        return _group_sums(membership, self.X[rows])

    def group_minimizer(self, params, statistics, counts):
        """Compute the minimizers of the group objectives over the box.

        The weighted mean of every group clipped at :attr:`floor`; a group of
        zero weight keeps its parameter, clipped at :attr:`floor` too.

        Parameters
        ----------
        params : ndarray of shape (n_params, n_features)
            The parameters :math:`x_1, \\dots, x_{n\\_params}`.
        statistics : tuple of ndarray
            Group statistics from :meth:`group_statistics`, summed over all
            row blocks.
        counts : ndarray of shape (n_params,)
            Total weight :math:`\\sum_{i \\in C_j} w_i` of every group.

        Returns
        -------
        minimizers : ndarray of shape (n_params, n_features)
            The new parameters, every coordinate at least :attr:`floor`.
        """
        return np.maximum(_group_means(params, statistics, counts), self.floor)


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
