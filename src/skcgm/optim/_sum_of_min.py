"""The sum-of-minimum engine: generalized k-means++ seeding and Lloyd solvers.

Implements Algorithms 1-4 and Appendix B.2 of Ding, Chen, Wang and Yin,
"Efficient algorithms for sum-of-minimum optimization" (ICML 2024), for any
per-sample loss family of :mod:`skcgm.optim._sum_of_min_losses`.
"""

import warnings
from dataclasses import dataclass, field
from functools import partial
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array, check_random_state

from ..utils._blocks import (
    _controller,
    map_row_blocks,
    row_blocks,
    scratch_buffer,
    single_threaded_blas,
)
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    _openmp_effective_n_threads,
    validate_params,
)
from ..utils._validation import check_sample_weight, check_square_range
from ._sum_of_min_losses import (
    KLDivergenceLoss,
    SquaredEuclideanLoss,
    group_membership,
)

LOSSES = {"squared_euclidean": SquaredEuclideanLoss, "kl": KLDivergenceLoss}


class _Naming(NamedTuple):
    """How messages name the caller and its parameters, KMeans' words for k-means."""

    #: Name of the estimator or function, in the n_init warning.
    owner: str = "sum_of_minimum"
    #: What an init array holds, in shape errors.
    params: str = "initial parameters"
    #: What an init array is, in the n_init warning.
    explicit: str = "initial parameters"
    #: Plural of a group, also giving the parameter ``n_<groups>``.
    groups: str = "clusters"
    #: The quantity of the verbose lines: 'inertia' or 'objective'.
    quantity: str = "objective"


@dataclass
class SumOfMinResult:
    """Result of :func:`sum_of_minimum`.

    A plain record of the best of the ``n_init`` runs; every field is also an
    attribute.

    Parameters
    ----------
    params : ndarray of shape (n_clusters, \\*param_shape)
        The parameters :math:`x_1, \\dots, x_k` of the best run.
    labels : ndarray of shape (n_samples,)
        Index of the parameter with the smallest loss for every sample, at the
        final parameters, ties going to the lowest index (eq. 3.6).
    objective : float
        :math:`F = \\sum_i w_i \\min_j f_i(x_j) / \\sum_i w_i` at the final
        parameters (eq. 1.1; with unit weights the paper's :math:`1/N`).
    objective_history : ndarray of shape (n_iter + 1,)
        :math:`F` at the initialization and after every parameter update.
    n_iter : int
        Number of parameter updates of the best run.
    converged : bool
        Whether the best run met the stopping rule before ``max_iter``.
    init_params : ndarray of shape (n_clusters, \\*param_shape)
        The initial parameters of the best run.
    partition_repeated : bool
        Whether the best run stopped because a reclassification repeated the
        partition ('exact' and 'gd'). :class:`sklearn.cluster.KMeans` counts
        that last pass as an iteration: its ``n_iter_`` is ``n_iter + 1``
        then (at most ``max_iter``), ``n_iter`` otherwise.
    diverged : bool
        Whether the best run ('gd' or 'momentum') diverged: an iterate
        overflowed or the last objective exceeded the initial one. The run is
        then cut back to its iterate of lowest objective, which every other
        field describes.

    See Also
    --------
    sum_of_minimum : The solver that returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import sum_of_minimum
    >>> result = sum_of_minimum(np.array([[0.0], [2.0]]), 1)
    >>> result.params, result.objective, result.n_iter
    (array([[1.]]), 0.5, 1)
    """

    params: np.ndarray
    labels: np.ndarray
    objective: float
    objective_history: np.ndarray = field(repr=False)
    n_iter: int
    converged: bool
    init_params: np.ndarray = field(repr=False)
    partition_repeated: bool = field(default=False, repr=False)
    diverged: bool = field(default=False, repr=False)


def _resolve_loss(loss, X, y):
    """Bind a loss given by name or instance to the data."""
    if isinstance(loss, str):
        loss = LOSSES[loss]()
    return loss.bind(X, y)


def _assign(problem, params, sample_weight, with_statistics=False):
    """Reclassification (eq. 3.6) and the objective, block by block.

    Returns the labels (ties to the lowest index, as ``argmin`` does), the
    per-sample minimum losses, the weighted mean objective and, with
    ``with_statistics``, the group statistics of the new partition, gathered
    in the same pass over the data.
    """
    n_clusters = params.shape[0]
    labels = np.empty(problem.n_samples, dtype=np.intp)
    min_losses = np.empty(problem.n_samples, dtype=np.float64)

    def block(rows):
        scratch = scratch_buffer(rows.stop - rows.start, n_clusters, params.dtype)
        weights = sample_weight[rows] if with_statistics else None
        labels[rows], min_losses[rows], statistics = problem.assign(
            params, rows, weights, out=scratch
        )
        return statistics

    blocks = map_row_blocks(block, problem.n_samples, n_clusters)
    objective = _weighted_mean(min_losses, sample_weight)
    statistics = _sum_statistics(blocks) if with_statistics else None
    return labels, min_losses, objective, statistics


def _sum_statistics(per_block):
    """Add up per-block group statistics (tuples of arrays)."""
    return tuple(sum(parts[1:], parts[0].copy()) for parts in zip(*per_block))


def _group_statistics(problem, labels, sample_weight, n_clusters):
    """Group statistics and weights of a given partition."""

    def block(rows):
        membership = group_membership(labels[rows], sample_weight[rows], n_clusters)
        return problem.group_statistics(membership, rows)

    statistics = _sum_statistics(map_row_blocks(block, problem.n_samples, n_clusters))
    return statistics, _group_weights(labels, sample_weight, n_clusters)


def _inertia(problem, objective, sample_weight):
    """scikit-learn's inertia from the paper's objective :math:`F`.

    The weighted sum of the losses, scaled by the family's ``inertia_scale``
    (2 where :math:`f_i` is half a squared distance). A sum beyond float64
    (huge weights) is refused naming ``sample_weight``: the objective, a
    weighted mean, does not depend on a common scale of the weights.
    """
    largest = float(sample_weight.max())
    relative = float((sample_weight / largest).sum())
    # The largest factor last, in Python floats (which overflow to inf
    # without numpy's warning): the sum of the weights alone may overflow.
    inertia = problem.inertia_scale * objective * relative * largest
    if not np.isfinite(inertia):
        raise ValueError(
            f"The inertia, {problem.inertia_scale:g} * sum(sample_weight) times "
            f"the mean loss {objective:.3g}, overflows float64: sample_weight "
            f"sums to {relative:.6g} times its largest entry {largest:.3g}. "
            "Scale sample_weight down: the clustering does not depend on a "
            "common factor of the weights."
        )
    return inertia


def _normalized_weights(sample_weight, dtype=None):
    """The weights times the power of two that brings their sum into [1, 2).

    Every routine of the engine is invariant to a common scale of the
    weights; this one is exact (no rounding, bar subnormals) and keeps their
    sums and the weighted sums of the data within range however large the
    weights, also once cast to ``dtype`` (default: their own), float32 for
    float32 data.
    """
    dtype = sample_weight.dtype if dtype is None else dtype
    with np.errstate(under="ignore"):
        _, exponent = np.frexp(sample_weight.max())
        scaled = np.ldexp(sample_weight, -int(exponent))
        _, exponent = np.frexp(scaled.sum())
        return np.ldexp(scaled, 1 - int(exponent)).astype(dtype, copy=False)


def _group_weights(labels, sample_weight, n_clusters):
    counts = np.bincount(labels, weights=sample_weight, minlength=n_clusters)
    return counts.astype(sample_weight.dtype, copy=False)


def _weighted_mean(values, sample_weight):
    """Weighted mean that treats ``0 * inf`` as 0 (zero-weight samples)."""
    # A plain reduction, not a BLAS dot: cheaper than waking BLAS threads.
    total = float(np.multiply(values, sample_weight).sum())
    if np.isnan(total):
        active = sample_weight > 0
        total = float(values[active] @ sample_weight[active])
    return total / float(sample_weight.sum())


def _seed(problem, n_clusters, sample_weight, init_score, random_state):
    """Generalized k-means++ (Algorithm 1, or Algorithm 4 with gradient scores).

    One index per round with probability proportional to :math:`w_i v_i`,
    :math:`v_i` the smallest gap (eq. 3.2) or squared gradient norm (eq. 3.5)
    over the chosen parameters. The random draws are those of
    ``sklearn.cluster.kmeans_plusplus(n_local_trials=1)``, so both pick the same
    indices under the same ``RandomState`` for the squared Euclidean loss.

    Returns the parameters, the chosen indices and the number of them drawn
    by score; the others, when every score vanished first, are drawn
    uniformly among the unused samples. No warning here: restarts may run in
    worker processes, whose warnings do not reach the caller.
    """
    n_samples = problem.n_samples
    score = problem.gap_vector if init_score == "gap" else problem.grad_sq_norm_vector
    indices = np.empty(n_clusters, dtype=np.intp)
    indices[0] = random_state.choice(n_samples, p=sample_weight / sample_weight.sum())
    params = [problem.sample_minimizers(indices[:1], random_state)[0]]
    scores = score(params[0])
    for c in range(1, n_clusters):
        # Infinite scores (a loss equal to +inf, as KL can give) are the limit
        # of the D^2 rule: draw among them only.
        weighted = sample_weight * scores
        infinite = np.isinf(weighted)
        if infinite.any():
            weighted = np.where(infinite, sample_weight, 0).astype(np.float64)
        cumulative = np.cumsum(weighted)
        potential = cumulative[-1]
        if not potential > 0:
            params = _fill_uniformly(problem, params, indices, c, random_state)
            return params, indices, c
        draw = random_state.uniform() * potential
        indices[c] = min(np.searchsorted(cumulative, draw), n_samples - 1)
        params.append(problem.sample_minimizers(indices[c : c + 1], random_state)[0])
        np.minimum(scores, score(params[-1]), out=scores)
    return np.stack(params), indices, n_clusters


def _fill_uniformly(problem, params, indices, n_chosen, random_state):
    """Complete a seeding whose gaps are all zero with unused indices."""
    n_clusters = indices.shape[0]
    unused = np.setdiff1d(np.arange(problem.n_samples), indices[:n_chosen])
    extra = random_state.choice(unused, size=n_clusters - n_chosen, replace=False)
    indices[n_chosen:] = extra
    params.extend(problem.sample_minimizers(extra, random_state))
    return np.stack(params)


def _initialize(
    problem, init, n_clusters, sample_weight, init_score, random_state, naming
):
    """Initial parameters for one run (section 5.2 of the paper)."""
    dtype = problem.X.dtype
    if isinstance(init, str) and init == "k-means++":
        params, _, _ = _seed(
            problem, n_clusters, sample_weight, init_score, random_state
        )
    elif isinstance(init, str) and init == "uniform":
        indices = random_state.choice(
            problem.n_samples,
            size=n_clusters,
            replace=False,
            p=sample_weight / sample_weight.sum(),
        )
        params = problem.sample_minimizers(indices, random_state)
    elif isinstance(init, str) and init == "random":
        params = problem.random_params(n_clusters, random_state, dtype)
    elif callable(init):
        params = init(problem.X, n_clusters, random_state=random_state)
        params = _check_init(params, problem, n_clusters, naming, "init callable's")
    else:
        params = _check_init(init, problem, n_clusters, naming)
    return np.array(params, dtype=dtype, copy=True)


def _check_init(params, problem, n_clusters, naming, source=None):
    """Refuse initial parameters of the wrong shape, naming the wrong dimension.

    In :class:`sklearn.cluster.KMeans`' words where the dimension is the
    number of groups or of features.
    """
    params = np.asarray(params, dtype=problem.X.dtype)
    what = naming.params if source is None else f"{source} {naming.params}"
    expected = (n_clusters, *problem.param_shape())
    n_features = problem.X.shape[1]
    if params.ndim < 1 or params.shape[0] != n_clusters:
        raise ValueError(
            f"The shape of the {what} {params.shape} does not match the number "
            f"of {naming.groups} {n_clusters}."
        )
    if params.shape != expected:
        if params.ndim >= 2 and expected[1] == n_features != params.shape[1]:
            detail = f"the number of features of the data {n_features}"
        else:
            detail = f"the expected shape {expected}"
        raise ValueError(
            f"The shape of the {what} {params.shape} does not match {detail}."
        )
    if not np.all(np.isfinite(params)):
        raise ValueError(f"The {what} contain NaN or infinity.")
    check_square_range(params.reshape(n_clusters, -1), input_name=f"The {what}")
    return params


def _relocate_empty(problem, labels, min_losses, sample_weight, n_clusters):
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
    candidates = np.argsort(-gaps, kind="stable")[: empty.size]
    candidates = candidates[gaps[candidates] > 0]
    labels[candidates] = empty[: candidates.size]
    return candidates


def _relocate_parameters(
    problem, params, partition, min_losses, sample_weight, random_state
):
    """Relocate empty groups and put their parameters at the moved samples.

    For the gradient solvers, which have no group minimizer to do it: the
    parameter of a group that received sample ``i`` becomes :math:`x_i^*`.
    Returns the parameters (a copy when any moved) and the moved samples;
    ``partition`` is updated in place.
    """
    moved = _relocate_empty(
        problem, partition, min_losses, sample_weight, params.shape[0]
    )
    if moved.size:
        params = params.copy()
        params[partition[moved]] = problem.sample_minimizers(moved, random_state)
    return params, moved


def _controlled_reclassify(
    labels, target_labels, sample_weight, size_change_factor, order
):
    """ControlledReclassify of Appendix B.2 (Algorithm 3, line 6).

    Visits the samples in the order ``order`` (a random permutation), moving
    each to its target group, and stops at the first move after which a group
    it changed leaves :math:`[s_j / \\alpha, \\alpha s_j]`, :math:`s_j` the
    group's weight before the call (eq. 3.12). That move and all later ones are
    rejected. The paper checks the bounds "for j' in [N]"; the groups are
    indexed by [k], so this is read as a typo for [k] (the check runs over the
    groups the move changed). Vectorized: the group weights after every move
    are running sums, so the first violation is found without a Python loop
    per sample.

    Parameters
    ----------
    labels : ndarray of shape (n_samples,)
        The current partition :math:`C^{(t)}`.
    target_labels : ndarray of shape (n_samples,)
        The group of smallest loss at the acceleration variable
        :math:`u^{(t+1)}` for every sample.
    sample_weight : ndarray of shape (n_samples,)
        Weights; a group's size is its total weight.
    size_change_factor : float
        The factor :math:`\\alpha > 1`.
    order : ndarray of shape (n_samples,)
        The order in which samples are visited.

    Returns
    -------
    new_labels : ndarray of shape (n_samples,)
        The partition :math:`C^{(t+1)}`.
    n_moved : int
        Number of samples that changed group.
    """
    n_clusters = int(max(labels.max(), target_labels.max())) + 1
    sizes = np.bincount(labels, weights=sample_weight, minlength=n_clusters)
    lower, upper = sizes / size_change_factor, sizes * size_change_factor
    moves = order[target_labels[order] != labels[order]]
    accepted = moves.size
    for block in row_blocks(moves.size, n_clusters):
        idx = moves[block]
        source, dest, weight = labels[idx], target_labels[idx], sample_weight[idx]
        steps = np.arange(idx.size)
        delta = np.zeros((idx.size, n_clusters))
        delta[steps, source] -= weight
        delta[steps, dest] += weight
        running = sizes + np.cumsum(delta, axis=0)
        after_source, after_dest = running[steps, source], running[steps, dest]
        violated = (
            (after_source < lower[source])
            | (after_source > upper[source])
            | (after_dest < lower[dest])
            | (after_dest > upper[dest])
        )
        if violated.any():
            accepted = block.start + int(np.argmax(violated))
            break
        sizes = running[-1]
    new_labels = labels.copy()
    new_labels[moves[:accepted]] = target_labels[moves[:accepted]]
    return new_labels, accepted


class _Progress:
    """The verbose lines of one run, in :class:`sklearn.cluster.KMeans`' words.

    ``write`` is ``print`` for a run in the caller's process and a list's
    ``append`` for a run in a joblib worker, whose lines the caller prints
    (a worker's standard output does not reach a notebook); None is silent.
    ``scale`` turns the objective :math:`F` into the reported quantity (the
    inertia, for estimators that define one).
    """

    def __init__(self, write, quantity="objective", scale=1.0):
        self.write = write
        self.quantity = quantity
        self.scale = scale

    def __call__(self, text):
        if self.write is not None:
            self.write(text)

    def iteration(self, n_iter, objective):
        self(f"Iteration {n_iter}, {self.quantity} {self.scale * objective}.")

    def converged(self, n_iter, reason):
        self(f"Converged at iteration {n_iter}: {reason}.")


def _decreased_enough(previous, current, tol):
    """Whether the relative decrease ``(previous - current) / previous`` <= tol."""
    if not np.isfinite(previous):
        return False
    return previous - current <= tol * abs(previous)


def _lloyd_exact(
    problem, params, sample_weight, max_iter, tol, empty_cluster, progress
):
    """Generalized Lloyd with exact group minimization (Algorithms 5 and 7).

    Each iteration reclassifies (eq. 3.6) and replaces every parameter by the
    minimizer of its group objective. Stops when the partition repeats (the
    next update would change nothing) or the objective decreases by at most
    ``tol`` relative to its previous value. Returns the parameters, labels,
    objective history, number of updates, whether the rule was met and
    whether the partition repeated.
    """
    n_clusters = params.shape[0]
    history = []
    previous_labels = None
    converged = repeated = False
    # One pass per iterate x^(0), ..., x^(max_iter): bounded by the count.
    for n_iter in range(max_iter + 1):
        labels, min_losses, objective, statistics = _assign(
            problem, params, sample_weight, with_statistics=True
        )
        history.append(objective)
        if previous_labels is not None:
            # KMeans' order: a repeated partition first, then the tolerance.
            repeated = np.array_equal(labels, previous_labels)
            if repeated:
                progress.iteration(n_iter, objective)
                progress.converged(n_iter, "strict convergence")
                converged = True
                break
            previous = history[-2]
            if _decreased_enough(previous, objective, tol):
                relative = (previous - objective) / abs(previous) if previous else 0.0
                progress.converged(
                    n_iter - 1,
                    f"relative decrease of the {progress.quantity} {relative:.3g} "
                    f"within tolerance {tol}",
                )
                converged = True
                break
        if n_iter == max_iter:
            break
        progress.iteration(n_iter, objective)
        counts = _group_weights(labels, sample_weight, n_clusters)
        if empty_cluster == "relocate" and np.any(counts == 0):
            moved = _relocate_empty(
                problem, labels, min_losses, sample_weight, n_clusters
            )
            if moved.size:
                statistics, counts = _group_statistics(
                    problem, labels, sample_weight, n_clusters
                )
        params = problem.group_minimizer(params, statistics, counts)
        previous_labels = labels
    return params, labels, history, n_iter, converged, repeated, False


def _stationarity(problem, vectors, counts):
    """Weighted mean squared norm of per-group vectors, divided by 2L.

    With the group gradients this is the measure of Theorems 4.6 and 4.7,
    :math:`\\sum_j (|C_j|/N) \\|\\nabla F_j(x_j)\\|^2`, over :math:`2L`: for the
    squared Euclidean loss, exactly how far :math:`F` is above its minimum over
    the current partition.
    """
    sq_norms = (vectors.reshape(vectors.shape[0], -1) ** 2).sum(axis=1)
    return float(counts @ sq_norms / counts.sum()) / (2 * problem.lipschitz())


class _BestIterate:
    """The iterate of lowest objective of a gradient run, to fall back on.

    A step too large for the losses (``learning_rate`` above :math:`2/L`)
    makes the iterates of 'gd' and 'momentum' grow geometrically until they
    overflow. Such a run is cut back to its best iterate, the rule of both
    gradient solvers, and reported as diverged.
    """

    def __init__(self, params):
        # The initial parameters until an iterate of finite objective is seen.
        self.objective, self.params, self.n_iter = np.inf, params, 0

    def update(self, n_iter, params, objective):
        if objective < self.objective:
            self.objective, self.params, self.n_iter = objective, params, n_iter

    def diverged(self, params, history):
        """Whether the run overflowed or ended above its initial objective."""
        last = history[-1]
        return not (np.isfinite(last) and np.all(np.isfinite(params))) or (
            last > history[0]
        )

    def cut_back(self, problem, sample_weight, history):
        """Parameters, labels and history of the run stopped at its best iterate."""
        labels, _, _, _ = _assign(problem, self.params, sample_weight)
        return self.params, labels, history[: self.n_iter + 1], self.n_iter


def _lloyd_gd(
    problem,
    params,
    sample_weight,
    learning_rate,
    reclassify_every,
    max_iter,
    tol,
    empty_cluster,
    random_state,
    progress,
):
    """Generalized Lloyd with gradient steps (Algorithm 2, eq. 3.8).

    The partition is recomputed every ``reclassify_every`` iterations and kept
    in between. Stops at a reclassification that changes nothing when the
    stationarity measure of Theorem 4.6 over :math:`2L` is at most ``tol``
    times the objective, or when the step leaves the parameters unchanged.
    Empty groups are relocated as part of the update that follows a
    reclassification, so the returned labels and objective are those of the
    returned parameters. A diverging run is cut back to its best iterate
    (:class:`_BestIterate`).
    """
    n_clusters = params.shape[0]
    history = []
    partition = None
    converged = diverged = False
    best = _BestIterate(params)
    # One pass per iterate x^(0), ..., x^(max_iter): bounded by the count.
    for n_iter in range(max_iter + 1):
        reclassified = n_iter % reclassify_every == 0
        labels, min_losses, objective, new_statistics = _assign(
            problem, params, sample_weight, with_statistics=reclassified
        )
        history.append(objective)
        progress.iteration(n_iter, objective)
        if not np.isfinite(objective):
            diverged = True
            break
        best.update(n_iter, params, objective)
        settled = False
        if reclassified:
            settled = partition is not None and np.array_equal(labels, partition)
            partition = labels.copy()
            statistics = new_statistics
            counts = _group_weights(partition, sample_weight, n_clusters)
        gradient = problem.group_gradient(params, statistics, counts)
        if settled and _stationarity(problem, gradient, counts) <= tol * objective:
            progress.converged(n_iter, "strict convergence")
            converged = True
            break
        if n_iter == max_iter:
            break
        current = params
        if reclassified and empty_cluster == "relocate" and np.any(counts == 0):
            params, moved = _relocate_parameters(
                problem, params, partition, min_losses, sample_weight, random_state
            )
            if moved.size:
                statistics, counts = _group_statistics(
                    problem, partition, sample_weight, n_clusters
                )
                gradient = problem.group_gradient(params, statistics, counts)
        new_params = params - learning_rate * gradient
        if not np.all(np.isfinite(new_params)):
            diverged = True
            break
        if settled and np.array_equal(new_params, current):
            params = current
            progress.converged(n_iter, "strict convergence")
            converged = True
            break
        params = new_params
    n_iter = len(history) - 1
    if diverged or best.diverged(params, history):
        params, labels, history, n_iter = best.cut_back(problem, sample_weight, history)
        return params, labels, history, n_iter, False, False, True
    return params, labels, history, n_iter, converged, converged, False


def _lloyd_momentum(
    problem,
    params,
    sample_weight,
    learning_rate,
    reclassify_every,
    momentum,
    size_change_factor,
    max_iter,
    tol,
    empty_cluster,
    random_state,
    progress,
):
    """Momentum Lloyd with controlled reclassification (Algorithm 3).

    .. math::

        x_j^{(t+1)} = x_j^{(t)} - \\gamma m_j^{(t)}, \\quad
        u_j^{(t+1)} = \\frac{x_j^{(t+1)} - \\beta x_j^{(t)}}{1 - \\beta}, \\quad
        m_j^{(t+1)} = \\beta m_j^{(t)} + \\nabla F_j^{(t+1)}(x_j^{(t+1)})

    (eqs. 3.9-3.11), the partition following :math:`u` under the size control
    (3.12). The paper leaves :math:`C^{(0)}` undefined; it is the
    reclassification (eq. 3.6) at :math:`x^{(0)}` here, a choice of this
    implementation. The objective of
    the iterates need not decrease, and it can repeat while the momentum is
    not zero, so the run stops at a reclassification that moves nobody when
    the stationarity measure of Theorem 4.7 plus the squared momentum, over
    :math:`2L`, is at most ``tol`` times the objective, at a reclassification
    where every sample's target group is already its own. A diverging run is
    cut back to its best iterate (:class:`_BestIterate`).
    """
    n_clusters = params.shape[0]
    labels, min_losses, objective, _ = _assign(problem, params, sample_weight)
    history = [objective]
    partition = labels.copy()
    if empty_cluster == "relocate":
        # Under the size control an empty group stays empty, so fill it now.
        params, moved = _relocate_parameters(
            problem, params, partition, min_losses, sample_weight, random_state
        )
        if moved.size:
            labels, min_losses, objective, _ = _assign(problem, params, sample_weight)
            history[0] = objective
    statistics, counts = _group_statistics(
        problem, partition, sample_weight, n_clusters
    )
    velocity = np.zeros_like(params)
    converged = overflowed = False
    best = _BestIterate(params)
    best.update(0, params, objective)
    # One pass per update, at most max_iter of them.
    for n_iter in range(1, max_iter + 1):
        new_params = params - learning_rate * velocity
        if not np.all(np.isfinite(new_params)):
            overflowed = True
            break
        settled = False
        if n_iter % reclassify_every == 0:
            accel = (new_params - momentum * params) / (1 - momentum)
            target, _, _, _ = _assign(problem, accel, sample_weight)
            # Settled only if nobody wants to move: a partition frozen because
            # the size control rejected the first move is not converged.
            settled = np.array_equal(target, partition)
            order = random_state.permutation(problem.n_samples)
            partition, n_moved = _controlled_reclassify(
                partition, target, sample_weight, size_change_factor, order
            )
            if n_moved:
                statistics, counts = _group_statistics(
                    problem, partition, sample_weight, n_clusters
                )
        params = new_params
        gradient = problem.group_gradient(params, statistics, counts)
        velocity = momentum * velocity + gradient
        labels, min_losses, objective, _ = _assign(problem, params, sample_weight)
        history.append(objective)
        progress.iteration(n_iter, objective)
        if not np.isfinite(objective):
            overflowed = True
            break
        best.update(n_iter, params, objective)
        # At t = 0 the velocity is zero and x does not move: nothing to judge.
        if n_iter > 1 and settled:
            residual = _stationarity(problem, gradient, counts) + _stationarity(
                problem, velocity, counts
            )
            if residual <= tol * objective:
                progress.converged(n_iter, f"stationarity within tolerance {tol}")
                converged = True
                break
    if overflowed or best.diverged(params, history):
        params, labels, history, n_iter = best.cut_back(problem, sample_weight, history)
        return params, labels, history, n_iter, False, False, True
    return params, labels, history, len(history) - 1, converged, False, False


def _single_run(
    problem,
    n_clusters,
    sample_weight,
    seed,
    *,
    init,
    init_score,
    solver,
    learning_rate,
    reclassify_every,
    momentum,
    size_change_factor,
    empty_cluster,
    max_iter,
    tol,
    naming,
    total_weight=1.0,
    write=None,
):
    """One initialization followed by one Lloyd run.

    ``write`` receives the verbose lines (None: silent), see :class:`_Progress`;
    ``total_weight`` is the sum of the caller's weights, which
    ``sample_weight`` (normalized, see :func:`_normalized_weights`) has lost,
    for the inertia of the verbose lines.
    """
    random_state = np.random.RandomState(seed)
    scale = 1.0
    if naming.quantity == "inertia":
        scale = problem.inertia_scale * total_weight
    progress = _Progress(write, naming.quantity, scale)
    # The gradient solvers detect their own overflow (_BestIterate) and the
    # exact ones cannot overflow on data within check_square_range: numpy's
    # warnings are silenced here, in the worker (errstate is per thread).
    with np.errstate(all="ignore"):
        init_params = _initialize(
            problem, init, n_clusters, sample_weight, init_score, random_state, naming
        )
        progress("Initialization complete")
        params = init_params.copy()
        if solver == "exact":
            out = _lloyd_exact(
                problem, params, sample_weight, max_iter, tol, empty_cluster, progress
            )
        elif solver == "gd":
            out = _lloyd_gd(
                problem,
                params,
                sample_weight,
                learning_rate,
                reclassify_every,
                max_iter,
                tol,
                empty_cluster,
                random_state,
                progress,
            )
        else:
            out = _lloyd_momentum(
                problem,
                params,
                sample_weight,
                learning_rate,
                reclassify_every,
                momentum,
                size_change_factor,
                max_iter,
                tol,
                empty_cluster,
                random_state,
                progress,
            )
        params, labels, history, n_iter, converged, repeated, diverged = out
        return SumOfMinResult(
            params=params,
            labels=labels,
            objective=history[-1],
            objective_history=np.asarray(history),
            n_iter=n_iter,
            converged=converged,
            init_params=init_params,
            partition_repeated=repeated,
            diverged=diverged,
        )


def _check_init_score(problem, init, init_score):
    """Refuse gradient seeding scores for losses without Lipschitz gradients."""
    if (
        isinstance(init, str)
        and init == "k-means++"
        and init_score == "gradient"
        and not problem.has_lipschitz_gradient
    ):
        raise ValueError(
            f"init_score='gradient' needs Lipschitz gradients, which "
            f"{type(problem).__name__} does not have; use init_score='gap'."
        )


def _check_solver_options(
    problem, solver, init, init_score, learning_rate, momentum, size_change_factor
):
    """Refuse option combinations the loss family cannot serve.

    Returns the learning rate to use (None for ``solver='exact'``).
    """
    name = type(problem).__name__
    if solver == "exact" and not problem.has_group_minimizer:
        raise ValueError(
            f"solver='exact' needs a closed-form group minimizer, which {name} "
            "does not have; use solver='gd' or 'momentum'."
        )
    if solver != "exact" and not problem.has_lipschitz_gradient:
        raise ValueError(
            f"solver={solver!r} needs Lipschitz gradients, which {name} does not "
            "have; use solver='exact'."
        )
    _check_init_score(problem, init, init_score)
    if solver == "momentum" and momentum * size_change_factor >= 1:
        warnings.warn(
            f"momentum * size_change_factor = {momentum * size_change_factor:.3g} "
            ">= 1: the convergence guarantee of momentum Lloyd (Theorem 4.7) "
            "needs momentum * size_change_factor < 1.",
            ConvergenceWarning,
            stacklevel=3,
        )
    if solver == "exact":
        return None
    if learning_rate is not None:
        return learning_rate
    # gd: gamma = 1/L (Theorem 4.6). momentum: gamma = (1 - beta)/L, so that the
    # acceleration variable u takes steps of 1/L (proof of Theorem D.2).
    scale = 1.0 if solver == "gd" else 1.0 - momentum
    return scale / problem.lipschitz()


def _resolve_n_init(n_init, init, naming):
    """The number of runs, as :class:`sklearn.cluster.KMeans` resolves it.

    'auto' means one run for k-means++ or given parameters, else 10: seeded
    or given starts are good enough alone, uniform and random ones are not.
    Given parameters make every run the same, so they get one run and a
    RuntimeWarning when more were asked for, with KMeans' text.
    """
    given = not isinstance(init, str) and not callable(init)
    if n_init == "auto":
        return 1 if given or init == "k-means++" else 10
    if given and n_init != 1:
        warnings.warn(
            f"Explicit {naming.explicit} passed: performing only one init in "
            f"{naming.owner} instead of n_init={n_init}.",
            RuntimeWarning,
            stacklevel=3,
        )
        return 1
    return n_init


def _warn_if_fewer_distinct(labels, n_clusters, naming):
    """KMeans' ConvergenceWarning when some groups serve no sample."""
    n_distinct = np.unique(labels).size
    if n_distinct < n_clusters:
        warnings.warn(
            f"Number of distinct {naming.groups} ({n_distinct}) found smaller "
            f"than n_{naming.groups} ({n_clusters}). Possibly due to duplicate "
            "points in X.",
            ConvergenceWarning,
            stacklevel=3,
        )


def _logged_run(run, seed, n_threads, verbose):
    """One restart in a joblib worker: thread budget applied, lines kept.

    The budget is thread-local (OpenMP's per-thread setting), so it holds the
    block threads of :func:`~skcgm.utils._blocks.map_row_blocks` in this
    worker only.
    """
    lines = []
    with _controller().limit(limits=n_threads, user_api="openmp"):
        result = run(seed, write=lines.append if verbose else None)
    return result, lines


def _run_restarts(run, seeds, n_jobs, verbose):
    """``run(seed, write=...)`` for every seed, through joblib; results in order.

    Sequential runs print their verbose lines as they go. Parallel runs keep
    them and the caller's process prints them, run after run as the results
    arrive, so that they show where ``fit`` was called (a notebook does not
    see a worker process's output) and read as with ``n_jobs=1``. Workers are
    threads unless a joblib backend says otherwise (the runs spend their time
    in NumPy and BLAS, which release the GIL, and threads need no copy of the
    data); their threads are budgeted so that runs times threads stays within
    the cores: BLAS held to one thread for the whole call (process-wide, so
    set once here rather than raced on by the workers), and the block threads
    of each run to the cores divided by the concurrent runs. Loky workers get
    the same caps from joblib.
    """
    n_parallel = min(effective_n_jobs(n_jobs), len(seeds))
    if n_parallel == 1:
        write = print if verbose else None
        return [run(seed, write=write) for seed in seeds]
    n_threads = max(1, _openmp_effective_n_threads() // n_parallel)
    results = []
    with single_threaded_blas():
        outputs = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
            delayed(_logged_run)(run, seed, n_threads, verbose) for seed in seeds
        )
        for result, lines in outputs:
            for line in lines:
                print(line)
            results.append(result)
    return results


def _run_sum_of_minimum(
    problem,
    n_clusters,
    sample_weight,
    *,
    init,
    init_score,
    solver,
    n_init,
    max_iter,
    tol,
    random_state,
    n_jobs,
    learning_rate=None,
    reclassify_every=1,
    momentum=0.5,
    size_change_factor=1.5,
    empty_cluster="relocate",
    verbose=0,
    naming=None,
):
    """Validated core of :func:`sum_of_minimum` shared with the estimators.

    The solver options an estimator does not expose take the defaults of
    :func:`sum_of_minimum`; ``n_init`` may be 'auto' (see
    :func:`_resolve_n_init`); ``naming`` words the messages for the caller.
    """
    naming = _Naming() if naming is None else naming
    n_init = _resolve_n_init(n_init, init, naming)
    _check_n_samples(problem, n_clusters)
    given_learning_rate = learning_rate
    learning_rate = _check_solver_options(
        problem, solver, init, init_score, learning_rate, momentum, size_change_factor
    )
    largest = float(sample_weight.max())
    total_weight = largest * float((sample_weight / largest).sum())
    sample_weight = _normalized_weights(sample_weight, problem.X.dtype)
    _check_weighted_samples(init, sample_weight, n_clusters, naming)
    random_state = check_random_state(random_state)
    # Seeds drawn up front: the result does not depend on n_jobs or backend.
    seeds = random_state.randint(np.iinfo(np.int32).max, size=n_init)
    run = partial(
        _single_run,
        problem,
        n_clusters,
        sample_weight,
        init=init,
        init_score=init_score,
        solver=solver,
        learning_rate=learning_rate,
        reclassify_every=reclassify_every,
        momentum=momentum,
        size_change_factor=size_change_factor,
        empty_cluster=empty_cluster,
        max_iter=max_iter,
        tol=tol,
        naming=naming,
        total_weight=total_weight,
    )
    runs = _run_restarts(run, seeds, n_jobs, verbose)
    # First best run wins ties, as in KMeans.
    best = min(runs, key=lambda run: run.objective)
    _warn_if_diverged(runs, solver, given_learning_rate)
    _warn_if_fewer_distinct(best.labels, n_clusters, naming)
    return best


def _check_weighted_samples(init, sample_weight, n_clusters, naming):
    """Refuse 'uniform' seeding with fewer samples of positive weight than groups.

    It draws distinct samples with probabilities proportional to the
    weights, which needs as many samples of positive weight as groups. The
    weights are the normalized ones, where a weight below the smallest float
    times the largest weight is zero.
    """
    if not (isinstance(init, str) and init == "uniform"):
        return
    n_weighted = int(np.count_nonzero(sample_weight))
    if n_weighted < n_clusters:
        raise ValueError(
            f"init='uniform' draws n_{naming.groups}={n_clusters} distinct "
            f"samples of positive weight, but sample_weight has only "
            f"{n_weighted} non-zero entries. Use init='k-means++' or give more "
            "samples a positive weight."
        )


def _warn_if_diverged(runs, solver, learning_rate):
    """The ConvergenceWarning of runs cut back to their best iterate."""
    n_diverged = sum(run.diverged for run in runs)
    if not n_diverged:
        return
    advice = (
        f"with learning_rate={learning_rate!r}: use a smaller learning_rate "
        "(None gives the step of the convergence theorems)"
        if learning_rate is not None
        else "with the default step"
    )
    warnings.warn(
        f"solver={solver!r} diverged in {n_diverged} of {len(runs)} run(s) "
        f"{advice}. The iterates overflowed or the objective ended above its "
        "initial value; each such run was cut back to its iterate of lowest "
        "objective.",
        ConvergenceWarning,
        stacklevel=3,
    )


#: Constraints of the data arguments of the public functions.
DATA_CONSTRAINTS = {
    "X": ["array-like", "sparse matrix"],
    "y": ["array-like", None],
    "loss": [StrOptions(set(LOSSES)), HasMethods(["bind"])],
    "sample_weight": ["array-like", None],
}

#: Constraints of the algorithm's options, shared with the estimators.
SOLVER_CONSTRAINTS = {
    "n_clusters": [Interval(Integral, 1, None, closed="left")],
    "init": [StrOptions({"k-means++", "uniform", "random"}), callable, "array-like"],
    "init_score": [StrOptions({"gap", "gradient"})],
    "solver": [StrOptions({"exact", "gd", "momentum"})],
    "learning_rate": [Interval(Real, 0, None, closed="neither"), None],
    "reclassify_every": [Interval(Integral, 1, None, closed="left")],
    "momentum": [Interval(Real, 0, 1, closed="left")],
    "size_change_factor": [Interval(Real, 1, None, closed="neither")],
    "empty_cluster": [StrOptions({"relocate", "keep"})],
    "n_init": [Interval(Integral, 1, None, closed="left")],
    "max_iter": [Interval(Integral, 0, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left")],
    "random_state": ["random_state"],
    "n_jobs": [Integral, None],
    "verbose": ["verbose"],
}


def _prepare(X, y, sample_weight, loss, n_clusters):
    """Validate the data of a public function and bind the loss to it."""
    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32])
    check_square_range(X, input_name="X")
    if y is not None:
        y = check_array(y, ensure_2d=False)
        check_square_range(y, input_name="y", dtype=X.dtype)
        y = y.astype(X.dtype, copy=False)
    # float64 whatever the data's dtype: the engine normalizes them, and
    # weights beyond float32's range are valid for float32 data.
    sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
    problem = _resolve_loss(loss, X, y)
    _check_n_samples(problem, n_clusters)
    return problem, sample_weight


def _check_n_samples(problem, n_clusters):
    if problem.n_samples < n_clusters:
        raise ValueError(
            f"n_samples={problem.n_samples} should be >= n_clusters={n_clusters}."
        )


@validate_params(
    {**DATA_CONSTRAINTS, **SOLVER_CONSTRAINTS}, prefer_skip_nested_validation=True
)
def sum_of_minimum(
    X,
    n_clusters,
    *,
    y=None,
    loss="squared_euclidean",
    sample_weight=None,
    init="k-means++",
    init_score="gap",
    solver="exact",
    learning_rate=None,
    reclassify_every=1,
    momentum=0.5,
    size_change_factor=1.5,
    empty_cluster="relocate",
    n_init=1,
    max_iter=300,
    tol=1e-4,
    random_state=None,
    n_jobs=None,
    verbose=0,
):
    """Minimize a sum of minimums of per-sample losses.

    Solves the sum-of-minimum problem (eq. 1.1)

    .. math::

        \\min_{x_1, \\dots, x_k} F(x_1, \\dots, x_k) =
        \\frac{1}{\\sum_i w_i} \\sum_{i=1}^N w_i \\min_{1 \\le j \\le k} f_i(x_j)

    by generalized k-means++ seeding (Algorithms 1 and 4) followed by a
    generalized Lloyd algorithm: exact group minimization, gradient steps
    (Algorithm 2) or momentum with controlled reclassification (Algorithm 3).
    The best of ``n_init`` runs is returned.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data defining the sub-functions :math:`f_i`.
    n_clusters : int
        Number of parameters :math:`k`.
    y : array-like of shape (n_samples,), default=None
        Targets, for loss families that use them.
    loss : {'squared_euclidean', 'kl'} or SumOfMinLoss, default='squared_euclidean'
        The per-sample loss family: half squared Euclidean distance
        (:class:`SquaredEuclideanLoss`), the generalized Kullback-Leibler
        divergence of the sample from the center (:class:`KLDivergenceLoss`,
        needs non-negative data) or any instance with the
        :class:`SumOfMinLoss` interface.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights :math:`w_i`; None means unit weights. Only their
        ratios matter: they are scaled by a power of two to sum to about one,
        so that weights of any finite size keep every sum within range.
    init : {'k-means++', 'uniform', 'random'}, callable or array-like, \
            default='k-means++'
        'k-means++' is the generalized k-means++ seeding (Algorithm 1, or
        Algorithm 4 with ``init_score='gradient'``); 'uniform' picks the
        minimizers of ``n_clusters`` distinct samples drawn uniformly (weights
        proportional to ``sample_weight``); 'random' draws the parameters from
        the loss family's random distribution (standard Gaussian for squared
        Euclidean, as in section 5.2 of the paper). A callable is called as
        ``init(X, n_clusters, random_state=random_state)``; an array of shape
        ``(n_clusters, n_features)`` is used as it is.
    init_score : {'gap', 'gradient'}, default='gap'
        Seeding score: the optimality gap :math:`f_i(x) - f_i^*` (eq. 3.2) or
        the squared gradient norm :math:`\\|\\nabla f_i(x)\\|^2` (eq. 3.5).
    solver : {'exact', 'gd', 'momentum'}, default='exact'
        'exact' replaces each parameter by its group minimizer; 'gd' takes
        one gradient step per iteration (eq. 3.8); 'momentum' is Algorithm 3.
    learning_rate : float, default=None
        Step size :math:`\\gamma` of 'gd' and 'momentum'. None means
        :math:`1/L` for 'gd' (Theorem 4.6) and :math:`(1 - \\beta)/L` for
        'momentum'. Ignored by 'exact'. A step so large that a run diverges
        (its iterates overflow, or its last objective exceeds its initial
        one) cuts the run back to its iterate of lowest objective, with a
        :class:`~sklearn.exceptions.ConvergenceWarning`.
    reclassify_every : int, default=1
        Reclassify every ``reclassify_every`` iterations (the paper's
        :math:`r`); used by 'gd' and 'momentum'. 'exact' reaches the group
        minimum in one step and reclassifies at every iteration.
    momentum : float, default=0.5
        Momentum :math:`\\beta \\in [0, 1)` of 'momentum'.
    size_change_factor : float, default=1.5
        Factor :math:`\\alpha > 1` bounding the change of every group's size
        at a reclassification of 'momentum' (eq. 3.12). A
        :class:`~sklearn.exceptions.ConvergenceWarning` is raised when
        :math:`\\alpha \\beta \\ge 1` (Theorem 4.7 needs :math:`\\alpha\\beta<1`).
    empty_cluster : {'relocate', 'keep'}, default='relocate'
        'relocate' moves the samples worst served into empty groups, as
        :class:`~sklearn.cluster.KMeans` does; 'keep' leaves an empty group's
        parameter where it is, the paper's convention (eq. 3.7).
    n_init : int, default=1
        Number of runs with different seeds; the run of lowest objective is
        returned. An ``init`` array makes one run, with a
        :class:`RuntimeWarning` if ``n_init`` asks for more, as in
        :class:`sklearn.cluster.KMeans`.
    max_iter : int, default=300
        Maximum number of parameter updates per run; 0 returns the
        initialization.
    tol : float, default=1e-4
        Stop when the objective decreases by at most ``tol`` times its
        previous value ('exact' also stops when the partition repeats).
    random_state : int, RandomState instance or None, default=None
        Seeds the initializations and the visiting order of Algorithm 3.
    n_jobs : int, default=None
        Number of runs in parallel through joblib, on threads unless a
        :func:`joblib.parallel_config` context chooses another backend. None
        means 1 unless in such a context. BLAS and the block threads of every
        run are limited so that all runs together use no more threads than
        there are cores.
    verbose : int, default=0
        Print the objective at every iteration. The lines of parallel runs
        are printed by the calling process, run after run, as with one job.

    Returns
    -------
    result : SumOfMinResult
        The parameters, labels, objective and its history, the number of
        iterations and the initial parameters of the best run.

    See Also
    --------
    generalized_kmeans_plusplus : The seeding alone.
    skcgm.cluster.SumOfMinKMeans : The estimator built on this function.

    Notes
    -----
    A :class:`~sklearn.exceptions.ConvergenceWarning` is raised when fewer
    distinct groups than ``n_clusters`` remain in the returned partition, as
    in :class:`sklearn.cluster.KMeans`.

    One iteration costs one evaluation of the ``(n_samples, n_clusters)`` loss
    matrix, computed in blocks of bounded memory, plus one group update;
    'momentum' evaluates the losses twice (at :math:`u` and at :math:`x`).

    References
    ----------
    L. Ding, J. Chen, X. Wang and W. Yin, "Efficient algorithms for
    sum-of-minimum optimization", ICML 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import sum_of_minimum
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0]])
    >>> result = sum_of_minimum(X, 2, random_state=0)
    >>> result.params[np.argsort(result.params[:, 0])]
    array([[ 0. ,  0.5],
           [10. ,  0.5]])
    >>> result.objective
    0.125
    """
    problem, sample_weight = _prepare(X, y, sample_weight, loss, n_clusters)
    return _run_sum_of_minimum(
        problem,
        n_clusters,
        sample_weight,
        init=init,
        init_score=init_score,
        solver=solver,
        learning_rate=learning_rate,
        reclassify_every=reclassify_every,
        momentum=momentum,
        size_change_factor=size_change_factor,
        empty_cluster=empty_cluster,
        n_init=n_init,
        max_iter=max_iter,
        tol=tol,
        random_state=random_state,
        n_jobs=n_jobs,
        verbose=verbose,
    )


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **{
            key: SOLVER_CONSTRAINTS[key]
            for key in ("n_clusters", "init_score", "random_state")
        },
    },
    prefer_skip_nested_validation=True,
)
def generalized_kmeans_plusplus(
    X,
    n_clusters,
    *,
    y=None,
    loss="squared_euclidean",
    sample_weight=None,
    init_score="gap",
    random_state=None,
):
    """Generalized k-means++ seeding of a sum-of-minimum problem.

    Algorithm 1 of the paper (eqs. 3.1-3.4): the first index is drawn with
    probability proportional to :math:`w_i`, every further one with
    probability

    .. math::

        P(i_j = i) = \\frac{w_i v_i^{(j)}}{\\sum_{i'} w_{i'} v_{i'}^{(j)}},
        \\qquad v_i^{(j)} = \\min_{j' < j} f_i(x_{j'}^{(0)}) - f_i^*

    (eq. 3.2), and the parameter is the sample's own minimizer
    :math:`x_{i_j}^*`. With ``init_score='gradient'`` the score is
    :math:`\\min_{j'<j} \\|\\nabla f_i(x_{j'}^{(0)})\\|^2` (Algorithm 4,
    eq. 3.5). For the squared Euclidean loss this is k-means++ with one local
    trial and draws exactly as
    ``sklearn.cluster.kmeans_plusplus(n_local_trials=1)``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data defining the sub-functions.
    n_clusters : int
        Number of seeds.
    y : array-like of shape (n_samples,), default=None
        Targets, for loss families that use them.
    loss : {'squared_euclidean', 'kl'} or SumOfMinLoss, default='squared_euclidean'
        The per-sample loss family, as in :func:`sum_of_minimum`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; None means unit weights.
    init_score : {'gap', 'gradient'}, default='gap'
        Seeding score, eq. 3.2 or eq. 3.5.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws.

    Returns
    -------
    params : ndarray of shape (n_clusters, \\*param_shape)
        The seeds.
    indices : ndarray of shape (n_clusters,)
        The samples whose minimizers were chosen, in order.

    See Also
    --------
    sum_of_minimum : Seeding followed by Lloyd iterations.

    Notes
    -----
    When every score is zero before ``n_clusters`` seeds are chosen (fewer
    distinct minimizers than clusters), the remaining seeds are drawn
    uniformly among the unused samples and a
    :class:`~sklearn.exceptions.ConvergenceWarning` is raised. Theorem 4.1
    bounds the expected objective of the seeds by
    :math:`4(2 + \\ln k)(L^2/\\mu^2 + L/\\mu)` times the optimal gap.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import generalized_kmeans_plusplus
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0]])
    >>> params, indices = generalized_kmeans_plusplus(X, 2, random_state=0)
    >>> sorted(params[:, 0].tolist())
    [0.0, 10.0]
    """
    problem, sample_weight = _prepare(X, y, sample_weight, loss, n_clusters)
    _check_init_score(problem, "k-means++", init_score)
    with np.errstate(all="ignore"):
        params, indices, n_scored = _seed(
            problem,
            n_clusters,
            _normalized_weights(sample_weight, problem.X.dtype),
            init_score,
            check_random_state(random_state),
        )
    if n_scored < n_clusters:
        warnings.warn(
            f"Number of distinct clusters ({n_scored}) found smaller than "
            f"n_clusters ({n_clusters}). Possibly due to duplicate points in X.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return params, indices
