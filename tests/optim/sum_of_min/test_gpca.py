"""Tests of the GPCA loss family and the sum-of-product baseline.

Expected values come from closed forms (eigenvalues, projections onto a
subspace computed from its complement), brute force over random orthonormal
bases, or the paper's definitions written here, never from the implementation.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import null_space

from skcgm.datasets import make_union_of_subspaces
from skcgm.optim import (
    SubspaceLoss,
    generalized_kmeans_plusplus,
    sum_of_minimum,
    sum_of_product_gpca,
)
from skcgm.optim.sum_of_min.losses._base import group_membership

# --------------------------------------------------------------------------------------
# Independent helpers


def _random_orthonormal(rng, d, r):
    q, _ = np.linalg.qr(rng.standard_normal((d, r)))
    return q


def _half_sq_dist(X, normal, offset=None):
    """Half squared distance to the subspace of normal basis ``normal``."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    if offset is not None:
        X = X - offset
    complement = null_space(normal.T)
    residual = X - X @ complement @ complement.T
    return 0.5 * np.sum(residual**2, axis=1)


def _sop_objective(X, params, sample_weight=None):
    """The sum-of-product objective (5.1), no half, by a loop over the bases."""
    w = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    product = np.ones(X.shape[0])
    for normal in params:
        product *= np.sum((X @ normal) ** 2, axis=1)
    return np.sum(w * product) / np.sum(w)


def _assert_non_increasing(history, rtol=1e-12):
    history = np.asarray(history, dtype=np.float64)
    assert history.ndim == 1 and history.size >= 2
    assert np.all(np.diff(history) <= rtol * np.abs(history[:-1])), history


def _projector(normal):
    return normal @ normal.T


# --------------------------------------------------------------------------------------
# The loss family


@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_subspace_loss_matrix_is_half_squared_distance(affine, sparse):
    rng = np.random.RandomState(0)
    X = rng.standard_normal((25, 5))
    X[rng.uniform(size=X.shape) < 0.3] = 0.0
    codim = 2
    params = np.stack([_random_orthonormal(rng, 5, codim) for _ in range(3)])
    offsets = rng.standard_normal((3, 5)) if affine else None
    if affine:
        params = np.concatenate([params, offsets[:, :, None]], axis=2)
    loss = SubspaceLoss(codim, affine=affine).bind(sp.csr_matrix(X) if sparse else X)
    assert loss.param_shape() == (5, codim + affine)
    expected = np.column_stack(
        [
            _half_sq_dist(
                X, params[j, :, :codim], None if offsets is None else offsets[j]
            )
            for j in range(3)
        ]
    )
    np.testing.assert_allclose(
        loss.loss_matrix(params), expected, rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(
        loss.loss_matrix(params, slice(5, 12)), expected[5:12], rtol=1e-10, atol=1e-12
    )
    for j in range(3):
        np.testing.assert_allclose(
            loss.loss_vector(params[j]), expected[:, j], rtol=1e-10, atol=1e-12
        )
    np.testing.assert_array_equal(loss.sample_min_values(), np.zeros(25))


def test_subspace_loss_refuses_codim_out_of_range():
    X = np.ones((5, 3))
    for codim in (0, 3):
        with pytest.raises(ValueError, match="codim=.*between 1 and n_features - 1"):
            SubspaceLoss(codim).bind(X)


@pytest.mark.parametrize("codim", [1, 2, 3])
def test_group_minimizer_is_smallest_eigenvectors_and_beats_random_bases(codim):
    rng = np.random.RandomState(codim)
    d = 4
    X = rng.standard_normal((40, d)) * np.array([3.0, 1.0, 0.5, 0.2])
    weights = rng.uniform(0.5, 2.0, size=40)
    labels = rng.randint(2, size=40)
    loss = SubspaceLoss(codim).bind(X)
    old = np.stack([_random_orthonormal(rng, d, codim) for _ in range(3)])
    # Group 2 is empty and must keep its parameter.
    membership = group_membership(labels, weights, 3)
    statistics = loss.group_statistics(membership)
    counts = np.bincount(labels, weights=weights, minlength=3)
    new = loss.group_minimizer(old, statistics, counts)
    np.testing.assert_array_equal(new[2], old[2])
    for j in range(2):
        members = labels == j
        moment = (X[members] * weights[members, None]).T @ X[members]
        A = new[j]
        np.testing.assert_allclose(A.T @ A, np.eye(codim), atol=1e-12)
        value = np.trace(A.T @ moment @ A)
        smallest = np.linalg.eigvalsh(moment)[:codim].sum()
        np.testing.assert_allclose(value, smallest, rtol=1e-10, atol=1e-12)
        random_values = [
            np.trace(B.T @ moment @ B)
            for B in (_random_orthonormal(rng, d, codim) for _ in range(2000))
        ]
        assert value <= min(random_values) + 1e-12


def test_affine_group_minimizer_is_mean_and_centered_eigenvectors():
    rng = np.random.RandomState(1)
    d, codim = 3, 2
    X = rng.standard_normal((30, d)) * np.array([2.0, 0.5, 0.1]) + 5.0
    weights = rng.uniform(0.5, 2.0, size=30)
    loss = SubspaceLoss(codim, affine=True).bind(X)
    statistics = loss.group_statistics(group_membership(np.zeros(30, int), weights, 1))
    old = np.zeros((1, d, codim + 1))
    (new,) = loss.group_minimizer(old, statistics, np.array([weights.sum()]))
    mean = weights @ X / weights.sum()
    np.testing.assert_allclose(new[:, codim], mean, rtol=1e-12)
    centered = X - mean
    cov = (centered * weights[:, None]).T @ centered
    A = new[:, :codim]
    np.testing.assert_allclose(A.T @ A, np.eye(codim), atol=1e-12)
    value = weights @ loss.loss_vector(new)
    np.testing.assert_allclose(
        value, 0.5 * np.linalg.eigvalsh(cov)[:codim].sum(), rtol=1e-10
    )
    # Not above any random basis with any random offset near the data.
    for _ in range(500):
        B = _random_orthonormal(rng, d, codim)
        mu = mean + rng.standard_normal(d)
        assert value <= weights @ _half_sq_dist(X, B, mu) + 1e-12


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("affine", [False, True])
def test_group_statistics_add_up_over_blocks(sparse, affine):
    rng = np.random.RandomState(2)
    X = rng.standard_normal((20, 4))
    labels = rng.randint(3, size=20)
    weights = rng.uniform(size=20)
    data = sp.csr_matrix(X) if sparse else X
    loss = SubspaceLoss(2, affine=affine).bind(data)
    whole = loss.group_statistics(group_membership(labels, weights, 3))
    first = loss.group_statistics(
        group_membership(labels[:7], weights[:7], 3), slice(0, 7)
    )
    second = loss.group_statistics(
        group_membership(labels[7:], weights[7:], 3), slice(7, 20)
    )
    assert len(whole) == 1 + affine
    for total, a, b in zip(whole, first, second):
        np.testing.assert_allclose(total, a + b, rtol=1e-12, atol=1e-14)
    for j in range(3):
        members = labels == j
        gram = (X[members] * weights[members, None]).T @ X[members]
        np.testing.assert_allclose(whole[0][j], gram, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("codim", [1, 3])
def test_seeding_basis_is_orthonormal_and_orthogonal_to_its_sample(codim):
    rng = np.random.RandomState(3)
    X = rng.standard_normal((10, 4)) * 10.0
    loss = SubspaceLoss(codim).bind(X)
    indices = np.array([0, 4, 9])
    minimizers = loss.sample_minimizers(indices, np.random.RandomState(0))
    assert minimizers.shape == (3, 4, codim)
    for i, A in zip(indices, minimizers):
        np.testing.assert_allclose(A.T @ A, np.eye(codim), atol=1e-12)
        np.testing.assert_allclose(X[i] @ A, 0.0, atol=1e-12 * np.linalg.norm(X[i]))
        # The seed's own sample has a gap of exactly zero: never drawn again.
        assert loss.gap_vector(A)[i] == 0.0
    # Randomized when y^perp has more than one r-dim subspace (r < d - 1).
    other = loss.sample_minimizers(indices[:1], np.random.RandomState(1))[0]
    same = np.allclose(_projector(other), _projector(minimizers[0]))
    assert same == (codim == 3)


def test_affine_seeding_basis_passes_through_its_sample():
    rng = np.random.RandomState(4)
    X = rng.standard_normal((10, 3))
    loss = SubspaceLoss(1, affine=True).bind(X)
    (param,) = loss.sample_minimizers([6], np.random.RandomState(0))
    np.testing.assert_array_equal(param[:, 1], X[6])
    np.testing.assert_allclose(param[:, :1].T @ param[:, :1], [[1.0]], atol=1e-12)
    assert loss.gap_vector(param)[6] == 0.0


def test_generalized_kmeans_plusplus_seeds_orthogonal_to_chosen_samples():
    X, _, _ = make_union_of_subspaces(
        n_samples=200, n_features=5, n_clusters=3, random_state=0
    )
    params, indices = generalized_kmeans_plusplus(
        X, 3, loss=SubspaceLoss(3), random_state=0
    )
    assert np.unique(indices).size == 3
    for A, i in zip(params, indices):
        np.testing.assert_allclose(A.T @ A, np.eye(3), atol=1e-12)
        np.testing.assert_allclose(X[i] @ A, 0.0, atol=1e-12)


def test_random_params_are_orthonormal():
    loss = SubspaceLoss(2, affine=True).bind(np.zeros((5, 4)))
    params = loss.random_params(3, np.random.RandomState(0), np.float32)
    assert params.shape == (3, 4, 3) and params.dtype == np.float32
    for param in params:
        np.testing.assert_allclose(param[:, :2].T @ param[:, :2], np.eye(2), atol=1e-6)


def test_engine_refuses_gradient_options():
    X = np.random.RandomState(0).standard_normal((20, 3))
    with pytest.raises(ValueError, match="solver='gd' needs Lipschitz gradients"):
        sum_of_minimum(X, 2, loss=SubspaceLoss(1), solver="gd")
    with pytest.raises(ValueError, match="init_score='gradient' needs the gradients"):
        sum_of_minimum(X, 2, loss=SubspaceLoss(1), init_score="gradient")


@pytest.mark.parametrize("affine", [False, True])
def test_sum_of_min_objective_never_increases(global_random_seed, affine):
    X, _, _ = make_union_of_subspaces(
        n_samples=300, n_features=5, n_clusters=3, noise=0.1, random_state=0
    )
    X = X + 0.5 * affine
    result = sum_of_minimum(
        X,
        3,
        loss=SubspaceLoss(3, affine=affine),
        max_iter=50,
        tol=0.0,
        random_state=global_random_seed,
    )
    _assert_non_increasing(result.objective_history)
    codim = 3
    offsets = result.params[:, :, codim] if affine else [None] * 3
    direct = np.column_stack(
        [_half_sq_dist(X, p[:, :codim], o) for p, o in zip(result.params, offsets)]
    )
    np.testing.assert_allclose(result.objective, direct.min(axis=1).mean(), rtol=1e-10)


# --------------------------------------------------------------------------------------
# The sum-of-product baseline (Algorithm 6)


def test_sum_of_product_bcd_never_increases_its_objective(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X, _, _ = make_union_of_subspaces(
        n_samples=200, n_features=5, n_clusters=3, noise=0.05, random_state=rng
    )
    init = np.stack([_random_orthonormal(rng, 5, 3) for _ in range(3)])
    params, labels, history, n_iter = sum_of_product_gpca(X, init, max_iter=15)
    assert n_iter == 15 and history.shape == (16,)
    _assert_non_increasing(history)
    assert history[-1] < history[0]
    np.testing.assert_allclose(history[0], _sop_objective(X, init), rtol=1e-12)
    np.testing.assert_allclose(history[-1], _sop_objective(X, params), rtol=1e-12)
    for A in params:
        np.testing.assert_allclose(A.T @ A, np.eye(3), atol=1e-12)
    distances = np.column_stack([np.sum((X @ A) ** 2, axis=1) for A in params])
    np.testing.assert_array_equal(labels, distances.argmin(axis=1))


def test_sum_of_product_block_step_is_exact_minimizer():
    # After one sweep the last block is the exact minimizer of the objective
    # with the other blocks fixed: no orthonormal basis does better.
    rng = np.random.RandomState(5)
    X = rng.standard_normal((60, 4))
    weights = rng.uniform(0.5, 2.0, size=60)
    init = np.stack([_random_orthonormal(rng, 4, 2) for _ in range(2)])
    params, _, history, _ = sum_of_product_gpca(
        X, init, max_iter=1, sample_weight=weights
    )
    value = _sop_objective(X, params, weights)
    np.testing.assert_allclose(history[-1], value, rtol=1e-12)
    for _ in range(2000):
        trial = params.copy()
        trial[1] = _random_orthonormal(rng, 4, 2)
        assert value <= _sop_objective(X, trial, weights) + 1e-12


def test_sum_of_product_sparse_equals_dense():
    rng = np.random.RandomState(6)
    X = rng.standard_normal((40, 4))
    X[rng.uniform(size=X.shape) < 0.4] = 0.0
    init = np.stack([_random_orthonormal(rng, 4, 1) for _ in range(3)])
    dense = sum_of_product_gpca(X, init, max_iter=5)
    sparse = sum_of_product_gpca(sp.csr_matrix(X), init, max_iter=5)
    for A, B in zip(dense[0], sparse[0]):
        np.testing.assert_allclose(_projector(A), _projector(B), atol=1e-10)
    np.testing.assert_array_equal(dense[1], sparse[1])
    np.testing.assert_allclose(dense[2], sparse[2], rtol=1e-10)


def test_sum_of_product_refuses_bad_init_shape():
    X = np.ones((5, 3))
    for shape in [(2, 3), (2, 4, 1), (2, 3, 3), (2, 3, 0)]:
        with pytest.raises(ValueError, match="init_params must have shape"):
            sum_of_product_gpca(X, np.zeros(shape))


# --------------------------------------------------------------------------------------
# Numerical range (issue 16)


def test_sum_of_product_refuses_data_whose_squares_overflow():
    X = np.random.RandomState(0).standard_normal((20, 3)) * 1e160
    init = np.stack([np.eye(3)[:, :1], np.eye(3)[:, 1:2]])
    with pytest.raises(ValueError, match="X holds values up to"):
        sum_of_product_gpca(X, init)


def test_sum_of_product_objective_overflow_is_refused_naming_X():
    rng = np.random.RandomState(1)
    X = rng.standard_normal((30, 4)) * 1e100
    init = np.stack([_random_orthonormal(rng, 4, 1) for _ in range(4)])
    with pytest.raises(ValueError, match="sum-of-product objective .*X"):
        sum_of_product_gpca(X, init, max_iter=2)


@pytest.mark.parametrize("exponent", [-200, -1000])
def test_sum_of_product_bcd_is_scale_equivariant(exponent):
    # The block weights are products of k - 1 squared distances: for k = 4
    # and data of 2**-200, (2**-400)**3 underflowed to 0 and no basis moved.
    rng = np.random.RandomState(2)
    X, _, _ = make_union_of_subspaces(
        n_samples=100, n_features=5, n_clusters=4, noise=0.05, random_state=rng
    )
    init = np.stack([_random_orthonormal(rng, 5, 2) for _ in range(4)])
    weights = rng.uniform(0.5, 2.0, size=100)
    params, labels, history, _ = sum_of_product_gpca(
        X, init, max_iter=4, sample_weight=weights
    )
    small = sum_of_product_gpca(
        np.ldexp(X, exponent), init, max_iter=4, sample_weight=np.ldexp(weights, -600)
    )
    assert history[-1] < history[0]
    for A, B in zip(params, small[0]):
        np.testing.assert_allclose(_projector(A), _projector(B), atol=1e-10)
    np.testing.assert_array_equal(small[1], labels)
    np.testing.assert_allclose(small[2], np.ldexp(history, 8 * exponent), rtol=1e-9)
