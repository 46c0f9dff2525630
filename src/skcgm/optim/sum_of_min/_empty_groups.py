"""Relocation of empty groups, the rule of :class:`sklearn.cluster.KMeans`."""

import numpy as np

__all__ = ["relocate_empty", "relocate_parameters"]


def relocate_empty(problem, labels, min_losses, sample_weight, n_clusters):
    """Move the samples with the largest gaps into empty groups.

    The rule of ``sklearn.cluster.KMeans``: an empty group takes the sample
    worst served by its current parameter, largest gap first into the lowest
    empty index. Samples already at their minimum are never moved, so data
    with fewer distinct points than groups keeps its empty groups. Returns the
    relocated sample indices (``labels`` is updated in place).
    """
    counts = np.bincount(labels, weights=sample_weight, minlength=n_clusters)
    empty = np.flatnonzero(counts == 0)
    if empty.size == 0:
        return empty
    gaps = min_losses - problem.sample_min_values()
    gaps[sample_weight == 0] = 0
    candidates = _largest(gaps, empty.size)
    candidates = candidates[gaps[candidates] > 0]
    labels[candidates] = empty[: candidates.size]
    return candidates


def _largest(values, m):
    """Indices of the ``m`` largest values, largest first, ties by index.

    The first ``m`` of a stable descending sort, from a partition: O(n)
    instead of sorting all n values for the few empty groups.
    """
    if m >= values.size:
        return np.argsort(-values, kind="stable")
    top = np.argpartition(values, values.size - m)[values.size - m :]
    threshold = values[top].min()
    above = np.flatnonzero(values > threshold)
    above = above[np.argsort(-values[above], kind="stable")]
    tied = np.flatnonzero(values == threshold)[: m - above.size]
    return np.concatenate([above, tied])


def relocate_parameters(
    problem, params, partition, min_losses, sample_weight, random_state
):
    """Relocate empty groups and put their parameters at the moved samples.

    For the gradient solvers, which have no group minimizer to do it: the
    parameter of a group that received sample ``i`` becomes :math:`x_i^*`.
    Returns the parameters (a copy when any moved) and the moved samples;
    ``partition`` is updated in place.
    """
    moved = relocate_empty(
        problem, partition, min_losses, sample_weight, params.shape[0]
    )
    if moved.size:
        params = params.copy()
        params[partition[moved]] = problem.sample_minimizers(moved, random_state)
    return params, moved
