"""Batches of small regression networks in NumPy, and the Adam optimizer.

The networks of mixed non-linear regression (section 5.2 and Appendix E.2 of
Ding, Chen, Wang and Yin, ICML 2024) are tiny: a few hidden units, a few
dozen weights. Their forward and backward passes are written here for a
whole batch of networks at once, each network's weights one row of a
``(n_networks, n_weights)`` array, so that the k components of a mixture (or
the one network per sample of the seeding oracle) cost a few batched matrix
products, not a Python loop.
"""

import numpy as np
import scipy.sparse as sp

__all__ = [
    "ACTIVATIONS",
    "Adam",
    "NetworkLayout",
    "backward",
    "check_hidden_layer_sizes",
    "forward",
    "gradient_sq_norms",
]

#: Hidden activations, each with its derivative written in terms of its
#: output, as :class:`sklearn.neural_network.MLPRegressor` writes them.
ACTIVATIONS = {
    "identity": (lambda z: z, lambda a: np.ones_like(a)),
    "relu": (lambda z: np.maximum(z, 0, out=z), lambda a: (a > 0).astype(a.dtype)),
    "tanh": (np.tanh, lambda a: 1 - a * a),
    "logistic": (
        lambda z: 0.5 * (1 + np.tanh(0.5 * z)),
        lambda a: a * (1 - a),
    ),
}


def check_hidden_layer_sizes(hidden_layer_sizes):
    """``hidden_layer_sizes`` as a tuple of positive ints, or a ValueError.

    Examples
    --------
    >>> from skcgm.optim.sum_of_min.losses._mlp import check_hidden_layer_sizes
    >>> check_hidden_layer_sizes([5, 3]), check_hidden_layer_sizes(())
    ((5, 3), ())
    """
    sizes = np.atleast_1d(np.asarray(hidden_layer_sizes, dtype=object))
    if sizes.size == 0:
        return ()
    valid = sizes.ndim == 1 and all(
        isinstance(size, (int, np.integer)) and not isinstance(size, bool) and size >= 1
        for size in sizes
    )
    if not valid:
        raise ValueError(
            "hidden_layer_sizes must be a tuple of positive integers, got "
            f"{hidden_layer_sizes!r}."
        )
    return tuple(int(size) for size in sizes)


class NetworkLayout:
    """Where the weights of a fully connected network sit in a flat vector.

    Layer :math:`l` maps :math:`h_{l-1} \\in \\mathbb{R}^{n_{l-1}}` to
    :math:`h_l = \\sigma(W_l^\\top h_{l-1} + b_l)`, :math:`\\sigma` the hidden
    activation and the identity for the one output. Its weights
    :math:`W_l` (``fan_in`` x ``fan_out``, row-major) then its biases
    :math:`b_l` follow those of layer :math:`l - 1`, the order of
    :attr:`sklearn.neural_network.MLPRegressor.coefs_` and ``intercepts_``.

    Parameters
    ----------
    n_features : int
        Input dimension.
    hidden_layer_sizes : tuple of int
        Widths of the hidden layers; empty for a linear model.

    Examples
    --------
    >>> from skcgm.optim.sum_of_min.losses._mlp import NetworkLayout
    >>> layout = NetworkLayout(5, (3,))
    >>> layout.n_weights, layout.shapes
    (22, [(5, 3), (3, 1)])
    """

    def __init__(self, n_features, hidden_layer_sizes):
        sizes = [n_features, *check_hidden_layer_sizes(hidden_layer_sizes), 1]
        self.shapes = list(zip(sizes[:-1], sizes[1:]))
        self.slices = []
        start = 0
        for fan_in, fan_out in self.shapes:
            weights = slice(start, start + fan_in * fan_out)
            biases = slice(weights.stop, weights.stop + fan_out)
            self.slices.append((weights, biases))
            start = biases.stop
        self.n_weights = start

    def unpack(self, params):
        """Per-layer ``(W, b)`` of shapes ``(m, fan_in, fan_out)``, ``(m, fan_out)``."""
        m = params.shape[0]
        return [
            (params[:, w].reshape(m, *shape), params[:, b])
            for (w, b), shape in zip(self.slices, self.shapes)
        ]

    @staticmethod
    def pack(layers):
        """The flat ``(m, n_weights)`` array of per-layer ``(W, b)``."""
        m = layers[0][0].shape[0]
        return np.concatenate(
            [part.reshape(m, -1) for layer in layers for part in layer], axis=1
        )

    def init_params(self, n_networks, random_state, dtype=np.float64):
        """Draw weights and biases uniformly in :math:`\\pm 1/\\sqrt{fan\\_in}`.

        The default initialization of a linear layer in PyTorch, which the
        authors' code uses for the ground truth and the random start of the
        paper's experiment.
        """
        layers = []
        for fan_in, fan_out in self.shapes:
            bound = 1.0 / np.sqrt(fan_in)
            W = random_state.uniform(-bound, bound, (n_networks, fan_in, fan_out))
            b = random_state.uniform(-bound, bound, (n_networks, fan_out))
            layers.append((W, b))
        return self.pack(layers).astype(dtype, copy=False)


def _first_layer(inputs, W, b):
    """Pre-activations of the first layer, ``(m, n, fan_out)``.

    ``inputs`` is shared by every network (2-D, dense or CSR: one product
    with the side-by-side weights) or one per network (3-D).
    """
    m, fan_in, fan_out = W.shape
    if inputs.ndim == 3:
        return np.matmul(inputs, W) + b[:, None, :]
    side_by_side = W.transpose(1, 0, 2).reshape(fan_in, m * fan_out)
    Z = np.asarray(inputs @ side_by_side).reshape(-1, m, fan_out)
    return Z.transpose(1, 0, 2) + b[:, None, :]


def forward(layout, params, inputs, activation):
    """Outputs and hidden activations of a batch of networks.

    Parameters
    ----------
    layout : NetworkLayout
    params : ndarray of shape (m, n_weights)
    inputs : {ndarray, sparse matrix} of shape (n, n_features) or ndarray of \
            shape (m, n, n_features)
        Rows fed to every network, or rows of their own.
    activation : str
        Key of :data:`ACTIVATIONS`.

    Returns
    -------
    outputs : ndarray of shape (m, n)
    hidden : list of ndarray of shape (m, n, width)
        The activations of the hidden layers, for :func:`backward`.
    """
    act = ACTIVATIONS[activation][0]
    layers = layout.unpack(params)
    Z = _first_layer(inputs, *layers[0])
    hidden = []
    for W, b in layers[1:]:
        A = act(Z)
        hidden.append(A)
        Z = np.matmul(A, W) + b[:, None, :]
    return Z[:, :, 0], hidden


def backward(layout, params, inputs, hidden, delta, activation):
    """Gradient of :math:`\\sum_i \\delta_{ji} \\psi(a_i; \\theta_j)` for every network.

    Parameters
    ----------
    layout, params, inputs, activation
        As given to :func:`forward`.
    hidden : list of ndarray
        From :func:`forward`.
    delta : ndarray of shape (m, n)
        Weight of every output in the sum.

    Returns
    -------
    gradient : ndarray of shape (m, n_weights)
    """
    derivative = ACTIVATIONS[activation][1]
    layers = layout.unpack(params)
    grads = [None] * len(layers)
    D = delta[:, :, None]
    for level in range(len(layers) - 1, 0, -1):
        A = hidden[level - 1]
        W = layers[level][0]
        grads[level] = (np.matmul(A.transpose(0, 2, 1), D), D.sum(axis=1))
        D = np.matmul(D, W.transpose(0, 2, 1)) * derivative(A)
    m, n, width = D.shape
    if inputs.ndim == 3:
        first = np.matmul(inputs.transpose(0, 2, 1), D)
    else:
        flat = D.transpose(1, 0, 2).reshape(n, m * width)
        first = np.asarray(inputs.T @ flat).reshape(-1, m, width).transpose(1, 0, 2)
    grads[0] = (first, D.sum(axis=1))
    return layout.pack(grads)


def gradient_sq_norms(layout, param, X, residuals, alpha, activation):
    """Squared norms of the per-sample gradients of one network's losses.

    For :math:`f_i(\\theta) = \\frac12 (\\psi(a_i; \\theta) - b_i)^2 +
    \\frac{\\alpha}{2} \\|\\theta\\|^2` with residual :math:`r_i`,

    .. math::

        \\|\\nabla f_i\\|^2 = r_i^2 \\|\\nabla \\psi_i\\|^2
        + 2 \\alpha r_i \\langle \\nabla \\psi_i, \\theta \\rangle
        + \\alpha^2 \\|\\theta\\|^2,

    where every layer's weight gradient is the outer product of its input
    and its back-propagated error, so the norms and inner products come
    without forming any per-sample gradient.

    Parameters
    ----------
    layout : NetworkLayout
    param : ndarray of shape (n_weights,)
    X : {ndarray, sparse matrix} of shape (n, n_features)
    residuals : ndarray of shape (n,)
        :math:`\\psi(a_i; \\theta) - b_i`.
    alpha : float
    activation : str

    Returns
    -------
    sq_norms : ndarray of shape (n,)
    """
    params = param[None]
    _, hidden = forward(layout, params, X, activation)
    derivative = ACTIVATIONS[activation][1]
    layers = layout.unpack(params)
    n = X.shape[0]
    delta = np.ones((n, 1), dtype=params.dtype)
    jacobian_sq = np.zeros(n, dtype=np.float64)
    inner = np.zeros(n, dtype=np.float64)
    for level in range(len(layers) - 1, -1, -1):
        W, b = layers[level][0][0], layers[level][1][0]
        if level:
            A = hidden[level - 1][0]
            input_sq = np.einsum("ij,ij->i", A, A)
            projected = A @ W
        else:
            input_sq = (
                np.asarray(X.multiply(X).sum(axis=1)).ravel()
                if sp.issparse(X)
                else np.einsum("ij,ij->i", X, X)
            )
            projected = np.asarray(X @ W)
        delta_sq = np.einsum("ij,ij->i", delta, delta)
        jacobian_sq += (input_sq + 1) * delta_sq
        inner += np.einsum("ij,ij->i", projected, delta) + delta @ b
        if level:
            delta = (delta @ W.T) * derivative(A)
    theta_sq = float(param @ param)
    r = residuals.astype(np.float64)
    return r * r * jacobian_sq + 2 * alpha * r * inner + alpha * alpha * theta_sq


class Adam:
    """Adam (Kingma and Ba, 2015) on the rows of a parameter array.

    Every row (a network) has its own moments and its own step count, so a
    row that does not step (a group without samples) keeps its state, as a
    separate optimizer per network would. The update of row :math:`j` at its
    step :math:`t_j` is

    .. math::

        m \\leftarrow \\beta_1 m + (1 - \\beta_1) g, \\quad
        v \\leftarrow \\beta_2 v + (1 - \\beta_2) g^2, \\quad
        \\theta \\leftarrow \\theta - \\gamma
        \\frac{m / (1 - \\beta_1^{t_j})}{\\sqrt{v / (1 - \\beta_2^{t_j})} + \\epsilon}.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.sum_of_min.losses._mlp import Adam
    >>> adam = Adam((1, 1), eta0=0.1)
    >>> theta = np.array([[1.0]])
    >>> for _ in range(100):
    ...     theta = adam.step(theta, 2 * theta)
    >>> bool(abs(theta[0, 0]) < 0.1)
    True
    """

    def __init__(self, shape, eta0=1e-3, beta1=0.9, beta2=0.999, epsilon=1e-8):
        self.eta0 = eta0
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.first = np.zeros(shape)
        self.second = np.zeros(shape)
        self.steps = np.zeros(shape[0])

    def step(self, params, gradient, active=None):
        """Return the parameters after one step of the ``active`` rows."""
        active = np.ones(params.shape[0], bool) if active is None else active
        self.steps[active] += 1
        # Adam's step hardly depends on the gradient's size: clipping keeps
        # the second moment finite under huge penalties.
        g = gradient[active]
        limit = np.sqrt(np.finfo(g.dtype).max) / 4
        g = np.clip(g, -limit, limit)
        first = self.first[active] = (
            self.beta1 * self.first[active] + (1 - self.beta1) * g
        )
        second = self.second[active] = self.beta2 * self.second[active] + (
            1 - self.beta2
        ) * (g * g)
        t = self.steps[active][:, None]
        corrected = first / (1 - self.beta1**t)
        scale = np.sqrt(second / (1 - self.beta2**t)) + self.epsilon
        params = params.copy()
        params[active] -= (self.eta0 * corrected / scale).astype(
            params.dtype, copy=False
        )
        return params
