"""Property-based tests of every LMO exported by :mod:`skcgm.oracles`.

For sets of small dimension drawn by hypothesis and directions whose
magnitudes range from 1e-300 to 1e300 (zeros, ties, float32 and integer
inputs included), the answer of the oracle is compared with brute force
over the enumerated vertices of the set (or a closed-form optimum for the
balls), and the answer and every projection must lie in the set, be finite,
raise no numpy RuntimeWarning and leave the input untouched.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skcgm import oracles
from skcgm.oracles import (
    LSHMIPS,
    BirkhoffLMO,
    BoxLMO,
    CappedSimplexLMO,
    ConvexHullLMO,
    DownClosedPolytopeLMO,
    ExactMIPS,
    KSparseLMO,
    L1BallLMO,
    L2BallLMO,
    LinfBallLMO,
    NuclearNormBallLMO,
    PolytopeLMO,
    ProductLMO,
    SimplexLMO,
)

# Relative tolerance of the comparisons with brute force, in units of the
# largest entry of the direction times the size of the set.
_RTOL = 1e-9

_KINDS = [
    "simplex",
    "capped",
    "l1",
    "l2",
    "linf",
    "box",
    "ksparse",
    "nuclear",
    "birkhoff",
    "polytope",
    "down_closed",
    "hull",
    "product",
]
# Sets whose vertices are enumerated (factors of a product).
_FACTOR_KINDS = ["simplex", "capped", "l1", "linf", "box", "ksparse"]


def test_every_exported_lmo_has_a_strategy():
    exported = {
        name for name in oracles.__all__ if name.endswith("LMO") and name != "LMOResult"
    }
    covered = {
        "SimplexLMO", "CappedSimplexLMO", "L1BallLMO", "L2BallLMO", "LinfBallLMO",
        "BoxLMO", "KSparseLMO", "NuclearNormBallLMO", "BirkhoffLMO", "PolytopeLMO",
        "DownClosedPolytopeLMO", "ConvexHullLMO", "ProductLMO",
    }  # fmt: skip
    assert exported == covered


def _box_rows(lower, upper):
    d = lower.shape[0]
    return np.vstack([-np.eye(d), np.eye(d)]), np.concatenate([-lower, upper])


def _sizes(draw):
    return draw(st.floats(0.1, 10.0))


@st.composite
def _lmo_and_oracle(draw, vertices_of, kinds=tuple(_KINDS)):
    """An LMO and ``(vertices, optimum)``: brute force of its minimum.

    ``vertices`` is an array of the vertices of the set (None for the balls),
    ``optimum(g)`` the minimum of <g, s> for a direction with max |g_i| = 1
    (None when the oracle is approximate).
    """
    kind = draw(st.sampled_from(kinds))
    d = draw(st.integers(1, 4))
    if kind == "simplex":
        r = _sizes(draw)
        return SimplexLMO(radius=r, n_features=d), r * np.eye(d), None
    if kind == "capped":
        r = _sizes(draw)
        return CappedSimplexLMO(r, d), np.vstack([r * np.eye(d), np.zeros(d)]), None
    if kind == "l1":
        r = _sizes(draw)
        return L1BallLMO(r, d), np.vstack([r * np.eye(d), -r * np.eye(d)]), None
    if kind in ("linf", "box"):
        corners = np.array(list(itertools.product([0.0, 1.0], repeat=d)))
        if kind == "linf":
            b = _sizes(draw)
            return LinfBallLMO(b, d), b * (2.0 * corners - 1.0), None
        lower = np.array(draw(st.lists(st.floats(-5, 5), min_size=d, max_size=d)))
        width = np.array(draw(st.lists(st.floats(0, 5), min_size=d, max_size=d)))
        upper = lower + width
        return BoxLMO(lower, upper), lower + corners * width, None
    if kind == "ksparse":
        k, b = draw(st.integers(1, 4)), _sizes(draw)
        points = np.array(list(itertools.product([-b, 0.0, b], repeat=d)))
        points = points[(points != 0).sum(axis=1) <= k]
        return KSparseLMO(k, bound=b, n_features=d), points, None
    if kind == "l2":
        r = _sizes(draw)
        return L2BallLMO(r, d), None, lambda g: -r * np.linalg.norm(g)
    if kind == "nuclear":
        shape = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        r = _sizes(draw)

        def optimum(g):
            return -r * np.linalg.svd(g.reshape(shape), compute_uv=False)[0]

        return NuclearNormBallLMO(r, shape), None, optimum
    if kind == "birkhoff":
        n = draw(st.integers(1, 3))
        perms = [np.eye(n)[list(p)].ravel() for p in itertools.permutations(range(n))]
        return BirkhoffLMO(n), np.array(perms), None
    rng = np.random.RandomState(draw(st.integers(0, 2**31 - 1)))
    d = min(d, 3)
    if kind == "polytope":
        m = draw(st.integers(1, 3))
        A = rng.standard_normal((m, d))
        b = rng.uniform(0.2, 2.0, m)
        G, h = _box_rows(-np.ones(d), np.ones(d))
        vertices = vertices_of(np.vstack([A, G]), np.concatenate([b, h]))
        return PolytopeLMO(A_ub=A, b_ub=b, bounds=(-1, 1)), vertices, None
    if kind == "down_closed":
        m = draw(st.integers(1, 2))
        A = rng.uniform(size=(m, d)) * (rng.uniform(size=(m, d)) < 0.8)
        b = rng.uniform(0.2, 1.5, m)
        upper = rng.uniform(0.2, 1.5, d)
        G, h = _box_rows(np.zeros(d), upper)
        vertices = vertices_of(np.vstack([A, G]), np.concatenate([b, h]))
        return DownClosedPolytopeLMO(A, b, upper), vertices, None
    if kind == "hull":
        atoms = rng.standard_normal((draw(st.integers(1, 6)), d)) * _sizes(draw)
        mips = draw(st.sampled_from(["none", "exact", "lsh"]))
        if mips == "lsh":
            # Approximate: its answer is checked for membership only.
            index = LSHMIPS(n_tables=2, n_bits=2, random_state=0)
            return ConvexHullLMO(index).fit(atoms), None, None
        index = ExactMIPS() if mips == "exact" else None
        return ConvexHullLMO(index).fit(atoms), atoms, None
    # product of two enumerable factors
    factors = [
        draw(_lmo_and_oracle(vertices_of, kinds=tuple(_FACTOR_KINDS))) for _ in range(2)
    ]
    vertices = np.array(
        [np.concatenate(pair) for pair in itertools.product(*(f[1] for f in factors))]
    )
    return ProductLMO([f[0] for f in factors]), vertices, None


def _magnitudes():
    return st.integers(-300, 300).map(lambda e: 10.0**e)


@st.composite
def _directions(draw, n_features):
    """Finite directions: magnitudes 1e-300..1e300, zeros, ties, dtypes."""
    dtype = draw(st.sampled_from(["float64", "float32", "int"]))
    if dtype == "int":
        values = st.integers(-(2**62), 2**62) | st.integers(-3, 3)
        return np.array(
            draw(st.lists(values, min_size=n_features, max_size=n_features))
        )
    base = draw(
        st.lists(
            st.sampled_from([0.0, 1.0, -1.0, 0.5]) | st.floats(-1.0, 1.0),
            min_size=n_features,
            max_size=n_features,
        )
    )
    scale = draw(_magnitudes())
    if dtype == "float32":
        # Within the float32 range.
        scale = float(np.clip(scale, 1e-30, 1e30))
    return (np.array(base) * scale).astype(dtype)


@st.composite
def _points(draw, n_features):
    """Finite points to project: any sign and magnitude, per coordinate."""
    exponents = draw(
        st.lists(st.integers(-300, 307), min_size=n_features, max_size=n_features)
    )
    signs = draw(
        st.lists(
            st.sampled_from([-1.0, 0.0, 1.0]), min_size=n_features, max_size=n_features
        )
    )
    return np.array(signs) * 10.0 ** np.array(exponents, dtype=float)


def _size_of(vertices, lmo):
    """A scale of the points of the set, for relative tolerances."""
    if vertices is not None and vertices.size:
        return max(1.0, np.abs(vertices).sum(axis=1).max())
    return max(1.0, lmo.radius * np.sqrt(lmo.n_features))


# One property run per kind of set: the slow budget is 500 examples each.
@pytest.mark.parametrize("kind", _KINDS)
def test_lmo_answer_is_a_minimizing_point_of_the_set(
    property_settings, polytope_vertices, kind
):
    @given(data=st.data())
    def check(data):
        lmo, vertices, optimum = data.draw(
            _lmo_and_oracle(polytope_vertices, kinds=(kind,))
        )
        grad = data.draw(_directions(lmo.n_features))
        before = grad.copy()
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            vertex, index, n_scored = lmo(grad)
            inside = lmo.contains(vertex, tol=1e-7 * _size_of(vertices, lmo))
        np.testing.assert_array_equal(grad, before)
        assert vertex.shape == (lmo.n_features,) and np.isfinite(vertex).all()
        assert inside
        assert isinstance(index, int) and isinstance(n_scored, int)
        scale = np.abs(grad.astype(np.float64)).max()
        if scale == 0:
            return
        # Compared on g / max|g_i|: the minimizers do not depend on the scale,
        # and the products of the brute force stay in range.
        unit = grad.astype(np.float64) / scale
        value = unit @ vertex
        # A float32 direction gives a float32 vertex (closed-form oracles).
        rtol = 1e-6 if grad.dtype == np.float32 else _RTOL
        tol = rtol * _size_of(vertices, lmo)
        if vertices is not None:
            assert value <= (vertices @ unit).min() + tol
        elif optimum is not None:
            assert value <= optimum(unit) + tol

    property_settings(check)()


# The Birkhoff polytope, general polytopes and convex hulls have no
# projection: they serve Frank-Wolfe only.
@pytest.mark.parametrize(
    "kind", [kind for kind in _KINDS if kind not in ("birkhoff", "polytope", "hull")]
)
def test_projection_lands_in_the_set_and_is_optimal(
    property_settings, polytope_vertices, kind
):
    @given(data=st.data())
    def check(data):
        lmo, vertices, _ = data.draw(_lmo_and_oracle(polytope_vertices, kinds=(kind,)))
        y = data.draw(_points(lmo.n_features))
        before = y.copy()
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            try:
                x = lmo.project(y)
            except ValueError as error:
                # Only the dual projection refuses points whose squares
                # overflow, and says so.
                assert isinstance(lmo, DownClosedPolytopeLMO)
                assert "Scale" in str(error)
                return
            size = _size_of(vertices, lmo)
            assert lmo.contains(x, tol=1e-9 * size)
        np.testing.assert_array_equal(y, before)
        assert x.shape == y.shape and np.isfinite(x).all()
        scale = np.abs(y - x).max()
        if vertices is None or scale == 0:
            return
        if isinstance(lmo, DownClosedPolytopeLMO) and np.abs(y).max() > 1e3:
            # The dual solver is accurate to its round-off for points near
            # the set only.
            return
        # Variational inequality <y - x, v - x> <= 0 for every vertex v,
        # on (y - x) / max|y_i - x_i| (whose rounding is relative).
        residual = ((y - x) / scale) @ (vertices - x).T
        assert residual.max() <= 1e-9 * size

    property_settings(check)()


@pytest.mark.parametrize(
    "bad",
    [
        np.array([np.nan, 1.0]),
        np.array([np.inf, 1.0]),
        np.array([1.0, 2.0, 3.0, 4.0, 5.0]),
        np.ones((2, 2)),
        np.array(["a", "b"]),
        np.array([1 + 1j, 2.0]),
        np.array([2**70, 1], dtype=object),
        np.array([]),
    ],
    ids=["nan", "inf", "length", "2d", "str", "complex", "bigint", "empty"],
)
def test_invalid_directions_and_points_raise(bad):
    for lmo in (
        SimplexLMO(n_features=2),
        L2BallLMO(n_features=2),
        KSparseLMO(1, n_features=2),
        NuclearNormBallLMO(shape=(1, 2)),
        DownClosedPolytopeLMO([[1.0, 1.0]], [1.0]),
        PolytopeLMO(A_ub=[[1.0, 1.0]], b_ub=[1.0], bounds=(0, 1)),
        ConvexHullLMO().fit(np.eye(2)),
        ProductLMO([BoxLMO(n_features=1), LinfBallLMO(n_features=1)]),
    ):
        with pytest.raises((ValueError, TypeError)):
            lmo(bad)
        if hasattr(lmo, "project"):
            with pytest.raises((ValueError, TypeError)):
                lmo.project(bad)
