"""Generators for the papers' experiments."""

from ._mdp import ActionConstrainedMDP, make_action_constrained_mdp
from ._mixed_linear import make_mixed_linear_regression
from ._online_nqp import make_decentralized_nqp, make_online_nqp
from ._subspaces import make_union_of_subspaces

__all__ = [
    "ActionConstrainedMDP",
    "make_action_constrained_mdp",
    "make_decentralized_nqp",
    "make_mixed_linear_regression",
    "make_online_nqp",
    "make_union_of_subspaces",
]
