"""The sum-of-minimum family: generalized k-means++ seeding, the Lloyd solvers
(exact, gradient, momentum, Adam), restarts, the sum-of-product GPCA baseline
and, in :mod:`.losses`, the per-sample loss families they minimize."""

from ._adam import AdamLloyd
from ._engine import generalized_kmeans_plusplus, sum_of_minimum
from ._exact import ExactLloyd
from ._gpca import SubspaceLoss, SumOfProductSweeps, sum_of_product_gpca
from ._gradient import GradientLloyd
from ._momentum import MomentumLloyd
from ._result import SumOfMinResult
from .losses import (
    KLDivergenceLoss,
    MixedLinearLoss,
    MixedMLPLoss,
    SquaredEuclideanLoss,
    SumOfMinLoss,
)

__all__ = [
    "AdamLloyd",
    "ExactLloyd",
    "GradientLloyd",
    "KLDivergenceLoss",
    "MixedLinearLoss",
    "MixedMLPLoss",
    "MomentumLloyd",
    "SquaredEuclideanLoss",
    "SubspaceLoss",
    "SumOfMinLoss",
    "SumOfMinResult",
    "SumOfProductSweeps",
    "generalized_kmeans_plusplus",
    "sum_of_minimum",
    "sum_of_product_gpca",
]
