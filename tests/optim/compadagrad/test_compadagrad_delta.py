"""The CompAdaGrad step with a damping below float64's rounding level.

Issue 38: with a tiny ``delta`` a step divided rounding noise by it. In the
subspace, the gradient's component along an eigenvector of :math:`S` whose
eigenvalue is rounding noise (:math:`\\mu_j \\le k \\epsilon \\mu_{\\max}`)
moved the iterate by up to :math:`\\eta (k \\epsilon \\mu_{\\max})^{1/2} /
\\delta` (1e281 at ``delta=1e-300``); in the complement, on gradients lying
in the subspace, :math:`P_\\perp g` is pure rounding, some entries exactly 0,
and the weighted projection of eqs. (14)-(15) moved it by 1e125. The metric
now never falls below the rounding level of its statistics.

Oracles: the complement of gradients in the subspace stays where it was (up
to AdaGrad's bound on rounding-noise steps); AdaGrad's per-step bound; the
same steps in the compiled epoch and in NumPy.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import re
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.utils._param_validation import InvalidParameterError

from skcgm.linear_model import CompAdaGradClassifier
from skcgm.optim import compadagrad_step, init_compadagrad_state
from skcgm.optim.compadagrad import _epochs as _compadagrad_epochs
from skcgm.oracles import SRHT

_DELTA_MIN, _DELTA_MAX = 2.0**-1022, 2.0**1022
_VARIANTS = ["adaptive", "balanced", "theory", "paper"]


def _projection(n_components, n_features, variant, seed=0):
    scaling = "srht" if variant == "paper" else "orthonormal"
    return SRHT(n_components, scaling=scaling, random_state=seed).fit(n_features)


def _orthonormal_rows(projection):
    return projection.components_ / projection.scale_


@pytest.mark.parametrize("delta", [_DELTA_MIN, 1e-300, 1e-30, 1e-2])
@pytest.mark.parametrize("variant", _VARIANTS)
@pytest.mark.parametrize("n_padded, n_components", [(16, 4), (64, 8), (256, 32)])
def test_gradients_in_the_subspace_leave_the_complement_in_place(
    n_padded, n_components, variant, delta
):
    # In exact arithmetic P_perp g = 0, so s = 0, and P_perp x never moves.
    # In float64 P_perp g is rounding, its entries up to n eps ||g||: at the
    # floor n eps (tr G_t)^{1/2} of D a step moves P_perp x by at most eta
    # ||g_t|| / (sum_{s <= t} ||g_s||^2)^{1/2}, summing to 2 eta sqrt(T).
    # Below the floor the projection of eqs. (14)-(15), with entries of D
    # 1e-300 next to 1e-16, moved it by up to 1e250.
    eta, n_steps = 0.1, 200
    projection = _projection(n_components, n_padded, variant)
    Pi = _orthonormal_rows(projection)
    P_perp = np.eye(n_padded) - Pi.T @ Pi
    rng = np.random.RandomState(0)
    x0 = rng.standard_normal(n_padded)
    state = init_compadagrad_state(projection, coef=x0)
    for _ in range(n_steps):
        g = rng.standard_normal(n_components) @ Pi
        compadagrad_step(
            state, g, projection, eta=eta, alpha=0.0, delta=delta, variant=variant
        )
    drift = np.abs(P_perp @ (state.coef - x0)).max()
    assert drift <= 2 * eta * np.sqrt(n_steps)
    # The subspace part moved as AdaGrad does: at most eta per step and
    # direction, times the rate sqrt(k) of 'balanced' and 'adaptive'.
    moved = np.abs(Pi @ (state.coef - x0)).max()
    assert 0 < moved <= eta * n_steps * np.sqrt(n_components)


@pytest.mark.parametrize("variant", _VARIANTS)
def test_unresolved_directions_of_the_subspace_move_at_most_eta(variant):
    # Rank-one gradients: S has k - 1 zero eigenvalues, and the gradient's
    # components along their eigenvectors are rounding noise. At delta=1e-300
    # the first step moved them by 1e280 ('paper': 1e129); at the floor they
    # move by at most eta (times the subspace rate), as the one resolved
    # direction does.
    eta, k = 0.5, 8
    projection = _projection(k, 32, variant)
    Pi = _orthonormal_rows(projection)
    rng = np.random.RandomState(0)
    direction = rng.standard_normal(32)
    state = init_compadagrad_state(projection)
    for _ in range(20):
        before = state.coef.copy()
        g = direction * rng.standard_normal()
        compadagrad_step(
            state, g, projection, eta=eta, alpha=0.0, delta=1e-300, variant=variant
        )
        step = Pi @ (state.coef - before)
        along = Pi @ direction
        along /= np.linalg.norm(along)
        across = step - (step @ along) * along
        assert np.linalg.norm(step) <= eta * np.sqrt(k)
        assert np.linalg.norm(across) <= eta * np.sqrt(k)


@pytest.mark.parametrize(
    "delta",
    [5e-324, 2.0**-1023, np.nextafter(_DELTA_MAX, np.inf), np.finfo(np.float64).max],
)
def test_step_refuses_a_delta_outside_the_normal_range(delta):
    projection = _projection(2, 8, "theory")
    state = init_compadagrad_state(projection)
    message = re.escape(
        "The 'delta' parameter of compadagrad_step must be a float in the range "
        "[2.2250738585072014e-308, 4.49423283715579e+307]."
    )
    with pytest.raises(InvalidParameterError, match=message):
        compadagrad_step(state, np.ones(8), projection, eta=0.1, alpha=0.0, delta=delta)
    assert state.n_updates == 0


def _gradients(draw, n_features, projection, n_steps):
    """Gradients that leave directions or coordinates without information."""
    rng = np.random.RandomState(draw(st.integers(0, 2**16)))
    n = projection.n_padded_
    kind = draw(st.sampled_from(["gauss", "subspace", "sparse", "rank_one", "scales"]))
    scale = draw(st.sampled_from([1e-20, 1.0, 1e20]))
    direction = rng.standard_normal(n_features)
    Pi = _orthonormal_rows(projection)
    grads = []
    for _ in range(n_steps):
        if kind == "subspace" and Pi.shape[0]:
            g = rng.standard_normal(Pi.shape[0]) @ Pi  # padded: n entries
        elif kind == "sparse":
            g = rng.standard_normal(n_features) * (rng.rand(n_features) < 0.3)
        elif kind == "rank_one":
            g = direction * rng.standard_normal()
        elif kind == "scales":
            g = rng.standard_normal(n_features) * 10.0 ** rng.uniform(-8, 8, n_features)
        else:
            g = rng.standard_normal(n_features)
        grads.append(g * scale)
    assert all(g.shape[0] in (n_features, n) for g in grads)
    return grads


def test_any_accepted_delta_gives_bounded_finite_steps(property_settings):
    # Every step of every variant, subspace size (none, part, all) and
    # penalty is finite and moves a coordinate by at most eta n: AdaGrad's
    # bound is eta per step and direction (eta sqrt(k) at the subspace rate
    # of 'balanced' and 'adaptive'), and n leaves room for the projections.
    # At delta=1e-300 steps of 1e125 to 1e285 broke it.
    @given(data=st.data())
    def check(data):
        draw = data.draw
        n_features = draw(st.integers(2, 40))
        n_padded = 1 << (n_features - 1).bit_length()
        n_components = draw(
            st.sampled_from([0, n_padded, draw(st.integers(1, n_padded))])
        )
        variant = draw(st.sampled_from(_VARIANTS))
        projection = _projection(n_components, n_features, variant)
        delta = draw(
            st.one_of(
                st.sampled_from(
                    [_DELTA_MIN, 1e-300, 1e-30, 1e-8, 1e-2, 1.0, _DELTA_MAX]
                ),
                st.floats(min_value=_DELTA_MIN, max_value=_DELTA_MAX),
            )
        )
        penalty, alpha = draw(
            st.sampled_from([("l2", 0.0), ("l2", 0.3), (None, 0.0), ("l1", 1e-3)])
        )
        if penalty == "l1" and variant == "paper" and delta > 1e20:
            # The known limit of the l1 step (user guide, "The damping and
            # rounding"): 'paper' puts delta inside the root, its LASSO metric
            # is then sqrt(delta) on the subspace and delta on the complement,
            # singular to working precision far above the gradients' scale.
            return
        eta = draw(st.sampled_from([0.01, 1.0]))
        state = init_compadagrad_state(projection)
        for g in _gradients(draw, n_features, projection, n_steps=12):
            before = state.coef.copy()
            compadagrad_step(
                state,
                g,
                projection,
                eta=eta,
                alpha=alpha,
                penalty=penalty,
                delta=delta,
                variant=variant,
            )
            assert np.isfinite(state.coef).all()
            assert np.abs(state.coef - before).max() <= eta * n_padded

    property_settings(check)()


@pytest.mark.parametrize("delta", [_DELTA_MIN, 1e-300])
@pytest.mark.parametrize("variant", _VARIANTS)
def test_compiled_epoch_floors_the_metric_as_the_python_step(variant, delta):
    # The compiled epoch (dense rows, l2, 0 < k < n) has the same floors: the
    # same fit, to rounding, as the NumPy step, and a bounded one.
    rng = np.random.RandomState(0)
    X = rng.standard_normal((120, 20))
    X[:, 10:] = X[:, :10] @ rng.standard_normal((10, 10))  # correlated
    y = (X[:, 0] + 0.3 * rng.standard_normal(120) > 0).astype(int)
    params = dict(
        delta=delta,
        alpha=0.0,
        n_components=3,
        variant=variant,
        max_iter=3,
        tol=None,
        random_state=0,
    )
    compiled = CompAdaGradClassifier(**params).fit(X, y)
    with mock.patch.object(
        _compadagrad_epochs._CompiledEpoch, "build", return_value=None
    ):
        python = CompAdaGradClassifier(**params).fit(X, y)
    # At the floor a direction holding only rounding noise (about eps ||p||,
    # different in the two paths: transforms against products with Pi)
    # moves by noise / (k eps mu_max)^{1/2}, about sqrt(eps) relative: the
    # paths agree to that, not to the 1e-12 of resolved steps.
    scale = np.abs(python.coef_).max()
    assert scale < 10.0
    assert_allclose(compiled.coef_, python.coef_, rtol=0, atol=1e-7 * scale)
    assert_allclose(compiled.intercept_, python.intercept_, rtol=0, atol=1e-7)
