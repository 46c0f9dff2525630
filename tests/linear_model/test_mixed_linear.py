"""Tests of MixedLinearRegressor (Algorithm 7 of the sum-of-minimum paper).

Oracles: the planted coefficients of noiseless data, scikit-learn's ``Ridge``
on the fitted components (eq. E.2), the objective and rules written out here
from ``notes/004_sum_of_min.md`` (sections 2.11, 3.2 and 5.3).
"""

from itertools import permutations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score
from sklearn.utils.estimator_checks import (
    check_sample_weight_equivalence_on_dense_data,
)

from skcgm.datasets import make_mixed_linear_regression
from skcgm.linear_model import MixedLinearRegressor
from skcgm.utils.estimator_checks import expected_failed_checks


def _match(fitted, truth):
    """Largest error between ``fitted`` and ``truth``, best row permutation."""
    return min(
        np.abs(fitted[list(order)] - truth).max()
        for order in permutations(range(truth.shape[0]))
    )


def _regularized_losses(X, y, coef, intercept, alpha):
    """``f_i(x_j) = 1/2 (a_i^T x_j + c_j - b_i)^2 + alpha/2 ||x_j||^2``."""
    residuals = X @ coef.T + intercept - y[:, None]
    return 0.5 * residuals**2 + 0.5 * alpha * (coef**2).sum(axis=1)


def _noiseless_lines(n_features, random_state):
    """200 samples of 2 planted lines through 0, without noise."""
    return make_mixed_linear_regression(
        n_samples=200,
        n_features=n_features,
        n_components=2,
        noise=0.0,
        random_state=random_state,
    )


def test_recovers_planted_lines(global_random_seed):
    X, y, coef, _ = _noiseless_lines(4, global_random_seed)
    model = MixedLinearRegressor(
        n_components=2,
        alpha=1e-10,
        fit_intercept=False,
        n_init=5,
        random_state=global_random_seed,
    ).fit(X, y)
    assert _match(model.coef_, coef) < 1e-6
    assert_array_equal(model.intercept_, 0)
    assert model.min_loss(X, y) < 1e-12


@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_recovers_planted_lines_with_intercepts(global_random_seed, init):
    # With an intercept the seeds of 'k-means++' are the models through the
    # centroid of the data (see the docstring), as informative as the
    # Gaussian init.
    X, y, coef, labels = _noiseless_lines(3, global_random_seed)
    intercept = np.array([-1.5, 2.0])
    y = y + intercept[labels]
    model = MixedLinearRegressor(
        n_components=2,
        alpha=1e-10,
        fit_intercept=True,
        init=init,
        n_init=5,
        random_state=global_random_seed,
    ).fit(X, y)
    truth = np.hstack([coef, intercept[:, None]])
    assert _match(np.hstack([model.coef_, model.intercept_[:, None]]), truth) < 1e-6


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_components_are_ridge_fits_of_their_samples(global_random_seed, fit_intercept):
    # At convergence by the partition rule (tol=0), every component is the
    # ridge solution (E.2) on its samples: Ridge(alpha=alpha * |C_j|).
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=300, n_features=3, n_components=3, random_state=global_random_seed
    )
    alpha = 0.01
    model = MixedLinearRegressor(
        n_components=3,
        alpha=alpha,
        fit_intercept=fit_intercept,
        tol=0,
        random_state=global_random_seed,
    ).fit(X, y)
    for j in range(3):
        members = model.labels_ == j
        ridge = Ridge(alpha=alpha * members.sum(), fit_intercept=fit_intercept)
        ridge.fit(X[members], y[members])
        assert_allclose(model.coef_[j], ridge.coef_, rtol=1e-8, atol=1e-10)
        assert_allclose(model.intercept_[j], ridge.intercept_, atol=1e-10)


@pytest.mark.parametrize("init", ["k-means++", "uniform", "random"])
@pytest.mark.parametrize("init_score", ["gap", "gradient"])
def test_objective_never_increases(global_random_seed, init, init_score):
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=300, n_features=4, n_components=4, random_state=global_random_seed
    )
    model = MixedLinearRegressor(
        n_components=4,
        init=init,
        init_score=init_score,
        n_init=1,
        tol=0,
        random_state=global_random_seed,
    ).fit(X, y)
    history = model.objective_history_
    assert history.shape == (model.n_iter_ + 1,)
    assert np.all(np.diff(history) <= 1e-12 * history[:-1])
    # The objective is the paper's: mean of the smallest regularized losses.
    losses = _regularized_losses(X, y, model.coef_, model.intercept_, model.alpha)
    assert_allclose(model.objective_, losses.min(axis=1).mean(), rtol=1e-12)
    assert_allclose(history[-1], model.objective_)


def test_labels_weights_predict_and_assign(global_random_seed):
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=200, n_features=3, n_components=3, random_state=global_random_seed
    )
    model = MixedLinearRegressor(
        n_components=3, alpha=0.5, fit_intercept=True, random_state=0
    ).fit(X, y)
    losses = _regularized_losses(X, y, model.coef_, model.intercept_, 0.5)
    assert_array_equal(model.labels_, losses.argmin(axis=1))
    assert_allclose(model.weights_, np.bincount(model.labels_, minlength=3) / 200)
    # New data: assign is the argmin of the regularized loss (eq. 3.6).
    X_new, y_new, _, _ = make_mixed_linear_regression(
        n_samples=50, n_features=3, n_components=3, random_state=1
    )
    expected = _regularized_losses(
        X_new, y_new, model.coef_, model.intercept_, 0.5
    ).argmin(axis=1)
    assert_array_equal(model.assign(X_new, y_new), expected)
    assert_array_equal(model.assign(X, y), model.labels_)
    components = X_new @ model.coef_.T + model.intercept_
    assert_allclose(model.predict_components(X_new), components, rtol=1e-12)
    assert_allclose(model.predict(X_new), components @ model.weights_, rtol=1e-12)
    assert model.score(X_new, y_new) == pytest.approx(
        r2_score(y_new, components @ model.weights_)
    )
    oracle = 0.5 * ((components - y_new[:, None]) ** 2).min(axis=1)
    assert model.min_loss(X_new, y_new) == pytest.approx(oracle.mean(), rel=1e-12)
    weights = np.arange(50.0)
    assert model.min_loss(X_new, y_new, sample_weight=weights) == pytest.approx(
        oracle @ weights / weights.sum(), rel=1e-12
    )


def test_assign_finds_planted_components():
    X, y, coef, labels = make_mixed_linear_regression(
        n_samples=300, n_features=4, n_components=2, noise=0.0, random_state=0
    )
    model = MixedLinearRegressor(
        2, alpha=1e-10, fit_intercept=False, n_init=5, random_state=0
    ).fit(X, y)
    order = np.argmin(np.abs(model.coef_[:, None] - coef[None]).sum(axis=2), axis=1)
    rng = np.random.RandomState(1)
    X_new, labels_new = rng.standard_normal((100, 4)), rng.randint(2, size=100)
    y_new = np.einsum("ij,ij->i", X_new, coef[labels_new])
    assert_array_equal(order[model.assign(X_new, y_new)], labels_new)
    assert_array_equal(order[model.labels_], labels)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_single_component_is_ridge_on_all_data(fit_intercept):
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=80, n_features=3, n_components=2, random_state=0
    )
    y = y + 3.0
    weights = np.random.RandomState(0).uniform(0.1, 2, size=80)
    model = MixedLinearRegressor(
        n_components=1, alpha=0.1, fit_intercept=fit_intercept, random_state=0
    )
    model.fit(X, y, sample_weight=weights)
    ridge = Ridge(alpha=0.1 * weights.sum(), fit_intercept=fit_intercept)
    ridge.fit(X, y, sample_weight=weights)
    assert_allclose(model.coef_[0], ridge.coef_, rtol=1e-10)
    assert_allclose(model.intercept_[0], ridge.intercept_, rtol=1e-10, atol=1e-12)
    assert_allclose(model.weights_, [1.0])
    assert_allclose(model.predict(X), ridge.predict(X), rtol=1e-10)


def test_integer_weights_equal_repeated_samples():
    # With a deterministic init the weighted objective, partition and ridge
    # updates equal those of the repeated data.
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=60, n_features=3, n_components=2, random_state=0
    )
    repeats = np.random.RandomState(1).randint(1, 4, size=60)
    init = np.array([[1.0, 0.0, -1.0], [0.0, 1.0, 1.0]])
    weighted = MixedLinearRegressor(2, init=init).fit(X, y, sample_weight=repeats)
    repeated = MixedLinearRegressor(2, init=init).fit(
        np.repeat(X, repeats, axis=0), np.repeat(y, repeats)
    )
    assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-10)
    assert_allclose(weighted.weights_, repeated.weights_, rtol=1e-12)
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-10)


def test_init_arrays_with_intercepts():
    X, y, coef, labels = make_mixed_linear_regression(
        n_samples=100, n_features=2, n_components=2, noise=0.0, random_state=0
    )
    y = y + np.array([1.0, -1.0])[labels]
    truth = np.hstack([coef, [[1.0], [-1.0]]])
    near = truth + 0.05
    full = MixedLinearRegressor(2, alpha=1e-10, init=near).fit(X, y)
    assert_allclose(np.hstack([full.coef_, full.intercept_[:, None]]), truth, atol=1e-6)
    # Coefficients alone: the intercepts start at zero.
    short = MixedLinearRegressor(2, init=coef, max_iter=1).fit(X, y)
    first = MixedLinearRegressor(
        2, init=np.hstack([coef, np.zeros((2, 1))]), max_iter=1
    ).fit(X, y)
    assert_allclose(short.coef_, first.coef_)

    def callable_init(X, n_components, random_state):
        return coef

    called = MixedLinearRegressor(2, init=callable_init, max_iter=1)
    assert_allclose(called.fit(X, y).coef_, first.coef_)


def test_gd_stays_at_the_exact_fixed_point():
    # Algorithm 2 started at the fixed point of Algorithm 7: the group
    # gradients vanish, so the coefficients do not move.
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=200, n_features=3, n_components=3, random_state=0
    )
    exact = MixedLinearRegressor(n_components=3, tol=0, random_state=0).fit(X, y)
    fixed_point = np.hstack([exact.coef_, exact.intercept_[:, None]])
    for solver in ("gd", "momentum"):
        moved = MixedLinearRegressor(
            n_components=3, solver=solver, init=fixed_point, max_iter=20
        ).fit(X, y)
        assert_allclose(moved.coef_, exact.coef_, atol=1e-10)
        assert_allclose(moved.intercept_, exact.intercept_, atol=1e-10)


def test_empty_component_keeps_its_coefficients():
    # Algorithm 7, line 12: a component that serves no sample stays put.
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=50, n_features=2, n_components=1, noise=0.0, random_state=0
    )
    far = np.array([[0.1, 0.1], [100.0, -100.0]])
    with pytest.warns(ConvergenceWarning, match=r"distinct components \(1\)"):
        model = MixedLinearRegressor(2, alpha=0.01, fit_intercept=False, init=far).fit(
            X, y
        )
    assert_array_equal(model.coef_[1], far[1])
    assert_allclose(model.weights_, [1.0, 0.0])
    assert_allclose(model.predict(X), X @ model.coef_[0])


def test_n_init_auto(monkeypatch):
    # Count the engine's runs per fit: 'auto' is 1 for k-means++ and an array,
    # 10 for uniform and random, as in KMeans.
    from skcgm.optim.sum_of_min._exact import ExactLloyd

    calls = []
    single_run = ExactLloyd.solve

    def spy(*args, **kwargs):
        calls[-1] += 1
        return single_run(*args, **kwargs)

    monkeypatch.setattr(ExactLloyd, "solve", spy)
    X, y, coef, _ = make_mixed_linear_regression(
        n_samples=30, n_features=2, n_components=2, random_state=0
    )
    for init in ("k-means++", coef, "uniform", "random"):
        calls.append(0)
        MixedLinearRegressor(2, init=init, max_iter=2, random_state=0).fit(X, y)
    calls.append(0)
    MixedLinearRegressor(2, init="random", n_init=3, max_iter=2).fit(X, y)
    assert calls == [1, 1, 10, 10, 3]


def test_defaults():
    # scikit-learn's conventions (issue 18): one component as GaussianMixture,
    # an intercept as LinearRegression, a penalty negligible on diabetes; the
    # seeding and solver of the authors' Table 3 code (erratum 4).
    params = MixedLinearRegressor().get_params()
    assert params["n_components"] == 1
    assert params["alpha"] == 1e-4
    assert params["fit_intercept"] is True
    assert params["init_score"] == "gradient"
    assert params["solver"] == "exact"


def test_float32_kept(global_dtype):
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=100, n_features=3, n_components=2, random_state=0
    )
    model = MixedLinearRegressor(2, random_state=0).fit(
        X.astype(global_dtype), y.astype(global_dtype)
    )
    assert model.coef_.dtype == global_dtype
    assert model.intercept_.dtype == global_dtype
    assert model.predict(X.astype(global_dtype)).dtype == global_dtype
    reference = MixedLinearRegressor(2, random_state=0).fit(X, y)
    assert_allclose(model.coef_, reference.coef_, rtol=1e-4, atol=1e-5)


def test_sparse_input_refused(csr_container):
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=20, n_features=3, n_components=2, random_state=0
    )
    with pytest.raises(TypeError, match="(?i)sparse"):
        MixedLinearRegressor().fit(csr_container(X), y)
    model = MixedLinearRegressor(random_state=0).fit(X, y)
    for method in (model.predict, model.predict_components):
        with pytest.raises(TypeError, match="(?i)sparse"):
            method(csr_container(X))
    with pytest.raises(TypeError, match="(?i)sparse"):
        model.assign(csr_container(X), y)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(alpha=0.0), "alpha"),
        (dict(alpha=-1.0), "alpha"),
        (dict(n_components=0), "n_components"),
        (dict(init="k-means"), "init"),
        (dict(init_score="grad"), "init_score"),
        (dict(solver="lbfgs"), "solver"),
        (dict(n_init=0), "n_init"),
        (dict(max_iter=0), "max_iter"),
        (dict(fit_intercept="yes"), "fit_intercept"),
    ],
)
def test_bad_parameters_raise(params, match):
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=20, n_features=3, n_components=2, random_state=0
    )
    with pytest.raises(ValueError, match=match):
        MixedLinearRegressor(**params).fit(X, y)


def test_bad_data_raise():
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=20, n_features=3, n_components=2, random_state=0
    )
    with pytest.raises(ValueError, match="n_samples=2 should be >= n_components=3"):
        MixedLinearRegressor(n_components=3).fit(X[:2], y[:2])
    with pytest.raises(ValueError, match="shape"):
        MixedLinearRegressor(init=np.zeros((2, 5))).fit(X, y)
    model = MixedLinearRegressor(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="3 features"):
        model.predict(X[:, :2])


# KMeans' conventions and parallel runs (issue 15, points 6, 16 and 1).


@pytest.mark.parametrize(
    "fit_intercept, init_shape, match",
    [
        (False, (3, 2), "does not match the number of components 2."),
        (False, (2, 3), "does not match the number of features of the data 2."),
        (True, (3, 3), "does not match the number of components 2."),
        (True, (2, 4), "number of features of the data 2 \\(or 3 with the"),
    ],
)
def test_init_shape_errors_name_the_wrong_dimension(fit_intercept, init_shape, match):
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=30, n_features=2, n_components=2, random_state=0
    )
    estimator = MixedLinearRegressor(
        2, init=np.zeros(init_shape), fit_intercept=fit_intercept
    )
    with pytest.raises(ValueError, match=match) as error:
        estimator.fit(X, y)
    assert str(error.value).startswith(
        f"The shape of the initial coefficients {init_shape}"
    )


def test_init_array_with_n_init_warns_and_runs_once(capsys):
    X, y, coef, _ = make_mixed_linear_regression(
        n_samples=60, n_features=2, n_components=2, random_state=0
    )
    with pytest.warns(RuntimeWarning) as record:
        MixedLinearRegressor(2, init=coef + 0.1, n_init=3, verbose=1).fit(X, y)
    assert [str(w.message) for w in record] == [
        "Explicit initial coefficients passed: performing only one init in "
        "MixedLinearRegressor instead of n_init=3."
    ]
    assert capsys.readouterr().out.count("Initialization complete") == 1


def test_verbose_with_n_jobs_prints_in_the_caller(capsys):
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=120, n_features=3, n_components=3, random_state=1
    )
    params = dict(init="random", n_init=3, random_state=0, verbose=1)
    MixedLinearRegressor(3, n_jobs=1, **params).fit(X, y)
    sequential = capsys.readouterr().out
    MixedLinearRegressor(3, n_jobs=2, **params).fit(X, y)
    parallel = capsys.readouterr().out
    assert sequential.count("Initialization complete") == 3
    assert "Iteration 0, objective " in sequential
    assert parallel == sequential


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_fixed_init_passes_sample_weight_equivalence(fit_intercept):
    # The published expected failure's cause is the random seeding: with a
    # fixed init array (the check's data has 30 features) the check passes.
    # Sparse input is refused, so the sparse variant does not apply.
    init = np.random.RandomState(0).standard_normal((2, 30))
    estimator = MixedLinearRegressor(2, init=init, fit_intercept=fit_intercept)
    assert expected_failed_checks(estimator) == {}
    check_sample_weight_equivalence_on_dense_data("MixedLinearRegressor", estimator)
    assert set(expected_failed_checks(MixedLinearRegressor(2))) == {
        "check_sample_weight_equivalence_on_dense_data"
    }


# --------------------------------------------------------------------------------------
# Numerical range (issue 16)


def _check_consistent(model, X, y, sample_weight=None):
    """Finite attributes that belong to the returned coefficients."""
    for name in ("coef_", "intercept_", "weights_", "objective_history_"):
        assert np.all(np.isfinite(getattr(model, name))), name
    losses = _regularized_losses(
        X.astype(np.float64),
        y.astype(np.float64),
        model.coef_.astype(np.float64),
        model.intercept_.astype(np.float64),
        model.alpha,
    )
    weights = np.ones(len(y)) if sample_weight is None else sample_weight
    assert_array_equal(model.labels_, model.assign(X, y))
    expected = losses.min(axis=1) @ weights / weights.sum()
    assert model.objective_ == pytest.approx(expected, rel=1e-4, abs=1e-300)


def test_scaled_features_keep_the_ridge_term_of_small_components():
    # Features scaled by 1e7: a component of fewer samples than features has
    # a rank-deficient Gram, and alpha * W_j is below its rounding.
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=20, n_features=8, n_components=3, random_state=0
    )
    X = X * 1e7
    for seed in range(5):
        model = MixedLinearRegressor(3, init="random", random_state=seed).fit(X, y)
        _check_consistent(model, X, y)


@pytest.mark.parametrize("solver", ["exact", "gd", "momentum"])
def test_float32_targets_beyond_its_range_are_refused(solver):
    X, y, _, _ = make_mixed_linear_regression(n_samples=40, random_state=0)
    X = X.astype(np.float32)
    for scale in (1e39, 1e20):
        with pytest.raises(ValueError, match="y holds values up to .*float32"):
            MixedLinearRegressor(solver=solver, random_state=0).fit(X, y * scale)
    with pytest.raises(ValueError, match="X holds values up to"):
        MixedLinearRegressor(solver=solver, random_state=0).fit(X * 1e30, y)


# alpha=1e39 shrinks every component to zero, so they coincide: a warning of
# the fit, not of the precision under test.
@pytest.mark.filterwarnings(
    "ignore:Number of distinct components:sklearn.exceptions.ConvergenceWarning"
)
def test_float32_with_huge_alpha_matches_float64():
    X, y, _, _ = make_mixed_linear_regression(n_samples=40, random_state=0)
    model64 = MixedLinearRegressor(2, alpha=1e39, random_state=0).fit(X, y)
    model32 = MixedLinearRegressor(2, alpha=1e39, random_state=0).fit(
        X.astype(np.float32), y.astype(np.float32)
    )
    assert model32.coef_.dtype == np.float32
    _check_consistent(model32, X.astype(np.float32), y.astype(np.float32))
    assert_allclose(model32.coef_, model64.coef_, rtol=1e-4, atol=1e-45)
    assert_allclose(
        model32.predict(X.astype(np.float32)), model64.predict(X), rtol=1e-4
    )


def test_coinciding_components_are_reported_without_blaming_duplicates():
    # alpha=1e39 shrinks both components to zero: one serves every row. The
    # rows are distinct; the warning names the cause and the remedies.
    X, y, _, _ = make_mixed_linear_regression(n_samples=40, random_state=0)
    assert np.unique(X, axis=0).shape[0] == X.shape[0]
    with pytest.warns(ConvergenceWarning, match="Number of distinct") as caught:
        MixedLinearRegressor(2, alpha=1e39, random_state=0).fit(X, y)
    message = next(str(w.message) for w in caught if "distinct" in str(w.message))
    assert "1 of the components ended the fit with no rows" in message
    assert "n_init" in message and "duplicate" not in message


def test_alpha_whose_penalty_overflows_is_refused():
    X, y, _, _ = make_mixed_linear_regression(n_samples=40, random_state=0)
    with pytest.raises(ValueError, match="alpha"):
        MixedLinearRegressor(alpha=1e308, random_state=0).fit(X, y)


@pytest.mark.parametrize("solver", ["exact", "gd", "momentum"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_huge_finite_inputs_give_finite_coefficients(solver, fit_intercept):
    # Sums of squares over many rows overflow float64 although every row's
    # squares are within range; so do sums of huge weights.
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=2000, n_features=2, n_components=2, random_state=0
    )
    scale = 0.5 * np.sqrt(np.finfo(np.float64).max / 32) / np.abs(X).max()
    weights = np.full(len(y), 1e307)
    model = MixedLinearRegressor(
        2, solver=solver, fit_intercept=fit_intercept, random_state=0
    ).fit(X * scale, y, sample_weight=weights)
    _check_consistent(model, X * scale, y, weights / 1e307)
    assert_allclose(model.weights_.sum(), 1.0)


def test_uniform_init_needs_enough_weighted_samples():
    X, y, _, _ = make_mixed_linear_regression(n_samples=10, random_state=0)
    weights = np.r_[1.0, 1.0, np.zeros(8)]
    with pytest.raises(
        ValueError, match=r"init='uniform'.*n_components=3.*sample_weight.* 2 "
    ):
        MixedLinearRegressor(3, init="uniform", random_state=0).fit(
            X, y, sample_weight=weights
        )
