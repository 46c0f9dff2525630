"""The one module of skcgm that imports private scikit-learn API.

Everything scikit-learn keeps private but documents for third-party estimators
(parameter validation, ``validate_data``, ``_fit_context``, sample-weight
checks) is imported here and nowhere else, so that an upstream move breaks a
single file.
"""

from sklearn.base import _fit_context

# The decision_function/predict/score of every linear classifier; only
# scikit-learn's private _base module defines it.
from sklearn.linear_model._base import LinearClassifierMixin, SparseCoefMixin
from sklearn.utils._openmp_helpers import _openmp_effective_n_threads
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    RealNotInt,
    StrOptions,
    validate_params,
)
from sklearn.utils.validation import _check_sample_weight, validate_data

__all__ = [
    "HasMethods",
    "Hidden",
    "Interval",
    "LinearClassifierMixin",
    "RealNotInt",
    "SparseCoefMixin",
    "StrOptions",
    "_check_sample_weight",
    "_fit_context",
    "_openmp_effective_n_threads",
    "validate_data",
    "validate_params",
]
