"""
===============================================
Sum-of-minimum k-means on a dask array
===============================================

:class:`~skcgm.cluster.SumOfMinKMeans` fits a :class:`dask.array.Array`
chunk by chunk: the seeding (k-means|| with the paper's gap scores) and every
Lloyd iteration run as one task per chunk on the cluster's workers, and only
the group sums and counts come back. This example runs a small
:class:`~distributed.LocalCluster`, checks that the dask fit gives the
in-memory centers from the same start, and plots the objective per
iteration of both.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

# %%
# A cluster and data that live on it
# ----------------------------------
#
# The rows are drawn on the workers, chunk by chunk; here they are small
# enough to be computed into memory too, for the comparison.
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster

from skcgm.cluster import SumOfMinKMeans

cluster = LocalCluster(
    n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
)
client = Client(cluster)

rng = da.random.RandomState(0)
centers = np.random.RandomState(0).normal(scale=4, size=(8, 5))
labels = rng.randint(0, 8, size=200_000, chunks=25_000)
X = rng.normal(size=(200_000, 5), chunks=(25_000, 5)) + da.from_array(centers)[labels]
X = X.persist()

# %%
# The same start, in memory and on the chunks
# -------------------------------------------
start = np.asarray(X[:8].compute())
on_chunks = SumOfMinKMeans(8, init=start, n_init=1, tol=0).fit(X)
in_memory = SumOfMinKMeans(8, init=start, n_init=1, tol=0).fit(X.compute())
gap = np.abs(on_chunks.cluster_centers_ - in_memory.cluster_centers_).max()
print(f"largest difference of the centers: {gap:.1e}")
print(f"iterations: {on_chunks.n_iter_} (dask) and {in_memory.n_iter_} (memory)")
print(f"passes over the data: {on_chunks.n_passes_}")

# %%
# The default seeding on the chunks
# ---------------------------------
#
# ``init='k-means++'`` on a dask array draws candidates in a few passes
# (k-means||), weights them by the rows closest to each, and seeds on them in
# memory with the paper's Algorithm 1 and Lloyd's algorithm.
seeded = SumOfMinKMeans(8, random_state=0).fit(X)
print(f"inertia, k-means|| seeding: {seeded.inertia_:.4g}")
print(f"passes over the data: {seeded.n_passes_}")
print("labels stay lazy:", type(seeded.labels_).__name__)

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.plot(on_chunks.objective_history_, "o-", label="dask, first rows as start")
ax.plot(in_memory.objective_history_, "x--", label="memory, same start")
ax.plot(seeded.objective_history_, "s-", label="dask, k-means|| seeding")
ax.set_xlabel("iteration")
ax.set_ylabel("objective F")
ax.set_yscale("log")
ax.legend()
fig.tight_layout()
plt.show()

client.close()
cluster.close()
