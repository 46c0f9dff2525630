"""Linear models: mixed linear regression, the CompAdaGrad classifier and
local-sensitivity logistic regression."""

from ._compadagrad import CompAdaGradClassifier
from ._local_sensitivity import LocalSensitivityLogistic
from ._mixed_linear import MixedLinearRegressor

__all__ = [
    "CompAdaGradClassifier",
    "LocalSensitivityLogistic",
    "MixedLinearRegressor",
]
