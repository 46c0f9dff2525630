"""Tests of the cross-validated comparisons behind ``skcgm compare``."""

import json

import pytest
from sklearn.datasets import make_blobs

from skcgm.experiments import (
    Candidate,
    Comparison,
    Metric,
    _compare,
    run_compare,
)


def test_run_compare_rows_ratios_and_progress():
    messages = []
    result = run_compare(["iris"], n_splits=3, progress=messages.append)
    assert [row["estimator"] for row in result.rows] == [
        "SumOfMinKMeans",
        "SumOfMinKMeans(solver='momentum')",
        "KMeans",
    ]
    for row in result.rows:
        assert -1 <= row["ari_mean"] <= 1
        assert row["ari_std"] >= 0
        assert row["fit_time_ratio"] == pytest.approx(
            row["fit_time_mean"] / result.rows[-1]["fit_time_mean"]
        )
    assert len(messages) == 3 * 3
    assert messages[0] == "iris: SumOfMinKMeans fold 1/3"
    # JSON without NaN or numpy types.
    json.dumps(result.to_dict(), allow_nan=False)


def test_run_compare_is_deterministic_and_independent_of_n_jobs():
    first = run_compare(["iris"], n_splits=2, random_state=3)
    second = run_compare(["iris"], n_splits=2, random_state=3, n_jobs=2)
    for a, b in zip(first.rows, second.rows):
        assert a["ari_folds"] == b["ari_folds"]
        assert a["inertia_folds"] == pytest.approx(b["inertia_folds"])


def test_run_compare_unknown_dataset():
    with pytest.raises(ValueError, match="Unknown datasets \\['nope'\\]"):
        run_compare(["nope"])


def _n_iter(estimator, X, y):
    return estimator.n_iter_


def test_a_new_comparison_spec_adds_its_rows_and_metric_columns(monkeypatch):
    iterations = Metric("n_iter", "iterations", _n_iter, "Lloyd iterations", ".1f")
    spec = Comparison(
        dataset="tiny",
        description="two blobs",
        load=lambda random_state: make_blobs(
            60, 2, centers=2, random_state=random_state
        ),
        candidates=(
            _compare.CLUSTERING_CANDIDATES[0],
            Candidate("KMeans", _compare._kmeans),
        ),
        baseline="KMeans",
        metrics=(_compare.ARI, iterations),
    )
    monkeypatch.setattr(_compare, "COMPARISONS", (*_compare.COMPARISONS, spec))
    result = run_compare(["tiny", "iris"], n_splits=2)
    assert [row["dataset"] for row in result.rows] == ["tiny"] * 2 + ["iris"] * 3
    assert "n_iter_mean" in result.rows[0]
    assert "n_iter_mean" not in result.rows[-1]
    text = result.to_text()
    assert "iterations" in text and "Lloyd iterations" in text
    # iris has no iteration metric: it gets a table of its own, without that
    # column, rather than a column of dashes.
    tables = text.split("\n\n")
    header = [table.splitlines()[0] for table in tables[-2:]]
    assert "iterations" in header[0] and "iterations" not in header[1]
    assert "—" not in tables[-1]
