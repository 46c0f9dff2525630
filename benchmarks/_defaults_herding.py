"""KernelHerdingSampler defaults: where 'auto' switches from exact to features.

The command line of the defaults panel ``herding`` of ``skcgm.experiments``
(``run_defaults_panel("herding")``; its three parts are described in
``src/skcgm/experiments/_defaults_herding.py``): the measurements behind
``feature_map='auto'``, ``maxip='auto'`` and ``refine='auto'`` of
``KernelHerdingSampler`` (issue 18, part D, and issue 38), every fit single
threaded:

- ``grid``: the exact kernel, random features with an exact scan and with
  the LSH index, timed on Gaussian mixtures for n in {1e3, ..., 5e4} and d
  in {2, 20, 64}, with their squared MMDs (``--full``: best of 3 fits below
  n = 1e4 and every exact fit);
- ``lsh``: random features with and without the index beyond the grid (n up
  to 2e5, ``n_samples`` up to 1000);
- ``refine``: ``refine='swap'`` against plain herding on a panel of data
  families, n from 2^10 to 2^16 and n_samples from 16 to 2048.

Usage::

    python benchmarks/_defaults_herding.py [--full] [--panel all] [--json PATH]
    python benchmarks/_defaults_herding.py --panel refine [--json PATH]

``--record`` writes ``benchmarks/results/defaults_herding.json`` (with
``--panel grid``, ``lsh`` or ``refine``: ``defaults_herding_<panel>.json``;
see ``benchmarks/summary.py``).
"""

import _common

from skcgm.experiments import DEFAULTS_PANELS

SETTINGS = DEFAULTS_PANELS["herding"].settings


def main(argv=None):
    parser = _common.panel_parser(__doc__, "repeats, every exact fit")
    parser.add_argument(
        "--panel",
        choices=[*SETTINGS["parts"], "all"],
        default="all",
        help="the n x d grid, the LSH panel beyond it, refine's data families, "
        "or all three",
    )
    _common.add_record_argument(parser)
    args = parser.parse_args(argv)
    parts = SETTINGS["parts"] if args.panel == "all" else (args.panel,)
    results, machine, _ = _common.run_panel("herding", args, parts=parts)
    if args.record:
        config = {"quick": not args.full, **SETTINGS}
        _record(args, machine, config, results)


def _record(args, machine, config, results):
    rows = []
    if results["grid"]:
        # Per d, the largest n where the exact scan ran: random features
        # against the kernel trick, the choice feature_map='auto' makes.
        largest = {}
        for case in results["grid"].values():
            if case.get("time_exact") and case.get("time_rff"):
                if case["n"] >= largest.get(case["d"], {"n": 0})["n"]:
                    largest[case["d"]] = case
        rows += _common.spread_rows(
            "fit CPU time of feature_map='rff' against 'exact', at the largest n "
            "with an exact fit",
            {
                f"n={case['n']}, d={d}": case["time_rff"] / case["time_exact"]
                for d, case in largest.items()
            },
            estimator="KernelHerdingSampler(feature_map='rff')",
            peer="KernelHerdingSampler(feature_map='exact')",
        )
    if results["lsh"]:
        rows += _common.spread_rows(
            "fit CPU time with the LSH index",
            {
                name: case["time_rff+lsh"] / case["time_rff"]
                for name, case in results["lsh"].items()
                if case.get("time_rff+lsh") and case.get("time_rff")
            },
            estimator="KernelHerdingSampler(feature_map='rff', maxip='lsh')",
            peer="KernelHerdingSampler(feature_map='rff', maxip='exact')",
        )
    if results["refine"]:
        rows += _common.spread_rows(
            "MMD^2 (the sampler's own)",
            {name: case["mmd2_ratio"] for name, case in results["refine"].items()},
            estimator="KernelHerdingSampler(refine='swap')",
            peer="KernelHerdingSampler(refine=None)",
        )
    suffix = "" if args.panel == "all" else f"_{args.panel}"
    _common.record(
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
        results=results,
    )


if __name__ == "__main__":
    main()
