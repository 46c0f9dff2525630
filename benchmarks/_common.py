"""Helpers shared by the benchmark scripts: timing, the table, the machine.

The scripts run as ``python benchmarks/bench_<family>.py``, which puts this
folder on ``sys.path``, so they import it as ``_common``.
"""

import argparse
import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

# Where ``record`` writes: benchmarks/results/<key>.json, kept in git and read
# by benchmarks/summary.py, which renders the table at the top of BENCHMARKS.md.
RESULTS_DIR = Path(__file__).resolve().parent / "results"
REPO_ROOT = Path(__file__).resolve().parent.parent
# The record format; summary.py refuses records of another version.
RECORD_SCHEMA = 1
# Wall time of a recorded run counts from here: the scripts import this module
# before anything else runs.
_STARTED = time.perf_counter()


def script_parser(doc, *, repeats=None, kept="best"):
    """The options of a script: its first paragraph as description, ``--json``,
    and ``--repeats`` (``repeats`` timings, the ``kept`` one) when timed."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--json", metavar="PATH", help="also write the results here")
    if repeats is not None:
        parser.add_argument(
            "--repeats",
            type=int,
            default=repeats,
            help=f"timing repeats, {kept} kept ({repeats})",
        )
    return parser


def panel_parser(doc, full_help):
    """The options of a defaults panel's script: those of :func:`script_parser`
    and ``--full``."""
    parser = script_parser(doc)
    parser.add_argument("--full", action="store_true", help=full_help)
    return parser


def run_panel(name, args, **options):
    """Run the defaults panel ``name`` of ``skcgm.experiments`` for a script.

    Progress lines as it goes, then its tables, the wall time and the
    machine; ``--json`` writes its results. Returns the results, the
    machine and the wall time.
    """
    # Imported here, as in machine_info: the helpers of --record need NumPy only.
    from skcgm.experiments import DEFAULTS_PANELS, run_defaults_panel

    machine = machine_info()
    start = time.perf_counter()
    results = run_defaults_panel(name, full=args.full, progress=report, **options)
    wall = time.perf_counter() - start
    print(DEFAULTS_PANELS[name].format(results))
    print(f"\n{wall:.0f} s; {machine_caption(machine)}")
    if args.json:
        write_json(args.json, machine, vars(args), results)
    return results, machine, wall


def add_int_options(parser, options):
    """``--flag N`` options from ``{flag: (default, help[, note])}``; the help
    ends with the default and the note in parentheses."""
    for flag, (default, text, *note) in options.items():
        shown = "; ".join([str(default), *note])
        parser.add_argument(flag, type=int, default=default, help=f"{text} ({shown})")


def save(args, machine, config, results, record_run=None):
    """What ``--json`` and ``--record`` ask for: the JSON file, then
    ``record_run(args, machine, config, results)``."""
    if args.json:
        write_json(args.json, machine, config, results)
        print(f"\nwrote {args.json}")
    if args.record and record_run is not None:
        record_run(args, machine, config, results)


def sides(key, label, fmt, **names):
    """Table rows of one measure per side: ``{}`` in ``key`` takes each
    keyword, ``{}`` in ``label`` its value (``ours="SumOfMinKMeans"``)."""
    return tuple(
        (key.format(side), label.format(name), fmt) for side, name in names.items()
    )


def report(message):
    """Print a progress line at once (the runs are long, their output piped)."""
    print(message, flush=True)


def best_time(func, repeats):
    """Smallest wall time of ``repeats`` calls, and the last call's output."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - start)
    return min(times), out


def format_table(results, rows, repeats):
    """One column per case, one line per ``(key, label, format)`` of ``rows``.

    ``best of R`` in a label reads ``best of <repeats>``.
    """
    # Imported here, as in machine_info: the helpers of --record need NumPy only.
    from skcgm.experiments import format_cases

    measures = [
        (key, label.replace("best of R", f"best of {repeats}"), fmt)
        for key, label, fmt in rows
    ]
    return format_cases(results, measures)


def machine_info():
    """Core count, library versions and thread pools, for the record."""
    # Imported here: the helpers of --record (and tests/test_benchmark_summary)
    # need NumPy only.
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    import skcgm

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


def machine_caption(machine):
    """One line: cores, thread pools and versions."""
    pools = ", ".join(
        f"{pool['internal_api']} {pool['num_threads']} threads"
        for pool in machine["threadpools"]
    )
    return (
        f"{machine['cpu_count']} cores ({pools}); python {machine['python']}, "
        f"numpy {machine['numpy']}, scipy {machine['scipy']}, scikit-learn "
        f"{machine['scikit-learn']}, skcgm {machine['skcgm']}."
    )


def write_json(path, machine, config, results):
    """Write everything a table came from to ``path``."""
    with open(path, "w") as f:
        json.dump(
            {"machine": machine, "config": config, "results": results},
            f,
            indent=2,
            default=lambda value: value.item(),
        )


def add_record_argument(parser):
    """The ``--record`` flag every benchmark script takes."""
    parser.add_argument(
        "--record",
        action="store_true",
        help="also write the headline rows, the command, the commit and every "
        "result to benchmarks/results/<key>.json (see benchmarks/summary.py)",
    )


def _git(*args):
    try:
        out = subprocess.run(
            ["git", *args],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def git_commit():
    """Short hash of HEAD, with ``+dirty`` if tracked files differ from it."""
    commit = _git("rev-parse", "--short", "HEAD")
    if commit is None:
        return "unknown"
    if _git("status", "--porcelain", "--untracked-files=no"):
        commit += "+dirty"
    return commit


def command_line(argv=None):
    """The command that runs this script: ``python benchmarks/bench_x.py ...``."""
    argv = sys.argv if argv is None else argv
    script = Path(argv[0]).resolve()
    try:
        script = script.relative_to(REPO_ROOT)
    except ValueError:
        pass
    return shlex.join(["python", script.as_posix(), *argv[1:]])


def _target_met(value, target):
    """Whether ``value`` meets ``target``: '<= 1.5', '< 1', '>= 2', '1 +/- 0.1'."""
    if value is None or target is None or not math.isfinite(value):
        return None
    parts = target.split()
    try:
        if len(parts) == 2 and parts[0] in ("<=", "<", ">=", ">"):
            bound = float(parts[1])
            return {
                "<=": value <= bound,
                "<": value < bound,
                ">=": value >= bound,
                ">": value > bound,
            }[parts[0]]
        if len(parts) == 3 and parts[1] == "+/-":
            return abs(value - float(parts[0])) <= float(parts[2])
    except ValueError:
        pass
    raise ValueError(f"cannot read target {target!r}; give met= explicitly")


def _number(value):
    return None if value is None else float(value)


def headline(
    label,
    ratio=None,
    target=None,
    *,
    value=None,
    met=None,
    estimator=None,
    peer=None,
    data=None,
    loaded=None,
):
    """One headline row of a record.

    ``ratio`` is ours / peer of the measure ``label`` names; a row whose
    figure is not a ratio (a log-log slope, a fraction) gives ``value``
    instead. ``target`` is the issue's, as text ('<= 1.5', '1 +/- 0.1', or a
    sentence); ``met`` is computed from a target of the first two forms and
    must be given for the others (None: no target, the figure is reported).
    ``estimator``, ``peer`` and ``data`` default to the record's. ``loaded``
    is the same row measured with one core kept busy: a dict with ``ratio``
    and optionally ``target`` and ``met``.
    """
    figure = ratio if ratio is not None else value
    if met is None and target is not None:
        met = _target_met(figure, target)
    row = {
        "label": label,
        "estimator": estimator,
        "peer": peer,
        "ratio": _number(ratio),
        "value": _number(value),
        "target": target,
        "met": None if met is None else bool(met),
        "data": data,
    }
    if loaded is not None:
        loaded_target = loaded.get("target")
        loaded_met = loaded.get("met")
        if loaded_met is None and loaded_target is not None:
            loaded_met = _target_met(loaded["ratio"], loaded_target)
        row["loaded"] = {
            "ratio": _number(loaded["ratio"]),
            "target": loaded_target,
            "met": None if loaded_met is None else bool(loaded_met),
        }
    return row


def spread_rows(label, ratios, *, target=None, estimator=None, peer=None, data=None):
    """Two headline rows from ``{case: ratio}``: the median over the cases and
    the worst (largest) case, named in its label."""
    ratios = {case: ratio for case, ratio in ratios.items() if ratio is not None}
    worst = max(ratios, key=ratios.get)
    common = {"estimator": estimator, "peer": peer, "data": data}
    return [
        headline(
            f"{label}, median over {len(ratios)} cases",
            float(np.median(list(ratios.values()))),
            target,
            **common,
        ),
        headline(f"{label}, worst case: {worst}", ratios[worst], target, **common),
    ]


def _plain(value):
    """JSON for NumPy scalars and arrays, NaN and infinities as null."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def record(
    key,
    rows,
    args,
    *,
    title,
    estimator,
    peer,
    data,
    machine,
    config=None,
    results=None,
    directory=None,
):
    """Write ``benchmarks/results/<key>.json``: the headline rows and the run.

    ``rows`` are :func:`headline` rows; ``args`` the parsed options (kept as
    ``options``); ``config`` and ``results`` what ``--json`` writes. The
    command line, the date, the commit and the wall time since the script
    started are added here. Returns the path written.
    """
    if not rows:
        raise ValueError("a record needs at least one headline row")
    options = vars(args) if args is not None and not isinstance(args, dict) else args
    now = datetime.datetime.now(datetime.timezone.utc)
    payload = {
        "schema": RECORD_SCHEMA,
        "key": key,
        "title": title,
        "script": Path(sys.argv[0]).name,
        "estimator": estimator,
        "peer": peer,
        "data": data,
        "headline": list(rows),
        "command": command_line(),
        "date": now.date().isoformat(),
        "timestamp": now.isoformat(timespec="seconds"),
        "commit": git_commit(),
        "wall_s": round(time.perf_counter() - _STARTED, 1),
        "machine": machine,
        "options": options,
        "config": config,
        "results": results,
    }
    directory = RESULTS_DIR if directory is None else Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{key}.json"
    with open(path, "w") as f:
        json.dump(_plain(payload), f, indent=1, allow_nan=False)
        f.write("\n")
    shown = path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path
    print(f"\nrecorded {shown}", flush=True)
    return path
