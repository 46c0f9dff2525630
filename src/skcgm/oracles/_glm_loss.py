"""Per-sample losses of generalized linear models, with the derivatives they need.

The finite sum of Raj, Musco and Mackey, "Importance Sampling via Local
Sensitivity" (AISTATS 2020), Definition 1,

.. math::

    F(x) = \\frac1n \\sum_{i=1}^n f(a_i^\\top x) + \\gamma(x),

is expanded to second order around a centre to get its local quadratic model
(eq. 3) and the leverage matrix of Theorem 9, and bounded by a Lipschitz
Hessian in Theorem 10. A loss object supplies exactly those pieces: the value
:math:`f(t)`, the derivatives :math:`f'(t)`, :math:`f''(t)`, a bound on
:math:`|f'''|`, and the ratio :math:`f'(t)^2 / f''(t)` in closed form, so
that :math:`H^{-1/2}\\alpha` never divides by a vanishing :math:`f''` (for
the logistic loss :math:`f'(t)^2 / f''(t) = e^{-t}`).

The logistic loss is also the ``'log_loss'`` member of the margin-loss family
(``_margin_losses``) that CompAdaGrad's epochs use through ``value`` and
``derivative``.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from scipy.special import expit

from ..utils._blocks import map_row_blocks
from ._glm_loss_fast import logistic_terms
from ._margin_losses import MarginLoss, _of_margins

__all__ = ["LogisticLoss"]


class LogisticLoss(MarginLoss):
    """The logistic loss of a margin, :math:`f(t) = \\log(1 + e^{-t})`.

    With labels absorbed into the rows, :math:`a_i = b_i x_i`,
    :math:`b_i \\in \\{-1, +1\\}`, the logistic regression objective is the
    finite sum of Definition 1 of the paper with this :math:`f`. Writing
    :math:`\\sigma(t) = 1 / (1 + e^{-t})`,

    .. math::

        f'(t) = -\\sigma(-t), \\qquad f''(t) = \\sigma(t)\\sigma(-t)
        \\in (0, \\tfrac14], \\qquad
        f'''(t) = f''(t) (1 - 2\\sigma(t)),

    :math:`|f'''| \\le 1 / (6\\sqrt3)` (attained at
    :math:`\\sigma(t) = (3 \\pm \\sqrt3) / 6`), and

    .. math::

        \\frac{f'(t)^2}{f''(t)} = e^{-t}, \\qquad
        \\frac{f'(t)}{\\sqrt{f''(t)}} = -e^{-t/2}

    exactly. Every method is evaluated without overflow or division warnings
    for any finite margin (``log1p``/``logaddexp`` and :func:`scipy.special.expit`
    forms); the ratio :math:`e^{-t}` itself exceeds float64 for
    :math:`t < -709.78` and is then ``inf``, while :math:`e^{-t/2}` stays finite
    for :math:`t \\ge -1419`.

    The object holds no parameters; it is picklable and all its instances are
    equal.

    Attributes
    ----------
    second_derivative_bound : float
        :math:`\\sup_t f''(t) = 1/4`: the smoothness constant of the loss.
    third_derivative_bound : float
        :math:`\\sup_t |f'''(t)| = 1 / (6\\sqrt3) \\approx 0.0962`: the
        Lipschitz constant of :math:`f''`, so that the Hessian of
        :math:`x \\mapsto f(a^\\top x)` is :math:`\\|a\\|^3 / (6\\sqrt3)`-Lipschitz
        (the constant :math:`C_i` of Theorem 10).

    See Also
    --------
    HingeLoss : A margin loss of the same family, without curvature.
    skcgm.optim.local_sensitivity_scores : Sensitivity bounds built from it.
    skcgm.optim.approximate_proximal_point : The solver that takes it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import LogisticLoss
    >>> loss = LogisticLoss()
    >>> float(loss.value(-1000.0)), float(loss.value(0.0))
    (1000.0, 0.6931471805599453)
    >>> t = np.array([-1000.0, 0.0, 1000.0])
    >>> loss.derivative(t), loss.second_derivative(t)
    (array([-1. , -0.5, -0. ]), array([0.  , 0.25, 0.  ]))
    >>> t = np.linspace(-20.0, 20.0, 5)
    >>> ratio = loss.derivative(t) ** 2 / loss.second_derivative(t)
    >>> bool(np.allclose(ratio, loss.derivative_ratio(t), rtol=1e-10))
    True
    """

    second_derivative_bound = 0.25
    third_derivative_bound = float(1.0 / (6.0 * np.sqrt(3.0)))

    def _value(self, t):
        # logaddexp: no overflow for large |t|.
        return np.logaddexp(t.dtype.type(0), -t)

    def _derivative(self, t):
        return -expit(-t)

    @_of_margins
    def second_derivative(self, t):
        """The second derivative :math:`f''(t) = \\sigma(t)\\sigma(-t)`.

        Parameters
        ----------
        t : array-like
            Margins; float32 is kept.

        Returns
        -------
        f2 : ndarray
            :math:`f''(t) \\in [0, 1/4]`, same shape as ``t``; it underflows to
            0 for :math:`|t| > 745` (the model then has no curvature there).
        """
        return expit(t) * expit(-t)

    def _value_derivatives(self, t):
        """:math:`f`, :math:`f'` and :math:`f''` at float64 margins at once.

        The solver's fast path: one exponential :math:`e = e^{-|t|} \\in
        (0, 1]` gives :math:`f = \\log(1 + e) + \\max(-t, 0)`,
        :math:`\\sigma(-t) = e / (1 + e)` or :math:`1 / (1 + e)` by the sign
        of :math:`t`, and :math:`f'' = e / (1 + e)^2`, the same stable forms
        as :meth:`value`, :meth:`derivative` and :meth:`second_derivative`
        (equal to rounding), in one compiled pass over row blocks.
        """
        t = np.ascontiguousarray(t, dtype=np.float64)
        value, first, second = np.empty_like(t), np.empty_like(t), np.empty_like(t)
        flat = [a.reshape(-1) for a in (t, value, first, second)]

        def fill(rows):
            logistic_terms(*flat, rows.start, rows.stop)

        map_row_blocks(fill, t.size, 1)
        return value, first, second

    @_of_margins
    def third_derivative(self, t):
        """The third derivative :math:`f'''(t) = f''(t)(1 - 2\\sigma(t))`.

        Parameters
        ----------
        t : array-like
            Margins; float32 is kept.

        Returns
        -------
        f3 : ndarray
            :math:`f'''(t)`, same shape as ``t``, bounded in absolute value by
            :attr:`third_derivative_bound`. :math:`1 - 2\\sigma(t)` is
            computed as :math:`\\sigma(-t) - \\sigma(t)` (no cancellation in the
            tails' sign).
        """
        low, high = expit(-t), expit(t)
        return high * low * (low - high)

    @_of_margins
    def derivative_ratio(self, t):
        """The ratio :math:`f'(t)^2 / f''(t) = e^{-t}`, in closed form.

        It enters the constant :math:`\\Delta` of Theorem 9
        (:math:`\\Delta_i = \\frac1n [f(t_i) - f'(t_i)^2 / (2 f''(t_i))]`: the
        paper prints :math:`f'^2/(4 f')` in Theorem 9 and a quarter in
        Appendix A, where completing the square gives :math:`f'^2/f''` and a
        half). Computed as
        :math:`e^{-t}`, never as the quotient, which is 0/0 in the tails.

        Parameters
        ----------
        t : array-like
            Margins; float32 is kept.

        Returns
        -------
        ratio : ndarray
            :math:`e^{-t}`, same shape as ``t``; ``inf`` without a warning
            where it exceeds the dtype's range (:math:`t < -709.78` in
            float64).
        """
        with np.errstate(over="ignore"):
            return np.exp(-t)

    @_of_margins
    def sqrt_derivative_ratio(self, t):
        """The signed root :math:`f'(t) / \\sqrt{f''(t)} = -e^{-t/2}`.

        The entries of :math:`H^{-1/2}\\alpha` in the leverage matrix of
        Theorem 9 are :math:`\\sqrt{u_i / n}` times this.

        Parameters
        ----------
        t : array-like
            Margins; float32 is kept.

        Returns
        -------
        root : ndarray
            :math:`-e^{-t/2}`, same shape as ``t``; finite for
            :math:`t \\ge -1419` in float64 (``-inf`` below, without a
            warning).
        """
        with np.errstate(over="ignore"):
            return -np.exp(-0.5 * t)
