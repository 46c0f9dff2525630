"""Tests of the cross-validated comparisons behind ``skcgm compare``."""

import json
import re
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold

from skcgm.experiments import (
    Candidate,
    Claim,
    Comparison,
    Metric,
    _compare,
    run_compare,
)
from skcgm.experiments._verdicts import ratio_text, time_clause, verdict


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
        # Iris fits in milliseconds: 2 * 3 - 1 timed fits each (twice as
        # many when they spread wide), the median between its quartiles, the
        # ratio of the medians.
        repeats = row["fit_time_repeats"]
        assert len(repeats) in (5, 10) and len(row["fit_time_folds"]) == 3
        assert row["fit_time"] == np.median(repeats)
        assert min(repeats) <= row["fit_time_q1"] <= row["fit_time"]
        assert row["fit_time"] <= row["fit_time_q3"] <= max(repeats)
        assert row["fit_time_ratio"] == pytest.approx(
            row["fit_time"] / result.rows[-1]["fit_time"]
        )
    assert result.metadata["n_repeats"] == 3
    # One line per data set, once its rows are done.
    assert len(messages) == 1
    assert messages[0].startswith(
        "sum-of-minimum k-means: iris, 3 estimators x 3 folds"
    )
    # JSON without NaN or numpy types, with every repeat.
    rows = json.loads(json.dumps(result.to_dict(), allow_nan=False))["rows"]
    assert [row["fit_time_repeats"] for row in rows] == [
        row["fit_time_repeats"] for row in result.rows
    ]


@pytest.mark.parametrize("n_repeats", [0, 1.5, "3"])
def test_run_compare_rejects_a_bad_n_repeats(n_repeats):
    with pytest.raises(ValueError, match="n_repeats must be an integer >= 1"):
        run_compare(["iris"], n_repeats=n_repeats)


def test_run_compare_is_deterministic_and_independent_of_n_jobs():
    first = run_compare(["iris"], n_splits=2, n_repeats=1, random_state=3)
    second = run_compare(["iris"], n_splits=2, n_repeats=1, random_state=3, n_jobs=2)
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


def _row(name, scores, repeats=(1.0, 1.0, 1.0), **means):
    row = {"estimator": name, "score_folds": scores, "fit_time_repeats": repeats}
    row["score_mean"] = sum(scores) / len(scores)
    return {**row, **{f"{key}_mean": value for key, value in means.items()}}


def _verdict_of(ours, theirs, better=True, tolerance=0.0, repeats=None):
    metric = Metric("score", "score (held-out)", None, "", greater_is_better=better)
    repeats = repeats or ((1.0, 1.0, 1.0), (2.0, 2.0, 2.0))
    rows = [_row("ours", ours, repeats[0]), _row("base", theirs, repeats[1])]
    claim = Claim("score", tolerance=tolerance)
    return verdict("toy", claim, metric, rows, ["base"], "base", {})


def test_verdict_reads_paired_fold_differences():
    # The same gain on every fold is significant however small it is.
    assert _verdict_of([0.91, 0.81, 0.71], [0.90, 0.80, 0.70])["outcome"] == "wins"
    # A mean gain smaller than two standard errors of the differences ties.
    assert _verdict_of([0.95, 0.70, 0.90], [0.80, 0.85, 0.85])["outcome"] == "ties"
    verdict = _verdict_of([0.2, 0.3, 0.4], [0.1, 0.2, 0.3], better=False)
    assert verdict["outcome"] == "loses"
    assert verdict["text"] == (
        "toy: ours loses to base on score, 0.300 vs 0.200, faster (0.50x its fit time)"
    )


def test_a_difference_below_the_claims_tolerance_ties():
    # compare's logistic row before this rule: 1e-3 relative, called a loss.
    ours, theirs = [0.4555, 0.4561, 0.4549], [0.4551, 0.4557, 0.4545]
    assert _verdict_of(ours, theirs, better=False)["outcome"] == "loses"
    assert _verdict_of(ours, theirs, False, tolerance=0.01)["outcome"] == "ties"
    # Beyond the tolerance the paired test decides again.
    worse = [0.4702, 0.4708, 0.4696]
    assert _verdict_of(worse, theirs, False, tolerance=0.01)["outcome"] == "loses"


# Repeats recorded by `python -m skcgm compare --json` on 2026-12-07 (a 2-core
# machine running a benchmark beside it): iris, SumOfMinKMeans against KMeans
# (medians 1.16x apart), and mixed-lines, MixedLinearRegressor(alpha=0.01,
# fit_intercept=False) against EM (0.68x apart); the interquartile ranges of
# both pairs overlap.
RECORDED_OVERLAPPING = [
    (
        [0.002686, 0.003670, 0.002889, 0.003936, 0.003524],
        [0.002753, 0.003029, 0.003492, 0.002894, 0.013426],
    ),
    (
        [0.011751, 0.008743, 0.008788, 0.015977, 0.016289],
        [0.014321, 0.014816, 0.017330, 0.023851, 0.023749],
    ),
]


@pytest.mark.parametrize("ours, theirs", RECORDED_OVERLAPPING)
def test_no_time_ratio_is_claimed_when_the_repeats_overlap(ours, theirs):
    verdict = _verdict_of([0.7, 0.8], [0.7, 0.8], repeats=(ours, theirs))
    assert verdict["speed"] == "same"
    assert verdict["text"].endswith("in about the same time")
    assert not re.search(r"\d+x|faster|slower", verdict["text"])


def test_time_clause_claims_a_ratio_exactly_when_the_quartiles_part_by_1_5(
    property_settings,
):
    times = st.lists(st.floats(1e-4, 10.0), min_size=1, max_size=9)

    @given(ours=times, theirs=times)
    def check(ours, theirs):
        clause = time_clause(ours, theirs)
        q1, q3 = np.percentile(ours, [25, 75])
        t1, t3 = np.percentile(theirs, [25, 75])
        ratio = np.median(ours) / np.median(theirs)
        faster = q3 < t1 and ratio <= 1 / 1.5
        expected = (
            "faster" if faster else "slower" if q1 > t3 and ratio >= 1.5 else "same"
        )
        assert clause["speed"] == expected
        assert (re.search(r"x its fit time", clause["text"]) is None) == (
            expected == "same"
        )
        if expected != "same":
            assert (clause["ratio"] < 1) == (expected == "faster")
            # Swapping the two swaps the clause.
            swapped = {"faster": "slower", "slower": "faster"}[expected]
            assert time_clause(theirs, ours)["speed"] == swapped

    property_settings(check)()


def test_ratios_below_a_hundredth_print_as_such():
    assert ratio_text(0.0004) == "<0.01x"
    assert ratio_text(0.0099) == "<0.01x"
    assert ratio_text(0.01) == "0.01x"
    assert ratio_text(41.1) == "41.10x"


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


def test_the_opponent_is_the_best_competitor_on_the_axis(property_settings):
    @given(
        scores=st.lists(st.floats(0, 1), min_size=4, max_size=6, unique=True),
        greater_is_better=st.booleans(),
    )
    def check(scores, greater_is_better):
        metric = Metric("score", "score", None, "", greater_is_better=greater_is_better)
        names = [f"e{i}" for i in range(len(scores))]
        rows = [_row(name, [s, s]) for name, s in zip(names, scores)]
        # The second row is another setting of ours, never the opponent.
        competitors = names[2:]
        result = verdict(
            "toy", Claim("score"), metric, rows, competitors, names[-1], {}
        )
        pick = max if greater_is_better else min
        best = pick(competitors, key=lambda name: scores[names.index(name)])
        assert result["opponent"] == best
        assert f"{best} on score" in result["text"]
        # The baseline is quoted as well when it is not the best.
        assert (f"against the baseline {names[-1]}" in result["text"]) == (
            best != names[-1]
        )

    property_settings(check)()


def test_a_competitor_on_a_larger_budget_is_quoted_not_the_opponent():
    metric = Metric("score", "accuracy (held-out)", None, "")
    claim = Claim("accuracy at equal points", budget="n_fit")
    rows = [
        _row("herding", [0.93, 0.94], (2.0, 2.0, 2.0), n_fit=100),
        _row("random", [0.91, 0.90], (1.0, 1.0, 1.0), n_fit=100),
        _row("all", [0.98, 0.99], (4.0, 4.0, 4.0), n_fit=1438),
    ]
    headers = {"n_fit": "points trained on"}
    result = verdict(
        "digits", claim, metric, rows, ["random", "all"], "random", headers
    )
    assert (result["opponent"], result["outcome"]) == ("random", "wins")
    assert result["text"] == (
        "digits: herding wins against random on accuracy, 0.935 vs 0.905, slower "
        "(2.00x its fit time); all does better, 0.985, with 1438 points trained on "
        "against 100, and ours is faster (0.50x its fit time)"
    )
    assert result["clauses"] == [
        {
            "estimator": "all",
            "outcome": "loses",
            "speed": "faster",
            "fit_time_ratio": 0.5,
            "theirs": 0.985,
        }
    ]


def test_every_comparison_declares_ours_first_and_competitors():
    for comparison in _compare.COMPARISONS:
        first, *others = comparison.candidates
        assert first.ours, comparison.dataset
        assert any(not c.ours for c in others), comparison.dataset
        names = {c.name for c in others if not c.ours}
        assert comparison.baseline in names, comparison.dataset
        claim = comparison.claim
        keys = {m.key for m in comparison.metrics}
        assert claim is not None and {claim.budget, *claim.costs} - {None} <= keys


def test_repeats_alternate_and_short_fits_get_more_of_them(monkeypatch):
    monkeypatch.setattr(_compare, "PAUSE", 0.0)
    calls = []

    def timer(name, seconds):
        return lambda number: calls.append((name, number)) or seconds

    timers = [timer("slow", 0.5), timer("fast", 0.01)]
    folds = [[0.6, 0.7], [0.02, 0.002]]
    times, numbers = _compare._repeat_fits(timers, folds, 3, keep_first=True)
    # The slow fit's first fold is kept; the fast one's (cold) is not, and
    # each of its timings runs 0.02 s of fits in a row at its fastest fold's
    # pace.
    assert times == [[0.6, 0.5, 0.5], [0.01] * 5]
    assert numbers == [1, 10]
    assert calls == [("slow", 1), ("fast", 10)] * 2 + [("fast", 10)] * 3
    # After parallel folds no first time is kept.
    calls.clear()
    times, _ = _compare._repeat_fits(timers, folds, 2, keep_first=False)
    assert [len(t) for t in times] == [2, 3] and len(calls) == 5


def test_short_fits_with_a_wide_spread_are_timed_twice_as_often(monkeypatch):
    monkeypatch.setattr(_compare, "PAUSE", 0.0)
    # A library whose fits take 10 ms or 100 ms, turn by turn, and a steady one.
    bimodal = iter([0.01, 0.1] * 20)
    timers = [lambda number: next(bimodal), lambda number: 0.02]
    folds = [[0.01, 0.02], [0.02, 0.03]]
    times, _ = _compare._repeat_fits(timers, folds, 3, keep_first=False)
    assert [len(t) for t in times] == [10, 5]
    assert times[0] == [0.01, 0.1] * 5


def test_a_timing_is_the_mean_of_its_fits_in_a_row(monkeypatch):
    fits = []
    monkeypatch.setattr(
        _compare.time, "perf_counter", iter([10.0, 10.6, 20.0, 20.5]).__next__
    )

    class Counted(KMeans):
        def fit(self, X, y=None):
            fits.append(id(self))
            return self

    assert _compare._timed_fit(Counted(), None, None, number=3) == pytest.approx(0.2)
    # Three fresh clones, one fit each.
    assert len(set(fits)) == 3
    assert _compare._timed_fit(Counted(), None, None) == pytest.approx(0.5)


def test_online_comparison_plays_the_same_streams(monkeypatch):
    spec = replace(_compare.COMPARISONS[-1], dataset="short", horizon=30)
    monkeypatch.setattr(_compare, "COMPARISONS", (spec,))
    result = run_compare(["short"], n_splits=2, n_repeats=1, random_state=1)
    rows = {row["estimator"]: row for row in result.rows}
    assert list(rows) == ["POBGA", "Mono-FW", "OBGA"]
    for row in rows.values():
        assert row["n_samples"] == 30
        assert len(row["regret1_per_round_folds"]) == 2
        assert row["fit_time_ratio"] == pytest.approx(
            row["fit_time"] / rows["Mono-FW"]["fit_time"]
        )
    # OBGA projects and never calls the linear oracle; the others do.
    assert rows["OBGA"]["n_lmo_calls_mean"] == 0
    assert rows["OBGA"]["n_projections_mean"] == 30
    assert rows["POBGA"]["n_lmo_calls_mean"] > 0
    (verdict,) = result.metadata["verdicts"]
    # The opponent is the best on regret, OBGA; Mono-FW, the paper's
    # projection-free baseline, is quoted too; both with their costs.
    best = min(rows, key=lambda name: rows[name]["regret1_per_round_mean"])
    assert (verdict["estimator"], verdict["opponent"]) == ("POBGA", best)
    assert verdict["metric"] == "regret1_per_round"
    text = verdict["text"]
    assert "against the baseline Mono-FW" in text
    calls = {name: rows[name]["n_lmo_calls_mean"] for name in rows}
    assert f"LMO calls {calls['POBGA']:.0f} vs {calls['Mono-FW']:.0f}" in text
    assert f"LMO calls {calls['POBGA']:.0f} vs 0, projections" in text
    again = run_compare(["short"], n_splits=2, n_repeats=1, random_state=1)
    assert [r["regret1_per_round_folds"] for r in again.rows] == [
        r["regret1_per_round_folds"] for r in result.rows
    ]
