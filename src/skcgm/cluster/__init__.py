"""Clustering estimators built on the sum-of-minimum engine."""

from ._gpca import GPCAClusterer
from ._sum_of_min_kmeans import SumOfMinKMeans

__all__ = ["GPCAClusterer", "SumOfMinKMeans"]
