"""The local-sensitivity family: local-sensitivity scores, the approximate
proximal point method and full-batch L-BFGS on the same problems, in memory
or over a dask array's chunks.

:class:`ProximalPointSolver` and :class:`LBFGSSolver` (by name in
:data:`SOLVERS`, ``'auto'`` by :func:`auto_solver`) solve a
:class:`OneVsRestProblem`; :func:`approximate_proximal_point`,
:func:`full_batch_lbfgs` and :func:`local_sensitivity_scores` work on one
problem in memory.
"""

from ._in_memory import ProximalPointResult, local_sensitivity_scores
from ._lbfgs import full_batch_lbfgs
from ._problem import OneVsRestProblem, row_weights
from ._registry import SOLVERS, auto_solver, make_solver
from ._solvers import (
    LBFGSSolver,
    ProximalPointSolver,
    approximate_proximal_point,
    draws_per_round,
)

__all__ = [
    "SOLVERS",
    "LBFGSSolver",
    "OneVsRestProblem",
    "ProximalPointResult",
    "ProximalPointSolver",
    "approximate_proximal_point",
    "auto_solver",
    "draws_per_round",
    "full_batch_lbfgs",
    "local_sensitivity_scores",
    "make_solver",
    "row_weights",
]
