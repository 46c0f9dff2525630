"""The defaults panel of KernelHerdingSampler: where 'auto' switches.

The measurements behind ``feature_map='auto'``, ``maxip='auto'`` and
``refine='auto'`` of :class:`~skcgm.sampling.KernelHerdingSampler` (issue 18,
part D, and issue 38), in three parts, every fit single threaded.

``grid``: on the Gaussian mixture of
:func:`~skcgm.datasets.make_gaussian_mixture` for n in {1e3, 3e3, 1e4, 2e4,
3e4, 5e4} and d in {2, 20, 64}, with the sampler's defaults otherwise
(``n_samples=100``, ``gamma='scale'``, 256 random Fourier features, 16 LSH
tables of 8 bits), three searches are timed:

- ``exact``: ``feature_map='exact'``, the kernel trick (the O(n^2 d) mean
  embedding, then O(n d) per iteration);
- ``rff``: ``feature_map='rff', maxip='exact'``, an exact scan of the
  random features;
- ``rff+lsh``: ``feature_map='rff', maxip='lsh'``.

Reported per case: the fit time (best of 3 below n = 1e4 in the full panel,
one fit otherwise), as CPU time (the fits are single threaded, so this is
their time on an idle core) and wall time (which also counts the other
processes of a shared machine), the sampler's own squared MMD ``-score(X)``
(in its kernel for ``exact``, in the random-feature space otherwise, so the
three are not on one scale), the squared MMD in the exact RBF kernel of
every subset (the comparable figure; the data term :math:`p^\\top K p` is
read off the exact fit, so it costs no extra :math:`O(n^2 d)` pass), and the
rows scored per iteration by LSH. In the quick panel the exact fit is
skipped where its predicted time (from the smaller n of the same d, as
:math:`n^2`) exceeds a budget; its MMD column is then empty.

``lsh``: random features with and without the index beyond the grid (n up
to 2e5) and for more iterations (``n_samples`` 100 to 1000), where the index
can pay for its construction.

``refine``: ``refine='swap'`` against plain herding (``refine=None``) with
every other parameter at its default, on a panel of data families (Gaussian
mixtures at d = 2, 10 and 50, Student t rows with outliers, the uniform
cube, the swiss roll, the digits images, alone and per class), n from 2^10
to 2^16 and n_samples from 16 to 2048: the share of the fit the swap passes
take, the swaps made and the ratio of the squared MMDs, beside what
``refine='auto'`` resolved to.
"""

import contextlib
import io
import re
import time

import numpy as np
from sklearn.datasets import load_digits, make_swiss_roll
from sklearn.metrics.pairwise import rbf_kernel
from threadpoolctl import threadpool_limits

from ..datasets import make_gaussian_mixture, make_heavy_tailed_classification
from ..sampling import KernelHerdingSampler
from ._cases import format_cases

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
PARTS = ("grid", "lsh", "refine")
SETTINGS = {"seed": SEED, "methods": METHODS, "parts": PARTS}


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


# (key, label, format) of the measures of a grid case.
GRID_MEASURES = (
    ("gamma", "gamma ('scale')", ".3g"),
    *((f"time_{name}", f"fit CPU time {name} (s)", ".2f") for name in METHODS),
    *((f"wall_{name}", f"fit wall time {name} (s)", ".2f") for name in METHODS),
    *((f"mmd2_{name}", f"MMD^2 exact kernel, {name}", ".3e") for name in METHODS),
    *(
        (f"mmd2_own_{name}", f"-score (RFF space), {name}", ".3e")
        for name in ("rff", "rff+lsh")
    ),
    ("scored_rff+lsh", "LSH rows scored / n per iteration", ".3f"),
)


def _report(progress, row, measures):
    """The measures of a case that has them, on one progress line."""
    if progress is not None:
        shown = [
            f"{key}={row[key]:.4g}" for key, *_ in measures if row.get(key) is not None
        ]
        progress("  " + ", ".join(shown))


def _run_grid(
    full, progress, sizes=SIZES, dimensions=DIMENSIONS, max_exact_seconds=60.0
):
    """The three searches over the grid of n and d; ``{case: measures}``.

    The quick panel fits once per case and skips the exact fit where it is
    predicted to take more than ``max_exact_seconds`` CPU seconds; the full
    one keeps the best of 3 fits below n = 1e4 and runs every exact fit.
    """
    results = {}
    # Herding is single threaded inside fit; the features and the index too.
    with threadpool_limits(1):
        for d in dimensions:
            last = None
            for n in sizes:
                repeats = 3 if full and n < 10_000 else 1
                predicted = None if last is None else last[1] * (n / last[0]) ** 2
                skip = not full and predicted is not None
                skip = skip and predicted > max_exact_seconds
                if progress is not None:
                    progress(f"[defaults_herding] n={n}, d={d} ...")
                row = _case(n, d, repeats, skip)
                if row["time_exact"] is not None:
                    last = (n, row["time_exact"])
                results[f"n={n}, d={d}"] = row
                _report(progress, row, GRID_MEASURES)
    return results


# The LSH part runs random features only.
LSH_MEASURES = tuple(
    row for row in GRID_MEASURES if "rff" in row[0] and "mmd2_rff" not in row[0]
)


def _run_lsh(
    progress,
    sizes=(30_000, 100_000, 200_000),
    dimensions=(2, 20),
    n_iter=(100, 300, 1000),
):
    """Random features with and without the LSH index beyond the main grid.

    The exact kernel costs too much there (and so does its MMD, whose data
    term is :math:`O(n^2 d)`): both runs use the same random features (one
    ``random_state``), so their own squared MMDs, in that feature space,
    compare. One fit per case; returns ``{case: measures}``.
    """
    results = {}
    with threadpool_limits(1):
        for d in dimensions:
            for n in sizes:
                X = make_gaussian_mixture(n, d, random_state=SEED + d)
                gamma = _scale_gamma(X)
                for T in n_iter:
                    if progress is not None:
                        progress(f"[defaults_herding] LSH n={n}, d={d}, T={T} ...")
                    row = {"n": n, "d": d, "n_samples": T}
                    for name in ("rff", "rff+lsh"):
                        options = {**METHODS[name], "gamma": gamma, "n_samples": T}
                        cpu, wall, sampler = _fit(X, options, 1)
                        row[f"time_{name}"], row[f"wall_{name}"] = cpu, wall
                        row[f"mmd2_own_{name}"] = float(sampler.objective_history_[-1])
                        row[f"scored_{name}"] = float(sampler.n_scored_.mean() / n)
                    _report(progress, row, LSH_MEASURES)
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


# The key and the label of plain herding and of the swaps.
REFINEMENTS = (("plain", "None"), ("swap", "'swap'"))
REFINE_COLUMNS = (
    ("family", "family", "s"),
    ("n", "n", "d"),
    ("m", "n_samples", "d"),
    ("fraction", "n_samples / n", ".4f"),
    ("feature_map", "feature map", "s"),
    *((f"time_{key}", f"CPU s {label}", ".3f") for key, label in REFINEMENTS),
    ("share", "passes / 'swap' fit", ".2f"),
    ("n_swaps", "swaps", "d"),
    ("mmd2_ratio", "MMD² 'swap' / None", ".3f"),
    ("auto", "'auto'", "s"),
)


def _format_refine(results):
    """The refine part as a Markdown table, one line per case."""
    lines = [
        "| " + " | ".join(label for _, label, _ in REFINE_COLUMNS) + " |",
        "|" + "---|" * len(REFINE_COLUMNS),
    ]
    for row in results.values():
        cells = [format(row[key], fmt) for key, _, fmt in REFINE_COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _run_refine(progress, families=REFINE_FAMILIES, grid=REFINE_GRID):
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
    share the features (one ``random_state``). Returns ``{case: measures}``.
    """
    results = {}
    with threadpool_limits(1):
        for family, (draw, fixed, per_class) in families.items():
            for n in (fixed,) if fixed else [n for n in grid if n != 1797]:
                X, y = draw(n, SEED)
                repeats = 20 if n <= 2048 else 5 if n <= 4096 else 1
                for m in grid[n]:
                    if progress is not None:
                        progress(f"[defaults_herding] {family}, n={n}, m={m} ...")
                    row = {"family": family, "n": n, "d": X.shape[1], "m": m}
                    row.update(_refine_fits(X, y, m, per_class, repeats))
                    if progress is not None:
                        progress(_format_refine({"": row}).splitlines()[-1])
                    results[f"{family}, n={n}, m={m}"] = row
    return results


def run_herding_panel(
    *, full=False, parts=PARTS, grid=None, lsh=None, refine=None, progress=None
):
    """Run the parts of the panel, refine first, then lsh, then the grid.

    Parameters
    ----------
    full : bool, default=False
        The full grid (the best of 3 fits below n = 1e4, every exact fit)
        instead of the quick one.
    parts : tuple of {'grid', 'lsh', 'refine'}, default=('grid', 'lsh', 'refine')
        The parts to run.
    grid : dict, default=None
        Options of the grid: ``sizes`` and ``dimensions`` (the n and d of
        the grid) and ``max_exact_seconds`` (the budget of one exact fit in
        the quick grid, in CPU seconds); None keeps the panel's.
    lsh : dict, default=None
        Options of the LSH part: ``sizes``, ``dimensions`` and ``n_iter``
        (the ``n_samples`` of the fits); None keeps the panel's.
    refine : dict, default=None
        Options of the refine part: ``families`` (a dict as
        ``REFINE_FAMILIES``) and ``grid`` (n to its ``n_samples``, as
        ``REFINE_GRID``); None keeps the panel's.
    progress : callable, default=None
        Called with a line per case and its measures.

    Returns
    -------
    results : dict
        ``results[part]`` for ``part`` in ``'grid'``, ``'lsh'`` and
        ``'refine'``: ``{case: measures}``, empty for a part not run. The
        grid's cases are ``"n=..., d=..."`` with the keys of
        ``GRID_MEASURES``, ``n`` and ``d``; the LSH part's ``"n=..., d=...,
        T=..."`` with the keys of ``LSH_MEASURES``; the refine part's
        ``"family, n=..., m=..."`` with the keys of ``REFINE_COLUMNS``.
    """
    results = {part: {} for part in PARTS}
    if "refine" in parts:
        results["refine"] = _run_refine(progress, **(refine or {}))
    if "lsh" in parts:
        results["lsh"] = _run_lsh(progress, **(lsh or {}))
    if "grid" in parts:
        results["grid"] = _run_grid(full, progress, **(grid or {}))
    return results


def format_herding_panel(results):
    """The refine table, the LSH table and one grid table per d.

    Parameters
    ----------
    results : dict
        Output of :func:`run_herding_panel`.

    Returns
    -------
    text : str
        A caption and a table per part run.
    """
    blocks = []
    if results["refine"]:
        blocks.append(
            "refine='swap' against refine=None, defaults otherwise, single "
            f"thread.\n\n{_format_refine(results['refine'])}"
        )
    if results["lsh"]:
        blocks.append(
            "RFF with and without LSH.\n\n" + format_cases(results["lsh"], LSH_MEASURES)
        )
    if results["grid"]:
        blocks.append(
            "KernelHerdingSampler defaults (n_samples=100, gamma='scale', "
            "n_components=256, 16 tables x 8 bits), single thread."
        )
        for d in dict.fromkeys(case["d"] for case in results["grid"].values()):
            cases = {k: v for k, v in results["grid"].items() if v["d"] == d}
            blocks.append(f"d = {d}\n{format_cases(cases, GRID_MEASURES)}")
    return "\n\n".join(blocks)
