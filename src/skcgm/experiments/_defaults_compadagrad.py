"""The defaults panel of CompAdaGradClassifier: candidates against diagonal AdaGrad.

The panel behind the defaults of
:class:`~skcgm.linear_model.CompAdaGradClassifier` a user does not think
about: ``variant='adaptive'``, ``n_components='auto'``, ``eta0`` and
``batch_size``. Every candidate setting is scored by its zero-one test error
against diagonal AdaGrad, the same estimator with ``n_components=0`` and
otherwise the same parameters (so the same ``eta0`` and ``batch_size``:
equal tuning effort), on the same split, seed by seed. Families of data:

- ``gaussian``: :func:`~skcgm.datasets.make_logistic_classification`, i.i.d.
  Gaussian features (no correlation: no advantage claimed);
- ``log-normal rows``: the same with log-normal row norms
  (``row_scale_std=1``);
- ``sparse text``: :func:`~skcgm.datasets.make_sparse_text_classification`,
  CSR (the paper's RCV1 regime: no advantage claimed);
- ``correlated k30`` / ``correlated k300``:
  :func:`~skcgm.datasets.make_correlated_classification`, 8 latent directions
  mixed by a random rotation, condition numbers 30 and 300 (the paper's
  claim: dense, correlated, ill-conditioned features), raw (root mean square
  0.1) and standardized (``... std``);
- ``breast cancer`` and ``digits`` (10 classes, one-vs-rest): the bundled
  sets, standardized (strongly correlated dense features), and the digits
  with their pixels in [0, 1] (``digits, pixels / 16``);
- ``digits prototypes``: :func:`~skcgm.datasets.digits_prototype_features`,
  the paper's MNIST construction on the bundled digits (4 vs 9);
- ``spread k{10,30,100} d={100,200,500} std``:
  :func:`~skcgm.datasets.make_correlated_classification` with as many latent
  directions as features, so that the spectrum is full and spreads over 2,
  3 and 4 decades of variance, standardized;
- ``compare: correlated``, ``breast cancer`` and ``digits`` (claim
  ``compare``): the three data sets of ``python -m skcgm compare``'s
  CompAdaGrad table (``make_correlated_classification(4000, 128)``, the
  breast cancer and the digits, standardized), where the default must not
  err more than diagonal AdaGrad.

Protocols, all with ``loss='hinge'``, ``penalty='l2'``, ``alpha=1e-4`` (the
estimator's defaults):

- ``fit``: :meth:`fit` with every other parameter at the value of the
  candidate, the stopping rule included (what a user gets);
- ``E epochs``: ``max_iter=E``, ``tol=None``: equal epochs for the
  candidate and its diagonal;
- ``tuned``: ``eta0`` chosen from the same grid for the candidate and for its
  diagonal by the same rule (the lowest error on the last quarter of the
  training rows, fitted on the first three quarters, ``E`` epochs), then the
  chosen model's test error;
- ``tuned-alpha`` (only when asked for): the same with ``alpha`` and ``eta0``
  chosen together from ``ALPHA_GRID`` x ``ETA0_GRID`` (20 settings).

The cut is ``1 - error / diagonal error`` of the medians over the seeds
(positive: the candidate errs less). Fit times (wall clock, median over the
seeds) are kept beside ``SGDClassifier(loss='hinge')``'s, for information.
"""

import ast
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from ..datasets import (
    digits_prototype_features,
    make_correlated_classification,
    make_logistic_classification,
    make_sparse_text_classification,
)
from ..linear_model import CompAdaGradClassifier

# Candidates, as overrides of the estimator's defaults ({} is the default
# itself). Each is paired with its diagonal: the same overrides and
# n_components=0 (variant and n_components are then irrelevant).
CANDIDATES = {
    "default": {},
    # The paper's fixed subspace (the default before n_components='auto') and
    # the full matrix, the two ends 'auto' chooses between.
    "n_components=64": {"n_components": 64},
    "full matrix": {"n_components": 1 << 20},
    "variant='paper'": {"variant": "paper"},
    "variant='theory'": {"variant": "theory"},
    # The panel's first choice, the rate eta sqrt(k); the default 'adaptive'
    # replaced it (issue 18 follow-up: the standardized digits).
    "variant='balanced'": {"variant": "balanced"},
    "n_components=16": {"n_components": 16},
    "n_components=32": {"n_components": 32},
    "n_components=128": {"n_components": 128},
    "eta0=0.03": {"eta0": 0.03},
    "eta0=0.3": {"eta0": 0.3},
    "batch_size=8": {"batch_size": 8},
    "batch_size=128": {"batch_size": 128},
}
# The quick panel: these candidates under the fit protocol, only the first
# four at equal epochs and only the default tuned.
QUICK_CANDIDATES = (
    "default",
    "variant='balanced'",
    "variant='paper'",
    "variant='theory'",
    "n_components=32",
    "eta0=0.3",
    "batch_size=128",
)
QUICK_EPOCHS_CANDIDATES = QUICK_CANDIDATES[:4]
QUICK_TUNED_CANDIDATES = QUICK_CANDIDATES[:1]
ETA0_GRID = (0.03, 0.1, 0.3, 1.0)
# The penalty grid of the opt-in protocol 'tuned-alpha' (with ETA0_GRID).
ALPHA_GRID = (1e-4, 1e-3, 1e-2, 3e-2, 1e-1)
COMMON = {"loss": "hinge", "penalty": "l2", "alpha": 1e-4}
# The families where the paper claims an advantage over diagonal AdaGrad.
ADVANTAGE = "correlated"
NEUTRAL = "none claimed"
# python -m skcgm compare's data sets, where the default must not err more
# than diagonal AdaGrad (issue 37).
COMPARE = "compare"
# Rows of the spread-spectrum families (half for training) and of compare's
# correlated set.
SPREAD_ROWS = 4000
COMPARE_ROWS = 4000
PROTOCOLS = ("fit", "epochs", "tuned", "tuned-alpha")
SETTINGS = {
    "candidates": CANDIDATES,
    "common": COMMON,
    "eta0_grid": ETA0_GRID,
    "alpha_grid": ALPHA_GRID,
    "protocols": PROTOCOLS,
    "claims": {"advantage": ADVANTAGE, "neutral": NEUTRAL, "compare": COMPARE},
}


def _candidate(name):
    """The overrides of a candidate: a name of ``CANDIDATES`` or ``k=v;k=v``."""
    if name in CANDIDATES:
        return dict(CANDIDATES[name])
    params = {}
    for pair in name.split(";"):
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(
                f"Unknown candidate {name!r}: give one of {', '.join(CANDIDATES)} "
                "or overrides such as 'delta=1.0;eta0=0.03'."
            )
        params[key.strip()] = ast.literal_eval(value.strip())
    return params


def _split(X, y, seed, test_size=0.5):
    return train_test_split(X, y, test_size=test_size, stratify=y, random_state=seed)


def _standardized(split):
    X_train, X_test, y_train, y_test = split
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), scaler.transform(X_test), y_train, y_test


def _families(quick):
    """``{name: (claim, load(seed) -> (X_train, X_test, y_train, y_test))}``."""
    n = 3000 if quick else 10000
    d_dense = 64 if quick else 256
    d_correlated = (128,) if quick else (128, 256)

    def logistic(row_scale_std):
        def load(seed):
            X, y, _ = make_logistic_classification(
                n, d_dense, row_scale_std=row_scale_std, random_state=seed
            )
            return _split(X, y, seed)

        return load

    def sparse(seed):
        X, y = make_sparse_text_classification(
            n, 1024 if quick else 4096, doc_length=20, class_sep=1.5, random_state=seed
        )
        return _split(X, y, seed)

    def correlated(d, kappa, n_informative=8, noise=0.003, n=n):
        def load(seed):
            X, y = make_correlated_classification(
                n,
                d,
                n_informative=n_informative,
                condition_number=kappa,
                noise=noise,
                label_noise=0.1,
                random_state=seed,
            )
            return _split(X, y, seed)

        return load

    def standardized(load_raw):
        def load(seed):
            return _standardized(load_raw(seed))

        return load

    def bundled(loader):
        def load(seed):
            X, y = loader(return_X_y=True)
            return _standardized(_split(X, y, seed))

        return load

    def pixels(seed):
        # The natural scale of the pixels, [0, 1]: standardizing inflates the
        # nearly constant border pixels (z-scores up to 42).
        X, y = load_digits(return_X_y=True)
        return _split(X / 16.0, y, seed)

    def prototypes(seed):
        return digits_prototype_features(n_prototypes=128, random_state=seed)

    families = {
        f"gaussian d={d_dense}": (NEUTRAL, logistic(0.0)),
        f"log-normal rows d={d_dense}": (NEUTRAL, logistic(1.0)),
        "sparse text": (NEUTRAL, sparse),
    }
    for d in d_correlated:
        for kappa in (30, 300):
            families[f"correlated k{kappa} d={d}"] = (ADVANTAGE, correlated(d, kappa))
    for d in d_correlated:
        for kappa in (30, 300):
            # What a pipeline with StandardScaler feeds the estimator: unit
            # features, where delta weighs 10 times less than on the raw
            # features (root mean square 0.1).
            families[f"correlated k{kappa} d={d} std"] = (
                ADVANTAGE,
                standardized(correlated(d, kappa)),
            )
    for d in (100, 200, 500):
        for kappa in (10, 30, 100):
            # Every latent direction is a feature direction: a full-rank
            # spectrum spread over 2 log10(kappa) decades of variance.
            families[f"spread k{kappa} d={d} std"] = (
                ADVANTAGE,
                standardized(correlated(d, kappa, n_informative=d, n=SPREAD_ROWS)),
            )
    # python -m skcgm compare's three data sets, as it prepares them: this
    # one, and "breast cancer" and "digits" below.
    families["compare: correlated"] = (
        COMPARE,
        standardized(
            correlated(128, 10.0, n_informative=8, noise=0.01, n=COMPARE_ROWS)
        ),
    )
    families["breast cancer"] = (COMPARE, bundled(load_breast_cancer))
    families["digits"] = (COMPARE, bundled(load_digits))
    families["digits, pixels / 16"] = (ADVANTAGE, pixels)
    families["digits prototypes"] = (ADVANTAGE, prototypes)
    return families


def _fit(params, X_train, y_train, seed):
    start = time.perf_counter()
    model = CompAdaGradClassifier(**{**COMMON, **params}, random_state=seed)
    model.fit(X_train, y_train)
    return model, time.perf_counter() - start


def _error(model, X, y):
    return float(1.0 - model.score(X, y))


def _tuned_error(params, split, seed, epochs, grid):
    """Test error at the setting of ``grid`` with the lowest validation error.

    ``grid`` is a list of overrides (dicts); returns the test error and the
    chosen overrides.
    """
    X_train, X_test, y_train, y_test = split
    # The last quarter of the training rows, stratified by the split above,
    # holds out the validation rows.
    X_fit, X_val, y_fit, y_val = train_test_split(
        X_train, y_train, test_size=0.25, stratify=y_train, random_state=seed
    )
    best = None
    for setting in grid:
        model, _ = _fit(
            {**params, **setting, "max_iter": epochs, "tol": None},
            X_fit,
            y_fit,
            seed,
        )
        val = _error(model, X_val, y_val)
        # Ties go to the first setting (the grids ascend).
        if best is None or val < best[0]:
            best = (val, _error(model, X_test, y_test), setting)
    return best[1], best[2]


def _grid(kind):
    """The settings a tuned protocol chooses from."""
    if kind == "tuned":
        return [{"eta0": eta0} for eta0 in ETA0_GRID]
    return [{"alpha": a, "eta0": e} for a in ALPHA_GRID for e in ETA0_GRID]


def _protocols(quick):
    """``{protocol kind: (label, epochs or None)}``."""
    epochs = 5 if quick else 10
    return {
        "fit": ("fit", None),
        "epochs": (f"{epochs} epochs", epochs),
        "tuned": (f"tuned, {epochs} epochs", epochs),
        "tuned-alpha": (f"alpha and eta0 tuned, {epochs} epochs", epochs),
    }


def _sgd_time(split, seed):
    X_train, _, y_train, _ = split
    start = time.perf_counter()
    SGDClassifier(**COMMON, random_state=seed).fit(X_train, y_train)
    return time.perf_counter() - start


def _median(values):
    return float(np.median(values)) if values else None


def _score(params, splits, kind, epochs):
    """Per seed: the errors (and settings, times) of a candidate and its diagonal."""
    diagonal = {**params, "n_components": 0}
    out = {key: [] for key in "err diag eta deta al dal t dt it".split()}
    for seed, split in enumerate(splits):
        X_train, X_test, y_train, y_test = split
        if kind.startswith("tuned"):
            err, setting = _tuned_error(params, split, seed, epochs, _grid(kind))
            derr, dsetting = _tuned_error(diagonal, split, seed, epochs, _grid(kind))
            out["eta"].append(setting["eta0"])
            out["deta"].append(dsetting["eta0"])
            if "alpha" in setting:
                out["al"].append(setting["alpha"])
                out["dal"].append(dsetting["alpha"])
        else:
            extra = {} if epochs is None else {"max_iter": epochs, "tol": None}
            model, t = _fit({**params, **extra}, X_train, y_train, seed)
            dmodel, dt = _fit({**diagonal, **extra}, X_train, y_train, seed)
            err, derr = _error(model, X_test, y_test), _error(dmodel, X_test, y_test)
            out["t"].append(t)
            out["dt"].append(dt)
            out["it"].append(model.n_iter_)
        out["err"].append(err)
        out["diag"].append(derr)
    return out


def _row(out):
    """The measures of one (family, protocol, candidate) from its runs."""
    error, diagonal_error = float(np.median(out["err"])), float(np.median(out["diag"]))
    errors, diagonal_errors = np.array(out["err"]), np.array(out["diag"])
    mean_diagonal = float(diagonal_errors.mean())
    return {
        "errors": out["err"],
        "diagonal_errors": out["diag"],
        "error": error,
        "diagonal_error": diagonal_error,
        "cut": 1.0 - error / diagonal_error if diagonal_error else 0.0,
        "mean_cut": (
            1.0 - float(errors.mean()) / mean_diagonal if mean_diagonal else 0.0
        ),
        "seeds_better": int(np.sum(errors < diagonal_errors)),
        "seeds_worse": int(np.sum(errors > diagonal_errors)),
        "eta0": out["eta"] or None,
        "diagonal_eta0": out["deta"] or None,
        "alpha": out["al"] or None,
        "diagonal_alpha": out["dal"] or None,
        "fit_time": _median(out["t"]),
        "diagonal_fit_time": _median(out["dt"]),
        "n_iter": _median(out["it"]),
    }


def run_compadagrad_panel(
    *,
    full=False,
    seeds=None,
    families=None,
    candidates=None,
    protocols=None,
    progress=None,
):
    """Score the candidates against their diagonal AdaGrad on every family.

    Parameters
    ----------
    full : bool, default=False
        The full panel (larger sizes, 5 seeds, every candidate under every
        protocol) instead of the quick one (small sizes, 3 seeds; seven
        candidates under ``fit``, the first four at equal epochs, the
        default tuned).
    seeds : int, default=None
        Number of seeds; None means 3 (quick) or 5 (full).
    families : list of str, default=None
        Names of the families to run (a subset of the panel's); None runs
        them all.
    candidates : list of str, default=None
        The candidates (keys of ``CANDIDATES`` or overrides ``k=v;k=v``),
        each run under every protocol; None runs them all (in the quick
        panel, a subset per protocol).
    protocols : list of {'fit', 'epochs', 'tuned', 'tuned-alpha'}, default=None
        The protocols to run; None runs the first three.
    progress : callable, default=None
        Called with one line per family.

    Returns
    -------
    rows : list of dict
        One per (family, protocol, candidate): ``family``, ``claim``,
        ``protocol``, ``candidate``, ``params``, ``errors`` and
        ``diagonal_errors`` (per seed), ``error`` and ``diagonal_error``
        (medians), ``cut`` (``1 - error / diagonal_error``), ``mean_cut``
        (the same of the means), ``seeds_better`` and ``seeds_worse``
        (seeds where the candidate errs less, more: paired),
        ``eta0`` and ``diagonal_eta0`` (the chosen ones, tuned protocols),
        ``alpha`` and ``diagonal_alpha`` (the same, 'tuned-alpha'),
        ``fit_time`` and ``diagonal_fit_time`` (median seconds), ``n_iter``
        (median epochs) and ``sgd_fit_time`` (median seconds of
        ``SGDClassifier(loss='hinge')`` on the same data).
    """
    quick = not full
    n_seeds = seeds or (3 if quick else 5)
    all_families = _families(quick)
    chosen = candidates or list(CANDIDATES)
    # An explicit list of candidates runs under every protocol.
    subsets = quick and candidates is None
    quick_subsets = {
        "fit": QUICK_CANDIDATES,
        "tuned": QUICK_TUNED_CANDIDATES,
        "tuned-alpha": QUICK_TUNED_CANDIDATES,
    }
    all_protocols = _protocols(quick)
    # 'tuned-alpha' (20 settings a seed) runs only when asked for.
    kinds = dict.fromkeys(protocols or PROTOCOLS[:3])
    rows = []
    with warnings.catch_warnings():
        # The epochs protocols stop at max_iter on purpose.
        warnings.simplefilter("ignore", ConvergenceWarning)
        for family in families or list(all_families):
            claim, load = all_families[family]
            if progress is not None:
                progress(f"[defaults panel] {family} ...")
            splits = [load(seed) for seed in range(n_seeds)]
            sgd = float(np.median([_sgd_time(s, i) for i, s in enumerate(splits)]))
            for kind in kinds:
                protocol, epochs = all_protocols[kind]
                for name in chosen:
                    if subsets and name not in quick_subsets.get(
                        kind, QUICK_EPOCHS_CANDIDATES
                    ):
                        continue
                    params = _candidate(name)
                    rows.append(
                        {
                            "family": family,
                            "claim": claim,
                            "protocol": protocol,
                            "candidate": name,
                            "params": params,
                            **_row(_score(params, splits, kind, epochs)),
                            "sgd_fit_time": sgd,
                        }
                    )
    return rows


def format_compadagrad_panel(rows):
    """One table per protocol: a line per (family, candidate).

    Parameters
    ----------
    rows : list of dict
        Output of :func:`run_compadagrad_panel`.

    Returns
    -------
    text : str
        A legend, then the tables.
    """
    lines = [
        "Test error (median over the seeds) of each candidate and of its "
        "diagonal AdaGrad (n_components=0, same other parameters); cut = 1 - "
        "error / diagonal, mean cut the same of the means; better/worse = seeds "
        "where the candidate errs less/more; fit s "
        "= median fit time, / SGD = over SGDClassifier(loss='hinge')'s "
        "(contended machine)."
    ]
    for protocol in dict.fromkeys(row["protocol"] for row in rows):
        lines.append(f"\nProtocol: {protocol}\n")
        header = (
            f"{'family':<26} {'claim':<12} {'candidate':<24} {'error':>7} "
            f"{'diagonal':>8} {'cut':>7} {'mean cut':>8} {'better/worse':>15} "
            f"{'epochs':>6} "
            f"{'fit s':>7} {'/ SGD':>6}"
        )
        lines += [header, "-" * len(header)]
        for row in rows:
            if row["protocol"] != protocol:
                continue
            n_seeds = len(row["errors"])
            epochs = "" if row["n_iter"] is None else f"{row['n_iter']:.0f}"
            fit = "" if row["fit_time"] is None else f"{row['fit_time']:.3f}"
            ratio = (
                ""
                if row["fit_time"] is None
                else f"{row['fit_time'] / row['sgd_fit_time']:.1f}"
            )
            lines.append(
                f"{row['family']:<26} {row['claim']:<12} {row['candidate']:<24} "
                f"{row['error']:7.4f} {row['diagonal_error']:8.4f} "
                f"{row['cut']:+7.1%} {row['mean_cut']:+8.1%} "
                f"{row['seeds_better']:>4}/{row['seeds_worse']:<3} of {n_seeds:<3} "
                f"{epochs:>6} {fit:>7} {ratio:>6}"
            )
    return "\n".join(lines)
