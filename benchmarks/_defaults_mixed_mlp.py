"""Panel for the defaults of MixedMLPRegressor (issue 19).

The command line of the defaults panel ``mixed-mlp`` of
``skcgm.experiments`` (``run_defaults_panel("mixed-mlp")``; its candidates
and families are described in ``src/skcgm/experiments/_defaults_mixed_mlp.py``):
candidate settings of ``MixedMLPRegressor`` (the default, the paper's
``alpha=0.01``, no penalty, the gap seeding score, a random start) beside one
``MLPRegressor`` of the same hidden width, on three mixtures of networks or
linear models and on the diabetes data. Cells: the held-out oracle error
``min_loss`` (lower is better) on the mixtures, the held-out :math:`R^2`
(higher is better) on diabetes; means over the seeds.

Usage::

    python benchmarks/_defaults_mixed_mlp.py [--full] [--json PATH] [--record]

The quick panel (3 seeds) takes about two minutes on a shared 2-core
machine; ``--full`` runs 10 seeds. ``--record`` writes
``benchmarks/results/defaults_mixed_mlp.json`` (see ``benchmarks/summary.py``).
"""

import _common

from skcgm.experiments import DEFAULTS_PANELS

SETTINGS = DEFAULTS_PANELS["mixed-mlp"].settings


def main(argv=None):
    parser = _common.panel_parser(__doc__, "10 seeds")
    _common.add_record_argument(parser)
    args = parser.parse_args(argv)
    results, machine, _ = _common.run_panel("mixed-mlp", args)
    if args.record:
        # The mixtures' held-out oracle error (diabetes scores R^2, one network).
        peer, seeds = SETTINGS["peer"], SETTINGS["seeds"][args.full]
        ratios = {
            family: row["default"] / row[peer]
            for family, row in results.items()
            if family != "diabetes"
        }
        _common.record(
            "defaults_mixed_mlp",
            _common.spread_rows("held-out oracle error", ratios),
            args,
            title="MixedMLPRegressor defaults panel: beside one MLPRegressor",
            estimator="MixedMLPRegressor() (defaults)",
            peer=peer,
            data=f"{len(ratios)} mixtures (1000 / 200 split), {seeds} seeds",
            machine=machine,
            config={"full": args.full, "seeds": seeds},
            results=results,
        )


if __name__ == "__main__":
    main()
