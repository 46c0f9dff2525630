"""Sum-of-minimum fits on a dask array: seeding and Lloyd passes chunk by chunk.

The rows of a :class:`dask.array.Array` stay where its chunks live: every pass
over the data (the seeding scores and the rows they draw, assignments and
group statistics, objective values) runs as one task per chunk, each binding
the loss family to its chunk, and only small results reach the caller: group
statistics (``k x d`` sums, ``k x d x d`` moments), counts and a few rows.
The group statistics of the engine's loss families add up over blocks of
rows, so the in-memory group minimizer turns their sum into the next
parameters. dask is imported only when such an array is given.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ...utils._progress import Progress
from ...utils._random import MAX_SEED
from ._engine import sum_of_minimum
from ._result import SumOfMinResult
from .losses._base import group_membership

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


def _map_chunks(func, X, y, *args, seeds=None):
    """``func(chunk, y_chunk, *args[, seed])`` for every row chunk, one task each."""
    import dask

    blocks = X.to_delayed().ravel()
    targets = [None] * len(blocks) if y is None else y.to_delayed().ravel()
    tasks = []
    for i, (block, target) in enumerate(zip(blocks, targets)):
        seed = () if seeds is None else (int(seeds[i]),)
        tasks.append(dask.delayed(func)(block, target, *args, *seed))
    return dask.compute(*tasks)


def _rows(X, y, indices):
    """Rows (and targets) of a dask array, computed: a few, never a pass."""
    rows = np.asarray(X[indices].compute(), dtype=np.float64)
    return rows, None if y is None else np.asarray(y[indices].compute())


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


def oversampled_seeds(
    X,
    y,
    loss,
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
    X : dask array of shape (n_samples, n_features)
        Row-chunked data.
    y : dask array of shape (n_samples,) or None
        Targets, chunked as the rows of ``X``.
    loss : SumOfMinLoss
        The loss family, unbound.
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
    n_passes : int
        Passes over the data.
    """
    n_samples = X.shape[0]
    rows, targets = _rows(X, y, [int(random_state.randint(n_samples))])
    params = _minimizers(loss, rows, targets, random_state)
    n_chunks = len(X.chunks[0])
    scale = 0.0
    n_passes = 0
    for _ in range(n_rounds + 1):
        seeds = random_state.randint(MAX_SEED, size=n_chunks)
        parts = _map_chunks(
            _score_pass, X, y, loss, params, init_score, scale, seeds=seeds
        )
        n_passes += 1
        phi = sum(part[0] for part in parts)
        drawn = [part for part in parts if part[1].shape[0]]
        if drawn:
            new_rows = np.vstack([part[1] for part in drawn])
            new_targets = None
            if y is not None:
                new_targets = np.concatenate([part[2] for part in drawn])
                targets = np.concatenate([targets, new_targets])
            rows = np.vstack([rows, new_rows])
            params = np.concatenate(
                [params, _minimizers(loss, new_rows, new_targets, random_state)]
            )
        if not phi > 0:
            break
        scale = oversampling * n_clusters / phi
    weights = np.sum(_map_chunks(_closest_counts, X, y, loss, params), axis=0)
    n_passes += 1
    if rows.shape[0] <= n_clusters:
        # Fewer candidates than clusters: rows drawn uniformly fill in.
        extra = np.sort(random_state.choice(n_samples, n_clusters - rows.shape[0]))
        filler = _minimizers(loss, *_rows(X, y, extra), random_state)
        return np.concatenate([params, filler]), n_passes
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
    return result.params, n_passes


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


def dask_lloyd(X, y, loss, start, max_iter, tol, empty_cluster, progress=None):
    """:class:`ExactLloyd` on a dask array, pass for pass.

    Every iteration assigns the rows of every chunk to their closest
    parameter (eq. 3.6) and gathers the group statistics, on the workers;
    the caller adds them up and replaces every parameter by its group
    minimizer. Stops when the partition repeats (the statistics and counts
    repeat) or the objective decreases by at most ``tol`` relative to its
    previous value. Empty groups are relocated to the worst-served rows as
    :func:`~skcgm.optim.sum_of_min._empty_groups.relocate_empty` does, or kept.

    Parameters
    ----------
    X : dask array of shape (n_samples, n_features)
        Row-chunked data.
    y : dask array of shape (n_samples,) or None
        Targets, chunked as the rows of ``X``.
    loss : SumOfMinLoss
        The loss family, unbound, with a group minimizer.
    start : ndarray of shape (n_clusters, *param_shape)
    max_iter : int
    tol : float
    empty_cluster : {'relocate', 'keep'}
    progress : Progress, default=None

    Returns
    -------
    result : SumOfMinResult
        With ``labels`` the groups that serve some row (the partition itself
        stays on the workers, see :func:`dask_labels`).
    n_passes : int
        Passes over the data.
    counts, losses : ndarray of shape (n_clusters,)
        Rows and sum of their losses of every group at the final parameters.
    """
    progress = Progress(None) if progress is None else progress
    n_samples = X.shape[0]
    n_clusters = start.shape[0]
    offsets = np.concatenate([[0], np.cumsum(X.chunks[0])])[:-1]
    # The group minimizer uses the family's hyper-parameters only: a loss
    # bound to one row serves.
    first, first_target = _rows(X, y, [0])
    solver = _bound(loss, first, first_target)
    params = np.asarray(start, dtype=np.float64)
    history = []
    previous = None
    converged = repeated = False
    n_candidates = n_clusters if empty_cluster == "relocate" else 0
    for n_iter in range(max_iter + 1):
        parts = _map_chunks(_lloyd_pass, X, y, loss, params, n_candidates)
        fields = zip(*(part[0] for part in parts))
        statistics = tuple(np.sum(field, axis=0) for field in fields)
        counts = np.sum([part[1] for part in parts], axis=0)
        losses = np.sum([part[2] for part in parts], axis=0)
        objective = float(losses.sum()) / n_samples
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
            if last - objective <= tol * abs(last):
                progress.converged(n_iter - 1, "objective within tolerance")
                converged = True
                break
        if n_iter == max_iter:
            break
        progress.iteration(n_iter, objective)
        previous = (statistics, counts)
        if empty_cluster == "relocate":
            statistics, counts = _relocate(loss, statistics, counts, parts, offsets)
        params = solver.group_minimizer(params, statistics, counts)
    result = SumOfMinResult.from_run(
        start,
        params,
        np.flatnonzero(counts),
        history,
        n_iter,
        converged=converged,
        partition_repeated=repeated,
    )
    return result, len(history), counts, losses


def dask_fit(
    X,
    y,
    loss,
    n_clusters,
    init,
    init_score,
    random_state,
    max_iter,
    tol,
    empty_cluster,
    progress=None,
):
    """Seeding and Lloyd passes of a sum-of-minimum estimator on a dask array.

    ``init`` is 'k-means++' (:func:`oversampled_seeds`), 'uniform' (the
    minimizers of rows drawn uniformly), 'random' (the family's random
    parameters) or an array. Returns :func:`dask_lloyd`'s result, passes
    (seeding included), counts and group losses.
    """
    random_state = check_random_state(random_state)
    n_passes = 0
    if isinstance(init, str) and init == "k-means++":
        start, n_passes = oversampled_seeds(
            X, y, loss, n_clusters, init_score, random_state
        )
    elif isinstance(init, str):
        indices = np.sort(random_state.choice(X.shape[0], n_clusters, replace=False))
        rows, targets = _rows(X, y, indices)
        if init == "uniform":
            start = _minimizers(loss, rows, targets, random_state)
        else:
            problem = _bound(loss, rows, targets)
            start = problem.random_params(n_clusters, random_state, np.float64)
    else:
        start = np.asarray(init, dtype=np.float64)
    result, lloyd_passes, counts, losses = dask_lloyd(
        X, y, loss, start, max_iter, tol, empty_cluster, progress
    )
    return result, n_passes + lloyd_passes, counts, losses


def best_dask_fit(n_init, *args):
    """The run of lowest objective of ``n_init`` :func:`dask_fit` runs.

    The runs share ``args``, the random state among them, which draws every
    run's seeds in turn.
    """
    best = None
    for _ in range(n_init):
        run = dask_fit(*args)
        if best is None or run[0].objective < best[0].objective:
            best = run
    return best


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
    parts = _map_chunks(_lloyd_pass, X, y, loss, params, 0)
    return float(sum(part[2].sum() for part in parts)) / X.shape[0]


def fit_progress(verbose, quantity, scale):
    """The verbose lines of a dask fit, in the estimator's words."""
    return Progress(print if verbose else None, quantity=quantity, scale=scale)
