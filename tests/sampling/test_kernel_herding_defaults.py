"""Defaults of KernelHerdingSampler: gamma='scale', the 'auto' search, progress."""

import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.svm import SVC

from skcgm.sampling import KernelHerdingSampler
from skcgm.sampling import _kernel_herding as herding_module


def _svc_gamma(X, gamma):
    y = np.arange(X.shape[0]) % 2
    return SVC(gamma=gamma).fit(X, y)._gamma


def test_gamma_scale_and_auto_are_svcs(property_settings):
    @given(
        seed=st.integers(0, 2**16),
        n_rows=st.integers(2, 30),
        n_features=st.integers(1, 6),
        scale=st.sampled_from([1e-3, 1.0, 1e3]),
        sparse=st.booleans(),
    )
    def check(seed, n_rows, n_features, scale, sparse):
        rng = np.random.RandomState(seed)
        X = rng.standard_normal((n_rows, n_features)) * scale
        if sparse:
            X[rng.rand(*X.shape) < 0.5] = 0.0
            X = sp.csr_matrix(X)
        for gamma in ("scale", "auto"):
            sampler = KernelHerdingSampler(2, gamma=gamma).fit(X)
            assert sampler.gamma_ == pytest.approx(_svc_gamma(X, gamma), rel=1e-12)

    property_settings(check)()


@pytest.mark.parametrize("sparse", [False, True])
def test_gamma_scale_of_constant_data_is_one(sparse):
    # SVC's convention: X.var() == 0 gives gamma = 1.
    X = np.full((10, 3), 2.5)
    assert _svc_gamma(X, "scale") == 1.0
    # The sparse formula, E[X^2] - E[X]^2, rounds this zero to -4e-16, which
    # SVC turns into a negative gamma (and refuses); skcgm gives 1 again.
    X = sp.csr_matrix(X) if sparse else X
    assert KernelHerdingSampler(3).fit(X).gamma_ == 1.0


def test_gamma_scale_of_data_whose_variance_overflows_is_finite():
    # Squares in range whose sum over the entries is not.
    rng = np.random.RandomState(0)
    X = rng.choice([-1.0, 1.0], (2000, 2)) * rng.uniform(1.5, 2.0, (2000, 2)) * 1e153
    with np.errstate(over="ignore"):
        assert not np.isfinite(X.var())
    gamma = KernelHerdingSampler(3).fit(X).gamma_
    assert gamma == pytest.approx(1.0 / (2 * (X / 1e153).var()) / 1e306, rel=1e-10)


def test_gamma_is_used_by_the_kernel():
    X = np.random.RandomState(0).standard_normal((80, 3)) * 3.0
    scale = KernelHerdingSampler(10).fit(X)
    explicit = KernelHerdingSampler(10, gamma=scale.gamma_).fit(X)
    np.testing.assert_array_equal(scale.support_, explicit.support_)
    np.testing.assert_array_equal(scale.objective_history_, explicit.objective_history_)


def test_defaults():
    params = KernelHerdingSampler().get_params()
    assert params["gamma"] == "scale"
    assert params["feature_map"] == "auto"
    assert params["maxip"] == "auto"
    assert params["refine"] == "auto"


def test_docstring_states_the_thresholds():
    doc = KernelHerdingSampler.__doc__
    exponent = int(np.log10(herding_module.EXACT_MAX_COST))
    assert herding_module.EXACT_MAX_COST == 10.0**exponent
    assert f"\\texttt{{EXACT\\_MAX\\_COST}} = 10^{{{exponent}}}" in doc
    assert f"(d + {herding_module.EXACT_COST_OFFSET})" in doc
    # The rows quoted for 2, 20 and 64 features, rounded down to thousands.
    rows = [
        int(np.sqrt(herding_module.EXACT_MAX_COST / (d + 16)) // 1000)
        for d in (2, 20, 64)
    ]
    assert "{:,} candidate rows for 2 features, {:,} for 20, {:,} for 64".format(
        *(1000 * r for r in rows)
    ) in " ".join(doc.split())
    assert f"``LSH_MIN_ROWS`` ({herding_module.LSH_MIN_ROWS:,})" in doc
    assert f"``LSH_MIN_ITER`` ({herding_module.LSH_MIN_ITER:,})" in doc


@pytest.mark.parametrize("n_features", [2, 20, 64])
def test_auto_switches_where_the_kernel_trick_exceeds_its_budget(n_features):
    offset = herding_module.EXACT_COST_OFFSET
    largest = int(np.sqrt(herding_module.EXACT_MAX_COST / (n_features + offset)))
    for n_rows, expected in [(largest, "exact"), (largest + 1, "rff")]:
        cost = n_rows**2 * (n_features + offset)
        resolved = herding_module._resolve_search(
            "auto", "auto", "rbf", cost, n_rows, 100, sparse=False
        )
        assert resolved == (expected, "exact")


@pytest.fixture
def small_thresholds(monkeypatch):
    """Exact up to 50 candidate rows of 2 features, LSH from 100 rows and 5
    iterations on."""
    monkeypatch.setattr(herding_module, "EXACT_MAX_COST", 50**2 * (2 + 16))
    monkeypatch.setattr(herding_module, "LSH_MIN_ROWS", 100)
    monkeypatch.setattr(herding_module, "LSH_MIN_ITER", 5)


@pytest.mark.parametrize(
    "n_rows, kernel, expected",
    [
        (40, "rbf", ("exact", "exact")),
        (50, "rbf", ("exact", "exact")),
        (51, "rbf", ("rff", "exact")),
        (100, "rbf", ("rff", "lsh")),
        (40, "linear", ("exact", "exact")),
        (80, "linear", ("identity", "exact")),
        (120, "linear", ("identity", "lsh")),
    ],
)
def test_auto_resolves_by_the_number_of_rows(
    small_thresholds, n_rows, kernel, expected
):
    X = np.random.RandomState(0).standard_normal((n_rows, 2))
    sampler = KernelHerdingSampler(5, kernel=kernel, random_state=0).fit(X)
    assert (sampler.feature_map_name_, sampler.maxip_) == expected
    # The same fit as the resolved settings given explicitly.
    feature_map, maxip = expected
    explicit = KernelHerdingSampler(
        5, kernel=kernel, feature_map=feature_map, maxip=maxip, random_state=0
    ).fit(X)
    np.testing.assert_array_equal(sampler.support_, explicit.support_)
    np.testing.assert_array_equal(sampler.n_scored_, explicit.n_scored_)
    assert (sampler.feature_map_ is None) == (feature_map in ("exact", "identity"))


def test_auto_uses_lsh_only_over_many_iterations(small_thresholds):
    X = np.random.RandomState(0).standard_normal((120, 2))
    few = KernelHerdingSampler(4, random_state=0).fit(X)
    assert (few.feature_map_name_, few.maxip_) == ("rff", "exact")
    # per_class: the largest budget decides.
    y = np.repeat([0, 1], 60)
    split = KernelHerdingSampler(8, per_class=True, random_state=0).fit(X, y)
    assert (split.feature_map_name_, split.maxip_) == ("rff", "exact")
    y = np.repeat([0, 1], [110, 10])
    lopsided = KernelHerdingSampler(8, per_class=True, random_state=0).fit(X, y)
    assert (lopsided.feature_map_name_, lopsided.maxip_) == ("rff", "lsh")


def test_auto_keeps_sparse_linear_data_sparse(small_thresholds):
    X = sp.random(120, 30, density=0.1, format="csr", random_state=0)
    sampler = KernelHerdingSampler(5, kernel="linear").fit(X)
    assert (sampler.feature_map_name_, sampler.maxip_) == ("exact", "exact")
    dense = KernelHerdingSampler(5, kernel="linear").fit(X.toarray())
    assert dense.feature_map_name_ == "identity"


def test_auto_counts_candidate_rows(small_thresholds):
    rng = np.random.RandomState(0)
    X = rng.standard_normal((90, 2))
    # 45 rows of positive weight: exact.
    sample_weight = np.tile([1.0, 0.0], 45)
    sampler = KernelHerdingSampler(5).fit(X, sample_weight=sample_weight)
    assert sampler.feature_map_name_ == "exact"
    # per_class: the kernel trick costs the sum of the classes' squares.
    X = X[:60]
    assert KernelHerdingSampler(5, random_state=0).fit(X).feature_map_name_ == "rff"
    y = np.repeat([0, 1], 30)
    sampler = KernelHerdingSampler(5, per_class=True).fit(X, y)
    assert sampler.feature_map_name_ == "exact"


def test_auto_keeps_the_explicit_half(small_thresholds):
    X = np.random.RandomState(0).standard_normal((120, 2))
    # LSH needs features: feature_map='auto' gives them at any size.
    small = KernelHerdingSampler(5, maxip="lsh", random_state=0).fit(X[:20])
    assert (small.feature_map_name_, small.maxip_) == ("rff", "lsh")
    # The kernel trick has no index to build.
    exact = KernelHerdingSampler(5, feature_map="exact").fit(X)
    assert (exact.feature_map_name_, exact.maxip_) == ("exact", "exact")
    nystroem = KernelHerdingSampler(5, feature_map="nystroem", random_state=0).fit(X)
    assert (nystroem.feature_map_name_, nystroem.maxip_) == ("nystroem", "lsh")
    scan = KernelHerdingSampler(5, maxip="exact", random_state=0).fit(X)
    assert (scan.feature_map_name_, scan.maxip_) == ("rff", "exact")


def _blobs(n_rows, seed=0):
    """Four blobs in the plane: herding leaves room for many swaps there."""
    rng = np.random.RandomState(seed)
    centers = np.array([[-3.0, 0.0], [3.0, 0.0], [0.0, 3.0], [0.0, -3.0]])
    return centers[rng.randint(4, size=n_rows)] + rng.standard_normal((n_rows, 2))


def test_docstring_states_the_refine_threshold():
    doc = " ".join(KernelHerdingSampler.__doc__.split())
    denominator = round(1 / herding_module.REFINE_MAX_FRACTION)
    assert herding_module.REFINE_MAX_FRACTION == 1 / denominator
    assert f"``REFINE_MAX_FRACTION`` (1/{denominator})" in doc
    assert f"n_c^2 / {denominator}" in doc


@pytest.mark.parametrize("n_rows", [320, 1000])
def test_refine_auto_swaps_up_to_its_fraction_of_the_rows(n_rows):
    X = _blobs(n_rows)
    largest = int(herding_module.REFINE_MAX_FRACTION * n_rows)
    for n_samples, expected in [(largest, "swap"), (largest + 1, None)]:
        sampler = KernelHerdingSampler(n_samples).fit(X)
        assert sampler.refine_ == expected
        assert (sampler.n_swaps_ > 0) == (expected == "swap")
        # The same fit as the resolved setting given explicitly.
        explicit = KernelHerdingSampler(n_samples, refine=expected).fit(X)
        np.testing.assert_array_equal(sampler.sample_indices_, explicit.sample_indices_)
        assert sampler.n_swaps_ == explicit.n_swaps_


def test_refine_auto_weighs_the_classes_together():
    X = _blobs(640)
    y = np.repeat([0, 1], [480, 160])
    sizes = np.bincount(y)
    resolved = set()
    for n_samples in range(2, 41):
        sampler = KernelHerdingSampler(n_samples, per_class=True).fit(X, y)
        budgets = np.array(list(sampler.sampling_strategy_.values()))
        small = budgets @ sizes <= herding_module.REFINE_MAX_FRACTION * sizes @ sizes
        assert sampler.refine_ == ("swap" if small else None)
        # Swaps stay inside a class.
        np.testing.assert_array_equal(np.bincount(y[sampler.sample_indices_]), budgets)
        resolved.add(sampler.refine_)
    assert resolved == {"swap", None}


@pytest.mark.parametrize(
    "params",
    [
        {"learning_rate": "fw"},
        {"learning_rate": "line_search"},
        {"feature_map": "rff"},
        {"feature_map": "nystroem"},
        {"feature_map": "rff", "maxip": "lsh"},
        {"kernel": "linear", "feature_map": "identity"},
    ],
)
def test_refine_auto_is_plain_herding_off_the_kernel_trick(params):
    # Where refine='swap' raises or its passes cost as much as herding's
    # iterations, 'auto' quietly runs the paper's recursion.
    X = _blobs(640)
    sampler = KernelHerdingSampler(8, random_state=0, **params).fit(X)
    assert sampler.refine_ is None and sampler.n_swaps_ == 0
    plain = KernelHerdingSampler(8, refine=None, random_state=0, **params).fit(X)
    np.testing.assert_array_equal(sampler.sample_indices_, plain.sample_indices_)


def test_auto_refuses_what_the_explicit_settings_refuse():
    with pytest.raises(ValueError, match="kernel='rbf'"):
        KernelHerdingSampler(5, feature_map="rff", kernel="linear").fit(np.eye(3))
    with pytest.raises(ValueError, match="needs explicit features"):
        KernelHerdingSampler(5, feature_map="exact", maxip="lsh").fit(np.eye(3))


_NUMBER = r"[-+0-9.e]+"


def _iteration_lines(out):
    pattern = re.compile(
        rf"^Iteration (\d+), squared MMD ({_NUMBER}), gap {_NUMBER}, "
        rf"elapsed ({_NUMBER}) s\.$"
    )
    return [pattern.match(line) for line in out if line.startswith("Iteration")]


def test_verbose_one_reports_every_tenth_iteration(capsys):
    X = np.random.RandomState(0).standard_normal((200, 3))
    sampler = KernelHerdingSampler(35, verbose=1).fit(X)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("200 candidate rows in all: feature_map='exact'")
    assert f"gamma={sampler.gamma_:.4g}" in out[0]
    assert out[1].startswith("Kernel mean embedding of 200 rows computed, elapsed")
    matches = _iteration_lines(out)
    assert all(matches)
    # ceil(35 / 10) = 4: iterations 4, 8, ..., 32, and the last.
    iterations = [int(m.group(1)) for m in matches]
    assert iterations == [*range(4, 36, 4), 35]
    printed = [float(m.group(2)) for m in matches]
    np.testing.assert_allclose(
        printed, sampler.objective_history_[np.array(iterations) - 1], rtol=1e-5
    )
    elapsed = [float(m.group(3)) for m in matches]
    assert elapsed == sorted(elapsed)


def test_verbose_two_reports_every_iteration(capsys):
    X = np.random.RandomState(0).standard_normal((50, 2))
    sampler = KernelHerdingSampler(12, verbose=2).fit(X)
    matches = _iteration_lines(capsys.readouterr().out.splitlines())
    assert [int(m.group(1)) for m in matches] == list(range(1, sampler.n_iter_ + 1))


def test_verbose_names_the_setup_steps(capsys):
    X = np.random.RandomState(0).standard_normal((60, 2))
    y = np.repeat([0, 1], 30)
    KernelHerdingSampler(8, maxip="lsh", per_class=True, random_state=0, verbose=1).fit(
        X, y
    )
    out = capsys.readouterr().out
    assert "30 candidate rows in the largest class: feature_map='rff'" in out
    assert "Features of shape (60, 256) computed, elapsed" in out
    assert "Class 0: 4 selections among 30 rows, elapsed" in out
    assert "Class 1: 4 selections among 30 rows, elapsed" in out
    assert out.count("LSH index of 30 rows built, elapsed") == 2
    assert "Kernel mean embedding" not in out


@pytest.mark.filterwarnings("ignore:n_samples=50 .*repeats rows:UserWarning")
def test_verbose_reports_convergence(capsys):
    # Line search matches the mean of 3 rows exactly and stops early.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    sampler = KernelHerdingSampler(
        50, kernel="linear", learning_rate="line_search", verbose=1
    ).fit(X)
    out = capsys.readouterr().out.splitlines()
    assert sampler.n_iter_ < 50
    assert out[-1].startswith(f"Converged at iteration {sampler.n_iter_}, squared MMD")
