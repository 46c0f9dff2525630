"""Binary classification data of the CompAdaGrad and local-sensitivity papers."""

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.preprocessing import normalize
from sklearn.utils import check_random_state

__all__ = [
    "make_correlated_classification",
    "make_logistic_classification",
    "make_sensitivity_synthetic",
    "make_sparse_text_classification",
]


def make_correlated_classification(
    n_samples=1000,
    n_features=128,
    *,
    n_informative=8,
    condition_number=10.0,
    noise=0.01,
    label_noise=0.1,
    random_state=None,
):
    """Binary classification on a few directions mixed by a random rotation.

    The latent vector :math:`z \\sim N(0, I_r)`, :math:`r` =
    ``n_informative``, sets the label :math:`y = [\\langle w, z \\rangle +
    \\varepsilon > 0]` with :math:`w` uniform on the unit sphere and
    :math:`\\varepsilon \\sim N(0, \\texttt{label_noise}^2)`; the features are

    .. math::

        x = Q \\operatorname{diag}(s) z + \\texttt{noise} \\cdot \\xi, \\qquad
        s_j = \\kappa^{-(j - 1)/(r - 1)}, \\qquad \\xi \\sim N(0, I_d),

    with :math:`Q \\in \\mathbb{R}^{d \\times r}` a random orthonormal basis
    and :math:`\\kappa` = ``condition_number``. Every feature mixes every
    latent direction, so the features are strongly correlated and their
    covariance is nearly of rank :math:`r`, ill-conditioned along directions
    that no coordinate axis follows: what full-matrix AdaGrad adapts to and
    diagonal AdaGrad cannot.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of samples.
    n_features : int, default=128
        Dimension :math:`d`.
    n_informative : int, default=8
        Number :math:`r \\le d` of latent directions.
    condition_number : float, default=10.0
        Ratio :math:`\\kappa \\ge 1` of the largest to the smallest latent
        scale.
    noise : float, default=0.01
        Standard deviation of the isotropic feature noise.
    label_noise : float, default=0.1
        Standard deviation of the noise added to :math:`\\langle w, z
        \\rangle` before thresholding.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The features.
    y : ndarray of shape (n_samples,)
        Labels in {0, 1}.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.datasets import make_correlated_classification
    >>> X, y = make_correlated_classification(500, 32, random_state=0)
    >>> X.shape, np.unique(y).tolist()
    ((500, 32), [0, 1])
    >>> # Nearly all of the variance lies in 8 directions.
    >>> spectrum = np.linalg.svd(X, compute_uv=False) ** 2
    >>> bool(spectrum[:8].sum() / spectrum.sum() > 0.99)
    True
    """
    rng = check_random_state(random_state)
    Q, _ = np.linalg.qr(rng.standard_normal((n_features, n_informative)))
    if n_informative > 1:
        scales = condition_number ** (-np.arange(n_informative) / (n_informative - 1))
    else:
        scales = np.ones(1)
    w = rng.standard_normal(n_informative)
    w /= np.linalg.norm(w)
    Z = rng.standard_normal((n_samples, n_informative))
    y = (Z @ w + label_noise * rng.standard_normal(n_samples) > 0).astype(int)
    X = (Z * scales) @ Q.T + noise * rng.standard_normal((n_samples, n_features))
    return X, y


def make_sparse_text_classification(
    n_samples=1000,
    n_features=256,
    *,
    doc_length=20,
    zipf_exponent=1.1,
    informative_fraction=0.2,
    class_sep=1.0,
    random_state=None,
):
    """Sparse bag-of-words documents of two classes, as CSR.

    A vocabulary of ``n_features`` words with Zipf frequencies
    :math:`p_j \\propto (\\rho_j + 1)^{-a}` (:math:`\\rho` a random rank,
    :math:`a` = ``zipf_exponent``); a fraction ``informative_fraction`` of
    the words get a class log-odds :math:`u_j \\sim N(0,` ``class_sep``
    :math:`^2)`, and class :math:`c \\in \\{0, 1\\}` draws its words from
    :math:`p_{c, j} \\propto p_j \\exp((c - \\frac12) u_j)`. A document has
    :math:`1 + \\mathrm{Poisson}(\\texttt{doc_length} - 1)` words; its
    features are its word counts scaled to unit Euclidean norm. The matrix is
    sparse (about ``doc_length`` non-zeros per row) and its features weakly
    correlated: the regime where the paper finds no gain on RCV1.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of documents, half of each class (rounded).
    n_features : int, default=256
        Vocabulary size.
    doc_length : float, default=20
        Mean number of words per document (at least 1).
    zipf_exponent : float, default=1.1
        Exponent :math:`a` of the word frequencies.
    informative_fraction : float, default=0.2
        Fraction of the words whose frequency depends on the class.
    class_sep : float, default=1.0
        Standard deviation of the class log-odds of the informative words.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Row-normalized word counts, float64.
    y : ndarray of shape (n_samples,)
        Labels in {0, 1}.

    Examples
    --------
    >>> from skcgm.datasets import make_sparse_text_classification
    >>> X, y = make_sparse_text_classification(200, 1000, random_state=0)
    >>> X.format, X.shape, bool(X.nnz / X.shape[0] < 20)
    ('csr', (200, 1000), True)
    """
    rng = check_random_state(random_state)
    ranks = rng.permutation(n_features)
    log_p = -zipf_exponent * np.log(ranks + 1.0)
    informative = rng.rand(n_features) < informative_fraction
    log_odds = np.where(informative, class_sep * rng.standard_normal(n_features), 0.0)
    y = rng.permutation(np.arange(n_samples) % 2)
    lengths = 1 + rng.poisson(max(doc_length - 1.0, 0.0), size=n_samples)
    docs = np.repeat(np.arange(n_samples), lengths)
    words = np.empty(docs.shape[0], dtype=np.intp)
    for label in (0, 1):
        logits = log_p + (label - 0.5) * log_odds
        p = np.exp(logits - logits.max())
        in_class = y[docs] == label
        words[in_class] = rng.choice(n_features, size=in_class.sum(), p=p / p.sum())
    counts = sp.csr_matrix(
        (np.ones(docs.shape[0]), (docs, words)), shape=(n_samples, n_features)
    )
    counts.sum_duplicates()
    return normalize(counts), y


def make_sensitivity_synthetic(
    n_samples=3000, n_features=300, *, noise=0.1, random_state=None
):
    """The synthetic logistic regression data of the paper's Figure 2(a, e).

    The paper's recipe (section 6): :math:`A \\in \\mathbb{R}^{n \\times d}`
    with i.i.d. standard normal entries, :math:`x_0 \\sim N(0, I_d)`,
    :math:`\\hat y = A x_0 + \\eta` with :math:`\\eta \\sim 0.1 \\cdot
    N(0, I_n)`, and labels :math:`y = \\operatorname{sign}(\\hat y)`. The
    paper uses :math:`n = 3000`, :math:`d = 300`.

    Parameters
    ----------
    n_samples : int, default=3000
        Number of rows :math:`n`.
    n_features : int, default=300
        Dimension :math:`d`.
    noise : float, default=0.1
        Standard deviation of :math:`\\eta`.
    random_state : int, RandomState instance or None, default=None
        Seed of :math:`A`, :math:`x_0` and :math:`\\eta`, drawn in this
        order.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The matrix :math:`A`.
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    coef : ndarray of shape (n_features,)
        The planted :math:`x_0`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.datasets import make_sensitivity_synthetic
    >>> X, y, coef = make_sensitivity_synthetic(200, 10, random_state=0)
    >>> X.shape, np.unique(y).tolist()
    ((200, 10), [-1.0, 1.0])
    >>> # The labels follow the planted direction up to the small noise.
    >>> bool(np.mean(np.sign(X @ coef) == y) > 0.95)
    True
    """
    rng = check_random_state(random_state)
    X = rng.standard_normal((n_samples, n_features))
    coef = rng.standard_normal(n_features)
    y_hat = X @ coef + noise * rng.standard_normal(n_samples)
    # sign(0) = 0 has probability zero under the Gaussian noise; keep the
    # labels two-valued all the same.
    y = np.where(y_hat >= 0, 1.0, -1.0)
    return X, y, coef


def make_logistic_classification(
    n_samples=100_000,
    n_features=20,
    *,
    signal=2.0,
    intercept=0.5,
    row_scale_std=0.0,
    dtype=np.float64,
    random_state=None,
):
    """Binary labels drawn from a logistic model on Gaussian features.

    :math:`x_i = e^{\\sigma g_i} z_i` with :math:`z_i \\sim N(0, I_d)` and
    :math:`g_i \\sim N(0, 1)` (:math:`\\sigma` = ``row_scale_std``, 0 by
    default: Gaussian rows), a planted direction drawn uniformly on the
    sphere and scaled to :math:`\\|w\\| =` ``signal`` (so the margins
    :math:`w^\\top x_i` have standard deviation ``signal`` when
    :math:`\\sigma = 0`), and
    :math:`P(y_i = 1) = 1 / (1 + e^{-(w^\\top x_i + c)})` with :math:`c` =
    ``intercept``. Unlike the sign labels of
    :func:`make_sensitivity_synthetic`, the classes overlap: a well-posed,
    well-conditioned logistic regression whatever :math:`n`, the generated
    data of the issue's benchmark and of the ``compare`` rows.

    Parameters
    ----------
    n_samples : int, default=100_000
        Number of rows.
    n_features : int, default=20
        Dimension :math:`d`.
    signal : float, default=2.0
        Norm of :math:`w`, the standard deviation of the margins
        :math:`w^\\top x`.
    intercept : float, default=0.5
        The planted intercept :math:`c`.
    row_scale_std : float, default=0.0
        :math:`\\sigma`, the standard deviation of the logarithm of the row
        scales. Positive values give log-normal row norms, so that a few rows
        carry much of the leverage (the regime where importance sampling
        differs most from uniform sampling); the margins' standard deviation
        is then ``signal`` times :math:`e^{\\sigma^2}`.
    dtype : dtype, default=np.float64
        Dtype of ``X``.
    random_state : int, RandomState instance or None, default=None
        Seed of :math:`w`, ``X`` and the labels.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Labels in {0, 1}.
    coef : ndarray of shape (n_features,)
        The planted :math:`w`.

    Examples
    --------
    >>> from skcgm.datasets import make_logistic_classification
    >>> X, y, coef = make_logistic_classification(1000, 5, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 5), [0, 1])
    """
    rng = check_random_state(random_state)
    coef = rng.standard_normal(n_features)
    coef *= signal / np.linalg.norm(coef)
    X = rng.standard_normal((n_samples, n_features))
    if row_scale_std:
        X *= np.exp(row_scale_std * rng.standard_normal(n_samples))[:, None]
    X = X.astype(dtype, copy=False)
    margins = X @ coef.astype(dtype) + intercept
    probability = expit(margins)
    y = (rng.uniform(size=n_samples) < probability).astype(np.int64)
    return X, y, coef
