"""The CompAdaGrad family: the preconditioner state and composite step
(eqs. 13-15 of Mehta et al.), its compiled epoch, and the solver that drives
epochs over row blocks."""

from ._step import CompAdaGradState, compadagrad_step, init_compadagrad_state

__all__ = ["CompAdaGradState", "compadagrad_step", "init_compadagrad_state"]
