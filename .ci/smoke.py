"""Fit every skcgm estimator once with its defaults: the smoke test of an install.

Run by .ci/run in the environment installed from the sdist, where the suite does
not run: it checks that the compiled kernels built and load, and that every
estimator fits, predicts (or resamples) and gives finite results. Exits non-zero
on the first failure.
"""

import sys

import numpy as np
from sklearn.base import ClassifierMixin, ClusterMixin, RegressorMixin
from sklearn.datasets import make_blobs, make_classification, make_regression

import skcgm
from skcgm.utils.discovery import all_estimators


def _smoke(name, Estimator):
    """Fit ``Estimator()`` on data of its kind; return a one-line report."""
    estimator = Estimator(random_state=0)
    if hasattr(estimator, "fit_resample"):
        X, y = make_classification(n_samples=300, n_features=5, random_state=0)
        X_res, _ = estimator.fit_resample(X, y)
        assert X_res.shape[1] == X.shape[1] and np.isfinite(X_res).all()
        return f"{name}: {X_res.shape[0]} rows resampled"
    if isinstance(estimator, ClusterMixin):
        X, _ = make_blobs(n_samples=300, centers=3, n_features=4, random_state=0)
        labels = estimator.fit(X).predict(X)
        assert labels.shape == (300,)
        return f"{name}: {np.unique(labels).size} clusters"
    if isinstance(estimator, ClassifierMixin):
        X, y = make_classification(n_samples=300, n_features=5, random_state=0)
        score = estimator.fit(X, y).score(X, y)
    elif isinstance(estimator, RegressorMixin):
        X, y = make_regression(n_samples=300, n_features=3, noise=1.0, random_state=0)
        score = estimator.fit(X, y).score(X, y)
    else:
        raise TypeError(f"{name}: no smoke test for this kind of estimator")
    assert np.isfinite(score)
    return f"{name}: score {score:.3f}"


def main():
    print(f"skcgm {skcgm.__version__} from {skcgm.__file__}")
    estimators = all_estimators()
    for name, Estimator in estimators:
        print(_smoke(name, Estimator), flush=True)
    print(f"{len(estimators)} estimators fitted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
