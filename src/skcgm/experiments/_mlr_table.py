"""Table 3 of the sum-of-minimum paper: seeding of mixed linear regression.

Ding, Chen, Wang and Yin (2024), section 5.2 and Appendix E.2: the
l2-regularized mixed linear regression objective

.. math::

    F(x_1, \\dots, x_k) = \\frac{1}{N} \\sum_{i=1}^N \\min_{1 \\le j \\le k}
    \\left\\{ \\frac12 (a_i^\\top x_j - b_i)^2 + \\frac{\\lambda}{2}
    \\|x_j\\|^2 \\right\\}

minimized by Algorithm 7 (Lloyd with the ridge group minimizer E.2) from
three initializations: i.i.d. standard Gaussian coefficients, uniform
seeding and the proposed generalized k-means++ seeding.
"""

from functools import partial
from itertools import product

import numpy as np

from ..datasets import make_mixed_linear_regression
from ..linear_model import MixedLinearRegressor
from ._gpca_tables import _cells, _paper_panel, _standard_error, _trial_seeds
from ._plot import draw
from ._result import Column
from ._runner import TrialRunner

N_COMPONENTS = (4, 5, 6)
N_FEATURES = (4, 5, 6, 7, 8)
N_SAMPLES = 1000
NOISE = 0.01
ALPHA = 0.01
# Algorithm 7 without intercept, one run per initialization. The authors' code:
# iter_max = 10000, which never binds.
FIT = dict(alpha=ALPHA, fit_intercept=False, solver="exact", n_init=1, tol=0.0)
MAX_ITER = 10_000
# Trials per cell: quick, and the paper's.
TRIALS = (30, 1000)
# (label, MixedLinearRegressor options). The authors' code seeds with the
# gradient-norm scores of Algorithm 4 (note section 7, item 4).
INITS = (
    ("random", {"init": "random"}),
    ("unif. seeding", {"init": "uniform"}),
    ("proposed", {"init": "k-means++", "init_score": "gradient"}),
)
# Table 3 of the paper: failure rate and average iteration number for each d
# in 4, ..., 8, one line per (k, init) in the order of N_COMPONENTS and INITS.
_PAPER_TABLE3 = (
    (0.056, 17.577, 0.031, 18.378, 0.038, 19.923, 0.058, 21.631, 0.071, 22.344),
    (0.057, 16.139, 0.034, 16.885, 0.050, 18.022, 0.055, 18.708, 0.075, 19.959),
    (0.050, 14.551, 0.036, 15.276, 0.034, 16.020, 0.044, 16.936, 0.051, 17.409),
    (0.161, 26.355, 0.156, 28.844, 0.172, 32.247, 0.238, 35.042, 0.321, 38.324),
    (0.145, 23.728, 0.136, 25.914, 0.143, 27.671, 0.198, 29.935, 0.256, 32.662),
    (0.162, 21.552, 0.130, 23.476, 0.143, 25.933, 0.161, 27.268, 0.217, 29.086),
    (0.363, 35.831, 0.382, 41.043, 0.504, 43.999, 0.594, 47.918, 0.739, 48.730),
    (0.347, 31.536, 0.350, 35.230, 0.408, 39.688, 0.524, 42.453, 0.596, 43.117),
    (0.339, 29.610, 0.312, 33.460, 0.389, 36.068, 0.463, 39.010, 0.563, 40.320),
)
PAPER_TABLE3 = {
    (k, init): dict(zip(N_FEATURES, zip(values[::2], values[1::2])))
    for (k, (init, _)), values in zip(product(N_COMPONENTS, INITS), _PAPER_TABLE3)
}
PAPER_TRIALS = 1000
COLUMNS = (
    Column("n_components", "k", group=True),
    Column("n_features", "d", group=True),
    Column("init", "init"),
    Column("failure_rate", "failure rate", ".3f", "failure_se"),
    Column("paper_failure_rate", "paper fail.", ".3f"),
    Column("within_2se", "<= paper + 2 se"),
    Column("n_iter_mean", "iterations", ".2f", "n_iter_se"),
    Column("paper_n_iter", "paper iter.", ".3f"),
    Column("fewest_iterations", "fewest iter."),
)
CAPTION = (
    "Table 3 of Ding et al. (2024), l2-regularized mixed linear regression: Algorithm "
    "7 (MixedLinearRegressor(alpha={alpha}, solver='exact', tol=0, "
    "max_iter={max_iter}, n_init=1), empty components kept) after i.i.d. N(0, I) "
    "coefficients (random), uniform seeding, or k-means++ with gradient-norm scores "
    "(proposed, Algorithm 4), on the same "
    "make_mixed_linear_regression(n_samples={n_samples}, noise={noise}) per trial. A "
    "run fails if its final F (with the lambda term) exceeds F at the true "
    "coefficients; iterations: updates until the partition repeats. ± binomial and "
    "standard errors over {trials} trials (paper: {paper_trials}); '<= paper + 2 se': "
    "two standard errors of the difference. random_state={random_state}, "
    "n_jobs={n_jobs}, {cpu_count} cores."
)
ROW_KEYS = "n_components n_features init options trials".split()
PLOT = tuple(
    _paper_panel(y, "init", ylabel, "k = {n_components}", "n_components", se, paper)
    for y, se, paper, ylabel in (
        ("failure_rate", "failure_se", "paper_failure_rate", "failure rate"),
        ("n_iter_mean", "n_iter_se", "paper_n_iter", "mean iterations"),
    )
)


def regularized_objective(X, y, coef, alpha=ALPHA):
    """The paper's MLR objective :math:`F`, with the ridge term inside the min.

    .. math::

        F(x_1, \\dots, x_k) = \\frac{1}{N} \\sum_{i=1}^N \\min_j \\left\\{
        \\frac12 (a_i^\\top x_j - b_i)^2 + \\frac{\\lambda}{2} \\|x_j\\|^2
        \\right\\}

    Computed here rather than taken from the estimator, so that the failure
    criterion does not rely on the code it checks.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Inputs :math:`a_i`.
    y : ndarray of shape (n_samples,)
        Targets :math:`b_i`.
    coef : ndarray of shape (n_components, n_features)
        Coefficients :math:`x_j`.
    alpha : float, default=0.01
        :math:`\\lambda`.

    Returns
    -------
    objective : float
        :math:`F`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.experiments._mlr_table import regularized_objective
    >>> X = np.array([[1.0], [1.0]])
    >>> y = np.array([1.0, -1.0])
    >>> regularized_objective(X, y, np.array([[1.0], [-1.0]]), alpha=0.5)
    0.25
    """
    losses = 0.5 * (X @ coef.T - y[:, None]) ** 2
    losses += 0.5 * alpha * np.einsum("jd,jd->j", coef, coef)
    return float(losses.min(axis=1).mean())


def run_failed(X, y, coef, true_coef, alpha=ALPHA):
    """The failure criterion of Table 3 (Appendix E.2 of the paper).

    A run fails unless its final objective is at most the objective at the
    true coefficients, both with the ridge term:
    :math:`F(\\hat x) > F(x^+)`, with :math:`F` of
    :func:`regularized_objective`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Inputs.
    y : ndarray of shape (n_samples,)
        Targets.
    coef : ndarray of shape (n_components, n_features)
        Final coefficients of the run.
    true_coef : ndarray of shape (n_components, n_features)
        Coefficients that generated the data.
    alpha : float, default=0.01
        :math:`\\lambda`.

    Returns
    -------
    failed : bool
        Whether :math:`F(\\hat x) > F(x^+)`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.experiments._mlr_table import run_failed
    >>> X = np.array([[1.0], [2.0], [1.0], [2.0]])
    >>> y = np.array([1.0, 2.0, -1.0, -2.0])
    >>> true_coef = np.array([[1.0], [-1.0]])
    >>> run_failed(X, y, np.array([[0.96], [-0.96]]), true_coef, alpha=0.1)
    False
    >>> run_failed(X, y, np.array([[1.0], [1.0]]), true_coef, alpha=0.1)
    True
    """
    objective = partial(regularized_objective, X, y, alpha=alpha)
    return objective(coef) > objective(true_coef)


def _mlr_trials(n_components, n_features, seeds):
    """Failures and iteration counts of the three inits on fresh data per seed.

    Returns boolean and integer arrays of shape ``(len(INITS), len(seeds))``.
    """
    estimator = partial(MixedLinearRegressor, n_components, max_iter=MAX_ITER, **FIT)
    failed = np.empty((len(INITS), len(seeds)), dtype=bool)
    n_iter = np.empty((len(INITS), len(seeds)), dtype=np.int64)
    for t, seed in enumerate(seeds):
        data_seed, fit_seed = _trial_seeds(seed)
        X, y, coef, _ = make_mixed_linear_regression(
            N_SAMPLES, n_features, n_components, NOISE, data_seed
        )
        for m, (_, options) in enumerate(INITS):
            fitted = estimator(random_state=fit_seed, **options).fit(X, y)
            failed[m, t] = run_failed(X, y, fitted.coef_, coef)
            n_iter[m, t] = fitted.n_iter_
    return failed, n_iter


def _binomial_se(p, n):
    return float(np.sqrt(p * (1 - p) / n))


def run_mlr_table3(
    *, full=False, trials=None, random_state=0, n_jobs=None, progress=None
):
    """Table 3: failure rate and iterations of three MLR initializations.

    For each (k, d) and trial, new data ``make_mixed_linear_regression(1000,
    d, k, noise=0.01)``; each initialization is followed by Algorithm 7
    (``MixedLinearRegressor(alpha=0.01, solver='exact', tol=0,
    max_iter=10000, n_init=1)``). A run fails unless its final objective is
    at most :math:`F` at the true coefficients (both with the
    :math:`\\lambda` term); its iterations are ``n_iter_``, the parameter
    updates until the partition repeats.

    Parameters
    ----------
    full : bool, default=False
        Run the paper's 1000 trials per cell instead of 30.
    trials : int or None, default=None
        Trials per cell; overrides ``full``.
    random_state : int, default=0
        Seed of the per-trial seeds (data and initialization), drawn up
        front; the three initializations of a trial share its data and seed.
    n_jobs : int or None, default=None
        Chunks of trials run in parallel through joblib.
    progress : callable or None, default=None
        Called with a one-line message before each (k, d) cell.

    Returns
    -------
    result : ExperimentResult
        One row per (k, d, init) with ``failure_rate``, ``failure_se``
        (binomial standard error), ``paper_failure_rate``,
        ``within_2se`` (ours at most the paper's plus two standard errors of
        the difference), ``n_iter_mean``, ``n_iter_se``, ``paper_n_iter`` and
        ``fewest_iterations`` (lowest mean of its (k, d) cell).
    """
    run = TrialRunner(TRIALS, full, trials, random_state, n_jobs, progress)
    rows = []
    for k, d, (failed, n_iter) in _cells(run, _mlr_trials, N_COMPONENTS, N_FEATURES):
        mean_iter = n_iter.mean(axis=1)
        for m, (label, options) in enumerate(INITS):
            paper_rate, paper_iter = PAPER_TABLE3[k, label][d]
            rate = float(failed[m].mean())
            se = _binomial_se(rate, run.trials)
            diff_se = np.hypot(se, _binomial_se(paper_rate, PAPER_TRIALS))
            row = dict(zip(ROW_KEYS, (k, d, label, options, run.trials)))
            row |= {
                "failure_rate": rate,
                "failure_se": se,
                "paper_failure_rate": paper_rate,
                "within_2se": bool(rate <= paper_rate + 2 * diff_se),
                "n_iter_mean": float(mean_iter[m]),
                "n_iter_se": _standard_error(n_iter[m]),
                "paper_n_iter": paper_iter,
                "fewest_iterations": bool(mean_iter[m] == mean_iter.min()),
            }
            rows.append(row)
    settings = dict(n_samples=N_SAMPLES, noise=NOISE, alpha=ALPHA, max_iter=MAX_ITER)
    caption = CAPTION.format(**vars(run), **settings, paper_trials=PAPER_TRIALS)
    grid = dict(n_components=N_COMPONENTS, n_features=N_FEATURES, n_jobs=n_jobs)
    return run.result("mlr-table3", rows, COLUMNS, caption, **settings, **grid)


def plot_mlr_table3(result, figure):
    """Failure rate and mean iterations against d, one column per k.

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_mlr_table3`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    """
    title = f"mlr-table3: {result.metadata['trials']} trials per cell"
    draw(result, figure, *PLOT, size=(3.2, 3.2), title=title, ncols=3)
