"""Base classes shared by the estimators of several subpackages."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from abc import ABCMeta, abstractmethod
from numbers import Integral

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    RegressorMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted

from .optim.sum_of_min._dask import dask_labels
from .optim.sum_of_min._engine import SOLVER_CONSTRAINTS, Naming, plan_sum_of_minimum
from .optim.sum_of_min._weights import normalized_weights
from .utils._blocks import is_dask_array
from .utils._sklearn_compat import Interval, StrOptions, validate_data
from .utils._validation import (
    check_dask_data,
    check_sample_weight,
    check_square_range,
)

__all__ = ["BaseMixedRegressor", "BaseSumOfMinClusterer", "BaseSumOfMinimum"]


class BaseSumOfMinimum(BaseEstimator, metaclass=ABCMeta):
    """Base class of the estimators fitted by the sum-of-minimum engine.

    A subclass binds a loss family to its data and runs the engine of
    :func:`skcgm.optim.sum_of_minimum` (generalized k-means++ seeding, one
    solver object, the best of ``n_init`` restarts) with the restarts
    :meth:`_restarts` plans,

    .. math::

        \\min_{x_1, \\dots, x_k} \\frac{1}{\\sum_i w_i}
        \\sum_{i=1}^N w_i \\min_{1 \\le j \\le k} f_i(x_j)
        \\qquad \\text{(eq. 1.1)},

    and stores the fitted attributes. It holds the restart and stopping
    parameters every such estimator has (``n_init``, ``max_iter``, ``tol``,
    ``random_state``, ``n_jobs``, ``verbose``), and ``_naming``, the words of
    its messages (KMeans' for clusters).

    :class:`~skcgm.cluster.SumOfMinKMeans`,
    :class:`~skcgm.linear_model.MixedLinearRegressor`,
    :class:`~skcgm.neural_network.MixedMLPRegressor` and
    :class:`~skcgm.cluster.GPCAClusterer` derive from it.

    Parameters
    ----------
    n_init : 'auto' or int
        Number of runs with different seeds.
    max_iter : int
        Maximum number of parameter updates of a run.
    tol : float
        Tolerance of the stopping rule.
    random_state : int, RandomState instance or None
        Seeds the runs.
    n_jobs : int or None
        Number of runs in parallel.
    verbose : int
        Print the objective of every iteration.

    Examples
    --------
    >>> from skcgm.base import BaseSumOfMinimum
    >>> from skcgm.cluster import SumOfMinKMeans
    >>> "BaseSumOfMinimum" in [base.__name__ for base in SumOfMinKMeans.__mro__]
    True
    >>> sorted(BaseSumOfMinimum._parameter_constraints)
    ['max_iter', 'n_init', 'n_jobs', 'random_state', 'tol', 'verbose']
    """

    _parameter_constraints: dict = {
        "n_init": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        **{
            key: SOLVER_CONSTRAINTS[key]
            for key in ("tol", "random_state", "n_jobs", "verbose")
        },
    }

    _naming = Naming()

    def __init__(self, n_init, max_iter, tol, random_state, n_jobs, verbose):
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @abstractmethod
    def fit(self, X, y=None, sample_weight=None):
        """Bind the loss family, run the restarts, store the fitted attributes."""

    def _restarts(self, problem, n_groups, sample_weight, **options):
        """The restarts of the engine on ``problem``, which ``fit`` runs.

        :func:`~skcgm.optim.sum_of_min._engine.plan_sum_of_minimum` with
        ``options`` (``init``, ``init_score``, ``solver`` and the solver's
        options) and the estimator's ``n_init``, ``max_iter``, ``tol``,
        ``random_state``, ``n_jobs``, ``verbose`` and words.
        """
        return plan_sum_of_minimum(
            problem,
            n_groups,
            sample_weight,
            n_init=self.n_init,
            max_iter=self.max_iter,
            tol=self.tol,
            naming=self._naming,
            random_state=self.random_state,
            n_jobs=self.n_jobs,
            verbose=self.verbose,
            **options,
        )


class BaseSumOfMinClusterer(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseSumOfMinimum
):
    """Base class of the clusterers fitted as sum-of-minimum problems.

    The groups are clusters of the samples, dense or CSR, in float64 or
    float32 (kept in the fitted parameters); a subclass measures the inertia
    of new data on its fitted parameters (``_inertia``), of which
    :meth:`score` is the opposite, as :meth:`sklearn.cluster.KMeans.score`.

    :class:`~skcgm.cluster.SumOfMinKMeans` and
    :class:`~skcgm.cluster.GPCAClusterer` derive from it; its parameters are
    those of :class:`BaseSumOfMinimum`.

    Examples
    --------
    >>> from skcgm.cluster import GPCAClusterer
    >>> [base.__name__ for base in GPCAClusterer.__bases__]
    ['BaseSumOfMinClusterer']
    """

    def _validate(self, X, reset):
        """Validate ``X``, new data unless ``reset``: its squares within range."""
        if not reset:
            check_is_fitted(self)
        X = validate_data(
            self,
            X,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            accept_large_sparse=False,
            reset=reset,
        )
        check_square_range(X, input_name="X")
        return X

    @abstractmethod
    def _inertia(self, X, sample_weight):
        """The inertia of validated ``X`` on the fitted parameters."""

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the inertia of ``X`` on the fitted clusters.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        y : Ignored
            Not used, present for API consistency by convention.

        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples; None means unit weights.

        Returns
        -------
        score : float
            Minus the weighted sum of the losses of the samples to their
            nearest cluster (as :attr:`inertia_` defines it), so that greater
            is better, as in :meth:`sklearn.cluster.KMeans.score`.
        """
        return -self._inertia(self._validate(X, reset=False), sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


class BaseMixedRegressor(RegressorMixin, BaseSumOfMinimum):
    """Base class of the mixtures of regressions fitted as sum-of-minimum problems.

    The sub-functions are the squared residuals of :math:`k` regression
    models :math:`\\psi_j`, with a penalty :math:`P` (the fitted family's),

    .. math::

        f_i(x_j) = \\tfrac{1}{2} (\\psi_j(a_i) - b_i)^2 + P(x_j),

    so the component of a sample shows only through its target. A subclass
    binds its loss family (``_bind``), gives its parameters in the family's
    layout (``_params``) and predicts with every component
    (``predict_components``); this class adds the mixture mean
    (:meth:`predict`), the reclassification of labelled data
    (:meth:`assign`) and the paper's oracle error (:meth:`min_loss`).

    :class:`~skcgm.linear_model.MixedLinearRegressor` and
    :class:`~skcgm.neural_network.MixedMLPRegressor` derive from it.

    Examples
    --------
    >>> from skcgm.linear_model import MixedLinearRegressor
    >>> [base.__name__ for base in MixedLinearRegressor.__bases__]
    ['BaseMixedRegressor']
    """

    @abstractmethod
    def _loss_family(self):
        """The per-sample loss family, unbound."""

    def _bind(self, X, y):
        """The per-sample losses bound to ``(X, y)``."""
        return self._loss_family().bind(X, y)

    @abstractmethod
    def _params(self):
        """The fitted parameters in the loss family's layout."""

    @abstractmethod
    def predict_components(self, X):
        """Predict with every component, ``(n_samples, n_components)``."""

    def _validate(self, X, *y, reset=False):
        """Validate ``X`` or ``(X, y)``, new data unless ``reset``.

        Finite, and squares within range: ``y`` (a required target when
        given, even None) is checked against the range of the dtype of ``X``,
        to which it is cast.
        """
        if not reset:
            check_is_fitted(self)
        if is_dask_array(X):
            raise ValueError(
                f"{type(self).__name__} takes X in memory here (a NumPy array); "
                "compute the dask array first."
            )
        if not y:
            X = validate_data(self, X, dtype=[np.float64, np.float32], reset=reset)
            check_square_range(X, input_name="X")
            return X
        X, y = validate_data(
            self, X, *y, dtype=[np.float64, np.float32], y_numeric=True, reset=reset
        )
        check_square_range(X, input_name="X")
        check_square_range(y, input_name="y", dtype=X.dtype)
        return X, y.astype(X.dtype, copy=False)

    def _set_weights(self, labels, sample_weight):
        """``weights_``: the (weighted) share of the samples of every component."""
        # Normalized first: the sum of huge weights may overflow.
        weights = np.bincount(
            labels,
            weights=normalized_weights(sample_weight),
            minlength=self.n_components,
        )
        self.weights_ = weights / weights.sum()

    def _residuals(self, X, y):
        """The float64 residuals :math:`\\psi_j(a_i) - b_i`, ``(n_samples, k)``."""
        return self.predict_components(X).astype(np.float64) - y[:, None]

    def predict(self, X):
        """Predict the mixture mean.

        :math:`\\sum_j \\pi_j \\psi_j(a)`, :math:`\\pi_j` the component
        proportions :attr:`weights_`. In the paper's model the component is
        independent of the input, so this is the point prediction of least
        expected squared error when the component is not observed. Use
        :meth:`predict_components` for every component's prediction and
        :meth:`assign` to find the component of labelled data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The mixture mean of the predictions.
        """
        components = self.predict_components(X)
        return components @ self.weights_.astype(components.dtype)

    def assign(self, X, y):
        """Find the component of every labelled sample.

        The component of smallest loss :math:`f_i(x_j)`, penalty included,
        ties going to the lowest index: the reclassification rule (eq. 3.6)
        that gives :attr:`labels_`, so ``assign(X_train, y_train)`` equals
        ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Index of the component of every sample.
        """
        if is_dask_array(X):
            X, y = check_dask_data(self, X, y)
            return dask_labels(X, y, self._loss_family(), self._params())
        X, y = self._validate(X, y)
        weights = np.ones(X.shape[0], dtype=X.dtype)
        labels, _, _, _ = self._bind(X, y).reclassify(self._params(), weights)
        return labels

    def min_loss(self, X, y, sample_weight=None):
        """Oracle error: the mean smallest squared residual over components.

        .. math::

            \\frac{1}{\\sum_i w_i} \\sum_i w_i \\min_j \\tfrac{1}{2}
            (\\psi_j(a_i) - b_i)^2,

        without the penalty: the training and test errors of the paper's
        Table 5, where the component of a sample is revealed by its target.
        Lower is better. It compares fits of the same ``n_components``, but
        never increases with ``n_components``, so it cannot choose that.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        y : array-like of shape (n_samples,)
            Targets.

        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples; None means unit weights.

        Returns
        -------
        loss : float
            The weighted mean of the smallest half squared residuals.
        """
        X, y = self._validate(X, y)
        sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
        sample_weight = normalized_weights(sample_weight)
        residuals = self._residuals(X, y)
        smallest = 0.5 * np.min(residuals * residuals, axis=1)
        return float(smallest @ sample_weight / sample_weight.sum())
