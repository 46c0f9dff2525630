"""Tests of the baselines: OGA and OBGA against a hand-written projected
ascent, Meta-FW and Mono-FW counters, paths and convergence on linear
rewards, parameter validation."""

import math

import numpy as np
import pytest

from skcgm.online import OBGA, OGA, MetaFW, MonoFW, QuadraticObjective, run_online
from skcgm.oracles import ConvexHullLMO
from skcgm.oracles._lmo_sets import BoxLMO, CappedSimplexLMO

E = math.e


@pytest.mark.parametrize("Learner", [OGA, OBGA])
def test_projected_ascent_matches_reference(Learner, make_objectives, play):
    lmo = CappedSimplexLMO(radius=1.0, n_features=3)
    objectives = make_objectives(3, 40, seed=1)
    kwargs = {"random_state": 4} if Learner is OBGA else {}
    learner = Learner(lmo, 40, eta0=0.3, **kwargs)
    decisions, queries = play(learner, lambda t, q: objectives[t].grad(q))
    rng = np.random.RandomState(4)
    x = np.zeros(3)
    for t in range(40):
        np.testing.assert_allclose(decisions[t], x, atol=1e-12)
        if Learner is OBGA:
            z = math.log1p(rng.uniform() * (E - 1))
            g = (1 - 1 / E) * objectives[t].grad(z * x)
        else:
            g = objectives[t].grad(x)
        x = lmo.project(x + 0.3 * g)
    assert learner.n_projections_ == 40 and learner.n_lmo_calls_ == 0
    assert learner.n_grad_calls_ == 40


def test_oga_default_step_and_estimated_grad_bound(play):
    lmo = BoxLMO(n_features=2)
    learner = OGA(lmo, 100, grad_bound=2.0).reset()
    assert learner.eta0_ == pytest.approx(2 * math.sqrt(2) / (2.0 * 10))
    learner = OBGA(lmo, 100).reset()
    assert learner.eta0_ is None
    play(learner, lambda t, q: np.array([3.0, 4.0]))
    assert learner.grad_bound_ == 5.0
    assert learner.eta0_ == pytest.approx(2 * math.sqrt(2) / ((1 - 1 / E) * 5.0 * 10))


@pytest.mark.parametrize("Learner", [OGA, OBGA])
def test_projected_ascent_needs_project(Learner):
    lmo = ConvexHullLMO().fit(np.eye(3))
    with pytest.raises(ValueError, match="project"):
        Learner(lmo, 10).decide()


def test_meta_fw_ftpl_counters_and_path(make_objectives):
    lmo = BoxLMO(n_features=3)
    T = 16
    learner = MetaFW(lmo, T, random_state=0)
    objectives = make_objectives(3, T, seed=2)
    result = run_online(learner, objectives)
    K = 4
    assert learner.n_oracles_ == K
    assert result.n_grad_calls == K * T
    assert result.n_lmo_calls == lmo.n_calls_ == K * T
    assert result.n_projections == 0
    # The query points are the Frank-Wolfe path 0, v1/K, (v1+v2)/K, ...
    learner.reset()
    x = learner.decide()
    Q = learner.query_point()
    assert Q.shape == (K, 3)
    np.testing.assert_array_equal(Q[0], 0.0)
    v_last = K * (x - Q[-1])
    assert np.all(np.isin(v_last, [0.0, 1.0]))  # a vertex of the box


def test_meta_fw_uses_exact_gradients_in_run_online():
    class Recorder(QuadraticObjective):
        calls = []

        def grad(self, x):
            Recorder.calls.append("grad")
            return super().grad(x)

        def stochastic_grad(self, x, random_state=None):  # pragma: no cover
            raise AssertionError("Meta-FW must get exact gradients")

    f = Recorder(-np.eye(2), np.ones(2), noise=1.0)
    run_online(MetaFW(BoxLMO(n_features=2), 4, random_state=0), [f] * 4)
    assert len(Recorder.calls) == 4 * 2


def test_meta_fw_projection_oracles(play):
    lmo = BoxLMO(n_features=2)
    learner = MetaFW(lmo, 9, online_oracle="projection", eta0=0.5)
    decisions, _ = play(learner, lambda t, Q: np.tile([1.0, -1.0], (len(Q), 1)))
    assert learner.n_lmo_calls_ == 0 and learner.n_projections_ == 3 * 9
    np.testing.assert_allclose(decisions[-1], [1.0, 0.0])


@pytest.mark.parametrize("horizon, block_size", [(64, 8), (70, 8), (5, 5)])
def test_mono_fw_counters(horizon, block_size, make_objectives):
    lmo = CappedSimplexLMO(radius=1.0, n_features=3)
    learner = MonoFW(lmo, horizon, block_size=block_size, random_state=0)
    result = run_online(learner, make_objectives(3, horizon, noise=0.1), random_state=0)
    n_blocks = math.ceil(horizon / block_size)
    assert learner.n_blocks_ == n_blocks
    assert result.n_grad_calls == horizon
    assert result.n_lmo_calls == lmo.n_calls_ == block_size * n_blocks
    assert result.n_projections == 0


def test_mono_fw_default_block_size_and_lmo_calls_linear():
    learner = MonoFW(BoxLMO(n_features=2), 1000).reset()
    assert learner.block_size_ == round(1000**0.6)
    # K * ceil(T / K) <= T + K.
    assert learner.block_size_ * learner.n_blocks_ <= 1000 + learner.block_size_


def test_mono_fw_block_structure(play):
    # Constant decision over a block; each round queries a distinct x^(k)
    # of the block's path (a random permutation of k = 1..K).
    lmo = BoxLMO(n_features=4)
    K = 6
    learner = MonoFW(lmo, 3 * K, block_size=K, random_state=1)
    decisions, queries = play(learner, lambda t, q: np.ones(4) - q)
    for m in range(3):
        block = slice(m * K, (m + 1) * K)
        assert np.all(decisions[block] == decisions[m * K])
        # Sorted along the path, the K query points are 0 = x^(1), ...,
        # x^(K), each step a vertex of the box over K, and the decision is
        # x^(K+1): a permutation of the whole path.
        path = queries[block][np.argsort(queries[block].sum(axis=1), kind="stable")]
        path = np.vstack([path, decisions[m * K]])
        np.testing.assert_array_equal(path[0], 0.0)
        steps = K * np.diff(path, axis=0)
        np.testing.assert_allclose(steps, np.round(steps), atol=1e-9)
        assert np.all((np.round(steps) == 0) | (np.round(steps) == 1))


@pytest.mark.parametrize("Learner", [MonoFW, MetaFW])
def test_frank_wolfe_baselines_learn_linear_rewards(Learner):
    # f_t(x) = <c, x> on the capped simplex: the best point is e_argmax(c).
    lmo = CappedSimplexLMO(radius=1.0, n_features=3)
    c = np.array([0.2, 1.0, 0.5])
    f = QuadraticObjective(np.zeros((3, 3)), c)
    T = 400 if Learner is MonoFW else 100
    kwargs = {"block_size": 10} if Learner is MonoFW else {}
    result = run_online(Learner(lmo, T, random_state=0, **kwargs), [f] * T)
    np.testing.assert_allclose(result.decisions[-1], [0.0, 1.0, 0.0], atol=0.05)


def test_mono_fw_rho_schedule():
    learner = MonoFW(BoxLMO(n_features=2), 100, block_size=5).reset()
    np.testing.assert_allclose(
        learner._rho, [2 / (k + 3) ** (2 / 3) for k in range(1, 6)]
    )


@pytest.mark.parametrize(
    "Learner, params, name",
    [
        (OGA, {"horizon": 0}, "horizon"),
        (OGA, {"eta0": -1.0}, "eta0"),
        (OBGA, {"grad_bound": -1.0}, "grad_bound"),
        (OBGA, {"radius": 0.0}, "radius"),
        (MetaFW, {"n_oracles": 0}, "n_oracles"),
        (MetaFW, {"online_oracle": "rftl"}, "online_oracle"),
        (MetaFW, {"perturbation": -1.0}, "perturbation"),
        (MonoFW, {"block_size": 0}, "block_size"),
        (MonoFW, {"block_size": 11}, "block_size"),
        (MonoFW, {"perturbation": 0.0}, "perturbation"),
        (MonoFW, {"lmo": CappedSimplexLMO()}, "n_features"),
    ],
)
def test_baselines_bad_parameters(Learner, params, name):
    kwargs = {"lmo": BoxLMO(n_features=2), "horizon": 10, **params}
    with pytest.raises(ValueError, match=name):
        Learner(**kwargs).decide()


def _one_round(learner, scale):
    learner.decide()
    point = np.asarray(learner.query_point())
    learner.update(np.full(point.shape, scale))


@pytest.mark.parametrize(
    "make, names",
    [
        (lambda lmo: OGA(lmo, horizon=5, eta0=1e300), "eta0=1e+300 is too large"),
        (
            lambda lmo: MetaFW(lmo, horizon=5, online_oracle="projection", eta0=1e300),
            "eta0=1e+300 is too large",
        ),
        (
            lambda lmo: OBGA(lmo, horizon=5, grad_bound=1e-300),
            "from grad_bound=1e-300 is too large: pass a larger grad_bound, or eta0",
        ),
    ],
)
def test_an_overflowing_step_names_the_parameter_that_set_it(make, names):
    # Unit gradients: the step size, not the data, is out of scale, so the
    # message names the step's parameter and does not ask to scale the data.
    learner = make(BoxLMO(n_features=2))
    with pytest.raises(ValueError, match="ascent step eta0 \\* gradient") as error:
        _one_round(learner, 1.0)
    message = str(error.value)
    assert names in message
    assert "Input" not in message and "Scale the data" not in message


def test_a_first_gradient_too_small_for_the_later_ones_asks_for_grad_bound():
    # eta0 = 2 R / (G sqrt(T)) from a first gradient of 1e-200; a later one of
    # size 1 steps beyond the float range of the projection.
    learner = OGA(BoxLMO(n_features=2), horizon=5)
    _one_round(learner, 1e-200)
    with pytest.raises(ValueError, match="from the first gradient's size .* pass"):
        _one_round(learner, 1.0)
