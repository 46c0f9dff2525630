"""Lloyd iterations of SumOfMinKMeans against KMeans(algorithm='lloyd') on a grid.

Every cell of the grid (rows ``n``, features ``d``, clusters ``k``, float64 or
float32, dense or CSR) fits both estimators side by side in this one process
on the same data from the same initial centers (``k`` distinct rows drawn
with a fixed seed), ``n_init=1``, ``tol=0`` and ``max_iter=--iters``: the
same Lloyd trajectory, whose final labels should be identical. Where they
are not, the share of equal labels is printed beside that of KMeans' own
fit on one thread against two (the effect of summing in another order).
Reported per cell: the median fit time over ``--runs`` runs of each (more
for cells of a few milliseconds, about ``--min-time`` seconds of fits; each
timed fit follows ``--pause`` seconds of sleep and, when fits are short, an
untimed fit of the same estimator: see ``run_cell`` for why), the ratio
ours / KMeans, the time per iteration (fit time / ``iters``), and the
machine's floor for one iteration,

.. math::

    \\max\\Big(\\frac{2 n k d}{\\text{peak GEMM rate}},
    \\frac{\\text{bytes of } X}{\\text{read bandwidth}}\\Big),

with :math:`n d` replaced by the number of stored entries for CSR, both
measured in this process: the GEMM rate by a 2048 x 2048 product into a
preallocated output (best of 3, per dtype), the bandwidth by one column-sum
pass over the cell's X (best of 3). Dense X are Gaussian blobs (``k``
centers); CSR X are the same blobs with each entry kept with probability
``--density`` (``min(1, 4 / d)`` at least, so that short rows keep entries).

Usage::

    python benchmarks/bench_kmeans_grid.py [--n 10000,100000,1000000]
        [--d 2,32,256] [--k 8,32,256] [--dtypes float64,float32]
        [--layouts dense,csr] [--iters 5] [--runs 5] [--pause 0.02]
        [--min-time 1.0] [--json PATH] [--record]

``--record`` writes ``benchmarks/results/kmeans_grid.json`` (see
``benchmarks/summary.py``).
"""

import os
import statistics
import sys
import time

import _common
import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits

from skcgm.cluster import SumOfMinKMeans

SEED = 0
TARGET_DENSE = 1.0
TARGET_CSR = 1.2
MAX_RUNS = 101
# Fits shorter than this are timed right after an untimed one (see run_cell).
WARM_BELOW = 0.1


def gemm_rate(dtype, size=2048, repeats=3):
    """Peak flop rate of a square GEMM into a preallocated output."""
    rng = np.random.RandomState(SEED)
    a = rng.standard_normal((size, size)).astype(dtype)
    b = rng.standard_normal((size, size)).astype(dtype)
    out = np.empty((size, size), dtype=dtype)
    best = min(_timed(lambda: np.matmul(a, b, out=out)) for _ in range(repeats))
    return 2 * size**3 / best


def read_bandwidth(X, repeats=3):
    """Bytes per second of one column-sum pass over ``X``."""
    data = X.data if sp.issparse(X) else X
    best = min(_timed(lambda: data.sum(axis=0)) for _ in range(repeats))
    return _nbytes(X) / best


def _nbytes(X):
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def _timed(func):
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def make_cell(n, d, k, dtype, layout, density):
    """Gaussian blobs around ``k`` centers, dense or sparsified CSR."""
    rng = np.random.RandomState(SEED)
    centers = rng.uniform(-10, 10, size=(k, d))
    labels = rng.randint(k, size=n)
    X = rng.standard_normal((n, d))
    X += centers[labels]
    X = X.astype(dtype, copy=False)
    if layout == "csr":
        keep = rng.uniform(size=X.shape) < max(density, min(1.0, 4.0 / d))
        X = sp.csr_matrix(np.where(keep, X, 0).astype(dtype, copy=False))
    rows = rng.choice(n, size=k, replace=False)
    init = X[rows].toarray() if sp.issparse(X) else X[rows].copy()
    return X, init


def run_cell(X, init, iters, runs, pause, min_time):
    k = init.shape[0]

    def ours():
        return SumOfMinKMeans(k, init=init, n_init=1, tol=0, max_iter=iters).fit(X)

    def theirs():
        return KMeans(
            k, init=init, n_init=1, tol=0, max_iter=iters, algorithm="lloyd"
        ).fit(X)

    times = {"ours": [], "kmeans": []}
    models = {}
    # One untimed fit each: the first call of a cell pays for thread start-up
    # and first-touch page faults that the others do not. Cells of a few
    # milliseconds get more runs, up to about min_time seconds each, so that
    # a short disturbance (another process, the kernel reclaiming the pages
    # of the previous cell) cannot take the median.
    start = time.perf_counter()
    ours()
    theirs()
    warmup = time.perf_counter() - start
    runs = max(runs, min(MAX_RUNS, int(2 * min_time / max(warmup, 1e-6))))
    # Alternate the two, so that a change of machine load hits both alike.
    # Each library runs its own OpenMP runtime, whose idle threads spin for
    # 7.5-8.5 ms after a parallel loop on the machine of benchmarks/HISTORY.md (both
    # runtimes, measured from the threads' CPU time), then sleep. A pause
    # shorter than that leaves the other library's threads spinning on the
    # cores during the next fit; a pause longer than that lets the fit's own
    # threads fall asleep too, and waking them cost up to 10 ms on that
    # 2-vCPU VM, five times a whole fit of the smallest cells. So every timed
    # fit follows a pause longer than the spin (the other library's threads
    # asleep, as in a process using one library) and, when a fit takes less
    # than WARM_BELOW seconds, an untimed fit of the same estimator (its own
    # threads awake, as in a loop of fits).
    warm = warmup / 2 < WARM_BELOW  # the mean of the two untimed fits
    for _ in range(runs):
        for name, fit in (("ours", ours), ("kmeans", theirs)):
            time.sleep(pause)
            if warm:
                fit()
            start = time.perf_counter()
            models[name] = fit()
            times[name].append(time.perf_counter() - start)
    agreement = float(np.mean(models["ours"].labels_ == models["kmeans"].labels_))
    control = None
    if agreement < 1.0:
        # How far KMeans agrees with itself: the same fit on one thread sums
        # in another order (float32 rounding flips the labels of rows at
        # near-equal distances, and the trajectories part).
        with threadpool_limits(1, user_api="openmp"):
            single = theirs()
        control = float(np.mean(single.labels_ == models["kmeans"].labels_))
    return {
        "runs": runs,
        "ours_s": statistics.median(times["ours"]),
        "kmeans_s": statistics.median(times["kmeans"]),
        "same_labels": agreement == 1.0,
        "label_agreement": agreement,
        "kmeans_self_agreement": control,
        "ours_dtype": str(models["ours"].cluster_centers_.dtype),
        "n_iter_ours": int(models["ours"].n_iter_),
        "n_iter_kmeans": int(models["kmeans"].n_iter_),
    }


def summary(records):
    """Markdown table of the ratios by layout and n: worst, median, cells on target."""
    lines = [
        "| layout | "
        + " | ".join(f"n = {n:.0e}" for n in _sizes(records))
        + " | all |",
        "|---|" + "---|" * (len(_sizes(records)) + 1),
    ]
    for layout, target in (("dense", TARGET_DENSE), ("csr", TARGET_CSR)):
        cells = [r for r in records if r["layout"] == layout]
        if not cells:
            continue
        row = [layout]
        for n in _sizes(records):
            ratios = [r["ratio"] for r in cells if r["n"] == n]
            if not ratios:
                row.append("")
                continue
            row.append(
                f"worst {max(ratios):.2f}, median {statistics.median(ratios):.2f}, "
                f"{sum(q <= target for q in ratios)}/{len(ratios)} <= {target}"
            )
        ratios = [r["ratio"] for r in cells]
        row.append(f"{sum(q <= target for q in ratios)}/{len(ratios)} <= {target}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _sizes(records):
    return sorted({r["n"] for r in records})


def _agreement(record):
    if record["same_labels"]:
        return "yes"
    return (
        f"{record['label_agreement']:.4f} (KMeans 1 vs 2 threads: "
        f"{record['kmeans_self_agreement']:.4f})"
    )


def _ints(text):
    return [int(float(value)) for value in text.split(",") if value]


def main(argv=None):
    parser = _common.script_parser(__doc__)
    parser.add_argument("--n", default="10000,100000,1000000")
    parser.add_argument("--d", default="2,32,256")
    parser.add_argument("--k", default="8,32,256")
    parser.add_argument("--dtypes", default="float64,float32")
    parser.add_argument("--layouts", default="dense,csr")
    parser.add_argument("--density", type=float, default=0.1)
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--pause", type=float, default=0.02, help="seconds of sleep before each fit"
    )
    parser.add_argument(
        "--min-time",
        type=float,
        default=1.0,
        help="seconds of fits per estimator and cell, at least --runs fits",
    )
    _common.add_record_argument(parser)
    args = parser.parse_args(argv)
    machine = _common.machine_info()
    load = os.getloadavg()[0]
    rates = {dtype: gemm_rate(dtype) for dtype in args.dtypes.split(",")}
    records = []
    print(
        "| layout | dtype | n | d | k | ours ms/it | KMeans ms/it | floor ms/it | "
        "ratio | ours/floor | KMeans/floor | same labels (share) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for layout in args.layouts.split(","):
        for dtype in args.dtypes.split(","):
            for n in _ints(args.n):
                for d in _ints(args.d):
                    for k in _ints(args.k):
                        X, init = make_cell(n, d, k, dtype, layout, args.density)
                        # Multiply-adds: n d k dense, nnz k for CSR.
                        entries = X.nnz if sp.issparse(X) else n * d
                        floor = max(
                            2 * entries * k / rates[dtype],
                            _nbytes(X) / read_bandwidth(X),
                        )
                        cell = run_cell(
                            X, init, args.iters, args.runs, args.pause, args.min_time
                        )
                        cell.update(layout=layout, dtype=dtype, n=n, d=d, k=k)
                        cell["floor_s"] = floor
                        cell["ratio"] = cell["ours_s"] / cell["kmeans_s"]
                        records.append(cell)
                        ours = 1e3 * cell["ours_s"] / args.iters
                        theirs = 1e3 * cell["kmeans_s"] / args.iters
                        print(
                            f"| {layout} | {dtype} | {n:.0e} | {d} | {k} | "
                            f"{ours:.2f} | {theirs:.2f} | {1e3 * floor:.2f} | "
                            f"**{cell['ratio']:.2f}** | "
                            f"{ours / (1e3 * floor):.1f} | "
                            f"{theirs / (1e3 * floor):.1f} | "
                            f"{_agreement(cell)} |",
                            flush=True,
                        )
                        del X
    dense = [r["ratio"] for r in records if r["layout"] == "dense"]
    csr = [r["ratio"] for r in records if r["layout"] == "csr"]
    peaks = ", ".join(f"{t} {rate / 1e9:.1f} GFLOP/s" for t, rate in rates.items())
    print(f"\nGEMM peak: {peaks}. Load average at the start: {load:.2f}.")
    if dense:
        print(f"dense: worst ratio {max(dense):.2f} (target <= {TARGET_DENSE})")
    if csr:
        print(f"CSR: worst ratio {max(csr):.2f} (target <= {TARGET_CSR})")
    print(summary(records))
    print(_common.machine_caption(machine), file=sys.stdout)
    _common.save(args, machine, vars(args) | {"gemm": rates}, records, _record)


def _record(args, machine, config, records):
    rows = []
    for layout, target in (("dense", TARGET_DENSE), ("csr", TARGET_CSR)):
        cells = [cell for cell in records if cell["layout"] == layout]
        if not cells:
            continue
        worst = max(cells, key=lambda cell: cell["ratio"])
        same = sum(cell["same_labels"] for cell in cells)
        rows.append(
            _common.headline(
                f"Lloyd fit time, the worst of {len(cells)} {layout} cells "
                f"({same} of {len(cells)} with identical labels)",
                worst["ratio"],
                f"<= {target:g}",
                data=(
                    f"{layout} {worst['dtype']} blobs, n={worst['n']:,}, "
                    f"d={worst['d']}, k={worst['k']}"
                ),
            )
        )
    _common.record(
        "kmeans_grid",
        rows,
        args,
        title="Lloyd iterations of SumOfMinKMeans against KMeans on a grid",
        estimator="SumOfMinKMeans",
        peer="KMeans(algorithm='lloyd')",
        data=(
            f"Gaussian blobs, n in {{{args.n}}}, d in {{{args.d}}}, "
            f"k in {{{args.k}}}, {args.dtypes}, {args.layouts}; "
            f"{args.iters} iterations from the same start"
        ),
        machine=machine,
        config=config,
        results=records,
    )


if __name__ == "__main__":
    main()
