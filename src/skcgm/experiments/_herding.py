"""MMD of kernel herding subsets against i.i.d. subsampling and kernel thinning.

The paper (section 4.3, Algorithms 3 and 4) runs herding as Frank-Wolfe on
the marginal polytope, with an exact or an LSH direction search; it reports
no measurement. This experiment measures the quantity its herding bound
(Theorem 3.2) is about: the squared MMD between the data and the weighted
subset, against the subset size m.
"""

import importlib.util
import math
import os
import time

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils import check_random_state

from ._result import Column, ExperimentResult, _versions

SUBSET_SIZES = (16, 32, 64, 128, 256)
QUICK_DIMENSIONS = (2,)
FULL_DIMENSIONS = (2, 10)
QUICK_N_SAMPLES = 2000
FULL_N_SAMPLES = 4000
N_MIXTURE_COMPONENTS = 4
QUICK_TRIALS = 10
FULL_TRIALS = 30
# LSH herding runs on explicit random Fourier features.
LSH_OPTIONS = {
    "feature_map": "rff",
    "n_components": 256,
    "maxip": "lsh",
    "n_tables": 16,
    "n_bits": 8,
    "n_probes": 16,
    "n_candidates": 0.05,
}
METHODS = (
    "herding (exact)",
    "herding (LSH, RFF 256)",
    "i.i.d. (median)",
    "kernel thinning",
)


def make_gaussian_mixture(n_samples, n_features, *, n_components=4, random_state=None):
    """Draw points from a Gaussian mixture with well separated components.

    Component means are drawn uniformly in :math:`[-4, 4]^d`, covariances are
    :math:`\\operatorname{diag}(s_j^2)` with :math:`s_j` uniform in
    :math:`[0.5, 1.5]`, mixing weights are Dirichlet(2, ..., 2).

    Parameters
    ----------
    n_samples : int
        Number of points.
    n_features : int
        Dimension d.
    n_components : int, default=4
        Number of mixture components.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The points, in random order.

    Examples
    --------
    >>> from skcgm.experiments import make_gaussian_mixture
    >>> make_gaussian_mixture(100, 2, random_state=0).shape
    (100, 2)
    """
    rng = check_random_state(random_state)
    means = rng.uniform(-4.0, 4.0, size=(n_components, n_features))
    scales = rng.uniform(0.5, 1.5, size=(n_components, n_features))
    weights = rng.dirichlet(np.full(n_components, 2.0))
    labels = rng.choice(n_components, size=n_samples, p=weights)
    return means[labels] + scales[labels] * rng.standard_normal((n_samples, n_features))


def _kernel_mean_sq_norm(X, gamma, chunk=2048):
    """:math:`\\frac{1}{n^2} \\sum_{i,j} k(x_i, x_j)`, in row chunks."""
    total = 0.0
    for start in range(0, X.shape[0], chunk):
        total += rbf_kernel(X[start : start + chunk], X, gamma=gamma).sum()
    return total / X.shape[0] ** 2


def squared_mmd(X, indices, weights, *, gamma, data_term=None):
    """Squared MMD between the data and a weighted subset of it, RBF kernel.

    .. math::

        \\mathrm{MMD}^2 = \\sum_{a,b} w_a w_b k(x_a, x_b)
        - \\frac{2}{n} \\sum_a w_a \\sum_j k(x_a, x_j)
        + \\frac{1}{n^2} \\sum_{i,j} k(x_i, x_j),

    with :math:`k(x, y) = \\exp(-\\gamma \\|x - y\\|^2)`, computed with the
    exact kernel whatever features the subset was chosen with, so that it
    checks the samplers independently of their own ``mmd_history_``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data, uniformly weighted.
    indices : array-like of int
        Rows of the subset (repeats allowed).
    weights : array-like of float
        Their weights, summing to 1.
    gamma : float
        RBF kernel parameter.
    data_term : float or None, default=None
        :math:`\\frac{1}{n^2} \\sum_{i,j} k(x_i, x_j)` if already computed
        (it costs :math:`O(n^2)`).

    Returns
    -------
    mmd2 : float
        The squared MMD, clipped at 0 against rounding.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.experiments import squared_mmd
    >>> X = np.array([[0.0], [1.0]])
    >>> squared_mmd(X, [0, 1], [0.5, 0.5], gamma=1.0)
    0.0
    >>> round(squared_mmd(X, [0], [1.0], gamma=1.0), 4)
    0.3161
    """
    indices = np.asarray(indices)
    weights = np.asarray(weights, dtype=float)
    if data_term is None:
        data_term = _kernel_mean_sq_norm(X, gamma)
    S = X[indices]
    subset_term = weights @ rbf_kernel(S, S, gamma=gamma) @ weights
    cross = 0.0
    for start in range(0, X.shape[0], 2048):
        cross += (rbf_kernel(S, X[start : start + 2048], gamma=gamma).sum(axis=1)) @ (
            weights
        )
    value = subset_term - 2.0 * cross / X.shape[0] + data_term
    return float(max(value, 0.0))


def kernel_thinning_available():
    """Whether the optional ``goodpoints`` package (kernel thinning) imports.

    Returns
    -------
    available : bool
        True when ``goodpoints`` is installed.

    Examples
    --------
    >>> from skcgm.experiments import kernel_thinning_available
    >>> isinstance(kernel_thinning_available(), bool)
    True
    """
    return importlib.util.find_spec("goodpoints") is not None


def _kernel_thinning(X, m, gamma, seed):
    """Kernel thinning (``goodpoints.kt.thin``) down to m points, uniform weights.

    KT halves ``r`` times, so it runs on the first ``m 2^r <= n`` rows (the
    rows are in random order) with the target kernel as split and swap
    kernel.
    """
    from goodpoints import kt

    def kernel(y, Z):
        return np.exp(-gamma * ((np.atleast_2d(y) - Z) ** 2).sum(axis=1))

    rounds = int(math.floor(math.log2(X.shape[0] / m)))
    rows = X[: m * 2**rounds]
    indices = kt.thin(rows, rounds, kernel, kernel, delta=0.5, seed=int(seed))
    indices = np.asarray(indices)
    return indices, np.full(len(indices), 1.0 / len(indices))


def _herding(X, m, gamma, seed, options):
    from ..sampling import KernelHerdingSampler

    sampler = KernelHerdingSampler(
        n_samples=m, kernel="rbf", gamma=gamma, random_state=seed, **options
    )
    start = time.perf_counter()
    sampler.fit(X)
    fit_time = time.perf_counter() - start
    scored = float(np.mean(sampler.n_scored_) / X.shape[0])
    return sampler.sample_indices_, sampler.sample_weights_, fit_time, scored


def run_herding(
    *,
    full=False,
    trials=None,
    random_state=0,
    n_jobs=None,
    progress=None,
    subset_sizes=SUBSET_SIZES,
    n_samples=None,
    dimensions=None,
):
    """Squared MMD against subset size m: herding, i.i.d. and kernel thinning.

    For each dimension d: ``n_samples`` points of a 4-component Gaussian
    mixture (:func:`make_gaussian_mixture`), the RBF kernel with
    :math:`\\gamma = 1/(2d)`, and for each m the exact squared MMD
    (:func:`squared_mmd`) between the data and

    - kernel herding, exact: ``KernelHerdingSampler(feature_map='exact',
      maxip='exact')`` (Algorithm 3, kernel trick);
    - kernel herding, LSH: ``feature_map='rff', n_components=256,
      maxip='lsh', n_tables=16, n_bits=8, n_probes=16, n_candidates=0.05``
      (Algorithm 4), with the mean
      fraction of the n candidates scored per iteration;
    - m points drawn uniformly without replacement, uniform weights: median
      (and 25%-75% quantiles) over ``trials`` seeds;
    - kernel thinning (``goodpoints.kt.thin``), when ``goodpoints`` is
      installed; the rows are omitted otherwise.

    Parameters
    ----------
    full : bool, default=False
        Run d in {2, 10}, n = 4000 and 30 i.i.d. seeds instead of d = 2,
        n = 2000 and 10 seeds.
    trials : int or None, default=None
        Number of i.i.d. seeds; overrides ``full``.
    random_state : int, default=0
        Seed of the data, the samplers and the i.i.d. draws.
    n_jobs : int or None, default=None
        Unused (the runs are sequential); accepted for the command line.
    progress : callable or None, default=None
        Called with a one-line message before each method.
    subset_sizes : tuple of int, default=(16, 32, 64, 128, 256)
        The subset sizes m.
    n_samples : int or None, default=None
        Number of points; overrides ``full``.
    dimensions : tuple of int or None, default=None
        The dimensions d; overrides ``full``.

    Returns
    -------
    result : ExperimentResult
        One row per (d, method, m) with ``mmd2`` (for i.i.d. the median,
        with ``mmd2_q25`` and ``mmd2_q75``), ``ratio_to_iid`` (over the
        i.i.d. median), ``scored_fraction`` (herding: mean candidates scored
        per iteration over n) and ``fit_time`` (s).
    """
    if trials is None:
        trials = FULL_TRIALS if full else QUICK_TRIALS
    if n_samples is None:
        n_samples = FULL_N_SAMPLES if full else QUICK_N_SAMPLES
    if dimensions is None:
        dimensions = FULL_DIMENSIONS if full else QUICK_DIMENSIONS
    report = progress if progress is not None else (lambda message: None)
    rng = check_random_state(random_state)
    have_kt = kernel_thinning_available()
    start = time.perf_counter()
    rows = []
    for d in dimensions:
        X = make_gaussian_mixture(
            n_samples,
            d,
            n_components=N_MIXTURE_COMPONENTS,
            random_state=rng.randint(np.iinfo(np.int32).max),
        )
        gamma = 1.0 / (2.0 * d)
        data_term = _kernel_mean_sq_norm(X, gamma)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        iid_seeds = rng.randint(np.iinfo(np.int32).max, size=trials)

        def mmd2(indices, weights, X=X, gamma=gamma, data_term=data_term):
            return squared_mmd(X, indices, weights, gamma=gamma, data_term=data_term)

        iid_median = {}
        block = []
        report(f"d={d}: i.i.d., {trials} seeds")
        for m in subset_sizes:
            values = []
            for s in iid_seeds:
                indices = np.random.RandomState(s).choice(n_samples, m, replace=False)
                values.append(mmd2(indices, np.full(m, 1.0 / m)))
            q25, median, q75 = np.percentile(values, [25, 50, 75])
            iid_median[m] = median
            block.append(
                {
                    "method": METHODS[2],
                    "m": m,
                    "mmd2": float(median),
                    "mmd2_q25": float(q25),
                    "mmd2_q75": float(q75),
                    "scored_fraction": None,
                    "fit_time": None,
                }
            )
        for method, options in (
            (METHODS[0], {"feature_map": "exact", "maxip": "exact"}),
            (METHODS[1], LSH_OPTIONS),
        ):
            report(f"d={d}: {method}")
            for m in subset_sizes:
                indices, weights, fit_time, scored = _herding(
                    X, m, gamma, seed, options
                )
                block.append(
                    {
                        "method": method,
                        "m": m,
                        "mmd2": mmd2(indices, weights),
                        "scored_fraction": scored,
                        "fit_time": fit_time,
                    }
                )
        if have_kt:
            report(f"d={d}: kernel thinning")
            for m in subset_sizes:
                t0 = time.perf_counter()
                indices, weights = _kernel_thinning(X, m, gamma, seed)
                block.append(
                    {
                        "method": METHODS[3],
                        "m": m,
                        "mmd2": mmd2(indices, weights),
                        "scored_fraction": None,
                        "fit_time": time.perf_counter() - t0,
                    }
                )
        order = {method: i for i, method in enumerate(METHODS)}
        block.sort(key=lambda row: (order[row["method"]], row["m"]))
        for row in block:
            row.update(
                {
                    "n_features": d,
                    "n_samples": n_samples,
                    "gamma": gamma,
                    "ratio_to_iid": row["mmd2"] / iid_median[row["m"]],
                }
            )
            rows.append(row)
    wall_time = time.perf_counter() - start
    columns = [
        Column("n_features", "d", group=True),
        Column("method", "method", group=True),
        Column("m", "m"),
        Column("mmd2", "MMD^2", ".3e"),
        Column("ratio_to_iid", "/ i.i.d. median", ".3f"),
        Column("scored_fraction", "scored / n per iter", ".3f"),
        Column("fit_time", "fit time (s)", ".3f"),
    ]
    n_cores = os.cpu_count()
    kt_text = (
        "Kernel thinning: goodpoints.kt.thin (target kernel as split and swap "
        "kernel, delta=0.5) on the first m 2^r <= n rows."
        if have_kt
        else "Kernel thinning: skipped, the optional goodpoints package is not "
        "installed (pip install goodpoints)."
    )
    caption = (
        "Table: squared MMD (exact RBF kernel, gamma = 1/(2d)) between n = "
        f"{n_samples} points of a {N_MIXTURE_COMPONENTS}-component Gaussian "
        "mixture and a weighted subset of m of them, against m. Herding (exact): "
        "KernelHerdingSampler(feature_map='exact', maxip='exact'), Algorithm 3 "
        "with the kernel trick; herding (LSH): feature_map='rff', "
        "n_components=256, maxip='lsh', n_tables=16, n_bits=8, n_probes=16, "
        "n_candidates=0.05 (Algorithm 4), "
        "its MMD measured with the exact kernel; scored / n: mean candidates "
        "scored per iteration over n. i.i.d.: m points uniformly without "
        f"replacement, uniform weights, median over {trials} seeds. "
        f"{kt_text} random_state={random_state}, {n_cores} cores."
    )
    metadata = {
        "trials": trials,
        "full": full,
        "random_state": random_state,
        "n_samples": n_samples,
        "dimensions": list(dimensions),
        "subset_sizes": list(subset_sizes),
        "lsh_options": LSH_OPTIONS,
        "kernel_thinning": have_kt,
        "cpu_count": n_cores,
        "wall_time_s": wall_time,
        "versions": _versions(),
    }
    return ExperimentResult("herding", rows, columns, caption, metadata)


def plot_herding(result, figure):
    """Squared MMD against m on log-log axes, one panel per dimension.

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_herding`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    """
    dimensions = list(dict.fromkeys(row["n_features"] for row in result.rows))
    figure.set_size_inches(5.0 * len(dimensions), 4.0)
    axes = figure.subplots(1, len(dimensions), squeeze=False)[0]
    markers = dict(zip(METHODS, "os^v"))
    for ax, d in zip(axes, dimensions):
        n_samples = next(r["n_samples"] for r in result.rows if r["n_features"] == d)
        for method in METHODS:
            rows = [
                r for r in result.rows if r["n_features"] == d and r["method"] == method
            ]
            if not rows:
                continue
            m = [r["m"] for r in rows]
            ax.plot(m, [r["mmd2"] for r in rows], marker=markers[method], label=method)
            if "mmd2_q25" in rows[0]:
                ax.fill_between(
                    m,
                    [r["mmd2_q25"] for r in rows],
                    [r["mmd2_q75"] for r in rows],
                    alpha=0.2,
                )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("subset size m")
        ax.set_ylabel("squared MMD (RBF)")
        ax.set_title(f"Gaussian mixture, d = {d}, n = {n_samples}")
        ax.legend(fontsize="small")
    figure.tight_layout()
