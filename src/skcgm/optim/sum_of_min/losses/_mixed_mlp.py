"""The mixed non-linear regression loss of the sum-of-minimum engine."""

import numpy as np
from sklearn.utils import check_random_state

from ....utils._blocks import row_blocks
from ._base import SumOfMinLoss, dense_rows
from ._mlp import (
    Adam,
    NetworkLayout,
    backward,
    check_hidden_layer_sizes,
    forward,
    gradient_sq_norms,
)

__all__ = ["MixedMLPLoss"]


class MixedMLPLoss(SumOfMinLoss):
    """Squared residual of a small network plus a ridge penalty, per sample.

    The sub-functions of mixed non-linear regression (Ding, Chen, Wang and
    Yin, section 5.2 and Appendix E.2): for inputs :math:`a_i`, targets
    :math:`b_i` and a fully connected network :math:`\\psi(a; \\theta)`,

    .. math::

        f_i(\\theta) = \\tfrac{1}{2} (\\psi(a_i; \\theta) - b_i)^2
        + \\tfrac{\\alpha}{2} \\|\\theta\\|^2,

    the penalty on every weight and bias, inside the minimum, as in the
    paper. There is no closed-form group minimizer: the group objectives
    (eq. 3.7) are minimized by steps of an optimizer
    (:class:`~skcgm.optim.AdamLloyd`, from :meth:`partition_gradient`), and
    the per-sample minimizer :math:`x_i^*` of the seeding (eqs. 3.1 and 3.4)
    is approximated by ``seeding_steps`` Adam steps on the sample alone, each
    from its own random network (:meth:`random_params`), the oracle of the
    authors' code: the random starts keep the seeds as diverse as a random
    initialization, where one common start would leave every seed near it.
    The minimum values :math:`f_i^*` of the gap score (eq. 3.2) are the
    losses of such fits of every sample, from starts drawn with seed 0; the
    paper's additive-error analysis (eq. 4.3, clipped at zero) covers them.

    With ``hidden_layer_sizes=()`` and ``activation='identity'`` the network
    is the affine map :math:`a^\\top w + o`, and :math:`f_i` is the loss of
    :class:`MixedLinearLoss` without intercept on the inputs
    :math:`(a_i, 1)`.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default=(5,)
        Widths of the hidden layers.
    activation : {'relu', 'tanh', 'logistic', 'identity'}, default='relu'
        Activation of the hidden layers.
    alpha : float, default=0.01
        The penalty :math:`\\alpha` (the paper's :math:`\\lambda`).
    eta0 : float, default=1e-3
        Adam's step in the per-sample minimizations.
    seeding_steps : int, default=300
        Adam steps of every per-sample minimization.

    See Also
    --------
    MixedLinearLoss : The linear case, with a closed-form group minimizer.
    AdamLloyd : The solver of its group objectives.
    skcgm.neural_network.MixedMLPRegressor : The estimator built on it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import MixedMLPLoss
    >>> X, y = np.array([[0.0], [1.0]]), np.array([0.0, 1.0])
    >>> problem = MixedMLPLoss(hidden_layer_sizes=(), activation="identity",
    ...                        alpha=0.0).bind(X, y)
    >>> problem.loss_matrix(np.array([[1.0, 0.0], [0.0, 1.0]]))
    array([[0. , 0.5],
           [0. , 0. ]])
    """

    has_group_minimizer = False
    has_lipschitz_gradient = False
    #: Gradients of the group objectives over any partition (solver='adam').
    has_partition_gradient = True

    def __init__(
        self,
        hidden_layer_sizes=(5,),
        activation="relu",
        alpha=0.01,
        eta0=1e-3,
        seeding_steps=300,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.alpha = alpha
        self.eta0 = eta0
        self.seeding_steps = seeding_steps

    def _set_data(self, X, y):
        # The networks train in float64 whatever the data's dtype: Adam's
        # moments and the penalty of large weights overflow float32.
        self.X = X.astype(np.float64, copy=False)
        self.y = np.asarray(y, dtype=np.float64)
        self.n_samples = X.shape[0]
        hidden = check_hidden_layer_sizes(self.hidden_layer_sizes)
        self.layout = NetworkLayout(X.shape[1], hidden)
        # Widest activation of a network: sets the rows of a block.
        self._width = max(X.shape[1], *hidden, 1)
        self._min_values = None

    def param_shape(self):
        return (self.layout.n_weights,)

    def predict(self, params, rows=slice(None)):
        """Compute the outputs :math:`\\psi(a_i; \\theta_j)` of every network.

        Parameters
        ----------
        params : ndarray of shape (n_params, n_weights)
            The networks' weights.
        rows : slice, default=slice(None)
            The samples, a contiguous block of rows of the bound data.

        Returns
        -------
        outputs : ndarray of shape (n_rows, n_params)
            The output of every network for every sample.
        """
        outputs, _ = forward(self.layout, params, self.X[rows], self.activation)
        return outputs.T

    def _penalty(self, params):
        flat = params.astype(np.float64).reshape(params.shape[0], -1)
        return 0.5 * self.alpha * np.einsum("ij,ij->i", flat, flat)

    def loss_matrix(self, params, rows=slice(None)):
        residuals = self.predict(params, rows).astype(np.float64) - self.y[rows, None]
        return 0.5 * residuals * residuals + self._penalty(params)

    def loss_vector(self, param):
        return self.loss_matrix(param[None])[:, 0]

    def grad_sq_norm_vector(self, param):
        sq_norms = np.empty(self.n_samples)
        for rows in row_blocks(self.n_samples, self._width):
            X = self.X[rows]
            residuals = self.predict(param[None], rows)[:, 0] - self.y[rows]
            sq_norms[rows] = gradient_sq_norms(
                self.layout, param, X, residuals, self.alpha, self.activation
            )
        return sq_norms

    def _fit_samples(self, indices, random_state):
        """Adam on every sample's own loss, each from its own random network."""
        params = self.layout.init_params(len(indices), random_state, self.X.dtype)
        inputs = dense_rows(self.X, indices)[:, None, :]
        targets = self.y[indices]
        adam = Adam(params.shape, eta0=self.eta0)
        for _ in range(self.seeding_steps):
            outputs, hidden = forward(self.layout, params, inputs, self.activation)
            residuals = outputs[:, 0] - targets
            gradient = backward(
                self.layout, params, inputs, hidden, residuals[:, None], self.activation
            )
            params = adam.step(params, gradient + self.alpha * params)
        return params

    def sample_minimizers(self, indices, random_state):
        random_state = check_random_state(random_state)
        return self._fit_samples(np.asarray(indices, dtype=np.intp), random_state)

    def sample_min_values(self):
        if self._min_values is None:
            self._min_values = np.empty(self.n_samples)
            random_state = np.random.RandomState(0)
            for rows in row_blocks(self.n_samples, self.layout.n_weights):
                indices = np.arange(rows.start, rows.stop)
                params = self._fit_samples(indices, random_state)
                outputs, _ = forward(
                    self.layout,
                    params,
                    dense_rows(self.X, rows)[:, None, :],
                    self.activation,
                )
                residuals = outputs[:, 0].astype(np.float64) - self.y[rows]
                self._min_values[rows] = 0.5 * residuals**2 + self._penalty(params)
        return self._min_values

    def random_params(self, n_params, random_state, dtype):
        return self.layout.init_params(n_params, random_state, dtype)

    def group_statistics(self, membership, rows=slice(None)):
        # The group objectives depend on the parameters through the network:
        # no statistics add up ahead of them (see partition_gradient).
        return ()

    def partition_groups(self, labels, sample_weight, counts):
        """Gather the rows of every group, padded to one batch per network.

        Network :math:`j` gets the rows of its group :math:`C_j`, their
        targets and their weights :math:`w_i / \\sum_{i \\in C_j} w_i`,
        padded with zero-weight rows to the size of the largest group, so
        that a step is one batched pass of all the networks over their own
        samples only.

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
        groups : tuple of ndarray
            Inputs ``(n_params, size, n_features)``, targets and weights
            ``(n_params, size)``, and the mask of the groups of positive
            weight.
        """
        n_params = len(counts)
        order = np.argsort(labels, kind="stable")
        starts = np.searchsorted(labels[order], np.arange(n_params + 1))
        sizes = np.diff(starts)
        size = max(int(sizes.max()), 1)
        # Position of every sample in its network's batch.
        slots = np.arange(order.shape[0]) - np.repeat(starts[:-1], sizes)
        filled = counts > 0
        scale = np.divide(1.0, counts, out=np.zeros(n_params), where=filled)
        inputs = np.zeros((n_params, size, self.X.shape[1]))
        targets = np.zeros((n_params, size))
        weights = np.zeros((n_params, size))
        grouped = labels[order]
        inputs[grouped, slots] = dense_rows(self.X, order)
        targets[grouped, slots] = self.y[order]
        weights[grouped, slots] = sample_weight[order] * scale[grouped]
        return inputs, targets, weights, filled

    def groups_gradient(self, params, groups):
        inputs, targets, weights, filled = groups
        outputs, hidden = forward(self.layout, params, inputs, self.activation)
        delta = weights * (outputs - targets)
        gradient = backward(self.layout, params, inputs, hidden, delta, self.activation)
        gradient += self.alpha * params
        gradient[~filled] = 0
        return gradient.astype(params.dtype, copy=False)
