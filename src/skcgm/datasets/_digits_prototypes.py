"""The digits 4 vs 9 on Gaussian-kernel prototype features (CompAdaGrad, section 5)."""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.metrics.pairwise import euclidean_distances, rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state

__all__ = ["digits_prototype_features"]


def digits_prototype_features(*, n_prototypes=128, test_size=1 / 3, random_state=None):
    """``load_digits`` 4 vs 9 on Gaussian-kernel prototype features.

    The paper's MNIST 4 vs 9 construction (section 5), on the digits bundled
    with scikit-learn (181 fours, 180 nines, 8 x 8 pixels): a stratified
    train/test split, ``n_prototypes`` prototypes drawn from the training
    split, half per class, and the features of a digit :math:`x` are its
    Gaussian-kernel values against them,

    .. math::

        \\phi_j(x) = \\exp\\Big(-\\frac{\\|x - p_j\\|^2}{2 \\sigma^2}\\Big),
        \\qquad j = 1, \\dots, m,

    dense and strongly correlated. The paper does not give the bandwidth;
    :math:`\\sigma` is the median distance between the training digits and
    the prototypes (the median heuristic).

    Parameters
    ----------
    n_prototypes : int, default=128
        Number :math:`m` of prototypes (even), hence of features. The paper
        uses 400 on MNIST.
    test_size : float, default=1/3
        Fraction of the 361 digits held out for testing.
    random_state : int, RandomState instance or None, default=None
        Seed of the split and of the prototypes.

    Returns
    -------
    X_train : ndarray of shape (n_train, n_prototypes)
        Training features.
    X_test : ndarray of shape (n_test, n_prototypes)
        Test features.
    y_train : ndarray of shape (n_train,)
        Training labels, 4 or 9.
    y_test : ndarray of shape (n_test,)
        Test labels, 4 or 9.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.datasets import digits_prototype_features
    >>> X_train, X_test, y_train, y_test = digits_prototype_features(
    ...     n_prototypes=32, random_state=0
    ... )
    >>> X_train.shape, X_test.shape, np.unique(y_train).tolist()
    ((240, 32), (121, 32), [4, 9])
    """
    rng = check_random_state(random_state)
    X, y = load_digits(return_X_y=True)
    mask = (y == 4) | (y == 9)
    X, y = X[mask], y[mask]
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_size, stratify=y, random_state=rng
    )
    per_class = n_prototypes // 2
    prototypes = np.concatenate(
        [
            rng.choice(np.flatnonzero(y_train == label), per_class, replace=False)
            for label in (4, 9)
        ]
    )
    P = X_train[prototypes]
    distances = euclidean_distances(X_train, P)
    # Median over the pairs of distinct points (a prototype's distance to
    # itself is 0).
    sigma = np.median(distances[distances > 0])
    gamma = 1.0 / (2.0 * sigma**2)
    X_train = rbf_kernel(X_train, P, gamma=gamma)
    X_test = rbf_kernel(X_test, P, gamma=gamma)
    return X_train, X_test, y_train, y_test
