"""A small tabular action-constrained MDP (Section 4.4 and Appendix F of the paper)."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..optim.conditional_gradient._mdp import ActionConstrainedMDP
from ..utils._params import StrictInterval
from ..utils._sklearn_compat import validate_params

__all__ = ["ActionConstrainedMDP", "make_action_constrained_mdp"]


@validate_params(
    {
        "n_states": [StrictInterval(Integral, 1, None, closed="left")],
        "n_actions": [StrictInterval(Integral, 1, None, closed="left")],
        "action_dim": [StrictInterval(Integral, 1, None, closed="left")],
        "gamma": [StrictInterval(Real, 0, 1, closed="neither")],
        "n_clusters": [StrictInterval(Integral, 1, None, closed="left"), None],
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
