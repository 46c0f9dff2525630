"""Frank-Wolfe policy optimization over per-state finite action sets (SFWPO).

Algorithm 5 of Xu, Song, Shrivastava et al., "Breaking the linear iteration
cost barrier for some well-known conditional gradient methods using MaxIP
data-structures" (NeurIPS 2021), itself the Frank-Wolfe policy optimization
of Lin et al. (2021, the paper's reference [5]) with one maximum-inner-product
index per state, on a tabular model where the policy's value, Q-values and
action gradients are computed exactly.
"""

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ...oracles._mips import LSHMIPS, ExactMIPS
from ...utils._params import StrictInterval
from ...utils._random import MAX_SEED
from ...utils._sklearn_compat import StrOptions, validate_params
from ._mdp import ActionConstrainedMDP

__all__ = ["SFWPOResult", "sfwpo"]

# Doublings of the smoothness estimate tried before giving up on a step.
_MAX_BACKTRACK = 60


@dataclass
class SFWPOResult:
    """Result of :func:`sfwpo`.

    A plain record; every field is also an attribute. Histories are indexed
    by the iterate: entry ``k`` describes the policy :math:`\\pi^k`, for
    ``k = 0, ..., n_iter`` (the gap and the oracle call are also made at the
    last policy, as the stopping certificate).

    Parameters
    ----------
    policy : ndarray of shape (n_states, action_dim)
        The last deterministic policy :math:`\\pi^T(s) \\in
        \\mathrm{conv}\\, \\mathcal{C}(s)`, one action per row.
    weights : ndarray of shape (n_states, n_actions)
        Convex weights of the actions: ``policy[s] = weights[s] @
        mdp.actions[s]``.
    value : ndarray of shape (n_states,)
        The value :math:`V^{\\pi^T}(s)` of the last policy.
    return_history : ndarray of shape (n_iter + 1,)
        The return :math:`J(\\mu, \\pi^k) = \\sum_s \\mu(s) V^{\\pi^k}(s)`.
    gap_history : ndarray of shape (n_iter + 1, n_states)
        The per-state gaps :math:`\\hat g_k(s) = \\langle \\hat a_s^k -
        \\pi^k(s), \\nabla_a Q(s, \\pi^k(s) \\mid \\pi^k) \\rangle` of the
        oracle's answers (the exact gaps :math:`g_k(s)` of Eq. (26) for
        ``maxip='exact'``, and :math:`\\hat g_k(s) \\le g_k(s)` for LSH).
    step_history : ndarray of shape (n_iter, n_states)
        The per-state steps :math:`\\alpha_k(s) \\in [0, 1]`.
    smoothness_history : ndarray of shape (n_iter,)
        The smoothness constant :math:`L` used at every update (fixed, or
        the accepted backtracking estimate).
    n_scored : ndarray of shape (n_iter + 1,)
        Candidate actions scored by the oracles at every iteration, summed
        over the states (``n_states * n_actions`` for the exact scan).
    n_iter : int
        Number of policy updates :math:`T`.
    n_evaluations : int
        Number of policy evaluations (linear solves), backtracking included.
    converged : bool
        Whether :math:`\\sqrt{\\sum_s \\hat g_k(s)^2}` reached ``tol``
        before ``max_iter``.

    See Also
    --------
    sfwpo : The solver that returns it.

    Examples
    --------
    >>> from skcgm.datasets import make_action_constrained_mdp
    >>> from skcgm.optim import sfwpo
    >>> mdp = make_action_constrained_mdp(n_states=3, n_actions=8, random_state=0)
    >>> result = sfwpo(mdp, max_iter=5, random_state=0)
    >>> result.policy.shape, result.return_history.shape, result.n_iter
    ((3, 4), (6,), 5)
    """

    policy: np.ndarray
    weights: np.ndarray = field(repr=False)
    value: np.ndarray = field(repr=False)
    return_history: np.ndarray = field(repr=False)
    gap_history: np.ndarray = field(repr=False)
    step_history: np.ndarray = field(repr=False)
    smoothness_history: np.ndarray = field(repr=False)
    n_scored: np.ndarray = field(repr=False)
    n_iter: int = 0
    n_evaluations: int = 0
    converged: bool = False


def _transition_matrix(mdp, policy):
    """``P_pi[s, s'] = P(s' | s, pi(s))``, shape (n_states, n_states)."""
    logits = np.einsum("sui,si->su", mdp.transition_weights, policy)
    logits += mdp.transition_bias
    logits -= logits.max(axis=1, keepdims=True)
    P = np.exp(logits)
    return P / P.sum(axis=1, keepdims=True)


def _policy_rewards(mdp, policy):
    """``r_pi[s] = r(s, pi(s))``, shape (n_states,)."""
    quad = np.einsum("si,sij,sj->s", policy, mdp.reward_quadratic, policy)
    linear = np.einsum("si,si->s", policy, mdp.reward_linear)
    return mdp.reward_offset + linear - 0.5 * quad


def _evaluate_policy(mdp, policy):
    """Exact evaluation of a deterministic policy.

    Returns ``(V, P_pi, J)`` with :math:`V = (I - \\gamma P_\\pi)^{-1}
    r_\\pi` and :math:`J = \\mu^\\top V`.
    """
    P = _transition_matrix(mdp, policy)
    r = _policy_rewards(mdp, policy)
    A = np.eye(mdp.n_states) - mdp.gamma * P
    V = np.linalg.solve(A, r)
    return V, P, float(mdp.initial_distribution @ V)


def _q_value(mdp, V, state, action):
    """:math:`Q(s, a \\mid \\pi) = r(s, a) + \\gamma \\sum_{s'} P(s' | s, a) V(s')`."""
    return mdp.reward(state, action) + mdp.gamma * mdp.transition(state, action) @ V


def _action_gradient(mdp, policy, V, P):
    """:math:`\\nabla_a Q(s, a \\mid \\pi)` at :math:`a = \\pi(s)`, every state.

    With :math:`V = V^\\pi` held fixed (the deterministic policy gradient),
    :math:`\\nabla_a Q = c_s - H_s a + \\gamma W_s^\\top (p \\odot (V -
    \\langle p, V \\rangle))`, :math:`p = P(\\cdot \\mid s, a)` the softmax
    of the logits :math:`W_s a + e_s`.
    """
    grad_r = mdp.reward_linear - np.einsum("sij,sj->si", mdp.reward_quadratic, policy)
    centred = P * (V[np.newaxis, :] - (P @ V)[:, np.newaxis])
    grad_p = np.einsum("sui,su->si", mdp.transition_weights, centred)
    return grad_r + mdp.gamma * grad_p


@validate_params(
    {
        "mdp": [ActionConstrainedMDP],
        "maxip": [StrOptions({"exact", "lsh"})],
        "n_tables": [StrictInterval(Integral, 1, None, closed="left")],
        "n_bits": [StrictInterval(Integral, 0, 62, closed="both")],
        "smoothness": [
            StrOptions({"adaptive"}),
            StrictInterval(Real, 0, None, closed="neither"),
        ],
        "max_iter": [StrictInterval(Integral, 0, None, closed="left")],
        "tol": [StrictInterval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def sfwpo(
    mdp,
    *,
    maxip="exact",
    n_tables=16,
    n_bits=8,
    smoothness="adaptive",
    max_iter=50,
    tol=0.0,
    random_state=None,
):
    """Frank-Wolfe policy optimization with one MIPS index per state (SFWPO).

    Algorithm 5 of the paper, on a tabular
    :class:`~skcgm.datasets.ActionConstrainedMDP`. The deterministic
    policy :math:`\\pi(s) \\in \\mathrm{conv}\\, \\mathcal{C}(s)` is the
    Frank-Wolfe iterate of each state; it starts at a random action of every
    :math:`\\mathcal{C}(s)`. Every iteration :math:`k`:

    1. **Evaluate** :math:`\\pi^k` exactly: :math:`V = (I - \\gamma
       P_{\\pi^k})^{-1} r_{\\pi^k}`, :math:`J(\\mu, \\pi^k) = \\mu^\\top V`.
    2. **Action gradient** :math:`G_s = \\nabla_a Q(s, a \\mid \\pi^k)` at
       :math:`a = \\pi^k(s)`, in closed form with :math:`V` held fixed:
       :math:`G_s = c_s - H_s a + \\gamma W_s^\\top (p \\odot (V -
       p^\\top V))`, :math:`p = P(\\cdot \\mid s, a)` (softmax derivative).
       By the deterministic policy gradient theorem,
       :math:`\\partial J / \\partial \\pi(s) = \\rho(s) G_s` with the
       discounted occupancy :math:`\\rho = (I - \\gamma P_\\pi)^{-\\top}
       \\mu \\ge \\mu`.
    3. **Direction search** by one MIPS query per state, built once over
       :math:`\\mathcal{C}(s)`: :math:`\\hat a_s = \\arg\\max_{a \\in
       \\mathcal{C}(s)} \\langle a, G_s \\rangle` (a maximum: this is
       *ascent* on :math:`J`). This is the transform of Corollary F.2,
       :math:`\\langle [G_s; \\langle \\pi(s), G_s \\rangle], [a; -1]
       \\rangle`, without the constant coordinate, which does not change the
       ranking. The gap is :math:`\\hat g_k(s) = \\langle \\hat a_s -
       \\pi^k(s), G_s \\rangle` (Eq. (26)).
    4. **Step** (Algorithm 5, clipped to :math:`[0, 1]`; the paper leaves
       :math:`D_s` undefined, it is defined below):

       .. math::

           \\alpha_k(s) = \\min\\Big(1, \\frac{(1 - \\gamma)\\mu_{\\min}}{L
           D_s^2} \\max(\\hat g_k(s), 0)\\Big), \\qquad
           \\pi^{k+1}(s) = \\pi^k(s) + \\alpha_k(s) (\\hat a_s - \\pi^k(s)),

       with :math:`D_s = 2 \\max_i \\|a_{s,i} - \\bar a_s\\|`, an upper bound
       on the diameter of :math:`\\mathcal{C}(s)`.

    **Guarantee.** Lemma F.1 (from [5]) states, for :math:`L` the
    smoothness constant of the problem,

    .. math::

        J(\\mu, \\pi^{k+1}) \\ge J(\\mu, \\pi^k) + \\frac{(1 - \\gamma)^2
        \\mu_{\\min}^2}{2 L D_{\\max}^2} \\sum_s \\hat g_k(s)^2.

    :math:`L` is not known for a given MDP: ``smoothness='adaptive'`` estimates it
    by backtracking (start from half the previous estimate, or at the first
    iteration from the :math:`L` whose largest step is 1, and double until
    the inequality above holds for the new policy; it holds for :math:`L`
    large enough, as the first-order increase is at least :math:`2 / (1 -
    \\gamma)` times the required one), so the return is non-decreasing and
    Lemma F.1 holds with the recorded ``smoothness_history``. A float
    ``smoothness`` is a fixed :math:`L`, with no check.

    Parameters
    ----------
    mdp : ActionConstrainedMDP
        The model, e.g. from
        :func:`~skcgm.datasets.make_action_constrained_mdp`.
    maxip : {'exact', 'lsh'}, default='exact'
        The per-state index: :class:`~skcgm.oracles.ExactMIPS` (Frank-Wolfe
        policy optimization of [5]) or :class:`~skcgm.oracles.LSHMIPS`
        (Algorithm 5).
    n_tables : int, default=16
        Hash tables of every LSH index.
    n_bits : int, default=8
        Sign projections per table of every LSH index.
    smoothness : 'adaptive' or float, default='adaptive'
        The smoothness constant :math:`L` of the step, or ``'adaptive'``
        for the backtracking estimate described above.
    max_iter : int, default=50
        Maximum number of policy updates.
    tol : float, default=0.0
        Stop when :math:`\\sqrt{\\sum_s \\hat g_k(s)^2} \\le` ``tol`` (the
        certificate of Theorem F.3).
    random_state : int, RandomState instance or None, default=None
        Seeds the initial actions and the LSH projections.

    Returns
    -------
    result : SFWPOResult
        The policy, its value, and the return, gap, step and ``n_scored``
        histories.

    See Also
    --------
    skcgm.datasets.make_action_constrained_mdp : A model to run it on.
    skcgm.optim.frank_wolfe : Frank-Wolfe over one convex hull.

    Examples
    --------
    >>> from skcgm.datasets import make_action_constrained_mdp
    >>> from skcgm.optim import sfwpo
    >>> mdp = make_action_constrained_mdp(n_states=5, n_actions=32, random_state=0)
    >>> result = sfwpo(mdp, max_iter=20, random_state=0)
    >>> bool(result.return_history[-1] > result.return_history[0])
    True
    >>> bool((result.return_history[1:] >= result.return_history[:-1]).all())
    True
    """
    rng = check_random_state(random_state)
    actions = mdp.actions
    n_states, n_actions, _ = actions.shape
    gamma = mdp.gamma
    # Drawn first, so that the exact and LSH runs start from the same policy.
    start = rng.randint(n_actions, size=n_states)

    # Preprocessing: one index per state, built once over C(s).
    indexes = []
    for s in range(n_states):
        if maxip == "exact":
            index = ExactMIPS()
        else:
            index = LSHMIPS(
                n_tables=n_tables,
                n_bits=n_bits,
                random_state=rng.randint(MAX_SEED),
            )
        indexes.append(index.fit(actions[s]))
    centred = actions - actions.mean(axis=1, keepdims=True)
    diam = 2.0 * np.linalg.norm(centred, axis=2).max(axis=1)
    diam = np.maximum(diam, np.finfo(np.float64).tiny)
    d_max = diam.max()
    mu_min = float(mdp.initial_distribution.min())

    weights = np.zeros((n_states, n_actions))
    weights[np.arange(n_states), start] = 1.0
    policy = actions[np.arange(n_states), start].copy()
    V, P, J = _evaluate_policy(mdp, policy)
    n_evaluations = 1

    adaptive = smoothness == "adaptive"
    lipschitz = None if adaptive else float(smoothness)
    returns, gaps, steps, smooth_hist, scored = [J], [], [], [], []
    converged = False
    for k in range(max_iter + 1):
        G = _action_gradient(mdp, policy, V, P)
        chosen = np.empty(n_states, dtype=np.int64)
        gap = np.empty(n_states)
        n_scored = 0
        for s in range(n_states):
            idx, score, ns = indexes[s].query(G[s])
            chosen[s] = idx
            gap[s] = score - policy[s] @ G[s]
            n_scored += ns
        gaps.append(gap)
        scored.append(n_scored)
        if np.sqrt(np.sum(gap**2)) <= tol:
            converged = True
            break
        if k == max_iter:
            break

        direction = actions[np.arange(n_states), chosen] - policy
        positive = np.maximum(gap, 0.0)
        if adaptive:
            if k == 0:
                # The estimate whose largest step is 1, before halving.
                largest = np.max(positive / diam**2)
                lipschitz = 2.0 * max((1.0 - gamma) * mu_min * largest, 1e-12)
            lipschitz /= 2.0
        for _ in range(_MAX_BACKTRACK):
            alpha = np.minimum(
                1.0, (1.0 - gamma) * mu_min * positive / (lipschitz * diam**2)
            )
            new_policy = policy + alpha[:, np.newaxis] * direction
            new_V, new_P, new_J = _evaluate_policy(mdp, new_policy)
            n_evaluations += 1
            if not adaptive:
                break
            required = (
                (1.0 - gamma) ** 2
                * mu_min**2
                / (2.0 * lipschitz * d_max**2)
                * np.sum(positive**2)
            )
            if new_J - J >= required:
                break
            lipschitz *= 2.0
        else:  # pragma: no cover - rounding only: keep the policy.
            alpha = np.zeros(n_states)
            new_policy, new_V, new_P, new_J = policy, V, P, J

        weights *= 1.0 - alpha[:, np.newaxis]
        weights[np.arange(n_states), chosen] += alpha
        policy, V, P, J = new_policy, new_V, new_P, new_J
        returns.append(J)
        steps.append(alpha)
        smooth_hist.append(lipschitz)

    n_iter = len(steps)
    return SFWPOResult(
        policy=policy,
        weights=weights,
        value=V,
        return_history=np.asarray(returns),
        gap_history=np.asarray(gaps),
        step_history=np.asarray(steps).reshape(n_iter, n_states),
        smoothness_history=np.asarray(smooth_hist),
        n_scored=np.asarray(scored, dtype=np.int64),
        n_iter=n_iter,
        n_evaluations=n_evaluations,
        converged=converged,
    )
