"""Oracles shared by the solvers: linear minimization, maximum inner product, sketches.

Sign conventions, written once: an LMO returns ``argmin_{s in C} <g, s>``; a
MIPS index returns ``argmax_i <q, a_i>`` and how many candidates it scored, so
the LMO over a finite set of atoms is ``atoms[mips(-g)]``.
"""

from ._glm_loss import LogisticLoss
from ._leverage import ridge_leverage_scores
from ._lmo import ConvexHullLMO, L1BallLMO, LMOResult, SimplexLMO
from ._mips import (
    LSHMIPS,
    ExactMIPS,
    fw_atom_transform,
    fw_query_transform,
    sphere_pad_atoms,
    sphere_pad_query,
)
from ._sampling import importance_sample
from ._sketches import SRHT, CountSketch, fwht

__all__ = [
    "ConvexHullLMO",
    "CountSketch",
    "ExactMIPS",
    "L1BallLMO",
    "LMOResult",
    "LSHMIPS",
    "LogisticLoss",
    "SRHT",
    "SimplexLMO",
    "fw_atom_transform",
    "fw_query_transform",
    "fwht",
    "importance_sample",
    "ridge_leverage_scores",
    "sphere_pad_atoms",
    "sphere_pad_query",
]
