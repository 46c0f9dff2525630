"""The defaults panel of MixedMLPRegressor (issue 19).

The panel behind the defaults of
:class:`~skcgm.neural_network.MixedMLPRegressor` (``alpha=1e-4``,
``init='k-means++'`` with ``init_score='gradient'``): candidate settings
(the default, the paper's ``alpha=0.01``, no penalty, the gap seeding score,
a random start) beside one ``MLPRegressor`` of the same hidden width, on
four data families:

- ``mlp-uniform``: ``make_mixed_mlp_regression(1200, 5, (3,), 3)``, the true
  networks drawn as the authors' code does, split 1000 / 200;
- ``mlp-normal``: the same with standard Gaussian true weights (the paper's
  text), targets of a larger scale;
- ``linear``: ``make_mixed_linear_regression(1200, 5, 3)``, a mixture of
  linear models that the networks must represent;
- ``diabetes``: :func:`sklearn.datasets.load_diabetes`, standardized inputs
  and targets, a 70 / 30 split per seed, one network (``n_components=1``).

Cells: the held-out oracle error ``min_loss`` (lower is better; for
``MLPRegressor`` half its mean squared error) on the mixtures with the true
number of components, the held-out :math:`R^2` (higher is better) on
diabetes; means over the seeds.
"""

import warnings

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPRegressor
from sklearn.preprocessing import StandardScaler

from ..datasets import make_mixed_linear_regression, make_mixed_mlp_regression
from ..neural_network import MixedMLPRegressor
from ._result import Column, format_table

CANDIDATES = {
    "default": {},
    "alpha=0.01 (paper)": {"alpha": 0.01},
    "alpha=0": {"alpha": 0.0},
    "init_score='gap'": {"init_score": "gap"},
    "init='random'": {"init": "random"},
}
# The peer: one network of MixedMLPRegressor's default hidden width.
HIDDEN_LAYER_SIZES = (5,)
PEER = f"MLPRegressor({HIDDEN_LAYER_SIZES})"
# Seeds of the quick and of the full panel.
SEEDS = (3, 10)
SETTINGS = {"candidates": CANDIDATES, "peer": PEER, "seeds": SEEDS}


def _split(X, y, n_train=1000):
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def _mixture(seed, weights):
    X, y, _, _ = make_mixed_mlp_regression(
        1200, 5, (3,), 3, weights=weights, random_state=seed
    )
    return (*_split(X, y), 3)


def _linear(seed):
    X, y, _, _ = make_mixed_linear_regression(1200, 5, 3, random_state=seed)
    return (*_split(X, y), 3)


def _diabetes(seed):
    X, y = load_diabetes(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed
    )
    scaler = StandardScaler().fit(X_train)
    mean, scale = y_train.mean(), y_train.std()
    return (
        scaler.transform(X_train),
        (y_train - mean) / scale,
        scaler.transform(X_test),
        (y_test - mean) / scale,
        1,
    )


FAMILIES = {
    "mlp-uniform": lambda seed: _mixture(seed, "uniform"),
    "mlp-normal": lambda seed: _mixture(seed, "normal"),
    "linear": _linear,
    "diabetes": _diabetes,
}


def _score(model, X, y, n_components):
    """Oracle error on the mixtures, R^2 with one component."""
    if n_components == 1:
        return model.score(X, y)
    if hasattr(model, "min_loss"):
        return model.min_loss(X, y)
    return 0.5 * np.mean((model.predict(X) - y) ** 2)


def _models(k, seed, candidates):
    models = {
        name: MixedMLPRegressor(k, random_state=seed, **CANDIDATES[name])
        for name in candidates
    }
    models[PEER] = MLPRegressor(
        hidden_layer_sizes=HIDDEN_LAYER_SIZES, random_state=seed
    )
    return models


def run_mixed_mlp_panel(
    *, full=False, seeds=None, families=None, candidates=None, progress=None
):
    """Mean held-out score of every candidate and of the peer, per family.

    Parameters
    ----------
    full : bool, default=False
        10 seeds instead of 3.
    seeds : int, default=None
        Number of seeds; overrides ``full``.
    families : list of str, default=None
        Names of the families to run; None runs them all.
    candidates : list of str, default=None
        Names of ``CANDIDATES`` to fit beside the peer; None fits them all.
    progress : callable, default=None
        Called with one line per family.

    Returns
    -------
    results : dict
        ``results[family][name]``: the mean over the seeds of the held-out
        oracle error (the mixtures) or :math:`R^2` (diabetes) of the
        candidate or of the peer ``PEER``.
    """
    n_seeds = seeds or SEEDS[bool(full)]
    results = {}
    for family in families or list(FAMILIES):
        scores = {name: [] for name in [*(candidates or CANDIDATES), PEER]}
        for seed in range(n_seeds):
            X, y, X_test, y_test, k = FAMILIES[family](seed)
            for name, model in _models(k, seed, candidates or CANDIDATES).items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    model.fit(X, y)
                scores[name].append(_score(model, X_test, y_test, k))
        results[family] = {name: float(np.mean(v)) for name, v in scores.items()}
        if progress is not None:
            progress(f"  {family} done")
    return results


def format_mixed_mlp_panel(results):
    """One line per family, one column per candidate and the peer.

    Parameters
    ----------
    results : dict
        Output of :func:`run_mixed_mlp_panel`.

    Returns
    -------
    text : str
        The table, then the legend of its cells.
    """
    names = list(next(iter(results.values())))
    rows = [{"family": family, **row} for family, row in results.items()]
    columns = [Column("family", "family")]
    columns += [Column(name, name, ".4g") for name in names]
    return (
        format_table(rows, columns)
        + "\n\nCell: mean over the seeds of the held-out oracle error min_loss "
        "(lower is better) on the mixtures, of the held-out R^2 (higher is "
        "better) on diabetes."
    )
