"""Cross-validated comparisons of skcgm estimators with scikit-learn baselines.

A comparison is a data set, the estimators to run on it (ours and the
baseline a user would otherwise pick) and the held-out metrics to report. New
estimator families add their rows by appending :class:`Comparison` specs to
:data:`COMPARISONS`; the table's columns are the union of their metrics.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sklearn
from scipy.optimize import linear_sum_assignment
from sklearn.base import clone
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, make_blobs
from sklearn.linear_model import LinearRegression, LogisticRegression, SGDClassifier
from sklearn.metrics import adjusted_rand_score, log_loss
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils import _safe_indexing

from .._version import __version__
from ..cluster import SumOfMinKMeans
from ..cluster._gpca import GPCAClusterer
from ..datasets import (
    make_logistic_classification,
    make_mixed_linear_regression,
    make_union_of_subspaces,
)
from ..linear_model import (
    CompAdaGradClassifier,
    LocalSensitivityLogistic,
    MixedLinearRegressor,
)
from ._baselines import _MixedLinearEM, _SubsetModel, _UniformSubsetLogistic
from ._gpca_tables import best_matching_accuracy
from ._result import Column, ExperimentResult
from ._runner import TrialRunner


@dataclass(frozen=True)
class Candidate:
    """An estimator of a comparison.

    A named factory rather than an estimator, so that :func:`run_compare`
    builds it with the data set's number of groups and the run's seed, then
    clones it for every fold.

    Parameters
    ----------
    name : str
        Row label in the table.
    make : callable
        ``make(n_groups, random_state)`` returns an unfitted estimator;
        ``n_groups`` is the number of classes, clusters or components of the
        data set (:attr:`Comparison.n_groups`).

    See Also
    --------
    Comparison : A data set and the candidates run on it.
    run_compare : Cross-validates the candidates.

    Examples
    --------
    >>> from sklearn.cluster import KMeans
    >>> from skcgm.experiments import Candidate
    >>> candidate = Candidate(
    ...     "KMeans", lambda n_groups, random_state: KMeans(n_groups, random_state=0)
    ... )
    >>> candidate.make(3, 0)
    KMeans(n_clusters=3, random_state=0)
    """

    name: str
    make: Callable


@dataclass(frozen=True)
class Metric:
    """A held-out score of a comparison.

    The scorer follows scikit-learn's ``scorer(estimator, X, y)`` protocol;
    :func:`run_compare` reports its mean and standard deviation over the
    folds, and the table's caption quotes ``description``.

    Parameters
    ----------
    key : str
        Short name; the rows hold ``<key>_mean``, ``<key>_std`` and
        ``<key>_folds``.
    header : str
        Column header, with the unit.
    scorer : callable
        ``scorer(estimator, X_test, y_test)`` returns a float; a module-level
        function so that it pickles for ``n_jobs > 1``. With
        ``Comparison.on_fitted_labels`` it gets the training fold instead.
    description : str
        Its definition, for the table's caption.
    fmt : str, default=".3f"
        Number format in the table.
    show_std : bool, default=True
        Show ``mean ± std`` over folds rather than the mean alone.
    needs_truth : bool, default=False
        Call ``scorer(estimator, X_test, y_test, truth)`` with the ground
        truth that the data set's ``load`` returns third (e.g. the true
        coefficients of generated data).

    See Also
    --------
    Comparison : Lists the metrics of a data set.
    run_compare : Computes them fold by fold.

    Examples
    --------
    >>> from sklearn.cluster import KMeans
    >>> from sklearn.datasets import make_blobs
    >>> from skcgm.experiments import Metric
    >>> def n_iter(estimator, X, y):
    ...     return estimator.n_iter_
    >>> metric = Metric("n_iter", "iterations", n_iter, "Lloyd iterations", ".1f")
    >>> X, y = make_blobs(60, centers=[[-5, 0], [5, 0]], random_state=0)
    >>> metric.scorer(KMeans(2, random_state=0).fit(X), X, y)
    2
    """

    key: str
    header: str
    scorer: Callable
    description: str
    fmt: str = ".3f"
    show_std: bool = True
    needs_truth: bool = False


@dataclass(frozen=True)
class Comparison:
    """One data set and the estimators cross-validated on it.

    :func:`run_compare` runs every entry of :data:`COMPARISONS`: it loads the
    data once, fits each candidate on the same folds with the same seed,
    reports the metrics and the fit time, and divides fit times by the
    baseline's. New estimator families add rows by appending such specs.

    Parameters
    ----------
    dataset : str
        Name of the data set (``--datasets`` choice and row label).
    description : str
        Shape, classes and preprocessing, for ``--help`` and the metadata.
    load : callable
        ``load(random_state)`` returns ``(X, y)`` or ``(X, y, truth)``; ``y``
        holds the true classes (used for stratification and the metrics) or
        the regression targets, ``truth`` what metrics with ``needs_truth``
        compare the fit with.
    candidates : tuple of Candidate
        Estimators to run, ours first.
    baseline : str
        Name of the candidate that fit-time ratios divide by.
    metrics : tuple of Metric
        Scores to report.
    protocol : str, default=""
        How the estimators are set up, for the table's caption (shared text
        is printed once).
    cv : type, default=StratifiedKFold
        Splitter class, built as ``cv(n_splits, shuffle=True,
        random_state=random_state)``; :class:`~sklearn.model_selection.KFold`
        for regression targets.
    n_groups : int or None, default=None
        Number of clusters or components given to ``Candidate.make``; None
        means the number of distinct values of ``y``.
    on_fitted_labels : bool, default=False
        Score each fit on its own training fold (the metrics read
        ``labels_``) rather than on the held-out fold, for estimators without
        ``predict`` such as :class:`~sklearn.cluster.SpectralClustering`.

    See Also
    --------
    Candidate : An estimator of the comparison.
    Metric : A score of the comparison.
    run_compare : Runs the comparisons.

    Examples
    --------
    >>> from sklearn.cluster import KMeans
    >>> from sklearn.datasets import make_blobs
    >>> from skcgm.experiments import COMPARISONS, Candidate, Comparison, Metric
    >>> [comparison.dataset for comparison in COMPARISONS]
    ['iris', 'digits', 'blobs', 'mixed-lines', 'subspaces', 'digits-herding',
     'digits-compadagrad', 'breast-cancer', 'logistic']
    >>> def n_iter(estimator, X, y):
    ...     return estimator.n_iter_
    >>> kmeans = Candidate("KMeans", lambda k, seed: KMeans(k, random_state=seed))
    >>> spec = Comparison(
    ...     dataset="two-blobs",
    ...     description="make_blobs, 60 x 2, 2 centers",
    ...     load=lambda random_state: make_blobs(60, random_state=random_state),
    ...     candidates=(kmeans,),
    ...     baseline="KMeans",
    ...     metrics=(Metric("n_iter", "iterations", n_iter, "Lloyd iterations"),),
    ... )
    >>> spec.cv.__name__, spec.on_fitted_labels
    ('StratifiedKFold', False)
    """

    dataset: str
    description: str
    load: Callable
    candidates: tuple
    baseline: str
    metrics: tuple
    protocol: str = ""
    cv: type = StratifiedKFold
    n_groups: int | None = None
    on_fitted_labels: bool = False


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


def _component_predictions(estimator, X):
    """``(n_samples, n_components)`` predictions; one column for a plain model."""
    if hasattr(estimator, "predict_components"):
        return estimator.predict_components(X)
    return estimator.predict(X)[:, None]


def _held_out_oracle_residual(estimator, X, y):
    # The paper's test loss (section 5.2): the component is unobserved, the
    # best one is credited.
    residuals = y[:, None] - _component_predictions(estimator, X)
    return float((0.5 * residuals**2).min(axis=1).mean())


def _coef_error(estimator, X, y, truth):
    true_coef = truth["coef"]
    coef = np.atleast_2d(estimator.coef_)
    distances = np.linalg.norm(true_coef[:, None, :] - coef[None, :, :], axis=2)
    if coef.shape[0] >= true_coef.shape[0]:
        rows, cols = linear_sum_assignment(distances)
        return float(distances[rows, cols].mean())
    # Fewer components than the truth (one for LinearRegression): every true
    # component is matched with its nearest estimate.
    return float(distances.min(axis=1).mean())


def _fitted_accuracy(estimator, X, y):
    return best_matching_accuracy(y, estimator.labels_)


ORACLE_RESIDUAL = Metric(
    "oracle_residual",
    "oracle residual (held-out)",
    _held_out_oracle_residual,
    "oracle residual: mean over the held-out fold of min_j 1/2 (y - x coef_j - "
    "intercept_j)^2, the residual of the best component (LinearRegression has "
    "one; the noise floor is sigma^2/2 = 5e-05)",
    fmt=".2e",
)
COEF_ERROR = Metric(
    "coef_error",
    "coef. error",
    _coef_error,
    "coef. error: mean over the true components of ||coef_j - true coef||, "
    "estimated components matched one to one by the Hungarian algorithm "
    "(LinearRegression: its single coef against every true component)",
    fmt=".4f",
    needs_truth=True,
)
ACCURACY_FITTED = Metric(
    "accuracy",
    "accuracy (fitted labels)",
    _fitted_accuracy,
    "accuracy: share of the training fold's points whose fitted label "
    "(labels_) is right under the best matching of clusters to true "
    "subspaces",
)

MIXED_LINEAR = {"n_samples": 1000, "n_features": 8, "n_components": 3}
SUBSPACES = {"n_samples": 1000, "n_features": 5, "n_clusters": 3, "subspace_dim": 2}


def _load_mixed_linear(random_state):
    X, y, coef, labels = make_mixed_linear_regression(
        **MIXED_LINEAR, noise=0.01, random_state=random_state
    )
    return X, y, {"coef": coef, "labels": labels}


def _load_subspaces(random_state):
    X, labels, _ = make_union_of_subspaces(
        **SUBSPACES, noise=0.0, random_state=random_state
    )
    return X, labels


def _mixed_linear_regressor(n_components, random_state):
    return MixedLinearRegressor(n_components, random_state=random_state)


def _mixed_linear_regressor_unregularized(n_components, random_state):
    return MixedLinearRegressor(n_components, alpha=1e-6, random_state=random_state)


def _em(n_components, random_state):
    return _MixedLinearEM(n_components, random_state=random_state)


def _linear_regression(n_components, random_state):
    return LinearRegression()


def _gpca(n_clusters, random_state):
    return GPCAClusterer(
        n_clusters,
        subspace_dim=SUBSPACES["subspace_dim"],
        random_state=random_state,
    )


def _gpca_sum_of_product(n_clusters, random_state):
    return GPCAClusterer(
        n_clusters,
        subspace_dim=SUBSPACES["subspace_dim"],
        model="sum_of_product",
        random_state=random_state,
    )


def _spectral(n_clusters, random_state):
    return SpectralClustering(
        n_clusters, affinity="nearest_neighbors", random_state=random_state
    )


COMPARISONS += (
    Comparison(
        dataset="mixed-lines",
        description="make_mixed_linear_regression, "
        f"{MIXED_LINEAR['n_samples']} x {MIXED_LINEAR['n_features']}, "
        f"{MIXED_LINEAR['n_components']} components, noise=0.01, seeded by "
        "--random-state",
        load=_load_mixed_linear,
        candidates=(
            Candidate("MixedLinearRegressor", _mixed_linear_regressor),
            Candidate(
                "MixedLinearRegressor(alpha=1e-6)",
                _mixed_linear_regressor_unregularized,
            ),
            Candidate("EM", _em),
            Candidate("LinearRegression", _linear_regression),
        ),
        baseline="EM",
        metrics=(ORACLE_RESIDUAL, COEF_ERROR),
        protocol="Mixed linear regression: n_components = 3 (the truth); "
        "MixedLinearRegressor with its defaults (alpha=0.01, k-means++ seeding "
        "with gradient scores, one run), whose ridge term shrinks the "
        "coefficients by about 1/(1 + alpha) (hence a coef. error near 0.01 "
        "||coef||), and with alpha=1e-6; EM: skcgm.experiments._baselines, a "
        "Gaussian mixture of linear regressions from one random start (not from "
        "the paper); LinearRegression: one line.",
        cv=KFold,
        n_groups=MIXED_LINEAR["n_components"],
    ),
    Comparison(
        dataset="subspaces",
        description="make_union_of_subspaces, "
        f"{SUBSPACES['n_samples']} x {SUBSPACES['n_features']}, "
        f"{SUBSPACES['n_clusters']} planes through 0, no noise, seeded by "
        "--random-state",
        load=_load_subspaces,
        candidates=(
            Candidate("GPCAClusterer", _gpca),
            Candidate("GPCAClusterer(model='sum_of_product')", _gpca_sum_of_product),
            Candidate("KMeans", _kmeans),
            Candidate("SpectralClustering", _spectral),
        ),
        baseline="SpectralClustering",
        metrics=(ACCURACY_FITTED,),
        protocol="Union of subspaces: n_clusters = 3, GPCAClusterer(subspace_dim=2) "
        "one k-means++ run; SpectralClustering(affinity='nearest_neighbors'), which "
        "follows the planes (the default RBF affinity scores about 0.4 here). "
        "SpectralClustering has no predict, so every estimator is scored on the "
        "labels it fits on its training fold (4/5 of the points); the held-out "
        "fold is unused.",
        cv=KFold,
        on_fitted_labels=True,
    ),
)


def _reporting_folds(cv, X, y, progress, label):
    """The folds of ``cv``, reporting each as it is drawn.

    joblib draws the tasks lazily in the parent process, so the message comes
    when the fold is dispatched, whatever ``n_jobs`` is.
    """
    n_splits = cv.get_n_splits(X, y)
    for fold, (train, test) in enumerate(cv.split(X, y), start=1):
        progress(f"{label} fold {fold}/{n_splits}")
        yield train, test


def _fit_and_score(estimator, X, y, train, test, metrics, truth, on_fitted_labels):
    """Fit on ``train``; score on ``test``, or on ``train`` from ``labels_``."""
    X_train, y_train = _safe_indexing(X, train), _safe_indexing(y, train)
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_time = time.perf_counter() - start
    if on_fitted_labels:
        X_eval, y_eval = X_train, y_train
    else:
        X_eval, y_eval = _safe_indexing(X, test), _safe_indexing(y, test)
    scores = {
        m.key: m.scorer(estimator, X_eval, y_eval, truth)
        if m.needs_truth
        else m.scorer(estimator, X_eval, y_eval)
        for m in metrics
    }
    return scores, fit_time


def _splitter_text(cv, n_splits, random_state):
    return f"{n_splits}-fold {cv.__name__}(shuffle=True, random_state={random_state})"


_METADATA_KEYS = (
    "n_splits",
    "random_state",
    "n_jobs",
    "cpu_count",
    "wall_time_s",
    "datasets",
    "versions",
)


def run_compare(
    datasets=None, *, n_splits=5, random_state=0, n_jobs=None, progress=None
):
    """Cross-validate skcgm estimators against their scikit-learn baselines.

    Every candidate of a comparison is cloned, fitted on the training part of
    each fold and scored on its held-out part (or, with
    ``Comparison.on_fitted_labels``, on the labels it fitted), with the same
    folds and ``random_state`` for every candidate.

    Parameters
    ----------
    datasets : list of str or None, default=None
        Names of the comparisons to run (the ``dataset`` of an entry of
        :data:`COMPARISONS`); None runs all of them.
    n_splits : int, default=5
        Folds of the comparison's splitter (``StratifiedKFold(shuffle=True)``
        for classes, ``KFold(shuffle=True)`` for regression targets).
    random_state : int, default=0
        Seed of the folds, of the generated data and of every estimator.
    n_jobs : int or None, default=None
        Folds fitted in parallel through joblib. Fit times are cleanest with
        None (one at a time).
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
    comparisons = [by_name[name] for name in datasets]
    # The folds are the trials; every seed is random_state itself, so the
    # run's seed stream is not drawn from.
    run = TrialRunner((n_splits, n_splits), False, None, random_state, n_jobs, progress)

    rows = []
    for comparison in comparisons:
        X, y, *rest = comparison.load(random_state)
        truth = rest[0] if rest else None
        n_groups = comparison.n_groups or len(np.unique(y))
        cv = comparison.cv(n_splits, shuffle=True, random_state=random_state)
        dataset_rows = []
        for candidate in comparison.candidates:
            estimator = candidate.make(n_groups, random_state)
            label = f"{comparison.dataset}: {candidate.name}"
            folds = run.map(
                _fit_and_score,
                (
                    (
                        clone(estimator),
                        X,
                        y,
                        train,
                        test,
                        comparison.metrics,
                        truth,
                        comparison.on_fitted_labels,
                    )
                    for train, test in _reporting_folds(cv, X, y, run.report, label)
                ),
            )
            row = {
                "dataset": comparison.dataset,
                "estimator": candidate.name,
                "baseline": comparison.baseline,
                "n_samples": X.shape[0],
                "n_features": X.shape[1],
                "n_classes": n_groups,
            }
            for metric in comparison.metrics:
                _summarize(row, metric.key, [scores[metric.key] for scores, _ in folds])
            _summarize(row, "fit_time", [fit_time for _, fit_time in folds])
            dataset_rows.append(row)
        baseline_time = next(
            row["fit_time_mean"]
            for row in dataset_rows
            if row["estimator"] == comparison.baseline
        )
        for row in dataset_rows:
            row["fit_time_ratio"] = row["fit_time_mean"] / baseline_time
        rows.extend(dataset_rows)

    metrics = list({m.key: m for c in comparisons for m in c.metrics}.values())
    baselines = list(dict.fromkeys(c.baseline for c in comparisons))
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
    n_cores = run.cpu_count
    splitters = {}
    for c in comparisons:
        text = _splitter_text(c.cv, n_splits, random_state)
        splitters.setdefault(text, []).append(c.dataset)
    if len(splitters) == 1:
        folds_text = f"{next(iter(splitters))} on each data set"
    else:
        folds_text = "; ".join(
            f"{text} on {', '.join(names)}" for text, names in splitters.items()
        )
    protocols = [p for p in dict.fromkeys(c.protocol for c in comparisons) if p]
    caption = " ".join(
        [
            f"Table: {folds_text}, mean ± std over folds. "
            + "; ".join(m.description for m in metrics)
            + "; fit time: wall-clock seconds of one fit, mean over folds, and "
            f"its ratio to {', '.join(baselines)}.",
            *protocols,
            f"random_state={random_state}, n_jobs={n_jobs}, {n_cores} cores, "
            f"scikit-learn {sklearn.__version__}, skcgm {__version__}.",
        ]
    )
    # Not run.result: a comparison's metadata has no trials nor full size,
    # and keeps the order of its keys.
    metadata = run.metadata(
        n_splits=n_splits,
        n_jobs=n_jobs,
        datasets={c.dataset: c.description for c in comparisons},
    )
    metadata = {key: metadata[key] for key in _METADATA_KEYS}
    return ExperimentResult("compare", rows, columns, caption, metadata)


def _summarize(row, key, values):
    values = np.asarray(values, dtype=float)
    row[f"{key}_mean"] = float(values.mean())
    row[f"{key}_std"] = float(values.std())
    row[f"{key}_folds"] = values.tolist()


def plot_compare(result, figure, metric=None):
    """Grouped bars of a metric per data set, one bar per estimator.

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_compare`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    metric : str or None, default=None
        Key of the metric; error bars show its std over folds. None draws
        one panel per metric shown with its std in the table (ARI for the
        clustering data sets, the regression errors, the subspace accuracy).
    """
    if metric is None:
        metrics = [
            column.key.removesuffix("_mean")
            for column in result.columns
            if column.std_key is not None
        ]
    else:
        metrics = [metric]
    if len(metrics) > 1:
        # One row per metric, legends on the right.
        figure.set_size_inches(9.0, 2.8 * len(metrics))
    axes = figure.subplots(len(metrics), 1, squeeze=False)[:, 0]
    for ax, key in zip(axes, metrics):
        _plot_metric(ax, result, key)
    axes[0].set_title(f"mean ± std over {result.metadata['n_splits']} folds")
    figure.tight_layout()


def _plot_metric(ax, result, metric):
    rows = [row for row in result.rows if f"{metric}_mean" in row]
    datasets = list(dict.fromkeys(row["dataset"] for row in rows))
    estimators = list(dict.fromkeys(row["estimator"] for row in rows))
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
    column = next((c for c in result.columns if c.key == f"{metric}_mean"), None)
    values = np.array([row[f"{metric}_mean"] for row in rows])
    # Errors spanning decades (the regression rows) read on a log scale.
    if values.min() > 0 and values.max() > 100 * values.min():
        ax.set_yscale("log")
    ax.set_xticks(range(len(datasets)), datasets)
    ax.set_ylabel(column.header if column is not None else metric, fontsize="small")
    ax.legend(fontsize="x-small", loc="center left", bbox_to_anchor=(1.01, 0.5))


HERDING_SUBSET = 100


def _svc_on(subset):
    def make(n_classes, random_state):
        return _SubsetModel(
            SVC(kernel="rbf"),
            subset=subset,
            n_samples=HERDING_SUBSET,
            random_state=random_state,
        )

    return make


def _held_out_accuracy(estimator, X, y):
    return estimator.score(X, y)


def _training_points(estimator, X, y):
    return estimator.n_fit_samples_


ACCURACY = Metric(
    "test_accuracy",
    "accuracy (held-out)",
    _held_out_accuracy,
    "accuracy: share of the held-out fold classified right",
)
TRAINING_POINTS = Metric(
    "n_fit",
    "points trained on",
    _training_points,
    "points trained on: size of the subset the model was fitted on",
    fmt=".0f",
    show_std=False,
)

COMPARISONS += (
    Comparison(
        dataset="digits-herding",
        description="load_digits, 1797 x 64, 10 classes, unscaled; SVC(rbf) "
        f"trained on {HERDING_SUBSET} points or all",
        load=_load_digits,
        candidates=(
            Candidate(
                f"SVC on herding subset (m={HERDING_SUBSET})", _svc_on("herding")
            ),
            Candidate(f"SVC on random subset (m={HERDING_SUBSET})", _svc_on("random")),
            Candidate("SVC on all training points", _svc_on("all")),
        ),
        baseline="SVC on all training points",
        metrics=(ACCURACY, TRAINING_POINTS),
        protocol="Herding subsets: SVC(kernel='rbf', C=1) trained, unweighted, on "
        f"{HERDING_SUBSET} points of the training fold chosen by "
        "KernelHerdingSampler(per_class=True, feature_map='exact', maxip='exact') "
        "with the RBF kernel of the SVC, on as many points drawn uniformly "
        "(stratified by class), or on the whole fold; gamma = 1 / (64 X.var()) "
        "of the fold (scikit-learn's 'scale') for the SVC and herding; fit time "
        "includes the subset selection.",
    ),
)


# CompAdaGrad against the SGD a user would otherwise pick, with the same loss
# and penalty. A step costs O(n k + n log n + k^3) whatever the batch size, so
# mini-batches amortize it; k = 16 is a proper subspace of both data sets
# (64 and 30 -> 32 padded features; the default k = 32 would be full-matrix
# AdaGrad on the 30 features of breast cancer). The other options are both
# estimators' defaults.
COMPADAGRAD_BATCH_SIZE = 64
COMPADAGRAD_N_COMPONENTS = 16


def _compadagrad(n_classes, random_state):
    return make_pipeline(
        StandardScaler(),
        CompAdaGradClassifier(
            n_components=COMPADAGRAD_N_COMPONENTS,
            batch_size=COMPADAGRAD_BATCH_SIZE,
            random_state=random_state,
        ),
    )


def _diagonal_adagrad(n_classes, random_state):
    return make_pipeline(
        StandardScaler(),
        CompAdaGradClassifier(
            n_components=0,
            batch_size=COMPADAGRAD_BATCH_SIZE,
            random_state=random_state,
        ),
    )


def _sgd_hinge(n_classes, random_state):
    return make_pipeline(
        StandardScaler(),
        SGDClassifier(loss="hinge", penalty="l2", random_state=random_state),
    )


def _load_breast_cancer(random_state):
    return load_breast_cancer(return_X_y=True)


COMPADAGRAD_CANDIDATES = (
    Candidate(
        f"CompAdaGradClassifier(n_components={COMPADAGRAD_N_COMPONENTS})",
        _compadagrad,
    ),
    Candidate("CompAdaGradClassifier(n_components=0)", _diagonal_adagrad),
    Candidate("SGDClassifier", _sgd_hinge),
)
COMPADAGRAD_PROTOCOL = (
    "Linear classifiers: StandardScaler, then loss='hinge', penalty='l2', "
    "alpha=1e-4 (both estimators' defaults); CompAdaGradClassifier with "
    f"n_components={COMPADAGRAD_N_COMPONENTS} (n_components=0: diagonal "
    f"AdaGrad), batch_size={COMPADAGRAD_BATCH_SIZE} and its defaults "
    "(eta0=0.1, delta=1e-2, variant='paper'); SGDClassifier with its "
    "defaults (learning_rate='optimal', one sample per step); both stop "
    "when the training loss has not improved by tol=1e-3 for 5 epochs; "
    "one-vs-rest on digits."
)

COMPARISONS += (
    Comparison(
        dataset="digits-compadagrad",
        description="load_digits, 1797 x 64, 10 classes, standardized; "
        "hinge + l2 linear classifiers",
        load=_load_digits,
        candidates=COMPADAGRAD_CANDIDATES,
        baseline="SGDClassifier",
        metrics=(ACCURACY,),
        protocol=COMPADAGRAD_PROTOCOL,
    ),
    Comparison(
        dataset="breast-cancer",
        description="load_breast_cancer, 569 x 30, 2 classes, standardized; "
        "hinge + l2 linear classifiers",
        load=_load_breast_cancer,
        candidates=COMPADAGRAD_CANDIDATES,
        baseline="SGDClassifier",
        metrics=(ACCURACY,),
        protocol=COMPADAGRAD_PROTOCOL,
    ),
)


# LocalSensitivityLogistic against LogisticRegression, fitted on all the data
# and on a uniform subsample of one round's size: 1% of the training rows per
# round, the small sample setting of the benchmark, on generated
# logistic data large enough for a subsample to be worth drawing.
LOGISTIC_DATA = {"n_samples": 20_000, "n_features": 20}
LOGISTIC_SAMPLE_SIZE = 0.01


def _held_out_log_loss(estimator, X, y):
    return log_loss(y, estimator.predict_proba(X), labels=estimator.classes_)


LOG_LOSS = Metric(
    "log_loss",
    "log-loss (held-out)",
    _held_out_log_loss,
    "log-loss: mean negative log-likelihood of the held-out labels",
    fmt=".4f",
)


def _load_logistic(random_state):
    X, y, coef = make_logistic_classification(
        **LOGISTIC_DATA, random_state=random_state
    )
    return X, y


def _local_sensitivity_logistic(sampling):
    def make(n_classes, random_state):
        return LocalSensitivityLogistic(
            sample_size=LOGISTIC_SAMPLE_SIZE,
            sampling=sampling,
            random_state=random_state,
        )

    return make


def _logistic_subset(n_classes, random_state):
    return _UniformSubsetLogistic(
        sample_size=LOGISTIC_SAMPLE_SIZE, random_state=random_state
    )


def _logistic_all(n_classes, random_state):
    return LogisticRegression()


COMPARISONS += (
    Comparison(
        dataset="logistic",
        description="make_logistic_classification, "
        f"{LOGISTIC_DATA['n_samples']} x {LOGISTIC_DATA['n_features']}, labels "
        "drawn from a logistic model (margin std 2, intercept 0.5), seeded by "
        "--random-state",
        load=_load_logistic,
        candidates=(
            Candidate(
                f"LocalSensitivityLogistic(sample_size={LOGISTIC_SAMPLE_SIZE})",
                _local_sensitivity_logistic("local_sensitivity"),
            ),
            Candidate(
                "LocalSensitivityLogistic(sampling='uniform')",
                _local_sensitivity_logistic("uniform"),
            ),
            Candidate(
                f"LogisticRegression on a {LOGISTIC_SAMPLE_SIZE:.0%} uniform subsample",
                _logistic_subset,
            ),
            Candidate("LogisticRegression", _logistic_all),
        ),
        baseline="LogisticRegression",
        metrics=(LOG_LOSS, ACCURACY),
        protocol="Logistic regression, C=1 for every estimator (the objective of "
        "LogisticRegression): LocalSensitivityLogistic with sample_size="
        f"{LOGISTIC_SAMPLE_SIZE} (1% of the training rows drawn per round), by "
        "local sensitivity and, through the same loop, uniformly, other "
        "options at their defaults; every round evaluates the gradient on all "
        "the training rows, only the inner solver touches the sample. "
        "LogisticRegression (lbfgs, defaults) on a uniform subsample of one "
        "round's size, drawn without replacement, and on all the training rows.",
    ),
)
