"""Initial parameters of a sum-of-minimum run: generalized k-means++ and others.

Algorithms 1 and 4 and section 5.2 of Ding, Chen, Wang and Yin, "Efficient
algorithms for sum-of-minimum optimization" (ICML 2024).
"""

import numpy as np

from ...utils._validation import check_square_range

__all__ = ["check_init_score", "check_weighted_samples", "initialize"]


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
    # Drawn samples score zero even where their minimizer is approximate:
    # the draws are without replacement (Algorithm 1).
    scores[indices[0]] = 0
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
        scores[indices[c]] = 0
    return np.stack(params), indices, n_clusters


def _fill_uniformly(problem, params, indices, n_chosen, random_state):
    """Complete a seeding whose gaps are all zero with unused indices."""
    n_clusters = indices.shape[0]
    unused = np.setdiff1d(np.arange(problem.n_samples), indices[:n_chosen])
    extra = random_state.choice(unused, size=n_clusters - n_chosen, replace=False)
    indices[n_chosen:] = extra
    params.extend(problem.sample_minimizers(extra, random_state))
    return np.stack(params)


def initialize(
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


def check_init_score(problem, init, init_score):
    """Refuse gradient seeding scores for losses without per-sample gradients."""
    if (
        isinstance(init, str)
        and init == "k-means++"
        and init_score == "gradient"
        and not hasattr(problem, "grad_sq_norm_vector")
    ):
        raise ValueError(
            f"init_score='gradient' needs the gradients of the per-sample "
            f"losses, which {type(problem).__name__} does not have; use "
            "init_score='gap'."
        )


def check_weighted_samples(init, sample_weight, n_clusters, naming):
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
