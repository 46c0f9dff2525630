"""Kernel mean embeddings and the squared maximum mean discrepancy (MMD).

The mean embedding of a weighted set of points :math:`\\mu = \\sum_j p_j
\\Phi(y_j)` is known through the kernel only: its inner products with the
features of other points and its squared norm. Kernel herding matches it
(Xu, Song, Shrivastava et al., "Breaking the linear iteration cost barrier for
some well-known conditional gradient methods using MaxIP data-structures",
NeurIPS 2021, eq. 19), and the squared MMD measures how well.
"""

import numpy as np
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel

from ..utils._blocks import row_blocks

__all__ = ["kernel_mean_embedding", "kernel_mean_squared_norm", "squared_mmd"]


def _pairwise_kernel(X, Y, kernel, gamma):
    if kernel == "rbf":
        return rbf_kernel(X, Y, gamma=gamma)
    return linear_kernel(X, Y)


def kernel_mean_embedding(X, Y, weights, *, kernel="rbf", gamma=None):
    """Inner products of the mean embedding of weighted ``Y`` with the rows of ``X``.

    .. math::

        m_i = \\langle \\Phi(x_i), \\mu \\rangle = \\sum_j p_j k(x_i, y_j),

    computed in blocks of rows of bounded memory: no
    ``n_samples_X x n_samples_Y`` matrix is stored.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples_X, n_features)
        The points at which the embedding is evaluated.
    Y : {ndarray, sparse matrix} of shape (n_samples_Y, n_features)
        The points of the embedded measure.
    weights : ndarray of shape (n_samples_Y,)
        Their weights :math:`p_j`.
    kernel : {'rbf', 'linear'}, default='rbf'
        :math:`k(x, y) = \\exp(-\\gamma \\|x - y\\|^2)` or
        :math:`\\langle x, y \\rangle`.
    gamma : float, default=None
        RBF bandwidth; None means ``1 / n_features``. Unused by 'linear'.

    Returns
    -------
    embedding : ndarray of shape (n_samples_X,)
        The values :math:`m_i`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import kernel_mean_embedding
    >>> X = np.array([[0.0], [1.0]])
    >>> kernel_mean_embedding(X, X, np.array([0.5, 0.5]), kernel="linear")
    array([0. , 0.5])
    """
    embedding = np.empty(X.shape[0])
    for block in row_blocks(X.shape[0], Y.shape[0]):
        embedding[block] = _pairwise_kernel(X[block], Y, kernel, gamma) @ weights
    return embedding


def kernel_mean_squared_norm(X, *, kernel="rbf", gamma=None):
    """Squared norm of the uniform mean embedding of the rows of ``X``.

    .. math::

        \\Big\\| \\frac{1}{n} \\sum_i \\Phi(x_i) \\Big\\|^2
        = \\frac{1}{n^2} \\sum_{i,j} k(x_i, x_j),

    the data term of :func:`squared_mmd`, in blocks of rows of bounded
    memory. It costs :math:`O(n^2 d)`: compute it once when several subsets
    of the same data are compared.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The points, uniformly weighted.
    kernel : {'rbf', 'linear'}, default='rbf'
        :math:`k(x, y) = \\exp(-\\gamma \\|x - y\\|^2)` or
        :math:`\\langle x, y \\rangle`.
    gamma : float, default=None
        RBF bandwidth; None means ``1 / n_features``. Unused by 'linear'.

    Returns
    -------
    squared_norm : float
        The squared norm of the mean embedding.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import kernel_mean_squared_norm
    >>> kernel_mean_squared_norm(np.array([[1.0], [3.0]]), kernel="linear")
    4.0
    """
    n = X.shape[0]
    if kernel == "linear":
        # The feature map is the identity: the mean stays in range where the
        # sum of the n**2 kernel entries would overflow.
        mean = np.asarray(X.mean(axis=0)).ravel()
        return float(mean @ mean)
    total = sum(
        _pairwise_kernel(X[block], X, kernel, gamma).sum() for block in row_blocks(n, n)
    )
    return float(total / n**2)


def squared_mmd(
    X, indices, weights, *, kernel="rbf", gamma=None, Y=None, data_term=None
):
    """Squared MMD between the rows of ``X`` and a weighted subset of points.

    .. math::

        \\mathrm{MMD}^2 = \\frac{1}{n^2} \\sum_{i,j} k(x_i, x_j)
        - \\frac{2}{n} \\sum_a w_a \\sum_j k(y_a, x_j)
        + \\sum_{a,b} w_a w_b k(y_a, y_b),

    the squared distance between the uniform mean embedding of ``X`` and the
    weighted one of the subset (eq. 19 of Xu, Song, Shrivastava et al., 2021),
    computed with the exact kernel whatever features the subset was chosen
    with.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data, uniformly weighted.
    indices : array-like of int
        Rows of the subset in ``Y`` (repeats allowed).
    weights : array-like of float
        Their weights, summing to 1.
    kernel : {'rbf', 'linear'}, default='rbf'
        :math:`k(x, y) = \\exp(-\\gamma \\|x - y\\|^2)` or
        :math:`\\langle x, y \\rangle`.
    gamma : float, default=None
        RBF bandwidth; None means ``1 / n_features``. Unused by 'linear'.
    Y : {ndarray, sparse matrix} of shape (n_points, n_features), default=None
        The points ``indices`` refers to; None means ``X`` (a subset of the
        data).
    data_term : float or None, default=None
        :func:`kernel_mean_squared_norm` of ``X`` if already computed (it
        costs :math:`O(n^2 d)`).

    Returns
    -------
    mmd2 : float
        The squared MMD, clipped at 0 against rounding.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import squared_mmd
    >>> X = np.array([[0.0], [1.0]])
    >>> squared_mmd(X, [0, 1], [0.5, 0.5], gamma=1.0)
    0.0
    >>> round(squared_mmd(X, [0], [1.0], gamma=1.0), 4)
    0.3161
    """
    weights = np.asarray(weights, dtype=np.float64)
    support = (X if Y is None else Y)[np.asarray(indices, dtype=np.intp)]
    if kernel == "linear":
        # Through the means, which stay in range (see kernel_mean_squared_norm).
        diff = np.asarray(X.mean(axis=0)).ravel() - support.T @ weights
        return float(diff @ diff)
    if data_term is None:
        data_term = kernel_mean_squared_norm(X, kernel=kernel, gamma=gamma)
    n = X.shape[0]
    cross = float(_pairwise_kernel(X, support, kernel, gamma).sum(axis=0) @ weights)
    subset_term = float(
        weights @ _pairwise_kernel(support, support, kernel, gamma) @ weights
    )
    return max(data_term - 2.0 * cross / n + subset_term, 0.0)
