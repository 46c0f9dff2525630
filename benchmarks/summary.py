"""The summary table at the top of BENCHMARKS.md, from benchmarks/results/*.json.

Every benchmark script run with ``--record`` writes one result file,
``benchmarks/results/<key>.json`` (``_common.record``): its headline rows
(ours / peer against the issue's target), the data, the exact command, the
date, the commit and every result. This script renders one markdown table
from those files, a line per headline row, and rewrites the block of
``BENCHMARKS.md`` between the two marker comments::

    python benchmarks/summary.py            # rewrite the block
    python benchmarks/summary.py --check    # exit 1 if the block is stale
    python benchmarks/summary.py --print    # print the block, change nothing

It uses the standard library only, so that a documentation build can load it
by path and render its own table::

    spec = importlib.util.spec_from_file_location("summary", "benchmarks/summary.py")
    summary = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(summary)
    rows = summary.summary_rows(summary.load_results("benchmarks/results"))

The stable interface: :func:`load_results`, :func:`summary_rows` (dicts with
the keys of ``SUMMARY_KEYS``), :func:`record_paths`, :func:`check_record`,
:func:`render_table`, :func:`render_block`, :func:`replace_block`,
``RECORD_KEYS`` and ``HEADLINE_KEYS`` (the keys every result file and every
headline row holds) and the markers ``START`` and ``END``. The folder's files
named in ``NOT_RECORDS`` (``compare.json``, from ``python -m skcgm compare
--json``) are not benchmark records and are skipped.
"""

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
BENCHMARKS_MD = ROOT / "BENCHMARKS.md"
RESULTS_PATH = "benchmarks/results"
START = "<!-- summary:start -->"
END = "<!-- summary:end -->"
# The version of the result files this script reads (_common.RECORD_SCHEMA).
SCHEMA = 1
# Files of benchmarks/results/ that are not benchmark records: compare.json is
# written by `python -m skcgm compare --json` and read by the documentation.
NOT_RECORDS = frozenset({"compare.json"})

# Keys of every result file. ``headline`` is a list of rows with the keys of
# HEADLINE_KEYS; ``options`` are the script's parsed options, ``config`` and
# ``results`` what its --json writes; ``wall_s`` is the run's wall time.
RECORD_KEYS = (
    "schema",
    "key",
    "title",
    "script",
    "estimator",
    "peer",
    "data",
    "headline",
    "command",
    "date",
    "timestamp",
    "commit",
    "wall_s",
    "machine",
    "options",
    "config",
    "results",
)
# Keys of every headline row: ``ratio`` is ours / peer of the measure the
# label names, or None when the row reports a ``value`` (a slope, a share)
# instead; ``target`` is text ('<= 1.5') or None (reported, no target);
# ``met`` is True, False or None (no target). ``estimator``, ``peer`` and
# ``data`` are None where the record's apply. A row may also hold ``loaded``:
# the same ratio measured with one core kept busy (``ratio``, ``target``,
# ``met``).
HEADLINE_KEYS = (
    "label",
    "estimator",
    "peer",
    "ratio",
    "value",
    "target",
    "met",
    "data",
)
# Keys of the rows of summary_rows, one per headline row.
SUMMARY_KEYS = (
    "key",
    "title",
    "label",
    "estimator",
    "peer",
    "ratio",
    "value",
    "target",
    "met",
    "ratio_loaded",
    "target_loaded",
    "met_loaded",
    "data",
    "command",
    "date",
    "commit",
    "wall_s",
    "path",
)


def load_results(directory=RESULTS):
    """Every result file of ``directory``, checked, sorted by key.

    Parameters
    ----------
    directory : str or Path, default=benchmarks/results
        The folder of the ``<key>.json`` files.

    Returns
    -------
    records : list of dict
        The files' contents, each with ``path`` added (relative to the
        repository root when inside it).
    """
    records = []
    for path in record_paths(directory):
        with open(path) as f:
            record = json.load(f)
        problems = check_record(record, path.stem)
        if problems:
            raise ValueError(f"{path}: " + "; ".join(problems))
        resolved = path.resolve()
        record["path"] = (
            resolved.relative_to(ROOT).as_posix()
            if resolved.is_relative_to(ROOT)
            else str(path)
        )
        records.append(record)
    return sorted(records, key=lambda record: record["key"])


def record_paths(directory=RESULTS):
    """The result files of ``directory``, sorted: ``*.json`` but ``NOT_RECORDS``."""
    paths = sorted(Path(directory).glob("*.json"))
    return [path for path in paths if path.name not in NOT_RECORDS]


def check_record(record, stem=None):
    """What is wrong with a result file: a list of messages, empty if nothing."""
    problems = [f"missing key {key!r}" for key in RECORD_KEYS if key not in record]
    if problems:
        return problems
    if record["schema"] != SCHEMA:
        problems.append(f"schema {record['schema']!r}, expected {SCHEMA}")
    if stem is not None and record["key"] != stem:
        problems.append(f"key {record['key']!r} is not the file name {stem!r}")
    if not str(record["command"]).startswith("python benchmarks/"):
        problems.append(f"command {record['command']!r} is not python benchmarks/...")
    if not record["headline"]:
        problems.append("no headline row")
    for i, row in enumerate(record["headline"]):
        missing = [key for key in HEADLINE_KEYS if key not in row]
        if missing:
            problems.append(f"headline row {i} misses {missing}")
    return problems


def summary_rows(records):
    """One flat dict per headline row, with the keys of ``SUMMARY_KEYS``.

    A row's ``estimator``, ``peer`` and ``data`` fall back to its record's;
    ``ratio_loaded``, ``target_loaded`` and ``met_loaded`` are None unless
    the row was also measured with one core busy.
    """
    rows = []
    for record in records:
        for line in record["headline"]:
            loaded = line.get("loaded") or {}
            rows.append(
                {
                    "key": record["key"],
                    "title": record["title"],
                    "label": line["label"],
                    "estimator": line["estimator"] or record["estimator"],
                    "peer": line["peer"] or record["peer"],
                    "ratio": line["ratio"],
                    "value": line["value"],
                    "target": line["target"],
                    "met": line["met"],
                    "ratio_loaded": loaded.get("ratio"),
                    "target_loaded": loaded.get("target"),
                    "met_loaded": loaded.get("met"),
                    "data": line["data"] or record["data"],
                    "command": record["command"],
                    "date": record["date"],
                    "commit": record["commit"],
                    "wall_s": record["wall_s"],
                    "path": record.get(
                        "path", f"benchmarks/results/{record['key']}.json"
                    ),
                }
            )
    return rows


def _figure(value):
    if value is None or not math.isfinite(value):
        return "—"
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 10:
        return f"{value:.1f}"
    if size >= 0.1 or size == 0:
        return f"{value:.2f}"
    return f"{value:.2g}"


def _met(met):
    return "—" if met is None else ("yes" if met else "**no**")


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text):
    return "`" + _cell(text).replace("`", "'") + "`"


COLUMNS = (
    "benchmark",
    "measure",
    "ours",
    "peer",
    "ours / peer",
    "target",
    "met",
    "data",
    "command",
    "date",
    "commit",
)


def render_table(rows):
    """The markdown table of ``summary_rows``' rows."""
    lines = [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    for row in rows:
        if row["ratio"] is not None:
            figure = _figure(row["ratio"])
        elif row["value"] is not None:
            figure = f"{_figure(row['value'])} (value)"
        else:
            figure = "—"
        if row["ratio_loaded"] is not None:
            figure += f" idle, {_figure(row['ratio_loaded'])} loaded"
        cells = [
            f"[{row['key']}]({row['path']})",
            _cell(row["label"]),
            _code(row["estimator"]),
            _code(row["peer"]),
            figure,
            _cell(row["target"] or "— (reported)"),
            _met(row["met"]),
            _cell(row["data"]),
            _code(row["command"]),
            row["date"],
            f"`{row['commit']}`",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_block(records):
    """The text between the markers: the table and one line of counts."""
    rows = summary_rows(records)
    targets = [row["met"] for row in rows if row["met"] is not None]
    dirty = sum(record["commit"].endswith("+dirty") for record in records)
    notes = (
        f"{len(rows)} headline rows from {len(records)} result files; "
        f"{sum(targets)} of {len(targets)} targets met. A `+dirty` commit "
        f"({dirty} of {len(records)} files) is a run on a tree with uncommitted "
        'changes. "(value)" rows report a slope or a share, not a ratio; '
        '"loaded" is the same ratio with one core kept busy.'
    )
    return "\n".join(
        [
            START,
            "<!-- Generated by `python benchmarks/summary.py` from "
            "benchmarks/results/*.json: edit those, not this block. -->",
            "",
            render_table(rows),
            "",
            notes,
            END,
        ]
    )


def replace_block(text, block):
    """``text`` with its block between the markers replaced by ``block``."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no {START} ... {END} block")
    return text[:start] + block + text[end + len(END) :]


def current_block(text):
    """The block of ``text`` between the markers, markers included."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no {START} ... {END} block")
    return text[start : end + len(END)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if BENCHMARKS.md's block differs from the generated one",
    )
    mode.add_argument(
        "--print", action="store_true", help="print the block, change nothing"
    )
    parser.add_argument("--results", default=RESULTS, help="the result files' folder")
    parser.add_argument("--file", default=BENCHMARKS_MD, help="the file to update")
    args = parser.parse_args(argv)
    block = render_block(load_results(args.results))
    if args.print:
        print(block)
        return 0
    path = Path(args.file)
    text = path.read_text()
    if args.check:
        if current_block(text) != block:
            print(
                f"{path}: the summary is stale; run python benchmarks/summary.py",
                file=sys.stderr,
            )
            return 1
        print(f"{path}: the summary is up to date")
        return 0
    updated = replace_block(text, block)
    if updated != text:
        path.write_text(updated)
        print(f"{path}: summary rewritten")
    else:
        print(f"{path}: summary unchanged")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
