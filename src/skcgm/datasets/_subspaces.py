"""Union-of-subspaces data (Appendix E.1 of the sum-of-minimum paper)."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils._params import StrictInterval
from ..utils._random import random_orthonormal
from ..utils._sklearn_compat import validate_params

__all__ = ["make_union_of_subspaces"]


@validate_params(
    {
        "n_samples": [StrictInterval(Integral, 1, None, closed="left")],
        "n_features": [StrictInterval(Integral, 2, None, closed="left")],
        "n_clusters": [StrictInterval(Integral, 1, None, closed="left")],
        "subspace_dim": [StrictInterval(Integral, 1, None, closed="left")],
        "noise": [StrictInterval(Real, 0, None, closed="left")],
        "coordinate_scales": ["array-like", None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_union_of_subspaces(
    n_samples=1000,
    n_features=5,
    n_clusters=3,
    subspace_dim=2,
    noise=0.0,
    coordinate_scales=None,
    random_state=None,
):
    """Generate points on a union of linear subspaces.

    The recipe of Appendix E.1 of Ding, Chen, Wang and Yin: every subspace
    :math:`j` has a uniformly random orthonormal basis
    :math:`\\{\\varepsilon_{1,j}, \\dots, \\varepsilon_{s,j}\\}`; every point
    picks a subspace :math:`j_i` uniformly and standard normal coordinates
    :math:`\\xi_i`:

    .. math::

        y_i = \\sum_{l=1}^s c_l \\xi_{l,i} \\varepsilon_{l,j_i} + \\sigma \\eta_i,
        \\qquad \\eta_i \\sim N(0, I_d).

    The paper uses :math:`s = 2`, unit scales :math:`c_l = 1` and no noise
    (:math:`\\sigma = 0`). The authors' code (``GPCA.m``) scales the second
    coordinate by 0.2, ``coordinate_scales=(1, 0.2)``: the paper's Table 1
    is reproduced on that variant, not on the data as printed in the paper
    (see the user guide, "What Tables 1 and 2 show").

    Parameters
    ----------
    n_samples : int, default=1000
        Number of points :math:`N`.
    n_features : int, default=5
        Ambient dimension :math:`d`.
    n_clusters : int, default=3
        Number of subspaces :math:`k`.
    subspace_dim : int, default=2
        Dimension :math:`s` of every subspace, below ``n_features``.
    noise : float, default=0.0
        Standard deviation :math:`\\sigma` of isotropic Gaussian noise.
    coordinate_scales : array-like of shape (subspace_dim,), default=None
        Scales :math:`c_l` of the coordinates; None means all ones. They do
        not change the random draws, so two calls with the same
        ``random_state`` share bases, memberships and coordinates.
    random_state : int, RandomState instance or None, default=None
        Seeds the bases, subspaces, coordinates and noise, drawn in this
        order.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The points.
    labels : ndarray of shape (n_samples,)
        The subspace of every point.
    bases : ndarray of shape (n_clusters, n_features, subspace_dim)
        Orthonormal bases of the subspaces.

    See Also
    --------
    skcgm.cluster.GPCAClusterer : Clusters such data.

    Examples
    --------
    >>> from skcgm.datasets import make_union_of_subspaces
    >>> X, labels, bases = make_union_of_subspaces(
    ...     n_samples=6, n_features=4, n_clusters=2, random_state=0)
    >>> X.shape, labels.shape, bases.shape
    ((6, 4), (6,), (2, 4, 2))
    """
    if subspace_dim >= n_features:
        raise ValueError(
            f"subspace_dim={subspace_dim} must be smaller than n_features={n_features}."
        )
    if coordinate_scales is None:
        coordinate_scales = np.ones(subspace_dim)
    coordinate_scales = np.asarray(coordinate_scales, dtype=np.float64)
    if coordinate_scales.shape != (subspace_dim,):
        raise ValueError(
            f"coordinate_scales must have shape (subspace_dim,) = ({subspace_dim},); "
            f"got {coordinate_scales.shape}."
        )
    rng = check_random_state(random_state)
    bases = np.stack(
        [random_orthonormal(n_features, subspace_dim, rng) for _ in range(n_clusters)]
    )
    labels = rng.randint(n_clusters, size=n_samples)
    coords = rng.standard_normal((n_samples, subspace_dim)) * coordinate_scales
    X = np.einsum("nds,ns->nd", bases[labels], coords)
    if noise > 0:
        X += noise * rng.standard_normal((n_samples, n_features))
    return X, labels, bases
