"""Tests of the kernel mean embeddings and the squared MMD."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel

from skcgm.oracles import kernel_mean_embedding, kernel_mean_squared_norm, squared_mmd


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_kernel_mean_embedding_is_the_gram_matrix_times_the_weights(
    kernel, global_random_seed
):
    rng = np.random.RandomState(global_random_seed)
    X, Y = rng.standard_normal((40, 3)), rng.standard_normal((25, 3))
    w = rng.dirichlet(np.ones(25))
    K = rbf_kernel(X, Y, gamma=0.4) if kernel == "rbf" else linear_kernel(X, Y)
    np.testing.assert_allclose(
        kernel_mean_embedding(X, Y, w, kernel=kernel, gamma=0.4), K @ w
    )


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_kernel_mean_squared_norm_is_the_mean_kernel_entry(kernel, global_random_seed):
    X = np.random.RandomState(global_random_seed).standard_normal((30, 4))
    K = rbf_kernel(X, gamma=0.2) if kernel == "rbf" else linear_kernel(X)
    value = kernel_mean_squared_norm(X, kernel=kernel, gamma=0.2)
    assert value == pytest.approx(K.mean())
    assert kernel_mean_squared_norm(sp.csr_matrix(X), kernel=kernel, gamma=0.2) == (
        pytest.approx(value)
    )


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_squared_mmd_of_other_points_equals_the_kernel_expansion(
    kernel, global_random_seed
):
    # Independent oracle: the Gram matrix of the data and the points.
    rng = np.random.RandomState(global_random_seed)
    X, Y = rng.standard_normal((30, 3)), rng.standard_normal((6, 3))
    indices = np.array([1, 4, 4])
    w = rng.dirichlet(np.ones(3))
    Z = np.vstack([X, Y])
    K = rbf_kernel(Z, gamma=0.5) if kernel == "rbf" else linear_kernel(Z)
    q = np.concatenate([np.full(30, 1 / 30), np.zeros(6)])
    np.add.at(q, 30 + indices, -w)
    expected = q @ K @ q
    value = squared_mmd(X, indices, w, kernel=kernel, gamma=0.5, Y=Y)
    assert value == pytest.approx(expected, abs=1e-12)
