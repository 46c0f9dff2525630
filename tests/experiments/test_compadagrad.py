"""Tests of ``reproduce compadagrad`` and of the CompAdaGrad comparison rows."""

import json

import numpy as np
import pytest
from sklearn.linear_model import Perceptron

from skcgm.datasets import make_correlated_classification
from skcgm.experiments import _compadagrad, run_compare
from skcgm.experiments._compadagrad import progressive_validation, run_compadagrad
from skcgm.linear_model import CompAdaGradClassifier


def test_progressive_validation_counts_mistakes_before_each_step():
    X, y = make_correlated_classification(120, 8, random_state=0)
    X_train, y_train, X_test, y_test = X[:80], y[:80], X[80:], y[80:]
    online, test, _ = progressive_validation(
        Perceptron(random_state=0), X_train, y_train, X_test, y_test, batch_size=1
    )
    # Independent loop: predict each sample with the model before its step.
    model = Perceptron(random_state=0)
    mistakes = int(y_train[0] != 0)  # the zero iterate predicts the first class
    model.partial_fit(X_train[:1], y_train[:1], classes=[0, 1])
    for i in range(1, 80):
        mistakes += int(model.predict(X_train[i : i + 1])[0] != y_train[i])
        model.partial_fit(X_train[i : i + 1], y_train[i : i + 1])
    assert online == mistakes / 80
    assert test == pytest.approx(1 - model.score(X_test, y_test))


def test_delayed_progressive_validation_takes_the_same_steps():
    X, y = make_correlated_classification(300, 16, random_state=1)
    runs = []
    for steps_per_call in (1, 5):
        estimator = CompAdaGradClassifier(
            n_components=4, batch_size=4, shuffle=False, random_state=0
        )
        runs.append(
            progressive_validation(
                estimator,
                X[:200],
                y[:200],
                X[200:],
                y[200:],
                batch_size=4,
                steps_per_call=steps_per_call,
            )
            + (estimator.coef_.copy(),)
        )
    # The same 50 steps; only when the mistakes are counted differs.
    np.testing.assert_allclose(runs[0][3], runs[1][3], rtol=1e-12)
    assert runs[0][1] == runs[1][1]


@pytest.fixture(scope="module")
def small_result():
    mp = pytest.MonkeyPatch()
    mp.setitem(_compadagrad.DIGITS, "n_prototypes", 32)
    mp.setitem(_compadagrad.CORRELATED, "n_samples", 2000)
    mp.setitem(_compadagrad.CORRELATED, "n_features", 32)
    mp.setitem(_compadagrad.SPARSE, "n_samples", 400)
    mp.setitem(_compadagrad.SPARSE, "n_features", 64)
    result = run_compadagrad(
        trials=2, n_components=(4, 16, 32), eta0_grid=(0.1, 1.0, 10.0), random_state=0
    )
    # The rerun of the reproducibility test needs the same sizes.
    yield result
    mp.undo()


def _rows(result, problem):
    return {row["method"]: row for row in result.rows if row["problem"] == problem}


def test_rows_methods_and_effective_k(small_result):
    assert [row["problem"] for row in small_result.rows] == [
        problem for problem in _compadagrad.PROBLEMS for _ in range(5)
    ]
    padded = {"digits 4 vs 9": 32, "correlated": 32, "sparse text": 64}
    for problem in _compadagrad.PROBLEMS:
        block = [row for row in small_result.rows if row["problem"] == problem]
        assert [row["method"] for row in block] == [
            "diagonal AdaGrad",
            "CompAdaGrad k=4",
            "CompAdaGrad k=16",
            "CompAdaGrad k=32",
            "full-matrix AdaGrad",
        ]
        # Diagonal is k = 0; full matrix is the padded dimension.
        assert [row["n_components"] for row in block] == [0, 4, 16, 32, padded[problem]]
        assert block[0]["vs_diagonal"] == 1.0
        assert block[0]["trials_below_diagonal"] == 0
        for row in block:
            assert 0 <= row["test_error_mean"] <= 1
            assert 0 <= row["online_error_mean"] <= 1
            assert set(row["eta0_trials"]) <= {0.1, 1.0, 10.0}
            assert len(row["test_error_trials"]) == 2
            assert row["vs_diagonal"] == pytest.approx(
                row["test_error_mean"] / block[0]["test_error_mean"]
            )
            below = sum(
                a < b
                for a, b in zip(row["test_error_trials"], block[0]["test_error_trials"])
            )
            assert row["trials_below_diagonal"] == below


def test_k_equal_to_the_padded_dimension_is_the_full_matrix_row(small_result):
    # d = 32: k = 32 is the whole space, i.e. full-matrix AdaGrad, and must
    # give the same runs as n_components >= d.
    for problem in ("digits 4 vs 9", "correlated"):
        rows = _rows(small_result, problem)
        k32, full = rows["CompAdaGrad k=32"], rows["full-matrix AdaGrad"]
        assert k32["n_components"] == full["n_components"] == 32
        assert k32["test_error_trials"] == full["test_error_trials"]
        assert k32["online_error_trials"] == full["online_error_trials"]
        assert k32["eta0_trials"] == full["eta0_trials"]


def test_correlated_problem_orders_the_methods(small_result):
    # Note 4.2, item 7, at a fixed seed: on dense features mixed by a
    # rotation, full-matrix AdaGrad beats diagonal AdaGrad clearly, and
    # CompAdaGrad with half the space is no worse than diagonal AdaGrad.
    rows = _rows(small_result, "correlated")
    diagonal = rows["diagonal AdaGrad"]
    full = rows["full-matrix AdaGrad"]
    half = rows["CompAdaGrad k=16"]
    assert full["online_error_mean"] < diagonal["online_error_mean"] - 0.02
    assert full["test_error_mean"] < 0.8 * diagonal["test_error_mean"]
    assert half["online_error_mean"] <= diagonal["online_error_mean"] + 0.01
    assert half["test_error_mean"] <= diagonal["test_error_mean"] + 0.02


def test_json_is_plain_and_reproducible(small_result):
    payload = small_result.to_dict()
    json.dumps(payload, allow_nan=False)
    assert payload["experiment"] == "compadagrad"
    assert payload["metadata"]["eta0_grid"] == [0.1, 1.0, 10.0]
    assert set(payload["metadata"]["problems"]) == set(_compadagrad.PROBLEMS)
    # A problem run alone, in parallel, draws the same seeds.
    again = run_compadagrad(
        trials=2,
        problems=("sparse text",),
        n_components=(4, 16, 32),
        eta0_grid=(0.1, 1.0, 10.0),
        random_state=0,
        n_jobs=2,
    )
    sparse_rows = [r for r in small_result.rows if r["problem"] == "sparse text"]
    for a, b in zip(sparse_rows, again.rows, strict=True):
        assert a["test_error_trials"] == b["test_error_trials"]
        assert a["online_error_trials"] == b["online_error_trials"]
        assert a["eta0_trials"] == b["eta0_trials"]


def test_unknown_problem():
    with pytest.raises(ValueError, match="Unknown problems"):
        run_compadagrad(problems=("mnist",))


def test_plot_draws_test_and_online_error_per_problem(small_result):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    figure = Figure()
    _compadagrad.plot_compadagrad(small_result, figure)
    assert len(figure.axes) == 2 * 3
    assert all(ax.get_xscale() == "log" for ax in figure.axes)
    assert figure.axes[0].get_title().startswith("digits 4 vs 9")


def test_compare_rows_against_sgd_on_breast_cancer():
    result = run_compare(["breast-cancer"], n_splits=2, n_repeats=1, random_state=0)
    assert [row["estimator"] for row in result.rows] == [
        "CompAdaGradClassifier()",
        "CompAdaGradClassifier(n_components=0)",
        "SGDClassifier",
    ]
    for row in result.rows:
        assert row["baseline"] == "SGDClassifier"
        assert (row["n_samples"], row["n_features"], row["n_classes"]) == (569, 30, 2)
        # Standardized breast cancer is nearly linearly separable.
        assert row["test_accuracy_mean"] > 0.9
    assert result.rows[-1]["fit_time_ratio"] == 1.0
    assert "loss='hinge', penalty='l2'" in result.metadata["protocol"]
