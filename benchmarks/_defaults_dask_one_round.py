"""The one-round default of LocalSensitivityLogistic on dask arrays, on a panel.

Issue 38, point 7: on a dask array ``max_iter='auto'`` stops after one round
(a uniform start, then one round of Algorithm 2 with ``sample_size='auto'``,
10% of the rows and at most 100,000 draws). This panel measures the relative
objective error ``(F - F*) / F*`` that default leaves, where ``F`` is
scikit-learn's objective ``C sum_i log(1 + exp(-y_i (w^T x_i + b))) +
||w||^2 / 2`` (``C = 1``) of the fitted coefficients and ``F*`` that of
``LogisticRegression(solver='newton-cholesky', tol=1e-12)``, on every
dense family of the defaults panel (``_defaults_local_sensitivity.py``:
Gaussian, log-normal row norms, multivariate t with outliers, correlated and
nearly low-rank, covtype-like), the issue's Gaussian rows with a logistic
link (40,000 x 12 in chunks of 5,000), at n from 1e4 to 1e6 (4e6 with
``--full``) and d in {5, 20, 100}, over ``--seeds`` values of
``random_state``, each array in 8 chunks. The draws depend on
``random_state`` and the rows, not on the scheduler or the chunks: the
local threaded scheduler computes what a cluster would.

``--solver proximal_point`` measures the one round everywhere (the default
before issue 38); the default ``--solver auto`` measures the estimator's
default, which fits by L-BFGS where one round draws fewer than 2,000 rows
per coefficient.

Usage::

    python benchmarks/_defaults_dask_one_round.py [--full] [--seeds 3]
        [--solver auto|proximal_point] [--json PATH] [--record]

``--record`` writes ``benchmarks/results/defaults_dask_one_round.json`` (with
``--solver proximal_point``: ``defaults_dask_one_round_proximal_point.json``;
see ``benchmarks/summary.py``).
"""

import argparse
import time
import warnings

import numpy as np
from _common import (
    add_record_argument,
    headline,
    machine_caption,
    machine_info,
    record,
    write_json,
)
from _defaults_local_sensitivity import make_covtype_like
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from skcgm.datasets import (
    make_correlated_classification,
    make_heavy_tailed_classification,
    make_logistic_classification,
)
from skcgm.linear_model import LocalSensitivityLogistic

N_CHUNKS = 8


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


def _sum_objective(X, y, coef, intercept):
    margins = np.where(y == 1, 1.0, -1.0) * (X @ coef + intercept)
    return float(np.logaddexp(0.0, -margins).sum() + 0.5 * coef @ coef)


def cells(full):
    sizes = (10_000, 100_000, 1_000_000) + ((4_000_000,) if full else ())
    for family in FAMILIES:
        widths = (54,) if family == "covtype_like" else (5, 20, 100)
        for n in sizes:
            for d in widths:
                # 4e6 x 100 is 3.2 GB: the widest panel stops at 1e6 rows.
                if n * d <= 1e8:
                    yield family, n, d
    yield "issue", 40_000, 12


def run_cell(family, n, d, seeds, solver="auto"):
    import dask.array as da

    X, y = FAMILIES[family](n, d, 0)
    reference = LogisticRegression(solver="newton-cholesky", tol=1e-12, max_iter=100)
    reference.fit(X, y)
    f_star = _sum_objective(X, y, reference.coef_[0], reference.intercept_[0])
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
        value = _sum_objective(X, y, model.coef_[0], model.intercept_[0])
        errors.append((value - f_star) / f_star)
    lbfgs = bool(np.isnan(model.history_[0]["prox_weight"]).all())
    return {
        "solver": "lbfgs" if lbfgs else "one round",
        "family": family,
        "n_samples": n,
        "n_features": X.shape[1],
        "draws": min(int(np.ceil(0.1 * n)), 100_000),
        "error_median": float(np.median(errors)),
        "error_max": float(np.max(errors)),
        "passes": int(np.max(passes)),
        "time_s": float(np.median(times)),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--solver", default="auto", choices=["auto", "proximal_point"])
    parser.add_argument("--json")
    add_record_argument(parser)
    args = parser.parse_args(argv)
    machine = machine_info()
    tic = time.perf_counter()
    rows = []
    for family, n, d in cells(args.full):
        rows.append(run_cell(family, n, d, args.seeds, args.solver))
        print(rows[-1], flush=True)
    print(
        "| family | n | d | draws | fit | median error | largest error | passes | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['family']} | {row['n_samples']:,} | {row['n_features']} | "
            f"{row['draws']:,} | {row['solver']} | {row['error_median']:.1e} | "
            f"{row['error_max']:.1e} | {row['passes']} | {row['time_s']:.2f} |"
        )
    errors = np.array([row["error_max"] for row in rows])
    medians = np.array([row["error_median"] for row in rows])
    print(
        f"\nOne round on {len(rows)} cells x {args.seeds} seeds: median relative "
        f"error {np.median(medians):.1e}, largest {errors.max():.1e}; "
        f"{np.mean(errors <= 1e-3):.0%} of the cells within 1e-3 at every seed."
    )
    print(f"{time.perf_counter() - tic:.0f} s; {machine_caption(machine)}")
    if args.json:
        write_json(args.json, machine, vars(args), rows)
    if args.record:
        worst = max(rows, key=lambda row: row["error_max"])
        reference = "LogisticRegression(solver='newton-cholesky'), the optimum"
        lines = [
            headline(
                f"share of the {len(rows)} cells within 1e-3 relative error at every "
                "seed",
                value=float(np.mean(errors <= 1e-3)),
                peer=reference,
            ),
            headline(
                "largest relative objective error",
                value=worst["error_max"],
                peer=reference,
                data=f"{worst['family']}, n={worst['n_samples']:,}, "
                f"d={worst['n_features']} ({worst['solver']})",
            ),
        ]
        suffix = "" if args.solver == "auto" else f"_{args.solver}"
        record(
            f"defaults_dask_one_round{suffix}",
            lines,
            args,
            title="LocalSensitivityLogistic's default fit on dask arrays, on a panel",
            estimator=f"LocalSensitivityLogistic(solver={args.solver!r}) on dask",
            peer=reference,
            data=f"{len(rows)} cells of 6 families, n from 1e4 to "
            f"{'4e6' if args.full else '1e6'}, {args.seeds} seed(s), 8 chunks",
            machine=machine,
            config=vars(args),
            results=rows,
        )


if __name__ == "__main__":
    main()
