"""Tests of ``reproduce mlr-table3``."""

import json

import numpy as np
import pytest

from skcgm._cli import main
from skcgm.datasets import make_mixed_linear_regression
from skcgm.experiments import _mlr_table
from skcgm.experiments._mlr_table import (
    PAPER_TABLE3,
    regularized_objective,
    run_failed,
    run_mlr_table3,
)
from skcgm.linear_model import MixedLinearRegressor


def test_regularized_objective_equals_its_definition(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X, y = rng.standard_normal((7, 3)), rng.standard_normal(7)
    coef = rng.standard_normal((4, 3))
    expected = np.mean(
        [
            min(
                0.5 * (X[i] @ coef[j] - y[i]) ** 2 + 0.5 * 0.3 * coef[j] @ coef[j]
                for j in range(4)
            )
            for i in range(7)
        ]
    )
    assert regularized_objective(X, y, coef, alpha=0.3) == pytest.approx(expected)


def _crossing_lines():
    # Two noiseless lines through the origin, b = a and b = -a, 3 points each.
    a = np.array([1.0, 2.0, 3.0])
    X = np.concatenate([a, a])[:, None]
    y = np.concatenate([a, -a])
    return X, y, np.array([[1.0], [-1.0]])


def test_failure_criterion_on_a_hand_made_case():
    X, y, true_coef = _crossing_lines()
    alpha = 0.1
    # The group ridge solutions on the true partition: sum a^2 = 14, so
    # x = +-14 / (14 + 3 alpha) (E.2); they beat the truth, whose ridge term
    # costs alpha/2 per sample.
    ridge = 14 / (14 + 3 * alpha)
    assert regularized_objective(X, y, true_coef, alpha) == pytest.approx(alpha / 2)
    assert not run_failed(X, y, np.array([[ridge], [-ridge]]), true_coef, alpha)
    assert not run_failed(X, y, np.array([[-ridge], [ridge]]), true_coef, alpha)
    # The truth itself does not fail (<=, not <).
    assert not run_failed(X, y, true_coef, true_coef, alpha)
    # Both components on one line, or one the average of both, fail.
    assert run_failed(X, y, np.array([[ridge], [ridge]]), true_coef, alpha)
    assert run_failed(X, y, np.array([[0.0], [ridge]]), true_coef, alpha)
    # A fitted MixedLinearRegressor from the proposed seeding succeeds.
    estimator = MixedLinearRegressor(
        2, alpha=alpha, fit_intercept=False, tol=0, random_state=0
    ).fit(X, y)
    assert not run_failed(X, y, estimator.coef_, true_coef, alpha)
    np.testing.assert_allclose(np.sort(estimator.coef_.ravel()), [-ridge, ridge])


@pytest.fixture
def two_cells(monkeypatch):
    # Two cells of the table keep the run short; paper numbers are looked up
    # by (k, init, d), not by position.
    monkeypatch.setattr(_mlr_table, "N_COMPONENTS", (4,))
    monkeypatch.setattr(_mlr_table, "N_FEATURES", (4, 8))


def test_mlr_table3_rows_and_paper_numbers(two_cells):
    messages = []
    result = run_mlr_table3(trials=3, random_state=0, progress=messages.append)
    assert [(r["n_components"], r["n_features"], r["init"]) for r in result.rows] == [
        (4, d, init) for d in (4, 8) for init in ("random", "unif. seeding", "proposed")
    ]
    assert messages == ["cell 1/2: k=4, d=4, 3 trials", "cell 2/2: k=4, d=8, 3 trials"]
    rows = {(r["n_features"], r["init"]): r for r in result.rows}
    # Verbatim from the paper (note section 3.2).
    assert (
        rows[4, "random"]["paper_failure_rate"],
        rows[4, "random"]["paper_n_iter"],
    ) == (
        0.056,
        17.577,
    )
    assert rows[8, "proposed"]["paper_failure_rate"] == 0.051
    assert rows[8, "proposed"]["paper_n_iter"] == 17.409
    for row in result.rows:
        rate = row["failure_rate"]
        assert rate in (0, 1 / 3, 2 / 3, 1)
        assert row["failure_se"] == pytest.approx(np.sqrt(rate * (1 - rate) / 3))
        assert row["n_iter_mean"] >= 1
    for d in (4, 8):
        cell = [
            rows[d, init]["n_iter_mean"]
            for init in ("random", "unif. seeding", "proposed")
        ]
        fewest = [
            rows[d, init]["fewest_iterations"]
            for init in ("random", "unif. seeding", "proposed")
        ]
        assert fewest == [value == min(cell) for value in cell]
    assert "Table 3" in result.to_text()


def test_paper_table3_is_complete():
    assert sorted(PAPER_TABLE3) == sorted(
        (k, init) for k in (4, 5, 6) for init in ("random", "unif. seeding", "proposed")
    )
    assert all(sorted(by_d) == [4, 5, 6, 7, 8] for by_d in PAPER_TABLE3.values())
    assert PAPER_TABLE3[6, "random"][8] == (0.739, 48.730)


def test_mlr_table3_does_not_depend_on_n_jobs(two_cells):
    one = run_mlr_table3(trials=4, random_state=3, n_jobs=1)
    two = run_mlr_table3(trials=4, random_state=3, n_jobs=2)
    for a, b in zip(one.rows, two.rows):
        assert (a["failure_rate"], a["n_iter_mean"]) == (
            b["failure_rate"],
            b["n_iter_mean"],
        )


def test_mlr_trials_count_failures_like_an_independent_check():
    # Re-run one trial by hand: data, the proposed seeding, the criterion.
    seed = 11
    failed, n_iter = _mlr_table._mlr_trials(4, 5, [seed])
    data_seed, fit_seed = np.random.RandomState(seed).randint(
        np.iinfo(np.int32).max, size=2
    )
    X, y, coef, _ = make_mixed_linear_regression(
        1000, 5, 4, noise=0.01, random_state=data_seed
    )
    estimator = MixedLinearRegressor(
        4,
        alpha=0.01,
        fit_intercept=False,
        init="k-means++",
        init_score="gradient",
        n_init=1,
        max_iter=10_000,
        tol=0,
        random_state=fit_seed,
    ).fit(X, y)
    assert failed[2, 0] == (
        regularized_objective(X, y, estimator.coef_) > regularized_objective(X, y, coef)
    )
    assert n_iter[2, 0] == estimator.n_iter_


def test_cli_reproduce_mlr_table3_json(capsys, two_cells):
    assert main(["reproduce", "mlr-table3", "--json", "--trials", "2"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["experiment"] == "mlr-table3"
    assert len(result["rows"]) == 6
    assert result["metadata"]["alpha"] == 0.01
