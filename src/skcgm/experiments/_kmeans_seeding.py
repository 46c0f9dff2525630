"""Monte Carlo check of Theorem 4.1 (generalized k-means++ seeding).

Ding, Chen, Wang and Yin (2024), Theorem 4.1: Algorithm 1 gives
:math:`E F(M_{init}) - f^* \\le 4(2 + \\ln k)(L^2/\\mu^2 + L/\\mu)(F^* - f^*)`,
and Corollary 4.5 the same with :math:`L^2/\\mu^2 + L^4/\\mu^4` for Algorithm 4
(gradient-norm scores). For :math:`f_i(x) = \\frac12 \\|x - y_i\\|^2`,
:math:`L = \\mu = 1` and :math:`f^* = 0`, so both read
:math:`E F(M_{init}) \\le 8(2 + \\ln k) F^*`, k-means++'s bound.
"""

import math
import warnings

import numpy as np
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

from ..optim import generalized_kmeans_plusplus, sum_of_minimum
from ._plot import Panel, draw
from ._result import Column
from ._runner import TrialRunner

# (label, sum_of_minimum / generalized_kmeans_plusplus options, paper result
# bounding it). Algorithms 1 and 4 go through generalized_kmeans_plusplus, the
# baselines of section 5.2 through sum_of_minimum(max_iter=0).
SEEDINGS = (
    ("k-means++ (Algorithm 1)", {"init_score": "gap"}, "Thm 4.1"),
    ("gradient scores (Algorithm 4)", {"init_score": "gradient"}, "Cor 4.5"),
    ("uniform seeding", {"init": "uniform"}, None),
    ("random Gaussian", {"init": "random"}, None),
)
# Unit-variance blobs in the plane centered on a square grid of spacing
# `separation`: ten standard deviations apart, the classes are the optimal
# partition and F* is known up to Lloyd's last digits.
DATA = {"n_clusters": (3, 10, 30), "samples_per_cluster": 100, "separation": 10.0}
# Seeds per row: quick, and full.
TRIALS = (200, 1000)
COLUMNS = (
    Column("n_clusters", "k", group=True),
    Column("seeding", "seeding"),
    Column("ratio_mean", "F(M_init)/F_ub", ".2f", "ratio_std"),
    Column("ratio_max", "max", ".2f"),
    Column("bound", "paper bound 8(2+ln k)", ".2f"),
    Column("bound_source", "paper result"),
    Column("below_bound", "mean <= bound"),
    Column("seeded_mean", "true clusters seeded (%)", ".1f"),
)
CAPTION = (
    "Table: Theorem 4.1 / Corollary 4.5 (Ding et al., 2024) checked by Monte Carlo. "
    "Squared Euclidean f_i (L = mu = 1, f* = 0); per k, {samples_per_cluster} points "
    "per cluster from k unit-variance Gaussian blobs in R^2 centered on a square grid "
    "of spacing {separation:g}; R = {trials} seeds per row, the same for every "
    "seeding of a data set (Algorithms 1 and 4 draw the same seeds: their scores "
    "differ by a factor 2). F_ub >= F*: Lloyd (tol=0) from the class means. Random "
    "Gaussian: centers drawn from N(0, I). random_state={random_state}, "
    "n_jobs={n_jobs}, {cpu_count} cores."
)


def _bound_line(ax, rows):
    """The bound of Theorem 4.1."""
    k = sorted({row["n_clusters"] for row in rows})
    bound = [theorem_4_1_bound(n_clusters) for n_clusters in k]
    ax.plot(k, bound, "k--", label="Theorem 4.1 bound 8(2 + ln k)")


PLOT = Panel(
    "n_clusters",
    "ratio_mean",
    "seeding",
    "number of clusters k",
    "F(M_init) / F_ub (mean ± standard error)",
    title="Seeding quality, R = {trials} seeds",
    yerr=lambda row: row["ratio_std"] / math.sqrt(row["trials"]),
    xscale="log",
    yscale="log",
    ticks=True,
    # Algorithms 1 and 4 coincide for squared Euclidean losses: dashes and
    # open markers keep the second curve visible over the first.
    styles={SEEDINGS[1][0]: {"linestyle": "--", "fillstyle": "none"}},
    extra=_bound_line,
)


def theorem_4_1_bound(n_clusters):
    """The bound :math:`8(2 + \\ln k)` on :math:`E F(M_{init}) / F^*`.

    Theorem 4.1 with :math:`L = \\mu = 1` (squared Euclidean losses).

    Parameters
    ----------
    n_clusters : int
        Number of clusters k.

    Returns
    -------
    bound : float
        :math:`4(2 + \\ln k)(L^2/\\mu^2 + L/\\mu)` at :math:`L = \\mu = 1`.

    Examples
    --------
    >>> from skcgm.experiments._kmeans_seeding import theorem_4_1_bound
    >>> round(theorem_4_1_bound(10), 2)
    34.42
    """
    return 8.0 * (2.0 + math.log(n_clusters))


def _objective(X, centers):
    """:math:`F = \\frac{1}{N} \\sum_i \\min_j \\frac12 \\|y_i - x_j\\|^2`.

    Computed here rather than taken from the engine, so that the check does
    not rely on the code it checks.
    """
    sq_dist = np.einsum("ij,ij->i", X, X)[:, None] - 2 * X @ centers.T
    sq_dist += np.einsum("ij,ij->i", centers, centers)
    return 0.5 * float(np.maximum(sq_dist.min(axis=1), 0).mean())


def _seed(X, k, options, seed):
    """Initial centers of one seeding."""
    if "init_score" in options:
        return generalized_kmeans_plusplus(X, k, random_state=seed, **options)[0]
    # Only the starting point is measured: the random baselines leave groups
    # empty before any Lloyd step, which is what the table shows, not a
    # failure to report.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = sum_of_minimum(X, k, max_iter=0, random_state=seed, **options)
    return start.init_params


def _trials(X, true_centers, options, f_ub, seeds):
    """Ratios F(M_init) / F_ub, and shares of the true clusters seeded, per seed."""
    k = len(true_centers)
    starts = [_seed(X, k, options, seed) for seed in seeds]
    nearest = [((c[:, None] - true_centers) ** 2).sum(axis=2).argmin(1) for c in starts]
    return [_objective(X, c) / f_ub for c in starts], [len(set(n)) / k for n in nearest]


def run_kmeans_seeding(
    *, full=False, trials=None, random_state=0, n_jobs=None, progress=None
):
    """Mean :math:`F(M_{init}) / F^*` of four seedings beside Theorem 4.1.

    For each k in (3, 10, 30): k Gaussian blobs of 100 points in the plane,
    with unit variance and centers on a square grid of spacing 10 (one data
    set per k), and R seeds per seeding. :math:`F^*` is replaced by
    :math:`F_{ub} \\ge F^*`, the objective of Lloyd (``tol=0``) started at
    the class means; the theorem implies
    :math:`E F(M_{init}) / F_{ub} \\le 8(2 + \\ln k)`, so a mean ratio above
    the bound would refute the implementation (or the theorem).

    Parameters
    ----------
    full : bool, default=False
        Run R = 1000 seeds per row instead of 200.
    trials : int or None, default=None
        Number of seeds R per row; overrides ``full``.
    random_state : int, default=0
        Seed of the data sets and of the per-trial seeds (the same seeds for
        every seeding of a data set).
    n_jobs : int or None, default=None
        Chunks of trials run in parallel through joblib.
    progress : callable or None, default=None
        Called with a one-line message before each row.

    Returns
    -------
    result : ExperimentResult
        One row per (k, seeding): ``ratio_mean``, ``ratio_std``,
        ``ratio_max``, ``bound`` (None for the baselines), ``below_bound``,
        ``seeded_mean`` (share of true clusters holding an initial center;
        None for the Gaussian init) and ``f_ub``.
    """
    run = TrialRunner(TRIALS, full, trials, random_state, n_jobs, progress)
    rows = []
    for k in DATA["n_clusters"]:
        grid = np.divmod(np.arange(k), math.ceil(math.sqrt(k)))
        centers = DATA["separation"] * np.column_stack(grid)
        n_samples = [DATA["samples_per_cluster"]] * k
        X, y = make_blobs(n_samples, centers=centers, random_state=run.seed())
        class_means = np.stack([X[y == j].mean(axis=0) for j in range(k)])
        f_ub = sum_of_minimum(X, k, init=class_means, tol=0).objective
        data = {"n_clusters": k, "n_samples": X.shape[0], "n_features": X.shape[1]}
        seeds = run.seeds(run.trials)
        for label, options, source in SEEDINGS:
            run.report(f"k={k}: {label}, {run.trials} trials")
            chunks = run.map_seeds(_trials, (X, centers, options, f_ub), seeds)
            ratios, seeded = (np.concatenate(field) for field in zip(*chunks))
            mean = float(ratios.mean())
            bound = theorem_4_1_bound(k) if source else None
            # The Gaussian init's centers are no data points.
            data_points = options.get("init") != "random"
            rows.append(
                {
                    **data,
                    "seeding": label,
                    "trials": run.trials,
                    "ratio_mean": mean,
                    "ratio_std": float(ratios.std()),
                    "ratio_max": float(ratios.max()),
                    "bound": bound,
                    "bound_source": source,
                    "below_bound": None if bound is None else mean <= bound,
                    "seeded_mean": float(100 * seeded.mean()) if data_points else None,
                    "f_ub": f_ub,
                }
            )
    caption = CAPTION.format(**vars(run), **DATA)
    metadata = {"n_jobs": n_jobs, **DATA}
    return run.result("kmeans-seeding", rows, COLUMNS, caption, **metadata)


def plot_kmeans_seeding(result, figure):
    """Mean ratio per seeding against k, beside the bound :math:`8(2 + \\ln k)`.

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_kmeans_seeding`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    """
    draw(result, figure, PLOT, size=(7.0, 4.5))
