"""Generators for the papers' experiments."""

from ._mixed_linear import make_mixed_linear_regression
from ._subspaces import make_union_of_subspaces

__all__ = ["make_mixed_linear_regression", "make_union_of_subspaces"]
