"""The one-round default of LocalSensitivityLogistic on dask arrays, on a panel.

The panel behind ``max_iter='auto'`` and ``solver='auto'`` of
:class:`~skcgm.linear_model.LocalSensitivityLogistic` on dask arrays (issue
38, point 7): there ``max_iter='auto'`` stops after one round (a uniform
start, then one round of Algorithm 2 with ``sample_size='auto'``, 10% of the
rows and at most 100,000 draws), and ``solver='auto'`` fits by L-BFGS where
one round draws fewer than 2,000 rows per coefficient. The panel measures
the relative objective error ``(F - F*) / F*`` the default leaves, where
``F`` is the estimator's objective of the fitted coefficients and ``F*``
that of ``LogisticRegression(solver='newton-cholesky', tol=1e-12)``, on every
dense family of the LocalSensitivityLogistic defaults panel (Gaussian,
log-normal row norms, multivariate t with outliers, correlated and nearly
low-rank, covtype-like), and the issue's Gaussian rows with a logistic link
(40,000 x 12 in chunks of 5,000), at n from 1e4 to 1e6 (4e6 in the full
panel) and d in {5, 20, 100}, each array in 8 chunks. The draws depend on
``random_state`` and the rows, not on the scheduler or the chunks: the local
threaded scheduler computes what a cluster would.
"""

import time
import warnings

import numpy as np
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from ..datasets import (
    make_correlated_classification,
    make_heavy_tailed_classification,
    make_logistic_classification,
)
from ..linear_model import LocalSensitivityLogistic
from ._defaults_local_sensitivity import logistic_mean_objective, make_covtype_like

N_CHUNKS = 8
SEEDS = 3
SOLVERS = ("auto", "proximal_point")
SETTINGS = {"n_chunks": N_CHUNKS, "seeds": SEEDS, "solvers": SOLVERS}


def _issue_rows(n, d, random_state):
    """Gaussian rows with a logistic link, as in the issue's report."""
    rng = np.random.RandomState(random_state)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = (rng.uniform(size=n) < expit(X @ w)).astype(np.int64)
    return X, y


FAMILIES = {
    "issue": _issue_rows,
    "gaussian": lambda n, d, seed: make_logistic_classification(
        n, d, random_state=seed
    )[:2],
    "lognormal": lambda n, d, seed: make_logistic_classification(
        n, d, row_scale_std=1.0, random_state=seed
    )[:2],
    "heavy_tailed": lambda n, d, seed: make_heavy_tailed_classification(
        n, d, random_state=seed
    ),
    "correlated": lambda n, d, seed: make_correlated_classification(
        n, d, n_informative=min(8, d), random_state=seed
    ),
    # Its width is fixed (10 continuous and 44 one-hot columns).
    "covtype_like": lambda n, d, seed: make_covtype_like(n, random_state=seed),
}


def _cells(full):
    """``(family, n, d)`` of the panel."""
    sizes = (10_000, 100_000, 1_000_000) + ((4_000_000,) if full else ())
    for family in FAMILIES:
        widths = (54,) if family == "covtype_like" else (5, 20, 100)
        for n in sizes:
            for d in widths:
                # 4e6 x 100 is 3.2 GB: the widest panel stops at 1e6 rows.
                if n * d <= 1e8:
                    yield family, n, d
    yield "issue", 40_000, 12


def _run_cell(family, n, d, seeds, solver):
    """The default fit's errors on one cell, over ``seeds`` random states."""
    import dask.array as da

    X, y = FAMILIES[family](n, d, 0)
    reference = LogisticRegression(solver="newton-cholesky", tol=1e-12, max_iter=100)
    reference.fit(X, y)
    f_star = logistic_mean_objective(X, y, reference.coef_[0], reference.intercept_[0])
    chunk = 5_000 if family == "issue" else -(-n // N_CHUNKS)
    X_dask = da.from_array(X, chunks=(chunk, X.shape[1]))
    y_dask = da.from_array(y, chunks=chunk)
    errors, times, passes = [], [], []
    for seed in range(seeds):
        tic = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = LocalSensitivityLogistic(solver=solver, random_state=seed)
            model.fit(X_dask, y_dask)
        times.append(time.perf_counter() - tic)
        passes.append(model.n_passes_)
        value = logistic_mean_objective(X, y, model.coef_[0], model.intercept_[0])
        errors.append((value - f_star) / f_star)
    lbfgs = bool(np.isnan(model.history_[0]["prox_weight"]).all())
    return {
        "solver": "lbfgs" if lbfgs else "one round",
        "family": family,
        "n_samples": n,
        "n_features": X.shape[1],
        "draws": min(int(np.ceil(0.1 * n)), 100_000),
        "seeds": seeds,
        "error_median": float(np.median(errors)),
        "error_max": float(np.max(errors)),
        "passes": int(np.max(passes)),
        "time_s": float(np.median(times)),
    }


def run_dask_one_round_panel(
    *, full=False, seeds=SEEDS, solver="auto", cells=None, progress=None
):
    """The relative objective error of the default fit on dask arrays, per cell.

    Needs ``dask``.

    Parameters
    ----------
    full : bool, default=False
        Add n = 4e6 to the sizes 1e4, 1e5 and 1e6.
    seeds : int, default=3
        Fits per cell, ``random_state`` 0, 1, ...
    solver : {'auto', 'proximal_point'}, default='auto'
        The estimator's ``solver``: its default, or the one round
        everywhere (the default before issue 38).
    cells : list of tuple, default=None
        ``(family, n_samples, n_features)`` to run instead of the panel's.
    progress : callable, default=None
        Called with the row of every cell as it is measured.

    Returns
    -------
    rows : list of dict
        One per cell: ``solver`` (``'lbfgs'`` or ``'one round'``, what the
        fit did), ``family``, ``n_samples``, ``n_features``, ``draws``,
        ``seeds``, ``error_median`` and ``error_max`` (over the seeds), ``passes`` over
        the data (the most of the seeds) and ``time_s`` (median seconds).
    """
    rows = []
    for family, n, d in _cells(full) if cells is None else cells:
        rows.append(_run_cell(family, n, d, seeds, solver))
        if progress is not None:
            progress(str(rows[-1]))
    return rows


def format_dask_one_round_panel(rows):
    """A Markdown table, one line per cell, and the share within 1e-3.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`run_dask_one_round_panel`.

    Returns
    -------
    text : str
        The table, then one line of summary.
    """
    lines = [
        "| family | n | d | draws | fit | median error | largest error | passes | s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['family']} | {row['n_samples']:,} | {row['n_features']} | "
            f"{row['draws']:,} | {row['solver']} | {row['error_median']:.1e} | "
            f"{row['error_max']:.1e} | {row['passes']} | {row['time_s']:.2f} |"
        )
    errors = np.array([row["error_max"] for row in rows])
    medians = np.array([row["error_median"] for row in rows])
    lines.append(
        f"\nOne round on {len(rows)} cells x {rows[0]['seeds']} seeds: median relative "
        f"error {np.median(medians):.1e}, largest {errors.max():.1e}; "
        f"{np.mean(errors <= 1e-3):.0%} of the cells within 1e-3 at every seed."
    )
    return "\n".join(lines)
