"""The solver objects of the local-sensitivity family, and Algorithm 2's
public function.

:class:`ProximalPointSolver` (the approximate proximal point method,
Algorithm 2 of Raj, Musco and Mackey) and :class:`LBFGSSolver` (L-BFGS on
all the rows) hold their hyper-parameters and solve a
:class:`~skcgm.optim.proximal_point.OneVsRestProblem` with one
``solve(problem, start, sample_weight, random_state)``: in memory, through
the steps of ``_solver._Rounds`` and ``_lbfgs.minimize_lbfgs``, or chunk by
chunk on a dask array (``_dask``, ``_dask_lbfgs``), as the problem's ``X``
is. :func:`approximate_proximal_point` is the first's in-memory run on one
problem.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import copy
import math
import warnings
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ...utils._blocks import is_dask_array, single_threaded_blas
from ...utils._params import StrictInterval
from ...utils._sklearn_compat import StrOptions, validate_params
from ...utils._validation import check_vector
from ._dask import dask_proximal_point
from ._dask_lbfgs import dask_full_batch_lbfgs
from ._in_memory import _PROBLEM_CONSTRAINTS, _checked_problem, _Rounds, _sample_size
from ._lbfgs import minimize_lbfgs

__all__ = [
    "LBFGSSolver",
    "ProximalPointSolver",
    "approximate_proximal_point",
    "draws_per_round",
]

# sample_size='auto' draws this fraction of the rows per round (the
# paper's 10%).
_AUTO_FRACTION = 0.1
# sample_size='auto' on a dask array draws at most this many rows per round:
# the rounds are solved on the client. Measured (user guide, "Data larger
# than memory"): one round from the start on a uniform sample of this size
# reached a relative objective error of 1e-4 to 1e-3 with 20 to 32 features.
_DASK_AUTO_SAMPLE = 100_000
# max_iter='auto': rounds (and L-BFGS iterations) in memory, and rounds on a
# dask array, where each round reads the data once or twice. Measured
# (benchmarks/HISTORY.md, "Data larger than memory"): on 8,000,000 rows one
# round from the uniform start reached a relative objective error of 2e-4 to
# 3e-4 in 3 passes (2 since its draws come with the centre's pass), the
# in-memory stopping rule 3e-5 in 68 passes.
_IN_MEMORY_MAX_ITER = 100
_DASK_MAX_ITER = 1


def draws_per_round(sample_size, n_samples, on_chunks):
    """The draws :math:`m` per round that ``sample_size`` means.

    Parameters
    ----------
    sample_size : 'auto', int or float
        An int in [1, n_samples], a fraction of n_samples in (0, 1]
        (rounded up), or 'auto': 10% of the rows, at most 100,000 on a dask
        array.
    n_samples : int
        The number of rows.
    on_chunks : bool
        Whether the rows are a dask array's.

    Returns
    -------
    m : int

    Examples
    --------
    >>> from skcgm.optim.proximal_point import draws_per_round
    >>> draws_per_round("auto", 5_000_000, on_chunks=False)
    500000
    >>> draws_per_round("auto", 5_000_000, on_chunks=True)
    100000
    """
    if sample_size == "auto":
        m = math.ceil(_AUTO_FRACTION * n_samples)
        return min(m, _DASK_AUTO_SAMPLE) if on_chunks else m
    return _sample_size(sample_size, n_samples)


class _OneVsRestSolver:
    """What the solvers share: the route by where ``X`` is, the one-vs-rest
    problems in memory (in parallel through joblib), and the report of a
    run stopped by ``max_iter``.

    A subclass defines ``resolved``, ``minimize``, ``_solve_chunks``,
    ``_max_iter`` and the words of its report (``unit``, ``advice``,
    ``chunk_reason``).
    """

    def solve(self, problem, start, sample_weight, random_state):
        """Solve every one-vs-rest problem of ``problem``.

        Parameters
        ----------
        problem : OneVsRestProblem
            The problems; a dask array ``problem.X`` is read chunk by chunk
            on its workers, never gathered.
        start : list of (ndarray of shape (n_coefficients,) or None) or None
            One starting point per problem (coefficients, then the
            intercept); None means the solver's own start (zeros, or for
            Algorithm 2 on a dask array the minimizer on a uniform sample),
            for every problem when ``start`` itself is None.
        sample_weight : ndarray or dask array of shape (n_samples,) or None
            The rows' sample weights, before the class weights; None means
            ones.
        random_state : int, RandomState instance or None
            Draws one seed per problem (L-BFGS draws them too, so that a
            RandomState advances alike).

        Returns
        -------
        results : list of ProximalPointResult
            One per problem, in the order of ``problem.positives``.
        """
        solver, start, seeds = self._prepared(problem, start, random_state)
        if is_dask_array(problem.X):
            return solver._solve_chunks(problem, start, sample_weight, seeds)
        jobs = solver._jobs(problem, start, sample_weight, seeds)
        if len(seeds) == 1:
            return [solver.minimize(*next(jobs))]
        parallel = Parallel(n_jobs=self.n_jobs, verbose=self.verbose)
        return parallel(delayed(solver.minimize)(*job) for job in jobs)

    def _prepared(self, problem, start, random_state):
        """The solver resolved for ``problem``, a start and a seed per problem."""
        seeds = problem.seeds(random_state)
        if start is None:
            start = [None] * len(seeds)
        on_chunks = is_dask_array(problem.X)
        return self.resolved(problem.X.shape[0], on_chunks), start, seeds

    def _jobs(self, problem, start, sample_weight, seeds):
        """``(binary problem, start, seed)`` of every problem in memory.

        A generator: joblib makes each problem's signed rows as it
        dispatches its job, not all of them at once.
        """
        u = problem.mean_form_weights(sample_weight)
        n_coefficients = problem.X.shape[1] + int(problem.fit_intercept)
        for k, seed in enumerate(seeds):
            yield problem.binary(k, u), _start(start[k], n_coefficients), seed

    def shortfall(self, results):
        """Why the run of ``results`` stopped before its stopping rules.

        Parameters
        ----------
        results : list of ProximalPointResult
            What :meth:`solve` returned.

        Returns
        -------
        reason : str or None
            "max_iter=... <unit>: <why>. <advice>", or None when every
            problem converged or stalled, or the run stopped where
            ``max_iter='auto'`` stops it by design.
        """
        on_chunks = results[0].n_passes is not None
        finished = all(result.converged or result.stalled for result in results)
        if finished or self._stops_by_design(on_chunks):
            return None
        if on_chunks:
            why = f"{self.chunk_reason} tol={self.tol}"
        else:
            grad_norm = max(result.history["grad_norm"][-1] for result in results)
            why = f"the gradient norm is {grad_norm:.3g} > tol={self.tol}"
        where = " on the dask array" if on_chunks else ""
        max_iter = self._max_iter(on_chunks)
        return f"max_iter={max_iter} {self.unit}{where}: {why}. {self.advice}"

    def _stops_by_design(self, on_chunks):
        return False


def _start(start, n_coefficients):
    """A problem's own copy of its starting point; None means zeros."""
    if start is None:
        return np.zeros(n_coefficients)
    return check_vector(start, "start", n_coefficients, copy=True)


class ProximalPointSolver(_OneVsRestSolver):
    """Algorithm 2 of Raj, Musco and Mackey: approximate proximal point
    rounds on importance samples.

    The hyper-parameters of :func:`approximate_proximal_point` (see there
    for the method), with the defaults of
    :class:`~skcgm.linear_model.LocalSensitivityLogistic`, whose 'auto'
    values depend on where the data are: :meth:`solve` runs the rounds in
    memory, or on a dask array as
    :func:`~skcgm.optim.proximal_point._dask.dask_proximal_point` does (a
    uniform start, then a pass or two a round; ``sampling`` 'uniform' or
    'local_sensitivity', ``leverage`` 'exact' or 'sample', and ``radius``,
    ``mu``, ``replace`` and ``callback`` at their defaults there).

    Parameters
    ----------
    sample_size : 'auto', int or float, default='auto'
        Draws :math:`m` per round (:func:`draws_per_round`).
    sampling : {'local_sensitivity', 'uniform', 'leverage', 'full'}, \
            default='local_sensitivity'
        The distribution of the draws.
    scores : {'theorem9', 'theorem10', 'leverage_only'}, default='theorem9'
        The sensitivity bound of 'local_sensitivity'.
    prox_weight : 'sqrt_grad' or float, default='sqrt_grad'
        :math:`\\lambda_t`.
    radius : {'algorithm2', 'lemma12'}, float or None, default='algorithm2'
        :math:`r_t`.
    mu : 'auto' or float, default='auto'
        :math:`\\mu` of the radius rules; 'auto' means ``alpha``.
    max_iter : 'auto' or int, default='auto'
        Maximum number of rounds; 'auto' means 100 in memory and 1 on a
        dask array.
    tol : float, default=1e-4
        Stop when :math:`\\|\\nabla F(x_t)\\| \\le` ``tol``.
    n_iter_no_change : int or None, default=10
        Stop when :math:`F(x_t)` has not improved for this many rounds.
    max_inner_iter : int, default=100
        Maximum gradient steps of the subproblem.
    inner_tol : float, default=1e-3
        Relative tolerance of the subproblem.
    leverage : {'auto', 'exact', 'sketch', 'sample'}, default='auto'
        The leverage scores; 'auto' means 'exact' in memory and 'sample' on
        a dask array.
    n_components : int, default=None
        CountSketch rows for ``leverage='sketch'``.
    replace : bool, default=True
        Independent draws or a Poisson sample without repetition.
    callback : callable, default=None
        ``callback(t, x, grad_norm)`` after every round; True stops.
    n_jobs : int, default=None
        One-vs-rest problems run in parallel in memory (joblib).
    verbose : int, default=0
        One line per round.

    See Also
    --------
    LBFGSSolver : L-BFGS on all the rows.
    approximate_proximal_point : The in-memory rounds on one problem.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point import OneVsRestProblem, ProximalPointSolver
    >>> rng = np.random.RandomState(0)
    >>> X = rng.standard_normal((2000, 3))
    >>> y = (X @ [1.0, -2.0, 0.5] + rng.standard_normal(2000) > 0).astype(int)
    >>> problem = OneVsRestProblem(
    ...     X, y, np.array([0, 1]), np.ones(2), alpha=1 / 2000,
    ...     total_weight=2000.0, n_positive=2000)
    >>> (result,) = ProximalPointSolver(sample_size=200).solve(
    ...     problem, None, None, np.random.RandomState(0))
    >>> result.coef.shape, bool(result.history["objective"][-1] < np.log(2))
    ((4,), True)
    """

    #: The name of the solver in the estimator's ``solver`` option.
    name = "proximal_point"
    unit = "rounds"
    advice = "Increase max_iter or tol, or use n_iter_no_change with the sampled modes."
    chunk_reason = "the gradient norm at the last centre exceeds"

    def __init__(
        self,
        *,
        sample_size="auto",
        sampling="local_sensitivity",
        scores="theorem9",
        prox_weight="sqrt_grad",
        radius="algorithm2",
        mu="auto",
        max_iter="auto",
        tol=1e-4,
        n_iter_no_change=10,
        max_inner_iter=100,
        inner_tol=1e-3,
        leverage="auto",
        n_components=None,
        replace=True,
        callback=None,
        n_jobs=None,
        verbose=0,
    ):
        self.sample_size = sample_size
        self.sampling = sampling
        self.scores = scores
        self.prox_weight = prox_weight
        self.radius = radius
        self.mu = mu
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.max_inner_iter = max_inner_iter
        self.inner_tol = inner_tol
        self.leverage = leverage
        self.n_components = n_components
        self.replace = replace
        self.callback = callback
        self.n_jobs = n_jobs
        self.verbose = verbose

    def solve(self, problem, start, sample_weight, random_state):
        """Solve every one-vs-rest problem of ``problem`` by Algorithm 2.

        As :meth:`_OneVsRestSolver.solve <LBFGSSolver.solve>`; the rounds of
        a single problem (a binary classifier) run here, those of several in
        joblib's workers (:meth:`minimize`).

        Parameters
        ----------
        problem : OneVsRestProblem
            The problems; a dask array ``problem.X`` is read chunk by chunk
            on its workers, never gathered.
        start : list of (ndarray of shape (n_coefficients,) or None) or None
            One starting point per problem; None means zeros in memory and
            the minimizer on a uniform sample on a dask array.
        sample_weight : ndarray or dask array of shape (n_samples,) or None
            The rows' sample weights, before the class weights.
        random_state : int, RandomState instance or None
            Draws one seed per problem.

        Returns
        -------
        results : list of ProximalPointResult
            One per problem, in the order of ``problem.positives``.
        """
        solver, start, seeds = self._prepared(problem, start, random_state)
        if is_dask_array(problem.X):
            return solver._solve_chunks(problem, start, sample_weight, seeds)
        jobs = solver._jobs(problem, start, sample_weight, seeds)
        if len(seeds) > 1:
            parallel = Parallel(n_jobs=self.n_jobs, verbose=self.verbose)
            return parallel(delayed(solver.minimize)(*job) for job in jobs)
        binary, x, seed = next(jobs)
        # As minimize, without the hop (its comment says why the BLAS limit).
        with single_threaded_blas(), np.errstate(all="ignore"):
            run = _Rounds(solver, binary, x, check_random_state(seed))
            while not run.done():
                run.round()
        return [run.result()]

    def resolved(self, n_samples, on_chunks):
        """A copy with the 'auto' options made concrete for these data."""
        solver = copy.copy(self)
        if self.sample_size == "auto":
            solver.sample_size = draws_per_round("auto", n_samples, on_chunks)
        solver.max_iter = self._max_iter(on_chunks)
        if self.leverage == "auto":
            solver.leverage = "sample" if on_chunks else "exact"
        solver.tol = float(self.tol)
        return solver

    def minimize(self, problem, x, random_state):
        """The rounds in memory on one problem, from ``x`` (which they own).

        Parameters
        ----------
        problem : _Problem
            A validated problem (``_checked_problem``).
        x : ndarray of shape (n_coefficients,)
            The starting point :math:`x_0`, float64.
        random_state : int, RandomState instance or None
            Seeds the draws and the sketches.

        Returns
        -------
        result : ProximalPointResult
        """
        rng = check_random_state(random_state)
        # One BLAS thread for the whole run (as scikit-learn's KMeans around
        # its Lloyd loop): the passes over all the rows run on our own
        # threads (skcgm.utils._blocks), and the rest are many small BLAS
        # and LAPACK calls on d x d matrices and on the sample, where BLAS
        # threads cost more than they gain: numpy and scipy each load an
        # OpenBLAS, and with their default threads a numpy Gram matrix of
        # 1797 x 66 followed by a scipy eigh of 66 x 66 took 26-48 ms
        # against 0.8 ms on one thread (2 cores); a default fit on
        # load_digits took 119 s against 7 s. Overflow (rows or weights of
        # extreme magnitude) is detected by the explicit checks of the
        # rounds, whatever the caller's numpy error state; a bound beyond
        # the float64 range is inf by design.
        with single_threaded_blas(), np.errstate(all="ignore"):
            run = _Rounds(self, problem, x, rng)
            while not run.done():
                run.round()
        return run.result()

    def _solve_chunks(self, problem, start, sample_weight, seeds):
        """The rounds on a dask array, one one-vs-rest problem after another."""
        in_memory_only = [
            ("sampling", self.sampling not in ("local_sensitivity", "uniform")),
            ("leverage", self.leverage not in ("exact", "sample")),
            ("radius", self.radius != "algorithm2"),
            ("mu", self.mu != "auto"),
            ("replace", self.replace is not True),
            ("callback", self.callback is not None),
        ]
        refused = [f"{key}={getattr(self, key)!r}" for key, no in in_memory_only if no]
        if refused:
            raise ValueError(
                f"{', '.join(refused)}: Algorithm 2 on a dask array takes sampling "
                "'local_sensitivity' or 'uniform', leverage 'exact' or 'sample', "
                "and the default radius, mu, replace and callback."
            )
        m = draws_per_round(self.sample_size, problem.X.shape[0], on_chunks=True)
        results, n_passes = [], 0
        for k, positive in enumerate(problem.positives):
            result, passes = dask_proximal_point(
                problem.loss,
                problem.X,
                problem.y,
                sample_weight,
                problem.labels(positive),
                alpha=problem.alpha,
                total_weight=problem.total_weight,
                n_positive=problem.n_positive,
                fit_intercept=problem.fit_intercept,
                sample_size=m,
                sampling=self.sampling,
                scores=self.scores,
                prox_weight=self.prox_weight,
                max_iter=self.max_iter,
                tol=self.tol,
                n_iter_no_change=self.n_iter_no_change,
                max_inner_iter=self.max_inner_iter,
                leverage=self.leverage,
                inner_tol=self.inner_tol,
                x0=start[k],
                random_state=seeds[k],
                verbose=self.verbose,
            )
            results.append(result)
            n_passes += passes
        return [replace(result, n_passes=n_passes) for result in results]

    def _max_iter(self, on_chunks):
        if self.max_iter != "auto":
            return self.max_iter
        return _DASK_MAX_ITER if on_chunks else _IN_MEMORY_MAX_ITER

    def _stops_by_design(self, on_chunks):
        # max_iter='auto' stops Algorithm 2 after its one round on chunks.
        return on_chunks and self.max_iter == "auto"


class LBFGSSolver(_OneVsRestSolver):
    """L-BFGS on all the rows, with scikit-learn's ``lbfgs`` stopping rule.

    In memory every one-vs-rest problem is minimized by
    :func:`~skcgm.optim.full_batch_lbfgs`'s run; on a dask array their sum
    is, one pass over the chunks an evaluation
    (:func:`~skcgm.optim.proximal_point._dask_lbfgs.dask_full_batch_lbfgs`).

    Parameters
    ----------
    max_iter : 'auto' or int, default='auto'
        Largest number of L-BFGS iterations; 'auto' means 100, as
        :class:`~sklearn.linear_model.LogisticRegression`'s.
    tol : float, default=1e-4
        Stop when the largest gradient entry is at most ``tol``.
    n_jobs : int, default=None
        One-vs-rest problems run in parallel in memory (joblib).
    verbose : int, default=0
        One line per iteration.

    See Also
    --------
    ProximalPointSolver : Algorithm 2 on samples of the rows.
    skcgm.optim.full_batch_lbfgs : The in-memory run on one problem.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skcgm.optim.proximal_point import LBFGSSolver, OneVsRestProblem
    >>> rng = np.random.RandomState(0)
    >>> X = rng.standard_normal((200, 3))
    >>> y = (X @ [1.0, -2.0, 0.5] + rng.standard_normal(200) > 0).astype(int)
    >>> problem = OneVsRestProblem(
    ...     X, y, np.array([0, 1]), np.ones(2), alpha=1 / 200,
    ...     total_weight=200.0, n_positive=200)
    >>> (result,) = LBFGSSolver(tol=1e-8).solve(problem, None, None, None)
    >>> reference = LogisticRegression(tol=1e-8).fit(X, y)
    >>> bool(np.allclose(result.coef[:3], reference.coef_.ravel(), atol=1e-5))
    True
    """

    #: The name of the solver in the estimator's ``solver`` option.
    name = "lbfgs"
    unit = "L-BFGS iterations"
    advice = "Increase max_iter or tol, or scale the data (StandardScaler)."
    chunk_reason = "the largest gradient entry exceeds"

    def __init__(self, *, max_iter="auto", tol=1e-4, n_jobs=None, verbose=0):
        self.max_iter = max_iter
        self.tol = tol
        self.n_jobs = n_jobs
        self.verbose = verbose

    def resolved(self, n_samples, on_chunks):
        """A copy with the 'auto' options made concrete."""
        solver = copy.copy(self)
        solver.max_iter = self._max_iter(on_chunks)
        solver.tol = float(self.tol)
        return solver

    def minimize(self, problem, x, random_state):
        """L-BFGS in memory on one problem from ``x``; ``random_state`` is
        unused (see :func:`~._lbfgs.minimize_lbfgs`)."""
        return minimize_lbfgs(
            problem, x, max_iter=self.max_iter, tol=self.tol, verbose=self.verbose
        )

    def _solve_chunks(self, problem, start, sample_weight, seeds):
        """The sum of the one-vs-rest problems, a pass an evaluation."""
        results, n_passes = dask_full_batch_lbfgs(
            problem.loss,
            problem.X,
            problem.y,
            sample_weight,
            problem.labels(problem.positives),
            alpha=problem.alpha,
            total_weight=problem.total_weight,
            n_positive=problem.n_positive,
            fit_intercept=problem.fit_intercept,
            max_iter=self.max_iter,
            tol=self.tol,
            x0=None if start[0] is None else np.array(start),
            verbose=self.verbose,
        )
        return [replace(result, n_passes=n_passes) for result in results]

    def _max_iter(self, on_chunks):
        return _IN_MEMORY_MAX_ITER if self.max_iter == "auto" else self.max_iter


@validate_params(
    {
        **_PROBLEM_CONSTRAINTS,
        "signs": ["array-like", None],
        "fit_intercept": ["boolean"],
        "sample_size": [
            StrictInterval(Integral, 1, None, closed="left"),
            StrictInterval(Real, 0, 1, closed="right"),
        ],
        "sampling": [StrOptions({"local_sensitivity", "uniform", "leverage", "full"})],
        "scores": [StrOptions({"theorem10", "theorem9", "leverage_only"})],
        "prox_weight": [
            StrOptions({"sqrt_grad"}),
            StrictInterval(Real, 0, None, closed="neither"),
        ],
        "radius": [
            StrOptions({"algorithm2", "lemma12"}),
            StrictInterval(Real, 0, None, closed="neither"),
            None,
        ],
        "mu": [StrOptions({"auto"}), StrictInterval(Real, 0, None, closed="left")],
        "max_iter": [StrictInterval(Integral, 0, None, closed="left")],
        "tol": [StrictInterval(Real, 0, None, closed="left")],
        "max_inner_iter": [StrictInterval(Integral, 1, None, closed="left")],
        "n_iter_no_change": [StrictInterval(Integral, 1, None, closed="left"), None],
        "inner_tol": [StrictInterval(Real, 0, None, closed="left")],
        "replace": ["boolean"],
        "x0": ["array-like", None],
        "callback": [callable, None],
        "verbose": ["verbose"],
    },
    prefer_skip_nested_validation=True,
)
def approximate_proximal_point(
    loss,
    A,
    *,
    alpha,
    sample_weight=None,
    penalized=None,
    signs=None,
    fit_intercept=False,
    sample_size=0.1,
    sampling="local_sensitivity",
    scores="theorem10",
    prox_weight="sqrt_grad",
    radius="algorithm2",
    mu="auto",
    max_iter=50,
    tol=1e-4,
    n_iter_no_change=None,
    max_inner_iter=100,
    inner_tol=1e-3,
    leverage="exact",
    n_components=None,
    replace=True,
    x0=None,
    random_state=None,
    callback=None,
    verbose=0,
):
    """Minimize a GLM finite sum by proximal point rounds on importance samples.

    Algorithm 2 of the paper, with the choices it leaves open (stopping rule,
    inner solver, starting point) made as below. The objective is

    .. math::

        F(x) = \\frac1n \\sum_{i=1}^n u_i f(a_i^\\top x)
        + \\frac{\\alpha}{2} \\|x_{\\mathcal P}\\|^2,

    and round :math:`t = 1, 2, \\dots` (stopping as soon as
    :math:`g = \\|\\nabla F(x_{t-1})\\| \\le` ``tol``):

    1. prox weight :math:`\\lambda_t = \\sqrt{g}` (line 4) and radius
       :math:`r_t = g / (\\lambda_t + \\mu)` (line 5; 'lemma12':
       :math:`g / (2\\lambda_t + \\mu)`, the radius of Lemma 12 that contains
       the exact proximal point when :math:`F` is :math:`\\mu`-strongly
       convex and lies inside Algorithm 2's ball);
    2. probabilities :math:`p_i \\propto s_i` from
       :func:`local_sensitivity_scores` at :math:`x_{t-1}` (lines 6-7), or
       the baselines of the paper's Figure 2: uniform over the rows with
       :math:`u_i > 0`, or static ridge leverage scores of
       :math:`\\sqrt{u} \\odot A` (ridge :math:`n\\alpha` on the penalized
       columns), computed once;
    3. :math:`m` i.i.d. draws with weights :math:`w_i = c_i / (m p_i)`
       (:func:`~skcgm.oracles.importance_sample`, Definition 2; line 8);
    4. :math:`x_t` approximately minimizes the subproblem (line 9)

       .. math::

           \\frac1n \\sum_{i \\in S} w_i u_i f(a_i^\\top x)
           + \\frac{\\alpha}{2}\\|x_{\\mathcal P}\\|^2
           + \\lambda_t \\|x - x_{t-1}\\|^2
           \\quad \\text{s.t.} \\quad \\|x - x_{t-1}\\| \\le r_t,

       touching only the sampled rows: projected accelerated gradient (FISTA
       with gradient restart, step :math:`1/L`,
       :math:`L = \\frac14 \\lambda_{\\max}(\\frac1n A_S^\\top W A_S) + \\alpha
       + 2\\lambda_t` for the logistic loss) from :math:`x_{t-1}`, stopped
       after ``max_inner_iter`` gradient steps or when the gradient mapping
       is at most ``inner_tol`` :math:`\\times g` (relative to the full
       gradient norm at the centre, so the accuracy follows the outer
       progress);
    5. :math:`\\|\\nabla F(x_t)\\|` on all the data (line 10).

    ``sampling='full'`` uses every row with weight 1: the exact proximal point
    method (Algorithm 3, or Algorithm 1 with an inexact oracle), the "full
    batch" baseline of Figure 2(e-f). Its ball contains the exact proximal
    point whenever Lemma 12's radius does (always with ``radius=None`` or
    'lemma12' and a true :math:`\\mu`); it stops on the same criterion
    :math:`\\|\\nabla F(x_t)\\| \\le` ``tol``, so its result is the minimizer
    of :math:`F` to that tolerance, with no separate polish.

    Parameters
    ----------
    loss : object
        The per-sample loss, e.g. :class:`~skcgm.oracles.LogisticLoss` (see
        :func:`local_sensitivity_scores` for the methods it needs;
        ``second_derivative_bound`` is the smoothness used in :math:`L`).
    A : {array-like, sparse matrix} of shape (n_samples, n_features)
        Rows :math:`a_i = b_i x_i` (labels absorbed; append a column for an
        intercept and leave it out of ``penalized``). float32 and float64
        kept, CSR accepted. Not modified.
    alpha : float
        L2 penalty :math:`\\alpha \\ge 0` (:math:`\\gamma(x) = \\frac{\\alpha}{2}
        \\|x_{\\mathcal P}\\|^2`). scikit-learn's
        ``C * sum(s_i * logloss_i) + ||w||^2 / 2`` is this objective with
        :math:`u = s` and :math:`\\alpha = 1 / (C n)`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights :math:`u_i`, not all zero; None means ones.
    penalized : array-like of shape (n_features,) of bool, default=None
        The penalized coordinates; None means all.
    signs : array-like of shape (n_samples,), default=None
        Labels :math:`b_i` (:math:`\\pm 1` for a classifier) multiplying the
        rows: the solver then works on :math:`a_i = b_i x_i` with ``A``
        holding the unsigned :math:`x_i`, without a signed copy of ``A``.
        None means the rows of ``A`` are already signed.
    fit_intercept : bool, default=False
        Append a constant, unpenalized coordinate to the rows
        (:math:`a_i = b_i [x_i, 1]`), again without a copy of dense ``A``;
        ``x0`` and the returned ``coef`` then have ``n_features + 1``
        entries, the intercept last.
    sample_size : int or float, default=0.1
        Draws :math:`m` per round: an int in [1, n_samples] or a fraction of
        n_samples in (0, 1] (rounded up). Unused by 'full'.
    sampling : {'local_sensitivity', 'uniform', 'leverage', 'full'}, \
            default='local_sensitivity'
        The distribution of the draws (see above).
    scores : {'theorem10', 'theorem9', 'leverage_only'}, default='theorem10'
        Which sensitivity bound 'local_sensitivity' samples by
        (:func:`local_sensitivity_scores`): Algorithm 2's Theorem 10,
        Theorem 9's bound for the local quadratic model, or its leverage
        term alone. Theorem 10's extra term grows like
        :math:`r_t/\\lambda_t`; with a small fixed ``prox_weight`` it
        follows the rows of largest norm, and 'theorem9' samples better.
    prox_weight : 'sqrt_grad' or float, default='sqrt_grad'
        :math:`\\lambda_t`: :math:`\\sqrt{\\|\\nabla F(x_{t-1})\\|}` (Algorithm 2)
        or a fixed positive value.
    radius : {'algorithm2', 'lemma12'}, float or None, default='algorithm2'
        :math:`r_t`: :math:`g/(\\lambda_t + \\mu)` (Algorithm 2),
        :math:`g/(2\\lambda_t + \\mu)` (Lemma 12), a fixed positive radius, or
        None for no ball (the sensitivity scores then use the Lemma 12
        radius).
    mu : 'auto' or float, default='auto'
        Strong-convexity constant :math:`\\mu` of the radius rules; 'auto'
        means ``alpha``.
    max_iter : int, default=50
        Maximum number of rounds.
    tol : float, default=1e-4
        Stop when :math:`\\|\\nabla F(x_t)\\|_2 \\le` ``tol``.
    n_iter_no_change : int, default=None
        Also stop when :math:`F(x_t)` has not improved on its best value
        (from :math:`x_0` on) for this many consecutive rounds: the noise
        floor of a fixed sample size (the additive error of Theorem 14),
        usually far above any useful ``tol``. None disables the rule.
    max_inner_iter : int, default=100
        Maximum gradient steps of the inner solver per round.
    inner_tol : float, default=1e-3
        Relative tolerance of the inner solver (see step 4); 0 runs
        ``max_inner_iter`` steps, as the paper's experiments do.
    leverage : {'exact', 'sketch', 'sample'}, default='exact'
        Leverage computation of the 'local_sensitivity' and 'leverage'
        samplers (:func:`~skcgm.oracles.ridge_leverage_scores`). 'sample'
        (local sensitivity only) estimates the Gram matrix of :math:`C_0`
        from the previous round's draws, the first round's from :math:`m`
        uniform draws (:func:`local_sensitivity_scores`): a round then
        forms no :math:`n \times d^2` product besides the scores.
    n_components : int, default=None
        CountSketch rows for ``leverage='sketch'``.
    replace : bool, default=True
        Independent draws (Definition 2) or a Poisson sample without repetition
        (:func:`~skcgm.oracles.importance_sample`).
    x0 : array-like of shape (n_features,), default=None
        Starting point; None means zeros.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws and the sketches.
    callback : callable, default=None
        Called as ``callback(t, x, grad_norm)`` after every round; returning
        True stops the run.
    verbose : int, default=0
        Print one line per round.

    Returns
    -------
    result : ProximalPointResult
        The last iterate, the number of rounds, the convergence flag, the
        per-iterate history and the last round's sample.

    Raises
    ------
    ValueError
        For invalid parameters (naming the parameter), an integer
        ``sample_size`` above n_samples, or all-zero ``sample_weight``.

    See Also
    --------
    local_sensitivity_scores : The sensitivity bounds.
    skcgm.oracles.importance_sample : The draws.

    Notes
    -----
    Cost per round: :math:`O(nd)` for the full gradient, plus for
    'local_sensitivity' the scores (:math:`O(nd^2 + d^3)` with exact
    leverage, vectorized), plus the inner solver's gradient steps at
    :math:`O(md)` each on the :math:`m` sampled rows. A
    :class:`~sklearn.exceptions.ConvergenceWarning` is raised when
    ``max_iter`` rounds do not bring the gradient norm below ``tol``.

    The passes over all the rows (products, Gram matrices, scores) run on
    threads over blocks of rows, and everything else is small BLAS calls,
    so BLAS is held to one thread for the whole run (``callback`` included)
    and the caller's limits come back on return.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import approximate_proximal_point
    >>> from skcgm.oracles import LogisticLoss
    >>> rng = np.random.RandomState(0)
    >>> X = rng.standard_normal((1000, 5))
    >>> y = np.sign(X @ rng.standard_normal(5) + rng.standard_normal(1000))
    >>> A = y[:, None] * X
    >>> exact = approximate_proximal_point(
    ...     LogisticLoss(), A, alpha=1e-2, sampling="full", tol=1e-8)
    >>> result = approximate_proximal_point(
    ...     LogisticLoss(), A, alpha=1e-2, sample_size=100, tol=1e-2,
    ...     random_state=0)
    >>> result.converged, result.n_iter, len(result.sample_indices) <= 100
    (True, 31, True)
    >>> f_star = exact.history["objective"][-1]
    >>> bool((result.history["objective"][-1] - f_star) / f_star < 1e-3)
    True
    """
    problem = _checked_problem(
        loss, A, sample_weight, penalized, alpha, signs, fit_intercept
    )
    x = (
        np.zeros(problem.d)
        if x0 is None
        else check_vector(x0, "x0", problem.d, copy=True)
    )
    solver = ProximalPointSolver(
        sample_size=sample_size,
        sampling=sampling,
        scores=scores,
        prox_weight=prox_weight,
        radius=radius,
        mu=mu,
        max_iter=max_iter,
        tol=tol,
        n_iter_no_change=n_iter_no_change,
        max_inner_iter=max_inner_iter,
        inner_tol=inner_tol,
        leverage=leverage,
        n_components=n_components,
        replace=replace,
        callback=callback,
        verbose=verbose,
    )
    result = solver.minimize(problem, x, random_state)
    if not (result.converged or result.stalled):
        warnings.warn(
            f"approximate_proximal_point did not reach ||grad F|| <= tol={tol} in "
            f"max_iter={max_iter} rounds (last {result.history['grad_norm'][-1]:.3g}).",
            ConvergenceWarning,
            stacklevel=3,
        )
    return result
