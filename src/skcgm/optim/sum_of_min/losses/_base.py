"""Per-sample loss families for the sum-of-minimum engine: their protocol.

A loss family describes the sub-functions :math:`f_i` of the sum-of-minimum
problem (Ding, Chen, Wang and Yin, eq. 1.1)

.. math::

    F(x_1, \\dots, x_k) = \\frac{1}{N} \\sum_{i=1}^N \\min_{1 \\le j \\le k} f_i(x_j).

An instance holds hyper-parameters only; :meth:`SumOfMinLoss.bind` returns a
copy tied to a data set, with whatever the family precomputes from it. The
solvers of :mod:`skcgm.optim.sum_of_min` only talk to bound losses through the
methods of :class:`SumOfMinLoss`, so a new application (mixed linear
regression, subspace clustering, ...) is a new subclass in a file of its own,
not a new loop; the solvers a family serves follow from its capability flags
(the solver registry).
"""

import copy
from abc import ABCMeta, abstractmethod
from inspect import cleandoc

import numpy as np
import scipy.sparse as sp

from ....utils._blocks import map_row_blocks, row_blocks

__all__ = [
    "SumOfMinLoss",
    "dense_rows",
    "group_membership",
    "group_weights",
    "weighted_mean",
]


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


def dense_rows(X, rows):
    """Rows of a dense array or CSR matrix as a dense array."""
    block = X[rows]
    return block.toarray() if sp.issparse(block) else block


def _group_method_doc(summary, returns):
    """The docstring of a method of the group statistics.

    ``summary`` opens it and ``returns`` is its Returns entry; the
    parameters, ``(params, statistics, counts)``, are those every such
    method takes.
    """
    return "\n\n".join(
        [cleandoc(summary), _GROUP_PARAMETERS, "Returns\n-------\n" + cleandoc(returns)]
    )


_GROUP_PARAMETERS = cleandoc(
    """
    Parameters
    ----------
    params : ndarray of shape (n_params, *param_shape)
        The parameters :math:`x_1, \\dots, x_{n\\_params}`.
    statistics : tuple of ndarray
        Group statistics from :meth:`group_statistics`, summed over all
        row blocks.
    counts : ndarray of shape (n_params,)
        Total weight :math:`\\sum_{i \\in C_j} w_i` of every group.
    """
)

#: The docstrings of the protocol methods only some families define, which
#: :class:`SumOfMinLoss` gives to a subclass's method that has none.
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
    "group_gradient": _group_method_doc(
        """Compute the gradients of the group objectives (eq. 3.7).

        :math:`\\nabla F_j(x_j) = \\sum_{i \\in C_j} w_i \\nabla f_i(x_j) /
        \\sum_{i \\in C_j} w_i`, zero for an empty group.
        """,
        """
        gradients : ndarray of shape (n_params, *param_shape)
            The gradient of every group objective at its parameter.
        """,
    ),
    "group_minimizer": _group_method_doc(
        """Compute the closed-form minimizers of the group objectives.

        :math:`\\arg\\min_x \\sum_{i \\in C_j} w_i f_i(x)` for every
        group; a group of zero weight keeps its parameter.
        """,
        """
        minimizers : ndarray of shape (n_params, *param_shape)
            The new parameters.
        """,
    ),
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
            method.__doc__ = getattr(inherited, "__doc__", None) or _OPTIONAL_DOCS.get(
                name
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

    def for_chunks(self, X, y=None):
        """Return the loss every chunk of a dask array binds, and the passes it took.

        Every chunk binds a copy of its own; a family whose binding computes
        something of the whole data (a mean, a scale) computes it here, in
        passes over the chunks, so that every chunk binds as the whole data
        would. The families that need nothing return themselves.

        Parameters
        ----------
        X : dask array of shape (n_samples, n_features)
            The data, chunked by rows.
        y : dask array of shape (n_samples,), default=None
            Its targets, chunked as its rows.

        Returns
        -------
        loss : SumOfMinLoss
            The unbound loss the chunks bind.
        n_passes : int
            The passes over the data it took.
        """
        return self, 0

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
