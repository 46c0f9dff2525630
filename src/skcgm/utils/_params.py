"""Hyper-parameter handling of the objects that are not estimators.

The oracles (LMOs, MIPS indexes, sketches) and the online learners would not
pass scikit-learn's estimator checks (they fit on atoms or on a dimension, or
are fed gradients, not ``X, y``), but they follow its conventions:
``__init__`` only stores its arguments; :meth:`~ParamsMixin.get_params` and
:meth:`~ParamsMixin.set_params` work as scikit-learn's, nested parameters
included (``lmo__radius``), so :func:`sklearn.base.clone` copies them deeply;
the repr shows the parameters changed from their defaults, a notebook shows
scikit-learn's HTML diagram with its parameter table, and the fitted state
lives in attributes ending in ``_``.

The oracles check their parameters from every public method (an LMO call, a
projection, ``radius``), but only once per parameter change:
:meth:`~ParamsMixin._ensure_params` runs ``_validate_params`` at the first
call and again only after a parameter of some object was set (``__init__``,
``set_params`` or an assignment ``lmo.radius = 2.0``), so that a bad value
still raises before any work.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import functools
import inspect
import itertools

import numpy as np
from sklearn.utils import Tags, TargetTags, estimator_html_repr

from ._sklearn_compat import (
    Interval,
    ReprHTMLMixin,
    _get_params_html,
    make_constraint,
    validate_parameter_constraints,
)

__all__ = ["ParamsMixin", "RANDOM_STATE", "StrictInterval"]


class StrictInterval(Interval):
    """scikit-learn's :class:`Interval` constraint, bools excluded.

    ``True`` is an int to Python, and so to scikit-learn's ``Interval``; it
    is never a meaningful count, radius or tolerance, so the hyper-parameters
    of skcgm's oracles, online learners and functions refuse it. The error
    message is scikit-learn's ("must be an int in the range [1, inf)").
    """

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)


# A random_state: scikit-learn's (None, an int, a RandomState) or a numpy
# Generator.
RANDOM_STATE = ["random_state", np.random.Generator]


@functools.cache
def _init_param_names(cls):
    """The parameter names of ``cls.__init__``, sorted (computed once a class)."""
    signature = inspect.signature(cls.__init__)
    return tuple(
        sorted(
            p.name
            for p in signature.parameters.values()
            if p.name != "self" and p.kind != p.VAR_KEYWORD
        )
    )


@functools.cache
def _init_param_set(cls):
    """The parameter names of ``cls.__init__``, as a frozenset."""
    return frozenset(_init_param_names(cls))


# The version of the parameters of all the objects: every assignment of a
# parameter (``__init__``, ``set_params``, ``obj.param = value``), of any
# object, takes a new one from the counter (thread-safe in CPython). An
# object's validation is current while the version it was made at is: a
# change of a component (``ProductLMO``'s factors, a learner's ``lmo``)
# invalidates its holder too, with no walk over the components.
_VERSIONS = itertools.count(1)
_PARAMS_VERSION = [0]


def _bump_params_version():
    _PARAMS_VERSION[0] = next(_VERSIONS)


@functools.cache
def _constraint_objects(cls):
    """``(name, constraints)`` of the constrained parameters of ``cls``.

    scikit-learn's constraint objects, made once a class.
    """
    constraints = cls._parameter_constraints
    return tuple(
        (name, tuple(make_constraint(c) for c in constraints[name]))
        for name in _init_param_names(cls)
        if name in constraints and constraints[name] != "no_validation"
    )


def _is_default(value, default):
    """Whether a parameter value is its ``__init__`` default (for the repr)."""
    if value is default:
        return True
    if default is inspect.Parameter.empty or isinstance(value, np.ndarray):
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def _short_repr(value):
    """The repr of a parameter value; a large array by its shape only."""
    if isinstance(value, np.ndarray) and value.size > 6:
        return f"<ndarray of shape {value.shape}>"
    return repr(value)


class ParamsMixin(ReprHTMLMixin):
    """Parameters, clone, repr and notebook display as scikit-learn's estimators.

    ``get_params``, ``set_params`` and ``_validate_params`` behave as those of
    :class:`sklearn.base.BaseEstimator`; a subclass declares
    ``_parameter_constraints`` to use the last one, and extends
    ``_validate_params`` with the rules between parameters that no constraint
    expresses (it may return the parameters parsed, e.g. bounds as arrays).
    Public methods call :meth:`_ensure_params`, which validates once per
    parameter change.
    """

    _html_repr = estimator_html_repr
    _get_params_html = _get_params_html

    # No constraint: a subclass declares its own, as scikit-learn's estimators.
    _parameter_constraints: dict = {}

    @classmethod
    def _get_param_names(cls):
        """The parameter names of ``__init__``, sorted."""
        return list(_init_param_names(cls))

    def get_params(self, deep=True):
        """Get the parameters of this object.

        Parameters
        ----------
        deep : bool, default=True
            If True, also return the parameters of the contained objects that
            have ``get_params`` (an LMO, a MIPS index), as
            ``<component>__<parameter>``.

        Returns
        -------
        params : dict
            Parameter names mapped to their values, as given.
        """
        out = {}
        for name in self._get_param_names():
            # The raw value: a parameter may share its name with a property
            # that validates it or computes from it (an LMO's radius), and
            # clone needs what was given.
            value = (
                self.__dict__[name] if name in self.__dict__ else getattr(self, name)
            )
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update(
                    (f"{name}__{key}", item) for key, item in value.get_params().items()
                )
            out[name] = value
        return out

    def set_params(self, **params):
        """Set the parameters of this object.

        Parameters
        ----------
        **params : dict
            Parameter names mapped to their new values; ``<component>__<name>``
            sets a parameter of a contained object (``lmo__radius=2.0``).

        Returns
        -------
        self : object
            This object; fitted state is kept until the next ``fit`` (or
            ``reset``).
        """
        if not params:
            return self
        valid_params = self.get_params(deep=True)
        nested_params = {}
        for key, value in params.items():
            key, delim, sub_key = key.partition("__")
            if key not in valid_params:
                raise ValueError(
                    f"Invalid parameter {key!r} for estimator {self}. Valid "
                    f"parameters are: {self._get_param_names()!r}."
                )
            if delim:
                nested_params.setdefault(key, {})[sub_key] = value
            else:
                setattr(self, key, value)
                valid_params[key] = value
        for key, sub_params in nested_params.items():
            valid_params[key].set_params(**sub_params)
        return self

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name in _init_param_set(type(self)):
            # A parameter changed: every cached validation is out of date.
            _bump_params_version()

    def __getstate__(self):
        # The cache's version counts changes in this process only: a copy
        # (pickled to a joblib worker, deep-copied) validates afresh.
        state = self.__dict__.copy()
        state.pop("_params_cache", None)
        return state

    def _ensure_params(self):
        """Validate the parameters once per change; ``_validate_params``' result.

        The first call runs :meth:`_validate_params` and caches what it
        returns (None, or the parameters parsed); the next calls return the
        cache until a parameter of any object is set (``__init__``,
        ``set_params``, an assignment), which makes the next call validate
        again. A parameter changed in place (an entry of an array, an item
        of a list) is not seen: assign the new value instead. A validation
        that raises caches nothing.
        """
        version = _PARAMS_VERSION[0]
        cache = self.__dict__.get("_params_cache")
        if cache is not None and cache[0] == version:
            return cache[1]
        parsed = self._validate_params()
        self.__dict__["_params_cache"] = (version, parsed)
        return parsed

    def _validate_params(self):
        """Check the parameters against ``_parameter_constraints``.

        Raises an ``InvalidParameterError`` (a ValueError and a TypeError)
        naming the first invalid parameter, in scikit-learn's wording. The
        constraint objects are made once a class, and scikit-learn's
        ``validate_parameter_constraints`` is only called to word the error.
        Public methods call :meth:`_ensure_params` rather than this.
        """
        raw = self.__dict__
        for name, constraints in _constraint_objects(type(self)):
            # The raw value, as get_params returns it.
            value = raw[name] if name in raw else getattr(self, name)
            if not any(c.is_satisfied_by(value) for c in constraints):
                validate_parameter_constraints(
                    self._parameter_constraints,
                    {name: value},
                    caller_name=type(self).__name__,
                )

    def __sklearn_tags__(self):
        # BaseEstimator's tags: the display reads them to tell whether an
        # object with ``fit`` (ConvexHullLMO, a MIPS index) is fitted.
        return Tags(estimator_type=None, target_tags=TargetTags(required=False))

    def __repr__(self):
        # As scikit-learn's estimators: the parameters changed from their
        # defaults, sorted by name; large arrays by their shape only.
        defaults = inspect.signature(type(self).__init__).parameters
        args = ", ".join(
            f"{name}={_short_repr(value)}"
            for name, value in self.get_params(deep=False).items()
            if not _is_default(value, defaults[name].default)
        )
        return f"{type(self).__name__}({args})"
