"""Command line: ``python -m skcgm compare`` and ``python -m skcgm reproduce NAME``.

Tables go to stdout (or JSON with ``--json``), progress to stderr, so that
``python -m skcgm compare > table.txt`` keeps only the table.
"""

import argparse
import importlib.util
import json
import pathlib
import re
import sys
import textwrap
import time
from functools import partial

from ._version import __version__
from .experiments import (
    COMPARISONS,
    EXPERIMENTS,
    get_experiment,
    plot_compare,
    run_compare,
)

_PLOT_MISSING = 'skcgm: error: --plot needs matplotlib: pip install "skcgm[plot]"'


def _positive_int(minimum):
    def parse(text):
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}")
        return value

    return parse


def _compare_epilog():
    lines = ["rows it runs (data set: description; estimators):"]
    for c in COMPARISONS:
        names = ", ".join(
            f"{e.name} (baseline)" if e.name == c.baseline else e.name
            for e in c.candidates
        )
        lines += [f"  {c.dataset}: {c.description}", f"      {names}"]
    return "\n".join(lines)


def _reproduce_epilog():
    width = max(map(len, EXPERIMENTS))
    lines = ["experiments:"]
    for name, experiment in sorted(EXPERIMENTS.items()):
        lines += textwrap.wrap(
            experiment.description,
            width=79,
            initial_indent=f"  {name.ljust(width)}  ",
            subsequent_indent=" " * (width + 4),
        )
    return "\n".join(lines)


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="skcgm",
        description="Compare skcgm estimators with scikit-learn baselines and "
        "rerun the papers' experiments.",
        epilog="Tables go to stdout, progress to stderr. "
        "Run 'skcgm COMMAND --help' for the rows or experiments available.",
    )
    parser.add_argument("--version", action="version", version=f"skcgm {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--json",
        action="store_true",
        help="print the result as JSON on stdout instead of the table",
    )
    common.add_argument(
        "--random-state",
        type=int,
        default=0,
        metavar="SEED",
        help="seed of the data, splits and estimators (default: 0)",
    )

    compare = commands.add_parser(
        "compare",
        parents=[common],
        help="cross-validate skcgm estimators against scikit-learn baselines",
        # Raw formatting keeps the epilog's layout, so wrap the description here.
        description=textwrap.fill(
            "Cross-validate each skcgm estimator against the baseline a user "
            "would otherwise pick and print, per estimator family, one table "
            "(held-out scores, mean ± std over folds; the median fit time of "
            "repeated fits and its ratio to the baseline) and a verdict per data "
            "set against the best competitor on the family's axis.",
            width=79,
        ),
        epilog=_compare_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    compare.add_argument(
        "--datasets",
        nargs="+",
        choices=[c.dataset for c in COMPARISONS],
        metavar="NAME",
        help="run only these data sets (choices: %(choices)s; default: all)",
    )
    compare.add_argument(
        "--n-splits",
        type=_positive_int(2),
        default=5,
        metavar="K",
        help="cross-validation folds (StratifiedKFold for the rows with classes, "
        "KFold for the regression and subspace rows, seeded streams for the "
        "online learners; default: 5)",
    )
    # The folds' scores do not need a quiet machine, the timings do: those
    # are repeated one at a time after the folds, whatever --n-jobs.
    compare.add_argument(
        "--n-jobs",
        type=int,
        default=-1,
        metavar="N",
        help="joblib workers for the folds' fits and scores (default: -1, every "
        "core); the timed repeats run one at a time",
    )
    compare.add_argument(
        "--repeats",
        type=_positive_int(1),
        default=3,
        metavar="R",
        help="timed fits of each estimator on the first fold, the median printed "
        "with its interquartile range (2R-1 for fits under 0.1 s; default: 3)",
    )
    compare.add_argument(
        "--explain",
        action="store_true",
        help="print the metrics' definitions and each family's set-up after the tables",
    )
    compare.add_argument(
        "--plot",
        metavar="DIR",
        help="save one figure per family in DIR, created if missing (needs "
        'matplotlib: pip install "skcgm[plot]")',
    )

    reproduce = commands.add_parser(
        "reproduce",
        parents=[common],
        help="rerun a paper experiment (quick size; --full for the paper's)",
        description="Rerun a paper experiment and print the paper's figures "
        "beside ours.",
        epilog=_reproduce_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    reproduce.add_argument(
        "experiment",
        choices=sorted(EXPERIMENTS),
        metavar="EXPERIMENT",
        help="name of the experiment (choices: %(choices)s)",
    )
    reproduce.add_argument(
        "--plot",
        metavar="FILE.png",
        help='save the figure (needs matplotlib: pip install "skcgm[plot]")',
    )
    reproduce.add_argument(
        "--n-jobs",
        type=int,
        default=None,
        metavar="N",
        help="joblib workers for the trials (default: one at a time)",
    )
    size = reproduce.add_mutually_exclusive_group()
    size.add_argument(
        "--full", action="store_true", help="paper size (slower than the default)"
    )
    size.add_argument(
        "--trials",
        type=_positive_int(1),
        metavar="N",
        help="number of Monte Carlo trials (overrides the default size)",
    )
    return parser


def _progress(prefix):
    def report(message):
        print(f"[{prefix}] {message}", file=sys.stderr, flush=True)

    return report


def _save_plot(plot, result, path, **options):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.0, 4.5))
    plot(result, figure, **options)
    figure.savefig(path, dpi=150)


def _save_compare_plots(result, directory):
    """One bar chart per family, ``DIR/compare-<family>.png``."""
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for family in dict.fromkeys(row["family"] for row in result.rows):
        slug = re.sub(r"[^a-z0-9]+", "-", family.lower()).strip("-")
        path = directory / f"compare-{slug}.png"
        _save_plot(plot_compare, result, path, family=family)


def main(argv=None):
    """Run the command line.

    Parameters
    ----------
    argv : list of str or None, default=None
        Arguments without the program name; None reads ``sys.argv[1:]``.

    Returns
    -------
    status : int
        0 on success, 2 on a usage error (argparse's convention).
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        # --help and --version exit 0, usage errors 2; return rather than exit
        # so that callers (and tests) get the status.
        return int(exc.code or 0)

    # Fail before a long run, not after it.
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        print(_PLOT_MISSING, file=sys.stderr)
        return 2

    start = time.perf_counter()
    if args.command == "compare":
        progress = _progress("compare")
        result = run_compare(
            args.datasets,
            n_splits=args.n_splits,
            n_repeats=args.repeats,
            random_state=args.random_state,
            n_jobs=args.n_jobs,
            progress=progress,
        )
        text = result.to_text(explain=args.explain)
        save = partial(_save_compare_plots, result)
    else:
        experiment = get_experiment(args.experiment)
        progress = _progress(experiment.name)
        result = experiment.run(
            full=args.full,
            trials=args.trials,
            random_state=args.random_state,
            n_jobs=args.n_jobs,
            progress=progress,
        )
        text = result.to_text()
        save = partial(_save_plot, experiment.plot, result)

    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        print(text)
    if args.plot is not None:
        save(args.plot)
        progress(f"figures written to {args.plot}")
    progress(f"done in {time.perf_counter() - start:.1f} s")
    return 0
