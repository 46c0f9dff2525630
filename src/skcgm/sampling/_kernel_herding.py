"""Kernel herding as Frank-Wolfe on the marginal polytope."""

import time
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.utils import assert_all_finite, check_random_state
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
)

from ..optim.conditional_gradient._herding import (
    GroupHerding,
    HerdingProblem,
    apportion,
)
from ..oracles import squared_mmd
from ..utils._progress import TimedProgress
from ..utils._random import MAX_SEED
from ..utils._sklearn_compat import (
    Interval,
    RealNotInt,
    RequestMethod,
    StrOptions,
    _fit_context,
    validate_data,
)
from ..utils._validation import check_sample_weight, check_square_range
from ._base import _SamplerMixin, _take_rows

__all__ = ["KernelHerdingSampler"]

# Thresholds of feature_map='auto' and maxip='auto', measured single
# threaded by the herding defaults panel
# (skcgm.experiments.DEFAULTS_PANELS["herding"], issue 18 D). The kernel
# trick's mean embedding costs O(n^2 d) plus an exponential per pair: its fit
# took about 3.8e-10 * n^2 (d + 16) seconds (within a factor of 2 for d = 2,
# 20, 64 and n = 1e4 to 3e4). Up to EXACT_MAX_COST of n^2 (d + 16), about 4 s,
# it is kept, for a squared MMD 1.5 to 2.9 times smaller than that of 256
# random features; beyond, the features fitted 7 to 40 times faster.
EXACT_MAX_COST = 1e10
EXACT_COST_OFFSET = 16
# Over 100 iterations (the default n_samples) the LSH index saved at most
# 0.3 s (0.9 to 1.4 times the speed of the exact scan of the features, 1e4 to
# 2e5 rows). From 300 iterations over 30,000 rows on it fitted 1.4 to 2.6
# times faster, with a squared MMD 0.4 to 1.5 times the exact scan's.
LSH_MIN_ROWS = 30_000
LSH_MIN_ITER = 300
# Threshold of refine='auto', measured by the herding defaults panel
# (skcgm.experiments.DEFAULTS_PANELS["herding"], part 'refine', issue 38) on eight data
# families. A swap pass reads a kernel column per selection and per swap, m n entries or
# more, beside the n^2 of the kernel trick's mean embedding, and passes repeat until one
# swaps nothing (at most 10): up to one selection in 32 rows the passes took a median 5%
# of the fit and at most a third (fits of hundredths of a second on 1,024 rows; a fifth
# from 4,096 rows on); at one in 16, up to half.
REFINE_MAX_FRACTION = 1 / 32


def _scale_gamma(X):
    """SVC's ``gamma='scale'``: ``1 / (n_features * X.var())``, 1 if X.var() is 0.

    The variance of all the entries of ``X``, computed for sparse ``X`` as
    :class:`~sklearn.svm.SVC` does, from the means of the entries and of
    their squares (the implicit zeros included).
    """
    # An overflow is handled below, not warned about.
    with np.errstate(over="ignore", invalid="ignore"):
        if sp.issparse(X):
            var = X.multiply(X).mean() - X.mean() ** 2
        else:
            var = X.var()
    if not np.isfinite(var):
        # Squares in range can still sum to inf over many rows: the variance
        # of X / max|X| does not, and gamma scales by max|X|**-2.
        largest = abs(X).max()
        scaled = X / largest
        var = (
            scaled.multiply(scaled).mean() - scaled.mean() ** 2
            if sp.issparse(X)
            else scaled.var()
        )
        return 1.0 / (X.shape[1] * var) / largest / largest if var > 0 else 1.0
    # var > 0 rather than SVC's != 0: the sparse formula can round a zero
    # variance to a tiny negative number, whose gamma would be negative.
    return 1.0 / (X.shape[1] * var) if var > 0 else 1.0


def _resolve_search(feature_map, maxip, kernel, cost, n_rows, n_iter, sparse):
    """``feature_map`` and ``maxip``, 'auto' resolved (see the Notes).

    ``cost`` is the work of the kernel trick, ``n_rows`` and ``n_iter``
    the candidates and iterations of the largest search, ``sparse`` whether
    X is sparse.
    """
    if feature_map == "auto":
        if maxip == "lsh":
            # LSH needs explicit features, whatever the size.
            feature_map = "rff" if kernel == "rbf" else "identity"
        elif cost <= EXACT_MAX_COST or (sparse and kernel == "linear"):
            # 'identity' would densify X.
            feature_map = "exact"
        else:
            feature_map = "rff" if kernel == "rbf" else "identity"
    if maxip == "auto":
        large = n_rows >= LSH_MIN_ROWS and n_iter >= LSH_MIN_ITER
        maxip = "lsh" if feature_map != "exact" and large else "exact"
    return feature_map, maxip


def _resolve_refine(refine, learning_rate, feature_map, sizes, budgets):
    """``refine``, 'auto' resolved (see the Notes).

    ``sizes`` and ``budgets`` are the candidate rows and the selections of
    every class (one class without ``per_class``).
    """
    if refine != "auto":
        return refine
    # The swaps keep equal weights, and are cheap only beside the O(n^2 d)
    # mean embedding of the kernel trick: with explicit features a pass
    # costs as much as all of herding's iterations.
    if learning_rate != "herding" or feature_map != "exact":
        return None
    pass_work = sum(int(m) * int(n) for m, n in zip(budgets, sizes))
    embedding_work = sum(int(n) ** 2 for n in sizes)
    return "swap" if pass_work <= REFINE_MAX_FRACTION * embedding_work else None


def _check_combinations(feature_map, maxip, kernel):
    """Refuse the settings of ``feature_map`` and ``maxip`` that cannot work."""
    if maxip == "lsh" and feature_map == "exact":
        raise ValueError(
            "maxip='lsh' needs explicit features: set feature_map to 'rff', "
            "'nystroem' or 'identity' (got feature_map='exact')."
        )
    if feature_map == "rff" and kernel != "rbf":
        raise ValueError(
            "feature_map='rff' approximates the RBF kernel; it needs "
            f"kernel='rbf', got kernel={kernel!r}."
        )
    if feature_map == "identity" and kernel != "linear":
        raise ValueError(
            "feature_map='identity' is the linear kernel; it needs "
            f"kernel='linear', got kernel={kernel!r}."
        )


def _class_labels(y, name):
    """The class of every row, from a classification target ``y``."""
    if y is None:
        raise ValueError(
            f"{name} requires y to be passed, but the target "
            "y is None: per_class=True herds each class of y separately."
        )
    y = y.toarray() if sp.issparse(y) else np.asarray(y)
    y_type = type_of_target(y, input_name="y")
    if y_type in ("binary", "multiclass"):
        # scikit-learn's DataConversionWarning for a column vector.
        return column_or_1d(y, warn=True)
    if y_type == "multilabel-indicator" and np.all(y.sum(axis=1) == 1):
        # One-hot rows, as imbalanced-learn accepts them.
        return y.argmax(axis=1)
    if y_type in ("multilabel-indicator", "multiclass-multioutput"):
        raise ValueError(
            "Multilabel and multioutput targets are not supported with "
            f"per_class=True: every row needs one class (got a {y_type} y)."
        )
    raise ValueError(
        f"Unknown label type: {y_type!r}. per_class=True herds each class "
        "of y separately and needs a binary or multiclass y, or its "
        "one-hot encoding."
    )


def _check_y(X, y, per_class, name):
    """Check ``y`` against ``X``; the class of every row with ``per_class``."""
    if y is not None:
        check_consistent_length(X, y)
        # "Input y contains NaN." on both paths, as imbalanced-learn's
        # samplers say it; before type_of_target, whose NaN test casts NaN
        # to int.
        assert_all_finite(y.data if sp.issparse(y) else np.asarray(y), input_name="y")
    return _class_labels(y, name) if per_class else None


def _candidate_groups(labels, sample_weight):
    """The classes and their candidate rows, those of positive weight.

    Without ``labels``, one group of all the rows, of class None. Classes
    without a candidate are dropped.
    """
    if labels is None:
        classes, groups = [None], [np.arange(sample_weight.shape[0])]
    else:
        classes = np.unique(labels)
        if classes.size < 2:
            raise ValueError(
                "per_class=True needs y with at least 2 classes; got "
                f"{classes.size} class."
            )
        groups = [np.flatnonzero(labels == label) for label in classes]
    groups = [g[sample_weight[g] > 0] for g in groups]
    keep = [g.size > 0 for g in groups]
    classes = [label for label, kept in zip(classes, keep) if kept]
    groups = [g for g, kept in zip(groups, keep) if kept]
    return classes, groups


def _resolve_gamma(gamma, X):
    """The RBF bandwidth of ``gamma``: 'scale', 'auto' or a number."""
    if gamma == "scale":
        return _scale_gamma(X)
    if gamma == "auto":
        return 1.0 / X.shape[1]
    return float(gamma)


class KernelHerdingSampler(_SamplerMixin, OneToOneFeatureMixin, BaseEstimator):
    """Kernel herding: a subset of rows whose kernel mean matches the data's.

    Kernel herding is Frank-Wolfe on the marginal polytope (Problem E.1 of the
    MaxIP paper): with :math:`\\Phi` the feature map of the kernel and
    :math:`\\mu = \\sum_i p_i \\Phi(x_i) / \\sum_i p_i` the (sample-weighted)
    mean embedding of the rows of ``X`` (eq. 19), it minimizes

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

    the Frank-Wolfe linear minimization oracle. The paper's Algorithm 3
    prints this search as an argmax of :math:`\\langle w_t - \\mu, s
    \\rangle`, which moves away from :math:`\\mu`; skcgm follows the
    corrected form above, an argmin of :math:`\\langle w_t - \\mu, s
    \\rangle`, as in eq. 20 and Algorithm 4. With :math:`\\eta_t = 1/(t+1)`
    this is the classic herding recursion (eq. 20): after :math:`T`
    iterations the weight of a row is the number of times it was selected
    divided by :math:`T`.

    With ``feature_map='exact'`` the kernel trick scores every row in
    :math:`O(n d)` per iteration: :math:`\\langle \\mu, \\Phi(x_i) \\rangle` is
    precomputed once in :math:`O(n^2 d)` in blocks of bounded memory, and
    :math:`\\langle w_t, \\Phi(x_i) \\rangle` is updated with the kernel
    column of the newly selected row; no :math:`n \\times n` matrix is
    stored. With explicit features ('rff', 'nystroem', 'identity') the
    search is a maximum-inner-product query over :math:`\\Phi(X)`, exact or
    through an LSH index (Algorithm 4), which scores fewer rows.

    As a sampler, :meth:`fit_resample` returns exactly ``n_samples`` rows
    (repeats included), ``X[sample_indices_]`` as imbalanced-learn's samplers
    do, and is usable in an imbalanced-learn
    :class:`~imblearn.pipeline.Pipeline` (a scikit-learn ``Pipeline`` does not
    accept samplers); imbalanced-learn is not needed otherwise.

    Parameters
    ----------
    n_samples : int, default=100
        Number of rows :meth:`fit_resample` returns, repeats included, and
        of herding iterations :math:`T` (at most, for 'fw' and
        'line_search', which may stop early). It may exceed the number of
        rows of ``X`` of positive weight: rows are then selected several
        times, with a ``UserWarning`` naming both numbers.
        ``support_`` holds each selected row once.

    kernel : {'rbf', 'linear'}, default='rbf'
        The kernel :math:`k(x, y) = \\exp(-\\gamma \\|x - y\\|^2)` or
        :math:`\\langle x, y \\rangle`.

    gamma : {'scale', 'auto'} or float, default='scale'
        RBF bandwidth, with :class:`~sklearn.svm.SVC`'s options: 'scale'
        means ``1 / (n_features * X.var())`` (the variance of all the
        entries of ``X``, sample weights ignored; 1 when it is 0), 'auto'
        means ``1 / n_features``. Unused by 'linear'. The resolved value is
        ``gamma_``.

    feature_map : {'auto', 'exact', 'rff', 'nystroem', 'identity'}, \
            default='auto'
        How :math:`\\Phi` is evaluated: 'exact' uses the kernel trick; 'rff'
        random Fourier features (:class:`~sklearn.kernel_approximation.RBFSampler`,
        RBF kernel only); 'nystroem' the Nystroem approximation
        (:class:`~sklearn.kernel_approximation.Nystroem`); 'identity' uses
        ``X`` itself (linear kernel only; sparse ``X`` is densified). 'auto'
        is 'exact' while the kernel trick's cost, which grows as
        :math:`n^2 (d + 16)`, stays under ``EXACT_MAX_COST`` (up to about
        23,000 candidate rows for 2 features, 16,000 for 20, 11,000 for 64),
        where it gives a smaller squared MMD than random features, and
        explicit features beyond ('rff' for
        'rbf', 'identity' for a dense ``X`` and 'linear'), and explicit
        features whenever ``maxip='lsh'``; see Notes for the rule. The
        resolved value is ``feature_map_name_``.

    n_components : int, default=256
        Feature dimension of 'rff' and 'nystroem' (clipped to the number of
        rows for 'nystroem').

    maxip : {'auto', 'exact', 'lsh'}, default='auto'
        Maximum-inner-product search of the selection step: an exact scan or
        :class:`~skcgm.oracles.LSHMIPS` (needs explicit features, i.e.
        ``feature_map`` other than 'exact'). When the index returns a vertex
        that is no descent direction, that iteration falls back to the exact
        scan, whose cost is counted in ``n_scored_``. 'auto' is 'lsh' with
        explicit features from ``LSH_MIN_ROWS`` (30,000) candidate rows and
        ``LSH_MIN_ITER`` (300) iterations on, 'exact' otherwise (so the
        defaults never build an index); see Notes. The resolved value is
        ``maxip_``.

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

    learning_rate : {'herding', 'fw', 'line_search'}, default='herding'
        Step size :math:`\\eta_t`: 'herding' is :math:`1/(t+1)` (uniform
        weights over the selections), 'fw' is :math:`2/(t+2)` (Algorithm 3),
        'line_search' the exact minimizer of :math:`g` along
        :math:`\\Phi(x_{i_t}) - w_t`, clipped to [0, 1]. The first step is 1
        for every rule, so the first row selected maximizes
        :math:`\\langle \\mu, \\Phi(x_i) \\rangle`. 'herding' always runs
        ``n_samples`` iterations; 'fw' and 'line_search' stop early when the
        Frank-Wolfe duality gap :math:`\\langle \\mu - w_t, \\Phi(x_{i_t}) -
        w_t \\rangle` falls below :math:`10^{-10} \\max_i \\|\\Phi(x_i)\\|^2`
        (the subset then matches :math:`\\mu` up to rounding), and
        'line_search' when its step is 0.

    per_class : bool, default=False
        If True, herd inside every class of ``y`` (which is then required and
        must be a binary or multiclass target, or its one-hot encoding), with
        a budget of selections proportional to the class's total sample
        weight: largest remainder rounding, at least one selection per class,
        the budgets summing to ``n_samples``. A class's weights are scaled by
        its share of the selections, so class proportions are kept up to
        the rounding to whole rows.

    refine : {'auto', 'swap'} or None, default='auto'
        None returns herding's selections as the paper's recursion (eq. 20)
        makes them. 'swap' then refines them, as kernel thinning's
        ``kt.refine`` does: each of the ``n_samples`` selections in turn is
        replaced by the row that most lowers the squared MMD of the
        equal-weight subset to :math:`\\mu`, if any lowers it; with
        :math:`s_1, \\dots, s_m` the selections and :math:`m_j = \\langle
        \\mu, \\Phi(x_j) \\rangle`, position :math:`l` takes

        .. math::

            j^\\star = \\operatorname{argmin}_j \\Big( -\\frac{2}{m} m_j +
            \\frac{1}{m^2} \\Big( 2 \\sum_{l' \\ne l} k(x_j, x_{s_{l'}})
            + k(x_j, x_j) \\Big) \\Big).

        Passes repeat until one swaps nothing (at most 10); the squared MMD
        never increases. A pass reads one kernel column per selection and
        one per swap, :math:`O(n m d)`: a small share of a fit by the kernel
        trick, whose mean embedding costs :math:`O(n^2 d)`, but as much as
        all of herding's iterations with explicit features. Needs
        ``learning_rate='herding'`` (uniform weights). 'auto' is 'swap'
        with ``learning_rate='herding'``, the kernel trick (``feature_map``
        'exact', given or resolved) and ``n_samples`` at most
        ``REFINE_MAX_FRACTION`` (1/32) of the candidate rows, None otherwise
        (without an error for the other learning rates); see Notes. On the
        defaults panel of the :ref:`User Guide <herding_defaults>` (eight
        data families, 1,024 to 65,536 rows), where 'auto' swaps the passes
        are a small share of the fit, which the kernel mean embedding
        dominates, for a squared MMD 0.02 to 0.23 times herding's on the 2-D
        mixture and the swiss roll, 0.18 to 0.83 on the 10-D mixture, the
        uniform cube, Student t rows and the digits, 0.87 to 0.99 on the
        50-D mixture; with more selections (from one in 16 rows), or with
        explicit features, they can take most of the fit, and 'auto' leaves
        them out. None is the paper's recursion, whose
        ``objective_history_`` describes the returned subset. The resolved
        value is ``refine_``.

    random_state : int, RandomState instance or None, default=None
        Seeds the random features ('rff', 'nystroem') and the LSH
        projections. Exact herding with ``feature_map='exact'`` or
        'identity' is deterministic (ties go to the lowest row index).

    verbose : int, default=0
        Progress lines, each with the seconds elapsed since the fit began:
        at 1, the resolved settings, the time the features, the index or the
        kernel mean embedding took, then the iteration, squared MMD and
        duality gap every ``ceil(n_samples / 10)`` iterations (of a class's
        budget with ``per_class``) and at the last, and the iteration that
        stopped 'fw' or 'line_search' early; at 2 and above, a line per
        iteration.

    Attributes
    ----------
    sample_indices_ : ndarray of shape (`n_samples`,)
        The rows :meth:`fit_resample` returns, in order, repeats included:
        its ``X_resampled`` is ``X[sample_indices_]`` and its ``y_resampled``
        ``y[sample_indices_]``, imbalanced-learn's convention (class after
        class with ``per_class``, in the order of ``np.unique(y)``). With
        ``learning_rate='herding'`` it is the row selected at every
        iteration (after the swaps of ``refine``): its uniform empirical
        measure *is* the weighted subset (``support_``,
        ``support_weight_``). The weights of 'fw' and 'line_search' are not
        multiples of :math:`1/T`; every row of ``support_`` is then
        repeated ``n_samples * support_weight_`` times rounded up or down
        (largest remainder, inside every class with ``per_class``), in
        order of first selection, and the exact weighted subset is
        (``support_``, ``support_weight_``).

    support_ : ndarray of shape (n_support,)
        The distinct selected rows, in order of first selection (class after
        class with ``per_class``). Rows left with a zero weight (possible
        with 'line_search') are dropped.

    support_weight_ : ndarray of shape (n_support,)
        Convex weights of ``support_``: positive, summing to 1; a row
        selected several times gets the sum of its weights. :meth:`score`
        measures this weighted subset; pass the weights to a model that
        accepts ``sample_weight`` to use it.

    sampling_strategy_ : dict
        With ``per_class=True`` only: the number of rows returned for every
        class with a positive total weight, as imbalanced-learn's samplers
        report it.

    n_iter_ : int
        Number of herding iterations run (summed over the classes with
        ``per_class``).

    objective_history_ : ndarray of shape (`n_iter_`,)
        The objective of herding, the squared MMD
        :math:`\\|w_{t+1} - \\mu\\|^2`, after every iteration (named as
        the objective histories of the other estimators),
        computed exactly in the feature space used (the kernel's for
        'exact'). With ``per_class`` the runs of the classes are
        concatenated in the order of ``np.unique(y)``, each measured against
        its own class. The swap passes of ``refine`` come after the
        iterations: it is the squared MMD of the subset returned when
        ``refine_`` is None, of herding's selections before the swaps
        otherwise.

    n_scored_ : ndarray of shape (`n_iter_`,)
        Rows scored by the selection step at every iteration (all candidate
        rows for an exact search, fewer with LSH).

    n_swaps_ : int
        Selections replaced by the swap passes (0 when ``refine_`` is
        None). The refinement happens after the iterations:
        ``objective_history_`` stays herding's, :meth:`score` measures the
        refined subset.

    refine_ : {None, 'swap'}
        The refinement used: ``refine``, or what 'auto' resolved to.

    feature_map_ : RBFSampler, Nystroem or None
        The fitted explicit feature map (None for 'exact' and 'identity').

    feature_map_name_ : {'exact', 'rff', 'nystroem', 'identity'}
        The feature map used: ``feature_map``, or what 'auto' resolved to.

    maxip_ : {'exact', 'lsh'}
        The search used: ``maxip``, or what 'auto' resolved to.

    gamma_ : float
        The RBF bandwidth used: ``gamma``, or what 'scale' or 'auto'
        resolved to (computed with the linear kernel too, which ignores it).

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    skcgm.optim.KernelHerding : The herding solver.
    skcgm.oracles.squared_mmd : The squared MMD of a weighted subset.
    skcgm.oracles.LSHMIPS : The LSH index used with ``maxip='lsh'``.

    Notes
    -----
    Only rows with a positive sample weight are candidates.

    **The 'auto' settings.** The kernel trick costs :math:`O(n^2 d)` for the
    mean embedding and :math:`O(n d)` per iteration; random Fourier features
    with :math:`D` = ``n_components`` cost :math:`O(n d D)` once and
    :math:`O(n D)` per iteration, at the price of a larger squared MMD in
    the exact kernel (1.5 to 2.9 times the kernel trick's at the default
    :math:`D = 256` on the measured Gaussian mixtures); an LSH index costs
    about as much to build as it saves over 100 iterations. With
    :math:`n_c` the number of candidate rows of class :math:`c` and
    :math:`T_c` its iterations (one class without ``per_class``; the
    largest :math:`n_c` and :math:`T_c` decide ``maxip``),

    .. math::

        \\texttt{feature\\_map} = \\begin{cases}
        \\text{'exact'} & \\sum_c n_c^2 \\, (d + 16) \\le
        \\texttt{EXACT\\_MAX\\_COST} = 10^{10} \\\\
        \\text{'rff' ('rbf') or 'identity' ('linear')} & \\text{otherwise,}
        \\end{cases}

        \\texttt{maxip} = \\begin{cases}
        \\text{'lsh'} & \\text{explicit features}, n_c \\ge
        \\texttt{LSH\\_MIN\\_ROWS}, T_c \\ge \\texttt{LSH\\_MIN\\_ITER} \\\\
        \\text{'exact'} & \\text{otherwise,}
        \\end{cases}

    with :math:`d` the number of features (the mean number of stored
    entries per row for a sparse ``X``), except that a sparse ``X`` with the
    linear kernel stays 'exact' (the identity would densify it), and

    .. math::

        \\texttt{refine} = \\begin{cases}
        \\text{'swap'} & \\texttt{learning\\_rate} = \\text{'herding'},
        \\texttt{feature\\_map} = \\text{'exact'},
        \\sum_c T_c n_c \\le \\sum_c n_c^2 / 32 \\\\
        \\text{None} & \\text{otherwise,}
        \\end{cases}

    with :math:`1/32` = ``REFINE_MAX_FRACTION``: a swap pass reads
    :math:`T_c` kernel columns of :math:`n_c` entries or more, the mean
    embedding :math:`n_c^2` entries. The thresholds are module constants of
    ``skcgm.sampling._kernel_herding``, measured single threaded on the
    defaults panel of the :ref:`User Guide <herding_defaults>`, which gives
    the timings. On Gaussian mixtures the kernel trick's fit time grows as
    :math:`n^2 (d + 16)`, and ``EXACT_MAX_COST`` keeps it to a few seconds;
    there its squared MMD was 1.5 to 2.9 times smaller than that of 256
    random features, which fit much faster beyond the budget. Over the
    default 100 iterations the LSH index saved little up to 200,000 rows;
    from 300 iterations over 30,000 rows on it fitted faster than the exact
    scan of the same features. On the eight data families of
    the refine panel, the swap passes took at most a third of the fit up to
    one selection in 32 rows (a median 5%), and up to half of it at one in
    16. Set ``feature_map``, ``maxip`` and ``refine`` to fix the search.

    :meth:`score` is minus the squared MMD in the sampler's own kernel,
    so larger is better, as scorers expect. The MMDs of different kernels
    are not on one scale (a wider kernel always gives a smaller one), so
    the score compares settings that share the kernel (``n_samples``,
    ``learning_rate``, ``feature_map``, ``maxip`` and the LSH parameters), not
    values of ``gamma``.

    With metadata routing enabled, an imbalanced-learn ``Pipeline`` passes
    ``sample_weight`` to :meth:`fit_resample` once requested with
    ``set_fit_resample_request(sample_weight=True)``; the returned rows then
    represent the weighted data, and need no weights downstream.

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
    >>> sampler = KernelHerdingSampler(n_samples=10, gamma=0.5)
    >>> X_small, y_small = sampler.fit_resample(X)
    >>> X_small.shape, y_small, bool(np.all(X_small == X[sampler.sample_indices_]))
    ((10, 2), None, True)
    >>> sampler.support_.shape, float(sampler.support_weight_.sum())
    ((10,), 1.0)
    >>> sampler.feature_map_name_, sampler.maxip_, sampler.refine_
    ('exact', 'exact', None)
    >>> bool(sampler.objective_history_[-1] < sampler.objective_history_[0])
    True

    Herding per class keeps the class proportions, 3:1 here:

    >>> y = np.repeat([0, 1], [150, 50])
    >>> X_small, y_small = KernelHerdingSampler(20, per_class=True).fit_resample(X, y)
    >>> np.bincount(y_small)
    array([15,  5])

    With at most one selection in 32 rows, here 6 of 200, ``refine='auto'``
    swaps: a lower squared MMD than the paper's recursion (``refine=None``)
    for the same number of rows.

    >>> refined = KernelHerdingSampler(n_samples=6, gamma=0.5).fit(X)
    >>> plain = KernelHerdingSampler(n_samples=6, gamma=0.5, refine=None).fit(X)
    >>> refined.refine_, refined.n_swaps_ > 0, bool(refined.score(X) > plain.score(X))
    ('swap', True, True)
    """

    _parameter_constraints = {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "kernel": [StrOptions({"rbf", "linear"})],
        "gamma": [
            StrOptions({"scale", "auto"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "feature_map": [StrOptions({"auto", "exact", "rff", "nystroem", "identity"})],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "maxip": [StrOptions({"auto", "exact", "lsh"})],
        "n_tables": [Interval(Integral, 1, None, closed="left")],
        "n_bits": [Interval(Integral, 0, 62, closed="both")],
        "n_probes": [Interval(Integral, 0, None, closed="left")],
        "n_candidates": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            None,
        ],
        "learning_rate": [StrOptions({"herding", "fw", "line_search"})],
        "per_class": ["boolean"],
        "refine": [StrOptions({"auto", "swap"}), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    # Declared here rather than generated: scikit-learn generates
    # set_{method}_request only for the methods known when the class is
    # created, and imbalanced-learn registers fit_resample when imported.
    set_fit_resample_request = RequestMethod("fit_resample", ["sample_weight"])

    def __init__(
        self,
        n_samples=100,
        *,
        kernel="rbf",
        gamma="scale",
        feature_map="auto",
        n_components=256,
        maxip="auto",
        n_tables=16,
        n_bits=8,
        n_probes=0,
        n_candidates=None,
        learning_rate="herding",
        per_class=False,
        refine="auto",
        random_state=None,
        verbose=0,
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
        self.learning_rate = learning_rate
        self.per_class = per_class
        self.refine = refine
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = self.per_class
        return tags

    def _features(self, X):
        """Explicit features of X (float64, dense)."""
        if self.feature_map_name_ == "identity":
            X = X.toarray() if sp.issparse(X) else X
            return np.asarray(X, dtype=np.float64)
        if self.feature_map_name_ == "nystroem":
            scale = self._nystroem_scale
            features = self.feature_map_.transform(X / scale) * scale
            return np.asarray(features, dtype=np.float64)
        return np.asarray(self.feature_map_.transform(X), dtype=np.float64)

    def _check_params_vs_input(self, X, groups, sample_weight):
        """Check the parameters against each other and the data; resolve 'auto'.

        Sets ``feature_map_name_``, ``maxip_`` and ``refine_`` from the
        candidate ``groups`` of rows (see the Notes), and warns when
        ``n_samples`` exceeds the candidates.

        Returns
        -------
        budgets : ndarray of int of shape (n_groups,)
            The selections of every group, proportional to its weight, at
            least one each, summing to ``n_samples``.
        """
        if self.refine == "swap" and self.learning_rate != "herding":
            raise ValueError(
                f"refine={self.refine!r} swaps selections of equal weight: it "
                "needs learning_rate='herding', got "
                f"learning_rate={self.learning_rate!r}."
            )
        if self.feature_map != "auto" and self.maxip != "auto":
            # Refuse a bad pair before the data decide anything.
            _check_combinations(self.feature_map, self.maxip, self.kernel)
        if self.n_samples < len(groups):
            raise ValueError(
                "per_class=True selects at least one row per class: n_samples="
                f"{self.n_samples} must be at least the number of classes with "
                f"a positive weight, {len(groups)}."
            )
        masses = np.array([sample_weight[g].sum() for g in groups])
        budgets = apportion(self.n_samples, masses, minimum=1)
        # The kernel trick reads every stored entry of a row: nnz / n of them
        # for sparse X.
        width = X.nnz / X.shape[0] if sp.issparse(X) else X.shape[1]
        cost = sum(g.size**2 for g in groups) * (width + EXACT_COST_OFFSET)
        self.feature_map_name_, self.maxip_ = _resolve_search(
            self.feature_map,
            self.maxip,
            self.kernel,
            cost,
            max(g.size for g in groups),
            max(budgets),
            sp.issparse(X),
        )
        _check_combinations(self.feature_map_name_, self.maxip_, self.kernel)
        self.refine_ = _resolve_refine(
            self.refine,
            self.learning_rate,
            self.feature_map_name_,
            [g.size for g in groups],
            budgets,
        )
        n_positive = sum(g.size for g in groups)
        if self.n_samples > n_positive:
            # Herding selects with replacement: the selection is still the
            # best match of the mean embedding, but repeats rows.
            warnings.warn(
                f"n_samples={self.n_samples} is larger than the number of rows "
                f"with a positive weight, {n_positive}: the selection repeats "
                "rows. Choose n_samples of at most the number of rows to get "
                "distinct ones.",
                UserWarning,
                # The caller of fit, as when fit itself warned.
                stacklevel=3,
            )
        return budgets

    def _start_progress(self, start, groups):
        """The fit's verbose lines on the clock read at ``start``: the settings."""
        progress = TimedProgress(self.verbose, self.n_samples, start=start)
        n_rows = max(g.size for g in groups)
        candidates = "in the largest class" if self.per_class else "in all"
        gamma_text = f", gamma={self.gamma_:.4g}" if self.kernel == "rbf" else ""
        progress.stamped(
            f"{n_rows} candidate rows {candidates}: feature_map="
            f"{self.feature_map_name_!r}, maxip={self.maxip_!r}, "
            f"refine={self.refine_!r}{gamma_text}"
        )
        return progress

    def _fit_features(self, X, rng, progress):
        """Fit the explicit feature map; the features of X, None for 'exact'."""
        self.feature_map_ = None
        if self.feature_map_name_ == "rff":
            self.feature_map_ = RBFSampler(
                gamma=self.gamma_,
                n_components=self.n_components,
                random_state=rng.randint(MAX_SEED),
            ).fit(X)
        elif self.feature_map_name_ == "nystroem":
            # Nystroem floors the eigenvalues of its kernel matrix at the
            # absolute 1e-12: the features of the linear kernel, homogeneous
            # in X, are computed on X / max|X| when that exceeds 1, so that the
            # floor stays relative (on X ~ 1e145 it blew the features up by
            # 1e6).
            self._nystroem_scale = 1.0
            if self.kernel == "linear":
                largest = abs(X).max() if X.shape[0] else 0.0
                self._nystroem_scale = max(1.0, float(largest))
            self.feature_map_ = Nystroem(
                kernel=self.kernel,
                gamma=self.gamma_ if self.kernel == "rbf" else None,
                n_components=min(self.n_components, X.shape[0]),
                random_state=rng.randint(MAX_SEED),
            ).fit(X / self._nystroem_scale)
        if self.feature_map_name_ == "exact":
            return None
        F = self._features(X)
        progress.stamped(f"Features of shape {F.shape} computed")
        return F

    def _solver(self):
        """The herding solver of the resolved settings."""
        return GroupHerding(
            kernel=self.kernel,
            gamma=self.gamma_,
            learning_rate=self.learning_rate,
            refine=self.refine_,
            maxip=self.maxip_,
            n_tables=self.n_tables,
            n_bits=self.n_bits,
            n_probes=self.n_probes,
            n_candidates=self.n_candidates,
            verbose=self.verbose,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Select the herding subset of the rows of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data; its rows are the candidates.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs), \
                default=None
            Targets, only checked to have one row per row of ``X`` and no
            NaN or infinity, except with ``per_class=True``, where they are
            the class labels (required).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights :math:`p_i` of the rows in the target mean embedding
            :math:`\\mu`; rows of weight 0 are not candidates.

        Returns
        -------
        self : KernelHerdingSampler
            The fitted sampler.
        """
        start = time.perf_counter()
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32])
        # The kernels form squared distances or inner products of the rows.
        check_square_range(X)
        labels = _check_y(X, y, self.per_class, type(self).__name__)
        sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
        # Herding only uses the weights normalized, p = w / sum(w): dividing
        # by the largest first keeps the sums finite for weights up to the
        # float range.
        sample_weight = sample_weight / sample_weight.max()
        classes, groups = _candidate_groups(labels, sample_weight)
        budgets = self._check_params_vs_input(X, groups, sample_weight)
        rng = check_random_state(self.random_state)
        X64 = X.astype(np.float64, copy=False)
        self.gamma_ = _resolve_gamma(self.gamma, X64)
        progress = self._start_progress(start, groups)
        F = self._fit_features(X64, rng, progress)
        problem = HerdingProblem(
            X64 if F is None else F,
            groups,
            budgets,
            features=F is not None,
            labels=classes if labels is not None else None,
        )
        result = self._solver().solve(problem, sample_weight, rng, progress=progress)
        # imbalanced-learn's convention, which its ensembles rely on:
        # fit_resample returns X[sample_indices_].
        self.sample_indices_ = result.sample_indices
        self.support_ = result.support
        self.support_weight_ = result.support_weight
        if labels is not None:
            self.sampling_strategy_ = {
                label: int(budget) for label, budget in zip(classes, budgets)
            }
        self.n_iter_ = result.objective_history.shape[0]
        self.objective_history_ = result.objective_history
        self.n_scored_ = result.n_scored
        self.n_swaps_ = result.n_swaps
        # score() measures the MMD in the space herding matched.
        self._support_points = X64[self.support_] if F is None else F[self.support_]
        return self

    def fit_resample(self, X, y=None, *, sample_weight=None):
        """Fit, then return the ``n_samples`` selected rows of X (and y).

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape \
                (n_samples, n_features)
            The data.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs), \
                default=None
            Targets, indexed like X (the class labels with
            ``per_class=True``).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows in the mean embedding that herding matches;
            the returned rows represent the weighted data.

        Returns
        -------
        X_resampled : {ndarray, sparse matrix, DataFrame, list} of shape \
                (n_samples, n_features)
            ``X[sample_indices_]``, in the container and dtype of X.
        y_resampled : {ndarray, Series, DataFrame, list} or None
            ``y[sample_indices_]`` in the container of y, or None when y
            is None.
        """
        self.fit(X, y, sample_weight=sample_weight)
        rows = self.sample_indices_
        return _take_rows(X, rows), None if y is None else _take_rows(y, rows)

    def score(self, X, y=None):
        """Return minus the squared MMD between X and the weighted subset.

        .. math::

            -\\Big\\| \\frac{1}{m} \\sum_{l=1}^m \\Phi(x'_l) - \\sum_j a_j
            \\Phi(x_{i_j}) \\Big\\|^2

        in the kernel (``feature_map='exact'``) or feature space of the
        fitted sampler, with uniform weights on the rows of X. The squared
        MMDs of different kernels are not on one scale, so this score
        compares samplers that share the kernel, not values of ``gamma``.

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
        check_square_range(X)
        X = X.astype(np.float64, copy=False)
        kernel = self.kernel
        if self.feature_map_name_ != "exact":
            # Explicit features: the kernel is their inner product.
            X, kernel = self._features(X), "linear"
        mmd2 = squared_mmd(
            X,
            np.arange(self.support_.shape[0]),
            self.support_weight_,
            kernel=kernel,
            gamma=self.gamma_,
            Y=self._support_points,
        )
        return -mmd2
