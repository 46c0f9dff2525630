"""Generalized Lloyd with exact group minimization (Algorithms 5 and 7)."""

import numpy as np

from ...utils._progress import Progress
from ._empty_groups import relocate_empty
from ._result import SumOfMinResult

__all__ = ["ExactLloyd"]


def _decreased_enough(previous, current, tol):
    """Whether the relative decrease ``(previous - current) / previous`` <= tol."""
    if not np.isfinite(previous):
        return False
    return previous - current <= tol * abs(previous)


class ExactLloyd:
    """Generalized Lloyd: every parameter moves to the minimizer of its group.

    Each iteration reclassifies (eq. 3.6 of Ding, Chen, Wang and Yin, ICML
    2024) and replaces every parameter by the minimizer of its group
    objective. Stops when the partition repeats (the next update would
    change nothing) or the objective decreases by at most ``tol`` relative to
    its previous value.

    Parameters
    ----------
    max_iter : int, default=300
        Maximum number of parameter updates.
    tol : float, default=1e-4
        Relative decrease of the objective at which to stop.
    empty_cluster : {'relocate', 'keep'}, default='relocate'
        'relocate' moves the samples worst served into empty groups, as
        :class:`~sklearn.cluster.KMeans` does; 'keep' leaves them empty.

    See Also
    --------
    GradientLloyd : Gradient steps, for losses without a group minimizer.
    sum_of_minimum : Seeding, restarts and a solver by name.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import ExactLloyd, SquaredEuclideanLoss
    >>> problem = SquaredEuclideanLoss().bind(np.array([[0.0], [1.0], [9.0]]))
    >>> result = ExactLloyd().solve(
    ...     problem, np.array([[0.0], [9.0]]), np.ones(3), np.random.RandomState(0)
    ... )
    >>> result.params.ravel(), result.n_iter
    (array([0.5, 9. ]), 1)
    """

    #: The name of the solver in the estimators' ``solver`` option.
    name = "exact"
    #: The loss capabilities this solver needs.
    requires = ("has_group_minimizer",)

    def __init__(self, max_iter=300, tol=1e-4, empty_cluster="relocate"):
        self.max_iter = max_iter
        self.tol = tol
        self.empty_cluster = empty_cluster

    def solve(self, problem, start, sample_weight, random_state, progress=None):
        """Run from ``start`` until the stopping rule or ``max_iter``.

        Parameters
        ----------
        problem : SumOfMinLoss
            A loss family bound to the data.
        start : ndarray of shape (n_clusters, \\*param_shape)
            The initial parameters.
        sample_weight : ndarray of shape (n_samples,)
            Weights of the samples.
        random_state : RandomState
            Unused: the exact solver is deterministic.
        progress : Progress, default=None
            Receives the verbose lines; None is silent.

        Returns
        -------
        result : SumOfMinResult
            The run's parameters, labels and objective history.
        """
        progress = Progress(None) if progress is None else progress
        tol = self.tol
        params = start
        n_clusters = params.shape[0]
        history = []
        previous_labels = None
        converged = repeated = False
        # One pass per iterate x^(0), ..., x^(max_iter): bounded by the count.
        for n_iter in range(self.max_iter + 1):
            labels, objective, statistics, counts = problem.reclassify_partition(
                params, sample_weight
            )
            history.append(objective)
            if previous_labels is not None:
                # KMeans' order: a repeated partition first, then the tolerance.
                repeated = np.array_equal(labels, previous_labels)
                if repeated:
                    progress.iteration(n_iter, objective)
                    progress.converged(n_iter, "strict convergence")
                    converged = True
                    break
                previous = history[-2]
                if _decreased_enough(previous, objective, tol):
                    relative = (
                        (previous - objective) / abs(previous) if previous else 0.0
                    )
                    progress.converged(
                        n_iter - 1,
                        f"relative decrease of the {progress.quantity} "
                        f"{relative:.3g} within tolerance {tol}",
                    )
                    converged = True
                    break
            if n_iter == self.max_iter:
                break
            progress.iteration(n_iter, objective)
            if self.empty_cluster == "relocate" and np.any(counts == 0):
                # The losses only now: KMeans too recomputes the distances
                # for a relocation, which few iterations make.
                min_losses = problem.assigned_losses(params, labels)
                before = labels.copy()
                moved = relocate_empty(
                    problem, labels, min_losses, sample_weight, n_clusters
                )
                if moved.size:
                    statistics, counts = problem.relocated_statistics(
                        statistics,
                        moved,
                        before[moved],
                        labels,
                        sample_weight,
                        n_clusters,
                    )
            params = problem.group_minimizer(params, statistics, counts)
            previous_labels = labels
        return SumOfMinResult.from_run(
            start,
            params,
            labels,
            history,
            n_iter,
            converged=converged,
            partition_repeated=repeated,
        )
