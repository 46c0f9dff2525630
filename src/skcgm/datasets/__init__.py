"""Generators for the papers' experiments."""

from ._mdp import ActionConstrainedMDP, make_action_constrained_mdp
from ._mixed_linear import make_mixed_linear_regression
from ._subspaces import make_union_of_subspaces

__all__ = [
    "ActionConstrainedMDP",
    "make_action_constrained_mdp",
    "make_mixed_linear_regression",
    "make_union_of_subspaces",
]
