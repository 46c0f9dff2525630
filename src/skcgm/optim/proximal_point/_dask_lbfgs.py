"""The full objective on a dask array: L-BFGS over chunk-wise gradients.

Every evaluation of the objective is one pass over the chunks, which return
their share of the loss and of its gradient (:math:`O(d)` numbers per problem
and chunk); the client runs scipy's L-BFGS-B on the sums with
:func:`~skcgm.optim.full_batch_lbfgs`'s stopping rule, so that the
minimizer is the in-memory one (and scikit-learn's) to ``tol``.

The one-vs-rest problems of a multiclass target share their rows, weights
and penalty; only the signs differ. Their objectives are summed and minimized
as one separable problem: a pass then reads the data once for all the
classes, where one run per class would read it once per class and
iteration. The minimizer of a sum of functions of disjoint variables is the
tuple of their minimizers, and scikit-learn's stopping rule on the joint
gradient (its largest entry at most ``tol``) holds exactly when it holds for
every class.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from ._dask import (
    _by_sub_blocks,
    _Context,
    _Data,
    _rows_checked,
)
from ._in_memory import ProximalPointResult, _loss_terms
from ._lbfgs import lbfgs, lbfgs_history
from ._problem import row_weights

__all__ = ["dask_full_batch_lbfgs"]


def _objective_rows(block, y_block, w_block, start, context, W, positives):
    """Loss sums and gradients of every one-vs-rest problem on some rows.

    ``W`` holds one row of coefficients (then the intercept) per problem;
    row :math:`i` has sign :math:`+1` in problem :math:`k` when its label is
    ``positives[k]``.
    """
    X = _rows_checked(block, context.check_finite)
    classes, class_weight, _ = context.labels
    u = row_weights(np.asarray(y_block), w_block, classes, class_weight)
    u *= context.u_scale
    signs = np.where(np.asarray(y_block)[:, None] == positives[None, :], 1.0, -1.0)
    n_features = X.shape[1]
    scores = X @ W[:, :n_features].T
    if context.fit_intercept:
        scores += W[:, n_features]
    value, derivative, _ = _loss_terms(context.loss, signs * scores)
    # The chain rule through the signs: d f(b t) / dt = b f'(b t).
    residuals = (u[:, None] * signs) * derivative
    gradient = residuals.T @ X
    if context.fit_intercept:
        gradient = np.hstack([gradient, residuals.sum(axis=0)[:, None]])
    return u @ value, gradient


def _objective_chunk(block, y_block, w_block, start, context, W, positives):
    """:func:`_objective_rows` summed over a chunk's sub-blocks."""
    parts = _by_sub_blocks(
        _objective_rows, block, y_block, w_block, start, context, W, positives
    )
    return sum(part[0] for part in parts), sum(part[1] for part in parts)


def dask_full_batch_lbfgs(
    loss,
    X,
    y,
    sample_weight,
    labels,
    *,
    alpha,
    total_weight,
    n_positive,
    fit_intercept,
    max_iter,
    tol,
    x0=None,
    verbose=0,
):
    """Minimize the one-vs-rest objectives on a dask array by L-BFGS.

    Problem :math:`k` is :func:`~skcgm.optim.full_batch_lbfgs`'s mean form

    .. math::

        F_k(x) = \\frac1n \\sum_{i=1}^n u_i\\, f(b_{ik} a_i^\\top x)
        + \\frac{\\alpha}{2} \\|w\\|^2, \\qquad u_i = \\frac{n s_i}{S},

    with :math:`a_i = (x_i, 1)`, :math:`b_{ik} = +1` when row :math:`i` is
    of class ``positives[k]`` and :math:`-1` otherwise; L-BFGS-B minimizes
    :math:`\\sum_k F_k` until the largest entry of its gradient is at most
    ``tol`` or its relative decrease is below :math:`64\\,\\epsilon`
    (scikit-learn's ``lbfgs`` rule).

    Parameters
    ----------
    loss : object
        The per-sample loss (:class:`~skcgm.oracles.LogisticLoss`).
    X : dask array of shape (n_samples, n_features)
        Row-chunked, one chunk across the columns, NumPy chunks.
    y : dask array of shape (n_samples,)
        Class labels, chunked as the rows of ``X``.
    sample_weight : dask array of shape (n_samples,) or None
        Chunked as ``y``; None means ones.
    labels : tuple
        ``(classes, class_weight, positives)``: the sorted classes, their
        weights and the class of sign +1 of every problem.
    alpha : float
        The penalty of the mean form, :math:`1 / (C S)`.
    total_weight : float
        :math:`S = \\sum_i s_i`.
    n_positive : int
        Number of rows of positive weight.
    fit_intercept : bool
        Append the unpenalized constant coordinate.
    max_iter : int
        Largest number of L-BFGS iterations.
    tol : float
        Stop when the largest gradient entry is at most ``tol``.
    x0 : ndarray of shape (n_problems, n_features + fit_intercept), default=None
        Starting points; None means zeros.
    verbose : int, default=0
        One line per iteration.

    Returns
    -------
    results : list of ProximalPointResult
        One per problem, as :func:`~skcgm.optim.full_batch_lbfgs` returns
        it, all with the same ``n_iter`` and ``converged``; their
        ``sample_indices`` (rows of positive weight) and unit
        ``sample_weight`` are lazy dask arrays.
    n_passes : int
        Passes over the chunks of ``X``: one per evaluation.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skcgm.optim.proximal_point._dask_lbfgs import dask_full_batch_lbfgs
    >>> from skcgm.oracles import LogisticLoss
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(300, 3)
    >>> y = (X @ [1.0, -2.0, 0.5] + rng.randn(300) > 0).astype(int)
    >>> labels = (np.array([0, 1]), np.ones(2), np.array([1]))
    >>> (result,), n_passes = dask_full_batch_lbfgs(
    ...     LogisticLoss(), da.from_array(X, chunks=(100, 3)),
    ...     da.from_array(y, chunks=100), None, labels, alpha=1 / 300,
    ...     total_weight=300.0, n_positive=300, fit_intercept=True,
    ...     max_iter=100, tol=1e-8)
    >>> reference = LogisticRegression(tol=1e-8).fit(X, y)
    >>> bool(np.allclose(result.coef[:3], reference.coef_.ravel(), atol=1e-5))
    True
    """
    classes, class_weight, positives = labels
    positives = np.asarray(positives)
    context = _Context(
        loss, (classes, class_weight, None), fit_intercept, X.shape[0], total_weight
    )
    data = _Data(X, y, sample_weight, context)
    n_problems, d = positives.shape[0], data.d
    pen = np.ones(d, dtype=bool)
    pen[X.shape[1] :] = False
    start = np.zeros((n_problems, d)) if x0 is None else np.array(x0, dtype=float)
    last, objectives, grad_norms = {}, [], []

    def evaluate(flat):
        # L-BFGS-B reports each iterate it has just evaluated: the cache
        # makes the history cost no extra pass.
        if "x" not in last or not np.array_equal(last["x"], flat):
            W = flat.reshape(n_problems, d)
            parts = data.run(_objective_chunk, W, positives)
            values = sum(part[0] for part in parts) / data.n
            gradient = sum(part[1] for part in parts) / data.n
            values = values + 0.5 * alpha * np.einsum("kj,kj->k", W[:, pen], W[:, pen])
            gradient[:, pen] += alpha * W[:, pen]
            last.update(x=flat.copy(), values=values, gradient=gradient)
        return float(last["values"].sum()), last["gradient"].ravel().copy()

    def record(flat):
        evaluate(flat)
        objectives.append(last["values"])
        grad_norms.append(np.linalg.norm(last["gradient"], axis=1))
        if verbose:
            print(
                f"Dask pass {data.n_passes}: L-BFGS iteration {len(objectives) - 1}, "
                f"objective {float(last['values'].sum()):.8g}, largest gradient "
                f"norm {float(grad_norms[-1].max()):.3g}"
            )

    result = lbfgs(evaluate, start.ravel(), record, max_iter, tol)
    objectives, grad_norms = np.array(objectives), np.array(grad_norms)
    rows, ones = _positive_rows(data, classes, class_weight)
    coef = result.x.reshape(n_problems, d)
    return [
        ProximalPointResult(
            coef=coef[k],
            n_iter=len(objectives) - 1,
            converged=bool(result.success),
            history=lbfgs_history(objectives[:, k], grad_norms[:, k], n_positive),
            sample_indices=rows,
            sample_weight=ones,
            sampling_probabilities=None,
        )
        for k in range(n_problems)
    ], data.n_passes


def _positive_weight(labels, w_block=None, *, classes, class_weight):
    """Whether each row of a chunk has a positive weight :math:`s_i`."""
    return row_weights(labels, w_block, classes, class_weight) > 0


def _positive_rows(data, classes, class_weight):
    """The rows of positive weight and their unit weights, lazily."""
    import dask.array as da

    if data.w is None and np.all(class_weight > 0):
        rows = da.arange(data.n, chunks=(data.X.chunks[0],))
    else:
        blocks = (data.y,) if data.w is None else (data.y, data.w)
        positive = da.map_blocks(
            _positive_weight,
            *blocks,
            classes=classes,
            class_weight=class_weight,
            dtype=bool,
        )
        rows = da.flatnonzero(positive)
    return rows, rows.map_blocks(lambda block: np.ones(block.shape), dtype=np.float64)
