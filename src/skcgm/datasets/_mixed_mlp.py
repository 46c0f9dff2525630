"""Mixed non-linear regression data (section 5.2 of the sum-of-minimum paper)."""

from numbers import Integral, Real

from sklearn.utils import check_random_state

from ..optim.sum_of_min.losses._mlp import (
    NetworkLayout,
    check_hidden_layer_sizes,
    forward,
)
from ..utils._params import StrictInterval
from ..utils._sklearn_compat import StrOptions, validate_params

__all__ = ["make_mixed_mlp_regression"]


@validate_params(
    {
        "n_samples": [StrictInterval(Integral, 1, None, closed="left")],
        "n_features": [StrictInterval(Integral, 1, None, closed="left")],
        "hidden_layer_sizes": [
            "array-like",
            StrictInterval(Integral, 1, None, closed="left"),
        ],
        "n_components": [StrictInterval(Integral, 1, None, closed="left")],
        "noise": [StrictInterval(Real, 0, None, closed="left")],
        "weights": [StrOptions({"uniform", "normal"})],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_mixed_mlp_regression(
    n_samples=1000,
    n_features=5,
    hidden_layer_sizes=(3,),
    n_components=5,
    noise=0.01,
    weights="uniform",
    random_state=None,
):
    """Generate data from a mixture of small ReLU networks.

    The recipe of the mixed non-linear regression experiment of Ding, Chen,
    Wang and Yin (section 5.2, Appendix E.2): :math:`k` networks
    :math:`\\psi(a; \\theta_j^+) = p_j^\\top \\mathrm{ReLU}(W_j a + q_j) + o_j`
    (one hidden layer in the paper), inputs :math:`a_i \\sim N(0, I_d)`, a
    component :math:`c_i` uniform over :math:`\\{1, \\dots, k\\}` and

    .. math::

        b_i = \\psi(a_i; \\theta_{c_i}^+) + \\varepsilon_i, \\qquad
        \\varepsilon_i \\sim N(0, \\sigma^2).

    The paper's text draws :math:`\\theta_j^+` from a standard Gaussian
    (``weights='normal'``); the authors' code, whose figures the paper
    reports, keeps the default initialization of a PyTorch linear layer,
    every weight and bias uniform in :math:`\\pm 1/\\sqrt{\\mathrm{fan\\_in}}`
    (``weights='uniform'``, the default). The paper's sets are 1000
    training and 200 test samples of one draw of the networks: generate
    1200 and split, the rows being independent.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of samples :math:`N`.
    n_features : int, default=5
        Input dimension :math:`d_I`.
    hidden_layer_sizes : int or tuple of int, default=(3,)
        Hidden widths, ``(d_H,)`` in the paper; an int for one hidden layer.
    n_components : int, default=5
        Number of networks :math:`k`.
    noise : float, default=0.01
        Standard deviation :math:`\\sigma` of the Gaussian noise.
    weights : {'uniform', 'normal'}, default='uniform'
        Distribution of the true weights and biases (see above).
    random_state : int, RandomState instance or None, default=None
        Seeds the networks, inputs, components and noise, drawn in this
        order.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The inputs :math:`a_i`.
    y : ndarray of shape (n_samples,)
        The targets :math:`b_i`.
    networks : ndarray of shape (n_components, n_weights)
        The flat weights :math:`\\theta_j^+` of the true networks, in the
        layout of ``MixedMLPRegressor``'s ``init`` array.
    labels : ndarray of shape (n_samples,)
        The component :math:`c_i` of every sample.

    See Also
    --------
    skcgm.neural_network.MixedMLPRegressor : Fits this model.
    make_mixed_linear_regression : The linear case.

    Examples
    --------
    >>> from skcgm.datasets import make_mixed_mlp_regression
    >>> X, y, networks, labels = make_mixed_mlp_regression(
    ...     n_samples=4, n_features=5, hidden_layer_sizes=(3,), random_state=0)
    >>> X.shape, y.shape, networks.shape, labels.shape
    ((4, 5), (4,), (5, 22), (4,))
    """
    layout = NetworkLayout(n_features, check_hidden_layer_sizes(hidden_layer_sizes))
    rng = check_random_state(random_state)
    if weights == "uniform":
        networks = layout.init_params(n_components, rng)
    else:
        networks = rng.standard_normal((n_components, layout.n_weights))
    X = rng.standard_normal((n_samples, n_features))
    labels = rng.randint(n_components, size=n_samples)
    outputs, _ = forward(layout, networks, X, "relu")
    y = outputs[labels, range(n_samples)] + noise * rng.standard_normal(n_samples)
    return X, y, networks, labels
