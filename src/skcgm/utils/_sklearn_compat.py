"""The one module of skcgm that imports private scikit-learn API.

Everything scikit-learn keeps private but documents for third-party estimators
(parameter validation, ``validate_data``, ``_fit_context``, sample-weight
checks) is imported here and nowhere else, so that an upstream move breaks a
single file.
"""

from sklearn.base import BaseEstimator, _fit_context

# The decision_function/predict/score of every linear classifier; only
# scikit-learn's private _base module defines it.
from sklearn.linear_model._base import LinearClassifierMixin, SparseCoefMixin

# The set_{method}_request descriptor; the samplers declare
# set_fit_resample_request with it, whatever the import order of
# imbalanced-learn (which registers fit_resample as a routed method).
from sklearn.utils._metadata_requests import RequestMethod
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    RealNotInt,
    StrOptions,
    make_constraint,
    validate_parameter_constraints,
    validate_params,
)

# The notebook display of BaseEstimator for objects that are not estimators
# (oracles, online learners), as scikit-learn advises in its issue #30958.
from sklearn.utils._repr_html.base import ReprHTMLMixin
from sklearn.utils.validation import (
    _check_feature_names,
    _check_sample_weight,
    validate_data,
)

# The parameter table of that display.
_get_params_html = BaseEstimator._get_params_html

__all__ = [
    "HasMethods",
    "Hidden",
    "Interval",
    "InvalidParameterError",
    "LinearClassifierMixin",
    "RealNotInt",
    "ReprHTMLMixin",
    "RequestMethod",
    "SparseCoefMixin",
    "StrOptions",
    "make_constraint",
    "validate_data",
    "validate_parameter_constraints",
    "validate_params",
    "_check_feature_names",
    "_check_sample_weight",
    "_fit_context",
    "_get_params_html",
]
