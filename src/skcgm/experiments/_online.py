"""Regret, oracle calls and communication of POBGA, DPOBGA and their baselines.

The paper (Liao, Wan, Yao and Song, "Improved projection-free online
continuous submodular maximization") has no experiments: no data, no curve,
no number. These two experiments measure what its Table 1 claims, on the
benchmark of the literature it builds on (the online monotone NQP over a
random down-closed polytope of Chen, Hassani and Karbasi, 2018).

- ``reproduce pobga``: the :math:`(1-1/e)`-regret and the 1-regret of POBGA,
  Mono-FW, Meta-FW and OBGA over a grid of horizons :math:`T`, with their
  log-log slopes (Table 1: :math:`T^{3/4}`, :math:`T^{4/5}`, :math:`\\sqrt T`,
  :math:`\\sqrt T`), LMO calls, gradient calls, projections and wall time.
- ``reproduce dpobga``: DPOBGA's communication rounds (one exchange per
  block, :math:`\\lceil T/K \\rceil \\approx \\sqrt T`) and the consensus error
  :math:`\\max_i \\|x_m^i - \\bar x_m\\|` on complete, cycle and Erdős-Rényi
  graphs with Metropolis weights, with the mixing rate :math:`\\beta` of each.
"""

import math
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter

import numpy as np

from .. import online
from ..datasets import make_decentralized_nqp, make_online_nqp
from ..online._pobga import PRESETS
from ..online._run import sum_gradient
from ..oracles import CappedSimplexLMO, ProductLMO
from ..utils._blocks import single_threaded_blas
from ._plot import Panel, draw
from ._result import Column, ExperimentResult, format_table
from ._runner import TrialRunner

ALPHA = 1.0 - 1.0 / math.e
# The NQP of the issue (note 002, section 4.2 P1): n = 25, m = 15, i.i.d.
# matrices, gradient noise of norm 0.1.
PROBLEM = {"n_features": 25, "n_constraints": 15, "adversary": "iid", "noise": 0.1}
N_FEATURES = PROBLEM["n_features"]
# Continuous greedy steps of the comparator (one LMO call each).
COMPARATOR_STEPS = 100
# Points of the regret curves kept in the rows (log-spaced rounds).
CURVE_POINTS = 48
# The generators rebuild an i.i.d. round from its seed at every access; a
# learner's run reads every round twice (run_online, then the regret), so
# streams up to this many matrix entries are built once and kept (8 bytes
# each: 256 MiB, T = 3e4 rounds of the NQP).
_MATERIALIZE_ENTRIES = 2**25
# Theorem 1's constants, with G of Assumption A3 on the NQP: gradient entries
# in [0, 1], plus the noise.
_G = math.sqrt(N_FEATURES) + PROBLEM["noise"]
_THEORY = partial(online.POBGA, preset="theory", grad_bound=_G)
_SHORT, _LONG = (100, 300, 1000), (1000, 3000, 10000, 30000, 100000)
# Per learner: its class, quick and full horizons, Table 1's regret and
# oracle calls. Meta-FW makes K = sqrt(T) LMO calls per round (T^{3/2} in
# all) and OBGA one exact projection per round (an L-BFGS-B solve of the
# polytope's dual), so they run at the smaller horizons only.
SPECS = {
    "POBGA": (online.POBGA, _SHORT, _LONG, "T^(3/4)", "O(T) LMO"),
    "POBGA (theory)": (_THEORY, _SHORT, _LONG, "T^(3/4)", "<= T LMO"),
    "Mono-FW": (online.MonoFW, _SHORT, _LONG, "T^(4/5)", "O(T) LMO"),
    "Meta-FW": (online.MetaFW, (30, 100), (300, 1000), "T^(1/2)", "O(T^(3/2)) LMO"),
    "OBGA": (online.OBGA, (100, 300), (1000, 3000, 10000), "T^(1/2)", "T projections"),
}
LEARNERS = tuple(SPECS)
COUNTERS = ("n_lmo_calls", "n_grad_calls", "n_projections")
# What a row takes from its first trial; its other values are medians.
POBGA_FIRST = ("block_size", "eps", "eta0", "curve_t")
POBGA_SLOPES = {"regret_slope": "regret", "regret1_slope": "regret1"}
POBGA_SLOPES.update(lmo_slope="n_lmo_calls", time_slope="wall_time")
POBGA_SETTINGS = {"problem": PROBLEM, "comparator_steps": COMPARATOR_STEPS}
POBGA_SETTINGS.update(pobga_presets=PRESETS)
POBGA_CAPTION = (
    "Table: online monotone NQP make_online_nqp(**{problem}) over {{x in [0,1]^25 : "
    "Ax <= 1}} (LP oracle). Regrets at T against continuous greedy "
    "({comparator_steps} steps) on sum_t f_t; medians over {trials} trial(s) of "
    "stream, gradient noise and learner seeds. POBGA: preset (c_eta, c_eps, c_K) = "
    "'practical' {pobga_presets[practical]}, G estimated on the first block, or "
    "'theory' {pobga_presets[theory]}, G = 5.1 (plays 0 for T up to 1215^2 ~ 1.48e6); "
    "Mono-FW: K = T^(3/5), FTPL; Meta-FW: K = sqrt(T) FTPL oracles, exact gradients; "
    "OBGA: exact projection every round. Slopes: least squares of log(median) on "
    "log T (— for values <= 0). Time inside the learner, BLAS on one thread. "
    "random_state={random_state}, {cpu_count} cores."
)
POBGA_COLUMNS = [
    Column("learner", "learner", group=True),
    Column("horizon", "T"),
    Column("regret", "(1-1/e)-regret", ".1f"),
    Column("regret1", "1-regret", ".1f"),
    Column("regret1_per_round", "1-regret/T", ".4f"),
    Column("n_lmo_calls", "LMO calls", ".0f"),
    Column("n_grad_calls", "gradients", ".0f"),
    Column("n_projections", "projections", ".0f"),
    Column("wall_time", "time (s)", ".2f"),
]
SLOPE_COLUMNS = [
    Column("learner", "learner"),
    Column("horizons", "horizons T"),
    Column("table1_regret", "Table 1 regret"),
    Column("regret1_slope", "slope 1-regret", ".2f"),
    Column("regret_slope", "slope (1-1/e)-regret", ".2f"),
    Column("table1_calls", "Table 1 calls"),
    Column("lmo_slope", "slope LMO calls", ".2f"),
    Column("time_slope", "slope time", ".2f"),
]
POBGA_TABLES = ("pobga", POBGA_COLUMNS, SLOPE_COLUMNS, POBGA_CAPTION)

GRAPHS = ("complete", "cycle", "Erdos-Renyi")
ER_PROBABILITY = 0.3
_GRAPH_MAKERS = {"complete": online.complete_graph, "cycle": online.cycle_graph}
DP_QUICK = {"n_nodes": 6, "horizons": (100, 300, 1000)}
DP_FULL = {"n_nodes": 10, "horizons": (1000, 3000, 10000, 30000)}
DP_SETTINGS = {"er_probability": ER_PROBABILITY, "problem": PROBLEM}
# The decision set 'partition': the partition-matroid polytope
# {x >= 0, sum of each group of 5 coordinates <= 1} of the 25 coordinates.
PARTITION_GROUPS = 5
# The counts of a run, the same in every trial; the other values are medians.
DP_FIRST = ("block_size", "n_communications", "expected_communications")
DP_FIRST += ("communications_per_round", "n_grad_calls")
DP_SLOPES = {"communication_slope": "n_communications"}
DP_SLOPES.update(consensus_slope="consensus_mean")
DPOBGA_CAPTION = (
    "Table: DPOBGA (preset='practical'), N={n_nodes} nodes, on make_decentralized_nqp"
    "(**{problem}), one local quadratic per node and round, over decision_set="
    "'{decision_set}' (partition: {{x >= 0 : 5 groups of 5 coordinates, each sum <= "
    "1}}, capped simplices; polytope: {{x in [0,1]^25 : Ax <= 1}}, LP oracle). "
    "Metropolis weights; Erdos-Renyi G(N, {er_probability}) drawn connected; beta = "
    "max(|lambda_2|, |lambda_N|). Exchanges: one per block of K rounds (T when "
    "gossiping every round). Consensus: max_i ||x_m^i - mean_j x_m^j|| at each "
    "exchange (mean: over the blocks after the first). Reward/round: a node's mean "
    "reward on (1/N) sum_j f_t,j. Medians over {trials} trial(s); slopes: least "
    "squares on log T. random_state={random_state}, {cpu_count} cores."
)
DPOBGA_COLUMNS = [
    Column("graph", "graph", group=True),
    Column("horizon", "T"),
    Column("block_size", "K"),
    Column("n_communications", "exchanges/node"),
    Column("consensus_max", "consensus max", ".2e"),
    Column("consensus_mean", "consensus mean", ".2e"),
    Column("consensus_last", "consensus last", ".2e"),
    Column("lmo_per_node_max", "LMO calls/node", ".0f"),
    Column("reward_worst_node", "reward/round worst node", ".4f"),
    Column("reward_best_node", "best node", ".4f"),
    Column("wall_time", "time (s)", ".2f"),
]
GRAPH_SUMMARY_COLUMNS = [
    Column("graph", "graph"),
    Column("beta", "beta", ".3f"),
    Column("spectral_gap", "1 - beta", ".3f"),
    Column("communication_slope", "slope exchanges (Table 1: 0.5)", ".3f"),
    Column("consensus_slope", "slope consensus mean", ".2f"),
]
DPOBGA_TABLES = ("dpobga", DPOBGA_COLUMNS, GRAPH_SUMMARY_COLUMNS, DPOBGA_CAPTION)


def _with_slope(name, slope, digits):
    """A curve's legend: its name, then its log-log slope when it has one."""
    return name if slope is None else f"{name}, slope {slope:.{digits}f}"


def _diagonal(ax, rows, label):
    """Dashed reference ``y = T`` over the panel's horizons."""
    horizons = sorted({row["horizon"] for row in rows})
    ax.plot(horizons, horizons, "k--", linewidth=1, label=label)


def _block_starts(row):
    """The consensus curve of a row against the first round of each block."""
    curve = row["consensus_curve"]
    return np.arange(len(curve)) * row["block_size"] + 1, curve


# The table's rows against T, log-log; the curves of the largest horizons.
_LOG_T = {"xlabel": "horizon T", "xscale": "log", "yscale": "log", "ticks": True}
_AGAINST_T = partial(Panel, "horizon", positive=True, **_LOG_T)
POBGA_PLOT = (
    Panel(
        "curve_t",
        "curve_regret",
        "learner",
        "round t",
        "(1-1/e)-regret (median)",
        title="regret curves (i.i.d. NQP, n=25, m=15)",
        xscale="log",
        yscale={"value": "symlog", "linthresh": 1.0},
        label="{learner}, T={horizon} ({n_lmo_calls:.0f} LMO calls)",
        curve=itemgetter("curve_t", "curve_regret"),
    ),
    _AGAINST_T(
        "regret1",
        "learner",
        ylabel="1-regret at T against continuous greedy",
        label=lambda row: _with_slope(row["learner"], row["regret1_slope"], 2),
    ),
    _AGAINST_T(
        "n_lmo_calls",
        "learner",
        ylabel="linear minimization oracle calls",
        label=lambda row: _with_slope(row["learner"], row["lmo_slope"], 2),
        extra=partial(_diagonal, label="T"),
    ),
)
DPOBGA_PLOT = (
    Panel(
        "block_size",
        "consensus_curve",
        "graph",
        "round t (start of the block)",
        "max_i ||x_m^i - mean x_m||",
        title="consensus error, T={horizon}, N={n_nodes}",
        yscale={"value": "log", "nonpositive": "mask"},
        label="{graph} (beta={beta:.3f})",
        curve=_block_starts,
    ),
    _AGAINST_T(
        "n_communications",
        "graph",
        ylabel="communication rounds per node (one per block)",
        label=lambda row: _with_slope(row["graph"], row["communication_slope"], 3),
        extra=partial(_diagonal, label="T (gossip every round)"),
    ),
)


@dataclass
class _SummarizedResult(ExperimentResult):
    """A result whose text ends with a summary table (one row per learner or graph).

    The summary rows are ``metadata['summary']``, so that :meth:`to_dict`
    keeps them; the slopes they show are also in every row of the main table.
    """

    summary_columns: list = field(default_factory=list)

    def to_text(self, width=100):
        """:meth:`ExperimentResult.to_text` (caption wrapped to ``width``, main
        table), then the summary table."""
        summary = format_table(self.metadata["summary"], self.summary_columns)
        return super().to_text(width=width) + "\n\n" + summary


def _summarized(run, tables, rows, extra=None, **settings):
    """The result of ``tables`` (name, columns, summary columns, caption).

    A summary row is the last row of a learner or graph (the first summary
    column) with ``extra[learner or graph]``; the caption is filled from the
    metadata (the run's ``settings``).
    """
    name, columns, summary_columns, caption = tables
    by = summary_columns[0].key
    last = {row[by]: {**row, **(extra or {}).get(row[by], {})} for row in rows}
    summary = [{c.key: row[c.key] for c in summary_columns} for row in last.values()]
    metadata = run.metadata(n_jobs=run.n_jobs, **settings, summary=summary)
    caption = caption.format(**metadata)
    return _SummarizedResult(name, rows, columns, caption, metadata, summary_columns)


def _check(kind, names, known):
    """Raise a ValueError naming the ``names`` not in ``known``."""
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ValueError(f"Unknown {kind} {unknown}; choose among {list(known)}.")


def loglog_slope(x, y):
    """Fit the slope of :math:`\\log y` against :math:`\\log x` by least squares.

    Parameters
    ----------
    x : array-like of shape (n_points,)
        Positive abscissae (the horizons).
    y : array-like of shape (n_points,)
        Ordinates (regrets, oracle calls, times).

    Returns
    -------
    slope : float or None
        The slope of the ordinary least-squares line through
        :math:`(\\log x_k, \\log y_k)`; None with fewer than two points or
        when some :math:`y_k \\le 0` (a negative regret has no logarithm: the
        learner did better than the comparator).

    Examples
    --------
    >>> from skcgm.experiments._online import loglog_slope
    >>> round(loglog_slope([10, 100, 1000], [3, 30, 300]), 6)
    1.0
    >>> loglog_slope([10, 100], [1.0, -1.0]) is None
    True
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.size < 2 or np.any(y <= 0) or np.any(x <= 0):
        return None
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def _grid(run, by, grid, function, args, first, slopes):
    """Run every group, horizon and trial; one row per group and horizon.

    ``function(*args(name, T, k))`` runs trial ``k`` of group ``name``
    (learner or graph) at horizon ``T`` of ``grid[name]`` and returns a dict.
    The row of ``name`` and ``T`` holds the first trial's values of the keys
    ``first``, else the medians over the trials (a curve's pointwise; a
    number's per-trial values in ``<key>_trials``); the rows of a group gain
    its log-log ``slopes`` (slope key: row key fitted against ``T``).
    Returns the rows.
    """
    cells = [(name, T) for name in grid for T in grid[name]]
    trials = range(run.trials)
    outputs = iter(run.map(function, [args(*c, k) for c in cells for k in trials]))
    rows = []
    for name, T in cells:
        runs = [next(outputs) for _ in trials]
        row = {by: name, "horizon": T, "trials": run.trials}
        for key, value in runs[0].items():
            values = [output[key] for output in runs]
            # The median of a number is a float, of a curve pointwise.
            row[key] = value if key in first else np.median(values, axis=0).tolist()
            if key not in first and not isinstance(value, list):
                row[f"{key}_trials"] = values
        rows.append(row)
    for name, horizons in grid.items():
        block = [row for row in rows if row[by] == name]
        for slope, key in slopes.items():
            fit = loglog_slope(horizons, [row[key] for row in block])
            for row in block:
                row[slope] = fit
    return rows


def _nqp(horizon, seed):
    return make_online_nqp(horizon=horizon, random_state=int(seed), **PROBLEM)


def _comparator(horizon, seed):
    """Continuous greedy on the sum of the T objectives: the regrets' comparator."""
    with single_threaded_blas():
        lmo, objectives = _nqp(horizon, seed)
        return online.continuous_greedy(
            lmo, sum_gradient(objectives), lmo.n_features, n_steps=COMPARATOR_STEPS
        )


def _run_learner(name, horizon, seeds, comparator):
    stream_seed, noise_seed, learner_seed = (int(s) for s in seeds)
    with single_threaded_blas():
        lmo, objectives = _nqp(horizon, stream_seed)
        if horizon * N_FEATURES**2 <= _MATERIALIZE_ENTRIES:
            objectives = list(objectives)
        learner = SPECS[name][0](lmo, horizon, random_state=learner_seed)
        result = online.run_online(learner, objectives, random_state=noise_seed)
        # One pass over the objectives: the 1-regret curve; the comparator's
        # cumulative reward is that curve plus the learner's.
        regret1 = online.alpha_regret(
            result.rewards, objectives, lmo, alpha=1.0, comparator=comparator
        )
    cumulative = np.cumsum(result.rewards)
    best = regret1 + cumulative
    regret = ALPHA * best - cumulative
    rounds = np.unique(np.geomspace(1, horizon, CURVE_POINTS).round().astype(int))
    sizes = [getattr(learner, key, None) for key in ("block_size_", "n_oracles_")]
    return {
        "regret": float(regret[-1]),
        "regret1": float(regret1[-1]),
        "mean_reward": float(cumulative[-1] / horizon),
        "comparator_reward": float(best[-1]),
        **{key: int(getattr(result, key)) for key in COUNTERS},
        "wall_time": float(result.wall_time),
        "block_size": next((int(size) for size in sizes if size is not None), None),
        "eps": getattr(learner, "eps_", None),
        "eta0": getattr(learner, "eta0_", None),
        "curve_t": rounds.tolist(),
        "curve_regret": regret[rounds - 1].tolist(),
        "curve_regret1": regret1[rounds - 1].tolist(),
    }


def run_pobga(
    *,
    full=False,
    trials=None,
    random_state=0,
    n_jobs=None,
    progress=None,
    learners=LEARNERS,
    horizons=None,
):
    """Regret curves and log-log slopes of POBGA, Mono-FW, Meta-FW and OBGA.

    The online monotone NQP of note 002 (section 4.2, P1) with the issue's
    sizes: :func:`~skcgm.datasets.make_online_nqp` with ``n_features=25``,
    ``n_constraints=15``, ``adversary='iid'`` (a fresh :math:`H_t` every
    round) and ``noise=0.1``, over :math:`\\{x \\in [0, 1]^{25} : A x \\le
    \\mathbf 1\\}` (an LP oracle, ``DownClosedPolytopeLMO``). For every
    horizon :math:`T` and trial, one stream; every learner plays it through
    :func:`~skcgm.online.run_online` with the same gradient-noise stream, and
    its regrets are measured against one comparator :math:`\\hat x`,
    :func:`~skcgm.online.continuous_greedy` (100 steps) on
    :math:`\\sum_t f_t`:

    .. math::

        R_{T,\\alpha} = \\alpha \\sum_{t=1}^T f_t(\\hat x)
        - \\sum_{t=1}^T f_t(x_t), \\qquad \\alpha \\in \\{1 - 1/e, 1\\}.

    On an i.i.d. stream the learners beat :math:`1 - 1/e` of the comparator,
    so the :math:`(1-1/e)`-regret is negative and has no log-log slope (—);
    the 1-regret is the informative rate. Since :math:`\\hat x` is a
    :math:`(1-1/e)`-approximation, the 1-regret against it bounds the
    :math:`(1-1/e)`-regret against the true optimum, up to continuous
    greedy's :math:`O(L R^2 / 100)` per round.

    Learners, with their library defaults (no tuning here):

    - ``POBGA``: :class:`~skcgm.online.POBGA`, ``preset='practical'``,
      :math:`G` estimated on the first block;
    - ``POBGA (theory)``: ``preset='theory'`` (Theorem 1's constants) with
      :math:`G = \\sqrt{25} + 0.1`; it plays :math:`x = 0` for every
      :math:`T \\lesssim 48{,}720` (note 002, section 3.4);
    - ``Mono-FW``: :class:`~skcgm.online.MonoFW`, :math:`K = T^{3/5}`, FTPL
      oracles;
    - ``Meta-FW``: :class:`~skcgm.online.MetaFW`, :math:`K = \\sqrt T` FTPL
      oracles on exact gradients, :math:`T^{3/2}` LMO calls;
    - ``OBGA``: :class:`~skcgm.online.OBGA`, one exact projection per round
      (``DownClosedPolytopeLMO.project``).

    Sizes. Quick (default): POBGA (both presets) and Mono-FW at :math:`T
    \\in \\{100, 300, 1000\\}`, OBGA at :math:`\\{100, 300\\}`, Meta-FW at
    :math:`\\{30, 100\\}`, one trial (about half a minute on 2 cores).
    ``full``: POBGA and Mono-FW at :math:`\\{10^3, 3 \\cdot 10^3, 10^4, 3
    \\cdot 10^4, 10^5\\}`, OBGA at :math:`\\{10^3, 3 \\cdot 10^3, 10^4\\}`,
    Meta-FW at :math:`\\{300, 1000\\}`, three trials (hours on 2 cores:
    the LP oracle costs about 5 ms a call).

    Parameters
    ----------
    full : bool, default=False
        The full grid and three trials instead of the quick one.
    trials : int or None, default=None
        Number of trials (streams and learner seeds) per horizon; overrides
        ``full``. The rows report medians over the trials.
    random_state : int, default=0
        Seed of the streams, the gradient noise and the learners.
    n_jobs : int or None, default=None
        Runs (learner, horizon, trial) in parallel through joblib. BLAS is
        held to one thread inside every run (the problems are 25-dimensional).
    progress : callable or None, default=None
        Called with a one-line message per stage.
    learners : tuple of str, default=LEARNERS
        Among ``'POBGA'``, ``'POBGA (theory)'``, ``'Mono-FW'``, ``'Meta-FW'``
        and ``'OBGA'``.
    horizons : tuple of int, dict or None, default=None
        The horizons of every learner (a tuple), or per learner (a dict);
        overrides ``full``.

    Returns
    -------
    result : ExperimentResult
        One row per (learner, :math:`T`) with the medians over the trials of
        ``regret`` (the :math:`(1-1/e)`-regret at :math:`T`), ``regret1``,
        ``regret1_per_round``, ``mean_reward``, ``n_lmo_calls``,
        ``n_grad_calls``, ``n_projections``, ``wall_time`` (s, inside the
        learner), the per-trial lists ``*_trials``, ``block_size`` (POBGA
        and Mono-FW's :math:`K`, Meta-FW's number of oracles), the median
        curves ``curve_t``, ``curve_regret`` and ``curve_regret1`` and, in
        every row of a learner, the log-log slopes over its horizons of the
        median regrets, LMO calls and wall time (``regret_slope``,
        ``regret1_slope``, ``lmo_slope``, ``time_slope``; None when a value is
        :math:`\\le 0` or there is one horizon).

    See Also
    --------
    run_dpobga : Communication and consensus of the decentralized version.

    Examples
    --------
    >>> from skcgm.experiments._online import run_pobga
    >>> result = run_pobga(learners=("POBGA", "Mono-FW"), horizons=(30, 60))
    >>> [(row["learner"], row["horizon"]) for row in result.rows]
    [('POBGA', 30), ('POBGA', 60), ('Mono-FW', 30), ('Mono-FW', 60)]
    >>> [row["n_grad_calls"] for row in result.rows]
    [30, 60, 30, 60]
    """
    _check("learners", learners, LEARNERS)
    run = TrialRunner((1, 3), full, trials, random_state, n_jobs, progress)
    if horizons is None:
        horizons = {name: run.size(*SPECS[name][1:3]) for name in learners}
    elif not isinstance(horizons, dict):
        horizons = dict.fromkeys(learners, horizons)
    grid = {name: tuple(int(T) for T in horizons[name]) for name in learners}
    all_horizons = sorted({T for values in grid.values() for T in values})
    # (stream, gradient noise, learner) seeds of every horizon and trial; every
    # learner plays the same stream with the same noise at a horizon.
    seeds = {T: run.seeds((run.trials, 3)) for T in all_horizons}
    run.report(f"comparators: continuous greedy at T={all_horizons}")
    keys = [(T, k) for T in all_horizons for k in range(run.trials)]
    outputs = run.map(_comparator, [(T, seeds[T][k, 0]) for T, k in keys])
    comparators = dict(zip(keys, outputs))
    run.report(", ".join(f"{name} T={list(grid[name])}" for name in learners))

    def args(name, T, k):
        return name, T, seeds[T][k], comparators[T, k]

    rows = _grid(run, "learner", grid, _run_learner, args, POBGA_FIRST, POBGA_SLOPES)
    for row in rows:
        # A count is exact when the trials agree.
        for key in COUNTERS:
            if len(set(row[f"{key}_trials"])) == 1:
                row[key] = row[f"{key}_trials"][0]
        T = row["horizon"]
        row["regret1_per_round"] = row["regret1"] / T
        row["lmo_per_round"] = row["n_lmo_calls"] / T
        row["time_per_round"] = row["wall_time"] / T
    extra = {}
    for name, T in grid.items():
        rate, calls = SPECS[name][3:]
        text = ", ".join(map(str, T))
        extra[name] = dict(horizons=text, table1_regret=rate, table1_calls=calls)
    return _summarized(run, POBGA_TABLES, rows, extra, horizons=grid, **POBGA_SETTINGS)


def plot_pobga(result, figure):
    """Regret curves, 1-regret and LMO calls against T, one line per learner.

    Left: the median :math:`(1-1/e)`-regret :math:`R_{t, 1-1/e}` against the
    round :math:`t`, at each learner's largest horizon (symmetric-log
    :math:`y` axis, the regret being negative on i.i.d. streams). Middle:
    the 1-regret at :math:`T` against :math:`T`, log-log, with its slope in
    the legend. Right: LMO calls against :math:`T`, log-log, with a dashed
    :math:`y = T` reference. A learner with no positive value on a log-log
    panel (OBGA's LMO calls, the theory preset's while it plays 0) has no
    line there.

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_pobga`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    """
    draw(result, figure, *POBGA_PLOT, size=(5.0, 4.5))


def _weights(name, n_nodes, rng):
    """Metropolis weights of the graph ``name``."""
    if name == "Erdos-Renyi":
        graph = online.erdos_renyi_graph(n_nodes, ER_PROBABILITY, random_state=rng)
    else:
        graph = _GRAPH_MAKERS[name](n_nodes)
    return online.metropolis_weights(graph)


def _run_dpobga_once(weights, horizon, seeds, decision_set):
    stream_seed, noise_seed, learner_seed = (int(s) for s in seeds)
    with single_threaded_blas():
        lmo, objectives = make_decentralized_nqp(
            horizon=horizon, n_nodes=len(weights), random_state=stream_seed, **PROBLEM
        )
        if decision_set == "partition":
            size = N_FEATURES // PARTITION_GROUPS
            groups = range(PARTITION_GROUPS)
            lmo = ProductLMO([CappedSimplexLMO(1.0, n_features=size) for _ in groups])
        learner = online.DPOBGA(lmo, horizon, weights, random_state=learner_seed)
        result = online.run_online(learner, objectives, random_state=noise_seed)
    # Node i's mean reward on the average function (1/N) sum_j f_{t,j}.
    node_mean = result.node_rewards.mean(axis=0)
    consensus = np.asarray(learner.history_["consensus_error"], dtype=np.float64)
    block_size, exchanges = int(learner.block_size_), int(result.n_communications)
    return {
        "block_size": block_size,
        "n_communications": exchanges,
        "expected_communications": -(-horizon // block_size),
        "communications_per_round": exchanges / horizon,
        "n_grad_calls": int(result.n_grad_calls),
        "consensus_max": float(consensus.max()),
        "consensus_mean": float(consensus[1:].mean()) if consensus.size > 1 else 0.0,
        "consensus_last": float(consensus[-1]),
        "lmo_per_node_max": int(np.max(learner.n_lmo_calls_per_node_)),
        "reward_worst_node": float(node_mean.min()),
        "reward_best_node": float(node_mean.max()),
        "wall_time": float(result.wall_time),
        "consensus_curve": consensus.tolist(),
    }


def run_dpobga(
    *,
    full=False,
    trials=None,
    random_state=0,
    n_jobs=None,
    progress=None,
    graphs=GRAPHS,
    n_nodes=None,
    horizons=None,
    decision_set="partition",
):
    """Communication rounds and consensus error of DPOBGA on three graphs.

    :class:`~skcgm.online.DPOBGA` (Algorithm 2, ``preset='practical'``) on
    :func:`~skcgm.datasets.make_decentralized_nqp` (``n_features=25``,
    ``n_constraints=15``, ``adversary='iid'``, ``noise=0.1``: node :math:`i`
    receives its own monotone DR-submodular quadratic :math:`f_{t,i}` every
    round, note 002 section 4.2 P3), with Metropolis weights
    (:func:`~skcgm.online.metropolis_weights`) on a complete graph, a cycle
    and a connected Erdős-Rényi graph :math:`G(N, 0.3)` (drawn once from
    ``random_state``), and the mixing rate :math:`\\beta = \\max(|\\lambda_2|,
    |\\lambda_N|)` of each. Reported per graph and horizon: the exchange
    rounds per node (``n_communications``, exactly :math:`\\lceil T/K
    \\rceil`, against :math:`T` for a method gossiping every round such as
    DOBGA or Mono-DMFW), the consensus error :math:`\\max_i \\|x_m^i - \\bar
    x_m\\|` at every block's exchange (its largest, mean over the blocks
    after the first, and last value), the largest LMO count of a node, and
    the mean reward per round of the worst and the best node on the average
    function :math:`\\frac1N \\sum_j f_{t,j}` (the function their regrets
    are measured on); and per graph the log-log slopes of the communication
    rounds (Table 1: :math:`\\sqrt T`) and of the mean consensus error
    against :math:`T`.

    The decision set. ``'partition'`` (default) is the partition-matroid
    polytope :math:`\\{x \\ge 0 : \\sum_{i \\in g} x_i \\le 1\\}` over 5 groups
    of 5 coordinates (``ProductLMO`` of capped simplices, a closed-form
    oracle); ``'polytope'`` is the NQP's random polytope :math:`\\{x \\in [0,
    1]^{25} : A x \\le \\mathbf 1\\}` of the generator, whose LP oracle
    (about 5 ms a call, every node calling it) makes the run about ten
    times slower. Both lie in :math:`[0, 1]^{25}`, where every
    :math:`f_{t,i}` is monotone; communication does not depend on the set.

    Sizes. Quick (default): :math:`N = 6` nodes, :math:`T \\in \\{100, 300,
    1000\\}`, one trial (about half a minute). ``full``: :math:`N = 10`,
    :math:`T \\in \\{10^3, 3 \\cdot 10^3, 10^4, 3 \\cdot 10^4\\}`, three
    trials.

    Parameters
    ----------
    full : bool, default=False
        The full sizes instead of the quick ones.
    trials : int or None, default=None
        Number of trials (streams and seeds); overrides ``full``. The rows
        report medians.
    random_state : int, default=0
        Seed of the Erdős-Rényi graph, the streams and the learners.
    n_jobs : int or None, default=None
        Runs (graph, horizon, trial) in parallel through joblib.
    progress : callable or None, default=None
        Called with a one-line message per stage.
    graphs : tuple of str, default=GRAPHS
        Among ``'complete'``, ``'cycle'`` and ``'Erdos-Renyi'``.
    n_nodes : int or None, default=None
        Number of nodes :math:`N`; overrides ``full``.
    horizons : tuple of int or None, default=None
        The horizons; overrides ``full``.
    decision_set : {'partition', 'polytope'}, default='partition'
        The decision set (see above).

    Returns
    -------
    result : ExperimentResult
        One row per (graph, :math:`T`) with ``n_nodes``, ``beta`` (mixing
        rate), ``spectral_gap``, ``block_size``, ``n_communications``,
        ``expected_communications`` (:math:`\\lceil T/K \\rceil`),
        ``communications_per_round``, medians over the trials of
        ``consensus_max``, ``consensus_mean``, ``consensus_last``,
        ``lmo_per_node_max``, ``reward_worst_node``, ``reward_best_node``
        and ``wall_time`` (s), the median ``consensus_curve`` (one value per
        block) and, in every row of a graph, ``communication_slope`` (log-log
        slope of the communication rounds over the horizons).

    See Also
    --------
    run_pobga : Regret and oracle calls of the centralized learners.

    Examples
    --------
    >>> from skcgm.experiments._online import run_dpobga
    >>> result = run_dpobga(graphs=("cycle",), n_nodes=4, horizons=(25, 100))
    >>> [(row["n_communications"], row["expected_communications"])
    ...  for row in result.rows]
    [(5, 5), (10, 10)]
    >>> round(result.rows[0]["communication_slope"], 2)
    0.5
    """
    _check("graphs", graphs, GRAPHS)
    _check("decision_set", [decision_set], ("partition", "polytope"))
    run = TrialRunner((1, 3), full, trials, random_state, n_jobs, progress)
    size = run.settings(DP_QUICK, DP_FULL, n_nodes=n_nodes, horizons=horizons)
    size.horizons = tuple(int(T) for T in size.horizons)
    size.graphs, size.decision_set = graphs, decision_set
    # Drawn in this order: the graphs (the Erdos-Renyi one), then the seeds.
    weights = {name: _weights(name, size.n_nodes, run.rng) for name in graphs}
    seeds = {T: run.seeds((run.trials, 3)) for T in size.horizons}
    run.report(f"DPOBGA: {list(graphs)} x T={list(size.horizons)}, N={size.n_nodes}")

    def args(name, T, k):
        return weights[name], T, seeds[T][k], decision_set

    grid = dict.fromkeys(graphs, size.horizons)
    rows = _grid(run, "graph", grid, _run_dpobga_once, args, DP_FIRST, DP_SLOPES)
    for row in rows:
        beta = online.mixing_rate(weights[row["graph"]])
        row.update(n_nodes=size.n_nodes, beta=beta, spectral_gap=1.0 - beta)
    return _summarized(
        run, DPOBGA_TABLES, rows, weights=weights, **vars(size), **DP_SETTINGS
    )


def plot_dpobga(result, figure):
    """Draw the consensus error per block and the exchange rounds against T.

    Left: the consensus error :math:`\\max_i \\|x_m^i - \\bar x_m\\|` at every
    exchange against the round it opens, at the largest horizon, one line
    per graph (log :math:`y`; the zero of the first exchange, where every
    node starts at 0, is not drawn). Right: the exchange rounds per
    node against :math:`T`, log-log, one line per graph (they coincide:
    :math:`\\lceil T/K \\rceil` does not depend on the graph), with a dashed
    :math:`T` reference (gossip every round).

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_dpobga`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    """
    draw(result, figure, *DPOBGA_PLOT, size=(5.5, 4.5))
