"""KernelHerdingSampler(refine='swap'): greedy swap passes after herding."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import load_digits

from skcgm.datasets import make_gaussian_mixture, make_heavy_tailed_classification
from skcgm.optim.conditional_gradient._herding import _KernelTrickIterate, swap_refine
from skcgm.oracles import squared_mmd
from skcgm.sampling import KernelHerdingSampler
from skcgm.sampling import _kernel_herding as herding_module

_COMBOS = [
    ("exact", "rbf"),
    ("exact", "linear"),
    ("rff", "rbf"),
    ("identity", "linear"),
]


# Fewer rows than selections is in the drawn range: the repeats warning is
# expected there (test_herding_properties checks when it comes).
@pytest.mark.filterwarnings("ignore:n_samples=.*repeats rows:UserWarning")
def test_refined_mmd_never_above_herding(property_settings):
    @given(
        n_rows=st.integers(1, 15),
        n_features=st.integers(1, 3),
        n_samples=st.integers(1, 12),
        combo=st.sampled_from(_COMBOS),
        per_class=st.booleans(),
        seed=st.integers(0, 2**31 - 1),
    )
    def check(n_rows, n_features, n_samples, combo, per_class, seed):
        rng = np.random.RandomState(seed)
        X = rng.standard_normal((n_rows, n_features)) * 10.0 ** rng.uniform(-3, 3)
        y = np.arange(n_rows) % 2 if per_class and n_rows > 1 else None
        if y is None:
            per_class = False
        elif n_samples < 2:
            n_samples = 2
        feature_map, kernel = combo
        params = dict(
            n_samples=n_samples,
            kernel=kernel,
            feature_map=feature_map,
            n_components=16,
            per_class=per_class,
            random_state=0,
        )
        plain = KernelHerdingSampler(refine=None, **params).fit(X, y)
        refined = KernelHerdingSampler(refine="swap", **params).fit(X, y)
        assert refined.sample_indices_.shape == (n_samples,)
        assert np.isclose(refined.support_weight_.sum(), 1.0)
        if per_class:
            # Swaps stay inside a class: its number of rows is kept.
            assert np.array_equal(
                np.bincount(y[refined.sample_indices_], minlength=2),
                np.bincount(y[plain.sample_indices_], minlength=2),
            )
            return
        scale = max(1.0, abs(plain.score(X)))
        assert refined.score(X) >= plain.score(X) - 1e-9 * scale

    property_settings(check)()


def _brute_force_pass(X, sequence, gamma):
    """One greedy pass: every position takes the row of least squared MMD."""
    sequence = list(sequence)
    m = len(sequence)
    weights = np.full(m, 1.0 / m)
    for position in range(m):
        values = []
        for j in range(X.shape[0]):
            trial = sequence.copy()
            trial[position] = j
            values.append(squared_mmd(X, trial, weights, gamma=gamma))
        best = int(np.argmin(values))
        if values[best] < values[sequence[position]] - 1e-12:
            sequence[position] = best
    return np.array(sequence)


def _iterate(X, sequence, gamma):
    n = X.shape[0]
    iterate = _KernelTrickIterate(X, np.full(n, 1.0 / n), "rbf", gamma)
    for t, i in enumerate(sequence):
        iterate.move(i, 1.0 / (t + 1))
    return iterate


@pytest.mark.parametrize("seed", range(5))
def test_swap_pass_matches_exhaustive_search(seed):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((9, 2))
    gamma = 0.7
    sequence = rng.randint(9, size=4)
    # The first position alone: the best single swap of an exhaustive search.
    refined, _, _ = swap_refine(_iterate(X, sequence, gamma), sequence, max_passes=1)
    weights = np.full(4, 0.25)
    values = []
    for j in range(9):
        trial = sequence.copy()
        trial[0] = j
        values.append(squared_mmd(X, trial, weights, gamma=gamma))
    assert refined[0] == int(np.argmin(values))
    # The whole pass, position after position.
    assert np.array_equal(refined, _brute_force_pass(X, sequence, gamma))


def test_swap_refine_reports_the_squared_mmd_of_its_subset():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((30, 3))
    sequence = rng.randint(30, size=6)
    refined, n_swaps, mmd2 = swap_refine(_iterate(X, sequence, 0.3), sequence)
    assert n_swaps > 0
    expected = squared_mmd(X, refined, np.full(6, 1 / 6), gamma=0.3)
    assert mmd2 == pytest.approx(expected, rel=1e-9, abs=1e-14)
    # Converged: one more pass swaps nothing.
    again, more, _ = swap_refine(_iterate(X, refined, 0.3), refined)
    assert more == 0 and np.array_equal(again, refined)


def test_refine_lowers_mmd_on_a_mixture():
    rng = np.random.RandomState(0)
    X = np.concatenate([rng.normal(-2, 1, (200, 2)), rng.normal(2, 1, (200, 2))])
    plain = KernelHerdingSampler(16, gamma=0.25, feature_map="exact", refine=None).fit(
        X
    )
    refined = KernelHerdingSampler(
        16, gamma=0.25, feature_map="exact", refine="swap"
    ).fit(X)
    assert refined.n_swaps_ > 0 and plain.n_swaps_ == 0
    assert refined.score(X) > plain.score(X)
    # The attributes describe the refined multiset.
    counts = np.bincount(refined.sample_indices_, minlength=X.shape[0])
    assert np.allclose(
        refined.support_weight_, counts[refined.support_] / 16, rtol=1e-12
    )
    mmd2 = squared_mmd(X, refined.sample_indices_, np.full(16, 1 / 16), gamma=0.25)
    assert -refined.score(X) == pytest.approx(mmd2, rel=1e-9)


_FAMILIES = {
    "mixture": lambda: make_gaussian_mixture(1024, 2, random_state=0),
    "uniform cube": lambda: np.random.RandomState(0).uniform(size=(1024, 5)),
    "Student t": lambda: make_heavy_tailed_classification(1024, 20, random_state=0)[0],
    "digits": lambda: load_digits().data,
}


@pytest.mark.parametrize("family", list(_FAMILIES))
def test_default_mmd_below_plain_herdings_where_auto_swaps(family):
    X = _FAMILIES[family]()
    n_samples = int(herding_module.REFINE_MAX_FRACTION * X.shape[0])
    default = KernelHerdingSampler(n_samples).fit(X)
    plain = KernelHerdingSampler(n_samples, refine=None).fit(X)
    assert default.refine_ == "swap" and default.n_swaps_ > 0
    # Every swap gains more than rounding: the default's squared MMD is below.
    assert default.score(X) > plain.score(X)
    # The passes come after herding's iterations, which are the same.
    np.testing.assert_array_equal(default.objective_history_, plain.objective_history_)


@pytest.mark.parametrize("feature_map", ["exact", "rff"])
def test_refine_same_random_state_same_result(feature_map):
    X = np.random.RandomState(1).standard_normal((80, 3))
    params = dict(feature_map=feature_map, refine="swap", random_state=3)
    first = KernelHerdingSampler(12, **params).fit(X)
    second = KernelHerdingSampler(12, **params).fit(X)
    assert np.array_equal(first.sample_indices_, second.sample_indices_)
    assert np.array_equal(first.support_weight_, second.support_weight_)


def test_refine_leaves_the_input_untouched():
    X = np.random.RandomState(2).standard_normal((50, 2))
    weights = np.random.RandomState(3).uniform(0.5, 2.0, 50)
    X_copy, weights_copy = X.copy(), weights.copy()
    KernelHerdingSampler(8, refine="swap").fit(X, sample_weight=weights)
    assert np.array_equal(X, X_copy) and np.array_equal(weights, weights_copy)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"refine": "bogus"}, "refine"),
        ({"refine": 1}, "refine"),
        ({"refine": "swap", "learning_rate": "fw"}, "refine='swap'.*herding"),
        ({"refine": "swap", "learning_rate": "line_search"}, "refine='swap'"),
    ],
)
def test_bad_refine_raises(params, match):
    X = np.random.RandomState(0).standard_normal((20, 2))
    with pytest.raises(ValueError, match=match):
        KernelHerdingSampler(5, **params).fit(X)
