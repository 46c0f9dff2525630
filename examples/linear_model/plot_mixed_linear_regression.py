"""
=====================================================
Mixed linear regression: planted lines and seedings
=====================================================

:class:`~skcgm.linear_model.MixedLinearRegressor` fits :math:`k` linear models
to one data set, each sample being explained by the model with the smallest
residual (the sum-of-minimum model of Ding, Chen, Wang and Yin, section 5.2).
This example

* recovers planted lines from one-dimensional inputs, with two and with three
  components, and shows what ``predict`` returns when the component of a new
  sample is unknown;
* compares the seedings of the paper's Table 3 (generalized k-means++, uniform
  seeding and a Gaussian random start) over 30 data sets, by the objective at
  the seeds, the failure rate and the number of iterations.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

# %%
# Planted lines
# -------------
#
# Two lines with different slopes and intercepts, and three lines through the
# origin drawn by :func:`~skcgm.datasets.make_mixed_linear_regression` (the
# paper's recipe of Appendix E.2, which has no intercept). Every sample belongs
# to one line, chosen uniformly at random, and nothing in its input tells
# which.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LinearRegression

from skcgm.datasets import make_mixed_linear_regression
from skcgm.linear_model import MixedLinearRegressor

rng = np.random.RandomState(0)
n_samples = 400
X_two = rng.uniform(-3, 3, size=(n_samples, 1))
true_two = np.array([[1.5, 2.0], [-0.8, -1.0]])  # (slope, intercept) per line
component = rng.randint(2, size=n_samples)
y_two = (
    true_two[component, 0] * X_two[:, 0]
    + true_two[component, 1]
    + 0.15 * rng.standard_normal(n_samples)
)

X_three, y_three, coef_three, labels_three = make_mixed_linear_regression(
    n_samples=n_samples, n_features=1, n_components=3, noise=0.1, random_state=2
)

# A single start can end in a local minimum (with ``random_state=0`` the
# two-line fit does: one fitted line cuts across both planted ones); five
# restarts keep the run of lowest objective.
two = MixedLinearRegressor(n_components=2, n_init=5, random_state=0).fit(X_two, y_two)
# The three planted lines pass through the origin: no intercept to fit.
three = MixedLinearRegressor(n_components=3, fit_intercept=False, random_state=0).fit(
    X_three, y_three
)

print("two lines    true (slope, intercept):", true_two.round(3).tolist())
fitted_two = np.column_stack([two.coef_[:, 0], two.intercept_])
print("             fitted                 :", fitted_two.round(3).tolist())
print("three lines  true slopes  :", np.sort(coef_three[:, 0]).round(3))
print("             fitted slopes:", np.sort(three.coef_[:, 0]).round(3))

# %%
# Each panel shows the samples colored by the component the model gives them
# (:meth:`~skcgm.linear_model.MixedLinearRegressor.assign`, the smallest
# residual), the fitted lines, and ``predict``: the mixture mean
# :math:`\sum_j \pi_j\, a^\top x_j` with :math:`\pi_j` = ``weights_``. Since
# the component of a new sample is independent of its input, this average of
# the lines is the prediction of smallest expected squared error; it is also
# what a single :class:`~sklearn.linear_model.LinearRegression` estimates, and
# it matches none of the lines. To evaluate the fitted lines themselves, use
# :meth:`~skcgm.linear_model.MixedLinearRegressor.min_loss`, the error of the
# best line for each sample.
grid = np.linspace(-3, 3, 50).reshape(-1, 1)
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=False)
for ax, model, X, y, title in [
    (axes[0], two, X_two, y_two, "Two lines with intercepts"),
    (axes[1], three, X_three, y_three, "Three lines through the origin"),
]:
    assigned = model.assign(X, y)
    ax.scatter(X[:, 0], y, c=assigned, cmap="tab10", vmin=0, vmax=9, s=8, alpha=0.6)
    lines = model.predict_components(grid)
    for j in range(model.n_components):
        ax.plot(grid[:, 0], lines[:, j], color=f"C{j}", linewidth=2)
    ax.plot(grid[:, 0], model.predict(grid), "k--", label="predict (mixture mean)")
    ols = LinearRegression().fit(X, y)
    ax.plot(grid[:, 0], ols.predict(grid), "k:", label="LinearRegression")
    ax.set_xlabel("input a")
    ax.set_ylabel("target b")
    ax.set_title(title)
    ax.legend(loc="upper left")
fig.tight_layout()

print(f"min_loss two lines: {two.min_loss(X_two, y_two):.4f}")
print(f"R^2 (score) of predict, two lines: {two.score(X_two, y_two):.3f}")

# %%
# The fitted lines match the planted ones to about the noise level, while the
# :math:`R^2` of ``predict`` stays low: the spread of the targets between the
# lines cannot be predicted from the input. That is why ``score`` (the
# :math:`R^2` that scikit-learn's regressors report) is a poor guide for
# choosing the number of lines. ``min_loss`` is no better: more lines never
# fit worse. :meth:`~skcgm.linear_model.MixedLinearRegressor.bic`, the
# Bayesian information criterion of the fitted mixture of regressions, pays
# for every line's parameters and picks the planted two.
fits = [MixedLinearRegressor(k, n_init=5, random_state=0) for k in range(1, 5)]
bics = [model.fit(X_two, y_two).bic(X_two, y_two) for model in fits]
print("BIC for 1 to 4 lines:", np.round(bics, 1), "-> picks", 1 + int(np.argmin(bics)))
#
# Seedings
# --------
#
# The paper's Table 3 runs Lloyd's algorithm (Algorithm 7) from three starts
# on data drawn with :math:`N = 1000`, :math:`\sigma = \lambda = 0.01`, and
# counts a *failure* when the final objective is above the objective of the
# true coefficients. Here: :math:`k = 6` components in :math:`d = 6`
# dimensions, one restart (``n_init=1``) per fit and ``tol=0`` so that a run
# stops only when its partition repeats, as in the paper; 30 data sets instead
# of the paper's 1000.
#
# * ``'k-means++'`` is the generalized k-means++ seeding with the
#   gradient-norm score (Algorithm 4, the default ``init_score``, which the
#   authors' code used);
# * ``'uniform'`` seeds with the per-sample minimizers of six distinct samples
#   drawn uniformly;
# * ``'random'`` draws the coefficients from a standard Gaussian.
alpha = 0.01
n_components, n_features = 6, 6
inits = ["k-means++", "uniform", "random"]
n_trials = 30


def objective(X, y, coef, alpha):
    """The paper's objective F: mean over samples of the best penalized loss."""
    residuals = X @ coef.T - y[:, None]
    losses = 0.5 * residuals**2 + 0.5 * alpha * (coef**2).sum(axis=1)
    return losses.min(axis=1).mean()


seed_ratio = {init: [] for init in inits}
failures = {init: [] for init in inits}
iterations = {init: [] for init in inits}
for trial in range(n_trials):
    X, y, coef, _ = make_mixed_linear_regression(
        n_samples=1000,
        n_features=n_features,
        n_components=n_components,
        noise=0.01,
        random_state=trial,
    )
    target = objective(X, y, coef, alpha)
    for init in inits:
        # The paper's setting: no intercept, the same ridge weight as the target.
        model = MixedLinearRegressor(
            n_components,
            alpha=alpha,
            fit_intercept=False,
            init=init,
            n_init=1,
            tol=0,
            random_state=trial,
        ).fit(X, y)
        seed_ratio[init].append(model.objective_history_[0] / target)
        failures[init].append(model.objective_ > target)
        iterations[init].append(model.n_iter_)

print(f"{'init':10} {'F(seeds)/F(true)':>16} {'failure rate':>12} {'mean n_iter_':>12}")
for init in inits:
    print(
        f"{init:10} {np.median(seed_ratio[init]):16.0f} "
        f"{np.mean(failures[init]):12.3f} {np.mean(iterations[init]):12.1f}"
    )

# %%
# The first column is the objective at the seeds, relative to the objective
# of the true coefficients (median over the data sets). The generalized
# k-means++ seeds start lowest, at about half the objective of uniform
# seeding: a per-sample minimizer :math:`x_i^*` is the projection of its
# component's coefficients on the single direction :math:`a_i`, and uniform
# seeding may take several from the same component, while k-means++ favours
# samples that the seeds so far explain badly. The Gaussian start does well
# on this measure only because the paper's recipe draws the true coefficients
# from the same Gaussian.
#
# Failures and iterations are noisy at this size: with 30 data sets a failure
# rate has a standard error of about 0.09 and a mean iteration count of about
# 3. Here the Gaussian start needs the most iterations, while k-means++ and
# uniform seeding are within noise of each other on both counts. Over 1000
# data sets the paper reports, for :math:`k = d = 6`, failure rates of 0.389
# (k-means++), 0.408 (uniform) and 0.504 (random) and mean iteration counts of
# 36.1, 39.7 and 44.0; ``python -m skcgm reproduce mlr-table3`` reruns that
# comparison. A failed run ends in a local minimum: restarts (``n_init``) keep
# the best of several and make failures rarer.
fig, (ax_seed, ax_fail, ax_iter) = plt.subplots(1, 3, figsize=(13, 4))
ax_seed.boxplot([seed_ratio[init] for init in inits])
ax_seed.set_yscale("log")
ax_seed.set_xticks([1, 2, 3], inits)
ax_seed.set_ylabel("F(seeds) / F(true coefficients)")
ax_seed.set_title("Objective at the seeds")
rates = np.array([np.mean(failures[init]) for init in inits])
errors = np.sqrt(rates * (1 - rates) / n_trials)
ax_fail.bar(inits, rates, yerr=errors, capsize=6, color=["C0", "C1", "C2"])
ax_fail.set_ylabel(f"failure rate over {n_trials} data sets (± 1 s.e.)")
ax_fail.set_title(f"Failures (k={n_components}, d={n_features})")
ax_iter.boxplot([iterations[init] for init in inits])
ax_iter.set_xticks([1, 2, 3], inits)
ax_iter.set_ylabel("n_iter_ (coefficient updates)")
ax_iter.set_title("Iterations to a repeated partition")
fig.tight_layout()
plt.show()
