"""The defaults panel of the momentum Lloyd solver (issue 18, part E).

The panel behind the defaults of :class:`~skcgm.optim.MomentumLloyd`
(``momentum=0.5``, ``size_change_factor=1.9``), which
``SumOfMinKMeans(solver='momentum')`` runs:
``solver='momentum'`` against ``solver='exact'`` from the same seeding (the
same ``random_state``, so the same generalized k-means++ centers: the panel
checks that both runs start from the same objective), on k-means data
families:

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
local minimum. The settings that oscillate (``momentum >= 0.7``, large
``eta0``) run to ``max_iter``.
"""

import time
import warnings

import numpy as np
from sklearn.datasets import load_digits, load_iris, make_blobs
from sklearn.model_selection import StratifiedKFold

from ..cluster import SumOfMinKMeans
from ..optim import MomentumLloyd
from ._cases import format_cases

#: Relative difference of two inertias counted as a win or a loss.
NOISE = 1e-3
#: The defaults chosen from this panel (MomentumLloyd's).
DEFAULTS = {"momentum": 0.5, "size_change_factor": 1.9}
SETTINGS = {"defaults": DEFAULTS, "noise": NOISE}


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


def _families(seeds, n_folds):
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


def _settings(full):
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


def _against_exact(cases, exact, params):
    """The summary of 'momentum' at ``params`` against the 'exact' runs."""
    ratios, n_iters, capped = [], [], 0
    for (X, k, seed), (e_inertia, _, e_start, _) in zip(cases, exact):
        solver = MomentumLloyd(**params)
        inertia, n_iter, start, _ = _fit(X, k, seed, solver)
        if not np.isclose(start, e_start, rtol=1e-12):
            raise RuntimeError("the two solvers did not share the seeding")
        ratios.append(inertia / e_inertia)
        n_iters.append(n_iter)
        capped += n_iter >= solver.max_iter
    return _summary(ratios, n_iters, capped)


def run_momentum_panel(
    *, full=False, seeds=None, families=None, settings=None, progress=None
):
    """Run the panel; the records of every setting and family.

    Parameters
    ----------
    full : bool, default=False
        10 seeds, 5 folds of compare's blobs per seed and 19 settings
        instead of 4 seeds, 2 folds and 12 settings.
    seeds : int, default=None
        Number of seeds; None means 4 (quick) or 10 (full).
    families : list of str, default=None
        Names of the families to run; None runs them all.
    settings : list of str, default=None
        Labels of the settings to run (the first, the defaults, included);
        None runs them all.
    progress : callable, default=None
        Called with one line per setting.

    Returns
    -------
    results : dict
        ``results["exact"][family]`` has the mean iterations of 'exact';
        ``results["settings"][label][family]`` the summary of 'momentum' at
        that setting against 'exact': ``geomean``, ``worst`` and ``best`` of
        the inertia ratios, ``n_better`` and ``n_worse`` (runs lower, higher
        by more than ``NOISE``), ``n_runs``, ``mean_iter`` and ``n_capped``
        (runs at ``max_iter``); ``results["seconds"][label]`` the time of the
        setting.
    """
    n_seeds = seeds or (10 if full else 4)
    data = _families(range(n_seeds), 5 if full else 2)
    data = {name: data[name] for name in families or data}
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
    for label, params in _settings(full):
        if settings is not None and label not in settings:
            continue
        if progress is not None:
            progress(f"[defaults panel] {label} ...")
        tic = time.perf_counter()
        results["settings"][label] = {
            name: _against_exact(cases, exact[name], params)
            for name, cases in data.items()
        }
        results["seconds"][label] = time.perf_counter() - tic
    return results


def _cell(s):
    cap = f" !{s['n_capped']}" if s["n_capped"] else ""
    return (
        f"{s['geomean']:.3f} ({s['worst']:.2f}) "
        f"{s['n_better']}/{s['n_worse']} {s['mean_iter']:.0f}it{cap}"
    )


def format_momentum_panel(results):
    """One line per setting, one column per family, and the legend.

    Parameters
    ----------
    results : dict
        Output of :func:`run_momentum_panel`.

    Returns
    -------
    text : str
        The table, then the legend of its cells.
    """
    names = list(results["exact"])
    cells = {name: {} for name in names}
    measures = [("exact", "exact: mean iterations", "s")]
    for name in names:
        cells[name]["exact"] = f"{results['exact'][name]['mean_iter']:.0f}it"
    for label, row in results["settings"].items():
        measures.append((label, label, "s"))
        for name in names:
            cells[name][label] = _cell(row[name])
    return (
        format_cases(cells, measures)
        + "\n\nCell: geometric mean of inertia(momentum) / inertia(exact) from the "
        "same seeding (worst ratio), runs lower/higher by more than "
        f"{NOISE:.1%}, mean iterations, !n runs at max_iter."
    )
