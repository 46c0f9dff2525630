"""Tests of the maximum-inner-product search indexes and the FW transforms."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skcgm.oracles import (
    LSHMIPS,
    ExactMIPS,
    fw_atom_transform,
    fw_query_transform,
    sphere_pad_atoms,
    sphere_pad_query,
)
from skcgm.oracles._mips import _probe_masks


def _clustered_sphere(n_atoms=2000, n_features=20, n_clusters=16, seed=0):
    """Atoms in tight clusters on the unit sphere, and queries near the centers."""
    rng = np.random.RandomState(seed)
    centers = rng.standard_normal((n_clusters, n_features))
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    atoms = centers[rng.randint(n_clusters, size=n_atoms)]
    atoms = atoms + 0.05 * rng.standard_normal(atoms.shape)
    atoms /= np.linalg.norm(atoms, axis=1, keepdims=True)
    queries = centers[rng.randint(n_clusters, size=200)]
    queries = queries + 0.05 * rng.standard_normal(queries.shape)
    return atoms, queries


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(1, 3), (7, 1), (50, 4), (300, 17)])
@pytest.mark.parametrize("block_size", [None, 1, 13])
def test_exact_mips_matches_argmax(dtype, shape, block_size):
    rng = np.random.RandomState(0)
    atoms = rng.standard_normal(shape).astype(dtype)
    Q = rng.standard_normal((9, shape[1])).astype(dtype)
    mips = ExactMIPS(block_size=block_size).fit(atoms)
    assert mips.atoms_.dtype == dtype
    assert (mips.n_atoms_, mips.n_features_in_) == shape

    indices, scores, n_scored = mips.query_batch(Q)
    expected = np.argmax(Q @ atoms.T, axis=1)
    np.testing.assert_array_equal(indices, expected)
    assert scores.dtype == dtype
    np.testing.assert_allclose(
        scores, (Q @ atoms.T).max(axis=1), rtol=1e-5 if dtype == np.float32 else 1e-12
    )
    np.testing.assert_array_equal(n_scored, shape[0])
    for q, idx in zip(Q, expected):
        index, score, count = mips.query(q)
        assert index == np.argmax(atoms @ q) == idx
        assert isinstance(index, int) and isinstance(count, int)
        assert score == pytest.approx(float(atoms[idx] @ q), rel=1e-5)
        assert count == shape[0]


@pytest.mark.parametrize("block_size", [None, 1, 2, 3])
def test_exact_mips_ties_go_to_lowest_index(block_size):
    # Integer data: exact arithmetic, so ties are exact, also across blocks.
    atoms = np.array([[0, 1], [2, 0], [1, 1], [2, 0], [0, 2], [2, 0]], dtype=float)
    mips = ExactMIPS(block_size=block_size).fit(atoms)
    assert mips.query([1.0, 0.0])[:2] == (1, 2.0)
    assert mips.query([0.0, 0.0])[:2] == (0, 0.0)
    indices, _, _ = mips.query_batch([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    np.testing.assert_array_equal(indices, [1, 4, 1])


def test_exact_mips_many_queries_are_chunked():
    rng = np.random.RandomState(1)
    atoms = rng.standard_normal((40, 3))
    Q = rng.standard_normal((2500, 3))  # more than one query chunk
    indices, _, _ = ExactMIPS(block_size=7).fit(atoms).query_batch(Q)
    np.testing.assert_array_equal(indices, np.argmax(Q @ atoms.T, axis=1))


def test_lsh_mips_with_many_tables_is_exact_on_small_data():
    rng = np.random.RandomState(0)
    atoms = rng.standard_normal((100, 5)) * rng.uniform(0.1, 3.0, size=(100, 1))
    Q = rng.standard_normal((100, 5))
    mips = LSHMIPS(n_tables=64, n_bits=3, random_state=0).fit(atoms)
    indices, scores, n_scored = mips.query_batch(Q)
    np.testing.assert_array_equal(indices, np.argmax(Q @ atoms.T, axis=1))
    np.testing.assert_allclose(scores, (Q @ atoms.T).max(axis=1))
    assert np.all((n_scored >= 1) & (n_scored <= 100))
    assert mips.projections_.shape == (64, 3, 6)
    assert mips.codes_.shape == (100, 64)
    assert len(mips.buckets_) == 64
    for table, bucket in enumerate(mips.buckets_):
        assert sum(ids.size for ids in bucket.values()) == 100
        for code, ids in bucket.items():
            np.testing.assert_array_equal(mips.codes_[ids, table], code)


def test_lsh_mips_zero_bits_is_an_exact_scan():
    rng = np.random.RandomState(0)
    atoms = rng.standard_normal((30, 4)).astype(np.float32)
    Q = rng.standard_normal((10, 4)).astype(np.float32)
    indices, scores, n_scored = LSHMIPS(n_tables=2, n_bits=0).fit(atoms).query_batch(Q)
    np.testing.assert_array_equal(indices, np.argmax(Q @ atoms.T, axis=1))
    assert scores.dtype == np.float32
    np.testing.assert_array_equal(n_scored, 30)


def test_lsh_mips_scores_a_fraction_on_clustered_data():
    atoms, Q = _clustered_sphere()
    mips = LSHMIPS(n_tables=16, n_bits=8, random_state=0).fit(atoms)
    indices, _, n_scored = mips.query_batch(Q)
    exact = np.argmax(Q @ atoms.T, axis=1)
    # Measured for this seed (not a guarantee of the method): every query
    # finds its exact maximizer while scoring about 17% of the atoms.
    assert np.mean(indices == exact) == 1.0
    assert n_scored.max() < atoms.shape[0]
    assert int(n_scored.sum()) == 69342
    assert n_scored.mean() / atoms.shape[0] < 0.2
    # Single queries score the same candidates.
    index, _, count = mips.query(Q[0])
    assert (index, count) == (indices[0], n_scored[0])


def test_lsh_mips_recall_lower_bound_on_gaussian_data():
    # Unstructured data is the hard case for hashing: recall@1 over many
    # random queries, measured for this seed, is a lower bound for it only.
    rng = np.random.RandomState(0)
    atoms = rng.standard_normal((500, 10))
    Q = rng.standard_normal((300, 10))
    exact = np.argmax(Q @ atoms.T, axis=1)
    indices, scores, n_scored = (
        LSHMIPS(n_tables=16, n_bits=8, random_state=0).fit(atoms).query_batch(Q)
    )
    recall = np.mean(indices == exact)
    fraction = n_scored.mean() / atoms.shape[0]
    assert recall >= 0.45  # measured 0.50
    assert fraction <= 0.08  # measured 0.076
    # A returned score is a true inner product, never above the maximum.
    np.testing.assert_allclose(scores, np.einsum("ij,ij->i", Q, atoms[indices]))
    assert np.all(scores <= (Q @ atoms.T).max(axis=1) + 1e-12)


def test_probe_masks_follow_the_score_order_of_brute_force():
    rng = np.random.RandomState(0)
    margins = rng.standard_normal(5)
    masks = _probe_masks(margins, n_probes=31)
    # All 2^5 subsets of flipped bits, each once, the query's bucket first.
    assert masks[0] == 0
    assert sorted(masks) == list(range(32))

    def score(mask):
        return sum(margins[j] ** 2 for j in range(5) if mask >> j & 1)

    scores = [score(mask) for mask in masks]
    assert scores == sorted(scores)
    assert _probe_masks(margins, n_probes=3) == masks[:4]
    assert _probe_masks(margins, n_probes=0) == [0]


def test_lsh_mips_probes_only_add_candidates():
    rng = np.random.RandomState(0)
    atoms = rng.standard_normal((400, 8))
    Q = rng.standard_normal((100, 8))
    best = (Q @ atoms.T).max(axis=1)
    plain = LSHMIPS(n_tables=4, n_bits=8, random_state=0).fit(atoms)
    probed = LSHMIPS(n_tables=4, n_bits=8, n_probes=6, random_state=0).fit(atoms)
    _, plain_scores, plain_scored = plain.query_batch(Q)
    _, probed_scores, probed_scored = probed.query_batch(Q)
    # Same projections, more buckets: a superset of candidates per query
    # (unless the plain index fell back to the full scan).
    hit = plain_scored < atoms.shape[0]
    assert np.all(probed_scored[hit] >= plain_scored[hit])
    assert np.all(probed_scores[hit] >= plain_scores[hit])
    assert np.mean(probed_scores == best) > np.mean(plain_scores == best)


def test_lsh_mips_candidate_cap_keeps_the_closest_codes():
    rng = np.random.RandomState(0)
    atoms = rng.standard_normal((300, 6))
    q = rng.standard_normal(6)
    full = LSHMIPS(n_tables=8, n_bits=3, random_state=0).fit(atoms)
    capped = LSHMIPS(n_tables=8, n_bits=3, n_candidates=20, random_state=0).fit(atoms)
    _, _, n_full = full.query(q)
    index, score, n_capped = capped.query(q)
    assert n_full > 20 and n_capped == 20
    # Brute force: the 20 kept atoms are among the closest in summed Hamming
    # distance over all tables, and the answer is the best of them.
    q_codes = capped._hash(sphere_pad_query(q)[np.newaxis, :])[0]
    distances = np.array(
        [
            sum(bin(int(c) ^ int(d)).count("1") for c, d in zip(row, q_codes))
            for row in capped.codes_
        ]
    )
    union = np.unique(
        np.concatenate(
            [b.get(int(c), np.empty(0, int)) for b, c in zip(capped.buckets_, q_codes)]
        )
    )
    threshold = np.sort(distances[union])[19]
    assert distances[index] <= threshold
    kept_best = atoms[union[distances[union] < threshold]] @ q
    assert score >= kept_best.max() - 1e-12
    assert score == pytest.approx(atoms[index] @ q)


def test_lsh_mips_same_random_state_same_results():
    atoms, Q = _clustered_sphere(n_atoms=300, seed=1)
    first = LSHMIPS(n_tables=4, n_bits=6, random_state=42).fit(atoms)
    second = LSHMIPS(n_tables=4, n_bits=6, random_state=42).fit(atoms)
    other = LSHMIPS(n_tables=4, n_bits=6, random_state=43).fit(atoms)
    np.testing.assert_array_equal(first.projections_, second.projections_)
    np.testing.assert_array_equal(first.codes_, second.codes_)
    for a, b in zip(first.query_batch(Q), second.query_batch(Q)):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first.codes_, other.codes_)
    # A RandomState instance is used, not the global RNG.
    np.random.seed(0)  # noqa: NPY002
    state = np.random.get_state()[1].copy()  # noqa: NPY002
    LSHMIPS(n_tables=2, n_bits=2, random_state=np.random.RandomState(0)).fit(atoms)
    np.testing.assert_array_equal(np.random.get_state()[1], state)  # noqa: NPY002


def test_lsh_mips_falls_back_to_an_exact_scan():
    rng = np.random.RandomState(0)
    atoms = rng.standard_normal((3, 6))
    mips = LSHMIPS(n_tables=1, n_bits=20, random_state=0).fit(atoms)
    Q = rng.standard_normal((20, 6))
    indices, _, n_scored = mips.query_batch(Q)
    np.testing.assert_array_equal(indices, np.argmax(Q @ atoms.T, axis=1))
    # 3 atoms in 2**20 buckets: most queries land in an empty bucket.
    assert np.sum(n_scored == 3) >= 15


def test_lsh_mips_zero_query_and_zero_atoms():
    atoms = np.zeros((5, 3))
    mips = LSHMIPS(n_tables=2, n_bits=4, random_state=0).fit(atoms)
    assert mips.max_norm_ == 1.0
    assert mips.query([1.0, 2.0, 3.0])[:2] == (0, 0.0)
    rng = np.random.RandomState(0)
    mips.fit(rng.standard_normal((5, 3)))
    assert mips.query(np.zeros(3)) == (0, 0.0, 0)


@pytest.mark.parametrize("mips", [ExactMIPS(), LSHMIPS(random_state=0)])
def test_mips_query_before_fit_raises_not_fitted(mips):
    with pytest.raises(NotFittedError, match="not fitted"):
        mips.query(np.ones(3))
    with pytest.raises(NotFittedError, match="not fitted"):
        mips.query_batch(np.ones((2, 3)))


@pytest.mark.parametrize("Index", [ExactMIPS, LSHMIPS])
def test_mips_bad_input(Index):
    mips = Index()
    with pytest.raises(ValueError, match="NaN"):
        mips.fit([[1.0, np.nan]])
    with pytest.raises(ValueError, match="infinity"):
        mips.fit([[1.0, np.inf]])
    with pytest.raises(ValueError, match="2D array"):
        mips.fit([1.0, 2.0])
    with pytest.raises(TypeError, match="(?i)sparse"):
        mips.fit(sp.csr_matrix(np.eye(3)))
    mips.fit(np.eye(3))
    with pytest.raises(ValueError, match=r"q must be a 1-D array .* \(3,\)"):
        mips.query(np.ones(4))
    with pytest.raises(ValueError, match="q must be a 1-D array"):
        mips.query(np.ones((1, 3)))
    with pytest.raises(ValueError, match="NaN"):
        mips.query([np.nan, 0.0, 0.0])
    with pytest.raises(ValueError, match="Q must have n_features=3"):
        mips.query_batch(np.ones((2, 4)))
    with pytest.raises(ValueError, match="2D array"):
        mips.query_batch(np.ones(3))


@pytest.mark.parametrize(
    "mips, name",
    [
        (ExactMIPS(block_size=0), "block_size"),
        (ExactMIPS(block_size=2.0), "block_size"),
        (LSHMIPS(n_tables=0), "n_tables"),
        (LSHMIPS(n_tables=True), "n_tables"),
        (LSHMIPS(n_bits=-1), "n_bits"),
        (LSHMIPS(n_bits=63), "n_bits"),
        (LSHMIPS(n_bits=1.5), "n_bits"),
    ],
)
def test_mips_bad_hyperparameters_name_the_parameter(mips, name):
    with pytest.raises(
        ValueError, match=f"'{name}' parameter of {type(mips).__name__}"
    ):
        mips.fit(np.eye(3))


def test_mips_clone_pickle_and_params():
    atoms, Q = _clustered_sphere(n_atoms=200, seed=2)
    mips = LSHMIPS(n_tables=3, n_bits=5, random_state=0)
    assert mips.get_params() == {
        "n_bits": 5,
        "n_candidates": None,
        "n_probes": 0,
        "n_tables": 3,
        "random_state": 0,
    }
    assert repr(mips) == "LSHMIPS(n_bits=5, n_tables=3, random_state=0)"
    mips.fit(atoms)
    cloned = clone(mips)
    assert not hasattr(cloned, "atoms_")
    assert cloned.get_params() == mips.get_params()
    restored = pickle.loads(pickle.dumps(mips))
    for a, b in zip(mips.query_batch(Q), restored.query_batch(Q)):
        np.testing.assert_array_equal(a, b)
    assert ExactMIPS().set_params(block_size=5).block_size == 5
    with pytest.raises(ValueError, match="Invalid parameter 'n_bits'"):
        ExactMIPS().set_params(n_bits=5)


def test_fw_transforms_turn_the_direction_search_into_mips():
    rng = np.random.RandomState(0)
    atoms = rng.standard_normal((40, 5))
    x = atoms[:10].mean(axis=0)
    grad = rng.standard_normal(5)
    query = fw_query_transform(grad, x)
    points = fw_atom_transform(atoms)
    assert query.shape == (6,) and points.shape == (40, 6)
    # Eq. (2): <y - x, grad> = -<phi0(x), psi0(y)>.
    np.testing.assert_allclose(points @ query, -(atoms - x) @ grad)
    expected = np.argmin((atoms - x) @ grad)
    assert ExactMIPS().fit(points).query(query)[0] == expected
    # The simplification of the note: a plain MIPS with query -grad.
    assert ExactMIPS().fit(atoms).query(-grad)[0] == expected
    with pytest.raises(ValueError, match="same shape"):
        fw_query_transform(grad, x[:3])


def test_sphere_padding_keeps_the_ranking():
    rng = np.random.RandomState(0)
    atoms = rng.standard_normal((50, 4)) * rng.uniform(0.1, 5.0, size=(50, 1))
    Q = rng.standard_normal((8, 4))
    padded, max_norm = sphere_pad_atoms(atoms, return_max_norm=True)
    assert max_norm == pytest.approx(np.linalg.norm(atoms, axis=1).max())
    np.testing.assert_allclose(np.linalg.norm(padded, axis=1), 1.0)
    padded_q = sphere_pad_query(Q)
    np.testing.assert_allclose(np.linalg.norm(padded_q, axis=1), 1.0)
    inner = padded_q @ padded.T
    np.testing.assert_allclose(
        inner, (Q @ atoms.T) / (max_norm * np.linalg.norm(Q, axis=1))[:, None]
    )
    np.testing.assert_array_equal(inner.argmax(axis=1), (Q @ atoms.T).argmax(axis=1))
    np.testing.assert_allclose(sphere_pad_query(Q[0]), padded_q[0])
    np.testing.assert_array_equal(sphere_pad_query(np.zeros(3)), np.zeros(4))
    bigger = sphere_pad_atoms(atoms, max_norm=2 * max_norm)
    np.testing.assert_allclose(np.linalg.norm(bigger, axis=1), 1.0)
    with pytest.raises(ValueError, match="max_norm must be"):
        sphere_pad_atoms(atoms, max_norm=max_norm / 2)


@pytest.mark.parametrize("scale", [1e-300, 1e150])
def test_queries_far_from_unit_scale_rank_as_the_unit_query(scale):
    # The norm of a tiny query underflowed to 0 (answered as a zero query).
    rng = np.random.RandomState(0)
    atoms = rng.standard_normal((50, 4))
    q = rng.standard_normal(4)
    expected = int(np.argmax(atoms @ q))
    for mips in (ExactMIPS(), LSHMIPS(n_tables=8, n_bits=4, random_state=0)):
        mips.fit(atoms)
        index, score, n_scored = mips.query(q * scale)
        assert index == mips.query(q)[0] and n_scored > 0
        assert np.isfinite(score)
    assert ExactMIPS().fit(atoms).query(q * scale)[0] == expected
    np.testing.assert_allclose(sphere_pad_query(q * scale), sphere_pad_query(q))
    np.testing.assert_allclose(sphere_pad_query(q * 1e300), sphere_pad_query(q))


def test_indexes_refuse_atoms_whose_squares_overflow():
    for mips in (ExactMIPS(), LSHMIPS()):
        with pytest.raises(ValueError, match="atoms .*Scale"):
            mips.fit(np.full((3, 2), 1e200))
    with pytest.raises(ValueError, match="q .*Scale"):
        ExactMIPS().fit(np.eye(2)).query(np.array([1e200, 0.0]))
    with pytest.raises(ValueError, match="Q .*Scale"):
        LSHMIPS().fit(np.eye(2)).query_batch(np.array([[1e200, 0.0]]))
