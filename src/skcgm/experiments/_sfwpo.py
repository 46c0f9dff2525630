"""SFWPO (Algorithm 5) with the exact and the LSH oracle: return and cost.

The paper states no measurement: this
experiment shows what the LSH oracle buys on the action-constrained MDP
generator, the return reached per iteration against the candidates scored.
"""

import time

import numpy as np

from ..datasets import make_action_constrained_mdp
from ..optim import sfwpo
from ._result import Column
from ._runner import TrialRunner

QUICK_MDP = {"n_states": 10, "n_actions": 2000, "action_dim": 8, "gamma": 0.9}
FULL_MDP = {"n_states": 20, "n_actions": 8000, "action_dim": 8, "gamma": 0.9}
QUICK_ITER = 30
FULL_ITER = 100
QUICK_TRIALS = 3
FULL_TRIALS = 10
LSH = {"n_tables": 16, "n_bits": 8}
ORACLES = ("exact", "lsh")


def _checkpoints(max_iter):
    points = {0, 1, max_iter}
    k = 2
    while k < max_iter:
        points.add(k)
        k *= 2
    return sorted(points)


def _run(mdp, maxip, max_iter, seed):
    options = LSH if maxip == "lsh" else {}
    start = time.perf_counter()
    result = sfwpo(mdp, maxip=maxip, max_iter=max_iter, random_state=seed, **options)
    elapsed = time.perf_counter() - start
    # Entry k describes the policy after k updates; a run that stopped early
    # (zero gap) keeps its last policy.
    returns = np.asarray(result.return_history, dtype=float)
    returns = np.pad(returns, (0, max_iter + 1 - returns.size), mode="edge")
    scored = np.asarray(result.n_scored, dtype=float)
    return returns, scored, elapsed


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
    run = TrialRunner(
        (QUICK_TRIALS, FULL_TRIALS), full, trials, random_state, n_jobs, progress
    )
    mdp_options = run.size(QUICK_MDP, FULL_MDP)
    max_iter = run.size(QUICK_ITER, FULL_ITER)
    n_pairs = mdp_options["n_states"] * mdp_options["n_actions"]
    runs = {oracle: [] for oracle in ORACLES}
    for trial in range(run.trials):
        mdp = make_action_constrained_mdp(**mdp_options, random_state=run.seed())
        seed = run.seed()
        for oracle in ORACLES:
            run.report(f"MDP {trial + 1}/{run.trials}: {oracle} oracle")
            runs[oracle].append(_run(mdp, oracle, max_iter, seed))
    rows = []
    exact_returns = np.array([returns for returns, _, _ in runs["exact"]])
    for oracle in ORACLES:
        returns = np.array([r for r, _, _ in runs[oracle]])
        scored = [s for _, s, _ in runs[oracle]]
        times = [t for _, _, t in runs[oracle]]
        for t in _checkpoints(max_iter):
            ratio = returns[:, t] / exact_returns[:, t]
            # Oracle calls at the policies 0..t (the call at t is the one that
            # would choose the next direction).
            fraction = np.mean([s[: t + 1].mean() for s in scored]) / n_pairs
            rows.append(
                {
                    "oracle": oracle,
                    "iteration": t,
                    "return_mean": float(returns[:, t].mean()),
                    "return_std": float(returns[:, t].std()),
                    "return_ratio": float(ratio.mean()),
                    "scored_fraction": float(fraction),
                    "time": float(np.mean(times)),
                }
            )
    columns = [
        Column("oracle", "oracle", group=True),
        Column("iteration", "iteration"),
        Column("return_mean", "return", ".4f", "return_std"),
        Column("return_ratio", "return / exact", ".4f"),
        Column("scored_fraction", "scored / (|S| |A|) per iter", ".3f"),
        Column("time", "time per run (s)", ".3f", group=True),
    ]
    caption = (
        "Table: SFWPO (Algorithm 5) on make_action_constrained_mdp("
        + ", ".join(f"{k}={v}" for k, v in mdp_options.items())
        + f"), {run.trials} MDPs, {max_iter} iterations, the exact MIPS scan "
        f"against LSHMIPS(n_tables={LSH['n_tables']}, n_bits={LSH['n_bits']}) per "
        "state, the same seed for both. Return: mean ± std over MDPs at that "
        "iteration; return / exact: mean over MDPs of the LSH return over the exact "
        "one; scored: mean candidates scored per iteration so far over all "
        f"state-action pairs. random_state={random_state}, {run.cpu_count} cores."
    )
    return run.result(
        "sfwpo", rows, columns, caption, mdp=mdp_options, max_iter=max_iter, lsh=LSH
    )


def plot_sfwpo(result, figure):
    """Return against iteration and candidates scored, exact and LSH oracles.

    Parameters
    ----------
    result : ExperimentResult
        Output of :func:`run_sfwpo`.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    """
    figure.set_size_inches(10.0, 4.0)
    left, right = figure.subplots(1, 2)
    for oracle, marker in zip(ORACLES, "os"):
        rows = [row for row in result.rows if row["oracle"] == oracle]
        t = [row["iteration"] for row in rows]
        left.errorbar(
            t,
            [row["return_mean"] for row in rows],
            yerr=[row["return_std"] for row in rows],
            marker=marker,
            capsize=3,
            label=oracle,
        )
        right.plot(
            t, [row["scored_fraction"] for row in rows], marker=marker, label=oracle
        )
    for ax in (left, right):
        ax.set_xscale("symlog", base=2, linthresh=1)
        ax.set_xlabel("iteration")
        ax.legend(fontsize="small")
    left.set_ylabel("return (mean ± std over MDPs)")
    right.set_ylabel("candidates scored per iteration / (|S| |A|)")
    right.set_ylim(0, 1.05)
    figure.tight_layout()
