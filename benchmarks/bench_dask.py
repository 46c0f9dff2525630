"""SumOfMinKMeans and LocalSensitivityLogistic against dask-ml on dask arrays.

``kmeans`` (the default): SumOfMinKMeans against dask-ml's KMeans on a dask
array larger than a worker.

On one ``LocalCluster`` (2 workers, 1 thread each, a memory limit per worker
below the size of X), the same persisted dask array X is clustered by

- the same number of Lloyd iterations from the same start (``init`` the
  first ``k`` rows, ``tol=0``): wall time of each fit, and the inertia of
  both final centers;
- each estimator's own seeding to convergence (defaults, ``random_state=0``):
  wall time, iterations and the inertia at the end.

Both inertias are computed by the same pass over X (the sum of squared
distances of every row to its closest center), not read from the fitted
attributes: dask-ml's ``inertia_`` is not that sum (on a 200,000-row
check it was 2.95e6 where the sum of squared distances of its own centers
and labels was 6.16e7).

``logistic``: LocalSensitivityLogistic against dask-ml's LogisticRegression
(solvers 'lbfgs' and 'admm', with and without dask-glm's column
normalization), the same objective (``C=1``, no intercept; dask-ml
penalizes an intercept, skcgm does not), on correlated rows (equicorrelation
0.9, a planted logistic model) of three families: Gaussian rows in random
order; heavy-tailed rows (multivariate t with 3 degrees of freedom); and
Gaussian rows stored by class (the negative rows in the first half of the
chunks), as when data kept per class are concatenated. The time to a
relative objective error of 1e-3: ours with its defaults
(``max_iter='auto'``: a uniform start and one round, 3 passes;
``leverage='auto'``: the Gram matrix of the scores from the uniform
sample) and with
``--max-iters`` rounds, and each dask-ml solver with the smallest
``max_iter`` that reaches it (doubling from 1, then bisection; a solver
whose error does not fall by a tenth when ``max_iter`` doubles, from 8 on,
is reported as stalled). Times are medians of ``--repeats`` untraced fits,
each after garbage collection and ``malloc_trim`` on the workers, so that no
fit pays for the memory an earlier one left behind. The minimum comes from
Newton's method on the same persisted arrays. Also two ablations: the
Gram matrix summed over every row (``leverage='exact'``, an O(nd^2) centre
pass) and uniform draws (``sampling='uniform'``). Client memory is the
peak of tracemalloc during a further fit (tracing slows the client's
Python).

``full``: the exact fit, ``LocalSensitivityLogistic(sampling='full')``
(L-BFGS over chunk-wise gradients, one pass an evaluation) against every
solver of dask-ml's LogisticRegression ('lbfgs', 'newton', 'admm',
'gradient_descent', 'proximal_grad'), on the same families and objective,
to a relative objective error of 1e-6: ours with its defaults (``tol=1e-4``,
scikit-learn's rule), and every fit, ours included (``tol=0``), with the
smallest ``max_iter`` that reaches 1e-6, found as for ``logistic``. Besides
the times: our passes over X, and the computations every fit submits to the
scheduler (a scheduler plugin counts them; each of ours reads every chunk
once).

Usage::

    python benchmarks/bench_dask.py [kmeans|logistic|full] [--n-samples N] [--repeats R]
        [--memory-limit 1.9GB] [--families gaussian,t3,gaussian-by-class]
        [--max-iters 3] [--solvers lbfgs,admm] [--json PATH] [--record]

``--record`` writes ``benchmarks/results/dask_<kmeans|logistic|full>.json``
(see ``benchmarks/summary.py``).

The default X is 8,000,000 x 32 float64 (2.0 GB) of 16 Gaussian blobs, in
chunks of 250,000 rows, on 2 workers of 1.9 GB each: X is larger than a
worker's memory, and half of X per worker plus the worker's own memory is
above dask's spill threshold, so about half the chunks live on disk and
every pass reads them back. ``--n-samples 11000000 --memory-limit 2.75GB``
gives 2.8 GB of X that stays in the workers' memory, each worker's limit
still below the size of X: the passes then cost their compute.
"""

import sys
import time
import warnings
from contextlib import contextmanager

import _common
import numpy as np

N_CLUSTERS = 16
N_FEATURES = 32
CHUNK_ROWS = 250_000
LLOYD_ITERATIONS = 10


@contextmanager
def _cluster(memory_limit):
    """A client of the benchmark's cluster: 2 workers of 1 thread, each below X."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            memory_limit=memory_limit,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def make_blobs_dask(n_samples, random_state=0):
    """Gaussian blobs drawn on the workers, chunk by chunk."""
    import dask.array as da

    rng = da.random.RandomState(random_state)
    noise = rng.normal(size=(n_samples, N_FEATURES), chunks=(CHUNK_ROWS, N_FEATURES))
    centers = np.random.RandomState(random_state).normal(
        scale=5, size=(N_CLUSTERS, N_FEATURES)
    )
    labels = rng.randint(0, N_CLUSTERS, size=n_samples, chunks=CHUNK_ROWS)
    return noise + da.from_array(centers, chunks=centers.shape)[labels]


def run(n_samples, repeats, memory_limit):
    import dask_ml.cluster
    from distributed import wait
    from sklearn.metrics.pairwise import euclidean_distances

    from skcgm.cluster import SumOfMinKMeans

    records = {}
    with _cluster(memory_limit):
        X = make_blobs_dask(n_samples).persist()
        wait(X)

        def closest(block, centers):
            return euclidean_distances(block, centers, squared=True).min(axis=1)

        def inertia(centers):
            # One pass on the workers: each chunk's smallest squared distances.
            rows = X.map_blocks(closest, centers, drop_axis=1, dtype=X.dtype)
            return float(rows.sum().compute())

        start = np.asarray(X[:N_CLUSTERS].compute())
        same = {"ours": [], "dask-ml": []}
        for _ in range(repeats):
            tic = time.perf_counter()
            ours = SumOfMinKMeans(
                N_CLUSTERS, init=start, n_init=1, max_iter=LLOYD_ITERATIONS, tol=0
            ).fit(X)
            same["ours"].append(time.perf_counter() - tic)
            tic = time.perf_counter()
            peer = dask_ml.cluster.KMeans(
                n_clusters=N_CLUSTERS, init=start, max_iter=LLOYD_ITERATIONS, tol=0
            ).fit(X)
            same["dask-ml"].append(time.perf_counter() - tic)
        records["same start"] = {
            "iterations": (ours.n_iter_, peer.n_iter_),
            "time_s": {name: float(np.median(t)) for name, t in same.items()},
            "inertia": (inertia(ours.cluster_centers_), inertia(peer.cluster_centers_)),
        }
        tic = time.perf_counter()
        ours = SumOfMinKMeans(N_CLUSTERS, random_state=0).fit(X)
        ours_time = time.perf_counter() - tic
        tic = time.perf_counter()
        peer = dask_ml.cluster.KMeans(n_clusters=N_CLUSTERS, random_state=0).fit(X)
        peer_time = time.perf_counter() - tic
        records["own seeding"] = {
            "iterations": (ours.n_iter_, peer.n_iter_),
            "passes, ours": ours.n_passes_,
            "time_s": {"ours": ours_time, "dask-ml": peer_time},
            "inertia": (inertia(ours.cluster_centers_), inertia(peer.cluster_centers_)),
        }
    return records


def report(records, n_samples, repeats, memory_limit):
    gb = n_samples * N_FEATURES * 8 / 1e9
    print(
        f"X: {n_samples:,} x {N_FEATURES} float64 ({gb:.2f} GB), {N_CLUSTERS} blobs, "
        f"chunks of {CHUNK_ROWS:,} rows; 2 workers x 1 thread, memory_limit="
        f"{memory_limit} each; persisted."
    )
    same = records["same start"]
    t = same["time_s"]
    print(
        f"\n{LLOYD_ITERATIONS} Lloyd iterations from the same start (median of "
        f"{repeats}): ours {t['ours']:.2f} s, dask-ml {t['dask-ml']:.2f} s, "
        f"ratio {t['ours'] / t['dask-ml']:.2f}; iterations {same['iterations']}; "
        f"inertia {same['inertia'][0]:.6g} vs {same['inertia'][1]:.6g}"
    )
    own = records["own seeding"]
    t = own["time_s"]
    print(
        f"Own seeding to convergence: ours {t['ours']:.2f} s "
        f"({own['iterations'][0]} iterations, {own['passes, ours']} passes), "
        f"dask-ml {t['dask-ml']:.2f} s ({own['iterations'][1]} iterations), ratio "
        f"{t['ours'] / t['dask-ml']:.2f}; inertia {own['inertia'][0]:.6g} vs "
        f"{own['inertia'][1]:.6g} (ratio {own['inertia'][0] / own['inertia'][1]:.4f})"
    )


# Per family: degrees of freedom of the multivariate t rows (None: Gaussian),
# and whether the rows are stored by class (the chunks of the first half hold
# the negative rows, the others the positive ones, as when data sets kept per
# class are concatenated) instead of in random order.
FAMILIES = {
    "gaussian": (None, False),
    "t3": (3.0, False),
    "gaussian-by-class": (None, True),
}


def _rows_of_class(label, n_rows, factor, w, seed, df):
    """``n_rows`` rows of the planted model whose label is ``label``, drawn by
    rejection (the classes are balanced, so about two draws per row)."""
    rng = np.random.RandomState(seed)
    kept = []
    while sum(len(part) for part in kept) < n_rows:
        X = rng.normal(size=(n_rows, factor.shape[0])) @ factor.T
        if df is not None:
            X *= np.sqrt(df / rng.chisquare(df, size=n_rows))[:, None]
        y = rng.uniform(size=n_rows) < 1 / (1 + np.exp(-(X @ w)))
        kept.append(X[y == label])
    return np.concatenate(kept)[:n_rows]


def make_logistic_dask(
    n_samples, random_state=0, df=3.0, correlation=0.9, by_class=False
):
    """Correlated Gaussian (``df=None``) or multivariate-t rows and logistic
    labels, drawn on the workers; with ``by_class`` the negative rows fill the
    first half of the chunks and the positive ones the second."""
    import dask
    import dask.array as da

    rng = da.random.RandomState(random_state)
    d = N_FEATURES
    covariance = correlation * np.ones((d, d)) + (1 - correlation) * np.eye(d)
    factor = np.linalg.cholesky(covariance)
    chunks = (CHUNK_ROWS, d)
    X = rng.normal(size=(n_samples, d), chunks=chunks) @ factor.T
    if df is not None:
        scale = da.sqrt(df / rng.chisquare(df, size=n_samples, chunks=CHUNK_ROWS))
        X = X * scale[:, None]
    w = np.random.RandomState(random_state).normal(size=d)
    w *= 2.0 / np.sqrt(w @ covariance @ w)
    if by_class:
        n_chunks = -(-n_samples // CHUNK_ROWS)
        sizes = [min(CHUNK_ROWS, n_samples - j * CHUNK_ROWS) for j in range(n_chunks)]
        draw = dask.delayed(_rows_of_class, pure=True)
        labels = [int(2 * j >= n_chunks) for j in range(n_chunks)]
        X = da.concatenate(
            [
                da.from_delayed(
                    draw(label, size, factor, w, random_state * 10_000 + j, df),
                    shape=(size, d),
                    dtype=np.float64,
                )
                for j, (label, size) in enumerate(zip(labels, sizes))
            ]
        )
        y = da.concatenate(
            [
                da.full(size, float(label), chunks=size)
                for label, size in zip(labels, sizes)
            ]
        )
        return X, y
    p = 1 / (1 + da.exp(-(X @ w)))
    y = (rng.uniform(size=n_samples, chunks=CHUNK_ROWS) < p).astype(np.float64)
    return X, y


def _sum_objective(X, y, coef, C=1.0):
    """C sum_i log(1 + exp(-b_i x_i^T w)) + ||w||^2 / 2, divided by C."""
    import dask.array as da

    margins = (2 * y - 1) * (X @ coef)
    return float(da.logaddexp(0, -margins).sum().compute()) + 0.5 * coef @ coef / C


def _newton_minimum(X, y, iterations=12):
    """The minimizer of the sum objective by Newton's method (one pass each)."""
    import dask
    import dask.array as da

    coef = np.zeros(X.shape[1])
    for _ in range(iterations):
        margins = X @ coef
        p = 1 / (1 + da.exp(-margins))
        gradient, hessian = dask.compute(
            X.T @ (p - y), (X * (p * (1 - p))[:, None]).T @ X
        )
        gradient += coef
        hessian += np.eye(X.shape[1])
        coef = coef - np.linalg.solve(hessian, gradient)
    return coef


def _settle(client):
    """Collect garbage and return freed memory to the OS on every worker.

    Every timed fit starts from this state: without it a fit pays for the
    unmanaged memory its predecessors left behind (the workers then spill
    chunks of X to disk and read them back), and the order of the fits
    decides their times.
    """

    def trim():
        import ctypes
        import gc

        gc.collect()
        return ctypes.CDLL("libc.so.6").malloc_trim(0)

    client.run(trim)


def _fit(make, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make().fit(X, y)


def _timed_fit(make, X, y, client):
    """The fit, its wall-clock time (untraced) and its coefficients."""
    _settle(client)
    tic = time.perf_counter()
    estimator = _fit(make, X, y)
    elapsed = time.perf_counter() - tic
    return estimator, elapsed, np.ravel(estimator.coef_).astype(np.float64)


def _client_peak_mb(make, X, y, client):
    """Peak traced memory of the client process (and its scheduler) in a refit:
    a fit of its own, since tracing slows the client's Python by about 20%."""
    import tracemalloc

    _settle(client)
    tracemalloc.start()
    _fit(make, X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def _time_to_target(
    make_peer, X, y, client, error, target, repeats, start=1, limit=128
):
    """The smallest max_iter whose fit reaches ``target``, and that fit's record.

    ``max_iter`` doubles from ``start`` until the target is reached, then
    bisects; the time is the median of ``repeats`` fits at that ``max_iter``.
    A solver whose error does not fall by a tenth when ``max_iter`` doubles
    has stalled: its record says so, with the error it stalled at.
    """
    reached, failed, k, previous = None, 0, start, np.inf
    records = {}
    while k <= limit:
        records[k] = _timed_fit(lambda k=k: make_peer(k), X, y, client)[1:]
        current = error(records[k][1])
        print(
            f"  max_iter={k}: {records[k][0]:.2f} s, error {current:.2e}",
            file=sys.stderr,
            flush=True,
        )
        if current <= target:
            reached = k
            break
        if k >= 8 and current > 0.9 * previous:
            return {"stalled": k, "error": current}
        failed, k, previous = k, 2 * k, current
    if reached is None:
        return {"stalled": limit, "error": current}
    while reached - failed > 1:
        k = (reached + failed) // 2
        records[k] = _timed_fit(lambda k=k: make_peer(k), X, y, client)[1:]
        if error(records[k][1]) <= target:
            reached = k
        else:
            failed = k
    elapsed, coef = records[reached]
    times = [elapsed] + [
        _timed_fit(lambda: make_peer(reached), X, y, client)[1]
        for _ in range(repeats - 1)
    ]
    return {
        "max_iter": reached,
        "time_s": float(np.median(times)),
        "client_mb": _client_peak_mb(lambda: make_peer(reached), X, y, client),
        "error": error(coef),
    }


def run_logistic(
    n_samples,
    memory_limit,
    family,
    max_iters,
    repeats,
    solvers=("lbfgs", "admm"),
    target=1e-3,
):
    import dask_ml.linear_model
    from distributed import wait

    from skcgm.linear_model import LocalSensitivityLogistic

    records = {}
    with _cluster(memory_limit) as client:
        df, by_class = FAMILIES[family]
        X, y = make_logistic_dask(n_samples, df=df, by_class=by_class)
        X, y = X.persist(), y.persist()
        wait([X, y])
        tic = time.perf_counter()
        minimizer = _newton_minimum(X, y)
        f_star = _sum_objective(X, y, minimizer)
        records["newton_s"] = time.perf_counter() - tic

        def error(coef):
            return (_sum_objective(X, y, coef) - f_star) / f_star

        candidates = {
            "ours (defaults)": {},
            "Gram of every row": {"leverage": "exact"},
            "uniform sampling": {"sampling": "uniform"},
        }
        for rounds in max_iters:
            candidates[f"ours (max_iter={rounds})"] = {"max_iter": rounds}
        for name, options in candidates.items():

            def make(options=options):
                return LocalSensitivityLogistic(
                    fit_intercept=False, random_state=0, **options
                )

            fits = [_timed_fit(make, X, y, client) for _ in range(repeats)]
            estimator, _, coef = fits[0]
            elapsed = float(np.median([fit[1] for fit in fits]))
            print(f"{name}: {elapsed:.2f} s", file=sys.stderr, flush=True)
            records[name] = {
                "time_s": elapsed,
                "passes": estimator.n_passes_,
                "rounds": int(estimator.n_iter_[0]),
                "client_mb": _client_peak_mb(make, X, y, client),
                "error": error(coef),
            }
        for solver in solvers:
            for normalize in (False, True):
                print(f"dask-ml {solver}, normalize={normalize}", file=sys.stderr)
                records[f"dask-ml {solver}, normalize={normalize}"] = _time_to_target(
                    lambda k, solver=solver, normalize=normalize: (
                        dask_ml.linear_model.LogisticRegression(
                            solver=solver,
                            fit_intercept=False,
                            tol=0.0,
                            max_iter=k,
                            solver_kwargs={"normalize": normalize},
                        )
                    ),
                    X,
                    y,
                    client,
                    error,
                    target,
                    repeats,
                )
    return records


FULL_SOLVERS = ("lbfgs", "newton", "admm", "gradient_descent", "proximal_grad")


def _compute_counter():
    """A scheduler plugin that counts the graphs submitted (one a compute)."""
    from distributed.diagnostics.plugin import SchedulerPlugin

    class ComputeCounter(SchedulerPlugin):
        name = _COUNTER

        def __init__(self):
            self.count = 0

        def update_graph(self, scheduler, **kwargs):
            self.count += 1

    return ComputeCounter()


_COUNTER = "skcgm-compute-counter"


def _computes(client):
    return client.run_on_scheduler(
        lambda dask_scheduler: dask_scheduler.plugins[_COUNTER].count
    )


def _counted(client, fit):
    """``fit()``, and the number of computations it submitted."""
    before = _computes(client)
    result = fit()
    return result, _computes(client) - before


def run_full(n_samples, memory_limit, family, repeats, target=1e-6):
    import dask_ml.linear_model
    from distributed import wait

    from skcgm.linear_model import LocalSensitivityLogistic

    records = {}
    with _cluster(memory_limit) as client:
        client.register_plugin(_compute_counter())
        df, by_class = FAMILIES[family]
        X, y = make_logistic_dask(n_samples, df=df, by_class=by_class)
        X, y = X.persist(), y.persist()
        wait([X, y])
        tic = time.perf_counter()
        minimizer = _newton_minimum(X, y)
        f_star = _sum_objective(X, y, minimizer)
        records["newton_s"] = time.perf_counter() - tic

        def error(coef):
            return (_sum_objective(X, y, coef) - f_star) / f_star

        def ours(max_iter="auto", tol=1e-4):
            return LocalSensitivityLogistic(
                sampling="full", fit_intercept=False, max_iter=max_iter, tol=tol
            )

        fits = [_timed_fit(ours, X, y, client) for _ in range(repeats)]
        estimator, computes = _counted(client, lambda: _fit(ours, X, y))
        records["ours, sampling='full' (defaults)"] = {
            "time_s": float(np.median([fit[1] for fit in fits])),
            "passes": estimator.n_passes_,
            "iterations": int(estimator.n_iter_[0]),
            "computes": computes,
            "error": error(np.ravel(estimator.coef_)),
        }
        makers = {
            "ours, sampling='full', tol=0": lambda k: ours(max_iter=k, tol=0.0),
            **{
                f"dask-ml {solver}": lambda k, solver=solver: (
                    dask_ml.linear_model.LogisticRegression(
                        solver=solver, fit_intercept=False, tol=0.0, max_iter=k
                    )
                )
                for solver in FULL_SOLVERS
            },
        }
        for name, make in makers.items():
            print(name, file=sys.stderr, flush=True)
            record = _time_to_target(make, X, y, client, error, target, repeats)
            if "max_iter" in record:
                estimator, record["computes"] = _counted(
                    client,
                    lambda make=make, k=record["max_iter"]: _fit(lambda: make(k), X, y),
                )
                if name.startswith("ours"):
                    record["passes"] = estimator.n_passes_
            records[name] = record
    return records


def _data_caption(family, n_samples, memory_limit, newton_s):
    """The first line of a logistic report: the data, the cluster, the minimum."""
    gb = n_samples * N_FEATURES * 8 / 1e9
    df, by_class = FAMILIES[family]
    rows = "Gaussian" if df is None else f"t ({df:g} df)"
    rows += " rows, stored by class" if by_class else " rows in random order"
    return (
        f"{family}: X {n_samples:,} x {N_FEATURES} float64 ({gb:.2f} GB), correlated "
        f"{rows}, chunks of {CHUNK_ROWS:,} rows; 2 workers x 1 thread, "
        f"memory_limit={memory_limit} each; persisted. Minimum by Newton in "
        f"{newton_s:.1f} s."
    )


def _fits_table(records, columns, stalled, cells):
    """Print the fits of ``records`` as a Markdown table, a line per fit:
    ``stalled(record)`` or ``cells(record)`` after its name. Returns the times
    of the dask-ml fits."""
    print("| fit | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    peers = []
    for name, record in records.items():
        if name == "newton_s":
            continue
        if "stalled" in record:
            print(f"| {name} | {stalled(record)} |")
            continue
        if name.startswith("dask-ml"):
            peers.append(record["time_s"])
        print(f"| {name} | {cells(record)} |")
    return peers


def _full_cells(record):
    max_iter = record.get("max_iter", f"auto ({record.get('iterations')} used)")
    return (
        f"{record['time_s']:.2f} | {max_iter} | {record.get('passes', '-')} | "
        f"{record['computes']} | {record['error']:.2e}"
    )


def report_full(records, n_samples, memory_limit, family, target=1e-6):
    caption = _data_caption(family, n_samples, memory_limit, records["newton_s"])
    print(f"{caption} Target: relative objective error {target:g}.\n")
    peers = _fits_table(
        records,
        ("time (s)", "max_iter", "passes", "computes", "relative error"),
        lambda record: (
            f"- | stalled by {record['stalled']} | - | - | {record['error']:.2e}"
        ),
        _full_cells,
    )
    searched = records["ours, sampling='full', tol=0"]
    if peers and "time_s" in searched:
        default = records["ours, sampling='full' (defaults)"]
        print(
            f"\nTime to {target:g}: ours {searched['time_s']:.2f} s (defaults "
            f"{default['time_s']:.2f} s, error {default['error']:.1e}) against the "
            f"fastest dask-ml fit {min(peers):.2f} s: ratio "
            f"{searched['time_s'] / min(peers):.2f} (defaults "
            f"{default['time_s'] / min(peers):.2f})\n"
        )
    else:
        print(f"\nNo dask-ml fit reached {target:g}.\n")


def _logistic_cells(record):
    if "max_iter" in record:
        count = f"max_iter={record['max_iter']}"
    else:
        count = f"{record['passes']} passes, {record['rounds']} rounds"
    return (
        f"{record['time_s']:.2f} | {count} | {record['error']:.2e} | "
        f"{record['client_mb']:.0f}"
    )


def report_logistic(records, n_samples, memory_limit, family, target=1e-3):
    caption = _data_caption(family, n_samples, memory_limit, records["newton_s"])
    print(f"{caption}\n")
    peers = _fits_table(
        records,
        ("time (s)", "passes / max_iter", "relative error", "client MB"),
        lambda record: (
            f"- | stalled by max_iter={record['stalled']} | {record['error']:.2e} | -"
        ),
        _logistic_cells,
    )
    ours = records["ours (defaults)"]
    if peers:
        print(
            f"\nTime to {target:g}: ours (defaults) {ours['time_s']:.2f} s against the "
            f"fastest dask-ml fit {min(peers):.2f} s: ratio "
            f"{ours['time_s'] / min(peers):.2f}\n"
        )
    else:
        print(f"\nNo dask-ml fit reached {target:g}.\n")


def main(argv=None):
    parser = _common.script_parser(__doc__, repeats=3, kept="median")
    parser.add_argument(
        "which", nargs="?", choices=["kmeans", "logistic", "full"], default="kmeans"
    )
    parser.add_argument("--n-samples", type=int, default=8_000_000)
    parser.add_argument("--memory-limit", default="1.9GB")
    parser.add_argument(
        "--families", default=",".join(FAMILIES), help="logistic: the row families"
    )
    parser.add_argument(
        "--max-iters", default="3", help="logistic: round counts fitted beside 'auto'"
    )
    parser.add_argument(
        "--solvers",
        default="lbfgs,admm",
        help="logistic: the dask-ml solvers timed (L-BFGS's search takes minutes)",
    )
    _common.add_record_argument(parser)
    args = parser.parse_args(argv)
    machine = _common.machine_info()
    warnings.simplefilter("ignore", UserWarning)
    tic = time.perf_counter()
    if args.which == "full":
        records = {}
        for family in args.families.split(","):
            records[family] = run_full(
                args.n_samples, args.memory_limit, family, args.repeats
            )
            report_full(records[family], args.n_samples, args.memory_limit, family)
    elif args.which == "logistic":
        max_iters = [int(k) for k in args.max_iters.split(",") if k]
        records = {}
        for family in args.families.split(","):
            records[family] = run_logistic(
                args.n_samples,
                args.memory_limit,
                family,
                max_iters,
                args.repeats,
                solvers=args.solvers.split(","),
            )
            report_logistic(records[family], args.n_samples, args.memory_limit, family)
    else:
        records = run(args.n_samples, args.repeats, args.memory_limit)
        report(records, args.n_samples, args.repeats, args.memory_limit)
    print(f"\n{time.perf_counter() - tic:.0f} s; {_common.machine_caption(machine)}")
    _common.save(args, machine, vars(args), records, _record)


# Issue 20: LocalSensitivityLogistic's default fit to 1e-3 in at most 0.3x the
# fastest dask-ml solver's time.
TARGET_LOGISTIC_RATIO = 0.3


def _fastest_peer(family_records):
    """(name, time) of the fastest dask-ml fit that reached the error."""
    peers = [
        (name, fit["time_s"])
        for name, fit in family_records.items()
        if name.startswith("dask-ml") and "time_s" in fit
    ]
    return min(peers, key=lambda peer: peer[1]) if peers else (None, None)


def _record(args, machine, config, records):
    gb = args.n_samples * N_FEATURES * 8 / 1e9
    cluster = (
        f"2 workers x 1 thread, memory_limit={args.memory_limit} each, "
        f"X {args.n_samples:,} x {N_FEATURES} ({gb:.2f} GB)"
    )
    rows = []
    if args.which == "kmeans":
        estimator, peer = "SumOfMinKMeans", "dask_ml.cluster.KMeans"
        for part, label in (
            ("same start", f"{LLOYD_ITERATIONS} Lloyd iterations from the same start"),
            ("own seeding", "each one's own seeding, to convergence"),
        ):
            times = records[part]["time_s"]
            rows.append(_common.headline(label, times["ours"] / times["dask-ml"]))
        data = f"{N_CLUSTERS} Gaussian blobs; {cluster}"
    else:
        full = args.which == "full"
        estimator = (
            "LocalSensitivityLogistic(sampling='full')"
            if full
            else "LocalSensitivityLogistic()"
        )
        peer = "dask_ml.linear_model.LogisticRegression (fastest solver)"
        error = 1e-6 if full else 1e-3
        ours_name = "ours, sampling='full', tol=0" if full else "ours (defaults)"
        for family, family_records in records.items():
            name, fastest = _fastest_peer(family_records)
            ours = family_records[ours_name]
            ratio = None
            if fastest is not None and "time_s" in ours:
                ratio = ours["time_s"] / fastest
            target = None if full else f"<= {TARGET_LOGISTIC_RATIO:g}"
            rows.append(
                _common.headline(
                    f"time to {error:g} relative error, {family}"
                    + (
                        f" ({name.removeprefix('dask-ml ')})"
                        if name
                        else " (no dask-ml fit reached it)"
                    ),
                    ratio,
                    target,
                    peer="dask-ml LogisticRegression, its fastest fit",
                    data=f"{family} rows; {cluster}",
                )
            )
        data = f"correlated rows, families {args.families}; {cluster}"
    _common.record(
        f"dask_{args.which}",
        rows,
        args,
        title=f"{estimator} against dask-ml on dask arrays ({args.which})",
        estimator=estimator,
        peer=peer,
        data=data,
        machine=machine,
        config=vars(args),
        results=records,
    )


if __name__ == "__main__":
    main()
