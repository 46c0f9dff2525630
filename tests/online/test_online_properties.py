"""Properties of every online learner on small sets (issue 16).

Every round ends within the documented LMO budget (a count), decisions are
finite and inside the set, bad input raises a ValueError or TypeError naming
it, and no numpy floating-point warning leaks out of skcgm (pyproject's
filterwarnings turns those into errors).
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from skcgm.online import DPOBGA, OBGA, OGA, POBGA, MetaFW, MonoFW
from skcgm.oracles import (
    BoxLMO,
    CappedSimplexLMO,
    L1BallLMO,
    L2BallLMO,
    SimplexLMO,
)

_TOL = 1e-7
_WEIGHTS = np.array([[0.5, 0.5], [0.5, 0.5]])


def _sets(n_features):
    """Small sets that contain 0 (where the learners start)."""
    return st.sampled_from(
        [
            BoxLMO(n_features=n_features),
            BoxLMO(lower=-1.0, upper=2.0, n_features=n_features),
            CappedSimplexLMO(n_features=n_features),
            L1BallLMO(radius=2.0, n_features=n_features),
            L2BallLMO(n_features=n_features),
        ]
    )


_POSITIVE = st.floats(1e-12, 1e12)


@st.composite
def _learners(draw, budget_lmo, name):
    """A learner of class ``name`` (parameters at their boundaries), its budget.

    The budget is the documented bound on the LMO calls of one round: the
    infeasible projection's ``max_lmo_calls_`` per block (per node) for
    POBGA and DPOBGA, K per block for MonoFW, K per round for MetaFW, 0 for
    OGA and OBGA.
    """
    n_features = draw(st.integers(1, 3))
    lmo = budget_lmo(draw(_sets(n_features)), budget=10**6)
    horizon = draw(st.integers(1, 12))
    optional = st.one_of(st.none(), _POSITIVE)
    if name in ("POBGA", "DPOBGA"):
        kwargs = dict(
            block_size=draw(st.one_of(st.just("sqrt"), st.integers(1, horizon))),
            preset=draw(st.sampled_from(["practical", "theory"])),
            eta0=draw(optional),
            eps=draw(st.one_of(st.none(), st.floats(1e-12, 1e6))),
            radius=draw(st.one_of(st.none(), st.floats(2.0, 1e6))),
            grad_bound=draw(st.one_of(st.just(1.0), _POSITIVE)),
            boosting=draw(st.booleans()),
            max_lmo_calls=draw(st.one_of(st.none(), st.integers(1, 50))),
            random_state=0,
        )
        if name == "POBGA":
            return POBGA(lmo, horizon, **kwargs)
        return DPOBGA(lmo, horizon, _WEIGHTS, **kwargs)
    if name in ("OGA", "OBGA"):
        kwargs = dict(
            eta0=draw(st.one_of(st.none(), st.floats(1e-12, 1e3))),
            grad_bound=draw(optional),
        )
        if name == "OBGA":
            kwargs["random_state"] = 0
        return (OGA if name == "OGA" else OBGA)(lmo, horizon, **kwargs)
    if name == "MetaFW":
        return MetaFW(
            lmo,
            horizon,
            n_oracles=draw(st.one_of(st.none(), st.integers(1, 4))),
            online_oracle=draw(st.sampled_from(["ftpl", "projection"])),
            eta0=draw(st.one_of(st.none(), st.floats(1e-12, 1e3))),
            perturbation=draw(optional),
            grad_bound=draw(optional),
            random_state=0,
        )
    return MonoFW(
        lmo,
        horizon,
        block_size=draw(st.one_of(st.none(), st.integers(1, horizon))),
        perturbation=draw(optional),
        grad_bound=draw(optional),
        random_state=0,
    )


def _gradient_streams(horizon, shape):
    """Gradients from tiny to huge (within the accepted range), with sign
    changes, zeros and growth after the first rounds."""
    magnitude = st.sampled_from([0.0, 1e-150, 1e-8, 1e-2, 1.0, 1e3, 1e8, 1e100])
    growth = st.sampled_from([1.0, 1e4, 1e50])
    return st.tuples(
        st.lists(
            st.lists(
                st.tuples(magnitude, st.sampled_from([-1.0, 1.0])),
                min_size=math.prod(shape),
                max_size=math.prod(shape),
            ),
            min_size=horizon,
            max_size=horizon,
        ),
        growth,
        st.integers(1, max(1, horizon)),
    )


def _budget(learner):
    """LMO calls one round may make (an upper bound)."""
    if isinstance(learner, (POBGA, DPOBGA)):
        nodes = getattr(learner, "n_nodes_", 1)
        return learner.max_lmo_calls_ * nodes
    if isinstance(learner, MonoFW):
        return learner.block_size_
    if isinstance(learner, MetaFW):
        return learner.n_oracles_ if learner.online_oracle == "ftpl" else 0
    return 0


def _inside(lmo, x):
    rows = x if x.ndim == 2 else x[None, :]
    return all(lmo.contains(row, tol=_TOL) for row in rows)


# One property run per learner class: the slow budget is 500 examples each.
@pytest.mark.parametrize("name", ["POBGA", "DPOBGA", "OGA", "OBGA", "MetaFW", "MonoFW"])
def test_every_round_ends_within_the_lmo_budget_inside_the_set(
    property_settings, budget_lmo, name
):
    @given(data=st.data())
    def check(data):
        learner = data.draw(_learners(budget_lmo, name))
        try:
            learner.reset()
        except ValueError as exc:
            # Only the documented refusals of parameters at the boundary.
            assert "eps" in str(exc) or "radius" in str(exc)
            event("parameters refused")
            return
        lmo = learner.lmo
        shape = learner._query_shape()
        entries, growth, switch = data.draw(_gradient_streams(learner.horizon, shape))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for t, row in enumerate(entries):
                x = learner.decide()
                assert np.all(np.isfinite(x)) and _inside(lmo.lmo, x)
                learner.query_point()
                gradient = np.array([m * s for m, s in row]).reshape(shape)
                if t >= switch:
                    gradient = gradient * growth
                before = lmo.n_calls
                try:
                    learner.update(gradient)
                except ValueError as exc:
                    # A step derived from tiny gradients, or out of scale
                    # with them: refused, naming the gradient or the step.
                    assert "gradient" in str(exc)
                    event("gradient refused")
                    return
                assert lmo.n_calls - before <= _budget(learner)
        event(f"{type(learner).__name__} played {learner.horizon} rounds")
        for attribute in ("eta0_", "grad_bound_", "eps_", "radius_"):
            value = getattr(learner, attribute, None)
            assert value is None or math.isfinite(value)
        if isinstance(learner, (POBGA, DPOBGA)):
            assert all(np.all(np.isfinite(d)) for d in learner.history_["dist2"])
            assert np.all(np.isfinite(learner._y_tilde))

    property_settings(check)()


_ALL = [
    lambda lmo: POBGA(lmo, 4, random_state=0),
    lambda lmo: DPOBGA(lmo, 4, _WEIGHTS, random_state=0),
    lambda lmo: OGA(lmo, 4),
    lambda lmo: OBGA(lmo, 4, random_state=0),
    lambda lmo: MetaFW(lmo, 4, random_state=0),
    lambda lmo: MetaFW(lmo, 4, online_oracle="projection"),
    lambda lmo: MonoFW(lmo, 4, random_state=0),
]
_IDS = ["POBGA", "DPOBGA", "OGA", "OBGA", "MetaFW", "MetaFW-projection", "MonoFW"]


@pytest.mark.parametrize("make", _ALL, ids=_IDS)
@pytest.mark.parametrize("value", [1e300, -1e200, np.finfo(np.float64).max])
def test_gradients_whose_squares_overflow_are_refused(make, value):
    learner = make(BoxLMO(n_features=2))
    learner.decide()
    query = learner.query_point()
    name = type(learner).__name__
    with pytest.raises(ValueError, match=f"'gradient' passed to {name}.update"):
        learner.update(np.full(query.shape, value))
    # Refused before any work: the round can be replayed with a fine value.
    learner.update(np.ones(query.shape))
    assert learner.n_rounds_ == 1


@pytest.mark.parametrize("make", _ALL, ids=_IDS)
def test_reward_whose_square_overflows_is_refused(make):
    learner = make(BoxLMO(n_features=2))
    learner.decide()
    query = learner.query_point()
    with pytest.raises(ValueError, match="'reward' passed to"):
        learner.update(np.ones(query.shape), reward=1e300)


@pytest.mark.parametrize("make", _ALL[:4] + _ALL[5:6], ids=_IDS[:4] + _IDS[5:6])
def test_learners_starting_at_zero_need_the_origin_in_the_set(make):
    learner = make(SimplexLMO(n_features=2))
    with pytest.raises(ValueError, match="origin"):
        learner.decide()
    assert learner.lmo.n_calls_ == 0


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: POBGA(BoxLMO(n_features=1), 4, radius=1e200), "'radius' parameter"),
        (lambda: OGA(L2BallLMO(radius=1e200, n_features=1), 4), "lmo.radius"),
        (lambda: POBGA(BoxLMO(n_features=1), 4, eps=1e308), "'eps' parameter"),
        (lambda: POBGA(BoxLMO(n_features=1), 4, radius=1e-200), "underflows"),
        (
            lambda: POBGA(BoxLMO(n_features=1), 4, grad_bound=1e-320),
            "'grad_bound' parameter",
        ),
        (
            lambda: OGA(BoxLMO(n_features=1), 4, grad_bound=1e-320),
            "'grad_bound' parameter",
        ),
    ],
)
def test_parameters_out_of_range_are_refused_before_any_work(make, match):
    learner = make()
    with pytest.raises(ValueError, match=match):
        learner.decide()


@pytest.mark.parametrize("make", _ALL[:2], ids=_IDS[:2])
def test_a_huge_step_keeps_pobga_finite(make):
    # eta * sum of gradients overflows: the ascent keeps its direction (the
    # infeasible projection used to refuse it, naming its internal 'y0').
    learner = make(BoxLMO(n_features=2)).set_params(eta0=1e308, block_size=1)
    for _ in range(3):
        x = learner.decide()
        assert np.all(np.isfinite(x)) and learner.lmo.contains(x.reshape(-1, 2)[0])
        learner.query_point()
        learner.update(np.tile([1e10, -1e10], (x.size // 2, 1)).reshape(x.shape))
    np.testing.assert_allclose(learner.decide().reshape(-1, 2)[0], [1.0, 0.0])


def test_a_step_out_of_scale_with_the_gradients_is_refused_by_oga():
    learner = OGA(BoxLMO(n_features=2), 4, eta0=1e300)
    learner.decide()
    learner.query_point()
    with pytest.raises(ValueError, match="eta0 \\* gradient of OGA.update"):
        learner.update(np.array([1e10, 0.0]))


def test_tiny_gradients_give_a_finite_step_or_an_error_naming_them():
    learner = POBGA(BoxLMO(n_features=1), 4, block_size=1, random_state=0)
    learner.decide()
    learner.query_point()
    learner.update(np.array([1e-170]))  # its square underflows; its norm does not
    assert learner.grad_bound_ == pytest.approx(1e-170)
    assert math.isfinite(learner.eta0_)
    assert learner.decide()[0] > 0
    learner = POBGA(BoxLMO(n_features=1), 4, block_size=1, random_state=0)
    learner.decide()
    learner.query_point()
    with pytest.raises(ValueError, match="'gradient' passed to POBGA.update"):
        learner.update(np.array([5e-324]))
