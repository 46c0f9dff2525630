"""Tests of ``reproduce sfwpo``."""

import numpy as np
import pytest

from skcgm.experiments import _sfwpo, run_sfwpo


@pytest.fixture(scope="module")
def small_result(monkeypatch_module):
    return run_sfwpo(trials=2, random_state=0)


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    mp.setattr(
        _sfwpo,
        "QUICK_MDP",
        {"n_states": 4, "n_actions": 300, "action_dim": 4, "gamma": 0.9},
    )
    mp.setattr(_sfwpo, "QUICK_ITER", 8)
    yield mp
    mp.undo()


def test_rows_for_both_oracles(small_result):
    oracles = {row["oracle"] for row in small_result.rows}
    assert oracles == {"exact", "lsh"}
    iterations = [r["iteration"] for r in small_result.rows if r["oracle"] == "exact"]
    assert iterations == [0, 1, 2, 4, 8]


def test_exact_return_is_non_decreasing(small_result):
    exact = [r["return_mean"] for r in small_result.rows if r["oracle"] == "exact"]
    assert all(b >= a - 1e-10 for a, b in zip(exact, exact[1:]))
    assert exact[-1] > exact[0]


def test_exact_scores_every_action_and_lsh_fewer(small_result):
    for row in small_result.rows:
        if row["oracle"] == "exact":
            assert row["scored_fraction"] == pytest.approx(1.0)
            assert row["return_ratio"] == pytest.approx(1.0)
        else:
            assert 0 < row["scored_fraction"] <= 1.0


def test_same_start_for_both_oracles(small_result):
    # Iteration 0 is the same random initial policy.
    start = {
        r["oracle"]: r["return_mean"] for r in small_result.rows if r["iteration"] == 0
    }
    assert start["exact"] == pytest.approx(start["lsh"])


def test_checkpoints():
    assert _sfwpo._checkpoints(30) == [0, 1, 2, 4, 8, 16, 30]
    assert np.all(np.diff(_sfwpo._checkpoints(100)) > 0)
