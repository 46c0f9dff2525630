"""KernelHerdingSampler as an imbalanced-learn sampler.

skcgm does not depend on imbalanced-learn; when it is installed, the sampler
passes its common checks, is recognized by :func:`imblearn.base.is_sampler`
and works in its ``Pipeline``.
"""

import warnings

import numpy as np
import pytest
from sklearn import config_context
from sklearn.linear_model import LogisticRegression

from skcgm.sampling import KernelHerdingSampler

imblearn = pytest.importorskip("imblearn")

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
    np.testing.assert_array_equal(herded.resample_indices_, weighted.resample_indices_)
    assert not np.array_equal(herded.resample_indices_, unweighted.resample_indices_)
