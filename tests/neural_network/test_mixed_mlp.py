"""Tests of MixedMLPRegressor (mixed non-linear regression, section 5.2).

Oracles: the networks evaluated here by hand from ``coefs_`` and
``intercepts_`` (plain NumPy, not the package's batched kernels), the
objective and the oracle error written out from their definitions, and
scikit-learn's sample-weight equivalence check.
"""

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import (
    check_sample_weight_equivalence_on_dense_data,
)

from skcgm.datasets import make_mixed_mlp_regression
from skcgm.neural_network import MixedMLPRegressor
from skcgm.optim.sum_of_min.losses._mlp import NetworkLayout
from skcgm.utils._sklearn_compat import InvalidParameterError
from skcgm.utils.estimator_checks import expected_failed_checks

# Most fits here stop at max_iter on purpose.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Maximum iterations:sklearn.exceptions.ConvergenceWarning"
)

_HIDDEN = {
    "identity": lambda z: z,
    "relu": lambda z: np.maximum(z, 0),
    "tanh": np.tanh,
    "logistic": lambda z: 1 / (1 + np.exp(-z)),
}


def _by_hand(model, X):
    """Every network's output, ``(n_samples, n_components)``, in float64."""
    X = np.asarray(X, dtype=np.float64)
    outputs = []
    for coefs, intercepts in zip(model.coefs_, model.intercepts_):
        h = X
        for level, (W, b) in enumerate(zip(coefs, intercepts)):
            h = h @ W.astype(np.float64) + b.astype(np.float64)
            if level < len(coefs) - 1:
                h = _HIDDEN[model.activation](h)
        outputs.append(h[:, 0])
    return np.stack(outputs, axis=1)


def _sq_norms(model):
    return np.array(
        [
            sum(float((W.astype(np.float64) ** 2).sum()) for W in coefs)
            + sum(float((b.astype(np.float64) ** 2).sum()) for b in intercepts)
            for coefs, intercepts in zip(model.coefs_, model.intercepts_)
        ]
    )


def _planted(n_samples=120, n_components=2, random_state=0, **kwargs):
    return make_mixed_mlp_regression(
        n_samples=n_samples,
        n_features=4,
        hidden_layer_sizes=(3,),
        n_components=n_components,
        random_state=random_state,
        **kwargs,
    )


def _fast(**params):
    defaults = dict(hidden_layer_sizes=(3,), max_iter=10, random_state=0)
    return MixedMLPRegressor(**{**defaults, **params})


# --------------------------------------------------------------------------------------
# Fitted attributes


def test_fitted_attributes():
    X, y, _, _ = _planted()
    model = _fast(n_components=2, hidden_layer_sizes=(3, 2), tol=0).fit(X, y)
    assert len(model.coefs_) == len(model.intercepts_) == 2
    for coefs, intercepts in zip(model.coefs_, model.intercepts_):
        assert [W.shape for W in coefs] == [(4, 3), (3, 2), (2, 1)]
        assert [b.shape for b in intercepts] == [(3,), (2,), (1,)]
        assert all(W.dtype == np.float64 for W in coefs + intercepts)
    assert model.n_layers_ == 4
    assert model.out_activation_ == "identity"
    assert model.n_features_in_ == 4
    assert model.weights_.shape == (2,)
    assert model.weights_.sum() == pytest.approx(1.0, rel=1e-12)
    assert_allclose(model.weights_, np.bincount(model.labels_, minlength=2) / len(y))
    assert model.labels_.shape == (len(y),)
    assert len(model.objective_history_) == model.n_iter_ + 1 == 11
    assert model.objective_ == model.objective_history_[-1]


def test_no_hidden_layer_is_an_affine_model():
    X, y, _, _ = _planted()
    model = _fast(hidden_layer_sizes=(), activation="identity").fit(X, y)
    assert model.n_layers_ == 2
    assert [W.shape for W in model.coefs_[0]] == [(4, 1)]
    expected = X @ model.coefs_[0][0][:, 0] + model.intercepts_[0][0][0]
    assert_allclose(model.predict(X), expected, rtol=1e-12)


def test_float32_in_float32_out():
    X, y, _, _ = _planted()
    model = _fast(n_components=2).fit(X.astype(np.float32), y.astype(np.float32))
    for coefs, intercepts in zip(model.coefs_, model.intercepts_):
        assert all(W.dtype == np.float32 for W in coefs + intercepts)
    assert model.predict(X.astype(np.float32)).dtype == np.float32
    assert model.predict_components(X.astype(np.float32)).dtype == np.float32
    assert np.all(np.isfinite(model.objective_history_))


@pytest.mark.parametrize("activation", ["relu", "tanh", "logistic", "identity"])
def test_labels_predict_and_min_loss_follow_their_definitions(activation):
    X, y, _, _ = _planted(n_components=3)
    alpha = 0.01
    model = _fast(n_components=3, activation=activation, alpha=alpha).fit(X, y)
    components = _by_hand(model, X)
    assert_allclose(model.predict_components(X), components, rtol=1e-10, atol=1e-12)
    assert_allclose(model.predict(X), components @ model.weights_, rtol=1e-10)
    assert_allclose(
        model.predict(X), model.predict_components(X) @ model.weights_, rtol=1e-12
    )
    # labels_ is the reclassification rule at the returned networks.
    assert_array_equal(model.labels_, model.assign(X, y))
    losses = 0.5 * (components - y[:, None]) ** 2 + 0.5 * alpha * _sq_norms(model)
    assert_array_equal(model.labels_, losses.argmin(axis=1))
    assert model.objective_ == pytest.approx(losses.min(axis=1).mean(), rel=1e-10)
    # The oracle error: no penalty, the smallest half squared residual.
    errors = 0.5 * (components - y[:, None]) ** 2
    assert model.min_loss(X, y) == pytest.approx(errors.min(axis=1).mean(), rel=1e-10)
    weights = np.random.RandomState(0).uniform(0, 2, len(y))
    expected = errors.min(axis=1) @ weights / weights.sum()
    assert model.min_loss(X, y, sample_weight=weights) == pytest.approx(
        expected, rel=1e-10
    )


def test_assign_finds_the_planted_networks():
    X, y, networks, labels = _planted(n_samples=100, noise=0.0)
    init = networks.copy()
    model = MixedMLPRegressor(
        2, hidden_layer_sizes=(3,), alpha=0.0, init=init, max_iter=1, tol=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    # Weights and biases of the networks, in the layout of coefs_ and intercepts_.
    layers = NetworkLayout(4, (3,)).unpack(networks)
    for j in range(2):
        # One epoch of ten Adam steps of 1e-3 moves every weight little.
        assert_allclose(model.coefs_[j][0], layers[0][0][j], atol=2e-2)
    X_new, y_new, _, labels_new = make_mixed_mlp_regression(
        n_samples=50,
        n_features=4,
        hidden_layer_sizes=(3,),
        n_components=2,
        noise=0.0,
        random_state=0,
    )
    assert (model.assign(X_new, y_new) == labels_new).mean() > 0.9


def test_objective_of_the_first_epochs_decreases():
    X, y, _, _ = _planted(n_samples=150)
    model = _fast(n_components=2, max_iter=20, tol=0, learning_rate_init=1e-2).fit(X, y)
    history = model.objective_history_
    assert history[-1] < history[0]
    assert np.all(np.isfinite(history))


# --------------------------------------------------------------------------------------
# The seeding


def test_kmeans_plusplus_beats_the_random_start_on_planted_data():
    # The first epochs show the seeding; after the default 200 epochs both
    # starts end close (measured: 0.177 and 0.176 on these four seeds).
    final = {"k-means++": [], "random": []}
    for seed in range(4):
        X, y, _, _ = make_mixed_mlp_regression(
            n_samples=600,
            n_features=5,
            hidden_layer_sizes=(3,),
            n_components=3,
            weights="normal",
            random_state=seed,
        )
        for init in final:
            model = MixedMLPRegressor(
                3,
                hidden_layer_sizes=(3,),
                init=init,
                max_iter=30,
                tol=0,
                random_state=seed,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                final[init].append(model.fit(X, y).objective_)
    assert np.mean(final["k-means++"]) < np.mean(final["random"])


@pytest.mark.parametrize("init", ["k-means++", "uniform", "random"])
@pytest.mark.parametrize("init_score", ["gap", "gradient"])
def test_same_random_state_same_model(init, init_score):
    X, y, _, _ = _planted(n_samples=60)
    first = _fast(n_components=2, init=init, init_score=init_score).fit(X, y)
    second = _fast(n_components=2, init=init, init_score=init_score).fit(X, y)
    for a, b in zip(
        first.coefs_ + first.intercepts_, second.coefs_ + second.intercepts_
    ):
        for u, v in zip(a, b):
            assert_array_equal(u, v)
    assert_array_equal(first.objective_history_, second.objective_history_)
    other = _fast(n_components=2, init=init, init_score=init_score, random_state=1)
    other.fit(X, y)
    assert not np.array_equal(other.coefs_[0][0], first.coefs_[0][0])


def test_result_does_not_depend_on_n_jobs():
    X, y, _, _ = _planted(n_samples=60)
    params = dict(n_components=2, n_init=3, max_iter=5)
    sequential = _fast(**params, n_jobs=1).fit(X, y)
    parallel = _fast(**params, n_jobs=2).fit(X, y)
    for a, b in zip(
        sequential.coefs_ + sequential.intercepts_,
        parallel.coefs_ + parallel.intercepts_,
    ):
        for u, v in zip(a, b):
            assert_array_equal(u, v)
    assert sequential.objective_ == parallel.objective_


def test_init_array_is_the_start():
    X, y, _, _ = _planted(n_samples=60)
    init = NetworkLayout(4, (3,)).init_params(2, np.random.RandomState(3))
    model = _fast(n_components=2, init=init, max_iter=1, tol=0)
    with pytest.warns(ConvergenceWarning, match="Maximum iterations"):
        model.fit(X, y)
    # Before any step, the history starts at the objective of the init.
    start = MixedMLPRegressor(2, hidden_layer_sizes=(3,))
    layers = NetworkLayout(4, (3,)).unpack(init)
    start.coefs_ = [[W[j] for W, _ in layers] for j in range(2)]
    start.intercepts_ = [[b[j] for _, b in layers] for j in range(2)]
    losses = 0.5 * (_by_hand(start, X) - y[:, None]) ** 2
    losses += 0.5 * model.alpha * _sq_norms(start)
    assert model.objective_history_[0] == pytest.approx(
        losses.min(axis=1).mean(), rel=1e-12
    )
    assert_array_equal(
        init, NetworkLayout(4, (3,)).init_params(2, np.random.RandomState(3))
    )


# --------------------------------------------------------------------------------------
# Bad input


def test_an_empty_component_is_reported_without_blaming_duplicates():
    # A third network whose output bias is 1e6 fits no row best, on data
    # without duplicate rows: the warning says so, not KMeans' "duplicate
    # points".
    X, y, _, _ = _planted(n_samples=60)
    assert np.unique(X, axis=0).shape[0] == X.shape[0]
    n_weights = 4 * 3 + 3 + 3 + 1
    init = np.random.RandomState(0).uniform(-0.5, 0.5, (3, n_weights))
    init[2, -1] = 1e6
    model = MixedMLPRegressor(
        3, hidden_layer_sizes=(3,), init=init, max_iter=5, random_state=0
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    messages = [str(w.message) for w in caught if w.category is ConvergenceWarning]
    empty = [m for m in messages if m.startswith("Number of distinct components")]
    assert empty == [
        "Number of distinct components (2) found smaller than n_components (3). "
        "1 of the networks ended the fit with no rows: every row is fitted "
        "better by another network. Try another random_state or a smaller "
        "n_components."
    ]
    assert np.bincount(model.labels_, minlength=3)[2] == 0


def test_divergence_names_learning_rate_init():
    # The step of this estimator is learning_rate_init: the warning names it,
    # not the engine's solver='adam' and eta0, which the estimator lacks.
    X, y, _, _ = _planted(n_samples=60)
    model = _fast(n_components=2, learning_rate_init=10.0, max_iter=20)
    with pytest.warns(ConvergenceWarning, match="diverged") as caught:
        model.fit(X, y)
    message = next(str(w.message) for w in caught if "diverged" in str(w.message))
    assert message.startswith(
        "The fit diverged in 1 of 1 run(s) with learning_rate_init=10.0: use a "
        "smaller learning_rate_init."
    )
    assert "eta0" not in message and "adam" not in message
    assert np.isfinite(model.objective_)


@pytest.mark.parametrize("alpha, learning_rate_init", [(1e300, 1e5), (1e307, 1e3)])
def test_a_penalty_that_overflows_everywhere_is_an_error(alpha, learning_rate_init):
    # objective_ was inf after a fit without an error: no iterate is finite,
    # so there is nothing to cut back to.
    X, y, _, _ = _planted(n_samples=60)
    model = _fast(n_components=2, alpha=alpha, learning_rate_init=learning_rate_init)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.raises(ValueError, match="no finite objective.*alpha=") as error:
            model.fit(X, y)
    assert f"learning_rate_init={learning_rate_init!r}" in str(error.value)
    assert not hasattr(model, "objective_")


@pytest.mark.parametrize("alpha, learning_rate_init", [(1e200, 1.0), (1e307, 1e-3)])
def test_a_large_finite_penalty_still_fits(alpha, learning_rate_init):
    # Below the overflow, a huge alpha only shrinks the weights.
    X, y, _, _ = _planted(n_samples=60)
    model = _fast(n_components=2, alpha=alpha, learning_rate_init=learning_rate_init)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    assert np.isfinite(model.objective_)
    assert np.isfinite(model.objective_history_).all()


def test_an_int_is_one_hidden_layer_as_in_mlp_regressor():
    # MLPRegressor(hidden_layer_sizes=5) is one layer of 5: the same here, the
    # same fit as the tuple.
    X, y, _, _ = _planted(n_samples=60)
    from_int = _fast(hidden_layer_sizes=3).fit(X, y)
    from_tuple = _fast(hidden_layer_sizes=(3,)).fit(X, y)
    assert [w.shape for w in from_int.coefs_[0]] == [(4, 3), (3, 1)]
    for ours, theirs in zip(from_int.coefs_, from_tuple.coefs_):
        for a, b in zip(ours, theirs):
            assert_array_equal(a, b)
    X_gen, *_ = make_mixed_mlp_regression(30, 4, hidden_layer_sizes=3, random_state=0)
    X_ref, *_ = make_mixed_mlp_regression(
        30, 4, hidden_layer_sizes=(3,), random_state=0
    )
    assert_array_equal(X_gen, X_ref)


@pytest.mark.parametrize("hidden_layer_sizes", [0, -2])
def test_a_nonpositive_int_width_is_refused(hidden_layer_sizes):
    X, y, _, _ = _planted(n_samples=20)
    with pytest.raises(ValueError, match="hidden_layer_sizes"):
        MixedMLPRegressor(hidden_layer_sizes=hidden_layer_sizes).fit(X, y)


@pytest.mark.parametrize("hidden_layer_sizes", [(0,), (2.5,), (3, -1), ((2, 3),)])
def test_bad_hidden_layer_sizes_raise_before_fitting(hidden_layer_sizes):
    X, y, _, _ = _planted(n_samples=20)
    model = MixedMLPRegressor(hidden_layer_sizes=hidden_layer_sizes)
    with pytest.raises(ValueError, match="hidden_layer_sizes"):
        model.fit(X, y)
    assert not hasattr(model, "coefs_")
    assert not hasattr(model, "n_features_in_")


@pytest.mark.parametrize(
    "params",
    [
        dict(activation="foo"),
        dict(alpha=-1.0),
        dict(learning_rate_init=0.0),
        dict(inner_steps=0),
        dict(n_components=0),
        dict(init="foo"),
        dict(init_score="foo"),
        dict(n_iter_no_change=0),
    ],
)
def test_bad_parameters_raise_invalid_parameter_error(params):
    X, y, _, _ = _planted(n_samples=20)
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        MixedMLPRegressor(**params).fit(X, y)


@pytest.mark.parametrize(
    "shape", [(2, 18), (3, 19), (2,), (1, 19)], ids=lambda s: "x".join(map(str, s))
)
def test_init_array_of_the_wrong_shape_raises(shape):
    X, y, _, _ = _planted(n_samples=20)
    # 4 inputs, 3 hidden units: 4 * 3 + 3 + 3 + 1 = 19 weights per network.
    model = MixedMLPRegressor(2, hidden_layer_sizes=(3,), init=np.zeros(shape))
    with pytest.raises(ValueError, match="shape"):
        model.fit(X, y)


def test_more_components_than_samples_raise():
    X, y, _, _ = _planted(n_samples=3)
    with pytest.raises(ValueError, match="n_components=4"):
        MixedMLPRegressor(4).fit(X, y)


def test_non_finite_input_raises():
    X, y, _, _ = _planted(n_samples=20)
    X_bad = X.copy()
    X_bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _fast().fit(X_bad, y)
    y_bad = y.copy()
    y_bad[1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        _fast().fit(X, y_bad)


def test_sparse_input_is_refused(csr_container):
    X, y, _, _ = _planted(n_samples=20)
    with pytest.raises(TypeError, match="dense data is required"):
        _fast().fit(csr_container(X), y)


def test_inputs_are_not_modified():
    X, y, _, _ = _planted(n_samples=40)
    X = np.asfortranarray(X)
    weights = np.random.RandomState(1).uniform(0.5, 2.0, 40)
    copies = X.copy(), y.copy(), weights.copy()
    init = NetworkLayout(4, (3,)).init_params(2, np.random.RandomState(2))
    init_copy = init.copy()
    model = _fast(n_components=2).fit(X, y, sample_weight=weights)
    _fast(n_components=2, init=init).fit(X, y)
    model.predict(X)
    model.assign(X, y)
    model.min_loss(X, y, sample_weight=weights)
    for before, after in zip(copies, (X, y, weights)):
        assert_array_equal(before, after)
    assert_array_equal(init, init_copy)


def test_convergence_warning_when_max_iter_is_reached():
    X, y, _, _ = _planted(n_samples=40)
    with pytest.warns(
        ConvergenceWarning, match=re.escape("Maximum iterations (3) reached")
    ):
        model = _fast(max_iter=3, tol=0).fit(X, y)
    assert model.n_iter_ == 3
    # A run stopped by its tolerance does not warn.
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = _fast(max_iter=50, tol=1.0, n_iter_no_change=2).fit(X, y)
    assert model.n_iter_ == 2


# --------------------------------------------------------------------------------------
# Sample weights


def test_integer_weights_equal_repeated_samples_with_a_fixed_init():
    X, y, _, _ = _planted(n_samples=30)
    init = NetworkLayout(4, (3,)).init_params(2, np.random.RandomState(4))
    repeats = np.random.RandomState(5).randint(0, 3, 30)
    params = dict(n_components=2, init=init, max_iter=20, tol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        weighted = _fast(**params).fit(X, y, sample_weight=repeats)
        repeated = _fast(**params).fit(
            np.repeat(X, repeats, axis=0), np.repeat(y, repeats)
        )
    for a, b in zip(
        weighted.coefs_ + weighted.intercepts_, repeated.coefs_ + repeated.intercepts_
    ):
        for u, v in zip(a, b):
            assert_allclose(u, v, rtol=1e-7, atol=1e-9)
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-9)


@pytest.mark.parametrize("n_components, hidden", [(1, (5,)), (2, (3,))])
def test_fixed_init_passes_sample_weight_equivalence(n_components, hidden):
    # The published expected failure's cause is the random seeding: with a
    # fixed init array (the check's data has 30 features) the check passes.
    # Sparse input is refused, so the sparse variant does not apply.
    init = NetworkLayout(30, hidden).init_params(n_components, np.random.RandomState(0))
    estimator = MixedMLPRegressor(
        n_components, hidden_layer_sizes=hidden, max_iter=50, init=init
    )
    assert expected_failed_checks(estimator) == {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_sample_weight_equivalence_on_dense_data("MixedMLPRegressor", estimator)
    # Even one network is seeded by a drawn sample.
    assert set(expected_failed_checks(MixedMLPRegressor())) == {
        "check_sample_weight_equivalence_on_dense_data"
    }


# --------------------------------------------------------------------------------------
# Properties


_USER_WORDS = re.compile(
    r"\bX\b|\by\b|sample_weight|Sample weights|n_components|n_samples|alpha|init|"
    r"hidden_layer_sizes|Input|parameter"
)


@st.composite
def _problem(draw):
    n_samples = draw(st.integers(3, 30))
    n_features = draw(st.integers(1, 4))
    values = draw(
        st.lists(
            st.floats(-4, 4, allow_nan=False, width=32),
            min_size=n_samples * (n_features + 1),
            max_size=n_samples * (n_features + 1),
        )
    )
    data = np.array(values).reshape(n_samples, n_features + 1)
    if draw(st.booleans()):
        data[n_samples // 2 :] = data[0]  # duplicated samples
    scale = draw(st.sampled_from([0.0, 1e-3, 1.0, 1e3]))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    X = (data[:, :-1] * scale).astype(dtype)
    y = data[:, -1] * draw(st.sampled_from([0.0, 1.0, 100.0]))
    weights = None
    if draw(st.booleans()):
        weights = np.array(
            draw(
                st.lists(
                    st.sampled_from([0.0, 0.5, 1.0, 3.0]),
                    min_size=n_samples,
                    max_size=n_samples,
                )
            )
        )
    params = dict(
        n_components=draw(st.integers(1, min(n_samples, 3))),
        hidden_layer_sizes=draw(st.sampled_from([(), (2,), (3, 2)])),
        activation=draw(st.sampled_from(["relu", "tanh", "logistic", "identity"])),
        alpha=draw(st.sampled_from([0.0, 1e-4, 1.0])),
        init=draw(st.sampled_from(["k-means++", "uniform", "random"])),
        init_score=draw(st.sampled_from(["gap", "gradient"])),
        inner_steps=draw(st.integers(1, 3)),
        max_iter=draw(st.integers(1, 4)),
        tol=draw(st.sampled_from([0.0, 1e-4])),
        random_state=draw(st.integers(0, 3)),
    )
    return X, y, weights, params


def test_mixed_mlp_regressor_properties(property_settings):
    budget = settings(
        property_settings,
        max_examples=15 if property_settings.derandomize else 100,
    )

    @given(problem=_problem())
    def check(problem):
        X, y, weights, params = problem
        copies = X.copy(), y.copy(), None if weights is None else weights.copy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            try:
                model = MixedMLPRegressor(**params).fit(X, y, sample_weight=weights)
            except ValueError as error:
                assert _USER_WORDS.search(str(error)), str(error)
                return
        assert_array_equal(X, copies[0])
        assert_array_equal(y, copies[1])
        if weights is not None:
            assert_array_equal(weights, copies[2])
        predictions = model.predict(X)
        assert predictions.shape == (X.shape[0],)
        assert predictions.dtype == X.dtype
        assert np.all(np.isfinite(predictions))
        assert np.all(np.isfinite(model.objective_history_))
        assert len(model.objective_history_) == model.n_iter_ + 1
        assert_array_equal(model.labels_, model.assign(X, y))
        assert model.weights_.sum() == pytest.approx(1.0)

    budget(check)()
