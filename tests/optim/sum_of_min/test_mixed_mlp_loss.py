"""Tests of the mixed non-linear regression loss family and its network kernels.

Every expected value comes from an independent oracle: central finite
differences of the losses, the mixed linear loss on inputs with a column of
ones (the reduction of a network without hidden layer), or the definition of
Adam's first step written out here.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcgm.optim import (
    AdamLloyd,
    MixedLinearLoss,
    MixedMLPLoss,
    generalized_kmeans_plusplus,
    sum_of_minimum,
)
from skcgm.optim.sum_of_min.losses._base import group_weights
from skcgm.optim.sum_of_min.losses._mlp import Adam, NetworkLayout

ACTIVATIONS = ["relu", "tanh", "logistic", "identity"]
HIDDEN = [(5,), (3, 4), ()]


def _data(seed, n_samples=12, n_features=3):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features))
    y = rng.standard_normal(n_samples)
    return X, y


def _random_params(problem, n_params, seed):
    # Larger than the default init: units cross zero and the relu kinks
    # matter, yet no sample sits within the finite-difference step of one.
    rng = np.random.RandomState(seed)
    return rng.standard_normal((n_params, problem.layout.n_weights))


def _group_objectives(problem, params, labels, sample_weight):
    """``F_j`` of eq. 3.7 from the loss matrix: weighted mean over group j."""
    losses = problem.loss_matrix(params)
    objectives = np.zeros(params.shape[0])
    for j in range(params.shape[0]):
        members = labels == j
        if sample_weight[members].sum() > 0:
            objectives[j] = (
                losses[members, j] @ sample_weight[members]
            ) / sample_weight[members].sum()
    return objectives


def _central_differences(function, params, h=1e-6):
    """Central differences of a function of ``params`` returning a vector.

    Returns an array of shape ``(*function(params).shape, *params.shape)``.
    """
    value = function(params)
    jacobian = np.zeros(value.shape + params.shape)
    for index in np.ndindex(params.shape):
        step = np.zeros_like(params)
        step[index] = h
        jacobian[(Ellipsis, *index)] = (
            function(params + step) - function(params - step)
        ) / (2 * h)
    return jacobian


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("hidden_layer_sizes", HIDDEN, ids=str)
def test_partition_gradient_matches_finite_differences(
    activation, hidden_layer_sizes, global_random_seed
):
    X, y = _data(global_random_seed)
    alpha = 0.05
    problem = MixedMLPLoss(hidden_layer_sizes, activation, alpha=alpha).bind(X, y)
    params = _random_params(problem, 3, seed=global_random_seed + 1)
    # Group 2 is empty; group 1 holds a single sample.
    labels = np.zeros(X.shape[0], dtype=np.intp)
    labels[4] = 1
    sample_weight = np.random.RandomState(2).uniform(0.5, 2.0, X.shape[0])
    counts = group_weights(labels, sample_weight, 3)
    gradient = problem.partition_gradient(params, labels, sample_weight, counts)
    assert gradient.shape == params.shape

    def objective_of_group(j):
        def F(theta):
            stacked = params.copy()
            stacked[j] = theta
            return _group_objectives(problem, stacked, labels, sample_weight)[j : j + 1]

        return F

    for j in range(2):
        fd = _central_differences(objective_of_group(j), params[j])[0]
        assert_allclose(gradient[j], fd, rtol=1e-6, atol=1e-7 * np.abs(fd).max())
    # The empty group's objective is 0 whatever its parameter.
    assert_array_equal(gradient[2], 0)


def test_partition_gradient_is_scale_invariant_in_the_weights():
    # F_j is a weighted mean: multiplying every weight leaves it unchanged.
    X, y = _data(3)
    problem = MixedMLPLoss((4,), "tanh", alpha=0.1).bind(X, y)
    params = _random_params(problem, 2, seed=4)
    labels = np.arange(X.shape[0]) % 2
    weights = np.random.RandomState(5).uniform(0.1, 3.0, X.shape[0])
    first = problem.partition_gradient(
        params, labels, weights, group_weights(labels, weights, 2)
    )
    second = problem.partition_gradient(
        params, labels, 1000 * weights, group_weights(labels, 1000 * weights, 2)
    )
    assert_allclose(first, second, rtol=1e-10)


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("hidden_layer_sizes", HIDDEN, ids=str)
def test_grad_sq_norm_vector_matches_finite_differences(
    activation, hidden_layer_sizes, global_random_seed
):
    X, y = _data(global_random_seed, n_samples=9)
    problem = MixedMLPLoss(hidden_layer_sizes, activation, alpha=0.3).bind(X, y)
    param = _random_params(problem, 1, seed=global_random_seed + 1)[0]
    jacobian = _central_differences(problem.loss_vector, param)
    expected = (jacobian**2).sum(axis=1)
    sq_norms = problem.grad_sq_norm_vector(param)
    assert sq_norms.shape == (X.shape[0],)
    assert_allclose(sq_norms, expected, rtol=1e-6, atol=1e-9 * expected.max())


@pytest.mark.parametrize("alpha", [1e-3, 0.2])
def test_network_without_hidden_layer_is_the_linear_loss_on_inputs_and_ones(
    alpha, global_random_seed
):
    X, y = _data(global_random_seed, n_samples=15, n_features=4)
    mlp = MixedMLPLoss((), "identity", alpha=alpha).bind(X, y)
    ones = np.ones((X.shape[0], 1))
    linear = MixedLinearLoss(alpha, fit_intercept=False).bind(np.hstack([X, ones]), y)
    params = np.random.RandomState(9).standard_normal((3, X.shape[1] + 1))
    assert mlp.param_shape() == linear.param_shape() == (X.shape[1] + 1,)
    assert_allclose(mlp.loss_matrix(params), linear.loss_matrix(params), rtol=1e-12)
    # The flat layout is the weights then the bias: a pure bias predicts it.
    bias_only = np.zeros((1, X.shape[1] + 1))
    bias_only[0, -1] = 2.5
    assert_allclose(mlp.predict(bias_only)[:, 0], 2.5)


def test_loss_matrix_written_out_for_one_hidden_layer():
    X, y = _data(10, n_samples=7, n_features=2)
    alpha = 0.4
    problem = MixedMLPLoss((3,), "tanh", alpha=alpha).bind(X, y)
    params = _random_params(problem, 2, seed=11)
    expected = np.empty((X.shape[0], 2))
    for j, theta in enumerate(params):
        W1 = theta[:6].reshape(2, 3)
        b1 = theta[6:9]
        W2 = theta[9:12].reshape(3, 1)
        b2 = theta[12]
        outputs = (np.tanh(X @ W1 + b1) @ W2)[:, 0] + b2
        expected[:, j] = 0.5 * (outputs - y) ** 2 + 0.5 * alpha * theta @ theta
    assert_allclose(problem.loss_matrix(params), expected, rtol=1e-12)
    assert_allclose(problem.loss_vector(params[1]), expected[:, 1], rtol=1e-12)


@pytest.mark.parametrize(
    "hidden_layer_sizes, activation", [((5,), "relu"), ((3,), "tanh")]
)
def test_sample_minimizers_fit_their_sample(hidden_layer_sizes, activation):
    X, y = _data(12, n_samples=10)
    problem = MixedMLPLoss(hidden_layer_sizes, activation, alpha=0.01).bind(X, y)
    indices = np.arange(X.shape[0])
    minimizers = problem.sample_minimizers(indices, np.random.RandomState(1))
    assert minimizers.shape == (X.shape[0], problem.layout.n_weights)
    own = problem.loss_matrix(minimizers)[indices, indices]
    # Every fit starts from its own random network, drawn from random_state.
    starts = problem.random_params(X.shape[0], np.random.RandomState(1), np.float64)
    at_start = problem.loss_matrix(starts)[indices, indices]
    assert np.all(own < at_start)
    assert own.mean() < 0.5 * at_start.mean()
    # A function of the random state.
    again = problem.sample_minimizers(indices, np.random.RandomState(1))
    assert_array_equal(again, minimizers)
    other = problem.sample_minimizers(indices, np.random.RandomState(2))
    assert not np.array_equal(other, minimizers)


def test_sample_min_values_are_the_losses_of_the_fits_from_seed_0():
    X, y = _data(14, n_samples=10)
    loss = MixedMLPLoss((3,), "tanh", alpha=0.01)
    problem = loss.bind(X, y)
    min_values = problem.sample_min_values()
    indices = np.arange(X.shape[0])
    fits = problem.sample_minimizers(indices, np.random.RandomState(0))
    assert_allclose(min_values, problem.loss_matrix(fits)[indices, indices], rtol=1e-10)
    assert np.all(min_values >= 0)
    # Deterministic: a second binding computes the same values.
    assert_array_equal(loss.bind(X, y).sample_min_values(), min_values)
    # bind works on a copy: the user's instance holds no data.
    assert not hasattr(loss, "X")
    # The gap is the loss minus them, clipped at zero.
    param = fits[0]
    expected = np.maximum(problem.loss_vector(param) - min_values, 0)
    assert_allclose(problem.gap_vector(param), expected, rtol=1e-12)
    assert problem.gap_vector(param)[0] == 0


def test_adam_first_step_moves_each_active_coordinate_by_the_learning_rate():
    lr = 1e-6
    rng = np.random.RandomState(15)
    params = rng.standard_normal((3, 5))
    gradient = rng.standard_normal((3, 5))
    adam = Adam(params.shape, eta0=lr)
    active = np.array([True, False, True])
    stepped = adam.step(params, gradient, active)
    # Bias-corrected moments of the first step: m = g, v = g^2.
    assert_allclose(
        stepped[active] - params[active], -lr * np.sign(gradient[active]), rtol=1e-6
    )
    # The inactive row keeps its parameters and its state.
    assert_array_equal(stepped[1], params[1])
    assert_array_equal(adam.steps, [1, 0, 1])
    assert_array_equal(adam.first[1], 0)
    assert_array_equal(adam.second[1], 0)
    # The input array is not modified.
    assert not np.array_equal(stepped, params)
    # Row 1's first step, later, is still a bias-corrected first step.
    again = adam.step(stepped, gradient, np.array([False, True, False]))
    assert_allclose(again[1] - params[1], -lr * np.sign(gradient[1]), rtol=1e-6)
    assert_array_equal(again[[0, 2]], stepped[[0, 2]])
    assert_array_equal(adam.steps, [1, 1, 1])


def test_adam_second_step_follows_the_update_rule():
    lr, beta1, beta2, eps = 0.01, 0.9, 0.999, 1e-8
    params = np.array([[1.0, -2.0]])
    g1, g2 = np.array([[0.5, 2.0]]), np.array([[-1.0, 3.0]])
    adam = Adam(params.shape, lr, beta1, beta2, eps)
    after = adam.step(adam.step(params, g1), g2)
    m1, v1 = (1 - beta1) * g1, (1 - beta2) * g1**2
    x1 = params - lr * (m1 / (1 - beta1)) / (np.sqrt(v1 / (1 - beta2)) + eps)
    m2, v2 = beta1 * m1 + (1 - beta1) * g2, beta2 * v1 + (1 - beta2) * g2**2
    x2 = x1 - lr * (m2 / (1 - beta1**2)) / (np.sqrt(v2 / (1 - beta2**2)) + eps)
    assert_allclose(after, x2, rtol=1e-12)


def test_network_layout_packs_and_unpacks():
    layout = NetworkLayout(4, (3, 2))
    assert layout.shapes == [(4, 3), (3, 2), (2, 1)]
    assert layout.n_weights == 4 * 3 + 3 + 3 * 2 + 2 + 2 + 1
    params = np.arange(2 * layout.n_weights, dtype=float).reshape(2, -1)
    layers = layout.unpack(params)
    assert [W.shape for W, _ in layers] == [(2, 4, 3), (2, 3, 2), (2, 2, 1)]
    assert_array_equal(layers[0][0][1].ravel(), params[1, :12])
    assert_array_equal(layers[0][1][1], params[1, 12:15])
    assert_array_equal(NetworkLayout.pack(layers), params)


def _replay_seeding(problem, k, init_score, random_state):
    """Algorithms 1 and 4 with the draws of kmeans_plusplus(n_local_trials=1).

    The first index uniform, every further one with probability proportional
    to the smallest score over the seeds so far (drawn samples score zero),
    every seed the fit of its sample from the same random stream.
    """
    n = problem.n_samples
    score = problem.gap_vector if init_score == "gap" else problem.grad_sq_norm_vector
    indices = [random_state.choice(n, p=np.full(n, 1 / n))]
    params = [problem.sample_minimizers(indices[-1:], random_state)[0]]
    scores = score(params[0])
    scores[indices[0]] = 0
    for _ in range(1, k):
        cumulative = np.cumsum(scores)
        draw = random_state.uniform() * cumulative[-1]
        indices.append(min(np.searchsorted(cumulative, draw), n - 1))
        params.append(problem.sample_minimizers(indices[-1:], random_state)[0])
        scores = np.minimum(scores, score(params[-1]))
        scores[indices] = 0
    return np.stack(params), np.array(indices)


@pytest.mark.parametrize("init_score", ["gradient", "gap"])
def test_seeding_picks_fits_of_distinct_samples(init_score):
    X, y = _data(16, n_samples=20)
    loss = MixedMLPLoss((3,), "relu", alpha=0.01)
    problem = loss.bind(X, y)
    k = 4
    params, indices = generalized_kmeans_plusplus(
        X, k, y=y, loss=loss, init_score=init_score, random_state=0
    )
    assert params.shape == (k, problem.layout.n_weights)
    assert len(set(indices.tolist())) == k
    expected, expected_indices = _replay_seeding(
        problem, k, init_score, np.random.RandomState(0)
    )
    assert_array_equal(indices, expected_indices)
    assert_allclose(params, expected, rtol=1e-10, atol=1e-12)
    again, again_indices = generalized_kmeans_plusplus(
        X, k, y=y, loss=loss, init_score=init_score, random_state=0
    )
    assert_array_equal(again_indices, indices)
    assert_array_equal(again, params)


def test_seeding_draws_only_samples_of_positive_weight():
    X, y = _data(19, n_samples=20)
    weights = np.zeros(20)
    weights[[2, 7, 11, 15]] = [1.0, 2.0, 0.5, 3.0]
    _, indices = generalized_kmeans_plusplus(
        X, 3, y=y, loss=MixedMLPLoss((3,)), sample_weight=weights, random_state=0
    )
    assert set(indices.tolist()) <= {2, 7, 11, 15}
    assert len(set(indices.tolist())) == 3


@pytest.mark.parametrize(
    "solver, missing",
    [
        ("exact", "a closed-form group minimizer"),
        ("gd", "Lipschitz gradients"),
        ("momentum", "Lipschitz gradients"),
    ],
)
def test_solvers_the_loss_cannot_serve_are_refused(solver, missing):
    X, y = _data(17)
    with pytest.raises(ValueError) as error:
        sum_of_minimum(X, 2, y=y, loss=MixedMLPLoss(), solver=solver)
    message = str(error.value)
    assert f"solver={solver!r} needs {missing}" in message
    assert "MixedMLPLoss" in message
    assert "use solver='adam'" in message


def test_sum_of_minimum_runs_the_adam_solver_by_name():
    X, y = _data(18, n_samples=20)
    result = sum_of_minimum(
        X, 2, y=y, loss=MixedMLPLoss((3,)), solver="adam", max_iter=5, random_state=0
    )
    assert result.params.shape == (2, MixedMLPLoss((3,)).bind(X, y).layout.n_weights)
    assert len(result.objective_history) == result.n_iter + 1 <= 6
    problem = MixedMLPLoss((3,)).bind(X, y)
    assert result.objective == pytest.approx(
        problem.loss_matrix(result.params).min(axis=1).mean(), rel=1e-12
    )


def test_sum_of_minimum_adam_options_reach_the_solver():
    X, y = _data(20, n_samples=25)
    loss = MixedMLPLoss((3,), "tanh", alpha=0.01)
    problem = loss.bind(X, y)
    init = problem.random_params(2, np.random.RandomState(1), np.float64)
    result = sum_of_minimum(
        X, 2, y=y, loss=loss, init=init, solver="adam", eta0=1e-2, max_iter=6, tol=0
    )
    expected = AdamLloyd(eta0=1e-2, max_iter=6, tol=0).solve(
        problem, init, np.ones(25), None
    )
    assert_allclose(result.params, expected.params, rtol=1e-12, atol=1e-15)
    assert_allclose(result.objective_history, expected.objective_history, rtol=1e-12)
    assert result.n_iter == expected.n_iter == 6
