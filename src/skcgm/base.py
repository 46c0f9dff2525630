"""Base classes shared by the estimators of several subpackages."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from abc import ABCMeta, abstractmethod
from numbers import Integral

from sklearn.base import BaseEstimator

from .optim._sum_of_min import SOLVER_CONSTRAINTS, Naming, plan_sum_of_minimum
from .utils._sklearn_compat import Interval, StrOptions

__all__ = ["BaseSumOfMinimum"]


class BaseSumOfMinimum(BaseEstimator, metaclass=ABCMeta):
    """Base class of the estimators fitted by the sum-of-minimum engine.

    A subclass binds a loss family to its data and runs the engine of
    :func:`skcgm.optim.sum_of_minimum` (generalized k-means++ seeding, one
    solver object, the best of ``n_init`` restarts) with the arguments
    :meth:`_restarts` gives,

    .. math::

        \\min_{x_1, \\dots, x_k} \\frac{1}{\\sum_i w_i}
        \\sum_{i=1}^N w_i \\min_{1 \\le j \\le k} f_i(x_j)
        \\qquad \\text{(eq. 1.1)},

    and stores the fitted attributes. It declares the restart and stopping
    parameters every such estimator has (``n_init``, ``max_iter``, ``tol``,
    ``random_state``, ``n_jobs``, ``verbose``), and ``_naming``, the words of
    its messages (KMeans' for clusters).

    :class:`~skcgm.cluster.SumOfMinKMeans`,
    :class:`~skcgm.linear_model.MixedLinearRegressor` and
    :class:`~skcgm.cluster.GPCAClusterer` derive from it.

    Examples
    --------
    >>> from skcgm.base import BaseSumOfMinimum
    >>> from skcgm.cluster import SumOfMinKMeans
    >>> [base.__name__ for base in SumOfMinKMeans.__bases__][-1]
    'BaseSumOfMinimum'
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

    @abstractmethod
    def fit(self, X, y=None, sample_weight=None):
        """Bind the loss family, run the restarts, store the fitted attributes."""

    def _restarts(self, problem, n_groups, sample_weight, plan=None, **options):
        """The keyword arguments of the engine's restarts on ``problem``.

        The estimator calls :func:`~skcgm.optim._restarts.best_of_restarts`
        with them, the one call between its ``fit`` and the solver object.
        ``plan`` gives the restarts' solver and seeding (as
        :func:`~skcgm.optim._sum_of_min.plan_sum_of_minimum` returns them);
        None plans them from ``options`` (``init``, ``init_score``,
        ``solver`` and the solver's options) and the estimator's ``n_init``,
        ``max_iter`` and ``tol``. The estimator's ``random_state``,
        ``n_jobs`` and ``verbose`` are added.
        """
        if plan is None:
            plan = plan_sum_of_minimum(
                problem,
                n_groups,
                sample_weight,
                n_init=self.n_init,
                max_iter=self.max_iter,
                tol=self.tol,
                naming=self._naming,
                **options,
            )
        return {
            **plan,
            "random_state": self.random_state,
            "n_jobs": self.n_jobs,
            "verbose": self.verbose,
        }
