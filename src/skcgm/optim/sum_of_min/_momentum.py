"""Momentum Lloyd with controlled reclassification (Algorithm 3)."""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ...utils._blocks import row_blocks
from ...utils._progress import Progress
from ._empty_groups import relocate_parameters
from ._gradient import BestIterate, LipschitzStep, stationarity
from ._result import SumOfMinResult

__all__ = ["MomentumLloyd"]


def _controlled_reclassify(
    labels, target_labels, sample_weight, size_change_factor, order
):
    """ControlledReclassify of Appendix B.2 (Algorithm 3, line 6).

    Visits the samples in the order ``order`` (a random permutation), moving
    each to its target group, and stops at the first move after which a group
    it changed leaves :math:`[s_j / \\alpha, \\alpha s_j]`, :math:`s_j` the
    group's weight before the call (eq. 3.12). That move and all later ones are
    rejected. The paper checks the bounds "for j' in [N]"; the groups are
    indexed by [k], so this is read as a typo for [k] (the check runs over the
    groups the move changed). Vectorized: the group weights after every move
    are running sums, so the first violation is found without a Python loop
    per sample.

    Parameters
    ----------
    labels : ndarray of shape (n_samples,)
        The current partition :math:`C^{(t)}`.
    target_labels : ndarray of shape (n_samples,)
        The group of smallest loss at the acceleration variable
        :math:`u^{(t+1)}` for every sample.
    sample_weight : ndarray of shape (n_samples,)
        Weights; a group's size is its total weight.
    size_change_factor : float
        The factor :math:`\\alpha > 1`.
    order : ndarray of shape (n_samples,)
        The order in which samples are visited.

    Returns
    -------
    new_labels : ndarray of shape (n_samples,)
        The partition :math:`C^{(t+1)}`.
    n_moved : int
        Number of samples that changed group.
    """
    n_clusters = int(max(labels.max(), target_labels.max())) + 1
    sizes = np.bincount(labels, weights=sample_weight, minlength=n_clusters)
    lower, upper = sizes / size_change_factor, sizes * size_change_factor
    moves = order[target_labels[order] != labels[order]]
    accepted = moves.size
    for block in row_blocks(moves.size, n_clusters):
        idx = moves[block]
        source, dest, weight = labels[idx], target_labels[idx], sample_weight[idx]
        steps = np.arange(idx.size)
        delta = np.zeros((idx.size, n_clusters))
        delta[steps, source] -= weight
        delta[steps, dest] += weight
        running = sizes + np.cumsum(delta, axis=0)
        after_source, after_dest = running[steps, source], running[steps, dest]
        violated = (
            (after_source < lower[source])
            | (after_source > upper[source])
            | (after_dest < lower[dest])
            | (after_dest > upper[dest])
        )
        if violated.any():
            accepted = block.start + int(np.argmax(violated))
            break
        sizes = running[-1]
    new_labels = labels.copy()
    new_labels[moves[:accepted]] = target_labels[moves[:accepted]]
    return new_labels, accepted


class MomentumLloyd(LipschitzStep):
    """Momentum Lloyd with controlled reclassification (Algorithm 3).

    .. math::

        x_j^{(t+1)} = x_j^{(t)} - \\gamma m_j^{(t)}, \\quad
        u_j^{(t+1)} = \\frac{x_j^{(t+1)} - \\beta x_j^{(t)}}{1 - \\beta}, \\quad
        m_j^{(t+1)} = \\beta m_j^{(t)} + \\nabla F_j^{(t+1)}(x_j^{(t+1)})

    (Ding, Chen, Wang and Yin, ICML 2024, eqs. 3.9-3.11), the partition
    following :math:`u` under the size control (3.12). The paper leaves
    :math:`C^{(0)}` undefined; it is the reclassification (eq. 3.6) at
    :math:`x^{(0)}` here, a choice of this implementation. The objective of
    the iterates need not decrease, and it can repeat while the momentum is
    not zero, so the run stops at a reclassification where every sample's
    target group is already its own when the stationarity measure of
    Theorem 4.7 plus the squared momentum, over :math:`2L`, is at most
    ``tol`` times the objective. A diverging run is cut back to its iterate
    of lowest objective.

    Parameters
    ----------
    eta0 : float, default=None
        Step size :math:`\\gamma`; None means :math:`(1 - \\beta)/L`, so that
        the acceleration variable takes steps of :math:`1/L`. Larger steps
        overshoot: at ``eta0=0.75`` with :math:`\\beta = 0.5` (L = 1), 25 of
        the 110 runs of the panel (see Notes) hit ``max_iter``.
    reclassify_every : int, default=1
        Reclassify every ``reclassify_every`` iterations. Less often costs
        iterations (1.4 to 4.3 times as many at 5) and gives up most of the
        gains over 'exact' (see Notes).
    momentum : float, default=0.5
        Momentum :math:`\\beta \\in [0, 1)`. At 0.3 and below the geometric
        means of the panel (Notes) stay between 0.98 and 1.00, in fewer
        iterations than at 0.5 but with smaller gains; at 0.7 the run
        oscillates between partitions, hits ``max_iter`` in 37 of 110 runs
        and ends above 'exact' on digits, iris and elongated blobs (geometric
        means 1.09 to 1.21), at 0.9 on six families of seven.
    size_change_factor : float, default=1.9
        Factor :math:`\\alpha > 1` bounding the change of every group's size
        at a reclassification (eq. 3.12). From 1.9 to 3 the panel's ratios
        (Notes) hardly change; at 1.5, the former default, and without
        control (1e6), one of compare's blob folds ends at 2.87 times exact's
        inertia (two blobs merged, one split); at 1.2 the gains on unequal
        sizes vanish. 1.9 is the largest tenth with :math:`\\alpha\\beta < 1`
        (Theorem 4.7) at the default momentum.
    max_iter : int, default=300
        Maximum number of parameter updates. Reaching it without meeting the
        stopping rule raises a :class:`~sklearn.exceptions.ConvergenceWarning`.
    tol : float, default=1e-4
        Tolerance of the stationarity test.
    empty_cluster : {'relocate', 'keep'}, default='relocate'
        'relocate' fills empty groups at the start, under the size control
        they would stay empty; 'keep' leaves them.

    See Also
    --------
    GradientLloyd : Plain gradient steps (Algorithm 2).
    sum_of_minimum : Seeding, restarts and a solver by name.

    Notes
    -----
    The paper gives no default for :math:`\\alpha`, :math:`\\beta`,
    :math:`\\gamma` or :math:`r` and reports no experiment with Algorithm 3.
    The defaults come from a panel (user guide, "Choosing the momentum
    solver's defaults"): k-means
    (squared Euclidean loss, :math:`L = 1`) from the same seeding as
    'exact', ten seeds per family, the ratio of the final inertias
    momentum/exact (geometric mean; runs lower / higher by more than 0.1%):

    - well-separated blobs, compare's 50 training folds: 0.984 (2 / 0; the
      two are runs where 'exact' merges two blobs, at 0.46);
    - overlapping blobs (``cluster_std=3``): 0.964 (3 / 1; the one loss ends
      at 1.31 times exact's inertia, the largest win at 0.53);
    - elongated blobs: 0.951 (1 / 1, the loss 0.1%);
    - unequal sizes: 0.946 (7 / 0);
    - ``load_digits``, k=10: 0.983 (7 / 0);
    - ``load_iris``, k=3, and d=32, k=32 blobs: 1.000 (ties).

    For k-means every group objective is an isotropic quadratic, which one
    exact step minimizes: momentum cannot converge faster than 'exact'. It
    ends at a fixed point of Lloyd's algorithm like 'exact', reached by
    another path through the partitions, in 1.6 to 7 times the iterations (21
    against 3 on well-separated blobs, 47 against 10 with unequal sizes), each
    evaluating the losses twice. Where 'exact' stops in a poor local minimum
    (merged or split clusters) that path often escapes it, which is what the
    ratios above measure; a single run can also end worse than 'exact'.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import MomentumLloyd, SquaredEuclideanLoss
    >>> problem = SquaredEuclideanLoss().bind(np.array([[0.0], [1.0], [9.0]]))
    >>> result = MomentumLloyd().solve(
    ...     problem, np.array([[0.0], [9.0]]), np.ones(3), np.random.RandomState(0)
    ... )
    >>> bool(result.objective < result.objective_history[0])
    True
    """

    #: The name of the solver in the estimators' ``solver`` option.
    name = "momentum"
    #: The loss capabilities this solver needs.
    requires = ("has_lipschitz_gradient",)

    def __init__(
        self,
        eta0=None,
        reclassify_every=1,
        momentum=0.5,
        size_change_factor=1.9,
        max_iter=300,
        tol=1e-4,
        empty_cluster="relocate",
    ):
        self.eta0 = eta0
        self.reclassify_every = reclassify_every
        self.momentum = momentum
        self.size_change_factor = size_change_factor
        self.max_iter = max_iter
        self.tol = tol
        self.empty_cluster = empty_cluster

    def _step_fraction(self):
        return 1.0 - self.momentum

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
            Draws the visiting order of every controlled reclassification.
        progress : Progress, default=None
            Receives the verbose lines; None is silent.

        Returns
        -------
        result : SumOfMinResult
            The run's parameters, labels and objective history.
        """
        progress = Progress(None) if progress is None else progress
        eta0, momentum = self.step(problem), self.momentum
        params = start
        n_clusters = params.shape[0]
        labels, min_losses, objective, _ = problem.reclassify(params, sample_weight)
        history = [objective]
        partition = labels.copy()
        if self.empty_cluster == "relocate":
            # Under the size control an empty group stays empty, so fill it now.
            params, moved = relocate_parameters(
                problem, params, partition, min_losses, sample_weight, random_state
            )
            if moved.size:
                labels, min_losses, objective, _ = problem.reclassify(
                    params, sample_weight
                )
                history[0] = objective
        statistics, counts = problem.partition_statistics(
            partition, sample_weight, n_clusters
        )
        velocity = np.zeros_like(params)
        converged = overflowed = False
        best = BestIterate(params)
        best.update(0, params, objective)
        # One pass per update, at most max_iter of them.
        for n_iter in range(1, self.max_iter + 1):
            new_params = params - eta0 * velocity
            if not np.all(np.isfinite(new_params)):
                overflowed = True
                break
            settled = False
            if n_iter % self.reclassify_every == 0:
                accel = (new_params - momentum * params) / (1 - momentum)
                target, _, _, _ = problem.reclassify(accel, sample_weight)
                # Settled only if nobody wants to move: a partition frozen
                # because the size control rejected the first move is not.
                settled = np.array_equal(target, partition)
                order = random_state.permutation(problem.n_samples)
                partition, n_moved = _controlled_reclassify(
                    partition, target, sample_weight, self.size_change_factor, order
                )
                if n_moved:
                    statistics, counts = problem.partition_statistics(
                        partition, sample_weight, n_clusters
                    )
            params = new_params
            gradient = problem.group_gradient(params, statistics, counts)
            velocity = momentum * velocity + gradient
            labels, min_losses, objective, _ = problem.reclassify(params, sample_weight)
            if not best.record(n_iter, params, objective, history, progress):
                overflowed = True
                break
            # At t = 0 the velocity is zero and x does not move: nothing to judge.
            if n_iter > 1 and settled:
                residual = stationarity(problem, gradient, counts) + stationarity(
                    problem, velocity, counts
                )
                if residual <= self.tol * objective:
                    progress.converged(
                        n_iter, f"stationarity within tolerance {self.tol}"
                    )
                    converged = True
                    break
        if overflowed or best.diverged(params, history):
            return best.cut_back(problem, start, sample_weight, history)
        if not converged and self.max_iter > 0:
            warnings.warn(
                f"solver='momentum' reached max_iter={self.max_iter} without "
                "meeting its stopping rule (the partition still moving, or the "
                "stationarity measure above tol); the result is the last "
                "iterate. Increase max_iter, or lower momentum.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return SumOfMinResult.from_run(
            start, params, labels, history, len(history) - 1, converged=converged
        )
