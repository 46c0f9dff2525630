"""Panel for the defaults of MixedMLPRegressor (issue 19).

Candidate settings of ``MixedMLPRegressor`` (the default, the paper's
``alpha=0.01``, no penalty, the gap seeding score, a random start) beside one
``MLPRegressor`` of the same hidden width, on four data families:

- ``mlp-uniform``: ``make_mixed_mlp_regression(1200, 5, (3,), 3)``, the true
  networks drawn as the authors' code does, split 1000 / 200;
- ``mlp-normal``: the same with standard Gaussian true weights (the paper's
  text), targets of a larger scale;
- ``linear``: ``make_mixed_linear_regression(1200, 5, 3)``, a mixture of
  linear models that the networks must represent;
- ``diabetes``: :func:`sklearn.datasets.load_diabetes`, standardized inputs
  and targets, a 70 / 30 split per seed, one network (``n_components=1``).

Cells: the held-out oracle error ``min_loss`` (lower is better; for
``MLPRegressor`` half its mean squared error) on the mixtures with the true
number of components, the held-out :math:`R^2` (higher is better) on
diabetes; means over the seeds.

Usage::

    python benchmarks/_defaults_mixed_mlp.py [--full] [--json PATH] [--record]

The quick panel (3 seeds) takes about two minutes on a shared 2-core
machine; ``--full`` runs 10 seeds. ``--record`` writes
``benchmarks/results/defaults_mixed_mlp.json`` (see ``benchmarks/summary.py``).
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
    write_json,
)
from sklearn.datasets import load_diabetes
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPRegressor
from sklearn.preprocessing import StandardScaler

from skcgm.datasets import make_mixed_linear_regression, make_mixed_mlp_regression
from skcgm.neural_network import MixedMLPRegressor

CANDIDATES = {
    "default": {},
    "alpha=0.01 (paper)": {"alpha": 0.01},
    "alpha=0": {"alpha": 0.0},
    "init_score='gap'": {"init_score": "gap"},
    "init='random'": {"init": "random"},
}


def _split(X, y, n_train=1000):
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def _mixture(seed, weights):
    X, y, _, _ = make_mixed_mlp_regression(
        1200, 5, (3,), 3, weights=weights, random_state=seed
    )
    return (*_split(X, y), 3)


def _linear(seed):
    X, y, _, _ = make_mixed_linear_regression(1200, 5, 3, random_state=seed)
    return (*_split(X, y), 3)


def _diabetes(seed):
    X, y = load_diabetes(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed
    )
    scaler = StandardScaler().fit(X_train)
    mean, scale = y_train.mean(), y_train.std()
    return (
        scaler.transform(X_train),
        (y_train - mean) / scale,
        scaler.transform(X_test),
        (y_test - mean) / scale,
        1,
    )


FAMILIES = {
    "mlp-uniform": lambda seed: _mixture(seed, "uniform"),
    "mlp-normal": lambda seed: _mixture(seed, "normal"),
    "linear": _linear,
    "diabetes": _diabetes,
}


def _score(model, X, y, n_components):
    """Oracle error on the mixtures, R^2 with one component."""
    if n_components == 1:
        return model.score(X, y)
    if hasattr(model, "min_loss"):
        return model.min_loss(X, y)
    return 0.5 * np.mean((model.predict(X) - y) ** 2)


def run_panel(seeds):
    results = {}
    for family, make in FAMILIES.items():
        scores = {name: [] for name in [*CANDIDATES, "MLPRegressor((5,))"]}
        for seed in range(seeds):
            X, y, X_test, y_test, k = make(seed)
            models = {
                name: MixedMLPRegressor(k, random_state=seed, **options)
                for name, options in CANDIDATES.items()
            }
            models["MLPRegressor((5,))"] = MLPRegressor(
                hidden_layer_sizes=(5,), random_state=seed
            )
            for name, model in models.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    model.fit(X, y)
                scores[name].append(_score(model, X_test, y_test, k))
        results[family] = {name: float(np.mean(v)) for name, v in scores.items()}
        print(f"  {family} done", flush=True)
    return results


def format_results(results):
    names = list(next(iter(results.values())))
    header = ["family", *names]
    lines = [
        [family, *(f"{row[name]:.4g}" for name in names)]
        for family, row in results.items()
    ]
    table = [header, *lines]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    rule = "  ".join("-" * width for width in widths)

    def render(line):
        return "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(line, widths))
        )

    return "\n".join([render(header), rule, *map(render, lines)])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="10 seeds")
    parser.add_argument("--json", help="write the records to this path")
    add_record_argument(parser)
    args = parser.parse_args(argv)
    machine = machine_info()
    tic = time.perf_counter()
    seeds = 10 if args.full else 3
    results = run_panel(seeds)
    print(format_results(results))
    print(
        f"\nCell: mean over {seeds} seeds of the held-out oracle error min_loss "
        "(lower is better) on the mixtures, of the held-out R^2 (higher is "
        "better) on diabetes."
    )
    print(f"{time.perf_counter() - tic:.0f} s; {machine_caption(machine)}")
    if args.json:
        write_json(args.json, machine, {"full": args.full}, results)
    if args.record:
        # The mixtures' held-out oracle error (diabetes scores R^2, one network).
        ratios = {
            family: row["default"] / row["MLPRegressor((5,))"]
            for family, row in results.items()
            if family != "diabetes"
        }
        record(
            "defaults_mixed_mlp",
            spread_rows("held-out oracle error", ratios),
            args,
            title="MixedMLPRegressor defaults panel: beside one MLPRegressor",
            estimator="MixedMLPRegressor() (defaults)",
            peer="MLPRegressor((5,))",
            data=f"{len(ratios)} mixtures (1000 / 200 split), {seeds} seeds",
            machine=machine,
            config={"full": args.full, "seeds": seeds},
            results=results,
        )


if __name__ == "__main__":
    main()
