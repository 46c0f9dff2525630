"""Samplers: pick a small weighted subset of the rows of a data set."""

from ._kernel_herding import KernelHerdingSampler

__all__ = ["KernelHerdingSampler"]
