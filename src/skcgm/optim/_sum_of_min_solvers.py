"""The sum-of-minimum solvers by name, and the check that a loss can serve one."""

import inspect
import warnings

from sklearn.exceptions import ConvergenceWarning

from ._lloyd_exact import ExactLloyd
from ._lloyd_gradient import GradientLloyd
from ._lloyd_momentum import MomentumLloyd

#: The solvers of the ``solver`` option; a new solver is one more entry.
SOLVERS = {solver.name: solver for solver in (ExactLloyd, GradientLloyd, MomentumLloyd)}

#: What every capability a solver may require means, and the way out.
_CAPABILITIES = {
    "has_group_minimizer": (
        "a closed-form group minimizer",
        "use solver='gd' or 'momentum'",
    ),
    "has_lipschitz_gradient": ("Lipschitz gradients", "use solver='exact'"),
}


def make_solver(problem, name, **options):
    """The solver ``name`` with its options, after checking the loss serves it.

    Options the solver does not take are ignored, so the callers pass their
    whole set. Refuses a loss family without a capability the solver
    ``requires``, and warns when the momentum solver's options leave the
    assumptions of Theorem 4.7.
    """
    cls = SOLVERS[name]
    for capability in cls.requires:
        if not getattr(problem, capability):
            what, advice = _CAPABILITIES[capability]
            raise ValueError(
                f"solver={name!r} needs {what}, which {type(problem).__name__} "
                f"does not have; {advice}."
            )
    accepted = inspect.signature(cls).parameters
    solver = cls(**{key: value for key, value in options.items() if key in accepted})
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
