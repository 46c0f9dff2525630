"""Panel for the defaults of the momentum Lloyd solver (issue 18, part E).

The command line of the defaults panel ``momentum`` of ``skcgm.experiments``
(``run_defaults_panel("momentum")``; its families and settings are described
in ``src/skcgm/experiments/_defaults_momentum.py``):
``SumOfMinKMeans(solver='momentum')`` at a grid of its hyper-parameters, one
varied at a time around the defaults, against ``solver='exact'`` from the
same seeding, on k-means data families (compare's blobs and their variants,
digits, iris, 32 blobs in d = 32). Reported per family: the geometric mean
of the ratio of the final inertia of 'momentum' to that of 'exact', the
worst ratio, the runs where 'momentum' ends lower / higher by more than
0.1%, the mean number of iterations, and the runs that hit ``max_iter``
(``!n``). A ratio below 1 means momentum found the lower local minimum.

Usage::

    python benchmarks/_defaults_momentum.py [--full] [--json PATH] [--record]

The quick panel (4 seeds, 2 folds of compare's blobs per seed, 12 settings)
took 91 s on a shared 2-core machine; ``--full`` (10 seeds, 5 folds, 19
settings) took 445 s. The settings that oscillate (``momentum >= 0.7``, large
``eta0``) take most of the time, running to ``max_iter``. ``--record`` writes
``benchmarks/results/defaults_momentum.json`` (see ``benchmarks/summary.py``).
"""

import _common


def main(argv=None):
    parser = _common.panel_parser(__doc__, "10 seeds, 19 settings")
    _common.add_record_argument(parser)
    args = parser.parse_args(argv)
    results, machine, _ = _common.run_panel("momentum", args)
    if args.record:
        defaults = next(iter(results["settings"].values()))
        ratios = {family: cell["geomean"] for family, cell in defaults.items()}
        _common.record(
            "defaults_momentum",
            _common.spread_rows("final inertia, geometric mean over the runs", ratios),
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
