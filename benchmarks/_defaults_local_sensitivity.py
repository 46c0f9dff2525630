"""The defaults panel of ``LocalSensitivityLogistic``: every candidate against
uniform sampling at equal draws, on several data families.

The command line of the defaults panel ``local-sensitivity`` of
``skcgm.experiments`` (``run_defaults_panel("local-sensitivity")``; its
candidates, families and objective are described in
``src/skcgm/experiments/_defaults_local_sensitivity.py``). Issue 18 (part
A): the paper's literal choices (``scores='theorem10'``,
``prox_weight='sqrt_grad'``) lost to uniform sampling on heavy-tailed data.
The panel scores each candidate default by the median relative objective
error ``(F - F*) / F*`` after 15 and after 100 rounds over 5 seeds, every
candidate drawing the same number of rows per round.

Usage::

    python benchmarks/_defaults_local_sensitivity.py [--full] [--record]

``--full`` adds a second size of every generated family (n = 50,000) and the
fixed prox weight candidates; the default (quick) mode runs in about two
minutes on one core. ``--record`` writes
``benchmarks/results/defaults_local_sensitivity.json`` (see
``benchmarks/summary.py``).
"""

import _common

from skcgm.experiments import DEFAULTS_PANELS

SETTINGS = DEFAULTS_PANELS["local-sensitivity"].settings


def main(argv=None):
    parser = _common.panel_parser(__doc__, "two sizes, more candidates")
    _common.add_record_argument(parser)
    args = parser.parse_args(argv)
    rows, machine, _ = _common.run_panel("local-sensitivity", args)
    if args.record:
        ratios = {
            f"{row['family']} ({row['n']} x {row['d']})": row["ratio100"]
            for row in rows
            if row["candidate"] == "default"
        }
        seeds, C = SETTINGS["seeds"], SETTINGS["C"]
        _common.record(
            "defaults_local_sensitivity",
            _common.spread_rows("relative objective error after 100 rounds", ratios),
            args,
            title="LocalSensitivityLogistic defaults panel: against uniform sampling",
            estimator="LocalSensitivityLogistic() (its default sampler)",
            peer="sampling='uniform', equal draws",
            data=f"{len(ratios)} data families, {seeds} seeds, "
            f"{'two sizes' if args.full else 'quick'}",
            machine=machine,
            config={"full": args.full, "seeds": seeds, "C": C},
            results={"rows": rows},
        )
    return rows


if __name__ == "__main__":
    main()
