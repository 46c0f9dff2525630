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

import math
import time
from numbers import Integral, Real

import numpy as np

from ..utils._params import ParamsMixin, StrictInterval
from ..utils._sklearn_compat import HasMethods
from ..utils._validation import check_square_range, is_finite_real

__all__ = ["BaseOnlineLearner"]

# The (1 - 1/e) factor of the boosted gradient, eq. (3).
_ONE_MINUS_INV_E = 1.0 - np.exp(-1.0)

# A positive real (a step, a tolerance, a bound), or None for a default.
_POSITIVE_OR_NONE = [StrictInterval(Real, 0, None, closed="neither"), None]


def _lmo_n_features(owner, lmo):
    """``lmo.n_features``, or a ValueError saying how to give it."""
    n_features = getattr(lmo, "n_features", None)
    if n_features is None:
        raise ValueError(
            f"{owner} needs the dimension of the decision set, but "
            f"lmo.n_features is None for {lmo!r}: pass n_features=... to the "
            "LMO."
        )
    if (
        isinstance(n_features, bool)
        or not isinstance(n_features, Integral)
        or n_features < 1
    ):
        raise ValueError(
            f"{owner} needs the dimension of the decision set, an int >= 1, but "
            f"lmo.n_features is {n_features!r} for {lmo!r}."
        )
    return int(n_features)


def _check_origin(owner, lmo, n_features):
    """ValueError unless the set contains 0, where the learner starts.

    Asks ``lmo.contains_origin``, else ``lmo.contains(0)``; an LMO with
    neither is trusted (Assumption A1).
    """
    inside = getattr(lmo, "contains_origin", None)
    if inside is None and callable(getattr(lmo, "contains", None)):
        inside = lmo.contains(np.zeros(n_features))
    if inside is not None and not inside:
        raise ValueError(
            f"{owner} starts at x_1 = 0, so the decision set must contain the "
            f"origin (Assumption A1); the 'lmo' parameter {lmo!r} does not. Use "
            "a set that contains 0, e.g. CappedSimplexLMO instead of SimplexLMO."
        )


def _vertex(lmo, direction):
    """The vertex of one LMO call: a new float64 array."""
    answer = lmo(direction)
    vertex = answer[0] if isinstance(answer, tuple) else answer
    return np.array(vertex, dtype=np.float64)


class BaseOnlineLearner(ParamsMixin):
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
    first :meth:`decide` calls, against ``_parameter_constraints`` as
    scikit-learn's estimators are: a bad value raises an
    ``InvalidParameterError`` (a ValueError) naming the parameter before any
    work. ``__init__`` only stores its arguments.

    The learner is not a scikit-learn estimator (it is fed gradients, not a
    data matrix), but it behaves as one wherever a user looks:
    ``get_params(deep=True)`` lists the parameters of the LMO
    (``lmo__radius``), ``set_params(lmo__radius=2.0)`` sets them,
    :func:`sklearn.base.clone` copies the learner and its LMO, and the repr
    and the notebook display are scikit-learn's.

    With ``verbose > 0``, :meth:`update` prints a progress line at every
    tenth of the horizon (and at the last round): the rounds played, the
    cumulative reward when :meth:`update` is given the rewards (as
    :func:`run_online` does), the LMO calls and the time elapsed since
    :meth:`reset`.

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
    >>> learner = OGA(BoxLMO(n_features=2), horizon=2, eta0=0.5)
    >>> learner.decide()
    array([0., 0.])
    >>> learner.query_point()
    array([0., 0.])
    >>> learner.update(np.array([1.0, -1.0])).decide()
    array([0.5, 0. ])
    """

    _parameter_constraints: dict = {
        "lmo": [HasMethods(["__call__"])],
        "horizon": [StrictInterval(Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
    }

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
        self._cumulative_reward = None
        self._report_every = math.ceil(self.horizon / 10)
        self._start_time = time.perf_counter()
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

    def update(self, gradient, reward=None):
        """End the round with the gradient at the query point.

        Parameters
        ----------
        gradient : array-like
            The (stochastic) gradient of this round's objective at
            :meth:`query_point`, of the same shape as the query point.
        reward : float, default=None
            The reward :math:`f_t(x_t)` of the decision played (for a
            decentralized learner, its mean over the nodes). Only the progress
            report of ``verbose`` uses it, to show the cumulative reward.

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
        owner = type(self).__name__
        if not np.all(np.isfinite(gradient)):
            raise ValueError(f"The 'gradient' passed to {owner}.update must be finite.")
        # The learners square the gradients (norms, G, distances).
        check_square_range(
            np.atleast_2d(gradient),
            input_name=f"The 'gradient' passed to {owner}.update",
        )
        if reward is not None:
            if not is_finite_real(reward):
                raise ValueError(
                    f"The 'reward' passed to {owner}.update must be a finite "
                    f"real number or None; got {reward!r}."
                )
            # Summed over the horizon for the progress report.
            check_square_range(
                np.array([reward], dtype=np.float64),
                input_name=f"The 'reward' passed to {owner}.update",
            )
        self._update(gradient.copy())
        self.n_rounds_ += 1
        self.n_grad_calls_ += 1 if gradient.ndim == 1 else gradient.shape[0]
        self._phase = "decide"
        if reward is not None:
            self._cumulative_reward = (self._cumulative_reward or 0.0) + float(reward)
        if self.verbose and (
            self.n_rounds_ % self._report_every == 0 or self.n_rounds_ == self.horizon
        ):
            self._report_progress()
        return self

    def _report_progress(self):
        """Print one progress line (``verbose``), in the caller's process."""
        reward = (
            ""
            if self._cumulative_reward is None
            else f", cumulative reward {self._cumulative_reward:.6g}"
        )
        elapsed = time.perf_counter() - self._start_time
        print(
            f"[{type(self).__name__}] round {self.n_rounds_}/{self.horizon}"
            f"{reward}, LMO calls {self.n_lmo_calls_}, elapsed {elapsed:.2f} s"
        )

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
        super()._validate_params()
        self.n_features_ = _lmo_n_features(type(self).__name__, self.lmo)

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


def _resolve_block_size(owner, block_size, horizon, default):
    """The block size K: ``block_size`` if an int, else ``default`` rounded.

    The rounded default is clipped to ``[1, horizon]``; a given int larger
    than the horizon raises a ValueError (``_parameter_constraints`` already
    checked it is >= 1).
    """
    if isinstance(block_size, Integral):
        if block_size > horizon:
            raise ValueError(
                f"The 'block_size' parameter of {owner} must be at most "
                f"horizon={horizon}; got {block_size!r}."
            )
        return int(block_size)
    return int(max(1, min(horizon, round(default))))
