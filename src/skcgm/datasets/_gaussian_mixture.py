"""Gaussian mixture data of the kernel herding experiment."""

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["make_gaussian_mixture"]


def make_gaussian_mixture(n_samples, n_features, *, n_components=4, random_state=None):
    """Draw points from a Gaussian mixture with well separated components.

    Component means are drawn uniformly in :math:`[-4, 4]^d`, covariances are
    :math:`\\operatorname{diag}(s_j^2)` with :math:`s_j` uniform in
    :math:`[0.5, 1.5]`, mixing weights are Dirichlet(2, ..., 2).

    Parameters
    ----------
    n_samples : int
        Number of points.
    n_features : int
        Dimension d.
    n_components : int, default=4
        Number of mixture components.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The points, in random order.

    Examples
    --------
    >>> from skcgm.datasets import make_gaussian_mixture
    >>> make_gaussian_mixture(100, 2, random_state=0).shape
    (100, 2)
    """
    rng = check_random_state(random_state)
    means = rng.uniform(-4.0, 4.0, size=(n_components, n_features))
    scales = rng.uniform(0.5, 1.5, size=(n_components, n_features))
    weights = rng.dirichlet(np.full(n_components, 2.0))
    labels = rng.choice(n_components, size=n_samples, p=weights)
    return means[labels] + scales[labels] * rng.standard_normal((n_samples, n_features))
