"""Tests of the mixed linear regression loss family of the sum-of-minimum engine.

Every expected value comes from an independent oracle: the closed forms of
section 1.3b of ``notes/004_sum_of_min.md`` written out here, brute force
(``scipy.optimize.minimize``), finite differences, or scikit-learn's ``Ridge``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize
from sklearn.linear_model import Ridge

from skcgm.optim import MixedLinearLoss, generalized_kmeans_plusplus, sum_of_minimum
from skcgm.optim.sum_of_min.losses._base import group_membership


def _data(seed, n_samples=30, n_features=3, dtype=np.float64):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features)).astype(dtype)
    y = rng.standard_normal(n_samples).astype(dtype)
    return X, y


def _loss(X, y, x, alpha, fit_intercept):
    """``f_i(x)`` of every sample, written from the definition."""
    coef, intercept = (x[:-1], x[-1]) if fit_intercept else (x, 0.0)
    residuals = X @ coef + intercept - y
    return 0.5 * residuals**2 + 0.5 * alpha * coef @ coef


def _width(X, fit_intercept):
    return X.shape[1] + fit_intercept


def test_sample_minimizers_closed_form_and_brute_force(global_random_seed):
    X, y = _data(global_random_seed, n_samples=6)
    alpha, fit_intercept = 0.3, False
    loss = MixedLinearLoss(alpha=alpha).bind(X, y)
    minimizers = loss.sample_minimizers(np.arange(6), None)
    min_values = loss.sample_min_values()
    sq_norms = (X**2).sum(axis=1)
    closed_x = (y / (sq_norms + alpha))[:, None] * X
    closed_f = alpha * y**2 / (2 * (sq_norms + alpha))
    assert_allclose(minimizers, closed_x, atol=1e-14)
    assert_allclose(min_values, closed_f, atol=1e-14)
    for i in range(6):
        result = minimize(
            lambda x, i=i: _loss(X[i : i + 1], y[i : i + 1], x, alpha, fit_intercept)[
                0
            ],
            np.ones(_width(X, fit_intercept)),
            method="BFGS",
            options={"gtol": 1e-10},
        )
        # Finite-difference BFGS: x to about 1e-8 / mu, mu the smallest
        # eigenvalue of the Hessian (small along the intercept).
        assert_allclose(minimizers[i], result.x, atol=1e-5)
        assert_allclose(min_values[i], result.fun, atol=1e-10)


def test_intercept_seeds_are_minimizers_through_the_centroid(global_random_seed):
    # With an intercept f_i* = 0 at the constant predictor (0, b_i), a useless
    # seed; the seeds are the minimizers of f_i over the models through the
    # centroid (mean a, mean b): closed form (the seeds without intercept of
    # the centred data) and brute force over the slopes.
    X, y = _data(global_random_seed, n_samples=6)
    y = y + 5.0
    alpha = 0.3
    loss = MixedLinearLoss(alpha=alpha, fit_intercept=True).bind(X, y)
    assert_array_equal(loss.sample_min_values(), np.zeros(6))
    seeds = loss.sample_minimizers(np.arange(6), None)
    centred_X, centred_y = X - X.mean(axis=0), y - y.mean()
    sq_norms = (centred_X**2).sum(axis=1)
    slopes = (centred_y / (sq_norms + alpha))[:, None] * centred_X
    assert_allclose(seeds[:, :-1], slopes, atol=1e-14)
    assert_allclose(seeds[:, -1], y.mean() - slopes @ X.mean(axis=0), atol=1e-13)
    for i in range(6):

        def through_centroid(w, i=i):
            x = np.append(w, y.mean() - X.mean(axis=0) @ w)
            return _loss(X[i : i + 1], y[i : i + 1], x, alpha, True)[0]

        result = minimize(
            through_centroid, np.ones(3), method="BFGS", options={"gtol": 1e-10}
        )
        assert_allclose(seeds[i, :-1], result.x, atol=1e-5)
        # No worse for its sample than the flat model through the centroid.
        own = loss.loss_vector(seeds[i])
        assert own[i] == pytest.approx(result.fun, abs=1e-10)
        assert own[i] <= 0.5 * (y[i] - y.mean()) ** 2


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_losses_match_definition(global_random_seed, fit_intercept):
    X, y = _data(global_random_seed)
    alpha = 0.2
    loss = MixedLinearLoss(alpha=alpha, fit_intercept=fit_intercept).bind(X, y)
    params = np.random.RandomState(0).standard_normal((4, _width(X, fit_intercept)))
    expected = np.column_stack([_loss(X, y, x, alpha, fit_intercept) for x in params])
    assert loss.param_shape() == (_width(X, fit_intercept),)
    assert_allclose(loss.loss_matrix(params), expected, rtol=1e-12)
    assert_allclose(loss.loss_matrix(params, slice(5, 9)), expected[5:9], rtol=1e-12)
    assert_allclose(loss.loss_vector(params[1]), expected[:, 1], rtol=1e-12)
    gaps = expected[:, 1] - loss.sample_min_values()
    assert_allclose(loss.gap_vector(params[1]), gaps, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_gradient_matches_finite_differences(global_random_seed, fit_intercept):
    X, y = _data(global_random_seed)
    alpha = 0.2
    loss = MixedLinearLoss(alpha=alpha, fit_intercept=fit_intercept).bind(X, y)
    x = np.random.RandomState(1).standard_normal(_width(X, fit_intercept))
    # Central differences of every f_i, coordinate by coordinate (exact up to
    # rounding for a quadratic).
    step = 1e-5
    gradients = np.column_stack(
        [
            (
                _loss(X, y, x + step * e, alpha, fit_intercept)
                - _loss(X, y, x - step * e, alpha, fit_intercept)
            )
            / (2 * step)
            for e in np.eye(x.size)
        ]
    )
    assert_allclose(loss.grad_sq_norm_vector(x), (gradients**2).sum(axis=1), rtol=1e-7)
    # And the closed form (a^T x - b) a + alpha x of the note.
    coef, intercept = (x[:-1], x[-1]) if fit_intercept else (x, 0.0)
    residuals = X @ coef + intercept - y
    closed = residuals[:, None] * X + alpha * coef
    if fit_intercept:
        closed = np.hstack([closed, residuals[:, None]])
    assert_allclose(gradients, closed, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_group_gradient_matches_finite_differences(global_random_seed, fit_intercept):
    X, y = _data(global_random_seed)
    alpha = 0.2
    loss = MixedLinearLoss(alpha=alpha, fit_intercept=fit_intercept).bind(X, y)
    rng = np.random.RandomState(2)
    labels = rng.randint(2, size=X.shape[0])  # group 2 stays empty
    weights = rng.uniform(0.5, 2, size=X.shape[0])
    stats = loss.group_statistics(group_membership(labels, weights, 3))
    counts = np.bincount(labels, weights=weights, minlength=3)
    params = rng.standard_normal((3, _width(X, fit_intercept)))
    gradients = loss.group_gradient(params, stats, counts)

    def group_objective(j, x):
        members = labels == j
        values = _loss(X[members], y[members], x, alpha, fit_intercept)
        return values @ weights[members] / weights[members].sum()

    step = 1e-5
    for j in range(2):
        expected = [
            (
                group_objective(j, params[j] + step * e)
                - group_objective(j, params[j] - step * e)
            )
            / (2 * step)
            for e in np.eye(params.shape[1])
        ]
        assert_allclose(gradients[j], expected, rtol=1e-7, atol=1e-9)
    assert_array_equal(gradients[2], 0)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_group_minimizer_is_ridge(global_random_seed, fit_intercept):
    # (E.2): Ridge(alpha=alpha * |C_j|) on every group, weighted with
    # sample_weight and alpha * W_j; an empty group keeps its parameter.
    X, y = _data(global_random_seed, n_samples=40)
    alpha = 0.05
    loss = MixedLinearLoss(alpha=alpha, fit_intercept=fit_intercept).bind(X, y)
    rng = np.random.RandomState(3)
    labels = rng.randint(3, size=X.shape[0])
    labels[labels == 2] = 0  # group 2 is empty
    params = rng.standard_normal((3, _width(X, fit_intercept)))
    for weights in (np.ones(X.shape[0]), rng.uniform(0.1, 3, size=X.shape[0])):
        stats = loss.group_statistics(group_membership(labels, weights, 3))
        counts = np.bincount(labels, weights=weights, minlength=3)
        new = loss.group_minimizer(params, stats, counts)
        for j in range(2):
            members = labels == j
            ridge = Ridge(
                alpha=alpha * weights[members].sum(), fit_intercept=fit_intercept
            )
            ridge.fit(X[members], y[members], sample_weight=weights[members])
            expected = (
                np.append(ridge.coef_, ridge.intercept_)
                if fit_intercept
                else ridge.coef_
            )
            assert_allclose(new[j], expected, rtol=1e-9, atol=1e-12)
        assert_array_equal(new[2], params[2])
        # Stationary: the group gradient vanishes at the group minimizer.
        assert_allclose(loss.group_gradient(new, stats, counts), 0, atol=1e-12)


def test_group_minimizer_unit_weights_is_ridge_alpha_times_size():
    # The statement of the issue: Ridge(alpha=lambda*|C|, fit_intercept=False).
    X, y = _data(0, n_samples=25)
    loss = MixedLinearLoss(alpha=0.01).bind(X, y)
    labels = np.arange(25) % 2
    stats = loss.group_statistics(group_membership(labels, np.ones(25), 2))
    new = loss.group_minimizer(np.zeros((2, 3)), stats, np.array([13.0, 12.0]))
    for j, size in enumerate([13, 12]):
        ridge = Ridge(alpha=0.01 * size, fit_intercept=False)
        ridge.fit(X[labels == j], y[labels == j])
        assert_allclose(new[j], ridge.coef_, rtol=1e-10)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_group_statistics_add_up_over_blocks(fit_intercept):
    X, y = _data(4, n_samples=20)
    loss = MixedLinearLoss(fit_intercept=fit_intercept).bind(X, y)
    rng = np.random.RandomState(0)
    labels, weights = rng.randint(3, size=20), rng.uniform(size=20)
    whole = loss.group_statistics(group_membership(labels, weights, 3))
    parts = [
        loss.group_statistics(group_membership(labels[rows], weights[rows], 3), rows)
        for rows in (slice(0, 7), slice(7, 20))
    ]
    for full, first, second in zip(whole, *parts):
        assert_allclose(full, first + second, rtol=1e-12)
    # Dense membership matrices are accepted too.
    dense = group_membership(labels, weights, 3).toarray()
    for full, other in zip(whole, loss.group_statistics(dense)):
        assert_allclose(full, other, rtol=1e-12)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_own_minimizer_has_exactly_zero_gap_and_gradient(fit_intercept):
    # The seeding's D^2 weights of a chosen sample (and of its duplicates) must
    # be exactly zero, not rounding noise. With an intercept the seeds are not
    # the minimizers (0, b_i) (see the intercept seeds' test), but the gaps
    # and gradients are those of f_i, zero there.
    X, y = _data(5, n_samples=10)
    X, y = np.vstack([X, X[:3]]), np.concatenate([y, y[:3]])
    loss = MixedLinearLoss(alpha=0.01, fit_intercept=fit_intercept).bind(X, y)
    for i in range(3):
        if fit_intercept:
            x = np.append(np.zeros(X.shape[1]), y[i])
        else:
            x = loss.sample_minimizers([i], None)[0]
        for scores in (loss.gap_vector(x), loss.grad_sq_norm_vector(x)):
            assert scores[i] == 0 and scores[10 + i] == 0
            assert np.all(np.delete(scores, [i, 10 + i]) > 0)


@pytest.mark.parametrize("init_score", ["gap", "gradient"])
def test_seeding_never_repeats_a_sample(global_random_seed, init_score):
    # With as many clusters as samples, every sample is drawn exactly once.
    X, y = _data(global_random_seed, n_samples=6)
    _, indices = generalized_kmeans_plusplus(
        X,
        6,
        y=y,
        loss=MixedLinearLoss(),
        init_score=init_score,
        random_state=global_random_seed,
    )
    assert sorted(indices) == list(range(6))


def test_lipschitz_bounds_every_hessian():
    X, y = _data(6)
    alpha = 0.1
    for fit_intercept in (False, True):
        loss = MixedLinearLoss(alpha=alpha, fit_intercept=fit_intercept).bind(X, y)
        design = np.hstack([X, np.ones((30, 1))]) if fit_intercept else X
        penalty = alpha * np.diag([1.0] * X.shape[1] + [0.0] * fit_intercept)
        largest = max(np.linalg.eigvalsh(np.outer(z, z) + penalty)[-1] for z in design)
        assert loss.lipschitz() >= largest - 1e-12
        if not fit_intercept:
            # max ||a_i||^2 + alpha is attained (eigenvalue along a_i).
            assert_allclose(loss.lipschitz(), largest, rtol=1e-12)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_random_params_standard_gaussian(fit_intercept):
    X, y = _data(0)
    loss = MixedLinearLoss(fit_intercept=fit_intercept).bind(X, y)
    params = loss.random_params(4000, np.random.RandomState(0), np.float32)
    assert params.shape == (4000, _width(X, fit_intercept))
    assert params.dtype == np.float32
    assert abs(params.mean()) < 0.05 and abs(params.std() - 1) < 0.05


def test_float32_kept(global_dtype):
    X, y = _data(0, dtype=global_dtype)
    loss = MixedLinearLoss().bind(X, y)
    params = loss.sample_minimizers([0, 1], None)
    assert params.dtype == global_dtype
    # The losses are float64 whatever the dtype: the squares of float32
    # residuals and the penalty of a large alpha may exceed float32.
    assert loss.loss_matrix(params).dtype == np.float64
    assert loss.gap_vector(params[0]).dtype == np.float64
    assert loss.grad_sq_norm_vector(params[0]).dtype == np.float64
    result = sum_of_minimum(X, 2, y=y, loss=MixedLinearLoss(), random_state=0)
    assert result.params.dtype == global_dtype


def test_engine_solvers_agree_on_planted_data():
    # Noiseless two-line data: every solver of the engine reaches the planted
    # coefficients (up to the ridge shrinkage of a tiny alpha).
    rng = np.random.RandomState(0)
    coef = rng.standard_normal((2, 3))
    X = rng.standard_normal((150, 3))
    y = np.einsum("ij,ij->i", X, coef[np.arange(150) % 2])
    for solver, max_iter in (("exact", 100), ("gd", 3000)):
        result = sum_of_minimum(
            X,
            2,
            y=y,
            loss=MixedLinearLoss(alpha=1e-10),
            init=coef + 0.1,
            solver=solver,
            tol=0,
            max_iter=max_iter,
        )
        assert_allclose(result.params, coef, atol=1e-6)


def test_bind_refuses_bad_input():
    X, y = _data(0)
    with pytest.raises(TypeError, match="sparse"):
        MixedLinearLoss().bind(sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="targets y"):
        MixedLinearLoss().bind(X)
    with pytest.raises(ValueError, match="alpha must be positive"):
        MixedLinearLoss(alpha=0).bind(X, y)
    with pytest.raises(ValueError, match="samples"):
        MixedLinearLoss().bind(X, y[:-1])
    # The instance itself stays unbound.
    loss = MixedLinearLoss()
    loss.bind(X, y)
    assert not hasattr(loss, "X")


@pytest.mark.parametrize("n_members", [1, 2, 4])
def test_group_minimizer_of_a_rank_deficient_group_at_large_scale(n_members):
    # alpha * W_j is far below the rounding of a Gram of features scaled by
    # 1e7; the group has fewer samples than features, so its Gram is singular
    # and only the penalty makes the ridge well posed. Oracle: scikit-learn's
    # SVD ridge on the rows (which never forms the Gram).
    rng = np.random.RandomState(n_members)
    X = rng.standard_normal((6, 5)) * 1e7
    y = rng.standard_normal(6)
    labels = np.r_[np.zeros(n_members, dtype=np.intp), np.ones(6 - n_members, np.intp)]
    loss = MixedLinearLoss(alpha=0.01).bind(X, y)
    weights = np.ones(6)
    statistics = loss.group_statistics(group_membership(labels, weights, 2))
    counts = np.bincount(labels, minlength=2).astype(np.float64)
    minimizers = loss.group_minimizer(np.zeros((2, 5)), statistics, counts)
    members = labels == 0
    ridge = Ridge(alpha=0.01 * n_members, fit_intercept=False, solver="svd")
    expected = ridge.fit(X[members], y[members]).coef_
    assert_allclose(minimizers[0], expected, rtol=1e-6)


# The oracle, Ridge, warns of its own ill-conditioned solve at 1e150.
@pytest.mark.filterwarnings("ignore::scipy.linalg.LinAlgWarning")
@pytest.mark.parametrize("level", [1.0, 1e150])
def test_group_minimizer_with_intercept_of_a_feature_constant_over_the_group(level):
    # Centring a feature constant over the group leaves only the rounding of
    # its uncentred moment, which is not variance: Ridge's coefficient is 0.
    rng = np.random.RandomState(0)
    X = np.column_stack([rng.standard_normal(5), np.full(5, level)])
    y = rng.standard_normal(5)
    loss = MixedLinearLoss(alpha=1e-12, fit_intercept=True).bind(X, y)
    weights = rng.uniform(0.5, 2.0, 5)
    labels = np.zeros(5, dtype=np.intp)
    statistics = loss.group_statistics(group_membership(labels, weights, 1))
    minimizer = loss.group_minimizer(np.zeros((1, 3)), statistics, weights.sum()[None])
    ridge = Ridge(alpha=1e-12 * weights.sum()).fit(X, y, sample_weight=weights)
    assert minimizer[0, 1] == 0
    assert_allclose(minimizer[0, 0], ridge.coef_[0], rtol=1e-9)
    # Ridge's own intercept rounds at 1e150 (its coefficient of the constant
    # feature is not exactly 0): its definition with that coefficient at 0.
    mean_y, mean_x = np.average(y, weights=weights), np.average(X, 0, weights)
    assert_allclose(minimizer[0, 2], mean_y - mean_x[0] * ridge.coef_[0], rtol=1e-9)
