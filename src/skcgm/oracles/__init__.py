"""Oracles shared by the solvers: linear minimization, projections, maximum
inner product, sketches, losses of a margin.

Sign conventions, written once: an LMO returns ``argmin_{s in C} <g, s>``; a
MIPS index returns ``argmax_i <q, a_i>`` and how many candidates it scored, so
the LMO over a finite set of atoms is ``atoms[mips(-g)]``.
"""

from ._glm_loss import LogisticLoss
from ._kernel_means import kernel_mean_embedding, kernel_mean_squared_norm, squared_mmd
from ._leverage import ridge_leverage_scores
from ._lmo import ConvexHullLMO, L1BallLMO, LMOResult, SimplexLMO
from ._lmo_matrix import NuclearNormBallLMO
from ._lmo_polytopes import BirkhoffLMO, DownClosedPolytopeLMO, PolytopeLMO, ProductLMO
from ._lmo_sets import BoxLMO, CappedSimplexLMO, KSparseLMO, L2BallLMO, LinfBallLMO
from ._margin_losses import (
    HingeLoss,
    ModifiedHuberLoss,
    PerceptronLoss,
    SquaredHingeLoss,
)
from ._mips import (
    LSHMIPS,
    ExactMIPS,
    fw_atom_transform,
    fw_query_transform,
    sphere_pad_atoms,
    sphere_pad_query,
)
from ._projection import (
    FWProjectionResult,
    InfeasibleProjectionResult,
    SHFWResult,
    check_infeasible_projection,
    frank_wolfe_projection,
    infeasible_projection,
    infeasible_projection_lmo_bound,
    separating_hyperplane_fw,
)
from ._sampling import importance_sample
from ._sketches import SRHT, CountSketch, fwht

__all__ = [
    "BirkhoffLMO",
    "BoxLMO",
    "CappedSimplexLMO",
    "ConvexHullLMO",
    "CountSketch",
    "DownClosedPolytopeLMO",
    "ExactMIPS",
    "FWProjectionResult",
    "HingeLoss",
    "InfeasibleProjectionResult",
    "KSparseLMO",
    "L1BallLMO",
    "L2BallLMO",
    "LMOResult",
    "LSHMIPS",
    "LinfBallLMO",
    "LogisticLoss",
    "ModifiedHuberLoss",
    "NuclearNormBallLMO",
    "PerceptronLoss",
    "PolytopeLMO",
    "ProductLMO",
    "SHFWResult",
    "SRHT",
    "SimplexLMO",
    "SquaredHingeLoss",
    "check_infeasible_projection",
    "frank_wolfe_projection",
    "fw_atom_transform",
    "fw_query_transform",
    "fwht",
    "importance_sample",
    "infeasible_projection",
    "infeasible_projection_lmo_bound",
    "kernel_mean_embedding",
    "kernel_mean_squared_norm",
    "ridge_leverage_scores",
    "separating_hyperplane_fw",
    "sphere_pad_atoms",
    "sphere_pad_query",
    "squared_mmd",
]
