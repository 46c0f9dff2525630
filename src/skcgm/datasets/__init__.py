"""Generators and loaders for the papers' experiments and benchmarks."""

from ._classification import (
    make_correlated_classification,
    make_logistic_classification,
    make_sensitivity_synthetic,
    make_sparse_text_classification,
)
from ._digits_prototypes import digits_prototype_features
from ._gaussian_mixture import make_gaussian_mixture
from ._heavy_tailed import make_heavy_tailed_classification
from ._mdp import ActionConstrainedMDP, make_action_constrained_mdp
from ._mixed_linear import make_mixed_linear_regression
from ._mixed_mlp import make_mixed_mlp_regression
from ._online_nqp import make_decentralized_nqp, make_online_nqp
from ._subspaces import make_union_of_subspaces

__all__ = [
    "ActionConstrainedMDP",
    "digits_prototype_features",
    "make_action_constrained_mdp",
    "make_correlated_classification",
    "make_decentralized_nqp",
    "make_gaussian_mixture",
    "make_heavy_tailed_classification",
    "make_logistic_classification",
    "make_mixed_linear_regression",
    "make_mixed_mlp_regression",
    "make_online_nqp",
    "make_sensitivity_synthetic",
    "make_sparse_text_classification",
    "make_union_of_subspaces",
]
