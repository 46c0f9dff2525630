"""Tests of the lazily signed rows a_i = b_i [x_i, 1] of the proximal point solver."""

import numpy as np
import pytest

from skcgm.optim import approximate_proximal_point
from skcgm.optim.proximal_point._signed_rows import (
    _SignedRows,
    scaled_gram,
    scaled_leverage,
    signed_gram,
    signed_rows,
    write_rows,
)
from skcgm.oracles import LogisticLoss
from skcgm.oracles._leverage import leverage_transform

LOSS = LogisticLoss()

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _dense(X, signs, fit_intercept):
    rows = np.column_stack([X, np.ones(len(X))]) if fit_intercept else X
    return rows if signs is None else signs[:, None] * rows


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("with_signs", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_signed_rows_act_like_the_written_out_matrix(fit_intercept, with_signs, dtype):
    rng = np.random.RandomState(0)
    X = rng.standard_normal((50, 4)).astype(dtype)
    signs = np.where(rng.uniform(size=50) < 0.5, -1.0, 1.0) if with_signs else None
    # Unsigned rows without an intercept too: the operator's products run on
    # threads over blocks of rows.
    A = signed_rows(X, signs, fit_intercept)
    dense = _dense(X.astype(np.float64), signs, fit_intercept)
    x, v = rng.standard_normal(A.shape[1]), rng.standard_normal(50)
    assert A.shape == dense.shape and A.dtype == dtype
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(A @ x.astype(dtype), dense @ x, rtol=tol, atol=tol)
    np.testing.assert_allclose(A.T @ v.astype(dtype), dense.T @ v, rtol=tol, atol=tol)
    rows = np.array([3, 0, 41, 41])
    np.testing.assert_array_equal(A[rows], dense[rows].astype(dtype))
    np.testing.assert_array_equal(A[5:9], dense[5:9].astype(dtype))
    np.testing.assert_allclose(
        A.squared_row_norms(), np.sum(dense**2, axis=1), rtol=tol
    )
    # Inputs untouched.
    assert isinstance(A, _SignedRows) and A.X is X


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize(
    "rows",
    [
        slice(None),
        slice(3, 11),
        slice(2, 40, 3),
        slice(30, 5, -4),
        slice(7, 7),
        np.array([4, 0, 39, 4, -1, -40]),
        np.arange(40) % 3 == 0,
        [],
    ],
    ids=["all", "range", "step", "reversed", "empty", "indices", "mask", "none"],
)
def test_write_rows_equals_numpy_indexing_and_scaling(dtype, order, rows):
    rng = np.random.RandomState(2)
    X = np.asarray(rng.standard_normal((40, 5)), dtype=dtype, order=order)
    signs = np.where(rng.uniform(size=40) < 0.5, -1.0, 1.0).astype(dtype)
    scale, extra = rng.uniform(0.1, 2.0, 40), rng.standard_normal(40)
    X_before = X.copy()
    # In the dtype of X without factors; float64 once a float64 factor enters.
    expected = signs[rows, None] * np.column_stack([X, np.ones(40, dtype)])[rows]
    block = write_rows(X, rows, signs=signs, intercept=True, dtype=dtype)
    assert block.dtype == dtype and block.flags.c_contiguous
    np.testing.assert_array_equal(block, expected)
    scaled = (signs * scale)[rows, None] * np.column_stack([X, np.ones(40)])[rows]
    block = write_rows(
        X, rows, signs=signs, row_scale=scale, intercept=True, extra=extra
    )
    np.testing.assert_allclose(
        block, np.column_stack([scaled, extra[rows]]), rtol=1e-15, atol=0
    )
    np.testing.assert_array_equal(
        write_rows(X, rows), np.asarray(X[rows], dtype=np.float64)
    )
    np.testing.assert_array_equal(X, X_before)


@pytest.mark.parametrize(
    "rows, message",
    [
        (np.array([0, 10]), "out of range"),
        (np.array([-11]), "out of range"),
        (np.ones(9, dtype=bool), "boolean index has shape"),
        (np.array([0.5, 1.0]), "integer or boolean"),
        (np.zeros((2, 2), dtype=int), "1-d"),
    ],
)
def test_write_rows_refuses_bad_row_selections(rows, message):
    with pytest.raises(IndexError, match=message):
        write_rows(np.ones((10, 2)), rows)


def test_signed_rows_of_sparse_data_are_written_out(csr_container):
    rng = np.random.RandomState(1)
    X = rng.standard_normal((30, 3)) * (rng.uniform(size=(30, 3)) < 0.5)
    signs = np.where(rng.uniform(size=30) < 0.5, -1.0, 1.0)
    A = signed_rows(csr_container(X), signs, fit_intercept=True)
    np.testing.assert_allclose(A.toarray(), _dense(X, signs, True))


@pytest.mark.parametrize(
    "sampling, extra",
    [
        ("local_sensitivity", {}),
        ("local_sensitivity", {"leverage": "sketch", "scores": "theorem9"}),
        ("uniform", {}),
        ("leverage", {}),
        ("full", {"tol": 1e-9, "max_iter": 100}),
    ],
)
def test_signs_and_intercept_on_the_fly_equal_the_signed_rows(
    sampling, extra, csr_container
):
    # The solver on (X, signs, fit_intercept) must run exactly the rounds it
    # runs on the written-out rows b_i [x_i, 1] with an unpenalized last
    # coordinate: same draws, same iterates.
    rng = np.random.RandomState(2)
    X = rng.standard_normal((400, 5)) * rng.uniform(0.5, 2.0, (400, 1))
    y = np.where(X @ rng.standard_normal(5) + 0.5 + rng.standard_normal(400) > 0, 1, -1)
    signs = y.astype(np.float64)
    pen = np.array([True, True, False, True, True])
    A = _dense(X, signs, True)
    kwargs = {
        "alpha": 0.01,
        "sample_size": 60,
        "sampling": sampling,
        "max_iter": 4,
        "tol": 0.0,
        "random_state": 0,
        **extra,
    }
    written = approximate_proximal_point(
        LOSS, A, penalized=np.append(pen, False), **kwargs
    )
    X_copy = X.copy()
    for data in (X, csr_container(X)):
        lazy = approximate_proximal_point(
            LOSS, data, signs=y, fit_intercept=True, penalized=pen, **kwargs
        )
        np.testing.assert_allclose(lazy.coef, written.coef, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(lazy.sample_indices, written.sample_indices)
        for key in ("objective", "grad_norm", "total_sensitivity"):
            np.testing.assert_allclose(
                lazy.history[key], written.history[key], rtol=1e-9, atol=1e-14
            )
    np.testing.assert_array_equal(X, X_copy)


class _PlainLogistic:
    """The logistic loss through its public methods only (no fused path)."""

    second_derivative_bound = LOSS.second_derivative_bound
    third_derivative_bound = LOSS.third_derivative_bound

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(LOSS, name)


def test_a_loss_without_the_fused_terms_gives_the_same_rounds():
    rng = np.random.RandomState(3)
    X = rng.standard_normal((300, 4))
    y = np.where(X[:, 0] + rng.standard_normal(300) > 0, 1.0, -1.0)
    kwargs = dict(
        signs=y,
        fit_intercept=True,
        alpha=0.01,
        sample_size=50,
        max_iter=3,
        tol=0.0,
        random_state=0,
    )
    fused = approximate_proximal_point(LOSS, X, **kwargs)
    plain = approximate_proximal_point(_PlainLogistic(), X, **kwargs)
    np.testing.assert_allclose(plain.coef, fused.coef, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("signs", [np.ones(3), np.full(40, np.nan)])
def test_bad_signs_are_refused_naming_the_parameter(signs):
    X = np.random.RandomState(4).standard_normal((40, 3))
    with pytest.raises(ValueError, match="signs"):
        approximate_proximal_point(LOSS, X, signs=signs, alpha=0.1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_signed_rows_products_over_several_blocks_of_rows(dtype):
    # More rows than one block (2**17 elements per block of a vector): the
    # products are assembled from blocks computed on threads.
    rng = np.random.RandomState(5)
    n = 2**17 + 3001
    X = rng.standard_normal((n, 2)).astype(dtype)
    signs = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)
    A = signed_rows(X, signs, fit_intercept=True)
    dense = _dense(X.astype(np.float64), signs, True)
    x, v = rng.standard_normal(3).astype(dtype), rng.standard_normal(n).astype(dtype)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    product = A @ x
    assert product.dtype == dtype and product.shape == (n,)
    np.testing.assert_allclose(product, dense @ x, rtol=tol, atol=tol)
    np.testing.assert_allclose(A.T @ v, dense.T @ v, rtol=tol, atol=tol * n**0.5)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_signed_rows_without_rows_give_empty_sums(fit_intercept, dtype):
    # A^T v of no rows is the zero vector of A's width (an empty dask chunk,
    # a sample that drew nothing), not the scalar of an empty sum.
    A = signed_rows(np.empty((0, 3), dtype=dtype), np.empty(0), fit_intercept)
    product = A.T @ np.empty(0, dtype=dtype)
    np.testing.assert_array_equal(product, np.zeros(3 + fit_intercept))
    assert (A @ np.ones(3 + fit_intercept)).shape == (0,)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("with_signs", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scaled_passes_give_the_written_out_matrix_scores(
    fit_intercept, with_signs, dtype
):
    # The compiled passes read [diag(s) A, e] chunk by chunk, never whole:
    # its Gram matrix (of all rows, or of weighted drawn rows) and its
    # leverage scores must be those of the matrix written out, across many
    # chunks and parts.
    rng = np.random.RandomState(1)
    n = 20_000
    X = rng.standard_normal((n, 5)).astype(dtype)
    signs = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0) if with_signs else None
    A = signed_rows(X, signs, fit_intercept)
    scale, extra = rng.uniform(0.1, 2.0, n), rng.standard_normal(n)
    C = np.column_stack([_dense(X.astype(np.float64), signs, fit_intercept), extra])
    C[:, :-1] *= scale[:, None]
    np.testing.assert_allclose(scaled_gram(A, scale, extra), C.T @ C, rtol=1e-10)
    rows = rng.randint(n, size=300)
    weights = rng.uniform(0.0, 3.0, 300)
    np.testing.assert_allclose(
        scaled_gram(A, scale, extra, rows=rows, weights=weights),
        (C[rows].T * weights) @ C[rows],
        rtol=1e-10,
    )
    ridge = np.full(C.shape[1], 0.3)
    transform = leverage_transform(C.T @ C, ridge)
    exact = np.einsum("ij,ji->i", C, np.linalg.solve(C.T @ C + np.diag(ridge), C.T))
    np.testing.assert_allclose(
        scaled_leverage(A, scale, extra, transform), exact, rtol=1e-9, atol=1e-15
    )


@pytest.mark.parametrize("n_rows", [0, 1, 255, 257, 40_000])
def test_signed_gram_is_the_same_on_any_number_of_threads(n_rows):
    # The rounds switch thread counts between passes (a busy machine): a
    # pass's parts are fixed by the data's shape, so its result is too, bit
    # for bit.
    rng = np.random.RandomState(2)
    X = rng.standard_normal((n_rows, 6))
    scale, extra = rng.uniform(0.1, 2.0, n_rows), rng.standard_normal(n_rows)
    grams = []
    for n_threads in (1, 2, 7):
        gram = np.full((7, 7), np.nan)
        signed_gram(X, None, None, scale, False, extra, None, gram, n_threads)
        grams.append(gram)
    for gram in grams[1:]:
        np.testing.assert_array_equal(gram, grams[0])
    np.testing.assert_array_equal(grams[0], grams[0].T)
    if n_rows == 0:
        np.testing.assert_array_equal(grams[0], 0.0)
