"""SumOfMinKMeans against dask-ml's KMeans on a dask array larger than a worker.

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

Usage::

    python benchmarks/bench_dask.py [--n-samples N] [--repeats R] [--json PATH]

The default X is 8,000,000 x 32 float64 (2.0 GB) of 16 Gaussian blobs, in
chunks of 250,000 rows, on 2 workers of 1.9 GB each (half of X per worker,
below dask's 60% spill threshold; X is larger than a worker's memory).
"""

import argparse
import time
import warnings

import numpy as np
from _common import machine_caption, machine_info, write_json

N_CLUSTERS = 16
N_FEATURES = 32
CHUNK_ROWS = 250_000
LLOYD_ITERATIONS = 10


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
    from distributed import Client, LocalCluster, wait

    from skcgm.cluster import SumOfMinKMeans
    from skcgm.optim import SquaredEuclideanLoss
    from skcgm.optim._dask_lloyd import dask_objective

    records = {}
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            memory_limit=memory_limit,
            dashboard_address=None,
        ) as cluster,
        Client(cluster),
    ):
        X = make_blobs_dask(n_samples).persist()
        wait(X)

        def inertia(centers):
            loss = SquaredEuclideanLoss()
            return 2 * n_samples * dask_objective(X, None, loss, centers)

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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=8_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory-limit", default="1.9GB")
    parser.add_argument("--json", help="write the records to this path")
    args = parser.parse_args(argv)
    machine = machine_info()
    warnings.simplefilter("ignore", UserWarning)
    tic = time.perf_counter()
    records = run(args.n_samples, args.repeats, args.memory_limit)
    report(records, args.n_samples, args.repeats, args.memory_limit)
    print(f"\n{time.perf_counter() - tic:.0f} s; {machine_caption(machine)}")
    if args.json:
        write_json(args.json, machine, vars(args), records)


if __name__ == "__main__":
    main()
