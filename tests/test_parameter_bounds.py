"""Every numeric parameter of every estimator and online learner at its bounds.

The bounds come from each class's ``_parameter_constraints`` (an interval's
closed ends, the nearest floats inside its open ends, and 1e300 and the
largest float where it is unbounded), so a new parameter or a changed
interval is covered without editing this module. Hypothesis picks which
parameters sit at which bound, on small data of moderate scale (the data's
own extremes are drawn by the estimators' property modules). Whatever it
draws, a fit either raises a ValueError or TypeError, or ends with finite
outputs; every message, errors and warnings alike, names only parameters the
class has (``name=value``), and the inputs are not modified.
"""

import math
import re
import warnings
from numbers import Integral

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import is_classifier, is_regressor

from skcgm.online import DPOBGA, OBGA, OGA, POBGA, MetaFW, MonoFW
from skcgm.oracles import BoxLMO
from skcgm.utils._sklearn_compat import Interval
from skcgm.utils.discovery import all_estimators

_FLOAT_MAX = float(np.finfo(np.float64).max)
# Parameters that multiply the work of a fit: their lower bounds are drawn,
# their upper ones capped at this many (an unbounded int has no largest value).
_WORK_CAP = 4
# The names a message may give besides the class's parameters: the data's.
_DATA_NAMES = {
    "n_samples",
    "n_features",
    "n_classes",
    "n_components_found",
    "shape",
    "dtype",
    "axis",
    "n_rows",
    "n_positive",
}
_ASSIGNMENT = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)=")


def _intervals(Class):
    """``{name: [Interval, ...]}`` of the numeric parameters of ``Class``."""
    out = {}
    for name, constraints in Class._parameter_constraints.items():
        intervals = [c for c in constraints if isinstance(c, Interval)]
        if intervals:
            out[name] = intervals
    return out


def _bound_values(interval):
    """The values at the ends of ``interval`` (inside it)."""
    left, right = interval.left, interval.right
    if issubclass(interval.type, Integral):
        low = (
            0 if left is None else int(left) + (interval.closed in ("right", "neither"))
        )
        values = [low, low + 1]
        if right is not None:
            high = int(right) - (interval.closed in ("left", "neither"))
            values += [high, high - 1]
        else:
            values.append(low + _WORK_CAP)
        return sorted({v for v in values if interval.__contains__(v)})
    values = []
    if left is None or left == -np.inf:
        values += [-1e300, -_FLOAT_MAX]
    elif interval.closed in ("left", "both"):
        values.append(float(left))
    else:
        values += [float(np.nextafter(left, np.inf)), float(left) + 1e-300]
    if right is None or right == np.inf:
        values += [1e300, _FLOAT_MAX]
        if right == np.inf and interval.closed in ("right", "both"):
            values.append(np.inf)
    elif interval.closed in ("right", "both"):
        values.append(float(right))
    else:
        values.append(float(np.nextafter(right, -np.inf)))
    return [v for v in values if interval.__contains__(v)]


def _bounded_params(draw, Class, fixed):
    """Some numeric parameters of ``Class`` at one of their bounds."""
    params = {}
    for name, intervals in _intervals(Class).items():
        if name in fixed or not draw(st.booleans()):
            continue
        params[name] = draw(
            st.sampled_from(_bound_values(draw(st.sampled_from(intervals))))
        )
    return params


def _assert_names_known(message, known):
    names = set(_ASSIGNMENT.findall(message)) - known - _DATA_NAMES
    assert not names, f"{sorted(names)} named in: {message}"


# Parameters held fixed: they set the work of the fit (not a numeric bound
# whose value the fit must survive), or their bound is checked on data of
# another shape than this module's (a number of rows to select).
_FIXED = {
    "SumOfMinKMeans": {"max_iter": 5, "n_init": 1, "n_clusters": 2},
    "GPCAClusterer": {"max_iter": 5, "n_init": 1, "n_clusters": 2, "subspace_dim": 1},
    "MixedLinearRegressor": {"max_iter": 5, "n_init": 1, "n_components": 2},
    "MixedMLPRegressor": {
        "max_iter": 5,
        "n_init": 1,
        "n_components": 2,
        "hidden_layer_sizes": 3,
        "inner_steps": 2,
    },
    "CompAdaGradClassifier": {"max_iter": 5},
    "LocalSensitivityLogistic": {"max_iter": 3, "max_inner_iter": 5},
    "KernelHerdingSampler": {"n_samples": 5, "n_components": 16},
}
_ESTIMATORS = [(name, Class) for name, Class in all_estimators()]


@st.composite
def _data(draw):
    n_samples = draw(st.integers(8, 24))
    n_features = draw(st.integers(1, 4))
    rng = np.random.RandomState(draw(st.integers(0, 2**16)))
    scale = draw(st.sampled_from([1e-6, 1.0, 1e6]))
    X = rng.standard_normal((n_samples, n_features)) * scale
    labels = np.array([0, 1, 2])[rng.randint(draw(st.integers(2, 3)), size=n_samples)]
    labels[:2] = [0, 1]
    return X, labels


def _outputs(model, X, y):
    """The fit's outputs a user reads, as float arrays."""
    if hasattr(model, "fit_resample"):
        X_res, y_res = model.fit_resample(X, y)
        return [X_res, model.score(X)]
    if is_classifier(model) or is_regressor(model):
        target = y if is_classifier(model) else y.astype(float) * X[:, 0]
        model.fit(X, target)
        out = [model.predict(X) if is_regressor(model) else model.decision_function(X)]
        out += [getattr(model, "coef_", 0.0), getattr(model, "intercept_", 0.0)]
        return out
    model.fit(X)
    out = [model.predict(X)]
    if hasattr(model, "transform"):
        out += [model.transform(X), getattr(model, "cluster_centers_", 0.0)]
    return out


@pytest.mark.parametrize("name, Class", _ESTIMATORS, ids=[n for n, _ in _ESTIMATORS])
def test_estimator_parameters_at_their_bounds(property_settings, name, Class):
    fixed = _FIXED.get(name, {})
    known = set(Class().get_params())

    @given(data=st.data())
    def check(data):
        X, y = data.draw(_data())
        params = dict(fixed, **_bounded_params(data.draw, Class, fixed))
        if "random_state" in known:
            params["random_state"] = 0
        model = Class(**params)
        X_before, y_before = X.copy(), y.copy()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                outputs = _outputs(model, X, y)
            except (ValueError, TypeError) as exc:
                assert type(exc) in (ValueError, TypeError), repr(exc)
                _assert_names_known(str(exc), known)
                outputs = []
        for warning in caught:
            _assert_names_known(str(warning.message), known)
        for output in outputs:
            assert np.all(np.isfinite(np.asarray(output, dtype=float))), params
        np.testing.assert_array_equal(X, X_before)
        np.testing.assert_array_equal(y, y_before)

    property_settings(check)()


_WEIGHTS = np.array([[0.5, 0.5], [0.5, 0.5]])
_LEARNERS = {
    "POBGA": lambda lmo, horizon, **kw: POBGA(lmo, horizon, random_state=0, **kw),
    "DPOBGA": lambda lmo, horizon, **kw: DPOBGA(
        lmo, horizon, _WEIGHTS, random_state=0, **kw
    ),
    "OGA": lambda lmo, horizon, **kw: OGA(lmo, horizon, **kw),
    "OBGA": lambda lmo, horizon, **kw: OBGA(lmo, horizon, random_state=0, **kw),
    "MetaFW": lambda lmo, horizon, **kw: MetaFW(lmo, horizon, random_state=0, **kw),
    "MonoFW": lambda lmo, horizon, **kw: MonoFW(lmo, horizon, random_state=0, **kw),
}
_LEARNER_CLASSES = {
    "POBGA": POBGA,
    "DPOBGA": DPOBGA,
    "OGA": OGA,
    "OBGA": OBGA,
    "MetaFW": MetaFW,
    "MonoFW": MonoFW,
}
# The horizon is the work of a run; block sizes and oracle counts at most it.
_LEARNER_FIXED = {"horizon", "max_lmo_calls", "n_oracles", "block_size"}


@pytest.mark.parametrize("name", list(_LEARNERS))
def test_online_learner_parameters_at_their_bounds(property_settings, name):
    Class = _LEARNER_CLASSES[name]
    known = set(_LEARNERS[name](BoxLMO(n_features=2), 3).get_params())

    @given(data=st.data())
    def check(data):
        horizon = data.draw(st.integers(1, 6))
        params = _bounded_params(data.draw, Class, _LEARNER_FIXED)
        n_features = data.draw(st.integers(1, 3))
        learner = _LEARNERS[name](BoxLMO(n_features=n_features), horizon, **params)
        rng = np.random.RandomState(data.draw(st.integers(0, 2**16)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                learner.reset()
                shape = learner._query_shape()
                for _ in range(horizon):
                    x = learner.decide()
                    assert np.all(np.isfinite(x)), params
                    learner.query_point()
                    learner.update(rng.uniform(-1.0, 1.0, size=shape))
            except (ValueError, TypeError) as exc:
                assert type(exc) in (ValueError, TypeError), repr(exc)
                _assert_names_known(str(exc), known)
        for warning in caught:
            _assert_names_known(str(warning.message), known)
        for attribute in ("eta0_", "grad_bound_", "eps_", "radius_"):
            value = getattr(learner, attribute, None)
            assert value is None or math.isfinite(value), (attribute, params)

    property_settings(check)()
