"""MixedLinearRegressor against EM and GPCAClusterer against SpectralClustering.

The two applications of the sum-of-minimum paper beside the alternative a
user would otherwise pick, side by side in this one process, on the same
data and seed:

- mixed linear regression, ``make_mixed_linear_regression(1000, 8, 6,
  noise=0.01)`` (Table 3's hardest cell): one ``MixedLinearRegressor(6)``
  fit (alpha=0.01, k-means++ seeding with gradient scores, one run, ``tol=0``:
  Lloyd until the partition repeats, Algorithm 7) against one fit of the EM
  baseline of ``skcgm.experiments._em_baseline`` (one random start, until the
  mean log-likelihood gains less than 1e-8);
- GPCA, ``make_union_of_subspaces(1000, 6, 4, subspace_dim=2)`` (Table 1's
  largest cell, the paper's recipe): one ``GPCAClusterer(4, subspace_dim=2)``
  fit (Algorithm 1 then Lloyd, Algorithm 5, at most 50 iterations) against
  ``SpectralClustering(4, affinity='nearest_neighbors')``.

Measured: fit time, best of ``--repeats`` runs, and the ratio ours / peer;
iterations; the quality that makes the times comparable (coefficient error
and held-in oracle residual; clustering accuracy, best matching).

Usage::

    python benchmarks/bench_sum_of_min_apps.py [--json PATH] [--repeats 5]
"""

import argparse
import json
import os
import platform
import time

import numpy as np
import scipy
import sklearn
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import SpectralClustering
from threadpoolctl import threadpool_info

import skcgm
from skcgm.cluster._gpca import GPCAClusterer
from skcgm.datasets import make_mixed_linear_regression, make_union_of_subspaces
from skcgm.experiments._em_baseline import fit_em_mixed_linear
from skcgm.experiments._gpca_tables import best_matching_accuracy
from skcgm.linear_model import MixedLinearRegressor

SEED = 0
N_SAMPLES = 1000


def _best_time(func, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - start)
    return min(times), out


def _coef_error(true_coef, coef):
    distances = np.linalg.norm(true_coef[:, None] - coef[None], axis=2)
    rows, cols = linear_sum_assignment(distances)
    return float(distances[rows, cols].mean())


def _oracle_residual(X, y, coef, intercept):
    residuals = y[:, None] - X @ coef.T - intercept
    return float((0.5 * residuals**2).min(axis=1).mean())


def _bench_mixed_linear(repeats):
    n_features, n_components = 8, 6
    X, y, true_coef, _ = make_mixed_linear_regression(
        N_SAMPLES, n_features, n_components, noise=0.01, random_state=SEED
    )

    def ours():
        return MixedLinearRegressor(n_components, tol=0, random_state=SEED).fit(X, y)

    def em():
        return fit_em_mixed_linear(X, y, n_components, random_state=SEED)

    ours_time, model = _best_time(ours, repeats)
    em_time, result = _best_time(em, repeats)
    return {
        "data": f"make_mixed_linear_regression({N_SAMPLES}, {n_features}, "
        f"{n_components}, noise=0.01)",
        "ours": "MixedLinearRegressor",
        "peer": "EM baseline",
        "fit_time_ours_s": ours_time,
        "fit_time_peer_s": em_time,
        "fit_time_ratio": ours_time / em_time,
        "n_iter_ours": model.n_iter_,
        "n_iter_peer": result.n_iter,
        "quality": "coef. error",
        "quality_ours": _coef_error(true_coef, model.coef_),
        "quality_peer": _coef_error(true_coef, result.coef),
        "oracle_residual_ours": _oracle_residual(X, y, model.coef_, model.intercept_),
        "oracle_residual_peer": _oracle_residual(X, y, result.coef, result.intercept),
    }


def _bench_gpca(repeats):
    n_features, n_clusters = 6, 4
    X, labels, _ = make_union_of_subspaces(
        N_SAMPLES, n_features, n_clusters, subspace_dim=2, random_state=SEED
    )

    def ours():
        return GPCAClusterer(n_clusters, subspace_dim=2, random_state=SEED).fit(X)

    def spectral():
        return SpectralClustering(
            n_clusters, affinity="nearest_neighbors", random_state=SEED
        ).fit(X)

    ours_time, model = _best_time(ours, repeats)
    peer_time, peer = _best_time(spectral, repeats)
    return {
        "data": f"make_union_of_subspaces({N_SAMPLES}, {n_features}, "
        f"{n_clusters}, subspace_dim=2)",
        "ours": "GPCAClusterer",
        "peer": "SpectralClustering(nearest_neighbors)",
        "fit_time_ours_s": ours_time,
        "fit_time_peer_s": peer_time,
        "fit_time_ratio": ours_time / peer_time,
        "n_iter_ours": model.n_iter_,
        "n_iter_peer": None,
        "quality": "accuracy",
        "quality_ours": best_matching_accuracy(labels, model.labels_),
        "quality_peer": best_matching_accuracy(labels, peer.labels_),
        "oracle_residual_ours": None,
        "oracle_residual_peer": None,
    }


# (key, label, format) of the printed rows; the JSON has every key.
ROWS = (
    ("ours", "ours", ""),
    ("peer", "peer", ""),
    ("fit_time_ours_s", "fit time, ours (s, best of R)", ".4f"),
    ("fit_time_peer_s", "fit time, peer (s, best of R)", ".4f"),
    ("fit_time_ratio", "fit time ratio, ours / peer", ".2f"),
    ("n_iter_ours", "iterations, ours", "d"),
    ("n_iter_peer", "iterations, peer", "d"),
    ("quality", "quality measure", ""),
    ("quality_ours", "quality, ours", ".4f"),
    ("quality_peer", "quality, peer", ".4f"),
    ("oracle_residual_ours", "oracle residual, ours", ".2e"),
    ("oracle_residual_peer", "oracle residual, peer", ".2e"),
)


def _format(value, fmt):
    if value is None:
        return "—"
    return format(value, fmt)


def _table(results, repeats):
    names = list(results)
    header = ["measure", *names]
    lines = [[label.replace("best of R", f"best of {repeats}")] for _, label, _ in ROWS]
    for name in names:
        for line, (key, _, fmt) in zip(lines, ROWS):
            line.append(_format(results[name][key], fmt))
    widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]

    def render(row):
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        return "  ".join(cells)

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([render(header), rule, *map(render, lines)])


def _machine():
    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "skcgm": skcgm.__version__,
        "threadpools": [
            {key: pool.get(key) for key in ("internal_api", "num_threads", "version")}
            for pool in threadpool_info()
        ],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="PATH", help="also write the results here")
    parser.add_argument(
        "--repeats", type=int, default=5, help="timing repeats, best kept (5)"
    )
    args = parser.parse_args(argv)

    machine = _machine()
    results = {}
    for name, bench in (
        ("mixed linear regression", _bench_mixed_linear),
        ("GPCA", _bench_gpca),
    ):
        print(f"[bench_sum_of_min_apps] {name} ...", flush=True)
        results[name] = bench(args.repeats)

    pools = ", ".join(
        f"{pool['internal_api']} {pool['num_threads']} threads"
        for pool in machine["threadpools"]
    )
    print(
        f"\nOne fit each, same data and random_state={SEED}; quality: coef. "
        "error = mean ||coef_j - true_j|| under the best matching, oracle "
        "residual = mean min_j 1/2 (y - x coef_j)^2 on the training data, "
        "accuracy = best matching of labels to true subspaces.\n"
        f"{machine['cpu_count']} cores ({pools}); python {machine['python']}, "
        f"numpy {machine['numpy']}, scipy {machine['scipy']}, scikit-learn "
        f"{machine['scikit-learn']}, skcgm {machine['skcgm']}.\n"
    )
    print(_table(results, args.repeats))
    if args.json:
        config = {"repeats": args.repeats, "seed": SEED, "n_samples": N_SAMPLES}
        with open(args.json, "w") as f:
            json.dump(
                {"machine": machine, "config": config, "results": results},
                f,
                indent=2,
                default=lambda value: value.item(),
            )
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
