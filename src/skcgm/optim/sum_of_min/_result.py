"""The result record of the sum-of-minimum solvers."""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["SumOfMinResult"]


@dataclass
class SumOfMinResult:
    """Result of :func:`sum_of_minimum`.

    A plain record of the best of the ``n_init`` runs; every field is also an
    attribute.

    Parameters
    ----------
    params : ndarray of shape (n_clusters, \\*param_shape)
        The parameters :math:`x_1, \\dots, x_k` of the best run.
    labels : ndarray of shape (n_samples,)
        Index of the parameter with the smallest loss for every sample, at the
        final parameters, ties going to the lowest index (eq. 3.6).
    objective : float
        :math:`F = \\sum_i w_i \\min_j f_i(x_j) / \\sum_i w_i` at the final
        parameters (eq. 1.1; with unit weights the paper's :math:`1/N`).
    objective_history : ndarray of shape (n_iter + 1,)
        :math:`F` at the initialization and after every parameter update.
    n_iter : int
        Number of parameter updates of the best run.
    converged : bool
        Whether the best run met the stopping rule before ``max_iter``.
    init_params : ndarray of shape (n_clusters, \\*param_shape)
        The initial parameters of the best run.
    partition_repeated : bool
        Whether the best run stopped because a reclassification repeated the
        partition ('exact' and 'gd'). :class:`sklearn.cluster.KMeans` counts
        that last pass as an iteration: its ``n_iter_`` is ``n_iter + 1``
        then (at most ``max_iter``), ``n_iter`` otherwise.
    diverged : bool
        Whether the best run ('gd' or 'momentum') diverged: an iterate
        overflowed or the last objective exceeded the initial one. The run is
        then cut back to its iterate of lowest objective, which every other
        field describes.

    See Also
    --------
    sum_of_minimum : The solver that returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import sum_of_minimum
    >>> result = sum_of_minimum(np.array([[0.0], [2.0]]), 1)
    >>> result.params, result.objective, result.n_iter
    (array([[1.]]), 0.5, 1)
    """

    params: np.ndarray
    labels: np.ndarray
    objective: float
    objective_history: np.ndarray = field(repr=False)
    n_iter: int
    converged: bool
    init_params: np.ndarray = field(repr=False)
    partition_repeated: bool = field(default=False, repr=False)
    diverged: bool = field(default=False, repr=False)

    @classmethod
    def from_run(cls, start, params, labels, history, n_iter, **flags):
        """The record of one run from ``start``, its objective the last of ``history``.

        Parameters
        ----------
        start : ndarray of shape (n_clusters, \\*param_shape)
            The initial parameters of the run.
        params : ndarray of shape (n_clusters, \\*param_shape)
            Its final parameters.
        labels : ndarray of shape (n_samples,)
            Its final partition.
        history : list of float
            The objective at the start and after every update.
        n_iter : int
            Number of updates.
        **flags : dict
            ``converged``, ``partition_repeated`` and ``diverged``.

        Returns
        -------
        result : SumOfMinResult
            The record.
        """
        flags.setdefault("converged", False)
        return cls(
            params=params,
            labels=labels,
            objective=history[-1],
            objective_history=np.asarray(history),
            n_iter=n_iter,
            init_params=start,
            **flags,
        )

    def group_sizes(self, n_groups):
        """Count the samples of every group of the partition.

        Parameters
        ----------
        n_groups : int
            Number of groups, those without samples included.

        Returns
        -------
        sizes : ndarray of shape (n_groups,)
            Number of samples of every group in :attr:`labels`.
        """
        return np.bincount(self.labels, minlength=n_groups)
