"""The one-vs-rest problems a classifier hands to the local-sensitivity solvers.

A classifier of :math:`K` classes poses one binary problem per class (one in
all for two classes) on the same rows, weights and penalty; only the signs
differ. :class:`OneVsRestProblem` holds them, in memory or on a dask array,
and is what :meth:`ProximalPointSolver.solve
<skcgm.optim.proximal_point.ProximalPointSolver.solve>` and
:meth:`LBFGSSolver.solve <skcgm.optim.proximal_point.LBFGSSolver.solve>`
take.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from dataclasses import dataclass, field

import numpy as np
from sklearn.utils import check_random_state

from ...oracles import LogisticLoss
from ...utils._random import MAX_SEED
from ._in_memory import _Problem
from ._signed_rows import signed_rows

__all__ = ["OneVsRestProblem", "row_weights"]


def row_weights(y, sample_weight, classes, class_weight):
    """The weights :math:`s_i` of rows: their class's weight times their own.

    Parameters
    ----------
    y : ndarray of shape (n_rows,)
        The rows' labels, all in ``classes``.
    sample_weight : ndarray of shape (n_rows,) or None
        The rows' sample weights; None means ones.
    classes : ndarray of shape (n_classes,)
        The sorted classes.
    class_weight : ndarray of shape (n_classes,)
        Their weights.

    Returns
    -------
    weights : ndarray of shape (n_rows,)
        :math:`s_i`, float64.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point import row_weights
    >>> row_weights(np.array([0, 1, 1]), np.array([1.0, 2.0, 3.0]),
    ...             np.array([0, 1]), np.array([0.5, 2.0]))
    array([0.5, 4. , 6. ])
    """
    if np.all(class_weight == class_weight[0]):
        # Equal class weights (the default): no search of the labels, a
        # tenth of a dask sub-block's binding.
        weights = np.full(y.shape[0], class_weight[0], dtype=np.float64)
    else:
        weights = class_weight[np.searchsorted(classes, y)]
    if sample_weight is not None:
        weights = weights * np.asarray(sample_weight, dtype=np.float64)
    return weights


@dataclass
class OneVsRestProblem:
    """The binary problems of a classifier on the same rows, one per class.

    Problem :math:`k` is the mean form of the L2-regularized GLM finite sum

    .. math::

        F_k(x) = \\frac1n \\sum_{i=1}^n u_i\\, f(b_{ik}\\, a_i^\\top x)
        + \\frac{\\alpha}{2} \\|w\\|^2,
        \\qquad u_i = \\frac{n\\, s_i}{S},

    with :math:`x = (w, b)` (:math:`b` the unpenalized intercept, when
    ``fit_intercept``), :math:`a_i = (x_i, 1)`, :math:`b_{ik} = +1` when row
    :math:`i` is of class ``positives[k]`` and :math:`-1` otherwise,
    :math:`s_i` its class weight times its sample weight
    (:func:`row_weights`) and :math:`S = \\sum_i s_i`. Where ``X`` lives
    chooses the solvers' route: in memory, or chunk by chunk on a dask array.

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        Validated rows: dense or CSR float32 or float64 in memory, or a dask
        array chunked by rows with one chunk across the columns.
    y : ndarray or dask array of shape (n_samples,)
        The class labels, chunked as the rows of ``X`` on a dask array.
    classes : ndarray of shape (n_classes,)
        The sorted distinct labels, at least two.
    class_weight : ndarray of shape (n_classes,)
        The weight of every class.
    alpha : float
        The penalty :math:`\\alpha \\ge 0` of the mean form (scikit-learn's
        ``C`` is :math:`\\alpha = 1 / (C S)`).
    total_weight : float
        :math:`S`, positive.
    n_positive : int
        The number of rows of positive weight :math:`s_i`.
    fit_intercept : bool, default=True
        Whether :math:`x` ends with the intercept :math:`b`.
    loss : object, default=LogisticLoss()
        The per-sample loss :math:`f`.

    Attributes
    ----------
    positives : ndarray of shape (n_problems,)
        The class of sign +1 of every problem: the second of two classes,
        else every class in turn.

    See Also
    --------
    skcgm.optim.proximal_point.ProximalPointSolver : Algorithm 2 on it.
    skcgm.optim.proximal_point.LBFGSSolver : L-BFGS on all its rows.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point import OneVsRestProblem
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> problem = OneVsRestProblem(
    ...     X, np.array([0, 2, 1]), np.array([0, 1, 2]), np.ones(3), alpha=1 / 3,
    ...     total_weight=3.0, n_positive=3)
    >>> problem.positives, problem.signs(1)
    (array([0, 1, 2]), array([-1., -1.,  1.]))
    """

    X: object
    y: object
    classes: np.ndarray
    class_weight: np.ndarray
    alpha: float
    total_weight: float
    n_positive: int
    fit_intercept: bool = True
    loss: object = field(default_factory=LogisticLoss)

    @property
    def positives(self):
        """The class of sign +1 of every problem."""
        return self.classes[1:] if self.classes.shape[0] == 2 else self.classes

    def signs(self, k):
        """The labels :math:`b_{ik} = \\pm 1` of problem ``k`` (in memory)."""
        return np.where(self.y == self.positives[k], 1.0, -1.0)

    def labels(self, positive):
        """``(classes, class_weight, positive)``, as the dask passes take them."""
        return self.classes, self.class_weight, positive

    def seeds(self, random_state):
        """One seed per problem for its draws, from ``random_state``."""
        rng = check_random_state(random_state)
        return [int(seed) for seed in rng.randint(MAX_SEED, size=len(self.positives))]

    def mean_form_weights(self, sample_weight):
        """:math:`u_i = n s_i / S` of rows in memory, from their sample weights.

        Divided by the largest weight first, so that weights up to the
        float64 maximum do not overflow their sum.
        """
        weights = row_weights(self.y, sample_weight, self.classes, self.class_weight)
        relative = weights / float(weights.max())
        return relative * (weights.shape[0] / float(relative.sum()))

    def binary(self, k, u):
        """Problem ``k`` in memory, over the lazily signed rows, weights ``u``."""
        n_features = self.X.shape[1]
        penalized = np.ones(n_features + int(self.fit_intercept), dtype=bool)
        penalized[n_features:] = False
        rows = signed_rows(self.X, self.signs(k), self.fit_intercept)
        return _Problem(self.loss, rows, u, penalized, self.alpha)
