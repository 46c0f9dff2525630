"""Mixed linear regression data (Appendix E.2 of the sum-of-minimum paper)."""

from numbers import Integral, Real

from sklearn.utils import check_random_state

from ..utils._params import StrictInterval
from ..utils._sklearn_compat import validate_params

__all__ = ["make_mixed_linear_regression"]


@validate_params(
    {
        "n_samples": [StrictInterval(Integral, 1, None, closed="left")],
        "n_features": [StrictInterval(Integral, 1, None, closed="left")],
        "n_components": [StrictInterval(Integral, 1, None, closed="left")],
        "noise": [StrictInterval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_mixed_linear_regression(
    n_samples=1000, n_features=8, n_components=6, noise=0.01, random_state=None
):
    """Generate data from a mixture of linear regressions.

    The recipe of Appendix E.2 of Ding, Chen, Wang and Yin: coefficients
    :math:`x_j^+ \\sim N(0, I_d)`, inputs :math:`a_i \\sim N(0, I_d)`, a
    component :math:`c_i` uniform over :math:`\\{1, \\dots, k\\}` and

    .. math::

        b_i = a_i^\\top x_{c_i}^+ + \\varepsilon_i, \\qquad
        \\varepsilon_i \\sim N(0, \\sigma^2).

    The defaults are the paper's hardest setting of Table 3 (:math:`N =
    1000`, :math:`d = 8`, :math:`k = 6`, :math:`\\sigma = 0.01`).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of samples :math:`N`.
    n_features : int, default=8
        Number of features :math:`d`.
    n_components : int, default=6
        Number of components :math:`k`.
    noise : float, default=0.01
        Standard deviation :math:`\\sigma` of the additive Gaussian noise.
    random_state : int, RandomState instance or None, default=None
        Seeds the coefficients, inputs, components and noise, drawn in this
        order.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The inputs :math:`a_i`.
    y : ndarray of shape (n_samples,)
        The targets :math:`b_i`.
    coef : ndarray of shape (n_components, n_features)
        The true coefficients :math:`x_j^+`.
    labels : ndarray of shape (n_samples,)
        The component :math:`c_i` of every sample.

    See Also
    --------
    skcgm.linear_model.MixedLinearRegressor : Fits this model.

    Examples
    --------
    >>> from skcgm.datasets import make_mixed_linear_regression
    >>> X, y, coef, labels = make_mixed_linear_regression(
    ...     n_samples=5, n_features=2, n_components=3, random_state=0)
    >>> X.shape, y.shape, coef.shape, labels.shape
    ((5, 2), (5,), (3, 2), (5,))
    """
    rng = check_random_state(random_state)
    coef = rng.standard_normal((n_components, n_features))
    X = rng.standard_normal((n_samples, n_features))
    labels = rng.randint(n_components, size=n_samples)
    y = (X * coef[labels]).sum(axis=1) + noise * rng.standard_normal(n_samples)
    return X, y, coef, labels
