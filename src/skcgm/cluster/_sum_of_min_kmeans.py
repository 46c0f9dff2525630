"""Generalized k-means as a sum-of-minimum problem."""

import numpy as np

from ..base import BaseSumOfMinClusterer
from ..optim.sum_of_min._dask import (
    ChunkedResult,
    check_dask_options,
    dask_distances,
    dask_labels,
)
from ..optim.sum_of_min._engine import SOLVER_CONSTRAINTS, Naming, bind_problem
from ..optim.sum_of_min._registry import LOSSES
from ..optim.sum_of_min._restarts import warn_if_fewer_distinct
from ..optim.sum_of_min._weights import inertia, normalized_weights
from ..utils._blocks import is_dask_array
from ..utils._sklearn_compat import HasMethods, StrOptions, _fit_context
from ..utils._validation import check_dask_data, check_sample_weight

__all__ = ["SumOfMinKMeans"]

# The options of the seeding and the solver, passed through to the engine.
_ENGINE_OPTIONS = (
    "init",
    "init_score",
    "solver",
    "eta0",
    "reclassify_every",
    "momentum",
    "size_change_factor",
    "empty_cluster",
)


class SumOfMinKMeans(BaseSumOfMinClusterer):
    """Generalized k-means by sum-of-minimum optimization.

    Finds centers :math:`x_1, \\dots, x_k` minimizing the sum-of-minimum
    objective of Ding, Chen, Wang and Yin (eq. 1.1) with per-sample losses
    :math:`f_i(x) = d(x, y_i)`, the divergence of the sample :math:`y_i`
    from the center :math:`x`:

    .. math::

        F(x_1, \\dots, x_k) = \\frac{1}{\\sum_i w_i} \\sum_{i=1}^N w_i
        \\min_{1 \\le j \\le k} d(x_j, y_i),

    with :math:`d(x, y) = \\frac{1}{2}\\|x - y\\|^2` (k-means) or the
    generalized Kullback-Leibler divergence. The centers are seeded by the
    generalized k-means++ (Algorithms 1 and 4) and refined by a generalized
    Lloyd algorithm: exact group minimization, gradient steps (Algorithm 2) or
    momentum with controlled reclassification (Algorithm 3).

    Read more in the :ref:`User Guide <sum_of_min>`.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters :math:`k`.

    loss : {'squared_euclidean', 'kl'} or SumOfMinLoss, default='squared_euclidean'
        The divergence :math:`d(x, y)`. 'squared_euclidean' is
        :math:`\\frac{1}{2}\\|x - y\\|^2`, whose group minimizer is the mean:
        with ``solver='exact'`` this is Lloyd's k-means. 'kl' is the
        generalized Kullback-Leibler divergence
        :math:`\\sum_l y_l \\log(y_l / x_l) - y_l + x_l` (:math:`0 \\log 0 = 0`)
        for non-negative data; its group minimizer is the weighted mean,
        clipped so that every center coordinate is at least 1% of the mean
        entry of ``X``, which keeps the divergence of every non-negative
        sample finite (see :class:`~skcgm.optim.KLDivergenceLoss`). It
        supports ``solver='exact'`` with ``init_score='gap'`` only (its
        gradient is not Lipschitz). An instance of a
        :class:`~skcgm.optim.SumOfMinLoss` subclass is bound to ``X`` as
        it is (see the user guide's section on extending the engine).

    init : {'k-means++', 'uniform', 'random'}, callable or array-like of \
            shape (n_clusters, n_features), default='k-means++'
        'k-means++' is the generalized k-means++ seeding (Algorithm 1, or
        Algorithm 4 with ``init_score='gradient'``), one sample per round;
        'uniform' picks ``n_clusters`` distinct samples at random (what
        :class:`~sklearn.cluster.KMeans` calls 'random'); 'random' draws the
        centers from a standard Gaussian (log-normal for 'kl'), the paper's
        random initialization. A callable is called as
        ``init(X, n_clusters, random_state=random_state)``.

    init_score : {'gap', 'gradient'}, default='gap'
        Seeding score: the optimality gap :math:`d(x, y_i)` (eq. 3.2) or the
        squared gradient norm :math:`\\|\\nabla_x d(x, y_i)\\|^2` (eq. 3.5). For
        'squared_euclidean' both give the same seeds.

    solver : {'exact', 'gd', 'momentum'} or solver object, default='exact'
        'exact' moves every center to its group minimizer; 'gd' takes one
        gradient step of size ``eta0`` per iteration (eq. 3.8);
        'momentum' is Algorithm 3 (eqs. 3.9-3.12). An object with a
        ``solve`` method (such as :class:`~skcgm.optim.MomentumLloyd`) runs
        with its own hyper-parameters: ``eta0``,
        ``reclassify_every``, ``momentum``, ``size_change_factor``,
        ``empty_cluster``, ``max_iter`` and ``tol`` then do not apply.

        'momentum' ends, like 'exact', at a fixed point of Lloyd's algorithm,
        by another path through the partitions, in 1.6 to 7 times the
        iterations. From the same seeding, at ``momentum=0.5`` and
        ``size_change_factor=1.9`` (the defaults of
        :class:`~skcgm.optim.MomentumLloyd`), its inertia over exact's
        (geometric mean over 10 seeds) is 0.95 with unequal cluster sizes and
        with elongated clusters, 0.96 on overlapping blobs, 0.98 on
        ``load_digits`` and on well-separated blobs, and 1.00 on
        ``load_iris`` and on 32 blobs in 32 dimensions: it escapes some poor
        local minima of 'exact' (merged or split clusters), but a single run
        can also end worse (one overlapping-blob run in ten at 1.31 times
        exact's inertia). It does not converge faster: for this loss one
        exact step solves every group. See
        :class:`~skcgm.optim.MomentumLloyd` for the effect of each
        hyper-parameter.

    eta0 : float, default=None
        Step size :math:`\\gamma` of 'gd' and 'momentum'. None means
        :math:`1/L = 1` for 'gd' (Theorem 4.6; then 'gd' equals 'exact') and
        :math:`1 - \\beta` for 'momentum'. Ignored by 'exact'. A step so large
        that a run diverges (its centers overflow, or its last objective
        exceeds its initial one) cuts the run back to its centers of lowest
        objective, with a :class:`~sklearn.exceptions.ConvergenceWarning`.

    reclassify_every : int, default=1
        Recompute the partition every ``reclassify_every`` iterations (the
        paper's :math:`r`), for 'gd' and 'momentum'.

    momentum : float, default=0.5
        Momentum :math:`\\beta \\in [0, 1)` of 'momentum'.

    size_change_factor : float, default=1.9
        Bound :math:`\\alpha > 1` on the relative change of a cluster's size
        at a reclassification of 'momentum' (eq. 3.12). A
        :class:`~sklearn.exceptions.ConvergenceWarning` is raised when
        ``momentum * size_change_factor >= 1``, outside Theorem 4.7.

    empty_cluster : {'relocate', 'keep'}, default='relocate'
        'relocate' moves the points farthest from their centers into empty
        clusters, as :class:`~sklearn.cluster.KMeans` does; 'keep' leaves an
        empty cluster's center in place, the paper's convention (eq. 3.7).

    n_init : 'auto' or int, default='auto'
        Number of runs with different seeds; the run of lowest objective is
        kept. 'auto' means 1 for ``init='k-means++'`` or an array, 10
        otherwise. An ``init`` array makes one run, with a
        :class:`RuntimeWarning` if ``n_init`` asks for more, as in
        :class:`~sklearn.cluster.KMeans`.

    max_iter : int, default=300
        Maximum number of center updates in a run.

    tol : float, default=1e-4
        Stop when the objective decreases by at most ``tol`` times its
        previous value; 'exact' also stops when the partition repeats.

    random_state : int, RandomState instance or None, default=None
        Seeds the initializations and the visiting order of the momentum
        solver. Pass an int for reproducible results; the result does not
        depend on ``n_jobs``.

    n_jobs : int, default=None
        Number of runs (``n_init``) in parallel through joblib, on threads
        unless a :func:`joblib.parallel_config` context chooses another
        backend. None means 1 unless in such a context; -1 means all
        processors. BLAS and the block threads of every run are limited so
        that all runs together use no more threads than there are cores.

    verbose : int, default=0
        Print the inertia at every iteration, in the words of
        :class:`~sklearn.cluster.KMeans`. With ``n_jobs`` the lines of every
        run are printed by the calling process, run after run, as with one
        job.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The centers :math:`x_j`, in the dtype of the training data.

    labels_ : ndarray of shape (n_samples,)
        Cluster of every training sample: the center of smallest loss, ties
        going to the lowest index (eq. 3.6). A lazy dask array after a fit on
        a dask array.

    inertia_ : float
        Sum of the weighted losses of the samples to their closest center as
        scikit-learn defines it: squared Euclidean distances (not halved) for
        'squared_euclidean', divergences for 'kl'.

    objective_ : float
        The paper's objective :math:`F` (eq. 1.1) at the final centers: the
        weighted mean of the per-sample losses, with the half for
        'squared_euclidean'. ``inertia_ = 2 * sum(sample_weight) * objective_``
        in that case.

    objective_history_ : ndarray of shape (n_updates + 1,)
        :math:`F` at the initialization and after every center update of the
        kept run. ``n_updates`` is `n_iter_`, or `n_iter_` - 1 when the run
        stopped because the partition repeated.

    n_iter_ : int
        Number of iterations of the kept run, counted as
        :class:`~sklearn.cluster.KMeans` counts them: the center updates, plus
        the last reclassification when it repeated the partition (a pass that
        moves no center), at most ``max_iter``.

    n_passes_ : int
        Passes over the data of the kept run, seeding included. Defined only
        after a fit on a dask array, where a pass is the cost that counts.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.cluster.KMeans : Lloyd's and Elkan's k-means with greedy
        k-means++.
    skcgm.optim.sum_of_minimum : The solver behind this estimator.

    Notes
    -----
    With the same initial centers and ``tol=0``, ``solver='exact'`` gives the
    centers, labels, inertia and ``n_iter_`` of
    ``KMeans(algorithm='lloyd', init=centers, n_init=1, tol=0)``. A positive
    ``tol`` is relative to the objective here, where KMeans compares the
    squared shift of the centers with ``tol`` times the mean variance of the
    features. The 'k-means++' seeding samples one candidate per round as in the paper,
    where KMeans keeps the best of :math:`2 + \\ln k` candidates. Each
    iteration costs one ``(n_samples, n_clusters)`` block-wise loss
    evaluation and one center update; 'momentum' evaluates the losses twice.

    :meth:`transform` returns Euclidean distances for 'squared_euclidean', as
    KMeans does, and divergences for 'kl'; :meth:`score` is minus the
    inertia, as in KMeans. A :class:`~sklearn.exceptions.ConvergenceWarning`
    is raised when fewer distinct clusters than ``n_clusters`` remain, as in
    KMeans.

    References
    ----------
    L. Ding, J. Chen, X. Wang and W. Yin, "Efficient algorithms for
    sum-of-minimum optimization", ICML 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.cluster import SumOfMinKMeans
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [10, 2], [10, 4], [10, 0]])
    >>> model = SumOfMinKMeans(n_clusters=2, random_state=0).fit(X)
    >>> model.cluster_centers_[np.argsort(model.cluster_centers_[:, 0])]
    array([[ 1.,  2.],
           [10.,  2.]])
    >>> model.predict([[0, 0], [12, 3]]) == model.predict([[1, 2], [10, 2]])
    array([ True,  True])
    >>> model.inertia_
    16.0
    """

    _parameter_constraints: dict = {
        **SOLVER_CONSTRAINTS,
        **BaseSumOfMinClusterer._parameter_constraints,
        "loss": [StrOptions(set(LOSSES)), HasMethods(["bind"])],
    }

    # KMeans' words in the messages and the verbose lines.
    _naming = Naming(
        "SumOfMinKMeans",
        "initial centers",
        quantity="inertia",
        explicit="initial center position",
    )

    def __init__(
        self,
        n_clusters=8,
        *,
        loss="squared_euclidean",
        init="k-means++",
        init_score="gap",
        solver="exact",
        eta0=None,
        reclassify_every=1,
        momentum=0.5,
        size_change_factor=1.9,
        empty_cluster="relocate",
        n_init="auto",
        max_iter=300,
        tol=1e-4,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.loss = loss
        self.init = init
        self.init_score = init_score
        self.solver = solver
        self.eta0 = eta0
        self.reclassify_every = reclassify_every
        self.momentum = momentum
        self.size_change_factor = size_change_factor
        self.empty_cluster = empty_cluster
        super().__init__(n_init, max_iter, tol, random_state, n_jobs, verbose)

    def _bind(self, X):
        """The per-sample loss family bound to ``X``."""
        return bind_problem(self.loss, X)

    def _check_params_vs_input(self, X, sample_weight):
        """Validate ``X`` and ``sample_weight``, and the options against them.

        A dask array is fitted on its chunks with the squared Euclidean loss,
        the exact solver and unit weights only: the others are refused before
        any pass. Returns the validated data and weights (None on chunks).
        """
        if is_dask_array(X):
            check_dask_options(
                loss=(self.loss, "squared_euclidean"),
                solver=(self.solver, "exact"),
                sample_weight=(sample_weight, None),
            )
            return check_dask_data(self, X, reset=True), None
        X = self._validate(X, reset=True)
        # float64 whatever the dtype of X: weights beyond float32's range are
        # valid, the engine normalizes them.
        return X, check_sample_weight(sample_weight, X, dtype=np.float64)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Compute the sum-of-minimum clustering.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, \
                n_features)
            Training instances. CSR input is used as it is; float32 input
            gives float32 centers. A dask array is fitted chunk by chunk on
            its workers, never gathered: k-means|| seeding for
            ``init='k-means++'``, then the same Lloyd iterations as in memory
            (``solver='exact'`` and the squared Euclidean loss only, without
            ``sample_weight``; see the :ref:`User Guide <larger_than_memory>`).

        y : Ignored
            Not used, present for API consistency by convention.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples in the objective, the seeding
            and the center updates. None means unit weights. Only their
            ratios change the centers; a ValueError is raised when the
            inertia, their weighted sum of squared distances, exceeds the
            float64 range.

        Returns
        -------
        self : object
            Fitted estimator.

        Raises
        ------
        ValueError
            If ``X`` holds values whose squares overflow its dtype (scale it
            first), or if the inertia overflows float64 (scale
            ``sample_weight`` down).
        """
        X, sample_weight = self._check_params_vs_input(X, sample_weight)
        problem = self._bind(X)
        restarts = self._restarts(
            problem,
            self.n_clusters,
            sample_weight,
            **{name: getattr(self, name) for name in _ENGINE_OPTIONS},
        )
        with np.errstate(all="ignore"):
            runs = restarts.in_workers()
            for arguments in restarts:
                runs.append(restarts.solver.solve(*arguments))
        result = restarts.best(runs)
        warn_if_fewer_distinct(result, self.n_clusters, self._naming)
        self.cluster_centers_ = result.params.astype(X.dtype, copy=False)
        self.labels_ = result.labels
        self.objective_ = result.objective
        self.objective_history_ = result.objective_history
        self.inertia_ = inertia(problem, result.objective, sample_weight)
        # KMeans counts the pass that finds the partition repeated, within
        # the iterations allowed (a solver object's own max_iter).
        max_iter = getattr(restarts.solver, "max_iter", np.inf)
        self.n_iter_ = min(result.n_iter + result.partition_repeated, max_iter)
        if isinstance(result, ChunkedResult):
            self.n_passes_ = result.n_passes
        self._n_features_out = self.n_clusters
        return self

    def predict(self, X):
        """Predict the closest cluster of each sample.

        The cluster whose center has the smallest loss :math:`d(x_j, y)`, ties
        going to the lowest index (eq. 3.6).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Index of the cluster each sample belongs to.
        """
        if is_dask_array(X):
            X = check_dask_data(self, X)
            return dask_labels(X, None, LOSSES[self.loss](), self.cluster_centers_)
        X = self._validate(X, reset=False)
        weights = np.ones(X.shape[0], dtype=X.dtype)
        labels, _, _, _ = self._bind(X).reclassify(self.cluster_centers_, weights)
        return labels

    def transform(self, X):
        """Transform ``X`` to a cluster-distance space.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_clusters)
            For 'squared_euclidean', the Euclidean distances
            :math:`\\|y - x_j\\|` of every sample :math:`y` to every center
            :math:`x_j`, as :meth:`sklearn.cluster.KMeans.transform`; for
            'kl', the divergences :math:`d(x_j, y)`.
        """
        if is_dask_array(X) and self.loss == "squared_euclidean":
            X = check_dask_data(self, X)
            return dask_distances(X, LOSSES[self.loss](), self.cluster_centers_)
        X = self._validate(X, reset=False)
        losses = self._bind(X).loss_matrix(self.cluster_centers_)
        if self.loss == "squared_euclidean":
            # The loss is half the squared distance; rounding can leave -0.
            return np.sqrt(np.maximum(2 * losses, 0, out=losses), out=losses)
        return losses

    def _inertia(self, X, sample_weight):
        """The inertia of validated ``X`` on the fitted centers."""
        sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
        problem = self._bind(X)
        weights = normalized_weights(sample_weight)
        _, _, objective, _ = problem.reclassify(self.cluster_centers_, weights)
        return inertia(problem, objective, sample_weight)
