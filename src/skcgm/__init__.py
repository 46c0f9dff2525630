"""skcgm: scikit-learn compatible estimators from five optimization papers."""

from ._version import __version__
from .cluster import SumOfMinKMeans

__all__ = ["SumOfMinKMeans", "__version__"]
