"""
================================================
Subspace clustering: three planes in 3-D (GPCA)
================================================

:class:`~skcgm.cluster.GPCAClusterer` groups points lying on a union of
subspaces, fitting one subspace per group: generalized principal component
analysis in the sum-of-minimum form of Ding, Chen, Wang and Yin (eq. 1.5,
Algorithm 5). This example clusters points drawn on three planes through the
origin of :math:`\\mathbb{R}^3` and compares, by clustering accuracy,

* the sum-of-minimum model (``model='sum_of_min'``, the default);
* the sum-of-product model of algebraic GPCA solved by block coordinate descent
  (``model='sum_of_product'``, Algorithm 6, the paper's baseline);
* :class:`sklearn.cluster.KMeans`, which looks for compact blobs instead.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

# %%
# Data
# ----
#
# :func:`~skcgm.datasets.make_union_of_subspaces` follows the recipe of the
# paper's Appendix E.1: every plane gets a uniformly random orthonormal basis
# :math:`(e_1, e_2)` and every point standard normal coordinates
# :math:`(\xi_1, \xi_2)` on a uniformly chosen plane. The authors' code
# scales the second coordinate by 0.2, which turns every plane into an
# elongated sheet: ``coordinate_scales=(1, 0.2)`` draws that variant, with the
# same planes, memberships and coordinates for the same ``random_state``.
import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans
from sklearn.metrics import confusion_matrix

from skcgm.cluster import GPCAClusterer
from skcgm.datasets import make_union_of_subspaces


def matching(y_true, y_pred, n_clusters=3):
    """The relabeling of the predicted clusters that agrees most with the truth."""
    counts = confusion_matrix(y_true, y_pred, labels=np.arange(n_clusters))
    rows, cols = linear_sum_assignment(counts, maximize=True)
    relabel = np.empty(n_clusters, dtype=int)
    relabel[cols] = rows
    return relabel


def accuracy(y_true, y_pred):
    """Share of points correctly clustered under the best matching of the labels."""
    return np.mean(matching(y_true, y_pred)[y_pred] == y_true)


# %%
# Fits
# ----
#
# Both GPCA models start from the generalized k-means++ seeding of
# Algorithm 1, in which every point proposes a random plane through itself;
# under the same ``random_state`` they start from the same planes. The
# sum-of-minimum model stops when its partition repeats (at most 50 updates),
# the sum-of-product model makes 50 sweeps, as in the paper's Table 1. Each
# keeps the best of five starts (``n_init=5``). In :math:`\mathbb{R}^3` a
# plane is a hyperplane, so ``subspace_dim=2`` is also the default
# ``subspace_dim=None``. The same planes are drawn with the equal-scale
# coordinates of the appendix and as the elongated sheets of the authors' code.
SHAPES = {"equal scale": None, "elongated": (1.0, 0.2)}
data = {}
for shape, scales in SHAPES.items():
    data[shape], y_true, bases = make_union_of_subspaces(
        n_samples=600,
        n_features=3,
        n_clusters=3,
        subspace_dim=2,
        coordinate_scales=scales,
        random_state=1,
    )
results = {}
for shape, X in data.items():
    models = {
        "sum-of-min": GPCAClusterer(n_clusters=3, n_init=5, random_state=0),
        "sum-of-product": GPCAClusterer(
            n_clusters=3, model="sum_of_product", n_init=5, random_state=0
        ),
        "KMeans": KMeans(n_clusters=3, n_init=10, random_state=0),
    }
    for name, model in models.items():
        results[shape, name] = model.fit(X)
        print(f"{shape:12} {name:15} accuracy {accuracy(y_true, model.labels_):.3f}")

normals = results["elongated", "sum-of-min"].normal_bases_[:, :, 0]
true_normals = np.cross(bases[:, :, 0], bases[:, :, 1])
print("|cos| between fitted (rows) and true (columns) normals, sum-of-min, elongated:")
print(np.abs(normals @ true_normals.T).round(3))

# %%
# The scatter plots color every point by its cluster, relabeled to match the
# truth, and draw each fitted plane (``subspace_bases_``) as a patch in the
# color of its cluster, spanning two standard deviations of its points.


def draw_planes(ax, X, labels, plane_bases, colors):
    """A patch of every plane, spanning two standard deviations of its points."""
    for j, color in enumerate(colors):
        coords = X[labels == j] @ plane_bases[j]
        if len(coords) < 2:
            continue
        u, v = np.meshgrid(*[np.linspace(-2, 2, 2) * c.std() for c in coords.T])
        first, second = plane_bases[j].T
        patch = u[..., None] * first + v[..., None] * second
        ax.plot_surface(*np.moveaxis(patch, -1, 0), color=color, alpha=0.25)


fig = plt.figure(figsize=(14, 7.5))
names = ["truth", "sum-of-min", "sum-of-product", "KMeans"]
limit = np.percentile(np.abs(data["equal scale"]), 99)
for row, (shape, X) in enumerate(data.items()):
    for col, name in enumerate(names):
        ax = fig.add_subplot(2, len(names), row * len(names) + col + 1, projection="3d")
        if name == "truth":
            labels, title = y_true, f"truth, {shape}"
            draw_planes(ax, X, y_true, bases, ["C0", "C1", "C2"])
        else:
            model = results[shape, name]
            relabel = matching(y_true, model.labels_)
            labels = relabel[model.labels_]
            title = f"{name}, accuracy {accuracy(y_true, model.labels_):.2f}"
            if name != "KMeans":
                colors = [f"C{relabel[j]}" for j in range(3)]
                draw_planes(ax, X, model.labels_, model.subspace_bases_, colors)
        ax.scatter(*X.T, c=labels, cmap="tab10", vmin=0, vmax=9, s=3, alpha=0.6)
        ax.set_title(title)
        ax.view_init(elev=25, azim=40)
        ax.set(xlim=(-limit, limit), ylim=(-limit, limit), zlim=(-limit, limit))
        ax.set_xticklabels([])
        ax.set_yticklabels([])
        ax.set_zticklabels([])
fig.tight_layout()

# %%
# On the equal-scale planes (top row) both GPCA models find the three planes;
# only points near the lines where two planes cross could be mistaken. On the
# elongated sheets (bottom row) the sum-of-minimum fit still finds them: each
# fitted normal vector is parallel to one true normal (one :math:`|\cos|`
# equal to 1 in every row of the printed matrix). All five starts of the
# sum-of-product model end with a wrong set of planes on this data set.
# KMeans cuts the cloud around the origin into compact pieces and ignores the
# planes in both cases.
#
# Over several data sets
# ----------------------
#
# The paper's Table 1 reports the mean accuracy of single runs over many
# noiseless data sets of 1000 points; for :math:`k = 3` planes in
# :math:`\mathbb{R}^5` it gives 94.98% for the sum-of-minimum model and
# 62.89% for the product. Here, to keep the example fast, 8 data sets of 500
# points per setting: elongated sheets in :math:`\mathbb{R}^3` as above, and
# three planes in :math:`\mathbb{R}^5` with the equal-scale coordinates of the
# appendix and with the elongated sheets of the authors' code; single runs
# and best of five.
settings = [(3, "elongated"), (5, "equal scale"), (5, "elongated")]
fits = {
    "sum-of-min": dict(model="sum_of_min", n_init=1),
    "sum-of-min, n_init=5": dict(model="sum_of_min", n_init=5),
    "sum-of-product": dict(model="sum_of_product", n_init=1),
    "sum-of-product, n_init=5": dict(model="sum_of_product", n_init=5),
}
n_datasets = 8
scores = {name: np.zeros((len(settings), n_datasets)) for name in fits}
for row, (n_features, shape) in enumerate(settings):
    for seed in range(n_datasets):
        X, y_true, bases = make_union_of_subspaces(
            n_samples=500,
            n_features=n_features,
            n_clusters=3,
            subspace_dim=2,
            coordinate_scales=SHAPES[shape],
            random_state=seed,
        )
        for name, params in fits.items():
            model = GPCAClusterer(
                n_clusters=3, subspace_dim=2, random_state=seed, **params
            )
            scores[name][row, seed] = accuracy(y_true, model.fit_predict(X))

header = "".join(f"  d={d}, {shape:11}" for d, shape in settings)
print(f"{'mean accuracy':26}{header}")
for name, values in scores.items():
    print(f"{name:26}" + "".join(f"  {mean:18.3f}" for mean in values.mean(axis=1)))

# %%
# On the elongated sheets of the authors' code, the data on which the paper's
# Table 1 is reproduced, single runs of the sum-of-minimum model are much more
# accurate than those of the product model, and five restarts take it to 100%,
# while the product model stays near 75% in :math:`\mathbb{R}^5` even with
# restarts. On the equal-scale planes that the paper's appendix describes,
# the product model is as accurate as the sum-of-minimum model, far above the
# paper's 62.89%; a single sum-of-minimum run sometimes stops in a local
# minimum, which restarts fix. ``python -m skcgm reproduce gpca-table1`` runs
# the paper's grid on both kinds of data.
fig, ax = plt.subplots(figsize=(10, 4))
width = 0.2
for offset, (name, values) in enumerate(scores.items()):
    positions = np.arange(len(settings)) + (offset - 1.5) * width
    ax.bar(positions, values.mean(axis=1), width, label=name)
ax.set_xticks(range(len(settings)), [f"d={d}, {shape}" for d, shape in settings])
ax.set_ylim(0.4, 1.02)
ax.set_ylabel(f"mean accuracy over {n_datasets} data sets")
ax.set_title("Three planes: sum-of-min vs sum-of-product GPCA")
ax.legend(loc="lower left")
fig.tight_layout()
plt.show()
