"""Tests of the gossip matrices and graph factories (Assumption A4)."""

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components

from skcgm.online._gossip import (
    check_gossip_matrix,
    complete_graph,
    cycle_graph,
    erdos_renyi_graph,
    grid_graph,
    metropolis_weights,
    mixing_rate,
    spectral_gap,
)

_GRAPHS = {
    "complete": lambda: complete_graph(9),
    "grid": lambda: grid_graph(3, 3),
    "cycle": lambda: cycle_graph(9),
    "erdos_renyi": lambda: erdos_renyi_graph(9, 0.4, random_state=0),
    "path": lambda: np.eye(9, k=1) + np.eye(9, k=-1),
}


@pytest.mark.parametrize("name", sorted(_GRAPHS))
def test_metropolis_weights_satisfy_a4(name):
    adjacency = _GRAPHS[name]()
    weights = metropolis_weights(adjacency)
    assert weights.shape == (9, 9) and weights.dtype == np.float64
    np.testing.assert_array_equal(weights, weights.T)
    np.testing.assert_allclose(weights.sum(axis=0), 1.0, atol=1e-14)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-14)
    assert weights.min() >= 0
    edges = np.asarray(adjacency, dtype=bool)
    assert np.all(weights[~(edges | np.eye(9, dtype=bool))] == 0)
    assert np.all(weights[edges] > 0)
    beta = mixing_rate(weights)
    eigenvalues = np.sort(np.linalg.eigvals(weights).real)[::-1]
    assert beta == pytest.approx(max(abs(eigenvalues[1]), abs(eigenvalues[-1])))
    assert beta < 1
    np.testing.assert_array_equal(check_gossip_matrix(weights, adjacency), weights)


def test_metropolis_weights_by_hand_on_a_path():
    # Path 0 - 1 - 2: degrees (1, 2, 1), every edge gets 1 / (1 + 2).
    weights = metropolis_weights([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    expected = np.array([[2, 1, 0], [1, 1, 1], [0, 1, 2]]) / 3
    np.testing.assert_allclose(weights, expected)
    # Self loops are ignored.
    np.testing.assert_allclose(
        metropolis_weights([[1, 1, 0], [1, 1, 1], [0, 1, 5]]), expected
    )


def test_mixing_rate_orders_complete_grid_cycle():
    betas = {name: mixing_rate(metropolis_weights(_GRAPHS[name]())) for name in _GRAPHS}
    assert betas["complete"] == pytest.approx(0.0, abs=1e-12)
    assert betas["complete"] < betas["grid"] < betas["cycle"] < betas["path"] < 1
    assert spectral_gap(metropolis_weights(complete_graph(9))) == pytest.approx(1.0)


@pytest.mark.parametrize("n_nodes", [3, 4, 7, 10])
def test_mixing_rate_of_the_cycle_closed_form(n_nodes):
    # Metropolis on a ring is (I + S + S^T) / 3: eigenvalues (1 + 2 cos(2 pi k/n)) / 3.
    eigenvalues = (1 + 2 * np.cos(2 * np.pi * np.arange(n_nodes) / n_nodes)) / 3
    eigenvalues = np.sort(eigenvalues)[::-1]
    expected = max(abs(eigenvalues[1]), abs(eigenvalues[-1]))
    assert mixing_rate(metropolis_weights(cycle_graph(n_nodes))) == pytest.approx(
        expected
    )


def test_mixing_rate_single_node_and_disconnected():
    assert mixing_rate([[1.0]]) == 0.0
    check_gossip_matrix([[1.0]], np.zeros((1, 1)))
    disconnected = np.zeros((4, 4), dtype=bool)
    disconnected[0, 1] = disconnected[1, 0] = disconnected[2, 3] = disconnected[
        3, 2
    ] = True
    weights = metropolis_weights(disconnected)
    assert mixing_rate(weights) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="beta < 1"):
        check_gossip_matrix(weights)


def test_check_gossip_matrix_rejects_each_violation():
    adjacency = cycle_graph(4)
    weights = metropolis_weights(adjacency)
    negative = weights.copy()
    negative[0, 0] = -0.1
    with pytest.raises(ValueError, match="non-negative"):
        check_gossip_matrix(negative)
    off_graph = np.full((4, 4), 0.25)  # complete support on a ring
    check_gossip_matrix(off_graph)
    with pytest.raises(ValueError, match="supported on the graph"):
        check_gossip_matrix(off_graph, adjacency)
    asymmetric = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])
    with pytest.raises(ValueError, match="symmetric"):
        check_gossip_matrix(asymmetric)
    with pytest.raises(ValueError, match="rows summing to 1"):
        check_gossip_matrix(weights * 0.9)
    with pytest.raises(ValueError, match="nodes"):
        check_gossip_matrix(weights, cycle_graph(5))
    with pytest.raises(ValueError, match="square"):
        check_gossip_matrix(np.ones((2, 3)))
    with pytest.raises(ValueError, match="tol"):
        check_gossip_matrix(weights, tol=-1.0)


def test_graph_factories():
    assert complete_graph(1).shape == (1, 1) and not complete_graph(1).any()
    assert cycle_graph(1).sum() == 0 and cycle_graph(2).sum() == 2
    for adjacency in [
        complete_graph(5),
        cycle_graph(6),
        grid_graph(3, 4),
        grid_graph(1, 5),
    ]:
        assert adjacency.dtype == bool
        np.testing.assert_array_equal(adjacency, adjacency.T)
        assert not adjacency.diagonal().any()
        assert connected_components(adjacency, directed=False)[0] == 1
    assert complete_graph(5).sum() == 20
    assert cycle_graph(6).sum(axis=1).tolist() == [2] * 6
    grid = grid_graph(3, 4)
    # Edges of a rows x cols grid: rows (cols - 1) + cols (rows - 1).
    assert grid.sum() // 2 == 3 * 3 + 4 * 2
    assert grid[0, 1] and grid[0, 4] and not grid[3, 4]


def test_erdos_renyi_graph_is_connected_and_seeded():
    for seed in range(10):
        adjacency = erdos_renyi_graph(12, 0.25, random_state=seed)
        assert adjacency.dtype == bool and not adjacency.diagonal().any()
        np.testing.assert_array_equal(adjacency, adjacency.T)
        assert connected_components(adjacency, directed=False)[0] == 1
    np.testing.assert_array_equal(
        erdos_renyi_graph(12, 0.25, random_state=3),
        erdos_renyi_graph(12, 0.25, random_state=np.random.RandomState(3)),
    )
    np.testing.assert_array_equal(erdos_renyi_graph(6, 1.0), complete_graph(6))
    # The edge density is p (conditioning on connectivity barely matters here).
    density = np.mean(
        [
            erdos_renyi_graph(30, 0.5, random_state=s).sum() / (30 * 29)
            for s in range(20)
        ]
    )
    assert density == pytest.approx(0.5, abs=0.02)
    assert erdos_renyi_graph(1, 0.0).shape == (1, 1)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_nodes": 0, "p": 0.5}, "n_nodes"),
        ({"n_nodes": 5, "p": 1.5}, "'p' parameter"),
        ({"n_nodes": 5, "p": 0.0}, "p must be > 0"),
        ({"n_nodes": 5, "p": 0.5, "max_tries": 0}, "max_tries"),
        ({"n_nodes": 40, "p": 0.01, "random_state": 0, "max_tries": 3}, "increase p"),
    ],
)
def test_erdos_renyi_graph_validates(kwargs, match):
    with pytest.raises(ValueError, match=match):
        erdos_renyi_graph(**kwargs)


def test_bad_adjacency_raises():
    with pytest.raises(ValueError, match="symmetric"):
        metropolis_weights([[0, 1], [0, 0]])
    with pytest.raises(ValueError, match="square"):
        metropolis_weights(np.ones(3))
    with pytest.raises(ValueError, match="finite"):
        metropolis_weights([[0, np.nan], [np.nan, 0]])
    with pytest.raises(ValueError, match="n_nodes"):
        cycle_graph(True)
    with pytest.raises(ValueError, match="rows"):
        grid_graph(0, 2)
    with pytest.raises(ValueError, match="symmetric"):
        mixing_rate([[0.5, 0.5], [0.0, 1.0]])


def test_networkx_graph_input():
    nx = pytest.importorskip("networkx")
    graph = nx.cycle_graph(5)
    np.testing.assert_allclose(
        metropolis_weights(graph), metropolis_weights(cycle_graph(5))
    )
    check_gossip_matrix(metropolis_weights(graph), graph)
