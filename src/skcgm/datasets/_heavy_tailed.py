"""Logistic data with heavy-tailed rows and planted high-leverage points."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral, Real

import numpy as np
from scipy.special import expit
from sklearn.utils import check_random_state

from ..utils._params import StrictInterval
from ..utils._sklearn_compat import validate_params

__all__ = ["make_heavy_tailed_classification"]


@validate_params(
    {
        "n_samples": [StrictInterval(Integral, 1, None, closed="left")],
        "n_features": [StrictInterval(Integral, 1, None, closed="left")],
        "df": [StrictInterval(Real, 0, None, closed="right")],
        "n_outliers": [StrictInterval(Integral, 0, None, closed="left")],
        "outlier_scale": [StrictInterval(Real, 0, None, closed="neither")],
        "signal": [StrictInterval(Real, 0, None, closed="left")],
        "intercept": [Real],
        "coef": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_heavy_tailed_classification(
    n_samples=10_000,
    n_features=20,
    *,
    df=2.0,
    n_outliers=5,
    outlier_scale=100.0,
    signal=2.0,
    intercept=0.5,
    coef=False,
    random_state=None,
):
    """Binary logistic data with heavy-tailed rows and a few high-leverage rows.

    The rows are multivariate Student t with ``df`` degrees of freedom,

    .. math::

        x_i = \\sqrt{\\nu / c_i}\\; z_i, \\qquad z_i \\sim N(0, I_d), \\qquad
        c_i \\sim \\chi^2_\\nu,

    (:math:`\\nu` = ``df``), so the row norms have a power-law tail of index
    :math:`\\nu`: a few rows carry much of the leverage. The labels follow a
    logistic model on these rows, :math:`P(y_i = 1) = 1 / (1 +
    e^{-(w^\\top x_i + c)})`, with a planted :math:`w` uniform on the sphere
    scaled to :math:`\\|w\\| =` ``signal`` and :math:`c` = ``intercept``.
    Then ``n_outliers`` rows, chosen uniformly without replacement, are
    multiplied by ``outlier_scale`` *after* their labels are drawn: their
    labels keep the noise of their unscaled margins, so a mislabelled one
    has a loss about ``outlier_scale`` times larger than a typical row's and
    pulls the fit. These are the points that uniform sampling misses and
    importance sampling exists for (the issue's panel data of
    :class:`~skcgm.linear_model.LocalSensitivityLogistic`).

    Parameters
    ----------
    n_samples : int, default=10_000
        Number of rows :math:`n`.
    n_features : int, default=20
        Dimension :math:`d`.
    df : float, default=2.0
        Degrees of freedom :math:`\\nu > 0` of the t distribution; smaller is
        heavier-tailed (the row norms have finite variance only for
        :math:`\\nu > 2`), ``np.inf`` gives Gaussian rows.
    n_outliers : int, default=5
        Number of planted high-leverage rows (at most ``n_samples``).
    outlier_scale : float, default=100.0
        Factor multiplying the planted rows.
    signal : float, default=2.0
        Norm of the planted :math:`w`.
    intercept : float, default=0.5
        The planted intercept :math:`c`.
    coef : bool, default=False
        Whether to also return :math:`w`, as
        :func:`sklearn.datasets.make_regression` does.
    random_state : int, RandomState instance or None, default=None
        Seed of :math:`w`, the rows, the labels and the planted rows, drawn
        in this order.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Labels in {0, 1}.
    coef : ndarray of shape (n_features,)
        The planted :math:`w`; only returned if ``coef`` is True.

    Raises
    ------
    ValueError
        If ``n_outliers`` exceeds ``n_samples``.

    See Also
    --------
    make_logistic_classification : Gaussian or log-normally scaled rows.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.datasets import make_heavy_tailed_classification
    >>> X, y = make_heavy_tailed_classification(
    ...     2000, 5, n_outliers=4, outlier_scale=50, random_state=0)
    >>> X.shape, np.unique(y).tolist()
    ((2000, 5), [0, 1])
    >>> # The four largest rows are the planted ones, far beyond the others.
    >>> norms = np.sort(np.linalg.norm(X, axis=1))
    >>> bool(norms[-4] > 5 * np.median(norms))
    True
    """
    if n_outliers > n_samples:
        raise ValueError(
            f"n_outliers={n_outliers} exceeds n_samples={n_samples}; plant at "
            "most n_samples rows."
        )
    rng = check_random_state(random_state)
    w = rng.standard_normal(n_features)
    w *= signal / np.linalg.norm(w)
    X = rng.standard_normal((n_samples, n_features))
    if np.isfinite(df):
        X *= np.sqrt(df / rng.chisquare(df, size=n_samples))[:, None]
    y = (rng.uniform(size=n_samples) < expit(X @ w + intercept)).astype(np.int64)
    planted = rng.choice(n_samples, size=n_outliers, replace=False)
    X[planted] *= outlier_scale
    if coef:
        return X, y, w
    return X, y
