"""Small numerical helpers shared by the oracles, solvers and online learners."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import math
import sys

import numpy as np

__all__ = ["MAX_RADIUS", "next_power_of_two", "scaled_norm"]

# The largest radius R whose 27 R^2 (bound 4, Lemma 6) and squared distances
# between points of R B stay finite.
MAX_RADIUS = math.sqrt(sys.float_info.max / 64.0)


def scaled_norm(v):
    """Euclidean norm, inf only when it exceeds the float64 range.

    The largest entry is factored out, so that squares do not overflow.
    """
    scale = float(np.max(np.abs(v))) if v.size else 0.0
    if scale == 0.0:
        return 0.0
    v = v / scale
    return scale * math.sqrt(float(v @ v))


def next_power_of_two(n):
    """Smallest power of two that is at least ``n`` (1 for ``n <= 1``)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()
