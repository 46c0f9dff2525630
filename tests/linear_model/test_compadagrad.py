"""Tests of CompAdaGradClassifier (CompAdaGrad, Mehta et al. 2016).

Oracles: diagonal and full-matrix AdaGrad written out here by brute force
(per-sample loss derivatives in scalar form, an eigendecomposition of
:math:`G_t + \\delta I`), the two exact limits of CompAdaGrad
(``notes/001_compadagrad.md`` sections 2.1 and 4.2); scikit-learn's
``SGDClassifier`` for the accuracy level; the estimator's own ``fit`` for
``partial_fit``, sparse input, ``n_jobs`` and dask-free streaming.
"""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import StratifiedShuffleSplit, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError

from skcgm.linear_model import CompAdaGradClassifier
from skcgm.utils._sklearn_compat import SparseCoefMixin
from skcgm.utils.estimator_checks import expected_failed_checks

_LOSSES = ["hinge", "log_loss", "modified_huber", "squared_hinge", "perceptron"]


def _dloss(loss, y, p):
    """d loss(y, p) / dp for one sample, y in {-1, +1} (SGDClassifier's losses)."""
    z = y * p
    if loss == "hinge":
        return -y if z <= 1 else 0.0
    if loss == "perceptron":
        return -y if z <= 0 else 0.0
    if loss == "squared_hinge":
        return -2.0 * y * (1.0 - z) if z < 1 else 0.0
    if loss == "modified_huber":
        if z >= 1:
            return 0.0
        return -2.0 * y * (1.0 - z) if z >= -1 else -4.0 * y
    if loss == "log_loss":
        return -y / (1.0 + np.exp(z))
    raise ValueError(loss)


def _brute_force_adagrad(
    X, y, params, *, preconditioner, weights=None, coef=None, intercept=0.0
):
    """Composite AdaGrad on one binary problem, sample by sample.

    ``params`` are the hyperparameters of a CompAdaGradClassifier
    (``get_params()``): ``loss``, ``eta0``, ``alpha``, ``penalty``, ``delta``,
    ``batch_size``, ``max_iter`` (the epochs) and ``fit_intercept``.
    ``preconditioner(G, diag_sq)`` returns the proximal matrix :math:`H_t`
    from the full sum of outer products ``G`` and the sum of squared
    gradients ``diag_sq``. Mini-batches in order, gradients averaged.
    """
    loss, eta, alpha = params["loss"], params["eta0"], params["alpha"]
    penalty, delta = params["penalty"], params["delta"]
    batch_size = params["batch_size"]
    n_samples, n_features = X.shape
    weights = np.ones(n_samples) if weights is None else weights
    x = np.zeros(n_features) if coef is None else np.array(coef, dtype=float)
    b = float(intercept)
    G = np.zeros((n_features, n_features))
    diag_sq = np.zeros(n_features)
    b_sq = 0.0
    for _ in range(params["max_iter"]):
        for start in range(0, n_samples, batch_size):
            batch = range(start, min(start + batch_size, n_samples))
            g = np.zeros(n_features)
            g_b = 0.0
            for i in batch:
                d = weights[i] * _dloss(loss, y[i], X[i] @ x + b)
                g += d * X[i]
                g_b += d
            g /= len(batch)
            g_b /= len(batch)
            G += np.outer(g, g)
            diag_sq += g * g
            H = preconditioner(G, diag_sq)
            if penalty == "l2":
                x = np.linalg.solve(
                    H + eta * alpha * np.eye(n_features), H @ x - eta * g
                )
            elif penalty is None:
                x = x - eta * np.linalg.solve(H, g)
            else:  # l1 with a diagonal H: soft threshold (note section 1.4)
                h = np.diag(H)
                z = x - eta * g / h
                x = np.sign(z) * np.maximum(np.abs(z) - eta * alpha / h, 0.0)
            if params["fit_intercept"]:
                b_sq += g_b * g_b
                b -= eta * g_b / (delta + np.sqrt(b_sq))
    return x, b


def _diagonal(delta):
    """Diagonal AdaGrad: H = delta I + diag(G)^{1/2} (Duchi et al.)."""
    return lambda G, diag_sq: np.diag(delta + np.sqrt(diag_sq))


def _full_matrix(delta, variant, n_padded=None):
    """Full-matrix AdaGrad: (G + delta I)^{1/2} ('paper'), G^{1/2} + delta I
    ('theory') or (G^{1/2} + delta I) / sqrt(n_padded) ('balanced': the
    subspace rate eta sqrt(k) with k = n_padded), or over sqrt(n_padded / r)
    with r = (tr G^{1/2})^2 / tr G ('adaptive'; the zero padded block adds
    nothing to either trace)."""

    def preconditioner(G, diag_sq):
        inside = delta if variant == "paper" else 0.0
        eigvals, eigvecs = np.linalg.eigh(G + inside * np.eye(G.shape[0]))
        root = np.sqrt(np.maximum(eigvals, 0.0))
        if variant != "paper":
            root = root + delta
        if variant == "balanced":
            root = root / np.sqrt(n_padded)
        elif variant == "adaptive":
            # Eigenvalues at rounding level count as zeros, as in the solver
            # (their roots, ~1e-8, would shift r by as much).
            eps = np.finfo(np.float64).eps
            mu = np.where(eigvals > n_padded * eps * eigvals[-1], eigvals, 0.0)
            sv = np.sqrt(mu)
            r = sv.sum() ** 2 / np.sum(sv**2) if np.sum(sv**2) > 0 else 1.0
            root = root / np.sqrt(n_padded / max(r, 1.0))
        return (eigvecs * root) @ eigvecs.T

    return preconditioner


def _fit_and_brute_force(X, y, preconditioner, params, *, fit=None, **reference):
    """Fit CompAdaGradClassifier(**params) on a binary problem (``fit``: the
    keyword arguments of ``fit``) and run the brute-force AdaGrad with the same
    hyperparameters and ``preconditioner`` (``reference``: its ``weights``,
    ``coef`` and ``intercept``); returns the model and the reference's
    ``(coef, intercept)``."""
    model = CompAdaGradClassifier(**params).fit(X, y, **(fit or {}))
    signs = np.where(y == 1, 1.0, -1.0)
    x, b = _brute_force_adagrad(
        X, signs, model.get_params(), preconditioner=preconditioner, **reference
    )
    return model, (x, b)


def _binary_data(n_samples=60, n_features=5, random_state=0):
    X, y = make_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_informative=3,
        n_redundant=1,
        random_state=random_state,
    )
    return StandardScaler().fit_transform(X), y


def _multiclass_data(n_samples=90, n_features=6, n_classes=3, random_state=0):
    X, y = make_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_informative=4,
        n_classes=n_classes,
        n_clusters_per_class=1,
        random_state=random_state,
    )
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("loss", _LOSSES)
@pytest.mark.parametrize("penalty", ["l2", "l1", None])
def test_no_subspace_is_diagonal_adagrad(global_random_seed, loss, penalty):
    X, y = _binary_data(random_state=global_random_seed)
    params = dict(
        loss=loss, eta0=0.3, alpha=0.01, penalty=penalty, delta=0.05, batch_size=4
    )
    params.update(n_components=0, tau=1.0, shuffle=False, max_iter=3, tol=None)
    params.update(random_state=global_random_seed)
    model, (x, b) = _fit_and_brute_force(X, y, _diagonal(0.05), params)
    assert model.n_components_ == 0
    assert_allclose(model.coef_.ravel(), x, rtol=1e-10, atol=1e-12)
    assert_allclose(model.intercept_, [b], rtol=1e-10, atol=1e-12)
    # The padded coordinates never move: the data are zero there.
    state = model.state_[0]
    assert_array_equal(state.coef[X.shape[1] :], 0.0)
    assert model.t_ == 3 * 15 + 1
    assert model.n_iter_ == 3


@pytest.mark.parametrize("variant", ["paper", "theory", "balanced", "adaptive"])
@pytest.mark.parametrize("n_features", [8, 6])
@pytest.mark.parametrize("penalty", ["l2", None])
def test_full_subspace_is_full_matrix_adagrad(
    global_random_seed, variant, n_features, penalty
):
    # n_components >= n_features: the whole padded space, k = n, so
    # CompAdaGrad is full-matrix AdaGrad with H = (G + delta I)^{1/2} (paper,
    # eq. 5), G^{1/2} + delta I (theory, eq. 19) or that over sqrt(n)
    # (balanced), in the original space too since the padded block decouples.
    X, y = _binary_data(n_samples=40, n_features=n_features, random_state=0)
    params = dict(loss="log_loss", eta0=0.2, alpha=0.05, delta=0.1, batch_size=3)
    params.update(n_components=n_features, variant=variant, penalty=penalty)
    params.update(shuffle=False, max_iter=4, tol=None, random_state=global_random_seed)
    preconditioner = _full_matrix(0.1, variant, n_padded=8)
    model, (x, b) = _fit_and_brute_force(X, y, preconditioner, params)
    assert model.n_components_ == 8 == model.projection_.n_padded_
    assert_allclose(model.coef_.ravel(), x, rtol=1e-10, atol=1e-10)
    assert_allclose(model.intercept_, [b], rtol=1e-10, atol=1e-12)


def test_full_subspace_does_not_depend_on_the_projection():
    # Full-matrix AdaGrad is rotation invariant: any k = n SRHT gives it.
    X, y = _binary_data(n_samples=50, n_features=8)
    params = dict(n_components=100, shuffle=False, max_iter=2, tol=None)
    first = CompAdaGradClassifier(random_state=0, **params).fit(X, y)
    second = CompAdaGradClassifier(random_state=1, **params).fit(X, y)
    assert np.any(first.projection_.signs_ != second.projection_.signs_)
    assert_allclose(first.coef_, second.coef_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_partial_fit_over_chunks_equals_one_epoch_of_fit(n_classes, sparse):
    X, y = _multiclass_data(n_samples=96, n_features=12, n_classes=n_classes)
    if sparse:
        X[np.abs(X) < 0.7] = 0.0
        X = sp.csr_matrix(X)
    params = dict(
        n_components=4, batch_size=8, shuffle=False, random_state=3, alpha=1e-3
    )
    fitted = CompAdaGradClassifier(max_iter=1, tol=None, **params).fit(X, y)

    streamed = CompAdaGradClassifier(**params)
    classes = np.unique(y)
    for start, stop in [(0, 24), (24, 40), (40, 96)]:
        streamed.partial_fit(X[start:stop], y[start:stop], classes=classes)

    assert_allclose(streamed.coef_, fitted.coef_, rtol=1e-12, atol=1e-14)
    assert_allclose(streamed.intercept_, fitted.intercept_, rtol=1e-12, atol=1e-14)
    for mine, theirs in zip(streamed.state_, fitted.state_):
        assert_allclose(mine.subspace_gram, theirs.subspace_gram, rtol=1e-12)
        assert_allclose(mine.complement_sq, theirs.complement_sq, rtol=1e-12)
        assert mine.n_updates == theirs.n_updates == 12
    assert_array_equal(streamed.projection_.rows_, fitted.projection_.rows_)
    assert_array_equal(streamed.projection_.signs_, fitted.projection_.signs_)
    assert streamed.t_ == fitted.t_ == 13
    assert streamed.n_iter_ == fitted.n_iter_ == 1


def test_partial_fit_keeps_the_preconditioner():
    X, y = _binary_data(n_samples=40)
    model = CompAdaGradClassifier(n_components=2, batch_size=10, shuffle=False)
    model.partial_fit(X[:20], y[:20], classes=[0, 1])
    projection = model.projection_
    gram = model.state_[0].subspace_gram.copy()
    sq = model.state_[0].complement_sq.copy()
    model.partial_fit(X[20:], y[20:])
    assert model.projection_ is projection
    # The sums only grow: the second call added its gradients to the first's.
    assert np.all(np.diag(model.state_[0].subspace_gram) >= np.diag(gram))
    assert np.all(model.state_[0].complement_sq >= sq)
    assert np.any(model.state_[0].complement_sq > sq)
    assert model.state_[0].n_updates == 4
    assert model.t_ == 5


def test_partial_fit_errors():
    X, y = _multiclass_data()
    model = CompAdaGradClassifier()
    with pytest.raises(ValueError, match="classes must be passed"):
        model.partial_fit(X, y)
    with pytest.raises(ValueError, match="balanced"):
        CompAdaGradClassifier(class_weight="balanced").partial_fit(
            X, y, classes=np.unique(y)
        )
    model.partial_fit(X, y, classes=np.unique(y))
    with pytest.raises(ValueError, match="not the same as on the first call"):
        model.partial_fit(X, y, classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(X[:, :3], y)
    with pytest.raises(ValueError, match="not in classes"):
        model.partial_fit(X, y + 5)
    with pytest.raises(ValueError, match="class"):
        CompAdaGradClassifier().partial_fit(X, y, classes=[0])


def test_accuracy_of_sgd_classifier_level_on_separable_data(global_random_seed):
    X, y = make_classification(
        n_samples=1000,
        n_features=20,
        n_informative=5,
        n_redundant=5,
        class_sep=2.0,
        flip_y=0.0,
        random_state=global_random_seed,
    )
    X = StandardScaler().fit_transform(X)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=0
    )
    sgd = SGDClassifier(random_state=global_random_seed).fit(X_train, y_train)
    model = CompAdaGradClassifier(
        n_components=8, batch_size=8, random_state=global_random_seed
    ).fit(X_train, y_train)
    assert model.n_iter_ < model.max_iter
    assert model.score(X_test, y_test) >= sgd.score(X_test, y_test) - 0.02
    assert model.score(X_test, y_test) > 0.9


def test_stopping_rule_and_convergence_warning():
    X, y = _binary_data(n_samples=100)
    with pytest.warns(ConvergenceWarning, match="Maximum number of iteration"):
        CompAdaGradClassifier(max_iter=2, random_state=0).fit(X, y)
    model = CompAdaGradClassifier(n_iter_no_change=3, random_state=0).fit(X, y)
    assert 3 < model.n_iter_ < model.max_iter
    # tol=None runs every epoch and never warns.
    model = CompAdaGradClassifier(max_iter=7, tol=None, random_state=0).fit(X, y)
    assert model.n_iter_ == 7


@pytest.mark.parametrize("loss", ["log_loss", "modified_huber"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_predict_proba(loss, n_classes):
    X, y = _multiclass_data(n_classes=n_classes)
    model = CompAdaGradClassifier(loss=loss, batch_size=4, random_state=0).fit(X, y)
    proba = model.predict_proba(X)
    assert proba.shape == (X.shape[0], n_classes)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all((proba >= 0) & (proba <= 1))
    # modified_huber gives hard zeros, whose log is -inf (as SGDClassifier).
    with np.errstate(divide="ignore"):
        assert_allclose(model.predict_log_proba(X), np.log(proba))
    scores = model.decision_function(X)
    if n_classes == 2:
        positive = (
            expit(scores) if loss == "log_loss" else (np.clip(scores, -1, 1) + 1) / 2
        )
        assert_allclose(proba[:, 1], positive)
    elif loss == "log_loss":
        ovr = expit(scores)
        assert_allclose(proba, ovr / ovr.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "perceptron"])
def test_no_predict_proba_for_other_losses(loss):
    X, y = _binary_data()
    model = CompAdaGradClassifier(loss=loss, random_state=0).fit(X, y)
    assert not hasattr(model, "predict_proba")
    assert not hasattr(model, "predict_log_proba")
    with pytest.raises(AttributeError, match="has no attribute 'predict_proba'"):
        model.predict_proba(X)


def test_sample_weight_scales_the_gradient():
    # fit rescales the weights to sum to n_samples (the objective is their
    # weighted mean loss), then each scales its sample's gradient.
    X, y = _binary_data(n_samples=40)
    weights = np.random.RandomState(0).uniform(0.1, 3.0, size=40)
    params = dict(
        n_components=0, eta0=0.3, alpha=0.01, batch_size=5, shuffle=False, tol=None
    )
    model, (x, b) = _fit_and_brute_force(
        X,
        y,
        _diagonal(1e-2),
        {**params, "max_iter": 2},
        fit={"sample_weight": weights},
        weights=weights * (40 / weights.sum()),
    )
    assert_allclose(model.coef_.ravel(), x, rtol=1e-10, atol=1e-12)
    assert_allclose(model.intercept_, [b], rtol=1e-10, atol=1e-12)


def test_class_weight_is_a_per_class_sample_weight():
    X, y = _multiclass_data()
    params = dict(n_components=3, batch_size=4, random_state=0, max_iter=3, tol=None)
    class_weight = {0: 2.0, 1: 0.5, 2: 1.5}
    with_class_weight = CompAdaGradClassifier(class_weight=class_weight, **params)
    with_class_weight.fit(X, y)
    sample_weight = np.array([class_weight[label] for label in y])
    with_sample_weight = CompAdaGradClassifier(**params).fit(
        X, y, sample_weight=sample_weight
    )
    assert_allclose(with_class_weight.coef_, with_sample_weight.coef_, rtol=1e-12)
    balanced = CompAdaGradClassifier(class_weight="balanced", **params).fit(X, y)
    counts = np.bincount(y)
    sample_weight = (len(y) / (3 * counts))[y]
    expected = CompAdaGradClassifier(**params).fit(X, y, sample_weight=sample_weight)
    assert_allclose(balanced.coef_, expected.coef_, rtol=1e-12)


def test_zero_weight_is_removing_the_sample():
    # In one full batch, a sample of weight 0 adds nothing to the gradient,
    # and the weights are rescaled to sum to the number of samples: the mean
    # gradient is the one of the remaining samples, as without them.
    X, y = _multiclass_data(n_samples=60)
    keep = np.arange(60) % 3 != 0
    params = dict(n_components=2, batch_size=60, shuffle=False, tol=None)
    weighted = CompAdaGradClassifier(max_iter=2, random_state=0, **params).fit(
        X, y, sample_weight=keep.astype(float)
    )
    removed = CompAdaGradClassifier(max_iter=2, random_state=0, **params).fit(
        X[keep], y[keep]
    )
    assert_allclose(weighted.coef_, removed.coef_, rtol=1e-10, atol=1e-12)
    assert_allclose(weighted.intercept_, removed.intercept_, rtol=1e-10, atol=1e-12)


def test_warm_start_continues_the_fit(check_warm_start_needs_the_same_problem):
    X, y = _multiclass_data()
    params = dict(n_components=3, batch_size=8, shuffle=False, tol=None, random_state=0)
    two_epochs = CompAdaGradClassifier(max_iter=2, **params).fit(X, y)
    warm = CompAdaGradClassifier(max_iter=1, warm_start=True, **params)
    warm.fit(X, y)
    projection = warm.projection_
    warm.fit(X, y)
    assert warm.projection_ is projection
    assert_allclose(warm.coef_, two_epochs.coef_, rtol=1e-12, atol=1e-14)
    assert_allclose(warm.intercept_, two_epochs.intercept_, rtol=1e-12, atol=1e-14)
    assert warm.n_iter_ == 1
    # Without warm_start, fit starts afresh.
    cold = CompAdaGradClassifier(max_iter=1, **params)
    cold.fit(X, y)
    first = cold.coef_.copy()
    cold.fit(X, y)
    assert_allclose(cold.coef_, first, rtol=1e-12)
    # Warm start needs the same problem.
    check_warm_start_needs_the_same_problem(warm, X, y)


def test_coef_init_and_intercept_init():
    X, y = _binary_data(n_samples=30)
    rng = np.random.RandomState(0)
    coef_init = rng.normal(size=X.shape[1])
    params = dict(n_components=0, eta0=0.2, batch_size=3, shuffle=False, tol=None)
    model, (x, b) = _fit_and_brute_force(
        X,
        y,
        _diagonal(1e-2),
        {**params, "max_iter": 2},
        fit={"coef_init": coef_init[None, :], "intercept_init": [0.7]},
        coef=coef_init,
        intercept=0.7,
    )
    assert_allclose(model.coef_.ravel(), x, rtol=1e-10, atol=1e-12)
    assert_allclose(model.intercept_, [b], rtol=1e-10)
    # A 1-d coef_init and a scalar intercept_init work for binary problems.
    same = CompAdaGradClassifier(max_iter=2, **params).fit(
        X, y, coef_init=coef_init, intercept_init=0.7
    )
    assert_allclose(same.coef_, model.coef_, rtol=1e-12)
    # coef_init overrides warm_start and starts a fresh preconditioner.
    warm = CompAdaGradClassifier(max_iter=2, warm_start=True, **params).fit(X, y)
    warm.fit(X, y, coef_init=coef_init, intercept_init=0.7)
    assert_allclose(warm.coef_, model.coef_, rtol=1e-12)
    with pytest.raises(ValueError, match="coef_init"):
        CompAdaGradClassifier().fit(X, y, coef_init=np.zeros((2, X.shape[1])))
    with pytest.raises(ValueError, match="intercept_init"):
        CompAdaGradClassifier().fit(X, y, intercept_init=[0.0, 1.0])


def test_fit_intercept_false():
    X, y = _binary_data()
    model = CompAdaGradClassifier(fit_intercept=False, random_state=0).fit(X, y)
    assert_array_equal(model.intercept_, [0.0])
    assert_array_equal(model.intercept_grad_sq_sum_, [0.0])
    assert_allclose(model.decision_function(X), X @ model.coef_.ravel())
    # intercept_init is then a fixed offset, as in SGDClassifier.
    params = dict(n_components=0, batch_size=4, shuffle=False, max_iter=2, tol=None)
    model, (x, b) = _fit_and_brute_force(
        X,
        y,
        _diagonal(1e-2),
        {**params, "fit_intercept": False},
        fit={"intercept_init": 0.5},
        intercept=0.5,
    )
    assert b == 0.5
    assert_array_equal(model.intercept_, [0.5])
    assert_allclose(model.coef_.ravel(), x, rtol=1e-10, atol=1e-12)


def test_blas_limit_is_restored():
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]

    before = blas_threads()
    X, y = _multiclass_data()
    CompAdaGradClassifier(max_iter=2, tol=None, random_state=0).fit(X, y)
    assert blas_threads() == before


@pytest.mark.parametrize("sparse", [False, True])
def test_float32_is_kept(sparse):
    X, y = _multiclass_data()
    X32 = X.astype(np.float32)
    if sparse:
        X32 = sp.csr_matrix(X32)
    params = dict(n_components=3, batch_size=4, random_state=0, max_iter=3, tol=None)
    model32 = CompAdaGradClassifier(**params).fit(X32, y)
    model64 = CompAdaGradClassifier(**params).fit(X.astype(np.float32).astype(float), y)
    assert model32.coef_.dtype == np.float32
    assert model32.intercept_.dtype == np.float32
    assert model32.decision_function(X32).dtype == np.float32
    # The iterates are kept in float64: the same fit as on the upcast data.
    assert model32.state_[0].coef.dtype == np.float64
    assert_allclose(model32.coef_, model64.coef_, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_csr_equals_dense(csr_container, n_classes, check_csr_equals_dense):
    X, y = _multiclass_data(n_samples=80, n_features=10, n_classes=n_classes)
    X[np.abs(X) < 0.5] = 0.0
    params = dict(n_components=4, batch_size=5, random_state=0, max_iter=3, tol=None)
    check_csr_equals_dense(CompAdaGradClassifier, params, X, y, csr_container)


@pytest.mark.parametrize(
    "params",
    [
        {"loss": "huber"},
        {"loss": "squared_error"},
        {"penalty": "l3"},
        {"l1_ratio": 1.5},
        {"early_stopping": "yes"},
        {"validation_fraction": 1.0},
        {"validation_fraction": 0.0},
        {"alpha": -1.0},
        {"eta0": 0.0},
        {"n_components": -1},
        {"tau": 0.0},
        {"delta": 0.0},
        {"variant": "exact"},
        {"batch_size": 0},
        {"max_iter": 0},
        {"tol": -1.0},
        {"n_iter_no_change": 0},
        {"class_weight": "uniform"},
        {"n_jobs": 1.5},
    ],
)
def test_bad_parameters(params):
    X, y = _binary_data()
    model = CompAdaGradClassifier(**params)
    with pytest.raises(InvalidParameterError):
        model.fit(X, y)
    with pytest.raises(InvalidParameterError):
        clone(model).partial_fit(X, y, classes=[0, 1])


def test_no_epsilon_parameter():
    # The damping is delta; SGDClassifier's epsilon is the Huber margin.
    assert "epsilon" not in CompAdaGradClassifier().get_params()
    with pytest.raises(TypeError):
        CompAdaGradClassifier(epsilon=0.1)


def test_one_class_is_refused():
    X, _ = _binary_data()
    with pytest.raises(ValueError, match="got 1 class"):
        CompAdaGradClassifier().fit(X, np.zeros(X.shape[0]))


@pytest.mark.parametrize("sparse", [False, True])
def test_input_not_modified(sparse):
    X, y = _multiclass_data()
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    sample_weight = np.linspace(0.5, 2.0, X.shape[0])
    X_copy = X.copy()
    y_copy = y.copy()
    weight_copy = sample_weight.copy()
    model = CompAdaGradClassifier(n_components=3, max_iter=2, tol=None)
    model.fit(X, y, sample_weight=sample_weight)
    model.partial_fit(X, y, sample_weight=sample_weight)
    model.predict(X)
    if sparse:
        assert_array_equal(X.toarray(), X_copy.toarray())
    else:
        assert_array_equal(X, X_copy)
    assert_array_equal(y, y_copy)
    assert_array_equal(sample_weight, weight_copy)


def test_reproducible_with_random_state():
    X, y = _multiclass_data()
    params = dict(n_components=3, batch_size=4, max_iter=3, tol=None)
    first = CompAdaGradClassifier(random_state=7, **params).fit(X, y)
    second = CompAdaGradClassifier(random_state=7, **params).fit(X, y)
    assert_array_equal(first.coef_, second.coef_)
    assert_array_equal(first.intercept_, second.intercept_)
    assert_array_equal(first.projection_.rows_, second.projection_.rows_)
    other = CompAdaGradClassifier(random_state=8, **params).fit(X, y)
    assert not np.allclose(other.coef_, first.coef_)
    # A RandomState instance is consumed; an int is not.
    rng = np.random.RandomState(7)
    CompAdaGradClassifier(random_state=rng, **params).fit(X, y)
    again = CompAdaGradClassifier(random_state=rng, **params).fit(X, y)
    assert not np.allclose(again.coef_, first.coef_)


def test_n_jobs_does_not_change_the_result():
    X, y = _multiclass_data(n_classes=4, n_samples=120)
    params = dict(n_components=3, batch_size=4, max_iter=3, tol=None, random_state=0)
    sequential = CompAdaGradClassifier(n_jobs=1, **params).fit(X, y)
    parallel = CompAdaGradClassifier(n_jobs=2, **params).fit(X, y)
    assert_array_equal(parallel.coef_, sequential.coef_)
    assert_array_equal(parallel.intercept_, sequential.intercept_)
    assert parallel.n_iter_ == sequential.n_iter_
    assert parallel.t_ == sequential.t_


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_one_vs_rest_shapes(n_classes):
    X, y = _multiclass_data(n_samples=100, n_features=7, n_classes=n_classes)
    labels = np.array(["a", "b", "c", "d", "e"])[:n_classes]
    model = CompAdaGradClassifier(n_components=2, batch_size=4, random_state=0)
    model.fit(X, labels[y])
    n_problems = 1 if n_classes == 2 else n_classes
    assert_array_equal(model.classes_, labels)
    assert model.coef_.shape == (n_problems, 7)
    assert model.intercept_.shape == (n_problems,)
    assert model.intercept_grad_sq_sum_.shape == (n_problems,)
    assert len(model.state_) == n_problems
    assert model.n_features_in_ == 7
    assert model.n_components_ == 2
    assert model.projection_.n_padded_ == 8
    assert all(state.coef.shape == (8,) for state in model.state_)
    scores = model.decision_function(X)
    assert scores.shape == ((100,) if n_classes == 2 else (100, n_classes))
    # coef_ is the first n_features coordinates of the padded iterates.
    expected = (
        np.column_stack([X @ state.coef[:7] for state in model.state_])
        + model.intercept_
    )
    assert_allclose(scores.reshape(100, -1), expected)
    assert set(model.predict(X)) <= set(labels)
    assert model.score(X, labels[y]) > 0.6


def test_n_components_larger_than_padding_and_one_feature():
    X, y = _binary_data(n_features=5)
    X = X[:, :3]
    model = CompAdaGradClassifier(n_components=2, random_state=0).fit(X, y)
    assert model.n_components_ == 2
    model = CompAdaGradClassifier(n_components=3, random_state=0).fit(X, y)
    assert model.n_components_ == 4  # full matrix in the padded space
    model = CompAdaGradClassifier(n_components=64, random_state=0).fit(X[:, :1], y)
    assert model.n_components_ == 1
    assert model.coef_.shape == (1, 1)
    # One feature has no correlations: 'auto' takes diagonal AdaGrad, which
    # is the full matrix there.
    auto = CompAdaGradClassifier(random_state=0).fit(X[:, :1], y)
    assert auto.n_components_ == 0
    assert_allclose(auto.coef_, model.coef_, rtol=1e-12)


def test_pickle_round_trip_continues_partial_fit():
    X, y = _multiclass_data()
    params = dict(n_components=3, batch_size=6, shuffle=False, random_state=0)
    model = CompAdaGradClassifier(**params).partial_fit(
        X[:45], y[:45], classes=[0, 1, 2]
    )
    restored = pickle.loads(pickle.dumps(model))
    model.partial_fit(X[45:], y[45:])
    restored.partial_fit(X[45:], y[45:])
    assert_array_equal(restored.coef_, model.coef_)


def test_l1_penalty_gives_exact_zeros():
    # The l1 composite step is an exact LASSO: once the penalty dominates the
    # (noise) gradients, coefficients are exactly zero; a tiny one zeroes none.
    X, y = _binary_data(n_samples=100, n_features=20)
    params = dict(penalty="l1", n_components=4, batch_size=10, max_iter=5, tol=None)
    sparse = CompAdaGradClassifier(alpha=0.3, random_state=0, **params).fit(X, y)
    dense = CompAdaGradClassifier(alpha=1e-8, random_state=0, **params).fit(X, y)
    assert np.sum(sparse.coef_ == 0) >= 5
    assert np.sum(dense.coef_ == 0) == 0


def test_verbose_prints_the_epochs(capsys):
    X, y = _binary_data()
    CompAdaGradClassifier(verbose=1, max_iter=3, tol=None, random_state=0).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("-- Epoch") == 3
    assert "objective" in out


# -- overflow (SGDClassifier's error) ------------------------------------------

_OVERFLOW = (
    r"Floating-point under-/overflow occurred at epoch #1\. Scaling input data "
    r"with StandardScaler or MinMaxScaler might help\."
)


@pytest.mark.parametrize("errstate", ["ignore", "raise"])
@pytest.mark.parametrize(
    "scale, params",
    [
        # A subspace: its statistics overflow first (diagonal AdaGrad's
        # squared gradients stay finite at this scale).
        (1e150, {"n_components": 64}),
        # Just inside the range of check_square_range (data beyond it is
        # refused first, naming X: see below).
        (1e152, {"n_components": 64}),
        (1e152, {"eta0": 1e300, "n_components": 0, "penalty": "l1"}),
        (1.0, {"eta0": 1e300, "n_components": 8, "loss": "squared_hinge"}),
    ],
)
def test_overflow_raises_sgd_value_error(errstate, scale, params):
    # LAPACK's "Eigenvalues did not converge" or numpy's FloatingPointError
    # before; SGDClassifier's ValueError under both error states now.
    X, y = _binary_data()
    model = CompAdaGradClassifier(random_state=0, max_iter=3, **params)
    with np.errstate(all=errstate):
        with pytest.raises(ValueError, match=_OVERFLOW):
            model.fit(X * scale, y)


def test_float32_coefficients_that_overflow_raise():
    # The iterates are float64; coef_ in float32 would hold inf. eta0=1e40
    # moves them beyond float32's range at the first step (this test used
    # delta=1e-300, whose steps of 1e281 were the rounding noise that the
    # floor of the metric now removes: see the delta tests below).
    rng = np.random.RandomState(0)
    X = rng.standard_normal((60, 6)) * (rng.rand(60, 6) < 0.5)
    y = rng.randint(0, 2, 60)
    model = CompAdaGradClassifier(
        n_components=64,
        eta0=1e40,
        batch_size=1,
        alpha=0.0,
        max_iter=5,
        random_state=0,
    )
    with pytest.raises(ValueError, match=_OVERFLOW):
        model.fit(X.astype(np.float32), y)
    # In float64 the same fit is finite, beyond float32's range.
    model.fit(X, y)
    assert np.finfo(np.float32).max < np.abs(model.coef_).max() < np.inf


def test_failed_partial_fit_leaves_the_model_unchanged():
    X, y = _multiclass_data()
    model = CompAdaGradClassifier(n_components=3, random_state=0)
    model.partial_fit(X, y, classes=[0, 1, 2])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=_OVERFLOW):
        model.partial_fit(X * 1e152, y)
    assert pickle.dumps(model) == before
    # A failed first call leaves it unfitted.
    fresh = CompAdaGradClassifier(n_components=3, random_state=0)
    with pytest.raises(ValueError, match=_OVERFLOW):
        fresh.partial_fit(X * 1e152, y, classes=[0, 1, 2])
    assert not hasattr(fresh, "classes_") and not hasattr(fresh, "coef_")


def _assert_constant_weights_give_the_unweighted_fit(weight):
    """Every sample of weight ``weight``: the coefficients of the unweighted fit."""
    X, y = _binary_data()
    params = dict(random_state=0, max_iter=3, tol=None)
    huge = CompAdaGradClassifier(**params).fit(X, y, sample_weight=np.full(60, weight))
    unit = CompAdaGradClassifier(**params).fit(X, y)
    assert_allclose(huge.coef_, unit.coef_, rtol=1e-12)


def test_huge_sample_weights_are_rescaled():
    # sample_weight=1e200 overflowed the statistics (LinAlgError); the
    # weights are rescaled to sum to n_samples, so it is the unweighted fit.
    _assert_constant_weights_give_the_unweighted_fit(1e200)


def test_tiny_delta_on_half_zero_data_fits():
    # delta=1e-30 on coordinates without gradient raised LinAlgError
    # ("dpotrf info=2") in the complement solve.
    rng = np.random.RandomState(0)
    X = rng.standard_normal((40, 3)) * (rng.rand(40, 3) < 0.5)
    y = rng.randint(0, 2, 40)
    model = CompAdaGradClassifier(
        delta=1e-30,
        n_components=2,
        batch_size=1,
        alpha=0.0,
        max_iter=5,
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    assert np.isfinite(model.coef_).all()


def test_l1_step_on_an_underflowed_metric_raises_sgd_value_error():
    # tau = 1e-300 makes the complement metric negligible next to the
    # subspace part: the homotopy's Cholesky factorization raised numpy's
    # LinAlgError ("Matrix is not positive definite") out of fit (issue 16).
    # 'balanced' is singular here; the default 'adaptive' fits, with finite
    # coefficients. (Seed 9 relied on delta=1e-300 in the subspace part too,
    # which the rounding floor of the metric now keeps at the level of the
    # statistics: issue 38.)
    rng = np.random.RandomState(4)
    X = rng.standard_normal((8, 4)) * 1e-8
    y = rng.randint(0, 2, 8)
    model = CompAdaGradClassifier(
        variant="balanced",
        penalty="l1",
        alpha=1e-300,
        eta0=1e-3,
        n_components=2,
        tau=1e-300,
        delta=1e-300,
        batch_size=1,
        max_iter=1,
        tol=None,
        random_state=0,
    )
    with pytest.raises(ValueError, match=_OVERFLOW) as info:
        model.fit(X, y)
    assert not isinstance(info.value, np.linalg.LinAlgError)
    model.set_params(variant="adaptive").fit(X, y)
    assert np.all(np.isfinite(model.coef_)) and np.all(np.isfinite(model.intercept_))


def test_intercept_statistics_that_overflow_raise():
    # partial_fit uses the weights as given: with 1e200 and no feature
    # gradient (zero rows) the intercept's squared-gradient sum became inf,
    # unchecked (issue 16).
    X = np.zeros((10, 3))
    y = np.r_[np.zeros(3), np.ones(7)]
    model = CompAdaGradClassifier(random_state=0)
    with pytest.raises(ValueError, match=_OVERFLOW):
        model.partial_fit(X, y, classes=[0, 1], sample_weight=np.full(10, 1e200))
    assert not hasattr(model, "coef_")


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_data_whose_squares_overflow_is_refused_naming_x(method):
    # 1e200 ended in SGDClassifier's overflow error at epoch 1 after the
    # work; the range is checked first, naming X (issue 16).
    X, y = _binary_data()
    model = CompAdaGradClassifier(random_state=0)
    kwargs = {"classes": [0, 1]} if method == "partial_fit" else {}
    with pytest.raises(ValueError, match="X holds values up to 2.*e\\+200"):
        getattr(model, method)(X * 1e200, y, **kwargs)


def test_weights_whose_sum_overflows_are_rescaled():
    # 60 weights of 1e307 sum to inf: the rescaled weights were 0 * inf
    # (issue 16). They are the unweighted fit, as 1e200 is.
    _assert_constant_weights_give_the_unweighted_fit(1e307)


# -- early stopping (SGDClassifier's) ------------------------------------------


def test_early_stopping_validation_set_not_used_for_training():
    # As sklearn's test_validation_set_not_used_for_training: the fit with
    # early stopping is the fit on the training part of the stratified split.
    X, y = _multiclass_data(n_samples=90)
    params = dict(n_components=3, tol=None, max_iter=4, shuffle=False, random_state=3)
    early = CompAdaGradClassifier(
        early_stopping=True, validation_fraction=0.3, **params
    ).fit(X, y)
    assert early.n_iter_ == 4
    cv = StratifiedShuffleSplit(test_size=0.3, random_state=3)
    train, val = next(cv.split(X, y))
    plain = CompAdaGradClassifier(**params).fit(X[np.sort(train)], y[np.sort(train)])
    assert_allclose(early.coef_, plain.coef_, rtol=1e-12)
    assert_allclose(early.intercept_, plain.intercept_, rtol=1e-12)
    # The recorded scores are the one-vs-rest accuracies on the held-out rows.
    assert early.validation_scores_.shape == (3, 4)
    scores = plain.decision_function(X[val])
    for i in range(3):
        expected = np.mean((scores[:, i] > 0) == (y[val] == i))
        assert early.validation_scores_[i, -1] == pytest.approx(expected)
    assert_allclose(early.best_validation_score_, early.validation_scores_.max(axis=1))
    assert early.best_loss_ is None
    assert plain.validation_scores_ is None and plain.best_validation_score_ is None
    assert plain.best_loss_.shape == (3,)


def test_a_random_state_instance_holds_out_the_rows_sgd_holds_out(monkeypatch):
    # SGDClassifier draws the validation split from random_state before the
    # seeds of its problems: the same RandomState holds out the same rows.
    import skcgm.linear_model._compadagrad as module

    held_out = []
    split = module.early_stopping_mask

    def spy(*args):
        mask = split(*args)
        held_out.append(mask)
        return mask

    monkeypatch.setattr(module, "early_stopping_mask", spy)
    X, y = _multiclass_data(n_samples=90)
    CompAdaGradClassifier(
        early_stopping=True,
        max_iter=2,
        tol=None,
        random_state=np.random.RandomState(7),
    ).fit(X, y)
    sgd = SGDClassifier(early_stopping=True, random_state=np.random.RandomState(7))
    expected = sgd._make_validation_split(y, sample_mask=np.ones(y.shape[0], bool))
    assert_array_equal(held_out[0], expected)


def test_early_stopping_stops_on_the_validation_score():
    X, y = _binary_data(n_samples=200)
    params = dict(n_components=3, tol=1e-3, max_iter=500, random_state=0)
    for early_stopping in (True, False):
        model = CompAdaGradClassifier(early_stopping=early_stopping, **params)
        model.fit(X, y)
        assert model.n_iter_ < 500
    # No improvement of the score by tol for n_iter_no_change epochs in a row:
    # the last n_iter_no_change scores are below the best before them + tol.
    model = CompAdaGradClassifier(
        early_stopping=True, n_iter_no_change=3, **params
    ).fit(X, y)
    scores = model.validation_scores_[0]
    assert scores.shape == (model.n_iter_,)
    best_before = scores[: model.n_iter_ - 3].max()
    assert np.all(scores[-3:] < best_before + 1e-3)
    # n_iter_ grows with n_iter_no_change (sklearn's test_n_iter_no_change).
    n_iters = [
        CompAdaGradClassifier(early_stopping=True, n_iter_no_change=n, **params)
        .fit(X, y)
        .n_iter_
        for n in (2, 3, 10)
    ]
    assert n_iters == sorted(n_iters)


def test_best_loss_is_the_smallest_epoch_objective():
    X, y = _binary_data()
    params = dict(n_components=3, random_state=0, shuffle=False)
    model = CompAdaGradClassifier(tol=None, max_iter=6, **params).fit(X, y)
    objectives = [
        CompAdaGradClassifier(tol=None, max_iter=m, verbose=0, **params)
        .fit(X, y)
        .best_loss_[0]
        for m in (1, 2, 3)
    ]
    # Non-increasing in max_iter, and the 6-epoch fit no larger.
    assert objectives == sorted(objectives, reverse=True)
    assert model.best_loss_[0] <= objectives[-1]
    online = CompAdaGradClassifier(**params)
    online.partial_fit(X, y, classes=[0, 1])
    first = online.best_loss_.copy()
    online.partial_fit(X, y)
    assert online.best_loss_[0] <= first[0]
    assert online.validation_scores_ is None


def test_early_stopping_errors():
    X, y = _binary_data()
    with pytest.raises(ValueError, match="early_stopping should be False with"):
        CompAdaGradClassifier(early_stopping=True).partial_fit(X, y, classes=[0, 1])
    # The splitter's test_size and train_size are validation_fraction here.
    with pytest.raises(
        ValueError,
        match=r"validation_fraction=0.99 holds out 60 of the 60 samples and "
        r"trains on the other 0",
    ):
        CompAdaGradClassifier(early_stopping=True, validation_fraction=0.99).fit(X, y)
    for fraction, held, kept in ((0.01, 1, 59), (0.98, 59, 1)):
        with pytest.raises(ValueError, match="test_size|train_size") as raised:
            StratifiedShuffleSplit(test_size=fraction).split(X, y).__next__()
        with pytest.raises(
            ValueError,
            match=rf"validation_fraction={fraction} holds out {held} of the 60 "
            rf"samples and trains on the other {kept}: both sets need a sample "
            r"of each of the 2 classes",
        ) as ours:
            CompAdaGradClassifier(
                early_stopping=True, validation_fraction=fraction
            ).fit(X, y)
        assert "size" not in str(ours.value) and ours.value.__cause__ is not None
        assert type(raised.value) is type(ours.value.__cause__)
    with pytest.raises(ValueError, match="validation set are all zero"):
        CompAdaGradClassifier(early_stopping=True, random_state=0).fit(
            X, y, sample_weight=np.zeros(60)
        )


# -- elastic net ---------------------------------------------------------------


def test_elasticnet_needs_l1_ratio_and_its_limits_are_l1_and_l2():
    X, y = _multiclass_data()
    with pytest.raises(ValueError, match="l1_ratio must be set when penalty is"):
        CompAdaGradClassifier(penalty="elasticnet", l1_ratio=None).fit(X, y)
    params = dict(n_components=3, alpha=0.05, max_iter=3, tol=None, random_state=0)
    for l1_ratio, penalty in [(1.0, "l1"), (0.0, "l2")]:
        net = CompAdaGradClassifier(penalty="elasticnet", l1_ratio=l1_ratio, **params)
        ref = CompAdaGradClassifier(penalty=penalty, **params)
        assert_allclose(net.fit(X, y).coef_, ref.fit(X, y).coef_, rtol=1e-9)
    # l1_ratio is ignored by the other penalties, as in SGDClassifier.
    a = CompAdaGradClassifier(penalty="l1", l1_ratio=None, **params).fit(X, y)
    b = CompAdaGradClassifier(penalty="l1", l1_ratio=0.7, **params).fit(X, y)
    assert_array_equal(a.coef_, b.coef_)
    net = CompAdaGradClassifier(
        penalty="elasticnet", l1_ratio=0.5, **{**params, "alpha": 0.2}
    ).fit(X, y)
    assert 0 < np.count_nonzero(net.coef_) < net.coef_.size


# -- sparsify / densify (SparseCoefMixin) --------------------------------------


def test_sparsify_densify_keep_the_predictions():
    # As sklearn's test_sgd sparsify test.
    X, y = _multiclass_data()
    model = CompAdaGradClassifier(
        penalty="l1", alpha=0.05, n_components=3, random_state=0
    ).fit(X, y)
    expected = model.decision_function(X)
    assert isinstance(model, SparseCoefMixin)
    model.sparsify()
    assert sp.issparse(model.coef_)
    assert_allclose(model.decision_function(X), expected)
    assert_array_equal(model.predict(X), expected.argmax(axis=1))
    restored = pickle.loads(pickle.dumps(model))
    assert_allclose(restored.decision_function(X), expected)
    model.densify()
    assert isinstance(model.coef_, np.ndarray)
    assert_allclose(model.decision_function(X), expected)
    # Continuing from a sparsified model works (the iterates are in state_).
    model.sparsify()
    model.partial_fit(X, y)
    assert isinstance(model.coef_, np.ndarray)


# -- published expected failures -----------------------------------------------


@pytest.mark.parametrize("check", ["dense", "sparse"])
def test_sample_weight_equivalence_passes_in_one_full_batch(check):
    # The published cause of the expected failure is the mini-batches: with
    # one batch holding all rows (the check uses at most 60) in a fixed order,
    # an integer weight is a repeated sample.
    from sklearn.utils import estimator_checks as sk_checks

    model = CompAdaGradClassifier(
        batch_size=1000, shuffle=False, max_iter=30, tol=None, random_state=0
    )
    assert expected_failed_checks(model) == {}
    getattr(sk_checks, f"check_sample_weight_equivalence_on_{check}_data")(
        "CompAdaGradClassifier", model
    )
    assert expected_failed_checks(CompAdaGradClassifier()) != {}


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_blas_is_single_threaded_inside_the_solver(monkeypatch, n_jobs):
    # Many small BLAS calls per step: BLAS runs on one thread in the solver,
    # in the caller's process (threading backend included) and in a worker
    # process (simulated: _fit_problem limits BLAS when its pid is not the
    # caller's).
    from joblib import parallel_config
    from threadpoolctl import threadpool_info

    from skcgm.optim.compadagrad import _epochs as module
    from skcgm.optim.compadagrad._row_readers import _rows

    seen = []
    run_epoch = module._run_epoch
    compiled_epoch = module._CompiledEpoch.__call__

    def blas_threads():
        seen.append(
            {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
        )

    paths = []

    def spy(*args, **kwargs):
        blas_threads()
        paths.append("python")
        return run_epoch(*args, **kwargs)

    def compiled_spy(self, *args, **kwargs):
        blas_threads()
        paths.append("compiled")
        return compiled_epoch(self, *args, **kwargs)

    monkeypatch.setattr(module, "_run_epoch", spy)
    monkeypatch.setattr(module._CompiledEpoch, "__call__", compiled_spy)
    X, y = _multiclass_data()
    # Full-matrix AdaGrad (k >= n_features, Python steps) and a subspace
    # (the compiled epoch).
    for n_components, path in ((64, "python"), (2, "compiled")):
        seen.clear()
        paths.clear()
        with parallel_config(backend="threading"):
            CompAdaGradClassifier(
                n_components=n_components, max_iter=1, tol=None, n_jobs=n_jobs
            ).fit(X, y)
        assert len(seen) == 3 and all(threads <= {1} for threads in seen)
        assert paths == [path] * 3

    model = CompAdaGradClassifier(max_iter=1, tol=None).fit(X, y)
    options = {**model._solver(1, None, X)._options(X), "caller_pid": -1}
    seen.clear()
    paths.clear()
    module._fit_problem(
        _rows(X),
        np.where(y == 0, 1.0, -1.0),
        np.ones(X.shape[0]),
        model.state_[0],
        0.0,
        0.0,
        model.projection_,
        options=options,
        max_iter=1,
        seed=0,
    )
    assert len(seen) == 1 and seen[0] <= {1}


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_coefficients_whose_decision_values_overflow_raise(method):
    # tau * delta = 1e-300: the first diagonal step is eta0 / tau = 1e303,
    # a finite coef_ whose decision values on the training rows are inf
    # (issue 16); a step is refused as soon as ||coef||_1 max|x| + |b|
    # leaves the range of coef_'s dtype.
    X = np.array([[-41675784.74054706], [-5626682.72263295]])
    y = np.array([3, -1])
    model = CompAdaGradClassifier(
        alpha=0.0,
        batch_size=1,
        delta=1e-300,
        tau=1e-300,
        eta0=1000.0,
        n_components=0,
        fit_intercept=False,
        shuffle=False,
        tol=None,
        max_iter=1,
        random_state=0,
    )
    with pytest.raises(ValueError, match=_OVERFLOW):
        if method == "fit":
            model.fit(X, y)
        else:
            model.partial_fit(X, y, classes=[-1, 3])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("sparse", [False, True])
def test_non_finite_input_gets_sgds_error(bad, sparse):
    # Finiteness is checked in the pass that measures |X| (one pass over X
    # fewer than validate_data's own check); the error is scikit-learn's,
    # word for word as SGDClassifier's.
    from skcgm.linear_model import LocalSensitivityLogistic

    X, y = _multiclass_data()
    X[3, 2] = bad
    if sparse:
        X = sp.csr_matrix(X)
    with pytest.raises(ValueError) as expected:
        SGDClassifier().fit(X, y)
    for estimator in (CompAdaGradClassifier(), LocalSensitivityLogistic()):
        with pytest.raises(ValueError) as ours:
            estimator.fit(X, y)
        assert str(ours.value) == str(expected.value).replace(
            "SGDClassifier", type(estimator).__name__
        )
