"""The ask/tell protocol shared by the online learners.

A round of online continuous submodular maximization is three calls:
:meth:`~BaseOnlineLearner.decide` returns the decision :math:`x_t` to play,
:meth:`~BaseOnlineLearner.query_point` the point where the learner wants the
(stochastic) gradient of :math:`f_t` (:math:`z_t x_m` for the boosted
learners, which draw :math:`z_t` themselves), and
:meth:`~BaseOnlineLearner.update` takes that gradient and ends the round.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from ..oracles._lmo import _check_positive as _check_positive_real
from ..oracles._params import _check_int, _ParamsMixin

# The (1 - 1/e) factor of the boosted gradient, eq. (3).
_ONE_MINUS_INV_E = 1.0 - np.exp(-1.0)


def _check_rng(random_state):
    """A RandomState from None, an int, a RandomState or a Generator.

    A :class:`numpy.random.Generator` is wrapped, not reseeded: the returned
    RandomState draws from the Generator's own bit generator.
    """
    if isinstance(random_state, np.random.Generator):
        return np.random.RandomState(random_state.bit_generator)
    return check_random_state(random_state)


def _check_positive(owner, name, value, allow_none=True):
    """Raise a ValueError naming ``name`` unless ``value`` is a positive real."""
    return _check_positive_real(owner, name, value, allow_none=allow_none)


def _check_bool(owner, name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(
            f"The '{name}' parameter of {owner} must be a bool; got {value!r}."
        )
    return bool(value)


def _check_options(owner, name, value, options):
    if not isinstance(value, str) or value not in options:
        raise ValueError(
            f"The '{name}' parameter of {owner} must be one of "
            f"{sorted(options)}; got {value!r}."
        )
    return value


def _lmo_n_features(owner, lmo):
    """``lmo.n_features``, or a ValueError saying how to give it."""
    if not callable(lmo):
        raise ValueError(
            f"The 'lmo' parameter of {owner} must be a linear minimization "
            f"oracle (a callable grad -> LMOResult); got {lmo!r}."
        )
    n_features = getattr(lmo, "n_features", None)
    if n_features is None:
        raise ValueError(
            f"{owner} needs the dimension of the decision set, but "
            f"lmo.n_features is None for {lmo!r}: pass n_features=... to the "
            "LMO."
        )
    _check_int(owner, "lmo.n_features", n_features, 1)
    return int(n_features)


def _lmo_radius(owner, lmo, radius):
    """The radius R of Assumption A1: ``radius`` if given, else ``lmo.radius``."""
    if radius is not None:
        return _check_positive(owner, "radius", radius)
    value = getattr(lmo, "radius", None)
    if value is None:
        raise ValueError(
            f"{owner} needs the radius R = max ||x|| of the decision set: the "
            f"LMO {lmo!r} has no radius, pass radius=..."
        )
    return _check_positive(owner, "radius (from lmo.radius)", value, allow_none=False)


def _vertex(lmo, direction):
    """The vertex of one LMO call: a new float64 array."""
    answer = lmo(direction)
    vertex = answer[0] if isinstance(answer, tuple) else answer
    return np.array(vertex, dtype=np.float64)


class BaseOnlineLearner(_ParamsMixin):
    """Base class of the online learners: the ask/tell protocol and counters.

    A learner plays ``horizon`` rounds. Each round is exactly three calls, in
    this order:

    1. :meth:`decide` returns the decision :math:`x_t` to play;
    2. :meth:`query_point` returns where the gradient is wanted this round
       (the learners that need randomness, such as the boosted ones drawing
       :math:`z_t`, draw it here, once per round);
    3. :meth:`update` takes the gradient at that point and ends the round.

    Calling them out of order, or after ``horizon`` rounds, raises a
    RuntimeError. Hyper-parameters are validated by :meth:`reset`, which the
    first :meth:`decide` calls; bad values raise a ValueError naming the
    parameter before any work. ``__init__`` only stores its arguments, so
    learners are clonable with :func:`sklearn.base.clone`.

    The learner is not a scikit-learn estimator (it is fed gradients, not a
    data matrix); it has ``get_params``, ``set_params`` and an informative
    repr.

    Attributes
    ----------
    n_features_ : int
        Dimension of the decision set, ``lmo.n_features``.
    n_rounds_ : int
        Rounds completed (calls to :meth:`update`).
    n_grad_calls_ : int
        Gradient queries answered: one per round and per query point (one
        per round for a centralized learner).
    n_lmo_calls_ : int
        Linear minimization oracle calls made by the learner.
    n_projections_ : int
        Exact Euclidean projections, or infeasible projection oracle calls.
    n_communications_ : int
        Exchange rounds of every node with its neighbours (0 for a
        centralized learner).
    history_ : dict of list
        Per-block (or per-round) diagnostics; the keys depend on the learner.

    See Also
    --------
    POBGA : Projection-free online boosting gradient ascent.
    run_online : Play a learner against a sequence of objectives.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.online import OGA
    >>> from skcgm.oracles import BoxLMO
    >>> learner = OGA(BoxLMO(n_features=2), horizon=2, step_size=0.5)
    >>> learner.decide()
    array([0., 0.])
    >>> learner.query_point()
    array([0., 0.])
    >>> learner.update(np.array([1.0, -1.0])).decide()
    array([0.5, 0. ])
    """

    # Whether query_point() returns one row per node and update() takes one.
    _decentralized = False
    # Whether run_online must answer with the exact gradient (Meta-FW).
    _exact_gradient = False

    # -- protocol -----------------------------------------------------------

    def reset(self):
        """Validate the hyper-parameters and start a new game.

        Counters, history and random streams start afresh. Called by the
        first :meth:`decide`; call it again to replay from round 1.

        Returns
        -------
        self : object
            The learner, ready for round 1.
        """
        self._validate_params()
        self.n_rounds_ = 0
        self.n_grad_calls_ = 0
        self.n_lmo_calls_ = 0
        self.n_projections_ = 0
        self.n_communications_ = 0
        self.history_ = {}
        self._start()
        self._phase = "decide"
        return self

    def decide(self):
        """Return the decision to play this round.

        Returns
        -------
        x : ndarray of shape (n_features,)
            The decision :math:`x_t` (a copy; ``(n_nodes, n_features)`` for
            a decentralized learner).
        """
        if getattr(self, "_phase", None) is None:
            self.reset()
        self._check_phase("decide")
        if self.n_rounds_ >= self.horizon:
            raise RuntimeError(
                f"{type(self).__name__} has played all horizon={self.horizon} "
                "rounds; call reset() to start a new game."
            )
        x = np.array(self._decision(), dtype=np.float64)
        self._phase = "query_point"
        return x

    def query_point(self):
        """Return the point where the gradient of this round is wanted.

        Returns
        -------
        q : ndarray of shape (n_features,)
            The query point (a copy; one row per node for a decentralized
            learner, one row per online oracle for Meta-FW).
        """
        self._check_phase("query_point")
        q = np.array(self._query(), dtype=np.float64)
        self._phase = "update"
        return q

    def update(self, gradient):
        """End the round with the gradient at the query point.

        Parameters
        ----------
        gradient : array-like
            The (stochastic) gradient of this round's objective at
            :meth:`query_point`, of the same shape as the query point.

        Returns
        -------
        self : object
            The learner.
        """
        self._check_phase("update")
        gradient = np.asarray(gradient, dtype=np.float64)
        shape = self._query_shape()
        if gradient.shape != shape:
            raise ValueError(
                f"The 'gradient' passed to {type(self).__name__}.update must "
                f"have shape {shape} (that of the query point); got "
                f"{gradient.shape}."
            )
        if not np.all(np.isfinite(gradient)):
            raise ValueError(
                f"The 'gradient' passed to {type(self).__name__}.update must be finite."
            )
        self._update(gradient.copy())
        self.n_rounds_ += 1
        self.n_grad_calls_ += 1 if gradient.ndim == 1 else gradient.shape[0]
        self._phase = "decide"
        return self

    def _check_phase(self, method):
        phase = getattr(self, "_phase", None)
        if phase is None:
            raise RuntimeError(
                f"{type(self).__name__}.{method}() called before decide(); a "
                "round is decide(), query_point(), update(gradient)."
            )
        if phase != method:
            raise RuntimeError(
                f"{type(self).__name__}.{method}() called out of order: "
                f"{phase}() is expected next (a round is decide(), "
                "query_point(), update(gradient))."
            )

    # -- subclass hooks -----------------------------------------------------

    def _validate_params(self):
        owner = type(self).__name__
        _check_int(owner, "horizon", self.horizon, 1)
        self.n_features_ = _lmo_n_features(owner, self.lmo)

    def _start(self):
        raise NotImplementedError  # pragma: no cover

    def _decision(self):
        raise NotImplementedError  # pragma: no cover

    def _query(self):
        raise NotImplementedError  # pragma: no cover

    def _query_shape(self):
        return (self.n_features_,)

    def _update(self, gradient):
        raise NotImplementedError  # pragma: no cover


def _resolve_block_size(owner, block_size, horizon, c_k):
    """K = max(1, round(c_K sqrt(T))) for 'sqrt', else the given int."""
    if block_size == "sqrt":
        return int(max(1, min(horizon, round(c_k * np.sqrt(horizon)))))
    if (
        isinstance(block_size, Integral)
        and not isinstance(block_size, bool)
        and 1 <= block_size <= horizon
    ):
        return int(block_size)
    raise ValueError(
        f"The 'block_size' parameter of {owner} must be 'sqrt' or an int in "
        f"[1, horizon={horizon}]; got {block_size!r}."
    )
