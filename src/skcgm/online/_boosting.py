"""The boosting surrogate of online DR-submodular maximization (eqs. 2-3).

For a monotone DR-submodular :math:`f` with :math:`f(0) = 0`, the
non-oblivious surrogate of eq. (2) of Liao et al. (after Zhang et al. 2022a),

.. math::

    F(x) = \\int_0^1 \\frac{e^{z-1}}{z} f(z x) \\, dz,

has stationary points that are :math:`(1 - 1/e)`-approximate maximizers
(Lemma 2, (8)), and an unbiased stochastic gradient from ONE gradient query of
:math:`f` at the shrunk point :math:`z x` (eq. (3), Lemma 2 (9)),

.. math::

    \\tilde\\nabla F(x) = (1 - e^{-1}) \\tilde\\nabla f(z x), \\qquad
    z \\sim Z, \\quad P(Z \\le z) = \\frac{e^{z-1} - e^{-1}}{1 - e^{-1}}
    \\ (z \\in [0, 1]).

Random streams: every function takes ``random_state`` (None, an int, a
:class:`numpy.random.RandomState` or a :class:`numpy.random.Generator`). None
and ints go through :func:`sklearn.utils.check_random_state`; a RandomState or
a Generator is drawn from directly, so the caller's stream advances.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral

import numpy as np

from ..utils._params import RANDOM_STATE, StrictInterval
from ..utils._random import as_rng
from ..utils._sklearn_compat import validate_params
from ..utils._validation import check_matrix, check_vector

__all__ = ["boosted_gradient", "boosted_quadratic", "sample_boosting_z"]

_E = np.e
# 1 - 1/e, the weight of eq. (3) and the approximation ratio of Lemma 2.
_BOOST = 1.0 - 1.0 / np.e


def _check_quadratic(H, h):
    """Validated float64 copies of a symmetric ``H`` and a matching ``h``."""
    H = check_matrix(H, "H", square=True)
    scale = max(1.0, float(np.max(np.abs(H))))
    if not np.allclose(H, H.T, rtol=0.0, atol=1e-12 * scale):
        raise ValueError("H must be symmetric; pass (H + H.T) / 2.")
    h = check_vector(h, "h", H.shape[0], allow_empty=True, copy=True)
    return H, h


def _boosting_z(rng, size=None):
    """Draws of :math:`Z` from a validated stream (see :func:`sample_boosting_z`)."""
    u = rng.uniform(0.0, 1.0, size=size)
    z = np.log1p(u * (_E - 1.0))
    return float(z) if size is None else z


@validate_params(
    {
        "random_state": RANDOM_STATE,
        "size": [StrictInterval(Integral, 0, None, closed="left"), tuple, None],
    },
    prefer_skip_nested_validation=True,
)
def sample_boosting_z(random_state=None, size=None):
    """Draw the boosting variable :math:`Z` of eq. (3) by inverse CDF.

    :math:`Z` has density :math:`p(z) = e^{z-1} / (1 - e^{-1})` on
    :math:`[0, 1]`, so with :math:`U \\sim \\mathcal{U}[0, 1]`

    .. math::

        z = \\ln(1 + U (e - 1)), \\qquad \\mathbb{E}[Z] = \\frac{1}{e - 1}.

    Parameters
    ----------
    random_state : None, int, RandomState or Generator, default=None
        The random stream; one uniform number is drawn per sample.
    size : None, int or tuple of int, default=None
        Output shape; None draws a single float.

    Returns
    -------
    z : float or ndarray of shape ``size``
        Samples in :math:`[0, 1]`.

    See Also
    --------
    boosted_gradient : The stochastic surrogate gradient that uses it.

    Examples
    --------
    >>> from skcgm.online._boosting import sample_boosting_z
    >>> z = sample_boosting_z(random_state=0, size=100_000)
    >>> bool(0.0 <= z.min() and z.max() <= 1.0)
    True
    >>> round(float(z.mean()), 2)  # 1 / (e - 1) = 0.582
    0.58
    """
    # The entries of a tuple, which no constraint reaches.
    if isinstance(size, tuple) and any(
        isinstance(s, bool) or not isinstance(s, Integral) or s < 0 for s in size
    ):
        raise ValueError(
            "The 'size' parameter of sample_boosting_z must be None, an int >= 0 "
            f"or a tuple of them; got {size!r}."
        )
    return _boosting_z(as_rng(random_state), size)


@validate_params(
    {"grad": [callable], "x": ["array-like"], "random_state": RANDOM_STATE},
    prefer_skip_nested_validation=False,
)
def boosted_gradient(grad, x, random_state=None):
    """Unbiased stochastic gradient of the boosting surrogate, eq. (3).

    .. math::

        \\tilde\\nabla F(x) = (1 - e^{-1}) \\, \\nabla f(z x), \\qquad z
        \\sim Z,

    which satisfies :math:`\\mathbb{E}[\\tilde\\nabla F(x)] = \\nabla F(x)`
    (Lemma 2, (9)) when ``grad`` is exact or itself unbiased.

    Parameters
    ----------
    grad : callable
        ``grad(q) -> ndarray of shape (n_features,)``, an (exact or unbiased
        stochastic) gradient of :math:`f`; called once, at :math:`q = z x`.
    x : array-like of shape (n_features,)
        The point :math:`x` (not modified).
    random_state : None, int, RandomState or Generator, default=None
        The stream :math:`z` is drawn from (one uniform number).

    Returns
    -------
    gradient : ndarray of shape (n_features,)
        :math:`(1 - e^{-1}) \\nabla f(z x)`.
    z : float
        The :math:`z` drawn.

    See Also
    --------
    sample_boosting_z : The sampler of :math:`z`.
    boosted_quadratic : The exact surrogate of a quadratic.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online._boosting import boosted_gradient
    >>> g, z = boosted_gradient(lambda q: 1.0 - q, np.ones(2), random_state=0)
    >>> bool(np.allclose(g, (1 - np.exp(-1)) * (1 - z)))
    True
    """
    x = check_vector(x, "x", allow_empty=True, copy=True)
    z = _boosting_z(as_rng(random_state))
    value = np.asarray(grad(z * x), dtype=np.float64)
    if value.shape != x.shape:
        raise ValueError(
            f"grad must return an array of shape {x.shape}; got shape {value.shape}."
        )
    return _BOOST * value, z


def boosted_quadratic(H, h, x):
    """Value and gradient of the boosting surrogate of a quadratic, in closed form.

    For :math:`f(x) = \\frac12 x^\\top H x + h^\\top x` (symmetric
    :math:`H`, so :math:`f(0) = 0`), integrating eq. (2) gives (the
    Hessian :math:`H/e` is Lemma 5's :math:`L_1 = L/e`)

    .. math::

        F(x) = \\frac{1}{2e} x^\\top H x + (1 - e^{-1}) h^\\top x, \\qquad
        \\nabla F(x) = \\frac{1}{e} H x + (1 - e^{-1}) h.

    Parameters
    ----------
    H : array-like of shape (n_features, n_features)
        Symmetric matrix.
    h : array-like of shape (n_features,)
        Linear term.
    x : array-like of shape (n_features,)
        The point.

    Returns
    -------
    value : float
        :math:`F(x)`.
    gradient : ndarray of shape (n_features,)
        :math:`\\nabla F(x)`.

    See Also
    --------
    boosted_gradient : The stochastic gradient, unbiased for this gradient.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online._boosting import boosted_quadratic
    >>> value, gradient = boosted_quadratic(-np.eye(2), np.ones(2), np.ones(2))
    >>> round(value, 4), np.round(gradient, 4)
    (0.8964, array([0.2642, 0.2642]))
    """
    H, h = _check_quadratic(H, h)
    x = check_vector(x, "x", H.shape[0], allow_empty=True)
    Hx = H @ x
    value = float(x @ Hx / (2.0 * _E) + _BOOST * (h @ x))
    return value, Hx / _E + _BOOST * h
