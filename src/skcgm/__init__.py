"""skcgm: scikit-learn compatible estimators from five optimization papers."""

from ._version import __version__
from .cluster import GPCAClusterer, SumOfMinKMeans
from .linear_model import MixedLinearRegressor
from .sampling import KernelHerdingSampler

__all__ = [
    "GPCAClusterer",
    "KernelHerdingSampler",
    "MixedLinearRegressor",
    "SumOfMinKMeans",
    "__version__",
]
