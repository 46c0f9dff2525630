"""Tests of POBGA (Algorithm 1): exact counters, a reference implementation,
the protocol, parameter validation and (slow) the regret and LMO slopes."""

import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from skcgm.online import POBGA, run_online
from skcgm.oracles._lmo_sets import BoxLMO, CappedSimplexLMO
from skcgm.oracles._projection import (
    infeasible_projection,
    infeasible_projection_lmo_bound,
)

E = math.e


def _reference(lmo, horizon, K, eta, eps, radius, objectives, seed, boosting):
    """Algorithm 1 written out, with exact gradients and z drawn as
    ln(1 + U(e - 1)) from RandomState(seed).uniform()."""
    rng = np.random.RandomState(seed)
    n = lmo.n_features
    x, y_tilde = np.zeros(n), np.zeros(n)
    decisions = []
    for m in range(-(-horizon // K)):
        total = np.zeros(n)
        for t in range(m * K, min((m + 1) * K, horizon)):
            decisions.append(x.copy())
            if boosting:
                z = math.log1p(rng.uniform() * (E - 1))
                total += (1 - 1 / E) * objectives[t].grad(z * x)
            else:
                total += objectives[t].grad(x)
        y = y_tilde + eta * total
        result = infeasible_projection(lmo, x, y, eps, radius=radius)
        x, y_tilde = result.x, result.y_tilde
    return np.array(decisions)


@pytest.mark.parametrize("horizon, block_size", [(100, 10), (101, 10), (37, 5), (9, 9)])
def test_pobga_counters_are_exact(horizon, block_size, make_objectives):
    lmo = CappedSimplexLMO(radius=2.0, n_features=4)
    objectives = make_objectives(4, horizon, noise=0.1)
    learner = POBGA(lmo, horizon, block_size=block_size, random_state=0)
    result = run_online(learner, objectives, random_state=0)
    n_blocks = math.ceil(horizon / block_size)
    assert learner.n_rounds_ == horizon
    assert result.n_grad_calls == learner.n_grad_calls_ == horizon
    assert result.n_projections == learner.n_projections_ == n_blocks
    assert learner.n_blocks_ == n_blocks
    assert result.n_communications == 0
    # The learner's count agrees with the LMO's own counter.
    assert result.n_lmo_calls == lmo.n_calls_ == sum(learner.history_["lmo_calls"])
    assert result.n_lmo_calls > 0
    for key in ("dist2", "lmo_calls", "n_outer", "status"):
        assert len(learner.history_[key]) == n_blocks


def test_pobga_sqrt_block_size_and_last_block_shorter(play):
    lmo = BoxLMO(n_features=2)
    learner = POBGA(lmo, 50, random_state=0).reset()
    # K = round(sqrt(50)) = 7, ceil(50 / 7) = 8 blocks, the last one of 1 round.
    assert learner.block_size_ == 7
    assert learner.n_blocks_ == 8
    play(learner, lambda t, q: np.ones(2))
    assert learner.n_projections_ == 8


def test_pobga_theory_preset_constants():
    lmo = BoxLMO(n_features=3)
    T, G = 400, 2.5
    learner = POBGA(lmo, T, preset="theory", grad_bound=G).reset()
    R = math.sqrt(3)
    assert learner.radius_ == pytest.approx(R)
    assert learner.block_size_ == 20
    assert learner.eps_ == pytest.approx(405 * R**2 / math.sqrt(T))
    assert learner.eta0_ == pytest.approx(20 * R / ((1 - 1 / E) * G) * T ** (-0.75))
    # Without boosting the (1 - 1/e) of the step goes with that of the gradient.
    learner = POBGA(lmo, T, preset="theory", grad_bound=G, boosting=False).reset()
    assert learner.eta0_ == pytest.approx(20 * R / G * T ** (-0.75))
    # eta0 and eps override the preset; radius overrides lmo.radius.
    learner = POBGA(lmo, T, eta0=0.1, eps=0.2, radius=5.0).reset()
    assert (learner.eta0_, learner.eps_, learner.radius_) == (0.1, 0.2, 5.0)


def _run_theory_preset(lmo, objectives):
    """POBGA with preset='theory' and G the largest gradient bound of the
    stream, played on ``objectives``; returns the learner and the result."""
    G = max(f.grad_bound(lmo.radius) for f in objectives)
    learner = POBGA(lmo, len(objectives), preset="theory", grad_bound=G, random_state=0)
    return learner, run_online(learner, objectives, random_state=0)


@pytest.mark.parametrize("lmo_factory", [BoxLMO, CappedSimplexLMO])
def test_pobga_theory_preset_uses_at_most_T_lmo_calls(lmo_factory, make_objectives):
    # Theorem 1: at most T linear optimization steps.
    lmo = lmo_factory(n_features=3)
    T = 2500
    _, result = _run_theory_preset(lmo, make_objectives(3, T, noise=0.1))
    assert result.n_lmo_calls <= T
    assert result.n_projections == 50


def test_pobga_per_block_lmo_calls_within_lemma_1_bound(make_objectives):
    # Eq. (15): block m uses at most bound (4) at its ||x_m - y_{m+1}||^2.
    lmo = CappedSimplexLMO(radius=1.0, n_features=5)
    objectives = make_objectives(5, 400, seed=1, noise=0.2)
    learner = POBGA(lmo, 400, eps=0.01, random_state=0)
    run_online(learner, objectives, random_state=0)
    for dist2, calls in zip(learner.history_["dist2"], learner.history_["lmo_calls"]):
        assert calls <= infeasible_projection_lmo_bound(learner.radius_, 0.01, dist2)
    assert set(learner.history_["status"]) == {"ok"}


def test_pobga_block_invariant_16(make_objectives, play):
    # ||y_{m+1} - x_m|| <= gamma K eta G + sqrt(3 eps), G the realised bound.
    lmo = BoxLMO(n_features=4)
    objectives = make_objectives(4, 300, seed=2, noise=0.3)
    learner = POBGA(lmo, 300, block_size=12, eps=0.05, random_state=3)
    rng = np.random.RandomState(0)
    norms = []

    def gradient(t, q):
        g = objectives[t].stochastic_grad(q, rng)
        norms.append(np.linalg.norm(g))
        return g

    play(learner, gradient)
    G = max(norms)
    bound = (1 - 1 / E) * 12 * learner.eta0_ * G + math.sqrt(3 * 0.05)
    assert np.sqrt(np.max(learner.history_["dist2"])) <= bound + 1e-9


@pytest.mark.parametrize("boosting", [True, False])
def test_pobga_matches_reference_algorithm_1(boosting, make_objectives, play):
    # boosting=False is the blocked OGA of Garber and Kretzu (2022).
    lmo = CappedSimplexLMO(radius=1.5, n_features=3)
    horizon, K, eta, eps = 60, 7, 0.05, 0.02
    objectives = make_objectives(3, horizon, seed=4)
    learner = POBGA(
        lmo,
        horizon,
        block_size=K,
        eta0=eta,
        eps=eps,
        boosting=boosting,
        random_state=5,
    )
    decisions, queries = play(learner, lambda t, q: objectives[t].grad(q))
    expected = _reference(
        lmo, horizon, K, eta, eps, lmo.radius, objectives, 5, boosting
    )
    np.testing.assert_allclose(decisions, expected, rtol=0, atol=1e-12)
    assert np.any(decisions[-1] > 0)
    if not boosting:
        np.testing.assert_array_equal(queries, decisions)


def test_pobga_queries_at_shrunk_decision(play):
    lmo = BoxLMO(n_features=3)
    learner = POBGA(lmo, 40, block_size=4, eta0=0.3, eps=0.01, random_state=0)
    decisions, queries = play(learner, lambda t, q: np.ones(3))
    moved = decisions[:, 0] > 0
    assert moved.any()
    z = queries[moved, 0] / decisions[moved, 0]
    np.testing.assert_allclose(queries[moved], z[:, None] * decisions[moved])
    assert np.all((0 <= z) & (z <= 1))


def test_pobga_decisions_feasible_and_y_tilde_in_ball(make_objectives):
    lmo = CappedSimplexLMO(radius=1.0, n_features=4)
    objectives = make_objectives(4, 200, seed=6, noise=0.5)
    learner = POBGA(lmo, 200, eta0=0.5, eps=0.005, random_state=0)
    result = run_online(learner, objectives, random_state=1)
    assert all(lmo.contains(x, tol=1e-9) for x in result.decisions)
    assert np.linalg.norm(learner._y_tilde) <= learner.radius_ + 1e-12


def test_pobga_estimates_grad_bound_at_first_block(play):
    lmo = BoxLMO(n_features=2)
    learner = POBGA(lmo, 100, block_size=10, random_state=0)
    grads = [np.array([3.0, 4.0]), np.array([0.0, 1.0])]
    learner.reset()
    assert learner.eta0_ is None and learner.grad_bound_ is None
    play(learner, lambda t, q: grads[t % 2])
    assert learner.grad_bound_ == 5.0
    c_eta = 1.0
    expected = c_eta * learner.radius_ / ((1 - 1 / E) * 5.0) * 100 ** (-0.75)
    assert learner.eta0_ == pytest.approx(expected)


def test_pobga_reproducible_and_reset_replays(make_objectives):
    lmo = BoxLMO(n_features=3)
    objectives = make_objectives(3, 50, noise=0.2)
    first = run_online(POBGA(lmo, 50, random_state=7), objectives, random_state=0)
    learner = POBGA(lmo, 50, random_state=7)
    second = run_online(learner, objectives, random_state=0)
    third = run_online(learner, objectives, random_state=0)  # reset inside
    np.testing.assert_array_equal(first.decisions, second.decisions)
    np.testing.assert_array_equal(first.decisions, third.decisions)
    other = run_online(POBGA(lmo, 50, random_state=8), objectives, random_state=0)
    assert not np.array_equal(first.decisions, other.decisions)


def test_pobga_accepts_generator_random_state(play):
    lmo = BoxLMO(n_features=2)
    a = POBGA(lmo, 20, block_size=2, random_state=np.random.default_rng(0))
    b = POBGA(lmo, 20, block_size=2, random_state=np.random.default_rng(0))
    da, _ = play(a, lambda t, q: np.ones(2))
    db, _ = play(b, lambda t, q: np.ones(2))
    np.testing.assert_array_equal(da, db)


def test_pobga_protocol_order_is_enforced():
    learner = POBGA(BoxLMO(n_features=2), 2, block_size=1)
    with pytest.raises(RuntimeError, match="before decide"):
        learner.query_point()
    x = learner.decide()
    x[0] = 10.0  # a copy: the learner's state is untouched
    with pytest.raises(RuntimeError, match="query_point"):
        learner.decide()
    with pytest.raises(RuntimeError, match="query_point"):
        learner.update(np.ones(2))
    learner.query_point()
    with pytest.raises(RuntimeError, match="update"):
        learner.query_point()
    with pytest.raises(ValueError, match="gradient"):
        learner.update(np.ones(3))
    with pytest.raises(ValueError, match="gradient"):
        learner.update(np.array([np.nan, 1.0]))
    learner.update(np.ones(2))
    assert learner.n_rounds_ == 1
    learner.decide()
    learner.query_point()
    learner.update(np.ones(2))
    with pytest.raises(RuntimeError, match="horizon=2"):
        learner.decide()
    np.testing.assert_array_equal(learner.reset().decide(), np.zeros(2))


def test_pobga_gradient_not_modified():
    learner = POBGA(BoxLMO(n_features=2), 4, block_size=1)
    g = np.array([1.0, 2.0])
    learner.decide()
    learner.query_point()
    learner.update(g)
    np.testing.assert_array_equal(g, [1.0, 2.0])


@pytest.mark.parametrize(
    "params, name",
    [
        ({"horizon": 0}, "horizon"),
        ({"horizon": 2.5}, "horizon"),
        ({"block_size": 0}, r"'block_size' .* \{'sqrt'\} or an int in the range"),
        ({"block_size": 11}, "'block_size' .* at most horizon=10; got 11"),
        ({"block_size": "log"}, r"'block_size' .* \{'sqrt'\} or an int in the range"),
        ({"block_size": 2.0}, r"'block_size' .* \{'sqrt'\} or an int in the range"),
        ({"preset": "fast"}, "preset"),
        ({"eta0": -1.0}, "eta0"),
        ({"eta0": np.inf}, "eta0"),
        ({"eps": 0.0}, "eps"),
        ({"radius": -1.0}, "radius"),
        ({"grad_bound": 0.0}, "grad_bound"),
        ({"boosting": "yes"}, "boosting"),
        ({"preset": "theory"}, "grad_bound"),
        ({"lmo": "box"}, "lmo"),
        ({"lmo": CappedSimplexLMO()}, "n_features"),
        ({"random_state": "seed"}, "random_state|seed"),
    ],
)
def test_pobga_bad_parameters_raise_value_error(params, name):
    kwargs = {"lmo": BoxLMO(n_features=2), "horizon": 10, **params}
    learner = POBGA(**kwargs)  # __init__ only stores
    with pytest.raises(ValueError, match=name):
        learner.decide()


def test_pobga_params_clone_and_repr():
    lmo = BoxLMO(n_features=2)
    learner = POBGA(lmo, 100, block_size=5, random_state=3)
    params = learner.get_params()
    assert params["block_size"] == 5 and params["horizon"] == 100
    assert params["lmo"] is lmo
    cloned = clone(learner)
    assert cloned.get_params()["block_size"] == 5
    assert "block_size=5" in repr(learner) and "preset" not in repr(learner)
    learner.set_params(block_size=10)
    assert learner.reset().block_size_ == 10
    with pytest.raises(ValueError, match="Invalid parameter"):
        learner.set_params(blocks=3)


def _loglog_slope(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


@pytest.mark.slow
def test_pobga_regret_and_lmo_slopes_on_nqp():
    # The benchmark (note 002 P1, n=25, m=15, i.i.d. adversary). The
    # (1-1/e)-regret is negative there (the learners beat 1 - 1/e), so the
    # slope is measured on the 1-regret; POBGA's (1-1/e)-regret must still
    # beat Mono-FW's with fewer LMO calls.
    from skcgm.datasets import make_online_nqp
    from skcgm.online import MonoFW, alpha_regret

    horizons = [1000, 3000, 10000]
    regrets, lmo_calls = [], []
    for T in horizons:
        lmo, objectives = make_online_nqp(25, 15, T, random_state=0)
        result = run_online(POBGA(lmo, T, random_state=0), objectives, random_state=0)
        regrets.append(alpha_regret(result.rewards, objectives, lmo, alpha=1.0)[-1])
        lmo_calls.append(result.n_lmo_calls)
    assert min(regrets) > 0
    assert _loglog_slope(horizons, regrets) <= 0.8
    # O(T) LMO calls (Theorem 1); on this stream they grow slower than T.
    assert _loglog_slope(horizons, lmo_calls) <= 1.1
    assert all(calls <= T for calls, T in zip(lmo_calls, horizons))

    mono = run_online(MonoFW(lmo, T, random_state=0), objectives, random_state=0)
    assert mono.n_lmo_calls >= lmo_calls[-1]
    pobga_regret = alpha_regret(result.rewards, objectives, lmo)[-1]
    assert pobga_regret < alpha_regret(mono.rewards, objectives, lmo)[-1]


def test_pobga_lmo_calls_per_projection_do_not_grow_with_the_horizon(make_objectives):
    # User guide, "Blocks, counts and presets": a block's squared displacement
    # D_m shrinks like T^(-1/2), as eps does, so D_m / eps and the LMO calls
    # of a projection stay put, and the total grows like sqrt(T), not like the
    # O(T) of eq. 15's worst case (which would give 4x more per projection
    # over this 16x range of T).
    lmo = CappedSimplexLMO(2.0, n_features=5)
    per_projection, ratios = [], []
    for T in (400, 6400):
        learner = POBGA(lmo, T, random_state=0)
        result = run_online(learner, make_objectives(5, T, noise=0.1), random_state=0)
        assert result.n_projections == math.isqrt(T)
        assert sum(learner.history_["lmo_calls"]) == result.n_lmo_calls
        per_projection.append(result.n_lmo_calls / result.n_projections)
        ratios.append(np.median(learner.history_["dist2"]) / learner.eps_)
    assert ratios[1] == pytest.approx(ratios[0], rel=0.1)
    assert 1 / 1.5 <= per_projection[1] / per_projection[0] <= 1.5


def test_pobga_theory_preset_plays_zero_while_R2_is_below_3_eps(make_objectives):
    # R^2 <= 3 eps = 1215 R^2 / sqrt(T) for T <= 1215^2: the Frank-Wolfe
    # routine of Algorithm 4 returns x = 0 at its first closeness test, after
    # one LMO call, in every block (user guide, "Blocks, counts and presets").
    lmo = BoxLMO(n_features=3)
    T = 2500
    learner, result = _run_theory_preset(lmo, make_objectives(3, T, noise=0.1))
    assert lmo.radius**2 <= 3 * learner.eps_
    np.testing.assert_array_equal(result.decisions, 0.0)
    assert result.n_lmo_calls <= result.n_projections == 50


# --------------------------------------------------------------------------
# Issue 16: every block ends within its LMO cap


def test_pobga_gradients_growing_after_the_first_block_end_within_the_cap(budget_lmo):
    # The infeasible projection stepped by 2 eps / ||x0 - y0||^2 ~ 1e-9 of the
    # distance: still running after 60 s (bound (4) ~ 1e14 LMO calls).
    lmo = budget_lmo(BoxLMO(n_features=1), budget=10_000)
    learner = POBGA(lmo, horizon=100, random_state=0)
    for t in range(100):
        x = learner.decide()
        assert lmo.contains(x) and np.isfinite(x).all()
        learner.query_point()
        learner.update(np.array([-0.01 if t < 10 else -100.0]))
    assert max(learner.history_["lmo_calls"]) <= learner.max_lmo_calls_
    assert set(learner.history_["status"]) == {"ok"}
    # The last gradients push below the box: the decision is its corner 0.
    np.testing.assert_array_equal(x, [0.0])


def test_pobga_loose_radius_and_small_eps_end_within_the_cap(budget_lmo):
    lmo = budget_lmo(BoxLMO(n_features=1), budget=10_000)
    learner = POBGA(lmo, 4, block_size=2, eps=1e-3, radius=100.0, random_state=0)
    decisions = []
    for g in (1.0, 2.0, 1.0, 1.0):
        decisions.append(learner.decide())
        learner.query_point()
        learner.update(np.array([g]))
    assert learner.history_["status"] == ["ok", "ok"]
    assert learner.history_["lmo_calls"][0] <= 2
    np.testing.assert_array_equal(decisions[2], [1.0])


def test_pobga_max_lmo_calls_caps_a_block_and_warns(budget_lmo):
    # A face-interior target and a tiny eps: Frank-Wolfe's gap decays like
    # 1/k, far from eps within 5 calls.
    lmo = budget_lmo(CappedSimplexLMO(n_features=4), budget=10_000)
    learner = POBGA(lmo, 1, eta0=1.0, eps=1e-12, max_lmo_calls=5)
    learner.decide()
    learner.query_point()
    with pytest.warns(ConvergenceWarning, match="max_lmo_calls=5"):
        learner.update(np.array([0.6, 0.5, 0.4, -1.0]))
    assert learner.history_["status"] == ["max_lmo_calls"]
    assert learner.n_lmo_calls_ == 5 == lmo.n_calls


def test_pobga_default_max_lmo_calls():
    learner = POBGA(BoxLMO(n_features=1), horizon=10_000).reset()
    assert (learner.block_size_, learner.max_lmo_calls_) == (100, 1000)
    learner = POBGA(BoxLMO(n_features=1), horizon=10**6).reset()
    assert (learner.block_size_, learner.max_lmo_calls_) == (1000, 10_000)
