"""The online learners as scikit-learn-style objects.

Nested parameters of the LMO (``lmo__radius``), clone, repr and the notebook
display, parameter validation with scikit-learn's wording at the first
``decide()``, and the progress report of ``verbose``.
"""

import inspect
import re

import joblib
import numpy as np
import pytest
from sklearn.base import clone

from skcgm import online
from skcgm.online import (
    DPOBGA,
    POBGA,
    BaseOnlineLearner,
    MonoFW,
    QuadraticObjective,
    run_online,
)
from skcgm.oracles import BoxLMO, L2BallLMO
from skcgm.utils._sklearn_compat import InvalidParameterError

LEARNERS = [
    getattr(online, name)
    for name in online.__all__
    if inspect.isclass(getattr(online, name))
    and issubclass(getattr(online, name), BaseOnlineLearner)
    and getattr(online, name) is not BaseOnlineLearner
]


def _learner(Learner, **params):
    """A small instance of ``Learner`` over the unit box of R^3."""
    kwargs = {"lmo": BoxLMO(n_features=3), "horizon": 20, **params}
    if Learner is DPOBGA:
        kwargs.setdefault("weights", np.full((2, 2), 0.5))
    return Learner(**kwargs)


def _ids(Learner):
    return Learner.__name__


def test_every_learner_is_covered():
    names = {Learner.__name__ for Learner in LEARNERS}
    assert names == {"DPOBGA", "MetaFW", "MonoFW", "OBGA", "OGA", "POBGA"}


@pytest.mark.parametrize("Learner", LEARNERS, ids=_ids)
def test_learner_get_params_deep_lists_lmo_parameters(Learner):
    learner = _learner(Learner)
    deep = learner.get_params(deep=True)
    assert deep["lmo__n_features"] == 3
    assert deep["lmo__upper"] == 1.0
    assert deep["lmo"] is learner.lmo
    shallow = learner.get_params(deep=False)
    assert not any("__" in name for name in shallow)
    assert set(shallow) <= set(deep)


@pytest.mark.parametrize("Learner", LEARNERS, ids=_ids)
def test_learner_set_params_reaches_the_lmo(Learner):
    learner = _learner(Learner)
    assert learner.set_params(lmo__n_features=5, horizon=30) is learner
    assert learner.lmo.n_features == 5 and learner.horizon == 30
    assert learner.reset().n_features_ == 5
    assert learner.decide().shape[-1] == 5
    with pytest.raises(ValueError, match="Invalid parameter 'nope'"):
        learner.set_params(lmo__nope=1)
    with pytest.raises(ValueError, match="Invalid parameter 'lmo_radius'"):
        learner.set_params(lmo_radius=1)


@pytest.mark.parametrize("Learner", LEARNERS, ids=_ids)
def test_learner_clone_round_trips_deep_parameters(Learner):
    learner = _learner(Learner, lmo=L2BallLMO(radius=2.0, n_features=3))
    cloned = clone(learner)
    assert cloned.lmo is not learner.lmo  # the LMO is cloned too
    assert joblib.hash(cloned.get_params(deep=True)) == joblib.hash(
        learner.get_params(deep=True)
    )
    assert repr(cloned) == repr(learner)
    assert "lmo=L2BallLMO(" in repr(learner) and "radius=2.0" in repr(learner)


@pytest.mark.parametrize("Learner", LEARNERS, ids=_ids)
def test_learner_html_repr(Learner):
    learner = _learner(Learner)
    html = learner._repr_html_()
    assert isinstance(html, str) and Learner.__name__ in html
    # The parameter table lists the learner's parameters.
    assert "horizon" in html
    bundle = learner._repr_mimebundle_()
    assert bundle["text/plain"] == repr(learner)
    assert Learner.__name__ in bundle["text/html"]


_BAD_PARAMETERS = [
    (
        {"horizon": 0},
        "The 'horizon' parameter of {} must be an int in the range [1, inf). "
        "Got 0 instead.",
    ),
    ({"horizon": 2.5}, "The 'horizon' parameter of {} must be an int"),
    ({"lmo": "box"}, "The 'lmo' parameter of {} must be an object implementing"),
    ({"verbose": -1}, "The 'verbose' parameter of {} must be"),
]


@pytest.mark.parametrize("Learner", LEARNERS, ids=_ids)
@pytest.mark.parametrize("params, message", _BAD_PARAMETERS)
def test_learner_parameter_errors_use_sklearn_validation(Learner, params, message):
    learner = _learner(Learner, **params)  # __init__ only stores
    with pytest.raises(
        InvalidParameterError, match=re.escape(message.format(_ids(Learner)))
    ):
        learner.decide()


@pytest.mark.parametrize(
    "Learner, params, name",
    [
        (POBGA, {"block_size": 0}, "block_size"),
        (POBGA, {"block_size": "log"}, "block_size"),
        (POBGA, {"preset": "fast"}, "preset"),
        (POBGA, {"eta0": -1.0}, "eta0"),
        (POBGA, {"eps": 0.0}, "eps"),
        (POBGA, {"radius": np.inf}, "radius"),
        (POBGA, {"grad_bound": 0.0}, "grad_bound"),
        (POBGA, {"boosting": "yes"}, "boosting"),
        (POBGA, {"random_state": "seed"}, "random_state"),
        (DPOBGA, {"weights": "complete"}, "weights"),
        (DPOBGA, {"eps": -1.0}, "eps"),
        (online.OGA, {"eta0": 0.0}, "eta0"),
        (online.OBGA, {"grad_bound": -1.0}, "grad_bound"),
        (online.MetaFW, {"n_oracles": 0}, "n_oracles"),
        (online.MetaFW, {"online_oracle": "rftl"}, "online_oracle"),
        (online.MetaFW, {"perturbation": -1.0}, "perturbation"),
        (MonoFW, {"block_size": 0}, "block_size"),
        (MonoFW, {"perturbation": 0.0}, "perturbation"),
    ],
)
def test_learner_specific_parameter_errors(Learner, params, name):
    learner = _learner(Learner, **params)
    message = f"The '{name}' parameter of {Learner.__name__} must be"
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        learner.decide()


@pytest.mark.parametrize("Learner", LEARNERS, ids=_ids)
def test_verbose_reports_progress_every_so_many_rounds(Learner, capsys):
    horizon = 100
    H = -np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]])
    objectives = [QuadraticObjective(H, -H @ np.ones(3), noise=0.1)] * horizon
    kwargs = {"lmo": BoxLMO(n_features=3), "horizon": horizon, "verbose": 1}
    if Learner is DPOBGA:
        kwargs["weights"] = np.full((2, 2), 0.5)
    result = run_online(Learner(**kwargs), objectives, random_state=0)
    lines = capsys.readouterr().out.splitlines()
    # A line every tenth of the horizon, not one per round.
    assert len(lines) == 10
    assert lines[-1].startswith(f"[{Learner.__name__}] round 100/100")
    for line in lines:
        assert "cumulative reward" in line and "LMO calls" in line
        assert "elapsed" in line
    total = float(re.search(r"cumulative reward (\S+),", lines[-1]).group(1))
    assert total == pytest.approx(result.rewards.sum(), rel=1e-3)
    calls = int(re.search(r"LMO calls (\d+)", lines[-1]).group(1))
    assert calls == result.n_lmo_calls


def test_verbose_without_rewards_and_silent_by_default(capsys):
    learner = POBGA(BoxLMO(n_features=2), horizon=4, verbose=1, random_state=0)
    for _ in range(4):
        learner.decide()
        learner.query_point()
        learner.update(np.ones(2))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and "reward" not in lines[-1]
    assert lines[-1].startswith("[POBGA] round 4/4")
    learner = POBGA(BoxLMO(n_features=2), horizon=4, random_state=0)
    for _ in range(4):
        learner.decide()
        learner.query_point()
        learner.update(np.ones(2), reward=1.0)
    assert capsys.readouterr().out == ""
