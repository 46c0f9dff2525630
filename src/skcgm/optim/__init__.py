"""Solvers: arrays in, result objects out.

The sum-of-minimum engine (generalized k-means++ seeding, generalized and
momentum Lloyd), its per-sample loss families, and the sum-of-product GPCA
baseline.
"""

from ._gpca import SubspaceLoss, sum_of_product_gpca
from ._mixed_linear_loss import MixedLinearLoss
from ._sum_of_min import SumOfMinResult, generalized_kmeans_plusplus, sum_of_minimum
from ._sum_of_min_losses import KLDivergenceLoss, SquaredEuclideanLoss, SumOfMinLoss

__all__ = [
    "KLDivergenceLoss",
    "MixedLinearLoss",
    "SquaredEuclideanLoss",
    "SubspaceLoss",
    "SumOfMinLoss",
    "SumOfMinResult",
    "generalized_kmeans_plusplus",
    "sum_of_product_gpca",
    "sum_of_minimum",
]
