"""Tests of the fast Walsh-Hadamard transform, the SRHT and CountSketch."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import hadamard
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skcgm.oracles import SRHT, CountSketch, fwht
from skcgm.utils._math import next_power_of_two


@pytest.mark.parametrize("d", [1, 2, 4, 8, 16, 64, 256])
@pytest.mark.parametrize("normalize", [True, False])
def test_fwht_matches_scipy_hadamard(d, normalize):
    rng = np.random.RandomState(d)
    X = rng.standard_normal((5, d))
    H = hadamard(d).astype(float)
    if normalize:
        H /= np.sqrt(d)
    np.testing.assert_allclose(fwht(X, normalize=normalize), X @ H, atol=1e-12)
    np.testing.assert_allclose(fwht(X[0], normalize=normalize), X[0] @ H, atol=1e-12)


def test_fwht_of_unit_vectors_gives_hadamard_rows_exactly():
    d = 32
    np.testing.assert_array_equal(fwht(np.eye(d), normalize=False), hadamard(d))


def test_fwht_batch_equals_loop():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((3, 4, 64))
    Y = fwht(X)
    assert Y.shape == X.shape
    # The transform runs as BLAS products, whose blocking (hence rounding)
    # depends on the batch size: equal to rounding, not bit for bit.
    for i in range(3):
        for j in range(4):
            np.testing.assert_allclose(Y[i, j], fwht(X[i, j]), rtol=0, atol=1e-13)


def test_fwht_does_not_modify_its_input():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((4, 16))
    X_copy = X.copy()
    fwht(X)
    fwht(X[:, ::1], normalize=False)
    np.testing.assert_array_equal(X, X_copy)
    X.setflags(write=False)  # read-only input is fine
    fwht(X)
    # A non-contiguous view is transformed like its copy.
    Z = rng.standard_normal((16, 6))
    np.testing.assert_array_equal(fwht(Z.T), fwht(np.ascontiguousarray(Z.T)))


def test_fwht_is_orthogonal_and_an_involution():
    rng = np.random.RandomState(1)
    X = rng.standard_normal((7, 128))
    Y = fwht(X)
    np.testing.assert_allclose(np.linalg.norm(Y, axis=1), np.linalg.norm(X, axis=1))
    np.testing.assert_allclose(fwht(Y), X, atol=1e-12)


@pytest.mark.parametrize(
    "dtype, expected",
    [(np.float32, np.float32), (np.float64, np.float64), (np.int64, np.float64)],
)
def test_fwht_dtypes(dtype, expected):
    X = np.arange(8).astype(dtype)
    Y = fwht(X, normalize=False)
    assert Y.dtype == expected
    np.testing.assert_allclose(Y, X @ hadamard(8), rtol=1e-6)


def test_fwht_bad_input():
    with pytest.raises(ValueError, match="last dimension of X must be a power of two"):
        fwht(np.ones(6))
    with pytest.raises(ValueError, match="last dimension of X"):
        fwht(np.ones((3, 0)))
    with pytest.raises(ValueError, match="X must have at least one dimension"):
        fwht(np.float64(1.0))
    with pytest.raises(ValueError, match="X must be a numeric array"):
        fwht(np.array(["a", "b"]))
    with pytest.raises(TypeError, match="sparse"):
        fwht(sp.csr_matrix(np.ones((2, 4))))


@pytest.mark.parametrize(
    "n, expected", [(0, 1), (1, 1), (2, 2), (3, 4), (4, 4), (5, 8), (1000, 1024)]
)
def test_next_power_of_two(n, expected):
    assert next_power_of_two(n) == expected


@pytest.mark.parametrize("scaling", ["srht", "orthonormal"])
@pytest.mark.parametrize(
    "n_features, n_components", [(10, 4), (16, 1), (5, 8), (33, 7)]
)
def test_srht_components_are_scaled_hadamard_rows(scaling, n_features, n_components):
    srht = SRHT(n_components, scaling=scaling, random_state=0).fit(n_features)
    n = next_power_of_two(n_features)
    k = min(n_components, n)
    assert (srht.n_features_in_, srht.n_padded_, srht.n_components_) == (
        n_features,
        n,
        k,
    )
    assert srht.rows_.shape == (k,)
    assert np.all(np.diff(srht.rows_) > 0) and 0 <= srht.rows_.min()
    assert srht.rows_.max() < n
    assert set(np.unique(srht.signs_)) <= {-1.0, 1.0}
    scale = np.sqrt(n / k) if scaling == "srht" else 1.0
    assert srht.scale_ == pytest.approx(scale)
    # Pi = c R H Sigma with the orthonormal H of scipy.linalg.hadamard.
    expected = scale * hadamard(n)[srht.rows_] * srht.signs_ / np.sqrt(n)
    np.testing.assert_allclose(srht.components_, expected, rtol=1e-14)
    assert srht.components_.flags.c_contiguous
    assert srht.components_.dtype == np.float64


@pytest.mark.parametrize("scaling", ["srht", "orthonormal"])
@pytest.mark.parametrize("n_components", [1, 5, 32, 64])
def test_srht_orthogonality_up_to_the_documented_scaling(scaling, n_components):
    srht = SRHT(n_components, scaling=scaling, random_state=3).fit(60)
    Pi = srht.components_
    n, k = srht.n_padded_, srht.n_components_
    c2 = n / k if scaling == "srht" else 1.0
    np.testing.assert_allclose(Pi @ Pi.T, c2 * np.eye(k), atol=1e-12)
    # P = Pi^T Pi / c^2 is the orthogonal projector onto the sketched subspace.
    P = Pi.T @ Pi / c2
    np.testing.assert_allclose(P @ P, P, atol=1e-12)
    np.testing.assert_allclose(P, P.T, atol=0)
    assert np.trace(P) == pytest.approx(k)
    if k == n:
        np.testing.assert_allclose(P, np.eye(n), atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_srht_transform_matches_components(dtype):
    rng = np.random.RandomState(0)
    srht = SRHT(6, random_state=1).fit(20)
    Pi = srht.components_
    X = rng.standard_normal((9, 20)).astype(dtype)
    Y = srht.transform(X)
    assert Y.shape == (9, 6) and Y.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(Y, X @ Pi[:, :20].T, rtol=tol, atol=tol)
    # Already padded input, a single vector, and CSR input give the same.
    X_pad = np.hstack([X, np.zeros((9, 12), dtype=dtype)])
    np.testing.assert_allclose(srht.transform(X_pad), Y, rtol=tol, atol=tol)
    np.testing.assert_allclose(srht.transform(X[3]), Y[3], rtol=tol, atol=tol)
    Y_csr = srht.transform(sp.csr_matrix(X))
    assert isinstance(Y_csr, np.ndarray) and Y_csr.dtype == dtype
    np.testing.assert_allclose(Y_csr, Y, rtol=tol, atol=tol)


def test_srht_transform_many_rows_is_chunked():
    rng = np.random.RandomState(0)
    srht = SRHT(3, random_state=0).fit(2**12)
    X = rng.standard_normal((300, 2**12))  # more than one block of 2**20 values
    np.testing.assert_allclose(srht.transform(X), X @ srht.components_.T, atol=1e-10)


def test_srht_inverse_transform_is_the_adjoint():
    rng = np.random.RandomState(0)
    srht = SRHT(5, random_state=2).fit(12)
    Pi = srht.components_
    Y = rng.standard_normal((4, 5))
    X = srht.inverse_transform(Y)
    assert X.shape == (4, 16)
    np.testing.assert_allclose(X, Y @ Pi, atol=1e-12)
    np.testing.assert_allclose(srht.inverse_transform(Y[0]), Y[0] @ Pi, atol=1e-12)
    x = rng.standard_normal(16)
    assert srht.transform(x) @ Y[0] == pytest.approx(x @ srht.inverse_transform(Y[0]))
    # Projector: inverse_transform(transform(x)) / c^2 = P x.
    Px = srht.inverse_transform(srht.transform(x)) / srht.scale_**2
    np.testing.assert_allclose(Px, Pi.T @ Pi @ x / srht.scale_**2, atol=1e-12)


def test_srht_zero_components():
    srht = SRHT(0, random_state=0).fit(5)
    assert srht.n_components_ == 0 and srht.components_.shape == (0, 8)
    assert srht.scale_ == 1.0
    assert srht.transform(np.ones((3, 5))).shape == (3, 0)
    np.testing.assert_array_equal(srht.inverse_transform(np.ones((2, 0))), 0.0)


def test_srht_reproducible_under_random_state():
    a = SRHT(8, random_state=42).fit(100)
    b = SRHT(8, random_state=42).fit(100)
    c = SRHT(8, random_state=43).fit(100)
    np.testing.assert_array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(a.rows_, b.rows_)
    assert not np.array_equal(a.components_, c.components_)
    rs = np.random.RandomState(0)
    d = SRHT(8, random_state=rs).fit(100)
    e = SRHT(8, random_state=rs).fit(100)  # the generator has moved on
    assert not np.array_equal(d.components_, e.components_)


def test_srht_params_clone_pickle():
    srht = SRHT(4, scaling="orthonormal", random_state=0)
    assert srht.get_params() == {
        "n_components": 4,
        "random_state": 0,
        "scaling": "orthonormal",
    }
    assert repr(srht) == "SRHT(n_components=4, random_state=0, scaling='orthonormal')"
    cloned = clone(srht)
    assert cloned.get_params() == srht.get_params()
    assert srht.set_params(n_components=2) is srht and srht.n_components == 2
    with pytest.raises(ValueError, match="Invalid parameter 'foo'"):
        srht.set_params(foo=1)
    srht.fit(10)
    restored = pickle.loads(pickle.dumps(srht))
    np.testing.assert_array_equal(restored.components_, srht.components_)


def test_srht_bad_input():
    with pytest.raises(ValueError, match="'n_components' parameter of SRHT"):
        SRHT(-1).fit(4)
    with pytest.raises(ValueError, match="'n_components' parameter of SRHT"):
        SRHT(2.5).fit(4)
    with pytest.raises(ValueError, match="'scaling' parameter of SRHT"):
        SRHT(2, scaling="gaussian").fit(4)
    with pytest.raises(ValueError, match="'n_features' parameter of SRHT"):
        SRHT(2).fit(0)
    with pytest.raises(NotFittedError, match="not fitted"):
        SRHT(2).transform(np.ones((1, 4)))
    srht = SRHT(2, random_state=0).fit(5)
    with pytest.raises(ValueError, match="X must be a 1-D or 2-D array with 5 or 8"):
        srht.transform(np.ones((2, 6)))
    with pytest.raises(ValueError, match="Y must be a 1-D or 2-D array"):
        srht.inverse_transform(np.ones((2, 3)))


def _explicit_countsketch(hashes, signs, k):
    """The k x d sketching matrix, built from its definition."""
    d = hashes.shape[0]
    return sp.coo_matrix((signs, (hashes, np.arange(d))), shape=(k, d)).toarray()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_countsketch_matches_explicit_matrix(dtype, csr_container):
    rng = np.random.RandomState(0)
    cs = CountSketch(7, random_state=0).fit(50)
    assert cs.hashes_.shape == (50,) and cs.signs_.shape == (50,)
    assert cs.hashes_.min() >= 0 and cs.hashes_.max() < 7
    assert set(np.unique(cs.signs_)) <= {-1.0, 1.0}
    S = _explicit_countsketch(cs.hashes_, cs.signs_, 7)
    np.testing.assert_array_equal(cs.components_.toarray(), S)
    X = rng.standard_normal((11, 50)) * (rng.uniform(size=(11, 50)) < 0.2)
    X = X.astype(dtype)
    Y = cs.transform(X)
    assert Y.shape == (11, 7) and Y.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(Y, X @ S.T, rtol=tol, atol=tol)
    Y_sparse = cs.transform(csr_container(X))
    assert isinstance(Y_sparse, np.ndarray) and Y_sparse.dtype == dtype
    np.testing.assert_allclose(Y_sparse, Y, rtol=tol, atol=tol)


def test_countsketch_reproducible_and_params():
    a = CountSketch(5, random_state=1).fit(30)
    b = CountSketch(5, random_state=1).fit(30)
    np.testing.assert_array_equal(a.hashes_, b.hashes_)
    np.testing.assert_array_equal(a.signs_, b.signs_)
    assert a.get_params() == {"n_components": 5, "random_state": 1}
    assert clone(a).get_params() == a.get_params()
    restored = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(restored.hashes_, a.hashes_)


def test_countsketch_bad_input():
    with pytest.raises(ValueError, match="'n_components' parameter of CountSketch"):
        CountSketch(0).fit(3)
    with pytest.raises(ValueError, match="'n_features' parameter of CountSketch"):
        CountSketch(2).fit(-1)
    with pytest.raises(NotFittedError):
        CountSketch(2).transform(np.ones((1, 3)))
    with pytest.raises(ValueError, match="X must have n_features_in_=3 columns"):
        CountSketch(2, random_state=0).fit(3).transform(np.ones((1, 4)))
