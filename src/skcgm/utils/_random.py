"""Random draws shared by the solvers and the data generators."""

import numpy as np


def random_orthonormal(n_features, n_columns, random_state):
    """Draw a uniformly random ``(n_features, n_columns)`` orthonormal matrix.

    The Q factor of a Gaussian matrix, with the signs fixed by the diagonal
    of R so that the distribution is the Haar measure.

    Parameters
    ----------
    n_features, n_columns : int
        Shape, ``n_columns <= n_features``.
    random_state : RandomState instance
        The generator.

    Returns
    -------
    basis : ndarray of shape (n_features, n_columns)
        Orthonormal columns.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.utils._random import random_orthonormal
    >>> Q = random_orthonormal(4, 2, np.random.RandomState(0))
    >>> np.allclose(Q.T @ Q, np.eye(2))
    True
    """
    gaussian = random_state.standard_normal((n_features, n_columns))
    q, r = np.linalg.qr(gaussian)
    signs = np.sign(np.diag(r))
    signs[signs == 0] = 1
    return q * signs
