"""Tests of ``reproduce pobga`` and ``reproduce dpobga`` on small sizes."""

import json
import math

import numpy as np
import pytest

from skcgm.experiments import EXPERIMENTS
from skcgm.experiments._online import (
    ALPHA,
    loglog_slope,
    plot_dpobga,
    plot_pobga,
    run_dpobga,
    run_pobga,
)

HORIZONS = {
    "POBGA": (36, 100),
    "POBGA (theory)": (36, 100),
    "Mono-FW": (36, 100),
    "Meta-FW": (16,),
    "OBGA": (36,),
}


def _ols_slope(x, y):
    # Independent of np.polyfit: cov(log x, log y) / var(log x).
    u, v = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    u, v = u - u.mean(), v - v.mean()
    return float(u @ v / (u @ u))


@pytest.fixture(scope="module")
def pobga_result():
    return run_pobga(horizons=HORIZONS, trials=2, random_state=0)


@pytest.fixture(scope="module")
def dpobga_result():
    return run_dpobga(graphs=("complete", "cycle"), n_nodes=4, horizons=(25, 81, 144))


def test_both_experiments_are_registered():
    assert EXPERIMENTS["pobga"].run is run_pobga
    assert EXPERIMENTS["pobga"].plot is plot_pobga
    assert EXPERIMENTS["dpobga"].run is run_dpobga
    assert EXPERIMENTS["dpobga"].plot is plot_dpobga


def test_loglog_slope_is_the_least_squares_slope(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    x = np.array([100.0, 300.0, 1000.0, 3000.0])
    y = 2.0 * x**0.75 * np.exp(0.1 * rng.standard_normal(4))
    assert loglog_slope(x, y) == pytest.approx(_ols_slope(x, y), rel=1e-10)
    assert loglog_slope([10, 1000], [5.0, 50.0]) == pytest.approx(0.5)
    assert loglog_slope([10], [1.0]) is None
    assert loglog_slope([10, 100], [0.0, 1.0]) is None


def test_pobga_rows_cover_the_grid(pobga_result):
    pairs = [(row["learner"], row["horizon"]) for row in pobga_result.rows]
    assert pairs == [(name, T) for name, grid in HORIZONS.items() for T in grid]
    for row in pobga_result.rows:
        assert len(row["regret_trials"]) == 2
        assert row["regret"] == pytest.approx(np.median(row["regret_trials"]))


def test_pobga_counters_are_exact(pobga_result):
    for row in pobga_result.rows:
        T, name = row["horizon"], row["learner"]
        if name == "Meta-FW":
            K = round(math.sqrt(T))
            # K exact gradients and K FTPL oracle calls per round.
            assert row["block_size"] == K
            assert row["n_grad_calls"] == K * T
            assert row["n_lmo_calls"] == K * T
            assert row["n_projections"] == 0
            continue
        assert row["n_grad_calls"] == T  # one gradient query per round
        if name.startswith("POBGA"):
            K = max(1, round(math.sqrt(T)))
            assert row["block_size"] == K
            assert row["n_projections"] == -(-T // K)  # one O_IP per block
        elif name == "Mono-FW":
            K = round(T**0.6)
            assert row["block_size"] == K
            assert row["n_lmo_calls"] == K * -(-T // K)  # K calls per block
            assert row["n_projections"] == 0
        else:
            assert name == "OBGA"
            assert row["n_projections"] == T
            assert row["n_lmo_calls"] == 0


def test_theory_preset_plays_zero_within_its_lmo_budget(pobga_result):
    # Note 002, section 3.4: with Theorem 1's constants nothing moves below
    # T ~ 48,720, so the reward is f_t(0) = 0 and the 1-regret is the
    # comparator's whole reward; the LMO budget (at most T) holds trivially.
    rows = [r for r in pobga_result.rows if r["learner"] == "POBGA (theory)"]
    for row in rows:
        assert row["n_lmo_calls"] <= row["horizon"]
        assert row["mean_reward"] == 0.0
        assert row["regret1"] == pytest.approx(row["comparator_reward"])


def test_regrets_are_measured_against_one_comparator(pobga_result):
    by_horizon = {}
    for row in pobga_result.rows:
        T = row["horizon"]
        for k, best in enumerate(row["comparator_reward_trials"]):
            # Every learner plays the same stream against the same comparator.
            assert best == pytest.approx(by_horizon.setdefault((T, k), best))
            reward = row["mean_reward_trials"][k] * T
            assert row["regret1_trials"][k] == pytest.approx(best - reward)
            assert row["regret_trials"][k] == pytest.approx(ALPHA * best - reward)
        # The comparator earns a positive reward: f_t >= 0 on the set.
        assert row["comparator_reward"] > 0
        assert row["curve_t"][-1] == T
        assert row["curve_regret"][-1] == pytest.approx(row["regret"])
        assert row["curve_regret1"][-1] == pytest.approx(row["regret1"])


def test_pobga_slopes_are_least_squares_fits(pobga_result):
    for name, grid in HORIZONS.items():
        rows = [r for r in pobga_result.rows if r["learner"] == name]
        summary = next(
            s for s in pobga_result.metadata["summary"] if s["learner"] == name
        )
        for key, slope_key in (
            ("regret1", "regret1_slope"),
            ("regret", "regret_slope"),
            ("n_lmo_calls", "lmo_slope"),
        ):
            values = [row[key] for row in rows]
            if len(grid) < 2 or min(values) <= 0:
                expected = None
            else:
                expected = pytest.approx(_ols_slope(grid, values), rel=1e-9)
            assert summary[slope_key] == expected
            assert all(row[slope_key] == expected for row in rows)


def test_pobga_text_and_json(pobga_result):
    text = pobga_result.to_text()
    assert "slope 1-regret" in text and "Table 1 regret" in text
    assert "T^(3/4)" in text
    payload = json.loads(json.dumps(pobga_result.to_dict()))
    assert len(payload["metadata"]["summary"]) == len(HORIZONS)


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="Unknown learners"):
        run_pobga(learners=("POBGA", "nope"))
    with pytest.raises(ValueError, match="Unknown graphs"):
        run_dpobga(graphs=("star",))
    with pytest.raises(ValueError, match="decision_set"):
        run_dpobga(decision_set="ball")


def test_dpobga_communicates_once_per_block(dpobga_result):
    for row in dpobga_result.rows:
        T = row["horizon"]
        K = round(math.sqrt(T))
        assert row["block_size"] == K
        assert row["n_communications"] == -(-T // K)
        assert row["expected_communications"] == row["n_communications"]
        assert row["n_grad_calls"] == row["n_nodes"] * T
    for summary in dpobga_result.metadata["summary"]:
        rows = [r for r in dpobga_result.rows if r["graph"] == summary["graph"]]
        expected = _ols_slope(
            [r["horizon"] for r in rows], [r["n_communications"] for r in rows]
        )
        assert summary["communication_slope"] == pytest.approx(expected)
        assert summary["communication_slope"] == pytest.approx(0.5, abs=0.05)


def test_dpobga_mixing_rate_and_consensus(dpobga_result):
    for summary in dpobga_result.metadata["summary"]:
        A = np.asarray(dpobga_result.metadata["weights"][summary["graph"]])
        np.testing.assert_allclose(A, A.T)
        np.testing.assert_allclose(A.sum(axis=1), 1.0)
        eigenvalues = np.sort(np.linalg.eigvalsh(A))
        beta = max(abs(eigenvalues[-2]), abs(eigenvalues[0]))
        assert summary["beta"] == pytest.approx(beta, abs=1e-12)
    complete, cycle = dpobga_result.metadata["summary"]
    # Metropolis weights of a complete graph average exactly; of a 4-cycle,
    # eigenvalues 1, 1/3, 1/3, -1/3.
    assert complete["beta"] == pytest.approx(0.0, abs=1e-12)
    assert cycle["beta"] == pytest.approx(1 / 3)
    for row in dpobga_result.rows:
        curve = row["consensus_curve"]
        assert len(curve) == row["n_communications"]
        assert curve[0] == 0.0  # every node starts at x = 0
        assert row["consensus_max"] == pytest.approx(max(curve))
        assert row["consensus_last"] == pytest.approx(curve[-1])


def test_plots_draw_one_line_per_learner_and_graph(pobga_result, dpobga_result):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    figure = Figure()
    plot_pobga(pobga_result, figure)
    curves, regrets, calls = figure.axes
    assert len(curves.get_lines()) == len(HORIZONS)
    by_learner = {}
    for row in pobga_result.rows:
        by_learner.setdefault(row["learner"], []).append(row)
    positive_regret = sum(
        any(r["regret1"] > 0 for r in rows) for rows in by_learner.values()
    )
    positive_lmo = sum(
        any(r["n_lmo_calls"] > 0 for r in rows) for rows in by_learner.values()
    )
    assert len(regrets.get_lines()) == positive_regret
    # POBGA, Mono-FW and Meta-FW call the LMO; the theory preset (plays 0) and
    # OBGA do not; plus the y = T reference.
    assert positive_lmo == 3
    assert len(calls.get_lines()) == positive_lmo + 1
    assert regrets.get_xscale() == "log" and calls.get_yscale() == "log"

    figure = Figure()
    plot_dpobga(dpobga_result, figure)
    consensus, exchanges = figure.axes
    assert len(consensus.get_lines()) == 2
    assert len(exchanges.get_lines()) == 3
