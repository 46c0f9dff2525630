"""
======================================================
Local-sensitivity logistic regression on a dask array
======================================================

:class:`~skcgm.linear_model.LocalSensitivityLogistic` fits a
:class:`dask.array.Array` where its chunks live: every round of the
approximate proximal point method reads the rows once (the sums at the
centre, the sensitivity scores and the draws), and only those sums and the
sampled rows come back to this process, where the round's subproblem is
solved. When a pass over the data is the cost, one round from a uniform
start, two passes, already lands close to the minimum.

This example runs a small :class:`~distributed.LocalCluster`, fits heavy-tailed
data held on it, and follows the relative objective error per pass against
the minimizer computed in memory.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

# %%
# A cluster and data that live on it
# ----------------------------------
#
# ``make_heavy_tailed_classification`` draws Student-t rows with a few
# high-leverage ones, the data importance sampling is for. They are small
# enough here to be held in memory too, for the reference fit.
import warnings

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from skcgm.datasets import make_heavy_tailed_classification
from skcgm.linear_model import LocalSensitivityLogistic

cluster = LocalCluster(
    n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
)
client = Client(cluster)

X, y = make_heavy_tailed_classification(100_000, 10, random_state=0)
X_dask = da.from_array(X, chunks=(12_500, 10)).persist()
y_dask = da.from_array(y, chunks=12_500).persist()

# %%
# The minimum, in memory
# ----------------------
#
# The estimators share scikit-learn's objective, :math:`C \sum_i
# \log(1 + e^{-b_i (x_i^\top w + c)}) + \|w\|^2 / 2`.
reference = LogisticRegression(solver="newton-cholesky", tol=1e-10).fit(X, y)


def objective(coef, intercept):
    margins = np.where(y == 1, 1.0, -1.0) * (X @ coef + intercept)
    return np.logaddexp(0, -margins).sum() + 0.5 * coef @ coef


f_star = objective(reference.coef_[0], reference.intercept_[0])

# %%
# One round and the default rule
# ------------------------------
#
# ``sample_size='auto'`` draws 10% of the rows a round (at most 100,000 on a
# dask array). ``max_iter=1`` stops after the first round; the default
# stops when the objective has not improved for ``n_iter_no_change`` rounds.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    one_round = LocalSensitivityLogistic(max_iter=1, random_state=0).fit(X_dask, y_dask)
default = LocalSensitivityLogistic(random_state=0).fit(X_dask, y_dask)
for name, model in (("one round", one_round), ("default", default)):
    error = objective(model.coef_[0], model.intercept_[0]) / f_star - 1
    print(
        f"{name}: {model.n_passes_} passes, {model.n_iter_[0]} rounds, "
        f"relative objective error {error:.1e}"
    )

# %%
# Predictions stay lazy: a dask array, chunked as the rows of X.
labels = default.predict(X_dask)
print(type(labels).__name__, "accuracy", float((labels == y_dask).mean().compute()))

# %%
# The error per pass
# ------------------
#
# ``history_`` holds the objective of the mean form (the sum above divided
# by :math:`C n`) at the centre of every round; entry :math:`t` is known
# after :math:`t + 2` passes (the uniform start, then one per round, whose
# pass also draws the next round's rows; a round whose speculative draws do
# not bound the exact scores takes a second pass, and ``n_passes_`` counts
# it).
history = default.history_[0]["objective"]
errors = history / (f_star / len(y)) - 1
passes = np.arange(len(history)) + 2
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.semilogy(passes, errors, "o-")
ax.set_xlabel("passes over the data")
ax.set_ylabel("relative objective error")
ax.set_title("LocalSensitivityLogistic on a dask array")
fig.tight_layout()
plt.show()

client.close()
cluster.close()
