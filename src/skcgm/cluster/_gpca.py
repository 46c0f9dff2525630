"""Generalized PCA (subspace clustering) as a sum-of-minimum problem."""

from dataclasses import replace
from functools import partial
from numbers import Integral

import numpy as np

from ..base import BaseSumOfMinClusterer
from ..optim.sum_of_min._engine import (
    SOLVER_CONSTRAINTS,
    Naming,
    check_n_samples,
)
from ..optim.sum_of_min._gpca import (
    SubspaceLoss,
    SumOfProductSweeps,
    centered_moments,
    in_data_units,
    product_overflow_message,
    range_exponent,
    rescaled,
)
from ..optim.sum_of_min._restarts import (
    Restarts,
    resolve_n_init,
    warn_if_fewer_distinct,
)
from ..optim.sum_of_min._seeding import check_weighted_samples, initialize
from ..optim.sum_of_min._weights import inertia
from ..optim.sum_of_min.losses._base import group_membership
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ..utils._validation import check_sample_weight, check_square_range

__all__ = ["GPCAClusterer"]


def _labels_and_inertia(problem, params, weights, exponent, name):
    """Nearest subspaces and the inertia, scaled back by :math:`2^e`.

    ``name`` is the attribute or method the inertia goes to, for the error
    raised when it exceeds the float64 range.
    """
    labels, _, objective, _ = problem.reclassify(params, weights)
    total = in_data_units(
        inertia(problem, objective, weights),
        exponent,
        f"The {name} (weighted sum of squared distances) exceeds the float64 "
        "range with this sample_weight and X. Scale sample_weight down: the "
        "fitted subspaces do not depend on a common scale of the weights.",
    )
    return labels, float(total)


def _empty_last(params, labels, n_clusters):
    """Move the parameters of empty clusters after the others, keeping the order.

    A sample never chose an empty cluster, so with the empty clusters last
    every sample still picks the same parameter (ties go to the lowest index
    and keep going to the same non-empty cluster): the labels become the
    consecutive ranks of the non-empty clusters and stay equal to ``predict``.
    """
    filled = np.bincount(labels, minlength=n_clusters) > 0
    if filled.all():
        return params, labels
    order = np.concatenate([np.flatnonzero(filled), np.flatnonzero(~filled)])
    rank = np.empty(n_clusters, dtype=labels.dtype)
    rank[order] = np.arange(n_clusters)
    return params[order], rank[labels]


def _principal_complements(normals, statistics, counts, affine):
    """Orthonormal bases of the subspaces, by decreasing variance of their clusters.

    The orthogonal complement of every normal basis (from a complete QR),
    rotated onto the eigenvectors of the cluster's second moment (centered
    when affine) restricted to it, largest eigenvalue first.
    """
    n_clusters, n_features, codim = normals.shape
    bases = np.empty((n_clusters, n_features, n_features - codim))
    for j in range(n_clusters):
        q, _ = np.linalg.qr(normals[j].astype(np.float64), mode="complete")
        complement = q[:, codim:]
        moment = statistics[0][j]
        if affine and counts[j] > 0:
            moment = centered_moments(
                moment[None], statistics[1][j][None], counts[j : j + 1]
            )[0][0]
        _, vectors = np.linalg.eigh(complement.T @ moment @ complement)
        bases[j] = complement @ vectors[:, ::-1]
    return bases


class GPCAClusterer(BaseSumOfMinClusterer):
    """Generalized PCA: clustering on a union of subspaces by sum-of-minimum.

    Finds :math:`k` subspaces :math:`V_j = \\{y : y^T A_j = 0\\}` of dimension
    ``subspace_dim`` (co-dimension :math:`r`), each given by an orthonormal
    basis :math:`A_j \\in \\mathbb{R}^{d \\times r}` of its normal space, that
    minimize the sum-of-minimum objective of Ding, Chen, Wang and Yin
    (eq. 1.5), half the mean squared distance to the nearest subspace:

    .. math::

        F(A_1, \\dots, A_k) = \\frac{1}{\\sum_i w_i} \\sum_{i=1}^N w_i
        \\min_{1 \\le j \\le k} \\tfrac{1}{2} \\|y_i^T A_j\\|^2,
        \\qquad A_j^T A_j = I_r.

    The bases are seeded by the generalized k-means++ (Algorithm 1; the seed
    of a sample is a random orthonormal basis orthogonal to it) and refined by
    Lloyd's algorithm for GPCA (Algorithm 5): assign every sample to its
    nearest subspace, then replace each :math:`A_j` by the eigenvectors of the
    :math:`r` smallest eigenvalues of its cluster's second-moment matrix
    :math:`\\sum_{i \\in C_j} w_i y_i y_i^T`.

    ``model='sum_of_product'`` instead fits the paper's baseline, the
    sum-of-product model (5.1) :math:`\\frac{1}{\\sum_i w_i} \\sum_i w_i
    \\prod_j \\|y_i^T A_j\\|^2` by block coordinate descent (Algorithm 6), from
    the same seeding, to reproduce the paper's Tables 1 and 2.

    Read more in the :ref:`User Guide <gpca>`.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of subspaces :math:`k`.

    subspace_dim : int, default=None
        Dimension of every subspace, between 1 and ``n_features - 1``; the
        co-dimension is :math:`r` = ``n_features - subspace_dim``. None means
        hyperplanes, ``n_features - 1``. The paper's experiments use 2.

    affine : bool, default=False
        Fit affine subspaces :math:`\\{y : (y - \\mu_j)^T A_j = 0\\}` with
        offsets :math:`\\mu_j` instead of linear subspaces through the origin.
        An extension, not in the paper: the group step takes the cluster's
        weighted mean as offset and the smallest eigenvectors of its centered
        covariance. Only with ``model='sum_of_min'``.

    model : {'sum_of_min', 'sum_of_product'}, default='sum_of_min'
        'sum_of_min' is the paper's model (eq. 1.5, Algorithm 5);
        'sum_of_product' is the baseline (5.1) solved by block coordinate
        descent (Algorithm 6), which always makes ``max_iter`` sweeps.

    init : {'k-means++', 'uniform', 'random'} or array-like of shape \
            (n_clusters, n_features, codim), default='k-means++'
        'k-means++' is the generalized k-means++ seeding (Algorithm 1, the
        paper's choice for both models); 'uniform' seeds from ``n_clusters``
        distinct samples drawn uniformly; 'random' draws Haar-random
        orthonormal bases (and standard Gaussian offsets when ``affine``).
        An array gives the normal bases (orthonormal columns), followed by the
        offset as a last column when ``affine``: shape ``(n_clusters,
        n_features, codim + 1)``.

    n_init : 'auto' or int, default='auto'
        Number of runs with different seeds; the run of lowest objective is
        kept. 'auto' means 1 for ``init='k-means++'`` or an array (the paper
        makes single runs), 10 otherwise. An ``init`` array makes one run,
        with a :class:`RuntimeWarning` if ``n_init`` asks for more, as in
        :class:`~sklearn.cluster.KMeans`.

    max_iter : int, default=50
        Maximum number of basis updates of 'sum_of_min', number of sweeps of
        'sum_of_product' (50 in the paper's Table 1, 10 in Table 2).

    tol : float, default=1e-4
        'sum_of_min' stops when the partition is unchanged (the paper's rule,
        the only one with ``tol=0``) or the objective decreases by at most
        ``tol`` times its previous value, as :class:`SumOfMinKMeans` does on
        the same engine. Ignored by 'sum_of_product'.

    random_state : int, RandomState instance or None, default=None
        Seeds the initializations. With the same ``random_state`` both models
        start from the same bases. Pass an int for reproducible results.

    n_jobs : int, default=None
        Number of runs (``n_init``) in parallel through joblib, on threads
        unless a :func:`joblib.parallel_config` context chooses another
        backend. None means 1 unless in such a context; -1 means all
        processors. BLAS and the block threads of every run are limited so
        that all runs together use no more threads than there are cores.

    verbose : int, default=0
        Print the inertia (the objective of 'sum_of_product') at every
        iteration, in the words of :class:`~sklearn.cluster.KMeans`. With
        ``n_jobs`` the lines of every run are printed by the calling process,
        run after run, as with one job.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of every training sample: its nearest subspace, ties going to
        the lowest index. The labels are consecutive from 0: empty clusters
        are listed after the others.

    normal_bases_ : ndarray of shape (n_clusters, n_features, codim)
        The orthonormal bases :math:`A_j` of the normal spaces.

    subspace_bases_ : ndarray of shape (n_clusters, n_features, subspace_dim)
        Orthonormal bases of the subspaces (the orthogonal complements of the
        normal bases), ordered by decreasing variance of the cluster's samples
        along them.

    offsets_ : ndarray of shape (n_clusters, n_features)
        The offsets :math:`\\mu_j`; zeros unless ``affine``.

    inertia_ : float
        Weighted sum of the squared distances of the training samples to
        their nearest subspace (either model), as :attr:`score` measures it.

    objective_ : float
        The fitted model's objective at the final bases: :math:`F` (eq. 1.5,
        with the half) for 'sum_of_min', so ``inertia_ = 2 *
        sum(sample_weight) * objective_``; the sum-of-product objective
        (5.1, no half) for 'sum_of_product'.

    objective_history_ : ndarray of shape (`n_iter_` + 1,)
        The objective at the initialization and after every update (every
        sweep for 'sum_of_product') of the kept run.

    n_iter_ : int
        Number of basis updates (sweeps) of the kept run.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    skcgm.cluster.SumOfMinKMeans : Sum-of-minimum k-means, clusters around
        points.
    sklearn.cluster.SpectralClustering : Graph-based clustering, an
        alternative for subspaces.

    Notes
    -----
    Empty clusters: in 'sum_of_min' an empty cluster takes the sample farthest
    from its subspace before the update, as :class:`~sklearn.cluster.KMeans`
    relocates (the paper keeps the empty cluster's basis, eq. 3.7); a cluster
    still empty at the end is moved after the others so that the labels are
    consecutive.

    Numerical range: ``X`` whose squares would overflow its dtype is refused
    with a ValueError before any work (by :meth:`fit`, :meth:`predict`,
    :meth:`transform` and :meth:`score`). Data or ``sample_weight`` far from
    unit scale (beyond :math:`2^{\\pm 256}` in float64, :math:`2^{\\pm 32}`
    in float32) are fitted divided by a power of two, which is exact: the
    bases and labels are those of the rescaled problem (the model is
    equivariant to the scale of ``X`` and invariant to a common scale of the
    weights), offsets, distances, objectives and inertia are scaled back, and
    the ``verbose`` lines report the rescaled objective. A ValueError names
    ``sample_weight`` when :attr:`inertia_` (or :meth:`score`) exceeds the
    float64 range, and ``X`` when the sum-of-product objective, a product of
    ``n_clusters`` squared distances, does.

    :meth:`transform` returns Euclidean distances to the subspaces,
    :math:`\\|(y - \\mu_j)^T A_j\\|`, like :meth:`sklearn.cluster.KMeans.transform`
    for centers; :meth:`score` is minus the weighted sum of squared distances
    to the nearest subspace, as :meth:`sklearn.cluster.KMeans.score` is minus
    the inertia. One iteration of 'sum_of_min' costs one block-wise
    :math:`(N, k r)` product and :math:`O(N d^2)` for the second moments;
    a sweep of 'sum_of_product' costs :math:`O(k N d^2)`.

    References
    ----------
    L. Ding, J. Chen, X. Wang and W. Yin, "Efficient algorithms for
    sum-of-minimum optimization", ICML 2024.

    Examples
    --------
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from skcgm.cluster import GPCAClusterer
    >>> from skcgm.datasets import make_union_of_subspaces
    >>> X, labels, bases = make_union_of_subspaces(
    ...     n_samples=200, n_features=3, n_clusters=2, subspace_dim=2,
    ...     random_state=0)
    >>> model = GPCAClusterer(n_clusters=2, random_state=0).fit(X)
    >>> model.normal_bases_.shape, model.subspace_bases_.shape
    ((2, 3, 1), (2, 3, 2))
    >>> adjusted_rand_score(labels, model.labels_)
    1.0
    >>> bool(model.transform(X).min(axis=1).max() < 1e-10)
    True
    """

    _parameter_constraints: dict = {
        **BaseSumOfMinClusterer._parameter_constraints,
        "n_clusters": SOLVER_CONSTRAINTS["n_clusters"],
        "subspace_dim": [Interval(Integral, 1, None, closed="left"), None],
        "affine": ["boolean"],
        "model": [StrOptions({"sum_of_min", "sum_of_product"})],
        "init": [StrOptions({"k-means++", "uniform", "random"}), "array-like"],
    }

    # KMeans' words in the messages; the verbose lines of the sum-of-minimum
    # model report the inertia, those of the product model its own objective.
    _naming = Naming("GPCAClusterer", "initial normal bases", quantity="inertia")

    def __init__(
        self,
        n_clusters=2,
        *,
        subspace_dim=None,
        affine=False,
        model="sum_of_min",
        init="k-means++",
        n_init="auto",
        max_iter=50,
        tol=1e-4,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.subspace_dim = subspace_dim
        self.affine = affine
        self.model = model
        self.init = init
        super().__init__(n_init, max_iter, tol, random_state, n_jobs, verbose)

    def _check_params_vs_input(self, X, sample_weight):
        """Check the options against ``X``; the co-dimension, weights and init.

        ``subspace_dim`` must leave a co-dimension between 1 and
        ``n_features - 1``, ``affine`` goes with the sum-of-minimum model only,
        and an init array must have the co-dimension (and offsets) of the fit
        and orthonormal normal bases; the engine names a wrong number of
        clusters or of features. The fit is equivariant to the scale of ``X``
        (the bases do not change, offsets and distances scale with it) and
        invariant to that of the weights: data or weights far from unit scale
        are fitted divided by a power of two, exactly, and the results scaled
        back. Returns the co-dimension, the validated weights, the init with
        its offsets in the units of the fit and the exponent :math:`e` of the
        power of two that divides ``X``.
        """
        codim = self._codim(X.shape[1])
        if self.model == "sum_of_product" and self.affine:
            raise ValueError(
                "affine=True is only available with model='sum_of_min'; the "
                "sum-of-product model (5.1) is defined for linear subspaces."
            )
        sample_weight = check_sample_weight(sample_weight, X, dtype=X.dtype)
        init, offsets = self.init, None
        if not isinstance(init, str):
            offsets = self._check_init(X.shape[1], codim)
        exponent = range_exponent(X, offsets, dtype=X.dtype)
        if offsets is None:
            return codim, sample_weight, init, exponent
        if range_exponent(rescaled(X, exponent), dtype=X.dtype):
            # Offsets so much larger than the data that, at their scale, the
            # squared distances within the data underflow the dtype.
            raise ValueError(
                "The offsets of init are too large for the scale of X: the "
                f"squared distances between samples underflow {X.dtype.name} "
                "at their scale. Give offsets at the scale of X or cast X to "
                "float64."
            )
        if exponent:
            init = np.array(init, dtype=np.float64)
            init[..., codim] = rescaled(offsets, exponent)
        return codim, sample_weight, init, exponent

    def _codim(self, n_features):
        """Co-dimension of the subspaces, after checking ``subspace_dim``."""
        if n_features < 2:
            raise ValueError(
                f"GPCAClusterer needs at least 2 features, got n_features="
                f"{n_features}: a subspace has a dimension between 1 and "
                "n_features - 1."
            )
        subspace_dim = (
            n_features - 1 if self.subspace_dim is None else self.subspace_dim
        )
        if subspace_dim > n_features - 1:
            raise ValueError(
                f"subspace_dim={subspace_dim} must be between 1 and n_features "
                f"- 1 = {n_features - 1}."
            )
        return n_features - subspace_dim

    def _check_init(self, n_features, codim):
        """Refuse an init array of the wrong co-dimension or not orthonormal.

        The engine names a wrong number of clusters or of features. Returns
        the offsets of a well-shaped affine init array, None otherwise.
        """
        shape = np.shape(self.init)
        expected = (self.n_clusters, n_features, codim + int(self.affine))
        if len(shape) == 3 and shape[:2] == expected[:2] and shape != expected:
            offsets = " plus one column for the offsets" if self.affine else ""
            raise ValueError(
                f"The shape of the initial normal bases {shape} does not match "
                f"the co-dimension {codim} = n_features - subspace_dim{offsets}."
            )
        if shape != expected:
            return None
        normals = np.asarray(self.init, dtype=np.float64)[..., :codim]
        gram = np.einsum("kdr,kds->krs", normals, normals)
        if not np.allclose(gram, np.eye(codim), rtol=0, atol=1e-5):
            raise ValueError(
                "The normal bases in init must have orthonormal columns "
                "(init[j, :, :codim].T @ init[j, :, :codim] == I)."
            )
        if not self.affine:
            return None
        offsets = np.asarray(self.init, dtype=np.float64)[..., codim]
        check_square_range(offsets, input_name="init (its offsets)")
        return offsets

    def _rescaled_problem(self, X):
        """The problem of validated ``X`` and the fitted parameters, rescaled.

        ``X`` and the offsets are divided by the same power of two
        :math:`2^e` when they are far from unit scale (distances scale by
        :math:`2^e`, labels do not change); returns the problem, the
        parameters in the layout of :class:`SubspaceLoss` and :math:`e`.
        """
        offsets = self.offsets_ if self.affine else None
        exponent = range_exponent(X, offsets, dtype=X.dtype)
        problem = SubspaceLoss(self.normal_bases_.shape[2], self.affine).bind(
            rescaled(X, exponent)
        )
        params = self.normal_bases_
        if self.affine:
            offsets = rescaled(offsets, exponent)
            params = np.concatenate([params, offsets[:, :, None]], axis=2)
        return problem, params, exponent

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Compute the subspace clustering.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training instances. float32 input gives float32 bases.

        y : Ignored
            Not used, present for API consistency by convention.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples in the objective, the seeding
            and the basis updates. None means unit weights.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        X = self._validate(X, reset=True)
        codim, sample_weight, init, x_exponent = self._check_params_vs_input(
            X, sample_weight
        )
        w_exponent = range_exponent(sample_weight, dtype=X.dtype)
        weights = rescaled(sample_weight, w_exponent)
        problem = SubspaceLoss(codim, self.affine).bind(rescaled(X, x_exponent))
        restarts = self._model_restarts(problem, init, weights)
        with np.errstate(all="ignore"):
            runs = restarts.in_workers()
            for arguments in restarts:
                runs.append(restarts.solver.solve(*arguments))
        result = restarts.best(runs)
        self._set_fitted(problem, result, weights, x_exponent, w_exponent)
        return self

    def _model_restarts(self, problem, init, weights):
        """The restarts of the fitted model, from the engine's seeding.

        Those of Lloyd's algorithm for the sum-of-minimum model (Algorithm
        5), or of the sweeps of Algorithm 6 for the sum-of-product model, with
        the same seeds and seeding, so that both start from the same bases
        under the same random_state.
        """
        if self.model == "sum_of_min":
            return self._restarts(
                problem,
                self.n_clusters,
                weights,
                init=init,
                init_score="gap",
                solver="exact",
            )
        check_n_samples(problem, self.n_clusters)
        check_weighted_samples(init, weights, self.n_clusters, self._naming)
        return Restarts(
            problem,
            SumOfProductSweeps(self.max_iter),
            partial(
                initialize,
                init=init,
                n_clusters=self.n_clusters,
                init_score="gap",
                naming=self._naming,
            ),
            weights,
            resolve_n_init(self.n_init, init, self._naming),
            random_state=self.random_state,
            n_jobs=self.n_jobs,
            verbose=self.verbose,
        )

    def _set_fitted(self, problem, result, weights, x_exponent, w_exponent):
        """The fitted attributes of the best run, in the units of the data."""
        if self.model == "sum_of_min":
            warn_if_fewer_distinct(result, self.n_clusters, self._naming)
            power = 2
            message = "The objective_ exceeds the float64 range: scale X down."
        else:
            power = 2 * self.n_clusters
            message = product_overflow_message(self.n_clusters)
        history = in_data_units(result.objective_history, power * x_exponent, message)
        # The labels of predict, through the same code (the sum-of-product
        # sweeps measure distances in float64 whatever the dtype of X).
        labels, inertia = _labels_and_inertia(
            problem, result.params, weights, 2 * x_exponent + w_exponent, "inertia_"
        )
        if self.model == "sum_of_product":
            warn_if_fewer_distinct(
                replace(result, labels=labels), self.n_clusters, self._naming
            )
        params, labels = _empty_last(result.params, labels, self.n_clusters)
        membership = group_membership(labels, weights, self.n_clusters)
        counts = np.bincount(labels, weights=weights, minlength=self.n_clusters)
        statistics = problem.group_statistics(membership)
        normals = params[..., : problem.codim]
        self.labels_ = labels
        self.normal_bases_ = normals
        self.subspace_bases_ = _principal_complements(
            normals, statistics, counts, self.affine
        ).astype(problem.X.dtype, copy=False)
        self.offsets_ = (
            np.ldexp(params[..., problem.codim], x_exponent)
            if self.affine
            else np.zeros((self.n_clusters, problem.n_features), dtype=problem.X.dtype)
        )
        self.inertia_ = inertia
        self.objective_ = float(history[-1])
        self.objective_history_ = history
        self.n_iter_ = result.n_iter
        self._n_features_out = self.n_clusters

    def predict(self, X):
        """Predict the nearest subspace of each sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Index of the subspace of smallest distance
            :math:`\\|(y - \\mu_j)^T A_j\\|`, ties going to the lowest index.
        """
        X = self._validate(X, reset=False)
        problem, params, _ = self._rescaled_problem(X)
        weights = np.ones(X.shape[0], dtype=X.dtype)
        labels, _, _, _ = problem.reclassify(params, weights)
        return labels

    def transform(self, X):
        """Distance of every sample to every subspace.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_clusters)
            Euclidean distances :math:`\\|(y - \\mu_j)^T A_j\\|` of every sample
            :math:`y` to every subspace (not the halved squares of the
            objective).
        """
        X = self._validate(X, reset=False)
        problem, params, exponent = self._rescaled_problem(X)
        distances = np.sqrt(2 * problem.loss_matrix(params))
        with np.errstate(under="ignore"):
            return np.ldexp(distances, exponent)

    def _inertia(self, X, sample_weight):
        """The inertia of validated ``X`` on the fitted subspaces."""
        problem, params, exponent = self._rescaled_problem(X)
        sample_weight = check_sample_weight(sample_weight, X, dtype=X.dtype)
        w_exponent = range_exponent(sample_weight, dtype=X.dtype)
        weights = rescaled(sample_weight, w_exponent)
        _, inertia = _labels_and_inertia(
            problem, params, weights, 2 * exponent + w_exponent, "score"
        )
        return inertia
