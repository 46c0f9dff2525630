"""Regression estimators built on the sum-of-minimum engine."""

from ._mixed_linear import MixedLinearRegressor

__all__ = ["MixedLinearRegressor"]
