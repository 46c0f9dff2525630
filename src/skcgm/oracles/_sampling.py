"""Importance sampling of the terms of a finite sum, with unbiased weights.

Definition 2 of Raj, Musco and Mackey, "Importance Sampling via Local
Sensitivity" (AISTATS 2020): draw :math:`i_1, \\dots, i_m` i.i.d. from a
distribution :math:`P = (p_1, \\dots, p_n)` over the terms and replace
:math:`\\sum_i f_i` by :math:`\\sum_j f_{i_j} / (m p_{i_j})`, an unbiased
estimate. Merging repeated draws gives one weight per distinct index,
:math:`w_i = c_i / (m p_i)` with :math:`c_i` the number of draws of
:math:`i`; the merged estimate has the same expectation.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from ..utils._params import StrictInterval
from ..utils._sklearn_compat import validate_params
from ..utils._validation import check_vector

__all__ = ["importance_sample"]


def _poisson_inclusion(p, m):
    """Inclusion probabilities :math:`\\pi_i = \\min(1, c p_i)` with sum m.

    Water-filling: the largest probabilities are capped at 1 one after the
    other, and the remaining budget is spread proportionally to the others.
    """
    pi = np.zeros_like(p)
    order = np.argsort(p)[::-1]
    sorted_p = p[order]
    # tail[k] = sum of sorted_p[k:], the mass left after capping k entries.
    tail = np.concatenate([np.cumsum(sorted_p[::-1])[::-1], [0.0]])
    for k in range(m):
        scale = (m - k) / tail[k]
        if sorted_p[k] * scale <= 1.0:
            pi[order[k:]] = np.minimum(1.0, sorted_p[k:] * scale)
            pi[order[:k]] = 1.0
            return pi
    pi[order[:m]] = 1.0
    return pi


def _draw_with_replacement(p, m, rng):
    """Distinct indices and weights of m i.i.d. draws from p (sums to 1).

    The draws of ``rng.choice(n, m, p=p)`` (inverse CDF of the same uniforms),
    found with the uniforms sorted: the search then moves forward through the
    CDF instead of jumping across it, and the merged draws come out sorted
    (five times faster at n = 10^6, m = 10^5).
    """
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    uniforms = rng.random_sample(m)
    uniforms.sort()
    draws = cdf.searchsorted(uniforms, side="right")
    first = np.flatnonzero(np.r_[True, draws[1:] != draws[:-1]])
    indices = draws[first].astype(np.intp)
    counts = np.diff(np.r_[first, m])
    return indices, counts / (m * p[indices])


@validate_params(
    {
        "p": ["array-like"],
        "m": [StrictInterval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "replace": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def importance_sample(p, m, random_state=None, replace=True):
    """Draw a weighted subsample whose weighted sums are unbiased.

    With ``replace=True`` (Definition 2 of the paper), :math:`m` indices are
    drawn i.i.d. from :math:`P` and merged:

    .. math::

        w_i = \\frac{c_i}{m\\, p_i}, \\qquad
        \\mathbb{E}\\Big[\\sum_{i \\in S} w_i f_i\\Big]
        = \\sum_{i=1}^n f_i,

    for any values :math:`f_i` (:math:`\\mathbb{E}[c_i] = m p_i`), with
    :math:`c_i` the multiplicity of :math:`i` in the draw and :math:`S` the
    distinct indices drawn; so :math:`F^{(P, m)}(x)` of eq. (2) is
    :math:`\\frac1n \\sum_{i \\in S} w_i f_i(a_i^\\top x) + \\gamma(x)`.

    With ``replace=False`` the sample is a Poisson (independent Bernoulli)
    sample with inclusion probabilities :math:`\\pi_i = \\min(1, c\\,p_i)`,
    :math:`c` chosen so that :math:`\\sum_i \\pi_i = m`, and Horvitz-Thompson
    weights :math:`w_i = 1 / \\pi_i`: unbiased in the same sense, without
    repeated indices, but of random size (:math:`m` on average).

    Parameters
    ----------
    p : array-like of shape (n,)
        Sampling probabilities, non-negative and finite, not all zero;
        normalized to sum to 1 here (so scores proportional to them may be
        passed). Indices with :math:`p_i = 0` are never drawn: the estimate
        is then unbiased for the sum over the others only.
    m : int
        Number of draws (``replace=True``) or expected sample size
        (``replace=False``, then at most the number of positive
        :math:`p_i`).
    random_state : int, RandomState instance or None, default=None
        Seeds the draws.
    replace : bool, default=True
        Independent draws with replacement (Definition 2), or a Poisson sample
        without repetition.

    Returns
    -------
    indices : ndarray of shape (n_distinct,)
        The distinct indices drawn, sorted ascending, dtype ``intp``.
    weights : ndarray of shape (n_distinct,)
        Their unbiased weights, :math:`c_i / (m p_i)` or :math:`1/\\pi_i`
        (float64); with replacement they sum to :math:`m` draws' worth,
        :math:`\\sum_i w_i p_i = 1`.

    See Also
    --------
    ridge_leverage_scores : Scores to sample linear-regression terms by.
    skcgm.optim.local_sensitivity_scores : Scores to sample GLM terms by.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import importance_sample
    >>> p = np.array([0.5, 0.25, 0.25, 0.0])
    >>> indices, weights = importance_sample(p, 4, random_state=1)
    >>> indices, weights
    (array([0, 1]), array([1.5, 1. ]))

    Index 0 was drawn three times out of four, index 1 once:
    :math:`3 / (4 \\cdot 0.5) = 1.5` and :math:`1 / (4 \\cdot 0.25) = 1`.
    Without replacement, the inclusion probabilities are
    :math:`\\pi = (1, 0.5, 0.5, 0)` here:

    >>> importance_sample(p, 2, random_state=1, replace=False)
    (array([0, 2]), array([1., 2.]))
    """
    p = check_vector(p, "The 'p' parameter of importance_sample")
    if np.any(p < 0):
        raise ValueError(
            "The 'p' parameter of importance_sample must be finite and non-negative."
        )
    total = p.sum()
    if not total > 0:
        raise ValueError(
            "The 'p' parameter of importance_sample must have a positive entry; "
            "got all zeros."
        )
    p = p / total
    rng = check_random_state(random_state)
    m = int(m)
    if replace:
        return _draw_with_replacement(p, m, rng)
    n_positive = int(np.count_nonzero(p))
    if m > n_positive:
        raise ValueError(
            f"The 'm' parameter of importance_sample must be at most the number of "
            f"positive probabilities ({n_positive}) when replace=False; got {m}."
        )
    pi = _poisson_inclusion(p, m)
    indices = np.flatnonzero(rng.random_sample(p.shape[0]) < pi)
    return indices.astype(np.intp), 1.0 / pi[indices]
