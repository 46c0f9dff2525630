"""Relocation of empty groups (skcgm.optim.sum_of_min._empty_groups)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from skcgm.optim import SquaredEuclideanLoss
from skcgm.optim.sum_of_min._empty_groups import _largest, relocate_empty


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    values=arrays(
        np.float64,
        st.integers(1, 60),
        # Few distinct values: many ties at the cut.
        elements=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]),
    ),
    data=st.data(),
)
def test_largest_is_the_head_of_a_stable_descending_sort(values, data):
    m = data.draw(st.integers(1, values.size + 2))
    expected = np.argsort(-values, kind="stable")[:m]
    np.testing.assert_array_equal(_largest(values, m), expected)


def test_relocation_fills_the_lowest_empty_group_with_the_worst_served_row():
    # Rows 3 and 4 are the farthest from their centers (ties broken by the
    # lower index); groups 1 and 3 are empty.
    X = np.array([[0.0], [0.1], [-0.1], [5.0], [-5.0], [1.0]])
    problem = SquaredEuclideanLoss().bind(X)
    centers = np.array([[0.0], [100.0], [200.0], [300.0]])
    labels, min_losses, _, _ = problem.reclassify(centers, np.ones(6))
    labels[5] = 2
    moved = relocate_empty(problem, labels, min_losses, np.ones(6), 4)
    np.testing.assert_array_equal(moved, [3, 4])
    np.testing.assert_array_equal(labels, [0, 0, 0, 1, 3, 2])
