"""A small tabular action-constrained MDP (Section 4.4 and Appendix F of the paper)."""

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils._sklearn_compat import Interval, validate_params

__all__ = ["ActionConstrainedMDP", "make_action_constrained_mdp"]


@dataclass
class ActionConstrainedMDP:
    """A tabular action-constrained MDP with continuous actions.

    The model of :func:`make_action_constrained_mdp`. In state :math:`s` the
    accessible actions are the finite set :math:`\\mathcal{C}(s) =
    \\{a_{s,1}, \\dots, a_{s,n}\\} \\subset \\mathbb{R}^d` (row ``s`` of
    ``actions``); a deterministic policy may play any point of its convex
    hull. The reward is linear-quadratic and the transition a softmax of a
    linear score, both smooth in the action:

    .. math::

        r(s, a) = b_s + \\langle c_s, a \\rangle
        - \\tfrac12 a^\\top H_s a, \\qquad
        P(s' \\mid s, a) = \\frac{\\exp(\\langle w_{s,s'}, a \\rangle
        + e_{s,s'})}{\\sum_{u} \\exp(\\langle w_{s,u}, a \\rangle + e_{s,u})}.

    Parameters
    ----------
    actions : ndarray of shape (n_states, n_actions, action_dim)
        The action sets :math:`\\mathcal{C}(s)`, one per state.
    reward_offset : ndarray of shape (n_states,)
        The constants :math:`b_s`.
    reward_linear : ndarray of shape (n_states, action_dim)
        The linear terms :math:`c_s`.
    reward_quadratic : ndarray of shape (n_states, action_dim, action_dim)
        The symmetric positive definite curvatures :math:`H_s`.
    transition_weights : ndarray of shape (n_states, n_states, action_dim)
        ``transition_weights[s, s']`` is :math:`w_{s,s'}`.
    transition_bias : ndarray of shape (n_states, n_states)
        ``transition_bias[s, s']`` is :math:`e_{s,s'}`.
    initial_distribution : ndarray of shape (n_states,)
        The initial distribution :math:`\\mu`, positive, summing to 1.
    gamma : float
        The discount factor :math:`\\gamma \\in (0, 1)`.

    See Also
    --------
    make_action_constrained_mdp : Draws one.
    skcgm.optim.sfwpo : Frank-Wolfe policy optimization on it.

    Examples
    --------
    >>> from skcgm.datasets import make_action_constrained_mdp
    >>> mdp = make_action_constrained_mdp(n_states=3, n_actions=5, random_state=0)
    >>> mdp.n_states, mdp.n_actions, mdp.action_dim
    (3, 5, 4)
    >>> mdp.transition(0, mdp.actions[0, 0]).sum().round(12)
    np.float64(1.0)
    """

    actions: np.ndarray = field(repr=False)
    reward_offset: np.ndarray = field(repr=False)
    reward_linear: np.ndarray = field(repr=False)
    reward_quadratic: np.ndarray = field(repr=False)
    transition_weights: np.ndarray = field(repr=False)
    transition_bias: np.ndarray = field(repr=False)
    initial_distribution: np.ndarray = field(repr=False)
    gamma: float

    @property
    def n_states(self):
        """Number of states."""
        return self.actions.shape[0]

    @property
    def n_actions(self):
        """Number of actions :math:`n` per state."""
        return self.actions.shape[1]

    @property
    def action_dim(self):
        """Dimension :math:`d` of an action."""
        return self.actions.shape[2]

    def reward(self, state, action):
        """Reward :math:`r(s, a)` of actions in one state.

        Parameters
        ----------
        state : int
            The state :math:`s`.
        action : array-like of shape (..., action_dim)
            One or many actions.

        Returns
        -------
        reward : float or ndarray of shape (...)
            :math:`b_s + \\langle c_s, a \\rangle - \\frac12 a^\\top H_s a`.
        """
        a = np.asarray(action, dtype=np.float64)
        quad = np.einsum("...i,ij,...j->...", a, self.reward_quadratic[state], a)
        return self.reward_offset[state] + a @ self.reward_linear[state] - 0.5 * quad

    def reward_gradient(self, state, action):
        """Gradient :math:`\\nabla_a r(s, a) = c_s - H_s a`.

        Parameters
        ----------
        state : int
            The state :math:`s`.
        action : array-like of shape (..., action_dim)
            One or many actions.

        Returns
        -------
        gradient : ndarray of shape (..., action_dim)
            The gradient in the action.
        """
        a = np.asarray(action, dtype=np.float64)
        return self.reward_linear[state] - a @ self.reward_quadratic[state]

    def transition(self, state, action):
        """Next-state distribution :math:`P(\\cdot \\mid s, a)`.

        Parameters
        ----------
        state : int
            The state :math:`s`.
        action : array-like of shape (..., action_dim)
            One or many actions.

        Returns
        -------
        probabilities : ndarray of shape (..., n_states)
            Softmax of :math:`\\langle w_{s,s'}, a \\rangle + e_{s,s'}` over
            :math:`s'`.
        """
        a = np.asarray(action, dtype=np.float64)
        logits = a @ self.transition_weights[state].T + self.transition_bias[state]
        logits = logits - logits.max(axis=-1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=-1, keepdims=True)


@validate_params(
    {
        "n_states": [Interval(Integral, 1, None, closed="left")],
        "n_actions": [Interval(Integral, 1, None, closed="left")],
        "action_dim": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, 1, closed="neither")],
        "n_clusters": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_action_constrained_mdp(
    n_states=10,
    n_actions=64,
    action_dim=4,
    gamma=0.9,
    *,
    n_clusters=None,
    random_state=None,
):
    """Generate a small tabular action-constrained MDP.

    The paper (Section 4.4, Appendix F) states the action-constrained MDP
    abstractly and runs no experiment; this is a concrete instance (the
    model is ours) with rewards in :math:`[0, 1]` and everything smooth in
    the action, as Lemma F.1 assumes.

    - **Action sets.** :math:`\\mathcal{C}(s)` holds ``n_actions`` vectors
      :math:`a_{s,i} \\sim N(0, I_d)`; with ``n_clusters = k`` they are drawn
      around :math:`k` centres :math:`m_{s,j} \\sim 3\\, U(S^{d-1})` as
      :math:`m_{s,j} + 0.3\\, N(0, I_d)`, each action picking its centre
      uniformly.
    - **Reward.** Draw :math:`\\tilde c_s \\sim N(0, I_d)` and
      :math:`\\tilde H_s = B_s B_s^\\top / d + I_d / 2`, :math:`B_s` a
      standard Gaussian :math:`d \\times d` matrix. The concave
      :math:`\\tilde r(s, a) = \\langle \\tilde c_s, a \\rangle - \\frac12
      a^\\top \\tilde H_s a` is rescaled affinely,

      .. math::

          r(s, a) = \\frac{\\tilde r(s, a) - \\ell_s}{u_s - \\ell_s},
          \\qquad \\ell_s = \\min_{a \\in \\mathcal{C}(s)} \\tilde r(s, a),
          \\quad u_s = \\tfrac12 \\tilde c_s^\\top \\tilde H_s^{-1}
          \\tilde c_s = \\max_{a \\in \\mathbb{R}^d} \\tilde r(s, a),

      so :math:`r(s, a) \\le 1` everywhere and, :math:`\\tilde r` being
      concave, :math:`r(s, a) \\ge 0` on the whole convex hull of
      :math:`\\mathcal{C}(s)`, where the policies live. The result is stored
      as :math:`r(s, a) = b_s + \\langle c_s, a \\rangle - \\frac12 a^\\top
      H_s a`.
    - **Transitions.** :math:`P(s' \\mid s, a) \\propto
      \\exp(\\langle w_{s,s'}, a \\rangle + e_{s,s'})` with
      :math:`w_{s,s'} \\sim N(0, I_d / d)` and :math:`e_{s,s'} \\sim N(0, 1)`.
    - **Initial distribution.** :math:`\\mu \\sim \\mathrm{Dirichlet}(2,
      \\dots, 2)`, so :math:`\\mu_{\\min} > 0` almost surely.

    Parameters
    ----------
    n_states : int, default=10
        Number of states :math:`|\\mathcal{S}|`.
    n_actions : int, default=64
        Number of actions :math:`n = |\\mathcal{C}(s)|` per state.
    action_dim : int, default=4
        Dimension :math:`d` of the actions.
    gamma : float, default=0.9
        Discount factor :math:`\\gamma \\in (0, 1)`.
    n_clusters : int or None, default=None
        If given, the actions of every state form this many tight clusters
        (where an LSH index separates the buckets well).
    random_state : int, RandomState instance or None, default=None
        Seeds the actions, rewards, transitions and initial distribution,
        drawn in this order.

    Returns
    -------
    mdp : ActionConstrainedMDP
        The model.

    See Also
    --------
    skcgm.optim.sfwpo : Frank-Wolfe policy optimization (Algorithm 5).

    Examples
    --------
    >>> from skcgm.datasets import make_action_constrained_mdp
    >>> mdp = make_action_constrained_mdp(n_states=4, n_actions=8, random_state=0)
    >>> mdp.actions.shape, mdp.initial_distribution.shape
    ((4, 8, 4), (4,))
    >>> r = mdp.reward(0, mdp.actions[0])
    >>> bool(abs(r.min()) < 1e-12), bool(r.max() <= 1.0)
    (True, True)
    """
    rng = check_random_state(random_state)
    d = action_dim
    if n_clusters is None:
        actions = rng.standard_normal((n_states, n_actions, d))
    else:
        centres = rng.standard_normal((n_states, n_clusters, d))
        centres *= 3.0 / np.linalg.norm(centres, axis=2, keepdims=True)
        labels = rng.randint(n_clusters, size=(n_states, n_actions))
        noise = 0.3 * rng.standard_normal((n_states, n_actions, d))
        actions = np.take_along_axis(centres, labels[:, :, np.newaxis], axis=1) + noise

    c_raw = rng.standard_normal((n_states, d))
    B = rng.standard_normal((n_states, d, d))
    H_raw = B @ np.transpose(B, (0, 2, 1)) / d + 0.5 * np.eye(d)
    raw = np.einsum("sni,si->sn", actions, c_raw) - 0.5 * np.einsum(
        "sni,sij,snj->sn", actions, H_raw, actions
    )
    lower = raw.min(axis=1)
    upper = 0.5 * np.einsum(
        "si,si->s", c_raw, np.linalg.solve(H_raw, c_raw[:, :, np.newaxis])[:, :, 0]
    )
    # upper >= max over actions >= lower; guard the degenerate equality.
    scale = 1.0 / np.maximum(upper - lower, np.finfo(np.float64).tiny)

    transition_weights = rng.standard_normal((n_states, n_states, d)) / np.sqrt(d)
    transition_bias = rng.standard_normal((n_states, n_states))
    mu = rng.dirichlet(np.full(n_states, 2.0))
    return ActionConstrainedMDP(
        actions=actions,
        reward_offset=-lower * scale,
        reward_linear=c_raw * scale[:, np.newaxis],
        reward_quadratic=H_raw * scale[:, np.newaxis, np.newaxis],
        transition_weights=transition_weights,
        transition_bias=transition_bias,
        initial_distribution=mu,
        gamma=float(gamma),
    )
