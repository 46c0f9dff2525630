"""Tests of DPOBGA (Algorithm 2): exact counters, the degenerate-case
equivalences of note 002 section 3.5 item 12, a Jacobi reference and
parameter validation."""

import math

import numpy as np
import pytest

from skcgm.online import DPOBGA, POBGA, run_online
from skcgm.oracles._lmo_sets import BoxLMO, CappedSimplexLMO
from skcgm.oracles._projection import infeasible_projection


def _cycle_weights(n_nodes):
    """Metropolis weights of a cycle: 1/3 on each edge and the diagonal."""
    W = np.zeros((n_nodes, n_nodes))
    for i in range(n_nodes):
        W[i, i] = W[i, (i + 1) % n_nodes] = W[i, (i - 1) % n_nodes] = 1 / 3
    return W


@pytest.mark.parametrize("boosting", [True, False])
def test_dpobga_one_node_reproduces_pobga_exactly(boosting, make_local_objectives):
    lmo = CappedSimplexLMO(radius=2.0, n_features=4)
    horizon = 150
    objectives = make_local_objectives(4, horizon, 1, seed=1, noise=0.3)
    pobga = POBGA(lmo, horizon, boosting=boosting, random_state=11)
    dpobga = DPOBGA(lmo, horizon, [[1.0]], boosting=boosting, random_state=11)
    central = run_online(pobga, [local[0] for local in objectives], random_state=5)
    decentral = run_online(dpobga, objectives, random_state=5)
    np.testing.assert_array_equal(decentral.decisions[:, 0], central.decisions)
    np.testing.assert_array_equal(decentral.rewards, central.rewards)
    assert np.any(central.decisions[-1] > 0)
    assert dpobga.eta0_per_node_[0] == pobga.eta0_
    assert decentral.n_lmo_calls == central.n_lmo_calls
    assert decentral.n_grad_calls == central.n_grad_calls
    assert decentral.n_projections == central.n_projections
    np.testing.assert_array_equal(
        np.concatenate(dpobga.history_["dist2"]), pobga.history_["dist2"]
    )


@pytest.mark.parametrize("n_nodes, boosting", [(3, False), (4, True)])
def test_dpobga_complete_graph_identical_functions_gives_identical_nodes(
    n_nodes, boosting, make_quadratic
):
    # A = 11^T / N, the same local functions and (with boosting) the same
    # z-streams: every node runs the same POBGA.
    lmo = CappedSimplexLMO(radius=1.0, n_features=3)
    horizon = 80
    rng = np.random.RandomState(2)
    objectives = [[make_quadratic(rng, 3)] * n_nodes for _ in range(horizon)]
    weights = np.full((n_nodes, n_nodes), 1.0 / n_nodes)
    random_state = [7] * n_nodes if boosting else 0
    learner = DPOBGA(
        lmo, horizon, weights, boosting=boosting, random_state=random_state
    )
    result = run_online(learner, objectives, random_state=0)
    assert np.any(result.decisions[-1] > 0)
    for i in range(1, n_nodes):
        np.testing.assert_allclose(
            result.decisions[:, i], result.decisions[:, 0], rtol=0, atol=1e-12
        )
    assert max(learner.history_["consensus_error"]) <= 1e-12


@pytest.mark.parametrize("horizon, block_size", [(64, 8), (70, 8), (10, 10)])
def test_dpobga_counters_are_exact(horizon, block_size, make_local_objectives):
    lmo = BoxLMO(n_features=3)
    n_nodes = 4
    objectives = make_local_objectives(3, horizon, n_nodes, noise=0.2)
    learner = DPOBGA(
        lmo, horizon, _cycle_weights(n_nodes), block_size=block_size, random_state=0
    )
    result = run_online(learner, objectives, random_state=0)
    n_blocks = math.ceil(horizon / block_size)
    # One exchange per block: ceil(T/K) communication rounds per node.
    assert result.n_communications == learner.n_communications_ == n_blocks
    assert result.n_grad_calls == n_nodes * horizon
    assert result.n_projections == n_nodes * n_blocks
    assert result.n_lmo_calls == lmo.n_calls_ == learner.n_lmo_calls_per_node_.sum()
    assert len(learner.history_["consensus_error"]) == n_blocks
    assert np.array(learner.history_["lmo_calls"]).shape == (n_blocks, n_nodes)


def test_dpobga_theory_preset_at_most_T_lmo_calls_per_node(make_local_objectives):
    lmo = BoxLMO(n_features=3)
    horizon, n_nodes = 900, 3
    objectives = make_local_objectives(3, horizon, n_nodes, noise=0.1)
    G = max(f.grad_bound(lmo.radius) for local in objectives for f in local)
    learner = DPOBGA(
        lmo, horizon, _cycle_weights(n_nodes), preset="theory", grad_bound=G
    )
    result = run_online(learner, objectives, random_state=0)
    assert np.all(learner.n_lmo_calls_per_node_ <= horizon)
    assert result.n_communications == 30


def test_dpobga_matches_jacobi_reference(make_local_objectives):
    # Algorithm 2 written out: all nodes update from the block's snapshot.
    lmo = CappedSimplexLMO(radius=1.0, n_features=3)
    horizon, K, eta, eps, n_nodes = 40, 5, 0.2, 0.01, 3
    objectives = make_local_objectives(3, horizon, n_nodes, seed=3)
    W = np.array([[0.5, 0.5, 0.0], [0.5, 0.25, 0.25], [0.0, 0.25, 0.75]])
    learner = DPOBGA(lmo, horizon, W, block_size=K, eta0=eta, eps=eps, boosting=False)
    result = run_online(learner, objectives)
    X = np.zeros((n_nodes, 3))
    Y = np.zeros((n_nodes, 3))
    expected = []
    for m in range(horizon // K):
        total = np.zeros((n_nodes, 3))
        for t in range(m * K, (m + 1) * K):
            expected.append(X.copy())
            for i in range(n_nodes):
                total[i] += objectives[t][i].grad(X[i])
        new_X, new_Y = np.empty_like(X), np.empty_like(Y)
        for i in range(n_nodes):
            y = W[i] @ Y + eta * total[i]
            out = infeasible_projection(lmo, W[i] @ X, y, eps, radius=lmo.radius)
            new_X[i], new_Y[i] = out.x, out.y_tilde
        X, Y = new_X, new_Y
    np.testing.assert_allclose(result.decisions, np.array(expected), atol=1e-12)
    assert not np.allclose(result.decisions[-1, 0], result.decisions[-1, 2])


def test_dpobga_rewards_average_local_functions_at_each_node(make_local_objectives):
    lmo = BoxLMO(n_features=2)
    horizon, n_nodes = 12, 2
    objectives = make_local_objectives(2, horizon, n_nodes, seed=4)
    learner = DPOBGA(lmo, horizon, np.full((2, 2), 0.5), random_state=0)
    result = run_online(learner, objectives)
    assert result.node_rewards.shape == (horizon, n_nodes)
    t = horizon - 1
    for i in range(n_nodes):
        x = result.decisions[t, i]
        expected = np.mean([f.value(x) for f in objectives[t]])
        assert result.node_rewards[t, i] == pytest.approx(expected)
    np.testing.assert_allclose(result.rewards, result.node_rewards.mean(axis=1))


def test_dpobga_shared_objective_per_round_and_distinct_streams(make_quadratic):
    # One objective per round is shared by all nodes; one seed gives the
    # nodes distinct z-streams, so even on a complete graph they differ.
    lmo = BoxLMO(n_features=2)
    rng = np.random.RandomState(0)
    objectives = [make_quadratic(rng, 2) for _ in range(30)]
    learner = DPOBGA(lmo, 30, np.full((3, 3), 1 / 3), eps=1e-3, random_state=0)
    result = run_online(learner, objectives, random_state=0)
    assert result.decisions.shape == (30, 3, 2)
    assert not np.allclose(result.decisions[:, 0], result.decisions[:, 1])


def test_dpobga_node_streams_documented_derivation():
    lmo = BoxLMO(n_features=2)
    learner = DPOBGA(lmo, 10, np.full((2, 2), 0.5), random_state=3).reset()
    root = np.random.RandomState(3)
    seed = root.randint(np.iinfo(np.uint32).max, size=1, dtype=np.uint32)[0]
    assert learner._rngs[0].uniform() == root.uniform()
    assert learner._rngs[1].uniform() == np.random.RandomState(int(seed)).uniform()
    # A RandomState is the root itself; validation does not draw from it.
    given = np.random.RandomState(3)
    learner = DPOBGA(lmo, 10, np.full((2, 2), 0.5), random_state=given).reset()
    root = np.random.RandomState(3)
    root.randint(np.iinfo(np.uint32).max, size=1, dtype=np.uint32)
    assert learner._rngs[0] is given
    assert given.uniform() == root.uniform()


def test_dpobga_mixing_rate():
    learner = DPOBGA(BoxLMO(n_features=2), 10, _cycle_weights(4)).reset()
    # Eigenvalues of the 4-cycle's Metropolis matrix: 1, 1/3, 1/3, -1/3.
    assert learner.mixing_rate_ == pytest.approx(1 / 3)
    assert DPOBGA(BoxLMO(n_features=2), 10, [[1.0]]).reset().mixing_rate_ == 0.0


@pytest.mark.parametrize(
    "weights, match",
    [
        (np.ones((2, 3)) / 3, "square"),
        ([[1.5, -0.5], [-0.5, 1.5]], "non-negative"),
        ([[0.5, 0.5], [0.2, 0.8]], "symmetric"),
        ([[0.5, 0.4], [0.4, 0.5]], "doubly stochastic"),
        ([[np.nan]], "finite"),
        ("complete", "weights"),
    ],
)
def test_dpobga_bad_weights(weights, match):
    learner = DPOBGA(BoxLMO(n_features=2), 10, weights)
    with pytest.raises(ValueError, match="weights"):
        learner.decide()
    with pytest.raises(ValueError, match=match):
        learner.decide()


@pytest.mark.parametrize(
    "params, name",
    [
        ({"horizon": -3}, "horizon"),
        ({"block_size": 0}, "block_size"),
        ({"preset": "theory"}, "grad_bound"),
        ({"eta0": 0.0}, "eta0"),
        ({"eps": -1.0}, "eps"),
        ({"random_state": [0, 1, 2]}, "random_state"),
    ],
)
def test_dpobga_bad_parameters(params, name):
    kwargs = {
        "lmo": BoxLMO(n_features=2),
        "horizon": 10,
        "weights": np.full((2, 2), 0.5),
        **params,
    }
    with pytest.raises(ValueError, match=name):
        DPOBGA(**kwargs).decide()


def test_dpobga_update_shape_checked():
    learner = DPOBGA(BoxLMO(n_features=2), 10, np.full((2, 2), 0.5))
    learner.decide()
    learner.query_point()
    with pytest.raises(ValueError, match=r"gradient.*\(2, 2\)"):
        learner.update(np.ones(2))


def test_dpobga_gradients_growing_after_the_first_block_end_within_the_cap(
    budget_lmo,
):
    # Issue 16: the printed step of the infeasible projection never returned.
    lmo = budget_lmo(BoxLMO(n_features=1), budget=10_000)
    learner = DPOBGA(lmo, 100, np.full((2, 2), 0.5), random_state=0)
    for t in range(100):
        X = learner.decide()
        assert all(lmo.contains(x) for x in X) and np.isfinite(X).all()
        learner.query_point()
        learner.update(np.full((2, 1), -0.01 if t < 10 else -100.0))
    assert max(int(c.max()) for c in learner.history_["lmo_calls"]) <= (
        learner.max_lmo_calls_
    )
    assert all(s == ["ok", "ok"] for s in learner.history_["status"])
