"""The compiled CompAdaGrad epoch against the Python step it replaces.

Oracle: the same fit run step by step through ``compadagrad_step``'s Python
code (``_CompiledEpoch.build`` patched to decline), which the tests of
``test_compadagrad.py`` check against brute-force diagonal and full-matrix
AdaGrad and the dense solve of eq. (9). The two must agree to rounding: the
compiled epoch multiplies by :math:`\\Pi` through Walsh-Hadamard transforms
instead of the explicit matrix, so the sums run in another order.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from skcgm.linear_model import CompAdaGradClassifier
from skcgm.linear_model._compadagrad import _LOSSES
from skcgm.optim.compadagrad import _epochs as _compadagrad_epochs
from skcgm.optim.compadagrad import _fast as _compadagrad_fast
from skcgm.optim.compadagrad._row_readers import _rows

RTOL = 1e-12


def _python_fit(estimator, X, y, **fit_params):
    with mock.patch.object(
        _compadagrad_epochs._CompiledEpoch, "build", return_value=None
    ):
        return estimator.fit(X, y, **fit_params)


def _assert_same_fit(compiled, python, rtol=RTOL):
    scale = np.abs(python.coef_).max()
    assert_allclose(compiled.coef_, python.coef_, rtol=0, atol=rtol * scale)
    assert_allclose(
        compiled.intercept_, python.intercept_, rtol=0, atol=rtol * max(scale, 1.0)
    )
    assert compiled.n_iter_ == python.n_iter_
    assert compiled.t_ == python.t_
    for a, b in zip(compiled.state_, python.state_):
        # Deterministic cost counts: the same steps, the same flops.
        assert a.n_updates == b.n_updates
        assert a.n_flops == b.n_flops
        # The statistics sum every step's squared gradients in another order
        # (BLAS against the compiled loops): rounding of about eps per step.
        top = np.abs(b.subspace_gram).max(initial=0.0)
        assert_allclose(a.subspace_gram, b.subspace_gram, rtol=0, atol=rtol * top)
        top = np.abs(b.complement_sq).max()
        assert_allclose(a.complement_sq, b.complement_sq, rtol=0, atol=rtol * top)
        assert_allclose(a.coef, b.coef, rtol=0, atol=rtol * np.abs(b.coef).max())


def _data(n_samples=300, n_features=40, seed=0, n_classes=2):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features))
    # Correlated columns, as CompAdaGrad's subspace is meant for.
    X[:, 1:] += 0.5 * X[:, :1]
    W = rng.standard_normal((n_features, n_classes))
    y = np.argmax(X @ W + 0.3 * rng.standard_normal((n_samples, n_classes)), axis=1)
    return X, y


def test_the_default_path_is_compiled():
    X, y = _data()
    model = CompAdaGradClassifier(n_components=8, max_iter=1, tol=None)
    rows = _rows(X)
    options = model.fit(X, y)._solver(1, None, X)._options(X)
    state = model.state_[0]
    assert (
        _compadagrad_epochs._CompiledEpoch.build(
            rows, state, model.projection_, options
        )
        is not None
    )
    # Not compiled: CSR rows, the l1 step and k = n_padded.
    assert (
        _compadagrad_epochs._CompiledEpoch.build(
            _rows(sp.csr_matrix(X)), state, model.projection_, options
        )
        is None
    )
    l1 = {**options, "penalty": "l1"}
    assert (
        _compadagrad_epochs._CompiledEpoch.build(rows, state, model.projection_, l1)
        is None
    )
    for k, compiled in ((0, True), (64, False)):
        other = CompAdaGradClassifier(n_components=k, max_iter=1, tol=None).fit(X, y)
        epoch = _compadagrad_epochs._CompiledEpoch.build(
            rows, other.state_[0], other.projection_, options
        )
        assert (epoch is not None) == compiled


@pytest.mark.parametrize(
    "loss", ["hinge", "log_loss", "modified_huber", "squared_hinge", "perceptron"]
)
@pytest.mark.parametrize("variant", ["adaptive", "balanced", "theory", "paper"])
@pytest.mark.parametrize("n_components", [0, 8])
def test_compiled_epochs_equal_the_python_steps(loss, variant, n_components):
    # n_components=0: diagonal AdaGrad, the variant then plays no part.
    X, y = _data()
    params = dict(
        loss=loss,
        variant=variant,
        n_components=n_components,
        batch_size=7,
        max_iter=4,
        tol=None,
        random_state=0,
    )
    compiled = CompAdaGradClassifier(**params).fit(X, y)
    python = _python_fit(CompAdaGradClassifier(**params), X, y)
    _assert_same_fit(compiled, python)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "params",
    [
        {"penalty": None},
        {"penalty": "elasticnet", "l1_ratio": 0.0},
        {"alpha": 0.0},
        {"fit_intercept": False},
        {"shuffle": False, "batch_size": 1},
        {"batch_size": 300},
        {"tol": 1e-3, "max_iter": 20},
        {"early_stopping": True, "max_iter": 20, "tol": 1e-3},
        {"class_weight": "balanced"},
        {"tau": 0.3, "delta": 0.1, "eta0": 0.5},
    ],
)
def test_compiled_options_equal_the_python_steps(params):
    X, y = _data(n_classes=3)
    params = {
        "n_components": 16,
        "max_iter": 3,
        "tol": None,
        "random_state": 1,
        **params,
    }
    weights = np.random.RandomState(0).uniform(0.5, 2.0, X.shape[0])
    compiled = CompAdaGradClassifier(**params).fit(X, y, sample_weight=weights)
    python = _python_fit(CompAdaGradClassifier(**params), X, y, sample_weight=weights)
    _assert_same_fit(compiled, python)


def test_float32_rows_and_partial_fit():
    X, y = _data()
    X32 = X.astype(np.float32)
    params = dict(n_components=8, max_iter=2, tol=None, random_state=0)
    compiled = CompAdaGradClassifier(**params).fit(X32, y)
    python = _python_fit(CompAdaGradClassifier(**params), X32, y)
    assert compiled.coef_.dtype == np.float32
    _assert_same_fit(compiled, python, rtol=1e-6)
    # partial_fit continues from the state either path left.
    for model in (compiled, python):
        with mock.patch.object(
            _compadagrad_epochs._CompiledEpoch,
            "build",
            wraps=_compadagrad_epochs._CompiledEpoch.build
            if model is compiled
            else (lambda *args: None),
        ):
            model.partial_fit(X, y)
    assert_allclose(compiled.state_[0].coef, python.state_[0].coef, rtol=0, atol=1e-6)


def test_compiled_equals_python_on_generated_problems(property_settings):
    @given(
        n_features=st.integers(2, 40),
        n_samples=st.integers(1, 60),
        k_fraction=st.floats(0.0, 1.0),
        batch_size=st.integers(1, 16),
        variant=st.sampled_from(["adaptive", "balanced", "theory", "paper"]),
        loss=st.sampled_from(["hinge", "log_loss", "modified_huber", "squared_hinge"]),
        seed=st.integers(0, 2**16),
    )
    def check(n_features, n_samples, k_fraction, batch_size, variant, loss, seed):
        rng = np.random.RandomState(seed)
        X = rng.standard_normal((n_samples, n_features)) * rng.uniform(0.1, 3.0)
        y = np.arange(n_samples) % 2
        rng.shuffle(y)
        if np.unique(y).shape[0] < 2:
            y = np.r_[y, 1 - y[:1]]
            X = np.r_[X, X[:1]]
        n_padded = 1 << (n_features - 1).bit_length()
        # 0 <= k < n_padded and k < n_features, so the compiled path applies.
        k = int(k_fraction * (min(n_padded, n_features) - 1))
        if k >= n_features:
            return
        params = dict(
            n_components=k,
            batch_size=batch_size,
            variant=variant,
            loss=loss,
            max_iter=2,
            tol=None,
            random_state=seed,
        )
        compiled = CompAdaGradClassifier(**params).fit(X, y)
        python = _python_fit(CompAdaGradClassifier(**params), X, y)
        _assert_same_fit(compiled, python, rtol=1e-10)
        # Finite results, and labels from the decision function.
        assert np.all(np.isfinite(compiled.coef_))
        assert_array_equal(
            compiled.predict(X),
            compiled.classes_[(compiled.decision_function(X) > 0).astype(int)],
        )

    property_settings(check)()


# The arguments of _compadagrad_fast.dense_epoch used below, by position.
_Y, _SIGNED, _WEIGHTS, _COEF, _INTERCEPT_ARGS = 2, 3, 4, 5, 27
_X, _ORDER, _ALPHA, _FIRST, _RESUME, _WORK = 0, 1, 18, 25, 26, 29
_BATCH = 24


def _hand_back(kernel, args, batch, loss):
    """What the compiled loop leaves when it hands ``batch`` back to Python.

    The batches from ``args``'s first one to ``batch`` run compiled (on the
    samples before ``batch``), then the batch's loss sums and gradient are
    computed as ``_run_epoch`` does.
    """
    args = list(args)
    start = batch * args[_BATCH]
    stop = min(start + args[_BATCH], args[_Y].shape[0])
    head = list(args)
    for i in (_Y, _SIGNED):
        head[i] = args[i][:start]
    if args[_WEIGHTS].shape[0]:
        head[_WEIGHTS] = args[_WEIGHTS][:start]
    status, reached = kernel(*head)
    assert (status, reached) == (_compadagrad_fast.DONE, batch)
    X, coef, scalars = args[_X], args[_COEF], args[_INTERCEPT_ARGS]
    order = args[_ORDER]
    rows = order[start:stop] if order.shape[0] else np.arange(start, stop)
    n_features = X.shape[1]
    z = args[_Y][start:stop] * (X[rows] @ coef[:n_features] + scalars[0])
    coeff = args[_SIGNED][start:stop] * loss.derivative(z)
    coeff *= 1.0 / z.shape[0]
    if args[_WEIGHTS].shape[0]:
        scalars[2] += float(args[_WEIGHTS][start:stop] @ loss.value(z))
        scalars[3] += z.shape[0] * (args[_ALPHA] * (0.5 * float(coef @ coef)))
    work = args[_WORK]
    work[: coef.shape[0]] = 0.0
    work[:n_features] = coeff @ X[rows]
    scalars[4] = coeff.sum()
    return _compadagrad_fast.PYTHON_STEP, batch


def test_a_step_the_compiled_loop_hands_back_is_taken_by_python(monkeypatch):
    # The compiled loop hands a step back when a factorization fails (a
    # metric singular to working precision, or LAPACK's dsyevd); simulated
    # here at every fifth mini-batch. The Python step takes it, then the
    # loop resumes with that mini-batch's intercept step and checks.
    X, y = _data()
    params = dict(n_components=8, batch_size=5, max_iter=2, tol=None, random_state=0)
    python = _python_fit(CompAdaGradClassifier(**params), X, y)
    real = _compadagrad_fast.dense_epoch
    calls = []

    def every_fifth(*args):
        first, resume = args[_FIRST], args[_RESUME]
        calls.append((first, resume))
        handed = first + 5 if resume else first - first % 5 + 4
        if handed * args[_BATCH] < args[_Y].shape[0]:
            return _hand_back(real, args, handed, _LOSSES["hinge"])
        return real(*args)

    monkeypatch.setattr(_compadagrad_fast, "dense_epoch", every_fifth)
    compiled = CompAdaGradClassifier(**params).fit(X, y)
    resumed = [first for first, resume in calls if resume]
    assert resumed[:3] == [4, 9, 14]
    assert len(resumed) == 2 * 12  # 60 mini-batches per epoch, 2 epochs
    _assert_same_fit(compiled, python)


def test_an_overflow_in_the_compiled_loop_raises_sgds_error():
    # Gradients of 1e200: their squares overflow the statistics at once;
    # both paths raise SGDClassifier's message at epoch 1.
    X, y = _data()
    X = X * 1e150
    params = dict(n_components=8, max_iter=2, tol=None, random_state=0, eta0=1e5)
    messages = []
    for fit in (
        lambda: CompAdaGradClassifier(**params).fit(X, y),
        lambda: _python_fit(CompAdaGradClassifier(**params), X, y),
    ):
        with pytest.raises(ValueError, match="Floating-point under-/overflow") as exc:
            fit()
        messages.append(str(exc.value))
    assert messages[0] == messages[1]
