"""
=================================================================
Projection-free online DR-submodular maximization on a polytope
=================================================================

Every round, a learner picks a point :math:`x_t` of a convex set
:math:`\\mathcal{K}`; then a monotone DR-submodular reward :math:`f_t` is
revealed and the learner earns :math:`f_t(x_t)`. Offline, no efficient
algorithm beats a :math:`(1 - 1/e)` fraction of the best fixed point, so
online learners are judged by their :math:`(1-1/e)`-regret

.. math::

    R_{T, 1-1/e} = (1 - 1/e) \\max_{x \\in \\mathcal{K}} \\sum_{t=1}^T f_t(x)
    - \\sum_{t=1}^T f_t(x_t).

This example plays three learners on the same stream of rewards and draws
their average reward and their regret as the rounds go by:

- :class:`~skcgm.online.OBGA`, boosted gradient ascent with an exact
  Euclidean projection onto :math:`\\mathcal{K}` every round;
- :class:`~skcgm.online.POBGA`, the same boosted ascent made
  projection-free: an infeasible projection built from linear minimization
  oracle (LMO) calls, once per block of :math:`\\sqrt T` rounds;
- :class:`~skcgm.online.MonoFW`, the earlier projection-free method, with
  one LMO call per round on average.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

# %%
# The online NQP
# --------------
#
# :func:`~skcgm.datasets.make_online_nqp` draws a random polytope
# :math:`\mathcal{K} = \{x \in [0, 1]^{25} : A x \le \mathbf{1}\}` with 15
# constraints, and one quadratic reward :math:`f_t(x) = \frac12 x^\top H_t x +
# h_t^\top x` per round, with :math:`H_t \le 0` entrywise (DR-submodular) and
# :math:`h_t = -H_t \mathbf{1}` (monotone on the box, :math:`f_t(0) = 0`).
# The learners see noisy gradients. The polytope has an LMO (a linear
# program) and an exact projection (a small quadratic program); on sets such
# as nuclear-norm balls or flow polytopes only the LMO is cheap.
#
# The problem is small, so BLAS is held to one thread: its threads only add
# overhead to the many tiny solves.
import matplotlib.pyplot as plt
import numpy as np
from threadpoolctl import threadpool_limits

from skcgm.datasets import make_online_nqp
from skcgm.online import OBGA, POBGA, MonoFW, continuous_greedy, run_online

horizon = 600
lmo, stream = make_online_nqp(25, 15, horizon, noise=0.1, random_state=0)
objectives = list(stream)

# %%
# The comparator
# --------------
#
# The best fixed point in hindsight maximizes :math:`\sum_t f_t`, itself a
# monotone DR-submodular quadratic. Continuous greedy (Frank-Wolfe from 0 with
# steps of :math:`1/100`) reaches at least :math:`1 - 1/e` of its maximum; its
# value stands in for the maximum in the regrets below.
H_sum = sum(f.H for f in objectives)
h_sum = sum(f.h for f in objectives)
with threadpool_limits(limits=1, user_api="blas"):
    comparator = continuous_greedy(lmo, lambda x: H_sum @ x + h_sum, 25)
best = np.array([f.value(comparator) for f in objectives])
print(f"comparator: mean reward {best.mean():.3f} per round")

# %%
# Playing the learners
# --------------------
#
# :func:`~skcgm.online.run_online` plays a learner against the rewards, with
# the same gradient noise for all three, and returns the rewards and the
# learner's counters. Every learner uses its default settings.
learners = {
    "OBGA": OBGA(lmo, horizon, random_state=0),
    "POBGA": POBGA(lmo, horizon, random_state=0),
    "Mono-FW": MonoFW(lmo, horizon, random_state=0),
}
results = {}
with threadpool_limits(limits=1, user_api="blas"):
    for name, learner in learners.items():
        results[name] = run_online(learner, objectives, random_state=1)
for name, result in results.items():
    print(
        f"{name:>7}: mean reward {result.rewards.mean():.3f}, "
        f"{result.n_lmo_calls} LMO calls, {result.n_projections} projections, "
        f"{result.wall_time:.1f} s"
    )

# %%
# Average reward and regret
# -------------------------
#
# On the left, the average reward :math:`\frac1t \sum_{s \le t} f_s(x_s)`
# against the comparator's and :math:`1 - 1/e` of it; on the right, the
# :math:`(1-1/e)`-regret after every round. The rewards are drawn i.i.d., an
# easy adversary: the learners end above :math:`1 - 1/e` of the comparator,
# so their :math:`(1-1/e)`-regret turns negative and keeps falling.
#
# - OBGA learns fastest, and pays one exact projection per round.
# - POBGA plays :math:`x = 0` during its first block of :math:`K = \sqrt T
#   \approx 24` rounds (it has seen no gradient yet), then climbs the same
#   boosted ascent, one decision per block, with fewer LMO calls than rounds.
# - Mono-FW's first decision, an average of :math:`K = T^{3/5}` vertices from
#   randomly perturbed linear oracles, is already fair, but it improves
#   slowly: each of its oracles sees one averaged gradient per block. Its
#   regret bound is :math:`O(T^{4/5})`, against :math:`O(T^{3/4})` for POBGA.
#
# ``python -m skcgm reproduce pobga`` measures the rates over several
# horizons.
rounds = np.arange(1, horizon + 1)
alpha = 1 - 1 / np.e
fig, (ax_reward, ax_regret) = plt.subplots(1, 2, figsize=(11, 4.5))
for name, result in results.items():
    label = (
        f"{name} ({result.n_lmo_calls} LMO calls, {result.n_projections} projections)"
    )
    ax_reward.plot(rounds, np.cumsum(result.rewards) / rounds, label=label)
    regret = np.cumsum(alpha * best - result.rewards)
    ax_regret.plot(rounds, regret, label=label)
ax_reward.plot(rounds, np.cumsum(best) / rounds, "k--", label="comparator")
ax_reward.plot(
    rounds, alpha * np.cumsum(best) / rounds, "k:", label="(1 - 1/e) comparator"
)
ax_reward.set_xscale("log")
ax_reward.set_xlabel("round t")
ax_reward.set_ylabel("average reward up to round t")
ax_reward.legend(fontsize="small")
ax_regret.axhline(0.0, color="gray", linewidth=0.8)
ax_regret.set_xlabel("round t")
ax_regret.set_ylabel("(1-1/e)-regret")
ax_regret.legend(fontsize="small")
fig.suptitle(f"online NQP, n=25, m=15, T={horizon}")
fig.tight_layout()
plt.show()
