"""Tests of make_mixed_mlp_regression (the data of section 5.2).

Oracles: the networks evaluated here by hand (plain NumPy on the layout
written out) and through the package's batched ``forward``, the bounds of
the uniform initialization and the moments of the standard normal.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcgm.datasets import make_mixed_mlp_regression
from skcgm.optim.sum_of_min.losses._mlp import NetworkLayout, forward
from skcgm.utils._sklearn_compat import InvalidParameterError


def test_shapes_and_dtypes():
    X, y, networks, labels = make_mixed_mlp_regression(
        n_samples=30,
        n_features=4,
        hidden_layer_sizes=(3, 2),
        n_components=3,
        random_state=0,
    )
    assert X.shape == (30, 4) and y.shape == (30,) and labels.shape == (30,)
    assert networks.shape == (3, 4 * 3 + 3 + 3 * 2 + 2 + 2 + 1)
    assert X.dtype == y.dtype == networks.dtype == np.float64
    assert labels.min() >= 0 and labels.max() <= 2
    assert np.issubdtype(labels.dtype, np.integer)


def test_deterministic_with_random_state():
    kwargs = dict(n_samples=50, n_features=3, n_components=2, random_state=7)
    first = make_mixed_mlp_regression(**kwargs)
    second = make_mixed_mlp_regression(**kwargs)
    for a, b in zip(first, second):
        assert_array_equal(a, b)
    other = make_mixed_mlp_regression(**{**kwargs, "random_state": 8})
    assert not np.array_equal(other[0], first[0])
    rng = np.random.RandomState(7)
    from_instance = make_mixed_mlp_regression(**{**kwargs, "random_state": rng})
    for a, b in zip(first, from_instance):
        assert_array_equal(a, b)


@pytest.mark.parametrize("weights", ["uniform", "normal"])
def test_noiseless_targets_are_the_output_of_the_assigned_network(weights):
    X, y, networks, labels = make_mixed_mlp_regression(
        n_samples=200,
        n_features=5,
        hidden_layer_sizes=(3,),
        n_components=4,
        noise=0.0,
        weights=weights,
        random_state=1,
    )
    layout = NetworkLayout(5, (3,))
    outputs, _ = forward(layout, networks, X, "relu")
    assert_allclose(y, outputs[labels, np.arange(200)], rtol=1e-12, atol=1e-14)
    # The same, written out: p^T ReLU(W^T a + q) + o, weights before biases.
    W = networks[:, :15].reshape(4, 5, 3)
    q = networks[:, 15:18]
    p = networks[:, 18:21]
    o = networks[:, 21]
    hidden = np.maximum(np.einsum("nd,ndh->nh", X, W[labels]) + q[labels], 0)
    assert_allclose(y, (hidden * p[labels]).sum(axis=1) + o[labels], rtol=1e-12)
    # Every component is used and the components are uniform.
    counts = np.bincount(labels, minlength=4)
    assert counts.min() > 25


def test_linear_networks_without_hidden_layer():
    X, y, networks, labels = make_mixed_mlp_regression(
        n_samples=40,
        n_features=3,
        hidden_layer_sizes=(),
        n_components=2,
        noise=0.0,
        random_state=2,
    )
    assert networks.shape == (2, 4)
    expected = np.einsum("nd,nd->n", X, networks[labels, :3]) + networks[labels, 3]
    assert_allclose(y, expected, rtol=1e-12)


def test_noise_has_the_requested_scale():
    kwargs = dict(n_samples=20000, n_features=3, n_components=2, random_state=3)
    X, y, networks, labels = make_mixed_mlp_regression(noise=0.3, **kwargs)
    outputs, _ = forward(NetworkLayout(3, (3,)), networks, X, "relu")
    residuals = y - outputs[labels, np.arange(len(y))]
    assert residuals.std() == pytest.approx(0.3, rel=0.03)
    assert abs(residuals.mean()) < 0.02
    # The noise is drawn last: the same seed gives the same networks,
    # inputs and components whatever the noise.
    X0, _, networks0, labels0 = make_mixed_mlp_regression(noise=0.0, **kwargs)
    assert_array_equal(X0, X)
    assert_array_equal(networks0, networks)
    assert_array_equal(labels0, labels)


def test_uniform_weights_lie_within_the_pytorch_bounds():
    layout = NetworkLayout(6, (4, 3))
    _, _, networks, _ = make_mixed_mlp_regression(
        n_samples=5,
        n_features=6,
        hidden_layer_sizes=(4, 3),
        n_components=200,
        random_state=4,
    )
    for (W, b), (fan_in, _) in zip(layout.unpack(networks), layout.shapes):
        bound = 1 / np.sqrt(fan_in)
        assert np.abs(W).max() <= bound and np.abs(b).max() <= bound
        # Spread over the whole interval, not a narrower one.
        assert np.abs(W).max() > 0.95 * bound
        assert W.std() == pytest.approx(bound / np.sqrt(3), rel=0.1)


def test_normal_weights_are_standard_normal():
    layout = NetworkLayout(6, (4,))
    _, _, networks, _ = make_mixed_mlp_regression(
        n_samples=5,
        n_features=6,
        hidden_layer_sizes=(4,),
        n_components=300,
        weights="normal",
        random_state=5,
    )
    assert networks.std() == pytest.approx(1.0, rel=0.05)
    assert abs(networks.mean()) < 0.05
    # Far beyond the uniform bounds of the first layer (1/sqrt(6)).
    W, _ = layout.unpack(networks)[0]
    assert np.abs(W).max() > 3


@pytest.mark.parametrize(
    "params",
    [
        dict(n_samples=0),
        dict(n_samples=2.5),
        dict(n_features=0),
        dict(n_components=0),
        dict(noise=-0.1),
        dict(noise=np.nan),
        dict(weights="foo"),
        dict(hidden_layer_sizes=0),
    ],
)
def test_invalid_parameters_raise(params):
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        make_mixed_mlp_regression(**params)


@pytest.mark.parametrize("sizes", [(0,), (2.5,), (-1,), (3, 0)])
def test_hidden_layer_sizes_of_non_positive_integers_raise(sizes):
    with pytest.raises(ValueError, match="hidden_layer_sizes must be a tuple"):
        make_mixed_mlp_regression(hidden_layer_sizes=sizes, random_state=0)


def test_hidden_layer_sizes_as_a_list_equals_the_tuple():
    as_list = make_mixed_mlp_regression(hidden_layer_sizes=[3, 2], random_state=0)
    as_tuple = make_mixed_mlp_regression(hidden_layer_sizes=(3, 2), random_state=0)
    for a, b in zip(as_list, as_tuple):
        np.testing.assert_array_equal(a, b)
