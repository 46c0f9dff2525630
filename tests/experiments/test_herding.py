"""Tests of ``reproduce herding`` and of the digits-herding comparison."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from skcgm.experiments import _herding
from skcgm.experiments._herding import run_herding, squared_mmd


def test_squared_mmd_equals_the_kernel_expansion(global_random_seed):
    # Independent oracle: the full (n + m) x (n + m) Gram matrix.
    rng = np.random.RandomState(global_random_seed)
    X = rng.standard_normal((30, 3))
    indices = np.array([4, 7, 7, 20])
    weights = rng.dirichlet(np.ones(4))
    K = rbf_kernel(X, X, gamma=0.3)
    p = np.full(30, 1 / 30)
    q = np.zeros(30)
    np.add.at(q, indices, weights)
    expected = (q - p) @ K @ (q - p)
    assert squared_mmd(X, indices, weights, gamma=0.3) == pytest.approx(expected)
    assert squared_mmd(X, np.arange(30), p, gamma=0.3) == pytest.approx(0, abs=1e-12)


@pytest.fixture(scope="module")
def small_result():
    return run_herding(
        trials=5, n_samples=400, subset_sizes=(8, 32, 128), random_state=0
    )


def test_herding_rows_present(small_result):
    methods = {row["method"] for row in small_result.rows}
    assert {"herding (exact)", "herding (LSH, RFF 256)", "i.i.d. (median)"} <= methods
    for row in small_result.rows:
        assert row["mmd2"] >= 0
        assert row["n_features"] == 2


def test_exact_herding_mmd_decreases_in_m_and_beats_iid(small_result):
    exact = [r for r in small_result.rows if r["method"] == "herding (exact)"]
    mmd2 = [r["mmd2"] for r in sorted(exact, key=lambda r: r["m"])]
    assert all(a > b for a, b in zip(mmd2, mmd2[1:]))
    # Herding at m = 128 well below the i.i.d. median (note 3.5, test idea 4).
    assert exact[-1]["ratio_to_iid"] < 0.5


def test_exact_herding_scores_every_row(small_result):
    for row in small_result.rows:
        if row["method"] == "herding (exact)":
            assert row["scored_fraction"] == pytest.approx(1.0)
        if row["method"] == "herding (LSH, RFF 256)":
            assert 0 < row["scored_fraction"] <= 1.0


def test_kernel_thinning_rows_only_when_installed(small_result, monkeypatch):
    has_kt = any(r["method"] == "kernel thinning" for r in small_result.rows)
    assert has_kt == _herding.kernel_thinning_available()
    monkeypatch.setattr(_herding, "kernel_thinning_available", lambda: False)
    result = run_herding(trials=2, n_samples=100, subset_sizes=(8,))
    assert "kernel thinning" not in {r["method"] for r in result.rows}
    assert "goodpoints package is not installed" in result.caption


def test_plot_draws_log_log(small_result):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    figure = Figure()
    _herding.plot_herding(small_result, figure)
    ax = figure.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


@pytest.mark.parametrize(
    "subset, size", [("herding", 60), ("random", 60), ("all", 300)]
)
def test_subset_model_trains_on_the_subset(subset, size):
    from sklearn.datasets import load_digits
    from sklearn.svm import SVC

    from skcgm.experiments._baselines import _SubsetModel

    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    model = _SubsetModel(SVC(), subset=subset, n_samples=60, random_state=0)
    model.fit(X, y)
    assert model.n_fit_samples_ == size
    assert model.model_.gamma == pytest.approx(1 / (64 * X.var()))
    assert 0.5 < model.score(X, y) <= 1.0


def test_subset_model_passes_sampler_params_to_herding(monkeypatch):
    from sklearn.datasets import load_digits
    from sklearn.svm import SVC

    from skcgm.experiments import _baselines

    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    built = []
    sampler = _baselines.KernelHerdingSampler
    monkeypatch.setattr(
        _baselines,
        "KernelHerdingSampler",
        lambda *args, **kwargs: built.append(kwargs) or sampler(*args, **kwargs),
    )
    params = {"feature_map": "rff", "maxip": "lsh"}
    model = _baselines._SubsetModel(SVC(), n_samples=60, sampler_params=params)
    model.fit(X, y)
    assert model.n_fit_samples_ == 60
    assert {k: built[0][k] for k in params} == params
