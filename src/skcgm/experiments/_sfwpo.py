"""SFWPO (Algorithm 5) with the exact and the LSH oracle: return and cost.

The paper states no measurement: this
experiment shows what the LSH oracle buys on the action-constrained MDP
generator, the return reached per iteration against the candidates scored.
"""

import time
from functools import partial

import numpy as np

from ..datasets import make_action_constrained_mdp
from ..optim import sfwpo
from ._plot import Panel, draw
from ._result import Column
from ._runner import TrialRunner

QUICK_MDP = {"n_states": 10, "n_actions": 2000, "action_dim": 8, "gamma": 0.9}
FULL_MDP = {"n_states": 20, "n_actions": 8000, "action_dim": 8, "gamma": 0.9}
QUICK_ITER = 30
FULL_ITER = 100
LSH = {"n_tables": 16, "n_bits": 8}
ORACLES = ("exact", "lsh")
STATS = ("return_mean", "return_std", "return_ratio", "scored_fraction", "time")
CAPTION = (
    "Table: SFWPO (Algorithm 5) on make_action_constrained_mdp(**{mdp}), {trials} "
    "MDPs, {max_iter} iterations, the exact MIPS scan against LSHMIPS(**{lsh}) per "
    "state, the same seed for both. Return: mean ± std over MDPs; return / exact: "
    "mean over MDPs of the LSH return over the exact one; scored: mean candidates "
    "scored per iteration so far. random_state={random_state}, {cpu_count} cores."
)
COLUMNS = [
    Column("oracle", "oracle", group=True),
    Column("iteration", "iteration"),
    Column("return_mean", "return", ".4f", "return_std"),
    Column("return_ratio", "return / exact", ".4f"),
    Column("scored_fraction", "scored / (|S| |A|) per iter", ".3f"),
    Column("time", "time per run (s)", ".3f", group=True),
]
_SYMLOG = {"value": "symlog", "base": 2, "linthresh": 1}
_PANEL = partial(Panel, "iteration", by="oracle", xlabel="iteration", xscale=_SYMLOG)
PLOT = (
    _PANEL("return_mean", ylabel="return (mean ± std over MDPs)", yerr="return_std"),
    _PANEL(
        "scored_fraction",
        ylabel="candidates scored per iteration / (|S| |A|)",
        ylim=(0, 1.05),
    ),
)


def _checkpoints(max_iter):
    powers = {2**k for k in range(1, max_iter.bit_length()) if 2**k < max_iter}
    return sorted({0, 1, max_iter} | powers)


def _run(mdp, maxip, max_iter, seed):
    options = LSH if maxip == "lsh" else {}
    start = time.perf_counter()
    result = sfwpo(mdp, maxip=maxip, max_iter=max_iter, random_state=seed, **options)
    elapsed = time.perf_counter() - start
    # Entry k describes the policy after k updates; a run that stopped early
    # (zero gap) keeps its last policy.
    returns = np.asarray(result.return_history, dtype=float)
    returns = np.pad(returns, (0, max_iter + 1 - returns.size), mode="edge")
    return returns, np.asarray(result.n_scored, dtype=float), elapsed


def run_sfwpo(*, full=False, trials=None, random_state=0, n_jobs=None, progress=None):
    """Return reached per iteration by SFWPO with the exact and the LSH oracle.

    On ``trials`` MDPs of :func:`~skcgm.datasets.make_action_constrained_mdp`
    (10 states, 2000 actions of dimension 8 per state, discount 0.9; 20
    states and 8000 actions with ``full``), SFWPO (Algorithm 5) runs with
    the exact MIPS scan and with the LSH index (16 tables of 8 bits), from
    the same seed. Reported after 0, 1, 2, 4, ..., max_iter updates: the return
    (mean ± std over MDPs), the LSH return over the exact one, and the
    candidates scored per iteration as a fraction of all state-action pairs.

    Parameters
    ----------
    full : bool, default=False
        The larger MDP, 100 iterations and 10 MDPs instead of 30 and 3.
    trials : int or None, default=None
        Number of MDPs; overrides ``full``.
    random_state : int, default=0
        Seed of the MDPs and of the LSH indexes.
    n_jobs : int or None, default=None
        Unused (the runs are sequential); accepted for the command line.
    progress : callable or None, default=None
        Called with a one-line message before each run.

    Returns
    -------
    result : ExperimentResult
        One row per (oracle, k updates) with ``return_mean``,
        ``return_std``, ``return_ratio`` (LSH over exact, mean over MDPs),
        ``scored_fraction`` (mean candidates scored per oracle call at the
        policies 0..k, over ``n_states * n_actions``) and ``time`` (s per
        run of ``max_iter`` updates, mean over MDPs).
    """
    run = TrialRunner((3, 10), full, trials, random_state, n_jobs, progress)
    quick = {"mdp": QUICK_MDP, "max_iter": QUICK_ITER}
    size = run.settings(quick, {"mdp": FULL_MDP, "max_iter": FULL_ITER}, lsh=LSH)
    runs = {oracle: [] for oracle in ORACLES}
    for trial in range(run.trials):
        mdp = make_action_constrained_mdp(**size.mdp, random_state=run.seed())
        seed = run.seed()
        for oracle in ORACLES:
            run.report(f"MDP {trial + 1}/{run.trials}: {oracle} oracle")
            runs[oracle].append(_run(mdp, oracle, size.max_iter, seed))
    exact = np.array([returns for returns, _, _ in runs["exact"]])
    n_pairs = size.mdp["n_states"] * size.mdp["n_actions"]
    rows = []
    for oracle in ORACLES:
        returns, scored, times = zip(*runs[oracle])
        returns = np.array(returns)
        for t in _checkpoints(size.max_iter):
            # Oracle calls at the policies 0..t (the call at t is the one that
            # would choose the next direction).
            calls = np.mean([s[: t + 1].mean() for s in scored])
            at_t = returns[:, t]
            ratio = (at_t / exact[:, t]).mean()
            values = (at_t.mean(), at_t.std(), ratio, calls / n_pairs, np.mean(times))
            row = {"oracle": oracle, "iteration": t}
            rows.append(row | dict(zip(STATS, map(float, values))))
    caption = CAPTION.format(**vars(run), **vars(size))
    return run.result("sfwpo", rows, COLUMNS, caption, **vars(size))


def plot_sfwpo(result, figure):
    """Return against iteration and candidates scored, exact and LSH oracles.

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_sfwpo`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    """
    draw(result, figure, *PLOT)
