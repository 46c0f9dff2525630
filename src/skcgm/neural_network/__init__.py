"""Neural-network models: the mixture of small networks of mixed non-linear
regression."""

from ._mixed_mlp import MixedMLPRegressor

__all__ = ["MixedMLPRegressor"]
