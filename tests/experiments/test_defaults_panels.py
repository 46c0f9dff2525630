"""Tests of the defaults panels of ``skcgm.experiments``.

Each panel runs on a tiny slice (one family, one seed, the default
candidate), and the default it scores is checked against what the estimator
does with its own defaults: the panel measures what a user gets.
"""

import numpy as np
import pytest
from sklearn.datasets import load_iris

from skcgm.cluster import SumOfMinKMeans
from skcgm.experiments import DEFAULTS_PANELS, DefaultsPanel, run_defaults_panel
from skcgm.experiments import _defaults_compadagrad as compadagrad
from skcgm.experiments import _defaults_herding as herding
from skcgm.experiments import _defaults_local_sensitivity as local_sensitivity
from skcgm.experiments import _defaults_mixed_mlp as mixed_mlp
from skcgm.experiments import _defaults_momentum as momentum
from skcgm.linear_model import CompAdaGradClassifier, LocalSensitivityLogistic
from skcgm.neural_network import MixedMLPRegressor
from skcgm.optim import MomentumLloyd
from skcgm.sampling import KernelHerdingSampler

DEFAULT_SETTING = "defaults (b=0.5, a=1.9, r=1)"


def test_every_panel_is_registered_under_its_name():
    assert sorted(DEFAULTS_PANELS) == [
        "compadagrad",
        "dask-one-round",
        "herding",
        "local-sensitivity",
        "mixed-mlp",
        "momentum",
    ]
    for name, panel in DEFAULTS_PANELS.items():
        assert isinstance(panel, DefaultsPanel)
        assert panel.name == name
        assert callable(panel.run) and callable(panel.format)


def test_unknown_panel_names_the_registered_ones():
    with pytest.raises(KeyError, match="registered: \\['compadagrad'"):
        run_defaults_panel("nope")


def test_the_candidates_start_from_the_estimators_defaults():
    # The "default" candidate overrides nothing, and what every candidate
    # shares is the estimator's own default.
    assert compadagrad.CANDIDATES["default"] == {}
    assert compadagrad.COMMON.items() <= CompAdaGradClassifier().get_params().items()
    assert local_sensitivity.CANDIDATES["default"] == {}
    assert local_sensitivity.FULL_CANDIDATES["theorem9"].items() <= (
        LocalSensitivityLogistic().get_params().items()
    )
    assert mixed_mlp.CANDIDATES["default"] == {}
    assert mixed_mlp.HIDDEN_LAYER_SIZES == MixedMLPRegressor().hidden_layer_sizes
    solver = MomentumLloyd()
    assert {key: getattr(solver, key) for key in momentum.DEFAULTS} == momentum.DEFAULTS
    # The herding grid times the alternatives 'auto' chooses between.
    sampler = KernelHerdingSampler().get_params()
    assert sampler["feature_map"] == sampler["maxip"] == sampler["refine"] == "auto"
    assert {m["feature_map"] for m in herding.METHODS.values()} == {"exact", "rff"}
    assert {m["maxip"] for m in herding.METHODS.values()} == {"exact", "lsh"}


def test_compadagrad_panel_scores_the_default_fit():
    rows = run_defaults_panel(
        "compadagrad",
        seeds=1,
        families=["breast cancer"],
        candidates=["default"],
        protocols=["fit"],
    )
    (row,) = rows
    assert (row["family"], row["claim"], row["protocol"]) == (
        "breast cancer",
        "compare",
        "fit",
    )
    assert row["params"] == {} and len(row["errors"]) == 1
    _, load = compadagrad._families(True)["breast cancer"]
    X_train, X_test, y_train, y_test = load(0)
    model = CompAdaGradClassifier(random_state=0).fit(X_train, y_train)
    assert row["error"] == pytest.approx(1 - model.score(X_test, y_test))
    diagonal = CompAdaGradClassifier(n_components=0, random_state=0)
    diagonal.fit(X_train, y_train)
    assert row["diagonal_error"] == pytest.approx(1 - diagonal.score(X_test, y_test))
    text = DEFAULTS_PANELS["compadagrad"].format(rows)
    assert "Protocol: fit" in text and "breast cancer" in text


def test_momentum_panel_compares_the_default_solver_with_exact_lloyd():
    results = run_defaults_panel(
        "momentum", seeds=1, families=["iris"], settings=[DEFAULT_SETTING]
    )
    assert list(results) == ["exact", "settings", "seconds"]
    cell = results["settings"][DEFAULT_SETTING]["iris"]
    X = load_iris().data
    ratio = (
        SumOfMinKMeans(3, solver="momentum", random_state=0).fit(X).inertia_
        / SumOfMinKMeans(3, solver="exact", random_state=0).fit(X).inertia_
    )
    assert cell["n_runs"] == 1
    assert cell["geomean"] == pytest.approx(ratio)
    assert "iris" in DEFAULTS_PANELS["momentum"].format(results)


def test_mixed_mlp_panel_scores_the_default_estimator():
    results = run_defaults_panel(
        "mixed-mlp", seeds=1, families=["diabetes"], candidates=["default"]
    )
    X_train, y_train, X_test, y_test, k = mixed_mlp.FAMILIES["diabetes"](0)
    model = MixedMLPRegressor(k, random_state=0).fit(X_train, y_train)
    assert results["diabetes"]["default"] == pytest.approx(model.score(X_test, y_test))
    assert set(results["diabetes"]) == {"default", mixed_mlp.PEER}


def test_local_sensitivity_panel_rows_are_relative_to_uniform():
    rows = run_defaults_panel(
        "local-sensitivity",
        seeds=1,
        families=["breast_cancer"],
        candidates={"default": {}, "uniform": {"sampling": "uniform"}},
    )
    assert [row["candidate"] for row in rows] == ["default", "uniform"]
    uniform = rows[1]
    assert uniform["ratio15"] == uniform["ratio100"] == 1.0
    for row in rows:
        # F* is the optimum: every error is non-negative, and 100 rounds
        # come closer than 15.
        assert 0 <= row["err100"] <= row["err15"]
        assert (row["n"], row["d"], row["draws"]) == (569, 30, 57)
    assert "breast_cancer (569 x 30, 57)" in DEFAULTS_PANELS[
        "local-sensitivity"
    ].format(rows)


def test_herding_grid_measures_every_search():
    results = run_defaults_panel(
        "herding", parts=("grid",), grid={"sizes": (300,), "dimensions": (2,)}
    )
    assert results["lsh"] == results["refine"] == {}
    (case,) = results["grid"].values()
    assert (case["n"], case["d"]) == (300, 2)
    for key, _, _ in herding.GRID_MEASURES:
        assert np.isfinite(case[key])
    # The data term of the exact fit makes the three MMDs comparable.
    assert case["mmd2_exact"] <= case["mmd2_rff"]
    assert "d = 2" in DEFAULTS_PANELS["herding"].format(results)


def test_dask_one_round_panel_reports_the_fit_it_made():
    pytest.importorskip("dask")
    rows = run_defaults_panel("dask-one-round", seeds=1, cells=[("issue", 1000, 5)])
    (row,) = rows
    assert row["solver"] in ("lbfgs", "one round")
    assert 0 <= row["error_max"] < 1e-3
    assert "1 cells x 1 seeds" in DEFAULTS_PANELS["dask-one-round"].format(rows)
