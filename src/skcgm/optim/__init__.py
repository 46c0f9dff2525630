"""Solvers: arrays in, result objects out.

The sum-of-minimum engine (generalized k-means++ seeding, generalized and
momentum Lloyd), its per-sample loss families, the sum-of-product GPCA
baseline, the Frank-Wolfe driver over a linear minimization oracle and
kernel herding on it,
sublinear Frank-Wolfe policy optimization (SFWPO), and the CompAdaGrad
preconditioner state and composite step.
"""

from ._compadagrad import (
    CompAdaGradState,
    compadagrad_step,
    init_compadagrad_state,
)
from ._frank_wolfe import FrankWolfeResult, frank_wolfe
from ._full_batch import full_batch_lbfgs
from ._gpca import SubspaceLoss, SumOfProductSweeps, sum_of_product_gpca
from ._herding import KernelHerding
from ._lloyd_adam import AdamLloyd
from ._lloyd_exact import ExactLloyd
from ._lloyd_gradient import GradientLloyd
from ._lloyd_momentum import MomentumLloyd
from ._mixed_linear_loss import MixedLinearLoss
from ._mixed_mlp_loss import MixedMLPLoss
from ._policy import SFWPOResult, sfwpo
from ._proximal_point import (
    ProximalPointResult,
    approximate_proximal_point,
    local_sensitivity_scores,
)
from ._sum_of_min import SumOfMinResult, generalized_kmeans_plusplus, sum_of_minimum
from ._sum_of_min_losses import KLDivergenceLoss, SquaredEuclideanLoss, SumOfMinLoss

__all__ = [
    "AdamLloyd",
    "CompAdaGradState",
    "ExactLloyd",
    "FrankWolfeResult",
    "GradientLloyd",
    "KLDivergenceLoss",
    "KernelHerding",
    "MixedLinearLoss",
    "MixedMLPLoss",
    "MomentumLloyd",
    "ProximalPointResult",
    "SFWPOResult",
    "SquaredEuclideanLoss",
    "SubspaceLoss",
    "SumOfMinLoss",
    "SumOfMinResult",
    "SumOfProductSweeps",
    "approximate_proximal_point",
    "compadagrad_step",
    "frank_wolfe",
    "full_batch_lbfgs",
    "generalized_kmeans_plusplus",
    "init_compadagrad_state",
    "local_sensitivity_scores",
    "sfwpo",
    "sum_of_product_gpca",
    "sum_of_minimum",
]
