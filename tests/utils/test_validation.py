"""Tests of the shared data checks of skcgm.utils._validation (issue 40)."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest

from skcgm.utils._validation import check_atoms, check_matrix


def test_check_matrix():
    matrix = [[1, 2], [3, 4]]
    result = check_matrix(matrix, "M")
    assert result.dtype == np.float64
    source = np.ones((2, 2))
    assert check_matrix(source, "M") is not source  # always a new array
    with pytest.raises(ValueError, match="M must be a 2-D array of real numbers"):
        check_matrix([["a"]], "M")
    with pytest.raises(ValueError, match="M must be a square adjacency matrix"):
        check_matrix("graph", "M", square=True, accepted="a square adjacency matrix")
    with pytest.raises(
        ValueError, match=r"M must be a non-empty 2-D array; got shape \(2,\)"
    ):
        check_matrix([1.0, 2.0], "M")
    with pytest.raises(ValueError, match="non-empty square matrix"):
        check_matrix(np.ones((2, 3)), "M", square=True)
    with pytest.raises(ValueError, match="non-empty 2-D array"):
        check_matrix(np.ones((0, 3)), "M")
    with pytest.raises(ValueError, match="M must contain only finite values"):
        check_matrix([[np.nan]], "M")


def test_check_atoms():
    assert check_atoms(np.ones((2, 3), dtype=np.float32)).dtype == np.float32
    with pytest.raises(ValueError, match="atoms .*Scale"):
        check_atoms(np.full((2, 2), 1e160))
    with pytest.raises(ValueError, match="points"):
        check_atoms([[np.inf]], input_name="points")
