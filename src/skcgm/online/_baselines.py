"""Baselines of online continuous submodular maximization.

Projection-based: online gradient ascent (OGA, Chen et al. 2018b, eq. 1) and
online boosting gradient ascent (OBGA, Zhang et al. 2022a). Projection-free:
Meta-Frank-Wolfe (Chen et al. 2018b) and Mono-Frank-Wolfe (Zhang et al.
2019), whose online linear maximization oracles here are Follow the Perturbed
Leader (FTPL), which needs only the LMO.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import math
from numbers import Integral

import numpy as np

from ..utils._math import scaled_norm
from ..utils._params import RANDOM_STATE, StrictInterval
from ..utils._random import as_random_state
from ..utils._sklearn_compat import HasMethods, StrOptions
from ..utils._validation import largest_magnitude, resolve_radius
from ._base import (
    _ONE_MINUS_INV_E,
    _POSITIVE_OR_NONE,
    BaseOnlineLearner,
    _check_origin,
    _resolve_block_size,
    _vertex,
)
from ._boosting import _boosting_z

__all__ = ["MetaFW", "MonoFW", "OBGA", "OGA"]


def _float_or_none(value):
    return None if value is None else float(value)


def _ogd_step(learner, grad_bound, source, numerator):
    """eta = 2 R / (G sqrt(T)), or a ValueError naming ``source`` on overflow."""
    with np.errstate(over="ignore", divide="ignore"):
        step = float(2.0 * learner.radius_ / (grad_bound * math.sqrt(learner.horizon)))
    if not math.isfinite(step):
        raise ValueError(
            f"{source} gives a gradient bound G = {grad_bound:.3g} so small "
            f"that the step eta = {numerator} / (G sqrt(T)) overflows; scale the "
            f"gradients up or pass eta0=... to {type(learner).__name__}."
        )
    return step


def _checked_step(learner, eta0, gradient):
    """``eta0 * gradient``, or a ValueError naming the step when it overflows.

    The projection squares the point it projects: a step whose squares
    overflow float64 is a step size out of scale with gradients that passed
    their own check, so the error names the parameter that set the step.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        step = eta0 * gradient
    values = np.atleast_2d(step)
    bound = math.sqrt(np.finfo(np.float64).max / (16.0 * values.shape[1]))
    peak = largest_magnitude(values)
    if peak <= bound:
        return step
    owner = type(learner).__name__
    if learner.eta0 is not None:
        remedy = f"eta0={learner.eta0:.3g} is too large: pass a smaller eta0"
    elif learner.grad_bound is not None:
        remedy = (
            f"the step 2 R / (G sqrt(T)) from grad_bound={learner.grad_bound:.3g}"
            " is too large: pass a larger grad_bound, or eta0"
        )
    else:
        remedy = (
            "the step 2 R / (G sqrt(T)) from the first gradient's size is too "
            "large for the later ones: pass grad_bound or eta0"
        )
    raise ValueError(
        f"The ascent step eta0 * gradient of {owner}.update reaches {peak:.3g} "
        f"(step size {eta0:.3g}), beyond {bound:.3g}, where the projection's "
        f"squares overflow: {remedy}."
    )


class _ProjectedAscent(BaseOnlineLearner):
    """x_{t+1} = Pi_K[x_t + eta gamma g_t], optionally boosted."""

    _parameter_constraints: dict = {
        **BaseOnlineLearner._parameter_constraints,
        # The exact Euclidean projection: a set with one (box, simplex, l1/l2
        # balls, DownClosedPolytopeLMO, ...); POBGA and MonoFW need none.
        "lmo": [HasMethods(["__call__", "project"])],
        "eta0": _POSITIVE_OR_NONE,
        "radius": _POSITIVE_OR_NONE,
        "grad_bound": _POSITIVE_OR_NONE,
    }
    _boosted = False

    def _validate_params(self):
        super()._validate_params()
        owner = type(self).__name__
        self._project = self.lmo.project
        self.radius_ = resolve_radius(owner, self.lmo, self.radius)
        _check_origin(owner, self.lmo, self.n_features_)
        self._gamma = _ONE_MINUS_INV_E if self._boosted else 1.0
        self.grad_bound_ = _float_or_none(self.grad_bound)
        self.eta0_ = _float_or_none(self.eta0)
        if self.eta0_ is None and self.grad_bound_ is not None:
            self.eta0_ = self._default_step(
                self.grad_bound_, f"The 'grad_bound' parameter of {owner}"
            )

    def _default_step(self, grad_bound, source):
        # The standard OGD tuning eta = D / (gamma G sqrt(T)), D = 2R >= diam.
        return _ogd_step(
            self, self._gamma * grad_bound, source, f"{2.0 / self._gamma:.3g} R"
        )

    def _start(self):
        self._rng = as_random_state(getattr(self, "random_state", None))
        self._x = np.zeros(self.n_features_)
        self.history_["step"] = []

    def _decision(self):
        return self._x

    def _query(self):
        if self._boosted:
            return _boosting_z(self._rng) * self._x
        return self._x

    def _update(self, gradient):
        if self.eta0_ is None:
            norm = scaled_norm(gradient)
            if norm == 0:
                return  # any step: the point does not move
            self.eta0_ = self._default_step(
                norm, f"The 'gradient' passed to {type(self).__name__}.update"
            )
            self.grad_bound_ = norm
        y = self._x + _checked_step(self, self.eta0_ * self._gamma, gradient)
        self._x = np.array(self._project(y), dtype=np.float64)
        self.n_projections_ += 1


class OGA(_ProjectedAscent):
    r"""Online gradient ascent with exact projections (eq. 1).

    .. math::

        x_{t+1} = \Pi_{\mathcal{K}}\big[x_t + \eta\, \tilde\nabla f_t(x_t)\big],
        \qquad x_1 = 0,

    Chen et al. (2018b): a :math:`1/2`-regret of :math:`O(\sqrt T)` with one
    projection per round. The projection is ``lmo.project``.

    Parameters
    ----------
    lmo : LMO
        The decision set; must contain 0 (the first decision; a ValueError
        otherwise), have ``project`` (an exact Euclidean projection) and a
        known ``n_features``.
    horizon : int
        The number of rounds :math:`T`.
    eta0 : float, default=None
        :math:`\eta`. None is :math:`2R / (G \sqrt T)` (:math:`2R` bounds the
        diameter). A step whose product with a gradient has squares that
        overflow raises a ValueError in :meth:`update`.
    radius : float, default=None
        :math:`R`; None takes ``lmo.radius``.
    grad_bound : float, default=None
        :math:`G`; None estimates it as the norm of the first non-zero
        gradient, then fixes :math:`\eta`.
    verbose : int, default=0
        With ``verbose > 0``, a progress line at every tenth of the horizon
        (see :class:`POBGA`).

    Attributes
    ----------
    n_features_ : int
        Dimension of the decision set.
    radius_ : float
        The radius used.
    eta0_ : float or None
        The step used (None until estimated).
    grad_bound_ : float or None
        The gradient bound used.
    n_rounds_ : int
        Rounds completed.
    n_grad_calls_ : int
        Gradient queries, one per round.
    n_lmo_calls_ : int
        Always 0.
    n_projections_ : int
        Exact projections, one per round.
    n_communications_ : int
        Always 0.
    history_ : dict of list
        Unused (empty lists).

    See Also
    --------
    OBGA : The boosted version, a :math:`(1-1/e)`-regret method.
    POBGA : The projection-free boosted method.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import OGA
    >>> from skcgm.oracles import BoxLMO
    >>> learner = OGA(BoxLMO(n_features=2), horizon=3, eta0=0.75)
    >>> for t in range(3):
    ...     x = learner.decide()
    ...     q = learner.query_point()
    ...     learner = learner.update(np.array([1.0, -1.0]))
    >>> x, learner.n_projections_
    (array([1., 0.]), 3)
    """

    def __init__(
        self, lmo, horizon, *, eta0=None, radius=None, grad_bound=None, verbose=0
    ):
        self.lmo = lmo
        self.horizon = horizon
        self.eta0 = eta0
        self.radius = radius
        self.grad_bound = grad_bound
        self.verbose = verbose


class OBGA(_ProjectedAscent):
    r"""Online boosting gradient ascent with exact projections.

    Zhang et al. (2022a), the projection-based method POBGA makes
    projection-free (Section 2.1):

    .. math::

        x_{t+1} = \Pi_{\mathcal{K}}\big[x_t + \eta (1 - 1/e)\,
        \tilde\nabla f_t(z_t x_t)\big], \qquad x_1 = 0,

    with :math:`z_t` drawn from the density :math:`e^{z-1}/(1 - e^{-1})` on
    :math:`[0, 1]` (the boosting surrogate, eqs. 2-3): a
    :math:`(1-1/e)`-regret of :math:`O(\sqrt T)` with :math:`T` projections.
    The initial point is not stated in the paper; 0 is POBGA's.

    Parameters
    ----------
    lmo : LMO
        The decision set; must contain 0 (the first decision; a ValueError
        otherwise), have ``project`` and a known ``n_features``.
    horizon : int
        The number of rounds :math:`T`.
    eta0 : float, default=None
        :math:`\eta`. None is :math:`2R / ((1 - 1/e) G \sqrt T)`.
    radius : float, default=None
        :math:`R`; None takes ``lmo.radius``.
    grad_bound : float, default=None
        :math:`G`; None estimates it as the norm of the first non-zero
        gradient.
    random_state : int, RandomState instance, Generator or None, default=None
        The stream of :math:`z_t`, one ``sample_boosting_z`` draw per round in
        :meth:`query_point`.
    verbose : int, default=0
        With ``verbose > 0``, a progress line at every tenth of the horizon
        (see :class:`POBGA`).

    Attributes
    ----------
    n_features_ : int
        Dimension of the decision set.
    radius_ : float
        The radius used.
    eta0_ : float or None
        The step used (None until estimated).
    grad_bound_ : float or None
        The gradient bound used.
    n_rounds_ : int
        Rounds completed.
    n_grad_calls_ : int
        Gradient queries, one per round.
    n_lmo_calls_ : int
        Always 0.
    n_projections_ : int
        Exact projections, one per round.
    n_communications_ : int
        Always 0.
    history_ : dict of list
        Unused (empty lists).

    See Also
    --------
    POBGA : The projection-free version.
    OGA : Without boosting.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import OBGA
    >>> from skcgm.oracles import BoxLMO
    >>> learner = OBGA(BoxLMO(n_features=2), horizon=5, eta0=1.0,
    ...                random_state=0)
    >>> for t in range(5):
    ...     x = learner.decide()
    ...     q = learner.query_point()
    ...     learner = learner.update(np.array([1.0, -1.0]))
    >>> x, learner.n_projections_
    (array([1., 0.]), 5)
    """

    _parameter_constraints: dict = {
        **_ProjectedAscent._parameter_constraints,
        "random_state": RANDOM_STATE,
    }
    _boosted = True

    def __init__(
        self,
        lmo,
        horizon,
        *,
        eta0=None,
        radius=None,
        grad_bound=None,
        random_state=None,
        verbose=0,
    ):
        self.lmo = lmo
        self.horizon = horizon
        self.eta0 = eta0
        self.radius = radius
        self.grad_bound = grad_bound
        self.random_state = random_state
        self.verbose = verbose


class _FTPL:
    """K online linear maximization oracles: Follow the Perturbed Leader.

    Oracle k plays argmax_{v in K} <S_k + sigma p_k, v> (one LMO call), S_k
    the sum of its past linear rewards and p_k ~ N(0, I) drawn once. The
    scale sigma only matters once S_k != 0, so it may be fixed after the
    first feedback.
    """

    def __init__(self, lmo, n_oracles, n_features, rng):
        self.lmo = lmo
        self.perturbation = rng.standard_normal((n_oracles, n_features))
        self.sums = np.zeros((n_oracles, n_features))
        self.sigma = None

    def decisions(self):
        sigma = 1.0 if self.sigma is None else self.sigma
        return np.array(
            [
                _vertex(self.lmo, -(s + sigma * p))
                for s, p in zip(self.sums, self.perturbation)
            ]
        )

    def feed(self, rewards):
        self.sums += rewards


class _ProjectedOracles:
    """K online linear maximization oracles: projected gradient ascent."""

    def __init__(self, learner, project, n_oracles, n_features, eta0):
        self.learner = learner
        self.project = project
        self.v = np.zeros((n_oracles, n_features))
        self.eta0 = eta0

    def decisions(self):
        return self.v

    def feed(self, rewards):
        steps = _checked_step(self.learner, self.eta0, rewards)
        self.v = np.array(
            [self.project(v + step) for v, step in zip(self.v, steps)],
            dtype=np.float64,
        )


def _perturbation_scale(sigma, grad_bound, n_feedbacks):
    """FTPL's sigma: as given, else G sqrt(n_feedbacks) once G is known."""
    if sigma is None and grad_bound is not None:
        return grad_bound * math.sqrt(n_feedbacks)
    return sigma


def _frank_wolfe_path(v):
    """x^(k+1) = x^(k) + v^(k) / K from x^(1) = 0: the K + 1 points."""
    K = v.shape[0]
    path = np.zeros((K + 1, v.shape[1]))
    np.cumsum(v / K, axis=0, out=path[1:])
    return path


def _grad_scale(gradients):
    return max(scaled_norm(row) for row in gradients)


class MetaFW(BaseOnlineLearner):
    r"""Meta-Frank-Wolfe (Chen et al. 2018b), with exact gradients.

    :math:`K` online linear maximization oracles
    :math:`\mathcal{E}^{(1)}, \dots, \mathcal{E}^{(K)}`. Every round
    runs :math:`K` Frank-Wolfe steps of size :math:`1/K` from 0 along their
    outputs :math:`v_t^{(k)}`,

    .. math::

        x_t^{(1)} = 0, \qquad x_t^{(k+1)} = x_t^{(k)} + \frac1K v_t^{(k)},
        \qquad x_t = x_t^{(K+1)},

    plays :math:`x_t`, and feeds oracle :math:`k` the linear reward
    :math:`\langle \nabla f_t(x_t^{(k)}), \cdot \rangle`: :math:`K`
    gradients and :math:`K` oracle steps per round, so
    :math:`O(T^{3/2})` of each with :math:`K = \sqrt T`, for a
    :math:`(1-1/e)`-regret of :math:`O(\sqrt T)` (Table 1).

    The oracles (``online_oracle``) are Follow the Perturbed Leader, one LMO
    call each per round (footnote 1: the projections of the original
    Meta-FW can be replaced by as many linear optimization steps), or
    projected online gradient ascent, as in the original (Chen et al.'s
    public code), one projection each per round.

    Parameters
    ----------
    lmo : LMO
        The decision set; ``n_features`` must be known. For
        ``online_oracle='projection'``, ``project`` must exist and the set
        contain 0 (where the oracles start; a ValueError otherwise).
    horizon : int
        The number of rounds :math:`T`.
    n_oracles : int, default=None
        :math:`K`; None is :math:`\max(1, \operatorname{round}(\sqrt T))`.
    online_oracle : {'ftpl', 'projection'}, default='ftpl'
        FTPL: oracle :math:`k` plays
        :math:`\operatorname{argmax}_{v \in \mathcal{K}} \langle S_k +
        \sigma p_k, v \rangle` with :math:`S_k` the sum of its past rewards
        and :math:`p_k \sim \mathcal{N}(0, I)` drawn once, at :meth:`reset`.
        'projection': :math:`v^{(k)} \leftarrow \Pi_{\mathcal{K}}[v^{(k)} +
        \eta\, \nabla f_t(x_t^{(k)})]` from 0.
    eta0 : float, default=None
        :math:`\eta` of the 'projection' oracles; None is
        :math:`2R / (G \sqrt T)`.
    perturbation : float, default=None
        :math:`\sigma` of the FTPL oracles; None is :math:`G \sqrt T` (the
        scale that balances the perturbation and stability terms of FTPL's
        regret).
    radius : float, default=None
        :math:`R`; None takes ``lmo.radius`` (only used for ``eta0``).
    grad_bound : float, default=None
        :math:`G`; None estimates it from the first round's gradients (their
        largest norm).
    random_state : int, RandomState instance, Generator or None, default=None
        The FTPL perturbations, drawn at the start as one
        ``standard_normal((K, n_features))``.
    verbose : int, default=0
        With ``verbose > 0``, a progress line at every tenth of the horizon
        (see :class:`POBGA`).

    Attributes
    ----------
    n_features_ : int
        Dimension of the decision set.
    n_oracles_ : int
        :math:`K`.
    grad_bound_ : float or None
        The gradient bound used.
    n_rounds_ : int
        Rounds completed.
    n_grad_calls_ : int
        Exact gradients queried: :math:`K` per round.
    n_lmo_calls_ : int
        LMO calls: :math:`K` per round with FTPL, else 0.
    n_projections_ : int
        Projections: :math:`K` per round with 'projection', else 0.
    n_communications_ : int
        Always 0.
    history_ : dict of list
        Unused (empty lists).

    See Also
    --------
    MonoFW : The blocked, O(T)-oracle version.
    POBGA : The O(T^{3/4})-regret projection-free method.

    Notes
    -----
    :meth:`query_point` returns the ``(K, n_features)`` points
    :math:`x_t^{(1)}, \dots, x_t^{(K)}` and :meth:`update` takes the
    ``(K, n_features)`` exact gradients there; :func:`run_online` answers
    with ``objective.grad``.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import MetaFW
    >>> from skcgm.oracles import BoxLMO
    >>> learner = MetaFW(BoxLMO(n_features=2), horizon=4, random_state=0)
    >>> for t in range(4):
    ...     x = learner.decide()
    ...     Q = learner.query_point()
    ...     learner = learner.update(np.tile([1.0, -1.0], (len(Q), 1)))
    >>> x, learner.n_oracles_, learner.n_lmo_calls_
    (array([1. , 0.5]), 2, 8)
    """

    _parameter_constraints: dict = {
        **BaseOnlineLearner._parameter_constraints,
        "n_oracles": [StrictInterval(Integral, 1, None, closed="left"), None],
        "online_oracle": [StrOptions({"ftpl", "projection"})],
        "eta0": _POSITIVE_OR_NONE,
        "perturbation": _POSITIVE_OR_NONE,
        "radius": _POSITIVE_OR_NONE,
        "grad_bound": _POSITIVE_OR_NONE,
        "random_state": RANDOM_STATE,
    }
    _exact_gradient = True

    def __init__(
        self,
        lmo,
        horizon,
        *,
        n_oracles=None,
        online_oracle="ftpl",
        eta0=None,
        perturbation=None,
        radius=None,
        grad_bound=None,
        random_state=None,
        verbose=0,
    ):
        self.lmo = lmo
        self.horizon = horizon
        self.n_oracles = n_oracles
        self.online_oracle = online_oracle
        self.eta0 = eta0
        self.perturbation = perturbation
        self.radius = radius
        self.grad_bound = grad_bound
        self.random_state = random_state
        self.verbose = verbose

    def _validate_params(self):
        super()._validate_params()
        owner = type(self).__name__
        if self.n_oracles is None:
            self.n_oracles_ = max(1, round(math.sqrt(self.horizon)))
        else:
            self.n_oracles_ = int(self.n_oracles)
        self._step_size = _float_or_none(self.eta0)
        self._sigma = _float_or_none(self.perturbation)
        self.grad_bound_ = _float_or_none(self.grad_bound)
        if self.online_oracle == "projection":
            # A rule between two parameters: this oracle projects.
            self._project = getattr(self.lmo, "project", None)
            if not callable(self._project):
                raise ValueError(
                    f"The 'lmo' parameter of {owner} must have a project method "
                    "when online_oracle='projection' (an exact Euclidean "
                    f"projection); {self.lmo!r} has none. Use online_oracle="
                    "'ftpl', which needs the LMO only."
                )
            # The oracles start at v = 0, so the first decision is 0.
            _check_origin(owner, self.lmo, self.n_features_)
            if self._step_size is None:
                self.radius_ = resolve_radius(owner, self.lmo, self.radius)

    def _query_shape(self):
        return (self.n_oracles_, self.n_features_)

    def _start(self):
        K, n = self.n_oracles_, self.n_features_
        self._rng = as_random_state(self.random_state)
        if self.online_oracle == "ftpl":
            self._oracles = _FTPL(self.lmo, K, n, self._rng)
            self._oracles.sigma = _perturbation_scale(
                self._sigma, self.grad_bound_, self.horizon
            )
        else:
            step = self._step_size
            if step is None and self.grad_bound_ is not None:
                step = _ogd_step(
                    self,
                    self.grad_bound_,
                    f"The 'grad_bound' parameter of {type(self).__name__}",
                    "2 R",
                )
            self._oracles = _ProjectedOracles(self, self._project, K, n, step)

    def _decision(self):
        v = self._oracles.decisions()
        if self.online_oracle == "ftpl":
            self.n_lmo_calls_ += self.n_oracles_
        # x^(k+1) = x^(k) + v^(k) / K: the path, x^(1) = 0.
        self._path = _frank_wolfe_path(v)
        return self._path[-1]

    def _query(self):
        return self._path[:-1]

    def _update(self, gradient):
        if self.grad_bound_ is None:
            scale = _grad_scale(gradient)
            if scale > 0:
                self.grad_bound_ = scale
                if self.online_oracle == "ftpl" and self._sigma is None:
                    self._oracles.sigma = scale * math.sqrt(self.horizon)
                if self.online_oracle == "projection" and self._step_size is None:
                    self._oracles.eta0 = _ogd_step(
                        self,
                        scale,
                        f"The 'gradient' passed to {type(self).__name__}.update",
                        "2 R",
                    )
        if self.online_oracle == "projection":
            if self._oracles.eta0 is None:
                return  # all gradients 0 so far: nothing moves
            self.n_projections_ += self.n_oracles_
        self._oracles.feed(gradient)


class MonoFW(BaseOnlineLearner):
    r"""Mono-Frank-Wolfe (Zhang et al. 2019): one gradient per round.

    The rounds are cut into :math:`Q = \lceil T/K \rceil` blocks of
    :math:`K` rounds, with :math:`K` online linear maximization oracles
    :math:`\mathcal{E}^{(1)}, \dots, \mathcal{E}^{(K)}`. In block :math:`q`,

    .. math::

        x_q^{(1)} = 0, \quad x_q^{(k+1)} = x_q^{(k)} + \frac1K v_q^{(k)},
        \quad x_q = x_q^{(K+1)},

    with :math:`v_q^{(k)}` the output of :math:`\mathcal{E}^{(k)}` (one LMO
    call each); :math:`x_q` is played in every round of the block. The
    rounds of the block are matched with :math:`k = 1, \dots, K` by a random
    permutation; round :math:`t_{q,k}` queries the stochastic gradient at
    :math:`x_q^{(k)}`, and at the end of the block

    .. math::

        d_q^{(k)} = (1 - \rho_k) d_q^{(k-1)} + \rho_k
        \tilde\nabla f_{t_{q,k}}(x_q^{(k)}), \quad d_q^{(0)} = 0, \quad
        \rho_k = \frac{2}{(k + 3)^{2/3}},

    and :math:`\mathcal{E}^{(k)}` receives the reward
    :math:`\langle d_q^{(k)}, \cdot \rangle`. One gradient per round and
    :math:`K` LMO calls per block: :math:`O(T)` of each, for a
    :math:`(1-1/e)`-regret of :math:`O(T^{4/5})` with :math:`K = T^{3/5}`
    (Table 1). The POBGA paper only describes Mono-FW in words; the steps
    above are those of Zhang et al. (2019).

    The oracles are Follow the Perturbed Leader: :math:`\mathcal{E}^{(k)}`
    plays :math:`\operatorname{argmax}_{v \in \mathcal{K}} \langle S_k +
    \sigma p_k, v \rangle`, :math:`S_k` the sum of its past rewards and
    :math:`p_k \sim \mathcal{N}(0, I)` drawn once, at :meth:`reset`.

    Parameters
    ----------
    lmo : LMO
        The decision set; ``n_features`` must be known.
    horizon : int
        The number of rounds :math:`T`.
    block_size : int, default=None
        :math:`K`; None is :math:`\max(1, \operatorname{round}(T^{3/5}))`.
        When :math:`K` does not divide :math:`T` the last block is shorter
        (its rounds query a random subset of the :math:`x_q^{(k)}`, and its
        feedback, which could only change decisions after the horizon, is
        dropped).
    perturbation : float, default=None
        :math:`\sigma`; None is :math:`G \sqrt{Q}` (each oracle sees
        :math:`Q` rewards of norm at most :math:`G`).
    grad_bound : float, default=None
        :math:`G`; None estimates it at the end of the first block as the
        largest norm of its gradients (only :math:`\sigma` depends on it, and
        the first block's decision does not).
    random_state : int, RandomState instance, Generator or None, default=None
        Draws, in order: the perturbations ``standard_normal((K,
        n_features))`` at the start, then one ``permutation(K)`` at the
        start of every block.
    verbose : int, default=0
        With ``verbose > 0``, a progress line at every tenth of the horizon
        (see :class:`POBGA`).

    Attributes
    ----------
    n_features_ : int
        Dimension of the decision set.
    block_size_ : int
        :math:`K`.
    n_blocks_ : int
        :math:`Q = \lceil T/K \rceil`.
    grad_bound_ : float or None
        The gradient bound used.
    n_rounds_ : int
        Rounds completed.
    n_grad_calls_ : int
        Gradient queries, one per round.
    n_lmo_calls_ : int
        LMO calls, :math:`K` per block.
    n_projections_ : int
        Always 0.
    n_communications_ : int
        Always 0.
    history_ : dict of list
        Unused (empty lists).

    See Also
    --------
    POBGA : The O(T^{3/4})-regret method with the same costs.
    MetaFW : The unblocked version.

    References
    ----------
    M. Zhang, L. Chen, H. Hassani and A. Karbasi, "Online continuous
    submodular maximization: from full-information to bandit feedback",
    NeurIPS 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import MonoFW
    >>> from skcgm.oracles import BoxLMO
    >>> learner = MonoFW(BoxLMO(n_features=2), horizon=8, random_state=0)
    >>> for t in range(8):
    ...     x = learner.decide()
    ...     q = learner.query_point()
    ...     learner = learner.update(np.array([1.0, -1.0]))
    >>> x, learner.block_size_, learner.n_lmo_calls_
    (array([1.        , 0.33333333]), 3, 9)
    """

    _parameter_constraints: dict = {
        **BaseOnlineLearner._parameter_constraints,
        "block_size": [StrictInterval(Integral, 1, None, closed="left"), None],
        "perturbation": _POSITIVE_OR_NONE,
        "grad_bound": _POSITIVE_OR_NONE,
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        lmo,
        horizon,
        *,
        block_size=None,
        perturbation=None,
        grad_bound=None,
        random_state=None,
        verbose=0,
    ):
        self.lmo = lmo
        self.horizon = horizon
        self.block_size = block_size
        self.perturbation = perturbation
        self.grad_bound = grad_bound
        self.random_state = random_state
        self.verbose = verbose

    def _validate_params(self):
        super()._validate_params()
        self.block_size_ = _resolve_block_size(
            type(self).__name__, self.block_size, self.horizon, self.horizon**0.6
        )
        self.n_blocks_ = -(-self.horizon // self.block_size_)
        self._sigma = _float_or_none(self.perturbation)
        self.grad_bound_ = _float_or_none(self.grad_bound)
        K = self.block_size_
        self._rho = 2.0 / (np.arange(1, K + 1) + 3.0) ** (2.0 / 3.0)

    def _start(self):
        K, n = self.block_size_, self.n_features_
        self._rng = as_random_state(self.random_state)
        self._oracles = _FTPL(self.lmo, K, n, self._rng)
        self._oracles.sigma = _perturbation_scale(
            self._sigma, self.grad_bound_, self.n_blocks_
        )
        self._in_block = 0

    def _decision(self):
        if self._in_block == 0:
            K = self.block_size_
            v = self._oracles.decisions()
            self.n_lmo_calls_ += K
            self._path = _frank_wolfe_path(v)
            self._order = self._rng.permutation(K)
            self._grads = np.zeros((K, self.n_features_))
        return self._path[-1]

    def _query(self):
        return self._path[self._order[self._in_block]]

    def _update(self, gradient):
        self._grads[self._order[self._in_block]] = gradient
        self._in_block += 1
        if self._in_block == self.block_size_:
            self._end_block()
        elif self.n_rounds_ + 1 == self.horizon:
            self._in_block = 0  # a shorter last block: nothing left to learn

    def _end_block(self):
        if self._oracles.sigma is None:
            scale = _grad_scale(self._grads)
            if scale > 0:
                self.grad_bound_ = scale
                self._oracles.sigma = scale * math.sqrt(self.n_blocks_)
        d = np.zeros(self.n_features_)
        rewards = np.empty_like(self._grads)
        for k, (rho, g) in enumerate(zip(self._rho, self._grads)):
            d = (1.0 - rho) * d + rho * g
            rewards[k] = d
        self._oracles.feed(rewards)
        self._in_block = 0
