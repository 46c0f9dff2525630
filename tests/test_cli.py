"""Tests of the command line, ``python -m skcgm``."""

import importlib.util
import json
import math
import os
import re

import pytest

from skcgm._cli import main
from skcgm.experiments import EXPERIMENTS


def _data_lines(text):
    """The table rows: the lines after the dashed rule."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if set(line) <= {"-", " "})
    return lines[rule - 1], lines[rule + 1 :]


def test_cli_help_lists_the_commands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "compare" in out
    assert "reproduce" in out


def test_cli_compare_help_lists_the_rows(capsys):
    assert main(["compare", "--help"]) == 0
    out = capsys.readouterr().out
    for name in ("iris", "digits", "blobs", "SumOfMinKMeans", "KMeans (baseline)"):
        assert name in out


def test_cli_reproduce_help_lists_the_experiments(capsys):
    assert main(["reproduce", "--help"]) == 0
    # argparse pads the names to the longest one: match name then text.
    out = capsys.readouterr().out
    assert re.search(r"kmeans-seeding\s+Theorem 4\.1", out)
    for name in EXPERIMENTS:
        assert name in out


def test_cli_unknown_experiment_fails_with_a_message(capsys):
    assert main(["reproduce", "no-such-experiment"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'no-such-experiment'" in err
    assert "kmeans-seeding" in err


def test_cli_compare_json_has_one_row_per_dataset_and_estimator(capsys):
    assert main(["compare", "--json", "--datasets", "iris", "blobs"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    estimators = ["SumOfMinKMeans", "SumOfMinKMeans(solver='momentum')", "KMeans"]
    assert [(row["dataset"], row["estimator"]) for row in result["rows"]] == [
        (dataset, estimator)
        for dataset in ("iris", "blobs")
        for estimator in estimators
    ]
    for row in result["rows"]:
        assert -1 <= row["ari_mean"] <= 1
        assert len(row["ari_folds"]) == 5
        assert row["inertia_mean"] > 0
    kmeans = [row for row in result["rows"] if row["estimator"] == "KMeans"]
    assert [row["fit_time_ratio"] for row in kmeans] == [1.0, 1.0]
    # Well-separated blobs: both Lloyd variants find the classes.
    blobs = {r["estimator"]: r for r in result["rows"] if r["dataset"] == "blobs"}
    assert blobs["SumOfMinKMeans"]["ari_mean"] > 0.95
    # Progress goes to stderr, one line per fold.
    assert "[compare] blobs: KMeans fold 5/5" in captured.err
    assert "[compare]" not in captured.out


def test_cli_compare_table_is_aligned_with_a_caption(capsys):
    assert main(["compare", "--datasets", "iris", "--n-splits", "2"]) == 0
    out = capsys.readouterr().out
    assert "2-fold StratifiedKFold(shuffle=True, random_state=0)" in out
    assert f"{os.cpu_count()} cores" in out
    header, rows = _data_lines(out)
    assert "fit time (s)" in header
    assert len(rows) == 3
    # mean ± std cells line up on the ±, under their header.
    assert len({row.index("±") for row in rows}) == 1
    assert header.index("ARI") < rows[0].index("±")


def test_cli_reproduce_kmeans_seeding_is_below_the_theorem_4_1_bound(capsys):
    argv = ["reproduce", "kmeans-seeding", "--json", "--trials", "10"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    rows = {(row["n_clusters"], row["seeding"]): row for row in result["rows"]}
    for k in (3, 10, 30):
        plusplus = rows[k, "k-means++ (Algorithm 1)"]
        assert plusplus["bound"] == pytest.approx(8 * (2 + math.log(k)))
        assert plusplus["ratio_mean"] <= plusplus["bound"]
        assert plusplus["below_bound"] is True
        assert rows[k, "uniform seeding"]["bound"] is None
    # Seeding by gaps beats uniform seeding when many clusters must be hit.
    assert (
        rows[30, "k-means++ (Algorithm 1)"]["ratio_mean"]
        < rows[30, "uniform seeding"]["ratio_mean"]
    )


def test_cli_plot_without_matplotlib_says_what_to_install(
    monkeypatch, capsys, tmp_path
):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "matplotlib" else find_spec(name, *args),
    )
    path = tmp_path / "ari.png"
    assert main(["compare", "--datasets", "iris", "--plot", str(path)]) == 2
    assert 'pip install "skcgm[plot]"' in capsys.readouterr().err
    assert not path.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "--datasets", "iris", "--n-splits", "2"],
        ["reproduce", "kmeans-seeding", "--trials", "2"],
    ],
    ids=["compare", "reproduce"],
)
def test_cli_plot_writes_a_png(argv, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = tmp_path / "figure.png"
    assert main([*argv, "--plot", str(path)]) == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
