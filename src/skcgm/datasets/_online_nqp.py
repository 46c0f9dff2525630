"""Online monotone NQP streams over a down-closed polytope.

The standard benchmark of online DR-submodular maximization: rewards

.. math::

    f_t(x) = \\frac12 x^\\top H_t x + h_t^\\top x, \\qquad h_t = -H_t u,
    \\quad u = \\mathbf{1},

with symmetric :math:`H_t \\le 0` entrywise, over :math:`\\mathcal{K} =
\\{x \\in [0, 1]^n : A x \\le \\mathbf{1}\\}`, :math:`A \\sim
\\mathcal{U}[0, 1]^{m \\times n}`. Then :math:`\\nabla f_t(x) = H_t (x - u)
\\ge 0` on :math:`[0, u]` (monotone), :math:`f_t` is DR-submodular
(:math:`H_t \\le 0`) and :math:`f_t(0) = 0` (Assumption A2).
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import math
from collections.abc import Sequence
from numbers import Integral, Real

import numpy as np

from ..online import QuadraticObjective
from ..oracles import DownClosedPolytopeLMO
from ..utils._params import RANDOM_STATE, StrictInterval
from ..utils._random import as_rng
from ..utils._sklearn_compat import StrOptions, validate_params

__all__ = ["make_decentralized_nqp", "make_online_nqp"]

_COUNT = [StrictInterval(Integral, 1, None, closed="left")]
# The parameters of both generators.
_NQP_CONSTRAINTS = {
    "n_features": _COUNT,
    "n_constraints": _COUNT,
    "horizon": _COUNT,
    "adversary": [StrOptions({"iid", "switching", "fixed"})],
    "noise": [StrictInterval(Real, 0, None, closed="left")],
    "random_state": RANDOM_STATE,
}
# The 'switching' adversary: two regimes alternating every ceil(T / 10)
# rounds; each regime weights its half of the coordinates by 1, the other
# half by _SWITCHING_LOW, so that the best decision moves between regimes.
_N_SWITCHES = 10
_SWITCHING_LOW = 0.2
_SEED_HIGH = 2**31 - 1


def _nqp_matrix(rng, n_features, weights=None):
    """``H = -W sym(M) W / n`` with ``M ~ U[0, 1]^{n x n}``: entries in [-1/n, 0]."""
    M = rng.uniform(size=(n_features, n_features))
    H = -(M + M.T) / (2.0 * n_features)
    if weights is not None:
        H = weights[:, None] * H * weights[None, :]
    return H


def _objective(H, noise):
    return QuadraticObjective(H, -H.sum(axis=1), noise=noise)


class _NQPStream(Sequence):
    """Read-only sequence of the rounds' objectives, built on access.

    Round ``t`` of the 'iid' adversary is rebuilt from its own seed at every
    access (equal, not identical, objects), so memory is O(horizon) instead
    of O(horizon n^2); 'fixed' and 'switching' share a few objects.
    """

    def __init__(self, horizon, n_features, n_nodes, noise, adversary, seeds, pool):
        self.horizon = horizon
        self.n_features = n_features
        self.n_nodes = n_nodes  # None: centralized, round t is one objective
        self.noise = noise
        self.adversary = adversary
        self._seeds = seeds
        self._pool = pool

    def __len__(self):
        return self.horizon

    def __repr__(self):
        nodes = "" if self.n_nodes is None else f", n_nodes={self.n_nodes}"
        return (
            f"<{self.horizon} online NQP rounds, n_features={self.n_features}"
            f"{nodes}, adversary={self.adversary!r}, noise={self.noise!r}>"
        )

    def __getitem__(self, t):
        if isinstance(t, slice):
            return [self._round(i) for i in range(*t.indices(self.horizon))]
        if isinstance(t, bool) or not isinstance(t, Integral):
            raise TypeError(f"round indices must be integers or slices; got {t!r}.")
        t = int(t)
        if t < 0:
            t += self.horizon
        if not 0 <= t < self.horizon:
            raise IndexError(f"round {t} out of range for horizon {self.horizon}.")
        return self._round(t)

    def _round(self, t):
        n_nodes = 1 if self.n_nodes is None else self.n_nodes
        if self.adversary == "iid":
            rng = np.random.RandomState(self._seeds[t])
            nodes = [
                _objective(_nqp_matrix(rng, self.n_features), self.noise)
                for _ in range(n_nodes)
            ]
        elif self.adversary == "fixed":
            nodes = self._pool[0]
        else:
            block = math.ceil(self.horizon / _N_SWITCHES)
            nodes = self._pool[(t // block) % 2]
        return nodes[0] if self.n_nodes is None else list(nodes)


def _make_nqp(n_features, n_constraints, horizon, n_nodes, adversary, noise, rng):
    """The shared recipe; ``n_nodes=None`` is the centralized stream."""
    A = rng.uniform(size=(n_constraints, n_features))
    lmo = DownClosedPolytopeLMO(A, np.ones(n_constraints), upper=1.0)
    n_local = 1 if n_nodes is None else n_nodes
    seeds, pool = None, None
    if adversary == "iid":
        if isinstance(rng, np.random.Generator):
            seeds = rng.integers(_SEED_HIGH, size=horizon)
        else:
            seeds = rng.randint(_SEED_HIGH, size=horizon)
    elif adversary == "fixed":
        pool = [
            [_objective(_nqp_matrix(rng, n_features), noise) for _ in range(n_local)]
        ]
    else:
        halves = np.array_split(rng.permutation(n_features), 2)
        pool = []
        for half in halves:
            weights = np.full(n_features, _SWITCHING_LOW)
            weights[half] = 1.0
            pool.append(
                [
                    _objective(_nqp_matrix(rng, n_features, weights), noise)
                    for _ in range(n_local)
                ]
            )
    stream = _NQPStream(
        horizon, n_features, n_nodes, float(noise), adversary, seeds, pool
    )
    return lmo, stream


@validate_params(_NQP_CONSTRAINTS, prefer_skip_nested_validation=True)
def make_online_nqp(
    n_features,
    n_constraints,
    horizon,
    *,
    adversary="iid",
    noise=0.1,
    random_state=None,
):
    """Generate an online monotone NQP stream over a down-closed polytope.

    The NQP benchmark of Chen et al. (2018b), for POBGA and its baselines:
    :math:`\\mathcal{K} = \\{x \\in [0, 1]^n : A x \\le \\mathbf{1}\\}` with
    :math:`A \\sim \\mathcal{U}[0, 1]^{m \\times n}`, and rewards
    :math:`f_t(x) = \\frac12 x^\\top H_t x + h_t^\\top x`, monotone
    DR-submodular with :math:`f_t(0) = 0`.

    The matrices are :math:`H = -(M + M^\\top) / (2n)` with :math:`M \\sim
    \\mathcal{U}[0, 1]^{n \\times n}` and :math:`h = -H \\mathbf{1}`: the
    :math:`1/n` scaling keeps the smoothness :math:`L = \\|H\\|_2 \\le 1`
    (about 1/2) and every gradient entry in :math:`[0, 1]`, so :math:`G \\le
    \\sqrt{n} + \\delta`, while :math:`R \\le \\|u\\| = \\sqrt{n}` (the
    lmo's ``radius``). Adversaries:

    - ``'iid'``: a fresh :math:`H_t` every round (stochastic setting);
    - ``'switching'``: two regimes alternating every :math:`\\lceil T / 10
      \\rceil` rounds; regime :math:`k` weights a random half of the
      coordinates by 1 and the other half by 0.2 (:math:`H = -W
      \\operatorname{sym}(M) W / n`, :math:`W` diagonal), so that the best
      decision moves and the regret is non-trivial;
    - ``'fixed'``: one :math:`H` for every round; the only randomness is
      the gradient noise.

    In every case each objective carries ``noise`` (bounded, unbiased
    sphere noise of :class:`~skcgm.online.QuadraticObjective`, Assumption
    A3).

    Parameters
    ----------
    n_features : int
        Dimension :math:`n`.
    n_constraints : int
        Number :math:`m` of packing constraints.
    horizon : int
        Number of rounds :math:`T`.
    adversary : {'iid', 'switching', 'fixed'}, default='iid'
        How the objectives change over rounds.
    noise : float, default=0.1
        Norm :math:`\\delta \\ge 0` of the gradient noise of every objective.
    random_state : None, int, RandomState or Generator, default=None
        Draws, in this order: :math:`A`; then for 'iid' one seed per round
        (round :math:`t` draws its matrix from ``RandomState(seed_t)``), for
        'fixed' the matrix, for 'switching' the permutation splitting the
        coordinates and the two matrices.

    Returns
    -------
    lmo : DownClosedPolytopeLMO
        The oracle of :math:`\\mathcal{K}` (``upper=1.0``, ``b`` all ones).
    objectives : sequence of QuadraticObjective of length horizon
        ``objectives[t]`` is :math:`f_t`. A read-only sequence (``len``,
        indexing, slicing, iteration): round :math:`t` of 'iid' is built on
        access from its seed, so memory is :math:`O(T)` rather than
        :math:`O(T n^2)`; ``list(objectives)`` materializes it.

    See Also
    --------
    make_decentralized_nqp : The same stream split over the nodes of a network.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.datasets import make_online_nqp
    >>> lmo, objectives = make_online_nqp(5, 2, horizon=100, random_state=0)
    >>> len(objectives), lmo.n_features
    (100, 5)
    >>> f = objectives[0]
    >>> f.value(np.zeros(5)), f.is_dr_submodular(), f.is_monotone_on(1.0)
    (0.0, True, True)
    """
    return _make_nqp(
        n_features, n_constraints, horizon, None, adversary, noise, as_rng(random_state)
    )


@validate_params(
    {**_NQP_CONSTRAINTS, "n_nodes": _COUNT}, prefer_skip_nested_validation=True
)
def make_decentralized_nqp(
    n_features,
    n_constraints,
    horizon,
    n_nodes,
    *,
    adversary="iid",
    noise=0.1,
    random_state=None,
):
    """Generate a decentralized online monotone NQP stream (DOCSM).

    The NQP benchmark of :func:`make_online_nqp`, split over nodes: the set of
    :func:`make_online_nqp`, shared by all nodes, and node :math:`i`'s local
    reward at round :math:`t`, :math:`f_{t,i}(x) = \\frac12 x^\\top H_{t,i} x
    + h_{t,i}^\\top x`, with independent :math:`H_{t,i}`; the global reward
    is their average :math:`\\frac1N \\sum_i f_{t,i}`. The matrices,
    the scaling and the adversaries are those of :func:`make_online_nqp`,
    drawn independently for every node.
    With ``n_nodes=1`` and the same ``random_state``, ``objectives[t][0]``
    equals round :math:`t` of :func:`make_online_nqp`.

    Parameters
    ----------
    n_features : int
        Dimension :math:`n`.
    n_constraints : int
        Number :math:`m` of packing constraints.
    horizon : int
        Number of rounds :math:`T`.
    n_nodes : int
        Number of nodes :math:`N`.
    adversary : {'iid', 'switching', 'fixed'}, default='iid'
        How the objectives change over rounds (each node has its own
        matrices in every regime).
    noise : float, default=0.1
        Norm :math:`\\delta \\ge 0` of the gradient noise of every objective.
    random_state : None, int, RandomState or Generator, default=None
        Draws as :func:`make_online_nqp`, the nodes' matrices in node order
        (for 'iid', round :math:`t` draws the :math:`N` matrices from
        ``RandomState(seed_t)``).

    Returns
    -------
    lmo : DownClosedPolytopeLMO
        The oracle of :math:`\\mathcal{K}`.
    objectives : sequence of length horizon of lists of QuadraticObjective
        ``objectives[t][i]`` is :math:`f_{t,i}`; a read-only sequence built on
        access, as in :func:`make_online_nqp`.

    See Also
    --------
    make_online_nqp : The centralized stream.

    Examples
    --------
    >>> from skcgm.datasets import make_decentralized_nqp
    >>> lmo, objectives = make_decentralized_nqp(4, 2, 50, n_nodes=3, random_state=0)
    >>> len(objectives), len(objectives[0]), objectives[0][2].n_features
    (50, 3, 4)
    """
    return _make_nqp(
        n_features,
        n_constraints,
        horizon,
        n_nodes,
        adversary,
        noise,
        as_rng(random_state),
    )
