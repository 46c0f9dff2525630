"""MMD of kernel herding subsets against i.i.d. subsampling and kernel thinning.

The paper (section 4.3, Algorithms 3 and 4) runs herding as Frank-Wolfe on
the marginal polytope, with an exact or an LSH direction search; it reports
no measurement. This experiment measures the quantity its herding bound
(Theorem 3.2) is about: the squared MMD between the data and the weighted
subset, against the subset size m.
"""

import importlib.util
import math
import time

import numpy as np

from ..datasets import make_gaussian_mixture
from ..oracles import kernel_mean_squared_norm, squared_mmd
from ._result import Column
from ._runner import TrialRunner

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
    mixture (:func:`~skcgm.datasets.make_gaussian_mixture`), the RBF kernel with
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
    run = TrialRunner(
        (QUICK_TRIALS, FULL_TRIALS), full, trials, random_state, n_jobs, progress
    )
    trials = run.trials
    if n_samples is None:
        n_samples = FULL_N_SAMPLES if full else QUICK_N_SAMPLES
    if dimensions is None:
        dimensions = FULL_DIMENSIONS if full else QUICK_DIMENSIONS
    have_kt = kernel_thinning_available()
    rows = []
    for d in dimensions:
        X = make_gaussian_mixture(
            n_samples,
            d,
            n_components=N_MIXTURE_COMPONENTS,
            random_state=run.seed(),
        )
        gamma = 1.0 / (2.0 * d)
        data_term = kernel_mean_squared_norm(X, gamma=gamma)
        seed = run.seed()
        iid_seeds = run.seeds(trials)

        def mmd2(indices, weights, X=X, gamma=gamma, data_term=data_term):
            return squared_mmd(X, indices, weights, gamma=gamma, data_term=data_term)

        iid_median = {}
        block = []
        run.report(f"d={d}: i.i.d., {trials} seeds")
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
            run.report(f"d={d}: {method}")
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
            run.report(f"d={d}: kernel thinning")
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
    columns = [
        Column("n_features", "d", group=True),
        Column("method", "method", group=True),
        Column("m", "m"),
        Column("mmd2", "MMD^2", ".3e"),
        Column("ratio_to_iid", "/ i.i.d. median", ".3f"),
        Column("scored_fraction", "scored / n per iter", ".3f"),
        Column("fit_time", "fit time (s)", ".3f"),
    ]
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
        f"{kt_text} random_state={random_state}, {run.cpu_count} cores."
    )
    return run.result(
        "herding",
        rows,
        columns,
        caption,
        n_samples=n_samples,
        dimensions=list(dimensions),
        subset_sizes=list(subset_sizes),
        lsh_options=LSH_OPTIONS,
        kernel_thinning=have_kt,
    )


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
