"""Integer checks of the oracles' hyper-parameters."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral


def _check_int(owner, name, value, low, high=None):
    """Raise a ValueError naming ``name`` unless ``low <= value <= high``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, Integral)
        or value < low
        or (high is not None and value > high)
    ):
        bounds = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(
            f"The '{name}' parameter of {owner} must be an int {bounds}; got {value!r}."
        )
