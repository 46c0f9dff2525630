"""Solvers: arrays or row blocks in, result objects out.

One subpackage per solver family, and no family imports another:

- :mod:`~skcgm.optim.sum_of_min`: the sum-of-minimum engine (generalized
  k-means++ seeding, the Lloyd solvers, restarts, the sum-of-product GPCA
  baseline) and, in ``sum_of_min.losses``, its per-sample loss families;
- :mod:`~skcgm.optim.compadagrad`: the CompAdaGrad preconditioner state,
  composite step and epoch driver;
- :mod:`~skcgm.optim.proximal_point`: local-sensitivity scores, the
  approximate proximal point method and full-batch L-BFGS;
- :mod:`~skcgm.optim.conditional_gradient`: the Frank-Wolfe driver over a
  linear minimization oracle, kernel herding and SFWPO.

The names below are the families' public names, importable from here.
"""

from .compadagrad import CompAdaGradState, compadagrad_step, init_compadagrad_state
from .conditional_gradient import (
    FrankWolfeResult,
    KernelHerding,
    SFWPOResult,
    frank_wolfe,
    sfwpo,
)
from .proximal_point import (
    ProximalPointResult,
    approximate_proximal_point,
    full_batch_lbfgs,
    local_sensitivity_scores,
)
from .sum_of_min import (
    AdamLloyd,
    ExactLloyd,
    GradientLloyd,
    KLDivergenceLoss,
    MixedLinearLoss,
    MixedMLPLoss,
    MomentumLloyd,
    SquaredEuclideanLoss,
    SubspaceLoss,
    SumOfMinLoss,
    SumOfMinResult,
    SumOfProductSweeps,
    generalized_kmeans_plusplus,
    sum_of_minimum,
    sum_of_product_gpca,
)

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
