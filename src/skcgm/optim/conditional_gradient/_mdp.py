"""The tabular action-constrained MDP that :func:`~skcgm.optim.sfwpo` solves.

The problem type of Section 4.4 and Appendix F of Xu, Song, Shrivastava et
al., "Breaking the linear iteration cost barrier for some well-known
conditional gradient methods using MaxIP data-structures" (NeurIPS 2021),
beside its solver; :func:`skcgm.datasets.make_action_constrained_mdp` draws
instances.
"""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["ActionConstrainedMDP"]


@dataclass
class ActionConstrainedMDP:
    """A tabular action-constrained MDP with continuous actions.

    The model of :func:`~skcgm.datasets.make_action_constrained_mdp`. In
    state :math:`s` the accessible actions are the finite set
    :math:`\\mathcal{C}(s) = \\{a_{s,1}, \\dots, a_{s,n}\\} \\subset
    \\mathbb{R}^d` (row ``s`` of ``actions``); a deterministic policy may play
    any point of its convex hull. The reward is linear-quadratic and the
    transition a softmax of a linear score, both smooth in the action:

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
    skcgm.datasets.make_action_constrained_mdp : Draws one.
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
