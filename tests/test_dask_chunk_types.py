"""Dask arrays whose chunks are not NumPy arrays are refused on the client.

The chunk-wise passes of the dask solvers do dense arithmetic; given
scipy.sparse chunks they used to fail inside a worker (``ufunc 'isfinite' not
supported``). Every fit and every chunk-wise method that cannot read sparse
chunks now raises a TypeError that names the chunk type and the conversion,
before a task runs; LocalSensitivityLogistic's predictions, whose in-memory
forms take CSR rows, still accept them.
"""

import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification

from skcgm.cluster import SumOfMinKMeans
from skcgm.linear_model import LocalSensitivityLogistic, MixedLinearRegressor

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")


def _no_task_may_run(dsk, keys, **kwargs):
    pytest.fail("a task ran before the chunk type was checked")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(400, 6, random_state=0)
    return X, y


def _sparse_chunks(X):
    return da.from_array(X, chunks=(100, X.shape[1])).map_blocks(sp.csr_matrix)


ESTIMATORS = [
    (LocalSensitivityLogistic(), True),
    (LocalSensitivityLogistic(sampling="full"), True),
    (MixedLinearRegressor(n_components=2), True),
    (SumOfMinKMeans(n_clusters=2), False),
]


@pytest.mark.parametrize("estimator, supervised", ESTIMATORS, ids=repr)
def test_fit_on_sparse_chunks_is_refused_before_any_task(data, estimator, supervised):
    X, y = data
    args = (_sparse_chunks(X), da.from_array(y, 100))[: 1 + supervised]
    message = (
        rf"{type(estimator).__name__} got a dask array X with "
        r"scipy.sparse.csr_matrix chunks; it takes NumPy array chunks here"
    )
    with dask.config.set(scheduler=_no_task_may_run):
        with pytest.raises(TypeError, match=message) as error:
            estimator.fit(*args)
    assert "X.map_blocks(lambda chunk: chunk.toarray(), dtype=X.dtype)" in str(
        error.value
    )


def test_the_suggested_conversion_fits(data):
    X, y = data
    chunks = _sparse_chunks(X)
    dense = chunks.map_blocks(lambda chunk: chunk.toarray(), dtype=chunks.dtype)
    params = dict(sample_size=200, random_state=0)
    model = LocalSensitivityLogistic(**params).fit(dense, da.from_array(y, 100))
    reference = LocalSensitivityLogistic(**params).fit(
        da.from_array(X, chunks=(100, 6)), da.from_array(y, 100)
    )
    assert_array_equal(model.coef_, reference.coef_)


@pytest.mark.parametrize(
    "estimator, method",
    [
        (MixedLinearRegressor(n_components=2), "predict"),
        (SumOfMinKMeans(n_clusters=2), "predict"),
        (SumOfMinKMeans(n_clusters=2), "transform"),
    ],
    ids=repr,
)
def test_chunk_wise_methods_refuse_sparse_chunks(data, estimator, method):
    X, y = data
    estimator.fit(X, y.astype(float))
    with dask.config.set(scheduler=_no_task_may_run):
        with pytest.raises(TypeError, match="scipy.sparse.csr_matrix chunks"):
            getattr(estimator, method)(_sparse_chunks(X))


def test_local_sensitivity_predictions_read_sparse_chunks(data):
    X, y = data
    model = LocalSensitivityLogistic().fit(X, y)
    chunks = _sparse_chunks(X)
    for method in ("decision_function", "predict", "predict_proba"):
        lazy = getattr(model, method)(chunks)
        assert_allclose(lazy.compute(), getattr(model, method)(X))


def test_other_chunk_types_are_named(data):
    """A chunk type that is neither NumPy nor scipy.sparse (pydata sparse)."""
    sparse = pytest.importorskip("sparse")
    X, y = data
    chunks = da.from_array(X, chunks=(100, 6)).map_blocks(sparse.COO.from_numpy)
    with dask.config.set(scheduler=_no_task_may_run):
        with pytest.raises(TypeError, match=r"with sparse\.COO chunks") as error:
            LocalSensitivityLogistic().fit(chunks, da.from_array(y, 100))
    assert "np.asarray(chunk)" in str(error.value)
