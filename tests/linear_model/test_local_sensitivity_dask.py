"""LocalSensitivityLogistic on dask arrays: the sums and scores of the in-memory
solver computed chunk by chunk, draws that do not depend on the chunks, and a
client that never holds X."""

import collections
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import poisson
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from skcgm.datasets import make_heavy_tailed_classification
from skcgm.linear_model import LocalSensitivityLogistic
from skcgm.optim import local_sensitivity_scores
from skcgm.optim.proximal_point._dask import (
    _Context,
    _poisson_counts,
    _uniform_chunk,
    dask_proximal_point,
    row_uniforms,
)
from skcgm.optim.proximal_point._in_memory import _checked_problem
from skcgm.oracles import LogisticLoss
from skcgm.utils._validation import dask_class_counts

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def data():
    return make_heavy_tailed_classification(6000, 5, random_state=0)


def _dask(X, y, chunks):
    return da.from_array(X, chunks=(chunks, X.shape[1])), da.from_array(y, chunks)


def _sum_objective(X, y, coef, intercept, C=1.0):
    margins = np.where(y == y.max(), 1.0, -1.0) * (X @ coef + intercept)
    return C * np.logaddexp(0, -margins).sum() + 0.5 * coef @ coef


X0 = np.random.RandomState(0).normal(scale=0.3, size=6)


def _round_from_x0(X, y, sample_weight, chunks, scores, leverage, m=500, verbose=0):
    """One round of the dask solver from ``X0``, with alpha = 1 / S."""
    u = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    classes = np.unique(y)
    return dask_proximal_point(
        LogisticLoss(),
        *_dask(X, y, chunks),
        None if sample_weight is None else da.from_array(sample_weight, chunks),
        (classes, np.ones(2), classes[1]),
        alpha=1.0 / u.sum(),
        total_weight=float(u.sum()),
        n_positive=X.shape[0],
        fit_intercept=True,
        sample_size=m,
        sampling="local_sensitivity",
        scores=scores,
        prox_weight="sqrt_grad",
        max_iter=1,
        tol=0.0,
        n_iter_no_change=None,
        max_inner_iter=50,
        leverage=leverage,
        x0=X0,
        random_state=0,
        verbose=verbose,
    )


def _in_memory_scores(X, y, sample_weight, scores, leverage, m=500):
    """The scores of :func:`_round_from_x0`'s round, the total that
    normalizes its draws, and the centre's objective and gradient norm."""
    n = X.shape[0]
    u = np.ones(n) if sample_weight is None else sample_weight
    total_weight = float(u.sum())
    alpha = 1.0 / total_weight
    classes = np.unique(y)
    signs = np.where(y == classes[1], 1.0, -1.0)
    pen = np.array([True] * 5 + [False])
    problem = _checked_problem(
        LogisticLoss(), X, u * n / total_weight, pen[:5], alpha, signs, True
    )
    point = problem.evaluate(X0)
    grad_norm = np.linalg.norm(point.gradient)
    lam = np.sqrt(grad_norm)
    A = signs[:, None] * np.hstack([X, np.ones((n, 1))])
    gram_sample = None
    if leverage == "sample":
        # The uniform draws of the first pass, from all rows at once.
        context = _Context(
            LogisticLoss(), (classes, np.ones(2), classes[1]), True, n, total_weight
        )
        indices, *_, weights = _uniform_chunk(
            X, y, sample_weight, 0, context, (0, 0), m / n
        )
        gram_sample = (indices, weights)
        assert 0.8 * m < indices.size < 1.2 * m
    expected, info = local_sensitivity_scores(
        LogisticLoss(),
        A,
        X0,
        prox_weight=lam,
        radius=grad_norm / (lam + alpha),
        alpha=alpha,
        sample_weight=u * n / total_weight,
        penalized=pen,
        scores=scores,
        leverage=leverage,
        gram_sample=gram_sample,
    )
    total = expected.sum()
    if leverage == "sample":
        # The leverage scores' total is the sample's estimate,
        # tr((G^ + D)^{-1} G^) = sum_j w_j l_j; the other terms are exact sums.
        beta = 1.0 if scores == "leverage_only" else info["beta"]
        total += beta * (weights @ info["leverage"][indices] - info["leverage"].sum())
    return expected, total, point.objective, grad_norm


@pytest.mark.parametrize("leverage", ["exact", "sample"])
@pytest.mark.parametrize("scores", ["theorem9", "theorem10", "leverage_only"])
@pytest.mark.parametrize(
    "weighted, chunks",
    # 6000 rows: one chunk, read in two sub-blocks (4096 + 1904 rows).
    [(False, 1300), (True, 1300), (True, 6000)],
)
def test_sums_and_sampling_probabilities_equal_in_memory(
    dask_client, data, scores, weighted, chunks, leverage
):
    X, y = data
    n = X.shape[0]
    sample_weight = np.random.RandomState(1).uniform(0, 2, n) if weighted else None
    result, n_passes = _round_from_x0(X, y, sample_weight, chunks, scores, leverage)
    # No uniform start from x0. With 'exact', the centre's pass and the
    # draws' pass; 'sample' draws the rows of its Gram matrix uniformly, and
    # the round's draws come with the centre's sums (thinned on the client).
    assert n_passes == 2
    expected, total, objective, grad_norm = _in_memory_scores(
        X, y, sample_weight, scores, leverage
    )
    assert result.history["objective"][0] == pytest.approx(objective, rel=1e-12)
    assert result.history["grad_norm"][0] == pytest.approx(grad_norm, rel=1e-10)
    # The last iterate is not evaluated (a pass of its own).
    assert np.isnan(result.history["objective"][1])
    probabilities = result.sampling_probabilities
    assert isinstance(probabilities, da.Array)
    assert_allclose(probabilities.compute(), expected / expected.sum(), rtol=1e-10)
    assert result.history["total_sensitivity"][1] == pytest.approx(total, rel=1e-10)


@pytest.mark.parametrize("envelope", [None, 1e-3])
def test_speculative_draws_are_thinned_or_drawn_again(
    dask_client, data, monkeypatch, capsys, envelope
):
    # The round's draws come with the centre's sums when the speculative
    # scores bound the exact ones (2 passes from x0: the Gram matrix's
    # uniform draws, then the centre); an envelope too small to bound them
    # costs the draws' own pass, with the exact scores' draws.
    from skcgm.optim.proximal_point import _dask as module

    if envelope is not None:
        monkeypatch.setattr(module, "_ENVELOPE", envelope)
    X, y = data
    result, n_passes = _round_from_x0(X, y, None, 1300, "theorem9", "sample", verbose=1)
    output = capsys.readouterr().out
    scores, total, _, _ = _in_memory_scores(X, y, None, "theorem9", "sample")
    means = 500 * scores / total
    counts = result.sample_weight * means[result.sample_indices]
    if envelope is None:
        assert n_passes == 2
        assert "Dask pass 2: round 1" in output and "thinned from" in output
        # Importance weights of the exact scores: the kept copies over m p_i.
        assert_allclose(counts, np.round(counts), rtol=1e-9)
        assert np.all(np.round(counts) >= 1)
    else:
        assert n_passes == 3
        assert "Dask pass 3: round 1" in output
        assert "drawn in a pass of their own" in output
        expected = _poisson_counts(row_uniforms((0, 1), 0, X.shape[0]), means)
        assert_array_equal(result.sample_indices, np.flatnonzero(expected))
        assert_allclose(counts, expected[expected > 0], rtol=1e-9)


@pytest.mark.parametrize("penalty", ["l2", None])
def test_a_sample_without_curvature_falls_back_to_every_row(
    dask_client, penalty, capsys
):
    # A column a million times the others and a sample of one row: the
    # uniform start's row has a vanishing f'' and its Gram matrix estimates
    # a total of 0, so the round sums the Gram matrix over every row in a
    # pass of its own (4 passes: the start, the centre, the Gram matrix and
    # the draws) instead of dividing by 0.
    rng = np.random.RandomState(0)
    X = rng.standard_normal((3000, 4))
    y = (X[:, 0] > 0).astype(int)
    X[:, 0] *= 1e6
    model = LocalSensitivityLogistic(
        penalty=penalty, sample_size=1, random_state=0, verbose=1
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(*_dask(X, y, 700))
    assert model.n_passes_ == 4
    assert "drawn in a pass of their own" in capsys.readouterr().out
    assert np.all(np.isfinite(model.coef_)) and np.isfinite(model.intercept_[0])


def test_speculation_needs_rows_to_estimate_from(data):
    from types import SimpleNamespace

    from skcgm.optim.proximal_point._dask import _speculative_setup

    X, y = data
    n = X.shape[0]
    context = _Context(LogisticLoss(), (np.unique(y), np.ones(2), 1), True, n, n)
    empty = (np.empty((0, 5)), np.empty(0), np.empty(0), np.empty(0))
    pen = np.array([True] * 5 + [False])
    assert (
        _speculative_setup(
            SimpleNamespace(context=context, n=n, d=6),
            empty,
            np.zeros(6),
            pen,
            1.0 / n,
            "sqrt_grad",
            "theorem9",
        )
        is None
    )


@pytest.mark.filterwarnings("ignore:LocalSensitivityLogistic did not converge")
def test_draws_do_not_depend_on_the_chunks(dask_client, data):
    X, y = data
    fits = [
        LocalSensitivityLogistic(sample_size=800, max_iter=2, random_state=3).fit(
            *_dask(X, y, chunks)
        )
        for chunks in (6000, 1700, 999)
    ]
    for fit in fits[1:]:
        # The same draws; the sums over the chunks differ in their rounding.
        assert_allclose(fit.coef_, fits[0].coef_, rtol=1e-10)
        assert_array_equal(fit.sample_indices_[0], fits[0].sample_indices_[0])
        assert_allclose(fit.sample_weight_[0], fits[0].sample_weight_[0], rtol=1e-10)
    other = LocalSensitivityLogistic(sample_size=800, max_iter=2, random_state=4)
    other.fit(*_dask(X, y, 1700))
    assert not np.array_equal(other.sample_indices_[0], fits[0].sample_indices_[0])


def test_passes_alternate_their_direction_across_fits(dask_client, data, monkeypatch):
    # Each pass runs the chunks against the last pass over the same array,
    # also the first pass of the next fit: with an odd number of passes a
    # fit, a fixed parity per fit would start each fit the way the last one
    # ended.
    from skcgm.optim.proximal_point import _dask as module
    from skcgm.utils import _chunks
    from skcgm.utils._chunks import RowChunks

    directions = []
    chunk_tasks = RowChunks.tasks

    def spy(self, func, *args, **options):
        # The lazy sampling probabilities are not a pass.
        if func is not module._probability_chunk:
            directions.append(self.reverse)
        return chunk_tasks(self, func, *args, **options)

    monkeypatch.setattr(RowChunks, "tasks", spy)
    # Forget the earlier tests' fits of the same arrays (named by content).
    monkeypatch.setattr(_chunks, "_LAST_PASS_REVERSED", collections.OrderedDict())
    X, y = _dask(*data, 1300)
    params = dict(solver="proximal_point", random_state=0)
    # 3 passes with the Gram matrix of every row, 2 by default.
    LocalSensitivityLogistic(leverage="exact", **params).fit(X, y)
    LocalSensitivityLogistic(**params).fit(X, y)
    assert directions == [True, False, True, False, True]
    other = _dask(data[0] + 1.0, data[1], 1300)
    LocalSensitivityLogistic(**params).fit(*other)
    # A new array starts backwards, against the order persist computes it in.
    assert directions[5] is True


def test_row_uniforms_follow_the_row_not_the_chunk():
    whole = row_uniforms((5, 1), 0, 1001)
    cuts = [0, 1, 6, 400, 401, 1001]
    parts = [row_uniforms((5, 1), a, b) for a, b in zip(cuts[:-1], cuts[1:])]
    assert_array_equal(np.concatenate(parts), whole)
    assert not np.array_equal(row_uniforms((6, 1), 0, 1001), whole)


def test_poisson_counts_invert_the_cdf():
    rng = np.random.RandomState(0)
    uniforms = rng.uniform(size=20000)
    means = np.concatenate([[0.0, 1e-12, 29.9, 30.1, 1e3], rng.exponential(2, 19995)])
    assert_array_equal(_poisson_counts(uniforms, means), poisson.ppf(uniforms, means))


def test_poisson_counts_have_the_means_and_variances_asked():
    # c_i ~ Poisson(mu_i): the weights c_i / mu_i are unbiased.
    means = np.array([0.0, 1e-3, 0.3, 1.0, 4.0])
    rng = np.random.RandomState(0)
    counts = np.array(
        [_poisson_counts(rng.uniform(size=5), means) for _ in range(20000)]
    )
    assert np.all(counts[:, 0] == 0)
    standard_error = np.sqrt(means[1:] / counts.shape[0])
    assert np.all(np.abs(counts[:, 1:].mean(axis=0) - means[1:]) < 4 * standard_error)
    assert_allclose(counts[:, 2:].var(axis=0), means[2:], rtol=0.1)


def test_two_passes_reach_the_minimizer_closely(dask_client):
    X, y = make_heavy_tailed_classification(60_000, 8, random_state=1)
    reference = LogisticRegression(tol=1e-10, max_iter=1000).fit(X, y)
    f_star = _sum_objective(X, y, reference.coef_[0], reference.intercept_[0])
    # max_iter='auto' is one round of Algorithm 2 on a dask array: the stop
    # it means, no warning. (solver='auto' would fit 6,000 draws for 9
    # coefficients by L-BFGS: test_auto_solver_on_dask.)
    params = dict(solver="proximal_point", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = LocalSensitivityLogistic(**params).fit(*_dask(X, y, 7000))
    # The uniform start, then the centre's sums with the draws.
    assert model.n_passes_ == 2
    assert model.n_iter_[0] == 1
    assert model.coef_.dtype == np.float64
    error = _sum_objective(X, y, model.coef_[0], model.intercept_[0]) / f_star - 1
    assert 0 <= error < 2e-3
    # The same round asked for explicitly warns, as in memory.
    with pytest.warns(ConvergenceWarning, match="max_iter=1 rounds on the dask array"):
        explicit = LocalSensitivityLogistic(max_iter=1, **params).fit(
            *_dask(X, y, 7000)
        )
    # The same draws; the chunks' sums can differ in their last bit from one
    # run to the next (dask places and moves the chunks differently).
    assert_array_equal(explicit.sample_indices_[0], model.sample_indices_[0])
    assert_allclose(explicit.coef_, model.coef_, rtol=1e-12)
    # leverage='auto' is 'sample' on a dask array; the Gram matrix of every
    # row ('exact') gives other draws of the same quality.
    sampled = LocalSensitivityLogistic(leverage="sample", **params)
    assert_allclose(sampled.fit(*_dask(X, y, 7000)).coef_, model.coef_, rtol=1e-12)
    exact = LocalSensitivityLogistic(leverage="exact", **params)
    exact.fit(*_dask(X, y, 7000))
    assert exact.n_passes_ == 3
    assert not np.array_equal(exact.sample_indices_[0], model.sample_indices_[0])
    error = _sum_objective(X, y, exact.coef_[0], exact.intercept_[0]) / f_star - 1
    assert 0 <= error < 2e-3
    # More rounds: one pass each, and one more for the centre they stop at.
    model = LocalSensitivityLogistic(max_iter=100, **params).fit(*_dask(X, y, 7000))
    assert model.history_[0]["objective"].shape == (model.n_iter_[0] + 1,)
    assert model.n_passes_ == 2 + model.n_iter_[0]
    error = _sum_objective(X, y, model.coef_[0], model.intercept_[0]) / f_star - 1
    assert 0 <= error < 2e-3


def test_multiclass_class_weight_and_float32(dask_client):
    X, y = make_heavy_tailed_classification(30_000, 4, random_state=2)
    y = y + (X[:, 0] > 1)
    X = X.astype(np.float32)
    params = dict(class_weight="balanced", sample_size=10_000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dask = LocalSensitivityLogistic(max_iter=3, **params).fit(*_dask(X, y, 4000))
        memory = LocalSensitivityLogistic(sampling="full", **params).fit(X, y)
    assert_array_equal(dask.classes_, [0, 1, 2])
    assert dask.coef_.shape == (3, 4) and dask.coef_.dtype == np.float32
    # Three one-vs-rest problems of 1 + 3 passes, and one more for a round
    # whose speculative draws do not bound the exact scores (here the
    # heavy-tailed rows' importance weights overstate the gradient once).
    assert 12 <= dask.n_passes_ <= 21
    assert_allclose(dask.coef_, memory.coef_, rtol=0.1, atol=0.05)
    assert np.mean(dask.predict(X) == memory.predict(X)) > 0.95


@pytest.mark.parametrize(
    "params, match",
    [
        (
            dict(sampling="full", solver="proximal_point"),
            "sampling='full' with solver='proximal_point' needs X in memory",
        ),
        (dict(sampling="leverage"), "sampling='leverage' needs X in memory"),
        (dict(leverage="sketch"), "leverage='sketch' needs X in memory"),
        (dict(sample_size=7000), "sample_size=7000 exceeds n_samples=6000"),
    ],
)
def test_options_a_dask_fit_refuses(dask_client, data, params, match):
    with pytest.raises(ValueError, match=match):
        LocalSensitivityLogistic(**params).fit(*_dask(*data, 2000))


def test_bad_labels_and_weights_are_refused(dask_client, data):
    X, y = data
    with pytest.raises(ValueError, match="only one class with a positive weight"):
        LocalSensitivityLogistic().fit(*_dask(X, np.zeros_like(y), 2000))
    weights = np.ones(len(y))
    weights[3] = -1
    with pytest.raises(ValueError, match="Negative values"):
        LocalSensitivityLogistic().fit(*_dask(X, y, 2000), sample_weight=weights)
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(5,\)"):
        LocalSensitivityLogistic().fit(*_dask(X, y, 2000), sample_weight=np.ones(5))


def test_predictions_on_a_dask_array_are_lazy_and_match(dask_client):
    X, y = make_heavy_tailed_classification(20_000, 4, random_state=5)
    y = y + (X[:, 1] > 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = LocalSensitivityLogistic(max_iter=2, random_state=0).fit(
            *_dask(X, y, 6000)
        )
    X_dask = da.from_array(X, chunks=(3000, 4))
    for method in (
        "decision_function",
        "predict",
        "predict_proba",
        "predict_log_proba",
    ):
        lazy = getattr(model, method)(X_dask)
        assert isinstance(lazy, da.Array)
        assert lazy.chunks[0] == X_dask.chunks[0]
        assert_allclose(lazy.compute(), getattr(model, method)(X), rtol=1e-12)
    with pytest.raises(ValueError, match="expecting 4 features"):
        model.predict(X_dask[:, :3])


def test_continuous_targets_are_refused_on_a_dask_array(dask_client, data):
    X, _ = data
    y = np.random.RandomState(0).normal(size=X.shape[0])
    with pytest.raises(ValueError, match="Unknown label type"):
        LocalSensitivityLogistic().fit(*_dask(X, y, 2000))


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_non_finite_rows_are_refused_by_the_first_pass(dask_client, data, value):
    X, y = data
    X = X.copy()
    X[4321, 2] = value
    with pytest.raises(ValueError, match="Input X contains NaN or infinity"):
        LocalSensitivityLogistic(random_state=0).fit(*_dask(X, y, 2000))


def test_class_counts_equal_numpy_unique(property_settings):
    @given(
        labels=st.lists(st.integers(-3, 40), min_size=1, max_size=9000),
        chunks=st.integers(1, 9000),
        as_float=st.booleans(),
    )
    def check(labels, chunks, as_float):
        # Few classes take the counting path, many (or one missed by the strided
        # subsample) the sort; both must give np.unique's answer.
        y = np.array(labels, dtype=np.float64 if as_float else np.int64)
        classes, counts = dask_class_counts(da.from_array(y, chunks=chunks))
        expected_classes, expected_counts = np.unique(y, return_counts=True)
        assert_array_equal(classes, expected_classes)
        assert classes.dtype == expected_classes.dtype
        assert_array_equal(counts, expected_counts)

    property_settings(check)()


def test_class_counts_of_string_labels():
    y = np.array(["spam", "ham", "eggs"] * 3000 + ["toast"])
    classes, counts = dask_class_counts(da.from_array(y, chunks=5000))
    assert_array_equal(classes, ["eggs", "ham", "spam", "toast"])
    assert_array_equal(counts, [3000, 3000, 3000, 1])


@pytest.mark.parametrize("rate", [1e-3, 0.3, 2.0, 35.0])
def test_uniform_draws_read_only_their_rows_and_match_all_rows_drawn(rate):
    # The draw that reads only its candidate rows equals Poisson(rate) counts
    # inverted at every row's uniform, rows of zero weight left out.
    rng = np.random.RandomState(0)
    n = 9000
    X = rng.normal(size=(n, 3))
    y = rng.randint(2, size=n).astype(float)
    w = rng.uniform(0, 2, n) * (rng.uniform(size=n) > 0.2)
    context = _Context(
        LogisticLoss(), (np.array([0.0, 1.0]), np.ones(2), 1.0), True, n, w.sum()
    )
    indices, rows, signs, u, weights = _uniform_chunk(
        X, y, w, 500, context, (7, 0), rate
    )
    counts = _poisson_counts(
        row_uniforms((7, 0), 500, 500 + n), np.where(w > 0, rate, 0.0)
    )
    chosen = np.flatnonzero(counts)
    assert chosen.size > 0
    assert_array_equal(indices, 500 + chosen)
    assert_array_equal(rows, X[chosen])
    assert_array_equal(signs, np.where(y[chosen] == 1.0, 1.0, -1.0))
    assert_allclose(u, w[chosen] * n / w.sum(), rtol=1e-15)
    assert_allclose(weights, counts[chosen] / rate, rtol=1e-15)


# sampling='full' on dask: L-BFGS over chunk-wise gradients (issue 38).


def _one_vs_rest_optimum(X, y, sample_weight=None, **params):
    """LogisticRegression's minimizer of every one-vs-rest problem."""
    classes = np.unique(y)
    positives = classes[1:] if len(classes) == 2 else classes
    fits = [
        LogisticRegression(solver="newton-cholesky", tol=1e-12, **params).fit(
            X, y == positive, sample_weight=sample_weight
        )
        for positive in positives
    ]
    return (
        np.vstack([fit.coef_ for fit in fits]),
        np.concatenate([fit.intercept_ for fit in fits]),
    )


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_full_on_dask_equals_logistic_regression(n_classes, fit_intercept, weighted):
    # The sums do not depend on the scheduler: the local one keeps the test
    # short (a pass per evaluation); the tests below run on a cluster.
    dask_config = pytest.importorskip("dask").config
    X, y = make_heavy_tailed_classification(3000, 6, random_state=3)
    if n_classes == 3:
        y = y + (X[:, 1] > 0.8)
    sample_weight = None
    if weighted:
        sample_weight = np.random.RandomState(0).uniform(0, 2, size=len(y))
    with dask_config.set(scheduler="synchronous"):
        model = LocalSensitivityLogistic(
            C=0.5, fit_intercept=fit_intercept, sampling="full", tol=1e-10
        ).fit(
            *_dask(X, y, 1000),
            sample_weight=None
            if sample_weight is None
            else da.from_array(sample_weight, 1000),
        )
    coef, intercept = _one_vs_rest_optimum(
        X, y, sample_weight, C=0.5, fit_intercept=fit_intercept
    )
    assert_allclose(model.coef_, coef, rtol=0, atol=1e-6)
    assert_allclose(model.intercept_, intercept, rtol=0, atol=1e-6)
    # One joint L-BFGS run: every problem has its iterations, and a pass per
    # evaluation serves all of them.
    n_problems = 1 if n_classes == 2 else n_classes
    assert_array_equal(model.n_iter_, np.full(n_problems, model.n_iter_[0]))
    assert model.n_iter_[0] + 1 <= model.n_passes_ <= 3 * (model.n_iter_[0] + 1)
    joint = sum(history["objective"] for history in model.history_)
    assert np.all(np.diff(joint) <= 1e-15 * np.abs(joint[:-1]))
    for history in model.history_:
        assert np.isnan(history["prox_weight"]).all()
        assert history["grad_norm"].shape == (model.n_iter_[0] + 1,)


def test_full_on_dask_class_weight_float32_and_the_in_memory_fit():
    dask_config = pytest.importorskip("dask").config
    X, y = make_heavy_tailed_classification(4000, 5, random_state=4)
    y = y + (X[:, 0] > 1)
    params = dict(sampling="full", class_weight={0: 1.0, 1: 3.0, 2: 0.5}, tol=1e-8)
    with dask_config.set(scheduler="synchronous"):
        dask = LocalSensitivityLogistic(**params).fit(
            *_dask(X.astype(np.float32), y, 2000)
        )
        # solver='lbfgs' reads every row, whatever the sampling.
        other = LocalSensitivityLogistic(
            **dict(params, sampling="uniform", solver="lbfgs")
        ).fit(*_dask(X.astype(np.float32), y, 2000))
    memory = LocalSensitivityLogistic(**params).fit(X.astype(np.float32), y)
    assert dask.coef_.dtype == np.float32
    assert_allclose(dask.coef_, memory.coef_, rtol=0, atol=1e-4)
    assert_allclose(dask.intercept_, memory.intercept_, rtol=0, atol=1e-4)
    assert_array_equal(other.coef_, dask.coef_)
    rows = dask.sample_indices_[0].compute()
    assert_array_equal(rows, np.arange(len(y)))
    assert_array_equal(dask.sample_weight_[0].compute(), np.ones(len(y)))


def test_full_on_a_dask_dataframe():
    dask_config = pytest.importorskip("dask").config
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = make_heavy_tailed_classification(3000, 4, random_state=6)
    y = y + (X[:, 2] > 0.7)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    with dask_config.set(scheduler="synchronous"):
        model = LocalSensitivityLogistic(sampling="full", tol=1e-10).fit(
            dd.from_pandas(frame, npartitions=2),
            dd.from_pandas(pd.Series(y), npartitions=2),
        )
    assert_array_equal(model.feature_names_in_, ["a", "b", "c", "d"])
    coef, intercept = _one_vs_rest_optimum(X, y)
    assert_allclose(model.coef_, coef, rtol=0, atol=1e-6)
    assert_allclose(model.intercept_, intercept, rtol=0, atol=1e-6)
    # Predictions on the frame are lazy, with the in-memory values and no
    # feature-name warning per chunk.
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        proba = model.predict_proba(dd.from_pandas(frame, npartitions=3))
        assert_allclose(proba.compute(), model.predict_proba(frame))
    assert proba.shape == (len(y), 3)


def test_full_on_dask_warns_when_max_iter_stops_it(dask_client, data):
    # On a cluster: the chunks' functions travel to the workers.
    with pytest.warns(
        ConvergenceWarning,
        match="max_iter=2 L-BFGS iterations on the dask array: the largest",
    ):
        LocalSensitivityLogistic(sampling="full", max_iter=2).fit(*_dask(*data, 2000))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        LocalSensitivityLogistic(sampling="full").fit(*_dask(*data, 2000))


def _issue_rows(n, d, random_state):
    """Gaussian rows with a logistic link (issue 38's report)."""
    rng = np.random.RandomState(random_state)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-X @ w))).astype(np.int64)
    return X, y


def test_auto_solver_on_dask_reads_every_row_when_one_round_draws_too_few():
    # Issue 38, point 7: one round of 4,000 draws for 13 coefficients stopped
    # at a relative objective error of 1.1e-3 on 40,000 x 12 rows. Below
    # 2,000 draws per coefficient solver='auto' fits by L-BFGS instead.
    dask_config = pytest.importorskip("dask").config
    X, y = _issue_rows(40_000, 12, 0)
    reference = LogisticRegression(solver="newton-cholesky", tol=1e-12).fit(X, y)
    f_star = _sum_objective(X, y, reference.coef_[0], reference.intercept_[0])
    with dask_config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = LocalSensitivityLogistic(random_state=0).fit(*_dask(X, y, 5000))
        one_round = LocalSensitivityLogistic(
            solver="proximal_point", random_state=0
        ).fit(*_dask(X, y, 5000))
    assert np.isnan(model.history_[0]["prox_weight"]).all()
    error = _sum_objective(X, y, model.coef_[0], model.intercept_[0]) / f_star - 1
    assert 0 <= error < 1e-6
    assert model.n_passes_ > one_round.n_passes_ == 2
    # Without the intercept, 12 coefficients: still too few draws.
    no_intercept = LocalSensitivityLogistic(fit_intercept=False)
    assert no_intercept._solver(40_000, 12, on_dask=True) == "lbfgs"


@pytest.mark.parametrize(
    "n_samples, n_features, solver",
    [
        # 10% of the rows, at most 100,000, against 2,000 per coefficient.
        (220_000, 10, "proximal_point"),
        (200_000, 10, "lbfgs"),
        (10_000_000, 49, "proximal_point"),
        (10_000_000, 50, "lbfgs"),
    ],
)
def test_auto_solver_on_dask_by_draws_per_coefficient(n_samples, n_features, solver):
    model = LocalSensitivityLogistic()
    assert model._solver(n_samples, n_features, on_dask=True) == solver
    # An explicit sample size, or the in-memory rule, is not affected.
    assert (
        LocalSensitivityLogistic(sample_size=0.1)._solver(
            n_samples, n_features, on_dask=True
        )
        == "proximal_point"
    )
    assert model._solver(n_samples, n_features, on_dask=False) == "proximal_point"


def test_auto_solver_on_dask_keeps_one_round_with_enough_draws():
    dask_config = pytest.importorskip("dask").config
    X, y = _issue_rows(250_000, 4, 1)
    with dask_config.set(scheduler="synchronous"):
        model = LocalSensitivityLogistic(random_state=0).fit(*_dask(X, y, 50_000))
    assert model.n_iter_[0] == 1 and model.n_passes_ == 2
    assert np.isfinite(model.history_[0]["prox_weight"][1])
    reference = LogisticRegression(solver="newton-cholesky", tol=1e-12).fit(X, y)
    f_star = _sum_objective(X, y, reference.coef_[0], reference.intercept_[0])
    error = _sum_objective(X, y, model.coef_[0], model.intercept_[0]) / f_star - 1
    assert 0 <= error < 3e-4
