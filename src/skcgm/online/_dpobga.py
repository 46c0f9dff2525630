"""DPOBGA: decentralized projection-free online boosting gradient ascent.

Algorithm 2 of Liao, Wan, Yao and Song: every node runs POBGA on its local
function, after mixing its neighbours' decisions and infeasible points with
a gossip matrix once per block.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from collections.abc import Sequence

import numpy as np

from ..utils._math import scaled_norm
from ..utils._params import RANDOM_STATE
from ..utils._random import as_random_state
from ._boosting import _boosting_z
from ._gossip import _beta, _gossip_weights
from ._pobga import (
    _ascent_target,
    _BlockedBoostedAscent,
    _resolve_schedule,
    _theory_step,
)

__all__ = ["DPOBGA"]


def _is_seed_sequence(random_state):
    return (
        isinstance(random_state, Sequence) and not isinstance(random_state, str)
    ) or (isinstance(random_state, np.ndarray) and random_state.ndim == 1)


def _node_streams(random_state, n_nodes):
    """One RandomState per node.

    A sequence of ``n_nodes`` seeds gives node ``i`` the stream of
    ``random_state[i]``. A single seed makes a root RandomState; when there
    are several nodes, the seeds of nodes 1, ..., N-1 are drawn from it first
    (``root.randint(2**32 - 1, size=N - 1)``, as uint32), and node 0 keeps
    the root stream. With one node nothing is drawn, so node 0's stream is
    POBGA's under the same ``random_state``.
    """
    if _is_seed_sequence(random_state):
        return [as_random_state(seed) for seed in random_state]
    root = as_random_state(random_state)
    seeds = root.randint(np.iinfo(np.uint32).max, size=n_nodes - 1, dtype=np.uint32)
    return [root] + [np.random.RandomState(int(seed)) for seed in seeds]


class DPOBGA(_BlockedBoostedAscent):
    r"""Decentralized projection-free online boosting gradient ascent.

    Algorithm 2: :math:`N` nodes on an undirected graph, node :math:`i`
    playing :math:`x_m^i` throughout block :math:`m` and receiving its local
    function :math:`f_{t,i}`; its regret is measured on the average
    :math:`\frac1N \sum_j f_{t,j}`. At the start of every block each node
    exchanges :math:`(x_m^i, \tilde y_m^i)` with its neighbours (one
    communication round); at the end of the block (eq. 7)

    .. math::

        y_{m+1}^i = \sum_{j \in \mathcal{N}_i} a_{ij} \tilde y_m^j
        + \eta \sum_{t \in \mathcal{T}_m} (1 - 1/e)
        \tilde\nabla f_{t,i}(z_t^i x_m^i), \qquad
        (x_{m+1}^i, \tilde y_{m+1}^i) = \mathcal{O}_{IP}\Big(\mathcal{K},
        \sum_{j \in \mathcal{N}_i} a_{ij} x_m^j, y_{m+1}^i, \epsilon\Big),

    from :math:`x_1^i = \tilde y_1^i = 0`. The nodes update synchronously
    from the snapshot of the exchange (Jacobi style: Algorithm 2 prints the
    loop "for i" outside "for m", which is read as synchronous rounds, the
    only order in which one exchange per block, line 4, makes sense). The
    warm start :math:`\sum_j a_{ij} x_m^j` is a convex combination of
    feasible points, hence feasible. :math:`\eta`,
    :math:`\epsilon` and :math:`K` are POBGA's (Theorem 2 uses Theorem 1's).

    Parameters
    ----------
    lmo : LMO
        Linear minimization oracle of the decision set (shared by all
        nodes); ``lmo.n_features`` must be known.
    horizon : int
        The number of rounds :math:`T`.
    weights : array-like of shape (n_nodes, n_nodes)
        The gossip matrix :math:`A` of Assumption A4: non-negative,
        symmetric, rows summing to 1, :math:`a_{ij} > 0` only on edges and
        the diagonal. Theorem 2 also needs
        :math:`\beta = \max(|\lambda_2|, |\lambda_N|) < 1` (a connected
        graph); a larger :math:`\beta` runs but the nodes need not agree.
    block_size : 'sqrt' or int, default='sqrt'
        The block size :math:`K`, as in :class:`POBGA`.
    preset : {'practical', 'theory'}, default='practical'
        The constants of :math:`\eta`, :math:`\epsilon` and :math:`K`, as in
        :class:`POBGA`.
    eta0 : float, default=None
        :math:`\eta`; overrides the preset.
    eps : float, default=None
        :math:`\epsilon`; overrides the preset.
    radius : float, default=None
        :math:`R`; None takes ``lmo.radius``.
    grad_bound : float, default=None
        :math:`G`. When None with ``preset='practical'``, every node
        estimates it from its own first block, as :class:`POBGA` does (the
        nodes share no scalar; with identical local functions and streams
        the estimates coincide).
    boosting : bool, default=True
        As in :class:`POBGA`.
    max_lmo_calls : int, default=None
        Cap on the LMO calls of one infeasible projection of one node, as in
        :class:`POBGA` (None is :math:`\max(1000, 10K)`).
    random_state : int, RandomState, Generator, sequence of int or None, default=None
        The :math:`z_t^i` streams, one RandomState per node, each drawing once
        per round in :meth:`query_point` in node order. A sequence of
        ``n_nodes`` seeds gives one per node. A single seed makes a root
        stream: with several nodes, the seeds of nodes 1 to N-1 are first
        drawn from it (``root.randint(2**32 - 1, size=N - 1)``) and node 0
        keeps the root; with one node nothing is drawn, so
        ``DPOBGA(lmo, T, [[1.0]], random_state=s)`` reproduces
        ``POBGA(lmo, T, random_state=s)`` exactly.
    verbose : int, default=0
        With ``verbose > 0``, a progress line at every tenth of the horizon
        (see :class:`POBGA`; the reward is the mean over the nodes).

    Attributes
    ----------
    n_nodes_ : int
        The number of nodes :math:`N`.
    mixing_rate_ : float
        :math:`\beta` of the gossip matrix (0 for one node).
    n_features_ : int
        Dimension of the decision set.
    radius_ : float
        The radius :math:`R` used.
    block_size_ : int
        The block size :math:`K`.
    n_blocks_ : int
        :math:`\lceil T/K \rceil`.
    eps_ : float
        The tolerance :math:`\epsilon`.
    eta0_ : float or None
        The step :math:`\eta` when given or derived from ``grad_bound``; None
        when every node estimates its own (see ``eta0_per_node_``).
    eta0_per_node_ : ndarray of shape (n_nodes,)
        The step of every node (NaN until known).
    grad_bound_ : float or None
        The given gradient bound, if any.
    max_lmo_calls_ : int
        The cap on the LMO calls of one infeasible projection of one node.
    n_rounds_ : int
        Rounds completed.
    n_grad_calls_ : int
        Gradient queries of all nodes: :math:`N` per round.
    n_lmo_calls_ : int
        LMO calls of all nodes.
    n_lmo_calls_per_node_ : ndarray of shape (n_nodes,)
        LMO calls of every node (at most :math:`T` each for
        ``preset='theory'``, Theorem 2).
    n_projections_ : int
        Infeasible projection calls of all nodes: :math:`N` per block.
    n_communications_ : int
        Exchange rounds of every node with its neighbours: one per block,
        :math:`\lceil T/K \rceil` in all.
    history_ : dict of list
        One entry per block: ``'dist2'`` (array of
        :math:`\|\sum_j a_{ij} x_m^j - y_{m+1}^i\|^2` over nodes),
        ``'lmo_calls'`` (array over nodes), ``'consensus_error'``
        (:math:`\max_i \|x_m^i - \bar x_m\|` at the exchange) and
        ``'status'`` (list over nodes).

    See Also
    --------
    POBGA : The centralized algorithm (Algorithm 1).
    run_online : Play a learner against a sequence of objectives.

    Notes
    -----
    :meth:`decide` returns the ``(n_nodes, n_features)`` decisions,
    :meth:`query_point` the ``(n_nodes, n_features)`` query points and
    :meth:`update` takes the ``(n_nodes, n_features)`` local gradients (row
    :math:`i` of :math:`f_{t,i}` at row :math:`i` of the query points).

    References
    ----------
    Y. Liao, Y. Wan, C. Yao and M. Song, "Improved projection-free online
    continuous submodular maximization".

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import DPOBGA
    >>> from skcgm.oracles import BoxLMO
    >>> weights = np.array([[0.5, 0.5], [0.5, 0.5]])
    >>> learner = DPOBGA(BoxLMO(n_features=3), horizon=9, weights=weights,
    ...                  random_state=0)
    >>> for t in range(9):
    ...     X = learner.decide()
    ...     Q = learner.query_point()
    ...     learner = learner.update(np.ones((2, 3)))
    >>> X.shape, learner.n_communications_, learner.n_grad_calls_
    ((2, 3), 3, 18)
    """

    _parameter_constraints: dict = {
        **_BlockedBoostedAscent._parameter_constraints,
        "weights": ["array-like"],
        "random_state": [*RANDOM_STATE, "array-like"],
    }
    _decentralized = True

    def __init__(
        self,
        lmo,
        horizon,
        weights,
        *,
        block_size="sqrt",
        preset="practical",
        eta0=None,
        eps=None,
        radius=None,
        grad_bound=None,
        boosting=True,
        max_lmo_calls=None,
        random_state=None,
        verbose=0,
    ):
        self.lmo = lmo
        self.horizon = horizon
        self.weights = weights
        self.block_size = block_size
        self.preset = preset
        self.eta0 = eta0
        self.eps = eps
        self.radius = radius
        self.grad_bound = grad_bound
        self.boosting = boosting
        self.max_lmo_calls = max_lmo_calls
        self.random_state = random_state
        self.verbose = verbose

    def _validate_params(self):
        super()._validate_params()
        owner = type(self).__name__
        # The gossip matrix of Assumption A4 (its mixing rate may be 1).
        self._weights = _gossip_weights(self.weights, 1e-10, negative_slack=0.0)
        self.n_nodes_ = self._weights.shape[0]
        self.mixing_rate_ = _beta(self._weights)
        _resolve_schedule(self, owner)
        # Only the length of a sequence: building the streams would draw from
        # a RandomState given as random_state.
        if _is_seed_sequence(self.random_state) and (
            len(self.random_state) != self.n_nodes_
        ):
            raise ValueError(
                f"The 'random_state' parameter of {owner}, when a sequence, "
                f"must have one entry per node ({self.n_nodes_}); got "
                f"{len(self.random_state)}."
            )

    def _query_shape(self):
        return (self.n_nodes_, self.n_features_)

    def _start(self):
        N, n = self.n_nodes_, self.n_features_
        self._rngs = _node_streams(self.random_state, N)
        self._start_blocks((N, n), ("dist2", "lmo_calls", "consensus_error", "status"))
        self._max_grad_norms = np.zeros(N)
        self.eta0_per_node_ = np.full(N, np.nan if self.eta0_ is None else self.eta0_)
        self.n_lmo_calls_per_node_ = np.zeros(N, dtype=np.int64)

    def _decision(self):
        if self._in_block == 0:
            # Algorithm 2, line 4: the exchange opens the block; what it
            # carries is (x_m^j, y~_m^j), fixed during the block.
            self._x_mix = self._weights @ self._x
            self._y_mix = self._weights @ self._y_tilde
            self.n_communications_ += 1
            x_bar = self._x.mean(axis=0)
            self.history_["consensus_error"].append(
                float(np.max(np.linalg.norm(self._x - x_bar, axis=1)))
            )
        return self._x

    def _query(self):
        if not self._boosting:
            return self._x
        z = np.array([_boosting_z(rng) for rng in self._rngs])
        return z[:, None] * self._x

    def _update(self, gradient):
        if self.eta0_ is None:
            norms = np.array([scaled_norm(row) for row in gradient])
            self._max_grad_norms = np.maximum(self._max_grad_norms, norms)
        self._accumulate(gradient)

    def _node_step(self, i):
        if np.isnan(self.eta0_per_node_[i]) and self._max_grad_norms[i] > 0:
            self.eta0_per_node_[i] = _theory_step(
                self,
                float(self._max_grad_norms[i]),
                f"Row {i} of the 'gradient' passed to {type(self).__name__}.update",
            )
        step = self.eta0_per_node_[i]
        return 0.0 if np.isnan(step) else float(step)

    def _end_block(self):
        # Algorithm 2, lines 11-12, every node from the exchanged snapshot.
        N = self.n_nodes_
        new_x = np.empty_like(self._x)
        new_y = np.empty_like(self._y_tilde)
        dist2 = np.empty(N)
        lmo_calls = np.empty(N, dtype=np.int64)
        statuses = []
        for i in range(N):
            y = _ascent_target(
                self, self._y_mix[i], self._node_step(i), self._grad_sum[i]
            )
            dist2[i] = float(np.sum((self._x_mix[i] - y) ** 2))
            before = self.n_lmo_calls_
            new_x[i], new_y[i], result = self._project(self._x_mix[i], y, node=i)
            lmo_calls[i] = self.n_lmo_calls_ - before
            statuses.append(result.status)
        self.n_lmo_calls_per_node_ += lmo_calls
        self._x, self._y_tilde = new_x, new_y
        self.history_["dist2"].append(dist2)
        self.history_["lmo_calls"].append(lmo_calls)
        self.history_["status"].append(statuses)
        self._grad_sum = np.zeros_like(self._grad_sum)
        self._in_block = 0
