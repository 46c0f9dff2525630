"""Sample weights of the sum-of-minimum engine: normalization and inertia."""

import numpy as np

__all__ = ["inertia", "normalized_weights"]


def inertia(problem, objective, sample_weight):
    """scikit-learn's inertia from the paper's objective :math:`F`.

    The weighted sum of the losses, scaled by the family's ``inertia_scale``
    (2 where :math:`f_i` is half a squared distance); ``sample_weight`` None
    means unit weights (a fit on the chunks of a dask array). A sum beyond
    float64 (huge weights) is refused naming ``sample_weight``: the
    objective, a weighted mean, does not depend on a common scale of the
    weights.
    """
    if sample_weight is None:
        largest, relative = 1.0, float(problem.n_samples)
    else:
        largest = float(sample_weight.max())
        relative = float((sample_weight / largest).sum())
    # The largest factor last, in Python floats (which overflow to inf
    # without numpy's warning): the sum of the weights alone may overflow.
    inertia = problem.inertia_scale * objective * relative * largest
    if not np.isfinite(inertia):
        raise ValueError(
            f"The inertia, {problem.inertia_scale:g} * sum(sample_weight) times "
            f"the mean loss {objective:.3g}, overflows float64: sample_weight "
            f"sums to {relative:.6g} times its largest entry {largest:.3g}. "
            "Scale sample_weight down: the clustering does not depend on a "
            "common factor of the weights."
        )
    return inertia


def normalized_weights(sample_weight, dtype=None):
    """The weights times the power of two that brings their sum into [1, 2).

    Every routine of the engine is invariant to a common scale of the
    weights; this one is exact (no rounding, bar subnormals) and keeps their
    sums and the weighted sums of the data within range however large the
    weights, also once cast to ``dtype`` (default: their own), float32 for
    float32 data.
    """
    dtype = sample_weight.dtype if dtype is None else dtype
    with np.errstate(under="ignore"):
        _, exponent = np.frexp(sample_weight.max())
        scaled = np.ldexp(sample_weight, -int(exponent))
        _, exponent = np.frexp(scaled.sum())
        return np.ldexp(scaled, 1 - int(exponent)).astype(dtype, copy=False)
