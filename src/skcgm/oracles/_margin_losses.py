"""Losses of a margin: the family shared by the linear classifiers' solvers.

A margin loss is a function :math:`f(z)` of the margin :math:`z = y\\,p` of a
label :math:`y \\in \\{-1, +1\\}` and a decision value :math:`p`, so that
:math:`\\partial f / \\partial p = y f'(z)`. Every member has the two
capabilities a first-order solver needs, :meth:`~MarginLoss.value` and
:meth:`~MarginLoss.derivative` (CompAdaGrad's epochs use these); the
logistic loss (:class:`~skcgm.oracles.LogisticLoss`, in ``_glm_loss``) adds
the higher derivatives the local-sensitivity bounds and the proximal point
solver need. The four piecewise losses are those of scikit-learn's
``SGDClassifier``, with its subgradients at the kinks
(``sklearn/linear_model/_sgd_fast.pyx.tp``: ``Hinge`` uses ``z <= threshold``).
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import functools

import numpy as np

__all__ = [
    "HingeLoss",
    "MarginLoss",
    "ModifiedHuberLoss",
    "PerceptronLoss",
    "SquaredHingeLoss",
]


def _as_float(t):
    """``t`` as a float32 or float64 array (other dtypes become float64)."""
    t = np.asarray(t)
    if t.dtype not in (np.float32, np.float64):
        t = t.astype(np.float64)
    return t


def _result(value):
    """A 0-d result as a NumPy scalar, like a ufunc's."""
    return value[()] if np.ndim(value) == 0 else value


def _of_margins(method):
    """Make a method computing on float margins take any array-like ``t``.

    The method gets ``t`` as a float32 or float64 array (:func:`_as_float`);
    its 0-d result becomes a NumPy scalar (:func:`_result`).
    """

    @functools.wraps(method)
    def wrapper(self, t):
        return _result(method(self, _as_float(t)))

    return wrapper


def _hinge(z):
    """:math:`\\max(1 - z, 0)` in the dtype of ``z``, the hinge the losses share."""
    return np.maximum(1.0 - z, 0.0).astype(z.dtype, copy=False)


class MarginLoss:
    """A loss of the margin, without parameters: all its instances are equal.

    Subclasses define ``_value(z)`` and ``_derivative(z)`` on float arrays;
    :meth:`value` and :meth:`derivative` accept any array-like, keep float32
    and return a NumPy scalar for a scalar margin.
    """

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self))

    @_of_margins
    def value(self, t):
        """The loss :math:`f(t)` of the margins ``t``.

        Parameters
        ----------
        t : array-like
            Margins :math:`y\\,p`; float32 is kept.

        Returns
        -------
        f : ndarray
            The loss, same shape as ``t``.
        """
        return self._value(t)

    @_of_margins
    def derivative(self, t):
        """The derivative (a subgradient at a kink) :math:`f'(t)`.

        Parameters
        ----------
        t : array-like
            Margins :math:`y\\,p`; float32 is kept.

        Returns
        -------
        f1 : ndarray
            :math:`f'(t)`, same shape as ``t``.
        """
        return self._derivative(t)


class HingeLoss(MarginLoss):
    """The hinge loss :math:`f(z) = \\max(1 - z, 0)`, the linear SVM's.

    Its subgradient is :math:`-1` for :math:`z \\le 1` and 0 above, as in
    :class:`~sklearn.linear_model.SGDClassifier` (``loss='hinge'``).

    See Also
    --------
    PerceptronLoss : The hinge at threshold 0.
    SquaredHingeLoss : The quadratically penalized hinge.

    Examples
    --------
    >>> from skcgm.oracles import HingeLoss
    >>> loss = HingeLoss()
    >>> loss.value([-1.0, 1.0, 2.0]), loss.derivative([-1.0, 1.0, 2.0])
    (array([2., 0., 0.]), array([-1., -1., -0.]))
    """

    def _value(self, z):
        return _hinge(z)

    def _derivative(self, z):
        return -(z <= 1.0).astype(z.dtype)


class PerceptronLoss(MarginLoss):
    """The perceptron loss :math:`f(z) = \\max(-z, 0)`: the hinge at 0.

    Its subgradient is :math:`-1` for :math:`z \\le 0` and 0 above, as in
    :class:`~sklearn.linear_model.SGDClassifier` (``loss='perceptron'``).

    See Also
    --------
    HingeLoss : The hinge at threshold 1.

    Examples
    --------
    >>> from skcgm.oracles import PerceptronLoss
    >>> loss = PerceptronLoss()
    >>> loss.value([-1.0, 0.0, 2.0]), loss.derivative([-1.0, 0.0, 2.0])
    (array([1., 0., 0.]), array([-1., -1., -0.]))
    """

    def _value(self, z):
        return np.maximum(-z, 0.0).astype(z.dtype, copy=False)

    def _derivative(self, z):
        return -(z <= 0.0).astype(z.dtype)


class SquaredHingeLoss(MarginLoss):
    """The squared hinge :math:`f(z) = \\max(1 - z, 0)^2`.

    Differentiable, :math:`f'(z) = -2 \\max(1 - z, 0)`, as in
    :class:`~sklearn.linear_model.SGDClassifier` (``loss='squared_hinge'``).

    See Also
    --------
    HingeLoss : The hinge itself.
    ModifiedHuberLoss : The squared hinge made linear below :math:`z = -1`.

    Examples
    --------
    >>> from skcgm.oracles import SquaredHingeLoss
    >>> loss = SquaredHingeLoss()
    >>> loss.value([-1.0, 0.5, 2.0]), loss.derivative([-1.0, 0.5, 2.0])
    (array([4.  , 0.25, 0.  ]), array([-4., -1., -0.]))
    """

    def _value(self, z):
        margin = _hinge(z)
        return margin * margin

    def _derivative(self, z):
        return -2.0 * _hinge(z)


class ModifiedHuberLoss(MarginLoss):
    """The modified Huber loss: the squared hinge, linear below :math:`z = -1`.

    :math:`f(z) = 0` for :math:`z \\ge 1`, :math:`(1 - z)^2` for
    :math:`-1 \\le z < 1` and :math:`-4 z` below (T. Zhang, "Solving Large
    Scale Linear Prediction Problems Using Stochastic Gradient Descent
    Algorithms", ICML 2004), as in
    :class:`~sklearn.linear_model.SGDClassifier` (``loss='modified_huber'``).
    Robust to outliers, and it gives probability estimates.

    See Also
    --------
    SquaredHingeLoss : The same loss without the linear tail.

    Examples
    --------
    >>> from skcgm.oracles import ModifiedHuberLoss
    >>> loss = ModifiedHuberLoss()
    >>> loss.value([-2.0, 0.0, 2.0]), loss.derivative([-2.0, 0.0, 2.0])
    (array([8., 1., 0.]), array([-4., -2., -0.]))
    """

    def _value(self, z):
        margin = _hinge(z)
        return np.where(z >= -1.0, margin * margin, -4.0 * z).astype(z.dtype)

    def _derivative(self, z):
        margin = _hinge(z)
        return np.where(z >= -1.0, -2.0 * margin, -4.0).astype(z.dtype)
