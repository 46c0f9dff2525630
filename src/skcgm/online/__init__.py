"""Projection-free online continuous DR-submodular maximization.

Learners follow an ask/tell protocol: ``decide()`` returns the decision to
play, ``query_point()`` where the gradient is wanted this round and
``update(gradient)`` ends the round; :func:`run_online` plays them against a
sequence of objectives and :func:`alpha_regret` measures their regret against
:func:`continuous_greedy`. Rewards are maximized: the learners call
``lmo(-grad)`` for an ascent vertex.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from ._base import BaseOnlineLearner
from ._baselines import OBGA, OGA, MetaFW, MonoFW
from ._boosting import boosted_gradient, boosted_quadratic, sample_boosting_z
from ._dpobga import DPOBGA
from ._gossip import (
    check_gossip_matrix,
    complete_graph,
    cycle_graph,
    erdos_renyi_graph,
    grid_graph,
    metropolis_weights,
    mixing_rate,
    spectral_gap,
)
from ._objectives import QuadraticObjective
from ._pobga import POBGA
from ._pobga import PRESETS as POBGA_PRESETS
from ._run import (
    OnlineResult,
    alpha_regret,
    continuous_greedy,
    run_online,
    sum_gradient,
)

__all__ = [
    "DPOBGA",
    "OBGA",
    "OGA",
    "POBGA",
    "POBGA_PRESETS",
    "BaseOnlineLearner",
    "MetaFW",
    "MonoFW",
    "OnlineResult",
    "QuadraticObjective",
    "alpha_regret",
    "boosted_gradient",
    "boosted_quadratic",
    "check_gossip_matrix",
    "complete_graph",
    "continuous_greedy",
    "cycle_graph",
    "erdos_renyi_graph",
    "grid_graph",
    "metropolis_weights",
    "mixing_rate",
    "run_online",
    "sample_boosting_z",
    "spectral_gap",
    "sum_gradient",
]
