"""
=========================================
Kernel herding against random subsampling
=========================================

:class:`~skcgm.sampling.KernelHerdingSampler` picks rows of a data set one at
a time by Frank-Wolfe on the marginal polytope: each pick is the row where the
data are dense and the subset chosen so far is not. The weighted subset's
kernel mean embedding approaches that of the data, as measured by the maximum
mean discrepancy (MMD) with an RBF kernel.

This example compares, on a 2-D Gaussian mixture, a herding subset with a
random subset of the same size, then draws the squared MMD against the subset
size for herding and for i.i.d. sampling on log-log axes.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

# %%
# Data
# ----
#
# Two thousand points from a mixture of four Gaussian blobs of different sizes
# and spreads.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import rbf_kernel

from skcgm.sampling import KernelHerdingSampler

X, _ = make_blobs(
    n_samples=[800, 600, 400, 200],
    centers=[[-4, -2], [0, 3], [4, -1], [1, -4]],
    cluster_std=[1.2, 0.8, 1.0, 0.5],
    random_state=0,
)
n = X.shape[0]
gamma = 0.5
rng = np.random.RandomState(0)

# %%
# The squared MMD of a weighted subset
# ------------------------------------
#
# For a subset with weights :math:`a` (summing to 1) and the data with
# uniform weights :math:`p_i = 1/n`,
# :math:`\mathrm{MMD}^2 = \sum_{ij} (a_i - p_i)(a_j - p_j)\, k(x_i, x_j)`.
# The kernel matrix of the data is computed once; the kernel means
# :math:`\frac1n \sum_l k(x_l, x_i)` and :math:`\|\mu\|^2` come from it.
K = rbf_kernel(X, gamma=gamma)
kernel_mean = K.mean(axis=0)
mu_norm2 = kernel_mean.mean()


def mmd2(indices, weights):
    """Squared MMD between the weighted rows ``X[indices]`` and all of X."""
    K_sub = K[np.ix_(indices, indices)]
    return weights @ K_sub @ weights - 2 * weights @ kernel_mean[indices] + mu_norm2


# %%
# Herding subset against a random subset
# --------------------------------------
#
# With ``learning_rate='herding'`` (the step :math:`1/(t+1)` of classical herding),
# every pick gets the same weight :math:`1/m`: ``fit_resample`` returns the
# ``m`` picks, ``X[sample_indices_]``, a row picked twice appearing twice, so
# the returned rows, unweighted, *are* the herded subset (``support_`` holds
# the distinct rows and ``support_weight_`` their weights). Here, 50 picks of
# 2,000 rows, the default ``refine='auto'`` also runs swap passes after the
# picks (``refine_`` says so): each pick in turn is replaced by the row that
# most lowers the squared MMD. The herding points cover every blob in
# proportion to its mass, with even spacing; the random points clump in places
# and leave gaps elsewhere.
m = 50
sampler = KernelHerdingSampler(n_samples=m, kernel="rbf", gamma=gamma, random_state=0)
X_herd, _ = sampler.fit_resample(X)
random_idx = rng.choice(n, size=m, replace=False)
mmd2_herd = mmd2(sampler.sample_indices_, np.full(m, 1 / m))
mmd2_random = mmd2(random_idx, np.full(m, 1 / m))

fig, axes = plt.subplots(1, 2, figsize=(10, 4.5), sharex=True, sharey=True)
for ax, subset, title in [
    (axes[0], X_herd, f"herding, MMD$^2$ = {mmd2_herd:.1e}"),
    (axes[1], X[random_idx], f"random, MMD$^2$ = {mmd2_random:.1e}"),
]:
    ax.scatter(X[:, 0], X[:, 1], s=4, c="0.8", label="data")
    ax.scatter(subset[:, 0], subset[:, 1], s=25, c="C3", label=f"{m} points")
    ax.set_title(title)
    ax.set_aspect("equal")
axes[0].legend(loc="upper left")
fig.tight_layout()

# %%
# The fitted sampler also records the squared MMD after every pick, before the
# swaps (``objective_history_``), and the number of candidates scored per
# iteration (``n_scored_``: all ``n`` rows for the exact search). ``score(X)``
# is minus the squared MMD of the returned subset, here on the training data.
score = sampler.score(X)
print(f"herding, {m} rows: MMD^2 {mmd2_herd:.3e}, score {score:.3e}")
print(
    f"refine_={sampler.refine_!r}: {sampler.n_swaps_} swaps; MMD^2 of the "
    f"picks before them {sampler.objective_history_[-1]:.3e}"
)
print(f"random,  {m} rows: MMD^2 {mmd2_random:.3e}")
print(f"candidates scored per iteration: {np.mean(sampler.n_scored_):.0f} of {n}")

# %%
# MMD against subset size
# -----------------------
#
# Frank-Wolfe guarantees :math:`\mathrm{MMD}^2 = O(1/m)`, the rate of i.i.d.
# sampling in expectation, :math:`\mathbb{E}\,\mathrm{MMD}^2 = (1 -
# \|\mu\|^2)/m` for draws with replacement. On low-dimensional data herding
# does much better: its squared MMD falls roughly as :math:`1/m^2`. One fit
# of 256 picks of the paper's recursion (``refine=None``, no swaps) gives every
# smaller subset too, since its first :math:`m` picks (``sample_indices_[:m]``)
# are the herding subset of size :math:`m`; the i.i.d. curve is the median over
# 20 random subsets.
sizes = np.array([4, 8, 16, 32, 64, 128, 256])
long_run = KernelHerdingSampler(
    n_samples=sizes[-1], kernel="rbf", gamma=gamma, refine=None, random_state=0
).fit(X)
herding_curve = long_run.objective_history_[sizes - 1]
iid_curve = np.array(
    [
        np.median(
            [mmd2(rng.choice(n, size=size), np.full(size, 1 / size)) for _ in range(20)]
        )
        for size in sizes
    ]
)

fig, ax = plt.subplots(figsize=(6, 4.5))
ax.loglog(sizes, herding_curve, "o-", label="herding (exact)")
ax.loglog(sizes, iid_curve, "s-", label="i.i.d., median of 20")
ax.loglog(sizes, (1 - mu_norm2) / sizes, "k:", label=r"$(1 - \|\mu\|^2)/m$")
ax.set_xlabel("subset size m (picks, repeats included)")
ax.set_ylabel(r"MMD$^2$")
ax.set_title("Squared MMD to the data, RBF kernel")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# The slopes of the two curves on log-log axes:
slope_herding = np.polyfit(np.log(sizes), np.log(herding_curve), 1)[0]
slope_iid = np.polyfit(np.log(sizes), np.log(iid_curve), 1)[0]
print(f"log-log slope: herding {slope_herding:.2f}, i.i.d. {slope_iid:.2f}")
