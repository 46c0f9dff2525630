"""Gossip matrices and communication graphs of decentralized learning.

Assumption A4 of Liao et al.: the weight matrix :math:`A \\in
\\mathbb{R}_+^{N \\times N}` is supported on the graph (:math:`a_{ij} > 0`
only for an edge or :math:`i = j`), symmetric, doubly stochastic, and

.. math::

    \\beta = \\max(|\\lambda_2(A)|, |\\lambda_N(A)|) < 1,

with eigenvalues in decreasing order; the bounds of Theorem 2 grow with
:math:`1/(1 - \\beta)`. Graphs are boolean symmetric adjacency matrices
without self loops (networkx graphs are accepted where an adjacency is, when
networkx is installed; it is never required).
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral, Real

import numpy as np
from scipy.sparse.csgraph import connected_components

from ..utils._params import RANDOM_STATE, StrictInterval
from ..utils._random import as_rng
from ..utils._sklearn_compat import validate_params
from ..utils._validation import check_matrix

__all__ = [
    "check_gossip_matrix",
    "complete_graph",
    "cycle_graph",
    "erdos_renyi_graph",
    "grid_graph",
    "metropolis_weights",
    "mixing_rate",
    "spectral_gap",
]

# A number of nodes, rows, columns or tries.
_COUNT = [StrictInterval(Integral, 1, None, closed="left")]


def _check_adjacency(adjacency, name="adjacency"):
    """A boolean symmetric matrix without self loops (a copy)."""
    module = type(adjacency).__module__ or ""
    if module.split(".")[0] == "networkx":
        import networkx as nx  # optional; only reached for a networkx graph

        if adjacency.is_directed():
            raise ValueError(f"{name} must be an undirected graph.")
        adjacency = nx.to_numpy_array(adjacency, weight=None)
    matrix = check_matrix(
        adjacency,
        name,
        square=True,
        accepted="a square adjacency matrix (or a networkx graph)",
    )
    edges = matrix != 0
    np.fill_diagonal(edges, False)
    if not np.array_equal(edges, edges.T):
        raise ValueError(f"{name} must be symmetric (an undirected graph).")
    return edges


def metropolis_weights(adjacency):
    """Build the Metropolis-Hastings gossip matrix of a graph (Xiao et al. 2007).

    .. math::

        a_{ij} = \\frac{1}{1 + \\max(d_i, d_j)} \\ \\text{for an edge } (i, j),
        \\qquad a_{ii} = 1 - \\sum_{j \\ne i} a_{ij},

    with :math:`d_i` the degree of node :math:`i`. The matrix is symmetric,
    doubly stochastic, non-negative and supported on the graph; it satisfies
    Assumption A4 (:math:`\\beta < 1`) iff the graph is connected.

    Parameters
    ----------
    adjacency : array-like of shape (n_nodes, n_nodes) or networkx.Graph
        Symmetric adjacency; a non-zero off-diagonal entry is an edge, the
        diagonal is ignored. A networkx graph (when networkx is installed)
        is read in the order of its nodes.

    Returns
    -------
    weights : ndarray of shape (n_nodes, n_nodes)
        The gossip matrix :math:`A`.

    See Also
    --------
    check_gossip_matrix : Checks Assumption A4.
    mixing_rate : The :math:`\\beta` of A4.

    Examples
    --------
    >>> from skcgm.online._gossip import cycle_graph, metropolis_weights
    >>> metropolis_weights(cycle_graph(3)) * 3
    array([[1., 1., 1.],
           [1., 1., 1.],
           [1., 1., 1.]])
    """
    edges = _check_adjacency(adjacency)
    degree = edges.sum(axis=1)
    weights = np.where(
        edges, 1.0 / (1.0 + np.maximum(degree[:, None], degree[None, :])), 0.0
    )
    np.fill_diagonal(weights, 1.0 - weights.sum(axis=1))
    return weights


def mixing_rate(weights):
    """Second largest eigenvalue magnitude :math:`\\beta` of a gossip matrix (A4).

    .. math::

        \\beta = \\max(|\\lambda_2(A)|, |\\lambda_N(A)|),

    eigenvalues in decreasing order (0 for a single node). Disagreement
    between nodes contracts by :math:`\\beta` per gossip round
    (:math:`\\|\\mathbf{1}\\mathbf{1}^\\top/N - A^k\\| \\le \\beta^k`).

    Parameters
    ----------
    weights : array-like of shape (n_nodes, n_nodes)
        Symmetric gossip matrix.

    Returns
    -------
    beta : float
        The mixing rate.

    See Also
    --------
    spectral_gap : :math:`1 - \\beta`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online._gossip import mixing_rate
    >>> round(mixing_rate(np.array([[0.75, 0.25], [0.25, 0.75]])), 6)
    0.5
    """
    weights = check_matrix(weights, "weights", square=True)
    scale = max(1.0, float(np.max(np.abs(weights))))
    if not np.allclose(weights, weights.T, rtol=0.0, atol=1e-12 * scale):
        raise ValueError("weights must be symmetric.")
    return _beta(weights)


def _beta(weights):
    """The mixing rate of a validated, (nearly) symmetric gossip matrix."""
    if weights.shape[0] == 1:
        return 0.0
    eigenvalues = np.linalg.eigvalsh((weights + weights.T) / 2.0)  # ascending
    return float(max(abs(eigenvalues[-2]), abs(eigenvalues[0])))


def spectral_gap(weights):
    """Spectral gap :math:`1 - \\beta` of a gossip matrix.

    Parameters
    ----------
    weights : array-like of shape (n_nodes, n_nodes)
        Symmetric gossip matrix.

    Returns
    -------
    gap : float
        :math:`1 - \\beta`, positive under Assumption A4.

    See Also
    --------
    mixing_rate : :math:`\\beta`.

    Examples
    --------
    >>> from skcgm.online._gossip import (
    ...     complete_graph, metropolis_weights, spectral_gap)
    >>> round(spectral_gap(metropolis_weights(complete_graph(4))), 6)
    1.0
    """
    return 1.0 - mixing_rate(weights)


def _gossip_weights(weights, tol, *, negative_slack):
    """A float64 copy of a non-negative, symmetric, doubly stochastic matrix.

    Symmetry and the row sums are tested to ``tol``, the signs to
    ``negative_slack``; a ValueError names the first violated condition.
    """
    weights = check_matrix(weights, "weights", square=True)
    if np.min(weights) < -negative_slack:
        raise ValueError("weights must be non-negative (Assumption A4).")
    if not np.allclose(weights, weights.T, rtol=0.0, atol=tol):
        raise ValueError("weights must be symmetric (Assumption A4).")
    if not np.allclose(weights.sum(axis=1), 1.0, rtol=0.0, atol=tol):
        raise ValueError(
            "weights must be doubly stochastic, with rows summing to 1 (Assumption A4)."
        )
    return weights


@validate_params(
    {"tol": [StrictInterval(Real, 0, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def check_gossip_matrix(weights, adjacency=None, *, tol=1e-10):
    """Check Assumption A4 and return the gossip matrix as float64.

    Raises a ValueError naming the first violated condition: non-negative
    entries, support on the graph (when ``adjacency`` is given: :math:`a_{ij}
    > 0` only for an edge or :math:`i = j`), symmetry, unit row sums (with
    symmetry, double stochasticity) and :math:`\\beta < 1`.

    Parameters
    ----------
    weights : array-like of shape (n_nodes, n_nodes)
        The gossip matrix :math:`A`.
    adjacency : array-like of shape (n_nodes, n_nodes), networkx.Graph or None, \
default=None
        The communication graph; None skips the support check.
    tol : float, default=1e-10
        Absolute tolerance of every test (:math:`\\beta \\le 1 - tol`).

    Returns
    -------
    weights : ndarray of shape (n_nodes, n_nodes)
        A float64 copy of ``weights``.

    See Also
    --------
    metropolis_weights : A matrix that passes on connected graphs.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online._gossip import check_gossip_matrix
    >>> check_gossip_matrix(np.full((2, 2), 0.5))
    array([[0.5, 0.5],
           [0.5, 0.5]])
    >>> check_gossip_matrix(np.eye(2))
    Traceback (most recent call last):
    ...
    ValueError: weights must have a mixing rate beta < 1 ...
    """
    weights = _gossip_weights(weights, tol, negative_slack=tol)
    n_nodes = weights.shape[0]
    if adjacency is not None:
        edges = _check_adjacency(adjacency)
        if edges.shape[0] != n_nodes:
            raise ValueError(
                f"adjacency has {edges.shape[0]} nodes but weights has {n_nodes}."
            )
        allowed = edges | np.eye(n_nodes, dtype=bool)
        if np.any(weights[~allowed] > tol):
            raise ValueError(
                "weights must be supported on the graph: a_ij > 0 only for an "
                "edge (i, j) or i = j (Assumption A4)."
            )
    beta = mixing_rate(weights)
    if not beta <= 1.0 - tol:
        raise ValueError(
            "weights must have a mixing rate beta < 1 (Assumption A4); got "
            f"beta = {beta!r} (is the graph connected?)."
        )
    return weights


@validate_params({"n_nodes": _COUNT}, prefer_skip_nested_validation=True)
def complete_graph(n_nodes):
    """Adjacency of the complete graph.

    Parameters
    ----------
    n_nodes : int
        Number of nodes (>= 1).

    Returns
    -------
    adjacency : ndarray of shape (n_nodes, n_nodes), dtype=bool
        True off the diagonal.

    See Also
    --------
    cycle_graph, grid_graph, erdos_renyi_graph : Sparser graphs.

    Examples
    --------
    >>> from skcgm.online._gossip import complete_graph
    >>> complete_graph(3).astype(int)
    array([[0, 1, 1],
           [1, 0, 1],
           [1, 1, 0]])
    """
    return ~np.eye(n_nodes, dtype=bool)


@validate_params({"n_nodes": _COUNT}, prefer_skip_nested_validation=True)
def cycle_graph(n_nodes):
    """Adjacency of the cycle (ring) :math:`0 - 1 - \\dots - (N-1) - 0`.

    Parameters
    ----------
    n_nodes : int
        Number of nodes (>= 1); 1 node has no edge, 2 nodes one.

    Returns
    -------
    adjacency : ndarray of shape (n_nodes, n_nodes), dtype=bool
        The ring.

    See Also
    --------
    complete_graph, grid_graph, erdos_renyi_graph : Other graphs.

    Examples
    --------
    >>> from skcgm.online._gossip import cycle_graph
    >>> cycle_graph(4).astype(int)
    array([[0, 1, 0, 1],
           [1, 0, 1, 0],
           [0, 1, 0, 1],
           [1, 0, 1, 0]])
    """
    adjacency = np.zeros((n_nodes, n_nodes), dtype=bool)
    if n_nodes > 1:
        nodes = np.arange(n_nodes)
        adjacency[nodes, (nodes + 1) % n_nodes] = True
        adjacency |= adjacency.T
    return adjacency


@validate_params({"rows": _COUNT, "cols": _COUNT}, prefer_skip_nested_validation=True)
def grid_graph(rows, cols):
    """Adjacency of the 2-D grid (4-neighbours), node ``r * cols + c``.

    Parameters
    ----------
    rows : int
        Number of rows (>= 1).
    cols : int
        Number of columns (>= 1).

    Returns
    -------
    adjacency : ndarray of shape (rows * cols, rows * cols), dtype=bool
        The grid.

    See Also
    --------
    complete_graph, cycle_graph, erdos_renyi_graph : Other graphs.

    Examples
    --------
    >>> from skcgm.online._gossip import grid_graph
    >>> grid_graph(2, 2).sum(axis=1)
    array([2, 2, 2, 2])
    """
    index = np.arange(rows * cols).reshape(rows, cols)
    adjacency = np.zeros((rows * cols, rows * cols), dtype=bool)
    adjacency[index[:, :-1].ravel(), index[:, 1:].ravel()] = True
    adjacency[index[:-1, :].ravel(), index[1:, :].ravel()] = True
    return adjacency | adjacency.T


@validate_params(
    {
        "n_nodes": _COUNT,
        "p": [StrictInterval(Real, 0, 1, closed="both")],
        "random_state": RANDOM_STATE,
        "max_tries": _COUNT,
    },
    prefer_skip_nested_validation=True,
)
def erdos_renyi_graph(n_nodes, p, random_state=None, *, max_tries=1000):
    """Connected Erdős-Rényi graph :math:`G(N, p)`, resampled until connected.

    Each try draws an ``(n_nodes, n_nodes)`` uniform matrix from the stream
    and keeps the pairs :math:`i < j` with :math:`u_{ij} < p`; the first
    connected draw is returned (so the law is :math:`G(N, p)` conditioned on
    connectivity).

    Parameters
    ----------
    n_nodes : int
        Number of nodes (>= 1).
    p : float
        Edge probability in (0, 1] (0 is allowed for a single node).
    random_state : None, int, RandomState or Generator, default=None
        The random stream.
    max_tries : int, default=1000
        Draws before giving up with a ValueError (raise ``p``).

    Returns
    -------
    adjacency : ndarray of shape (n_nodes, n_nodes), dtype=bool
        A connected graph.

    See Also
    --------
    complete_graph, cycle_graph, grid_graph : Deterministic graphs.

    Examples
    --------
    >>> from scipy.sparse.csgraph import connected_components
    >>> from skcgm.online._gossip import erdos_renyi_graph
    >>> adjacency = erdos_renyi_graph(10, 0.3, random_state=0)
    >>> connected_components(adjacency, directed=False)[0]
    1
    """
    if p == 0 and n_nodes > 1:
        raise ValueError("p must be > 0 for a connected graph on more than one node.")
    rng = as_rng(random_state)
    upper = np.triu(np.ones((n_nodes, n_nodes), dtype=bool), k=1)
    for _ in range(max_tries):
        adjacency = (rng.uniform(size=(n_nodes, n_nodes)) < p) & upper
        adjacency |= adjacency.T
        if connected_components(adjacency, directed=False)[0] == 1:
            return adjacency
    raise ValueError(
        f"No connected G({n_nodes}, {p}) graph in max_tries={max_tries} draws; "
        "increase p (connectivity needs p of order log(n_nodes) / n_nodes)."
    )
