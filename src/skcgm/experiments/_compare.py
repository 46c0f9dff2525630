"""Cross-validated comparisons of skcgm estimators with scikit-learn baselines.

A comparison is a data set, the estimators to run on it (ours and the
baseline a user would otherwise pick) and the held-out metrics to report. New
estimator families add their rows by appending :class:`Comparison` specs to
:data:`COMPARISONS`; the table's columns are the union of their metrics.
"""

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sklearn
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits, load_iris, make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.model_selection import StratifiedKFold, cross_validate

from .._version import __version__
from ..cluster import SumOfMinKMeans
from ._result import Column, ExperimentResult, _versions


@dataclass(frozen=True)
class Candidate:
    """An estimator of a comparison.

    Parameters
    ----------
    name : str
        Row label in the table.
    make : callable
        ``make(n_classes, random_state)`` returns an unfitted estimator.
    """

    name: str
    make: Callable


@dataclass(frozen=True)
class Metric:
    """A held-out score of a comparison.

    Parameters
    ----------
    key : str
        Short name; the rows hold ``<key>_mean``, ``<key>_std`` and
        ``<key>_folds``.
    header : str
        Column header, with the unit.
    scorer : callable
        ``scorer(estimator, X_test, y_test)`` returns a float; a module-level
        function so that it pickles for ``n_jobs > 1``.
    description : str
        Its definition, for the table's caption.
    fmt : str, default=".3f"
        Number format in the table.
    show_std : bool, default=True
        Show ``mean ± std`` over folds rather than the mean alone.
    """

    key: str
    header: str
    scorer: Callable
    description: str
    fmt: str = ".3f"
    show_std: bool = True


@dataclass(frozen=True)
class Comparison:
    """One data set and the estimators cross-validated on it.

    Parameters
    ----------
    dataset : str
        Name of the data set (``--datasets`` choice and row label).
    description : str
        Shape, classes and preprocessing, for ``--help`` and the metadata.
    load : callable
        ``load(random_state)`` returns ``(X, y)``; ``y`` holds the true
        classes used for stratification and the metrics.
    candidates : tuple of Candidate
        Estimators to run, ours first.
    baseline : str
        Name of the candidate that fit-time ratios divide by.
    metrics : tuple of Metric
        Held-out scores to report.
    protocol : str, default=""
        How the estimators are set up, for the table's caption (shared text
        is printed once).
    """

    dataset: str
    description: str
    load: Callable
    candidates: tuple
    baseline: str
    metrics: tuple
    protocol: str = ""


def _held_out_ari(estimator, X, y):
    return adjusted_rand_score(y, estimator.predict(X))


def _held_out_inertia(estimator, X, y):
    # Both KMeans.score and SumOfMinKMeans.score are minus the inertia.
    return -estimator.score(X)


ARI = Metric(
    "ari",
    "ARI (held-out)",
    _held_out_ari,
    "ARI: adjusted Rand index of predict on the held-out fold against the true classes",
)
INERTIA = Metric(
    "inertia",
    "inertia (held-out, sum sq. dist.)",
    _held_out_inertia,
    "inertia: sum of squared Euclidean distances of the held-out fold to its "
    "nearest center (= -score), mean over folds",
    fmt=",.1f",
    show_std=False,
)


def _sum_of_min_kmeans(n_classes, random_state):
    return SumOfMinKMeans(n_clusters=n_classes, random_state=random_state)


def _sum_of_min_kmeans_momentum(n_classes, random_state):
    return SumOfMinKMeans(
        n_clusters=n_classes, solver="momentum", random_state=random_state
    )


def _kmeans(n_classes, random_state):
    # n_init=1 as SumOfMinKMeans' n_init='auto' with k-means++: one seeding
    # and one Lloyd run each, from the same random_state.
    return KMeans(n_clusters=n_classes, n_init=1, random_state=random_state)


CLUSTERING_CANDIDATES = (
    Candidate("SumOfMinKMeans", _sum_of_min_kmeans),
    Candidate("SumOfMinKMeans(solver='momentum')", _sum_of_min_kmeans_momentum),
    Candidate("KMeans", _kmeans),
)


def _load_iris(random_state):
    return load_iris(return_X_y=True)


def _load_digits(random_state):
    return load_digits(return_X_y=True)


def _load_blobs(random_state):
    return make_blobs(
        n_samples=3000, n_features=10, centers=5, random_state=random_state
    )


def _clustering(dataset, description, load):
    return Comparison(
        dataset=dataset,
        description=description,
        load=load,
        candidates=CLUSTERING_CANDIDATES,
        baseline="KMeans",
        metrics=(ARI, INERTIA),
        protocol="Clustering: n_clusters = number of classes, n_init=1 and the "
        "same random_state for every estimator (KMeans' k-means++ keeps the best "
        "of 2 + ln k candidates per center, SumOfMinKMeans' Algorithm 1 draws "
        "one); features unscaled.",
    )


# Features are left unscaled: iris is in centimeters throughout and digits in
# pixel intensities, so Euclidean distances are already meaningful, and
# standardizing digits would inflate nearly constant border pixels.
COMPARISONS = (
    _clustering("iris", "load_iris, 150 x 4, 3 classes, unscaled (cm)", _load_iris),
    _clustering(
        "digits",
        "load_digits, 1797 x 64, 10 classes, unscaled (intensities 0-16)",
        _load_digits,
    ),
    _clustering(
        "blobs",
        "make_blobs, 3000 x 10, 5 centers, cluster_std=1, seeded by --random-state",
        _load_blobs,
    ),
)


class _ReportingSplitter:
    """A splitter that reports each fold as cross_validate dispatches it.

    ``cross_validate`` draws the splits lazily, so the message comes when the
    fold starts, in the parent process, whatever ``n_jobs`` is.
    """

    def __init__(self, cv, progress, label):
        self.cv = cv
        self.progress = progress
        self.label = label

    def get_n_splits(self, X=None, y=None, groups=None):
        return self.cv.get_n_splits(X, y, groups)

    def split(self, X, y=None, groups=None):
        n_splits = self.get_n_splits(X, y, groups)
        for fold, (train, test) in enumerate(self.cv.split(X, y, groups), start=1):
            self.progress(f"{self.label} fold {fold}/{n_splits}")
            yield train, test


def run_compare(
    datasets=None, *, n_splits=5, random_state=0, n_jobs=None, progress=None
):
    """Cross-validate skcgm estimators against their scikit-learn baselines.

    Parameters
    ----------
    datasets : list of str or None, default=None
        Names of the comparisons to run (the ``dataset`` of an entry of
        :data:`COMPARISONS`); None runs all of them.
    n_splits : int, default=5
        Folds of ``StratifiedKFold(shuffle=True)``.
    random_state : int, default=0
        Seed of the folds, of the generated data and of every estimator.
    n_jobs : int or None, default=None
        Folds fitted in parallel by :func:`sklearn.model_selection.cross_validate`.
        Fit times are cleanest with None (one at a time).
    progress : callable or None, default=None
        Called with a one-line message as each fold starts.

    Returns
    -------
    result : ExperimentResult
        One row per (data set, estimator) with ``<metric>_mean``,
        ``<metric>_std``, ``<metric>_folds``, ``fit_time_mean`` (s),
        ``fit_time_std``, ``fit_time_folds`` and ``fit_time_ratio`` (over the
        baseline's mean fit time).
    """
    by_name = {c.dataset: c for c in COMPARISONS}
    if datasets is None:
        datasets = list(by_name)
    unknown = sorted(set(datasets) - set(by_name))
    if unknown:
        raise ValueError(f"Unknown datasets {unknown}; choose among {sorted(by_name)}.")
    report = progress if progress is not None else (lambda message: None)
    comparisons = [by_name[name] for name in datasets]
    cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)

    start = time.perf_counter()
    rows = []
    for comparison in comparisons:
        X, y = comparison.load(random_state)
        n_classes = len(np.unique(y))
        scoring = {m.key: m.scorer for m in comparison.metrics}
        dataset_rows = []
        for candidate in comparison.candidates:
            scores = cross_validate(
                candidate.make(n_classes, random_state),
                X,
                y,
                cv=_ReportingSplitter(
                    cv, report, f"{comparison.dataset}: {candidate.name}"
                ),
                scoring=scoring,
                n_jobs=n_jobs,
                error_score="raise",
            )
            row = {
                "dataset": comparison.dataset,
                "estimator": candidate.name,
                "baseline": comparison.baseline,
                "n_samples": X.shape[0],
                "n_features": X.shape[1],
                "n_classes": n_classes,
            }
            for metric in comparison.metrics:
                _summarize(row, metric.key, scores[f"test_{metric.key}"])
            _summarize(row, "fit_time", scores["fit_time"])
            dataset_rows.append(row)
        baseline_time = next(
            row["fit_time_mean"]
            for row in dataset_rows
            if row["estimator"] == comparison.baseline
        )
        for row in dataset_rows:
            row["fit_time_ratio"] = row["fit_time_mean"] / baseline_time
        rows.extend(dataset_rows)
    wall_time = time.perf_counter() - start

    metrics = list({m.key: m for c in comparisons for m in c.metrics}.values())
    baselines = sorted({c.baseline for c in comparisons})
    ratio_of = baselines[0] if len(baselines) == 1 else "baseline"
    columns = [
        Column("dataset", "dataset", group=True),
        Column("estimator", "estimator"),
        *(
            Column(
                f"{m.key}_mean", m.header, m.fmt, f"{m.key}_std" if m.show_std else None
            )
            for m in metrics
        ),
        Column("fit_time_mean", "fit time (s)", ".4f"),
        Column("fit_time_ratio", f"fit time / {ratio_of}", ".2f"),
    ]
    n_cores = os.cpu_count()
    protocols = [p for p in dict.fromkeys(c.protocol for c in comparisons) if p]
    caption = " ".join(
        [
            f"Table: {n_splits}-fold StratifiedKFold(shuffle=True, "
            f"random_state={random_state}) on each data set, mean ± std over "
            "folds. "
            + "; ".join(m.description for m in metrics)
            + "; fit time: wall-clock seconds of one fit, mean over folds, and "
            f"its ratio to {', '.join(baselines)}.",
            *protocols,
            f"random_state={random_state}, n_jobs={n_jobs}, {n_cores} cores, "
            f"scikit-learn {sklearn.__version__}, skcgm {__version__}.",
        ]
    )
    metadata = {
        "n_splits": n_splits,
        "random_state": random_state,
        "n_jobs": n_jobs,
        "cpu_count": n_cores,
        "wall_time_s": wall_time,
        "datasets": {c.dataset: c.description for c in comparisons},
        "versions": _versions(),
    }
    return ExperimentResult("compare", rows, columns, caption, metadata)


def _summarize(row, key, values):
    values = np.asarray(values, dtype=float)
    row[f"{key}_mean"] = float(values.mean())
    row[f"{key}_std"] = float(values.std())
    row[f"{key}_folds"] = values.tolist()


def plot_compare(result, figure, metric="ari"):
    """Grouped bars of one metric per data set, one bar per estimator.

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_compare`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    metric : str, default="ari"
        Key of the metric; error bars show its std over folds.
    """
    rows = [row for row in result.rows if f"{metric}_mean" in row]
    datasets = list(dict.fromkeys(row["dataset"] for row in rows))
    estimators = list(dict.fromkeys(row["estimator"] for row in rows))
    ax = figure.subplots()
    width = 0.8 / len(estimators)
    for i, estimator in enumerate(estimators):
        by_dataset = {r["dataset"]: r for r in rows if r["estimator"] == estimator}
        positions = [
            d + (i - (len(estimators) - 1) / 2) * width
            for d, name in enumerate(datasets)
            if name in by_dataset
        ]
        present = [by_dataset[name] for name in datasets if name in by_dataset]
        ax.bar(
            positions,
            [r[f"{metric}_mean"] for r in present],
            width,
            yerr=[r[f"{metric}_std"] for r in present],
            capsize=3,
            label=estimator,
        )
    ax.set_xticks(range(len(datasets)), datasets)
    ax.set_ylabel(
        next((c.header for c in result.columns if c.key == f"{metric}_mean"), metric)
    )
    ax.set_title(f"mean ± std over {result.metadata['n_splits']} folds")
    ax.legend(fontsize="small")
    figure.tight_layout()
