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
from functools import partial

import numpy as np

from ..datasets import make_gaussian_mixture
from ..oracles import kernel_mean_squared_norm, squared_mmd
from ..sampling import KernelHerdingSampler
from ._plot import Panel, draw
from ._result import Column
from ._runner import TrialRunner

SUBSET_SIZES = (16, 32, 64, 128, 256)
QUICK = {"n_samples": 2000, "dimensions": (2,)}
FULL = {"n_samples": 4000, "dimensions": (2, 10)}
# i.i.d. seeds at the quick and at the paper's size.
TRIALS = (10, 30)
# The paper's algorithms: herding's own selections, without the swap passes
# of refine='auto'.
PAPER = {"refine": None}
# LSH herding runs on explicit random Fourier features.
LSH_OPTIONS = {
    "feature_map": "rff",
    "n_components": 256,
    "maxip": "lsh",
    "n_tables": 16,
    "n_bits": 8,
    "n_probes": 16,
    "n_candidates": 0.05,
    **PAPER,
}
COLUMNS = (
    Column("n_features", "d", group=True),
    Column("method", "method", group=True),
    Column("m", "m"),
    Column("mmd2", "MMD^2", ".3e"),
    Column("ratio_to_iid", "/ i.i.d. median", ".3f"),
    Column("scored_fraction", "scored / n per iter", ".3f"),
    Column("fit_time", "fit time (s)", ".3f"),
)
CAPTION = (
    "Table: squared MMD (exact RBF kernel, gamma = 1/(2d)) between n = {n_samples} "
    "points of a 4-component Gaussian mixture (make_gaussian_mixture) and a weighted "
    "subset of m of them. Herding (exact): KernelHerdingSampler(feature_map='exact', "
    "maxip='exact', refine=None), Algorithm 3 with the kernel trick; herding (LSH): "
    "{lsh} (Algorithm 4). i.i.d.: m points uniformly without replacement, uniform "
    "weights, median over {run.trials} seeds. Kernel thinning: {kernel_thinning}. "
    "random_state={run.random_state}, {run.cpu_count} cores."
)
# The caption's kernel-thinning text, indexed by whether goodpoints imports.
KERNEL_THINNING_TEXT = (
    "skipped, the optional goodpoints package is not installed",
    "goodpoints.kt.thin (target kernel as split and swap kernel, delta=0.5) on the "
    "first m 2^r <= n rows",
)
PLOT = Panel(
    "m",
    "mmd2",
    "method",
    "subset size m",
    "squared MMD (RBF)",
    title="Gaussian mixture, d = {n_features}, n = {n_samples}",
    split="n_features",
    band=("mmd2_q25", "mmd2_q75"),
    xscale={"value": "log", "base": 2},
    yscale="log",
)


def kernel_thinning_available():
    """Whether the optional ``goodpoints`` package (kernel thinning) imports.

    Returns
    -------
    available : bool
        True when ``goodpoints`` is installed.

    Examples
    --------
    >>> from skcgm.experiments._herding import kernel_thinning_available
    >>> isinstance(kernel_thinning_available(), bool)
    True
    """
    return importlib.util.find_spec("goodpoints") is not None


def kernel_thinning(X, m, gamma, seed):
    r"""Kernel thinning of ``X`` down to ``m`` points, with uniform weights.

    The baseline of the herding tables (Dwivedi and Mackey's
    ``goodpoints.kt.thin``, an optional dependency: see
    :func:`kernel_thinning_available`). Thinning halves the rows
    :math:`r = \lfloor \log_2(n / m) \rfloor` times, so it runs on the first
    :math:`m 2^r \le n` rows (the caller shuffles them), with the Gaussian
    kernel :math:`k(x, y) = e^{-\gamma \|x - y\|^2}` as both split and swap
    kernel.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The rows, in random order.
    m : int
        The number of points kept, at most ``n_samples``.
    gamma : float
        The kernel's :math:`\gamma`.
    seed : int
        The seed of the thinning's coin flips.

    Returns
    -------
    indices : ndarray of shape (m,)
        The rows kept.
    weights : ndarray of shape (m,)
        :math:`1/m` each.
    scored : None
        Nothing is scored per step (herding reports a fraction there).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.experiments import kernel_thinning, kernel_thinning_available
    >>> X = np.random.RandomState(0).normal(size=(64, 2))
    >>> if kernel_thinning_available():
    ...     indices, weights, _ = kernel_thinning(X, 8, 0.5, 0)
    ...     assert len(indices) == 8 and np.isclose(weights.sum(), 1.0)
    """
    from goodpoints import kt

    def kernel(y, Z):
        return np.exp(-gamma * ((np.atleast_2d(y) - Z) ** 2).sum(axis=1))

    rounds = int(math.floor(math.log2(X.shape[0] / m)))
    rows = X[: m * 2**rounds]
    indices = np.asarray(kt.thin(rows, rounds, kernel, kernel, delta=0.5, seed=seed))
    return indices, np.full(len(indices), 1.0 / len(indices)), None


def _herding(options, X, m, gamma, seed):
    """Herding's subset, weights and mean fraction of the rows scored per step."""
    sampler = KernelHerdingSampler(
        n_samples=m, kernel="rbf", gamma=gamma, random_state=seed, **options
    ).fit(X)
    scored = float(np.mean(sampler.n_scored_) / X.shape[0])
    return sampler.support_, sampler.support_weight_, scored


def _uniform(X, m, gamma, seed):
    """m rows drawn uniformly without replacement, uniform weights."""
    indices = np.random.RandomState(seed).choice(X.shape[0], m, replace=False)
    return indices, np.full(m, 1.0 / m), None


def _measure(fit, seeds, m, X, gamma, norm):
    """MMD^2 of the subset of size m ``fit`` draws, with its time and cost.

    ``norm`` is the squared norm of the data's kernel mean. Over several seeds
    (i.i.d. subsets), the median and quartiles instead.
    """
    start = time.perf_counter()
    subsets = [fit(X, m, gamma, int(seed)) for seed in seeds]
    fit_time = time.perf_counter() - start
    mmd2 = [squared_mmd(X, i, w, gamma=gamma, data_term=norm) for i, w, _ in subsets]
    if fit is not _uniform:
        return {"mmd2": mmd2[0], "scored_fraction": subsets[0][2], "fit_time": fit_time}
    quartiles = np.percentile(mmd2, [50, 25, 75]).tolist()
    row = dict(zip(("mmd2", "mmd2_q25", "mmd2_q75"), quartiles))
    return row | {"scored_fraction": None, "fit_time": None}


IID = "i.i.d. (median)"
# The subset each method draws, in the order of the table.
METHODS = {
    "herding (exact)": partial(
        _herding, {"feature_map": "exact", "maxip": "exact", **PAPER}
    ),
    "herding (LSH, RFF 256)": partial(_herding, LSH_OPTIONS),
    IID: _uniform,
    "kernel thinning": kernel_thinning,
}


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
      maxip='exact', refine=None)`` (Algorithm 3, kernel trick);
    - kernel herding, LSH: ``feature_map='rff', n_components=256,
      maxip='lsh', n_tables=16, n_bits=8, n_probes=16, n_candidates=0.05,
      refine=None``
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
    run = TrialRunner(TRIALS, full, trials, random_state, n_jobs, progress)
    size = run.settings(QUICK, FULL, n_samples=n_samples, dimensions=dimensions)
    have_kt = kernel_thinning_available()
    methods = {k: f for k, f in METHODS.items() if have_kt or f is not kernel_thinning}
    rows = []
    for d in size.dimensions:
        X = make_gaussian_mixture(
            size.n_samples, d, n_components=4, random_state=run.seed()
        )
        gamma = 1.0 / (2.0 * d)
        data = (X, gamma, kernel_mean_squared_norm(X, gamma=gamma))
        seed, iid_seeds = run.seed(), run.seeds(run.trials)
        common = {"n_features": d, "n_samples": size.n_samples, "gamma": gamma}
        block = []
        for method, fit in methods.items():
            run.report(f"d={d}: {method}")
            seeds = iid_seeds if fit is _uniform else [seed]
            block += [
                {"method": method, "m": m, **common, **_measure(fit, seeds, m, *data)}
                for m in sorted(subset_sizes)
            ]
        iid = {row["m"]: row["mmd2"] for row in block if row["method"] == IID}
        for row in block:
            row["ratio_to_iid"] = row["mmd2"] / iid[row["m"]]
        rows += block
    lsh = ", ".join(f"{key}={value!r}" for key, value in LSH_OPTIONS.items())
    text = KERNEL_THINNING_TEXT[have_kt]
    caption = CAPTION.format(run=run, lsh=lsh, kernel_thinning=text, **vars(size))
    return run.result(
        "herding", rows, list(COLUMNS), caption, subset_sizes=subset_sizes, **vars(size)
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
    draw(result, figure, PLOT)
