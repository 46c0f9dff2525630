"""CompAdaGrad's subspace dimension chosen from the data (``n_components='auto'``)."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import scipy.sparse as sp

from ...utils._math import next_power_of_two

__all__ = ["auto_n_components", "correlation_spectrum"]

# The largest padded dimension at which 'auto' takes the full matrix: a full
# step costs O(n^3). At d = 200 (n = 256) a fit took 6 s against diagonal
# AdaGrad's 0.1 s, for a 38-46% cut of the test error; at d = 500 (n = 512)
# it took a minute for 24-29% (benchmarks/HISTORY.md).
MAX_FULL_PADDED = 256
# The features count as correlated when the effective rank of their
# correlation matrix is at most this share of their number (uncorrelated
# features: 0.6 to 1; correlated families of the panel: 0.01 to 0.43).
MAX_RANK_SHARE = 0.5
# The spread of the spectrum: the decades between the largest eigenvalue and
# the one below which lies TAIL_SHARE of them. The full matrix pays where it
# is MIN_DECADES to MAX_DECADES: below, diagonal AdaGrad's scaling is nearly
# as good (the digits, standardized: 2.0, a tie at many times the cost);
# above, a share of the directions carries next to no variance, and the full
# matrix, which whitens every direction, amplifies what they hold, mostly
# noise (breast cancer: 4.2 to 4.5, low-rank correlated families: 4.3 to
# 5.5, where it erred more than diagonal AdaGrad or gained, family by
# family); spectra spread over two or three decades of variance measure 2.8
# to 3.9.
TAIL_SHARE = 0.05
MIN_DECADES = 2.5
MAX_DECADES = 4.0
# Rows read for the correlation matrix: enough that uncorrelated features
# keep an effective rank above 0.8 of their number (d / m of sampling noise).
ROWS_PER_FEATURE = 4
MIN_ROWS = 1000


def correlation_spectrum(X):
    r"""The eigenvalues of the correlation matrix of the rows of ``X``.

    .. math::

        C = D^{-1/2} M D^{-1/2}, \qquad M = X_m^\top X_m, \quad
        D = \operatorname{diag}(M),

    over the columns that are not all zero, with :math:`X_m` up to
    :math:`\max(4d, 1000)` rows evenly spaced through ``X``. The second
    moment, not the covariance: AdaGrad's statistics are those of the
    gradients :math:`\ell'_i a_i`, which are not centred.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Dense rows.

    Returns
    -------
    eigenvalues : ndarray of shape (n_columns,)
        In decreasing order; they sum to ``n_columns``, the number of
        columns that are not all zero.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.compadagrad._auto import correlation_spectrum
    >>> rng = np.random.RandomState(0)
    >>> Z = rng.standard_normal((2000, 2))
    >>> X = np.hstack([Z, Z + 1e-3 * rng.standard_normal((2000, 2))])
    >>> np.round(correlation_spectrum(X), 2)
    array([2.02, 1.98, 0.  , 0.  ])
    """
    n_samples, n_features = X.shape
    n_rows = min(n_samples, max(ROWS_PER_FEATURE * n_features, MIN_ROWS))
    rows = np.asarray(X[:: max(1, n_samples // n_rows)][:n_rows], dtype=np.float64)
    norms = np.linalg.norm(rows, axis=1)
    rows = rows[norms > 0] / norms[norms > 0, None]
    M = rows.T @ rows
    scale = np.sqrt(np.diag(M))
    kept = scale > 0
    C = M[np.ix_(kept, kept)] / np.outer(scale[kept], scale[kept])
    return np.clip(np.linalg.eigvalsh(C)[::-1], 0.0, None)


def auto_n_components(X):
    r"""The subspace dimension of ``n_components='auto'`` for the data ``X``.

    With :math:`\lambda_1 \ge \dots \ge \lambda_d` the
    :func:`correlation_spectrum` of the features, the full matrix
    (``n_features``: full-matrix AdaGrad in the padded space) when

    .. math::

        \frac{(\sum_i \lambda_i)^2}{\sum_i \lambda_i^2} \le \frac{d}{2}
        \quad\text{and}\quad
        \log_{10} \frac{\lambda_1}{\lambda_{\lceil 0.95 d \rceil}} \le 4,

    that is, when the features are correlated (an effective rank at most
    half their number) over a spectrum without a tail of directions four
    decades below the top, and the padded dimension is at most
    :data:`MAX_FULL_PADDED`; otherwise 0, diagonal AdaGrad. Uncorrelated
    features gain nothing from a subspace; on a tail of nearly empty
    directions the full matrix amplifies their noise; sparse rows are the
    paper's RCV1 regime (no gain); and a random subspace of a few dozen of
    many hundreds of dimensions holds too little of any direction to beat
    diagonal AdaGrad (user guide, CompAdaGrad page, "Choosing the
    defaults", "The subspace chosen from the data").

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The training rows.

    Returns
    -------
    n_components : int
        ``n_features`` or 0.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.compadagrad._auto import auto_n_components
    >>> rng = np.random.RandomState(0)
    >>> auto_n_components(rng.standard_normal((500, 20)))
    0
    >>> scales = np.logspace(0, -1.5, 20)  # three decades of variance
    >>> mixing = np.linalg.qr(rng.standard_normal((20, 20)))[0]
    >>> auto_n_components(rng.standard_normal((500, 20)) * scales @ mixing)
    20
    """
    n_features = X.shape[1]
    if sp.issparse(X) or next_power_of_two(n_features) > MAX_FULL_PADDED:
        return 0
    spectrum = correlation_spectrum(X)
    n_columns = spectrum.shape[0]
    if n_columns < 2:
        return 0
    rank = n_columns**2 / float(np.sum(spectrum**2))
    tail = spectrum[int(np.ceil((1.0 - TAIL_SHARE) * n_columns)) - 1]
    correlated = rank <= MAX_RANK_SHARE * n_columns
    spread = np.log10(spectrum[0] / tail) if tail > 0 else np.inf
    return n_features if correlated and MIN_DECADES <= spread <= MAX_DECADES else 0
