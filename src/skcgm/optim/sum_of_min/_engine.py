"""The sum-of-minimum engine: its public functions and their options.

Implements Algorithms 1-4 and Appendix B.2 of Ding, Chen, Wang and Yin,
"Efficient algorithms for sum-of-minimum optimization" (ICML 2024), for any
per-sample loss family of :mod:`skcgm.optim.sum_of_min.losses`: the seeding
lives in ``_seeding``, the solvers in ``_exact``, ``_gradient``,
``_momentum`` and ``_adam`` (by name in ``_registry``), the restarts in
``_restarts`` and the passes over the chunks of a dask array in ``_dask``.
"""

import warnings
from functools import partial
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array, check_random_state

from ...utils._blocks import is_dask_array
from ...utils._progress import Progress
from ...utils._sklearn_compat import HasMethods, Interval, StrOptions, validate_params
from ...utils._validation import check_sample_weight, check_square_range
from ._dask import ChunkedProblem, chunked_initialize
from ._registry import LOSSES, SOLVERS, make_solver
from ._restarts import Restarts, resolve_n_init, warn_if_fewer_distinct
from ._result import SumOfMinResult
from ._seeding import (
    _seed,
    check_init_score,
    check_weighted_samples,
    initialize,
)
from ._weights import normalized_weights

__all__ = [
    "SOLVER_CONSTRAINTS",
    "Naming",
    "SumOfMinResult",
    "bind_problem",
    "check_n_samples",
    "generalized_kmeans_plusplus",
    "plan_sum_of_minimum",
    "sum_of_minimum",
]


class Naming(NamedTuple):
    """How messages name the caller and its parameters, KMeans' words for k-means."""

    #: Name of the estimator or function, in the n_init warning.
    owner: str = "sum_of_minimum"
    #: What an init array holds, in shape errors.
    params: str = "initial parameters"
    #: Plural of a group, also giving the parameter ``n_<groups>``.
    groups: str = "clusters"
    #: The quantity of the verbose lines: 'inertia' or 'objective'.
    quantity: str = "objective"
    #: What an init array is, in the n_init warning; None: ``params``.
    explicit: str | None = None
    #: The cause and remedy when groups end without samples, ``{n_lost}``
    #: their number: KMeans' for clusters, a mixture's own for components.
    empty: str = "Possibly due to duplicate points in X."
    #: The caller's parameter of the solver's step, in the divergence
    #: warning; ``eta0`` (which takes None) names the solver too.
    step: str = "eta0"


def bind_problem(loss, X, y=None):
    """The problem of a fit: the loss family bound to the data.

    ``loss`` is a name of :data:`LOSSES` or an instance. Data in memory
    binds the loss (:meth:`~SumOfMinLoss.bind`); a dask array makes a
    :class:`~skcgm.optim.sum_of_min._dask.ChunkedProblem`, which binds it
    to each chunk in the passes of the chunked solvers.
    """
    if isinstance(loss, str):
        loss = LOSSES[loss]()
    if is_dask_array(X):
        return ChunkedProblem(loss, X, y)
    return loss.bind(X, y)


#: Constraints of the data arguments of the public functions.
DATA_CONSTRAINTS = {
    "X": ["array-like", "sparse matrix"],
    "y": ["array-like", None],
    "loss": [StrOptions(set(LOSSES)), HasMethods(["bind"])],
    "sample_weight": ["array-like", None],
}

#: Constraints of the algorithm's options, shared with the estimators.
SOLVER_CONSTRAINTS = {
    "n_clusters": [Interval(Integral, 1, None, closed="left")],
    "init": [StrOptions({"k-means++", "uniform", "random"}), callable, "array-like"],
    "init_score": [StrOptions({"gap", "gradient"})],
    # The estimators' solvers; the engine's function also takes 'adam'.
    "solver": [StrOptions({"exact", "gd", "momentum"}), HasMethods(["solve"])],
    "eta0": [Interval(Real, 0, None, closed="neither"), None],
    "reclassify_every": [Interval(Integral, 1, None, closed="left")],
    "momentum": [Interval(Real, 0, 1, closed="left")],
    "size_change_factor": [Interval(Real, 1, None, closed="neither")],
    "empty_cluster": [StrOptions({"relocate", "keep"})],
    "n_init": [Interval(Integral, 1, None, closed="left")],
    "max_iter": [Interval(Integral, 0, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left")],
    "random_state": ["random_state"],
    "n_jobs": [Integral, None],
    "verbose": ["verbose"],
}


def _prepare(X, y, sample_weight, loss, n_clusters):
    """Validate the data of a public function and bind the loss to it."""
    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32])
    check_square_range(X, input_name="X")
    if y is not None:
        y = check_array(y, ensure_2d=False)
        check_square_range(y, input_name="y", dtype=X.dtype)
        y = y.astype(X.dtype, copy=False)
    # float64 whatever the data's dtype: the engine normalizes them, and
    # weights beyond float32's range are valid for float32 data.
    sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
    problem = bind_problem(loss, X, y)
    check_n_samples(problem, n_clusters)
    return problem, sample_weight


def check_n_samples(problem, n_clusters, naming=None):
    """Refuse fewer samples than groups, in the caller's words."""
    groups = "clusters" if naming is None else naming.groups
    if problem.n_samples < n_clusters:
        raise ValueError(
            f"n_samples={problem.n_samples} should be >= n_{groups}={n_clusters}."
        )


def plan_sum_of_minimum(
    problem,
    n_clusters,
    sample_weight,
    *,
    init,
    init_score,
    solver,
    n_init,
    naming=None,
    random_state=None,
    n_jobs=None,
    verbose=0,
    **options,
):
    """Check the options of a sum-of-minimum fit; the restarts that make it.

    The validated core shared by :func:`sum_of_minimum` and the estimators:
    ``n_init`` may be 'auto' (see :func:`resolve_n_init`), ``options`` are
    the solver's (those it does not take are ignored) and ``naming`` words
    the messages for the caller. Returns the :class:`Restarts` of the fit:
    the solver object (from the registry of the problem's kind, in memory or
    on the chunks of a dask array), the initialization, the normalized
    weights, the number of runs and the verbose lines (which report the
    inertia where ``naming`` says so).
    """
    naming = Naming() if naming is None else naming
    n_init = resolve_n_init(n_init, init, naming)
    if is_dask_array(problem.X):
        # No weights on the chunks (the estimators refuse them).
        solver = make_solver(problem, solver, **options)
        initialize_run, total_weight = chunked_initialize, float(problem.n_samples)
    else:
        check_n_samples(problem, n_clusters, naming)
        solver = make_solver(problem, solver, **options)
        check_init_score(problem, init, init_score)
        largest = float(sample_weight.max())
        total_weight = largest * float((sample_weight / largest).sum())
        sample_weight = normalized_weights(sample_weight, problem.X.dtype)
        check_weighted_samples(init, sample_weight, n_clusters, naming)
        initialize_run = partial(initialize, naming=naming)
    scale = 1.0
    if naming.quantity == "inertia":
        scale = problem.inertia_scale * total_weight
    return Restarts(
        problem,
        solver,
        partial(
            initialize_run, init=init, n_clusters=n_clusters, init_score=init_score
        ),
        sample_weight,
        n_init,
        random_state=random_state,
        n_jobs=n_jobs,
        verbose=verbose,
        progress=partial(Progress, quantity=naming.quantity, scale=scale),
        naming=naming,
    )


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **SOLVER_CONSTRAINTS,
        "solver": [StrOptions(set(SOLVERS)), HasMethods(["solve"])],
    },
    prefer_skip_nested_validation=True,
)
def sum_of_minimum(
    X,
    n_clusters,
    *,
    y=None,
    loss="squared_euclidean",
    sample_weight=None,
    init="k-means++",
    init_score="gap",
    solver="exact",
    eta0=None,
    reclassify_every=1,
    momentum=0.5,
    size_change_factor=1.9,
    empty_cluster="relocate",
    n_init=1,
    max_iter=300,
    tol=1e-4,
    random_state=None,
    n_jobs=None,
    verbose=0,
):
    """Minimize a sum of minimums of per-sample losses.

    Solves the sum-of-minimum problem (eq. 1.1)

    .. math::

        \\min_{x_1, \\dots, x_k} F(x_1, \\dots, x_k) =
        \\frac{1}{\\sum_i w_i} \\sum_{i=1}^N w_i \\min_{1 \\le j \\le k} f_i(x_j)

    by generalized k-means++ seeding (Algorithms 1 and 4) followed by a
    generalized Lloyd algorithm: exact group minimization, gradient steps
    (Algorithm 2) or momentum with controlled reclassification (Algorithm 3).
    The best of ``n_init`` runs is returned.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data defining the sub-functions :math:`f_i`.
    n_clusters : int
        Number of parameters :math:`k`.
    y : array-like of shape (n_samples,), default=None
        Targets, for loss families that use them.
    loss : {'squared_euclidean', 'kl'} or SumOfMinLoss, default='squared_euclidean'
        The per-sample loss family: half squared Euclidean distance
        (:class:`SquaredEuclideanLoss`), the generalized Kullback-Leibler
        divergence of the sample from the center (:class:`KLDivergenceLoss`,
        needs non-negative data) or any instance with the
        :class:`SumOfMinLoss` interface.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights :math:`w_i`; None means unit weights. Only their
        ratios matter: they are scaled by a power of two to sum to about one,
        so that weights of any finite size keep every sum within range.
    init : {'k-means++', 'uniform', 'random'}, callable or array-like, \
            default='k-means++'
        'k-means++' is the generalized k-means++ seeding (Algorithm 1, or
        Algorithm 4 with ``init_score='gradient'``); 'uniform' picks the
        minimizers of ``n_clusters`` distinct samples drawn uniformly (weights
        proportional to ``sample_weight``); 'random' draws the parameters from
        the loss family's random distribution (standard Gaussian for squared
        Euclidean, as in section 5.2 of the paper). A callable is called as
        ``init(X, n_clusters, random_state=random_state)``; an array of shape
        ``(n_clusters, n_features)`` is used as it is.
    init_score : {'gap', 'gradient'}, default='gap'
        Seeding score: the optimality gap :math:`f_i(x) - f_i^*` (eq. 3.2) or
        the squared gradient norm :math:`\\|\\nabla f_i(x)\\|^2` (eq. 3.5).
    solver : {'exact', 'gd', 'momentum', 'adam'} or solver object, \
            default='exact'
        'exact' replaces each parameter by its group minimizer; 'gd' takes
        one gradient step per iteration (eq. 3.8); 'momentum' is Algorithm 3;
        'adam' takes ten Adam steps (learning rate 1e-3) per reclassification,
        the iterative group step of the paper's mixed non-linear regression
        (:class:`AdamLloyd`), for losses without a closed-form minimizer.
        An object with ``solve(problem, start, sample_weight, random_state,
        progress=None)`` (:class:`ExactLloyd`, :class:`GradientLloyd`,
        :class:`MomentumLloyd`, :class:`AdamLloyd` or one of your own) runs
        with its own
        hyper-parameters; the solver options below then do not apply.
    eta0 : float, default=None
        Step size :math:`\\gamma` of 'gd', 'momentum' and 'adam'. None means
        :math:`1/L` for 'gd' (Theorem 4.6), :math:`(1 - \\beta)/L` for
        'momentum' and 1e-3 for 'adam'. Ignored by 'exact'. A step so large
        that a run diverges (its iterates overflow, or its last objective
        exceeds its initial one) cuts the run back to its iterate of lowest
        objective, with a :class:`~sklearn.exceptions.ConvergenceWarning`.
    reclassify_every : int, default=1
        Reclassify every ``reclassify_every`` iterations (the paper's
        :math:`r`); used by 'gd' and 'momentum'. 'exact' reaches the group
        minimum in one step and reclassifies at every iteration.
    momentum : float, default=0.5
        Momentum :math:`\\beta \\in [0, 1)` of 'momentum'.
    size_change_factor : float, default=1.9
        Factor :math:`\\alpha > 1` bounding the change of every group's size
        at a reclassification of 'momentum' (eq. 3.12). A
        :class:`~sklearn.exceptions.ConvergenceWarning` is raised when
        :math:`\\alpha \\beta \\ge 1` (Theorem 4.7 needs :math:`\\alpha\\beta<1`).
    empty_cluster : {'relocate', 'keep'}, default='relocate'
        'relocate' moves the samples worst served into empty groups, as
        :class:`~sklearn.cluster.KMeans` does; 'keep' leaves an empty group's
        parameter where it is, the paper's convention (eq. 3.7).
    n_init : int, default=1
        Number of runs with different seeds; the run of lowest objective is
        returned. An ``init`` array makes one run, with a
        :class:`RuntimeWarning` if ``n_init`` asks for more, as in
        :class:`sklearn.cluster.KMeans`.
    max_iter : int, default=300
        Maximum number of parameter updates per run; 0 returns the
        initialization.
    tol : float, default=1e-4
        Stop when the objective decreases by at most ``tol`` times its
        previous value ('exact' also stops when the partition repeats).
    random_state : int, RandomState instance or None, default=None
        Seeds the initializations and the visiting order of Algorithm 3.
    n_jobs : int, default=None
        Number of runs in parallel through joblib, on threads unless a
        :func:`joblib.parallel_config` context chooses another backend. None
        means 1 unless in such a context. BLAS and the block threads of every
        run are limited so that all runs together use no more threads than
        there are cores.
    verbose : int, default=0
        Print the objective at every iteration. The lines of parallel runs
        are printed by the calling process, run after run, as with one job.

    Returns
    -------
    result : SumOfMinResult
        The parameters, labels, objective and its history, the number of
        iterations and the initial parameters of the best run.

    See Also
    --------
    generalized_kmeans_plusplus : The seeding alone.
    skcgm.cluster.SumOfMinKMeans : The estimator built on this function.

    Notes
    -----
    A :class:`~sklearn.exceptions.ConvergenceWarning` is raised when fewer
    distinct groups than ``n_clusters`` remain in the returned partition, as
    in :class:`sklearn.cluster.KMeans`.

    One iteration costs one evaluation of the ``(n_samples, n_clusters)`` loss
    matrix, computed in blocks of bounded memory, plus one group update;
    'momentum' evaluates the losses twice (at :math:`u` and at :math:`x`).

    References
    ----------
    L. Ding, J. Chen, X. Wang and W. Yin, "Efficient algorithms for
    sum-of-minimum optimization", ICML 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import sum_of_minimum
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0]])
    >>> result = sum_of_minimum(X, 2, random_state=0)
    >>> result.params[np.argsort(result.params[:, 0])]
    array([[ 0. ,  0.5],
           [10. ,  0.5]])
    >>> result.objective
    0.125
    """
    problem, sample_weight = _prepare(X, y, sample_weight, loss, n_clusters)
    restarts = plan_sum_of_minimum(
        problem,
        n_clusters,
        sample_weight,
        init=init,
        init_score=init_score,
        solver=solver,
        eta0=eta0,
        reclassify_every=reclassify_every,
        momentum=momentum,
        size_change_factor=size_change_factor,
        empty_cluster=empty_cluster,
        n_init=n_init,
        max_iter=max_iter,
        tol=tol,
        random_state=random_state,
        n_jobs=n_jobs,
        verbose=verbose,
    )
    with np.errstate(all="ignore"):
        runs = restarts.in_workers()
        for arguments in restarts:
            runs.append(restarts.solver.solve(*arguments))
    best = restarts.best(runs)
    warn_if_fewer_distinct(best, n_clusters, Naming())
    return best


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **{
            key: SOLVER_CONSTRAINTS[key]
            for key in ("n_clusters", "init_score", "random_state")
        },
    },
    prefer_skip_nested_validation=True,
)
def generalized_kmeans_plusplus(
    X,
    n_clusters,
    *,
    y=None,
    loss="squared_euclidean",
    sample_weight=None,
    init_score="gap",
    random_state=None,
):
    """Generalized k-means++ seeding of a sum-of-minimum problem.

    Algorithm 1 of the paper (eqs. 3.1-3.4): the first index is drawn with
    probability proportional to :math:`w_i`, every further one with
    probability

    .. math::

        P(i_j = i) = \\frac{w_i v_i^{(j)}}{\\sum_{i'} w_{i'} v_{i'}^{(j)}},
        \\qquad v_i^{(j)} = \\min_{j' < j} f_i(x_{j'}^{(0)}) - f_i^*

    (eq. 3.2), and the parameter is the sample's own minimizer
    :math:`x_{i_j}^*`. With ``init_score='gradient'`` the score is
    :math:`\\min_{j'<j} \\|\\nabla f_i(x_{j'}^{(0)})\\|^2` (Algorithm 4,
    eq. 3.5). For the squared Euclidean loss this is k-means++ with one local
    trial and draws exactly as
    ``sklearn.cluster.kmeans_plusplus(n_local_trials=1)``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data defining the sub-functions.
    n_clusters : int
        Number of seeds.
    y : array-like of shape (n_samples,), default=None
        Targets, for loss families that use them.
    loss : {'squared_euclidean', 'kl'} or SumOfMinLoss, default='squared_euclidean'
        The per-sample loss family, as in :func:`sum_of_minimum`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; None means unit weights.
    init_score : {'gap', 'gradient'}, default='gap'
        Seeding score, eq. 3.2 or eq. 3.5.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws.

    Returns
    -------
    params : ndarray of shape (n_clusters, \\*param_shape)
        The seeds.
    indices : ndarray of shape (n_clusters,)
        The samples whose minimizers were chosen, in order.

    See Also
    --------
    sum_of_minimum : Seeding followed by Lloyd iterations.

    Notes
    -----
    When every score is zero before ``n_clusters`` seeds are chosen (fewer
    distinct minimizers than clusters), the remaining seeds are drawn
    uniformly among the unused samples and a
    :class:`~sklearn.exceptions.ConvergenceWarning` is raised. Theorem 4.1
    bounds the expected objective of the seeds by
    :math:`4(2 + \\ln k)(L^2/\\mu^2 + L/\\mu)` times the optimal gap.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import generalized_kmeans_plusplus
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0]])
    >>> params, indices = generalized_kmeans_plusplus(X, 2, random_state=0)
    >>> sorted(params[:, 0].tolist())
    [0.0, 10.0]
    """
    problem, sample_weight = _prepare(X, y, sample_weight, loss, n_clusters)
    check_init_score(problem, "k-means++", init_score)
    with np.errstate(all="ignore"):
        params, indices, n_scored = _seed(
            problem,
            n_clusters,
            normalized_weights(sample_weight, problem.X.dtype),
            init_score,
            check_random_state(random_state),
        )
    if n_scored < n_clusters:
        warnings.warn(
            f"Number of distinct clusters ({n_scored}) found smaller than "
            f"n_clusters ({n_clusters}). Possibly due to duplicate points in X.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return params, indices
