"""Random draws shared by the solvers and the data generators.

A ``random_state`` is validated by its constraint (``RANDOM_STATE`` of
:mod:`skcgm.utils._params`: None, an int, a RandomState or a Generator); the
two functions below turn it into the stream to draw from.
"""

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["MAX_SEED", "as_random_state", "as_rng", "random_orthonormal"]

#: Exclusive upper bound of the integer seeds drawn for sub-runs (restarts,
#: one-vs-rest problems, trials): every seed is a valid ``random_state``.
MAX_SEED = np.iinfo(np.int32).max


def as_rng(random_state):
    """A RandomState or Generator to draw from; a Generator is kept as is.

    Anything else goes through :func:`sklearn.utils.check_random_state`
    (which raises a ValueError for what cannot seed a RandomState).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.utils._random import as_rng
    >>> type(as_rng(0)).__name__, type(as_rng(np.random.default_rng(0))).__name__
    ('RandomState', 'Generator')
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    return check_random_state(random_state)


def as_random_state(random_state):
    """A RandomState to draw from; a Generator is wrapped, not reseeded.

    The RandomState of a :class:`numpy.random.Generator` draws from the
    Generator's own bit generator; anything else goes through
    :func:`sklearn.utils.check_random_state`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.utils._random import as_random_state
    >>> type(as_random_state(np.random.default_rng(0))).__name__
    'RandomState'
    """
    if isinstance(random_state, np.random.Generator):
        return np.random.RandomState(random_state.bit_generator)
    return check_random_state(random_state)


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
