"""The defaults panel of CompAdaGradClassifier: candidates against diagonal AdaGrad.

The command line of the defaults panel ``compadagrad`` of
``skcgm.experiments`` (``run_defaults_panel("compadagrad")``; its families,
candidates and protocols are described in
``src/skcgm/experiments/_defaults_compadagrad.py``): every candidate setting
of the choices a user does not think about (``variant``, ``n_components``,
``eta0``, ``batch_size``) scored by its zero-one test error against diagonal
AdaGrad, the same estimator with ``n_components=0``, on the same split, seed
by seed. Fit times are recorded beside ``SGDClassifier(loss='hinge')``'s, for
information: the machine is shared, so they are contended.

Usage::

    python benchmarks/_defaults_compadagrad.py            # quick panel
    python benchmarks/_defaults_compadagrad.py --full     # more sizes and seeds
    python benchmarks/_defaults_compadagrad.py --json panel.json
    python benchmarks/_defaults_compadagrad.py --protocols fit \\
        --candidates "n_components=16,n_components=128,eta0=0.03,batch_size=8"
    python benchmarks/_defaults_compadagrad.py --families "breast cancer" \\
        --seeds 60 --protocols fit --candidates "default,delta=1.0;eta0=0.03"

A candidate is a name of the panel's ``CANDIDATES`` or any overrides of the
estimator's parameters, ``name=value`` pairs joined by ``;`` (values as
Python literals); families are joined by ``;`` (their names hold commas).
``--record`` writes ``benchmarks/results/defaults_compadagrad.json`` (see
``benchmarks/summary.py``).
"""

import _common

from skcgm.experiments import DEFAULTS_PANELS

SETTINGS = DEFAULTS_PANELS["compadagrad"].settings


def main(argv=None):
    parser = _common.panel_parser(__doc__, "larger panel")
    parser.add_argument("--seeds", type=int, default=None, help="seeds (3 / 5)")
    parser.add_argument(
        "--candidates",
        help="comma-separated candidates, each under every protocol (of: "
        f"{', '.join(SETTINGS['candidates'])}; or overrides such as "
        "'delta=1.0;eta0=0.03')",
    )
    parser.add_argument(
        "--families", help="families joined by ';' (all of the panel's)"
    )
    parser.add_argument(
        "--protocols",
        help=f"comma-separated, of: {', '.join(SETTINGS['protocols'])} "
        "(default: the first three)",
    )
    _common.add_record_argument(parser)
    args = parser.parse_args(argv)
    rows, machine, wall = _common.run_panel(
        "compadagrad",
        args,
        seeds=args.seeds,
        families=args.families and args.families.split(";"),
        candidates=args.candidates and args.candidates.split(","),
        protocols=args.protocols and args.protocols.split(","),
    )
    if args.record:
        _record(args, machine, rows, wall)
    return rows


def _record(args, machine, rows, wall):
    fits = [
        row
        for row in rows
        if row["protocol"] == "fit" and row["candidate"] == "default"
    ]
    ratios = {
        row["family"]: row["error"] / row["diagonal_error"]
        for row in fits
        if row["diagonal_error"]
    }
    lines = _common.spread_rows("test error under fit", ratios) if ratios else []
    compare = {
        row["family"]: row["error"] / row["diagonal_error"]
        for row in fits
        if row["claim"] == SETTINGS["claims"]["compare"] and row["diagonal_error"]
    }
    if compare:
        # Issue 37: on compare's data sets the default errs no more than
        # diagonal AdaGrad.
        worst = max(compare, key=compare.get)
        lines.append(
            _common.headline(
                f"test error under fit, the worst of compare's {len(compare)} "
                f"data sets: {worst}",
                compare[worst],
                "<= 1",
            )
        )
    _common.record(
        "defaults_compadagrad",
        lines,
        args,
        title="CompAdaGradClassifier defaults panel: against diagonal AdaGrad",
        estimator="CompAdaGradClassifier() (defaults)",
        peer="diagonal AdaGrad (n_components=0, the same other parameters)",
        data=f"{len(ratios)} data families, "
        f"{'full' if args.full else 'quick'} panel, median over the seeds",
        machine=machine,
        config=vars(args),
        results={"rows": rows, "wall_s": wall},
    )


if __name__ == "__main__":
    main()
