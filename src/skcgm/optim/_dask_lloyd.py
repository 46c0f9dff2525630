"""Sum-of-minimum k-means on a dask array: seeding and Lloyd passes chunk by chunk.

The rows of a :class:`dask.array.Array` stay where its chunks live: every pass
over the data (gaps to the seeds, assignments and group sums, the sampled
rows of the oversampling seeding) runs as one task per chunk, and only small
results reach the caller: ``k x d`` sums, ``k`` counts, a few candidate rows.
dask is imported only when such an array is given.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..utils._random import MAX_SEED
from ._progress import Progress
from ._sum_of_min import sum_of_minimum
from ._sum_of_min_losses import SquaredEuclideanLoss
from ._sum_of_min_result import SumOfMinResult

#: Restarts of the seeding and Lloyd's algorithm on the weighted candidates.
RECLUSTER_INIT = 10


def is_dask_array(X):
    """Whether ``X`` is a dask array, without importing dask."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "chunks")


def row_chunked(X):
    """``X`` with one chunk across its columns, so that a chunk holds whole rows."""
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    return X


def _bound(block):
    """The k-means loss bound to one chunk, refusing non-finite values."""
    block = np.asarray(block)
    if not np.all(np.isfinite(block)):
        raise ValueError("Input X contains NaN or infinity.")
    return SquaredEuclideanLoss().bind(block)


def _chunk_offsets(X):
    return np.concatenate([[0], np.cumsum(X.chunks[0])])


def _map_chunks(func, X, *args):
    """``[func(chunk, *args) for chunk in X's row chunks]``, one task per chunk."""
    import dask

    chunks = X.to_delayed().ravel()
    return dask.compute(*[dask.delayed(func)(chunk, *args) for chunk in chunks])


def _lloyd_pass(block, centers, n_candidates):
    """Assignments, group sums and the worst-served rows of one chunk.

    Returns the group sums and counts, the sum of the smallest losses, and
    the ``n_candidates`` rows of largest loss (losses, local indices, rows,
    labels), the candidates of the relocation of empty groups.
    """
    problem = _bound(block)
    weights = np.ones(problem.n_samples)
    labels, min_losses, _, (sums,) = problem.reclassify(
        centers, weights, with_statistics=True
    )
    counts = np.bincount(labels, minlength=centers.shape[0]).astype(np.float64)
    worst = _largest(min_losses, n_candidates)
    candidates = (min_losses[worst], worst, problem.X[worst], labels[worst])
    return sums.astype(np.float64), counts, float(min_losses.sum()), candidates


def _largest(values, n):
    """Indices of the ``n`` largest values, ties to the lowest index, in that order."""
    n = min(n, values.shape[0])
    if n == 0:
        return np.empty(0, dtype=np.intp)
    # Every value tied with the n-th largest is kept, so ties order by index.
    threshold = np.partition(values, values.shape[0] - n)[values.shape[0] - n]
    kept = np.flatnonzero(values >= threshold)
    return kept[np.lexsort((kept, -values[kept]))][:n]


def _gap_pass(block, seeds, threshold_scale, seed):
    """Gaps of a chunk's rows to the seeds, and the rows drawn by their gaps.

    ``threshold_scale`` is :math:`\\ell / \\phi` of the previous round (0 in
    the first pass, which only measures :math:`\\phi`).
    """
    problem = _bound(block)
    gaps = problem.loss_matrix(seeds).min(axis=1)
    np.maximum(gaps, 0, out=gaps)
    drawn = np.random.RandomState(seed).uniform(size=problem.n_samples)
    chosen = drawn < threshold_scale * gaps
    return float(gaps.sum()), problem.X[chosen]


def _closest_counts(block, candidates):
    problem = _bound(block)
    labels, _, _, _ = problem.reclassify(candidates, np.ones(problem.n_samples))
    return np.bincount(labels, minlength=candidates.shape[0]).astype(np.float64)


def _row(X, index):
    """Row ``index`` of a dask array, as a 1-D numpy array."""
    return np.asarray(X[index].compute())


def oversampled_seeds(X, n_clusters, random_state, n_rounds=5, oversampling=2.0):
    """k-means|| candidates reduced to ``n_clusters`` seeds on the caller's side.

    The scalable k-means++ of Bahmani et al. (2012) with the paper's gap
    score (eq. 3.2, half the squared distance for k-means): a first row drawn
    uniformly, then ``n_rounds`` passes that keep every row independently
    with probability :math:`\\min(1, \\ell\\, v_i / \\phi)`, :math:`\\ell` =
    ``oversampling * n_clusters``, :math:`v_i` its gap to the candidates and
    :math:`\\phi` their sum at the previous pass (one pass per round: the
    draws use the sum of the round before, which only lowers the
    probabilities). A last pass weights every candidate by the number of rows
    closest to it; the seeds are the best of ``RECLUSTER_INIT`` runs of the
    generalized k-means++ (Algorithm 1) followed by Lloyd's algorithm on the
    weighted candidates, in memory (the reclustering step of k-means||).

    Parameters
    ----------
    X : dask array of shape (n_samples, n_features)
        Row-chunked data.
    n_clusters : int
        Number of seeds.
    random_state : RandomState instance
        Seeds the draws; the draws of a chunk come from a seed of its own,
        so they depend on the chunk layout.
    n_rounds : int, default=5
        Oversampling passes.
    oversampling : float, default=2.0
        Rows drawn per pass, in expectation, per cluster.

    Returns
    -------
    seeds : ndarray of shape (n_clusters, n_features)
    n_passes : int
        Passes over the data.
    """
    n_samples = X.shape[0]
    candidates = _row(X, int(random_state.randint(n_samples)))[None, :]
    n_chunks = len(X.chunks[0])
    scale = 0.0
    n_passes = 0
    for _ in range(n_rounds + 1):
        seeds = random_state.randint(MAX_SEED, size=n_chunks)
        parts = _map_chunks_seeded(_gap_pass, X, seeds, candidates, scale)
        n_passes += 1
        phi = sum(part[0] for part in parts)
        drawn = [part[1] for part in parts if part[1].shape[0]]
        if drawn:
            candidates = np.vstack([candidates, *drawn])
        if not phi > 0:
            break
        scale = oversampling * n_clusters / phi
    weights = np.sum(_map_chunks(_closest_counts, X, candidates), axis=0)
    n_passes += 1
    if candidates.shape[0] <= n_clusters:
        # Fewer distinct candidates than clusters: rows drawn uniformly fill in.
        extra = np.sort(random_state.choice(n_samples, n_clusters - len(candidates)))
        seeds = np.vstack([candidates, np.asarray(X[extra].compute())])
        return seeds, n_passes
    # The candidates, weighted, stand for the data: the generalized k-means++
    # (Algorithm 1) and Lloyd's algorithm on them, best of RECLUSTER_INIT.
    with warnings.catch_warnings():
        # Too few distinct candidates is reported once, by the fit.
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = sum_of_minimum(
            candidates,
            n_clusters,
            sample_weight=weights,
            n_init=RECLUSTER_INIT,
            random_state=random_state,
        )
    params = result.params
    return params, n_passes


def _map_chunks_seeded(func, X, seeds, *args):
    """``_map_chunks`` with a seed of its own for every chunk, passed last."""
    import dask

    chunks = X.to_delayed().ravel()
    return dask.compute(
        *[
            dask.delayed(func)(chunk, *args, int(seed))
            for chunk, seed in zip(chunks, seeds)
        ]
    )


def _relocate(sums, counts, parts, offsets):
    """Move the worst-served rows into empty groups, as ``relocate_empty`` does.

    The rows of largest gap (ties to the lowest row), at most one per empty
    group and only rows of positive gap, leave their group for the lowest
    empty one; the group sums and counts follow.
    """
    empty = np.flatnonzero(counts == 0)
    if empty.size == 0:
        return sums, counts
    losses = np.concatenate([part[3][0] for part in parts])
    rows = np.concatenate([part[3][1] + offset for part, offset in zip(parts, offsets)])
    vectors = np.vstack([part[3][2] for part in parts])
    labels = np.concatenate([part[3][3] for part in parts])
    order = np.lexsort((rows, -losses))[: empty.size]
    order = order[losses[order] > 0]
    sums, counts = sums.copy(), counts.copy()
    for target, i in zip(empty, order):
        sums[labels[i]] -= vectors[i]
        counts[labels[i]] -= 1
        sums[target] += vectors[i]
        counts[target] += 1
    return sums, counts


def dask_lloyd(X, start, max_iter, tol, empty_cluster, progress=None):
    """Lloyd's algorithm for the squared Euclidean loss on a dask array.

    :class:`ExactLloyd` pass for pass: every iteration assigns the rows of
    every chunk to their closest center (eq. 3.6) and sums them by group, on
    the workers, and the caller replaces every center by its group mean;
    stops when the partition repeats (the group sums and counts repeat) or
    the objective decreases by at most ``tol`` relative to its previous
    value. Empty groups are relocated to the worst-served rows as
    :func:`~skcgm.optim._empty_groups.relocate_empty` does, or kept.

    Parameters
    ----------
    X : dask array of shape (n_samples, n_features)
        Row-chunked data.
    start : ndarray of shape (n_clusters, n_features)
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
    """
    progress = Progress(None) if progress is None else progress
    n_samples = X.shape[0]
    n_clusters = start.shape[0]
    offsets = _chunk_offsets(X)[:-1]
    params = np.asarray(start, dtype=np.float64)
    history = []
    previous = None
    converged = repeated = False
    n_candidates = n_clusters if empty_cluster == "relocate" else 0
    for n_iter in range(max_iter + 1):
        parts = _map_chunks(_lloyd_pass, X, params, n_candidates)
        sums = np.sum([part[0] for part in parts], axis=0)
        counts = np.sum([part[1] for part in parts], axis=0)
        objective = sum(part[2] for part in parts) / n_samples
        history.append(objective)
        if previous is not None:
            repeated = np.array_equal(sums, previous[0]) and np.array_equal(
                counts, previous[1]
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
        previous = (sums, counts)
        if empty_cluster == "relocate":
            sums, counts = _relocate(sums, counts, parts, offsets)
        filled = counts > 0
        params = params.copy()
        params[filled] = sums[filled] / counts[filled, None]
    result = SumOfMinResult.from_run(
        start,
        params,
        np.flatnonzero(counts),
        history,
        n_iter,
        converged=converged,
        partition_repeated=repeated,
    )
    return result, len(history)


def _chunk_labels(block, centers):
    problem = _bound(block)
    labels, _, _, _ = problem.reclassify(centers, np.ones(problem.n_samples))
    return labels


def _chunk_distances(block, centers):
    losses = _bound(block).loss_matrix(centers)
    return np.sqrt(np.maximum(2 * losses, 0, out=losses), out=losses)


def dask_distances(X, centers):
    """Euclidean distances of every row to every center, a lazy dask array."""
    return X.map_blocks(
        _chunk_distances,
        centers,
        chunks=(X.chunks[0], (centers.shape[0],)),
        dtype=X.dtype,
    )


def dask_objective(X, centers):
    """The mean smallest loss of the rows of ``X`` at ``centers`` (one pass)."""
    parts = _map_chunks(_lloyd_pass, X, centers, 0)
    return sum(part[2] for part in parts) / X.shape[0]


def dask_labels(X, centers):
    """The closest center of every row, a lazy dask array chunked as ``X``'s rows."""
    return X.map_blocks(
        _chunk_labels, centers, drop_axis=1, dtype=np.intp, meta=np.empty(0, np.intp)
    )


def dask_kmeans(
    X, n_clusters, init, random_state, max_iter, tol, empty_cluster, verbose=0
):
    """Seeding and Lloyd passes of :class:`~skcgm.cluster.SumOfMinKMeans` on dask.

    Returns the result (its ``labels`` the groups that serve some row, the
    partition being left to :func:`dask_labels`) and the number of passes
    over the data.
    """
    random_state = check_random_state(random_state)
    n_passes = 0
    if isinstance(init, str) and init == "k-means++":
        start, n_passes = oversampled_seeds(X, n_clusters, random_state)
    elif isinstance(init, str) and init == "uniform":
        rows = np.sort(random_state.choice(X.shape[0], n_clusters, replace=False))
        start = np.asarray(X[rows].compute(), dtype=np.float64)
    elif isinstance(init, str):
        start = random_state.standard_normal((n_clusters, X.shape[1]))
    else:
        start = np.asarray(init, dtype=np.float64)
    progress = Progress(
        print if verbose else None, quantity="inertia", scale=2.0 * X.shape[0]
    )
    result, lloyd_passes = dask_lloyd(X, start, max_iter, tol, empty_cluster, progress)
    return result, n_passes + lloyd_passes
