"""The local-sensitivity family: local-sensitivity scores, the approximate
proximal point method and full-batch L-BFGS on the same problems, in memory
or over a dask array's chunks."""

from ._lbfgs import full_batch_lbfgs
from ._solver import (
    ProximalPointResult,
    approximate_proximal_point,
    local_sensitivity_scores,
)

__all__ = [
    "ProximalPointResult",
    "approximate_proximal_point",
    "full_batch_lbfgs",
    "local_sensitivity_scores",
]
