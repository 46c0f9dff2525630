"""Tests of the cross-validated comparisons behind ``skcgm compare``."""

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold

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
    # One line per data set, once its rows are done.
    assert len(messages) == 1
    assert messages[0].startswith(
        "sum-of-minimum k-means: iris, 3 estimators x 3 folds"
    )
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
    text = result.to_text(explain=True)
    assert "iterations" in text and "Lloyd iterations" in text
    # A comparison without a family gets a table of its own, titled by its
    # data set, without iris' columns, rather than a column of dashes.
    tables = text.split("\n\n")
    assert tables[0] == "tiny vs KMeans"
    tiny, iris = tables[1], tables[tables.index("sum-of-minimum k-means vs KMeans") + 1]
    assert "iterations" in tiny.splitlines()[0]
    assert "iterations" not in iris.splitlines()[0]
    assert "—" not in iris


def test_mixed_mlp_row_scores_the_oracle_error_of_every_candidate():
    spec = next(c for c in _compare.COMPARISONS if c.dataset == "mixed-mlp")
    assert (spec.cv, spec.n_groups, spec.baseline) == (KFold, 5, "MLPRegressor")
    assert spec.metrics == (_compare.ORACLE_RESIDUAL,)
    X, y, networks, labels = spec.load(0)
    # Five folds of 1250 rows: the paper's 1000 training samples per fold.
    assert X.shape == (1250, 5) and networks.shape == (5, 22)
    train, test = slice(0, 1000), slice(1000, None)
    scorer = _compare.ORACLE_RESIDUAL.scorer
    with pytest.warns(ConvergenceWarning):
        estimators = [
            c.make(5, 0).set_params(max_iter=3).fit(X[train], y[train])
            for c in spec.candidates
        ]
    mixed_mlp, mixed_linear, *single = estimators
    for mixed in (mixed_mlp, mixed_linear):
        # The mixed regressors' own oracle error, five components.
        assert mixed.predict_components(X[test]).shape == (250, 5)
        assert scorer(mixed, X[test], y[test]) == pytest.approx(
            mixed.min_loss(X[test], y[test])
        )
    for mlp in single:
        # A single network has one component: half its mean squared error.
        residuals = mlp.predict(X[test]) - y[test]
        assert scorer(mlp, X[test], y[test]) == pytest.approx(
            0.5 * (residuals**2).mean()
        )


def _verdict_of(ours, theirs, better=True):
    metric = Metric("score", "score (held-out)", None, "", greater_is_better=better)
    spec = Comparison("toy", "", None, (), "base", (metric,))
    rows = [
        {"estimator": "ours", "score_folds": ours, "fit_time_ratio": 0.5},
        {"estimator": "base", "score_folds": theirs, "fit_time_ratio": 1.0},
    ]
    return _compare._verdict(spec, *rows)


def test_verdict_reads_paired_fold_differences():
    # The same gain on every fold is significant however small it is.
    assert _verdict_of([0.91, 0.81, 0.71], [0.90, 0.80, 0.70])["outcome"] == "wins"
    # A mean gain smaller than two standard errors of the differences ties.
    assert _verdict_of([0.95, 0.70, 0.90], [0.80, 0.85, 0.85])["outcome"] == "ties"
    verdict = _verdict_of([0.2, 0.3, 0.4], [0.1, 0.2, 0.3], better=False)
    assert verdict["outcome"] == "loses"
    assert verdict["text"] == (
        "toy: ours loses on score, 0.300 vs base 0.200, at 0.50x its fit time"
    )


@pytest.mark.parametrize("greater_is_better", [True, False])
def test_verdict_is_antisymmetric(greater_is_better, property_settings):
    @given(
        scores=st.lists(
            st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)),
            min_size=2,
            max_size=8,
        )
    )
    def check(scores):
        ours, theirs = map(list, zip(*scores))
        forward = _verdict_of(ours, theirs, greater_is_better)["outcome"]
        backward = _verdict_of(theirs, ours, greater_is_better)["outcome"]
        flip = {"wins": "loses", "loses": "wins", "ties": "ties"}
        assert backward == flip[forward]

    property_settings(check)()


def test_online_comparison_plays_the_same_streams(monkeypatch):
    spec = replace(_compare.COMPARISONS[-1], dataset="short", horizon=30)
    monkeypatch.setattr(_compare, "COMPARISONS", (spec,))
    result = run_compare(["short"], n_splits=2, random_state=1)
    rows = {row["estimator"]: row for row in result.rows}
    assert list(rows) == ["POBGA", "Mono-FW", "OBGA"]
    for row in rows.values():
        assert row["n_samples"] == 30
        assert len(row["regret1_per_round_folds"]) == 2
        assert row["fit_time_ratio"] == pytest.approx(
            row["fit_time_mean"] / rows["Mono-FW"]["fit_time_mean"]
        )
    # OBGA projects and never calls the linear oracle; the others do.
    assert rows["OBGA"]["n_lmo_calls_mean"] == 0
    assert rows["POBGA"]["n_lmo_calls_mean"] > 0
    (verdict,) = result.metadata["verdicts"]
    assert (verdict["estimator"], verdict["baseline"]) == ("POBGA", "Mono-FW")
    assert verdict["metric"] == "regret1_per_round"
    again = run_compare(["short"], n_splits=2, random_state=1)
    assert [r["regret1_per_round_folds"] for r in again.rows] == [
        r["regret1_per_round_folds"] for r in result.rows
    ]
