"""Property-based tests of CompAdaGradClassifier and LocalSensitivityLogistic.

Hypothesis draws the data (one row upwards, float32, int and bool, C and F
order, CSR, duplicated rows, constant columns, magnitudes from 1e-300 to
1e160, one to three classes), sample weights from 0 to 1e300 and every
parameter at its boundaries. Whatever it draws, a fit either raises a
ValueError or TypeError with one of the messages below, or gives a finite
model of the right shape and dtype whose predictions are labels of
``classes_``, whose decision values are finite and whose probabilities sum
to one; no numpy floating-point warning leaves skcgm's code and the inputs
are not modified.
"""

import os
import re
import warnings

import numpy as np
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import skcgm
from skcgm.linear_model import CompAdaGradClassifier, LocalSensitivityLogistic

_SKCGM_DIR = os.path.dirname(skcgm.__file__)

# The errors a valid call may end with: the data or weights out of range,
# SGDClassifier's overflow, too few classes or samples for the options.
_EXPECTED_ERRORS = re.compile(
    "|".join(
        [
            r"holds values up to .* their squares overflow",
            r"Floating-point under-/overflow occurred at epoch #\d+",
            r"The number of classes has to be greater than one",
            r"needs samples of at least 2 classes",
            r"Sample weights must contain at least one non-zero number",
            r"The sample weights for validation set are all zero",
            r"led to an empty set",
            r"The least populated class(es)? in y ha(s|ve) only 1 member",
            # The stratified split's sizes, in the estimator's own words.
            r"validation_fraction=\S+ holds out \d+ of the \d+ samples",
            r"Input X contains infinity",
            r"sample_size=\d+ exceeds n_samples",
            r"Found array with \d+ sample\(s\)",
            r"is too small for this data",
            r"sampling='leverage' takes leverage=",
            r"times the total sample weight .* is too small",
        ]
    )
)

_MAGNITUDES = [1e-300, 1e-150, 1e-8, 1.0, 1e8, 1e150, 1e160]
_WEIGHTS = [0.0, 1e-300, 1e-8, 1.0, 3.0, 1e8, 1e300]


@st.composite
def _datasets(draw, sparse_ok=True):
    """``(X, y, sample_weight)`` at the boundaries of what a fit accepts."""
    n_samples = draw(st.integers(1, 10))
    n_features = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.RandomState(seed)
    scale = draw(st.sampled_from(_MAGNITUDES))
    X = rng.standard_normal((n_samples, n_features)) * scale
    if draw(st.booleans()):
        # Sparse-looking rows: about half the entries zero.
        X *= rng.rand(n_samples, n_features) < 0.5
    if n_features > 1 and draw(st.booleans()):
        X[:, rng.randint(n_features)] = draw(st.sampled_from([0.0, 1.0, scale]))
    if n_samples > 1 and draw(st.booleans()):
        X[rng.randint(n_samples, size=n_samples // 2)] = X[0]
    dtype = draw(st.sampled_from(["float64", "float32", "int", "bool"]))
    with np.errstate(over="ignore"):
        if dtype == "int":
            X = np.clip(np.round(X), -1e9, 1e9).astype(np.int64)
        elif dtype == "bool":
            X = X > 0
        else:
            X = X.astype(dtype)
    container = draw(st.sampled_from(["C", "F", "csr"] if sparse_ok else ["C", "F"]))
    if container == "F":
        X = np.asfortranarray(X)
    elif container == "csr":
        X = sp.csr_matrix(X)
    n_classes = draw(st.integers(1, 3))
    labels = draw(st.sampled_from([np.array([3, -1, 7]), np.array(["b", "a", "c"])]))
    y = labels[rng.randint(n_classes, size=n_samples)]
    sample_weight = None
    if draw(st.booleans()):
        sample_weight = np.array(
            draw(
                st.lists(
                    st.sampled_from(_WEIGHTS), min_size=n_samples, max_size=n_samples
                )
            )
        )
    return X, y, sample_weight


def _compadagrad_params(draw, X):
    n_features = X.shape[1]
    return dict(
        loss=draw(
            st.sampled_from(
                ["hinge", "log_loss", "modified_huber", "squared_hinge", "perceptron"]
            )
        ),
        penalty=draw(st.sampled_from(["l2", "l1", "elasticnet", None])),
        alpha=draw(st.sampled_from([0.0, 1e-300, 1e-4, 1.0, 1e300])),
        l1_ratio=draw(st.sampled_from([0.0, 0.15, 1.0])),
        eta0=draw(st.sampled_from([1e-300, 1e-3, 0.1, 1e3, 1e300])),
        n_components=draw(st.integers(0, n_features + 1)),
        tau=draw(st.sampled_from([1e-300, 1.0, 1e300])),
        delta=draw(st.sampled_from([1e-300, 1e-30, 1e-2, 1e300])),
        variant=draw(st.sampled_from(["paper", "theory"])),
        batch_size=draw(st.sampled_from([1, 2, 32])),
        max_iter=draw(st.integers(1, 3)),
        tol=draw(st.sampled_from([None, 1e-3])),
        early_stopping=draw(st.booleans()),
        n_iter_no_change=draw(st.integers(1, 2)),
        shuffle=draw(st.booleans()),
        fit_intercept=draw(st.booleans()),
        class_weight=draw(st.sampled_from([None, "balanced"])),
        random_state=0,
    )


def _local_sensitivity_params(draw, X):
    n_samples = X.shape[0]
    return dict(
        C=draw(st.sampled_from([1e-300, 1e-4, 1.0, 1e4, 1e300, np.inf])),
        penalty=draw(st.sampled_from(["l2", None])),
        fit_intercept=draw(st.booleans()),
        sample_size=draw(st.sampled_from([1, 0.5, 1.0, n_samples])),
        max_iter=draw(st.integers(1, 3)),
        tol=draw(st.sampled_from([0.0, 1e-4])),
        max_inner_iter=draw(st.integers(1, 5)),
        n_iter_no_change=draw(st.sampled_from([None, 1])),
        prox_weight=draw(st.sampled_from(["sqrt_grad", 1e-300, 1e-3, 1.0, 1e300])),
        sampling=draw(
            st.sampled_from(["local_sensitivity", "uniform", "leverage", "full"])
        ),
        solver=draw(st.sampled_from(["auto", "proximal_point", "lbfgs"])),
        scores=draw(st.sampled_from(["theorem10", "theorem9", "leverage_only"])),
        leverage=draw(st.sampled_from(["auto", "exact", "sketch", "sample"])),
        n_components=draw(st.sampled_from([None, 1, 5])),
        class_weight=draw(st.sampled_from([None, "balanced"])),
        random_state=0,
    )


def _copy(value):
    return None if value is None else value.copy()


def _assert_same(before, after):
    if sp.issparse(before):
        assert_array_equal(before.toarray(), after.toarray())
    elif before is not None:
        assert_array_equal(before, after)


def _assert_no_warning_leaked(caught):
    """No RuntimeWarning of the ``caught`` ones was raised in skcgm's code."""
    leaked = [
        w
        for w in caught
        if issubclass(w.category, RuntimeWarning)
        and os.path.abspath(w.filename).startswith(_SKCGM_DIR)
    ]
    assert not leaked, [str(w.message) for w in leaked]


def _check_fit(model, X, y, sample_weight):
    """Fit ``model`` and check the properties of the module docstring."""
    X_before, y_before, weight_before = _copy(X), _copy(y), _copy(sample_weight)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model.fit(X, y, sample_weight=sample_weight)
        except (ValueError, TypeError) as exc:
            # numpy.linalg.LinAlgError is a ValueError: not an expected one.
            assert type(exc) in (ValueError, TypeError), repr(exc)
            assert _EXPECTED_ERRORS.search(str(exc)), repr(exc)
            fitted = False
        else:
            fitted = True
        if fitted:
            decision = model.decision_function(X)
            predicted = model.predict(X)
            proba = model.predict_proba(X) if hasattr(model, "predict_proba") else None
    _assert_no_warning_leaked(caught)
    _assert_same(X_before, X)
    _assert_same(y_before, y)
    _assert_same(weight_before, sample_weight)
    if not fitted:
        return
    n_classes = model.classes_.shape[0]
    n_problems = 1 if n_classes == 2 else n_classes
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    assert model.coef_.shape == (n_problems, X.shape[1])
    assert model.intercept_.shape == (n_problems,)
    assert model.coef_.dtype == dtype and model.intercept_.dtype == dtype
    assert np.isfinite(model.coef_).all() and np.isfinite(model.intercept_).all()
    assert np.isfinite(decision).all()
    assert np.isin(predicted, model.classes_).all()
    if proba is not None:
        assert proba.shape == (X.shape[0], n_classes)
        assert np.isfinite(proba).all()
        assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-5)
    return model


def _check_fits(property_settings, Estimator, params, check_fitted):
    """:func:`_check_fit` of ``Estimator(**params(draw, X))`` on every dataset
    hypothesis draws, then ``check_fitted(model)`` when the fit succeeded."""

    @given(data=st.data())
    def check(data):
        X, y, sample_weight = data.draw(_datasets())
        model = _check_fit(Estimator(**params(data.draw, X)), X, y, sample_weight)
        if model is not None:
            check_fitted(model)

    property_settings(check)()


def test_compadagrad_fit_is_finite_or_a_clear_error(property_settings):
    def check_fitted(model):
        assert np.isfinite(model.intercept_grad_sq_sum_).all()
        for state in model.state_:
            assert np.isfinite(state.coef).all()
            assert np.isfinite(state.subspace_gram).all()
            assert np.isfinite(state.complement_sq).all()

    _check_fits(
        property_settings, CompAdaGradClassifier, _compadagrad_params, check_fitted
    )


def test_compadagrad_partial_fit_is_finite_or_a_clear_error(property_settings):
    @given(data=st.data())
    def check(data):
        X, y, sample_weight = data.draw(_datasets())
        params = _compadagrad_params(data.draw, X)
        params["early_stopping"] = False
        model = CompAdaGradClassifier(**params)
        classes = np.unique(y)
        weight_before = _copy(sample_weight)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if params["class_weight"] == "balanced" or classes.shape[0] < 2:
                    return
                model.partial_fit(X, y, classes=classes, sample_weight=sample_weight)
                model.partial_fit(X, y, sample_weight=sample_weight)
            except ValueError as exc:
                assert type(exc) is ValueError, repr(exc)
                assert _EXPECTED_ERRORS.search(str(exc)), repr(exc)
                return
        _assert_no_warning_leaked(caught)
        _assert_same(weight_before, sample_weight)
        assert np.isfinite(model.coef_).all() and np.isfinite(model.intercept_).all()
        assert np.isfinite(model.intercept_grad_sq_sum_).all()
        assert np.isfinite(model.decision_function(X)).all()

    property_settings(check)()


def test_local_sensitivity_fit_is_finite_or_a_clear_error(property_settings):
    def check_fitted(model):
        # sample_size is never 'auto' here: 'auto' means L-BFGS for 'full'.
        lbfgs = model.solver == "lbfgs" or (
            model.solver == "auto" and model.sampling == "full"
        )
        rounds_only = ("prox_weight", "radius", "total_sensitivity")
        for history in model.history_:
            # Entry 0 has no round; total_sensitivity is NaN by design for
            # the samplers that do not compute it, inf (documented) when the
            # bound exceeds the float64 range. L-BFGS has no rounds: NaN.
            for key, values in history.items():
                if lbfgs and key in rounds_only:
                    assert np.isnan(values).all(), (key, values)
                    continue
                if key == "total_sensitivity":
                    values = values[~np.isnan(values) & (values != np.inf)]
                assert np.isfinite(values[1:]).all(), (key, values)
        for weights in model.sample_weight_:
            assert np.isfinite(weights).all()

    _check_fits(
        property_settings,
        LocalSensitivityLogistic,
        _local_sensitivity_params,
        check_fitted,
    )
