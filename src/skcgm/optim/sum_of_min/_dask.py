"""Sum-of-minimum fits on a dask array: seeding and Lloyd passes chunk by chunk.

The rows of a :class:`dask.array.Array` stay where its chunks live: every pass
over the data (the seeding scores and the rows they draw, assignments and
group statistics, objective values) runs as one task per chunk, each binding
the loss family to its chunk, and only small results reach the caller: group
statistics (``k x d`` sums, ``k x d x d`` moments), counts and a few rows.
The group statistics of the engine's loss families add up over blocks of
rows, so the in-memory group minimizer turns their sum into the next
parameters. A fit on a dask array binds a :class:`ChunkedProblem`, whose
runs start from :func:`chunked_initialize` and are solved by
:class:`ChunkedLloyd`, the registry's 'exact' solver for chunks. dask is
imported only when such an array is given.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ...utils._chunks import RowChunks
from ...utils._progress import Progress
from ...utils._random import MAX_SEED
from ._exact import ExactLloyd
from ._result import SumOfMinResult
from .losses._base import group_membership

__all__ = [
    "ChunkedLloyd",
    "ChunkedProblem",
    "ChunkedResult",
    "check_dask_options",
    "chunked_initialize",
    "dask_distances",
    "dask_labels",
    "dask_objective",
]

#: Restarts of the seeding and Lloyd's algorithm on the weighted candidates.
RECLUSTER_INIT = 10


def _bound(loss, block, y_block):
    """``loss`` bound to one chunk (and its targets), refusing non-finite values."""
    block = np.asarray(block)
    if not np.all(np.isfinite(block)):
        raise ValueError("Input X contains NaN or infinity.")
    if y_block is not None:
        y_block = np.asarray(y_block)
        if not np.all(np.isfinite(y_block)):
            raise ValueError("Input y contains NaN or infinity.")
    return loss.bind(block, y_block)


def _largest(values, n):
    """Indices of the ``n`` largest values, ties to the lowest index, in that order."""
    n = min(n, values.shape[0])
    if n == 0:
        return np.empty(0, dtype=np.intp)
    # Every value tied with the n-th largest is kept, so ties order by index.
    threshold = np.partition(values, values.shape[0] - n)[values.shape[0] - n]
    kept = np.flatnonzero(values >= threshold)
    return kept[np.lexsort((kept, -values[kept]))][:n]


def _lloyd_pass(block, y_block, loss, params, n_candidates):
    """Assignments and group statistics of one chunk.

    Returns the group statistics and counts, the sum of the smallest losses
    of every group, and the ``n_candidates`` rows of largest gap (gaps,
    local indices, rows, targets, labels), the candidates of the relocation
    of empty groups.
    """
    problem = _bound(loss, block, y_block)
    labels, min_losses, _, statistics = problem.reclassify(
        params, np.ones(problem.n_samples), with_statistics=True
    )
    n_params = params.shape[0]
    counts = np.bincount(labels, minlength=n_params).astype(np.float64)
    losses = np.bincount(labels, weights=min_losses, minlength=n_params)
    worst = np.empty(0, dtype=np.intp)
    gaps = min_losses
    if n_candidates:
        gaps = min_losses - problem.sample_min_values()
        worst = _largest(gaps, n_candidates)
    y_worst = None if y_block is None else problem.y[worst]
    candidates = (gaps[worst], worst, problem.X[worst], y_worst, labels[worst])
    statistics = tuple(part.astype(np.float64) for part in statistics)
    return statistics, counts, losses, candidates


def _score_pass(block, y_block, loss, params, init_score, scale, seed):
    """Seeding scores of a chunk's rows, and the rows they draw.

    The score is the smallest gap (eq. 3.2) or squared gradient norm (eq.
    3.5) over ``params``; a row is drawn with probability ``scale`` times
    its score (``scale`` is 0 in the first pass, which only sums them).
    """
    problem = _bound(loss, block, y_block)
    if init_score == "gap":
        scores = problem.loss_matrix(params).min(axis=1) - problem.sample_min_values()
    else:
        scores = np.min([problem.grad_sq_norm_vector(p) for p in params], axis=0)
    np.maximum(scores, 0, out=scores)
    drawn = np.random.RandomState(seed).uniform(size=problem.n_samples)
    chosen = drawn < scale * scores
    y_chosen = None if y_block is None else problem.y[chosen]
    return float(scores.sum()), problem.X[chosen], y_chosen


def _minimizers(loss, rows, targets, random_state):
    """The minimizers of the losses of some rows, computed on the caller's side."""
    problem = _bound(loss, rows, targets)
    return problem.sample_minimizers(np.arange(rows.shape[0]), random_state)


def _closest_counts(block, y_block, loss, params):
    problem = _bound(loss, block, y_block)
    labels, _, _, _ = problem.reclassify(params, np.ones(problem.n_samples))
    return np.bincount(labels, minlength=params.shape[0]).astype(np.float64)


class ChunkedProblem:
    """A loss family on the row chunks of a dask array: the problem of a chunked fit.

    What :meth:`~SumOfMinLoss.bind` is to data in memory: every pass binds
    the loss to each chunk in a task of its own. The loss is first given
    what its binding needs of the whole data
    (:meth:`~SumOfMinLoss.for_chunks`); the passes of a run are counted,
    that binding's and the run's seeding's included.

    Parameters
    ----------
    loss : SumOfMinLoss
        The loss family, unbound.
    X : dask array of shape (n_samples, n_features)
        The data, chunked by rows (validated).
    y : dask array of shape (n_samples,), default=None
        Its targets, chunked as its rows.

    Attributes
    ----------
    loss : SumOfMinLoss
        The unbound loss every chunk binds.
    n_samples : int
        Number of rows.
    n_passes : int
        Passes over the data of the current run.
    """

    def __init__(self, loss, X, y=None):
        self.loss, self._binding_passes = loss.for_chunks(X, y)
        self.X, self.y = X, y
        # A pass's task gets a chunk's rows and targets.
        self.chunks = RowChunks(X, y)
        self.n_samples = X.shape[0]
        self.n_passes = self._binding_passes
        # What the solver registry asks of a problem.
        self.inertia_scale = loss.inertia_scale
        self.has_group_minimizer = loss.has_group_minimizer
        self.has_lipschitz_gradient = loss.has_lipschitz_gradient
        self.has_partition_gradient = loss.has_partition_gradient

    def start_run(self):
        """Count the passes of a new run from the binding's."""
        self.n_passes = self._binding_passes

    def map_chunks(self, func, *args, seeds=None):
        """``func(chunk, y_chunk, *args[, seed])`` for every chunk: one pass."""
        self.n_passes += 1
        return self.chunks.compute(func, *args, with_start=False, seeds=seeds)

    def rows(self, indices):
        """A few rows (and targets), computed: not a pass."""
        rows, targets = self.chunks.rows(indices)
        return np.asarray(rows, dtype=np.float64), targets


def chunked_initialize(
    problem, init, n_clusters, sample_weight, init_score, random_state
):
    """Initial parameters of a run on the chunks of a dask array.

    'k-means++' is :func:`oversampled_seeds`, 'uniform' the minimizers of
    rows drawn uniformly, 'random' the family's random parameters; an array
    is used as it is. The counterpart of the in-memory seeding's
    ``initialize`` (its ``sample_weight`` is None: a fit on chunks takes no
    weights); the run's passes are counted from here.
    """
    problem.start_run()
    if isinstance(init, str) and init == "k-means++":
        return oversampled_seeds(problem, n_clusters, init_score, random_state)
    if not isinstance(init, str):
        return np.asarray(init, dtype=np.float64)
    indices = np.sort(random_state.choice(problem.n_samples, n_clusters, replace=False))
    rows, targets = problem.rows(indices)
    if init == "uniform":
        return _minimizers(problem.loss, rows, targets, random_state)
    bound = _bound(problem.loss, rows, targets)
    return bound.random_params(n_clusters, random_state, np.float64)


def oversampled_seeds(
    problem,
    n_clusters,
    init_score,
    random_state,
    n_rounds=5,
    oversampling=2.0,
):
    """k-means|| candidates reduced to ``n_clusters`` seeds on the caller's side.

    The scalable k-means++ of Bahmani et al. (2012) with the paper's scores
    (eq. 3.2 or 3.5): a first row drawn uniformly, then ``n_rounds`` passes
    that keep every row independently with probability
    :math:`\\min(1, \\ell\\, v_i / \\phi)`, :math:`\\ell` =
    ``oversampling * n_clusters``, :math:`v_i` its score at the minimizers
    of the candidate rows and :math:`\\phi` the scores' sum at the previous
    pass (one pass per round: the draws use the sum of the round before,
    which only lowers the probabilities). A last pass weights every
    candidate by the number of rows closest to its minimizer; the seeds are
    the best of ``RECLUSTER_INIT`` runs of the generalized k-means++
    (Algorithm 1) and Lloyd's algorithm on the weighted candidate rows, in
    memory (the reclustering step of k-means||).

    Parameters
    ----------
    problem : ChunkedProblem
        The loss family on the chunks.
    n_clusters : int
        Number of seeds.
    init_score : {'gap', 'gradient'}
        The seeding score.
    random_state : RandomState instance
        Seeds the draws; the draws of a chunk come from a seed of its own,
        so they depend on the chunk layout.
    n_rounds : int, default=5
        Oversampling passes.
    oversampling : float, default=2.0
        Rows drawn per pass, in expectation, per cluster.

    Returns
    -------
    seeds : ndarray of shape (n_clusters, *param_shape)
        The initial parameters.
    """
    # The reclustering runs the engine in memory, which imports this module.
    from ._engine import sum_of_minimum

    loss, n_samples = problem.loss, problem.n_samples
    rows, targets = problem.rows([int(random_state.randint(n_samples))])
    params = _minimizers(loss, rows, targets, random_state)
    n_chunks = len(problem.X.chunks[0])
    scale = 0.0
    for _ in range(n_rounds + 1):
        seeds = random_state.randint(MAX_SEED, size=n_chunks)
        parts = problem.map_chunks(
            _score_pass, loss, params, init_score, scale, seeds=seeds
        )
        phi = sum(part[0] for part in parts)
        drawn = [part for part in parts if part[1].shape[0]]
        if drawn:
            new_rows = np.vstack([part[1] for part in drawn])
            new_targets = None
            if problem.y is not None:
                new_targets = np.concatenate([part[2] for part in drawn])
                targets = np.concatenate([targets, new_targets])
            rows = np.vstack([rows, new_rows])
            params = np.concatenate(
                [params, _minimizers(loss, new_rows, new_targets, random_state)]
            )
        if not phi > 0:
            break
        scale = oversampling * n_clusters / phi
    weights = np.sum(problem.map_chunks(_closest_counts, loss, params), axis=0)
    if rows.shape[0] <= n_clusters:
        # Fewer candidates than clusters: rows drawn uniformly fill in.
        extra = np.sort(random_state.choice(n_samples, n_clusters - rows.shape[0]))
        filler = _minimizers(loss, *problem.rows(extra), random_state)
        return np.concatenate([params, filler])
    with warnings.catch_warnings():
        # Too few distinct candidates is reported once, by the fit.
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = sum_of_minimum(
            rows,
            n_clusters,
            y=targets,
            loss=loss,
            sample_weight=weights,
            init_score=init_score,
            n_init=RECLUSTER_INIT,
            random_state=random_state,
        )
    return result.params


def _relocate(loss, statistics, counts, parts, offsets):
    """Move the worst-served rows into empty groups, as ``relocate_empty`` does.

    The rows of largest gap (ties to the lowest row), at most one per empty
    group and only rows of positive gap, leave their group for the lowest
    empty one; the statistics of both groups follow, computed on the moved
    rows alone (the statistics add up over rows).
    """
    empty = np.flatnonzero(counts == 0)
    if empty.size == 0:
        return statistics, counts
    gaps = np.concatenate([part[3][0] for part in parts])
    rows = np.concatenate([part[3][1] + start for part, start in zip(parts, offsets)])
    order = np.lexsort((rows, -gaps))[: empty.size]
    order = order[gaps[order] > 0]
    if order.size == 0:
        return statistics, counts
    vectors = np.vstack([part[3][2] for part in parts])[order]
    targets = None
    if parts[0][3][3] is not None:
        targets = np.concatenate([part[3][3] for part in parts])[order]
    old = np.concatenate([part[3][4] for part in parts])[order]
    new = empty[: order.size]
    moved = _bound(loss, vectors, targets)
    ones = np.ones(order.size)
    k = counts.shape[0]
    leaving = moved.group_statistics(group_membership(old, ones, k))
    arriving = moved.group_statistics(group_membership(new, ones, k))
    statistics = tuple(
        total - out + into for total, out, into in zip(statistics, leaving, arriving)
    )
    counts = counts + np.bincount(new, minlength=k) - np.bincount(old, minlength=k)
    return statistics, counts


@dataclass
class ChunkedResult(SumOfMinResult):
    """Result of :class:`ChunkedLloyd`: a :class:`SumOfMinResult` of the chunks.

    Its ``labels`` are a lazy dask array chunked as the rows (the partition
    stays on the workers); the groups' sizes and losses come from the last
    pass.

    Parameters
    ----------
    counts : ndarray of shape (n_clusters,), default=None
        Number of rows of every group at the final parameters.
    group_losses : ndarray of shape (n_clusters,), default=None
        Sum of the smallest losses of every group's rows there.
    n_passes : int, default=None
        Passes over the data of the run, its seeding's and its binding's
        included.
    **fields : dict
        The fields of :class:`SumOfMinResult`.
    """

    counts: np.ndarray = field(default=None, repr=False)
    group_losses: np.ndarray = field(default=None, repr=False)
    n_passes: int = None

    def group_sizes(self, n_groups):
        """Count the rows of every group, from the last pass.

        Parameters
        ----------
        n_groups : int
            Number of groups.

        Returns
        -------
        sizes : ndarray of shape (n_groups,)
            Number of rows of every group.
        """
        return self.counts


class ChunkedLloyd(ExactLloyd):
    """:class:`ExactLloyd` on the chunks of a dask array, pass for pass.

    Every iteration assigns the rows of every chunk to their closest
    parameter (eq. 3.6) and gathers the group statistics, on the workers;
    the caller adds them up and replaces every parameter by its group
    minimizer. Stops when the partition repeats (the statistics and counts
    repeat) or the objective decreases by at most ``tol`` relative to its
    previous value. Empty groups are relocated to the worst-served rows as
    :func:`~skcgm.optim.sum_of_min._empty_groups.relocate_empty` does, or kept.

    Parameters
    ----------
    max_iter : int, default=300
        Maximum number of parameter updates.
    tol : float, default=1e-4
        Relative decrease of the objective at which to stop.
    empty_cluster : {'relocate', 'keep'}, default='relocate'
        Relocate empty groups, or keep them.
    """

    def solve(self, problem, start, sample_weight, random_state, progress=None):
        """Run from ``start`` until the stopping rule or ``max_iter``.

        Parameters
        ----------
        problem : ChunkedProblem
            The loss family on the chunks, with a group minimizer.
        start : ndarray of shape (n_clusters, \\*param_shape)
            The initial parameters.
        sample_weight : None
            Unused: a fit on chunks takes no weights.
        random_state : RandomState
            Unused: the passes are deterministic.
        progress : Progress, default=None
            Receives the verbose lines; None is silent.

        Returns
        -------
        result : ChunkedResult
            The run's parameters, lazy labels, objective history, passes,
            and the groups' sizes and losses at the final parameters.
        """
        progress = Progress(None) if progress is None else progress
        n_clusters = start.shape[0]
        offsets = np.concatenate([[0], np.cumsum(problem.X.chunks[0])])[:-1]
        # The group minimizer uses the family's hyper-parameters only: a loss
        # bound to one row serves.
        minimizer = _bound(problem.loss, *problem.rows([0]))
        params = np.asarray(start, dtype=np.float64)
        history = []
        previous = None
        converged = repeated = False
        n_candidates = n_clusters if self.empty_cluster == "relocate" else 0
        for n_iter in range(self.max_iter + 1):
            parts = problem.map_chunks(_lloyd_pass, problem.loss, params, n_candidates)
            fields = zip(*(part[0] for part in parts))
            statistics = tuple(np.sum(field, axis=0) for field in fields)
            counts = np.sum([part[1] for part in parts], axis=0)
            losses = np.sum([part[2] for part in parts], axis=0)
            objective = float(losses.sum()) / problem.n_samples
            history.append(objective)
            if previous is not None:
                repeated = np.array_equal(counts, previous[1]) and all(
                    np.array_equal(a, b) for a, b in zip(statistics, previous[0])
                )
                if repeated:
                    progress.iteration(n_iter, objective)
                    progress.converged(n_iter, "strict convergence")
                    converged = True
                    break
                last = history[-2]
                if last - objective <= self.tol * abs(last):
                    progress.converged(n_iter - 1, "objective within tolerance")
                    converged = True
                    break
            if n_iter == self.max_iter:
                break
            progress.iteration(n_iter, objective)
            previous = (statistics, counts)
            if self.empty_cluster == "relocate":
                statistics, counts = _relocate(
                    problem.loss, statistics, counts, parts, offsets
                )
            params = minimizer.group_minimizer(params, statistics, counts)
        return ChunkedResult.from_run(
            start,
            params,
            dask_labels(problem.X, problem.y, problem.loss, params),
            history,
            n_iter,
            converged=converged,
            partition_repeated=repeated,
            counts=counts,
            group_losses=losses,
            n_passes=problem.n_passes,
        )


def check_dask_options(**options):
    """Refuse, before any pass, the options a fit on a dask array cannot take.

    Every keyword is an option's ``(value, accepted)``: the only value a fit
    on the chunks takes.
    """
    for name, (value, accepted) in options.items():
        if not (isinstance(value, type(accepted)) and value == accepted):
            raise ValueError(
                f"With a dask array X, {name} must be {accepted!r}; got "
                f"{value!r}. Compute X into memory for the other options."
            )


def _chunk_labels(block, y_block, loss, params):
    problem = _bound(loss, block, y_block)
    labels, _, _, _ = problem.reclassify(params, np.ones(problem.n_samples))
    return labels


def dask_labels(X, y, loss, params):
    """The closest parameter of every row, a lazy dask array chunked as ``X``'s rows."""
    if y is None:
        return X.map_blocks(
            _chunk_labels,
            None,
            loss,
            params,
            drop_axis=1,
            dtype=np.intp,
            meta=np.empty(0, np.intp),
        )
    import dask.array as da

    return da.blockwise(
        _chunk_labels,
        "i",
        X,
        "ij",
        y,
        "i",
        loss,
        None,
        params,
        None,
        dtype=np.intp,
        concatenate=True,
    )


def _chunk_distances(block, loss, params):
    losses = _bound(loss, block, None).loss_matrix(params)
    return np.sqrt(np.maximum(2 * losses, 0, out=losses), out=losses)


def dask_distances(X, loss, params):
    """Euclidean distances of every row to every center, a lazy dask array."""
    return X.map_blocks(
        _chunk_distances,
        loss,
        params,
        chunks=(X.chunks[0], (params.shape[0],)),
        dtype=X.dtype,
    )


def dask_objective(X, y, loss, params):
    """The mean smallest loss of the rows of ``X`` at ``params`` (one pass)."""
    parts = RowChunks(X, y).compute(_lloyd_pass, loss, params, 0, with_start=False)
    return float(sum(part[2].sum() for part in parts)) / X.shape[0]
