"""POBGA against Mono-FW, Meta-FW and OBGA; DPOBGA's communication; a nuclear ball.

Three parts, in one process, with BLAS held to one thread (the problems are
25- to 2500-dimensional; on a shared 2-core machine, threaded BLAS inside the
projections' small solves ran up to 20 times slower):

1. **Regret on the NQP.** ``make_online_nqp(25, 15, T, adversary='iid',
   noise=0.1)``: a fresh monotone DR-submodular quadratic every round over
   {x in [0,1]^25 : Ax <= 1} (``DownClosedPolytopeLMO``, an LP oracle).
   POBGA (``preset='practical'``) and Mono-FW at T in {1e3, 3e3, 1e4, 3e4}
   (``--max-horizon``), OBGA (an exact projection per round) at T <= 3e3
   (``--obga-max-horizon``), Meta-FW (sqrt(T) LMO calls per round) at
   T in {300, 1000} (``--metafw-horizons``). Every learner of a (T, seed)
   plays the same stream with the same gradient noise; its (1-1/e)-regret and
   1-regret at T are measured against one comparator, continuous greedy (100
   steps) on sum_t f_t. Medians over ``--seeds`` seeds (one seed for Meta-FW
   at T >= 1000, 3e4 LMO calls); log-log slopes are least squares of
   log(median) on log T. Time is spent inside the learner only
   (``OnlineResult.wall_time``).
2. **DPOBGA's communication.** ``make_decentralized_nqp(25, 15, T, N)`` on
   its polytope, N = ``--dp-nodes`` (4) nodes on a cycle with Metropolis
   weights, T as in part 1, one seed: exchange rounds per node (against
   ceil(T/K)), their log-log slope, the consensus error and the LMO calls of
   the busiest node.
3. **Nuclear-norm ball.** 50 x 50 matrices, ``NuclearNormBallLMO(radius=10)``
   (top singular pair) against OBGA's exact projection (full SVD, then the
   singular values onto the l1 ball). The rewards are f_t(X) = <B_t, X> -
   (mu/2) ||X||_F^2, mu = 0.1, B_t = mu r 11^T + 0.5 u v^T + U_t with fixed
   u, v ~ U[0,1]^50 and U_t ~ U[0, 0.5]^{50x50} drawn every round, gradient
   noise of norm 0.1. Each f_t is DR-submodular (Hessian -mu I), f_t(0) = 0
   and monotone on the ball (|X_ij| <= ||X||_* <= r, so every gradient entry
   is >= 0); but the ball is not in the non-negative orthant, so the paper's
   (1-1/e) guarantee is not claimed there: the part times one round of each
   learner (the objective's evaluations excluded), T = ``--nuclear-horizon``
   rounds, median over the seeds, and reports their mean rewards.
4. **How POBGA's LMO calls scale** (``--lmo-scaling``, off by default, about
   6 minutes). POBGA on the NQP of part 1, one seed, T in {1e3, 3e3, 1e4}
   (``--lmo-scaling-max-horizon``): the practical preset under the three
   adversaries, and the i.i.d. stream with c_eps ten times smaller and ten
   times larger (``eps = c_eps R^2 / sqrt(T)``). Per T it prints the LMO
   calls, the calls per infeasible projection and the median of
   ||x_m - y_{m+1}||^2 / eps over the blocks, the ratio that bound (15)
   depends on; per configuration, the log-log slope of the calls.

Usage::

    python benchmarks/bench_online.py [--json PATH] [--seeds 3] [--lmo-scaling]
    python benchmarks/bench_online.py --max-horizon 3000 --seeds 1   # a smoke run

``--record`` writes ``benchmarks/results/online.json`` (see
``benchmarks/summary.py``).
"""

import math
import time

import _common
import numpy as np
from threadpoolctl import threadpool_limits

from skcgm.datasets import make_decentralized_nqp, make_online_nqp
from skcgm.online import (
    DPOBGA,
    OBGA,
    POBGA,
    POBGA_PRESETS,
    MetaFW,
    MonoFW,
    alpha_regret,
    continuous_greedy,
    cycle_graph,
    metropolis_weights,
    mixing_rate,
    run_online,
    sum_gradient,
)
from skcgm.oracles import NuclearNormBallLMO

SEED = 0
ALPHA = 1.0 - 1.0 / math.e
N_FEATURES, N_CONSTRAINTS, NOISE = 25, 15, 0.1
COMPARATOR_STEPS = 100
HORIZONS = (1000, 3000, 10000, 30000)
LEARNERS = ("POBGA", "Mono-FW", "Meta-FW", "OBGA")
# Targets of the issue.
TARGET_REGRET_SLOPE = 0.8
TARGET_LMO_SLOPE = (0.9, 1.1)
TARGET_COMM_SLOPE = (0.45, 0.55)
TARGET_NUCLEAR_RATIO = 0.3
# Part 3.
SHAPE = (50, 50)
NUCLEAR_RADIUS = 10.0
MU = 0.1
# Part 4: (label, adversary, c_eps); None is the practical preset's c_eps.
LMO_SCALING_CASES = (
    ("practical, iid", "iid", None),
    ("practical, switching", "switching", None),
    ("practical, fixed", "fixed", None),
    ("c_eps = 0.005, iid", "iid", 0.005),
    ("c_eps = 0.5, iid", "iid", 0.5),
)


def _learner(name, lmo, horizon, seed):
    if name == "POBGA":
        return POBGA(lmo, horizon, random_state=seed)
    if name == "Mono-FW":
        return MonoFW(lmo, horizon, random_state=seed)
    if name == "Meta-FW":
        return MetaFW(lmo, horizon, random_state=seed)
    return OBGA(lmo, horizon, random_state=seed)


def _slope(x, y):
    """Least-squares slope of log y on log x; None if a value is <= 0."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.size < 2 or np.any(y <= 0):
        return None
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def _regret_part(horizons, grids, seeds, report):
    """{learner: {T: {key: median}}} and the per-seed runs."""
    runs = {name: {} for name in LEARNERS}
    for T in horizons:
        active = [name for name in LEARNERS if T in grids[name]]
        for s in range(seeds):
            names = [n for n in active if s == 0 or not (n == "Meta-FW" and T >= 1000)]
            if not names:
                continue
            lmo, stream = make_online_nqp(
                N_FEATURES, N_CONSTRAINTS, T, noise=NOISE, random_state=SEED + s
            )
            # Built once and shared: every access of the lazy stream rebuilds
            # the round (T n^2 floats: 150 MB at T = 3e4).
            objectives = list(stream)
            comparator = continuous_greedy(
                lmo, sum_gradient(objectives), N_FEATURES, n_steps=COMPARATOR_STEPS
            )
            for name in names:
                report(f"regret: {name}, T={T}, seed {s}")
                learner = _learner(name, lmo, T, SEED + 100 + s)
                result = run_online(learner, objectives, random_state=SEED + 200 + s)
                regret1 = alpha_regret(
                    result.rewards, objectives, lmo, alpha=1.0, comparator=comparator
                )[-1]
                reward = float(result.rewards.sum())
                best = regret1 + reward
                runs[name].setdefault(T, []).append(
                    {
                        "regret": ALPHA * best - reward,
                        "regret1": float(regret1),
                        "n_lmo_calls": result.n_lmo_calls,
                        "n_grad_calls": result.n_grad_calls,
                        "n_projections": result.n_projections,
                        "time": result.wall_time,
                        "mean_reward": reward / T,
                    }
                )
            del objectives
    medians = {
        name: {
            T: {key: float(np.median([r[key] for r in trial])) for key in trial[0]}
            | {"seeds": len(trial)}
            for T, trial in by_T.items()
        }
        for name, by_T in runs.items()
    }
    return medians, runs


def _dpobga_part(horizons, n_nodes, report):
    weights = metropolis_weights(cycle_graph(n_nodes))
    out = {"n_nodes": n_nodes, "beta": mixing_rate(weights)}
    for T in horizons:
        report(f"DPOBGA: cycle of {n_nodes} nodes, T={T}")
        lmo, objectives = make_decentralized_nqp(
            N_FEATURES, N_CONSTRAINTS, T, n_nodes, noise=NOISE, random_state=SEED
        )
        learner = DPOBGA(lmo, T, weights, random_state=SEED + 100)
        result = run_online(learner, objectives, random_state=SEED + 200)
        consensus = np.asarray(learner.history_["consensus_error"])
        out[T] = {
            "block_size": learner.block_size_,
            "n_communications": result.n_communications,
            "expected": -(-T // learner.block_size_),
            "consensus_mean": float(consensus[1:].mean()),
            "consensus_last": float(consensus[-1]),
            "lmo_per_node_max": int(learner.n_lmo_calls_per_node_.max()),
            "time": result.wall_time,
        }
    out["slope"] = _slope(horizons, [out[T]["n_communications"] for T in horizons])
    return out


def _lmo_scaling_part(horizons, report):
    """POBGA's realized LMO calls against T, per adversary and c_eps."""
    out = {}
    for label, adversary, c_eps in LMO_SCALING_CASES:
        case = {}
        for T in horizons:
            report(f"LMO scaling: {label}, T={T}")
            lmo, objectives = make_online_nqp(
                N_FEATURES,
                N_CONSTRAINTS,
                T,
                adversary=adversary,
                noise=NOISE,
                random_state=SEED,
            )
            eps = None if c_eps is None else c_eps * lmo.radius**2 / math.sqrt(T)
            learner = POBGA(lmo, T, eps=eps, random_state=SEED + 100)
            result = run_online(learner, objectives, random_state=SEED + 200)
            dist2 = np.asarray(learner.history_["dist2"])
            case[T] = {
                "n_lmo_calls": result.n_lmo_calls,
                "n_projections": result.n_projections,
                "calls_per_projection": result.n_lmo_calls / result.n_projections,
                "dist2_over_eps": float(np.median(dist2) / learner.eps_),
                "mean_reward": float(result.rewards.mean()),
            }
        case["slope"] = _slope(horizons, [case[T]["n_lmo_calls"] for T in horizons])
        out[label] = case
    return out


class _MatrixReward:
    """f(X) = <B, X> - (mu/2) ||X||_F^2 on flattened matrices, sphere gradient noise."""

    def __init__(self, B, mu, noise):
        self.B, self.mu, self.noise = B, mu, noise

    def value(self, x):
        return float(self.B @ x - 0.5 * self.mu * (x @ x))

    def grad(self, x):
        return self.B - self.mu * x

    def stochastic_grad(self, x, random_state=None):
        rng = random_state
        if not isinstance(rng, np.random.RandomState):
            rng = np.random.RandomState(rng)
        xi = rng.standard_normal(x.shape)
        return self.grad(x) + self.noise * xi / np.linalg.norm(xi)


class _MatrixStream:
    """The T rewards of part 3, each rebuilt from its round's seed on access."""

    def __init__(self, horizon, seed):
        rng = np.random.RandomState(seed)
        m, n = SHAPE
        self.base = (
            MU * NUCLEAR_RADIUS
            + 0.5 * np.outer(rng.uniform(size=m), rng.uniform(size=n))
        ).ravel()
        self.seeds = rng.randint(2**31 - 1, size=horizon)

    def __len__(self):
        return len(self.seeds)

    def __getitem__(self, t):
        noise = np.random.RandomState(self.seeds[t]).uniform(0.0, 0.5, self.base.size)
        return _MatrixReward(self.base + noise, MU, NOISE)


def _nuclear_part(horizon, seeds, report):
    out = {}
    for name in ("POBGA", "OBGA"):
        times, rewards, calls = [], [], []
        for s in range(seeds):
            report(f"nuclear ball: {name}, T={horizon}, seed {s}")
            lmo = NuclearNormBallLMO(radius=NUCLEAR_RADIUS, shape=SHAPE)
            learner = _learner(name, lmo, horizon, SEED + 100 + s)
            result = run_online(
                learner, _MatrixStream(horizon, SEED + s), random_state=SEED + 200 + s
            )
            times.append(result.wall_time / horizon)
            rewards.append(float(result.rewards.mean()))
            calls.append(result.n_lmo_calls + result.n_projections)
        out[name] = {
            "time_per_round": float(np.median(times)),
            "mean_reward": float(np.median(rewards)),
            "oracle_calls": float(np.median(calls)),
        }
    # The cost of one call of each oracle alone, on a gradient-like matrix.
    lmo = NuclearNormBallLMO(radius=NUCLEAR_RADIUS, shape=SHAPE)
    g = _MatrixStream(1, SEED)[0].grad(np.zeros(SHAPE[0] * SHAPE[1]))
    for key, func in (
        ("lmo_call", lambda: lmo(-g)),
        ("projection", lambda: lmo.project(g)),
    ):
        start = time.perf_counter()
        for _ in range(200):
            func()
        out[key] = (time.perf_counter() - start) / 200
    out["ratio"] = out["POBGA"]["time_per_round"] / out["OBGA"]["time_per_round"]
    return out


def _slope_text(slope, digits=3):
    """A slope for the report; a dash when there is none (a single T)."""
    return "—" if slope is None else f"{slope:.{digits}f}"


def _verdict(ok):
    return "met" if ok else "NOT met"


def main(argv=None):
    parser = _common.script_parser(__doc__)
    _common.add_int_options(
        parser,
        {
            "--seeds": (3, "seeds"),
            "--max-horizon": (30000, "largest T of part 1"),
            "--obga-max-horizon": (3000, "largest T of OBGA"),
            "--dp-nodes": (4, "DPOBGA nodes"),
            "--nuclear-horizon": (10000, "T of part 3"),
            "--lmo-scaling-max-horizon": (10000, "largest T of part 4"),
        },
    )
    parser.add_argument(
        "--metafw-horizons",
        type=int,
        nargs="+",
        default=[300, 1000],
        help="horizons of Meta-FW (300 1000)",
    )
    parser.add_argument(
        "--lmo-scaling",
        action="store_true",
        help="also run part 4, POBGA's LMO calls per adversary and c_eps",
    )
    _common.add_record_argument(parser)
    args = parser.parse_args(argv)
    machine = _common.machine_info()

    def report(message):
        print(f"[bench_online] {message}", flush=True)

    horizons = tuple(T for T in HORIZONS if T <= args.max_horizon)
    grids = {
        "POBGA": horizons,
        "Mono-FW": horizons,
        "OBGA": tuple(T for T in horizons if T <= args.obga_max_horizon),
        "Meta-FW": tuple(args.metafw_horizons),
    }
    all_T = tuple(sorted(set(horizons) | set(args.metafw_horizons)))
    start = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        regret, runs = _regret_part(all_T, grids, args.seeds, report)
        dpobga = _dpobga_part(horizons, args.dp_nodes, report)
        nuclear = _nuclear_part(args.nuclear_horizon, args.seeds, report)
        scaling_T = tuple(T for T in HORIZONS if T <= args.lmo_scaling_max_horizon)
        scaling = _lmo_scaling_part(scaling_T, report) if args.lmo_scaling else None
    total = time.perf_counter() - start

    # Part 1 table: one column per learner.
    results = {name: {} for name in LEARNERS}
    rows = []
    for T in all_T:
        for key, label, fmt in (
            ("regret", f"(1-1/e)-regret, T={T}", ".1f"),
            ("regret1", f"1-regret, T={T}", ".1f"),
            ("n_lmo_calls", f"LMO calls, T={T}", ".0f"),
            ("n_grad_calls", f"gradient calls, T={T}", ".0f"),
            ("n_projections", f"exact projections, T={T}", ".0f"),
            ("time", f"time in the learner (s), T={T}", ".2f"),
            ("seeds", f"seeds, T={T}", "d"),
        ):
            rows.append((f"{key}_{T}", label, fmt))
            for name in LEARNERS:
                value = regret[name].get(T, {}).get(key)
                results[name][f"{key}_{T}"] = None if value is None else value
    for key, label in (
        ("regret1", "slope of the 1-regret"),
        ("regret", "slope of the (1-1/e)-regret"),
        ("n_lmo_calls", "slope of the LMO calls"),
        ("time", "slope of the time"),
    ):
        rows.append((f"slope_{key}", label, ".2f"))
        for name in LEARNERS:
            by_T = regret[name]
            Ts = sorted(by_T)
            results[name][f"slope_{key}"] = _slope(Ts, [by_T[T][key] for T in Ts])
    for name in LEARNERS:
        for key in list(results[name]):
            if key.startswith("seeds_") and results[name][key] is not None:
                results[name][key] = int(results[name][key])

    c_eta, c_eps, c_k = POBGA_PRESETS["practical"]
    print(
        f"\nPart 1: online monotone NQP, n={N_FEATURES}, m={N_CONSTRAINTS}, i.i.d. "
        f"rounds, gradient noise {NOISE}; regrets against continuous greedy "
        f"({COMPARATOR_STEPS} steps) on sum_t f_t; median over the seeds shown. "
        f"POBGA preset='practical' (c_eta, c_eps, c_K) = ({c_eta:g}, {c_eps:g}, "
        f"{c_k:g}); Mono-FW K=T^(3/5); Meta-FW K=sqrt(T); OBGA exact projection "
        "(L-BFGS-B on the dual). BLAS on one thread.\n"
        f"{_common.machine_caption(machine)}\n"
    )
    print(_common.format_table(results, rows, args.seeds))

    T_top = max(horizons)
    pobga, mono = regret["POBGA"][T_top], regret["Mono-FW"][T_top]
    # Not the (1-1/e)-regret: both are negative, their ratio means nothing.
    ratio_rows = [
        ("regret1", "1-regret"),
        ("n_lmo_calls", "LMO calls"),
        ("time", "time"),
    ]
    print(f"\nRatios POBGA / Mono-FW at T={T_top}:")
    for key, label in ratio_rows:
        print(f"  {label:<16} {pobga[key] / mono[key]:.3f}")
    for T in grids["OBGA"]:
        ratio = regret["POBGA"][T]["time"] / regret["OBGA"][T]["time"]
        print(f"POBGA / OBGA time at T={T}: {ratio:.3f}")

    print(
        f"\nPart 2: DPOBGA on make_decentralized_nqp (its polytope), cycle of "
        f"{dpobga['n_nodes']} nodes, Metropolis weights (beta="
        f"{dpobga['beta']:.3f}), one seed.\n"
    )
    dp_rows = [
        ("block_size", "block size K", "d"),
        ("n_communications", "exchange rounds per node", "d"),
        ("expected", "ceil(T/K)", "d"),
        ("consensus_mean", "consensus error, mean over blocks", ".2e"),
        ("consensus_last", "consensus error, last block", ".2e"),
        ("lmo_per_node_max", "LMO calls of the busiest node", "d"),
        ("time", "time in the learner (s)", ".2f"),
    ]
    print(_common.format_table({f"T={T}": dpobga[T] for T in horizons}, dp_rows, 1))
    print(f"log-log slope of the exchange rounds: {_slope_text(dpobga['slope'])}")

    print(
        f"\nPart 3: {SHAPE[0]}x{SHAPE[1]} matrices, nuclear-norm ball of radius "
        f"{NUCLEAR_RADIUS:g}; f_t(X) = <B_t, X> - ({MU:g}/2)||X||_F^2; "
        f"T={args.nuclear_horizon}, median over {args.seeds} seeds.\n"
    )
    nuc_rows = [
        ("time_per_round", "time per round (ms)", ".3f"),
        ("oracle_calls", "LMO calls + projections", ".0f"),
        ("mean_reward", "mean reward per round", ".3f"),
    ]
    print(
        _common.format_table(
            {
                name: {
                    **nuclear[name],
                    "time_per_round": nuclear[name]["time_per_round"] * 1e3,
                }
                for name in ("POBGA", "OBGA")
            },
            nuc_rows,
            args.seeds,
        )
    )
    print(
        f"one LMO call (top singular pair): {nuclear['lmo_call'] * 1e3:.3f} ms; one "
        f"projection (full SVD): {nuclear['projection'] * 1e3:.3f} ms"
    )
    print(f"POBGA / OBGA time per round: {nuclear['ratio']:.3f}")

    if scaling is not None:
        print(
            f"\nPart 4: POBGA's LMO calls on the NQP of part 1, one seed, per "
            f"adversary and c_eps (eps = c_eps R^2/sqrt(T)); the preset's c_eps is "
            f"{c_eps:g}. Per T: LMO calls / calls per infeasible projection / "
            f"median ||x_m - y_(m+1)||^2 / eps over the blocks.\n"
        )
        columns = {
            f"T={T}": {
                label: (
                    f"{case[T]['n_lmo_calls']} / "
                    f"{case[T]['calls_per_projection']:.1f} / "
                    f"{case[T]['dist2_over_eps']:.2f}"
                )
                for label, case in scaling.items()
            }
            for T in scaling_T
        }
        columns["slope"] = {
            label: _slope_text(case["slope"], 2) for label, case in scaling.items()
        }
        rows = [(label, label, "s") for label in scaling]
        print(_common.format_table(columns, rows, 1))

    print("\nTargets (issue 7):")
    regret_ok = (
        pobga["regret1"] < mono["regret1"]
        and pobga["n_lmo_calls"] <= mono["n_lmo_calls"]
    )
    print(
        f"  [{_verdict(regret_ok)}] POBGA's regret at T={T_top} below Mono-FW's at "
        f"equal or fewer LMO calls: 1-regret {pobga['regret1']:.1f} vs "
        f"{mono['regret1']:.1f}, (1-1/e)-regret {pobga['regret']:.1f} vs "
        f"{mono['regret']:.1f}, LMO calls {pobga['n_lmo_calls']:.0f} vs "
        f"{mono['n_lmo_calls']:.0f}"
    )
    slope1 = results["POBGA"]["slope_regret1"]
    slope_alpha = results["POBGA"]["slope_regret"]
    alpha_text = (
        "the (1-1/e)-regret is negative at every T (no slope)"
        if slope_alpha is None
        else f"(1-1/e)-regret slope {slope_alpha:.2f}"
    )
    print(
        f"  [{_verdict(slope1 is not None and slope1 <= TARGET_REGRET_SLOPE)}] POBGA "
        f"log-log regret slope <= {TARGET_REGRET_SLOPE}: 1-regret slope "
        f"{_slope_text(slope1)}; {alpha_text}"
    )
    low, high = TARGET_LMO_SLOPE
    for name in ("POBGA", "Mono-FW"):
        slope = results[name]["slope_n_lmo_calls"]
        ok = slope is not None and low <= slope <= high
        print(
            f"  [{_verdict(ok)}] {name}: LMO calls linear in T (slope 1 +/- 0.1): "
            f"slope {_slope_text(slope)}; calls per round at T={T_top}: "
            f"{regret[name][T_top]['n_lmo_calls'] / T_top:.3f}"
        )
    low, high = TARGET_COMM_SLOPE
    comm = dpobga["slope"]
    print(
        f"  [{_verdict(comm is not None and low <= comm <= high)}] DPOBGA "
        f"communication slope 0.5 +/- 0.05: {_slope_text(comm)}"
    )
    print(
        f"  [{_verdict(nuclear['ratio'] <= TARGET_NUCLEAR_RATIO)}] nuclear ball 50x50: "
        f"POBGA time per round <= {TARGET_NUCLEAR_RATIO} x OBGA's: "
        f"{nuclear['ratio']:.3f}"
    )
    print(f"\ntotal {total:.0f} s")

    config = {
        "seeds": args.seeds,
        "horizons": {name: list(grid) for name, grid in grids.items()},
        "dp_nodes": args.dp_nodes,
        "nuclear_horizon": args.nuclear_horizon,
        "pobga_practical_preset": [c_eta, c_eps, c_k],
        "problem": {
            "n_features": N_FEATURES,
            "n_constraints": N_CONSTRAINTS,
            "noise": NOISE,
            "adversary": "iid",
        },
        "nuclear": {"shape": SHAPE, "radius": NUCLEAR_RADIUS, "mu": MU},
        "lmo_scaling_cases": LMO_SCALING_CASES if args.lmo_scaling else None,
        "seed": SEED,
    }
    payload = {
        "regret": {
            name: {str(T): v for T, v in by_T.items()} for name, by_T in regret.items()
        },
        "regret_runs": {
            name: {str(T): v for T, v in by_T.items()} for name, by_T in runs.items()
        },
        "slopes": {
            name: {k: v for k, v in results[name].items() if k.startswith("slope")}
            for name in LEARNERS
        },
        "dpobga": {str(k): v for k, v in dpobga.items()},
        "nuclear": nuclear,
        "lmo_scaling": None
        if scaling is None
        else {
            label: {str(k): v for k, v in case.items()}
            for label, case in scaling.items()
        },
        "total_time_s": total,
    }
    if args.json:
        _common.write_json(args.json, machine, config, payload)
        print(f"wrote {args.json}")
    if args.record:
        low, high = TARGET_LMO_SLOPE
        lmo_slope = results["POBGA"]["slope_n_lmo_calls"]
        comm_low, comm_high = TARGET_COMM_SLOPE
        nqp = (
            f"make_online_nqp(25, 15, T, iid), T in {list(horizons)}, "
            f"{args.seeds} seed(s)"
        )
        rows = [
            _common.headline(
                f"1-regret at T={T_top} (LMO calls {pobga['n_lmo_calls']:.0f} "
                f"against {mono['n_lmo_calls']:.0f})",
                pobga["regret1"] / mono["regret1"],
                "< 1 at equal or fewer LMO calls",
                met=regret_ok,
                peer="Mono-FW",
                data=nqp,
            ),
            _common.headline(
                "log-log slope of the 1-regret in T",
                value=slope1,
                target=f"<= {TARGET_REGRET_SLOPE:g}",
                met=False if slope1 is None else None,
                peer="none (a slope)",
                data=nqp,
            ),
            _common.headline(
                "log-log slope of the LMO calls in T",
                value=lmo_slope,
                target=f"{(low + high) / 2:g} +/- {(high - low) / 2:g}",
                met=False if lmo_slope is None else None,
                peer="none (a slope)",
                data=nqp,
            ),
            _common.headline(
                f"log-log slope of the exchange rounds in T, {args.dp_nodes} nodes",
                value=comm,
                target=f"{(comm_low + comm_high) / 2:g} +/- "
                f"{(comm_high - comm_low) / 2:g}",
                met=False if comm is None else None,
                estimator="DPOBGA",
                peer="none (a slope)",
                data=f"make_decentralized_nqp(25, 15, T, {args.dp_nodes}), one seed",
            ),
            _common.headline(
                "time per round on a 50 x 50 nuclear-norm ball",
                nuclear["ratio"],
                f"<= {TARGET_NUCLEAR_RATIO:g}",
                peer="OBGA (exact projection)",
                data=f"NuclearNormBallLMO(radius=10), T={args.nuclear_horizon}",
            ),
        ]
        _common.record(
            "online",
            rows,
            args,
            title="POBGA against Mono-FW, Meta-FW and OBGA; DPOBGA; a nuclear ball",
            estimator="POBGA (preset='practical')",
            peer="Mono-FW",
            data=nqp,
            machine=machine,
            config=config,
            results=payload,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
