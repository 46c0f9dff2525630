"""Solvers: arrays in, result objects out.

The sum-of-minimum engine (generalized k-means++ seeding, generalized and
momentum Lloyd) and its per-sample loss families.
"""

from ._sum_of_min import SumOfMinResult, generalized_kmeans_plusplus, sum_of_minimum
from ._sum_of_min_losses import KLDivergenceLoss, SquaredEuclideanLoss, SumOfMinLoss

__all__ = [
    "KLDivergenceLoss",
    "SquaredEuclideanLoss",
    "SumOfMinLoss",
    "SumOfMinResult",
    "generalized_kmeans_plusplus",
    "sum_of_minimum",
]
