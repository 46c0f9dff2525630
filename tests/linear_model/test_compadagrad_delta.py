"""CompAdaGradClassifier's damping ``delta`` down to float64's rounding.

Issue 38: ``delta=1e-300``, ``alpha=0`` and a subspace grew ``coef_`` to
about 1e281, once with ``best_loss_`` inf, without an error. The statistics
of the preconditioner are known only to rounding, and the gradient's
component in the directions they cannot resolve is rounding noise; divided
by a tiny ``delta`` it became the step. The metric now never falls below the
rounding level of its statistics, so a ``delta`` below that level acts as
the level (``skcgm.optim.compadagrad._step``), and ``delta`` is accepted in
[2**-1022, 2**1022], the normal float64 numbers whose reciprocal is normal.

Oracles: the fit at a small ``delta`` above the rounding level (1e-8), the
fits at other ``delta`` below it (identical), and AdaGrad's step bound.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from skcgm.datasets import make_correlated_classification
from skcgm.linear_model import CompAdaGradClassifier

_DELTA_MIN, _DELTA_MAX = 2.0**-1022, 2.0**1022
_VARIANTS = ["adaptive", "balanced", "theory", "paper"]
_RANGE_ERROR = re.escape(
    "The 'delta' parameter of CompAdaGradClassifier must be a float in the "
    "range [2.2250738585072014e-308, 4.49423283715579e+307]."
)


def _issue_data(dtype=np.float64):
    """Correlated features (10 redundant of 20): the issue's setting."""
    X, y = make_classification(
        n_samples=200,
        n_features=20,
        n_informative=3,
        n_redundant=10,
        random_state=0,
    )
    return X.astype(dtype), y


def _fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return CompAdaGradClassifier(random_state=0, **params).fit(X, y)


@pytest.mark.parametrize("early_stopping", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("variant", _VARIANTS)
def test_tiny_delta_with_a_subspace_fits_as_a_small_delta(
    variant, dtype, early_stopping
):
    # The issue: coef_ of 1e281 and best_loss_ inf in float64 ('paper':
    # 1e130), SGDClassifier's overflow error in float32. delta=1e-8 is above
    # the rounding level of these statistics, so it is the undamped method
    # up to a damping of 1e-8: the fits agree to about that.
    X, y = _issue_data(dtype)
    params = dict(
        alpha=0.0,
        n_components=2,
        variant=variant,
        early_stopping=early_stopping,
        max_iter=20,
    )
    tiny = _fit(X, y, delta=1e-300, **params)
    small = _fit(X, y, delta=1e-8, **params)
    assert np.abs(tiny.coef_).max() < 1.0
    assert_allclose(tiny.coef_, small.coef_, rtol=0, atol=1e-6)
    assert_allclose(tiny.intercept_, small.intercept_, rtol=0, atol=1e-6)
    if early_stopping:
        assert np.isfinite(tiny.validation_scores_).all()
        assert_allclose(tiny.best_validation_score_, small.best_validation_score_)
    else:
        assert np.isfinite(tiny.best_loss_).all()
        assert_allclose(tiny.best_loss_, small.best_loss_, rtol=1e-6)


@pytest.mark.parametrize("n_components", [2, 20])  # a subspace, k = n (full)
@pytest.mark.parametrize("variant", _VARIANTS)
def test_deltas_below_the_rounding_level_give_the_same_fit(variant, n_components):
    # Below the level, delta only changes the rounding noise the floor
    # replaces: the smallest accepted delta, 1e-300 and 1e-30 give the same
    # coefficients, bit for bit (they were 1e281, 1e281 and 1e12).
    X, y = _issue_data()
    params = dict(alpha=0.0, n_components=n_components, variant=variant, max_iter=5)
    fits = [_fit(X, y, delta=delta, **params) for delta in (_DELTA_MIN, 1e-300, 1e-30)]
    for fit in fits[1:]:
        assert_array_equal(fit.coef_, fits[0].coef_)
        assert_array_equal(fit.intercept_, fits[0].intercept_)
    assert np.abs(fits[0].coef_).max() < 1.0


@pytest.mark.parametrize(
    "delta",
    [
        5e-324,  # the smallest subnormal: 1 / delta overflows
        2.0**-1023,
        np.nextafter(_DELTA_MAX, np.inf),
        np.finfo(np.float64).max,
        0.0,
        np.inf,
    ],
)
def test_delta_outside_the_normal_range_is_refused_naming_it(delta):
    # A subnormal delta made the diagonal step 0 * inf = NaN on a coordinate
    # without gradient, and so SGDClassifier's overflow error, which blames
    # the data; it is now refused before any work, naming delta.
    X, y = _issue_data()
    model = CompAdaGradClassifier(delta=delta, n_components=0)
    with pytest.raises(InvalidParameterError, match=_RANGE_ERROR):
        model.fit(X, y)
    with pytest.raises(InvalidParameterError, match=_RANGE_ERROR):
        model.partial_fit(X, y, classes=[0, 1])


@pytest.mark.parametrize(
    "penalty, alpha", [("l2", 0.0), (None, 0.0), ("l1", 1e-4), ("elasticnet", 1e-4)]
)
@pytest.mark.parametrize("n_components", [0, 2, 20])
@pytest.mark.parametrize("delta", [_DELTA_MIN, _DELTA_MAX])
def test_delta_at_its_bounds_gives_a_bounded_fit(delta, n_components, penalty, alpha):
    # With alpha=0 nothing but delta damped the unresolved directions (a
    # ridge term eta0 * alpha does, which is why the issue needed alpha=0).
    X, y = _issue_data()
    model = _fit(
        X,
        y,
        delta=delta,
        n_components=n_components,
        penalty=penalty,
        alpha=alpha,
        max_iter=5,
    )
    assert np.isfinite(model.best_loss_).all()
    assert np.isfinite(model.intercept_).all()
    # AdaGrad's step bound (see the property below).
    bound = model.eta0 * (model.t_ - 1) * model.projection_.n_padded_
    assert np.abs(model.coef_).max() <= bound


def _delta():
    """Any float64 from 0 up: inside [2**-1022, 2**1022] and outside."""
    return st.one_of(
        st.sampled_from(
            [
                5e-324,
                _DELTA_MIN,
                1e-300,
                1e-30,
                1e-12,
                1e-2,
                1.0,
                1e300,
                _DELTA_MAX,
                np.finfo(np.float64).max,
            ]
        ),
        st.floats(min_value=0.0, max_value=np.finfo(np.float64).max),
    )


def _data(draw, n_features, kind, projection):
    rng = np.random.RandomState(draw(st.integers(0, 2**16)))
    if kind == "classification":
        X, y = make_classification(
            n_samples=40,
            n_features=n_features,
            n_informative=2,
            n_redundant=min(2, n_features - 3),
            random_state=rng,
        )
    elif kind == "correlated":
        X, y = make_correlated_classification(
            40, n_features, n_informative=2, random_state=rng
        )
    elif kind == "half_zero":
        # Coordinates without gradient for several steps.
        X = rng.standard_normal((40, n_features)) * (rng.rand(40, n_features) < 0.5)
        y = rng.randint(0, 2, 40)
    else:
        # Rows in the subspace of the fit's own projection: P_perp g is
        # rounding noise, some entries exactly 0 (1e125 steps before).
        Pi = projection.components_ / projection.scale_
        Z = rng.standard_normal((40, Pi.shape[0]))
        X = Z @ Pi
        y = (Z[:, 0] > 0).astype(int)
    if np.unique(y).shape[0] < 2:
        y[:2] = [0, 1]
    scale = draw(st.sampled_from([1e-4, 1.0, 1e4]))
    return (X * scale).astype(draw(st.sampled_from([np.float64, np.float32]))), y


def test_any_delta_gives_a_bounded_fit_or_an_error_naming_delta(property_settings):
    # Whatever delta, alpha (0 included) and subspace (none, part, all):
    # either InvalidParameterError naming delta's range, before any work, or
    # a fit with finite coefficients, intercepts and training objective (or
    # validation scores), bounded as AdaGrad's steps are: a coordinate moves
    # by at most eta0 per step in exact arithmetic, eta0 sqrt(k) at the
    # subspace rate of 'balanced' and 'adaptive'; eta0 n_padded per step
    # leaves room for the projections. The issue's fits exceeded it by 1e278.
    @given(data=st.data())
    def check(data):
        draw = data.draw
        kind = draw(
            st.sampled_from(["classification", "correlated", "half_zero", "subspace"])
        )
        # Rows in a subspace need n_features = n_padded (no zero padding).
        n_features = draw(
            st.sampled_from([4, 8, 16]) if kind == "subspace" else st.integers(3, 12)
        )
        components = draw(
            st.sampled_from(
                ["subspace"] if kind == "subspace" else ["diagonal", "subspace", "full"]
            )
        )
        n_components = {
            "diagonal": 0,
            "subspace": draw(st.integers(1, n_features - 1)),
            "full": n_features,
        }[components]
        delta = draw(_delta())
        params = dict(
            delta=delta,
            alpha=draw(st.sampled_from([0.0, 1e-4, 1.0])),
            penalty=draw(st.sampled_from(["l2", None])),
            n_components=n_components,
            variant=draw(st.sampled_from(_VARIANTS)),
            eta0=draw(st.sampled_from([0.01, 0.1, 1.0])),
            batch_size=draw(st.sampled_from([1, 8])),
            early_stopping=draw(st.booleans()),
            max_iter=3,
            random_state=0,
        )
        projection = None
        if kind == "subspace":
            # The projection a fit with these parameters draws (it depends on
            # random_state, n_components and the variant's scaling only).
            probe = dict(params, delta=1e-2, max_iter=1, early_stopping=False)
            X_probe = np.eye(n_features)[np.arange(4) % n_features]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                probe = CompAdaGradClassifier(**probe).fit(X_probe, [0, 1, 0, 1])
            projection = probe.projection_
        X, y = _data(draw, n_features, kind, projection)
        model = CompAdaGradClassifier(**params)
        if not _DELTA_MIN <= delta <= _DELTA_MAX:
            with pytest.raises(InvalidParameterError, match=_RANGE_ERROR):
                model.fit(X, y)
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        if projection is not None:
            assert_array_equal(model.projection_.components_, projection.components_)
        assert np.isfinite(model.coef_).all() and np.isfinite(model.intercept_).all()
        if params["early_stopping"]:
            assert np.isfinite(model.best_validation_score_).all()
        else:
            assert np.isfinite(model.best_loss_).all()
        n_padded = model.projection_.n_padded_
        bound = params["eta0"] * (model.t_ - 1) * n_padded
        assert np.abs(model.coef_).max() <= bound

    property_settings(check)()
