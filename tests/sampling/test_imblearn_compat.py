"""KernelHerdingSampler as an imbalanced-learn sampler.

skcgm does not depend on imbalanced-learn; when it is installed, the sampler
passes its common checks, is recognized by :func:`imblearn.base.is_sampler`
and works in its ``Pipeline``.
"""

import warnings

import numpy as np
import pytest
from sklearn import clone, config_context
from sklearn.linear_model import LogisticRegression

from skcgm.sampling import KernelHerdingSampler

imblearn = pytest.importorskip("imblearn")
pd = pytest.importorskip("pandas")

from imblearn.base import is_sampler  # noqa: E402
from imblearn.pipeline import Pipeline  # noqa: E402
from imblearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

# imbalanced-learn's checks are written for class-balancing samplers: they
# need y to be a classification target, which holds with per_class=True.
_SAMPLERS = [
    KernelHerdingSampler(n_samples=30, per_class=True),
    KernelHerdingSampler(
        n_samples=30, per_class=True, feature_map="rff", n_components=32, random_state=0
    ),
]


@parametrize_with_checks(_SAMPLERS)
def test_imblearn_checks(estimator, check):
    with warnings.catch_warnings():
        # check_samplers_2d_target passes a column vector y on purpose.
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


def test_is_sampler():
    assert is_sampler(KernelHerdingSampler())
    assert is_sampler(KernelHerdingSampler(per_class=True))


def _imbalanced(seed=0):
    rng = np.random.RandomState(seed)
    X = np.concatenate([rng.normal(0, 1, (160, 2)), rng.normal(2, 1, (40, 2))])
    return X, np.repeat([0, 1], [160, 40])


def test_pipeline_fits_on_the_herded_rows():
    X, y = _imbalanced()
    pipe = Pipeline(
        [
            ("herd", KernelHerdingSampler(40, per_class=True)),
            ("clf", LogisticRegression()),
        ]
    ).fit(X, y)
    X_res, y_res = KernelHerdingSampler(40, per_class=True).fit_resample(X, y)
    reference = LogisticRegression().fit(X_res, y_res)
    np.testing.assert_allclose(pipe[-1].coef_, reference.coef_)
    assert np.bincount(y_res).tolist() == [32, 8]


def test_pipeline_routes_sample_weight_to_fit_resample():
    X, y = _imbalanced()
    sample_weight = np.where(X[:, 0] > 0, 5.0, 1.0)
    with config_context(enable_metadata_routing=True):
        # imbalanced-learn's Pipeline routes its fit to both fit and
        # fit_resample of a sampler; it calls fit_resample.
        sampler = (
            KernelHerdingSampler(40, per_class=True)
            .set_fit_resample_request(sample_weight=True)
            .set_fit_request(sample_weight=True)
        )
        pipe = Pipeline(
            [
                ("herd", sampler),
                ("clf", LogisticRegression().set_fit_request(sample_weight=False)),
            ]
        ).fit(X, y, sample_weight=sample_weight)
    weighted = KernelHerdingSampler(40, per_class=True).fit(
        X, y, sample_weight=sample_weight
    )
    unweighted = KernelHerdingSampler(40, per_class=True).fit(X, y)
    herded = pipe.named_steps["herd"]
    np.testing.assert_array_equal(herded.sample_indices_, weighted.sample_indices_)
    assert not np.array_equal(herded.sample_indices_, unweighted.sample_indices_)


@pytest.mark.parametrize("sampler", _SAMPLERS)
@pytest.mark.parametrize("learning_rate", ["herding", "fw"])
@pytest.mark.parametrize("n_samples", [40, 260])
def test_resampled_rows_are_the_rows_of_sample_indices(
    sampler, learning_rate, n_samples
):
    # imbalanced-learn's ensembles take X[sample_indices_] (and index the
    # sample weights with it) for the resampled set: more selections than
    # rows, and the rounded weights of 'fw', repeat rows.
    X, y = _imbalanced()
    sampler = clone(sampler).set_params(
        n_samples=n_samples, learning_rate=learning_rate
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "n_samples=.*repeats rows", UserWarning)
        X_res, y_res = sampler.fit_resample(pd.DataFrame(X), pd.Series(y))
    assert X_res.equals(pd.DataFrame(X).iloc[sampler.sample_indices_])
    assert y_res.equals(pd.Series(y).iloc[sampler.sample_indices_])
    np.testing.assert_array_equal(X_res.index, sampler.sample_indices_)
    # The distinct rows, with their weights, are kept apart.
    assert set(sampler.sample_indices_) <= set(sampler.support_)
    assert sampler.support_.shape == sampler.support_weight_.shape
