"""Playing an online learner, and the offline comparator of its regret."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import time
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from ..utils._params import RANDOM_STATE, StrictInterval
from ..utils._random import as_random_state
from ..utils._sklearn_compat import HasMethods, validate_params
from ._base import BaseOnlineLearner, _vertex

__all__ = [
    "OnlineResult",
    "alpha_regret",
    "continuous_greedy",
    "run_online",
    "sum_gradient",
]


@dataclass
class OnlineResult:
    """Result of :func:`run_online`.

    A plain record; every field is also an attribute.

    Parameters
    ----------
    rewards : ndarray of shape (n_rounds,)
        :math:`f_t(x_t)` for every round; for a decentralized learner the
        mean over nodes of :math:`\\frac1N \\sum_j f_{t,j}(x_t^i)`.
    decisions : ndarray of shape (n_rounds, n_features) or \
            (n_rounds, n_nodes, n_features)
        The decisions played.
    node_rewards : ndarray of shape (n_rounds, n_nodes) or None
        For a decentralized learner, :math:`\\frac1N \\sum_j f_{t,j}(x_t^i)`
        of every node :math:`i`; None otherwise.
    n_lmo_calls : int
        The learner's LMO calls.
    n_grad_calls : int
        The learner's gradient queries.
    n_projections : int
        The learner's exact or infeasible projections.
    n_communications : int
        The learner's exchange rounds per node.
    wall_time : float
        Seconds spent inside the learner's ``decide``, ``query_point`` and
        ``update`` (the objectives' evaluations excluded).

    See Also
    --------
    run_online : The function that returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import OnlineResult
    >>> result = OnlineResult(np.ones(2), np.zeros((2, 1)), None, 0, 2, 2, 0, 0.1)
    >>> float(result.rewards.sum()), result.n_grad_calls
    (2.0, 2)
    """

    rewards: np.ndarray
    decisions: np.ndarray = field(repr=False)
    node_rewards: np.ndarray = field(repr=False)
    n_lmo_calls: int
    n_grad_calls: int
    n_projections: int
    n_communications: int
    wall_time: float


def _check_objectives(objectives, name="objectives"):
    try:
        n_rounds = len(objectives)
    except TypeError as exc:
        raise ValueError(
            f"The '{name}' parameter must be a sequence with one objective (or "
            "one list of local objectives) per round."
        ) from exc
    if n_rounds == 0:
        raise ValueError(f"The '{name}' parameter must not be empty.")
    return n_rounds


def _local_objectives(objective, n_nodes, t):
    """The N local objectives of round t (one objective is shared by all)."""
    if hasattr(objective, "value"):
        return [objective] * n_nodes
    local = list(objective)
    if len(local) != n_nodes:
        raise ValueError(
            f"The 'objectives' of round {t} must hold one local objective per "
            f"node ({n_nodes}); got {len(local)}."
        )
    return local


@validate_params(
    {
        "learner": [BaseOnlineLearner],
        "objectives": ["array-like"],
        "random_state": RANDOM_STATE,
    },
    prefer_skip_nested_validation=True,
)
def run_online(learner, objectives, random_state=None):
    """Play an online learner against a sequence of objectives.

    The learner is :meth:`~BaseOnlineLearner.reset` and plays
    ``len(objectives)`` rounds (at most its horizon). Round :math:`t` is
    ``x = learner.decide()``, ``q = learner.query_point()``, then
    ``learner.update(g)`` with ``g = objectives[t].stochastic_grad(q, rng)``
    (``objectives[t].grad(q)`` for a learner that needs exact gradients,
    :class:`MetaFW`); the reward is ``objectives[t].value(x)``.

    For a decentralized learner, ``objectives[t]`` is the list of the
    :math:`N` local objectives :math:`f_{t,j}` (or one objective shared by
    all nodes); row :math:`i` of the gradient is
    ``objectives[t][i].stochastic_grad(q[i], rng)``, in node order, and the
    reward of node :math:`i` is :math:`\\frac1N \\sum_j f_{t,j}(x_t^i)`, the
    average function its regret is measured on.

    Parameters
    ----------
    learner : BaseOnlineLearner
        The learner, e.g. :class:`POBGA`.
    objectives : sequence
        One objective per round, each with ``value(x)``, ``grad(x)`` and
        ``stochastic_grad(x, random_state)`` (as
        :class:`QuadraticObjective`); a list of local objectives per round
        for a decentralized learner.
    random_state : int, RandomState instance, Generator or None, default=None
        The stream passed to every ``stochastic_grad`` call (the gradient
        noise), independent of the learner's own stream.

    Returns
    -------
    result : OnlineResult
        Rewards, decisions and the learner's counters.

    See Also
    --------
    alpha_regret : The regret curve of the rewards.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import POBGA, QuadraticObjective, run_online
    >>> from skcgm.oracles import BoxLMO
    >>> H = -np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> objective = QuadraticObjective(H, -H @ np.ones(2))  # monotone on [0, 1]^2
    >>> result = run_online(POBGA(BoxLMO(n_features=2), horizon=100,
    ...                           random_state=0), [objective] * 100)
    >>> result.rewards.shape, result.n_grad_calls, result.n_projections
    ((100,), 100, 10)
    >>> bool(result.rewards[-1] > 0.9 * objective.value(np.ones(2)))
    True
    """
    n_rounds = _check_objectives(objectives)
    rng = as_random_state(random_state)
    learner.reset()
    if n_rounds > learner.horizon:
        raise ValueError(
            f"The 'objectives' parameter of run_online holds {n_rounds} rounds, "
            f"more than the learner's horizon={learner.horizon}."
        )
    decentralized = learner._decentralized
    exact = learner._exact_gradient
    rewards = np.empty(n_rounds)
    decisions = []
    node_rewards = None
    wall_time = 0.0
    for t in range(n_rounds):
        start = time.perf_counter()
        x = learner.decide()
        q = learner.query_point()
        wall_time += time.perf_counter() - start
        objective = objectives[t]
        if decentralized:
            n_nodes = x.shape[0]
            local = _local_objectives(objective, n_nodes, t)
            g = np.array(
                [
                    f.grad(q[i]) if exact else f.stochastic_grad(q[i], rng)
                    for i, f in enumerate(local)
                ]
            )
            values = np.array([[f.value(x[i]) for f in local] for i in range(n_nodes)])
            if node_rewards is None:
                node_rewards = np.empty((n_rounds, n_nodes))
            node_rewards[t] = values.mean(axis=1)
            rewards[t] = node_rewards[t].mean()
        else:
            if q.ndim == 2:  # several query points (Meta-FW's oracles)
                g = np.array(
                    [
                        objective.grad(row)
                        if exact
                        else objective.stochastic_grad(row, rng)
                        for row in q
                    ]
                )
            else:
                g = objective.grad(q) if exact else objective.stochastic_grad(q, rng)
            rewards[t] = objective.value(x)
        start = time.perf_counter()
        # The reward only feeds the progress report of verbose learners.
        learner.update(g, reward=rewards[t])
        wall_time += time.perf_counter() - start
        decisions.append(x)
    return OnlineResult(
        rewards=rewards,
        decisions=np.array(decisions),
        node_rewards=node_rewards,
        n_lmo_calls=int(learner.n_lmo_calls_),
        n_grad_calls=int(learner.n_grad_calls_),
        n_projections=int(learner.n_projections_),
        n_communications=int(learner.n_communications_),
        wall_time=wall_time,
    )


@validate_params(
    {
        "lmo": [HasMethods(["__call__"])],
        "grad": [callable],
        "n_features": [StrictInterval(Integral, 1, None, closed="left")],
        "n_steps": [StrictInterval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def continuous_greedy(lmo, grad, n_features, *, n_steps=100):
    """Maximize by continuous greedy: Frank-Wolfe from 0 with step :math:`1/K`.

    The offline :math:`(1 - 1/e)`-approximation of Bian et al. (2017) for a
    monotone DR-submodular :math:`f` over a down-closed convex set
    containing 0 (the comparator of the online regrets):

    .. math::

        v_k = \\operatorname{argmax}_{v \\in \\mathcal{K}}
        \\langle \\nabla f(x_k), v \\rangle, \\qquad
        x_{k+1} = x_k + \\frac{1}{K} v_k, \\qquad x_0 = 0,

    so :math:`x_K` is an average of :math:`K` vertices, in
    :math:`\\mathcal{K}`, and :math:`f(x_K) \\ge (1 - 1/e) \\max_{\\mathcal{K}}
    f - O(L R^2 / K)`.

    Parameters
    ----------
    lmo : LMO
        Linear minimization oracle of the set (called ``n_steps`` times, on
        :math:`-\\nabla f`).
    grad : callable
        ``grad(x) -> ndarray of shape (n_features,)``, the gradient of
        :math:`f`.
    n_features : int
        The dimension.
    n_steps : int, default=100
        :math:`K`.

    Returns
    -------
    x : ndarray of shape (n_features,)
        :math:`x_K`.

    See Also
    --------
    alpha_regret : Uses it as the comparator.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import continuous_greedy
    >>> from skcgm.oracles import CappedSimplexLMO
    >>> # f(x) = x_1 + 2 x_2 over {x >= 0, x_1 + x_2 <= 1}: the vertex e_2.
    >>> continuous_greedy(CappedSimplexLMO(), lambda x: np.array([1.0, 2.0]), 2)
    array([0., 1.])
    """
    x = np.zeros(n_features)
    for _ in range(n_steps):
        g = np.asarray(grad(x), dtype=np.float64)
        if g.shape != (n_features,):
            raise ValueError(
                f"grad(x) must return shape ({n_features},); got {g.shape}."
            )
        x = x + _vertex(lmo, -g) / n_steps
    return x


def _local(objective):
    """The functions of one round: one objective, or a node's local list."""
    return [objective] if hasattr(objective, "value") else list(objective)


def _is_quadratic(f):
    return isinstance(getattr(f, "H", None), np.ndarray) and isinstance(
        getattr(f, "h", None), np.ndarray
    )


def sum_gradient(objectives):
    r"""The gradient of the summed objectives, :math:`\nabla \sum_t F_t`.

    Each round's objective :math:`F_t = \frac{1}{N_t} \sum_j f_{t,j}` (one
    objective, or the :math:`N_t` local ones of a decentralized round), so
    that :func:`continuous_greedy` can maximize the comparator's function of
    the regret. For quadratic objectives
    :math:`f(x) = \tfrac12 x^\top H x + h^\top x` one streaming pass sums
    :math:`H` and :math:`h` and the gradient is closed form; any other
    objective makes every call a sum over the rounds.

    Parameters
    ----------
    objectives : iterable of objectives
        One per round (an objective, or a sequence of local objectives);
        may be a lazy sequence, iterated again on each call when not
        quadratic.

    Returns
    -------
    grad : callable
        ``grad(x)``, the gradient of the sum at ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import QuadraticObjective, sum_gradient
    >>> f = QuadraticObjective(H=-np.eye(2), h=np.ones(2))
    >>> sum_gradient([f, f])(np.zeros(2))
    array([2., 2.])
    """
    H = h = 0.0
    for objective in objectives:
        local = _local(objective)
        if not all(_is_quadratic(f) for f in local):
            break
        H = H + sum(f.H for f in local) / len(local)
        h = h + sum(f.h for f in local) / len(local)
    else:
        return lambda x: H @ x + h

    def grad(x):
        total = 0.0
        for objective in objectives:
            local = _local(objective)
            total = total + sum(f.grad(x) for f in local) / len(local)
        return total

    return grad


@validate_params(
    {
        "rewards": ["array-like"],
        "objectives": ["array-like"],
        "lmo": [HasMethods(["__call__"]), None],
        "alpha": [StrictInterval(Real, 0, 1, closed="right")],
        "n_steps": [StrictInterval(Integral, 1, None, closed="left")],
        "comparator": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def alpha_regret(
    rewards,
    objectives,
    lmo,
    *,
    alpha=1 - 1 / np.e,
    n_steps=100,
    comparator=None,
):
    """Cumulative :math:`\\alpha`-regret curve against continuous greedy.

    With :math:`\\hat x` the :func:`continuous_greedy` maximizer of
    :math:`\\sum_{t=1}^T f_t` (the horizon's comparator, computed once),

    .. math::

        R_{t,\\alpha} = \\alpha \\sum_{s \\le t} f_s(\\hat x)
        - \\sum_{s \\le t} r_s, \\qquad t = 1, \\dots, T,

    so the last entry is the :math:`\\alpha`-regret of Section 1 (with the
    :math:`\\alpha` that the introduction's formula drops and the DOCSM
    definition and eq. 10 keep)
    against :math:`\\hat x`; the earlier entries use the same fixed
    comparator. For decentralized objectives (a list of local functions per
    round), :math:`f_t` is their average, as in the per-node regret
    :math:`R^i_{T,\\alpha}`. Continuous greedy only guarantees
    :math:`f(\\hat x) \\ge (1 - 1/e) \\max f`, so the regret is measured
    against a lower bound of the optimum; on i.i.d. streams it is often
    negative (the learners beat :math:`1 - 1/e`).

    Parameters
    ----------
    rewards : array-like of shape (n_rounds,)
        The rewards :math:`r_t` (``OnlineResult.rewards``).
    objectives : sequence of length n_rounds
        The objectives played (each with ``value`` and ``grad``), or a list
        of local objectives per round.
    lmo : LMO or None
        Linear minimization oracle of the decision set; its ``n_features``
        must be known unless ``comparator`` is given (then it is unused and
        may be None).
    alpha : float, default=1 - 1/e
        The approximation ratio :math:`\\alpha \\in (0, 1]`.
    n_steps : int, default=100
        Steps of continuous greedy.
    comparator : array-like of shape (n_features,), default=None
        A precomputed :math:`\\hat x` (skips continuous greedy; e.g. to share
        one comparator between learners).

    Returns
    -------
    regret : ndarray of shape (n_rounds,)
        The cumulative :math:`\\alpha`-regret after every round.

    See Also
    --------
    continuous_greedy : The comparator.
    run_online : Produces the rewards.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import QuadraticObjective, alpha_regret
    >>> from skcgm.oracles import BoxLMO
    >>> objective = QuadraticObjective(-np.eye(2), np.ones(2))  # max at 1
    >>> regret = alpha_regret([0.0, 1.0], [objective] * 2, BoxLMO(n_features=2),
    ...                       alpha=1.0)
    >>> regret
    array([1., 1.])
    """
    rewards = np.asarray(rewards, dtype=np.float64)
    n_rounds = _check_objectives(objectives)
    if rewards.shape != (n_rounds,):
        raise ValueError(
            f"The 'rewards' parameter must have shape ({n_rounds},), one per "
            f"objective; got {rewards.shape}."
        )
    if comparator is None:
        n_features = getattr(lmo, "n_features", None)
        if n_features is None:
            raise ValueError(
                "alpha_regret needs lmo.n_features to run continuous greedy: "
                "pass n_features=... to the LMO, or give comparator."
            )
        comparator = continuous_greedy(
            lmo, sum_gradient(objectives), n_features, n_steps=n_steps
        )
    comparator = np.asarray(comparator, dtype=np.float64)
    best = np.empty(n_rounds)
    for t, objective in enumerate(objectives):
        local = _local(objective)
        best[t] = sum(f.value(comparator) for f in local) / len(local)
    return np.cumsum(alpha * best - rewards)
