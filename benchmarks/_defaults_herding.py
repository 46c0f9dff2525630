"""KernelHerdingSampler defaults: where 'auto' switches from exact to features.

The measurements behind ``feature_map='auto'`` and ``maxip='auto'`` of
:class:`~skcgm.sampling.KernelHerdingSampler` (issue 18, part D). On the
Gaussian mixture of ``skcgm.datasets.make_gaussian_mixture`` for n in
{1e3, 3e3, 1e4, 3e4, 5e4} and d in {2, 20, 64}, with the sampler's defaults
otherwise (``n_samples=100``, ``gamma='scale'``, 256 random Fourier
features, 16 LSH tables of 8 bits), three searches are timed, single
threaded:

- ``exact``: ``feature_map='exact'``, the kernel trick (the O(n^2 d) mean
  embedding, then O(n d) per iteration);
- ``rff``: ``feature_map='rff', maxip='exact'``, an exact scan of the
  random features;
- ``rff+lsh``: ``feature_map='rff', maxip='lsh'``.

Reported per case: the fit time (best of ``repeats`` below n = 1e4, one fit
above), as CPU time (the fits are single threaded, so this is their time on
an idle core) and wall time (which also counts the other processes of a
shared machine), the sampler's own squared MMD ``-score(X)`` (in its kernel for
``exact``, in the random-feature space otherwise, so the three are not on
one scale), the squared MMD in the exact RBF kernel of every subset (the
comparable figure; the data term :math:`p^\\top K p` is read off the exact
fit, so it costs no extra :math:`O(n^2 d)` pass), and the rows scored per
iteration by LSH. The exact fit is skipped, in ``quick`` mode, where its
predicted time (from the smaller n of the same d, as :math:`n^2`) exceeds
``max_exact_seconds``; its MMD column is then empty.

A second panel, :func:`run_lsh_panel`, times random features with and without
the index beyond the grid (n up to 2e5) and for more iterations
(``n_samples`` 100 and 1000), where the index can pay for its construction.

A third, :func:`run_refine_panel` (issue 38), measures ``refine='swap'``
against plain herding (``refine=None``) with every other parameter at its
default, on a panel of data families (Gaussian mixtures at d = 2, 10 and 50,
Student t rows with outliers, the uniform cube, the swiss roll, the digits
images, alone and per class), n from 2^10 to 2^16 and n_samples from 16 to
2048: the share of the fit the swap passes take, the swaps made and the
ratio of the squared MMDs, beside what ``refine='auto'`` resolved to.

Usage::

    python benchmarks/_defaults_herding.py [--full] [--panel all] [--json PATH]
    python benchmarks/_defaults_herding.py --panel refine [--json PATH]

``--record`` writes ``benchmarks/results/defaults_herding.json`` (with
``--panel grid``, ``lsh`` or ``refine``: ``defaults_herding_<panel>.json``;
see ``benchmarks/summary.py``).
"""

import argparse
import contextlib
import io
import re
import time

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
from sklearn.datasets import load_digits, make_swiss_roll
from sklearn.metrics.pairwise import rbf_kernel
from threadpoolctl import threadpool_limits

from skcgm.datasets import make_gaussian_mixture, make_heavy_tailed_classification
from skcgm.sampling import KernelHerdingSampler

SEED = 0
SIZES = (1_000, 3_000, 10_000, 20_000, 30_000, 50_000)
DIMENSIONS = (2, 20, 64)
# The thresholds of feature_map and maxip weigh herding's own searches: the
# swap passes of refine='auto' (the refine panel) are left out.
METHODS = {
    "exact": {"feature_map": "exact", "maxip": "exact", "refine": None},
    "rff": {"feature_map": "rff", "maxip": "exact", "refine": None},
    "rff+lsh": {"feature_map": "rff", "maxip": "lsh", "refine": None},
}


def _scale_gamma(X):
    """SVC's gamma='scale', 1 / (n_features * X.var())."""
    var = X.var()
    return 1.0 / (X.shape[1] * var) if var != 0 else 1.0


def _subset_terms(X, sampler, gamma):
    """``w' K_SS w - 2 w' K_SX p`` of the subset, in the exact RBF kernel."""
    S = X[sampler.support_]
    w = sampler.support_weight_
    cross = rbf_kernel(S, X, gamma=gamma).mean(axis=1) @ w
    return float(w @ rbf_kernel(S, gamma=gamma) @ w - 2.0 * cross)


def _fit(X, options, repeats):
    """Best CPU and wall times of ``repeats`` fits, and the last sampler.

    The fit runs on one thread, so its CPU time is what its wall time would
    be on an idle core; the wall time also counts the other processes of a
    shared machine.
    """
    cpu, wall = [], []
    for _ in range(repeats):
        sampler = KernelHerdingSampler(random_state=SEED, **options)
        start, start_cpu = time.perf_counter(), time.process_time()
        sampler.fit(X)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return min(cpu), min(wall), sampler


def _case(n, d, repeats, skip_exact):
    X = make_gaussian_mixture(n, d, random_state=SEED + d)
    gamma = _scale_gamma(X)
    out = {"n": n, "d": d, "gamma": gamma}
    subset = {}
    for name, options in METHODS.items():
        if name == "exact" and skip_exact:
            out[f"time_{name}"] = out[f"wall_{name}"] = None
            out[f"mmd2_own_{name}"] = None
            continue
        seconds, wall, sampler = _fit(X, {**options, "gamma": gamma}, repeats)
        out[f"time_{name}"] = seconds
        out[f"wall_{name}"] = wall
        out[f"mmd2_own_{name}"] = -sampler.score(X)
        out[f"scored_{name}"] = float(sampler.n_scored_.mean() / n)
        subset[name] = _subset_terms(X, sampler, gamma)
    data_term = (
        None if skip_exact else out["mmd2_own_exact"] - subset["exact"]
    )  # p'Kp = MMD^2 - (w'Kw - 2 w'Kp) of the exact fit.
    for name in METHODS:
        known = data_term is not None and name in subset
        out[f"mmd2_{name}"] = data_term + subset[name] if known else None
    return out


ROWS = (
    ("gamma", "gamma ('scale')", ".3g"),
    ("time_exact", "fit CPU time exact (s)", ".2f"),
    ("time_rff", "fit CPU time rff (s)", ".2f"),
    ("time_rff+lsh", "fit CPU time rff+lsh (s)", ".2f"),
    ("wall_exact", "fit wall time exact (s)", ".2f"),
    ("wall_rff", "fit wall time rff (s)", ".2f"),
    ("wall_rff+lsh", "fit wall time rff+lsh (s)", ".2f"),
    ("mmd2_exact", "MMD^2 exact kernel, exact", ".3e"),
    ("mmd2_rff", "MMD^2 exact kernel, rff", ".3e"),
    ("mmd2_rff+lsh", "MMD^2 exact kernel, rff+lsh", ".3e"),
    ("mmd2_own_rff", "-score (RFF space), rff", ".3e"),
    ("mmd2_own_rff+lsh", "-score (RFF space), rff+lsh", ".3e"),
    ("scored_rff+lsh", "LSH rows scored / n per iteration", ".3f"),
)


def run_panel(quick=True, sizes=SIZES, dimensions=DIMENSIONS, max_exact_seconds=60.0):
    """Measure the three searches over the grid; a dict of cases.

    Parameters
    ----------
    quick : bool, default=True
        One fit per case, and the exact fit skipped where it is predicted to
        take more than ``max_exact_seconds``; otherwise the best of 3 fits
        below n = 1e4 and every exact fit.
    sizes, dimensions : tuple of int
        The grid of n and d.
    max_exact_seconds : float, default=60.0
        Budget of one exact fit in ``quick`` mode, in CPU seconds.

    Returns
    -------
    results : dict
        ``"n=..., d=..."`` to the measures of that case.
    """
    results = {}
    # Herding is single threaded inside fit; the features and the index too.
    with threadpool_limits(1):
        for d in dimensions:
            last = None
            for n in sizes:
                repeats = 1 if quick or n >= 10_000 else 3
                predicted = None if last is None else last[1] * (n / last[0]) ** 2
                skip = quick and predicted is not None and predicted > max_exact_seconds
                print(f"[defaults_herding] n={n}, d={d} ...", flush=True)
                row = _case(n, d, repeats, skip)
                if row["time_exact"] is not None:
                    last = (n, row["time_exact"])
                results[f"n={n}, d={d}"] = row
                print(
                    "  "
                    + ", ".join(
                        f"{key}={row[key]:.4g}"
                        for key, *_ in ROWS
                        if row.get(key) is not None
                    ),
                    flush=True,
                )
    return results


LSH_ROWS = (
    ("time_rff", "fit CPU time rff (s)", ".2f"),
    ("time_rff+lsh", "fit CPU time rff+lsh (s)", ".2f"),
    ("wall_rff", "fit wall time rff (s)", ".2f"),
    ("wall_rff+lsh", "fit wall time rff+lsh (s)", ".2f"),
    ("mmd2_own_rff", "-score (RFF space), rff", ".3e"),
    ("mmd2_own_rff+lsh", "-score (RFF space), rff+lsh", ".3e"),
    ("scored_rff+lsh", "LSH rows scored / n per iteration", ".3f"),
)


def run_lsh_panel(
    sizes=(30_000, 100_000, 200_000), dimensions=(2, 20), n_iter=(100, 300, 1000)
):
    """Random features with and without the LSH index beyond the main grid.

    The exact kernel costs too much there (and so does its MMD, whose data
    term is :math:`O(n^2 d)`): both runs use the same random features (one
    ``random_state``), so their own squared MMDs, in that feature space,
    compare. One fit per case.

    Returns
    -------
    results : dict
        ``"n=..., d=..., T=..."`` to the measures of that case.
    """
    results = {}
    with threadpool_limits(1):
        for d in dimensions:
            for n in sizes:
                X = make_gaussian_mixture(n, d, random_state=SEED + d)
                gamma = _scale_gamma(X)
                for T in n_iter:
                    print(f"[defaults_herding] LSH n={n}, d={d}, T={T} ...", flush=True)
                    row = {"n": n, "d": d, "n_samples": T}
                    for name in ("rff", "rff+lsh"):
                        options = {**METHODS[name], "gamma": gamma, "n_samples": T}
                        cpu, wall, sampler = _fit(X, options, 1)
                        row[f"time_{name}"], row[f"wall_{name}"] = cpu, wall
                        row[f"mmd2_own_{name}"] = float(sampler.objective_history_[-1])
                        row[f"scored_{name}"] = float(sampler.n_scored_.mean() / n)
                    print(
                        "  " + ", ".join(f"{k}={row[k]:.4g}" for k, *_ in LSH_ROWS),
                        flush=True,
                    )
                    results[f"n={n}, d={d}, T={T}"] = row
    return results


def _digits(n, seed):
    return load_digits(return_X_y=True)


def _uniform_cube(n, seed):
    return np.random.RandomState(seed).uniform(size=(n, 5)), None


def _swiss_roll(n, seed):
    return make_swiss_roll(n, random_state=seed)[0], None


def _heavy_tailed(n, seed):
    return make_heavy_tailed_classification(n, 20, random_state=seed)[0], None


def _mixture(d):
    def draw(n, seed):
        return make_gaussian_mixture(n, d, random_state=seed), None

    return draw


# Family: (draw(n, seed) -> (X, y or None), fixed n or None, per_class).
REFINE_FAMILIES = {
    "mixture d=2": (_mixture(2), None, False),
    "mixture d=10": (_mixture(10), None, False),
    "mixture d=50": (_mixture(50), None, False),
    "Student t d=20": (_heavy_tailed, None, False),
    "uniform cube d=5": (_uniform_cube, None, False),
    "swiss roll d=3": (_swiss_roll, None, False),
    "digits d=64": (_digits, 1797, False),
    "digits per class": (_digits, 1797, True),
}
# n to the n_samples measured there: 16, about sqrt(n), the default 100, and
# larger budgets, up to n/4, where the passes cost most. At 2^16 the defaults
# use random features, whose swap passes cost up to 10 times herding's
# iterations: n_samples stops at 256 there (256 took 40 s, 1024 would take
# minutes).
REFINE_GRID = {
    1024: (16, 32, 64, 100, 256),
    1797: (16, 42, 100, 256),
    4096: (16, 64, 100, 256, 1024),
    16384: (16, 100, 128, 1024, 2048),
    65536: (16, 100, 256),
}


_ELAPSED = re.compile(r"elapsed ([0-9.e+-]+) s\.$")


def _swap_seconds(log):
    """Seconds of the swap passes, from the fit's own progress lines.

    Every ``Swap passes`` line follows the last iteration line of its run:
    the difference of their elapsed times is the passes'.
    """
    lines = log.splitlines()
    seconds = 0.0
    for before, line in zip(lines, lines[1:]):
        if line.startswith("Swap passes"):
            end, begin = (float(_ELAPSED.search(x).group(1)) for x in (line, before))
            seconds += end - begin
    return seconds


def _refine_fits(X, y, m, per_class, repeats):
    """The default fit and the other refinement, timed; their measures."""
    params = {"n_samples": m, "per_class": per_class, "random_state": SEED}
    fits = {}
    for refine in ("auto", None):
        if refine is None:
            # The refinement 'auto' did not pick.
            refine = None if fits["auto"]["sampler"].refine_ == "swap" else "swap"
        cpu, swap_seconds, wall = [], 0.0, 0.0
        for _ in range(repeats):
            sampler = KernelHerdingSampler(refine=refine, verbose=1, **params)
            log = io.StringIO()
            start, start_cpu = time.perf_counter(), time.process_time()
            with contextlib.redirect_stdout(log):
                sampler.fit(X, y)
            cpu.append(time.process_time() - start_cpu)
            wall += time.perf_counter() - start
            swap_seconds += _swap_seconds(log.getvalue())
        fits[refine] = {"cpu": min(cpu), "share": swap_seconds / wall}
        fits[refine]["sampler"] = sampler
    auto = fits.pop("auto")
    fits[auto["sampler"].refine_] = auto
    plain, swap = fits[None]["sampler"], fits["swap"]["sampler"]
    return {
        "feature_map": auto["sampler"].feature_map_name_,
        "auto": auto["sampler"].refine_ or "None",
        "fraction": m / X.shape[0],
        "time_plain": fits[None]["cpu"],
        "time_swap": fits["swap"]["cpu"],
        "share": fits["swap"]["share"],
        "n_swaps": swap.n_swaps_,
        "mmd2_plain": -plain.score(X),
        "mmd2_swap": -swap.score(X),
        "mmd2_ratio": swap.score(X) / plain.score(X),
    }


REFINE_COLUMNS = (
    ("family", "family", "s"),
    ("n", "n", "d"),
    ("m", "n_samples", "d"),
    ("fraction", "n_samples / n", ".4f"),
    ("feature_map", "feature map", "s"),
    ("time_plain", "CPU s None", ".3f"),
    ("time_swap", "CPU s 'swap'", ".3f"),
    ("share", "passes / 'swap' fit", ".2f"),
    ("n_swaps", "swaps", "d"),
    ("mmd2_ratio", "MMD² 'swap' / None", ".3f"),
    ("auto", "'auto'", "s"),
)


def format_refine(results):
    """The refine panel as a Markdown table, one line per case."""
    lines = [
        "| " + " | ".join(label for _, label, _ in REFINE_COLUMNS) + " |",
        "|" + "---|" * len(REFINE_COLUMNS),
    ]
    for row in results.values():
        cells = [format(row[key], fmt) for key, _, fmt in REFINE_COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run_refine_panel(families=REFINE_FAMILIES, grid=REFINE_GRID):
    """``refine='swap'`` against plain herding over a panel of data families.

    Every fit is single threaded with the defaults (``gamma='scale'``,
    ``feature_map='auto'``, ``maxip='auto'``) but ``n_samples`` and
    ``refine``; CPU times are the best of 20 fits up to n = 2048, of 5 up
    to n = 4096, one fit above. The share of the swap passes in the refined
    fit is read off its progress lines (``verbose=1``): the seconds between
    the last iteration and the swap line, summed over the fits and divided
    by their summed wall time (the lines are stamped in hundredths of a
    second, hence the repeats of the short fits; one clock inside each fit,
    so the load of a shared machine moves both ends alike). The
    squared MMDs are the sampler's own (:meth:`score`), in the exact kernel
    for 'exact' and in the random-feature space for 'rff', where both fits
    share the features (one ``random_state``).

    Returns
    -------
    results : dict
        ``"family, n=..., m=..."`` to the measures of that case.
    """
    results = {}
    with threadpool_limits(1):
        for family, (draw, fixed, per_class) in families.items():
            for n in (fixed,) if fixed else [n for n in grid if n != 1797]:
                X, y = draw(n, SEED)
                repeats = 20 if n <= 2048 else 5 if n <= 4096 else 1
                for m in grid[n]:
                    print(f"[defaults_herding] {family}, n={n}, m={m} ...", flush=True)
                    row = {"family": family, "n": n, "d": X.shape[1], "m": m}
                    row.update(_refine_fits(X, y, m, per_class, repeats))
                    print(format_refine({"": row}).splitlines()[-1], flush=True)
                    results[f"{family}, n={n}, m={m}"] = row
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="repeats, every exact fit")
    parser.add_argument("--json", metavar="PATH", help="also write the results here")
    parser.add_argument(
        "--panel",
        choices=["grid", "lsh", "refine", "all"],
        default="all",
        help="the n x d grid, the LSH panel beyond it, refine's data families, "
        "or all three",
    )
    add_record_argument(parser)
    args = parser.parse_args(argv)
    machine = machine_info()
    results, lsh, refine = {}, {}, {}
    if args.panel in ("refine", "all"):
        refine = run_refine_panel()
        print(
            "\nrefine='swap' against refine=None, defaults otherwise, single "
            f"thread.\n{machine_caption(machine)}\n"
        )
        print(format_refine(refine))
    if args.panel in ("lsh", "all"):
        lsh = run_lsh_panel()
        print(f"\nRFF with and without LSH.\n{machine_caption(machine)}\n")
        print(format_table(lsh, LSH_ROWS, 1))
    if args.panel in ("grid", "all"):
        results = run_panel(quick=not args.full)
    if not results:
        if args.json:
            panels = {"grid": {}, "lsh": lsh, "refine": refine}
            write_json(args.json, machine, {"seed": SEED}, panels)
        if args.record:
            _record(args, machine, {"seed": SEED}, results, lsh, refine)
        return
    print(
        "\nKernelHerdingSampler defaults (n_samples=100, gamma='scale', "
        "n_components=256, 16 tables x 8 bits), single thread, "
        f"{'quick' if not args.full else 'full'} panel.\n{machine_caption(machine)}\n"
    )
    for d in DIMENSIONS if results else ():
        panel = {k: v for k, v in results.items() if v["d"] == d}
        print(f"d = {d}")
        print(format_table(panel, ROWS, 1 if not args.full else 3))
        print()
    config = {"quick": not args.full, "seed": SEED, "methods": METHODS}
    if args.json:
        panels = {"grid": results, "lsh": lsh, "refine": refine}
        write_json(args.json, machine, config, panels)
    if args.record:
        _record(args, machine, config, results, lsh, refine)


def _record(args, machine, config, results, lsh, refine):
    rows = []
    if results:
        # Per d, the largest n where the exact scan ran: random features
        # against the kernel trick, the choice feature_map='auto' makes.
        largest = {}
        for case in results.values():
            if case.get("time_exact") and case.get("time_rff"):
                if case["n"] >= largest.get(case["d"], {"n": 0})["n"]:
                    largest[case["d"]] = case
        rows += spread_rows(
            "fit CPU time of feature_map='rff' against 'exact', at the largest n "
            "with an exact fit",
            {
                f"n={case['n']}, d={d}": case["time_rff"] / case["time_exact"]
                for d, case in largest.items()
            },
            estimator="KernelHerdingSampler(feature_map='rff')",
            peer="KernelHerdingSampler(feature_map='exact')",
        )
    if lsh:
        rows += spread_rows(
            "fit CPU time with the LSH index",
            {
                name: case["time_rff+lsh"] / case["time_rff"]
                for name, case in lsh.items()
                if case.get("time_rff+lsh") and case.get("time_rff")
            },
            estimator="KernelHerdingSampler(feature_map='rff', maxip='lsh')",
            peer="KernelHerdingSampler(feature_map='rff', maxip='exact')",
        )
    if refine:
        rows += spread_rows(
            "MMD^2 (the sampler's own)",
            {name: case["mmd2_ratio"] for name, case in refine.items()},
            estimator="KernelHerdingSampler(refine='swap')",
            peer="KernelHerdingSampler(refine=None)",
        )
    suffix = "" if args.panel == "all" else f"_{args.panel}"
    record(
        f"defaults_herding{suffix}",
        rows,
        args,
        title=f"KernelHerdingSampler defaults panel ({args.panel})",
        estimator="KernelHerdingSampler (defaults)",
        peer="the other settings of feature_map, maxip and refine",
        data=f"Gaussian mixtures and other families, panel {args.panel!r}, "
        f"{'full' if args.full else 'quick'}",
        machine=machine,
        config=config,
        results={"grid": results, "lsh": lsh, "refine": refine},
    )


if __name__ == "__main__":
    main()
