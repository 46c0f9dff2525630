"""CompAdaGradClassifier streams over dask array blocks with dask-ml.

``dask_ml.wrappers.Incremental`` calls ``partial_fit`` once per block of a
dask array; the result must be the one of calling ``partial_fit`` on the same
blocks, in the same order, by hand.
"""

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state

from skcgm.linear_model import CompAdaGradClassifier

da = pytest.importorskip("dask.array")
wrappers = pytest.importorskip("dask_ml.wrappers")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=240,
        n_features=10,
        n_informative=5,
        n_classes=3,
        n_clusters_per_class=1,
        random_state=0,
    )
    return StandardScaler().fit_transform(X), y


def _by_hand(estimator, X, y, chunk, order, classes):
    blocks = [(start, start + chunk) for start in range(0, X.shape[0], chunk)]
    for i in order:
        start, stop = blocks[i]
        estimator.partial_fit(X[start:stop], y[start:stop], classes=classes)
    return estimator


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("shuffle_blocks", [False, True])
def test_incremental_matches_partial_fit_by_hand(data, shuffle, shuffle_blocks):
    X, y = data
    chunk = 60
    classes = np.unique(y)
    estimator = CompAdaGradClassifier(
        n_components=4, batch_size=10, shuffle=shuffle, random_state=0
    )
    X_dask = da.from_array(X, chunks=(chunk, X.shape[1]))
    y_dask = da.from_array(y, chunks=chunk)

    incremental = wrappers.Incremental(
        estimator, shuffle_blocks=shuffle_blocks, random_state=0
    )
    incremental.fit(X_dask, y_dask, classes=classes)
    streamed = incremental.estimator_

    # dask-ml visits the blocks in order, or shuffled by its random_state.
    order = list(range(X.shape[0] // chunk))
    if shuffle_blocks:
        check_random_state(0).shuffle(order)
    expected = _by_hand(
        estimator.__class__(**estimator.get_params()), X, y, chunk, order, classes
    )

    assert_array_equal(streamed.coef_, expected.coef_)
    assert_array_equal(streamed.intercept_, expected.intercept_)
    assert streamed.t_ == expected.t_ == 1 + 4 * 6
    for mine, theirs in zip(streamed.state_, expected.state_):
        assert_array_equal(mine.subspace_gram, theirs.subspace_gram)
        assert_array_equal(mine.complement_sq, theirs.complement_sq)
    # The fitted wrapper predicts dask arrays block by block.
    predicted = incremental.predict(X_dask).compute()
    assert_array_equal(predicted, expected.predict(X))
    assert incremental.score(X_dask, y_dask) > 0.6
