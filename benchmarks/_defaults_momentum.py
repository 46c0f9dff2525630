"""Panel for the defaults of the momentum Lloyd solver (issue 18, part E).

``SumOfMinKMeans(solver='momentum')`` against ``solver='exact'`` from the same
seeding (the same ``random_state``, so the same generalized k-means++ centers:
the panel checks that both runs start from the same objective), on k-means
data families:

- ``blobs``: compare's blobs, ``make_blobs(3000, 10, centers=5)``, on the
  training folds of compare's ``StratifiedKFold(5, shuffle=True)`` (the folds
  where the issue saw inertia 8134 against 5924);
- ``overlap``: the same with ``cluster_std=3``;
- ``aniso``: compare's blobs through a random linear map that stretches one
  direction ten times more than the others (elongated clusters);
- ``unequal``: five blobs of 1500, 600, 300, 120 and 60 samples, in a box of
  half-width 6;
- ``digits`` (k=10) and ``iris`` (k=3), unscaled as in compare, the seed
  changing only the seeding;
- ``d32k32``: ``make_blobs(3000, 32, centers=32)``, k=32.

For every family and seed the momentum solver runs at a grid of its
hyper-parameters, one varied at a time around the defaults: the momentum
``momentum`` (:math:`\\beta`), the step ``eta0`` (:math:`\\gamma`; None is
:math:`(1 - \\beta)/L`, with :math:`L = 1` for k-means), the class-size factor
``size_change_factor`` (:math:`\\alpha`) and the reclassification period
``reclassify_every`` (:math:`r`). Reported per family: the geometric mean of
the ratio of the final inertia (training objective) of 'momentum' to that of
'exact', the worst ratio, the numbers of runs where 'momentum' ends lower /
higher by more than 0.1%, the mean number of iterations, and the runs that
hit ``max_iter`` (``!n``). A ratio below 1 means momentum found the lower
local minimum.

Usage::

    python benchmarks/_defaults_momentum.py [--full] [--json PATH] [--record]

The quick panel (4 seeds, 2 folds of compare's blobs per seed, 12 settings)
took 91 s on a shared 2-core machine; ``--full`` (10 seeds, 5 folds, 19
settings) took 445 s. The settings that oscillate (``momentum >= 0.7``, large
``eta0``) take most of the time, running to ``max_iter``. ``--record`` writes
``benchmarks/results/defaults_momentum.json`` (see ``benchmarks/summary.py``).
"""

import argparse
import time
import warnings

import numpy as np
from _common import (
    add_record_argument,
    format_table,
    machine_caption,
    machine_info,
    record,
    spread_rows,
    write_json,
)
from sklearn.datasets import load_digits, load_iris, make_blobs
from sklearn.model_selection import StratifiedKFold

from skcgm.cluster import SumOfMinKMeans
from skcgm.optim import MomentumLloyd

#: Relative difference of two inertias counted as a win or a loss.
NOISE = 1e-3
#: The defaults chosen from this panel (MomentumLloyd's).
DEFAULTS = {"momentum": 0.5, "size_change_factor": 1.9}


def _compare_blobs(seed, n_folds, **params):
    X, y = make_blobs(3000, n_features=10, centers=5, random_state=seed, **params)
    folds = StratifiedKFold(5, shuffle=True, random_state=seed).split(X, y)
    return [X[train] for train, _ in list(folds)[:n_folds]]


def _aniso(seed):
    X, _ = make_blobs(3000, n_features=10, centers=5, random_state=seed)
    rng = np.random.RandomState(seed)
    scales = np.r_[3.0, np.full(9, 0.3)]
    return X @ (rng.normal(size=(10, 10)) * scales[:, None])


def _unequal(seed):
    sizes = [1500, 600, 300, 120, 60]
    X, _ = make_blobs(sizes, n_features=10, center_box=(-6, 6), random_state=seed)
    return X


def families(seeds, n_folds):
    """``{family: [(X, n_clusters, seed), ...]}`` of the panel."""
    digits, iris = load_digits().data, load_iris().data
    out = {}
    for seed in seeds:
        runs = {
            "blobs": [(X, 5) for X in _compare_blobs(seed, n_folds)],
            "overlap": [(X, 5) for X in _compare_blobs(seed, 1, cluster_std=3.0)],
            "aniso": [(_aniso(seed), 5)],
            "unequal": [(_unequal(seed), 5)],
            "digits": [(digits, 10)],
            "iris": [(iris, 3)],
            "d32k32": [
                (make_blobs(3000, n_features=32, centers=32, random_state=seed)[0], 32)
            ],
        }
        for name, cases in runs.items():
            out.setdefault(name, []).extend((X, k, seed) for X, k in cases)
    return out


def settings(full):
    """``[(label, MomentumLloyd parameters), ...]``, one varied at a time."""
    betas = [0.0, 0.1, 0.3, 0.7, 0.9] if full else [0.1, 0.3, 0.7]
    alphas = [1.2, 1.5, 2.5, 3.0, 1e6] if full else [1.2, 1.5, 3.0, 1e6]
    periods = [2, 5, 10] if full else [2, 5]
    # Step multipliers of the default (1 - beta)/L = 0.5 at beta = 0.5.
    steps = [0.25, 0.75, 0.9] if full else [0.25, 0.75]
    grid = [("defaults (b=0.5, a=1.9, r=1)", {})]
    grid += [(f"momentum={b:g}", {"momentum": b}) for b in betas]
    grid += [
        (
            f"size_change_factor={a:g}" + (" (before)" if a == 1.5 else ""),
            {"size_change_factor": a},
        )
        for a in alphas
    ]
    grid += [(f"reclassify_every={r}", {"reclassify_every": r}) for r in periods]
    grid += [(f"eta0={g:g}", {"eta0": g}) for g in steps]
    if full:
        grid += [
            ("momentum=0.3, a=3", {"momentum": 0.3, "size_change_factor": 3.0}),
            ("momentum=0.7, a=1.4", {"momentum": 0.7, "size_change_factor": 1.4}),
        ]
    return [(label, {**DEFAULTS, **params}) for label, params in grid]


def _fit(X, k, seed, solver):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SumOfMinKMeans(k, solver=solver, random_state=seed).fit(X)
    start = model.objective_history_[0]
    return model.inertia_, model.n_iter_, start, len(caught)


def _summary(ratios, n_iters, capped):
    r = np.asarray(ratios)
    return {
        "geomean": float(np.exp(np.log(r).mean())),
        "worst": float(r.max()),
        "best": float(r.min()),
        "n_better": int((r < 1 - NOISE).sum()),
        "n_worse": int((r > 1 + NOISE).sum()),
        "n_runs": int(r.size),
        "mean_iter": float(np.mean(n_iters)),
        "n_capped": int(capped),
    }


def _cell(s):
    cap = f" !{s['n_capped']}" if s["n_capped"] else ""
    return (
        f"{s['geomean']:.3f} ({s['worst']:.2f}) "
        f"{s['n_better']}/{s['n_worse']} {s['mean_iter']:.0f}it{cap}"
    )


def run_panel(quick=True):
    """Run the panel; the records of every setting and family.

    Parameters
    ----------
    quick : bool, default=True
        4 seeds, 2 folds of compare's blobs per seed and 12 settings; False
        runs 10 seeds, 5 folds and 19 settings.

    Returns
    -------
    results : dict
        ``results["exact"][family]`` has the mean iterations of 'exact';
        ``results["settings"][label][family]`` the summary of 'momentum' at
        that setting against 'exact' (see the module docstring).
    """
    seeds = range(4) if quick else range(10)
    data = families(seeds, 2 if quick else 5)
    exact = {
        name: [_fit(X, k, seed, "exact") for X, k, seed in cases]
        for name, cases in data.items()
    }
    results = {
        "exact": {
            name: {"mean_iter": float(np.mean([run[1] for run in runs]))}
            for name, runs in exact.items()
        },
        "settings": {},
        "seconds": {},
    }
    for label, params in settings(full=not quick):
        tic = time.perf_counter()
        row = {}
        for name, cases in data.items():
            ratios, n_iters, capped = [], [], 0
            for (X, k, seed), (e_inertia, _, e_start, _) in zip(cases, exact[name]):
                solver = MomentumLloyd(**params)
                inertia, n_iter, start, _ = _fit(X, k, seed, solver)
                if not np.isclose(start, e_start, rtol=1e-12):
                    raise RuntimeError("the two solvers did not share the seeding")
                ratios.append(inertia / e_inertia)
                n_iters.append(n_iter)
                capped += n_iter >= solver.max_iter
            row[name] = _summary(ratios, n_iters, capped)
        results["settings"][label] = row
        results["seconds"][label] = time.perf_counter() - tic
    return results


def format_results(results):
    """The panel as a text table: one line per setting, one column per family."""
    names = list(results["exact"])
    columns = {name: {} for name in names}
    rows = [("exact", "exact: mean iterations", "s")]
    for name in names:
        columns[name]["exact"] = f"{results['exact'][name]['mean_iter']:.0f}it"
    for label, row in results["settings"].items():
        rows.append((label, label, "s"))
        for name in names:
            columns[name][label] = _cell(row[name])
    return format_table(columns, rows, 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="10 seeds, 19 settings")
    parser.add_argument("--json", help="write the records to this path")
    add_record_argument(parser)
    args = parser.parse_args(argv)
    machine = machine_info()
    tic = time.perf_counter()
    results = run_panel(quick=not args.full)
    print(format_results(results))
    print(
        "\nCell: geometric mean of inertia(momentum) / inertia(exact) from the "
        "same seeding (worst ratio), runs lower/higher by more than "
        f"{NOISE:.1%}, mean iterations, !n runs at max_iter."
    )
    print(f"{time.perf_counter() - tic:.0f} s; {machine_caption(machine)}")
    if args.json:
        write_json(args.json, machine, {"full": args.full}, results)
    if args.record:
        defaults = next(iter(results["settings"].values()))
        ratios = {family: cell["geomean"] for family, cell in defaults.items()}
        record(
            "defaults_momentum",
            spread_rows("final inertia, geometric mean over the runs", ratios),
            args,
            title="Defaults of the momentum Lloyd solver: against exact Lloyd",
            estimator="SumOfMinKMeans(solver='momentum') (defaults)",
            peer="SumOfMinKMeans(solver='exact'), the same seeding",
            data=f"{len(ratios)} k-means data families, "
            f"{'10 seeds, 5 folds' if args.full else '4 seeds, 2 folds'}",
            machine=machine,
            config={"full": args.full},
            results=results,
        )


if __name__ == "__main__":
    main()
