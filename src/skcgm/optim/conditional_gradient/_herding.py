"""Kernel herding: Frank-Wolfe on the marginal polytope.

:class:`KernelHerding` runs herding on one set of rows; :class:`GroupHerding`,
the solver of :class:`~skcgm.sampling.KernelHerdingSampler`, runs it inside
every group of rows (the classes of ``per_class``) with the group's budget of
selections, and joins their subsets.
"""

from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.extmath import row_norms, safe_sparse_dot

from ...oracles import LSHMIPS, ConvexHullLMO, ExactMIPS, kernel_mean_embedding
from ...utils._blocks import single_threaded_blas
from ...utils._progress import TimedProgress
from ...utils._random import MAX_SEED
from ._driver import FrankWolfeResult, _ConvexWeights

__all__ = [
    "MAX_SWAP_PASSES",
    "GroupHerding",
    "GroupHerdingResult",
    "HerdingProblem",
    "KernelHerding",
    "apportion",
    "swap_refine",
]

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

    :meth:`solve` is the solvers' contract ``solve(problem, start,
    sample_weight, random_state)`` without ``start``, as herding always
    starts from :math:`w_0 = 0`, and with ``sample_weight`` second, so that
    ``solve(X, p)`` reads as the weighted problem: the rows or their LMO,
    the weights :math:`p_i`, and a random state that a run does not use
    (the search breaks ties by the lowest row; an LSH index drew its
    projections when it was fitted). It returns a
    :class:`~skcgm.optim.FrankWolfeResult`.

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
    GroupHerding : Herding inside groups of rows, the sampler's solver.

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

    Weighted rows, with the contract's arguments by name:

    >>> p = np.array([0.7, 0.1, 0.1, 0.1])
    >>> result = KernelHerding(max_iter=4, gamma=1.0).solve(
    ...     X, sample_weight=p, random_state=0
    ... )
    >>> result.active_set, result.weights
    (array([0, 3]), array([0.75, 0.25]))
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

    def solve(self, problem, sample_weight=None, random_state=None, *, progress=None):
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
        random_state : int, RandomState instance or None, default=None
            Unused: a run is deterministic (the family's contract takes it).
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


def apportion(total, shares, minimum=0):
    """Split ``total`` into integers >= ``minimum`` proportional to ``shares``.

    Largest remainder rounding (Hamilton's method): every share first gets
    the floor of its quota, the units left go to the largest fractional
    parts. Shares whose quota is below ``minimum`` get ``minimum`` and the
    rest is split among the others, so the counts always sum to ``total``
    (which must be at least ``minimum * len(shares)``).

    Examples
    --------
    >>> from skcgm.optim.conditional_gradient._herding import apportion
    >>> apportion(10, [0.5, 0.3, 0.2]), apportion(10, [0.97, 0.01, 0.02], 1)
    (array([5, 3, 2]), array([8, 1, 1]))
    """
    shares = np.asarray(shares, dtype=np.float64)
    fixed = np.zeros(shares.shape, dtype=bool)
    # Every pass fixes at least one more share or ends: at most one pass per
    # share, and a free share is left (their quotas sum to free_total >=
    # minimum times their number, so they cannot all be below minimum).
    for _ in range(shares.shape[0]):
        free_total = total - minimum * fixed.sum()
        quotas = np.where(fixed, minimum, free_total * shares / shares[~fixed].sum())
        below = ~fixed & (quotas < minimum)
        if not below.any():
            break
        fixed |= below
    counts = np.floor(quotas).astype(np.intp)
    remainders = np.where(fixed, -1.0, quotas - counts)
    order = np.argsort(-remainders, kind="stable")
    counts[order[: total - counts.sum()]] += 1
    return counts


def _candidate_budget(n_candidates, n_rows):
    """``n_candidates`` as a count of rows (a float is a fraction of them)."""
    if n_candidates is None or isinstance(n_candidates, Integral):
        return n_candidates
    return max(1, int(np.ceil(n_candidates * n_rows)))


@dataclass
class HerdingProblem:
    """Rows to herd group by group, each group towards its own mean embedding.

    Attributes
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_columns)
        The rows :math:`x_i` in float64, herded through the kernel trick, or
        with ``features`` their explicit feature vectors
        :math:`\\Phi(x_i)`, searched by maximum inner product.
    groups : list of ndarray of int
        The candidate rows of every group, herded separately.
    budgets : ndarray of int of shape (n_groups,)
        The selections of every group: the iterations of its run.
    features : bool, default=False
        Whether ``X`` holds explicit feature vectors.
    labels : list or None, default=None
        The class of every group, named by the verbose lines; None names
        none (one group of all the rows).
    """

    X: object
    groups: list
    budgets: np.ndarray
    features: bool = False
    labels: object = None


@dataclass
class GroupHerdingResult:
    """What :meth:`GroupHerding.solve` returns: the joined subsets of the groups.

    Attributes
    ----------
    sample_indices : ndarray of shape (n_selections,)
        The selected rows, group after group, repeats included: herding's
        selection of every iteration (after the swaps of ``refine``) with
        ``learning_rate='herding'``; otherwise every row of the group's
        support repeated its weight times the group's budget, rounded by
        :func:`apportion`, in order of first selection.
    support : ndarray of shape (n_support,)
        The distinct rows selected with a positive weight, group after
        group, in order of first selection.
    support_weight : ndarray of shape (n_support,)
        Their convex weights: a group's weights scaled by its share of the
        selections.
    objective_history : ndarray of shape (n_iter,)
        The squared MMD :math:`\\|w_{t+1} - \\mu\\|^2` of every iteration,
        the runs of the groups concatenated, each against its own
        :math:`\\mu`.
    n_scored : ndarray of shape (n_iter,)
        Rows scored by the search of every iteration.
    n_swaps : int
        Selections replaced by the swap passes, over the groups.
    """

    sample_indices: np.ndarray
    support: np.ndarray
    support_weight: np.ndarray
    objective_history: np.ndarray = field(repr=False)
    n_scored: np.ndarray = field(repr=False)
    n_swaps: int = 0


class GroupHerding:
    """Kernel herding inside every group of rows, with the group's budget.

    The solver of :class:`~skcgm.sampling.KernelHerdingSampler`: every group
    :math:`G` of a :class:`HerdingProblem` (a class with ``per_class``, all
    the rows otherwise) runs :class:`KernelHerding` for its budget
    :math:`T_G` of iterations towards its own weighted mean embedding
    (eq. 19 of the MaxIP paper, within the group), through the kernel trick
    or a maximum-inner-product search over the explicit features (an exact
    scan or an LSH index, Algorithm 4), and the subsets are joined with the
    weights :math:`a^G_j` of every group scaled by its share of the
    selections:

    .. math::

        \\mu_G = \\frac{\\sum_{i \\in G} p_i \\Phi(x_i)}{\\sum_{i \\in G}
        p_i}, \\qquad
        a_j = \\frac{T_G}{\\sum_{G'} T_{G'}} \\, a^G_j
        \\quad (j \\text{ selected in } G).

    :meth:`solve` is the solvers' contract ``solve(problem, start,
    sample_weight, random_state)`` without ``start`` (herding starts from
    :math:`w_0 = 0`) and with ``sample_weight`` second, as
    :meth:`KernelHerding.solve`; ``random_state`` seeds the LSH indexes. It
    returns a :class:`GroupHerdingResult`.

    Parameters
    ----------
    kernel : {'rbf', 'linear'}, default='rbf'
        Kernel of the kernel trick; unused with explicit features.
    gamma : float, default=None
        RBF bandwidth; None means ``1 / n_features``.
    learning_rate : {'herding', 'fw', 'line_search'}, default='herding'
        The step size of every run (see :class:`KernelHerding`).
    refine : {None, 'swap'}, default=None
        The swap passes of every run (see :class:`KernelHerding`).
    maxip : {'exact', 'lsh'}, default='exact'
        Search over explicit features: an exact scan or an
        :class:`~skcgm.oracles.LSHMIPS` index per group.
    n_tables, n_bits, n_probes : int, default=16, 8, 0
        The LSH index's tables, sign projections per table and extra buckets
        probed per table.
    n_candidates : int, float or None, default=None
        Largest number of LSH candidates scored exactly per iteration; a
        float in (0, 1] is a fraction of the group's rows. None scores every
        candidate.
    verbose : int, default=0
        Progress lines: the class and the LSH index of every group, then
        those of :meth:`KernelHerding.solve`.

    See Also
    --------
    KernelHerding : One run of herding.
    skcgm.sampling.KernelHerdingSampler : The sampler built on it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.conditional_gradient._herding import (
    ...     GroupHerding,
    ...     HerdingProblem,
    ... )
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> problem = HerdingProblem(X, [np.array([0, 1]), np.array([2, 3])], [2, 1])
    >>> result = GroupHerding(gamma=1.0).solve(problem, np.ones(4) / 4, 0)
    >>> result.sample_indices, result.support_weight
    (array([0, 1, 2]), array([0.33333333, 0.33333333, 0.33333333]))
    """

    def __init__(
        self,
        *,
        kernel="rbf",
        gamma=None,
        learning_rate="herding",
        refine=None,
        maxip="exact",
        n_tables=16,
        n_bits=8,
        n_probes=0,
        n_candidates=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.learning_rate = learning_rate
        self.refine = refine
        self.maxip = maxip
        self.n_tables = n_tables
        self.n_bits = n_bits
        self.n_probes = n_probes
        self.n_candidates = n_candidates
        self.verbose = verbose

    def _search(self, F, rng):
        """The LMO over the feature vectors F, exact or through LSH."""
        if self.maxip == "exact":
            return ConvexHullLMO(ExactMIPS()).fit(F)
        mips = LSHMIPS(
            n_tables=self.n_tables,
            n_bits=self.n_bits,
            n_probes=self.n_probes,
            n_candidates=_candidate_budget(self.n_candidates, F.shape[0]),
            random_state=rng.randint(MAX_SEED),
        )
        return ConvexHullLMO(mips).fit(F)

    def _run(self, problem, group, budget, sample_weight, rng, progress):
        """Herding on one group: the :class:`KernelHerding` run and its swaps."""
        herding = KernelHerding(
            kernel=self.kernel,
            gamma=self.gamma,
            learning_rate=self.learning_rate,
            max_iter=budget,
            verbose=self.verbose,
            refine=self.refine,
        )
        if problem.features:
            points = self._search(problem.X[group], rng)
        else:
            points = problem.X[group]
        if self.maxip == "lsh":
            progress.stamped(f"LSH index of {group.size} rows built")
        # One clock for the whole solve; the period follows this run.
        run_progress = TimedProgress(self.verbose, budget, start=progress.start)
        mass = sample_weight[group].sum()
        result = herding.solve(
            points, sample_weight[group] / mass, progress=run_progress
        )
        return result, herding.n_swaps_

    def solve(self, problem, sample_weight, random_state=None, *, progress=None):
        """Herd every group of ``problem`` and join the subsets.

        Parameters
        ----------
        problem : HerdingProblem
            The rows or their features, the groups and their budgets.
        sample_weight : ndarray of shape (n_samples,)
            Positive weights :math:`p_i` of the candidate rows, normalized
            within every group.
        random_state : int, RandomState instance or None, default=None
            Seeds the LSH index of every group, in the order of the groups.
        progress : TimedProgress, default=None
            Where the verbose lines go, and the clock of their elapsed time
            (shared by the runs of the groups); None means one started now.

        Returns
        -------
        result : GroupHerdingResult
            The joined subsets, the squared MMD and rows scored of every
            iteration, and the swaps made.
        """
        n_selections = int(np.sum(problem.budgets))
        if progress is None:
            progress = TimedProgress(self.verbose, n_selections)
        rng = check_random_state(random_state)
        labels = problem.labels
        support, support_weight, selections, history, n_scored = [], [], [], [], []
        n_swaps = 0
        # Herding is a loop of small BLAS calls (blocks of kernel rows, one
        # kernel column or matrix-vector product per iteration): BLAS threads
        # cost more than they gain there (fits 2x to 10x faster on 2 busy
        # cores, n = 5000 to 20000).
        with single_threaded_blas():
            for i, (group, budget) in enumerate(zip(problem.groups, problem.budgets)):
                if labels is not None:
                    progress.stamped(
                        f"Class {labels[i]}: {budget} selections among "
                        f"{group.size} rows"
                    )
                result, swaps = self._run(
                    problem, group, budget, sample_weight, rng, progress
                )
                n_swaps += swaps
                support.append(group[result.active_set])
                support_weight.append(result.weights * budget / n_selections)
                if self.learning_rate == "herding":
                    selections.append(group[result.index_history])
                else:
                    counts = apportion(budget, result.weights)
                    selections.append(np.repeat(group[result.active_set], counts))
                # 2 g(w_t) = ||w_t - mu||^2, the squared MMD.
                history.extend(2.0 * result.objective_history[1:])
                n_scored.extend(result.n_scored[: result.n_iter])
        support_weight = np.concatenate(support_weight)
        return GroupHerdingResult(
            sample_indices=np.concatenate(selections).astype(np.intp),
            support=np.concatenate(support).astype(np.intp),
            support_weight=support_weight / support_weight.sum(),
            objective_history=np.asarray(history, dtype=np.float64),
            n_scored=np.asarray(n_scored, dtype=np.intp),
            n_swaps=n_swaps,
        )
