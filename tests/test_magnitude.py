"""The largest magnitude of the data in one pass (skcgm.utils._magnitude)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from skcgm.utils._magnitude import contiguous_largest_magnitude

from skcgm.utils._validation import check_square_range, largest_magnitude


def test_largest_magnitude_is_numpys_on_generated_arrays(property_settings):
    # Any finite values, subnormals, signed zeros and the extremes of the
    # dtype included, in C or F order: the bits' maximum is |x|'s.
    @given(
        values=hnp.arrays(
            st.sampled_from([np.float32, np.float64]),
            hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=40),
            elements=st.floats(allow_nan=False, allow_infinity=False, width=32),
        ),
        fortran=st.booleans(),
    )
    def check(values, fortran):
        values = np.asfortranarray(values) if fortran else values
        expected = float(np.abs(values).max())
        assert contiguous_largest_magnitude(values) == expected
        assert largest_magnitude(values) == expected

    property_settings(check)()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_value_that_is_not_finite_reads_as_infinite(dtype, bad):
    values = np.arange(12, dtype=dtype).reshape(3, 4)
    values[2, 1] = bad
    assert contiguous_largest_magnitude(values) == np.inf
    # check_square_range then raises scikit-learn's error on non-finite data.
    with pytest.raises(ValueError, match="Input X contains (NaN|infinity)"):
        check_square_range(values)


def test_other_arrays_take_numpys_reductions():
    values = np.arange(-20.0, 20.0).reshape(8, 5)
    assert largest_magnitude(values[:, ::2]) == 20.0  # not contiguous
    assert largest_magnitude(values.astype(np.int64)) == 20.0
    assert largest_magnitude(np.empty((0, 3))) == 0.0
