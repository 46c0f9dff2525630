"""The k-means loss of the sum-of-minimum engine, with its compiled pass."""

import math
import time
from contextlib import nullcontext

import numpy as np
import scipy.sparse as sp

from ....utils._blocks import row_blocks, single_threaded_blas
from ....utils._threads import report_threads, thread_chooser
from .._fast import assign_csr, assign_dense
from ._base import (
    SumOfMinLoss,
    _group_means,
    _group_sums,
    dense_rows,
    group_weights,
)

__all__ = ["SquaredEuclideanLoss"]


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
        min_losses = np.empty(sample_weight.shape[0])
        labels, _, statistics, _ = self.reclassify_partition(
            params, sample_weight, rows=rows, with_sums=with_sums, min_losses=min_losses
        )
        return labels, min_losses, statistics

    def reclassify(self, params, sample_weight, with_statistics=False):
        min_losses = np.empty(self.n_samples)
        labels, objective, statistics, _ = self.reclassify_partition(
            params, sample_weight, with_sums=with_statistics, min_losses=min_losses
        )
        return labels, min_losses, objective, statistics

    def reclassify_partition(
        self,
        params,
        sample_weight,
        *,
        rows=slice(None),
        with_sums=True,
        min_losses=None,
    ):
        """Reclassify the samples in one compiled pass, with the groups' sums.

        The family's only call of its compiled kernel, which :meth:`reclassify`
        and :meth:`assign` make too. :math:`\\arg\\min_j \\frac{1}{2}
        \\|x_j\\|^2 - \\langle y_i, x_j \\rangle` does not need
        :math:`\\frac{1}{2}\\|y_i\\|^2`: the kernel takes the cross terms of 256
        rows at a time from one GEMM (dense) or the stored entries (CSR) and
        reads the argmin, the group sums and the weighted losses from them
        while they are in cache. The weights are taken in the dtype of the
        data, as :class:`sklearn.cluster.KMeans` takes them.

        Parameters
        ----------
        params : ndarray of shape (n_params, n_features)
            The parameters :math:`x_1, \\dots, x_{n\\_params}`.
        sample_weight : ndarray of shape (n_rows,)
            Weights :math:`w_i` of the samples of ``rows``.
        rows : slice, default=slice(None)
            The samples, a contiguous block of rows of the bound data. A
            block runs on one thread (its caller may run several blocks at
            once); the whole data on the number of threads measured fastest
            for the size of the pass.
        with_sums : bool, default=True
            Gather the group statistics and weights in the pass.
        min_losses : ndarray of shape (n_rows,), default=None
            Filled with the smallest loss of every sample when given; a
            Lloyd iteration does not need them, and not writing them saves a
            fifth of the memory traffic of a pass over few features.

        Returns
        -------
        labels : ndarray of shape (n_rows,)
            Index of the smallest loss of every sample, ties to the lowest.
        objective : float
            The weighted mean of the smallest losses (eq. 1.1), NaN for rows
            of zero weight.
        statistics : tuple of ndarray or None
            The weighted sums of the groups' rows, or None without
            ``with_sums``.
        counts : ndarray of shape (n_params,)
            Total weight of every group, in the dtype of ``sample_weight``
            (empty without ``with_sums``).
        """
        whole = rows == slice(None)
        if whole:
            # The passes of a fit repeat the same work (its GEMM): their
            # thread count is measured, once per size of work.
            work = self.n_samples * params.size
            chooser = self._pass_threads
            if chooser is None or chooser.work != work:
                layout = "csr" if sp.issparse(self.X) else "dense"
                chooser = self._pass_threads = thread_chooser(
                    f"lloyd pass, {layout} {self.X.dtype}", work
                )
            n_threads = chooser.threads()
        else:
            n_threads = 1
        params = np.ascontiguousarray(params, dtype=self.X.dtype)
        block = self.X if whole else self.X[rows]
        n_params = params.shape[0] if with_sums else 0
        labels = np.empty(block.shape[0], dtype=np.intp)
        sums = np.zeros((n_params, self.n_features), block.dtype)
        counts = np.zeros(n_params)
        arguments = (
            params,
            0.5 * np.einsum("ij,ij->i", params, params),
            self._half_sq_norms[rows],
            np.asarray(sample_weight, dtype=block.dtype),
            labels,
            np.empty(0) if min_losses is None else min_losses,
            sums,
            counts,
            with_sums,
            n_threads,
        )
        start = time.perf_counter()
        with single_threaded_blas() if whole else nullcontext():
            if sp.issparse(block):
                loss, weight, team = assign_csr(
                    block.data, block.indices, block.indptr, *arguments
                )
            else:
                loss, weight, team = assign_dense(block, *arguments)
            report_threads(team)
        if whole:
            chooser.record(n_threads, time.perf_counter() - start)
        counts = counts.astype(sample_weight.dtype, copy=False)
        objective = loss / weight if weight else math.nan
        return labels, objective, (sums,) if with_sums else None, counts

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
            diff = dense_rows(self.X, close) - param
            losses[close] = 0.5 * np.einsum("ij,ij->i", diff, diff)
        return np.maximum(losses, 0, out=losses)

    def grad_sq_norm_vector(self, param):
        return 2 * self.loss_vector(param)

    def sample_min_values(self):
        return np.zeros(self.n_samples, dtype=self.X.dtype)

    def sample_minimizers(self, indices, random_state):
        return np.array(dense_rows(self.X, np.asarray(indices)), copy=True)

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
        rows = dense_rows(self.X, moved) * sample_weight[moved, None]
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
