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
    rule = next(i for i, line in enumerate(lines) if line and set(line) <= {"-", " "})
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
    # One worker: a process pool would start for milliseconds of folds.
    argv = ["compare", "--json", "--datasets", "iris", "blobs", "--repeats", "2"]
    argv += ["--n-jobs", "1"]
    assert main(argv) == 0
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
        # Fits of milliseconds: 2 * 2 - 1 timed repeats, twice as many when
        # they spread wide; all in the JSON.
        assert len(row["fit_time_repeats"]) in (3, 6)
        assert row["inertia_mean"] > 0
    kmeans = [row for row in result["rows"] if row["estimator"] == "KMeans"]
    assert [row["fit_time_ratio"] for row in kmeans] == [1.0, 1.0]
    # Well-separated blobs: both Lloyd variants find the classes.
    blobs = {r["estimator"]: r for r in result["rows"] if r["dataset"] == "blobs"}
    assert blobs["SumOfMinKMeans"]["ari_mean"] > 0.95
    # Progress goes to stderr, one line per data set.
    progress = [line for line in captured.err.splitlines() if "x 5 folds" in line]
    assert len(progress) == 2
    assert progress[1].startswith(
        "[compare] sum-of-minimum k-means: blobs, 3 estimators"
    )
    assert "[compare]" not in captured.out


def test_cli_compare_leads_with_tables_and_verdicts(capsys):
    argv = ["compare", "--datasets", "iris", "subspaces", "--n-splits", "2"]
    assert main([*argv, "--repeats", "1", "--n-jobs", "1"]) == 0
    out = capsys.readouterr().out
    # The first line is a table's title naming its baseline, not a legend.
    assert out.splitlines()[0] == "sum-of-minimum k-means vs KMeans"
    assert "fit time / KMeans" in out and "fit time / SpectralClustering" in out
    # One verdict per data set, right under its table, before the protocol.
    verdicts = re.findall(
        r"^  (\w+): (\S+) (?:wins against|ties with|loses to) (\S+) on .*, "
        r"(faster \(\d+\.\d\dx its fit time\)|slower \(\d+\.\d\dx its fit time\)|"
        r"faster \(<0\.01x its fit time\)|in about the same time)$",
        out,
        re.MULTILINE,
    )
    assert [v[:3] for v in verdicts] == [
        ("iris", "SumOfMinKMeans", "KMeans"),
        ("subspaces", "GPCAClusterer", "SpectralClustering"),
    ]
    assert out.index("iris: SumOfMinKMeans") < out.index("subspaces  GPCAClusterer")
    # The definitions wait for --explain.
    assert "2-fold StratifiedKFold" not in out
    assert "python -m skcgm compare --explain" in out
    header, rows = _data_lines(out)
    assert "fit time (s)" in header
    assert len(rows) >= 3
    # mean ± std cells line up on the ±, under their header.
    assert len({row.index("±") for row in rows[:3]}) == 1
    assert header.index("ARI") < rows[0].index("±")


def test_cli_compare_explain_prints_the_protocol_after_the_tables(capsys):
    argv = ["compare", "--datasets", "iris", "--n-splits", "2", "--explain"]
    assert main([*argv, "--repeats", "1", "--n-jobs", "1"]) == 0
    out = capsys.readouterr().out
    protocol = out.index("2-fold StratifiedKFold(shuffle=True, random_state=0)")
    assert out.index("iris: SumOfMinKMeans") < protocol
    assert f"{os.cpu_count()} cores" in out
    assert "--explain" not in out


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


def test_cli_reproduce_plot_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = tmp_path / "figure.png"
    argv = ["reproduce", "kmeans-seeding", "--trials", "2", "--plot", str(path)]
    assert main(argv) == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_compare_plot_writes_one_png_per_family(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    directory = tmp_path / "figures"
    argv = ["compare", "--datasets", "iris", "subspaces", "--n-splits", "2"]
    argv += ["--repeats", "1", "--n-jobs", "1"]
    assert main([*argv, "--plot", str(directory)]) == 0
    names = sorted(path.name for path in directory.iterdir())
    assert names == [
        "compare-sum-of-minimum-k-means.png",
        "compare-sum-of-minimum-subspace-clustering-gpca.png",
    ]
    for path in directory.iterdir():
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_compare_runs_the_folds_on_every_core_and_times_one_at_a_time():
    from skcgm._cli import _build_parser

    parser = _build_parser()
    # The folds' scores go to every core; the timed repeats run afterwards in
    # this process whatever --n-jobs (run_compare's n_repeats), so the
    # default differs from reproduce's, whose trials are the results.
    assert parser.parse_args(["compare"]).n_jobs == -1
    assert parser.parse_args(["compare"]).repeats == 3
    assert parser.parse_args(["reproduce", "pobga"]).n_jobs is None
