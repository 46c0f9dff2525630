"""The baselines of the comparisons, none of them from the papers.

``python -m skcgm compare`` and the benchmarks set skcgm's estimators against
what a user would otherwise pick. Where scikit-learn has no such estimator,
the baseline is written here:

- :func:`fit_em_mixed_linear` and its estimator ``_MixedLinearEM``: EM for a
  mixture of linear regressions, against
  :class:`~skcgm.linear_model.MixedLinearRegressor`;
- ``_SubsetModel``: a model fitted on a herding, random or full subset of its
  training data, against :class:`~skcgm.sampling.KernelHerdingSampler`;
- ``_UniformSubsetLogistic``: LogisticRegression on a uniform subsample,
  against :class:`~skcgm.linear_model.LocalSensitivityLogistic`.

The estimators are private (leading underscore) so that the estimator
discovery and the common checks leave them out.

EM for a mixture of linear regressions
--------------------------------------

The sum-of-minimum paper (Ding, Chen, Wang and Yin, 2024) compares
initializations of its Lloyd algorithm only. ``python -m skcgm compare`` and
the benchmarks also need the classical alternative for mixed linear
regression (user guide, "Mixed linear regression", section "Comparison with
scikit-learn"): maximum likelihood of the mixture

.. math::

    p(b \\mid a) = \\sum_{j=1}^k \\pi_j \\, N(b;\\, a^\\top x_j + o_j,\\,
    \\sigma_j^2)

by expectation-maximization (De Veaux, 1989; Jordan and Jacobs, 1994). It is a
soft-assignment relative of Algorithm 7: responsibilities replace the hard
partition of eq. (3.6), and the weighted least squares of the M-step replace
the ridge group minimizer (E.2).
"""

import math
from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..sampling import KernelHerdingSampler
from ..utils._random import MAX_SEED
from ..utils._sklearn_compat import validate_data

# Relative floor of the variances: with noiseless data a component's
# variance tends to 0 and its likelihood to infinity.
_VARIANCE_FLOOR = 1e-12
# Relative ridge of the weighted normal equations, so that a component with
# fewer effective samples than features still has a solution.
_RIDGE = 1e-10
_TINY = np.finfo(float).tiny


class MixedLinearEMResult(NamedTuple):
    """Fitted mixture of linear regressions, the best of the EM runs.

    What :func:`fit_em_mixed_linear` returns: a named tuple, so that the
    fields can be unpacked or read by name.

    Parameters
    ----------
    coef : ndarray of shape (n_components, n_features)
        Coefficients :math:`x_j`.
    intercept : ndarray of shape (n_components,)
        Intercepts :math:`o_j` (zeros without ``fit_intercept``).
    weights : ndarray of shape (n_components,)
        Mixing weights :math:`\\pi_j`.
    sigma : ndarray of shape (n_components,)
        Noise standard deviations :math:`\\sigma_j`.
    n_iter : int
        Number of M-steps of the best run.
    converged : bool
        Whether the best run stopped on ``tol`` before ``max_iter``.
    log_likelihood : float
        Final mean log-likelihood of the best run.

    See Also
    --------
    fit_em_mixed_linear : Fits it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.experiments import fit_em_mixed_linear
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> fit_em_mixed_linear(X, 2 * X[:, 0], 1).coef.round(6)
    array([[2.]])
    """

    coef: np.ndarray
    intercept: np.ndarray
    weights: np.ndarray
    sigma: np.ndarray
    n_iter: int
    converged: bool
    log_likelihood: float


def _single_em(design, y, n_components, max_iter, tol, scale, seed):
    """One EM run: ``(params, weights, variances, n_iter, converged, log_lik.)``."""
    n_samples, n_columns = design.shape
    # Initial coefficients drawn from the data's scale: N(0, s^2 I) with
    # s^2 = var(b) / mean ||a||^2, the variance a coefficient would need to
    # explain var(b) alone; broad equal components otherwise.
    rng = np.random.RandomState(seed)
    params = scale * rng.standard_normal((n_components, n_columns))
    variances = np.full(n_components, max(np.var(y), _TINY))
    variance_floor = _VARIANCE_FLOOR * variances[0]
    weights = np.full(n_components, 1.0 / n_components)
    previous = -np.inf
    for n_iter in range(max_iter + 1):
        # E-step: log pi_j + log N(b_i; a_i^T x_j + o_j, sigma_j^2).
        residuals = y[:, None] - design @ params.T
        log_joint = (
            np.log(np.maximum(weights, _TINY))
            - 0.5 * np.log(2 * np.pi * variances)
            - residuals**2 / (2 * variances)
        )
        log_norm = logsumexp(log_joint, axis=1)
        log_likelihood = float(log_norm.mean())
        # Absolute change of the mean log-likelihood, as GaussianMixture.
        converged = log_likelihood - previous < tol
        if converged or n_iter == max_iter:
            return params, weights, variances, n_iter, converged, log_likelihood
        resp = np.exp(log_joint - log_norm[:, None])
        totals = resp.sum(axis=0)
        # M-step: weighted least squares and variance per component; one
        # without responsibility keeps its parameters.
        for j in np.flatnonzero(totals > 10 * np.finfo(float).eps * n_samples):
            weighted = design * resp[:, j, None]
            gram = design.T @ weighted
            ridge = _RIDGE * max(np.trace(gram) / n_columns, _TINY)
            gram.flat[:: n_columns + 1] += ridge
            params[j] = np.linalg.solve(gram, weighted.T @ y)
            squares = (y - design @ params[j]) ** 2
            variances[j] = max(resp[:, j] @ squares / totals[j], variance_floor)
        weights = totals / n_samples
        previous = log_likelihood


def fit_em_mixed_linear(
    X,
    y,
    n_components=2,
    *,
    fit_intercept=False,
    n_init=1,
    max_iter=500,
    tol=1e-8,
    random_state=None,
):
    """Fit a mixture of linear regressions by expectation-maximization.

    A baseline for :class:`~skcgm.linear_model.MixedLinearRegressor`, not an
    algorithm of the paper. Maximizes the mean log-likelihood of the model
    :math:`b_i = a_i^\\top x_{c_i} + o_{c_i} + \\varepsilon_i`,
    :math:`\\varepsilon_i \\sim N(0, \\sigma_{c_i}^2)`,
    :math:`P(c_i = j) = \\pi_j`:

    .. math::

        \\ell = \\frac{1}{N} \\sum_{i=1}^N \\log \\sum_{j=1}^k \\pi_j \\,
        N(b_i;\\, a_i^\\top x_j + o_j,\\, \\sigma_j^2).

    The E-step computes the responsibilities :math:`r_{ij} \\propto \\pi_j
    N(b_i; a_i^\\top x_j + o_j, \\sigma_j^2)`; the M-step solves one weighted
    least-squares problem per component and sets :math:`\\sigma_j^2` to the
    weighted mean squared residual (floored at :math:`10^{-12}
    \\operatorname{var}(b)`, so that noiseless data stay finite) and
    :math:`\\pi_j` to the mean responsibility. Each run starts from
    coefficients drawn from :math:`N(0, s^2 I)` with :math:`s^2 =
    \\operatorname{var}(b) / \\overline{\\|a\\|^2}`, equal weights and
    variances :math:`\\operatorname{var}(b)`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs :math:`a_i`.
    y : array-like of shape (n_samples,)
        Targets :math:`b_i`.
    n_components : int, default=2
        Number of components :math:`k`.
    fit_intercept : bool, default=False
        Fit an intercept :math:`o_j` per component (the paper's data have
        none).
    n_init : int, default=1
        Number of runs from different random starts; the one with the
        largest log-likelihood is returned.
    max_iter : int, default=500
        Maximum number of EM iterations (M-steps) per run.
    tol : float, default=1e-8
        Stop when the mean log-likelihood increases by less than ``tol``.
    random_state : int, RandomState instance or None, default=None
        Seeds the starts (one seed per run, drawn up front).

    Returns
    -------
    result : MixedLinearEMResult
        Named tuple ``(coef, intercept, weights, sigma, n_iter, converged,
        log_likelihood)``: coefficients of shape ``(n_components,
        n_features)``, intercepts, mixing weights and noise standard
        deviations of shape ``(n_components,)``, the number of M-steps and
        whether the run stopped on ``tol`` (of the best run), and the final
        mean log-likelihood :math:`\\ell`.

    See Also
    --------
    skcgm.linear_model.MixedLinearRegressor : The sum-of-minimum estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.experiments import fit_em_mixed_linear
    >>> rng = np.random.RandomState(0)
    >>> X = rng.standard_normal((200, 1))
    >>> y = np.where(np.arange(200) % 2, 2.0, -1.0) * X[:, 0]
    >>> result = fit_em_mixed_linear(X, y, 2, n_init=3, random_state=0)
    >>> np.sort(result.coef.ravel()).round(3)
    array([-1.,  2.])
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    design = np.column_stack([X, np.ones(len(X))]) if fit_intercept else X
    # Coefficients only explain the variation of b around its mean.
    centered = X - X.mean(axis=0) if fit_intercept else X
    mean_sq_norm = max(np.einsum("ij,ij->i", centered, centered).mean(), 1e-300)
    scale = np.sqrt(np.var(y) / mean_sq_norm)
    rng = check_random_state(random_state)
    seeds = rng.randint(MAX_SEED, size=n_init)
    runs = [_single_em(design, y, n_components, max_iter, tol, scale, s) for s in seeds]
    # The first of the runs with the largest log-likelihood.
    params, weights, variances, *rest = max(runs, key=lambda run: run[-1])
    d = X.shape[1]
    intercept = np.array(params[:, d]) if fit_intercept else np.zeros(n_components)
    coef = params[:, :d].copy()
    return MixedLinearEMResult(coef, intercept, weights, np.sqrt(variances), *rest)


class _MixedLinearEM(RegressorMixin, BaseEstimator):
    """:func:`fit_em_mixed_linear` behind the estimator API, for ``compare``.

    Private (leading underscore) so that the estimator discovery and the
    common checks leave this baseline out. ``predict`` is the mixture mean
    :math:`\\sum_j \\pi_j (a^\\top x_j + o_j)`, as MixedLinearRegressor's.
    """

    def __init__(self, n_components=2, *, n_init=1, random_state=None):
        self.n_components = n_components
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the mixture."""
        X, y = validate_data(self, X, y, y_numeric=True)
        result = fit_em_mixed_linear(
            X, y, self.n_components, n_init=self.n_init, random_state=self.random_state
        )
        # coef_, intercept_, weights_, sigma_, n_iter_, converged_, log_likelihood_
        for name, value in result._asdict().items():
            setattr(self, f"{name}_", value)
        return self

    def predict_components(self, X):
        """Prediction of every component."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return X @ self.coef_.T + self.intercept_

    def predict(self, X):
        """Mixture mean."""
        return self.predict_components(X) @ self.weights_


class _SubsetModel(BaseEstimator):
    """A model fitted on a subset of its training data: herding, random or all.

    ``fit`` picks ``n_samples`` training points, with
    :class:`~skcgm.sampling.KernelHerdingSampler` (``per_class=True``, RBF
    kernel of the model's ``gamma``, further options in ``sampler_params``,
    e.g. random features and the LSH index), uniformly at random (stratified), or
    keeps all of them, then fits a clone of ``model`` on them; ``score``
    and ``predict`` delegate to the fitted model. The RBF ``gamma`` of the
    model and of herding is scikit-learn's ``'scale'``,
    ``1 / (n_features X.var())``, computed on the whole training fold so that
    the three subsets use the same kernel.
    """

    def __init__(
        self,
        model,
        subset="herding",
        n_samples=100,
        sampler_params=None,
        random_state=None,
    ):
        self.model = model
        self.subset = subset
        self.n_samples = n_samples
        self.sampler_params = sampler_params
        self.random_state = random_state

    def fit(self, X, y):
        gamma = 1.0 / (X.shape[1] * X.var())
        n_samples, seed = self.n_samples, self.random_state
        if self.subset == "herding":
            sampler = KernelHerdingSampler(
                n_samples,
                kernel="rbf",
                gamma=gamma,
                per_class=True,
                random_state=seed,
                **(self.sampler_params or {}),
            )
            X, y = sampler.fit_resample(X, y)
        elif self.subset == "random":
            X, _, y, _ = train_test_split(
                X, y, train_size=n_samples, stratify=y, random_state=seed
            )
        self.model_ = clone(self.model).set_params(gamma=gamma).fit(X, y)
        self.n_fit_samples_ = X.shape[0]
        return self

    def predict(self, X):
        return self.model_.predict(X)

    def score(self, X, y):
        return self.model_.score(X, y)


class _UniformSubsetLogistic(ClassifierMixin, BaseEstimator):
    """LogisticRegression fitted on ``ceil(sample_size * n)`` rows drawn uniformly.

    The rows are drawn without replacement from ``random_state``, with the
    rounding of ``LocalSensitivityLogistic(sample_size=...)``, so that the
    subsample has the size of one of its rounds.
    """

    def __init__(self, sample_size=0.01, random_state=None):
        self.sample_size = sample_size
        self.random_state = random_state

    def fit(self, X, y):
        n = X.shape[0]
        m = max(1, math.ceil(self.sample_size * n))
        rows = check_random_state(self.random_state).choice(n, m, replace=False)
        self.model_ = LogisticRegression().fit(X[rows], y[rows])
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)

    def predict_proba(self, X):
        return self.model_.predict_proba(X)
