"""Per-sample loss families of the sum-of-minimum engine: a family is one
:class:`SumOfMinLoss` subclass with the capabilities its solvers declare."""

from ._base import KLDivergenceLoss, SquaredEuclideanLoss, SumOfMinLoss
from ._mixed_linear import MixedLinearLoss
from ._mixed_mlp import MixedMLPLoss

__all__ = [
    "KLDivergenceLoss",
    "MixedLinearLoss",
    "MixedMLPLoss",
    "SquaredEuclideanLoss",
    "SumOfMinLoss",
]
