# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False, cdivision=True
"""Compiled inner loop of the squared Euclidean reclassification.

NumPy needs three passes over a block of scores (broadcast, argmin, gather)
and a sparse product for the group sums; this loop does all of it in one pass
per sample, without the GIL, so that blocks can run on several threads.
"""

from cython cimport floating


def assign_and_sum(
    const floating[:, ::1] scores,
    const floating[::1] half_param_sq,
    const floating[::1] half_sample_sq,
    const floating[:, ::1] X,
    const floating[::1] sample_weight,
    Py_ssize_t[::1] labels,
    double[::1] min_losses,
    floating[:, ::1] sums,
    bint with_sums,
):
    """Closest center of every row of a block, and the weighted group sums.

    ``scores[i, j]`` holds :math:`-\\langle y_i, x_j \\rangle`; the loss is
    ``scores[i, j] + half_param_sq[j] + half_sample_sq[i]``. The smallest
    loss wins, ties going to the lowest index (eq. 3.6); its value, clipped at
    zero, goes to ``min_losses``. With ``with_sums``, ``sums[j]`` (zeroed by
    the caller) receives :math:`\\sum_{i \\in C_j} w_i y_i`.
    """
    cdef Py_ssize_t n_rows = scores.shape[0]
    cdef Py_ssize_t n_params = scores.shape[1]
    cdef Py_ssize_t n_features = X.shape[1]
    cdef Py_ssize_t i, j, f, best
    cdef floating value, best_value, weight
    cdef double loss
    with nogil:
        for i in range(n_rows):
            best = 0
            best_value = scores[i, 0] + half_param_sq[0]
            for j in range(1, n_params):
                value = scores[i, j] + half_param_sq[j]
                if value < best_value:
                    best_value = value
                    best = j
            labels[i] = best
            loss = <double>best_value + <double>half_sample_sq[i]
            min_losses[i] = loss if loss > 0 else 0.0
            if with_sums:
                weight = sample_weight[i]
                for f in range(n_features):
                    sums[best, f] += weight * X[i, f]
