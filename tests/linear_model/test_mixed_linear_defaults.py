"""Defaults and model selection of MixedLinearRegressor (issue 18, part C).

Oracles: scikit-learn's ``LinearRegression`` on the diabetes data (same
cross-validation), the planted number of components of
``make_mixed_linear_regression``, and the Gaussian mixture likelihood written
out here from its definition.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import norm
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import KFold, cross_val_score

from skcgm.datasets import make_mixed_linear_regression
from skcgm.linear_model import MixedLinearRegressor

CANDIDATES = range(1, 6)


def _picked(criterion, X, y, random_state, **params):
    """The ``n_components`` in 1..5 of lowest ``criterion``."""
    values = [
        getattr(
            MixedLinearRegressor(k, random_state=random_state, **params).fit(X, y),
            criterion,
        )(X, y)
        for k in CANDIDATES
    ]
    return CANDIDATES[int(np.argmin(values))]


def test_default_matches_linear_regression_on_diabetes():
    # The protocol: mean test R^2 over KFold(5, shuffle=True,
    # random_state=0). Former defaults: -3.71 (no intercept, 2 components,
    # alpha=0.01) against 0.489.
    X, y = load_diabetes(return_X_y=True)
    cv = KFold(5, shuffle=True, random_state=0)
    ours = cross_val_score(MixedLinearRegressor(random_state=0), X, y, cv=cv)
    reference = cross_val_score(LinearRegression(), X, y, cv=cv)
    assert ours.mean() >= reference.mean() - 0.05
    # Per fold too: one component with an intercept and a penalty of 1e-4 is
    # nearly least squares (the penalty, Ridge(alpha=1e-4 * 353) on features
    # of variance 1/442, moves a fold by up to 0.011).
    assert_allclose(ours, reference, atol=0.02)


def test_paper_setting_fails_on_diabetes():
    # Why the defaults moved: without intercept the fit cannot reach targets
    # of mean 152, whatever the number of components.
    X, y = load_diabetes(return_X_y=True)
    cv = KFold(5, shuffle=True, random_state=0)
    paper = MixedLinearRegressor(2, alpha=0.01, fit_intercept=False, random_state=0)
    assert cross_val_score(paper, X, y, cv=cv).mean() < 0


@pytest.mark.parametrize("criterion", ["bic", "aic"])
def test_criterion_picks_one_component_on_diabetes(criterion):
    X, y = load_diabetes(return_X_y=True)
    assert _picked(criterion, X, y, random_state=0) == 1


def test_min_loss_always_prefers_more_components():
    # The issue: min_loss never increases with n_components, so it cannot
    # select it (here the largest candidate wins on one-line data).
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=300, n_features=3, n_components=1, noise=0.1, random_state=0
    )
    losses = [
        MixedLinearRegressor(k, n_init=3, random_state=0).fit(X, y).min_loss(X, y)
        for k in CANDIDATES
    ]
    assert np.argmin(losses) == len(losses) - 1
    assert _picked("bic", X, y, random_state=0) == 1


@pytest.mark.parametrize("n_components", [1, 2, 3, 4])
@pytest.mark.parametrize("noise", [0.01, 0.3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bic_picks_the_planted_number_of_components(n_components, noise, seed):
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=400,
        n_features=4,
        n_components=n_components,
        noise=noise,
        random_state=seed,
    )
    assert _picked("bic", X, y, random_state=seed, n_init=3) == n_components


@pytest.mark.parametrize("seed", [0, 1])
def test_criteria_on_noiseless_planted_lines(seed):
    # Exact fits: the noise variance is floored, the likelihood stays finite,
    # and the penalty breaks the tie between k >= 2 in favour of 2.
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=200, n_features=3, n_components=2, noise=0.0, random_state=seed
    )
    for criterion in ("bic", "aic"):
        assert _picked(criterion, X, y, random_state=seed, n_init=3) == 2


def test_bic_picks_planted_components_with_intercepts(global_random_seed):
    X, y, _, labels = make_mixed_linear_regression(
        n_samples=400, n_features=3, n_components=3, noise=0.1, random_state=0
    )
    y = y + np.array([-2.0, 0.5, 3.0])[labels]
    picked = _picked("bic", X, y, random_state=global_random_seed, n_init=3)
    assert picked == 3


def _mixture_log_likelihood(model, X, y):
    """Sum of log sum_j pi_j N(y_i | x_i^T w_j + c_j, sigma^2), by definition."""
    sigma = np.sqrt(model.noise_variance_)
    means = X @ model.coef_.T + model.intercept_
    densities = norm.pdf(y[:, None], loc=means, scale=sigma) @ model.weights_
    return np.log(densities).sum()


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_bic_and_aic_match_their_definitions(global_random_seed, fit_intercept):
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=150, n_features=3, n_components=2, noise=0.5, random_state=0
    )
    model = MixedLinearRegressor(
        2, fit_intercept=fit_intercept, random_state=global_random_seed
    ).fit(X, y)
    # Coefficients (and intercepts) of 2 components, 1 free proportion and
    # the variance.
    n_parameters = 2 * (3 + fit_intercept) + 1 + 1
    log_likelihood = _mixture_log_likelihood(model, X, y)
    assert model.bic(X, y) == pytest.approx(
        -2 * log_likelihood + n_parameters * np.log(150), rel=1e-10
    )
    assert model.aic(X, y) == pytest.approx(
        -2 * log_likelihood + 2 * n_parameters, rel=1e-10
    )
    # On new data with the fitted variance.
    X_new, y_new = X[:40] + 0.1, y[:40]
    assert model.bic(X_new, y_new) == pytest.approx(
        -2 * _mixture_log_likelihood(model, X_new, y_new) + n_parameters * np.log(40),
        rel=1e-10,
    )


def test_noise_variance_is_the_mean_squared_residual_to_the_components():
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=300, n_features=3, n_components=2, noise=0.2, random_state=0
    )
    weights = np.random.RandomState(0).uniform(0.5, 2.0, size=300)
    model = MixedLinearRegressor(2, n_init=3, random_state=0)
    model.fit(X, y, sample_weight=weights)
    residuals = X @ model.coef_.T + model.intercept_ - y[:, None]
    assigned = residuals[np.arange(300), model.labels_]
    assert model.noise_variance_ == pytest.approx(
        (assigned**2) @ weights / weights.sum(), rel=1e-10
    )
    # Near the planted noise: the components are recovered.
    assert model.noise_variance_ == pytest.approx(0.2**2, rel=0.25)


def test_empty_component_has_no_likelihood_but_counts_as_parameters():
    # A component without samples has proportion 0: it adds nothing to the
    # likelihood, but its parameters are counted, as GaussianMixture counts
    # all of its components.
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=50, n_features=2, n_components=1, noise=0.1, random_state=0
    )
    far = np.array([[0.1, 0.1, 0.0], [100.0, -100.0, 0.0]])
    with pytest.warns(match="distinct components"):
        two = MixedLinearRegressor(2, alpha=0.01, init=far).fit(X, y)
    assert_allclose(two.weights_, [1.0, 0.0])
    one = MixedLinearRegressor(1, alpha=0.01, init=far[:1]).fit(X, y)
    assert_allclose(two.coef_[0], one.coef_[0])
    penalty = (2 * 3 + 2) - (1 * 3 + 1)
    assert two.bic(X, y) == pytest.approx(one.bic(X, y) + penalty * np.log(50))
    assert np.isfinite(two.bic(X, y))


def test_criteria_need_a_fitted_model():
    from sklearn.exceptions import NotFittedError

    X, y, _, _ = make_mixed_linear_regression(n_samples=20, random_state=0)
    for criterion in ("bic", "aic"):
        with pytest.raises(NotFittedError):
            getattr(MixedLinearRegressor(), criterion)(X, y)


def test_criteria_finite_on_huge_data():
    # The sums of squared residuals of huge (valid) data overflow float64:
    # the variance is a scaled mean and the likelihood uses standardized
    # residuals. The criterion follows the scale: log sigma per sample.
    X, y, _, _ = make_mixed_linear_regression(
        n_samples=2000, n_features=2, n_components=2, noise=0.1, random_state=0
    )
    scale = 1e150
    small = MixedLinearRegressor(2, random_state=0).fit(X, y)
    huge = MixedLinearRegressor(2, random_state=0).fit(X, y * scale)
    assert np.isfinite(huge.noise_variance_)
    assert huge.noise_variance_ == pytest.approx(
        small.noise_variance_ * scale**2, rel=1e-6
    )
    assert huge.bic(X, y * scale) == pytest.approx(
        small.bic(X, y) + 2 * 2000 * np.log(scale), rel=1e-6
    )
