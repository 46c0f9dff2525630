"""Mixed linear regression as a sum-of-minimum problem."""

import math
from functools import partial
from numbers import Integral, Real

import numpy as np
from scipy.special import logsumexp

from ..base import BaseMixedRegressor, BaseSumOfMinimum
from ..optim.sum_of_min._dask import ChunkedResult, check_dask_options
from ..optim.sum_of_min._engine import SOLVER_CONSTRAINTS, Naming, bind_problem
from ..optim.sum_of_min._restarts import warn_if_fewer_distinct
from ..optim.sum_of_min._weights import normalized_weights
from ..optim.sum_of_min.losses._mixed_linear import MixedLinearLoss
from ..utils._blocks import is_dask_array
from ..utils._sklearn_compat import Interval, _fit_context
from ..utils._validation import check_dask_data, check_sample_weight

__all__ = ["MixedLinearRegressor"]


def _with_zero_intercepts(params, n_features):
    """Complete initial coefficients of shape (k, n_features) with zero intercepts."""
    params = np.asarray(params)
    if params.ndim == 2 and params.shape[1] == n_features:
        params = np.hstack([params, np.zeros((params.shape[0], 1), params.dtype)])
    return params


def _mean_square(values, weights):
    """Weighted mean of the squares, without overflow of the squares' sum."""
    values = np.asarray(values, dtype=np.float64)
    scale = float(np.max(np.abs(values), initial=0.0))
    if scale == 0:
        return 0.0
    scaled = values / scale
    return scale * scale * float(scaled * scaled @ weights / weights.sum())


def _call_init(init, X, n_components, random_state):
    """A user's init callable whose output may leave out the intercepts."""
    params = init(X, n_components, random_state=random_state)
    return _with_zero_intercepts(params, X.shape[1])


class MixedLinearRegressor(BaseMixedRegressor):
    """Mixture of linear regressions by sum-of-minimum optimization.

    Fits :math:`k` linear models to data :math:`(a_i, b_i)` each of which
    follows one of them, by minimizing the l2-regularized mixed linear
    regression objective of Ding, Chen, Wang and Yin (eq. 1.1 with the
    losses of section 5.2 and Appendix E.2)

    .. math::

        F(x_1, \\dots, x_k) = \\frac{1}{\\sum_i w_i} \\sum_{i=1}^N w_i
        \\min_{1 \\le j \\le k} \\Big\\{ \\tfrac{1}{2} (a_i^\\top x_j - b_i)^2
        + \\tfrac{\\alpha}{2} \\|x_j\\|^2 \\Big\\},

    the penalty inside the minimum, once per sample. The coefficients are
    seeded by the generalized k-means++ (Algorithms 1 and 4), every seed being
    the minimizer :math:`x_i^* = b_i a_i / (\\|a_i\\|^2 + \\alpha)` of one
    sample's loss, then refined by Lloyd's algorithm for mixed linear
    regression (Algorithm 7): assign every sample to the component of
    smallest loss (eq. 3.6), then replace every component by the ridge fit of
    its samples (eq. E.2),

    .. math::

        x_j = \\Big(\\sum_{i \\in C_j} w_i a_i a_i^\\top
        + \\alpha W_j I\\Big)^{-1} \\sum_{i \\in C_j} w_i b_i a_i,
        \\qquad W_j = \\sum_{i \\in C_j} w_i,

    that is ``Ridge(alpha=alpha * len(C_j), fit_intercept=False)`` on the
    component's samples with unit weights. A component left without samples
    keeps its coefficients (Algorithm 7, line 12).

    Read more in the :ref:`User Guide <mixed_linear_regression>`.

    Parameters
    ----------
    n_components : int, default=1
        Number of linear models :math:`k`. One by default, as in
        :class:`~sklearn.mixture.GaussianMixture`: the number of components
        is a modelling choice, made with :meth:`bic` or :meth:`aic` (see the
        Notes). One component is ridge regression, whose :meth:`predict` is
        as good as :class:`~sklearn.linear_model.LinearRegression`'s on data
        of one linear model.

    alpha : float, default=1e-4
        The penalty :math:`\\alpha > 0` (the paper's :math:`\\lambda`; its
        experiments use 0.01). It makes every per-sample loss strongly convex,
        its minimizer unique and the component update a well-posed ridge; use
        a tiny value (1e-8, say) for the unregularized problem (1.3). The
        penalty is in every sample's loss, so a component of :math:`n_j`
        samples is a ``Ridge(alpha=alpha * n_j)``, a shrinkage that grows with
        the sample size and is negligible only for ``alpha`` small against
        the variance of the features. The default is small against 1/442,
        that of :func:`~sklearn.datasets.load_diabetes`, where the paper's
        0.01 costs 0.20 of test :math:`R^2` (see the Notes); on planted
        mixtures of unit-variance features 0.01, 1e-4 and 1e-6 recover the
        components equally often. Values beyond
        ``np.finfo(np.float64).max / (16 * n_coefficients)``, whose penalty
        overflows, are refused.

    fit_intercept : bool, default=True
        Whether every component has an intercept, not penalized, as in
        scikit-learn's regressors. The paper's model has none: pass
        ``fit_intercept=False`` to reproduce it. The component update is then
        ``Ridge(alpha=alpha * len(C_j), fit_intercept=True)``. With an
        intercept the minimizer of one sample's loss is the constant
        predictor :math:`x_i^* = (0, b_i)` (:math:`f_i^* = 0`); seeds there
        spread the intercepts only, and single runs of 'k-means++' from them
        recovered 0 of 40 planted mixtures of 4 components. The seeds of
        'k-means++' and 'uniform' are instead the minimizers of :math:`f_i`
        among the models through the centroid :math:`(\\bar a, \\bar b)` of
        the training data, the seeds without intercept of the centred data,

        .. math::

            w_i = \\frac{(b_i - \\bar b)(a_i - \\bar a)}
            {\\|a_i - \\bar a\\|^2 + \\alpha}, \\qquad
            c_i = \\bar b - \\bar a^\\top w_i,

        which recover planted mixtures about as often as the seeds without
        intercept (93 of 100 single runs with 4 components, against 95; see
        the Notes); the seeding scores are those of :math:`f_i`.

    init : {'k-means++', 'uniform', 'random'}, callable or array-like of \
            shape (n_components, n_features), default='k-means++'
        'k-means++' is the generalized k-means++ seeding, one sample per
        round; 'uniform' takes the minimizers :math:`x_i^*` of
        ``n_components`` distinct samples drawn uniformly; 'random' draws the
        coefficients (and intercepts) from a standard Gaussian, the paper's
        random initialization (section 5.2). With ``fit_intercept=True`` the
        seeds are models through the centroid of the data (see
        ``fit_intercept``). A callable is called as
        ``init(X, n_components, random_state=random_state)`` and returns an
        array like the array form. With ``fit_intercept=True`` an array of
        shape ``(n_components, n_features + 1)`` gives the intercepts in its
        last column; an array of shape ``(n_components, n_features)`` starts
        them at zero.

    init_score : {'gap', 'gradient'}, default='gradient'
        Score of the 'k-means++' seeding: the optimality gap
        :math:`f_i(x) - f_i^*` (Algorithm 1, eq. 3.2) or the squared gradient
        norm :math:`\\|\\nabla f_i(x)\\|^2` (Algorithm 4, eq. 3.5). The
        default is the authors' experiment code for Table 3, which uses the
        gradient-norm score although the paper's text (section 5.2) names
        Algorithm 1. On planted mixtures the two recover the components
        equally often (see the Notes).

    solver : {'exact', 'gd', 'momentum'} or solver object, default='exact'
        'exact' is Algorithm 7, the ridge update of every component; 'gd'
        takes one gradient step of size :math:`1/L`,
        :math:`L = \\max_i \\|a_i\\|^2 + \\alpha`, per iteration (Algorithm 2,
        Theorem 4.6); 'momentum' is Algorithm 3 with the engine's defaults
        (:func:`skcgm.optim.sum_of_minimum`: momentum 0.5, size-change factor
        1.9, step :math:`0.5/L`). A 'momentum' run whose objective ends above
        its initial value is cut back to its iterate of lowest objective,
        with a :class:`~sklearn.exceptions.ConvergenceWarning`. A component
        whose ridge system is singular within rounding (fewer samples than
        features, of large scale) is solved in the range of its samples.
        An object with a ``solve`` method (such as
        :class:`~skcgm.optim.GradientLloyd`) runs with its own
        hyper-parameters, ``max_iter`` and ``tol`` included. 'exact' is the
        default: one update solves every component, where 'gd' and
        'momentum' take ``max_iter`` small steps and recover far fewer
        planted mixtures (see the Notes).

    n_init : 'auto' or int, default='auto'
        Number of runs with different seeds; the run of lowest objective is
        kept. 'auto' means 1 for ``init='k-means++'`` or an array, 10
        otherwise. The paper's Table 3 uses single runs. An ``init`` array
        makes one run, with a :class:`RuntimeWarning` if ``n_init`` asks for
        more, as in :class:`~sklearn.cluster.KMeans`.

    max_iter : int, default=300
        Maximum number of coefficient updates in a run (the paper does not
        state one; the authors' code allows 10000).

    tol : float, default=1e-4
        Stop when the objective decreases by at most ``tol`` times its
        previous value; 'exact' also stops when the partition repeats, the
        paper's rule, which is the only one with ``tol=0``.

    random_state : int, RandomState instance or None, default=None
        Seeds the initializations (and the visiting order of 'momentum').
        Pass an int for reproducible results; the result does not depend on
        ``n_jobs``.

    n_jobs : int, default=None
        Number of runs (``n_init``) in parallel through joblib, on threads
        unless a :func:`joblib.parallel_config` context chooses another
        backend. None means 1 unless in such a context; -1 means all
        processors. BLAS and the block threads of every run are limited so
        that all runs together use no more threads than there are cores.

    verbose : int, default=0
        Print the objective at every iteration. With ``n_jobs`` the lines of
        every run are printed by the calling process, run after run, as with
        one job.

    Attributes
    ----------
    coef_ : ndarray of shape (n_components, n_features)
        The coefficients :math:`x_j` of the components, in the dtype of the
        training data.

    intercept_ : ndarray of shape (n_components,)
        The intercepts; zeros when ``fit_intercept=False``.

    weights_ : ndarray of shape (n_components,)
        Proportion of the (weighted) training samples assigned to every
        component, :math:`W_j / \\sum_i w_i` (:math:`|C_j| / N` with unit
        weights).

    noise_variance_ : float
        Estimated variance :math:`\\sigma^2` of the Gaussian noise, shared by
        the components: the (weighted) mean squared residual
        :math:`(a_i^\\top x_j + c_j - b_i)^2` of the training samples to
        their components :attr:`labels_`, at least ``eps`` times the mean
        square of the targets. Used by :meth:`bic` and :meth:`aic`.

    labels_ : ndarray of shape (n_samples,)
        Component of every training sample: the one of smallest loss
        :math:`f_i(x_j)`, penalty included, ties going to the lowest index
        (eq. 3.6). :meth:`assign` applies the same rule to new data. A lazy
        dask array after a fit on a dask array.

    objective_ : float
        The objective :math:`F` at the final coefficients, penalty included,
        normalized as in the paper (the weighted mean over samples).

    objective_history_ : ndarray of shape (`n_iter_` + 1,)
        :math:`F` at the initialization and after every update of the kept
        run.

    n_iter_ : int
        Number of coefficient updates of the kept run (the paper's iteration
        count of Table 3 when ``tol=0``).

    n_passes_ : int
        Passes over the data of the kept run, the centroid's and the
        seeding's included. Defined only after a fit on a dask array.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.linear_model.Ridge : A single regularized linear model, the
        component update.
    skcgm.datasets.make_mixed_linear_regression : The paper's data.
    skcgm.optim.sum_of_minimum : The solver behind this estimator.

    Notes
    -----
    In the paper's model the component of a sample is drawn independently of
    its input, so it can only be recovered from the residual, which needs the
    target: :meth:`assign` does so for labelled data, while :meth:`predict`
    returns the mixture mean :math:`\\sum_j \\pi_j (a^\\top x_j + c_j)`, the
    prediction of least expected squared error when the component is not
    observed. :meth:`score` is scikit-learn's :math:`R^2` of that mean, which
    stays low on data whose components differ much, however well they are
    recovered.

    **Choosing the number of components.** The paper's oracle error
    :meth:`min_loss` (Table 5) credits every sample with its best component,
    so it never increases with ``n_components`` and cannot choose it. Use
    :meth:`bic` (or :meth:`aic`), as with
    :class:`~sklearn.mixture.GaussianMixture`: the likelihood of the fitted
    Gaussian mixture of regressions, whose noise variance
    :attr:`noise_variance_` is the mean squared residual of the samples to
    their components, penalized by the number of parameters. Fit every
    candidate, with a few restarts, and keep the lowest (see the Examples):
    a candidate whose run ends in a local minimum is judged on that run.
    Over 1 to 5 candidate components with ``n_init=3``, on
    ``make_mixed_linear_regression(n_samples=500, n_features=4)`` with 1 to
    4 planted components, noise 0.01, 0.1 and 0.5 and 5 seeds each,
    :meth:`bic` and :meth:`aic` pick the planted number in 59 of 60 data
    sets (the miss: 3 for 4 at noise 0.5); with single runs in 52 of 60,
    every miss a fit of the planted number stuck in a local minimum. Both
    pick 1 on :func:`~sklearn.datasets.load_diabetes` (BIC 4848, 4933, 5007,
    5152 and 5263 for 1 to 5 components, ``n_init=3``).

    **The defaults** follow scikit-learn rather than the paper, whose setting
    is ``MixedLinearRegressor(k, alpha=0.01, fit_intercept=False)``. On
    :func:`~sklearn.datasets.load_diabetes`, mean test :math:`R^2` over
    ``KFold(5, shuffle=True, random_state=0)``:

    ===============================================  ================
    estimator                                        test :math:`R^2`
    ===============================================  ================
    ``LinearRegression()``                           0.489
    ``MixedLinearRegressor()``                       0.489
    ``MixedLinearRegressor(2)``                      0.448
    ``MixedLinearRegressor(1, alpha=0.01)``          0.286
    ``MixedLinearRegressor(2, alpha=0.01)``          0.123
    paper's setting, 2 components (former default)   -3.71
    ===============================================  ================

    Without intercept the models pass through the origin, far from the
    targets (mean 152); ``alpha=0.01`` shrinks the coefficients of features
    of variance 1/442 (the component of :math:`n_j` samples is a
    ``Ridge(alpha=0.01 * n_j)``); and the mixture mean of two components,
    each fitted to the samples on one side of the other, is a worse
    predictor than one linear model on data of one linear model, which
    :meth:`bic` detects.

    **Seeding and solver.** Single runs (``n_init=1``) on
    ``make_mixed_linear_regression(n_samples=1000, noise=0.01)``, 100 data
    sets per cell, counted as recovered when every planted coefficient and
    intercept (zero) is within 0.05 of a fitted one; defaults otherwise:

    ============================================  ======  ======  ======  =======
    :math:`(k, d)`                                (3, 5)  (4, 6)  (5, 6)  updates
    ============================================  ======  ======  ======  =======
    default ('k-means++', 'gradient', 'exact')    0.97    0.93    0.85    16.4
    ``init_score='gap'``                          0.98    0.94    0.82    16.1
    ``init='uniform'``                            0.98    0.90    0.82    17.7
    ``init='random'``                             0.88    0.74    0.53    23.6
    ``solver='gd'``                               0.78    0.26    0.04    283
    ``solver='momentum'``                         0.78    0.27    0.05    290
    ``fit_intercept=False``                       1.00    0.95    0.91    15.6
    paper's setting (also ``alpha=0.01``)         1.00    0.94    0.90    16.5
    seeds :math:`(0, b_i)` (40 data sets)         0.15    0.00    0.00    25.3
    ============================================  ======  ======  ======  =======

    The two scores are within the noise of each other (a standard error is
    about 0.03), so ``init_score`` keeps the authors' 'gradient';
    'k-means++' needs fewer updates than 'uniform' and recovers more than
    'random' from one run; 'gd' and 'momentum' mostly stop at ``max_iter``
    (300). The last line is the seeding at the minimizers of the losses with
    an intercept, replaced by the models through the centroid (see
    ``fit_intercept``).

    Sparse input is not supported. An iteration costs one
    ``(n_samples, n_components)`` evaluation of the losses and
    :math:`O(N d^2 + k d^3)` for the ridge updates.

    References
    ----------
    L. Ding, J. Chen, X. Wang and W. Yin, "Efficient algorithms for
    sum-of-minimum optimization", ICML 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.datasets import make_mixed_linear_regression
    >>> from skcgm.linear_model import MixedLinearRegressor
    >>> X, y, coef, labels = make_mixed_linear_regression(
    ...     n_samples=200, n_features=2, n_components=2, noise=0.1, random_state=0)
    >>> models = [MixedLinearRegressor(k, random_state=0).fit(X, y)
    ...           for k in range(1, 5)]
    >>> model = min(models, key=lambda model: model.bic(X, y))
    >>> model.n_components
    2
    >>> model.coef_[np.argsort(model.coef_[:, 0])].round(2)
    array([[0.99, 2.23],
           [1.77, 0.41]])
    >>> coef[np.argsort(coef[:, 0])].round(2)
    array([[0.98, 2.24],
           [1.76, 0.4 ]])
    """

    _parameter_constraints: dict = {
        **BaseSumOfMinimum._parameter_constraints,
        **{key: SOLVER_CONSTRAINTS[key] for key in ("init", "init_score", "solver")},
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
    }

    # KMeans' words in the messages, with components for clusters; the
    # verbose lines report the objective (penalty included), there being no
    # inertia.
    _naming = Naming(
        "MixedLinearRegressor",
        "initial coefficients",
        "components",
        empty=(
            "{n_lost} of the components ended the fit with no rows: every "
            "row is fitted better by another component (or equally well, "
            "when a large alpha makes them coincide). Try another "
            "random_state, more restarts (n_init) or a smaller n_components."
        ),
    )

    def __init__(
        self,
        n_components=1,
        *,
        alpha=1e-4,
        fit_intercept=True,
        init="k-means++",
        init_score="gradient",
        solver="exact",
        n_init="auto",
        max_iter=300,
        tol=1e-4,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.init = init
        self.init_score = init_score
        self.solver = solver
        super().__init__(n_init, max_iter, tol, random_state, n_jobs, verbose)

    def _loss_family(self):
        """The per-sample loss family, unbound."""
        return MixedLinearLoss(alpha=self.alpha, fit_intercept=self.fit_intercept)

    def _params(self):
        """The fitted parameters in the loss family's layout."""
        if self.fit_intercept:
            return np.hstack([self.coef_, self.intercept_[:, None]])
        return self.coef_

    def _resolve_init(self, n_features):
        """The ``init`` argument of the engine, intercepts completed.

        An array whose columns are neither the features nor the features and
        the intercepts is refused in KMeans' words; the engine names a wrong
        number of components.
        """
        init = self.init
        if isinstance(init, str):
            return init
        if callable(init):
            return partial(_call_init, init) if self.fit_intercept else init
        shape = np.shape(init)
        allowed = (n_features, n_features + 1) if self.fit_intercept else (n_features,)
        if len(shape) == 2 and shape[1] not in allowed:
            with_intercepts = (
                f" (or {n_features + 1} with the intercepts)"
                if self.fit_intercept
                else ""
            )
            raise ValueError(
                f"The shape of the initial coefficients {shape} does not match "
                f"the number of features of the data {n_features}"
                f"{with_intercepts}."
            )
        if not self.fit_intercept:
            return init
        return _with_zero_intercepts(init, n_features)

    def _check_params_vs_input(self, X, y, sample_weight):
        """Validate the data, and the options against them; the engine's init.

        A dask array is fitted on its chunks with the exact solver, unit
        weights and no init callable only: the others are refused before any
        pass. Returns the validated data and weights (None on chunks) and the
        init with its intercepts (see :meth:`_resolve_init`).
        """
        if is_dask_array(X):
            check_dask_options(
                solver=(self.solver, "exact"), sample_weight=(sample_weight, None)
            )
            if callable(self.init):
                raise ValueError(
                    "With a dask array X, init must be 'k-means++', 'uniform', "
                    "'random' or an array; a callable takes X in memory."
                )
            X, y = check_dask_data(self, X, y, reset=True)
        else:
            X, y = self._validate(X, y, reset=True)
            # float64 whatever the dtype of X: weights beyond float32's range
            # are valid, the engine normalizes them.
            sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
        return X, y, sample_weight, self._resolve_init(X.shape[1])

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the mixture of linear regressions.

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            Training inputs :math:`a_i`. Float32 input gives float32
            coefficients. A dask array is fitted chunk by chunk on its
            workers, never gathered: one pass for the centroid, k-means||
            seeding for ``init='k-means++'``, then the same Lloyd iterations
            as in memory (``solver='exact'``, without ``sample_weight``; see
            the :ref:`User Guide <larger_than_memory>`).

        y : array-like of shape (n_samples,)
            Targets :math:`b_i`; with a dask ``X``, a dask or NumPy array,
            rechunked as the rows of ``X``.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples in the objective, the seeding
            and the ridge updates. None means unit weights.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        X, y, sample_weight, init = self._check_params_vs_input(X, y, sample_weight)
        problem = bind_problem(self._loss_family(), X, y)
        restarts = self._restarts(
            problem,
            self.n_components,
            sample_weight,
            init=init,
            init_score=self.init_score,
            solver=self.solver,
            empty_cluster="keep",
        )
        with np.errstate(all="ignore"):
            runs = restarts.in_workers()
            for arguments in restarts:
                runs.append(restarts.solver.solve(*arguments))
        result = restarts.best(runs)
        warn_if_fewer_distinct(result, self.n_components, self._naming)
        params = result.params.astype(X.dtype, copy=False)
        self.coef_ = np.ascontiguousarray(params[:, : X.shape[1]])
        if self.fit_intercept:
            self.intercept_ = params[:, X.shape[1]].copy()
        else:
            self.intercept_ = np.zeros(self.n_components, dtype=X.dtype)
        self.labels_ = result.labels
        self._set_mixture(problem, result, X, y, sample_weight)
        self.objective_ = result.objective
        self.objective_history_ = result.objective_history
        self.n_iter_ = result.n_iter
        return self

    def _set_mixture(self, problem, result, X, y, sample_weight):
        """``weights_`` and ``noise_variance_`` of the fitted components.

        In memory from the labels and residuals of the training samples; on
        the chunks of a dask array from the groups' sizes and losses of the
        last pass, the losses less their penalties being half the squared
        residuals, which also gives the passes of the fit.
        """
        if not isinstance(result, ChunkedResult):
            self._set_weights(result.labels, sample_weight)
            self.noise_variance_ = self._noise_variance(X, y, sample_weight)
            return
        counts = result.counts
        self.weights_ = counts / counts.sum()
        coef = result.params[:, : X.shape[1]]
        penalties = 0.5 * self.alpha * np.einsum("ij,ij->i", coef, coef)
        residuals = 2 * max(
            float((result.group_losses - counts * penalties).sum()), 0.0
        )
        floor = np.finfo(np.float64).eps * problem.loss.target_mean_square
        self.noise_variance_ = max(
            residuals / X.shape[0], floor, np.finfo(np.float64).tiny
        )
        self.n_passes_ = result.n_passes

    def _noise_variance(self, X, y, sample_weight):
        """Weighted mean squared residual of the samples to their components.

        The maximum-likelihood variance of a shared Gaussian noise once the
        components are known (the classification likelihood). Floored at
        ``eps`` times the mean square of ``y``, so that exactly fitted data
        keep a finite likelihood.
        """
        residuals = self._residuals(X, y)
        assigned = residuals[np.arange(X.shape[0]), self.labels_]
        weights = normalized_weights(sample_weight)
        variance = _mean_square(assigned, weights)
        floor = np.finfo(np.float64).eps * _mean_square(y, np.ones(y.shape[0]))
        return max(variance, floor, np.finfo(np.float64).tiny)

    def _residuals(self, X, y):
        """The float64 residuals :math:`a_i^\\top x_j + c_j - b_i`."""
        # In float64: the squares of float32 residuals may exceed float32.
        coef = self.coef_.astype(np.float64)
        return X.astype(np.float64) @ coef.T + self.intercept_ - y[:, None]

    def _log_likelihood(self, X, y):
        """Total log-likelihood of ``(X, y)`` under the fitted mixture."""
        X, y = self._validate(X, y)
        # Standardized before squaring: the squares of residuals of huge
        # data may overflow where their ratios to sigma do not.
        sigma = math.sqrt(self.noise_variance_)
        standardized = self._residuals(X, y) / sigma
        with np.errstate(divide="ignore"):
            log_weights = np.log(self.weights_.astype(np.float64))
        log_densities = (
            log_weights
            - 0.5 * math.log(2 * math.pi)
            - math.log(sigma)
            - 0.5 * standardized * standardized
        )
        return float(logsumexp(log_densities, axis=1).sum()), X.shape[0]

    def _n_parameters(self):
        """Free parameters: coefficients, intercepts, proportions, variance."""
        n_coefficients = self.coef_.shape[1] + self.fit_intercept
        return self.n_components * n_coefficients + self.n_components - 1 + 1

    def bic(self, X, y):
        """Bayesian information criterion of the fitted mixture on ``(X, y)``.

        .. math::

            \\mathrm{BIC} = -2 \\sum_{i=1}^N \\log \\sum_{j=1}^k \\pi_j
            \\, \\mathcal{N}(b_i \\mid a_i^\\top x_j + c_j, \\sigma^2)
            + p \\log N,

        the likelihood of the Gaussian mixture of regressions with the
        proportions :math:`\\pi_j` (:attr:`weights_`) and the shared noise
        variance :math:`\\sigma^2` (:attr:`noise_variance_`) of the fit, and
        :math:`p = k(d + 1) + k` free parameters (:math:`k d + k` without
        intercepts): coefficients, intercepts, :math:`k - 1` proportions and
        the variance, a component left without samples included (as
        :class:`~sklearn.mixture.GaussianMixture` counts all of its
        components). Computed on the training data, as
        :meth:`sklearn.mixture.GaussianMixture.bic`; the lower the better.
        Unlike :meth:`min_loss`, which never increases with
        ``n_components``, it selects the number of components: fit every
        candidate ``n_components`` and keep the lowest.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        bic : float
            The lower the better.
        """
        log_likelihood, n_samples = self._log_likelihood(X, y)
        return -2 * log_likelihood + self._n_parameters() * math.log(n_samples)

    def aic(self, X, y):
        """Akaike information criterion of the fitted mixture on ``(X, y)``.

        .. math::

            \\mathrm{AIC} = -2 \\sum_{i=1}^N \\log \\sum_{j=1}^k \\pi_j
            \\, \\mathcal{N}(b_i \\mid a_i^\\top x_j + c_j, \\sigma^2) + 2 p,

        the likelihood and the number of parameters :math:`p` of :meth:`bic`,
        with the lighter penalty :math:`2 p`: it picks more components than
        :meth:`bic` on small samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        aic : float
            The lower the better.
        """
        log_likelihood, _ = self._log_likelihood(X, y)
        return -2 * log_likelihood + 2 * self._n_parameters()

    def predict_components(self, X):
        """Predict with every component.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        y_components : ndarray of shape (n_samples, n_components)
            :math:`a^\\top x_j + c_j` for every sample and component.
        """
        if is_dask_array(X):
            X = check_dask_data(self, X)
            return X @ self.coef_.T.astype(X.dtype) + self.intercept_.astype(X.dtype)
        X = self._validate(X)
        return X @ self.coef_.T + self.intercept_

    def score(self, X, y, sample_weight=None):
        """Return the coefficient of determination of the mixture mean.

        scikit-learn's :math:`R^2` of :meth:`predict`, kept for compatibility
        with its tools. It measures the mixture mean, not the recovered
        components, and stays low on well-fitted data whose components differ
        much: choose ``n_components`` with :meth:`bic`, and compare the
        recovered components with :meth:`min_loss`, the paper's metric.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        y : array-like of shape (n_samples,)
            Targets.

        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples.

        Returns
        -------
        score : float
            :math:`R^2` of ``self.predict(X)`` with respect to ``y``.
        """
        return super().score(X, y, sample_weight=sample_weight)
