"""skcgm: scikit-learn compatible estimators from five optimization papers."""

from ._version import __version__
from .cluster import GPCAClusterer, SumOfMinKMeans
from .linear_model import MixedLinearRegressor

__all__ = ["GPCAClusterer", "MixedLinearRegressor", "SumOfMinKMeans", "__version__"]
