"""The loss families and solvers by name, and the check that a loss can serve one.

A loss family is a :class:`SumOfMinLoss` subclass in a file of its own: the
solvers it serves follow from its capability flags, checked here against
what every solver ``requires``, and an entry of :data:`LOSSES` names it for
the ``loss`` option.
"""

import inspect
import warnings

from sklearn.exceptions import ConvergenceWarning

from ...utils._blocks import is_dask_array
from ._adam import AdamLloyd
from ._dask import ChunkedLloyd
from ._exact import ExactLloyd
from ._gradient import GradientLloyd
from ._momentum import MomentumLloyd
from .losses import KLDivergenceLoss, SquaredEuclideanLoss

__all__ = ["CHUNKED_SOLVERS", "LOSSES", "SOLVERS", "make_solver"]

#: The loss families of the ``loss`` option, by name.
LOSSES = {"squared_euclidean": SquaredEuclideanLoss, "kl": KLDivergenceLoss}

#: The solvers of the ``solver`` option; a new solver is one more entry.
SOLVERS = {
    solver.name: solver
    for solver in (ExactLloyd, GradientLloyd, MomentumLloyd, AdamLloyd)
}

#: The solvers of a problem on the chunks of a dask array, by the same names.
CHUNKED_SOLVERS = {ChunkedLloyd.name: ChunkedLloyd}

#: What every capability a solver may require means.
_CAPABILITIES = {
    "has_group_minimizer": "a closed-form group minimizer",
    "has_lipschitz_gradient": "Lipschitz gradients",
    "has_partition_gradient": "gradients of the group objectives of a partition",
}


def _supported(problem):
    """Names of the solvers whose every requirement the loss meets."""
    return [
        name
        for name, cls in SOLVERS.items()
        if all(getattr(problem, need, False) for need in cls.requires)
    ]


def make_solver(problem, solver, **options):
    """The solver object, after checking the loss serves it.

    ``solver`` is a name of :data:`SOLVERS` (of :data:`CHUNKED_SOLVERS` for a
    problem on the chunks of a dask array), built with those of ``options``
    its constructor takes (the callers pass their whole set), or a solver
    object, used as it is (its own hyper-parameters hold; ``options`` are
    ignored). Refuses a loss family without a capability the solver
    ``requires``, and warns when the momentum solver's options leave the
    assumptions of Theorem 4.7.
    """
    if isinstance(solver, str):
        registry = CHUNKED_SOLVERS if is_dask_array(problem.X) else SOLVERS
        if solver not in registry:
            raise ValueError(
                f"solver={solver!r} does not run on this data; use one of "
                f"{sorted(registry)}."
            )
        cls = registry[solver]
        accepted = inspect.signature(cls).parameters
        solver = cls(**{k: v for k, v in options.items() if k in accepted})
    name = getattr(solver, "name", type(solver).__name__)
    for capability in getattr(solver, "requires", ()):
        if not getattr(problem, capability, False):
            what = _CAPABILITIES.get(capability, capability)
            choices = " or ".join(repr(other) for other in _supported(problem))
            raise ValueError(
                f"solver={name!r} needs {what}, which {type(problem).__name__} "
                f"does not have; use solver={choices}."
            )
    if name == "momentum" and solver.momentum * solver.size_change_factor >= 1:
        product = solver.momentum * solver.size_change_factor
        warnings.warn(
            f"momentum * size_change_factor = {product:.3g} >= 1: the "
            "convergence guarantee of momentum Lloyd (Theorem 4.7) needs "
            "momentum * size_change_factor < 1.",
            ConvergenceWarning,
            stacklevel=4,
        )
    return solver
