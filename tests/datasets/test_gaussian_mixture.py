"""Tests of the Gaussian mixture generator."""

import numpy as np

from skcgm.datasets import make_gaussian_mixture


def test_gaussian_mixture_is_seeded():
    a = make_gaussian_mixture(50, 3, random_state=1)
    b = make_gaussian_mixture(50, 3, random_state=1)
    assert a.shape == (50, 3)
    np.testing.assert_array_equal(a, b)
