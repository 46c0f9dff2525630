"""The rank-one eigen-update behind CompAdaGrad's subspace preconditioner."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest

from skcgm.optim import compadagrad_step, init_compadagrad_state
from skcgm.optim.compadagrad import _eigen_update
from skcgm.oracles import SRHT


def _check_decomposition(mu, V, S):
    scale = max(np.abs(S).max(), 1.0)
    np.testing.assert_allclose(V @ np.diag(mu) @ V.T, S, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(V.T @ V, np.eye(S.shape[0]), rtol=0, atol=1e-12)
    assert np.all(np.diff(mu) >= 0)
    # Against LAPACK's decomposition of the accumulated matrix.
    np.testing.assert_allclose(mu, np.linalg.eigvalsh(S), rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("k", [1, 2, 3, 8, 32])
def test_updates_from_zero_match_a_fresh_decomposition(k):
    # From S = 0 (all eigenvalues equal: every update deflates by rotation
    # until S has full rank) through generic, repeated and eigenvector
    # updates.
    rng = np.random.RandomState(k)
    S = np.zeros((k, k))
    mu, V = np.zeros(k), np.eye(k, order="F")
    for t in range(300):
        if t % 7 == 3:
            u = np.zeros(k)
            u[t % k] = 2.0
        elif t % 11 == 5:
            u = 3.0 * V[:, -1]
        else:
            u = rng.standard_normal(k) * rng.uniform(0.1, 10.0)
        S += np.outer(u, u)
        mu, V, ok = _eigen_update.rank_one_eigh_update(mu, V, u)
        assert ok
        if t < 2 * k or t % 50 == 0:
            _check_decomposition(mu, V, S)
    _check_decomposition(mu, V, S)


def test_zero_and_negligible_updates_leave_the_decomposition():
    rng = np.random.RandomState(0)
    A = rng.standard_normal((5, 5))
    mu, V = np.linalg.eigh(A @ A.T)
    new_mu, new_V, ok = _eigen_update.rank_one_eigh_update(mu, V, np.zeros(5))
    assert ok
    np.testing.assert_array_equal(new_mu, mu)
    np.testing.assert_array_equal(new_V, V)
    # The inputs are not modified.
    before = V.copy()
    _eigen_update.rank_one_eigh_update(mu, V, rng.standard_normal(5))
    np.testing.assert_array_equal(V, before)


def test_rank_deficient_matrix_gets_exact_zero_gaps_right():
    # Updates inside a 2-dimensional span of R^6: four eigenvalues stay 0.
    rng = np.random.RandomState(1)
    basis = rng.standard_normal((2, 6))
    S = np.zeros((6, 6))
    mu, V = np.zeros(6), np.eye(6, order="F")
    for _ in range(40):
        u = rng.standard_normal(2) @ basis
        S += np.outer(u, u)
        mu, V, ok = _eigen_update.rank_one_eigh_update(mu, V, u)
        assert ok
    _check_decomposition(mu, V, S)
    assert np.all(np.abs(mu[:4]) <= 1e-12 * mu[-1])


@pytest.mark.parametrize("variant", ["paper", "theory"])
def test_steps_with_the_update_equal_steps_with_fresh_decompositions(variant):
    # 300 steps cross one periodic refresh (every 256 steps).
    projection = SRHT(8, random_state=0).fit(40)
    cached = init_compadagrad_state(projection)
    fresh = init_compadagrad_state(projection)
    rng = np.random.RandomState(2)
    basis = rng.standard_normal((3, 40))
    for _ in range(300):
        g = rng.standard_normal(3) @ basis + 0.1 * rng.standard_normal(40)
        compadagrad_step(cached, g, projection, eta=0.2, alpha=1e-3, variant=variant)
        fresh.subspace_eigh = None
        compadagrad_step(fresh, g, projection, eta=0.2, alpha=1e-3, variant=variant)
        np.testing.assert_allclose(cached.coef, fresh.coef, rtol=1e-9, atol=1e-12)
    mu, V, n_updates = cached.subspace_eigh
    assert n_updates == cached.n_updates == 300
    _check_decomposition(mu, V, cached.subspace_gram)


def test_a_state_edited_by_hand_is_decomposed_afresh():
    projection = SRHT(4, random_state=0).fit(16)
    state = init_compadagrad_state(projection)
    rng = np.random.RandomState(3)
    for _ in range(3):
        compadagrad_step(state, rng.standard_normal(16), projection, eta=0.1, alpha=0.0)
    # New statistics without a new cache: updating the cached decomposition
    # of the old S would be wrong; the changed count says it is stale.
    state.subspace_gram[:] = np.eye(4)
    state.n_updates = 5
    compadagrad_step(state, rng.standard_normal(16), projection, eta=0.1, alpha=0.0)
    mu, V, n_updates = state.subspace_eigh
    assert n_updates == 6
    _check_decomposition(mu, V, state.subspace_gram)
