"""Tests of kernel herding as a Frank-Wolfe solver."""

import numpy as np

from skcgm.optim import FrankWolfeResult, KernelHerding
from skcgm.oracles import LSHMIPS, ConvexHullLMO


def _data(seed, n=60, d=3):
    return np.random.RandomState(seed).standard_normal((n, d))


def test_kernel_herding_kernel_trick_matches_explicit_features(global_random_seed):
    # The linear kernel's feature map is the identity: both variants run the
    # same iterations.
    X = _data(global_random_seed)
    p = np.random.RandomState(global_random_seed).dirichlet(np.ones(X.shape[0]))
    for step in ("herding", "fw", "line_search"):
        solver = KernelHerding(kernel="linear", learning_rate=step, max_iter=15)
        trick = solver.solve(X, p)
        features = solver.solve(ConvexHullLMO().fit(X), p)
        assert isinstance(trick, FrankWolfeResult)
        assert isinstance(features, FrankWolfeResult)
        assert trick.x is None
        np.testing.assert_array_equal(trick.index_history, features.index_history)
        np.testing.assert_allclose(trick.weights, features.weights)
        np.testing.assert_allclose(
            trick.objective_history, features.objective_history, atol=1e-10
        )
        np.testing.assert_allclose(
            features.weights @ X[features.active_set], features.x
        )


def test_kernel_herding_histories_describe_every_iterate(global_random_seed):
    X = _data(global_random_seed)
    result = KernelHerding(max_iter=12).solve(X)
    assert result.n_iter == 12
    assert result.step_history.shape == (12,)
    assert result.index_history.shape == (12,)
    # Entry t describes w_t, the last iterate included.
    assert result.gap_history.shape == (13,)
    assert result.objective_history.shape == (13,)
    np.testing.assert_array_equal(result.n_scored, X.shape[0])
    assert result.x0_weight == 0.0


def test_kernel_herding_step_weights_are_selection_counts(global_random_seed):
    X = _data(global_random_seed)
    result = KernelHerding(max_iter=20).solve(X)
    counts = np.bincount(result.index_history, minlength=X.shape[0])
    np.testing.assert_allclose(result.weights, counts[result.active_set] / 20)
    assert not result.converged


def test_kernel_herding_line_search_stops_on_the_gap_certificate():
    # The mean of the corners of a square is the midpoint of a diagonal: the
    # exact line search reaches it and the gap closes.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    solver = KernelHerding(kernel="linear", learning_rate="line_search", max_iter=500)
    result = solver.solve(ConvexHullLMO().fit(X))
    assert result.converged
    assert result.n_iter < 500
    assert result.gap_history[-1] <= solver.tol * 2.0
    np.testing.assert_allclose(result.x, [0.5, 0.5], atol=1e-4)


def test_kernel_herding_lsh_counts_its_exact_fallback():
    # With a single one-bit table the index scores a fraction of the rows;
    # once no candidate descends, the exact scan decides and is counted.
    X = _data(0, n=200)
    lmo = ConvexHullLMO(LSHMIPS(n_tables=1, n_bits=4, random_state=0)).fit(X)
    result = KernelHerding(
        kernel="linear", learning_rate="line_search", max_iter=50
    ).solve(lmo)
    exact = KernelHerding(
        kernel="linear", learning_rate="line_search", max_iter=50
    ).solve(ConvexHullLMO().fit(X))
    assert result.n_scored.min() < X.shape[0]
    assert result.objective_history[-1] <= exact.objective_history[-1] * 10 + 1e-12
