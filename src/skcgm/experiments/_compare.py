"""Cross-validated comparisons of skcgm estimators with scikit-learn baselines.

A comparison is a data set, the estimators to run on it (ours and the
baseline a user would otherwise pick) and the held-out metrics to report. New
estimator families add their rows by appending :class:`Comparison` specs to
:data:`COMPARISONS`; the table's columns are the union of their metrics.
"""

import math
import numbers
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from operator import itemgetter

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.base import clone
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_iris,
    make_blobs,
    make_classification,
)
from sklearn.linear_model import LinearRegression, LogisticRegression, SGDClassifier
from sklearn.metrics import adjusted_rand_score, log_loss
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils import _safe_indexing, check_random_state

from ..cluster import GPCAClusterer, SumOfMinKMeans
from ..datasets import (
    make_correlated_classification,
    make_logistic_classification,
    make_mixed_linear_regression,
    make_mixed_mlp_regression,
    make_union_of_subspaces,
)
from ..linear_model import (
    CompAdaGradClassifier,
    LocalSensitivityLogistic,
    MixedLinearRegressor,
)
from ..neural_network import MixedMLPRegressor
from ..utils._random import MAX_SEED
from ._baselines import _MixedLinearEM, _SubsetModel, _UniformSubsetLogistic
from ._gpca_tables import best_matching_accuracy
from ._online import N_FEATURES, SPECS, _comparator, _run_learner
from ._result import Column, ExperimentResult, _blocks_by_columns, format_table
from ._runner import TrialRunner
from ._verdicts import TIME_TOLERANCE, Claim, ratio_text, verdict


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
    ours : bool, default=False
        An skcgm estimator or a setting of one; the verdict sets the first
        candidate against the best of the others (the competitors, the
        paper's own baseline among them).

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
    ours: bool = False


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
        ``scorer(estimator, X_test, y_test)`` returns a float; a lambda will
        do, joblib sends it to the workers of ``n_jobs > 1`` with cloudpickle.
        With ``Comparison.on_fitted_labels`` it gets the training fold
        instead.
    description : str
        What the header does not say (its definition), for the table's
        caption; empty when the header says it all.
    fmt : str, default=".3f"
        Number format in the table.
    show_std : bool, default=True
        Show ``mean ± std`` over folds rather than the mean alone.
    needs_truth : bool, default=False
        Call ``scorer(estimator, X_test, y_test, truth)`` with the ground
        truth that the data set's ``load`` returns third (e.g. the true
        coefficients of generated data).
    greater_is_better : bool, default=True
        Whether a higher score is better (as in
        :func:`~sklearn.metrics.make_scorer`); the verdict under a table
        reads the first metric of a comparison this way.

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
    greater_is_better: bool = True


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
        The data recipe, for ``--help`` and the metadata.
    load : callable
        ``load(random_state)`` returns ``(X, y)`` or ``(X, y, truth, ...)``
        (the return value of the data set generators); ``y`` holds the true
        classes (used for stratification and the metrics) or the regression
        targets, ``truth`` what metrics with ``needs_truth`` compare the fit
        with; further values are ignored.
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
    family : str, default=""
        Title of the table the rows go to: comparisons of one family (the
        k-means data sets) share a table, whose ratio column names the
        baseline. Empty: a table of its own, titled by ``dataset``.
    claim : Claim or None, default=None
        The paper's axis that the verdict tests; None compares the first
        metric at the default tolerance.

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
    ['iris', 'digits', 'blobs', 'mixed-lines', 'mixed-mlp', 'subspaces',
     'digits-herding', 'mixture-herding', 'digits-compadagrad', 'breast-cancer',
     'correlated', 'logistic', 'online-nqp']
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
    family: str = ""
    claim: Claim | None = None

    def evaluate(self, run, n_splits, random_state):
        """Cross-validate every candidate; one row of fold scores each.

        Parameters
        ----------
        run : TrialRunner
            Maps the folds onto its workers.
        n_splits : int
            Folds of :attr:`cv`.
        random_state : int
            Seed of the data, the folds and every estimator.

        Returns
        -------
        rows : list of dict
            Per candidate, ``<metric>_folds`` and ``fit_time_folds``.
        timers : list of callable
            Per candidate, a fresh fit of the first training fold, returning
            its time (s).
        """
        X, y, *truth = self.load(random_state)
        args = (X, y, self.metrics, truth[:1])
        cv = self.cv(n_splits, shuffle=True, random_state=random_state)
        # Estimators without predict are scored on the labels of their fit.
        splits = [(t, t if self.on_fitted_labels else s) for t, s in cv.split(X, y)]
        k = self.n_groups or len(np.unique(y))
        first = [_safe_indexing(data, splits[0][0]) for data in (X, y)]
        rows, timers = [], []
        for candidate in self.candidates:
            estimator = candidate.make(k, random_state)
            tasks = [(clone(estimator), fit, scored, *args) for fit, scored in splits]
            folds = run.map(_fit_and_score, tasks)
            rows.append(
                {
                    "estimator": candidate.name,
                    "n_samples": X.shape[0],
                    "n_features": X.shape[1],
                    "n_classes": k,
                    **{f"{key}_folds": [f[key] for f in folds] for key in folds[0]},
                }
            )
            timers.append(partial(_timed_fit, estimator, *first))
        return rows, timers


@dataclass(frozen=True)
class OnlineComparison(Comparison):
    """Online learners played on seeded streams instead of folds.

    Each of the ``n_splits`` trials draws a stream of
    :func:`~skcgm.datasets.make_online_nqp` (the NQP of ``reproduce pobga``)
    at :attr:`horizon`, its comparator (continuous greedy on the sum of the
    stream) and one seed for the gradient noise and the learner; every
    candidate, a learner named as in ``reproduce pobga``, plays the same
    streams. A metric's scorer reads the trial's outcome, a dict with
    ``horizon``, ``regret1``, ``n_lmo_calls`` and ``wall_time`` (the fit
    time).

    Parameters
    ----------
    dataset : str
        Name of the comparison.
    description : str
        The stream's recipe.
    load : None
        Unused: the streams are drawn from the trial seeds.
    candidates : tuple of Candidate
        Learners, named as in ``reproduce pobga``; ours first.
    baseline : str
        Name of the candidate that fit-time ratios divide by.
    metrics : tuple of Metric
        Scores of a trial, ``scorer(trial)``.
    protocol : str, default=""
        The set-up, for the protocol.
    cv : None, default=None
        Unused (no folds).
    n_groups : None, default=None
        Unused.
    on_fitted_labels : bool, default=False
        Unused.
    family : str, default=""
        Title of the table, as for :class:`Comparison`.
    claim : Claim or None, default=None
        The paper's axis that the verdict tests, as for :class:`Comparison`.
    horizon : int, default=200
        Rounds :math:`T` of every stream.

    See Also
    --------
    Comparison : The cross-validated comparisons.
    skcgm.experiments.run_pobga : The regret rates over horizons.

    Examples
    --------
    >>> from skcgm.experiments import COMPARISONS
    >>> [c.horizon for c in COMPARISONS if c.cv is None]
    [100]
    """

    horizon: int = 200

    def evaluate(self, run, n_splits, random_state):
        """Play every candidate on ``n_splits`` streams; one row each.

        Parameters
        ----------
        run : TrialRunner
            Maps the trials onto its workers.
        n_splits : int
            Number of streams.
        random_state : int
            Seed of the streams, their gradient noise and the learners.

        Returns
        -------
        rows : list of dict
            Per learner, ``<metric>_folds`` and ``fit_time_folds`` (its time).
        timers : list of callable
            Per learner, a fresh play of the first stream, returning its time
            (s).
        """
        seeds = check_random_state(random_state).randint(MAX_SEED, size=(n_splits, 3))
        comparators = run.map(_comparator, [(self.horizon, s[0]) for s in seeds])
        streams = list(zip(seeds, comparators))
        rows, timers = [], []
        for candidate in self.candidates:
            tasks = [(candidate.name, self.horizon, *task) for task in streams]
            timers.append(partial(_timed_play, *tasks[0]))
            played = run.map(_run_learner, tasks)
            trials = [{**trial, "horizon": self.horizon} for trial in played]
            scores = {m.key: [m.scorer(t) for t in trials] for m in self.metrics}
            rows.append(
                {
                    "estimator": candidate.name,
                    "n_samples": self.horizon,
                    "n_features": N_FEATURES,
                    "n_classes": None,
                    **{f"{key}_folds": values for key, values in scores.items()},
                    "fit_time_folds": [t["wall_time"] for t in trials],
                }
            )
        return rows, timers


def _fixed(load):
    """``Comparison.load`` of a scikit-learn data set, which ignores the seed."""
    return lambda random_state: load(return_X_y=True)


def _generated(make, **params):
    """``Comparison.load`` of ``make(**params, random_state=random_state)``."""
    return lambda random_state: make(**params, random_state=random_state)


def _grouped(name, cls, ours=False, **params):
    """A :class:`Candidate` building ``cls(n_groups, **params)``, seeded by the run."""
    return Candidate(name, lambda k, seed: cls(k, **params, random_state=seed), ours)


def _seeded(name, cls, ours=False, **params):
    """A :class:`Candidate` building ``cls(**params)``, seeded by the run."""
    return Candidate(name, lambda k, seed: cls(**params, random_state=seed), ours)


def _standardized(cls):
    """``cls`` behind a :class:`~sklearn.preprocessing.StandardScaler`."""
    return lambda **params: make_pipeline(StandardScaler(), cls(**params))


def _oracle_residual(estimator, X, y):
    # The paper's test loss (section 5.2): the component is unobserved, the
    # best one is credited; a plain model has one component. For the mixed
    # regressors it is their min_loss (without sample weights).
    components = getattr(estimator, "predict_components", None)
    predictions = components(X) if components else estimator.predict(X)[:, None]
    return float((0.5 * (y[:, None] - predictions) ** 2).min(axis=1).mean())


def _coef_error(estimator, X, y, true_coef):
    coef = np.atleast_2d(estimator.coef_)
    distances = np.linalg.norm(true_coef[:, None, :] - coef[None, :, :], axis=2)
    if coef.shape[0] < true_coef.shape[0]:
        # Fewer components than the truth (one for LinearRegression): every
        # true component is matched with its nearest estimate.
        return float(distances.min(axis=1).mean())
    rows, cols = linear_sum_assignment(distances)
    return float(distances[rows, cols].mean())


def _ari(estimator, X, y):
    return adjusted_rand_score(y, estimator.predict(X))


def _inertia(estimator, X, y):
    # Both KMeans.score and SumOfMinKMeans.score are minus the inertia.
    return -estimator.score(X)


def _n_fit_samples(estimator, X, y):
    return estimator.n_fit_samples_


def _log_loss(estimator, X, y):
    return log_loss(y, estimator.predict_proba(X), labels=estimator.classes_)


# The descriptions say what the headers do not.
ARI = Metric("ari", "ARI (held-out)", _ari, "")
INERTIA = Metric(
    "inertia",
    "inertia (held-out, sum sq. dist.)",
    _inertia,
    "",
    ",.1f",
    show_std=False,
    greater_is_better=False,
)
ORACLE_RESIDUAL = Metric(
    "oracle_residual",
    "oracle residual (held-out)",
    _oracle_residual,
    "oracle residual: mean of min_j (y - psi_j(x))^2 / 2 over the fitted components "
    "psi_j (the mixed regressors' min_loss; a single model has one component)",
    ".2e",
    greater_is_better=False,
)
COEF_ERROR = Metric(
    "coef_error",
    "coef. error",
    _coef_error,
    "coef. error: mean ||coef_j - true coef_j|| over components matched by the "
    "Hungarian algorithm (LinearRegression: to each true one)",
    ".4f",
    needs_truth=True,
    greater_is_better=False,
)
ACCURACY_FITTED = Metric(
    "accuracy",
    "accuracy (fitted labels)",
    lambda est, X, y: best_matching_accuracy(y, est.labels_),
    "fitted labels: labels_ on the training fold, clusters best matched to classes",
)
ACCURACY = Metric(
    "test_accuracy", "accuracy (held-out)", lambda est, X, y: est.score(X, y), ""
)
TRAINING_POINTS = Metric(
    "n_fit", "points trained on", _n_fit_samples, "", ".0f", show_std=False
)
LOG_LOSS = Metric(
    "log_loss", "log-loss (held-out)", _log_loss, "", ".4f", greater_is_better=False
)

# Rounds of the online streams: three learners by five streams, and their
# timed repeats, in about ten seconds.
ONLINE_HORIZON = 100
REGRET_PER_ROUND = Metric(
    "regret1_per_round",
    "1-regret / T",
    lambda trial: trial["regret1"] / trial["horizon"],
    "1-regret / T: (sum_t f_t(x*) - sum_t f_t(x_t)) / T against continuous greedy",
    ".4f",
    greater_is_better=False,
)
LMO_CALLS = Metric(
    "n_lmo_calls", "LMO calls", itemgetter("n_lmo_calls"), "", ".0f", show_std=False
)
PROJECTIONS = Metric(
    "n_projections",
    "projections",
    itemgetter("n_projections"),
    "",
    ".0f",
    show_std=False,
)

# n_init=1 as SumOfMinKMeans' n_init='auto' with k-means++: one seeding and one
# Lloyd run each, from the same random_state (KMeans' k-means++ keeps the best
# of 2 + ln k candidates per center, SumOfMinKMeans' Algorithm 1 draws one).
KMEANS = _grouped("KMeans", KMeans, n_init=1)
_kmeans = KMEANS.make
CLUSTERING_CANDIDATES = (
    _grouped("SumOfMinKMeans", SumOfMinKMeans, ours=True),
    _grouped(
        "SumOfMinKMeans(solver='momentum')",
        SumOfMinKMeans,
        ours=True,
        solver="momentum",
    ),
    KMEANS,
)
MIXED_LINEAR = dict(n_samples=1000, n_features=8, n_components=3, noise=0.01)
SUBSPACES = dict(n_samples=1000, n_features=5, n_clusters=3, subspace_dim=2, noise=0.0)
_mlr = MixedLinearRegressor
MIXED_LINEAR_CANDIDATES = (
    _grouped("MixedLinearRegressor", _mlr, ours=True),
    _grouped(
        "MixedLinearRegressor(alpha=0.01, fit_intercept=False)",
        _mlr,
        ours=True,
        alpha=0.01,
        fit_intercept=False,
    ),
    _grouped("EM", _MixedLinearEM),
    Candidate("LinearRegression", lambda k, seed: LinearRegression()),
)
# The paper's section 5.2 (Table 5): five ReLU networks of 5 inputs and 3
# hidden units, 1000 training samples per fold at the default 5 folds.
MIXED_MLP = dict(
    n_samples=1250,
    n_features=5,
    hidden_layer_sizes=(3,),
    n_components=5,
    noise=0.01,
)
# The paper's alpha and Adam step (1e-3, 10 steps per epoch, k-means++
# seeding); tol=3e-3 stops after 60-120 epochs (about 0.5 s a fold) where
# the default 1e-4 runs about 270, for a held-out error within about 15%.
_mixed_mlp = partial(
    MixedMLPRegressor, hidden_layer_sizes=(3,), alpha=0.01, max_iter=300, tol=3e-3
)
# Adam at the default step 1e-3 stops at max_iter=200 unconverged (with a
# ConvergenceWarning); at 1e-2 it converges in 40-140 epochs.
_mlp = partial(MLPRegressor, learning_rate_init=0.01, max_iter=1000)
MIXED_MLP_CANDIDATES = (
    _grouped("MixedMLPRegressor", _mixed_mlp, ours=True),
    _grouped("MixedLinearRegressor", _mlr, ours=True),
    _seeded("MLPRegressor", _mlp, hidden_layer_sizes=(3,)),
    # As many hidden units as the five networks together.
    _seeded("MLPRegressor(hidden_layer_sizes=(15,))", _mlp, hidden_layer_sizes=(15,)),
)
_gpca = partial(GPCAClusterer, subspace_dim=2)
SUBSPACE_CANDIDATES = (
    _grouped("GPCAClusterer", _gpca, ours=True),
    _grouped(
        "GPCAClusterer(model='sum_of_product')",
        _gpca,
        ours=True,
        model="sum_of_product",
    ),
    KMEANS,
    _grouped("SpectralClustering", SpectralClustering, affinity="nearest_neighbors"),
)
_svc = partial(_SubsetModel, SVC(kernel="rbf"), n_samples=100)
HERDING_CANDIDATES = (
    _seeded("SVC on herding subset", _svc, ours=True),
    _seeded("SVC on random subset", _svc, subset="random"),
    _seeded("SVC on all training points", _svc, subset="all"),
)
# 200 of 16,000 training points per fold, found by random Fourier features
# and the LSH index (the regime of Algorithm 4); both subsets are stratified.
HERDING_MIXTURE = dict(
    n_samples=20_000, n_features=10, n_informative=5, n_clusters_per_class=8
)
_large = partial(_SubsetModel, SVC(kernel="rbf"), n_samples=200)
LARGE_HERDING_CANDIDATES = (
    _seeded(
        "SVC on herding subset (LSH)",
        _large,
        ours=True,
        sampler_params={"feature_map": "rff", "maxip": "lsh"},
    ),
    _seeded("SVC on random subset", _large, subset="random"),
)
# Names of run_pobga's learners: POBGA against the projection-free Mono-FW
# (the paper's baseline) and the projected OBGA.
ONLINE_CANDIDATES = tuple(
    Candidate(name, SPECS[name][0], name == "POBGA")
    for name in ("POBGA", "Mono-FW", "OBGA")
)
# The defaults, and diagonal AdaGrad (n_components=0) at the same settings,
# the method the paper improves on: a competitor of the verdict.
_adagrad = _standardized(CompAdaGradClassifier)
COMPADAGRAD_CANDIDATES = (
    _seeded("CompAdaGradClassifier()", _adagrad, ours=True),
    _seeded("CompAdaGradClassifier(n_components=0)", _adagrad, n_components=0),
    _seeded("SGDClassifier", _standardized(SGDClassifier), loss="hinge", penalty="l2"),
)
# The defaults (10% of the rows per round at this size), then 1% of the rows
# per round (the default sample_size of the subsample baseline too), the
# small sample setting of the benchmark, with both samplers.
_lsl = partial(LocalSensitivityLogistic, sample_size=0.01)
LOGISTIC_CANDIDATES = (
    _seeded("LocalSensitivityLogistic()", LocalSensitivityLogistic, ours=True),
    _seeded("LocalSensitivityLogistic(sample_size=0.01)", _lsl, ours=True),
    _seeded(
        "LocalSensitivityLogistic(sample_size=0.01, sampling='uniform')",
        _lsl,
        # The paper's uniform baseline, at the same sample size.
        sampling="uniform",
    ),
    _seeded("LogisticRegression on a 1% uniform subsample", _UniformSubsetLogistic),
    Candidate("LogisticRegression", lambda k, seed: LogisticRegression()),
)

_clusters = partial(
    Comparison,
    candidates=CLUSTERING_CANDIDATES,
    baseline="KMeans",
    metrics=(ARI, INERTIA),
    protocol="Clustering: n_clusters = number of classes, n_init=1, features unscaled.",
    family="sum-of-minimum k-means",
    claim=Claim("held-out ARI, one seeding and one Lloyd run each"),
)
_linear = partial(
    Comparison,
    candidates=COMPADAGRAD_CANDIDATES,
    baseline="SGDClassifier",
    metrics=(ACCURACY,),
    protocol="Linear classifiers: StandardScaler, then loss='hinge', penalty='l2', "
    "alpha=1e-4, one-vs-rest; CompAdaGradClassifier at its defaults "
    "(variant='adaptive', n_components='auto', batch_size=32), n_components=0 is "
    "diagonal AdaGrad.",
    family="CompAdaGrad linear classifiers",
    claim=Claim("held-out accuracy against diagonal AdaGrad and SGD"),
)
# The paper's claim is accuracy at an equal number of training points: the
# SVC on all of them is quoted beside, not the opponent.
HERDING_CLAIM = Claim(
    "held-out accuracy at an equal number of training points", budget="n_fit"
)
# Features are left unscaled: iris is in centimeters throughout and digits in
# pixel intensities, so Euclidean distances are already meaningful, and
# standardizing digits would inflate nearly constant border pixels.
COMPARISONS = (
    _clusters("iris", "load_iris, 150 x 4, 3 classes", _fixed(load_iris)),
    _clusters("digits", "load_digits, 1797 x 64, 10 classes", _fixed(load_digits)),
    _clusters(
        "blobs",
        "make_blobs(3000, 10, centers=5), seeded",
        _generated(make_blobs, n_samples=3000, n_features=10, centers=5),
    ),
    Comparison(
        "mixed-lines",
        "make_mixed_linear_regression(1000, 8, 3, noise=0.01), seeded",
        # Returns (X, y, coef, labels): coef is the truth of COEF_ERROR.
        _generated(make_mixed_linear_regression, **MIXED_LINEAR),
        MIXED_LINEAR_CANDIDATES,
        "EM",
        (ORACLE_RESIDUAL, COEF_ERROR),
        "Mixed linear regression: n_components=3; MixedLinearRegressor's defaults "
        "(alpha=1e-4, fit_intercept=True), and the paper's Table 3 setting; EM "
        "(skcgm.experiments._baselines, not from the paper): one random start.",
        cv=KFold,
        n_groups=3,
        family="sum-of-minimum mixed linear regression",
        claim=Claim("held-out oracle residual (the sum-of-minimum loss)"),
    ),
    Comparison(
        "mixed-mlp",
        "make_mixed_mlp_regression(1250, 5, (3,), 5, noise=0.01), seeded",
        _generated(make_mixed_mlp_regression, **MIXED_MLP),
        MIXED_MLP_CANDIDATES,
        "MLPRegressor",
        (ORACLE_RESIDUAL,),
        "Mixed non-linear regression: n_components=5, the paper's section 5.2 "
        "(1000 training samples per fold at 5 folds); "
        "MixedMLPRegressor(hidden_layer_sizes=(3,), "
        "alpha=0.01, max_iter=300, tol=3e-3) with its k-means++ seeding and 10 Adam "
        "steps (1e-3) per epoch; MixedLinearRegressor's defaults; MLPRegressor "
        "(ReLU, Adam, learning_rate_init=0.01, max_iter=1000), one network of 3 "
        "hidden units, or of 15.",
        cv=KFold,
        n_groups=5,
        family="sum-of-minimum mixed non-linear regression",
        claim=Claim("held-out oracle residual (the sum-of-minimum loss)"),
    ),
    Comparison(
        "subspaces",
        "make_union_of_subspaces(1000, 5, 3, subspace_dim=2), seeded",
        _generated(make_union_of_subspaces, **SUBSPACES),
        SUBSPACE_CANDIDATES,
        "SpectralClustering",
        (ACCURACY_FITTED,),
        "Union of subspaces: n_clusters=3, GPCAClusterer(subspace_dim=2), "
        "SpectralClustering(affinity='nearest_neighbors').",
        cv=KFold,
        on_fitted_labels=True,
        family="sum-of-minimum subspace clustering (GPCA)",
        claim=Claim("accuracy of the fitted labels"),
    ),
    Comparison(
        "digits-herding",
        "load_digits, 1797 x 64, 10 classes, unscaled",
        _fixed(load_digits),
        HERDING_CANDIDATES,
        "SVC on random subset",
        (ACCURACY, TRAINING_POINTS),
        "Herding subsets: SVC(kernel='rbf', C=1), unweighted, on the points of "
        "KernelHerdingSampler(per_class=True) in its kernel, on as many drawn "
        "uniformly (stratified), or on all; gamma = 1 / (n_features X.var()) of the "
        "fold; fit time includes the selection.",
        family="kernel herding subsets",
        claim=HERDING_CLAIM,
    ),
    Comparison(
        "mixture-herding",
        "make_classification(20000, 10, 5 informative, 8 clusters per class), seeded",
        _generated(make_classification, **HERDING_MIXTURE),
        LARGE_HERDING_CANDIDATES,
        "SVC on random subset",
        (ACCURACY, TRAINING_POINTS),
        "Large set: KernelHerdingSampler(feature_map='rff', maxip='lsh'), 200 points.",
        family="kernel herding subsets",
        claim=HERDING_CLAIM,
    ),
    _linear("digits-compadagrad", "load_digits, standardized", _fixed(load_digits)),
    _linear(
        "breast-cancer", "load_breast_cancer, standardized", _fixed(load_breast_cancer)
    ),
    _linear(
        "correlated",
        "make_correlated_classification(4000, 128), standardized, seeded",
        _generated(make_correlated_classification, n_samples=4000, n_features=128),
    ),
    Comparison(
        "logistic",
        "make_logistic_classification(50000, 20), seeded",
        _generated(make_logistic_classification, n_samples=50_000, n_features=20),
        LOGISTIC_CANDIDATES,
        "LogisticRegression",
        (LOG_LOSS, ACCURACY),
        "Logistic regression: C=1; LocalSensitivityLogistic at its defaults "
        "(sample_size='auto': 10% of the rows per round at this size) and drawing "
        "sample_size=0.01 of the rows per round, by local sensitivity or uniformly; "
        "the subsample of one round's size (1%), without replacement.",
        family="local-sensitivity logistic regression",
        claim=Claim("held-out log-loss, fitted from samples of the rows"),
    ),
    OnlineComparison(
        "online-nqp",
        f"make_online_nqp(horizon={ONLINE_HORIZON}, n_features=25, "
        "n_constraints=15), one seeded stream per fold",
        None,
        ONLINE_CANDIDATES,
        "Mono-FW",
        (REGRET_PER_ROUND, LMO_CALLS, PROJECTIONS),
        "Online learners: library defaults (POBGA preset='practical'); 1-regret "
        "against continuous greedy (100 steps) on the sum of the stream; time "
        "inside the learner.",
        cv=None,
        horizon=ONLINE_HORIZON,
        family="projection-free online submodular maximization",
        claim=Claim(
            "1-regret per round, and its cost in LMO calls and projections",
            costs=("n_lmo_calls", "n_projections"),
        ),
    ),
)


def _fit_and_score(estimator, train, scored, X, y, metrics, truth):
    """Fit on the ``train`` rows, score on the ``scored`` ones, time the fit."""
    start = time.perf_counter()
    estimator.fit(_safe_indexing(X, train), _safe_indexing(y, train))
    fit_time = time.perf_counter() - start
    X, y = _safe_indexing(X, scored), _safe_indexing(y, scored)
    scores = {
        m.key: m.scorer(estimator, X, y, *(truth if m.needs_truth else ()))
        for m in metrics
    }
    return {**scores, "fit_time": fit_time}


# Fits shorter than this get 2 * n_repeats - 1 timed fits instead of n_repeats.
SHORT_FIT = 0.1
# Seconds of sleep before every timed repeat of a short fit: longer than the
# 8 ms that idle OpenMP workers of the previous library spin (measured for
# the k-means grid benchmark), so that they do not share the cores with it.
PAUSE = 0.02
# A short fit is timed over enough fits in a row to last this long (s).
MIN_TIMING = 0.02
# Short fits whose interquartile range exceeds this share of their median
# are timed twice as often.
WIDE_SPREAD = 0.25


def _timed_fit(estimator, X, y, number=1):
    """Mean seconds of ``number`` fits in a row, each of a fresh clone."""
    clones = [clone(estimator) for _ in range(number)]
    start = time.perf_counter()
    for fresh in clones:
        fresh.fit(X, y)
    return (time.perf_counter() - start) / number


def _timed_play(name, horizon, seeds, comparator, number=1):
    """Mean seconds inside the learner over ``number`` plays of the stream."""
    plays = [_run_learner(name, horizon, seeds, comparator) for _ in range(number)]
    return sum(play["wall_time"] for play in plays) / number


def _repeat_fits(timers, folds, n_repeats, keep_first):
    """The repeated fit times of every candidate, timed in alternation.

    ``folds`` holds the times of each candidate's fits in the
    cross-validation, the first fold's first. A fit whose fastest fold took
    at least ``SHORT_FIT`` seconds is timed ``n_repeats`` times, the first
    fold's fit counting as one when ``keep_first`` (the folds ran one at a
    time, not beside each other on the cores). A short fit is timed
    ``2 n_repeats - 1`` times, each time over as many fits in a row as last
    ``MIN_TIMING`` seconds (as :mod:`timeit` does), after a pause, and twice
    as often when its interquartile range exceeds ``WIDE_SPREAD`` of its
    median. Alternating the candidates makes a change of the machine's
    load hit all of them alike.

    Returns
    -------
    times : list of list of float
        Per candidate, its repeated fit times (s).
    numbers : list of int
        Per candidate, the fits each of its times is the mean of.
    """
    fastest = [min(times) for times in folds]
    short = [t < SHORT_FIT for t in fastest]
    counts = [2 * n_repeats - 1 if s else n_repeats for s in short]
    # After the pause a short fit's first run wakes the threads it finds
    # asleep, which costs up to 10 ms on a 2-core VM: a run of fits spreads
    # that over all of them, as in a loop of fits. The cold first fit of the
    # cross-validation is not kept for the same reason.
    numbers = [
        max(1, math.ceil(MIN_TIMING / max(t, 1e-6))) if s else 1
        for t, s in zip(fastest, short)
    ]
    times = [[f[0]] if keep_first and not s else [] for f, s in zip(folds, short)]
    _alternate(timers, times, counts, numbers, short)
    # A short fit whose repeats still spread wide (a library whose threads
    # now and then wait for a core) gets twice as many, so that its quartiles
    # show the spread rather than the luck of five draws.
    wide = [s and _spread(t) > WIDE_SPREAD for s, t in zip(short, times)]
    more = [2 * c if w else c for c, w in zip(counts, wide)]
    _alternate(timers, times, more, numbers, short)
    return times, numbers


def _spread(times):
    """Interquartile range over the median."""
    low, median, high = np.percentile(times, [25, 50, 75])
    return (high - low) / median


def _alternate(timers, times, counts, numbers, short):
    """Append timings round-robin until each candidate has ``counts`` of them."""
    for _ in range(max(counts) - min(map(len, times))):
        for timer, repeats, count, number, s in zip(
            timers, times, counts, numbers, short
        ):
            if len(repeats) < count:
                # A few milliseconds of another library's spinning threads
                # matter to a short fit only.
                time.sleep(PAUSE if s else 0.0)
                repeats.append(timer(number=number))


def run_compare(
    datasets=None,
    *,
    n_splits=5,
    n_repeats=3,
    random_state=0,
    n_jobs=None,
    progress=None,
):
    """Cross-validate skcgm estimators against their scikit-learn baselines.

    Every candidate of a comparison is cloned, fitted on the training part of
    each fold and scored on its held-out part (or, with
    ``Comparison.on_fitted_labels``, on the labels it fitted), with the same
    folds and ``random_state`` for every candidate; an
    :class:`OnlineComparison` plays ``n_splits`` seeded streams instead.

    Fit times are measured as a benchmark does: each candidate fits the first
    training fold ``n_repeats`` times, the candidates in alternation; a fit
    under 0.1 s is timed ``2 n_repeats - 1`` times, each after a 20 ms pause
    and over as many fits in a row as last 20 ms (as :mod:`timeit` does). The
    table shows the median and the interquartile range of the repeats.

    Under each family's table, a verdict per data set sets our estimator (the
    first candidate) against the best competitor on the family's
    :class:`Claim`, with the paired test and practical tolerance :math:`\\tau`

    .. math::

        \\text{tie} \\iff |\\bar d| \\le 2 \\, s_d / \\sqrt{K}
        \\ \\text{or}\\ |\\bar a - \\bar b| \\le \\tau |\\bar b|,

    (:math:`\\bar d` and :math:`s_d` the mean and standard deviation of the
    :math:`K` paired per-fold differences, :math:`\\bar a` and
    :math:`\\bar b` the mean scores) and a time ratio only when
    the interquartile ranges of the two estimators' repeated fit times do not
    overlap and their medians differ by a factor of 1.5 or more.

    Parameters
    ----------
    datasets : list of str or None, default=None
        Names of the comparisons to run (the ``dataset`` of an entry of
        :data:`COMPARISONS`); None runs all of them.
    n_splits : int, default=5
        Folds of the comparison's splitter (``StratifiedKFold(shuffle=True)``
        for classes, ``KFold(shuffle=True)`` for regression targets), or
        streams of an online comparison.
    n_repeats : int, default=3
        Timed fits of each candidate, ``2 n_repeats - 1`` for the short fits
        defined above. With ``n_jobs=None`` the cross-validation's own fit
        of the first fold counts as one of the long fits' repeats.
    random_state : int, default=0
        Seed of the folds, of the generated data and of every estimator.
    n_jobs : int or None, default=None
        Folds fitted in parallel through joblib; the timed repeats always run
        one at a time in this process.
    progress : callable or None, default=None
        Called with one line per data set once its rows are done.

    Returns
    -------
    result : CompareResult
        One row per (data set, estimator) with ``family``, ``baseline``,
        ``<metric>_mean``, ``<metric>_std``, ``<metric>_folds``,
        ``fit_time_folds`` (the cross-validation's fits), ``fit_time_repeats``
        (each the mean of ``fit_time_number`` fits in a row),
        ``fit_time`` (their median, s), ``fit_time_q1`` and ``fit_time_q3``
        (their quartiles) and ``fit_time_ratio`` (over the baseline's
        median); the verdicts are ``metadata["verdicts"]``.

    Examples
    --------
    >>> from skcgm.experiments import run_compare
    >>> result = run_compare(["iris"], n_splits=2, n_repeats=1)
    >>> [row["estimator"] for row in result.rows][-1]
    'KMeans'
    >>> result.metadata["verdicts"][0]["opponent"]
    'KMeans'
    """
    by_name = {c.dataset: c for c in COMPARISONS}
    unknown = sorted(set(datasets or ()) - set(by_name))
    if unknown:
        raise ValueError(f"Unknown datasets {unknown}; choose among {sorted(by_name)}.")
    if not isinstance(n_repeats, numbers.Integral) or n_repeats < 1:
        raise ValueError(f"n_repeats must be an integer >= 1; got {n_repeats!r}.")
    comparisons = [by_name[n] for n in (by_name if datasets is None else datasets)]
    # The folds are the trials; every seed is random_state itself, so the
    # run's seed stream is not drawn from.
    run = TrialRunner((n_splits, n_splits), False, None, random_state, n_jobs, progress)
    sequential = n_jobs in (None, 1)
    rows, verdicts = [], []
    for c in comparisons:
        start = time.perf_counter()
        new, timers = c.evaluate(run, n_splits, random_state)
        folds = [row["fit_time_folds"] for row in new]
        repeats, runs = _repeat_fits(timers, folds, n_repeats, sequential)
        for row, times, number in zip(new, repeats, runs):
            for key in [k.removesuffix("_folds") for k in row if k.endswith("_folds")]:
                values = np.asarray(row[f"{key}_folds"], dtype=float)
                row.update({f"{key}_mean": values.mean(), f"{key}_std": values.std()})
            low, median, high = np.percentile(times, [25, 50, 75])
            row.update(
                fit_time_repeats=times,
                fit_time_number=number,
                fit_time=median,
                fit_time_q1=low,
                fit_time_q3=high,
            )
        base = next(r for r in new if r["estimator"] == c.baseline)
        for row in new:
            row.update(dataset=c.dataset, family=_family(c), baseline=c.baseline)
            row["fit_time_ratio"] = row["fit_time"] / base["fit_time"]
        rows += new
        verdicts.append(_verdict(c, new))
        run.report(
            f"{_family(c)}: {c.dataset}, {len(new)} estimators x {n_splits} folds "
            f"in {time.perf_counter() - start:.1f} s"
        )
    metrics = list({m.key: m for c in comparisons for m in c.metrics}.values())
    folds = "; ".join(
        f"{n_splits}-fold {cv}(shuffle=True, random_state={random_state}) on "
        + ", ".join(c.dataset for c in comparisons if _splitter(c) == cv)
        for cv in dict.fromkeys(map(_splitter, comparisons))
    )
    tolerances = sorted({_claim(c).tolerance for c in comparisons})
    summary = (
        f"Scores: mean ± std over {n_splits} folds. Fit time: median "
        f"(interquartile range) of {n_repeats} timed fits of the first training "
        f"fold, alternated between estimators; {2 * n_repeats - 1} for fits under "
        f"{SHORT_FIT:g} s, each after a {PAUSE * 1000:.0f} ms pause and over "
        f"{MIN_TIMING * 1000:.0f} ms of fits in a row. Verdicts: ours "
        "against the best competitor on the family's axis; a tie is a relative "
        f"difference of at most {', '.join(f'{t:.0%}' for t in tolerances)} or "
        "one within two standard errors of the paired fold differences; a time "
        "ratio is stated only when the interquartile ranges of the fit times do "
        f"not overlap and the medians differ by a factor of {TIME_TOLERANCE:g} or "
        "more. "
        f"n_jobs={n_jobs}, {run.cpu_count} cores."
    )
    axes = "; ".join(
        f"{family}: {axis}"
        for family, axis in dict.fromkeys(
            (_family(c), _claim(c).axis) for c in comparisons
        )
    )
    sentences = [
        "; ".join(m.description for m in metrics if m.description),
        folds,
        f"Axes of the verdicts: {axes}",
        *dict.fromkeys(c.protocol.rstrip(".") for c in comparisons),
    ]
    caption = ". ".join(sentence for sentence in sentences if sentence) + "."
    datasets = {c.dataset: c.description for c in comparisons}
    metadata = run.metadata(
        n_splits=n_splits,
        n_repeats=n_repeats,
        n_jobs=n_jobs,
        datasets=datasets,
        verdicts=verdicts,
        protocol=caption,
    )
    columns = [Column("dataset", "dataset", group=True)]
    columns += [Column("estimator", "estimator")]
    std = {m.key: f"{m.key}_std" if m.show_std else None for m in metrics}
    columns += [Column(f"{m.key}_mean", m.header, m.fmt, std[m.key]) for m in metrics]
    columns += [
        Column(
            "fit_time",
            "fit time (s)",
            ".4f",
            range_keys=("fit_time_q1", "fit_time_q3"),
        )
    ]
    columns += [Column("fit_time_ratio", "fit time / baseline", _ratio)]
    return CompareResult("compare", rows, columns, summary, metadata)


def _ratio(ratio):
    """A ratio cell of the table: the verdict's text without its ``x``."""
    return ratio_text(ratio).removesuffix("x")


def _family(comparison):
    return comparison.family or comparison.dataset


def _claim(comparison):
    return comparison.claim or Claim(comparison.metrics[0].header)


def _splitter(comparison):
    return "seeded streams" if comparison.cv is None else comparison.cv.__name__


def _verdict(comparison, rows):
    """Our estimator against the best competitor on the comparison's claim."""
    claim = _claim(comparison)
    metrics = {m.key: m for m in comparison.metrics}
    metric = metrics[claim.metric or comparison.metrics[0].key]
    competitors = [c.name for c in comparison.candidates[1:] if not c.ours]
    headers = {key: m.header for key, m in metrics.items()}
    result = verdict(
        comparison.dataset,
        claim,
        metric,
        rows,
        competitors,
        comparison.baseline,
        headers,
    )
    return {"family": _family(comparison), **result}


class CompareResult(ExperimentResult):
    """The comparisons: a table and verdicts per family, then the protocol.

    An :class:`ExperimentResult` whose rows carry a ``family``: its text
    leads with one table per family, titled by the family and its baseline,
    with a verdict per data set under it, and ends with the protocol.

    Parameters
    ----------
    name : str
        ``"compare"``.
    rows : list of dict
        One row per (data set, estimator), with its ``family``.
    columns : list of Column
        The columns of every family's table.
    caption : str
        The one-line summary printed after the tables.
    metadata : dict
        The run's settings; ``metadata["verdicts"]`` holds the verdicts and
        ``metadata["protocol"]`` the definitions of the metrics and the
        set-up of every family.

    See Also
    --------
    run_compare : Returns one.

    Examples
    --------
    >>> from skcgm.experiments import run_compare
    >>> text = run_compare(["iris"], n_splits=2).to_text()
    >>> text.splitlines()[0]
    'sum-of-minimum k-means vs KMeans'
    >>> text.splitlines()[-1]
    'Definitions and set-ups: python -m skcgm compare --explain'
    """

    def to_text(self, width=100, explain=False):
        """Per family: a title naming the baseline, the table, the verdicts.

        Parameters
        ----------
        width : int, default=100
            Width the paragraphs are wrapped to.
        explain : bool, default=False
            Also print the metrics' definitions and the families' set-ups.

        Returns
        -------
        text : str
            The tables, then the protocol.
        """
        parts = []
        for family in dict.fromkeys(row["family"] for row in self.rows):
            rows = [row for row in self.rows if row["family"] == family]
            baseline = ", ".join(dict.fromkeys(row["baseline"] for row in rows))
            ratio = Column("fit_time_ratio", f"fit time / {baseline}", _ratio)
            columns = [ratio if c.key == ratio.key else c for c in self.columns]
            blocks = _blocks_by_columns(rows, columns)
            verdicts = self.metadata["verdicts"]
            lines = [f"  {v['text']}" for v in verdicts if v["family"] == family]
            title = f"{family} vs {baseline}"
            tables = [title, *(format_table(*block) for block in blocks)]
            parts.append("\n\n".join(tables) + "\n" + "\n".join(lines))
        parts.append("\n".join(textwrap.wrap(self.caption, width=width)))
        if explain:
            protocol = self.metadata["protocol"]
            parts.append("\n".join(textwrap.wrap(protocol, width=width)))
        else:
            parts.append("Definitions and set-ups: python -m skcgm compare --explain")
        return "\n\n".join(parts)


def plot_compare(result, figure, metric=None, family=None):
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
    family : str or None, default=None
        Draw the rows of this family only (``python -m skcgm compare --plot
        DIR`` draws one figure per family); None draws every row.
    """
    chosen = [r for r in result.rows if family in (None, r["family"])]
    keys = [
        c.key.removesuffix("_mean")
        for c in result.columns
        if c.std_key and any(c.key in row for row in chosen)
    ]
    metrics = keys if metric is None else [metric]
    if len(metrics) > 1:
        # One row per metric, legends on the right.
        figure.set_size_inches(9.0, 2.8 * len(metrics))
    headers = {c.key: c.header for c in result.columns}
    axes = figure.subplots(len(metrics), 1, squeeze=False)[:, 0]
    for ax, key in zip(axes, metrics):
        rows = [row for row in chosen if f"{key}_mean" in row]
        datasets = list(dict.fromkeys(row["dataset"] for row in rows))
        estimators = list(dict.fromkeys(row["estimator"] for row in rows))
        width = 0.8 / len(estimators)
        for i, estimator in enumerate(estimators):
            bars = [row for row in rows if row["estimator"] == estimator]
            shift = (i - (len(estimators) - 1) / 2) * width
            x = [datasets.index(row["dataset"]) + shift for row in bars]
            mean, std = ([row[f"{key}_{s}"] for row in bars] for s in ("mean", "std"))
            ax.bar(x, mean, width, yerr=std, capsize=3, label=estimator)
        values = [row[f"{key}_mean"] for row in rows]
        # Errors spanning decades (the regression rows) read on a log scale.
        if min(values) > 0 and max(values) > 100 * min(values):
            ax.set_yscale("log")
        ax.set_xticks(range(len(datasets)), datasets)
        ax.set_ylabel(headers.get(f"{key}_mean", key), fontsize="small")
        ax.legend(fontsize="x-small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    axes[0].set_title(f"mean ± std over {result.metadata['n_splits']} folds")
    figure.tight_layout()
