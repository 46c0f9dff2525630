"""CompAdaGrad against diagonal and full-matrix AdaGrad as k grows.

The paper (Mehta, Rendell, Varghese and Webers, section 5) compares
CompAdaGrad with diagonal AdaGrad only, on MNIST 4 vs 9 with Gaussian-kernel
prototype features (its figure: test error against the SRHT dimension k, no
numbers in the text), RCV1 and a visual bag-of-words task, with every
hyper-parameter chosen by the lowest online zero-one loss of one training
pass. None of the data ship offline, so this experiment reruns the shape on
three substitutes: the paper's MNIST construction on ``load_digits``, a dense
problem with a few informative directions mixed by a random rotation, and a
sparse text-like one; and it adds full-matrix AdaGrad, the other exact limit.
"""

import time
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state

from .. import datasets
from ..linear_model import CompAdaGradClassifier
from ._plot import Panel, draw
from ._result import Column
from ._runner import TrialRunner

# The k grid and the learning-rate grid of the paper's protocol, the same for
# every method (equal tuning budget): decades by default, half decades with
# --full. AdaGrad moves every coordinate by about eta0 on its first step; on
# these problems the online loss is lowest between 0.03 and 10.
QUICK = {"n_components": (4, 8, 16, 32, 64), "eta0_grid": (0.1, 1.0, 10.0)}
FULL = {
    "n_components": (4, 8, 16, 32, 64, 96),
    "eta0_grid": (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0),
}
# Trials at the quick and at the full size.
TRIALS = (2, 10)
# Rows per partial_fit call, in steps: the mistakes of 8 consecutive steps are
# counted with the iterate before the first of them (delayed progressive
# validation), which divides the per-call validation overhead by 8 and takes
# the very same steps.
STEPS_PER_CALL = 8
# Fixed, not tuned: the hinge loss (SGDClassifier's default; the paper does
# not say which loss it used), a small squared-l2 penalty (the paper's only
# regularizer), the estimator's default damping, tau = 1 and the paper's
# variant (scaled SRHT, delta inside the root); one pass over the stream in
# its order.
FIXED_OPTIONS = {
    "loss": "hinge",
    "penalty": "l2",
    "alpha": 1e-4,
    "tau": 1.0,
    "variant": "paper",
    "fit_intercept": True,
    "shuffle": False,
}
# Problem sizes. Full-matrix AdaGrad costs O(d^3) per step (an eigh of the
# d x d Gram), which bounds d at a few hundred for a run of seconds.
DIGITS = {"n_prototypes": 128, "test_size": 1 / 3, "batch_size": 1}
CORRELATED = {
    "n_samples": 4000,
    "n_features": 128,
    "n_informative": 8,
    "condition_number": 30.0,
    "noise": 0.003,
    "label_noise": 0.1,
    "test_size": 0.5,
    "batch_size": 8,
}
# About 14 distinct words per document; a linear SVM fitted to convergence
# errs on about 6% (RCV1: 5.6% in the paper).
SPARSE = {
    "n_samples": 4000,
    "n_features": 256,
    "doc_length": 20,
    "class_sep": 1.5,
    "test_size": 0.5,
    "batch_size": 16,
}
PROBLEMS = ("digits 4 vs 9", "correlated", "sparse text")
_GENERATORS = (
    (datasets.digits_prototype_features, DIGITS),
    (datasets.make_correlated_classification, CORRELATED),
    (datasets.make_sparse_text_classification, SPARSE),
)
COLUMNS = (
    Column("problem", "problem", group=True),
    Column("method", "method"),
    Column("n_components", "k"),
    Column("test_error_mean", "test error", ".4f", "test_error_std"),
    Column("vs_diagonal", "/ diagonal", ".3f"),
    Column("trials_below_diagonal", "trials < diagonal"),
    Column("online_error_mean", "online error", ".4f", "online_error_std"),
    Column("eta0_median", "eta0 (median)", ".3g"),
    Column("pass_time_mean", "pass time (s)", ".3f"),
)
CAPTION = (
    "Table: zero-one test error of CompAdaGradClassifier after one online pass, mean "
    "± std over {run.trials} trials, against the SRHT dimension k, with diagonal "
    "AdaGrad (n_components=0) and full-matrix AdaGrad (n_components >= d; k is the "
    "padded dimension). Protocol of the paper (section 5): for every method and "
    "trial, the eta0 in {eta0_grid} with the lowest online zero-one loss (progressive "
    "validation, the mistakes of every group of {steps} steps counted with the iterate "
    "before the group) is kept; trials < diagonal: paired, on the same streams. "
    "Fixed: {fixed}, default delta. {problems}. The paper's MNIST figure has no "
    "numbers in its text; its claims: gains over diagonal AdaGrad on dense correlated "
    "features, growing with k; none on sparse text (RCV1: 0.056084 diagonal, 0.056155 "
    "k=512). random_state={run.random_state}, {run.cpu_count} cores."
)
PROBLEM = (
    "{name}: d={n_features}, sparse={sparse}, {n_train} train / {n_test} test, "
    "batch_size={batch_size}"
)
# Drawn from the mean ± s.e. per (curve, k) of plot_compadagrad: CompAdaGrad
# against k, diagonal and full-matrix AdaGrad flat over the same k.
PLOTS = tuple(
    Panel(
        "k",
        key,
        "curve",
        "SRHT dimension k",
        f"{label} (mean ± s.e.)",
        title="{problem} (d={n_features})",
        split="problem",
        band=(f"{key}_low", f"{key}_high"),
        xscale={"value": "log", "base": 2},
        ticks=True,
    )
    for key, label in (("test_error", "test error"), ("online_error", "online error"))
)


def _load_problem(name, random_state):
    """``((X_train, y_train, X_test, y_test), batch_size)`` of a problem."""
    make, options = dict(zip(PROBLEMS, _GENERATORS))[name]
    options = dict(options)
    batch_size, test_size = options.pop("batch_size"), options.pop("test_size")
    if make is datasets.digits_prototype_features:
        split = make(**options, test_size=test_size, random_state=random_state)
    else:
        rng = check_random_state(random_state)
        X, y = make(**options, random_state=rng)
        split = train_test_split(
            X, y, test_size=test_size, stratify=y, random_state=rng
        )
    X_train, X_test, y_train, y_test = split
    return (X_train, y_train, X_test, y_test), batch_size


def progressive_validation(
    estimator, X_train, y_train, X_test, y_test, *, batch_size, steps_per_call=1
):
    """One online pass of ``partial_fit``, counting mistakes before the steps.

    The training rows are visited in order, ``batch_size`` per step. With
    ``steps_per_call=1`` every mini-batch is first predicted by the current
    iterate :math:`x_t`, then given to ``partial_fit`` for one step (so
    ``estimator.batch_size`` should equal ``batch_size``): the mistake rate
    over the pass is the paper's "online zero-one loss" (progressive
    validation), the criterion its protocol tunes by. With
    ``steps_per_call=s`` the rows of :math:`s` consecutive steps are predicted
    by the iterate before the first of them and given to one ``partial_fit``
    call (the same :math:`s` steps): delayed progressive validation, which
    saves the per-call validation of ``partial_fit``. The final iterate is
    then scored on the test set. Before the first step the iterate is 0 and
    predicts the first class.

    Parameters
    ----------
    estimator : classifier with ``partial_fit``
        Unfitted (or fitted, to continue) linear classifier; it is updated.
    X_train : {ndarray, sparse matrix} of shape (n_train, n_features)
        The stream, in the order it is visited.
    y_train : ndarray of shape (n_train,)
        Its labels (two classes).
    X_test : {ndarray, sparse matrix} of shape (n_test, n_features)
        Test inputs.
    y_test : ndarray of shape (n_test,)
        Test labels.
    batch_size : int
        Rows per step.
    steps_per_call : int, default=1
        Steps per ``partial_fit`` call; 1 is exact progressive validation.

    Returns
    -------
    online_error : float
        Mistakes of the iterates on the rows before their steps, over
        ``n_train``.
    test_error : float
        Zero-one loss of the final iterate on the test set.
    pass_time : float
        Wall-clock seconds of the pass (predictions included).

    Examples
    --------
    >>> from sklearn.linear_model import SGDClassifier
    >>> from skcgm.datasets import make_correlated_classification
    >>> from skcgm.experiments._compadagrad import progressive_validation
    >>> X, y = make_correlated_classification(400, 16, random_state=0)
    >>> online, test, _ = progressive_validation(
    ...     SGDClassifier(random_state=0), X[:200], y[:200], X[200:], y[200:],
    ...     batch_size=1,
    ... )
    >>> bool(0 <= test <= online <= 1)
    True
    """
    classes = np.unique(y_train)
    rows_per_call = batch_size * steps_per_call
    mistakes = 0
    start = time.perf_counter()
    for begin in range(0, X_train.shape[0], rows_per_call):
        X_chunk = X_train[begin : begin + rows_per_call]
        y_chunk = y_train[begin : begin + rows_per_call]
        predicted = classes[0]  # the zero iterate predicts the first class
        if hasattr(estimator, "coef_"):
            # The binary decision function, without predict's validation.
            scores = X_chunk @ estimator.coef_[0] + estimator.intercept_[0]
            predicted = classes[(np.asarray(scores) > 0).astype(int)]
        mistakes += int(np.count_nonzero(predicted != y_chunk))
        estimator.partial_fit(X_chunk, y_chunk, classes=classes)
    pass_time = time.perf_counter() - start
    test_error = 1.0 - estimator.score(X_test, y_test)
    return mistakes / X_train.shape[0], float(test_error), pass_time


def _one_run(data, k, eta0, seed):
    """Online error, test error, pass time and effective k of one pass."""
    split, batch = data
    estimator = CompAdaGradClassifier(
        eta0=eta0, n_components=k, batch_size=batch, random_state=seed, **FIXED_OPTIONS
    )
    scores = progressive_validation(
        estimator, *split, batch_size=batch, steps_per_call=STEPS_PER_CALL
    )
    return *scores, int(estimator.n_components_)


def _mean_std(name, values):
    """``{name}_mean``, ``{name}_std`` and ``{name}_trials`` of per-trial values."""
    return {
        f"{name}_mean": float(np.mean(values)),
        f"{name}_std": float(np.std(values)),
        f"{name}_trials": values,
    }


def run_compadagrad(
    *,
    full=False,
    trials=None,
    random_state=0,
    n_jobs=None,
    progress=None,
    problems=PROBLEMS,
    n_components=None,
    eta0_grid=None,
):
    """Test error of CompAdaGrad against k, diagonal and full-matrix AdaGrad.

    For every problem and trial: one training stream (fixed by the trial's
    seed), and for every method (diagonal AdaGrad ``n_components=0``,
    CompAdaGrad with each k, full-matrix AdaGrad ``n_components >= d``) and
    every ``eta0`` of the grid one online pass of
    :class:`~skcgm.linear_model.CompAdaGradClassifier` over the stream
    (:func:`progressive_validation`). As in the paper, the ``eta0`` of the
    lowest online zero-one loss is kept, and the test error of its final
    iterate is reported; every method gets the same grid and the same
    streams and SRHT seed. The mistakes of 8 consecutive steps are counted
    with the iterate before the first of them (``steps_per_call=8``), which
    saves ``partial_fit`` calls and takes the same steps. Problems:

    - ``digits 4 vs 9``: :func:`~skcgm.datasets.digits_prototype_features`, 128 Gaussian
      prototype features (64 per class, median-heuristic bandwidth),
      240 / 121 digits, one sample per step;
    - ``correlated``: :func:`~skcgm.datasets.make_correlated_classification`,
      d = 128, 8 latent directions, condition number 30, noise 0.003,
      2000 / 2000 samples, mini-batches of 8;
    - ``sparse text``:
      :func:`~skcgm.datasets.make_sparse_text_classification`, 256 words, 20
      per document, ``class_sep=1.5``, 2000 / 2000 documents (CSR),
      mini-batches of 16 (the paper's RCV1 run averaged 160).

    Fixed options: hinge loss, ``penalty='l2'``, ``alpha=1e-4``, ``tau=1``,
    the estimator's default ``delta``, ``variant='paper'``, an intercept.

    Parameters
    ----------
    full : bool, default=False
        10 trials, the half-decade grid ``eta0`` in {0.01, 0.03, ..., 10}
        and k in {4, 8, 16, 32, 64, 96}, instead of 2 trials, ``eta0`` in
        {0.1, 1, 10} and k in {4, 8, 16, 32, 64}.
    trials : int or None, default=None
        Number of trials (data draws, splits, prototypes, streams and SRHT
        seeds); overrides ``full``.
    random_state : int, default=0
        Seed of everything.
    n_jobs : int or None, default=None
        Runs (method, ``eta0``, trial) in parallel through joblib.
    progress : callable or None, default=None
        Called with a one-line message per problem.
    problems : tuple of str, default=PROBLEMS
        Problems to run, among ``'digits 4 vs 9'``, ``'correlated'`` and
        ``'sparse text'``.
    n_components : tuple of int or None, default=None
        The k grid; overrides ``full``.
    eta0_grid : tuple of float or None, default=None
        The learning rates; overrides ``full``.

    Returns
    -------
    result : ExperimentResult
        One row per (problem, method) with ``n_components`` (the effective k:
        0, the grid, the padded dimension for full matrix),
        ``test_error_mean`` / ``_std`` / ``_trials``, the same for
        ``online_error``, ``eta0_trials`` (chosen per trial),
        ``eta0_median``, ``vs_diagonal`` (mean test error over diagonal
        AdaGrad's), ``trials_below_diagonal`` (trials whose test error is
        below diagonal AdaGrad's on the same stream) and ``pass_time_mean``
        (s, one pass).

    Examples
    --------
    >>> from skcgm.experiments import get_experiment
    >>> result = get_experiment("compadagrad").run(
    ...     trials=1, problems=("correlated",), n_components=(8,), eta0_grid=(0.1,)
    ... )
    >>> [row["method"] for row in result.rows]
    ['diagonal AdaGrad', 'CompAdaGrad k=8', 'full-matrix AdaGrad']
    """
    run = TrialRunner(TRIALS, full, trials, random_state, n_jobs, progress)
    grid = run.settings(QUICK, FULL, n_components=n_components, eta0_grid=eta0_grid)
    unknown = sorted(set(problems) - set(PROBLEMS))
    if unknown:
        raise ValueError(f"Unknown problems {unknown}; choose among {list(PROBLEMS)}.")
    trial_seeds = run.seeds((len(PROBLEMS), run.trials, 2))
    rows, sizes = [], {}
    for problem, seeds in zip(PROBLEMS, trial_seeds):
        if problem not in problems:
            continue
        data = [_load_problem(problem, int(data_seed)) for data_seed, _ in seeds]
        (X_train, _, X_test, _), batch_size = data[0]
        (n_train, d), sparse = X_train.shape, sp.issparse(X_train)
        sizes[problem] = {
            "n_train": n_train,
            "n_test": X_test.shape[0],
            "n_features": d,
            "batch_size": batch_size,
            "sparse": sparse,
        }
        # n_components >= n_features is full-matrix AdaGrad in the padded space.
        methods = {"diagonal AdaGrad": 0}
        methods |= {f"CompAdaGrad k={k}": k for k in grid.n_components}
        methods |= {"full-matrix AdaGrad": d}
        run.report(f"{problem}: {len(methods)} methods x {run.trials} trials, d={d}")
        tasks = [
            (data[t], k, eta0, int(seeds[t, 1]))
            for k in methods.values()
            for eta0 in grid.eta0_grid
            for t in range(run.trials)
        ]
        outputs = run.map(_one_run, tasks)
        outputs = np.reshape(outputs, (len(methods), len(grid.eta0_grid), -1, 4))
        block = []
        for method, runs in zip(methods, outputs):
            # The paper's criterion, per trial; ties go to the smaller eta0.
            best = runs[:, :, 0].argmin(axis=0)
            online, test, times, k = runs[best, range(run.trials)].T.tolist()
            chosen = [grid.eta0_grid[e] for e in best]
            block.append(
                {
                    "problem": problem,
                    "method": method,
                    "n_components": int(k[0]),
                    "n_features": d,
                    **_mean_std("test_error", test),
                    **_mean_std("online_error", online),
                    "eta0_trials": chosen,
                    "eta0_median": float(np.median(chosen)),
                    "pass_time_mean": float(np.mean(times)),
                }
            )
        base, base_trials = block[0]["test_error_mean"], block[0]["test_error_trials"]
        for row in block:
            row["vs_diagonal"] = row["test_error_mean"] / base if base > 0 else None
            # Paired: every method sees the same streams in a trial.
            below = np.less(row["test_error_trials"], base_trials)
            row["trials_below_diagonal"] = int(np.sum(below))
        rows += block
    caption = CAPTION.format(
        run=run,
        eta0_grid=list(grid.eta0_grid),
        steps=STEPS_PER_CALL,
        fixed=", ".join(f"{k}={v!r}" for k, v in FIXED_OPTIONS.items()),
        problems="; ".join(PROBLEM.format(name=k, **s) for k, s in sizes.items()),
    )
    return run.result(
        "compadagrad", rows, list(COLUMNS), caption, problems=sizes, **vars(grid)
    )


def plot_compadagrad(result, figure):
    """Test and online error against k, one column per problem.

    CompAdaGrad's mean error over the trials is drawn against k on a log
    axis, diagonal and full-matrix AdaGrad as flat lines over the same k,
    each with a band of one standard error of the mean. The top row is the
    test error, the bottom row the online zero-one loss the learning rate
    was chosen by.

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_compadagrad`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    """
    compressed = [r for r in result.rows if r["method"].startswith("CompAdaGrad")]
    points = []
    for row in result.rows:
        errors = {}
        for key in ("test_error", "online_error"):
            mean = row[f"{key}_mean"]
            sem = row[f"{key}_std"] / np.sqrt(len(row[f"{key}_trials"]))
            errors |= {key: mean, f"{key}_low": mean - sem, f"{key}_high": mean + sem}
        # Diagonal and full-matrix AdaGrad: flat over the k of CompAdaGrad.
        grid = [r["n_components"] for r in compressed if r["problem"] == row["problem"]]
        curve, ks = row["method"], grid
        if row in compressed:
            curve, ks = "CompAdaGrad", [row["n_components"]]
        points += [{**row, **errors, "curve": curve, "k": k} for k in ks]
    ncols = len(result.metadata["problems"])
    draw(replace(result, rows=points), figure, *PLOTS, size=(4.2, 3.2), ncols=ncols)
