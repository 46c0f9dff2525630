"""MixedLinearRegressor on dask arrays: the same Lloyd passes, run on the chunks."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcgm.datasets import make_mixed_linear_regression
from skcgm.linear_model import MixedLinearRegressor

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def data():
    X, y, _, _ = make_mixed_linear_regression(3000, 5, 3, noise=0.05, random_state=0)
    return X, y


def _dask(X, y, chunks):
    return da.from_array(X, chunks=(chunks, X.shape[1])), da.from_array(y, chunks)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("chunks", [700, 3000])
def test_fit_equals_in_memory_from_the_same_start(
    dask_client, data, fit_intercept, chunks
):
    X, y = data
    start = np.random.RandomState(0).standard_normal((3, 5 + fit_intercept))
    params = dict(fit_intercept=fit_intercept, init=start, tol=0)
    memory = MixedLinearRegressor(3, **params).fit(X, y)
    dask = MixedLinearRegressor(3, **params).fit(*_dask(X, y, chunks))
    assert_allclose(dask.coef_, memory.coef_, rtol=0, atol=1e-10)
    assert_allclose(dask.intercept_, memory.intercept_, rtol=0, atol=1e-10)
    assert dask.n_iter_ == memory.n_iter_
    assert_allclose(dask.objective_history_, memory.objective_history_, rtol=1e-12)
    assert_allclose(dask.weights_, memory.weights_, rtol=1e-12)
    assert dask.noise_variance_ == pytest.approx(memory.noise_variance_, rel=1e-10)
    assert_array_equal(dask.labels_.compute(), memory.labels_)
    # The centroid pass, then one pass per assignment.
    assert dask.n_passes_ == 1 + len(dask.objective_history_)


def test_seeding_on_the_chunks_finds_the_in_memory_optimum(dask_client, data):
    X, y = data
    memory = MixedLinearRegressor(3, n_init=5, random_state=0).fit(X, y)
    dask = MixedLinearRegressor(3, random_state=0).fit(*_dask(X, y, 500))
    assert dask.objective_ <= memory.objective_ * (1 + 1e-6)
    # Seven seeding passes and the centroid's before Lloyd's.
    assert dask.n_passes_ == 8 + len(dask.objective_history_)


def test_predict_and_assign_stay_lazy_and_match(dask_client, data):
    X, y = data
    X_dask, y_dask = _dask(X, y, 800)
    model = MixedLinearRegressor(3, random_state=0).fit(X_dask, y_dask)
    for lazy, eager in (
        (model.predict(X_dask), model.predict(X)),
        (model.predict_components(X_dask), model.predict_components(X)),
        (model.assign(X_dask, y_dask), model.assign(X, y)),
    ):
        assert isinstance(lazy, da.Array)
        assert_allclose(lazy.compute(), eager, rtol=1e-12, atol=1e-12)


def test_unsupported_options_and_bad_input_raise(data):
    X, y = data
    X_dask, y_dask = _dask(X, y, 800)
    with pytest.raises(ValueError, match="solver must be 'exact'"):
        MixedLinearRegressor(2, solver="gd").fit(X_dask, y_dask)
    with pytest.raises(ValueError, match="sample_weight must be None"):
        MixedLinearRegressor(2).fit(X_dask, y_dask, sample_weight=np.ones(len(y)))
    with pytest.raises(ValueError, match="a callable takes X in memory"):
        MixedLinearRegressor(2, init=lambda X, k, random_state: None).fit(
            X_dask, y_dask
        )
    with pytest.raises(ValueError, match="does not match X"):
        MixedLinearRegressor(2).fit(X_dask, y_dask[:-1])
    model = MixedLinearRegressor(2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="takes X in memory"):
        model.min_loss(X_dask, y_dask)
