"""skcgm: scikit-learn compatible estimators from five optimization papers."""

from ._version import __version__
from .cluster import GPCAClusterer, SumOfMinKMeans
from .linear_model import (
    CompAdaGradClassifier,
    LocalSensitivityLogistic,
    MixedLinearRegressor,
)
from .neural_network import MixedMLPRegressor
from .sampling import KernelHerdingSampler

__all__ = [
    "CompAdaGradClassifier",
    "GPCAClusterer",
    "KernelHerdingSampler",
    "LocalSensitivityLogistic",
    "MixedLinearRegressor",
    "MixedMLPRegressor",
    "SumOfMinKMeans",
    "__version__",
]
