# cython: language_level=3, boundscheck=False, wraparound=False
# cython: initializedcheck=False
"""The largest absolute value of a float array, in one pass over memory.

Validation needs both the largest magnitude of X (the bound on its squares)
and whether X is finite; NumPy's ``max`` and ``min`` read X twice and
scikit-learn's finiteness check a third time, each pass as long as a
CompAdaGrad step on a few thousand rows. Here one pass answers both: an IEEE
float's magnitude orders as the integer of its bits with the sign cleared,
and infinities and NaN come above every finite value, so one integer maximum
over the bits is the largest magnitude, or shows a value that is not finite.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy

cdef uint64_t MAGNITUDE_64 = 0x7FFFFFFFFFFFFFFFULL
cdef uint64_t INFINITY_64 = 0x7FF0000000000000ULL
cdef uint32_t MAGNITUDE_32 = 0x7FFFFFFFU
cdef uint32_t INFINITY_32 = 0x7F800000U


cdef uint64_t _largest_bits_64(const uint64_t* bits, Py_ssize_t size) noexcept nogil:
    cdef uint64_t m0 = 0, m1 = 0, m2 = 0, m3 = 0, b
    cdef Py_ssize_t i
    # Four running maxima: independent chains the compiler keeps in vector
    # registers.
    for i in range(0, size - size % 4, 4):
        b = bits[i] & MAGNITUDE_64
        m0 = b if b > m0 else m0
        b = bits[i + 1] & MAGNITUDE_64
        m1 = b if b > m1 else m1
        b = bits[i + 2] & MAGNITUDE_64
        m2 = b if b > m2 else m2
        b = bits[i + 3] & MAGNITUDE_64
        m3 = b if b > m3 else m3
    for i in range(size - size % 4, size):
        b = bits[i] & MAGNITUDE_64
        m0 = b if b > m0 else m0
    m0 = m1 if m1 > m0 else m0
    m2 = m3 if m3 > m2 else m2
    return m2 if m2 > m0 else m0


cdef uint32_t _largest_bits_32(const uint32_t* bits, Py_ssize_t size) noexcept nogil:
    cdef uint32_t m = 0, b
    cdef Py_ssize_t i
    for i in range(size):
        b = bits[i] & MAGNITUDE_32
        m = b if b > m else m
    return m


def contiguous_largest_magnitude(values):
    """The largest absolute value of a contiguous float32 or float64 array.

    Parameters
    ----------
    values : ndarray of dtype float32 or float64
        C- or F-contiguous, not empty.

    Returns
    -------
    magnitude : float
        :math:`\\max_i |v_i|`; ``inf`` when an entry is infinite or NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.utils._magnitude import contiguous_largest_magnitude
    >>> contiguous_largest_magnitude(np.array([[1.0, -3.0], [2.0, 0.5]]))
    3.0
    >>> contiguous_largest_magnitude(np.array([1.0, np.nan], dtype=np.float32))
    inf
    """
    cdef const unsigned char[::1] raw = values.reshape(-1, order="A").view(
        "uint8"
    )
    cdef Py_ssize_t size = values.size
    cdef uint64_t bits64
    cdef uint32_t bits32
    cdef double magnitude64
    cdef float magnitude32
    if values.dtype.itemsize == 8:
        with nogil:
            bits64 = _largest_bits_64(<const uint64_t*>&raw[0], size)
        if bits64 >= INFINITY_64:
            return float("inf")
        memcpy(&magnitude64, &bits64, 8)
        return magnitude64
    with nogil:
        bits32 = _largest_bits_32(<const uint32_t*>&raw[0], size)
    if bits32 >= INFINITY_32:
        return float("inf")
    memcpy(&magnitude32, &bits32, 4)
    return float(magnitude32)
