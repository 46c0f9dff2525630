"""POBGA: projection-free online boosting gradient ascent (Algorithm 1).

Liao, Wan, Yao and Song, "Improved projection-free online continuous
submodular maximization": boosted gradient ascent on an infeasible point
:math:`\tilde y`, made projection-free by the infeasible projection oracle of
Garber and Kretzu (2022) called once per block of :math:`K` rounds.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import math
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..oracles._projection import infeasible_projection_unchecked
from ..utils._math import MAX_RADIUS, scaled_norm
from ..utils._params import RANDOM_STATE, StrictInterval
from ..utils._random import as_random_state
from ..utils._sklearn_compat import StrOptions
from ..utils._validation import resolve_radius
from ._base import (
    _ONE_MINUS_INV_E,
    _POSITIVE_OR_NONE,
    BaseOnlineLearner,
    _check_origin,
    _resolve_block_size,
)
from ._boosting import _boosting_z

__all__ = ["POBGA", "PRESETS"]

# (c_eta, c_eps, c_K) of eta = c_eta R / ((1 - 1/e) G) T^{-3/4},
# eps = c_eps R^2 T^{-1/2}, K = max(1, round(c_K sqrt(T))). 'theory' is
# Theorem 1; 'practical' comes from the sweep in the POBGA docstring Notes
# (with the theory constants POBGA plays x = 0 for T up to 1215^2 ~ 1.48e6:
# see the Notes).
PRESETS = {
    "theory": (20.0, 405.0, 1.0),
    "practical": (1.0, 0.05, 1.0),
}


def _resolve_schedule(learner, owner):
    """Set K, eps and eta of POBGA and DPOBGA from validated parameters.

    ``eta0_`` stays None when neither ``eta0`` nor ``grad_bound`` is
    given: G is then estimated at the end of the first block (see
    ``_BlockedBoostedAscent._step``).
    """
    c_eta, c_eps, c_k = PRESETS[learner.preset]
    learner._boosting = bool(learner.boosting)
    horizon = learner.horizon
    learner.radius_ = resolve_radius(owner, learner.lmo, learner.radius)
    _check_origin(owner, learner.lmo, learner.n_features_)
    learner.block_size_ = _resolve_block_size(
        owner, learner.block_size, horizon, c_k * math.sqrt(horizon)
    )
    learner.n_blocks_ = -(-horizon // learner.block_size_)
    if learner.eps is not None:
        learner.eps_ = float(learner.eps)
    else:
        learner.eps_ = c_eps * learner.radius_**2 / math.sqrt(horizon)
        if learner.eps_ == 0.0:
            raise ValueError(
                f"The 'radius' of {owner} ({learner.radius_:.3g}) is so small "
                f"that the preset eps = {c_eps} R^2 / sqrt(T) underflows to 0; "
                "scale the decision set and the gradients up, or pass eps=..."
            )
    eta0, grad_bound = learner.eta0, learner.grad_bound
    if eta0 is None and grad_bound is None and learner.preset == "theory":
        raise ValueError(
            f"The 'grad_bound' parameter of {owner} (the gradient bound G of "
            "Assumption A3) is needed by preset='theory' unless eta0 is "
            "given; got None."
        )
    learner._c_eta = c_eta
    learner._gamma = _ONE_MINUS_INV_E if learner._boosting else 1.0
    learner.grad_bound_ = None if grad_bound is None else float(grad_bound)
    learner.eta0_ = None if eta0 is None else float(eta0)
    learner.max_lmo_calls_ = (
        max(1000, 10 * learner.block_size_)
        if learner.max_lmo_calls is None
        else int(learner.max_lmo_calls)
    )
    if eta0 is None and grad_bound is not None:
        learner.eta0_ = _theory_step(
            learner, learner.grad_bound_, f"The 'grad_bound' parameter of {owner}"
        )


def _theory_step(learner, grad_bound, source):
    """eta = c_eta R / (gamma G) T^{-3/4}, or a ValueError naming ``source``.

    gamma = 1 - 1/e cancels the factor of the boosted gradient (eq. 3),
    gamma = 1 without boosting, so that one block moves y by at most
    c_eta R K T^{-3/4} either way.
    """
    with np.errstate(over="ignore", divide="ignore"):
        step = float(
            learner._c_eta
            * learner.radius_
            / (learner._gamma * grad_bound)
            * learner.horizon ** (-0.75)
        )
    if not math.isfinite(step):
        raise ValueError(
            f"{source} gives a gradient bound G = {grad_bound:.3g} so small "
            f"that the step eta = {learner._c_eta} R / G T^(-3/4) overflows; "
            f"scale the gradients up or pass eta0=... to "
            f"{type(learner).__name__}."
        )
    return step


def _ascent_target(learner, y_tilde, step, grad_sum):
    """y = y_tilde + eta * grad_sum, shrunk radially onto C B when farther.

    With C = 2 (R + sqrt(3 eps)), a y outside C B is farther than sqrt(3 eps)
    from every feasible x0, so Algorithm 4 skips its early return either way,
    and its radial projection onto R B is unchanged; the shrunk point is
    moreover at least as close to every point of the set (C B contains it),
    so (37) still holds for the unshrunk y. A step that overflows (a huge
    ``eta0``) keeps the direction of the ascent, the limit of the
    shrunk point.
    """
    cap = 2.0 * (learner.radius_ + math.sqrt(3.0 * learner.eps_))
    with np.errstate(over="ignore", invalid="ignore"):
        y = y_tilde + step * grad_sum
    if not np.all(np.isfinite(y)):
        y = grad_sum
    norm = scaled_norm(y)
    return y * (cap / norm) if norm > cap else y


class _BlockedBoostedAscent(BaseOnlineLearner):
    """Per-block state shared by POBGA and DPOBGA (arrays of shape (N, n))."""

    _parameter_constraints: dict = {
        **BaseOnlineLearner._parameter_constraints,
        "block_size": [
            StrOptions({"sqrt"}),
            StrictInterval(Integral, 1, None, closed="left"),
        ],
        "preset": [StrOptions(set(PRESETS))],
        "eta0": _POSITIVE_OR_NONE,
        # sqrt(3 eps) is a distance next to R (the shrink of _ascent_target):
        # its square must stay finite (issue 16's range policy).
        "eps": [StrictInterval(Real, 0, MAX_RADIUS**2 / 3, closed="right"), None],
        "radius": _POSITIVE_OR_NONE,
        "grad_bound": _POSITIVE_OR_NONE,
        "boosting": ["boolean"],
        "max_lmo_calls": [StrictInterval(Integral, 1, None, closed="left"), None],
        "random_state": RANDOM_STATE,
    }

    def _step(self):
        """eta; estimated from the gradients seen so far when G is unknown."""
        if self.eta0_ is None and self._max_grad_norm > 0:
            self.eta0_ = _theory_step(
                self,
                self._max_grad_norm,
                f"The 'gradient' passed to {type(self).__name__}.update",
            )
            self.grad_bound_ = self._max_grad_norm
        # While every gradient so far is 0 the block's sum is 0: any step.
        return 0.0 if self.eta0_ is None else self.eta0_

    def _start_blocks(self, shape, history_keys):
        """Zero decision, infeasible point and block sum; empty history lists."""
        self._x = np.zeros(shape)
        self._y_tilde = np.zeros(shape)
        self._grad_sum = np.zeros(shape)
        self._in_block = 0
        for key in history_keys:
            self.history_[key] = []

    def _accumulate(self, gradient):
        """Add the round's gradient to the block sum; end a full (or last) block."""
        self._grad_sum += self._gamma * gradient
        self._in_block += 1
        if self._in_block == self.block_size_ or self.n_rounds_ + 1 == self.horizon:
            self._end_block()

    def _project(self, x0, y, node=None):
        """One infeasible projection (Algorithm 4), capped at ``max_lmo_calls_``."""
        result = infeasible_projection_unchecked(
            self.lmo, x0, y, self.eps_, self.radius_, self.max_lmo_calls_
        )
        self.n_projections_ += 1
        self.n_lmo_calls_ += int(result.n_lmo_calls)
        if result.status == "max_lmo_calls":
            where = "" if node is None else f" of node {node}"
            warnings.warn(
                f"{type(self).__name__}: the infeasible projection{where} at the "
                f"end of block {len(self.history_['status']) + 1} reached "
                f"max_lmo_calls={self.max_lmo_calls_} before x and y_tilde were "
                "within sqrt(3 eps); the decision stays feasible. Raise eps or "
                "max_lmo_calls.",
                ConvergenceWarning,
                stacklevel=4,
            )
        return (
            np.array(result.x, dtype=np.float64),
            np.array(result.y_tilde, dtype=np.float64),
            result,
        )


class POBGA(_BlockedBoostedAscent):
    r"""Projection-free online boosting gradient ascent (Algorithm 1).

    The rounds are cut into blocks of :math:`K` rounds; the decision
    :math:`x_m` is played throughout block :math:`m`. Each round draws
    :math:`z_t` from the density :math:`e^{z-1}/(1-e^{-1})` on
    :math:`[0, 1]` and queries the gradient at the shrunk point
    :math:`z_t x_m`, a stochastic gradient of the boosting surrogate
    :math:`F_t(x) = \int_0^1 \frac{e^{z-1}}{z} f_t(z x)\,dz` (eqs. 2-3):

    .. math::

        \tilde\nabla F_t(x_m) = (1 - 1/e)\, \tilde\nabla f_t(z_t x_m).

    At the end of the block (eq. 6), ascent on the infeasible point and one
    infeasible projection (Lemma 1, Algorithm 4):

    .. math::

        y_{m+1} = \tilde y_m + \eta \sum_{t \in \mathcal{T}_m}
        \tilde\nabla F_t(x_m), \qquad
        (x_{m+1}, \tilde y_{m+1}) = \mathcal{O}_{IP}(\mathcal{K}, x_m,
        y_{m+1}, \epsilon),

    from :math:`x_1 = \tilde y_1 = 0`. The hyper-parameters are

    .. math::

        \eta = \frac{c_\eta R}{(1 - 1/e) G} T^{-3/4}, \quad
        \epsilon = c_\epsilon R^2 T^{-1/2}, \quad
        K = \max(1, \operatorname{round}(c_K \sqrt{T})),

    with :math:`(c_\eta, c_\epsilon, c_K) = (20, 405, 1)` for
    ``preset='theory'`` (Theorem 1: expected :math:`(1-1/e)`-regret at most
    :math:`45 (1 - e^{-1}) R G T^{3/4}` with at most :math:`T` LMO calls) and
    :math:`(1, 0.05, 1)` for ``preset='practical'`` (see Notes).

    Parameters
    ----------
    lmo : LMO
        Linear minimization oracle of the decision set :math:`\mathcal{K}`,
        which must contain 0 (Assumption A1; checked with
        ``lmo.contains_origin``, a ValueError otherwise); ``lmo.n_features``
        must be known.
    horizon : int
        The number of rounds :math:`T`.
    block_size : 'sqrt' or int, default='sqrt'
        The block size :math:`K`; 'sqrt' is
        :math:`\max(1, \operatorname{round}(c_K \sqrt{T}))`. When :math:`K`
        does not divide :math:`T` the last block is shorter: there are
        :math:`\lceil T/K \rceil` blocks, and as many infeasible projections.
    preset : {'practical', 'theory'}, default='practical'
        The constants :math:`(c_\eta, c_\epsilon, c_K)`.
    eta0 : float, default=None
        :math:`\eta`; overrides the preset.
    eps : float, default=None
        :math:`\epsilon`, the tolerance of the infeasible projection;
        overrides the preset.
    radius : float, default=None
        :math:`R \ge \max_{x \in \mathcal{K}} \|x\|` (an upper bound works);
        None takes ``lmo.radius``.
    grad_bound : float, default=None
        :math:`G`, a bound on the norm of the stochastic gradients
        (Assumption A3). Needed by ``preset='theory'`` unless ``eta0``
        is given. When None with ``preset='practical'``, :math:`G` is
        estimated once, at the end of the first block, as the largest norm of
        the gradients received in it; :math:`\eta` is then fixed.
    boosting : bool, default=True
        Query at :math:`z_t x_m` and scale by :math:`1 - 1/e`. False queries
        at :math:`x_m` and uses the raw gradient (and :math:`\eta` without
        the :math:`1 - 1/e`): the blocked online gradient ascent of Garber
        and Kretzu (2022), a :math:`1/2`-regret method (the ablation of
        Section 3.2).
    max_lmo_calls : int, default=None
        Cap on the LMO calls of one infeasible projection (one block). None
        is :math:`\max(1000, 10K)`: Theorem 1 budgets :math:`K` calls per
        block on average, and one projection makes at most
        :math:`\lceil 27R^2/\epsilon - 2 \rceil` (Lemma 6 of Garber and
        Kretzu; see :func:`~skcgm.oracles.infeasible_projection`), which a
        small ``eps`` makes huge. A block that reaches the cap warns with a
        :class:`~sklearn.exceptions.ConvergenceWarning` and records the
        status ``'max_lmo_calls'``; its decision is feasible, and
        :math:`\tilde y` keeps the projection property (37), but the two are
        farther apart than :math:`\sqrt{3\epsilon}`.
    random_state : int, RandomState instance, Generator or None, default=None
        The stream of :math:`z_t`: one ``sample_boosting_z`` draw per round,
        in :meth:`query_point` (none without boosting).
    verbose : int, default=0
        With ``verbose > 0``, a progress line at every tenth of the horizon:
        rounds played, cumulative reward (when :meth:`update` is given the
        rewards, as by :func:`run_online`), LMO calls, time elapsed.

    Attributes
    ----------
    n_features_ : int
        Dimension of the decision set.
    radius_ : float
        The radius :math:`R` used.
    block_size_ : int
        The block size :math:`K`.
    n_blocks_ : int
        :math:`\lceil T/K \rceil`.
    eps_ : float
        The tolerance :math:`\epsilon`.
    eta0_ : float or None
        The step :math:`\eta` (None until estimated when :math:`G` is
        unknown).
    grad_bound_ : float or None
        The gradient bound :math:`G` used (given or estimated).
    max_lmo_calls_ : int
        The cap on the LMO calls of one infeasible projection.
    n_rounds_ : int
        Rounds completed.
    n_grad_calls_ : int
        Gradient queries, one per round.
    n_lmo_calls_ : int
        LMO calls, all inside the infeasible projections.
    n_projections_ : int
        Infeasible projection calls, one per completed block.
    n_communications_ : int
        Always 0.
    history_ : dict of list
        One entry per block: ``'dist2'`` :math:`\|x_m - y_{m+1}\|^2`
        (with :math:`y_{m+1}` first shrunk radially to norm :math:`2(R +
        \sqrt{3\epsilon})` when farther, which changes neither Algorithm 4's
        answer nor (37)), ``'lmo_calls'`` the LMO calls of its infeasible
        projection (at most ``max_lmo_calls_``, and within eq. 15),
        ``'n_outer'`` the SHFW calls of Algorithm 4 (0 or 1) and
        ``'status'`` (``'ok'`` or ``'max_lmo_calls'``).

    See Also
    --------
    DPOBGA : The decentralized version (Algorithm 2).
    MonoFW : The O(T^{4/5})-regret projection-free baseline.
    OBGA : The projection-based method POBGA makes projection-free.
    run_online : Play a learner against a sequence of objectives.

    Notes
    -----
    **Why a practical preset.** With the theory constants POBGA plays
    :math:`x = 0` for every :math:`T \le 1215^2 \approx 1.48 \cdot 10^6`:
    from :math:`x_m = 0`, Algorithm 4 compares :math:`x_m` with the radial
    projection :math:`y_1` of :math:`y_{m+1}` onto :math:`R\mathcal{B}`, and
    :math:`\|0 - y_1\|^2 \le R^2 \le 3\epsilon = 1215 R^2 T^{-1/2}`, so it
    returns :math:`x_{m+1} = 0` (a bound computed from the unprojected
    :math:`y_{m+1}` instead gives about :math:`T \le 48{,}720`; the radial
    projection of Algorithm 4, line 1, makes the range larger). Its regret
    bound is also vacuous below :math:`T = 45^4`. The practical preset keeps
    the theory's exponents (so the regret is still :math:`O(T^{3/4})` and
    the LMO calls :math:`O(T)` by eqs. 13-15, with other constants) and
    only changes :math:`(c_\eta, c_\epsilon, c_K)`.

    **The sweep** that chose :math:`(1, 0.05, 1)`: the NQP benchmark
    ``make_online_nqp(25, 15, T, adversary='iid', noise=0.1,
    random_state=0)`` (:math:`R = \|u\| = 5`, :math:`G` estimated), the
    rewards of :func:`run_online` (``random_state=0``) against one
    :func:`continuous_greedy` comparator (200 steps) of :math:`\sum_t f_t`.
    The :math:`(1-1/e)`-regret is negative for every learner and constant
    (the stream is i.i.d. and the learners beat :math:`1 - 1/e`), so the
    table gives the 1-regret, then the LMO calls, at
    :math:`T = 10^3, 3 \cdot 10^3, 10^4`:

    ==================================  ==================  ====================
    :math:`(c_\eta, c_\epsilon, c_K)`   1-regret            LMO calls
    ==================================  ==================  ====================
    (0.3, 0.01, 1)                      150, 357, 895       467, 822, 1621
    (0.3, 0.03, 1)                      199, 467, 1166      167, 299, 573
    (0.3, 0.1, 1)                       323, 752, 1871      65, 116, 226
    (1, 0.01, 1)                        74, 161, 371        3575, 5871, 10893
    (1, 0.03, 1)                        95, 210, 504        1132, 1860, 3458
    **(1, 0.05, 1)**                    116, 265, 642       679, 1119, 2064
    (1, 0.1, 1)                         157, 391, 954       354, 584, 1078
    (1, 0.05, 0.5)                      144, 329, 829       405, 701, 1253
    (1, 0.05, 2)                        122, 245, 567       1256, 2213, 4102
    (2, 0.05, 1)                        77, 172, 397        2718, 4432, 8142
    (3, 0.03, 1)                        55, 109, --         11297, 18332, --
    (3, 0.1, 1)                         81, 192, --         3066, 4997, --
    Mono-FW (:class:`MonoFW` defaults)  274, 786, 2503      1008, 3050, 10040
    ==================================  ==================  ====================

    The LMO calls of this table (and of the next paragraph) were measured
    with the printed step of Algorithm 4; the single pull of
    :func:`~skcgm.oracles.infeasible_projection` makes about ten times fewer
    with the same regret (:math:`T = 10^4`: 200 LMO calls instead of about
    2000, 1-regret 639 against 652, median of 3 seeds).
    A larger :math:`c_\eta` or :math:`c_K`, or a smaller :math:`c_\epsilon`,
    lowers the regret and raises the LMO calls (eq. 15). :math:`(1, 0.05,
    1)` is the lowest-regret setting that uses fewer LMO calls than Mono-FW
    at every :math:`T` of the grid. At :math:`T = 3 \cdot 10^4` (seeds 0, 1,
    2) it has :math:`(1-1/e)`-regret :math:`-9808, -9609, -10527` against
    Mono-FW's :math:`-4102, -4920` (seeds 0, 1), 1-regret :math:`1452, 1267,
    1508` against :math:`7159, 5956`, with :math:`3589, 3565, 3637` LMO
    calls against Mono-FW's :math:`30132`. Over :math:`T = 10^3` to
    :math:`3 \cdot 10^4` (seed 0) the log-log slope of POBGA's 1-regret is
    0.74 (Mono-FW: 0.96) and that of its LMO calls 0.49 (Mono-FW: 1.00): in
    this stationary stream an infeasible projection needs a roughly constant
    number of LMO calls, well below the :math:`O(\sqrt T)` per block that
    eq. 15 allows. On the 'switching' adversary both regrets are negative
    for :math:`T \ge 10^4` (the learners beat the best fixed point); at
    :math:`T = 3 \cdot 10^4` POBGA's :math:`(1-1/e)`-regret is :math:`-5948`
    with 4000 LMO calls, Mono-FW's :math:`-1317` with 30132.

    References
    ----------
    Y. Liao, Y. Wan, C. Yao and M. Song, "Improved projection-free online
    continuous submodular maximization".

    D. Garber and B. Kretzu, "New projection-free algorithms for online
    convex optimization with adaptive regret guarantees", COLT 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import POBGA
    >>> from skcgm.oracles import BoxLMO
    >>> learner = POBGA(BoxLMO(n_features=2), horizon=4, block_size=2,
    ...                 eta0=0.5, eps=1e-3, random_state=0)
    >>> decisions = []
    >>> for t in range(4):
    ...     decisions.append(learner.decide())
    ...     q = learner.query_point()
    ...     learner = learner.update(np.ones(2))  # f(x) = x_1 + x_2
    >>> decisions[0], bool(np.all(decisions[2] > 0))
    (array([0., 0.]), True)
    >>> learner.n_grad_calls_, learner.n_projections_, learner.n_blocks_
    (4, 2, 2)
    """

    def __init__(
        self,
        lmo,
        horizon,
        *,
        block_size="sqrt",
        preset="practical",
        eta0=None,
        eps=None,
        radius=None,
        grad_bound=None,
        boosting=True,
        max_lmo_calls=None,
        random_state=None,
        verbose=0,
    ):
        self.lmo = lmo
        self.horizon = horizon
        self.block_size = block_size
        self.preset = preset
        self.eta0 = eta0
        self.eps = eps
        self.radius = radius
        self.grad_bound = grad_bound
        self.boosting = boosting
        self.max_lmo_calls = max_lmo_calls
        self.random_state = random_state
        self.verbose = verbose

    def _validate_params(self):
        super()._validate_params()
        _resolve_schedule(self, type(self).__name__)

    def _start(self):
        self._rng = as_random_state(self.random_state)
        self._start_blocks(
            self.n_features_, ("dist2", "lmo_calls", "n_outer", "status")
        )
        self._max_grad_norm = 0.0
        self._q = None

    def _decision(self):
        return self._x

    def _query(self):
        if self._boosting:
            z = _boosting_z(self._rng)
            self._q = z * self._x
        else:
            self._q = self._x
        return self._q

    def _update(self, gradient):
        if self.eta0_ is None:
            self._max_grad_norm = max(self._max_grad_norm, scaled_norm(gradient))
        self._accumulate(gradient)

    def _end_block(self):
        # Algorithm 1, lines 9-10.
        y = _ascent_target(self, self._y_tilde, self._step(), self._grad_sum)
        dist2 = float(np.sum((self._x - y) ** 2))
        self._x, self._y_tilde, result = self._project(self._x, y)
        self.history_["dist2"].append(dist2)
        self.history_["lmo_calls"].append(int(result.n_lmo_calls))
        self.history_["n_outer"].append(int(result.n_outer))
        self.history_["status"].append(result.status)
        self._grad_sum = np.zeros(self.n_features_)
        self._in_block = 0
