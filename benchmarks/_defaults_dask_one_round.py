"""The one-round default of LocalSensitivityLogistic on dask arrays, on a panel.

The command line of the defaults panel ``dask-one-round`` of
``skcgm.experiments`` (``run_defaults_panel("dask-one-round")``; its
families and cells are described in
``src/skcgm/experiments/_defaults_dask_one_round.py``). Issue 38, point 7:
on a dask array ``max_iter='auto'`` stops after one round (a uniform start,
then one round of Algorithm 2 with ``sample_size='auto'``, 10% of the rows
and at most 100,000 draws). The panel measures the relative objective error
``(F - F*) / F*`` that default leaves against
``LogisticRegression(solver='newton-cholesky', tol=1e-12)``, on every dense
family of the defaults panel of ``_defaults_local_sensitivity.py`` and the
issue's Gaussian rows, at n from 1e4 to 1e6 (4e6 with ``--full``) and d in
{5, 20, 100}, over ``--seeds`` values of ``random_state``, each array in 8
chunks.

``--solver proximal_point`` measures the one round everywhere (the default
before issue 38); the default ``--solver auto`` measures the estimator's
default, which fits by L-BFGS where one round draws fewer than 2,000 rows
per coefficient.

Usage::

    python benchmarks/_defaults_dask_one_round.py [--full] [--seeds 3]
        [--solver auto|proximal_point] [--json PATH] [--record]

``--record`` writes ``benchmarks/results/defaults_dask_one_round.json`` (with
``--solver proximal_point``: ``defaults_dask_one_round_proximal_point.json``;
see ``benchmarks/summary.py``).
"""

import _common
import numpy as np

from skcgm.experiments import DEFAULTS_PANELS

SETTINGS = DEFAULTS_PANELS["dask-one-round"].settings


def main(argv=None):
    parser = _common.panel_parser(__doc__, "4e6 rows too")
    parser.add_argument("--seeds", type=int, default=SETTINGS["seeds"])
    parser.add_argument("--solver", default="auto", choices=list(SETTINGS["solvers"]))
    _common.add_record_argument(parser)
    args = parser.parse_args(argv)
    rows, machine, _ = _common.run_panel(
        "dask-one-round", args, seeds=args.seeds, solver=args.solver
    )
    if args.record:
        _record(args, machine, rows)


def _record(args, machine, rows):
    errors = np.array([row["error_max"] for row in rows])
    worst = max(rows, key=lambda row: row["error_max"])
    reference = "LogisticRegression(solver='newton-cholesky'), the optimum"
    lines = [
        _common.headline(
            f"share of the {len(rows)} cells within 1e-3 relative error at every seed",
            value=float(np.mean(errors <= 1e-3)),
            peer=reference,
        ),
        _common.headline(
            "largest relative objective error",
            value=worst["error_max"],
            peer=reference,
            data=f"{worst['family']}, n={worst['n_samples']:,}, "
            f"d={worst['n_features']} ({worst['solver']})",
        ),
    ]
    suffix = "" if args.solver == "auto" else f"_{args.solver}"
    _common.record(
        f"defaults_dask_one_round{suffix}",
        lines,
        args,
        title="LocalSensitivityLogistic's default fit on dask arrays, on a panel",
        estimator=f"LocalSensitivityLogistic(solver={args.solver!r}) on dask",
        peer=reference,
        data=f"{len(rows)} cells of 6 families, n from 1e4 to "
        f"{'4e6' if args.full else '1e6'}, {args.seeds} seed(s), 8 chunks",
        machine=machine,
        config=vars(args),
        results=rows,
    )


if __name__ == "__main__":
    main()
