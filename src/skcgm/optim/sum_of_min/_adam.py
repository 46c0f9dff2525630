"""Generalized Lloyd with Adam group steps (Algorithm 2 as section 5.2 runs it)."""

import numpy as np

from ...utils._progress import Progress
from ._gradient import BestIterate
from ._result import SumOfMinResult
from .losses._base import group_weights
from .losses._mlp import Adam

__all__ = ["AdamLloyd"]


class AdamLloyd:
    """Generalized Lloyd whose group step is a few Adam steps.

    Every epoch reclassifies the samples (eq. 3.6) at the current parameters,
    then takes ``inner_steps`` Adam steps on every non-empty group objective
    :math:`F_j` (eq. 3.7) with the partition held fixed: Algorithm 2 with its
    gradient step replaced by Adam and :math:`r` = ``inner_steps``, the
    optimizer of the paper's mixed non-linear regression (Ding, Chen, Wang
    and Yin, ICML 2024, section 5.2: learning rate 1e-3, :math:`r = 10`).
    Every parameter keeps its own Adam moments and step count across epochs;
    a group left without samples does not step. An epoch is one
    reclassification, the unit of the paper's Tables 4 and 5.

    Stops after ``max_iter`` epochs, when the objective has not fallen below
    its best value minus ``tol`` times that value for ``n_iter_no_change``
    epochs in a row (the rule of :class:`~sklearn.neural_network.MLPRegressor`),
    or, with ``stop_below``, as soon as it falls below that value (the
    protocol of Table 4). A run whose objective overflows, or ends above its
    initial value, is cut back to its iterate of lowest objective.

    Parameters
    ----------
    eta0 : float, default=None
        Adam's step :math:`\\gamma`; None means 1e-3, the paper's.
    inner_steps : int, default=10
        Adam steps per epoch (the paper's :math:`r`).
    max_iter : int, default=200
        Maximum number of epochs.
    tol : float, default=1e-4
        Relative improvement that resets the count of epochs without one.
    n_iter_no_change : int, default=10
        Epochs without improvement that stop the run.
    stop_below : float, default=None
        Stop at the first epoch whose objective is below it.
    beta1, beta2, epsilon : float, default=0.9, 0.999, 1e-8
        Adam's other hyper-parameters.

    See Also
    --------
    GradientLloyd : One gradient step per iteration (eq. 3.8).
    MixedMLPLoss : The loss family it was built for.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import AdamLloyd, MixedMLPLoss
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> problem = MixedMLPLoss((), "identity", alpha=1e-4).bind(X, 2 * X[:, 0])
    >>> result = AdamLloyd(eta0=0.1, max_iter=100, tol=0).solve(
    ...     problem, np.zeros((1, 2)), np.ones(3), np.random.RandomState(0)
    ... )
    >>> np.round(result.params, 1)
    array([[2., 0.]])
    """

    #: The name of the solver in the ``solver`` option of the engine.
    name = "adam"
    #: The loss capabilities this solver needs.
    requires = ("has_partition_gradient",)

    def __init__(
        self,
        eta0=None,
        inner_steps=10,
        max_iter=200,
        tol=1e-4,
        n_iter_no_change=10,
        stop_below=None,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
    ):
        self.eta0 = eta0
        self.inner_steps = inner_steps
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.stop_below = stop_below
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def solve(self, problem, start, sample_weight, random_state, progress=None):
        """Run from ``start`` until a stopping rule or ``max_iter`` epochs.

        Parameters
        ----------
        problem : SumOfMinLoss
            A loss family bound to the data, with ``partition_groups`` and
            ``groups_gradient``.
        start : ndarray of shape (n_clusters, \\*param_shape)
            The initial parameters.
        sample_weight : ndarray of shape (n_samples,)
            Weights of the samples.
        random_state : RandomState
            Unused: the epochs are deterministic.
        progress : Progress, default=None
            Receives the verbose lines; None is silent.

        Returns
        -------
        result : SumOfMinResult
            The run's parameters, labels and objective at every epoch.
        """
        progress = Progress(None) if progress is None else progress
        params = start
        n_clusters = params.shape[0]
        adam = Adam(
            params.shape,
            1e-3 if self.eta0 is None else self.eta0,
            self.beta1,
            self.beta2,
            self.epsilon,
        )
        history = []
        best = BestIterate(params)
        best_objective, stalled = np.inf, 0
        converged = diverged = False
        for epoch in range(self.max_iter + 1):
            labels, _, objective, _ = problem.reclassify(params, sample_weight)
            if not best.record(epoch, params, objective, history, progress):
                diverged = True
                break
            if self.stop_below is not None and objective < self.stop_below:
                progress.converged(epoch, f"objective below {self.stop_below}")
                converged = True
                break
            if objective > best_objective - self.tol * abs(best_objective):
                stalled += 1
            else:
                stalled = 0
            best_objective = min(best_objective, objective)
            if stalled >= self.n_iter_no_change:
                progress.converged(
                    epoch,
                    f"no improvement above tol={self.tol} for "
                    f"{self.n_iter_no_change} consecutive epochs",
                )
                converged = True
                break
            if epoch == self.max_iter:
                break
            counts = group_weights(labels, sample_weight, n_clusters)
            active = counts > 0
            groups = problem.partition_groups(labels, sample_weight, counts)
            for _ in range(self.inner_steps):
                gradient = problem.groups_gradient(params, groups)
                params = adam.step(params, gradient, active)
            if not np.all(np.isfinite(params)):
                diverged = True
                break
        if diverged or best.diverged(params, history):
            return best.cut_back(problem, start, sample_weight, history)
        return SumOfMinResult.from_run(
            start, params, labels, history, len(history) - 1, converged=converged
        )
