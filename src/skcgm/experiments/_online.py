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

import numpy as np

from ..datasets import make_decentralized_nqp, make_online_nqp
from ..online import (
    DPOBGA,
    OBGA,
    POBGA,
    MetaFW,
    MonoFW,
    alpha_regret,
    complete_graph,
    continuous_greedy,
    cycle_graph,
    erdos_renyi_graph,
    metropolis_weights,
    mixing_rate,
    run_online,
)
from ..online._pobga import PRESETS
from ..online._run import sum_gradient
from ..oracles import CappedSimplexLMO, ProductLMO
from ..utils._blocks import single_threaded_blas
from ._result import Column, ExperimentResult, format_table
from ._runner import TrialRunner

ALPHA = 1.0 - 1.0 / math.e
# The NQP of the issue (note 002, section 4.2 P1): n = 25, m = 15, i.i.d.
# matrices, gradient noise of norm 0.1.
N_FEATURES = 25
N_CONSTRAINTS = 15
NOISE = 0.1
ADVERSARY = "iid"
PROBLEM = {
    "n_features": N_FEATURES,
    "n_constraints": N_CONSTRAINTS,
    "adversary": ADVERSARY,
    "noise": NOISE,
}
# Continuous greedy steps of the comparator (one LMO call each).
COMPARATOR_STEPS = 100
# Points of the regret curves kept in the rows (log-spaced rounds).
CURVE_POINTS = 48

LEARNERS = ("POBGA", "POBGA (theory)", "Mono-FW", "Meta-FW", "OBGA")
# Horizons per learner. Meta-FW makes K = sqrt(T) LMO calls per round
# (T^{3/2} in all) and OBGA one exact projection per round (an L-BFGS-B solve
# of the polytope's dual), so they run at the smaller horizons only.
QUICK_HORIZONS = {
    "POBGA": (100, 300, 1000),
    "POBGA (theory)": (100, 300, 1000),
    "Mono-FW": (100, 300, 1000),
    "Meta-FW": (30, 100),
    "OBGA": (100, 300),
}
FULL_HORIZONS = {
    "POBGA": (1000, 3000, 10000, 30000, 100000),
    "POBGA (theory)": (1000, 3000, 10000, 30000, 100000),
    "Mono-FW": (1000, 3000, 10000, 30000, 100000),
    "Meta-FW": (300, 1000),
    "OBGA": (1000, 3000, 10000),
}
QUICK_TRIALS = 1
FULL_TRIALS = 3
# Table 1 of the paper: (1-1/e)-regret and oracle calls (gradients + LMO).
TABLE1_REGRET = {
    "POBGA": "T^(3/4)",
    "POBGA (theory)": "T^(3/4)",
    "Mono-FW": "T^(4/5)",
    "Meta-FW": "T^(1/2)",
    "OBGA": "T^(1/2)",
}
TABLE1_CALLS = {
    "POBGA": "O(T) LMO",
    "POBGA (theory)": "<= T LMO",
    "Mono-FW": "O(T) LMO",
    "Meta-FW": "O(T^(3/2)) LMO",
    "OBGA": "T projections",
}
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

GRAPHS = ("complete", "cycle", "Erdos-Renyi")
ER_PROBABILITY = 0.3
QUICK_N_NODES = 6
FULL_N_NODES = 10
QUICK_DP_HORIZONS = (100, 300, 1000)
FULL_DP_HORIZONS = (1000, 3000, 10000, 30000)
QUICK_DP_TRIALS = 1
FULL_DP_TRIALS = 3
GRAPH_SUMMARY_COLUMNS = [
    Column("graph", "graph"),
    Column("beta", "beta", ".3f"),
    Column("spectral_gap", "1 - beta", ".3f"),
    Column("communication_slope", "slope exchanges (Table 1: 0.5)", ".3f"),
    Column("consensus_slope", "slope consensus mean", ".2f"),
]
# The decision set of reproduce dpobga: the partition-matroid polytope
# {x >= 0, sum of each group of 5 coordinates <= 1} of the 25 coordinates.
PARTITION_GROUPS = 5
# The generators rebuild an i.i.d. round from its seed at every access; a
# learner's run reads every round twice (run_online, then the regret), so
# streams up to this many matrix entries are built once and kept (8 bytes
# each: 256 MiB, T = 3e4 rounds of the NQP).
_MATERIALIZE_ENTRIES = 2**25


def _materialized(objectives):
    if len(objectives) * N_FEATURES**2 <= _MATERIALIZE_ENTRIES:
        return list(objectives)
    return objectives


class _SummarizedResult(ExperimentResult):
    """A result whose text ends with a summary table (one row per learner or graph).

    The summary rows are ``metadata['summary']``, so that :meth:`to_dict`
    keeps them; the slopes they show are also in every row of the main table.
    """

    def __init__(self, name, rows, columns, caption, metadata, summary_columns):
        super().__init__(name, rows, columns, caption, metadata)
        self.summary_columns = summary_columns

    def to_text(self, width=100):
        """The caption, the table and the summary table.

        Parameters
        ----------
        width : int, default=100
            Width the caption is wrapped to.

        Returns
        -------
        text : str
            Caption, main table, then the summary table.
        """
        summary = format_table(self.metadata["summary"], self.summary_columns)
        return super().to_text(width=width) + "\n\n" + summary


def _grad_bound(n_features, noise):
    """G of Assumption A3 on the NQP: gradient entries in [0, 1], plus the noise."""
    return math.sqrt(n_features) + noise


def _nqp(horizon, seed):
    return make_online_nqp(
        N_FEATURES,
        N_CONSTRAINTS,
        horizon,
        adversary=ADVERSARY,
        noise=NOISE,
        random_state=int(seed),
    )


def _make_learner(name, lmo, horizon, seed):
    if name == "POBGA":
        return POBGA(lmo, horizon, random_state=seed)
    if name == "POBGA (theory)":
        return POBGA(
            lmo,
            horizon,
            preset="theory",
            grad_bound=_grad_bound(N_FEATURES, NOISE),
            random_state=seed,
        )
    if name == "Mono-FW":
        return MonoFW(lmo, horizon, random_state=seed)
    if name == "Meta-FW":
        return MetaFW(lmo, horizon, random_state=seed)
    if name == "OBGA":
        return OBGA(lmo, horizon, random_state=seed)
    raise ValueError(f"Unknown learner {name!r}; choose among {list(LEARNERS)}.")


def _block_size(learner):
    for attribute in ("block_size_", "n_oracles_"):
        value = getattr(learner, attribute, None)
        if value is not None:
            return int(value)
    return None


def _curve_index(horizon, n_points=CURVE_POINTS):
    """Log-spaced rounds 1..T (1-based) where the regret curves are kept."""
    rounds = np.unique(np.geomspace(1, horizon, n_points).round().astype(int))
    return rounds


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


def _comparator(horizon, seed):
    """Continuous greedy on the sum of the T objectives: the regrets' comparator."""
    with single_threaded_blas():
        lmo, objectives = _nqp(horizon, seed)
        return continuous_greedy(
            lmo, sum_gradient(objectives), lmo.n_features, n_steps=COMPARATOR_STEPS
        )


def _run_learner(name, horizon, seeds, comparator):
    stream_seed, noise_seed, learner_seed = (int(s) for s in seeds)
    with single_threaded_blas():
        lmo, objectives = _nqp(horizon, stream_seed)
        objectives = _materialized(objectives)
        learner = _make_learner(name, lmo, horizon, learner_seed)
        result = run_online(learner, objectives, random_state=noise_seed)
        # One pass over the objectives: the 1-regret curve; the comparator's
        # cumulative reward is that curve plus the learner's.
        regret1 = alpha_regret(
            result.rewards, objectives, lmo, alpha=1.0, comparator=comparator
        )
    cumulative = np.cumsum(result.rewards)
    best = regret1 + cumulative
    regret = ALPHA * best - cumulative
    rounds = _curve_index(horizon)
    return {
        "regret": float(regret[-1]),
        "regret1": float(regret1[-1]),
        "comparator_reward": float(best[-1]),
        "mean_reward": float(cumulative[-1] / horizon),
        "n_lmo_calls": int(result.n_lmo_calls),
        "n_grad_calls": int(result.n_grad_calls),
        "n_projections": int(result.n_projections),
        "wall_time": float(result.wall_time),
        "block_size": _block_size(learner),
        "eps": getattr(learner, "eps_", None),
        "step_size": getattr(learner, "step_size_", None),
        "curve_t": rounds.tolist(),
        "curve_regret": regret[rounds - 1].tolist(),
        "curve_regret1": regret1[rounds - 1].tolist(),
    }


def _median(values):
    return float(np.median(values))


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
    unknown = sorted(set(learners) - set(LEARNERS))
    if unknown:
        raise ValueError(f"Unknown learners {unknown}; choose among {list(LEARNERS)}.")
    run = TrialRunner(
        (QUICK_TRIALS, FULL_TRIALS), full, trials, random_state, n_jobs, progress
    )
    trials = run.trials
    if horizons is None:
        horizons = FULL_HORIZONS if full else QUICK_HORIZONS
    if not isinstance(horizons, dict):
        horizons = {name: tuple(horizons) for name in learners}
    grid = {name: tuple(int(T) for T in horizons[name]) for name in learners}
    all_horizons = sorted({T for values in grid.values() for T in values})
    # (stream, gradient noise, learner) seeds of every horizon and trial; every
    # learner plays the same stream with the same noise at a horizon.
    seeds = {T: run.seeds((trials, 3)) for T in all_horizons}

    run.report(
        f"comparators: continuous greedy ({COMPARATOR_STEPS} steps) for "
        f"{len(all_horizons)} horizons x {trials} trials"
    )
    keys = [(T, k) for T in all_horizons for k in range(trials)]
    comparators = dict(
        zip(
            keys,
            run.map(_comparator, [(T, seeds[T][k, 0]) for T, k in keys]),
        )
    )
    tasks = [
        (name, T, k) for name in learners for T in grid[name] for k in range(trials)
    ]
    run.report(
        f"{len(tasks)} runs: "
        + ", ".join(f"{name} T={list(grid[name])}" for name in learners)
    )
    outputs = run.map(
        _run_learner,
        [(name, T, seeds[T][k], comparators[T, k]) for name, T, k in tasks],
    )
    runs = dict(zip(tasks, outputs))

    rows = []
    summary = []
    for name in learners:
        block = []
        for T in grid[name]:
            trial_runs = [runs[name, T, k] for k in range(trials)]

            def values(key, trial_runs=trial_runs):
                return [run[key] for run in trial_runs]

            row = {"learner": name, "horizon": T, "trials": trials}
            for key in (
                "regret",
                "regret1",
                "mean_reward",
                "comparator_reward",
                "n_lmo_calls",
                "n_grad_calls",
                "n_projections",
                "wall_time",
            ):
                row[key] = _median(values(key))
                row[f"{key}_trials"] = values(key)
            for key in ("n_lmo_calls", "n_grad_calls", "n_projections"):
                if len(set(values(key))) == 1:
                    row[key] = int(values(key)[0])
            row["regret1_per_round"] = row["regret1"] / T
            row["lmo_per_round"] = row["n_lmo_calls"] / T
            row["time_per_round"] = row["wall_time"] / T
            row["block_size"] = trial_runs[0]["block_size"]
            row["eps"] = trial_runs[0]["eps"]
            row["step_size"] = trial_runs[0]["step_size"]
            row["curve_t"] = trial_runs[0]["curve_t"]
            for key in ("curve_regret", "curve_regret1"):
                row[key] = np.median(values(key), axis=0).tolist()
            block.append(row)
        T = [row["horizon"] for row in block]
        slopes = {
            "regret_slope": loglog_slope(T, [row["regret"] for row in block]),
            "regret1_slope": loglog_slope(T, [row["regret1"] for row in block]),
            "lmo_slope": loglog_slope(T, [row["n_lmo_calls"] for row in block]),
            "time_slope": loglog_slope(T, [row["wall_time"] for row in block]),
        }
        for row in block:
            row.update(slopes)
        rows.extend(block)
        summary.append(
            {
                "learner": name,
                "horizons": ", ".join(str(t) for t in T),
                "table1_regret": TABLE1_REGRET[name],
                "table1_calls": TABLE1_CALLS[name],
                **slopes,
            }
        )

    columns = [
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
    c_eta, c_eps, c_k = PRESETS["practical"]
    grid_text = "; ".join(f"{name}: T in {list(grid[name])}" for name in learners)
    caption = (
        "Table: online monotone NQP (make_online_nqp, n=25, m=15, adversary='iid', "
        "noise=0.1; K = {x in [0,1]^25 : Ax <= 1}, LP oracle). Regrets at T against "
        f"continuous greedy ({COMPARATOR_STEPS} steps) on sum_t f_t; median over "
        f"{trials} trial(s) (stream, gradient noise and learner seeds). POBGA: "
        f"preset='practical' (c_eta, c_eps, c_K) = ({c_eta:g}, {c_eps:g}, {c_k:g}), "
        "G estimated on the first block; POBGA (theory): (20, 405, 1), G = 5.1 "
        "(plays 0 for T up to 1215^2 ~ 1.48e6); Mono-FW: K = T^(3/5), FTPL; Meta-FW: "
        "K = sqrt(T) FTPL oracles, exact gradients; OBGA: exact projection "
        f"every round. {grid_text}. Second table: log-log slopes (least squares "
        "of log(median) on log T over each learner's horizons) beside the "
        "paper's Table 1 rates; — when a value is <= 0 (a negative "
        "(1-1/e)-regret: the learner beat 1-1/e of the comparator). Time: inside "
        f"the learner, BLAS on one thread. random_state={random_state}, "
        f"{run.cpu_count} cores."
    )
    metadata = run.metadata(
        n_jobs=n_jobs,
        horizons={name: list(grid[name]) for name in learners},
        problem=PROBLEM,
        comparator_steps=COMPARATOR_STEPS,
        pobga_presets={key: list(value) for key, value in PRESETS.items()},
        summary=summary,
    )
    return _SummarizedResult("pobga", rows, columns, caption, metadata, SLOPE_COLUMNS)


def _learner_rows(result):
    by_learner = {}
    for row in result.rows:
        by_learner.setdefault(row["learner"], []).append(row)
    return by_learner


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
    figure.set_size_inches(15.0, 4.5)
    curves, regrets, calls = figure.subplots(1, 3)
    all_T = sorted({row["horizon"] for row in result.rows})
    for i, (name, rows) in enumerate(_learner_rows(result).items()):
        color = f"C{i}"
        last = rows[-1]
        curves.plot(
            last["curve_t"],
            last["curve_regret"],
            color=color,
            label=f"{name}, T={last['horizon']} ({last['n_lmo_calls']:.0f} LMO calls)",
        )
        for ax, key, slope_key in (
            (regrets, "regret1", "regret1_slope"),
            (calls, "n_lmo_calls", "lmo_slope"),
        ):
            points = [(row["horizon"], row[key]) for row in rows if row[key] > 0]
            if not points:
                continue
            slope = last[slope_key]
            slope_text = "" if slope is None else f", slope {slope:.2f}"
            ax.plot(*zip(*points), "o-", color=color, label=f"{name}{slope_text}")
    calls.plot(all_T, all_T, "k--", linewidth=1, label="T")
    curves.set_yscale("symlog", linthresh=1.0)
    curves.set_xscale("log")
    curves.set_xlabel("round t")
    curves.set_ylabel("(1-1/e)-regret (median)")
    curves.set_title("regret curves (i.i.d. NQP, n=25, m=15)", fontsize="medium")
    for ax, label in ((regrets, "1-regret at T"), (calls, "LMO calls")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        # The horizons as plain ticks; no minor labels crowding them.
        ax.set_xticks(all_T, [str(T) for T in all_T])
        ax.tick_params(which="minor", labelbottom=False, labelleft=False)
        ax.set_xlabel("horizon T")
        ax.set_ylabel(label)
    regrets.set_title("1-regret against continuous greedy", fontsize="medium")
    calls.set_title("linear minimization oracle calls", fontsize="medium")
    for ax in (curves, regrets, calls):
        ax.legend(fontsize="x-small")
    figure.tight_layout()


def _graph(name, n_nodes, rng):
    if name == "complete":
        return complete_graph(n_nodes)
    if name == "cycle":
        return cycle_graph(n_nodes)
    if name == "Erdos-Renyi":
        return erdos_renyi_graph(n_nodes, ER_PROBABILITY, random_state=rng)
    raise ValueError(f"Unknown graph {name!r}; choose among {list(GRAPHS)}.")


def _partition_lmo():
    size = N_FEATURES // PARTITION_GROUPS
    return ProductLMO(
        [CappedSimplexLMO(1.0, n_features=size) for _ in range(PARTITION_GROUPS)]
    )


def _decentralized(horizon, n_nodes, seed, decision_set):
    lmo, objectives = make_decentralized_nqp(
        N_FEATURES,
        N_CONSTRAINTS,
        horizon,
        n_nodes,
        adversary=ADVERSARY,
        noise=NOISE,
        random_state=int(seed),
    )
    if decision_set == "partition":
        lmo = _partition_lmo()
    return lmo, objectives


def _run_dpobga_once(weights, horizon, seeds, decision_set):
    stream_seed, noise_seed, learner_seed = (int(s) for s in seeds)
    n_nodes = weights.shape[0]
    with single_threaded_blas():
        lmo, objectives = _decentralized(horizon, n_nodes, stream_seed, decision_set)
        learner = DPOBGA(lmo, horizon, weights, random_state=learner_seed)
        result = run_online(learner, objectives, random_state=noise_seed)
    # Node i's mean reward on the average function (1/N) sum_j f_{t,j}.
    node_mean = result.node_rewards.mean(axis=0)
    consensus = np.asarray(learner.history_["consensus_error"], dtype=np.float64)
    return {
        "n_communications": int(result.n_communications),
        "block_size": int(learner.block_size_),
        "n_blocks": int(learner.n_blocks_),
        "consensus_max": float(consensus.max()),
        "consensus_last": float(consensus[-1]),
        "consensus_mean": float(consensus[1:].mean()) if consensus.size > 1 else 0.0,
        "consensus_curve": consensus.tolist(),
        "lmo_per_node_max": int(np.max(learner.n_lmo_calls_per_node_)),
        "n_grad_calls": int(result.n_grad_calls),
        "reward_worst_node": float(node_mean.min()),
        "reward_best_node": float(node_mean.max()),
        "wall_time": float(result.wall_time),
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
    unknown = sorted(set(graphs) - set(GRAPHS))
    if unknown:
        raise ValueError(f"Unknown graphs {unknown}; choose among {list(GRAPHS)}.")
    if decision_set not in ("partition", "polytope"):
        raise ValueError(
            f"decision_set must be 'partition' or 'polytope'; got {decision_set!r}."
        )
    run = TrialRunner(
        (QUICK_DP_TRIALS, FULL_DP_TRIALS), full, trials, random_state, n_jobs, progress
    )
    trials = run.trials
    if n_nodes is None:
        n_nodes = FULL_N_NODES if full else QUICK_N_NODES
    if horizons is None:
        horizons = FULL_DP_HORIZONS if full else QUICK_DP_HORIZONS
    horizons = tuple(int(T) for T in horizons)
    # Drawn in this order: the graphs (the Erdos-Renyi one), then the seeds.
    weights = {
        name: metropolis_weights(_graph(name, n_nodes, run.rng)) for name in graphs
    }
    seeds = {T: run.seeds((trials, 3)) for T in horizons}

    tasks = [(name, T, k) for name in graphs for T in horizons for k in range(trials)]
    run.report(
        f"{len(tasks)} runs of DPOBGA: {list(graphs)} x T={list(horizons)} x "
        f"{trials} trial(s), N={n_nodes}, decision set {decision_set!r}"
    )
    outputs = run.map(
        _run_dpobga_once,
        [(weights[name], T, seeds[T][k], decision_set) for name, T, k in tasks],
    )
    runs = dict(zip(tasks, outputs))

    rows = []
    summary = []
    for name in graphs:
        beta = mixing_rate(weights[name])
        block = []
        for T in horizons:
            trial_runs = [runs[name, T, k] for k in range(trials)]
            first = trial_runs[0]
            row = {
                "graph": name,
                "n_nodes": n_nodes,
                "beta": beta,
                "spectral_gap": 1.0 - beta,
                "horizon": T,
                "trials": trials,
                "block_size": first["block_size"],
                "n_communications": first["n_communications"],
                "expected_communications": -(-T // first["block_size"]),
                "communications_per_round": first["n_communications"] / T,
                "n_grad_calls": first["n_grad_calls"],
            }
            for key in (
                "consensus_max",
                "consensus_mean",
                "consensus_last",
                "lmo_per_node_max",
                "reward_worst_node",
                "reward_best_node",
                "wall_time",
            ):
                row[key] = _median([run[key] for run in trial_runs])
                row[f"{key}_trials"] = [run[key] for run in trial_runs]
            row["consensus_curve"] = np.median(
                [run["consensus_curve"] for run in trial_runs], axis=0
            ).tolist()
            block.append(row)
        slope = loglog_slope(horizons, [row["n_communications"] for row in block])
        consensus_slope = loglog_slope(
            horizons, [row["consensus_mean"] for row in block]
        )
        for row in block:
            row["communication_slope"] = slope
            row["consensus_slope"] = consensus_slope
        rows.extend(block)
        summary.append(
            {
                "graph": name,
                "beta": beta,
                "spectral_gap": 1.0 - beta,
                "communication_slope": slope,
                "consensus_slope": consensus_slope,
            }
        )

    columns = [
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
    set_text = (
        "the partition-matroid polytope {x >= 0 : each of 5 groups of 5 "
        "coordinates sums to <= 1} (ProductLMO of capped simplices)"
        if decision_set == "partition"
        else "the NQP polytope {x in [0,1]^25 : Ax <= 1} (LP oracle)"
    )
    caption = (
        f"Table: DPOBGA (preset='practical') with N={n_nodes} nodes on "
        "make_decentralized_nqp (n=25, m=15, adversary='iid', noise=0.1; one "
        f"local quadratic per node and round) over {set_text}; Metropolis "
        "weights on a complete graph, a cycle and a connected Erdos-Renyi "
        f"G(N, {ER_PROBABILITY}); beta = max(|lambda_2|, |lambda_N|). Exchanges/"
        "node: communication rounds of every node (one per block of K rounds, "
        "ceil(T/K); a method gossiping every round makes T). Consensus: max_i "
        "||x_m^i - mean_j x_m^j|| at each exchange; max over blocks, mean over "
        "the blocks after the first, last block. Reward/round: mean over the "
        "rounds of a node's reward on the average function (1/N) sum_j f_t,j "
        f"(worst and best node). Median over {trials} trial(s). "
        "Second table: beta, and the log-log slopes (least squares on log T) "
        "of the exchanges and of the mean consensus error. "
        f"random_state={random_state}, {run.cpu_count} cores."
    )
    metadata = run.metadata(
        n_jobs=n_jobs,
        n_nodes=n_nodes,
        horizons=list(horizons),
        graphs=list(graphs),
        er_probability=ER_PROBABILITY,
        decision_set=decision_set,
        weights={name: weights[name].tolist() for name in graphs},
        problem=PROBLEM,
        summary=summary,
    )
    return _SummarizedResult(
        "dpobga", rows, columns, caption, metadata, GRAPH_SUMMARY_COLUMNS
    )


def plot_dpobga(result, figure):
    """Draw the consensus error per block and the exchange rounds against T.

    Left: the consensus error :math:`\\max_i \\|x_m^i - \\bar x_m\\|` at every
    exchange against the round it opens, at the largest horizon, one line
    per graph (log :math:`y`; the complete graph agrees exactly after one
    exchange, so its zeros are not drawn). Right: the exchange rounds per
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
    figure.set_size_inches(11.0, 4.5)
    consensus, exchanges = figure.subplots(1, 2)
    by_graph = {}
    for row in result.rows:
        by_graph.setdefault(row["graph"], []).append(row)
    all_T = sorted({row["horizon"] for row in result.rows})
    markers = "os^v"
    for i, (name, rows) in enumerate(by_graph.items()):
        last = rows[-1]
        curve = np.asarray(last["consensus_curve"], dtype=np.float64)
        block_start = np.arange(curve.size) * last["block_size"] + 1
        positive = curve > 0
        consensus.plot(
            block_start[positive],
            curve[positive],
            color=f"C{i}",
            label=f"{name} (beta={last['beta']:.3f})",
        )
        slope = last["communication_slope"]
        slope_text = "" if slope is None else f", slope {slope:.3f}"
        exchanges.plot(
            [row["horizon"] for row in rows],
            [row["n_communications"] for row in rows],
            marker=markers[i % len(markers)],
            color=f"C{i}",
            label=f"{name}{slope_text}",
        )
    exchanges.plot(all_T, all_T, "k--", linewidth=1, label="T (gossip every round)")
    consensus.set_yscale("log")
    consensus.set_xlabel("round t (start of the block)")
    consensus.set_ylabel("max_i ||x_m^i - mean x_m||")
    consensus.set_title(
        f"consensus error, T={all_T[-1]}, N={rows[0]['n_nodes']}", fontsize="medium"
    )
    exchanges.set_xscale("log")
    exchanges.set_yscale("log")
    exchanges.set_xticks(all_T, [str(T) for T in all_T])
    exchanges.tick_params(which="minor", labelbottom=False)
    exchanges.set_xlabel("horizon T")
    exchanges.set_ylabel("communication rounds per node")
    exchanges.set_title("one exchange per block", fontsize="medium")
    for ax in (consensus, exchanges):
        ax.legend(fontsize="x-small")
    figure.tight_layout()
