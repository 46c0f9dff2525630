"""Parameter checks shared by the oracles, online learners and generators.

The objects that are not estimators (oracles, online learners) and the
generators that build them validate their scalars and points with these, so
a bad value gets the same message wherever it is passed.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state


def _is_finite_real(value):
    """Whether ``value`` is a finite real number (a bool is not)."""
    return (
        not isinstance(value, bool) and isinstance(value, Real) and np.isfinite(value)
    )


def _check_positive(owner, name, value, *, allow_zero=False, allow_none=False):
    """``float(value)`` for a finite real ``> 0`` (``>= 0``), else ValueError.

    With ``allow_none``, None is accepted and returned as is.
    """
    if value is None and allow_none:
        return None
    if not _is_finite_real(value) or value < 0 or (value == 0 and not allow_zero):
        kind = "non-negative" if allow_zero else "positive"
        accepted = f"a {kind} real number" + (" or None" if allow_none else "")
        raise ValueError(
            f"The '{name}' parameter of {owner} must be {accepted}; got {value!r}."
        )
    return float(value)


def _check_random_state(random_state):
    """A RandomState or Generator to draw from (a Generator is kept as is)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    try:
        return check_random_state(random_state)
    except ValueError:
        raise ValueError(
            "random_state must be None, an int, a numpy.random.RandomState or a "
            f"numpy.random.Generator; got {random_state!r}."
        ) from None


def _check_count(value, name):
    """``int(value)`` for an int >= 1, or a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be an int >= 1; got {value!r}.")
    return int(value)


def _check_noise(noise):
    """``float(noise)`` for a finite real >= 0, or a ValueError naming it."""
    if not _is_finite_real(noise) or noise < 0:
        raise ValueError(f"noise must be a finite real number >= 0; got {noise!r}.")
    return float(noise)


def _check_point(x, name, n_features=None, *, allow_empty=False):
    """A new finite float64 1-D array, or a ValueError naming ``name``.

    Empty unless ``allow_empty``; ``n_features`` entries when given (the
    length of the other points, or of a matrix).
    """
    try:
        array = np.array(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a 1-D array of real numbers; got {x!r}."
        ) from None
    if array.ndim != 1 or (array.shape[0] == 0 and not allow_empty):
        kind = "1-D array" if allow_empty else "non-empty 1-D array"
        raise ValueError(f"{name} must be a {kind}; got shape {array.shape}.")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must contain only finite values.")
    if n_features is not None and array.shape[0] != n_features:
        raise ValueError(
            f"{name} must have {n_features} entries; got {array.shape[0]}."
        )
    return array
