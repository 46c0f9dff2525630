"""The scikit-learn checks each skcgm estimator is expected to fail, and why.

scikit-learn's :func:`~sklearn.utils.estimator_checks.check_estimator` and
:func:`~sklearn.utils.estimator_checks.parametrize_with_checks` take an
``expected_failed_checks`` argument; :func:`expected_failed_checks` gives it
for any skcgm estimator, so that a user runs the same checks as skcgm's own
test suite::

    from sklearn.utils.estimator_checks import check_estimator
    from skcgm.cluster import SumOfMinKMeans
    from skcgm.utils.estimator_checks import expected_failed_checks

    est = SumOfMinKMeans(n_init=1)
    check_estimator(est, expected_failed_checks=expected_failed_checks(est))

Every entry names its cause, and the cause depends on the estimator's
parameters: an estimator whose parameters remove the cause (a fixed ``init``
array instead of a random seeding, ``sampling='full'`` instead of importance
sampling) has no entry, and skcgm's tests run the check on it to show that it
passes.

The only checks listed are scikit-learn's sample-weight equivalence checks,
which scikit-learn lists for its own stochastic estimators (``KMeans``,
``SGDClassifier``, ``LogisticRegression``): they compare, to seven digits, a
fit on integer-weighted samples with a fit on repeated samples, which a
random seeding or a random sample of the rows cannot reproduce draw for draw.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

__all__ = ["expected_failed_checks"]

_DENSE = "check_sample_weight_equivalence_on_dense_data"
_SPARSE = "check_sample_weight_equivalence_on_sparse_data"

_SEEDING_DRAWS_DIFFER = (
    "the seeding draws from the weighted samples: a repeated sample and its "
    "integer weight give different random draws, so the fits differ (sklearn "
    "lists the same expected failure for KMeans); a fixed init array passes."
)

_SUBSPACE_FIT_NOT_UNIQUE = (
    "the check's 15 samples in 30 dimensions leave clusters with fewer "
    "samples than their subspaces need to be determined (a subspace of "
    "dimension s through s points or fewer, an affine one through a single "
    "point), so the best-fitting subspace is not unique and the eigenvectors "
    "picked among equal eigenvalues depend on rounding, which differs "
    "between weighted sums and repeated rows; the product model on lines "
    "fits the same line twice, making every prediction a tie decided by "
    "rounding. A fixed init array passes with subspace_dim=1 (lines through "
    "the origin, model='sum_of_min') or subspace_dim=2 "
    "(model='sum_of_product')."
)

_ADAGRAD_NOT_LINEAR_IN_WEIGHTS = (
    "mini-batches of the rows: a repeated sample lands in other batches than "
    "its integer weight, and the AdaGrad preconditioner sums squared batch "
    "gradients, so the fits differ (sklearn lists the same expected failure "
    "for SGDClassifier); one full batch in a fixed order (batch_size >= 60, "
    "the check's largest data, and shuffle=False) passes."
)

_IMPORTANCE_SAMPLING_DRAWS_DIFFER = (
    "rows are drawn with probabilities proportional to their weighted "
    "sensitivities: a repeated row and its integer weight give the same "
    "objective but different draws, so the fits agree only in expectation; "
    "sampling='full' (or solver='lbfgs') passes."
)


def _init_is_random(estimator):
    """True unless ``estimator.init`` is a fixed array of starting points."""
    init = getattr(estimator, "init", None)
    return init is None or isinstance(init, str) or callable(init)


def _mixture_init_is_random(estimator):
    """True for a random seeding of more than one component.

    A single component's fit is the weighted ridge solve, whatever the seeds.
    """
    return _init_is_random(estimator) and estimator.n_components > 1


def _subspaces_underdetermined(estimator):
    """True for a fixed init whose subspaces the check's data cannot determine."""
    if _init_is_random(estimator):
        return False
    if getattr(estimator, "model", "sum_of_min") == "sum_of_product":
        return getattr(estimator, "subspace_dim", None) != 2
    return getattr(estimator, "affine", False) or (
        getattr(estimator, "subspace_dim", None) != 1
    )


def _samples_rows(estimator):
    """True when a fit on the checks' data (fewer than 10,000 rows) draws rows.

    L-BFGS draws nothing: ``solver='lbfgs'``, and ``solver='auto'`` for
    ``sampling='full'`` or with ``sample_size='auto'`` on so few rows; nor
    does the exact proximal point method (``sampling='full'``).
    """
    if estimator.sampling == "full" or estimator.solver == "lbfgs":
        return False
    return estimator.solver == "proximal_point" or estimator.sample_size != "auto"


def _uses_mini_batches(estimator):
    """True unless one batch holds the check's data (60 rows) in a fixed order."""
    return estimator.shuffle or estimator.batch_size < 60


# {class name: [(applies(estimator), {check name: reason})]}.
_RULES = {
    "CompAdaGradClassifier": [
        (
            _uses_mini_batches,
            {
                _DENSE: _ADAGRAD_NOT_LINEAR_IN_WEIGHTS,
                _SPARSE: _ADAGRAD_NOT_LINEAR_IN_WEIGHTS,
            },
        )
    ],
    "GPCAClusterer": [
        (
            _init_is_random,
            {_DENSE: _SEEDING_DRAWS_DIFFER, _SPARSE: _SEEDING_DRAWS_DIFFER},
        ),
        (
            _subspaces_underdetermined,
            {_DENSE: _SUBSPACE_FIT_NOT_UNIQUE, _SPARSE: _SUBSPACE_FIT_NOT_UNIQUE},
        ),
    ],
    "LocalSensitivityLogistic": [
        (
            _samples_rows,
            {
                _DENSE: _IMPORTANCE_SAMPLING_DRAWS_DIFFER,
                _SPARSE: _IMPORTANCE_SAMPLING_DRAWS_DIFFER,
            },
        )
    ],
    "MixedLinearRegressor": [
        (_mixture_init_is_random, {_DENSE: _SEEDING_DRAWS_DIFFER})
    ],
    # Even one network starts from the fit to one drawn sample.
    "MixedMLPRegressor": [(_init_is_random, {_DENSE: _SEEDING_DRAWS_DIFFER})],
    "SumOfMinKMeans": [
        (
            _init_is_random,
            {_DENSE: _SEEDING_DRAWS_DIFFER, _SPARSE: _SEEDING_DRAWS_DIFFER},
        )
    ],
}


def expected_failed_checks(estimator):
    """The scikit-learn checks ``estimator`` is expected to fail, with reasons.

    Parameters
    ----------
    estimator : estimator instance
        Any estimator; those outside skcgm get an empty dict.

    Returns
    -------
    failed_checks : dict of str to str
        ``{check name: reason}`` for the checks this estimator, with its
        current parameters, is known to fail; pass it as
        ``expected_failed_checks`` to
        :func:`~sklearn.utils.estimator_checks.check_estimator` or
        :func:`~sklearn.utils.estimator_checks.parametrize_with_checks`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.cluster import SumOfMinKMeans
    >>> from skcgm.utils.estimator_checks import expected_failed_checks
    >>> sorted(expected_failed_checks(SumOfMinKMeans()))
    ['check_sample_weight_equivalence_on_dense_data', \
'check_sample_weight_equivalence_on_sparse_data']
    >>> expected_failed_checks(SumOfMinKMeans(n_clusters=2, init=np.zeros((2, 3))))
    {}
    """
    failed = {}
    for applies, checks in _RULES.get(type(estimator).__name__, ()):
        if applies(estimator):
            failed.update(checks)
    return failed
