"""Linear classifiers trained by CompAdaGrad (compressed, complementary AdaGrad)."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted

from ..optim.compadagrad._auto import auto_n_components
from ..optim.compadagrad._early_stopping import (
    early_stopping_mask,
    split_off_validation,
)
from ..optim.compadagrad._solver import (
    CompAdaGradProblem,
    CompAdaGradSolution,
    CompAdaGradSolver,
    problem_weights,
)
from ..optim.compadagrad._step import DELTA_BOUNDS
from ..oracles import (
    HingeLoss,
    LogisticLoss,
    ModifiedHuberLoss,
    PerceptronLoss,
    SquaredHingeLoss,
)
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ..utils._validation import check_sample_weight
from ._base import _BaseLinearClassifier, _check_warm_start

__all__ = ["CompAdaGradClassifier"]

# The loss options of SGDClassifier, as members of the margin-loss family.
_LOSSES = {
    "hinge": HingeLoss(),
    "log_loss": LogisticLoss(),
    "modified_huber": ModifiedHuberLoss(),
    "squared_hinge": SquaredHingeLoss(),
    "perceptron": PerceptronLoss(),
}


def _check_classes(classes):
    if classes.shape[0] < 2:
        raise ValueError(
            "The number of classes has to be greater than one; got "
            f"{classes.shape[0]} class."
        )
    return classes


# The parameters the solver takes as they are.
_SOLVER_PARAMS = (
    "penalty",
    "alpha",
    "l1_ratio",
    "eta0",
    "n_components",
    "tau",
    "delta",
    "variant",
    "batch_size",
    "n_iter_no_change",
    "shuffle",
    "fit_intercept",
    "n_jobs",
    "verbose",
)


class CompAdaGradClassifier(_BaseLinearClassifier):
    """Linear classifier trained by CompAdaGrad, with SGDClassifier's interface.

    Composite mirror descent (Mehta, Rendell, Varghese and Webers, eq. 2) on
    a regularized convex loss, one step per mini-batch, with the CompAdaGrad
    proximal matrix: full-matrix AdaGrad in a fixed random subspace of
    dimension :math:`k` (``n_components``) drawn by a subsampled randomized
    Hadamard transform (SRHT), plus diagonal AdaGrad on its orthogonal
    complement (eq. 5). The features are zero-padded to :math:`n`, the next
    power of two. With :math:`g_t` the (mean) loss gradient of the
    mini-batch :math:`B_t` at :math:`x_t`, :math:`G_t = \\sum_{s \\le t} g_s
    g_s^\\top` and the orthonormal SRHT rows :math:`\\tilde\\Pi = RH\\Sigma`,
    the default (``variant='adaptive'``) is

    .. math::

        x_{t+1} = \\arg\\min_x \\; \\eta \\langle g_t, x \\rangle
        + \\eta \\varphi(x) + \\tfrac{1}{2} \\|x - x_t\\|^2_{H_t},

        H_t = \\sqrt{\\frac{r_t}{k}} \\tilde\\Pi^\\top \\big((\\tilde\\Pi G_t
        \\tilde\\Pi^\\top)^{1/2} + \\delta I\\big) \\tilde\\Pi
        + \\tau P_\\perp \\big(\\operatorname{diag}(P_\\perp G_t
        P_\\perp)^{1/2} + \\delta I\\big) P_\\perp,

        g_t = \\frac{1}{|B_t|} \\sum_{i \\in B_t} w_i \\,
        \\ell'(y_i, a_i^\\top x_t + b_t) \\, a_i,

    where :math:`P_\\perp = I - \\tilde\\Pi^\\top \\tilde\\Pi`,
    :math:`r_t = (\\operatorname{tr} S_t^{1/2})^2 / \\operatorname{tr} S_t
    \\in [1, k]` is the effective rank of :math:`S_t = \\tilde\\Pi G_t
    \\tilde\\Pi^\\top`,
    :math:`\\varphi(x) = \\frac{\\alpha}{2} \\|x\\|^2` (``penalty='l2'``,
    closed form, eqs. 13-15), :math:`\\alpha \\|x\\|_1` (``penalty='l1'``,
    the exact LASSO of eq. 16) or their mix (``penalty='elasticnet'``, the
    same LASSO in a metric shifted by the ridge part) and :math:`w_i` the
    sample weight times the class weight. This is the metric of the paper's
    regret bound (Theorem C) with the subspace step at the rate
    :math:`\\eta\\sqrt{k / r_t}` (see ``variant``); ``variant='paper'`` is the
    paper's eq. (5) as in its experiments. ``n_components=0`` (with
    ``tau=1``) is diagonal AdaGrad,
    :math:`H_t = \\delta I + \\operatorname{diag}(G_t)^{1/2}`, whatever the
    variant, and ``n_components >= n_features`` full-matrix AdaGrad,
    :math:`H_t = \\sqrt{r_t / n}\\, (G_t^{1/2} + \\delta I)` (the rate
    :math:`\\eta \\sqrt{n / r_t}`), exactly. The intercept
    :math:`b` has its own scalar AdaGrad, not regularized:
    :math:`b_{t+1} = b_t - \\eta \\gamma_t / (\\delta + (\\sum_{s \\le t}
    \\gamma_s^2)^{1/2})`, :math:`\\gamma_t = \\frac{1}{|B_t|} \\sum_{i \\in
    B_t} w_i \\ell'_i`. Multiclass problems are fitted one-vs-rest, each
    binary problem with its own preconditioner and the same projection.

    Read more in the :ref:`User Guide <compadagrad>`.

    Parameters
    ----------
    loss : {'hinge', 'log_loss', 'modified_huber', 'squared_hinge', \
            'perceptron'}, default='hinge'
        The loss :math:`\\ell`, as in
        :class:`~sklearn.linear_model.SGDClassifier`: 'hinge' is the linear
        SVM, 'log_loss' logistic regression, 'modified_huber' a smoothed
        hinge that also gives probabilities, 'squared_hinge' the quadratically
        penalized hinge and 'perceptron' the hinge at threshold 0. The paper
        does not say which loss its experiments use.

    penalty : {'l2', 'l1', 'elasticnet'} or None, default='l2'
        The composite regularizer :math:`\\varphi` (never applied to the
        intercept). 'l2' is :math:`\\frac{\\alpha}{2}\\|x\\|^2`, the paper's
        experiments; 'l1' is :math:`\\alpha\\|x\\|_1` and gives sparse
        coefficients; 'elasticnet' is :math:`\\alpha (r \\|x\\|_1 +
        \\frac{1 - r}{2} \\|x\\|^2)` with :math:`r` = ``l1_ratio`` (not in
        the paper; its step stays exact); None means :math:`\\varphi = 0`.

    alpha : float, default=1e-4
        Regularization strength :math:`\\alpha \\ge 0` (the paper's
        :math:`\\lambda`), per sample as in SGDClassifier: the objective is
        the weighted mean loss plus :math:`\\varphi`.

    l1_ratio : float or None, default=0.15
        The elastic-net mixing parameter :math:`0 \\le r \\le 1`, as in
        SGDClassifier: 0 is 'l2', 1 is 'l1'. Only used with
        ``penalty='elasticnet'``, for which it must not be None.

    eta0 : float, default=0.1
        The constant learning rate :math:`\\eta > 0` (the paper tunes it and
        reports no value). AdaGrad normalizes the gradients, so the first
        diagonal step moves every coordinate by about :math:`\\eta`;
        grid-search it over powers of ten. The defaults panel (user guide,
        "Choosing the defaults") kept 0.1: 0.3 lowers both
        errors on the correlated families but helps diagonal AdaGrad more
        (the cut falls from 27% and 20% to 8% and 16%), and it is 43% worse
        than diagonal AdaGrad on the digits; 0.03 cuts more (43% and 24%)
        only because it slows diagonal AdaGrad down more: both err more
        than at 0.1.

    n_components : 'auto' or int, default='auto'
        Dimension :math:`k \\ge 0` of the SRHT subspace. 0 gives diagonal
        AdaGrad; ``n_components >= n_features`` full-matrix AdaGrad in the
        padded space (then :math:`k = n`). 'auto' chooses between the two
        from the training rows: the full matrix when the features are
        correlated (the effective rank :math:`(\\operatorname{tr} C)^2 /
        \\operatorname{tr} C^2` of their correlation matrix :math:`C` at most
        half their number) over a spectrum spread over two and a half to four
        decades, and the padded dimension is at most 256; diagonal AdaGrad
        otherwise (uncorrelated features, where nothing is gained; a
        narrower spectrum, where diagonal AdaGrad's scaling is nearly as
        good; a tail of nearly empty directions, whose noise the full matrix
        amplifies; sparse rows; more dimensions, where a full step,
        :math:`O(n^3)`, costs too much); the choice is
        :attr:`n_components_`. A random
        subspace holds about :math:`k/n` of every direction, so its gain over
        diagonal AdaGrad grows with :math:`k/n` and is largest for the full
        matrix: on correlated features with spectra spread over three or four
        decades, the full matrix cuts diagonal AdaGrad's test error by 40-50%
        where a subspace of 64 of 256 dimensions cuts it by a few percent; on
        uncorrelated features neither gains. The panel behind the rule is in
        the user guide, "Choosing the defaults", "The subspace chosen from
        the data". An integer is the paper's fixed :math:`k` (it uses 25 to
        512), whose step costs :math:`O(nk + n \\log n + k^3)`.

    tau : float, default=1.0
        Weight :math:`\\tau > 0` of the complement (diagonal) term.

    delta : float, default=1e-2
        Damping :math:`\\delta` of both terms (the paper's :math:`\\delta_r
        = \\delta_c > 0`), in the units of the gradients: a diagonal step
        moves coordinate :math:`i` by :math:`\\eta g_i / (|g_i| + \\delta)`,
        so :math:`\\delta` bounds the first steps where the gradients are
        still small. Accepted in :math:`[2^{-1022}, 2^{1022}]`, the normal
        float64 numbers whose reciprocal is normal too: a step divides by
        :math:`\\delta` where no gradient has been seen. Below the rounding
        level of the preconditioner's statistics :math:`\\delta` acts as
        that level: a subspace direction whose eigenvalue of :math:`S_t` is
        under :math:`k\\epsilon` times the largest, :math:`\\mu_{\\max}`
        (:math:`\\epsilon` the float64 machine epsilon), gets a metric
        eigenvalue of at least :math:`(k \\epsilon \\mu_{\\max})^{1/2}`,
        and a complement entry is at least :math:`n \\epsilon
        (\\operatorname{tr} G_t)^{1/2}`. The gradient there is rounding
        noise, which divided by a smaller :math:`\\delta` would make steps
        of up to :math:`10^{281}` (``delta=1e-300``); at the level no
        direction moves by more than about :math:`\\eta` per step (times
        the variant's rate), AdaGrad's bound, so a tiny :math:`\\delta` is
        the undamped method, not an overflow. Other directions, diagonal AdaGrad
        (``n_components=0``, whose statistics are exact) and a
        :math:`\\delta` above the level are unaffected: the default as long
        as :math:`k \\epsilon \\mu_{\\max} < \\delta^2 = 10^{-4}`
        (squared gradients summing to less than about :math:`10^9`). See
        the user guide, "The damping and rounding". Not called
        ``epsilon``, which in SGDClassifier is the Huber margin.

    variant : {'adaptive', 'balanced', 'theory', 'paper'}, default='adaptive'
        The form of the subspace term. 'paper' is eq. (5) as in the paper's
        experiments: the scaled SRHT :math:`\\Pi = \\sqrt{n/k} RH\\Sigma`
        and :math:`\\delta` inside the square root,
        :math:`\\Pi^\\top (\\Pi G_t \\Pi^\\top + \\delta I)^{1/2} \\Pi`.
        'theory' is the proximal function of the regret bound (Theorem C,
        eq. 19): the orthonormal :math:`\\tilde\\Pi = RH\\Sigma` and
        :math:`\\delta` outside the root (use it with ``tau=1``).
        'balanced' (not in the paper) is 'theory' with the subspace term
        divided by :math:`\\sqrt{k}`, the subspace step at the rate
        :math:`\\eta\\sqrt{k}`. Since

        .. math::

            \\Pi^\\top (\\Pi G \\Pi^\\top + \\delta I)^{1/2} \\Pi =
            (n/k)^{3/2} \\tilde\\Pi^\\top (\\tilde\\Pi G \\tilde\\Pi^\\top +
            (k/n) \\delta I)^{1/2} \\tilde\\Pi,

        the paper's scaling shrinks the subspace step by
        :math:`(k/n)^{3/2}` (1/22 at :math:`k/n = 1/8`), and a single
        ``eta0`` cannot make up for it, as it scales the complement too: the
        subspace then barely moves and the method behaves as diagonal
        AdaGrad.
        'theory' removes the shrinkage, but its subspace step still moves a
        coordinate by about :math:`\\eta / \\sqrt{n}` where the complement
        moves it by :math:`\\eta`. The regret bound (eq. 8) sums a subspace
        term in :math:`\\|P(x^* - x_t)\\|_2^2` and a complement term in
        :math:`\\|P_\\perp(x^* - x_t)\\|_\\infty^2`, each smallest at a
        rate equal to its own diameter; for a dense :math:`x^*` the
        Euclidean diameter of a :math:`k`-dimensional subspace is about
        :math:`\\sqrt{k}` times the sup-norm one (up to a logarithmic
        factor), hence 'balanced'. On
        correlated data (d = 128, 8 latent
        directions, condition numbers 30 and 300) it cuts diagonal
        AdaGrad's test error by 27% and 20% with :meth:`fit`'s stopping
        rule (where 'paper' is 6% worse than diagonal AdaGrad and 'theory'
        9% and 3.5% better) and by 44% and 24% at 5 epochs (median of 3
        seeds, all at the default ``eta0``); with ``eta0`` tuned for both on
        the same grid, by 9% and 14%. On Gaussian, log-normal and sparse
        text features it is within noise of diagonal AdaGrad (-9% to +2%).
        On the 10 digit classes it gains 8.5% (stopping rule) and 38% (5
        epochs) with the pixels in [0, 1], but loses once they are
        standardized (11%, 69% at 5 epochs, 32% tuned): with 64 features
        ``n_components=64`` is full-matrix AdaGrad at the rate
        :math:`8\\eta`, which overshoots (training objective after 5
        epochs 1.06, against 0.83 for diagonal AdaGrad and 0.63 for
        'theory'), the outlying border pixels clipped to [-3, 3] or not.
        There 'theory' is the better choice at a few epochs (11% better
        at 5 epochs, on 9 seeds of 9); with the stopping rule no variant,
        rate or smaller ``n_components`` tried beats diagonal AdaGrad on
        the standardized digits without giving up the correlated gains
        (user guide, "Choosing the defaults").
        'adaptive' (not in the paper; the default) is 'balanced' with
        :math:`\\sqrt{k}` replaced by :math:`\\sqrt{k / r_t}`, where
        :math:`r_t = (\\operatorname{tr} S_t^{1/2})^2 / \\operatorname{tr}
        S_t \\in [1, k]` is the effective rank of the subspace statistics
        :math:`S_t = \\tilde\\Pi G_t \\tilde\\Pi^\\top`: the subspace rate
        is :math:`\\eta\\sqrt{k}` while the gradients span one direction
        and falls to :math:`\\eta` ('theory') as they fill the subspace
        (a heuristic, outside the regret bound). On the standardized digits
        it loses 1.9% to diagonal AdaGrad with the stopping rule and gains
        1.4% at 5 epochs (median of 9 seeds), against 13% and 71% lost by
        'balanced'; on the correlated sets it cuts 30% and 21% (stopping
        rule), against 36% and 27% for 'balanced', and by 26% and 26% with
        ``eta0`` tuned for both on the same grid (against 9% and 14%). The
        defaults panel chose it for that: the correlated gains of
        'balanced' without its loss on the standardized digits. On breast
        cancer it errs more than diagonal AdaGrad on 52 of 60 splits (3.28%
        against 2.48% of 285 test rows) while reaching a lower training
        objective, and no variant or setting tried wins there; compare
        ``n_components=0`` by cross-validation on small dense sets (user
        guide, "Choosing the defaults").

    batch_size : int, default=32
        Number of samples per step; their gradients are averaged (the
        paper's RCV1 run used 160). A step costs :math:`O(n k^2 + k^3)`
        whatever the batch size, so mini-batches amortize it: on small
        dense problems ``batch_size=32`` reaches the test accuracy of
        per-sample steps (``batch_size=1``, the online setting of the
        regret bound) in far fewer steps. The defaults panel (user guide,
        "Choosing the defaults") kept 32: 128 takes a quarter of the steps
        per epoch and cuts as much on the correlated families, but leaves
        too few steps per epoch on small sets (digits: 44% worse than
        diagonal AdaGrad); 8 takes four times the steps per epoch and cuts
        no more (24% and 21%).

    max_iter : int, default=1000
        Maximum number of epochs (passes over the training data), as in
        SGDClassifier; the stopping rule usually ends the fit long before.

    tol : float or None, default=1e-3
        Stop when the epoch's training objective (mean weighted loss at the
        iterates before their steps, plus :math:`\\varphi`) is above the
        best one minus ``tol``, or with ``early_stopping`` when the
        validation score is below the best one plus ``tol``, for
        ``n_iter_no_change`` consecutive epochs, as in SGDClassifier. None
        runs ``max_iter`` epochs.

    early_stopping : bool, default=False
        Whether to stop on a held-out validation score instead of the
        training objective, as in SGDClassifier: a stratified fraction
        ``validation_fraction`` of the rows (drawn from ``random_state``) is
        set aside, not trained on, and each one-vs-rest problem stops when
        its accuracy there (weighted by ``sample_weight``) has not improved
        by ``tol`` for ``n_iter_no_change`` consecutive epochs. The last
        iterate is kept. Not supported by :meth:`partial_fit`.

    validation_fraction : float, default=0.1
        The fraction of the rows set aside for early stopping, in (0, 1).
        Only used if ``early_stopping`` is True.

    n_iter_no_change : int, default=5
        Number of epochs without improvement before stopping, on the
        training objective or on the validation score (``early_stopping``).

    shuffle : bool, default=True
        Whether to shuffle the training data before every epoch.

    fit_intercept : bool, default=True
        Whether to fit an intercept, by its own scalar AdaGrad, not
        regularized (the paper has none: regularizing it inside the
        CompAdaGrad metric would break the :math:`\\lambda I` structure of
        eqs. 12-15). If False the intercept stays at ``intercept_init`` (0
        by default).

    class_weight : dict, 'balanced' or None, default=None
        Weights of the classes, multiplying the sample weights: in every
        one-vs-rest problem a sample's gradient is scaled by the weight of
        its own class. 'balanced' uses ``n_samples / (n_classes *
        np.bincount(y))``; it is not supported by :meth:`partial_fit`.

    warm_start : bool, default=False
        When True, :meth:`fit` continues from the previous solution: the
        iterates, the preconditioners (:attr:`state_`), the intercept
        accumulators and the projection. The classes and the number of
        features must be those of the previous fit.

    random_state : int, RandomState instance or None, default=None
        Seeds the SRHT (signs and rows) and the shuffling. Pass an int for
        reproducible results; they do not depend on ``n_jobs``.

    n_jobs : int, default=None
        Number of one-vs-rest problems fitted in parallel through joblib, on
        threads (multiclass only), as in SGDClassifier. None means 1 unless
        in a :func:`joblib.parallel_backend` context; -1 means all
        processors.

    verbose : int, default=0
        Print the training objective after every epoch.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The coefficients (the first ``n_features`` coordinates of the padded
        iterates), in the dtype of the training data.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        The intercepts, in the dtype of the training data.

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    n_iter_ : int
        Number of epochs of the last :meth:`fit` (the largest over the
        one-vs-rest problems); 1 after :meth:`partial_fit`.

    t_ : int
        Number of steps (mini-batches) of the last :meth:`fit` plus one, or
        plus the steps of every :meth:`partial_fit` since (the largest over
        the one-vs-rest problems).

    n_components_ : int
        The subspace dimension :math:`k` used (with ``'auto'``, the one it
        chose: 0 or the padded dimension).

    projection_ : SRHT
        The fitted projection :math:`\\Pi`, drawn once and shared by the
        one-vs-rest problems.

    state_ : list of CompAdaGradState
        One per one-vs-rest problem (one for binary problems): the padded
        iterate, the subspace Gram :math:`\\Pi G_t \\Pi^\\top` and the
        complement squared-gradient sums, kept in float64 across
        :meth:`partial_fit` calls.

    intercept_grad_sq_sum_ : ndarray of shape (1,) or (n_classes,)
        Sums of the squared intercept gradients, in float64.

    best_loss_ : ndarray of shape (1,) or (n_classes,) or None
        The smallest epoch objective of every one-vs-rest problem, over the
        epochs of :meth:`fit` or over the :meth:`partial_fit` calls. None
        with ``early_stopping``: see :attr:`best_validation_score_`.

    validation_scores_ : ndarray of shape (1, `n_iter_`) or \
            (n_classes, `n_iter_`) or None
        With ``early_stopping``, the validation score of every one-vs-rest
        problem after every epoch (NaN after a problem stopped); None
        otherwise.

    best_validation_score_ : ndarray of shape (1,) or (n_classes,) or None
        With ``early_stopping``, the best validation score of every
        one-vs-rest problem; None otherwise.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.linear_model.SGDClassifier : The same interface, trained by
        plain stochastic gradient descent.
    skcgm.optim.compadagrad_step : One CompAdaGrad step, the solver behind
        this estimator.
    skcgm.oracles.SRHT : The subsampled randomized Hadamard transform.

    Notes
    -----
    A step costs :math:`O(n k^2 + k^3)` per one-vs-rest problem (the
    projections, the :math:`k \\times k` Gram of the complement solve and an
    eigendecomposition), linear in the padded dimension :math:`n` for fixed
    :math:`k`, plus :math:`O(|B| d)` for the mini-batch gradient. On sparse
    input the step is still dense: :math:`P_\\perp g_t` is dense, so there is
    no lazy sparse update and every step costs :math:`\\Omega(n)`; the paper
    saw no gain over diagonal AdaGrad on sparse text (RCV1). CompAdaGrad helps
    on dense, correlated features (the paper's MNIST experiment).

    On dense input with the 'l2' penalty (or none) and :math:`0 \\le k <
    n`, an epoch runs in one compiled loop on one thread: the products with
    :math:`\\Pi` are Walsh-Hadamard transforms, :math:`O(n \\log n)`. Other
    settings take the same steps in NumPy. A step is a chain of small
    products, too small to share among threads (on a busy machine a second
    thread waits for a core longer than it computes), and BLAS runs on one
    thread (through threadpoolctl): the one-vs-rest problems run in
    parallel instead (``n_jobs``), as in SGDClassifier.

    The iterates and preconditioners are kept in float64 whatever the input
    dtype, so :meth:`partial_fit` continues from :attr:`state_`, not from
    :attr:`coef_`. ``sample_weight`` and ``class_weight`` scale the
    gradients; :meth:`fit` first rescales their products to sum to the
    number of samples, as :class:`~sklearn.linear_model.ElasticNet` does, so
    that the objective is the weighted mean loss and, in one batch holding
    all the rows (``shuffle=False``), an integer weight is the same as
    repeating the sample. Across mini-batches it is not: a repeated sample
    falls in other batches, and AdaGrad is not linear in the gradients.

    A step that overflows (features or weights of extreme magnitude, a huge
    ``eta0``) raises SGDClassifier's ValueError at once, whatever numpy's
    error state, and a :meth:`partial_fit` that raises leaves the model as
    it was.

    References
    ----------
    N. A. Mehta, A. Rendell, A. Varghese and C. Webers, "CompAdaGrad: A
    Compressed, Complementary, Computationally-Efficient Adaptive Gradient
    Method", arXiv:1609.03319, 2016.

    J. Duchi, E. Hazan and Y. Singer, "Adaptive Subgradient Methods for
    Online Learning and Stochastic Optimization", JMLR 12, 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skcgm.linear_model import CompAdaGradClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(
    ...     StandardScaler(),
    ...     CompAdaGradClassifier(n_components=8, batch_size=16, random_state=0),
    ... ).fit(X, y)
    >>> clf[-1].coef_.shape, clf[-1].n_components_
    ((1, 30), 8)
    >>> bool(clf.score(X, y) > 0.95)
    True

    Streaming, one chunk at a time:

    >>> import numpy as np
    >>> X = StandardScaler().fit_transform(X)
    >>> online = CompAdaGradClassifier(n_components=8, batch_size=16, random_state=0)
    >>> for chunk in np.array_split(np.arange(len(y)), 4):
    ...     online = online.partial_fit(X[chunk], y[chunk], classes=[0, 1])
    >>> online.t_, bool(online.score(X, y) > 0.9)
    (37, True)
    """

    _parameter_constraints: dict = {
        "loss": [StrOptions(set(_LOSSES))],
        "penalty": [StrOptions({"l2", "l1", "elasticnet"}), None],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both"), None],
        "eta0": [Interval(Real, 0, None, closed="neither")],
        "n_components": [
            StrOptions({"auto"}),
            Interval(Integral, 0, None, closed="left"),
        ],
        "tau": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, *DELTA_BOUNDS, closed="both")],
        "variant": [StrOptions({"paper", "theory", "balanced", "adaptive"})],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "fit_intercept": ["boolean"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        loss="hinge",
        *,
        penalty="l2",
        alpha=1e-4,
        l1_ratio=0.15,
        eta0=0.1,
        n_components="auto",
        tau=1.0,
        delta=1e-2,
        variant="adaptive",
        batch_size=32,
        max_iter=1000,
        tol=1e-3,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        fit_intercept=True,
        class_weight=None,
        warm_start=False,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.loss = loss
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.eta0 = eta0
        self.n_components = n_components
        self.tau = tau
        self.delta = delta
        self.variant = variant
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _solver(self, max_iter, tol, X):
        params = {name: getattr(self, name) for name in _SOLVER_PARAMS}
        if params["n_components"] == "auto":
            params["n_components"] = auto_n_components(X)
        return CompAdaGradSolver(
            _LOSSES[self.loss], max_iter=max_iter, tol=tol, **params
        )

    def _fitted_solution(self):
        """The fitted solution, which :meth:`CompAdaGradSolver.solve` copies."""
        return CompAdaGradSolution(
            self.projection_,
            self.state_,
            self._intercept,
            self.intercept_grad_sq_sum_,
        )

    def _commit(self, solution, classes, dtype, n_features):
        """Store a fitted solution in the estimator's attributes."""
        self.classes_ = classes
        self.projection_ = solution.projection
        self.n_components_ = int(self.projection_.n_components_)
        self.state_ = solution.states
        self._intercept = solution.intercept
        self.intercept_grad_sq_sum_ = solution.intercept_sq
        self.coef_ = np.array(
            [state.coef[:n_features] for state in self.state_], dtype=dtype
        )
        # With fit_intercept=False the intercept stays at intercept_init (0
        # by default), a fixed offset, as in SGDClassifier.
        self.intercept_ = self._intercept.astype(dtype)

    def _problem(self, X, y, classes, sample_weight, x_max, validation_mask=None):
        """The solver's problem and the weights of its training rows.

        A row's weight is its sample weight times the weight of its own
        class (computed on all the rows). :meth:`fit` passes the
        ``validation_mask`` of early stopping: the rows it selects are held
        out, and the weights of the others rescaled to sum to their number
        (:func:`~skcgm.optim.compadagrad._solver.problem_weights`);
        :meth:`partial_fit` uses the weights as given.
        """
        class_weight = compute_class_weight(self.class_weight, classes=classes, y=y)
        if validation_mask is None:
            weights = problem_weights(sample_weight, class_weight, classes, y)
            return CompAdaGradProblem(X, y, classes, x_max=x_max), weights
        X, y, sample_weight, validation = split_off_validation(
            X, y, sample_weight, validation_mask
        )
        weights = problem_weights(
            sample_weight, class_weight, classes, y, mean_one=True
        )
        return CompAdaGradProblem(X, y, classes, validation, x_max), weights

    def _check_params_vs_input(self, X, y, classes=None, *, partial=False, warm=False):
        """Check the parameters against each other and the data; the classes.

        :meth:`fit` (``partial=False``) takes the classes of ``y`` and, when
        it continues the previous fit (``warm``), checks that the features and
        classes are that fit's. :meth:`partial_fit` (``partial=True``) takes
        ``classes`` on its first call, which fixes them, and checks ``classes``
        and the labels of ``y`` against them on every call.

        Returns
        -------
        classes : ndarray of shape (n_classes,)
            The sorted classes of the fit.
        """
        first_call = not (partial and hasattr(self, "classes_"))
        if partial and first_call and self.early_stopping:
            raise ValueError("early_stopping should be False with partial_fit")
        if first_call and self.penalty == "elasticnet" and self.l1_ratio is None:
            raise ValueError("l1_ratio must be set when penalty is 'elasticnet'")
        if not partial:
            classes = _check_classes(np.unique(y))
            if warm:
                previous = (self.coef_.shape[1], self.classes_)
                _check_warm_start(previous, X.shape[1], classes)
            return classes
        if first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit."
                )
            if self.class_weight == "balanced":
                raise ValueError(
                    "class_weight 'balanced' is not supported for partial_fit: "
                    "compute the weights with sklearn.utils.class_weight."
                    "compute_class_weight('balanced', classes=classes, y=y) on "
                    "a large enough sample of the targets and pass them as "
                    "class_weight."
                )
            classes = _check_classes(unique_labels(classes))
        else:
            if classes is not None:
                classes = unique_labels(classes)
                if classes.shape != self.classes_.shape or np.any(
                    classes != self.classes_
                ):
                    raise ValueError(
                        f"`classes={classes!r}` is not the same as on the first "
                        f"call to partial_fit, was: {self.classes_!r}."
                    )
            classes = self.classes_
        unknown = np.setdiff1d(np.unique(y), classes)
        if unknown.size:
            raise ValueError(
                f"y contains labels {unknown!r} not in classes {classes!r}."
            )
        return classes

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the linear model by CompAdaGrad.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data. Float32 input gives float32 coefficients.

        y : array-like of shape (n_samples,)
            Target values (class labels).

        coef_init : ndarray of shape (n_classes, n_features), default=None
            Initial coefficients ((1, n_features) or (n_features,) for
            binary problems); the preconditioners start empty.

        intercept_init : ndarray of shape (n_classes,), default=None
            Initial intercepts ((1,) or a scalar for binary problems); with
            ``fit_intercept=False`` a fixed offset, as in SGDClassifier.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples. Multiplied by
            ``class_weight``, they are rescaled to sum to the number of
            training samples, so that an integer weight is a repeated sample.
            None means unit weights.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        # Initial values start a new fit, even with warm_start.
        warm = self.warm_start and hasattr(self, "state_")
        warm = warm and coef_init is None and intercept_init is None
        X, y, x_max = self._validate_X_y(X, y, reset=True, return_magnitude=True)
        classes = self._check_params_vs_input(X, y, warm=warm)
        # Before the weights are checked, so that all-zero weights get the
        # validation split's error, and before the solver draws its seeds, so
        # that a RandomState holds out the rows it holds out in SGDClassifier.
        validation_mask = early_stopping_mask(
            y,
            sample_weight,
            self.early_stopping,
            self.validation_fraction,
            self.random_state,
        )
        sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
        # On all the rows, the held-out ones included ('auto' reads them).
        solver = self._solver(self.max_iter, self.tol, X)
        start = self._fitted_solution() if warm else (coef_init, intercept_init)
        problem, weights = self._problem(
            X, y, classes, sample_weight, x_max, validation_mask
        )
        result = solver.solve(problem, start, weights, self.random_state)
        self._commit(result.solution, classes, X.dtype, X.shape[1])
        self.n_iter_ = result.n_iter
        self.t_ = result.n_steps + 1
        if self.early_stopping:
            self.best_loss_ = None
            self.validation_scores_ = result.validation_scores
            self.best_validation_score_ = np.nanmax(result.validation_scores, axis=1)
        else:
            self.best_loss_ = result.best_loss
            self.validation_scores_ = None
            self.best_validation_score_ = None
        if self.tol is not None and result.n_iter == self.max_iter:
            warnings.warn(
                "Maximum number of iteration reached before convergence. "
                "Consider increasing max_iter to improve the fit.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch of CompAdaGrad on the given samples.

        The iterates, the preconditioners and the projection are kept across
        calls, so calling it on consecutive chunks (in mini-batches of
        ``batch_size``, chunks a multiple of it) without shuffling gives the
        coefficients of one epoch of :meth:`fit` over their concatenation. A
        call that raises leaves the fitted model as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A chunk of the training data.

        y : array-like of shape (n_samples,)
            Its class labels.

        classes : array-like of shape (n_classes,), default=None
            All the classes, required on the first call (for instance
            ``np.unique(y_all)``) and optional afterwards; ``y`` need not
            contain all of them.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights scaling the gradients of the samples, used
            as given: unlike :meth:`fit`, a chunk does not know the total
            weight of the stream. None means unit weights.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        first_call = not hasattr(self, "classes_")
        X, y, x_max = self._validate_X_y(X, y, reset=first_call, return_magnitude=True)
        classes = self._check_params_vs_input(X, y, classes, partial=True)
        sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64)
        solver = self._solver(1, None, X)
        start = None if first_call else self._fitted_solution()
        problem, weights = self._problem(X, y, classes, sample_weight, x_max)
        result = solver.solve(problem, start, weights, self.random_state)
        previous_best = None if first_call else getattr(self, "best_loss_", None)
        self._commit(result.solution, classes, X.dtype, X.shape[1])
        self.n_iter_ = 1
        self.t_ = (1 if first_call else self.t_) + result.n_steps
        # The best epoch objective over the calls, as MLPClassifier.partial_fit.
        best_loss = result.best_loss
        self.best_loss_ = (
            best_loss if previous_best is None else np.fmin(previous_best, best_loss)
        )
        self.validation_scores_ = None
        self.best_validation_score_ = None
        return self

    def _check_proba(self):
        if self.loss not in ("log_loss", "modified_huber"):
            raise AttributeError(
                f"probability estimates are not available for loss={self.loss!r}"
            )
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Probability estimates (only for 'log_loss' and 'modified_huber').

        As in :class:`~sklearn.linear_model.SGDClassifier`: the logistic
        function of the decision values for 'log_loss', and
        :math:`(\\mathrm{clip}(f(x), -1, 1) + 1) / 2` for 'modified_huber';
        multiclass estimates are the one-vs-rest ones normalized to sum to
        one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probability of every class, in the order of :attr:`classes_`.
        """
        check_is_fitted(self)
        if self.loss == "log_loss":
            return self._predict_proba_lr(X)
        scores = self.decision_function(X)
        if self.classes_.shape[0] == 2:
            positive = (np.clip(scores, -1.0, 1.0) + 1.0) / 2.0
            return np.column_stack([1.0 - positive, positive])
        proba = (np.clip(scores, -1.0, 1.0) + 1.0) / 2.0
        total = proba.sum(axis=1)
        # All classes at 0: uniform probabilities, as SGDClassifier.
        all_zero = total == 0
        proba[all_zero] = 1.0
        total[all_zero] = self.classes_.shape[0]
        return proba / total[:, None]

    # The base class's, available with predict_proba only.
    predict_log_proba = available_if(_check_proba)(
        _BaseLinearClassifier.predict_log_proba
    )
