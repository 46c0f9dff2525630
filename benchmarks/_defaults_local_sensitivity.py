"""The defaults panel of ``LocalSensitivityLogistic``: every candidate against
uniform sampling at equal draws, on several data families.

Issue 18 (part A): the paper's literal choices (``scores='theorem10'``,
``prox_weight='sqrt_grad'``) lost to uniform sampling on heavy-tailed data.
This panel scores each candidate default by the median relative objective
error ``(F - F*) / F*`` after 15 and after 100 rounds over 5 seeds, where
``F`` is the estimator's mean-form objective
``(1/n) sum_i log(1 + exp(-y_i (w^T x_i + b))) + ||w||^2 / (2 C n)`` (its
``history_[0]['objective']``, ``C = 1``) and ``F*`` that of
``LogisticRegression(solver='newton-cholesky', tol=1e-12)`` with the same
``C`` (scikit-learn's objective divided by ``C n``). Every candidate draws
the same number ``m`` of rows per round (300 for the generated sets, 10% of
the rows for the small bundled ones), with ``tol=0`` and
``n_iter_no_change=None`` so that all run 100 rounds.

Families: ``gaussian`` (``make_logistic_classification``), ``lognormal``
(the same with ``row_scale_std=1``: log-normal row norms),
``heavy_tailed`` (``make_heavy_tailed_classification``: multivariate t rows,
``df=2``, 5 rows scaled by 100 after their labels are drawn),
``sparse_text`` (``make_sparse_text_classification``, CSR),
``correlated`` (``make_correlated_classification``: ill-conditioned,
nearly low-rank), ``covtype_like`` (10 skewed continuous features of unequal
scales plus 4 + 40 one-hot columns with Zipf frequencies, labels from a
logistic model), ``breast_cancer`` and ``digits`` (even against odd),
standardized. The paper claims an advantage on the first three kinds
(heavy tails, high leverage, non-uniform row norms).

Usage::

    python benchmarks/_defaults_local_sensitivity.py [--full] [--record]

``--full`` adds a second size of every generated family (n = 50,000) and the
fixed prox weight candidates; the default (quick) mode runs in about two
minutes on one core. ``--record`` writes
``benchmarks/results/defaults_local_sensitivity.json`` (see
``benchmarks/summary.py``).
"""

import argparse
import time
import warnings

import numpy as np
from _common import (
    add_record_argument,
    machine_caption,
    machine_info,
    record,
    spread_rows,
)
from scipy.special import expit
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state

from skcgm.datasets import (
    make_correlated_classification,
    make_heavy_tailed_classification,
    make_logistic_classification,
    make_sparse_text_classification,
)
from skcgm.linear_model import LocalSensitivityLogistic

C = 1.0
SEEDS = 5
ROUNDS = (15, 100)
DRAWS = 300
# label: estimator parameters. 'paper' is the paper's Algorithm 2 as printed;
# 'default' whatever LocalSensitivityLogistic() now does.
CANDIDATES = {
    "default": {},
    "paper": {"scores": "theorem10", "prox_weight": "sqrt_grad"},
    "leverage_only": {"scores": "leverage_only", "prox_weight": "sqrt_grad"},
    "static_leverage": {"sampling": "leverage"},
    "uniform": {"sampling": "uniform"},
}
# The full panel also scores 'theorem9' by name (the default at the time of
# writing, so a duplicate column in quick mode) and fixed prox weights.
FULL_CANDIDATES = {
    "theorem9": {"scores": "theorem9", "prox_weight": "sqrt_grad"},
    "theorem9_pw0.01": {"scores": "theorem9", "prox_weight": 0.01},
    "uniform_pw0.01": {"sampling": "uniform", "prox_weight": 0.01},
}


def make_covtype_like(n_samples, random_state=None):
    """Mixed continuous and one-hot features, as the covertype data.

    10 continuous features (log-normal, gamma and Gaussian, on scales from 1
    to 1000, as elevation, distances and angles), one-hot columns of two
    categorical features with 4 and 40 levels of Zipf frequencies (as the
    wilderness areas and soil types), and labels drawn from a logistic model
    on the standardized continuous features and random level effects.
    """
    rng = check_random_state(random_state)
    scales = np.logspace(0, 3, 10)
    continuous = np.column_stack(
        [
            rng.lognormal(0.0, 1.0, n_samples),
            rng.gamma(2.0, 1.0, n_samples),
            *[rng.standard_normal(n_samples) for _ in range(8)],
        ]
    )
    continuous *= scales
    blocks, effects = [], []
    for levels in (4, 40):
        p = 1.0 / np.arange(1, levels + 1) ** 1.2
        codes = rng.choice(levels, size=n_samples, p=p / p.sum())
        blocks.append(np.eye(levels)[codes])
        effects.append(rng.standard_normal(levels))
    standardized = (continuous - continuous.mean(0)) / continuous.std(0)
    w = rng.standard_normal(10)
    margins = standardized @ (2.0 * w / np.linalg.norm(w))
    margins += blocks[0] @ effects[0] + blocks[1] @ effects[1]
    y = (rng.uniform(size=n_samples) < expit(margins)).astype(np.int64)
    # Unscaled, as a user would pass the raw data, apart from one global
    # rescale to keep the objective within a few orders of magnitude.
    X = np.hstack([continuous / scales.max(), *blocks])
    return X, y


def _bundled(loader, binary):
    X, y = loader(return_X_y=True)
    return StandardScaler().fit_transform(X), binary(y)


def families(full=False):
    """``{name: (X, y, draws)}`` of the panel."""
    sizes = (5_000, 50_000) if full else (5_000,)
    out = {}
    for n in sizes:
        suffix = f"_{n // 1000}k"
        out["gaussian" + suffix] = make_logistic_classification(n, 20, random_state=0)[
            :2
        ]
        out["lognormal" + suffix] = make_logistic_classification(
            n, 20, row_scale_std=1.0, random_state=0
        )[:2]
        out["heavy_tailed" + suffix] = make_heavy_tailed_classification(
            n, 20, random_state=0
        )
        out["sparse_text" + suffix] = make_sparse_text_classification(
            n, 256, random_state=0
        )
        out["correlated" + suffix] = make_correlated_classification(
            n, 64, random_state=0
        )
        out["covtype_like" + suffix] = make_covtype_like(n, random_state=0)
    out = {name: (X, y, DRAWS) for name, (X, y) in out.items()}
    for name, loader, binary in (
        ("breast_cancer", load_breast_cancer, lambda y: y),
        ("digits", load_digits, lambda y: y % 2),
    ):
        X, y = _bundled(loader, binary)
        out[name] = (X, y, int(np.ceil(0.1 * len(y))))
    return out


def _objective(X, y, coef, intercept):
    """The estimator's mean-form objective."""
    margins = np.where(y == 1, 1.0, -1.0) * (np.asarray(X @ coef).ravel() + intercept)
    data = float(np.mean(np.logaddexp(0.0, -margins)))
    return data + float(coef @ coef) / (2.0 * C * len(y))


def optimum(X, y):
    """``F*`` from a tight full-data LogisticRegression with the same C."""
    model = LogisticRegression(
        C=C, solver="newton-cholesky", tol=1e-12, max_iter=1000
    ).fit(X, y)
    return _objective(X, y, model.coef_.ravel(), model.intercept_[0])


def score(X, y, draws, params, f_star, seeds=SEEDS):
    """Median relative errors after each of ``ROUNDS`` and the median time."""
    errors, times = [], []
    for seed in range(seeds):
        model = LocalSensitivityLogistic(
            C=C,
            sample_size=draws,
            max_iter=max(ROUNDS),
            tol=0.0,
            n_iter_no_change=None,
            random_state=seed,
            **params,
        )
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        times.append(time.perf_counter() - start)
        objective = model.history_[0]["objective"]
        errors.append([(objective[t] - f_star) / f_star for t in ROUNDS])
    return np.median(errors, axis=0), float(np.median(times))


def run_panel(quick=True, candidates=None):
    """One row per (family, candidate).

    Parameters
    ----------
    quick : bool, default=True
        One size per generated family (n = 5,000) and the candidates of
        ``CANDIDATES``; False adds n = 50,000 and ``FULL_CANDIDATES``.
    candidates : dict, default=None
        ``{label: parameters}`` to score instead.

    Returns
    -------
    rows : list of dict
        Keys ``family``, ``n``, ``d``, ``draws``, ``candidate``, ``err15``,
        ``err100`` (median relative errors), ``ratio15`` and ``ratio100``
        (over uniform's), ``time`` (median seconds per 100-round fit).
    """
    if candidates is None:
        candidates = dict(CANDIDATES)
        if not quick:
            candidates.update(FULL_CANDIDATES)
    rows = []
    for family, (X, y, draws) in families(full=not quick).items():
        f_star = optimum(X, y)
        results = {
            label: score(X, y, draws, params, f_star)
            for label, params in candidates.items()
        }
        uniform = results.get("uniform", (None,))[0]
        for label, (errors, seconds) in results.items():
            row = {
                "family": family,
                "n": X.shape[0],
                "d": X.shape[1],
                "draws": draws,
                "candidate": label,
                "err15": float(errors[0]),
                "err100": float(errors[1]),
                "time": seconds,
            }
            if uniform is not None:
                row["ratio15"] = float(errors[0] / uniform[0])
                row["ratio100"] = float(errors[1] / uniform[1])
            rows.append(row)
    return rows


def format_rows(rows):
    """A markdown table, one line per family, err15 / err100 per candidate."""
    labels = list(dict.fromkeys(row["candidate"] for row in rows))
    header = "| family (n x d, draws) | " + " | ".join(labels) + " |"
    lines = [header, "|" + "---|" * (len(labels) + 1)]
    for family in dict.fromkeys(row["family"] for row in rows):
        cells = {row["candidate"]: row for row in rows if row["family"] == family}
        first = next(iter(cells.values()))
        line = f"| {family} ({first['n']} x {first['d']}, {first['draws']}) |"
        for label in labels:
            row = cells[label]
            line += f" {row['err15']:.3g} / {row['err100']:.3g} |"
        lines.append(line)
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--full", action="store_true", help="two sizes, more candidates"
    )
    add_record_argument(parser)
    args = parser.parse_args(argv)
    machine = machine_info()
    start = time.perf_counter()
    rows = run_panel(quick=not args.full)
    print(
        "Median relative objective error (F - F*) / F* after 15 / after 100 "
        f"rounds, {SEEDS} seeds, C={C}, equal draws per round."
    )
    print(format_rows(rows))
    print(f"\n{time.perf_counter() - start:.0f} s; {machine_caption(machine)}")
    if args.record:
        ratios = {
            f"{row['family']} ({row['n']} x {row['d']})": row["ratio100"]
            for row in rows
            if row["candidate"] == "default"
        }
        record(
            "defaults_local_sensitivity",
            spread_rows("relative objective error after 100 rounds", ratios),
            args,
            title="LocalSensitivityLogistic defaults panel: against uniform sampling",
            estimator="LocalSensitivityLogistic() (its default sampler)",
            peer="sampling='uniform', equal draws",
            data=f"{len(ratios)} data families, {SEEDS} seeds, "
            f"{'two sizes' if args.full else 'quick'}",
            machine=machine,
            config={"full": args.full, "seeds": SEEDS, "C": C},
            results={"rows": rows},
        )
    return rows


if __name__ == "__main__":
    main()
