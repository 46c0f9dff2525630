"""Hyper-parameter handling of the oracles, which are not estimators.

MIPS indexes and sketches would not pass scikit-learn's estimator checks
(they fit on atoms or on a dimension, not on ``X, y``), but they follow its
conventions: ``__init__`` only stores its arguments, :meth:`get_params` and
:meth:`set_params` make them clonable with :func:`sklearn.base.clone`, the
repr shows the parameters changed from their defaults, and the fitted state
lives in attributes ending in ``_``.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import inspect
from numbers import Integral, Real

import numpy as np


def _check_int(owner, name, value, low, high=None):
    """Raise a ValueError naming ``name`` unless ``low <= value <= high``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, Integral)
        or value < low
        or (high is not None and value > high)
    ):
        bounds = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(
            f"The '{name}' parameter of {owner} must be an int {bounds}; got {value!r}."
        )


def _is_finite_real(value):
    """Whether ``value`` is a finite real number (a bool is not)."""
    return (
        not isinstance(value, bool) and isinstance(value, Real) and np.isfinite(value)
    )


class _ParamsMixin:
    """``get_params``, ``set_params`` and repr from the ``__init__`` signature."""

    @classmethod
    def _param_names(cls):
        signature = inspect.signature(cls.__init__)
        return sorted(p for p in signature.parameters if p != "self")

    def get_params(self, deep=True):
        """Get the hyper-parameters of this object.

        Parameters
        ----------
        deep : bool, default=True
            Unused; present for compatibility with scikit-learn.

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set the hyper-parameters of this object.

        Parameters
        ----------
        **params : dict
            Parameter names mapped to their new values.

        Returns
        -------
        self : object
            This object; fitted state is kept until the next ``fit``.
        """
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for {type(self).__name__}; "
                    f"valid parameters are {valid}."
                )
            setattr(self, name, value)
        return self

    def __repr__(self):
        # As scikit-learn's estimators: only the parameters changed from
        # their defaults.
        defaults = inspect.signature(type(self).__init__).parameters
        args = ", ".join(
            f"{k}={v!r}"
            for k, v in self.get_params().items()
            if defaults[k].default is inspect.Parameter.empty
            or v is not defaults[k].default
            and v != defaults[k].default
        )
        return f"{type(self).__name__}({args})"
