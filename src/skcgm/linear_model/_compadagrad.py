"""Linear classifiers trained by CompAdaGrad (compressed, complementary AdaGrad)."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import copy
import os
import warnings
from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from scipy.special import expit
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import check_is_fitted

from ..optim import init_compadagrad_state
from ..optim._compadagrad import _make_stepper
from ..oracles import SRHT
from ..oracles._sketches import _next_power_of_two
from ..utils._blocks import single_threaded_blas
from ..utils._sklearn_compat import (
    Interval,
    LinearClassifierMixin,
    SparseCoefMixin,
    StrOptions,
    _fit_context,
    validate_data,
)
from ..utils._validation import check_sample_weight, check_square_range

_MAX_SEED = np.iinfo(np.int32).max
_FLOAT64_MAX = float(np.finfo(np.float64).max)


# Losses of SGDClassifier, written in the margin z = y p (y in {-1, +1}, p the
# decision value): every function returns (loss values or None, dl/dz), so
# that dl/dp = y dl/dz. At the kinks the subgradient is sklearn's
# (sklearn/linear_model/_sgd_fast.pyx.tp: Hinge.cy_gradient uses z <= threshold).
def _hinge(z, need_loss):
    dz = -(z <= 1.0).astype(np.float64)
    return (np.maximum(1.0 - z, 0.0) if need_loss else None), dz


def _perceptron(z, need_loss):
    dz = -(z <= 0.0).astype(np.float64)
    return (np.maximum(-z, 0.0) if need_loss else None), dz


def _squared_hinge(z, need_loss):
    margin = np.maximum(1.0 - z, 0.0)
    return (margin * margin if need_loss else None), -2.0 * margin


def _log_loss(z, need_loss):
    return (np.logaddexp(0.0, -z) if need_loss else None), -expit(-z)


def _modified_huber(z, need_loss):
    # 0 for z >= 1, (1 - z)^2 for -1 <= z < 1, -4 z below (Zhang 2004).
    margin = np.maximum(1.0 - z, 0.0)
    inner = z >= -1.0
    dz = np.where(inner, -2.0 * margin, -4.0)
    loss = np.where(inner, margin * margin, -4.0 * z) if need_loss else None
    return loss, dz


_LOSSES = {
    "hinge": _hinge,
    "log_loss": _log_loss,
    "modified_huber": _modified_huber,
    "squared_hinge": _squared_hinge,
    "perceptron": _perceptron,
}


class _DenseRows:
    """Mini-batches of the rows of a C-contiguous dense array."""

    def __init__(self, X):
        self.X = X

    def take(self, rows):
        # A slice is a view; an index array copies |B| rows (one pass).
        return self.X[rows]

    @staticmethod
    def matvec(batch, w):
        return batch @ w

    @staticmethod
    def rmatvec(batch, coeff, n_features):
        return coeff @ batch


class _CSRRows:
    """Mini-batches of the rows of a CSR matrix, gathered from its arrays.

    Slicing a scipy matrix costs tens of microseconds of Python overhead per
    mini-batch; gathering ``indptr``/``indices``/``data`` directly costs a
    few numpy calls, O(nnz of the batch).
    """

    def __init__(self, X):
        self.indptr = X.indptr
        self.indices = X.indices
        self.data = X.data
        self.n_samples = X.shape[0]

    def take(self, rows):
        indptr = self.indptr
        if isinstance(rows, slice):
            start, stop = rows.start, min(rows.stop, self.n_samples)
            lengths = np.diff(indptr[start : stop + 1])
            begin, end = indptr[start], indptr[stop]
            data = self.data[begin:end]
            cols = self.indices[begin:end]
        else:
            starts = indptr[rows]
            lengths = indptr[rows + 1] - starts
            # Position of the j-th stored entry of row r: starts[r] + j.
            shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
            positions = shift + np.arange(shift.shape[0])
            data = self.data[positions]
            cols = self.indices[positions]
        row_ids = np.repeat(np.arange(lengths.shape[0]), lengths)
        return data, cols, row_ids, lengths.shape[0]

    @staticmethod
    def matvec(batch, w):
        data, cols, row_ids, n_rows = batch
        return np.bincount(row_ids, weights=data * w[cols], minlength=n_rows)

    @staticmethod
    def rmatvec(batch, coeff, n_features):
        data, cols, row_ids, _ = batch
        return np.bincount(cols, weights=data * coeff[row_ids], minlength=n_features)


def _rows(X):
    return _CSRRows(X) if sp.issparse(X) else _DenseRows(X)


def _penalty_value(penalty, alpha, l1_ratio, w):
    """phi(w), as in SGDClassifier: alpha (r ||w||_1 + (1 - r) ||w||^2 / 2).

    r is 1 for 'l1', 0 for 'l2' and ``l1_ratio`` for 'elasticnet'.
    """
    if penalty is None:
        return 0.0
    r = {"l1": 1.0, "l2": 0.0}.get(penalty, l1_ratio)
    value = 0.0
    if r < 1.0:
        value += 0.5 * (1.0 - r) * float(w @ w)
    if r > 0.0:
        value += r * float(np.abs(w).sum())
    return alpha * value


def _overflow_error(epoch):
    # SGDClassifier's message, word for word (sklearn/linear_model/_sgd_fast).
    return ValueError(
        f"Floating-point under-/overflow occurred at epoch #{epoch}. "
        "Scaling input data with StandardScaler or MinMaxScaler might help."
    )


def _run_epoch(
    rows,
    order,
    y,
    signed_weights,
    weights,
    state,
    intercept,
    intercept_sq,
    step,
    options,
    loss_fn,
    need_loss,
    epoch,
):
    """One pass over the samples, in the order ``order`` (None: as stored).

    ``y``, ``signed_weights`` (:math:`w_i y_i`) and ``weights`` are already
    in that order. Returns the state, the intercept, its squared-gradient sum
    and the epoch's objective (NaN when ``need_loss`` is False). Raises
    SGDClassifier's ValueError as soon as a step overflows, in float64 or in
    the dtype of ``coef_`` (``options['coef_max']``), coefficients or
    decision values on the training rows alike.
    """
    take, matvec, rmatvec = rows.take, rows.matvec, rows.rmatvec
    eta, delta = options["eta0"], options["delta"]
    penalty, alpha, l1_ratio = options["penalty"], options["alpha"], options["l1_ratio"]
    batch_size = options["batch_size"]
    fit_intercept = options["fit_intercept"]
    n_features = options["n_features"]
    coef_max, x_max = options["coef_max"], options["x_max"]
    n_samples = y.shape[0]
    loss_sum = 0.0
    penalty_sum = 0.0
    for start in range(0, n_samples, batch_size):
        stop = start + batch_size
        batch = take(slice(start, stop) if order is None else order[start:stop])
        y_b = y[start:stop]
        z = y_b * (matvec(batch, state.coef[:n_features]) + intercept)
        loss, dz = loss_fn(z, need_loss)
        # Gradient of the batch mean of w_i l(y_i, p_i) (mini-batches average,
        # as in the paper's RCV1 run): sum_i w_i y_i l'(z_i) a_i / |B|.
        coeff = signed_weights[start:stop] * dz
        coeff *= 1.0 / z.shape[0]
        if need_loss:
            loss_sum += float(weights[start:stop] @ loss)
            penalty_sum += z.shape[0] * _penalty_value(
                penalty, alpha, l1_ratio, state.coef
            )
        try:
            state = step(state, rmatvec(batch, coeff, n_features))
        except FloatingPointError as exc:
            raise _overflow_error(epoch) from exc
        if fit_intercept:
            # Scalar AdaGrad, unregularized: b -= eta g / (delta + sqrt(sum g^2)).
            grad_intercept = float(coeff.sum())
            intercept_sq += grad_intercept * grad_intercept
            intercept -= eta * grad_intercept / (delta + np.sqrt(intercept_sq))
        # The decision values |<a, coef> + b| are at most ||coef||_1 max|a| +
        # |b|: kept in the range of coef_'s dtype, so that coef_ and the
        # decision values on the training rows are finite (a float32 coef_
        # overflows before the float64 iterates). The intercept's
        # squared-gradient sum can overflow without moving the intercept (its
        # step is then 0). "not <=" also catches NaN.
        coef_norm = float(np.abs(state.coef[:n_features]).sum())
        if not (
            coef_norm <= coef_max
            and coef_norm * x_max + abs(intercept) <= coef_max
            and intercept_sq <= _FLOAT64_MAX
        ):
            raise _overflow_error(epoch)
    objective = (loss_sum + penalty_sum) / n_samples if need_loss else np.nan
    return state, intercept, intercept_sq, objective


@contextmanager
def _single_threaded_blas(limit=True):
    """Limit BLAS to one thread, if ``limit``.

    A CompAdaGrad step is a chain of small BLAS calls (k x n products, a
    k x k eigendecomposition): threads cost more than they gain there, and
    many times more on a loaded machine. One-vs-rest problems run in
    parallel instead (``n_jobs``). The limit is process-wide, so it is set
    once by the calling thread, never by threads of a threading backend.
    """
    if not limit:
        yield
        return
    with single_threaded_blas():
        yield


def _validation_score(batch, rows, y, weights, coef, intercept):
    """Weighted accuracy of sign(<a, coef> + intercept) on labels in {-1, +1}.

    SGDClassifier's validation score: ``score`` of the binary problem, with
    the sample weights of the validation rows.
    """
    positive = rows.matvec(batch, coef) + intercept > 0.0
    correct = positive == (y > 0.0)
    return float(weights @ correct) / float(weights.sum())


def _fit_problem(
    rows,
    y,
    weights,
    state,
    intercept,
    intercept_sq,
    projection,
    *,
    options,
    max_iter,
    seed,
    validation=None,
):
    """Epochs of CompAdaGrad on one binary (one-vs-rest) problem.

    Parameters
    ----------
    rows : _DenseRows or _CSRRows
        The training inputs.
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    weights : ndarray of shape (n_samples,)
        Sample weights times class weights.
    state : CompAdaGradState
        The iterate and preconditioner, updated.
    intercept, intercept_sq : float
        The intercept and its sum of squared gradients.
    projection : SRHT
        The fitted projection.
    options : dict
        The estimator's resolved options.
    max_iter : int
        Number of epochs at most.
    seed : int
        Seed of the shuffling.
    validation : tuple or None, default=None
        ``(rows, y, weights)`` of the held-out rows (labels in {-1, +1}) for
        early stopping; None stops on the training objective.

    Returns
    -------
    state, intercept, intercept_sq, n_iter, n_steps, best_loss, scores
        ``best_loss`` is the smallest epoch objective (NaN when it is not
        computed) and ``scores`` the validation score of every epoch (empty
        without ``validation``).
    """
    loss_fn = _LOSSES[options["loss"]]
    batch_size = options["batch_size"]
    tol = options["tol"]
    n_iter_no_change = options["n_iter_no_change"]
    verbose = options["verbose"]
    step = _make_stepper(
        projection,
        eta=options["eta0"],
        alpha=options["alpha"],
        penalty=options["penalty"],
        l1_ratio=options["l1_ratio"],
        tau=options["tau"],
        delta=options["delta"],
        variant=options["variant"],
    )
    n_features = options["n_features"]
    n_samples = y.shape[0]
    signed_weights = weights * y
    # SGDClassifier computes the training objective only when it stops on it
    # or prints it.
    need_loss = validation is None or verbose > 0
    if validation is not None:
        val_rows, val_y, val_weights = validation
        val_batch = val_rows.take(slice(0, val_y.shape[0]))
    rng = np.random.RandomState(seed) if options["shuffle"] else None

    best_objective = np.inf
    best_score = -np.inf
    scores = []
    no_improvement = 0
    n_steps = 0
    n_iter = 0
    # Single-threaded BLAS (see _single_threaded_blas); the caller's process
    # is limited by the estimator, a worker process (loky, dask) here.
    limit = options["caller_pid"] != os.getpid()
    # Overflow is detected by explicit checks (_run_epoch and the step),
    # whatever the caller's numpy error state: harmless underflows (exp of
    # large margins) must not raise under np.errstate(all='raise').
    with _single_threaded_blas(limit), np.errstate(all="ignore"):
        for epoch in range(max_iter):
            if rng is None:
                order, y_e, signed_e, weights_e = None, y, signed_weights, weights
            else:
                # Permute the per-sample arrays once per epoch, so that a
                # mini-batch slices views of them.
                order = rng.permutation(n_samples)
                y_e, signed_e = y[order], signed_weights[order]
                weights_e = weights[order] if need_loss else None
            state, intercept, intercept_sq, objective = _run_epoch(
                rows,
                order,
                y_e,
                signed_e,
                weights_e,
                state,
                intercept,
                intercept_sq,
                step,
                options,
                loss_fn,
                need_loss,
                epoch + 1,
            )
            n_steps += -(-n_samples // batch_size)
            n_iter = epoch + 1
            if validation is not None:
                score = _validation_score(
                    val_batch,
                    val_rows,
                    val_y,
                    val_weights,
                    state.coef[:n_features],
                    intercept,
                )
                scores.append(score)
            if verbose > 0:
                print(
                    f"-- Epoch {n_iter}: norm {np.linalg.norm(state.coef):.4g}, "
                    f"bias {intercept:.6g}, steps {state.n_updates}, "
                    f"objective {objective:.6g}"
                    + ("" if validation is None else f", validation score {score:.6g}")
                )
            # SGDClassifier's rules: no improvement by tol of the validation
            # score (early stopping) or of the epoch's training objective for
            # n_iter_no_change consecutive epochs; tol=None never stops.
            if validation is not None:
                if tol is not None and score < best_score + tol:
                    no_improvement += 1
                else:
                    no_improvement = 0
                best_score = max(best_score, score)
            else:
                if tol is not None and objective > best_objective - tol:
                    no_improvement += 1
                else:
                    no_improvement = 0
                best_objective = min(best_objective, objective)
            if no_improvement >= n_iter_no_change:
                if verbose > 0:
                    print(f"Convergence after {n_iter} epochs.")
                break
    best_loss = best_objective if validation is None else np.nan
    return state, intercept, intercept_sq, n_iter, n_steps, best_loss, scores


class CompAdaGradClassifier(LinearClassifierMixin, SparseCoefMixin, BaseEstimator):
    """Linear classifier trained by CompAdaGrad, with SGDClassifier's interface.

    Composite mirror descent (Mehta, Rendell, Varghese and Webers, eq. 2) on
    a regularized convex loss, one step per mini-batch, with the CompAdaGrad
    proximal matrix: full-matrix AdaGrad in a fixed random subspace of
    dimension :math:`k` (``n_components``) drawn by a subsampled randomized
    Hadamard transform (SRHT) :math:`\\Pi`, plus diagonal AdaGrad on its
    orthogonal complement (eq. 5). The features are zero-padded to
    :math:`n`, the next power of two. With :math:`g_t` the (mean) loss
    gradient of the mini-batch :math:`B_t` at :math:`x_t` and
    :math:`G_t = \\sum_{s \\le t} g_s g_s^\\top`,

    .. math::

        x_{t+1} = \\arg\\min_x \\; \\eta \\langle g_t, x \\rangle
        + \\eta \\varphi(x) + \\tfrac{1}{2} \\|x - x_t\\|^2_{H_t},

        H_t = \\Pi^\\top (\\Pi G_t \\Pi^\\top + \\delta I)^{1/2} \\Pi
        + \\tau P_\\perp \\big(\\operatorname{diag}(P_\\perp G_t
        P_\\perp)^{1/2} + \\delta I\\big) P_\\perp,

        g_t = \\frac{1}{|B_t|} \\sum_{i \\in B_t} w_i \\,
        \\ell'(y_i, a_i^\\top x_t + b_t) \\, a_i,

    where :math:`P_\\perp = I - \\Pi^\\top (\\Pi \\Pi^\\top)^{-1} \\Pi`,
    :math:`\\varphi(x) = \\frac{\\alpha}{2} \\|x\\|^2` (``penalty='l2'``,
    closed form, eqs. 13-15), :math:`\\alpha \\|x\\|_1` (``penalty='l1'``,
    the exact LASSO of eq. 16) or their mix (``penalty='elasticnet'``, the
    same LASSO in a metric shifted by the ridge part) and :math:`w_i` the
    sample weight times the class weight. ``n_components=0`` (with
    ``tau=1``) is diagonal AdaGrad,
    :math:`H_t = \\delta I + \\operatorname{diag}(G_t)^{1/2}`, and
    ``n_components >= n_features`` full-matrix AdaGrad,
    :math:`H_t = (G_t + \\delta I)^{1/2}`, exactly. The intercept
    :math:`b` has its own scalar AdaGrad, not regularized:
    :math:`b_{t+1} = b_t - \\eta \\gamma_t / (\\delta + (\\sum_{s \\le t}
    \\gamma_s^2)^{1/2})`, :math:`\\gamma_t = \\frac{1}{|B_t|} \\sum_{i \\in
    B_t} w_i \\ell'_i`. Multiclass problems are fitted one-vs-rest, each
    binary problem with its own preconditioner and the same :math:`\\Pi`.

    Read more in the :ref:`User Guide <compadagrad>`.

    Parameters
    ----------
    loss : {'hinge', 'log_loss', 'modified_huber', 'squared_hinge', \
            'perceptron'}, default='hinge'
        The loss :math:`\\ell`, as in
        :class:`~sklearn.linear_model.SGDClassifier`: 'hinge' is the linear
        SVM, 'log_loss' logistic regression, 'modified_huber' a smoothed
        hinge that also gives probabilities, 'squared_hinge' the quadratically
        penalized hinge and 'perceptron' the hinge at threshold 0. The paper
        does not say which loss its experiments use.

    penalty : {'l2', 'l1', 'elasticnet'} or None, default='l2'
        The composite regularizer :math:`\\varphi` (never applied to the
        intercept). 'l2' is :math:`\\frac{\\alpha}{2}\\|x\\|^2`, the paper's
        experiments; 'l1' is :math:`\\alpha\\|x\\|_1` and gives sparse
        coefficients; 'elasticnet' is :math:`\\alpha (r \\|x\\|_1 +
        \\frac{1 - r}{2} \\|x\\|^2)` with :math:`r` = ``l1_ratio`` (not in
        the paper; its step stays exact); None means :math:`\\varphi = 0`.

    alpha : float, default=1e-4
        Regularization strength :math:`\\alpha \\ge 0` (the paper's
        :math:`\\lambda`), per sample as in SGDClassifier: the objective is
        the weighted mean loss plus :math:`\\varphi`.

    l1_ratio : float or None, default=0.15
        The elastic-net mixing parameter :math:`0 \\le r \\le 1`, as in
        SGDClassifier: 0 is 'l2', 1 is 'l1'. Only used with
        ``penalty='elasticnet'``, for which it must not be None.

    eta0 : float, default=0.1
        The constant learning rate :math:`\\eta > 0` (the paper tunes it and
        reports no value). AdaGrad normalizes the gradients, so the first
        step moves every coordinate by about :math:`\\eta`; grid-search it
        over powers of ten.

    n_components : int, default=32
        Dimension :math:`k \\ge 0` of the SRHT subspace. 0 gives diagonal
        AdaGrad; ``n_components >= n_features`` full-matrix AdaGrad in the
        padded space (then :math:`k = n`). The paper uses 25 to 512. The
        cost of a step grows as :math:`O(n k^2 + k^3)`.

    tau : float, default=1.0
        Weight :math:`\\tau > 0` of the complement (diagonal) term.

    delta : float, default=1e-2
        Damping :math:`\\delta > 0` of both terms (the paper's
        :math:`\\delta_r = \\delta_c`). Not called ``epsilon``, which in
        SGDClassifier is the Huber margin.

    variant : {'paper', 'theory'}, default='paper'
        'paper' is eq. (5) as in the paper's experiments: the scaled SRHT
        :math:`\\Pi = \\sqrt{n/k} RH\\Sigma` and :math:`\\delta` inside the
        square root of the subspace term. 'theory' is the variant of the
        regret bound (Theorem C, eq. 19): the orthonormal
        :math:`\\tilde\\Pi = RH\\Sigma` and :math:`\\delta` outside the root
        (use it with ``tau=1``). The scaling makes the 'paper' subspace step
        about :math:`(k/n)^{3/2}` times the 'theory' one, since
        :math:`\\Pi^\\top (\\Pi G \\Pi^\\top + \\delta I)^{1/2} \\Pi =
        (n/k)^{3/2} \\tilde\\Pi^\\top (\\tilde\\Pi G \\tilde\\Pi^\\top +
        (k/n) \\delta I)^{1/2} \\tilde\\Pi`; ``eta0`` and ``tau`` absorb part
        of it.

    batch_size : int, default=32
        Number of samples per step; their gradients are averaged (the
        paper's RCV1 run used 160). A step costs :math:`O(n k^2 + k^3)`
        whatever the batch size, so mini-batches amortize it: on small
        dense problems ``batch_size=32`` reaches the test accuracy of
        per-sample steps (``batch_size=1``, the online setting of the
        regret bound) about 30 times faster.

    max_iter : int, default=1000
        Maximum number of epochs (passes over the training data), as in
        SGDClassifier; the stopping rule usually ends the fit long before.

    tol : float or None, default=1e-3
        Stop when the epoch's training objective (mean weighted loss at the
        iterates before their steps, plus :math:`\\varphi`) is above the
        best one minus ``tol``, or with ``early_stopping`` when the
        validation score is below the best one plus ``tol``, for
        ``n_iter_no_change`` consecutive epochs, as in SGDClassifier. None
        runs ``max_iter`` epochs.

    early_stopping : bool, default=False
        Whether to stop on a held-out validation score instead of the
        training objective, as in SGDClassifier: a stratified fraction
        ``validation_fraction`` of the rows (drawn from ``random_state``) is
        set aside, not trained on, and each one-vs-rest problem stops when
        its accuracy there (weighted by ``sample_weight``) has not improved
        by ``tol`` for ``n_iter_no_change`` consecutive epochs. The last
        iterate is kept. Not supported by :meth:`partial_fit`.

    validation_fraction : float, default=0.1
        The fraction of the rows set aside for early stopping, in (0, 1).
        Only used if ``early_stopping`` is True.

    n_iter_no_change : int, default=5
        Number of epochs without improvement before stopping, on the
        training objective or on the validation score (``early_stopping``).

    shuffle : bool, default=True
        Whether to shuffle the training data before every epoch.

    fit_intercept : bool, default=True
        Whether to fit an intercept, by its own scalar AdaGrad, not
        regularized (the paper has none: regularizing it inside the
        CompAdaGrad metric would break the :math:`\\lambda I` structure of
        eqs. 12-15). If False the intercept stays at ``intercept_init`` (0
        by default).

    class_weight : dict, 'balanced' or None, default=None
        Weights of the classes, multiplying the sample weights: in every
        one-vs-rest problem a sample's gradient is scaled by the weight of
        its own class. 'balanced' uses ``n_samples / (n_classes *
        np.bincount(y))``; it is not supported by :meth:`partial_fit`.

    warm_start : bool, default=False
        When True, :meth:`fit` continues from the previous solution: the
        iterates, the preconditioners (:attr:`state_`), the intercept
        accumulators and the projection. The classes and the number of
        features must be those of the previous fit.

    random_state : int, RandomState instance or None, default=None
        Seeds the SRHT (signs and rows) and the shuffling. Pass an int for
        reproducible results; they do not depend on ``n_jobs``.

    n_jobs : int, default=None
        Number of one-vs-rest problems fitted in parallel through joblib
        (multiclass only). None means 1 unless in a
        :func:`joblib.parallel_backend` context; -1 means all processors.

    verbose : int, default=0
        Print the training objective after every epoch.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The coefficients (the first ``n_features`` coordinates of the padded
        iterates), in the dtype of the training data.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        The intercepts, in the dtype of the training data.

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    n_iter_ : int
        Number of epochs of the last :meth:`fit` (the largest over the
        one-vs-rest problems); 1 after :meth:`partial_fit`.

    t_ : int
        Number of steps (mini-batches) of the last :meth:`fit` plus one, or
        plus the steps of every :meth:`partial_fit` since (the largest over
        the one-vs-rest problems).

    n_components_ : int
        The subspace dimension :math:`k` used.

    projection_ : SRHT
        The fitted projection :math:`\\Pi`, drawn once and shared by the
        one-vs-rest problems.

    state_ : list of CompAdaGradState
        One per one-vs-rest problem (one for binary problems): the padded
        iterate, the subspace Gram :math:`\\Pi G_t \\Pi^\\top` and the
        complement squared-gradient sums, kept in float64 across
        :meth:`partial_fit` calls.

    intercept_grad_sq_sum_ : ndarray of shape (1,) or (n_classes,)
        Sums of the squared intercept gradients, in float64.

    best_loss_ : ndarray of shape (1,) or (n_classes,) or None
        The smallest epoch objective of every one-vs-rest problem, over the
        epochs of :meth:`fit` or over the :meth:`partial_fit` calls. None
        with ``early_stopping``: see :attr:`best_validation_score_`.

    validation_scores_ : ndarray of shape (1, `n_iter_`) or \
            (n_classes, `n_iter_`) or None
        With ``early_stopping``, the validation score of every one-vs-rest
        problem after every epoch (NaN after a problem stopped); None
        otherwise.

    best_validation_score_ : ndarray of shape (1,) or (n_classes,) or None
        With ``early_stopping``, the best validation score of every
        one-vs-rest problem; None otherwise.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.linear_model.SGDClassifier : The same interface, trained by
        plain stochastic gradient descent.
    skcgm.optim.compadagrad_step : One CompAdaGrad step, the solver behind
        this estimator.
    skcgm.oracles.SRHT : The subsampled randomized Hadamard transform.

    Notes
    -----
    A step costs :math:`O(n k^2 + k^3)` per one-vs-rest problem (the
    projections, the :math:`k \\times k` Gram of the complement solve and an
    eigendecomposition), linear in the padded dimension :math:`n` for fixed
    :math:`k`, plus :math:`O(|B| d)` for the mini-batch gradient. On sparse
    input the step is still dense: :math:`P_\\perp g_t` is dense, so there is
    no lazy sparse update and every step costs :math:`\\Omega(n)`; the paper
    saw no gain over diagonal AdaGrad on sparse text (RCV1). CompAdaGrad helps
    on dense, correlated features (the paper's MNIST experiment).

    A step is a chain of small BLAS calls, which threads slow down: the fit
    runs BLAS on one thread (through threadpoolctl) and parallelizes the
    one-vs-rest problems instead (``n_jobs``).

    The iterates and preconditioners are kept in float64 whatever the input
    dtype, so :meth:`partial_fit` continues from :attr:`state_`, not from
    :attr:`coef_`. ``sample_weight`` and ``class_weight`` scale the
    gradients; :meth:`fit` first rescales their products to sum to the
    number of samples, as :class:`~sklearn.linear_model.ElasticNet` does, so
    that the objective is the weighted mean loss and, in one batch holding
    all the rows (``shuffle=False``), an integer weight is the same as
    repeating the sample. Across mini-batches it is not: a repeated sample
    falls in other batches, and AdaGrad is not linear in the gradients.

    A step that overflows (features or weights of extreme magnitude, a huge
    ``eta0``) raises SGDClassifier's ValueError at once, whatever numpy's
    error state, and a :meth:`partial_fit` that raises leaves the model as
    it was.

    References
    ----------
    N. A. Mehta, A. Rendell, A. Varghese and C. Webers, "CompAdaGrad: A
    Compressed, Complementary, Computationally-Efficient Adaptive Gradient
    Method", arXiv:1609.03319, 2016.

    J. Duchi, E. Hazan and Y. Singer, "Adaptive Subgradient Methods for
    Online Learning and Stochastic Optimization", JMLR 12, 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skcgm.linear_model import CompAdaGradClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(
    ...     StandardScaler(),
    ...     CompAdaGradClassifier(n_components=8, batch_size=16, random_state=0),
    ... ).fit(X, y)
    >>> clf[-1].coef_.shape, clf[-1].n_components_
    ((1, 30), 8)
    >>> bool(clf.score(X, y) > 0.95)
    True

    Streaming, one chunk at a time:

    >>> import numpy as np
    >>> X = StandardScaler().fit_transform(X)
    >>> online = CompAdaGradClassifier(n_components=8, batch_size=16, random_state=0)
    >>> for chunk in np.array_split(np.arange(len(y)), 4):
    ...     online = online.partial_fit(X[chunk], y[chunk], classes=[0, 1])
    >>> online.t_, bool(online.score(X, y) > 0.9)
    (37, True)
    """

    _parameter_constraints: dict = {
        "loss": [StrOptions(set(_LOSSES))],
        "penalty": [StrOptions({"l2", "l1", "elasticnet"}), None],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both"), None],
        "eta0": [Interval(Real, 0, None, closed="neither")],
        "n_components": [Interval(Integral, 0, None, closed="left")],
        "tau": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, None, closed="neither")],
        "variant": [StrOptions({"paper", "theory"})],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "fit_intercept": ["boolean"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        loss="hinge",
        *,
        penalty="l2",
        alpha=1e-4,
        l1_ratio=0.15,
        eta0=0.1,
        n_components=32,
        tau=1.0,
        delta=1e-2,
        variant="paper",
        batch_size=32,
        max_iter=1000,
        tol=1e-3,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        fit_intercept=True,
        class_weight=None,
        warm_start=False,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.loss = loss
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.eta0 = eta0
        self.n_components = n_components
        self.tau = tau
        self.delta = delta
        self.variant = variant
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _validate_X_y(self, X, y, reset):
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            order="C",
            reset=reset,
        )
        check_classification_targets(y)
        check_square_range(X)
        return X, y

    def _init_solution(self, n_features, n_problems, seed, coef_init, intercept_init):
        """A fresh solution: the projection drawn, the iterates started."""
        # n_components >= n_features means the whole padded space (k = n),
        # i.e. full-matrix AdaGrad, not k = n_features < n.
        n_padded = _next_power_of_two(n_features)
        k = n_padded if self.n_components >= n_features else self.n_components
        scaling = "srht" if self.variant == "paper" else "orthonormal"
        projection = SRHT(k, scaling=scaling, random_state=seed).fit(n_features)
        n_padded = projection.n_padded_

        coef = np.zeros((n_problems, n_padded))
        if coef_init is not None:
            coef_init = np.asarray(coef_init, dtype=np.float64)
            if coef_init.size != n_problems * n_features:
                raise ValueError(
                    f"Provided coef_init has shape {coef_init.shape}; expected "
                    f"({n_problems}, {n_features})."
                )
            coef[:, :n_features] = coef_init.reshape(n_problems, n_features)
        intercept = np.zeros(n_problems)
        if intercept_init is not None:
            intercept_init = np.asarray(intercept_init, dtype=np.float64)
            if intercept_init.size != n_problems:
                raise ValueError(
                    f"Provided intercept_init has shape {intercept_init.shape}; "
                    f"expected ({n_problems},)."
                )
            intercept[:] = intercept_init.ravel()
        return dict(
            projection=projection,
            states=[init_compadagrad_state(projection, coef=c) for c in coef],
            intercept=intercept,
            intercept_sq=np.zeros(n_problems),
        )

    def _fitted_solution(self):
        """A copy of the fitted solution, which a failed fit leaves untouched."""
        return dict(
            projection=self.projection_,
            states=copy.deepcopy(self.state_),
            intercept=self._intercept.copy(),
            intercept_sq=self.intercept_grad_sq_sum_.copy(),
        )

    def _options(self, X, tol):
        return dict(
            loss=self.loss,
            penalty=self.penalty,
            alpha=float(self.alpha),
            l1_ratio=float(self.l1_ratio) if self.penalty == "elasticnet" else 0.0,
            eta0=float(self.eta0),
            tau=float(self.tau),
            delta=float(self.delta),
            variant=self.variant,
            batch_size=int(self.batch_size),
            fit_intercept=self.fit_intercept,
            tol=tol,
            n_iter_no_change=int(self.n_iter_no_change),
            shuffle=self.shuffle,
            verbose=int(self.verbose),
            n_features=X.shape[1],
            # The largest coefficient coef_ (in the dtype of X) can hold.
            coef_max=float(np.finfo(X.dtype).max),
            # The largest absolute value of the training rows, which bounds
            # the decision values with ||coef||_1.
            x_max=float(np.abs(X.data if sp.issparse(X) else X).max(initial=0.0)),
            caller_pid=os.getpid(),
        )

    def _run(self, X, y, weights, solution, classes, max_iter, tol, seeds, validation):
        """Fit every one-vs-rest problem of ``solution``, in place.

        ``weights`` are the sample weights times the class weights. Returns
        ``(n_iter, n_steps, best_loss, validation_scores)``.
        """
        positives = classes[1:] if classes.shape[0] == 2 else classes
        rows = _rows(X)
        options = self._options(X, tol)
        if validation is not None:
            X_val, y_val, weights_val = validation
            val_rows = _rows(X_val)
        jobs = (
            delayed(_fit_problem)(
                rows,
                np.where(y == positive, 1.0, -1.0),
                weights,
                solution["states"][i],
                float(solution["intercept"][i]),
                float(solution["intercept_sq"][i]),
                solution["projection"],
                options=options,
                max_iter=max_iter,
                seed=seeds[i],
                validation=None
                if validation is None
                else (val_rows, np.where(y_val == positive, 1.0, -1.0), weights_val),
            )
            for i, positive in enumerate(positives)
        )
        with _single_threaded_blas():
            if len(positives) == 1:
                results = [job[0](*job[1], **job[2]) for job in jobs]
            else:
                results = Parallel(n_jobs=self.n_jobs, verbose=self.verbose)(jobs)

        solution["states"] = [result[0] for result in results]
        solution["intercept"] = np.array([result[1] for result in results])
        solution["intercept_sq"] = np.array([result[2] for result in results])
        n_iter = max(result[3] for result in results)
        n_steps = max(result[4] for result in results)
        best_loss = np.array([result[5] for result in results])
        scores = np.full((len(results), n_iter), np.nan)
        for i, result in enumerate(results):
            scores[i, : len(result[6])] = result[6]
        return n_iter, n_steps, best_loss, scores

    def _commit(self, solution, classes, dtype, n_features):
        """Store a fitted solution in the estimator's attributes."""
        self.classes_ = classes
        self.projection_ = solution["projection"]
        self.n_components_ = int(self.projection_.n_components_)
        self.state_ = solution["states"]
        self._intercept = solution["intercept"]
        self.intercept_grad_sq_sum_ = solution["intercept_sq"]
        self.coef_ = np.array(
            [state.coef[:n_features] for state in self.state_], dtype=dtype
        )
        # With fit_intercept=False the intercept stays at intercept_init (0
        # by default), a fixed offset, as in SGDClassifier.
        self.intercept_ = self._intercept.astype(dtype)

    def _draw_seeds(self, n_problems):
        """The projection's seed and one shuffling seed per problem."""
        rng = check_random_state(self.random_state)
        # Always drawn in this order, so that fit and the first partial_fit
        # use the same projection.
        projection_seed = int(rng.randint(_MAX_SEED))
        seeds = [int(seed) for seed in rng.randint(_MAX_SEED, size=n_problems)]
        return projection_seed, seeds

    def _make_validation_split(self, y, sample_weight):
        """Boolean mask of the validation rows (all False without early stopping).

        SGDClassifier's split: stratified, ``validation_fraction`` of the
        rows, drawn from ``random_state``, with its errors.
        """
        validation_mask = np.zeros(y.shape[0], dtype=bool)
        if not self.early_stopping:
            return validation_mask
        cv = StratifiedShuffleSplit(
            test_size=self.validation_fraction, random_state=self.random_state
        )
        idx_train, idx_val = next(cv.split(np.zeros((y.shape[0], 1)), y))
        # Unchecked weights: other shapes are refused by check_sample_weight.
        weights = None if sample_weight is None else np.asarray(sample_weight)
        if (
            weights is not None
            and weights.shape == y.shape
            and not np.any(weights[idx_val] > 0)
        ):
            raise ValueError(
                "The sample weights for validation set are all zero, consider "
                "using a different random state."
            )
        if idx_train.shape[0] == 0 or idx_val.shape[0] == 0:
            raise ValueError(
                f"Splitting {y.shape[0]} samples into a train set and a "
                "validation set with validation_fraction="
                f"{self.validation_fraction!r} led to an empty set "
                f"({idx_train.shape[0]} and {idx_val.shape[0]} samples). Please "
                "either change validation_fraction, increase number of samples, "
                "or disable early_stopping."
            )
        validation_mask[idx_val] = True
        return validation_mask

    def _check_l1_ratio(self):
        if self.penalty == "elasticnet" and self.l1_ratio is None:
            raise ValueError("l1_ratio must be set when penalty is 'elasticnet'")

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the linear model by CompAdaGrad.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data. Float32 input gives float32 coefficients.

        y : array-like of shape (n_samples,)
            Target values (class labels).

        coef_init : ndarray of shape (n_classes, n_features), default=None
            Initial coefficients ((1, n_features) or (n_features,) for
            binary problems); the preconditioners start empty.

        intercept_init : ndarray of shape (n_classes,), default=None
            Initial intercepts ((1,) or a scalar for binary problems); with
            ``fit_intercept=False`` a fixed offset, as in SGDClassifier.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples. Multiplied by
            ``class_weight``, they are rescaled to sum to the number of
            training samples, so that an integer weight is a repeated sample.
            None means unit weights.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        self._check_l1_ratio()
        previous = None
        if self.warm_start and hasattr(self, "state_"):
            previous = (self.coef_.shape[1], self.classes_)
        X, y = self._validate_X_y(X, y, reset=True)
        classes = np.unique(y)
        if classes.shape[0] < 2:
            raise ValueError(
                "The number of classes has to be greater than one; got "
                f"{classes.shape[0]} class."
            )
        n_problems = 1 if classes.shape[0] == 2 else classes.shape[0]
        projection_seed, seeds = self._draw_seeds(n_problems)
        # Before the weights are checked, so that all-zero weights get the
        # validation split's error, as in SGDClassifier.
        validation_mask = self._make_validation_split(y, sample_weight)
        sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)

        warm = previous is not None and coef_init is None and intercept_init is None
        if warm and (
            previous[0] != X.shape[1]
            or previous[1].shape != classes.shape
            or np.any(previous[1] != classes)
        ):
            raise ValueError(
                "warm_start=True continues the previous fit, which had "
                f"{previous[0]} features and classes {previous[1]!r}; got "
                f"{X.shape[1]} features and classes {classes!r}."
            )
        if warm:
            solution = self._fitted_solution()
        else:
            solution = self._init_solution(
                X.shape[1], n_problems, projection_seed, coef_init, intercept_init
            )
        # Weights of the samples in every binary problem: sample weight times
        # the weight of the sample's own class.
        class_weight = compute_class_weight(self.class_weight, classes=classes, y=y)
        validation = None
        if self.early_stopping:
            train = np.flatnonzero(~validation_mask)
            validation = (
                X[validation_mask],
                y[validation_mask],
                sample_weight[validation_mask],
            )
            X, y, sample_weight = X[train], y[train], sample_weight[train]
            if not np.any(sample_weight > 0):
                raise ValueError(
                    "Sample weights must contain at least one non-zero number."
                )
        # The objective is the weighted mean of the losses plus phi: weights
        # summing to the number of samples make an integer weight a repeated
        # sample (scikit-learn's ElasticNet rescales its sample weights so).
        weights = sample_weight * class_weight[np.searchsorted(classes, y)]
        # Divided by the largest first: weights near the float64 maximum
        # would overflow their sum.
        weights /= weights.max()
        weights *= y.shape[0] / weights.sum()
        n_iter, n_steps, best_loss, scores = self._run(
            X,
            y,
            weights,
            solution,
            classes,
            self.max_iter,
            self.tol,
            seeds,
            validation,
        )
        self._commit(solution, classes, X.dtype, X.shape[1])
        self.n_iter_ = n_iter
        self.t_ = n_steps + 1
        if self.early_stopping:
            self.best_loss_ = None
            self.validation_scores_ = scores
            self.best_validation_score_ = np.nanmax(scores, axis=1)
        else:
            self.best_loss_ = best_loss
            self.validation_scores_ = None
            self.best_validation_score_ = None
        if self.tol is not None and n_iter == self.max_iter:
            warnings.warn(
                "Maximum number of iteration reached before convergence. "
                "Consider increasing max_iter to improve the fit.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch of CompAdaGrad on the given samples.

        The iterates, the preconditioners and the projection are kept across
        calls, so calling it on consecutive chunks (in mini-batches of
        ``batch_size``, chunks a multiple of it) without shuffling gives the
        coefficients of one epoch of :meth:`fit` over their concatenation. A
        call that raises leaves the fitted model as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A chunk of the training data.

        y : array-like of shape (n_samples,)
            Its class labels.

        classes : array-like of shape (n_classes,), default=None
            All the classes, required on the first call (for instance
            ``np.unique(y_all)``) and optional afterwards; ``y`` need not
            contain all of them.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights scaling the gradients of the samples, used
            as given: unlike :meth:`fit`, a chunk does not know the total
            weight of the stream. None means unit weights.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        first_call = not hasattr(self, "classes_")
        if first_call:
            if self.early_stopping:
                raise ValueError("early_stopping should be False with partial_fit")
            self._check_l1_ratio()
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit."
                )
            if self.class_weight == "balanced":
                raise ValueError(
                    "class_weight 'balanced' is not supported for partial_fit: "
                    "compute the weights with sklearn.utils.class_weight."
                    "compute_class_weight('balanced', classes=classes, y=y) on "
                    "a large enough sample of the targets and pass them as "
                    "class_weight."
                )
        elif classes is not None:
            classes = unique_labels(classes)
            if classes.shape != self.classes_.shape or np.any(classes != self.classes_):
                raise ValueError(
                    f"`classes={classes!r}` is not the same as on the first call "
                    f"to partial_fit, was: {self.classes_!r}."
                )
        X, y = self._validate_X_y(X, y, reset=first_call)
        if first_call:
            classes = unique_labels(classes)
            if classes.shape[0] < 2:
                raise ValueError(
                    "The number of classes has to be greater than one; got "
                    f"{classes.shape[0]} class."
                )
        else:
            classes = self.classes_
        unknown = np.setdiff1d(np.unique(y), classes)
        if unknown.size:
            raise ValueError(
                f"y contains labels {unknown!r} not in classes {classes!r}."
            )
        n_problems = 1 if classes.shape[0] == 2 else classes.shape[0]
        sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
        projection_seed, seeds = self._draw_seeds(n_problems)
        if first_call:
            solution = self._init_solution(
                X.shape[1], n_problems, projection_seed, None, None
            )
        else:
            solution = self._fitted_solution()
        class_weight = compute_class_weight(self.class_weight, classes=classes, y=y)
        weights = sample_weight * class_weight[np.searchsorted(classes, y)]
        _, n_steps, best_loss, _ = self._run(
            X, y, weights, solution, classes, 1, None, seeds, None
        )
        previous_best = None if first_call else getattr(self, "best_loss_", None)
        self._commit(solution, classes, X.dtype, X.shape[1])
        self.n_iter_ = 1
        self.t_ = (1 if first_call else self.t_) + n_steps
        # The best epoch objective over the calls, as MLPClassifier.partial_fit.
        self.best_loss_ = (
            best_loss if previous_best is None else np.fmin(previous_best, best_loss)
        )
        self.validation_scores_ = None
        self.best_validation_score_ = None
        return self

    def _check_proba(self):
        if self.loss not in ("log_loss", "modified_huber"):
            raise AttributeError(
                f"probability estimates are not available for loss={self.loss!r}"
            )
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Probability estimates (only for 'log_loss' and 'modified_huber').

        As in :class:`~sklearn.linear_model.SGDClassifier`: the logistic
        function of the decision values for 'log_loss', and
        :math:`(\\mathrm{clip}(f(x), -1, 1) + 1) / 2` for 'modified_huber';
        multiclass estimates are the one-vs-rest ones normalized to sum to
        one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probability of every class, in the order of :attr:`classes_`.
        """
        check_is_fitted(self)
        if self.loss == "log_loss":
            return self._predict_proba_lr(X)
        scores = self.decision_function(X)
        if self.classes_.shape[0] == 2:
            positive = (np.clip(scores, -1.0, 1.0) + 1.0) / 2.0
            return np.column_stack([1.0 - positive, positive])
        proba = (np.clip(scores, -1.0, 1.0) + 1.0) / 2.0
        total = proba.sum(axis=1)
        # All classes at 0: uniform probabilities, as SGDClassifier.
        all_zero = total == 0
        proba[all_zero] = 1.0
        total[all_zero] = self.classes_.shape[0]
        return proba / total[:, None]

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """Log of the probability estimates (see :meth:`predict_proba`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probability of every class, in the order of :attr:`classes_`.
        """
        return np.log(self.predict_proba(X))
