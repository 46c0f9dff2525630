"""Generalized Lloyd with gradient steps (Algorithm 2, eq. 3.8)."""

import numpy as np

from ...utils._progress import Progress
from ._empty_groups import relocate_parameters
from ._result import SumOfMinResult
from .losses._base import group_weights

__all__ = ["BestIterate", "GradientLloyd", "LipschitzStep", "stationarity"]


def stationarity(problem, vectors, counts):
    """Weighted mean squared norm of per-group vectors, divided by 2L.

    With the group gradients this is the measure of Theorems 4.6 and 4.7,
    :math:`\\sum_j (|C_j|/N) \\|\\nabla F_j(x_j)\\|^2`, over :math:`2L`: for the
    squared Euclidean loss, exactly how far :math:`F` is above its minimum over
    the current partition.
    """
    sq_norms = (vectors.reshape(vectors.shape[0], -1) ** 2).sum(axis=1)
    return float(counts @ sq_norms / counts.sum()) / (2 * problem.lipschitz())


class BestIterate:
    """The iterate of lowest objective of a gradient run, to fall back on.

    A step too large for the losses (``eta0`` above :math:`2/L`)
    makes the iterates of 'gd' and 'momentum' grow geometrically until they
    overflow. Such a run is cut back to its best iterate, the rule of both
    gradient solvers, and reported as diverged.
    """

    def __init__(self, params):
        # The initial parameters until an iterate of finite objective is seen.
        self.objective, self.params, self.n_iter = np.inf, params, 0

    def update(self, n_iter, params, objective):
        if objective < self.objective:
            self.objective, self.params, self.n_iter = objective, params, n_iter

    def record(self, n_iter, params, objective, history, progress):
        """Append an iterate's objective to ``history``, report it, keep it if best.

        Returns False, keeping nothing, when the objective overflowed.
        """
        history.append(objective)
        progress.iteration(n_iter, objective)
        if not np.isfinite(objective):
            return False
        self.update(n_iter, params, objective)
        return True

    def diverged(self, params, history):
        """Whether the run overflowed or ended above its initial objective."""
        last = history[-1]
        return not (np.isfinite(last) and np.all(np.isfinite(params))) or (
            last > history[0]
        )

    def cut_back(self, problem, start, sample_weight, history):
        """The result of the run stopped at its best iterate, marked diverged."""
        labels, _, _, _ = problem.reclassify(self.params, sample_weight)
        return SumOfMinResult.from_run(
            start,
            self.params,
            labels,
            history[: self.n_iter + 1],
            self.n_iter,
            diverged=True,
        )


class LipschitzStep:
    """The step of the gradient solvers: ``eta0``, or a fraction of :math:`1/L`."""

    def step(self, problem):
        """The step size: ``eta0``, or the one of the convergence theorems.

        When ``eta0`` is None, :math:`c/L`, :math:`L` the Lipschitz constant
        of the gradients: :math:`c = 1` for :class:`GradientLloyd` (Theorem
        4.6), :math:`c = 1 - \\beta` for :class:`MomentumLloyd`, so that its
        acceleration variable takes steps of :math:`1/L` (proof of Theorem
        D.2).

        Parameters
        ----------
        problem : SumOfMinLoss
            The bound loss family, for its Lipschitz constant :math:`L`.

        Returns
        -------
        step : float
            The step size :math:`\\gamma`.
        """
        if self.eta0 is not None:
            return self.eta0
        return self._step_fraction() / problem.lipschitz()


class GradientLloyd(LipschitzStep):
    """Generalized Lloyd with one gradient step per iteration (Algorithm 2).

    The partition is recomputed every ``reclassify_every`` iterations and
    kept in between (Ding, Chen, Wang and Yin, ICML 2024, eq. 3.8). Stops at
    a reclassification that changes nothing when the stationarity measure of
    Theorem 4.6 over :math:`2L` is at most ``tol`` times the objective, or
    when the step leaves the parameters unchanged. Empty groups are relocated
    as part of the update that follows a reclassification. A diverging run is
    cut back to its iterate of lowest objective.

    Parameters
    ----------
    eta0 : float, default=None
        Step size :math:`\\gamma`; None means :math:`1/L` (Theorem 4.6).
    reclassify_every : int, default=1
        Reclassify every ``reclassify_every`` iterations (the paper's
        :math:`r`).
    max_iter : int, default=300
        Maximum number of parameter updates.
    tol : float, default=1e-4
        Tolerance of the stationarity test.
    empty_cluster : {'relocate', 'keep'}, default='relocate'
        'relocate' puts the parameters of empty groups at the samples worst
        served; 'keep' leaves them where they are.

    See Also
    --------
    ExactLloyd : Exact group minimization.
    MomentumLloyd : Gradient steps with momentum (Algorithm 3).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import GradientLloyd, SquaredEuclideanLoss
    >>> problem = SquaredEuclideanLoss().bind(np.array([[0.0], [1.0], [9.0]]))
    >>> result = GradientLloyd(eta0=0.5).solve(
    ...     problem, np.array([[0.0], [9.0]]), np.ones(3), np.random.RandomState(0)
    ... )
    >>> np.round(result.params.ravel(), 3)
    array([0.5, 9. ])
    """

    #: The name of the solver in the estimators' ``solver`` option.
    name = "gd"
    #: The loss capabilities this solver needs.
    requires = ("has_lipschitz_gradient",)

    def __init__(
        self,
        eta0=None,
        reclassify_every=1,
        max_iter=300,
        tol=1e-4,
        empty_cluster="relocate",
    ):
        self.eta0 = eta0
        self.reclassify_every = reclassify_every
        self.max_iter = max_iter
        self.tol = tol
        self.empty_cluster = empty_cluster

    def _step_fraction(self):
        return 1.0

    def solve(self, problem, start, sample_weight, random_state, progress=None):
        """Run from ``start`` until the stopping rule or ``max_iter``.

        Parameters
        ----------
        problem : SumOfMinLoss
            A loss family bound to the data, with Lipschitz gradients.
        start : ndarray of shape (n_clusters, \\*param_shape)
            The initial parameters.
        sample_weight : ndarray of shape (n_samples,)
            Weights of the samples.
        random_state : RandomState
            Draws the minimizers of relocated samples, where a family's are
            random.
        progress : Progress, default=None
            Receives the verbose lines; None is silent.

        Returns
        -------
        result : SumOfMinResult
            The run's parameters, labels and objective history.
        """
        progress = Progress(None) if progress is None else progress
        eta0 = self.step(problem)
        params = start
        n_clusters = params.shape[0]
        history = []
        partition = None
        converged = diverged = False
        best = BestIterate(params)
        # One pass per iterate x^(0), ..., x^(max_iter): bounded by the count.
        for n_iter in range(self.max_iter + 1):
            reclassified = n_iter % self.reclassify_every == 0
            labels, min_losses, objective, new_statistics = problem.reclassify(
                params, sample_weight, with_statistics=reclassified
            )
            if not best.record(n_iter, params, objective, history, progress):
                diverged = True
                break
            settled = False
            if reclassified:
                settled = partition is not None and np.array_equal(labels, partition)
                partition = labels.copy()
                statistics = new_statistics
                counts = group_weights(partition, sample_weight, n_clusters)
            gradient = problem.group_gradient(params, statistics, counts)
            if (
                settled
                and stationarity(problem, gradient, counts) <= self.tol * objective
            ):
                progress.converged(n_iter, "strict convergence")
                converged = True
                break
            if n_iter == self.max_iter:
                break
            current = params
            if (
                reclassified
                and self.empty_cluster == "relocate"
                and np.any(counts == 0)
            ):
                params, moved = relocate_parameters(
                    problem, params, partition, min_losses, sample_weight, random_state
                )
                if moved.size:
                    statistics, counts = problem.partition_statistics(
                        partition, sample_weight, n_clusters
                    )
                    gradient = problem.group_gradient(params, statistics, counts)
            new_params = params - eta0 * gradient
            if not np.all(np.isfinite(new_params)):
                diverged = True
                break
            if settled and np.array_equal(new_params, current):
                params = current
                progress.converged(n_iter, "strict convergence")
                converged = True
                break
            params = new_params
        if diverged or best.diverged(params, history):
            return best.cut_back(problem, start, sample_weight, history)
        return SumOfMinResult.from_run(
            start,
            params,
            labels,
            history,
            len(history) - 1,
            converged=converged,
            partition_repeated=converged,
        )
