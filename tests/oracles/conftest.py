"""Fixtures shared by the oracle tests."""

import itertools

import numpy as np
import pytest


def _enumerate_vertices(G, h):
    """Vertices of {x : G x <= h}: feasible solutions of every d x d subsystem."""
    d = G.shape[1]
    vertices = []
    for rows in itertools.combinations(range(G.shape[0]), d):
        sub = G[list(rows)]
        if abs(np.linalg.det(sub)) < 1e-10:
            continue
        x = np.linalg.solve(sub, h[list(rows)])
        if np.all(G @ x <= h + 1e-9):
            vertices.append(x)
    return np.unique(np.round(np.array(vertices), 12), axis=0)


@pytest.fixture
def polytope_vertices():
    """``vertices(G, h)``: brute-force vertex enumeration of a small polytope."""
    return _enumerate_vertices
