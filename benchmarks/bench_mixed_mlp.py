"""MixedMLPRegressor against MLPRegressor: fit time per epoch (issue 19).

Both estimators side by side in this one process, on the same data
(``make_mixed_mlp_regression(n, d_I, (d_H,), k=5, noise=0.01)``), with the
same hidden layer, activation (ReLU), penalty (alpha=0.01) and Adam step
(1e-3):

- ours: ``MixedMLPRegressor(5, init='random', tol=0,
  n_iter_no_change=max_iter)``, so that every fit runs exactly ``max_iter``
  epochs and the seeding costs nothing; one epoch is one assignment of the
  samples to their network of smallest loss, then ``inner_steps`` (10)
  full-batch Adam steps, each a forward and a backward pass of all k
  networks over all the samples (every network's error masked to its own
  samples);
- peer: ``MLPRegressor(solver='adam', batch_size=n_samples, shuffle=False,
  tol=0, n_iter_no_change=max_iter + 1, early_stopping=False)``, one network;
  one epoch is one full-batch Adam step. It runs ``inner_steps`` times as
  many epochs as ours, so both take the same number of Adam steps.

Time per epoch = (fit(E epochs) - fit(1 epoch)) / (E - 1), the two fits of a
repeat run back to back and the median over ``--repeats`` (5) repeats, so
the per-fit costs (validation, initialization, the last objective) are not
counted. Time per Adam step = time per epoch / ``inner_steps`` for ours (the
assignment amortized over the steps), the time per epoch for the peer; the
last row divides ours by k times the peer's, the cost of one network's step.
The seeding row is the median of fit(1 epoch, init='k-means++') -
fit(1 epoch, init='random'): the generalized k-means++ of the paper
(gradient scores), whose every seed is a network fitted to one sample
(300 Adam steps).

Usage::

    python benchmarks/bench_mixed_mlp.py [--json PATH] [--repeats 5] [--quick]
        [--blas-threads N] [--record]

``--record`` writes ``benchmarks/results/mixed_mlp.json`` (see
``benchmarks/summary.py``).

On a shared 2-core machine two BLAS threads slowed MLPRegressor's full-batch
step at n = 100,000 four- to sevenfold; ``--blas-threads 1`` holds both
estimators to one.
"""

import textwrap
import time
import warnings

import _common
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPRegressor
from threadpoolctl import threadpool_limits

from skcgm.datasets import make_mixed_mlp_regression
from skcgm.neural_network import MixedMLPRegressor

SEED = 0
N_COMPONENTS = 5
INNER_STEPS = 10
ALPHA = 0.01
LEARNING_RATE = 1e-3

# (n_samples, d_I, d_H, epochs of ours): the paper's three sizes (Tables 4
# and 5), then larger n; fewer epochs where one costs more.
CASES = (
    (1000, 5, 3, 50),
    (1000, 7, 5, 50),
    (1000, 10, 5, 50),
    (10_000, 10, 5, 10),
    (100_000, 10, 5, 4),
)


def _ours(hidden, epochs, init="random"):
    return MixedMLPRegressor(
        N_COMPONENTS,
        hidden_layer_sizes=hidden,
        alpha=ALPHA,
        learning_rate_init=LEARNING_RATE,
        inner_steps=INNER_STEPS,
        init=init,
        max_iter=epochs,
        tol=0,
        n_iter_no_change=epochs,
        random_state=SEED,
    )


def _peer(hidden, epochs, n_samples):
    return MLPRegressor(
        hidden_layer_sizes=hidden,
        alpha=ALPHA,
        solver="adam",
        learning_rate_init=LEARNING_RATE,
        batch_size=n_samples,
        # A full batch has nothing to shuffle: shuffle=False reads X in place.
        shuffle=False,
        max_iter=epochs,
        tol=0,
        n_iter_no_change=epochs + 1,
        early_stopping=False,
        random_state=SEED,
    )


def _fit_time(estimator, X, y):
    start = time.perf_counter()
    with warnings.catch_warnings():
        # Every fit stops at max_iter on purpose.
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, y)
    return time.perf_counter() - start, estimator


def _per_epoch(make, epochs, X, y, repeats):
    """Median over repeats of (fit(epochs) - fit(1)) / (epochs - 1)."""
    per_epoch, one_epoch = [], []
    for _ in range(repeats):
        short, _ = _fit_time(make(1), X, y)
        long, fitted = _fit_time(make(epochs), X, y)
        assert fitted.n_iter_ == epochs, (type(fitted).__name__, fitted.n_iter_)
        per_epoch.append((long - short) / (epochs - 1))
        one_epoch.append(short)
    return float(np.median(per_epoch)), float(np.median(one_epoch))


def _seeding_time(hidden, X, y, repeats):
    """Median over repeats of fit(1, 'k-means++') - fit(1, 'random')."""
    costs = []
    for _ in range(repeats):
        seeded, _ = _fit_time(_ours(hidden, 1, init="k-means++"), X, y)
        random, _ = _fit_time(_ours(hidden, 1), X, y)
        costs.append(seeded - random)
    return float(np.median(costs))


def _bench(n_samples, d_in, d_hidden, epochs, repeats):
    X, y, _, _ = make_mixed_mlp_regression(
        n_samples,
        d_in,
        (d_hidden,),
        N_COMPONENTS,
        noise=0.01,
        random_state=SEED,
    )
    hidden = (d_hidden,)
    peer_epochs = INNER_STEPS * epochs
    ours_epoch, ours_fixed = _per_epoch(
        lambda e: _ours(hidden, e), epochs, X, y, repeats
    )
    peer_epoch, peer_fixed = _per_epoch(
        lambda e: _peer(hidden, e, n_samples), peer_epochs, X, y, repeats
    )
    seeding = _seeding_time(hidden, X, y, repeats)
    ours_step = ours_epoch / INNER_STEPS
    return {
        "epochs_ours": epochs,
        "epochs_peer": peer_epochs,
        "epoch_ours_ms": 1e3 * ours_epoch,
        "epoch_peer_ms": 1e3 * peer_epoch,
        "epoch_ratio": ours_epoch / peer_epoch,
        "step_ours_ms": 1e3 * ours_step,
        "step_peer_ms": 1e3 * peer_epoch,
        "step_ratio": ours_step / peer_epoch,
        "network_step_ratio": ours_step / (N_COMPONENTS * peer_epoch),
        "one_epoch_fit_ours_s": ours_fixed,
        "one_epoch_fit_peer_s": peer_fixed,
        "seeding_s": seeding,
        "seeding_epochs": seeding / ours_epoch,
    }


# (key, label, format) of the printed rows; the JSON has every key.
SIDES = {"ours": "ours", "peer": "MLPRegressor"}
ROWS = (
    ("epochs_ours", "epochs timed, ours (E)", "d"),
    ("epochs_peer", "epochs timed, MLPRegressor (10 E)", "d"),
    *_common.sides(
        "epoch_{}_ms", "time per epoch, {} (ms, median of R)", ".3f", **SIDES
    ),
    ("epoch_ratio", "per epoch, ours / MLPRegressor", ".1f"),
    ("step_ours_ms", "time per Adam step, ours (ms, epoch / 10)", ".3f"),
    ("step_peer_ms", "time per Adam step, MLPRegressor (ms)", ".3f"),
    ("step_ratio", "per Adam step, ours / MLPRegressor", ".2f"),
    ("network_step_ratio", "per step and network, ours / (k MLPRegressor)", ".2f"),
    *_common.sides("one_epoch_fit_{}_s", "fit of 1 epoch, {} (s)", ".4f", **SIDES),
    ("seeding_s", "k-means++ seeding, ours (s, median of R)", ".4f"),
    ("seeding_epochs", "k-means++ seeding, in epochs of ours", ".1f"),
)


def main(argv=None):
    parser = _common.script_parser(__doc__, repeats=5, kept="median")
    parser.add_argument(
        "--quick", action="store_true", help="the paper's n = 1000 cases only"
    )
    parser.add_argument(
        "--blas-threads",
        type=int,
        metavar="N",
        help="hold BLAS to N threads for the whole run (default: as installed)",
    )
    _common.add_record_argument(parser)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    cases = [case for case in CASES if not args.quick or case[0] <= 1000]
    results = {}
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        machine = _common.machine_info()
        for n_samples, d_in, d_hidden, epochs in cases:
            name = f"n={n_samples}, d_I={d_in}, d_H={d_hidden}"
            print(f"[bench_mixed_mlp] {name} ...", flush=True)
            results[name] = _bench(n_samples, d_in, d_hidden, epochs, args.repeats)

    caption = (
        f"k={N_COMPONENTS} networks of one ReLU hidden layer, alpha={ALPHA}, Adam "
        f"step {LEARNING_RATE}, random_state={SEED}; ours: MixedMLPRegressor("
        f"init='random', inner_steps={INNER_STEPS}, tol=0), one epoch = one "
        f"assignment + {INNER_STEPS} Adam steps of the k networks over all the "
        "samples; MLPRegressor(solver='adam', batch_size=n_samples, shuffle=False, "
        "tol=0), one epoch = one Adam step of one network. Per epoch = (fit(E) - "
        "fit(1)) / (E - 1), median of the repeats."
    )
    print(f"\n{textwrap.fill(caption, 100)}\n{_common.machine_caption(machine)}\n")
    rows = [
        (key, label.replace("of R", f"of {args.repeats}"), fmt)
        for key, label, fmt in ROWS
    ]
    print(_common.format_table(results, rows, args.repeats))
    config = {
        "repeats": args.repeats,
        "seed": SEED,
        "n_components": N_COMPONENTS,
        "inner_steps": INNER_STEPS,
        "alpha": ALPHA,
        "learning_rate_init": LEARNING_RATE,
        "cases": cases,
        "blas_threads": args.blas_threads,
    }
    _common.save(args, machine, config, results, _record)
    return 0


def _record(args, machine, config, results):
    # Issue 19 names no ratio to reach: the cost of one network's Adam step,
    # ours / MLPRegressor's, is reported at the smallest and largest n.
    names = list(results)
    rows = [
        _common.headline(
            f"time per Adam step and network, {name}",
            results[name]["network_step_ratio"],
            data=f"make_mixed_mlp_regression({name}, k={N_COMPONENTS})",
        )
        for name in dict.fromkeys([names[0], names[-1]])
    ]
    threads = (
        "BLAS as installed"
        if args.blas_threads is None
        else f"BLAS held to {args.blas_threads} thread(s)"
    )
    _common.record(
        "mixed_mlp",
        rows,
        args,
        title="MixedMLPRegressor against MLPRegressor, time per epoch",
        estimator="MixedMLPRegressor",
        peer="MLPRegressor(solver='adam')",
        data=(
            f"make_mixed_mlp_regression(n, d_I, (d_H,), 5), "
            f"n in {sorted({case[0] for case in config['cases']})}; {threads}"
        ),
        machine=machine,
        config=config,
        results=results,
    )


if __name__ == "__main__":
    raise SystemExit(main())
