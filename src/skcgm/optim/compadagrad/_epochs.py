"""The epochs of CompAdaGrad on one binary (one-vs-rest) problem.

Composite mirror descent with the CompAdaGrad proximal matrix (Mehta,
Rendell, Varghese and Webers, "CompAdaGrad: A Compressed, Complementary,
Computationally-Efficient Adaptive Gradient Method", arXiv:1609.03319, 2016,
eqs. 2 and 5), one step per mini-batch of a margin loss, an unregularized
scalar AdaGrad intercept, and SGDClassifier's stopping rules.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import os
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ...oracles import (
    HingeLoss,
    LogisticLoss,
    ModifiedHuberLoss,
    PerceptronLoss,
    SquaredHingeLoss,
)
from ...utils._blocks import single_threaded_blas
from . import _fast
from ._row_readers import _DenseRows
from ._step import _make_stepper, _step_params

# Nothing here is imported from outside the family: its solver drives it.
__all__ = []

_FLOAT64_MAX = float(np.finfo(np.float64).max)
# The options passed to the step under their own names (eta0 becomes eta).
_STEP_OPTIONS = ("alpha", "penalty", "l1_ratio", "tau", "delta", "variant")


# The losses and variants of the compiled epoch, by their codes there.
_LOSS_CODES = {
    HingeLoss: _fast.HINGE,
    PerceptronLoss: _fast.PERCEPTRON,
    SquaredHingeLoss: _fast.SQUARED_HINGE,
    ModifiedHuberLoss: _fast.MODIFIED_HUBER,
    LogisticLoss: _fast.LOG_LOSS,
}
_VARIANT_CODES = {
    "paper": _fast.PAPER,
    "theory": _fast.THEORY,
    "balanced": _fast.BALANCED,
    "adaptive": _fast.ADAPTIVE,
}


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


@dataclass
class _EpochSamples:
    """The samples of one epoch, in the order it visits them.

    Attributes
    ----------
    order : ndarray of shape (n_samples,) or None
        The rows in the order of the epoch; None: as stored.
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}, in that order.
    signed_weights : ndarray of shape (n_samples,)
        :math:`w_i y_i`, in that order.
    weights : ndarray of shape (n_samples,) or None
        :math:`w_i`, in that order; None when the epoch's objective is not
        computed.
    number : int
        The epoch, counted from 1 (named by the overflow error).
    """

    order: object
    y: np.ndarray
    signed_weights: np.ndarray
    weights: object
    number: int

    @property
    def need_loss(self):
        """Whether the epoch's objective is computed."""
        return self.weights is not None


def _run_epoch(rows, samples, state, intercept, intercept_sq, step, options):
    """One pass over the samples, in the order of ``samples`` (an _EpochSamples).

    Returns the state, the intercept, its squared-gradient sum and the
    epoch's objective (NaN when ``samples.need_loss`` is False). Raises
    SGDClassifier's ValueError as soon as a step overflows, in float64 or in
    the dtype of ``coef_`` (``options['coef_max']``), coefficients or
    decision values on the training rows alike.
    """
    order, y, signed_weights = samples.order, samples.y, samples.signed_weights
    weights, need_loss, epoch = samples.weights, samples.need_loss, samples.number
    loss = options["loss"]
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
        dz = loss.derivative(z)
        # Gradient of the batch mean of w_i l(y_i, p_i) (mini-batches average,
        # as in the paper's RCV1 run): sum_i w_i y_i l'(z_i) a_i / |B|.
        coeff = signed_weights[start:stop] * dz
        coeff *= 1.0 / z.shape[0]
        if need_loss:
            loss_sum += float(weights[start:stop] @ loss.value(z))
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


class _CompiledEpoch:
    """The epoch of :func:`_run_epoch` in one compiled call, where it applies.

    :mod:`skcgm.optim.compadagrad._fast` runs the default path: dense rows,
    float64 state, a squared-l2 penalty or none, an SRHT subspace smaller
    than the padded dimension (0 included: diagonal AdaGrad) and a margin
    loss of ``SGDClassifier``. :meth:`build` returns None for anything else, which
    :func:`_run_epoch` then runs step by step. A step the compiled loop
    hands back (a factorization that failed) is taken by the Python step,
    whose fallbacks handle it.
    """

    def __init__(self, rows, projection, options, step_params):
        eta, _, lam2, tau, delta, variant = step_params
        k, n = projection.components_.shape
        self.X = rows.X
        self.projection = projection
        self.n, self.k = n, k
        self.params = (eta, lam2, tau, delta, _VARIANT_CODES[variant])
        self.alpha_l2 = 0.0 if options["penalty"] is None else options["alpha"]
        self.loss = _LOSS_CODES[type(options["loss"])]
        n_doubles, n_indices = _fast.workspace_sizes(n, k, options["batch_size"])
        self.work = np.empty(n_doubles)
        self.iwork = np.empty(n_indices, dtype=np.intp)

    @classmethod
    def build(cls, rows, state, projection, options):
        """The compiled epoch of this problem, or None where it does not apply."""
        k, n = projection.components_.shape
        step_params = _step_params(
            projection,
            options["eta0"],
            options["alpha"],
            options["penalty"],
            options["l1_ratio"],
            options["tau"],
            options["delta"],
            options["variant"],
        )
        applies = (
            isinstance(rows, _DenseRows)
            and rows.X.dtype in (np.float32, np.float64)
            and rows.X.flags.c_contiguous
            and 0 <= k < n
            and hasattr(projection, "rows_")
            and step_params[1] == 0.0
            and type(options["loss"]) in _LOSS_CODES
            and all(
                array.dtype == np.float64 and array.flags.c_contiguous
                for array in (state.coef, state.subspace_gram, state.complement_sq)
            )
        )
        return cls(rows, projection, options, step_params) if applies else None

    def __call__(self, rows, samples, state, intercept, intercept_sq, step, options):
        """One epoch; the arguments and results of :func:`_run_epoch`.

        ``rows`` and ``options['loss']`` are those the epoch was built with.
        """
        order, y, need_loss = samples.order, samples.y, samples.need_loss
        fast = _fast
        cache = state.subspace_eigh
        valid = cache is not None and cache[2] == state.n_updates
        mu = np.array(cache[0], dtype=np.float64) if valid else np.zeros(self.k)
        V = (
            np.array(cache[1], dtype=np.float64, order="F")
            if valid
            else np.zeros((self.k, self.k), order="F")
        )
        counters = np.array([state.n_updates, state.n_flops, valid], dtype=np.int64)
        scalars = np.array([intercept, intercept_sq, 0.0, 0.0, 0.0])
        empty = np.empty(0)
        order = (
            np.empty(0, dtype=np.intp)
            if order is None
            else order.astype(np.intp, copy=False)
        )
        batch, resume = 0, False
        while True:
            status, batch = fast.dense_epoch(
                self.X,
                order,
                y,
                samples.signed_weights,
                samples.weights if need_loss else empty,
                state.coef,
                state.subspace_gram,
                state.complement_sq,
                mu,
                V,
                self.projection.rows_,
                self.projection.signs_,
                float(self.projection.scale_),
                *self.params,
                self.alpha_l2,
                self.loss,
                need_loss,
                options["fit_intercept"],
                options["coef_max"],
                options["x_max"],
                options["batch_size"],
                batch,
                resume,
                scalars,
                counters,
                self.work,
                self.iwork,
            )
            state.n_updates, state.n_flops = int(counters[0]), int(counters[1])
            if counters[2]:
                state.subspace_eigh = (mu.copy(), V.copy(), state.n_updates)
            if status == fast.DONE:
                break
            if status == fast.OVERFLOW:
                raise _overflow_error(samples.number)
            try:
                step(state, self.work[: self.n].copy())
            except FloatingPointError as exc:
                raise _overflow_error(samples.number) from exc
            mu[:], V[:] = state.subspace_eigh[0], state.subspace_eigh[1]
            counters[:] = state.n_updates, state.n_flops, 1
            resume = True
        n_samples = y.shape[0]
        objective = (scalars[2] + scalars[3]) / n_samples if need_loss else np.nan
        return state, float(scalars[0]), float(scalars[1]), objective


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
    batch_size = options["batch_size"]
    tol = options["tol"]
    n_iter_no_change = options["n_iter_no_change"]
    verbose = options["verbose"]
    step = _make_stepper(
        projection,
        eta=options["eta0"],
        **{name: options[name] for name in _STEP_OPTIONS},
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
    run_epoch = _CompiledEpoch.build(rows, state, projection, options) or _run_epoch

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
                samples = _EpochSamples(
                    None, y, signed_weights, weights if need_loss else None, epoch + 1
                )
            else:
                # Permute the per-sample arrays once per epoch, so that a
                # mini-batch slices views of them.
                order = rng.permutation(n_samples)
                samples = _EpochSamples(
                    order,
                    y[order],
                    signed_weights[order],
                    weights[order] if need_loss else None,
                    epoch + 1,
                )
            state, intercept, intercept_sq, objective = run_epoch(
                rows, samples, state, intercept, intercept_sq, step, options
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
