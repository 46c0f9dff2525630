"""Logistic regression by the approximate proximal point method with
local-sensitivity importance sampling (Raj, Musco and Mackey, AISTATS 2020)."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import copy
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ..optim.proximal_point import (
    OneVsRestProblem,
    auto_solver,
    make_solver,
    row_weights,
)
from ..utils._blocks import is_dask_array
from ..utils._sklearn_compat import Interval, RealNotInt, StrOptions, _fit_context
from ..utils._validation import (
    check_dask_data,
    check_sample_weight,
    dask_class_counts,
    is_dask_frame,
)
from ._base import _BaseLinearClassifier, _check_warm_start

__all__ = ["LocalSensitivityLogistic"]

_FLOAT64_MAX = float(np.finfo(np.float64).max)


def _class_weights(class_weight, classes, counts):
    """The weight of every class; 'balanced' from the class counts, as
    scikit-learn computes it, so that a dask fit needs no pass of its own."""
    if isinstance(class_weight, str):
        return counts.sum() / (classes.shape[0] * counts.astype(np.float64))
    return compute_class_weight(class_weight, classes=classes, y=classes)


def _weight_totals(y, sample_weight, classes, class_weight, counts):
    """:math:`S = \\sum_i s_i` and the number of rows of positive weight.

    :math:`s_i` is the class weight times the sample weight
    (:func:`~skcgm.optim.proximal_point.row_weights`), on a dask array in
    one pass (none without sample weights, from the class counts), in
    memory summed relative to the largest weight, which cannot overflow. A
    ValueError unless two classes have rows of positive weight.
    """
    if sample_weight is None:
        weighted = class_weight > 0
        total_weight, n_positive = counts @ class_weight, counts[weighted].sum()
        weighted_classes = classes[weighted]
    elif is_dask_array(y):
        import dask
        import dask.array as da

        weights = da.map_blocks(
            row_weights,
            y,
            sample_weight,
            classes=classes,
            class_weight=class_weight,
            dtype=np.float64,
        )
        total_weight, n_positive, smallest, weighted_classes = dask.compute(
            weights.sum(),
            (weights > 0).sum(),
            weights.min(),
            da.unique(y[weights > 0]),
        )
        if smallest < 0:
            raise ValueError("Negative values in data passed to `sample_weight`")
    else:
        weights = row_weights(y, sample_weight, classes, class_weight)
        n_positive = np.count_nonzero(weights > 0)
        weighted_classes = np.unique(y[weights > 0])
        largest = float(weights.max())
        total_weight = largest * float((weights / largest).sum()) if largest else 0.0
    # Classes left with no weight have no loss: they cannot be learnt.
    if weighted_classes.shape[0] < 2:
        raise ValueError(
            "This solver needs samples of at least 2 classes in the data, but "
            "the data contains only one class with a positive weight: "
            f"{', '.join(map(repr, weighted_classes)) or 'none'}."
        )
    return float(total_weight), int(n_positive)


class LocalSensitivityLogistic(_BaseLinearClassifier):
    """L2-regularized logistic regression by local-sensitivity sampling.

    Minimizes scikit-learn's logistic regression objective (the intercept
    :math:`b` is not penalized)

    .. math::

        \\min_{w, b} \\; C \\sum_{i=1}^n s_i \\log\\big(1 + e^{-y_i (x_i^\\top w
        + b)}\\big) + \\frac12 \\|w\\|^2,
        \\qquad y_i \\in \\{-1, +1\\},

    (:math:`s_i` the sample weight times the class weight) by the approximate
    proximal point method of Raj, Musco and Mackey (Algorithm 2), which
    touches a reweighted subsample of ``sample_size`` rows per round. In the
    solver's mean form, with :math:`x = (w, b)`, :math:`a_i = y_i (x_i, 1)`,
    :math:`W = \\sum_i s_i`, :math:`u_i = n s_i / W` and
    :math:`\\alpha = 1 / (C W)`, the objective divided by :math:`C W` is

    .. math::

        F(x) = \\frac1n \\sum_{i=1}^n u_i f(a_i^\\top x)
        + \\frac{\\alpha}{2} \\|w\\|^2, \\qquad f(t) = \\log(1 + e^{-t}),

    and round :math:`t = 1, 2, \\dots` of Algorithm 2 (lines 4-9; the
    paper leaves the stopping rule and the inner solver open) is

    .. math::

        \\lambda_t = \\sqrt{\\|\\nabla F(x_{t-1})\\|}, \\qquad
        r_t = \\frac{\\|\\nabla F(x_{t-1})\\|}{\\lambda_t + \\alpha}, \\qquad
        p_i = \\frac{\\sigma_i}{\\sum_j \\sigma_j},

        x_t \\approx \\operatorname{argmin}_{\\|x - x_{t-1}\\| \\le r_t}
        \\; \\frac1n \\sum_{i \\in B_t} \\frac{c_i}{m p_i} u_i f(a_i^\\top x)
        + \\frac{\\alpha}{2} \\|w\\|^2 + \\lambda_t \\|x - x_{t-1}\\|^2,

    where :math:`B_t` holds :math:`m` independent draws from :math:`p`
    (:math:`c_i` the number of times row :math:`i` is drawn) and
    :math:`\\sigma_i` bounds the local sensitivity of row :math:`i` on the
    ball (by default Theorem 9's bound for the local quadratic model; the
    paper's Algorithm 2 adds the last term, Theorem 10's, with
    ``scores='theorem10'``; the slips of the printed statements are
    corrected as listed in :func:`~skcgm.optim.local_sensitivity_scores`
    and the user guide):

    .. math::

        \\sigma_i = \\beta \\ell_i + \\frac{u_i f(a_i^\\top x_{t-1})}{n \\eta}
        \\;\\Big[\\, + \\min\\Big(\\frac{K_i r_t}{6 n \\lambda_t},
        \\frac{K_i r_t^3}{6 n \\eta}\\Big) \\Big],

    with :math:`\\ell_i` the ridge leverage score (ridge :math:`\\lambda_t`)
    of row :math:`i` of the local quadratic model of :math:`F` at
    :math:`x_{t-1}`, whose rows are :math:`\\sqrt{u_i f''_i / n}\\, a_i` and
    an extra column :math:`\\sqrt{u_i / n}\\, f'_i / \\sqrt{f''_i}`;
    :math:`\\eta` the minimum of that model on the ball, :math:`\\beta \\ge 1`
    a correction for the model's constant and
    :math:`K_i = u_i \\sup|f'''| \\, \\|a_i\\|^3` (see
    :func:`~skcgm.optim.local_sensitivity_scores`). The subproblem is solved
    by projected accelerated gradient (at most ``max_inner_iter`` steps on
    the sampled rows), and :math:`\\|\\nabla F(x_t)\\|` is evaluated on all
    the data. Multiclass problems are fitted one-vs-rest. With the default
    ``solver='auto'``, ``sampling='full'`` and data of fewer than 10,000
    rows (with ``sample_size='auto'``) are not sampled: :math:`F` is
    minimized on all the rows by L-BFGS instead (see ``solver``).

    Read more in the :ref:`User Guide <local_sensitivity>`.

    Parameters
    ----------
    C : float, default=1.0
        Inverse of the regularization strength, as in
        :class:`~sklearn.linear_model.LogisticRegression`; ``np.inf`` means no
        penalty.

    penalty : {'l2'} or None, default='l2'
        'l2' is :math:`\\frac12 \\|w\\|^2` (the paper's strongly convex case);
        None means no penalty (:math:`\\alpha = 0`, the smooth convex case of
        Theorem 15): ``C`` is then ignored, with a UserWarning
        when it is set away from its default, as in
        :class:`~sklearn.linear_model.LogisticRegression`.

    fit_intercept : bool, default=True
        Whether to fit an unpenalized intercept, as an extra column of ones
        (the paper has none).

    sample_size : 'auto', int or float, default='auto'
        Draws :math:`m` per round (with replacement): an int in
        [1, n_samples], or a fraction of n_samples in (0, 1] (rounded up).
        The paper uses 100 points, or 10% of the data. 'auto' draws 10% of
        the rows, and with ``solver='auto'`` does not sample below 10,000
        rows in memory: it minimizes the objective on all the rows by
        L-BFGS (``solver='lbfgs'``), as
        :class:`~sklearn.linear_model.LogisticRegression` does. There too
        few rows are drawn per round for sampling to pay: a sampled fit
        costs more than the full-data fit and stops at a relative
        objective error of :math:`4 \\times 10^{-3}` to :math:`10^{-2}`
        (see Notes).
        An int larger than n_samples raises a ValueError (whatever the
        sampling), rather than being clipped.
        Unused by ``sampling='full'`` and by L-BFGS.

    max_iter : 'auto' or int, default='auto'
        Maximum number of proximal point rounds (of L-BFGS iterations when
        the solver is L-BFGS, as
        :class:`~sklearn.linear_model.LogisticRegression`'s). 'auto' means
        100 in memory and for L-BFGS on a dask array, and 1 round of
        Algorithm 2 on a dask array (which ``solver='auto'`` runs only with
        enough draws, see ``solver``), where a round costs
        a pass over the data (two when its speculative draws fail, see
        Notes) and one round from the uniform start reached relative
        objective errors of
        :math:`2 \\times 10^{-4}` to :math:`3 \\times 10^{-4}` on 8,000,000
        rows (see Notes); 'auto'
        stopping there raises no ConvergenceWarning. The sampled
        modes stop earlier by ``n_iter_no_change`` once they reach their
        noise floor: after 30 to 50 rounds with the default 10% of 10,000 to
        30,000 rows (see Notes), but 94 to 130 rounds with 57 draws on
        ``load_breast_cancer``. The exact proximal point method
        (``sampling='full', solver='proximal_point'``) needs about 100
        rounds on standardized ``load_breast_cancer`` at ``C=1`` and about
        500 at ``C=10`` (:math:`\\lambda_t = \\sqrt{\\|\\nabla F\\|}` makes
        the steps conservative on flat, weakly regularized problems): raise
        ``max_iter`` for such fits.

    tol : float, default=1e-4
        Stop when :math:`\\|\\nabla F(x_t)\\|_2 \\le` ``tol``, the gradient of the
        mean-form objective above (scikit-learn's lbfgs scales the objective
        the same way, and bounds the largest gradient entry by its ``tol``).
        Only the full-data fits reach small values: with a fixed sample
        size the sampled modes stall at a gradient norm that decreases as
        :math:`m` grows, typically :math:`10^{-3}` to :math:`10^{-2}` on small
        standardized data sets (see ``n_iter_no_change``).

    max_inner_iter : int, default=100
        Maximum gradient steps of the inner solver per round (the inner
        solver also stops when its gradient mapping is below
        :math:`10^{-3} \\|\\nabla F(x_{t-1})\\|`). A step costs
        :math:`O(m \\cdot n_{features})`; 100 is enough for 'full' to converge
        at the rate of the exact proximal point method on standardized data.

    n_iter_no_change : int or None, default=10
        For the sampled modes: stop when the full objective
        :math:`F(x_t)` has not improved on its best value for this many
        consecutive rounds, the noise floor of a fixed sample size (the
        additive error of Theorem 14). It costs one pass over the data per
        round. None runs until ``tol`` or ``max_iter``. Ignored by 'full',
        which decreases :math:`F` monotonically, and by L-BFGS.

    prox_weight : 'sqrt_grad' or float, default='sqrt_grad'
        The proximal weight :math:`\\lambda_t` of every round: the paper's
        :math:`\\sqrt{\\|\\nabla F(x_{t-1})\\|}` (Algorithm 2, line 4) or a
        fixed positive value, in the units of the mean-form objective
        :math:`F` above (the radius rule is unchanged). A small fixed value
        such as ``1e-3`` makes each round an almost unregularized fit of its
        sample: on large, well-conditioned data one round with 10% of the
        rows reaches the sample's noise floor (see the user guide), where the
        paper's rule takes 15-20 short rounds. On the panel of the user
        guide a fixed ``0.01`` loses to 'sqrt_grad' (on
        ``make_heavy_tailed_classification(10_000, 20, df=2.5,
        n_outliers=10, outlier_scale=20)``, 300 draws a round, relative
        error 0.081 against 0.012 after 100 rounds with 'theorem9'), so the
        default stays the paper's.

    sampling : {'local_sensitivity', 'uniform', 'leverage', 'full'}, \
            default='local_sensitivity'
        The distribution :math:`p`: the local-sensitivity bounds (the
        paper's method), uniform, the static ridge leverage scores of the
        data matrix (computed once), or 'full': every row with weight one,
        which converges to the minimizer of the objective (the same as
        :class:`~sklearn.linear_model.LogisticRegression`'s): by L-BFGS
        with the default ``solver='auto'``, by the exact proximal point
        method with ``solver='proximal_point'``.

    solver : {'auto', 'proximal_point', 'lbfgs'}, default='auto'
        'proximal_point' runs the rounds of Algorithm 2 on the rows drawn
        by ``sampling``; with 'full', every row every round, the exact
        proximal point method (the paper's full-batch baseline). 'lbfgs'
        minimizes the same objective on all the rows by L-BFGS with
        scikit-learn's ``lbfgs`` stopping rule (``tol`` on the largest
        gradient entry), as :class:`~sklearn.linear_model.LogisticRegression`
        does; ``sampling``, ``sample_size``, ``scores``, ``leverage``,
        ``prox_weight``, ``max_inner_iter`` and ``n_iter_no_change`` are
        then unused. On a dask array an L-BFGS iteration is one pass over
        the chunks, for all the one-vs-rest problems at once. 'auto' is
        'lbfgs' for ``sampling='full'``, where the user asks for the
        minimizer on every row: on standardized ``load_breast_cancer`` at
        ``C=10``, the default 100 rounds of the exact proximal point method
        stop at a coefficient error of 1.6 to the optimum (with a
        ConvergenceWarning), where L-BFGS reaches
        :class:`~sklearn.linear_model.LogisticRegression`'s 0.064; and, with
        ``sample_size='auto'``, on fewer than 10,000 rows in memory (see
        ``sample_size``) and on a dask array whose round would draw fewer
        than 2,000 rows per coefficient (10% of the rows, at most 100,000,
        against ``n_features + fit_intercept``): one round leaves a
        relative objective error of about :math:`c\\,(d + 1) / m`, with
        :math:`c` from 0.2 to 12 over the families of the defaults panel
        (user guide, "Data larger than memory"): with fewer draws it
        exceeded 1e-3 in 32 of the panel's 39 cells (up to 1.2), with
        more, at most :math:`5.4 \\times 10^{-4}` in its 10 cells; L-BFGS
        reaches ``tol`` in tens of passes. It is 'proximal_point' otherwise. The
        paper's exact proximal point method is ``sampling='full',
        solver='proximal_point'``.

    scores : {'theorem9', 'theorem10', 'leverage_only'}, default='theorem9'
        Which local-sensitivity bound ``sampling='local_sensitivity'``
        draws by (:func:`~skcgm.optim.local_sensitivity_scores`): the
        bound of Theorem 9 for the local quadratic model, the paper's
        Theorem 10 (Algorithm 2, line 7: Theorem 9's bound plus a term in
        :math:`\\|a_i\\|^3 \\min(r/\\lambda, r^3/\\eta)`), or the leverage
        term alone. The paper's literal algorithm is
        ``scores='theorem10'`` (with the default ``prox_weight``). The
        default was chosen on a panel of eight data families (user guide,
        "Choosing the defaults": median relative objective error over 5
        seeds at equal draws). Theorem 10's term, cubic in the row norms,
        makes it draw mostly the largest rows on heavy-tailed data, where
        it loses to uniform sampling and 'theorem9' beats both (on
        ``make_heavy_tailed_classification(10_000, 20)`` with 300 draws a
        round, relative errors 0.42, 0.037 and 0.022 after 15 rounds).
        'theorem9' also beats uniform sampling on the log-normal, Gaussian
        and bundled families and ties it on the sparse, correlated and
        covtype-like ones. When a round draws a small share of the rows
        (300 of 50,000) every sampler soon reaches its noise floor:
        'theorem9' still wins in the first rounds, and after 100 the
        heavy-tailed figures are within the seed-to-seed spread. Unused by
        the other samplings.

    leverage : {'auto', 'exact', 'sketch', 'sample'}, default='auto'
        How the leverage scores are computed: exactly in
        :math:`O(n \\, n_{features}^2)`, or by a CountSketch and a
        Johnson-Lindenstrauss projection in :math:`O(\\mathrm{nnz} \\log n)`
        (:func:`~skcgm.oracles.ridge_leverage_scores`), or 'sample': with
        the Gram matrix of the local-sensitivity scores estimated from the
        previous round's draws (the first round's from :math:`m` uniform
        draws, or from the uniform start on a dask array), which saves the
        :math:`O(n \\, n_{features}^2)` product of the Gram matrix but not
        that of the scores. 'auto' is the paper's 'exact' in memory and
        'sample' on a dask array, where the pass at the centre then sums
        :math:`O(n \\, n_{features})` instead of :math:`O(n \\,
        n_{features}^2)` and draws the round's rows as well, one pass
        instead of two, for the same relative objective errors (see the
        :ref:`User Guide <larger_than_memory>`). 'sample' applies to
        ``sampling='local_sensitivity'`` only.

    n_components : int, default=None
        CountSketch rows for ``leverage='sketch'``; None means 20 times the
        number of columns of the leverage matrix (the features, the
        intercept and, for 'local_sensitivity', the extra column of Theorem
        9). No CountSketch is applied when it is at least n_samples.

    class_weight : dict, 'balanced' or None, default=None
        Weights of the classes, multiplying the sample weights: in every
        one-vs-rest problem a sample's loss is scaled by the weight of its
        own class. 'balanced' uses ``n_samples / (n_classes *
        np.bincount(y))``.

    warm_start : bool, default=False
        When True, :meth:`fit` starts from the previous coefficients and
        intercepts. The classes and the number of features must be those of
        the previous fit.

    random_state : int, RandomState instance or None, default=None
        Seeds the draws and the sketches. Pass an int for reproducible
        results; they do not depend on ``n_jobs``.

    n_jobs : int, default=None
        Number of one-vs-rest problems fitted in parallel through joblib
        (multiclass only). None means 1 unless in a
        :func:`joblib.parallel_backend` context; -1 means all processors.

    verbose : int, default=0
        Print the objective, gradient norm, prox weight, radius and sample
        of every round.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The coefficients, in the dtype of the training data.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        The intercepts (zeros if ``fit_intercept=False``).

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    n_iter_ : ndarray of shape (1,) or (n_classes,)
        Number of rounds of every one-vs-rest problem.

    history_ : list of dict
        One dict per one-vs-rest problem (one for binary problems) of arrays
        of length ``n_iter_[k] + 1``, entry ``t`` for the iterate
        :math:`x_t` (entry 0 is the starting point): ``'objective'``
        (:math:`F(x_t)`, the mean form above), ``'grad_norm'``
        (:math:`\\|\\nabla F(x_t)\\|`), ``'prox_weight'`` (:math:`\\lambda_t`),
        ``'radius'`` (:math:`r_t`), ``'total_sensitivity'``
        (:math:`\\sum_i \\sigma_i`, NaN unless 'local_sensitivity'; ``inf``
        when the bound exceeds the float64 range, the round then drawing by
        the leverage scores),
        ``'n_inner_iter'`` (cumulative inner gradient steps) and
        ``'n_distinct'`` (distinct rows sampled in the round). When the
        solver is L-BFGS, one entry per L-BFGS iteration, with NaN prox
        weights, radii and sensitivities.

    sample_indices_ : list of ndarray
        Per problem, the distinct rows sampled in the last round, sorted
        (every row with a positive weight for 'full' and L-BFGS; a lazy
        dask array after an L-BFGS fit on a dask array).

    sample_weight_ : list of ndarray
        Per problem, their importance weights :math:`c_i / (m p_i)` (not
        multiplied by the sample weights); ones for 'full' and L-BFGS (a
        lazy dask array after an L-BFGS fit on a dask array).

    n_passes_ : int
        Passes over the data, all one-vs-rest problems together. Defined
        only after a fit on a dask array, where a pass is the cost that
        counts.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.linear_model.LogisticRegression : The same objective, solved on
        all the data at every iteration.
    skcgm.optim.approximate_proximal_point : The solver behind this estimator.
    skcgm.optim.proximal_point.ProximalPointSolver : Its rounds, in memory or
        on a dask array, on the one-vs-rest problems.
    skcgm.optim.local_sensitivity_scores : The sensitivity bounds.
    skcgm.oracles.ridge_leverage_scores : Exact and sketched leverage scores.

    Notes
    -----
    A round costs :math:`O(n \\, n_{features})` for the full gradient, plus
    for 'local_sensitivity' the scores (:math:`O(n \\, n_{features}^2)` with
    exact leverage, :math:`O(\\mathrm{nnz}(X) \\log n + n_{features}^3)`
    sketched), plus at most ``max_inner_iter`` gradient steps on the
    :math:`m` sampled rows. Dense and CSR inputs are accepted (float32 data
    stays float32 in the matrix products). Dense ``X`` is read in place: the
    labels and the intercept are applied on the fly, so a fit holds a few
    vectors of length :math:`n` and the sample beyond ``X`` (CSR input is
    copied once with its rows signed). The passes over all the rows run on
    threads over blocks of rows, and BLAS is held to one thread during the
    fit: the rest is many small BLAS calls, which BLAS threads slow down.

    The prox weight :math:`\\lambda_t = \\sqrt{\\|\\nabla F\\|}` keeps the
    steps short when the curvature of :math:`F` is small, so weakly
    regularized problems take many rounds: on standardized
    ``load_breast_cancer``, 'full' takes about 100 rounds at ``C=1``, far
    longer than :class:`~sklearn.linear_model.LogisticRegression` (user
    guide, "Against L-BFGS"). The estimator is the paper's method with its
    baselines and diagnostics (``history_``), not a faster solver on data
    that fits in memory.

    The defaults come from a panel (user guide, "Choosing the defaults",
    which gives the timings). ``sample_size='auto'`` fits on all the rows
    below 10,000 of them: with the other defaults, a sampled fit of
    ``make_logistic_classification(n, 20)`` at n = 2,000 and 10,000 took
    longer than the full-data L-BFGS path and stopped at relative
    objective errors of :math:`9 \\times 10^{-3}` and :math:`4 \\times
    10^{-3}`, where the full-data path reaches :math:`10^{-7}`; on
    ``load_digits`` (1,797 rows, 10 one-vs-rest problems) the default fit
    takes longer than ``LogisticRegression``'s. Sampling does not save
    wall time on in-memory data at these sizes either: above the
    threshold the default samples because that is the method this
    estimator implements; pass ``sample_size`` explicitly to sample at any
    size. ``max_iter='auto'`` (100 rounds in memory) with
    ``n_iter_no_change=10``: the default
    sampled fits of those data stopped after 28 to 52 rounds, at their
    noise floor (at n = 10,000 and 30,000: relative errors
    :math:`4 \\times 10^{-3}` and :math:`1.1 \\times 10^{-3}`).

    With a fixed sample size the sampled modes converge to a neighbourhood
    of the minimizer whose size shrinks as :math:`m` grows (Theorem 14), not
    to the minimizer itself, so their coefficients differ from
    :class:`~sklearn.linear_model.LogisticRegression`'s by that much; with
    ``sampling='full'`` they agree to ``tol``. A
    :class:`~sklearn.exceptions.ConvergenceWarning` is raised when
    ``max_iter`` rounds end a fit without meeting ``tol`` or the
    ``n_iter_no_change`` rule (or when L-BFGS stops short of ``tol`` on
    the full-data path).

    Multiclass problems are fitted one-vs-rest (each class against the
    others, an independent binary problem, the paper's method being binary),
    and :meth:`predict_proba` normalizes the one-vs-rest probabilities.
    :class:`~sklearn.linear_model.LogisticRegression` fits the multinomial
    loss instead, so multiclass coefficients and probabilities differ from
    scikit-learn's; with 'full' they equal those of
    ``OneVsRestClassifier(LogisticRegression())``.

    On a dask array (:ref:`User Guide <larger_than_memory>`) the rows stay
    on the workers. The first centre minimizes the objective on a uniform
    sample of :math:`m` rows (one pass), unless ``warm_start`` gives one.
    A round needs the objective, gradient and constants of the scores at
    the centre, summed over the chunks (the Gram matrix of the scores comes
    from the last draws, ``leverage='auto'``), and then the scores of every
    row and its number of draws, Poisson with mean :math:`m p_i`
    (Definition 2's :math:`m` draws with a Poisson total, unbiased in the
    same way), from uniforms tied to the row's global index, so that the
    sample depends on ``random_state`` and not on the chunks. One pass does
    both: the constants are estimated on the last draws, the rows are drawn
    from those scores with 1.4 times the mean, and the client thins them to
    the exact scores' draws (Poisson thinning, the same distribution)
    whenever the estimated scores bound the exact ones, which it checks;
    otherwise a second pass draws them again. ``sample_size='auto'`` draws
    10% of the rows, at most 100,000, and samples when that makes at least
    2,000 draws per coefficient (``solver='auto'``; L-BFGS otherwise).
    ``max_iter='auto'`` stops there after one round (two passes, with the
    uniform start): on 8,000,000 rows of 32 correlated features it reached a
    relative objective error of :math:`2 \\times 10^{-4}` (Gaussian rows)
    to :math:`3 \\times 10^{-4}` (Student t rows), where the in-memory
    rule (100 rounds, ``n_iter_no_change=10``) reached
    :math:`3 \\times 10^{-5}` in 68 passes, and at most :math:`5.4 \\times
    10^{-4}` on the defaults panel (:math:`10^4` to :math:`10^6` rows, 5 to
    100 features; user guide, "Data larger than memory"). An int
    ``max_iter`` gives more rounds, one pass each. With L-BFGS (``sampling='full'``,
    ``solver='lbfgs'``, or too few draws) every evaluation of the
    objective is one pass, which sums the losses and gradients of all the
    one-vs-rest problems at once (L-BFGS minimizes their sum, whose
    minimizer is theirs). ``n_jobs`` is unused there (the chunks are the
    parallelism). A dask DataFrame is read as the dask array of its values
    (one pass counts its partitions' lengths), its column names checked as
    for pandas input; chunks must be NumPy arrays for a fit (scipy.sparse
    chunks are refused before any task runs; the prediction methods take
    them).

    Integer sample weights and repeated rows give the same objective but
    different draws (the rows are drawn from n_samples, not from the sum of
    the weights), so the two fits agree only in expectation, or at
    convergence for 'full'.

    References
    ----------
    A. Raj, C. Musco and L. Mackey, "Importance Sampling via Local
    Sensitivity", AISTATS 2020 (Algorithm 2, Theorems 9, 10, 14 and 15).

    R. Frostig, R. Ge, S. M. Kakade and A. Sidford, "Un-regularizing:
    approximate proximal point and faster stochastic algorithms for
    empirical risk minimization", ICML 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skcgm.linear_model import LocalSensitivityLogistic
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = LocalSensitivityLogistic(sample_size=0.1, max_iter=300, random_state=0)
    >>> clf = clf.fit(X, y)
    >>> clf.coef_.shape, bool(clf.score(X, y) > 0.97)
    ((1, 30), True)

    Every round fits on at most 57 of the 569 rows (``sample_size=0.1``;
    with so few draws the noise-floor rule stops after 100 to 130 rounds):

    >>> int(clf.history_[0]["n_distinct"].max()) <= 57
    True

    With the default ``sample_size='auto'``, 569 rows are too few for
    sampling to pay: the fit minimizes the objective on all of them, as
    LogisticRegression does.

    >>> auto = LocalSensitivityLogistic(tol=1e-8).fit(X, y)
    >>> reference = LogisticRegression(solver="newton-cholesky", tol=1e-10)
    >>> float(np.abs(auto.coef_ - reference.fit(X, y).coef_).max()) < 1e-5
    True

    The paper's literal Algorithm 2 is one parameter away:

    >>> paper = LocalSensitivityLogistic(
    ...     sample_size=0.1, scores="theorem10", max_iter=300, random_state=0
    ... ).fit(X, y)
    >>> bool(paper.score(X, y) > 0.97)
    True

    ``sampling='full'`` minimizes on every row, by L-BFGS, and with
    ``solver='proximal_point'`` by the exact proximal point method; both
    converge to LogisticRegression's solution:

    >>> full = LocalSensitivityLogistic(sampling="full", tol=1e-8).fit(X, y)
    >>> float(np.abs(full.coef_ - reference.fit(X, y).coef_).max()) < 1e-5
    True
    >>> exact = LocalSensitivityLogistic(
    ...     sampling="full", solver="proximal_point", tol=1e-8, max_iter=1000)
    >>> full = exact.fit(X, y)
    >>> float(np.abs(full.coef_ - reference.fit(X, y).coef_).max()) < 1e-5
    True
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, None, closed="right")],
        "penalty": [StrOptions({"l2"}), None],
        "fit_intercept": ["boolean"],
        "sample_size": [
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
        ],
        "max_iter": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_inner_iter": [Interval(Integral, 1, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left"), None],
        "prox_weight": [
            StrOptions({"sqrt_grad"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "sampling": [StrOptions({"local_sensitivity", "uniform", "leverage", "full"})],
        "solver": [StrOptions({"auto", "proximal_point", "lbfgs"})],
        "scores": [StrOptions({"theorem9", "theorem10", "leverage_only"})],
        "leverage": [StrOptions({"auto", "exact", "sketch", "sample"})],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        C=1.0,
        penalty="l2",
        fit_intercept=True,
        sample_size="auto",
        max_iter="auto",
        tol=1e-4,
        max_inner_iter=100,
        n_iter_no_change=10,
        prox_weight="sqrt_grad",
        sampling="local_sensitivity",
        solver="auto",
        scores="theorem9",
        leverage="auto",
        n_components=None,
        class_weight=None,
        warm_start=False,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.C = C
        self.penalty = penalty
        self.fit_intercept = fit_intercept
        self.sample_size = sample_size
        self.max_iter = max_iter
        self.tol = tol
        self.max_inner_iter = max_inner_iter
        self.n_iter_no_change = n_iter_no_change
        self.prox_weight = prox_weight
        self.sampling = sampling
        self.solver = solver
        self.scores = scores
        self.leverage = leverage
        self.n_components = n_components
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _solver(self, n_samples, n_features, on_dask):
        """The solver's name: ``solver``, or what 'auto' stands for
        (:func:`~skcgm.optim.proximal_point.auto_solver`)."""
        if self.solver != "auto":
            return self.solver
        n_coefficients = n_features + int(self.fit_intercept)
        return auto_solver(
            self.sampling, self.sample_size, n_samples, n_coefficients, on_dask
        )

    def _solver_options(self):
        """The solvers' hyper-parameters; they resolve the 'auto' values
        that depend on where the data are."""
        return dict(
            sample_size=self.sample_size,
            sampling=self.sampling,
            scores=self.scores,
            prox_weight=self.prox_weight,
            max_iter=self.max_iter,
            tol=self.tol,
            # 'full' decreases F monotonically: no noise floor to detect.
            n_iter_no_change=None if self.sampling == "full" else self.n_iter_no_change,
            max_inner_iter=int(self.max_inner_iter),
            leverage=self.leverage,
            n_components=self.n_components,
            n_jobs=self.n_jobs,
            verbose=int(self.verbose),
        )

    def _starting_points(self, n_features, classes):
        """The previous solution as starting points, or Nones."""
        n_problems = 1 if classes.shape[0] == 2 else classes.shape[0]
        if not (self.warm_start and hasattr(self, "coef_")):
            return [None] * n_problems
        _check_warm_start((self.coef_.shape[1], self.classes_), n_features, classes)
        # coef_ is a sparse matrix after sparsify().
        coef = self.coef_.toarray() if sp.issparse(self.coef_) else self.coef_
        coef = np.asarray(coef, dtype=np.float64)
        if not self.fit_intercept:
            return list(coef)
        intercept = np.asarray(self.intercept_, dtype=np.float64)
        return [np.append(c, b) for c, b in zip(coef, intercept)]

    def _validated_data(self, X, y, sample_weight):
        """``X``, ``y``, the sample weights, the classes and their counts.

        In memory as scikit-learn checks them; a dask array (or DataFrame)
        without reading its chunks but for the labels' counts, its sample
        weights (None stays None) chunked as its rows.
        """
        if not (is_dask_array(X) or is_dask_frame(X)):
            X, y = self._validate_X_y(X, y, reset=True)
            sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
            return X, y, sample_weight, *np.unique(y, return_counts=True)
        import dask.array as da

        X, y = check_dask_data(self, X, y, reset=True, y_numeric=False)
        classes, counts = dask_class_counts(y)
        # The targets' type from their distinct values: scikit-learn's error
        # for continuous targets, without a pass of its own.
        check_classification_targets(classes)
        if sample_weight is not None:
            sample_weight = da.asarray(sample_weight)
            if sample_weight.shape != (X.shape[0],):
                raise ValueError(
                    f"sample_weight.shape == {sample_weight.shape}, expected "
                    f"({X.shape[0]},)!"
                )
            sample_weight = sample_weight.rechunk((X.chunks[0],))
        return X, y, sample_weight, classes, counts

    def _check_params_vs_input(self, X, total_weight):
        """The parameters checked against each other and the data ``X`` of
        total sample weight ``total_weight``."""
        if self.penalty is None and self.C != 1.0:
            # LogisticRegression's warning, and its test of "C is set": C
            # differs from its default.
            warnings.warn(
                "Setting penalty=None will ignore the C parameter",
                UserWarning,
                # Past this method, _problem, fit and scikit-learn's
                # _fit_context wrapper.
                stacklevel=5,
            )
        if self.sampling == "leverage" and self.leverage == "sample":
            raise ValueError(
                "leverage='sample' estimates the Gram matrix of the local-"
                "sensitivity scores; sampling='leverage' takes leverage='auto', "
                "'exact' or 'sketch'."
            )
        if is_dask_array(X):
            self._check_params_vs_dask()
        # alpha = 1 / (C S) of the solver's mean form, S the total weight; in
        # Python floats, which overflow to inf without a warning.
        if (
            self.penalty is not None
            and not float(self.C) * total_weight * _FLOAT64_MAX > 1.0
        ):
            raise ValueError(
                f"C={self.C!r} times the total sample weight "
                f"({total_weight:.3g}) is too small: the penalty 1 / (C * "
                "sum(sample_weight)) exceeds the float64 range. Increase C "
                "or scale up the sample weights."
            )
        n_samples = X.shape[0]
        if isinstance(self.sample_size, Integral) and self.sample_size > n_samples:
            raise ValueError(
                f"sample_size={self.sample_size} exceeds n_samples={n_samples}; "
                "pass at most n_samples points per round or a fraction in (0, 1]."
            )

    def _check_params_vs_dask(self):
        """The options a dask array refuses: whatever its size (which 'auto'
        reads), unless nothing is sampled, so that the same parameters fail
        or fit on every dask array."""
        if self.solver == "proximal_point" and self.sampling == "full":
            raise ValueError(
                "sampling='full' with solver='proximal_point' needs X in memory; "
                "a dask array X is fitted on all its rows with solver='lbfgs' "
                "(or 'auto')."
            )
        sampled = self.solver != "lbfgs" and self.sampling != "full"
        if sampled and self.sampling == "leverage":
            raise ValueError(
                "sampling='leverage' needs X in memory; a dask array X is "
                "fitted with sampling='local_sensitivity', 'uniform' or 'full'."
            )
        if sampled and self.leverage == "sketch":
            raise ValueError(
                "leverage='sketch' needs X in memory; a dask array X is fitted "
                "with leverage='auto', 'sample' or 'exact'."
            )

    def _problem(self, X, y, sample_weight, classes, counts):
        """The one-vs-rest problems of the validated data, after the checks
        of the parameters against them."""
        class_weight = _class_weights(self.class_weight, classes, counts)
        total_weight, n_positive = _weight_totals(
            y, sample_weight, classes, class_weight, counts
        )
        self._check_params_vs_input(X, total_weight)
        # scikit-learn's C sum_i s_i logloss_i + ||w||^2 / 2, divided by C S:
        # the solvers' (1/n) sum_i u_i f(a_i^T x) + (alpha/2)||w||^2 with
        # u = s n / S and alpha = 1 / (C S), the scaling scikit-learn's own
        # solvers use (so that tol means the same for both).
        alpha = 0.0 if self.penalty is None else 1.0 / (float(self.C) * total_weight)
        return OneVsRestProblem(
            X,
            y,
            classes,
            class_weight,
            alpha,
            total_weight,
            n_positive,
            self.fit_intercept,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model by Algorithm 2 (one-vs-rest for multiclass).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, \
                n_features)
            Training data. Float32 input gives float32 coefficients. A dask
            array is fitted chunk by chunk on its workers, never gathered:
            a uniform sample gives the first centre, then every round is two
            passes (the sums at the centre, then the scores and draws) and
            only the sampled rows reach this process (``sampling=
            'local_sensitivity'`` or ``'uniform'``, ``leverage`` other than
            'sketch'; see the :ref:`User Guide <larger_than_memory>`).

        y : array-like or dask array of shape (n_samples,)
            Target values (class labels).

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i` of the losses, not all zero,
            multiplied by ``class_weight``. None means unit weights.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        X, y, sample_weight, classes, counts = self._validated_data(X, y, sample_weight)
        problem = self._problem(X, y, sample_weight, classes, counts)
        n_samples, n_features = X.shape
        name = self._solver(n_samples, n_features, on_dask=is_dask_array(X))
        solver = make_solver(name, **self._solver_options())
        start = self._starting_points(n_features, classes)
        random_state = check_random_state(self.random_state)
        results = solver.solve(problem, start, sample_weight, random_state)
        self.classes_ = classes
        coef = np.array([result.coef for result in results])
        self.coef_ = coef[:, :n_features].astype(X.dtype)
        if self.fit_intercept:
            self.intercept_ = coef[:, n_features].astype(X.dtype)
        else:
            self.intercept_ = np.zeros(len(results), dtype=X.dtype)
        self.n_iter_ = np.array([result.n_iter for result in results], dtype=np.intp)
        self.history_ = [result.history for result in results]
        self.sample_indices_ = [result.sample_indices for result in results]
        self.sample_weight_ = [result.sample_weight for result in results]
        if results[0].n_passes is not None:
            self.n_passes_ = results[0].n_passes
        shortfall = solver.shortfall(results)
        if shortfall is not None:
            warnings.warn(
                f"LocalSensitivityLogistic did not converge in {shortfall}",
                ConvergenceWarning,
                # Past fit and scikit-learn's _fit_context wrapper.
                stacklevel=3,
            )
        return self

    def _on_chunks(self, method, X, n_columns=None, dtype=np.float64):
        """``method`` on every row chunk of the dask array ``X``, lazily.

        The result is chunked as the rows of ``X``, with ``n_columns``
        columns (None: one value per row).
        """
        # The in-memory methods take CSR rows: so do their chunk-wise forms.
        X = check_dask_data(self, X, accept_sparse=True)
        # The feature names were checked here, once: the chunks, NumPy
        # arrays, go to a copy that has none, which would warn on each.
        model = copy.copy(self)
        model.__dict__.pop("feature_names_in_", None)
        method = getattr(model, method.__name__)
        if n_columns is None:
            return X.map_blocks(method, drop_axis=1, dtype=dtype)
        return X.map_blocks(method, chunks=(X.chunks[0], (n_columns,)), dtype=dtype)

    def decision_function(self, X):
        """Confidence scores: the signed distances to the hyperplanes.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, \
                n_features)
            Input data. A dask array gives a lazy dask array, computed chunk
            by chunk where the chunks live.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            :math:`X w + b` per one-vs-rest problem; one column for binary
            problems, the score of ``classes_[1]``.
        """
        if is_dask_array(X) or is_dask_frame(X):
            check_is_fitted(self)
            n_columns = self.coef_.shape[0]
            return self._on_chunks(
                self.decision_function, X, None if n_columns == 1 else n_columns
            )
        return super().decision_function(X)

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, \
                n_features)
            Input data. A dask array gives a lazy dask array.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The class of the largest decision value.
        """
        if is_dask_array(X) or is_dask_frame(X):
            check_is_fitted(self)
            return self._on_chunks(self.predict, X, dtype=self.classes_.dtype)
        return super().predict(X)

    def predict_proba(self, X):
        """Probability estimates.

        The logistic function of the decision values; for multiclass problems
        the one-vs-rest estimates normalized to sum to one (not the
        multinomial probabilities of
        :class:`~sklearn.linear_model.LogisticRegression`).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, \
                n_features)
            Input data. A dask array gives a lazy dask array.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probability of every class, in the order of :attr:`classes_`.
        """
        check_is_fitted(self)
        if is_dask_array(X) or is_dask_frame(X):
            return self._on_chunks(self.predict_proba, X, len(self.classes_))
        return self._predict_proba_lr(X)
