"""Tests of the GLM loss objects: closed forms, bounds and overflow safety."""

import pickle
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from skcgm.oracles import LogisticLoss

_T = np.linspace(-30.0, 30.0, 601)


def _reference(t):
    """Direct formulas, accurate on moderate margins."""
    tail = np.exp(-np.abs(t))
    return np.log1p(np.exp(-t)), -1.0 / (1.0 + np.exp(t)), tail / (1.0 + tail) ** 2


def test_logistic_loss_matches_the_naive_formulas_on_moderate_margins():
    loss = LogisticLoss()
    value, first, second = _reference(_T)
    np.testing.assert_allclose(loss.value(_T), value, rtol=1e-12)
    np.testing.assert_allclose(loss.derivative(_T), first, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(loss.second_derivative(_T), second, rtol=1e-9)


def test_logistic_loss_derivatives_match_finite_differences():
    loss, h = LogisticLoss(), 1e-5
    t = np.linspace(-8.0, 8.0, 41)
    np.testing.assert_allclose(
        loss.derivative(t), (loss.value(t + h) - loss.value(t - h)) / (2 * h), atol=1e-9
    )
    np.testing.assert_allclose(
        loss.second_derivative(t),
        (loss.derivative(t + h) - loss.derivative(t - h)) / (2 * h),
        atol=1e-9,
    )
    np.testing.assert_allclose(
        loss.third_derivative(t),
        (loss.second_derivative(t + h) - loss.second_derivative(t - h)) / (2 * h),
        atol=1e-9,
    )


def test_logistic_derivative_ratio_closed_form():
    # f'^2 / f'' = e^{-t} and f' / sqrt(f'') = -e^{-t/2} (note 003, 1.1).
    loss = LogisticLoss()
    quotient = loss.derivative(_T) ** 2 / loss.second_derivative(_T)
    np.testing.assert_allclose(loss.derivative_ratio(_T), quotient, rtol=1e-8)
    np.testing.assert_allclose(loss.derivative_ratio(_T), np.exp(-_T), rtol=1e-15)
    root = loss.derivative(_T) / np.sqrt(loss.second_derivative(_T))
    np.testing.assert_allclose(loss.sqrt_derivative_ratio(_T), root, rtol=1e-8)


def test_logistic_bounds_on_second_and_third_derivatives():
    loss = LogisticLoss()
    t = np.linspace(-40.0, 40.0, 200001)
    assert np.all(loss.second_derivative(t) <= loss.second_derivative_bound)
    assert loss.second_derivative(0.0) == 0.25
    third = np.abs(loss.third_derivative(t))
    assert np.all(third <= loss.third_derivative_bound + 1e-15)
    # The bound 1/(6 sqrt 3) is attained (at sigma(t) = (3 - sqrt 3)/6).
    best = minimize_scalar(
        lambda s: -abs(loss.third_derivative(s)),
        bounds=(-5, 0),
        method="bounded",
        options={"xatol": 1e-12},
    )
    np.testing.assert_allclose(-best.fun, 1.0 / (6.0 * np.sqrt(3.0)), rtol=1e-10)
    np.testing.assert_allclose(loss.third_derivative_bound, 0.0962250448649376)


def test_logistic_loss_has_no_overflow_for_large_margins():
    loss = LogisticLoss()
    t = np.array([-1000.0, -745.0, -710.0, -50.0, 0.0, 50.0, 710.0, 745.0, 1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = loss.value(t)
        first = loss.derivative(t)
        second = loss.second_derivative(t)
        third = loss.third_derivative(t)
        root = loss.sqrt_derivative_ratio(t)
        ratio = loss.derivative_ratio(t)
    for array in (value, first, second, third, root):
        assert np.all(np.isfinite(array))
    np.testing.assert_allclose(value[[0, -1]], [1000.0, 0.0], atol=1e-300)
    np.testing.assert_allclose(first[[0, -1]], [-1.0, 0.0])
    assert np.all(second >= 0) and np.all(value >= 0)
    # e^{-t/2} is finite down to t = -1419; e^{-t} is inf below -709.78.
    np.testing.assert_allclose(root[0], -np.exp(500.0))
    assert np.all(np.isinf(ratio[:3])) and np.all(np.isfinite(ratio[3:]))


def test_logistic_loss_keeps_float32_and_scalars():
    loss = LogisticLoss()
    t = np.array([-2.0, 0.0, 3.0], dtype=np.float32)
    for method in ("value", "derivative", "second_derivative", "derivative_ratio"):
        assert getattr(loss, method)(t).dtype == np.float32
    assert np.ndim(loss.value(1.0)) == 0
    assert loss.value([0, 1]).dtype == np.float64  # integers become float64


def test_logistic_loss_is_picklable_and_equal():
    loss = LogisticLoss()
    assert pickle.loads(pickle.dumps(loss)) == loss
    assert repr(loss) == "LogisticLoss()"
    assert hash(loss) == hash(LogisticLoss())


@pytest.mark.parametrize("t", [-3.0, 0.5, 4.0])
def test_logistic_loss_is_the_log_loss_of_the_margin(t):
    # f(b w^T x) is the negative log-likelihood of label b under P(b=1) = sigma.
    p_positive = 1.0 / (1.0 + np.exp(-t))
    np.testing.assert_allclose(LogisticLoss().value(t), -np.log(p_positive))


def test_logistic_fused_terms_equal_the_separate_methods():
    # The solver's one-exponential path must agree with the public methods,
    # including both tails and the sign change at 0.
    loss = LogisticLoss()
    t = np.concatenate([_T, [-1000.0, -745.0, -1e-300, 0.0, 1e-300, 745.0, 1000.0]])
    value, first, second = loss._value_derivatives(t)
    np.testing.assert_allclose(value, loss.value(t), rtol=1e-15, atol=0)
    np.testing.assert_allclose(first, loss.derivative(t), rtol=1e-15, atol=1e-300)
    np.testing.assert_allclose(
        second, loss.second_derivative(t), rtol=1e-14, atol=1e-300
    )
    assert np.all(np.isfinite(value)) and np.all(np.isfinite(second))
