"""Kernel herding: Frank-Wolfe on the marginal polytope."""

import numpy as np
from sklearn.utils.extmath import row_norms, safe_sparse_dot

from ...oracles import ConvexHullLMO, ExactMIPS, kernel_mean_embedding
from ...utils._progress import TimedProgress
from ._driver import FrankWolfeResult, _ConvexWeights

_TINY = np.finfo(np.float64).tiny


def _step_size(learning_rate, t, gap, dist2):
    """Step ``eta_t``; the first step is 1 for every rule.

    The iterate starts at 0, outside the hull in general: a first step of 1
    puts it on the first vertex.
    """
    if t == 0:
        return 1.0
    if learning_rate == "herding":
        return 1.0 / (t + 1)
    if learning_rate == "fw":
        return 2.0 / (t + 2)
    # Exact line search on 1/2 ||w - mu||^2 along s - w.
    if not dist2 > 0:
        return 0.0
    return min(1.0, max(0.0, gap / dist2))


class _KernelTrickIterate:
    """The iterate ``w`` through the kernel trick, in O(n d) per iteration.

    ``<mu, Phi(x_i)>`` is precomputed once in O(n^2 d) and ``<w, Phi(x_i)>``
    updated with the kernel column of the selected row; no n x n matrix is
    stored.
    """

    def __init__(self, X, p, kernel, gamma):
        self.X, self.kernel, self.gamma = X, kernel, gamma
        self.mean = kernel_mean_embedding(X, X, p, kernel=kernel, gamma=gamma)
        self.mu_norm2 = float(p @ self.mean)
        n = X.shape[0]
        self.squared_norms = np.asarray(row_norms(X, squared=True), dtype=np.float64)
        self.diag = np.ones(n) if kernel == "rbf" else self.squared_norms
        self.scale = max(float(self.diag.max()), _TINY)
        self.w_dot = np.zeros(n)
        self.w_norm2 = self.w_mu = 0.0

    def select(self, t, tol):
        """Row, gap, ``||Phi(x_i) - w||^2`` and rows scored of the search."""
        scores = self.mean - self.w_dot
        i = int(np.argmax(scores))
        gap = scores[i] - self.w_mu + self.w_norm2
        dist2 = self.diag[i] - 2.0 * self.w_dot[i] + self.w_norm2
        return i, gap, dist2, scores.shape[0]

    def move(self, i, eta):
        self.w_norm2 = (
            (1.0 - eta) ** 2 * self.w_norm2
            + 2.0 * eta * (1.0 - eta) * self.w_dot[i]
            + eta**2 * self.diag[i]
        )
        self.w_mu = (1.0 - eta) * self.w_mu + eta * self.mean[i]
        self.w_dot *= 1.0 - eta
        self.w_dot += eta * self.column(i)

    def column(self, i):
        """``k(x_j, x_i)`` for every row j.

        The operations of :func:`~sklearn.metrics.pairwise.rbf_kernel` and
        :func:`~sklearn.metrics.pairwise.linear_kernel` on float64 rows, in
        their order (the same bits), without their input validation and
        norms of every row, which cost over 10 times the column itself at
        n = 4096: every swap pass of ``refine`` reads a column per selection
        and one per swap.
        """
        dot = safe_sparse_dot(self.X, self.X[i : i + 1].T, dense_output=True)
        column = np.asarray(dot, dtype=np.float64).ravel()
        if self.kernel == "linear":
            return column
        column *= -2.0
        column += self.squared_norms
        column += self.squared_norms[i]
        np.maximum(column, 0.0, out=column)
        column *= -(1.0 / self.X.shape[1] if self.gamma is None else self.gamma)
        return np.exp(column, out=column)

    def mean_squared_norm(self):
        return self.mu_norm2

    def swap_terms(self, count):
        """``<mu, Phi(x_j)>``, ``k(x_j, x_j)`` and ``count <w, Phi(x_j)>``."""
        return self.mean, self.diag, count * self.w_dot

    def squared_distance(self):
        """``||w - mu||^2``, clipped at 0 against rounding."""
        return max(self.w_norm2 - 2.0 * self.w_mu + self.mu_norm2, 0.0)

    def point(self):
        return None


class _FeatureIterate:
    """The iterate ``w`` in an explicit feature space, searched through an LMO."""

    def __init__(self, lmo, p):
        self.lmo = lmo
        # An approximate search can return a vertex that is no descent
        # direction although one exists; its "gap" certifies nothing, so the
        # exact scan then decides (and its cost is counted).
        approximate = lmo.mips is not None and not isinstance(lmo.mips, ExactMIPS)
        self.exact_lmo = ConvexHullLMO().fit(lmo.atoms_) if approximate else None
        self.mu = p @ lmo.atoms_
        self.scale = max(float(row_norms(lmo.atoms_, squared=True).max()), _TINY)
        self.w = np.zeros_like(self.mu)

    def _search(self, lmo):
        # argmin_s <w - mu, s> = argmax_s <mu - w, s> (Alg. 3, sign fixed).
        vertex, i, scored = lmo(self.w - self.mu)
        self.direction = vertex - self.w
        return i, float((self.mu - self.w) @ self.direction), scored

    def select(self, t, tol):
        """Row, gap, ``||Phi(x_i) - w||^2`` and rows scored of the search."""
        i, gap, scored = self._search(self.lmo)
        if t > 0 and gap <= tol * self.scale and self.exact_lmo is not None:
            i, gap, exact_scored = self._search(self.exact_lmo)
            scored += exact_scored
        return i, gap, float(self.direction @ self.direction), scored

    def move(self, i, eta):
        self.w = self.w + eta * self.direction

    def column(self, i):
        """``<Phi(x_j), Phi(x_i)>`` for every row j."""
        atoms = self.lmo.atoms_
        return atoms @ atoms[i]

    def mean_squared_norm(self):
        return float(self.mu @ self.mu)

    def swap_terms(self, count):
        """``<mu, Phi(x_j)>``, ``||Phi(x_j)||^2`` and ``count <w, Phi(x_j)>``."""
        atoms = self.lmo.atoms_
        return atoms @ self.mu, row_norms(atoms, squared=True), atoms @ (count * self.w)

    def squared_distance(self):
        """``||w - mu||^2``."""
        return float((self.w - self.mu) @ (self.w - self.mu))

    def point(self):
        return self.w


# Swap passes of refine='swap' stop when a pass swaps nothing, or after this
# many passes.
MAX_SWAP_PASSES = 10


def swap_refine(iterate, sequence, max_passes=MAX_SWAP_PASSES):
    """Greedy swaps of the selections of an equal-weight subset (refine='swap').

    With :math:`S = (s_1, \\dots, s_m)` the selections (repeats allowed) and
    :math:`m_j = \\langle \\mu, \\Phi(x_j) \\rangle`, the squared MMD of the
    subset is :math:`\\|\\mu\\|^2 - \\frac{2}{m} \\sum_l m_{s_l} +
    \\frac{1}{m^2} \\sum_{l, l'} k(x_{s_l}, x_{s_{l'}})`. Replacing :math:`s_l`
    by row :math:`j` changes it by a function of :math:`j` alone,

    .. math::

        \\Delta_l(j) = -\\frac{2}{m} m_j + \\frac{1}{m^2} \\Big(2
        \\sum_{l' \\ne l} k(x_j, x_{s_{l'}}) + k(x_j, x_j)\\Big) + c_l,

    so each position in turn takes the row of smallest :math:`\\Delta_l`,
    kept only when it is smaller than the current one's: the squared MMD
    never increases. Keeping :math:`K_j = \\sum_{l} k(x_j, x_{s_l})` up to
    date costs two kernel columns per swap, one per position kept.

    Returns the new sequence, the number of swaps made and the squared MMD
    of the refined subset.
    """
    sequence = np.array(sequence, dtype=np.intp)
    m = sequence.shape[0]
    if m == 0:
        # The empty subset embeds at 0: its squared distance to mu.
        return sequence, 0, iterate.mean_squared_norm()
    mean, diag, sums = iterate.swap_terms(m)
    sums = np.array(sums, dtype=np.float64)
    # Delta_l(j) up to c_l, times m^2 / 2: -m m_j + diag_j / 2 + K_j - k(x_j, s_l).
    base = diag / 2.0 - m * mean
    # Rounding of the scores is about eps * m * max k; a swap must gain more.
    tol = 64.0 * np.finfo(np.float64).eps * m * max(float(np.abs(diag).max()), _TINY)
    n_swaps = 0
    for _ in range(max_passes):
        swapped = 0
        for position in range(m):
            current = sequence[position]
            old = iterate.column(current)
            scores = base + sums - old
            best = int(np.argmin(scores))
            if scores[best] < scores[current] - tol:
                sums += iterate.column(best) - old
                sequence[position] = best
                swapped += 1
        n_swaps += swapped
        if swapped == 0:
            break
    squared_mmd = (
        iterate.mean_squared_norm()
        + (sums[sequence].sum() / m - 2.0 * mean[sequence].sum()) / m
    )
    return sequence, n_swaps, max(float(squared_mmd), 0.0)


class KernelHerding:
    """Kernel herding, Frank-Wolfe on the marginal polytope.

    With :math:`\\Phi` the feature map of a kernel and :math:`\\mu = \\sum_i
    p_i \\Phi(x_i)` the weighted mean embedding of the rows (eq. 19 of the
    MaxIP paper), herding minimizes :math:`g(w) = \\frac{1}{2} \\|w -
    \\mu\\|^2` over the convex hull of :math:`\\{\\Phi(x_i)\\}` (Problem E.1)
    with Frank-Wolfe from :math:`w_0 = 0`:

    .. math::

        i_t = \\operatorname{argmax}_i \\langle \\mu - w_t, \\Phi(x_i)
        \\rangle, \\qquad w_{t+1} = (1 - \\eta_t) w_t + \\eta_t
        \\Phi(x_{i_t}).

    The paper's Algorithm 3 prints this search as an argmax of
    :math:`\\langle w_t - \\mu, s \\rangle`, which moves away from
    :math:`\\mu`; the corrected argmin form of eq. 20 and Algorithm 4 is
    used. The search is the kernel trick over the rows (:math:`O(n d)` per
    iteration) or a :class:`~skcgm.oracles.ConvexHullLMO` over explicit
    feature vectors, whose index may be approximate (LSH, Algorithm 4).

    Parameters
    ----------
    kernel : {'rbf', 'linear'}, default='rbf'
        Kernel of the kernel trick; unused with explicit features.
    gamma : float, default=None
        RBF bandwidth; None means ``1 / n_features``.
    learning_rate : {'herding', 'fw', 'line_search'}, default='herding'
        Step size :math:`\\eta_t`: :math:`1/(t+1)` (classic herding, eq.
        20), :math:`2/(t+2)` (Algorithm 3) or the exact minimizer of
        :math:`g` along :math:`\\Phi(x_{i_t}) - w_t`, clipped to [0, 1]. The
        first step is 1 for every rule.
    max_iter : int, default=100
        Number of iterations :math:`T`; 'herding' always runs them all.
    tol : float, default=1e-10
        'fw' and 'line_search' stop once the duality gap :math:`\\langle \\mu
        - w_t, \\Phi(x_{i_t}) - w_t \\rangle` is at most ``tol`` times
        :math:`\\max_i \\|\\Phi(x_i)\\|^2`, and 'line_search' when its step
        is 0. When an approximate search returns such a gap, the exact scan
        decides.
    verbose : int, default=0
        Progress lines of :meth:`solve`: at 1, the time the kernel mean
        embedding took (kernel trick), then the iteration, squared MMD,
        duality gap and elapsed seconds every ``ceil(max_iter / 10)``
        iterations and at the last, and the iteration that stopped the run
        early; at 2 and above, after every iteration.
    refine : {None, 'swap'}, default=None
        'swap' refines the equal-weight subset of 'herding' after the last
        iteration by greedy swap passes (:func:`swap_refine`), at a kernel
        column per position and per swap in every pass; ``n_swaps_`` counts
        the swaps. Other learning rates ignore it.

    Attributes
    ----------
    n_swaps_ : int
        Swaps made by the last :meth:`solve` (0 without refinement).

    See Also
    --------
    frank_wolfe : The generic Frank-Wolfe driver.
    skcgm.sampling.KernelHerdingSampler : The sampler built on it.

    References
    ----------
    Xu, Song, Shrivastava et al., "Breaking the linear iteration cost barrier
    for some well-known conditional gradient methods using MaxIP
    data-structures", NeurIPS 2021 (Appendix E). Chen, Welling and Smola,
    "Super-samples from kernel herding", UAI 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim import KernelHerding
    >>> from skcgm.oracles import ConvexHullLMO
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> result = KernelHerding(max_iter=4, gamma=1.0).solve(X)
    >>> result.index_history, result.weights
    (array([0, 3, 1, 2]), array([0.25, 0.25, 0.25, 0.25]))
    >>> lmo = ConvexHullLMO().fit(X)
    >>> result = KernelHerding(learning_rate="line_search").solve(lmo)
    >>> result.converged, np.round(result.x, 6)
    (True, array([0.5, 0.5]))
    """

    def __init__(
        self,
        *,
        kernel="rbf",
        gamma=None,
        learning_rate="herding",
        max_iter=100,
        tol=1e-10,
        verbose=0,
        refine=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.refine = refine

    def solve(self, problem, sample_weight=None, *, progress=None):
        """Run herding towards the weighted mean embedding.

        Parameters
        ----------
        problem : {ndarray, sparse matrix} of shape (n_samples, n_features) \
                or ConvexHullLMO
            The rows :math:`x_i` (kernel trick with ``kernel`` and
            ``gamma``), or a fitted :class:`~skcgm.oracles.ConvexHullLMO`
            whose atoms are the feature vectors :math:`\\Phi(x_i)`.
        sample_weight : ndarray of shape (n_samples,), default=None
            Weights :math:`p_i` of the mean embedding, summing to 1; None
            means uniform.
        progress : TimedProgress, default=None
            Where the verbose lines go, and the clock of their elapsed time
            (a caller running several solves shares one); None means one
            started now, from ``verbose``.

        Returns
        -------
        result : FrankWolfeResult
            ``active_set`` holds the rows selected with a positive weight, in
            order of first selection, ``weights`` their weights normalized to
            sum 1, ``index_history`` the row of every iteration;
            ``objective_history`` is :math:`g(w_t)` (half the squared MMD),
            ``gap_history`` and ``n_scored`` include the search at the last
            iterate. ``converged`` says whether the gap or a zero step
            stopped the run before ``max_iter``.
        """
        if progress is None:
            progress = TimedProgress(self.verbose, self.max_iter)
        lmo = isinstance(problem, ConvexHullLMO)
        n = problem.n_atoms_ if lmo else problem.shape[0]
        p = np.full(n, 1.0 / n) if sample_weight is None else sample_weight
        if lmo:
            iterate = _FeatureIterate(problem, p)
        else:
            iterate = _KernelTrickIterate(problem, p, self.kernel, self.gamma)
            # The O(n^2 d) embedding is most of a large exact fit: say so
            # before the first iteration line.
            progress.stamped(f"Kernel mean embedding of {n} rows computed")
        weights = _ConvexWeights()
        gaps, objectives, steps, n_scored = (
            [],
            [0.5 * iterate.squared_distance()],
            [],
            [],
        )
        converged = False
        for t in range(self.max_iter + 1):
            index, gap, dist2, scored = iterate.select(t, self.tol)
            gaps.append(gap)
            n_scored.append(scored)
            # The herding recursion runs its T iterations: its selections are
            # the uniformly weighted sample a sampler returns.
            if (
                t > 0
                and gap <= self.tol * iterate.scale
                and self.learning_rate != "herding"
            ):
                converged = True
                break
            if t == self.max_iter:
                break
            eta = _step_size(self.learning_rate, t, gap, dist2)
            if eta == 0.0:
                converged = True
                break
            iterate.move(index, eta)
            weights.update(index, eta)
            steps.append(eta)
            objectives.append(0.5 * iterate.squared_distance())
            if progress.due(t + 1, last=t + 1 == self.max_iter):
                progress.stamped(
                    f"Iteration {t + 1}, squared MMD {2 * objectives[-1]:.6g}, "
                    f"gap {gap:.3g}"
                )
        if converged:
            progress.stamped(
                f"Converged at iteration {len(steps)}, squared MMD "
                f"{2 * objectives[-1]:.6g}, gap {gaps[-1]:.3g}"
            )
        active_set, vertex_weights, sequence = weights.result()
        self.n_swaps_ = 0
        if self.refine == "swap" and self.learning_rate == "herding" and steps:
            sequence, self.n_swaps_, refined = swap_refine(iterate, sequence)
            progress.stamped(
                f"Swap passes: {self.n_swaps_} swaps, squared MMD {refined:.6g}"
            )
            first = np.unique(sequence, return_index=True)[1]
            active_set = sequence[np.sort(first)]
            counts = np.bincount(sequence, minlength=n)[active_set]
            vertex_weights = counts / sequence.shape[0]
        # Line search can zero the weight of earlier vertices.
        keep = vertex_weights > 0
        return FrankWolfeResult(
            x=iterate.point(),
            active_set=active_set[keep],
            weights=vertex_weights[keep] / vertex_weights[keep].sum(),
            x0_weight=weights.x0_weight,
            n_iter=len(steps),
            gap_history=np.asarray(gaps, dtype=np.float64),
            objective_history=np.asarray(objectives, dtype=np.float64),
            step_history=np.asarray(steps, dtype=np.float64),
            n_scored=np.asarray(n_scored, dtype=np.intp),
            converged=converged,
            index_history=sequence,
        )
