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
N_CLUSTERS = (3, 10, 30)
SAMPLES_PER_CLUSTER = 100
# Unit-variance blobs in the plane centered on a square grid of this spacing:
# ten standard deviations apart, the classes are the optimal partition and
# F* is known up to Lloyd's last digits.
SEPARATION = 10.0
QUICK_TRIALS = 200
FULL_TRIALS = 1000


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
    >>> from skcgm.experiments import theorem_4_1_bound
    >>> round(theorem_4_1_bound(10), 2)
    34.42
    """
    return 8.0 * (2.0 + math.log(n_clusters))


def _grid_centers(n_clusters):
    side = math.ceil(math.sqrt(n_clusters))
    rows, cols = np.divmod(np.arange(n_clusters), side)
    return SEPARATION * np.column_stack([rows, cols]).astype(float)


def _blobs(n_clusters, random_state):
    centers = _grid_centers(n_clusters)
    X, y = make_blobs(
        n_samples=[SAMPLES_PER_CLUSTER] * n_clusters,
        centers=centers,
        cluster_std=1.0,
        random_state=random_state,
    )
    return X, y, centers


def _objective(X, centers):
    """:math:`F = \\frac{1}{N} \\sum_i \\min_j \\frac12 \\|y_i - x_j\\|^2`.

    Computed here rather than taken from the engine, so that the check does
    not rely on the code it checks.
    """
    sq_dist = (
        np.einsum("ij,ij->i", X, X)[:, None]
        - 2 * X @ centers.T
        + np.einsum("ij,ij->i", centers, centers)
    )
    return 0.5 * float(np.maximum(sq_dist.min(axis=1), 0).mean())


def _seed(X, n_clusters, options, seed):
    if "init_score" in options:
        centers, _ = generalized_kmeans_plusplus(
            X, n_clusters, random_state=seed, **options
        )
        return centers
    # Only the starting point is measured: the random baselines leave groups
    # empty before any Lloyd step, which is what the table shows, not a
    # failure to report.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = sum_of_minimum(X, n_clusters, max_iter=0, random_state=seed, **options)
    return result.init_params


def _trials(X, true_centers, n_clusters, options, f_ub, data_points, seeds):
    ratios, seeded = [], []
    for seed in seeds:
        centers = _seed(X, n_clusters, options, seed)
        ratios.append(_objective(X, centers) / f_ub)
        if data_points:
            seeded.append(len(np.unique(_nearest(centers, true_centers))) / n_clusters)
    return ratios, seeded


def _nearest(points, centers):
    sq_dist = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
    return sq_dist.argmin(axis=1)


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
    run = TrialRunner(
        (QUICK_TRIALS, FULL_TRIALS), full, trials, random_state, n_jobs, progress
    )
    trials = run.trials
    rows = []
    for n_clusters in N_CLUSTERS:
        X, y, true_centers = _blobs(n_clusters, run.seed())
        class_means = np.stack([X[y == j].mean(axis=0) for j in range(n_clusters)])
        f_ub = sum_of_minimum(X, n_clusters, init=class_means, tol=0).objective
        seeds = run.seeds(trials)
        for label, options, source in SEEDINGS:
            run.report(f"k={n_clusters}: {label}, {trials} trials")
            data_points = options.get("init") != "random"
            out = run.map_seeds(
                _trials,
                (X, true_centers, n_clusters, options, f_ub, data_points),
                seeds,
            )
            ratios = np.concatenate([chunk_ratios for chunk_ratios, _ in out])
            seeded = np.concatenate([chunk_seeded for _, chunk_seeded in out])
            bound = theorem_4_1_bound(n_clusters) if source else None
            rows.append(
                {
                    "n_clusters": n_clusters,
                    "n_samples": X.shape[0],
                    "n_features": X.shape[1],
                    "seeding": label,
                    "trials": trials,
                    "ratio_mean": float(ratios.mean()),
                    "ratio_std": float(ratios.std()),
                    "ratio_max": float(ratios.max()),
                    "bound": bound,
                    "bound_source": source,
                    "below_bound": None
                    if bound is None
                    else bool(ratios.mean() <= bound),
                    "seeded_mean": float(100 * seeded.mean()) if data_points else None,
                    "f_ub": f_ub,
                }
            )
    columns = [
        Column("n_clusters", "k", group=True),
        Column("seeding", "seeding"),
        Column("ratio_mean", "F(M_init)/F_ub", ".2f", "ratio_std"),
        Column("ratio_max", "max", ".2f"),
        Column("bound", "paper bound 8(2+ln k)", ".2f"),
        Column("bound_source", "paper result"),
        Column("below_bound", "mean <= bound"),
        Column("seeded_mean", "true clusters seeded (%)", ".1f"),
    ]
    caption = (
        "Table: Theorem 4.1 / Corollary 4.5 (Ding et al., 2024) checked by Monte "
        "Carlo. Squared Euclidean f_i (L = mu = 1, f* = 0); for each k, "
        f"{SAMPLES_PER_CLUSTER} points per cluster from k unit-variance Gaussian "
        f"blobs in R^2 centered on a square grid of spacing {SEPARATION:g}; "
        f"R = {trials} seeds per row (the same seeds for every seeding of a data "
        "set), mean ± std and max over seeds. Algorithms 1 and 4 draw the same "
        "seeds here (their scores differ by a factor 2 for squared Euclidean "
        "losses). F_ub >= F*: objective of Lloyd (tol=0) from the class means. "
        "Random Gaussian: centers drawn from N(0, I). "
        f"random_state={random_state}, n_jobs={n_jobs}, {run.cpu_count} cores."
    )
    return run.result(
        "kmeans-seeding",
        rows,
        columns,
        caption,
        n_jobs=n_jobs,
        n_clusters=list(N_CLUSTERS),
        samples_per_cluster=SAMPLES_PER_CLUSTER,
        separation=SEPARATION,
    )


def plot_kmeans_seeding(result, figure):
    """Mean ratio per seeding against k, beside the bound :math:`8(2 + \\ln k)`.

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_kmeans_seeding`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    """
    ax = figure.subplots()
    n_clusters = sorted({row["n_clusters"] for row in result.rows})
    # Algorithms 1 and 4 coincide for squared Euclidean losses: dashes and
    # open markers keep the second line visible over the first.
    styles = [
        ("o", "-", "full"),
        ("s", "--", "none"),
        ("^", "-", "full"),
        ("v", "-", "full"),
    ]
    for (label, _, _), (marker, line, fill) in zip(SEEDINGS, styles):
        rows = [row for row in result.rows if row["seeding"] == label]
        ax.errorbar(
            [row["n_clusters"] for row in rows],
            [row["ratio_mean"] for row in rows],
            yerr=[row["ratio_std"] / math.sqrt(row["trials"]) for row in rows],
            marker=marker,
            linestyle=line,
            fillstyle=fill,
            capsize=3,
            label=label,
        )
    ax.plot(
        n_clusters,
        [theorem_4_1_bound(k) for k in n_clusters],
        "k--",
        label="Theorem 4.1 bound 8(2 + ln k)",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(n_clusters, [str(k) for k in n_clusters])
    ax.set_xticks([], minor=True)
    ax.set_xlabel("number of clusters k")
    ax.set_ylabel("F(M_init) / F_ub (mean ± standard error)")
    ax.set_title(f"Seeding quality, R = {result.metadata['trials']} seeds")
    ax.legend(fontsize="small")
    figure.tight_layout()
