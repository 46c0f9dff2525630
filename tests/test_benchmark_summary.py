"""BENCHMARKS.md leads with the summary generated from benchmarks/results/.

The benchmark scripts write ``benchmarks/results/<key>.json`` when run with
``--record``; ``benchmarks/summary.py`` renders the table at the top of
``BENCHMARKS.md`` from those files (issue 39, point 4). No benchmark runs
here: the tests read the result files, render the table in process and read
the scripts' sources.
"""

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"
HISTORY_LINK = "(benchmarks/HISTORY.md)"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def summary():
    return _load("benchmarks_summary", BENCHMARKS / "summary.py")


def _result_files():
    # compare.json (python -m skcgm compare --json) is no benchmark record.
    return [
        path for path in sorted(RESULTS.glob("*.json")) if path.name != "compare.json"
    ]


def test_there_are_result_files():
    assert _result_files(), "benchmarks/results/ holds no result file"


@pytest.mark.parametrize("path", _result_files(), ids=lambda path: path.stem)
def test_result_file_has_the_required_keys(summary, path):
    record = json.loads(path.read_text())
    assert summary.check_record(record, path.stem) == []
    assert record["command"].startswith("python benchmarks/")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", record["date"])
    assert re.fullmatch(r"[0-9a-f]{7,40}(\+dirty)?|unknown", record["commit"])
    for row in record["headline"]:
        assert (
            row["ratio"] is not None
            or row["value"] is not None
            or (row["met"] is not True)
        ), row
        assert row["met"] in (True, False, None)
        if row["target"] is None:
            assert row["met"] is None, row


def test_summary_block_is_up_to_date(summary):
    # The --check logic, in process: a result file changed without
    # `python benchmarks/summary.py` leaves a stale block, and this fails.
    text = (ROOT / "BENCHMARKS.md").read_text()
    expected = summary.render_block(summary.load_results(RESULTS))
    assert summary.current_block(text) == expected, (
        "BENCHMARKS.md's summary is stale: run python benchmarks/summary.py"
    )


def test_check_fails_on_a_stale_block(summary, tmp_path):
    stale = tmp_path / "BENCHMARKS.md"
    stale.write_text(f"# Benchmarks\n\n{summary.START}\nold\n{summary.END}\n")
    assert summary.main(["--check", "--file", str(stale)]) == 1
    assert summary.main(["--file", str(stale)]) == 0
    assert summary.main(["--check", "--file", str(stale)]) == 0


def test_record_paths_are_the_result_files(summary):
    assert summary.record_paths(RESULTS) == _result_files()


def test_summary_rows_have_the_stable_keys(summary):
    rows = summary.summary_rows(summary.load_results(RESULTS))
    assert rows
    for row in rows:
        assert tuple(row) == summary.SUMMARY_KEYS


def test_benchmarks_md_leads_with_the_summary():
    lines = (ROOT / "BENCHMARKS.md").read_text().splitlines()
    assert lines[0] == "# Benchmarks"
    pointer = next(i for i, line in enumerate(lines) if HISTORY_LINK in line)
    assert pointer < 80, f"{pointer} lines before the history pointer"
    assert (BENCHMARKS / "HISTORY.md").is_file()


def _scripts():
    return sorted(BENCHMARKS.glob("bench_*.py")) + sorted(
        BENCHMARKS.glob("_defaults_*.py")
    )


@pytest.mark.parametrize("path", _scripts(), ids=lambda path: path.name)
def test_every_benchmark_script_accepts_record(path):
    source = path.read_text()
    if path.name == "bench_defaults.py":
        # It passes its options on to the panels, which take --record.
        assert '"--record"' in source
    else:
        assert "add_record_argument(parser)" in source


def test_record_writes_a_file_summary_reads(summary, tmp_path, monkeypatch):
    common = _load("benchmarks_common", BENCHMARKS / "_common.py")
    script = str(BENCHMARKS / "bench_x.py")
    monkeypatch.setattr("sys.argv", [script, "--record"])
    monkeypatch.setattr(common, "git_commit", lambda: "abc1234+dirty")
    rows = [
        common.headline("fit time", 0.8, "<= 1.5"),
        common.headline("slope", value=1.2, target="1 +/- 0.1"),
        common.headline("reported", 2.0, loaded={"ratio": 3.0, "target": "<= 2"}),
    ]
    assert [row["met"] for row in rows] == [True, False, None]
    assert rows[2]["loaded"]["met"] is False
    path = common.record(
        "x",
        rows,
        {"record": True},
        title="X",
        estimator="Ours",
        peer="Peer",
        data="data",
        machine={},
        results={"nan": float("nan")},
        directory=tmp_path,
    )
    (record,) = summary.load_results(tmp_path)
    assert path.name == "x.json"
    assert record["command"] == "python benchmarks/bench_x.py --record"
    assert record["results"] == {"nan": None}
    table = summary.render_table(summary.summary_rows([record]))
    assert "| 0.80 |" in table and "| 2.00 idle, 3.00 loaded |" in table
    assert "| 1.20 (value) |" in table
