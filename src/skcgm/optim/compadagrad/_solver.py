"""CompAdaGrad on the one-vs-rest problems of a linear classifier.

The solver object behind :class:`~skcgm.linear_model.CompAdaGradClassifier`:
it draws the SRHT projection and starts the iterates (a solution), or
continues a given one, then runs the epochs of every binary problem
(``_epochs``), in parallel through joblib, with BLAS on one thread.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import copy
import os
from dataclasses import KW_ONLY, dataclass

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.utils import check_random_state

from ...oracles import SRHT
from ...utils._math import next_power_of_two
from ...utils._random import MAX_SEED
from ...utils._validation import largest_magnitude
from ._epochs import _fit_problem, _single_threaded_blas
from ._row_readers import _rows
from ._step import init_compadagrad_state

__all__ = [
    "CompAdaGradProblem",
    "CompAdaGradResult",
    "CompAdaGradSolution",
    "CompAdaGradSolver",
    "draw_seeds",
    "problem_weights",
]


def draw_seeds(random_state, n_problems):
    """The projection's seed and one shuffling seed per problem."""
    rng = check_random_state(random_state)
    # Always drawn in this order, so that fit and the first partial_fit use
    # the same projection.
    projection_seed = int(rng.randint(MAX_SEED))
    seeds = [int(seed) for seed in rng.randint(MAX_SEED, size=n_problems)]
    return projection_seed, seeds


def problem_weights(sample_weight, class_weight, classes, y, mean_one=False):
    """The weights of the samples in every binary problem.

    The sample weight times the weight of the sample's own class
    (``class_weight`` in the order of ``classes``); with ``mean_one``
    rescaled to sum to the number of samples, so that the objective is the
    weighted mean of the losses plus the penalty and an integer weight is a
    repeated sample (scikit-learn's ElasticNet rescales its sample weights
    so).
    """
    weights = sample_weight * class_weight[np.searchsorted(classes, y)]
    if mean_one:
        # Divided by the largest first: weights near the float64 maximum
        # would overflow their sum.
        weights /= weights.max()
        weights *= y.shape[0] / weights.sum()
    return weights


@dataclass
class CompAdaGradProblem:
    """The one-vs-rest problems of a linear classifier on its training rows.

    Attributes
    ----------
    X : {ndarray, csr_matrix} of shape (n_samples, n_features)
        The training rows, C-contiguous.
    y : ndarray of shape (n_samples,)
        Their class labels.
    classes : ndarray of shape (n_classes,)
        The classes, sorted: one problem for two, one per class otherwise.
    validation : tuple or None, default=None
        ``(X_val, y_val, weights_val)`` of the held-out rows for early
        stopping, ``weights_val`` their sample weights times class weights;
        None stops on the training objective.
    x_max : float or None, default=None
        The largest absolute value of the rows given to the estimator (the
        training rows and the held-out ones), which bounds the decision
        values with :math:`\\|w\\|_1`; None computes it from ``X``.
    """

    X: object
    y: np.ndarray
    classes: np.ndarray
    validation: object = None
    x_max: object = None

    @property
    def n_problems(self):
        """The number of binary problems: 1 for two classes, else one per class."""
        return 1 if self.classes.shape[0] == 2 else self.classes.shape[0]


@dataclass
class CompAdaGradSolution:
    """The iterates of the one-vs-rest problems and their shared projection.

    Attributes
    ----------
    projection : SRHT
        The fitted projection, shared by the problems.
    states : list of CompAdaGradState
        One iterate and preconditioner per problem.
    intercept : ndarray of shape (n_problems,)
        The intercepts.
    intercept_sq : ndarray of shape (n_problems,)
        Their sums of squared gradients.
    """

    projection: object
    states: list
    intercept: np.ndarray
    intercept_sq: np.ndarray

    def copy(self):
        """A deep copy, which a failed fit leaves untouched (the projection is
        shared: it is never modified)."""
        return CompAdaGradSolution(
            self.projection,
            copy.deepcopy(self.states),
            self.intercept.copy(),
            self.intercept_sq.copy(),
        )


@dataclass
class CompAdaGradResult:
    """What a :meth:`CompAdaGradSolver.solve` returns.

    Attributes
    ----------
    solution : CompAdaGradSolution
        The iterates after the epochs, with the projection they use.
    n_iter : int
        The largest number of epochs over the problems.
    n_steps : int
        The largest number of steps (mini-batches) over the problems.
    best_loss : ndarray of shape (n_problems,)
        The smallest epoch objective of every problem (NaN when not
        computed).
    validation_scores : ndarray of shape (n_problems, n_iter)
        The validation score of every problem after every epoch (NaN after
        a problem stopped; no columns without validation).
    """

    solution: CompAdaGradSolution
    n_iter: int
    n_steps: int
    best_loss: np.ndarray
    validation_scores: np.ndarray


@dataclass
class CompAdaGradSolver:
    """CompAdaGrad epochs on the one-vs-rest problems of a linear classifier.

    The hyper-parameters are those of
    :class:`~skcgm.linear_model.CompAdaGradClassifier`, resolved: ``loss`` is
    a margin loss object (:mod:`skcgm.oracles`), ``l1_ratio`` is used only
    with ``penalty='elasticnet'``, ``n_components`` is an integer. Every
    binary problem runs composite mirror descent (Mehta et al., eq. 2) with
    the CompAdaGrad proximal matrix :math:`H_t` (eq. 5), one step per
    mini-batch :math:`B_t`, for at most ``max_iter`` epochs:

    .. math::

        x_{t+1} = \\arg\\min_x \\; \\eta \\langle g_t, x \\rangle
        + \\eta \\varphi(x) + \\tfrac{1}{2} \\|x - x_t\\|^2_{H_t},
        \\qquad g_t = \\frac{1}{|B_t|} \\sum_{i \\in B_t} w_i \\,
        \\ell'(y_i, a_i^\\top x_t + b_t) \\, a_i.

    :meth:`solve` follows the solvers' contract, ``solve(problem, start,
    sample_weight, random_state)``: a :class:`CompAdaGradProblem`, the
    solution to continue (or the coefficients to start from), the weights of
    the samples and the random state of the projection and the shuffling; it
    returns a :class:`CompAdaGradResult`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.compadagrad._solver import (
    ...     CompAdaGradProblem,
    ...     CompAdaGradSolver,
    ... )
    >>> from skcgm.oracles import HingeLoss
    >>> X = np.array([[-2.0, 1.0], [-1.0, 0.5], [1.0, -0.5], [2.0, -1.0]])
    >>> solver = CompAdaGradSolver(
    ...     HingeLoss(), penalty="l2", alpha=1e-4, l1_ratio=0.15, eta0=0.1,
    ...     n_components=2, tau=1.0, delta=1e-2, variant="adaptive",
    ...     batch_size=2, max_iter=5, tol=None, n_iter_no_change=5,
    ...     shuffle=True, fit_intercept=True, n_jobs=None, verbose=0,
    ... )
    >>> problem = CompAdaGradProblem(X, np.array([0, 0, 1, 1]), np.array([0, 1]))
    >>> result = solver.solve(problem, None, np.ones(4), 0)
    >>> result.n_iter, result.n_steps
    (5, 10)
    >>> bool(result.solution.states[0].coef[0] > 0)
    True
    """

    loss: object
    _: KW_ONLY
    penalty: object
    alpha: float
    l1_ratio: object
    eta0: float
    n_components: int
    tau: float
    delta: float
    variant: str
    batch_size: int
    max_iter: int
    tol: object
    n_iter_no_change: int
    shuffle: bool
    fit_intercept: bool
    n_jobs: object
    verbose: int

    def init_solution(
        self, n_features, n_problems, seed, coef_init=None, intercept_init=None
    ):
        """A fresh solution: the projection drawn, the iterates started.

        Parameters
        ----------
        n_features : int
            Number of features.
        n_problems : int
            Number of binary (one-vs-rest) problems.
        seed : int
            Seed of the SRHT.
        coef_init : array-like of n_problems * n_features entries, default=None
            Starting coefficients; None means zeros.
        intercept_init : array-like of n_problems entries, default=None
            Starting intercepts; None means zeros.

        Returns
        -------
        solution : CompAdaGradSolution
            The projection and the started iterates.
        """
        # n_components >= n_features means the whole padded space (k = n),
        # i.e. full-matrix AdaGrad, not k = n_features < n.
        n_padded = next_power_of_two(n_features)
        k = n_padded if self.n_components >= n_features else self.n_components
        scaling = "srht" if self.variant == "paper" else "orthonormal"
        # Under the BLAS limit of the epochs: the transforms that draw the
        # components are small products, and BLAS threads woken by them keep
        # spinning, on the cores the epochs' OpenMP threads need, for a good
        # part of the epoch that follows.
        with _single_threaded_blas():
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
        return CompAdaGradSolution(
            projection,
            [init_compadagrad_state(projection, coef=c) for c in coef],
            intercept,
            np.zeros(n_problems),
        )

    def _start(self, start, n_features, n_problems, seed):
        """The solution :meth:`solve` runs from: a copy of ``start`` or a new one."""
        if isinstance(start, CompAdaGradSolution):
            return start.copy()
        coef_init, intercept_init = (None, None) if start is None else start
        return self.init_solution(
            n_features, n_problems, seed, coef_init, intercept_init
        )

    def _options(self, X, x_max=None):
        """The options of ``_fit_problem``, with the bounds of ``X``.

        ``x_max`` is the largest absolute value of the rows, when the caller
        has it (None: computed here, one more pass over ``X``).
        """
        if x_max is None:
            x_max = largest_magnitude(X.data if sp.issparse(X) else X)
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
            tol=self.tol,
            n_iter_no_change=int(self.n_iter_no_change),
            shuffle=self.shuffle,
            verbose=int(self.verbose),
            n_features=X.shape[1],
            # The largest coefficient coef_ (in the dtype of X) can hold.
            coef_max=float(np.finfo(X.dtype).max),
            # It bounds the decision values with ||coef||_1.
            x_max=float(x_max),
            caller_pid=os.getpid(),
        )

    def solve(self, problem, start, sample_weight, random_state):
        """Fit every one-vs-rest problem of ``problem``.

        Parameters
        ----------
        problem : CompAdaGradProblem
            The training rows, their labels and classes, and the held-out
            rows of early stopping.
        start : CompAdaGradSolution, tuple or None
            The solution to continue (a warm start, a later partial_fit),
            copied: it is never modified; or ``(coef_init, intercept_init)``,
            the starting coefficients and intercepts of a fresh solution
            (see :meth:`init_solution`; either may be None); None starts a
            fresh solution at zero.
        sample_weight : ndarray of shape (n_samples,)
            Weights of the training rows: sample weights times class
            weights.
        random_state : int, RandomState instance or None
            Draws the seed of the SRHT (used by a fresh solution only), then
            the shuffling seed of every problem, always in that order, so
            that fit and the first partial_fit use the same projection.

        Returns
        -------
        result : CompAdaGradResult
            The solution, epochs, steps, best objectives and validation
            scores.
        """
        X, y, classes = problem.X, problem.y, problem.classes
        projection_seed, seeds = draw_seeds(random_state, problem.n_problems)
        solution = self._start(start, X.shape[1], problem.n_problems, projection_seed)
        validation = problem.validation
        positives = classes[1:] if classes.shape[0] == 2 else classes
        rows = _rows(X)
        options = self._options(X, problem.x_max)
        if validation is not None:
            X_val, y_val, weights_val = validation
            val_rows = _rows(X_val)
        jobs = (
            delayed(_fit_problem)(
                rows,
                np.where(y == positive, 1.0, -1.0),
                sample_weight,
                solution.states[i],
                float(solution.intercept[i]),
                float(solution.intercept_sq[i]),
                solution.projection,
                options=options,
                max_iter=self.max_iter,
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
                # Threads, as SGDClassifier's one-vs-rest: the compiled epoch
                # runs without the GIL and the rows need no copy.
                results = Parallel(
                    n_jobs=self.n_jobs, verbose=self.verbose, prefer="threads"
                )(jobs)

        solution.states = [result[0] for result in results]
        solution.intercept = np.array([result[1] for result in results])
        solution.intercept_sq = np.array([result[2] for result in results])
        n_iter = max(result[3] for result in results)
        scores = np.full((len(results), n_iter), np.nan)
        for i, result in enumerate(results):
            scores[i, : len(result[6])] = result[6]
        return CompAdaGradResult(
            solution=solution,
            n_iter=n_iter,
            n_steps=max(result[4] for result in results),
            best_loss=np.array([result[5] for result in results]),
            validation_scores=scores,
        )
