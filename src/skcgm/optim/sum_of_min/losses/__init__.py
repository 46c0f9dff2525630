"""Per-sample loss families of the sum-of-minimum engine: a family is one
:class:`SumOfMinLoss` subclass, in a file of its own, with the capabilities its
solvers declare."""

from ._base import SumOfMinLoss
from ._kl import KLDivergenceLoss
from ._mixed_linear import MixedLinearLoss
from ._mixed_mlp import MixedMLPLoss
from ._squared_euclidean import SquaredEuclideanLoss

__all__ = [
    "KLDivergenceLoss",
    "MixedLinearLoss",
    "MixedMLPLoss",
    "SquaredEuclideanLoss",
    "SumOfMinLoss",
]
