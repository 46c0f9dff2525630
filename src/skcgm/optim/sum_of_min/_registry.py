"""The sum-of-minimum solvers by name, and the check that a loss can serve one."""

import inspect
import warnings

from sklearn.exceptions import ConvergenceWarning

from ._adam import AdamLloyd
from ._exact import ExactLloyd
from ._gradient import GradientLloyd
from ._momentum import MomentumLloyd

#: The solvers of the ``solver`` option; a new solver is one more entry.
SOLVERS = {
    solver.name: solver
    for solver in (ExactLloyd, GradientLloyd, MomentumLloyd, AdamLloyd)
}

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

    ``solver`` is a name of :data:`SOLVERS`, built with those of ``options``
    its constructor takes (the callers pass their whole set), or a solver
    object, used as it is (its own hyper-parameters hold; ``options`` are
    ignored). Refuses a loss family without a capability the solver
    ``requires``, and warns when the momentum solver's options leave the
    assumptions of Theorem 4.7.
    """
    if isinstance(solver, str):
        cls = SOLVERS[solver]
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
