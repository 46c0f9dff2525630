"""The full-data solver of the proximal point problem: L-BFGS on every row."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize

from ...utils._blocks import single_threaded_blas
from ...utils._params import StrictInterval
from ...utils._sklearn_compat import validate_params
from ...utils._validation import check_vector
from ._in_memory import _PROBLEM_CONSTRAINTS, ProximalPointResult, _checked_problem

__all__ = ["full_batch_lbfgs", "lbfgs", "lbfgs_history", "minimize_lbfgs"]

_CONSTRAINTS = {
    key: _PROBLEM_CONSTRAINTS[key]
    for key in ("loss", "A", "alpha", "sample_weight", "penalized")
}


def lbfgs(evaluate, start, record, max_iter, tol):
    """scipy's L-BFGS-B with scikit-learn's ``lbfgs`` stopping rule.

    ``evaluate(x)`` returns the objective and its gradient; ``record(x)`` is
    called at ``start`` and after every iteration. Stops when the largest
    gradient entry is at most ``tol`` or the relative decrease is below
    :math:`64\\,\\epsilon`.
    """
    record(start)
    return minimize(
        evaluate,
        start,
        jac=True,
        method="L-BFGS-B",
        callback=record,
        options={
            "maxiter": max_iter,
            "maxls": 50,
            "gtol": tol,
            "ftol": 64 * np.finfo(float).eps,
        },
    )


def lbfgs_history(objectives, grad_norms, n_rows):
    """The solver history of an L-BFGS run over ``n_rows`` rows.

    One entry per iterate, NaN where an entry describes a sampled round.
    """
    iterates = np.arange(len(objectives))
    nan = np.full(iterates.size, np.nan)
    return {
        "objective": np.asarray(objectives),
        "grad_norm": np.asarray(grad_norms),
        "prox_weight": nan,
        "radius": nan.copy(),
        "total_sensitivity": nan.copy(),
        "n_inner_iter": iterates.astype(np.intp),
        "n_distinct": np.where(iterates > 0, n_rows, 0).astype(np.intp),
    }


@validate_params(
    {
        **_CONSTRAINTS,
        "signs": ["array-like", None],
        "fit_intercept": ["boolean"],
        "max_iter": [StrictInterval(Integral, 0, None, closed="left")],
        "tol": [StrictInterval(Real, 0, None, closed="left")],
        "x0": ["array-like", None],
        "verbose": ["verbose"],
    },
    prefer_skip_nested_validation=True,
)
def full_batch_lbfgs(
    loss,
    A,
    *,
    alpha,
    sample_weight=None,
    penalized=None,
    signs=None,
    fit_intercept=False,
    max_iter=100,
    tol=1e-4,
    x0=None,
    verbose=0,
):
    """Minimize the objective of :func:`approximate_proximal_point` on all rows.

    The same regularized finite sum (eq. 1 of the paper),

    .. math::

        F(x) = \\frac{1}{n} \\sum_{i=1}^n u_i\\, f(b_i a_i^\\top x)
        + \\frac{\\alpha}{2} \\|x_P\\|^2,

    solved by scipy's L-BFGS-B with scikit-learn's ``lbfgs`` stopping rule:
    the largest entry of :math:`\\nabla F` at most ``tol``, or a relative
    decrease of :math:`F` below :math:`64\\,\\epsilon`. Every iteration reads
    every row, so there is nothing to sample: this is the solver of choice
    when a pass over the data costs little, and the path that
    :class:`~skcgm.linear_model.LocalSensitivityLogistic` takes on small
    data (``sample_size='auto'``).

    Parameters
    ----------
    loss : object
        The per-sample loss :math:`f` (``value`` and ``derivative`` of the
        margins), e.g. :class:`~skcgm.oracles.LogisticLoss`.
    A : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows :math:`a_i`.
    alpha : float
        Ridge weight :math:`\\alpha \\ge 0` of the penalized coordinates.
    sample_weight : array-like of shape (n_samples,), default=None
        The weights :math:`u_i`; None means ones.
    penalized : array-like of bool of shape (n_features,), default=None
        The coordinates :math:`P` under the ridge; None means all.
    signs : array-like of shape (n_samples,), default=None
        Labels :math:`b_i \\in \\{-1, +1\\}`; None means all +1.
    fit_intercept : bool, default=False
        Add an unpenalized intercept, the last coordinate of ``coef``.
    max_iter : int, default=100
        Largest number of L-BFGS iterations.
    tol : float, default=1e-4
        Stop when :math:`\\|\\nabla F(x)\\|_\\infty \\le` ``tol``.
    x0 : array-like of shape (n_features + fit_intercept,), default=None
        Starting point; None means zeros.
    verbose : int, default=0
        Print the objective and the gradient norm at every iteration.

    Returns
    -------
    result : ProximalPointResult
        ``coef``, ``n_iter`` (L-BFGS iterations), ``converged`` (stopped by
        the rule above), ``history`` (per iterate ``'objective'``,
        ``'grad_norm'``, ``'n_inner_iter'`` = the iteration and
        ``'n_distinct'`` = the rows of positive weight; NaN for the entries
        that describe a sampled round), ``sample_indices`` (the rows of
        positive weight) with unit ``sample_weight``, and
        ``sampling_probabilities=None``.

    See Also
    --------
    approximate_proximal_point : The sampled rounds of Algorithm 2.
    sklearn.linear_model.LogisticRegression : The same minimizer by lbfgs.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skcgm.optim import full_batch_lbfgs
    >>> from skcgm.oracles import LogisticLoss
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(200, 3)
    >>> y = (X @ [1.0, -2.0, 0.5] + rng.randn(200) > 0).astype(int)
    >>> result = full_batch_lbfgs(
    ...     LogisticLoss(), X, alpha=1 / 200, signs=2 * y - 1, fit_intercept=True,
    ...     tol=1e-8)
    >>> reference = LogisticRegression(tol=1e-8).fit(X, y)
    >>> bool(np.allclose(result.coef[:3], reference.coef_.ravel(), atol=1e-5))
    True
    """
    problem = _checked_problem(
        loss, A, sample_weight, penalized, alpha, signs, fit_intercept
    )
    if x0 is None:
        start = np.zeros(problem.d)
    else:
        start = check_vector(x0, "x0", problem.d, copy=True)
    return minimize_lbfgs(problem, start, max_iter=max_iter, tol=tol, verbose=verbose)


def minimize_lbfgs(problem, start, *, max_iter, tol, verbose):
    """:func:`full_batch_lbfgs` on a validated problem, from ``start``.

    Parameters
    ----------
    problem : _Problem
        The objective (``_checked_problem``).
    start : ndarray of shape (n_coefficients,)
        The starting point, float64.
    max_iter : int
        Largest number of L-BFGS iterations.
    tol : float
        Stop when the largest gradient entry is at most ``tol``.
    verbose : int
        Print the objective and the gradient norm at every iteration.

    Returns
    -------
    result : ProximalPointResult
        As :func:`full_batch_lbfgs` returns it.
    """
    objectives, grad_norms = [], []
    last = {}

    def evaluate(x):
        # L-BFGS-B reports each iterate it has just evaluated: the cache
        # makes the history cost no extra pass over the data.
        if "x" not in last or not np.array_equal(last["x"], x):
            point = problem.evaluate(x.copy())
            last.update(x=point.x, value=point.objective, grad=point.gradient)
        return last["value"], last["grad"].copy()

    def record(x):
        value, grad = evaluate(x)
        objectives.append(value)
        grad_norms.append(float(np.linalg.norm(grad)))
        if verbose:
            print(
                f"L-BFGS iteration {len(objectives) - 1}: objective {value:.8g}, "
                f"grad {grad_norms[-1]:.3g}"
            )

    # Many small BLAS calls: one thread, as in approximate_proximal_point.
    with single_threaded_blas():
        result = lbfgs(evaluate, start, record, max_iter, tol)
    rows = np.flatnonzero(problem.u > 0)
    return ProximalPointResult(
        coef=result.x,
        n_iter=len(objectives) - 1,
        converged=bool(result.success),
        history=lbfgs_history(objectives, grad_norms, rows.size),
        sample_indices=rows.astype(np.intp),
        sample_weight=np.ones(rows.size),
        sampling_probabilities=None,
    )
