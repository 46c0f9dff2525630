"""Kernel herding as Frank-Wolfe on the marginal polytope."""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel
from sklearn.utils import check_random_state
from sklearn.utils.extmath import row_norms
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from ..oracles import LSHMIPS, ConvexHullLMO, ExactMIPS
from ..utils._blocks import row_blocks
from ..utils._sklearn_compat import (
    Interval,
    RealNotInt,
    StrOptions,
    _fit_context,
    validate_data,
)
from ..utils._validation import check_sample_weight

_MAX_SEED = np.iinfo(np.int32).max
# Stop when the duality gap <mu - w, s - w> (an upper bound of the
# suboptimality 1/2 ||w - mu||^2) is below this times max ||Phi(x_i)||^2:
# the subset then matches mu up to rounding.
_GAP_RTOL = 1e-10


def _index_rows(X, indices):
    """Rows ``indices`` of X, keeping its container and dtype."""
    if hasattr(X, "iloc"):
        return X.iloc[indices]
    if sp.issparse(X):
        return X[indices]
    return np.asarray(X)[indices]


class _ConvexWeights:
    """Convex weights of the atoms, updated as ``(1 - eta) a + eta e_i``."""

    def __init__(self):
        self.position = {}
        self.indices = []
        self.weights = []

    def update(self, index, eta):
        self.weights = [(1.0 - eta) * value for value in self.weights]
        position = self.position.get(index)
        if position is None:
            position = self.position[index] = len(self.indices)
            self.indices.append(index)
            self.weights.append(0.0)
        self.weights[position] += eta

    def result(self):
        """Indices in order of first selection and their (positive) weights."""
        indices = np.asarray(self.indices, dtype=np.intp)
        weights = np.asarray(self.weights, dtype=np.float64)
        keep = weights > 0
        return indices[keep], weights[keep] / weights[keep].sum()


def _candidate_budget(n_candidates, n_rows):
    """``n_candidates`` as a count of rows (a float is a fraction of them)."""
    if n_candidates is None or isinstance(n_candidates, Integral):
        return n_candidates
    return max(1, int(np.ceil(n_candidates * n_rows)))


def _step_size(step, t, gap, dist2):
    """Step ``eta_t``; the first step is 1 for every rule."""
    if t == 0:
        return 1.0
    if step == "herding":
        return 1.0 / (t + 1)
    if step == "fw":
        return 2.0 / (t + 2)
    # Exact line search on 1/2 ||w - mu||^2 along s - w.
    if not dist2 > 0:
        return 0.0
    return min(1.0, max(0.0, gap / dist2))


class KernelHerdingSampler(BaseEstimator):
    """Kernel herding: a weighted subset whose kernel mean matches the data's.

    Kernel herding is Frank-Wolfe on the marginal polytope (Problem E.1 of the
    MaxIP paper): with :math:`\\Phi` the feature map of the kernel and
    :math:`\\mu = \\sum_i p_i \\Phi(x_i) / \\sum_i p_i` the (sample-weighted)
    mean embedding of the rows of ``X``, it minimizes

    .. math::

        g(w) = \\frac{1}{2} \\|w - \\mu\\|^2, \\qquad
        w \\in \\mathcal{B}(\\{\\Phi(x_1), \\dots, \\Phi(x_n)\\}),

    a 1-smooth objective (Lemma E.2) whose value at
    :math:`w = \\sum_j a_j \\Phi(x_{i_j})` is half the squared maximum mean
    discrepancy (MMD) between the weighted subset and the data. Every
    iteration selects the row

    .. math::

        i_t = \\operatorname{argmax}_i \\langle \\mu - w_t, \\Phi(x_i) \\rangle,
        \\qquad w_{t+1} = (1 - \\eta_t) w_t + \\eta_t \\Phi(x_{i_t}),

    the Frank-Wolfe linear minimization oracle (Algorithm 3, with its sign
    erratum fixed: the printed argmax of :math:`\\langle w_t - \\mu, s
    \\rangle` is an argmin, note section 7.1). With :math:`\\eta_t = 1/(t+1)`
    this is the classic herding recursion (eq. 20) and the weights are
    uniform over the selected multiset.

    With ``feature_map='exact'`` the kernel trick scores every row in
    :math:`O(n d)` per iteration: :math:`\\langle \\mu, \\Phi(x_i) \\rangle` is
    precomputed once in :math:`O(n^2 d)` in blocks of bounded memory, and
    :math:`\\langle w_t, \\Phi(x_i) \\rangle` is updated with the kernel
    column of the newly selected row; no :math:`n \\times n` matrix is
    stored. With explicit features ('rff', 'nystroem', 'identity') the
    search is a maximum-inner-product query over :math:`\\Phi(X)`, exact or
    through an LSH index (Algorithm 4), which scores fewer rows.

    Parameters
    ----------
    n_samples : int, default=100
        Number of herding iterations :math:`T`, i.e. of selections counted
        with repeats. It is clipped to the number of rows with a positive
        weight (so small data sets work). A row may be selected more than
        once; ``sample_indices_`` holds each selected row once.

    kernel : {'rbf', 'linear'}, default='rbf'
        The kernel :math:`k(x, y) = \\exp(-\\gamma \\|x - y\\|^2)` or
        :math:`\\langle x, y \\rangle`.

    gamma : float, default=None
        RBF bandwidth; None means ``1 / n_features`` (as in
        :func:`~sklearn.metrics.pairwise.rbf_kernel`). Unused by 'linear'.

    feature_map : {'exact', 'rff', 'nystroem', 'identity'}, default='exact'
        How :math:`\\Phi` is evaluated: 'exact' uses the kernel trick; 'rff'
        random Fourier features (:class:`~sklearn.kernel_approximation.RBFSampler`,
        RBF kernel only); 'nystroem' the Nystroem approximation
        (:class:`~sklearn.kernel_approximation.Nystroem`); 'identity' uses
        ``X`` itself (linear kernel only; sparse ``X`` is densified).

    n_components : int, default=256
        Feature dimension of 'rff' and 'nystroem' (clipped to the number of
        rows for 'nystroem').

    maxip : {'exact', 'lsh'}, default='exact'
        Maximum-inner-product search of the selection step: an exact scan or
        :class:`~skcgm.oracles.LSHMIPS` (needs explicit features, i.e.
        ``feature_map`` other than 'exact'). When the index returns a vertex
        that is no descent direction, that iteration falls back to the exact
        scan, whose cost is counted in ``n_scored_``.

    n_tables : int, default=16
        Number of LSH tables (``maxip='lsh'`` only).

    n_bits : int, default=8
        Sign projections per LSH table (``maxip='lsh'`` only).

    n_probes : int, default=0
        Extra buckets probed per LSH table, multi-probe (``maxip='lsh'``
        only).

    n_candidates : int, float or None, default=None
        Largest number of LSH candidates scored exactly per iteration, the
        ones closest to the query in Hamming distance (``maxip='lsh'`` only);
        a float in (0, 1] is a fraction of the candidate rows. None scores
        every candidate.

    step : {'herding', 'fw', 'line_search'}, default='herding'
        Step size :math:`\\eta_t`: 'herding' is :math:`1/(t+1)` (uniform
        weights over the selections), 'fw' is :math:`2/(t+2)` (Algorithm 3),
        'line_search' the exact minimizer of :math:`g` along
        :math:`\\Phi(x_{i_t}) - w_t`, clipped to [0, 1]. The first step is 1
        for every rule, so the first row selected maximizes
        :math:`\\langle \\mu, \\Phi(x_i) \\rangle`. Every rule stops early
        when the Frank-Wolfe duality gap :math:`\\langle \\mu - w_t,
        \\Phi(x_{i_t}) - w_t \\rangle` falls below :math:`10^{-10}
        \\max_i \\|\\Phi(x_i)\\|^2` (the subset then matches :math:`\\mu`
        up to rounding), and 'line_search' when its step is 0.

    per_class : bool, default=False
        If True and ``y`` is given to ``fit``, herd inside every class with a
        budget proportional to the class's total sample weight (largest
        remainder rounding, at least one selection per class); the weights of
        a class are scaled by its share of the total weight, so class
        proportions are kept.

    random_state : int, RandomState instance or None, default=None
        Seeds the random features ('rff', 'nystroem') and the LSH
        projections. Exact herding with ``feature_map='exact'`` or
        'identity' is deterministic (ties go to the lowest row index).

    Attributes
    ----------
    sample_indices_ : ndarray of shape (n_selected,)
        The selected rows, each once, in order of first selection. Rows left
        with a zero weight (possible with 'line_search') are dropped.

    sample_weights_ : ndarray of shape (n_selected,)
        Convex weights of ``sample_indices_``: non-negative, summing to 1;
        a row selected several times gets the sum of its weights.

    n_iter_ : int
        Number of herding iterations run (summed over the classes with
        ``per_class``).

    mmd_history_ : ndarray of shape (`n_iter_`,)
        Squared MMD :math:`\\|w_{t+1} - \\mu\\|^2` after every iteration,
        computed exactly in the feature space used (the kernel's for
        'exact'). With ``per_class`` the runs of the classes are
        concatenated in the order of ``np.unique(y)``, each measured against
        its own class.

    n_scored_ : ndarray of shape (`n_iter_`,)
        Rows scored by the selection step at every iteration (all candidate
        rows for an exact search, fewer with LSH).

    feature_map_ : RBFSampler, Nystroem or None
        The fitted explicit feature map (None for 'exact' and 'identity').

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    skcgm.optim.frank_wolfe : The generic Frank-Wolfe driver.
    skcgm.oracles.LSHMIPS : The LSH index used with ``maxip='lsh'``.

    Notes
    -----
    Only rows with a positive sample weight are candidates. The score
    :meth:`score` is minus the squared MMD, so larger is better, as scorers
    expect.

    References
    ----------
    Xu, Song, Shrivastava et al., "Breaking the linear iteration cost barrier
    for some well-known conditional gradient methods using MaxIP
    data-structures", NeurIPS 2021 (Appendix E). Chen, Welling and Smola,
    "Super-samples from kernel herding", UAI 2010. Bach, Lacoste-Julien and
    Obozinski, "On the equivalence between herding and conditional gradient
    algorithms", ICML 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.sampling import KernelHerdingSampler
    >>> rng = np.random.RandomState(0)
    >>> X = np.concatenate([rng.normal(-2, 1, (100, 2)), rng.normal(2, 1, (100, 2))])
    >>> sampler = KernelHerdingSampler(n_samples=10, gamma=0.5).fit(X)
    >>> sampler.sample_indices_.shape, float(sampler.sample_weights_.sum())
    ((10,), 1.0)
    >>> bool(sampler.mmd_history_[-1] < sampler.mmd_history_[0])
    True
    >>> X_small, y_small = sampler.fit_resample(X)
    >>> X_small.shape, y_small
    ((10, 2), None)
    """

    _parameter_constraints = {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "kernel": [StrOptions({"rbf", "linear"})],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "feature_map": [StrOptions({"exact", "rff", "nystroem", "identity"})],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "maxip": [StrOptions({"exact", "lsh"})],
        "n_tables": [Interval(Integral, 1, None, closed="left")],
        "n_bits": [Interval(Integral, 0, 62, closed="both")],
        "n_probes": [Interval(Integral, 0, None, closed="left")],
        "n_candidates": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            None,
        ],
        "step": [StrOptions({"herding", "fw", "line_search"})],
        "per_class": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_samples=100,
        *,
        kernel="rbf",
        gamma=None,
        feature_map="exact",
        n_components=256,
        maxip="exact",
        n_tables=16,
        n_bits=8,
        n_probes=0,
        n_candidates=None,
        step="herding",
        per_class=False,
        random_state=None,
    ):
        self.n_samples = n_samples
        self.kernel = kernel
        self.gamma = gamma
        self.feature_map = feature_map
        self.n_components = n_components
        self.maxip = maxip
        self.n_tables = n_tables
        self.n_bits = n_bits
        self.n_probes = n_probes
        self.n_candidates = n_candidates
        self.step = step
        self.per_class = per_class
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _check_combinations(self):
        if self.maxip == "lsh" and self.feature_map == "exact":
            raise ValueError(
                "maxip='lsh' needs explicit features: set feature_map to 'rff', "
                "'nystroem' or 'identity' (got feature_map='exact')."
            )
        if self.feature_map == "rff" and self.kernel != "rbf":
            raise ValueError(
                "feature_map='rff' approximates the RBF kernel; it needs "
                f"kernel='rbf', got kernel={self.kernel!r}."
            )
        if self.feature_map == "identity" and self.kernel != "linear":
            raise ValueError(
                "feature_map='identity' is the linear kernel; it needs "
                f"kernel='linear', got kernel={self.kernel!r}."
            )

    def _kernel(self, X, Y):
        if self.kernel == "rbf":
            return rbf_kernel(X, Y, gamma=self._gamma)
        return linear_kernel(X, Y)

    def _features(self, X):
        """Explicit features of X (float64, dense)."""
        if self.feature_map == "identity":
            X = X.toarray() if sp.issparse(X) else X
            return np.asarray(X, dtype=np.float64)
        return np.asarray(self.feature_map_.transform(X), dtype=np.float64)

    def _kernel_diagonal(self, X):
        if self.kernel == "rbf":
            return np.ones(X.shape[0])
        return row_norms(X, squared=True)

    def _herd_kernel(self, X, p, n_iter):
        """Herding with the kernel trick; O(n d) per iteration."""
        n = X.shape[0]
        m = np.empty(n)
        for block in row_blocks(n, n):
            m[block] = self._kernel(X[block], X) @ p
        mu_norm2 = float(p @ m)
        diag = self._kernel_diagonal(X)
        scale = max(float(diag.max()), np.finfo(np.float64).tiny)
        c = np.zeros(n)
        w_norm2 = w_mu = 0.0
        weights = _ConvexWeights()
        history = []
        for t in range(n_iter):
            scores = m - c
            i = int(np.argmax(scores))
            gap = scores[i] - w_mu + w_norm2
            dist2 = diag[i] - 2.0 * c[i] + w_norm2
            if t > 0 and gap <= _GAP_RTOL * scale:
                break
            eta = _step_size(self.step, t, gap, dist2)
            if eta == 0.0:
                break
            w_norm2 = (
                (1.0 - eta) ** 2 * w_norm2
                + 2.0 * eta * (1.0 - eta) * c[i]
                + eta**2 * diag[i]
            )
            w_mu = (1.0 - eta) * w_mu + eta * m[i]
            c *= 1.0 - eta
            c += eta * self._kernel(X, X[i : i + 1]).ravel()
            weights.update(i, eta)
            history.append(max(w_norm2 - 2.0 * w_mu + mu_norm2, 0.0))
        indices, vertex_weights = weights.result()
        return indices, vertex_weights, history, [n] * len(history)

    def _herd_features(self, F, p, n_iter, rng):
        """Herding over explicit features with an exact or LSH search."""
        mips = (
            ExactMIPS()
            if self.maxip == "exact"
            else LSHMIPS(
                n_tables=self.n_tables,
                n_bits=self.n_bits,
                n_probes=self.n_probes,
                n_candidates=_candidate_budget(self.n_candidates, F.shape[0]),
                random_state=rng.randint(_MAX_SEED),
            )
        )
        lmo = ConvexHullLMO(mips).fit(F)
        # An approximate search can return a vertex that is no descent
        # direction although one exists; its "gap" certifies nothing, so the
        # exact scan then decides (and its cost is counted).
        exact_lmo = ConvexHullLMO().fit(F) if self.maxip == "lsh" else None
        mu = p @ F
        scale = max(float(row_norms(F, squared=True).max()), np.finfo(np.float64).tiny)
        w = np.zeros_like(mu)
        weights = _ConvexWeights()
        history, n_scored = [], []
        for t in range(n_iter):
            # argmin_s <w - mu, s> = argmax_s <mu - w, s> (Alg. 3, sign fixed).
            vertex, i, scored = lmo(w - mu)
            direction = vertex - w
            gap = float((mu - w) @ direction)
            if t > 0 and gap <= _GAP_RTOL * scale and exact_lmo is not None:
                vertex, i, exact_scored = exact_lmo(w - mu)
                scored += exact_scored
                direction = vertex - w
                gap = float((mu - w) @ direction)
            if t > 0 and gap <= _GAP_RTOL * scale:
                break
            eta = _step_size(self.step, t, gap, float(direction @ direction))
            if eta == 0.0:
                break
            w = w + eta * direction
            weights.update(i, eta)
            history.append(float((w - mu) @ (w - mu)))
            n_scored.append(scored)
        indices, vertex_weights = weights.result()
        return indices, vertex_weights, history, n_scored

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Select the herding subset of the rows of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data; its rows are the candidates.
        y : array-like of shape (n_samples,), default=None
            Class labels, used only with ``per_class=True``.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights :math:`p_i` of the rows in the target mean embedding
            :math:`\\mu`; rows of weight 0 are not candidates.

        Returns
        -------
        self : KernelHerdingSampler
            The fitted sampler.
        """
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32])
        self._check_combinations()
        sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
        rng = check_random_state(self.random_state)
        self._gamma = 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)
        X64 = X.astype(np.float64, copy=False)
        self.feature_map_ = None
        if self.feature_map == "rff":
            self.feature_map_ = RBFSampler(
                gamma=self._gamma,
                n_components=self.n_components,
                random_state=rng.randint(_MAX_SEED),
            ).fit(X64)
        elif self.feature_map == "nystroem":
            self.feature_map_ = Nystroem(
                kernel=self.kernel,
                gamma=self._gamma if self.kernel == "rbf" else None,
                n_components=min(self.n_components, X.shape[0]),
                random_state=rng.randint(_MAX_SEED),
            ).fit(X64)
        F = None if self.feature_map == "exact" else self._features(X64)

        groups = [np.arange(X.shape[0])]
        if self.per_class and y is not None:
            y = np.asarray(y)
            if y.ndim != 1:
                raise ValueError(
                    f"per_class=True needs a 1-D y, got an array of shape {y.shape}."
                )
            check_consistent_length(X, y)
            groups = [np.flatnonzero(y == label) for label in np.unique(y)]
        groups = [g[sample_weight[g] > 0] for g in groups]
        groups = [g for g in groups if g.size > 0]
        masses = np.array([sample_weight[g].sum() for g in groups])
        budgets = _allocate(
            min(self.n_samples, sum(g.size for g in groups)),
            masses,
            np.array([g.size for g in groups]),
        )

        indices, weights, history, n_scored = [], [], [], []
        for group, mass, budget in zip(groups, masses, budgets):
            p = sample_weight[group] / mass
            if F is None:
                result = self._herd_kernel(X64[group], p, budget)
            else:
                result = self._herd_features(F[group], p, budget, rng)
            indices.append(group[result[0]])
            weights.append(result[1] * mass / masses.sum())
            history.extend(result[2])
            n_scored.extend(result[3])
        self.sample_indices_ = np.concatenate(indices).astype(np.intp)
        self.sample_weights_ = np.concatenate(weights)
        self.sample_weights_ /= self.sample_weights_.sum()
        self.n_iter_ = len(history)
        self.mmd_history_ = np.asarray(history, dtype=np.float64)
        self.n_scored_ = np.asarray(n_scored, dtype=np.intp)
        self._support = X64[self.sample_indices_]
        if F is not None:
            self._embedding = self.sample_weights_ @ F[self.sample_indices_]
        return self

    def fit_resample(self, X, y=None):
        """Fit, then return the selected rows of X (and y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.
        y : array-like of shape (n_samples,), default=None
            Targets, indexed like X (and used by ``per_class=True``).

        Returns
        -------
        X_resampled : {ndarray, sparse matrix, DataFrame} of shape \
                (n_selected, n_features)
            ``X[sample_indices_]``, with the container and dtype of X.
        y_resampled : ndarray of shape (n_selected,) or None
            ``y[sample_indices_]``, or None when y is None.
        """
        self.fit(X, y)
        X_resampled = _index_rows(X, self.sample_indices_)
        y_resampled = None if y is None else _index_rows(y, self.sample_indices_)
        return X_resampled, y_resampled

    def score(self, X, y=None):
        """Return minus the squared MMD between X and the weighted subset.

        .. math::

            -\\Big\\| \\frac{1}{m} \\sum_{l=1}^m \\Phi(x'_l) - \\sum_j a_j
            \\Phi(x_{i_j}) \\Big\\|^2

        in the kernel (``feature_map='exact'``) or feature space of the
        fitted sampler, with uniform weights on the rows of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to compare the subset with.
        y : None
            Ignored.

        Returns
        -------
        score : float
            Minus the squared MMD (at most 0; larger is better).
        """
        check_is_fitted(self)
        X = validate_data(
            self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False
        )
        X = X.astype(np.float64, copy=False)
        a = self.sample_weights_
        if self.feature_map != "exact":
            diff = self._features(X).mean(axis=0) - self._embedding
            return -float(diff @ diff)
        n = X.shape[0]
        xx = sum(self._kernel(X[block], X).sum() for block in row_blocks(n, n))
        xs = float(self._kernel(X, self._support).sum(axis=0) @ a)
        ss = float(a @ self._kernel(self._support, self._support) @ a)
        return -max(xx / n**2 - 2.0 * xs / n + ss, 0.0)


def _allocate(total, masses, sizes):
    """Split ``total`` proportionally to ``masses`` (>= 1 each, <= sizes)."""
    quotas = total * masses / masses.sum()
    budgets = np.maximum(np.floor(quotas).astype(np.intp), 1)
    remaining = total - budgets.sum()
    if remaining > 0:
        order = np.argsort(-(quotas - np.floor(quotas)), kind="stable")
        budgets[order[:remaining]] += 1
    return np.minimum(budgets, sizes)
