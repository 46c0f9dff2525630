import numpy as np
import pytest

from skcgm.datasets import make_mixed_linear_regression, make_union_of_subspaces


def test_make_mixed_linear_regression_noiseless_targets_follow_the_model():
    X, y, coef, labels = make_mixed_linear_regression(
        n_samples=200, n_features=4, n_components=3, noise=0.0, random_state=0
    )
    assert X.shape == (200, 4) and coef.shape == (3, 4)
    np.testing.assert_allclose(y, np.einsum("nd,nd->n", X, coef[labels]))
    assert set(np.unique(labels)) == {0, 1, 2}


def test_make_mixed_linear_regression_noise_has_the_requested_scale():
    kwargs = dict(n_samples=20000, n_features=3, n_components=2, random_state=1)
    X, y, coef, labels = make_mixed_linear_regression(noise=0.5, **kwargs)
    residual = y - np.einsum("nd,nd->n", X, coef[labels])
    assert residual.std() == pytest.approx(0.5, rel=0.03)


def test_make_union_of_subspaces_points_lie_on_their_subspace():
    X, labels, bases = make_union_of_subspaces(
        n_samples=300, n_features=5, n_clusters=3, subspace_dim=2, random_state=0
    )
    for j in range(3):
        np.testing.assert_allclose(bases[j].T @ bases[j], np.eye(2), atol=1e-12)
        points = X[labels == j]
        projected = points @ bases[j] @ bases[j].T
        np.testing.assert_allclose(points, projected, atol=1e-12)


def test_make_union_of_subspaces_scales_keep_the_draws():
    kwargs = dict(n_samples=100, n_features=4, n_clusters=2, random_state=3)
    X, labels, bases = make_union_of_subspaces(**kwargs)
    X_code, labels_code, bases_code = make_union_of_subspaces(
        coordinate_scales=(1.0, 0.2), **kwargs
    )
    np.testing.assert_array_equal(labels, labels_code)
    np.testing.assert_array_equal(bases, bases_code)
    coords = np.einsum("nds,nd->ns", bases[labels], X)
    coords_code = np.einsum("nds,nd->ns", bases[labels], X_code)
    np.testing.assert_allclose(coords_code, coords * [1.0, 0.2], atol=1e-12)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_features=3, subspace_dim=3), "subspace_dim=3 must be smaller"),
        (dict(subspace_dim=2, coordinate_scales=(1.0,)), "coordinate_scales"),
    ],
)
def test_make_union_of_subspaces_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_union_of_subspaces(**kwargs)
