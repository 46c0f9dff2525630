"""Oracles shared by the solvers: linear minimization and maximum inner product.

Sign conventions, written once: an LMO returns ``argmin_{s in C} <g, s>``; a
MIPS index returns ``argmax_i <q, a_i>`` and how many candidates it scored, so
the LMO over a finite set of atoms is ``atoms[mips(-g)]``.
"""

from ._lmo import ConvexHullLMO, L1BallLMO, LMOResult, SimplexLMO
from ._mips import (
    LSHMIPS,
    ExactMIPS,
    fw_atom_transform,
    fw_query_transform,
    sphere_pad_atoms,
    sphere_pad_query,
)

__all__ = [
    "ConvexHullLMO",
    "ExactMIPS",
    "L1BallLMO",
    "LMOResult",
    "LSHMIPS",
    "SimplexLMO",
    "fw_atom_transform",
    "fw_query_transform",
    "sphere_pad_atoms",
    "sphere_pad_query",
]
