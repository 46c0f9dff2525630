"""Direct tests of the sum-of-minimum solver objects and their registry.

Each solver's ``solve`` is run on a bound loss from a fixed start and checked
against an independent reference: scikit-learn's KMeans for the exact solver,
a brute-force argmin of the loss matrix and a non-increasing objective for the
gradient solvers, planted labels for the sum-of-product sweeps. The last tests
run the user guide's "Extending" example, copied verbatim, so that it stays
correct.
"""

import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

from skcgm.cluster import SumOfMinKMeans
from skcgm.datasets import make_union_of_subspaces
from skcgm.optim import (
    AdamLloyd,
    ExactLloyd,
    GradientLloyd,
    KLDivergenceLoss,
    MixedMLPLoss,
    MomentumLloyd,
    SquaredEuclideanLoss,
    SubspaceLoss,
    SumOfMinLoss,
    SumOfMinResult,
    SumOfProductSweeps,
    generalized_kmeans_plusplus,
    sum_of_minimum,
)
from skcgm.optim.sum_of_min import _registry as _sum_of_min_solvers
from skcgm.optim.sum_of_min._registry import SOLVERS, make_solver

ALL_SOLVERS = [ExactLloyd, GradientLloyd, MomentumLloyd, AdamLloyd, SumOfProductSweeps]


def _blobs(seed, n_samples=200, centers=4):
    X, _ = make_blobs(n_samples=n_samples, centers=centers, random_state=seed)
    return X


def _start(X, n_clusters, seed):
    """Distinct samples as the initial parameters."""
    rng = np.random.RandomState(seed)
    return X[rng.choice(X.shape[0], n_clusters, replace=False)].copy()


def _brute_force_labels(problem, params):
    return np.argmin(problem.loss_matrix(params), axis=1)


# --------------------------------------------------------------------------------------
# ExactLloyd


def test_exact_lloyd_from_fixed_start_equals_sklearn_lloyd(global_random_seed):
    X = _blobs(global_random_seed)
    start = _start(X, 4, global_random_seed)
    result = ExactLloyd(max_iter=300, tol=0).solve(
        SquaredEuclideanLoss().bind(X),
        start.copy(),
        np.ones(X.shape[0]),
        np.random.RandomState(0),
    )
    km = KMeans(4, algorithm="lloyd", init=start, n_init=1, tol=0).fit(X)
    np.testing.assert_allclose(result.params, km.cluster_centers_, rtol=1e-10)
    np.testing.assert_array_equal(result.labels, km.labels_)
    assert result.converged
    np.testing.assert_allclose(2 * X.shape[0] * result.objective, km.inertia_)


# --------------------------------------------------------------------------------------
# GradientLloyd and MomentumLloyd


@pytest.mark.parametrize(
    "solver",
    [
        GradientLloyd(eta0=0.05, max_iter=200),
        GradientLloyd(eta0=0.05, reclassify_every=3, max_iter=200),
        MomentumLloyd(eta0=0.01, momentum=0.5, max_iter=200),
    ],
    ids=["gd", "gd-reclassify-3", "momentum"],
)
def test_gradient_solvers_never_increase_objective_for_small_step(
    solver, global_random_seed
):
    X = _blobs(global_random_seed)
    problem = SquaredEuclideanLoss().bind(X)
    start = _start(X, 4, global_random_seed)
    weights = np.random.RandomState(global_random_seed).uniform(0.5, 2, X.shape[0])
    # Numerical trouble fails the test; a small step that does not converge
    # within max_iter is expected to say so.
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = solver.solve(
            problem, start, weights, np.random.RandomState(global_random_seed)
        )
    history = np.asarray(result.objective_history)
    assert np.all(np.diff(history) <= 1e-12 * history[:-1])
    assert result.objective < history[0]
    assert not result.diverged
    # The returned labels are the reclassification at the returned parameters.
    np.testing.assert_array_equal(
        result.labels, _brute_force_labels(problem, result.params)
    )
    losses = problem.loss_matrix(result.params).min(axis=1)
    np.testing.assert_allclose(
        result.objective, np.average(losses, weights=weights), rtol=1e-10
    )


# --------------------------------------------------------------------------------------
# SumOfProductSweeps


def test_sum_of_product_sweeps_recover_planted_subspaces(global_random_seed):
    X, planted, bases = make_union_of_subspaces(
        n_samples=300,
        n_features=3,
        n_clusters=2,
        subspace_dim=2,
        random_state=global_random_seed,
    )
    # Start near the planted normals: the sweeps must finish the job.
    rng = np.random.RandomState(global_random_seed)
    normals = []
    for basis in bases:
        q, _ = np.linalg.qr(np.hstack([basis, rng.standard_normal((3, 1))]))
        normal = q[:, 2:] + 0.1 * rng.standard_normal((3, 1))
        normals.append(normal / np.linalg.norm(normal))
    start = np.stack(normals)
    result = SumOfProductSweeps(max_iter=30).solve(
        SubspaceLoss(codim=1).bind(X),
        start,
        np.ones(X.shape[0]),
        np.random.RandomState(0),
    )
    assert adjusted_rand_score(planted, result.labels) == pytest.approx(1.0)
    # Every recovered normal is orthogonal to the points of its subspace.
    for j in range(2):
        residual = X[result.labels == j] @ result.params[j]
        assert np.abs(residual).max() < 1e-6 * np.abs(X).max()


# --------------------------------------------------------------------------------------
# The registry


@pytest.mark.parametrize("name", ["gd", "momentum"])
@pytest.mark.parametrize("loss", [KLDivergenceLoss(), SubspaceLoss(codim=1)])
def test_make_solver_refuses_loss_without_lipschitz_gradient(name, loss):
    problem = loss.bind(np.abs(_blobs(0, n_samples=20)))
    with pytest.raises(ValueError, match=rf"solver='{name}' needs Lipschitz"):
        make_solver(problem, name)
    with pytest.raises(ValueError, match=type(loss).__name__):
        make_solver(problem, name)


def test_make_solver_refuses_loss_without_group_minimizer():
    class NoMinimizer(SquaredEuclideanLoss):
        has_group_minimizer = False

    problem = NoMinimizer().bind(_blobs(0, n_samples=20))
    with pytest.raises(
        ValueError, match="needs a closed-form group minimizer.*NoMinimizer"
    ):
        make_solver(problem, "exact")
    assert isinstance(make_solver(problem, "gd"), GradientLloyd)


def test_make_solver_passes_only_the_options_the_solver_takes():
    problem = SquaredEuclideanLoss().bind(_blobs(0, n_samples=20))
    solver = make_solver(problem, "exact", max_iter=7, momentum=0.3, tol=0.5)
    assert (solver.max_iter, solver.tol) == (7, 0.5)
    assert not hasattr(solver, "momentum")


def test_registry_names_match_solver_names():
    assert set(SOLVERS) == {"exact", "gd", "momentum", "adam"}
    for name, cls in SOLVERS.items():
        assert cls.name == name


@pytest.mark.parametrize("solver", ALL_SOLVERS, ids=lambda cls: cls.name)
def test_requires_lists_only_capabilities_losses_have(solver):
    """Every requirement is a capability flag of SumOfMinLoss whose methods exist."""
    methods = {
        "has_group_minimizer": ["group_minimizer"],
        "has_lipschitz_gradient": [
            "lipschitz",
            "grad_sq_norm_vector",
            "group_gradient",
        ],
        "has_partition_gradient": ["partition_gradient"],
    }
    assert isinstance(solver.requires, tuple)
    for capability in solver.requires:
        assert capability in _sum_of_min_solvers._CAPABILITIES
        assert isinstance(getattr(SumOfMinLoss, capability), bool)
        for loss in (
            SquaredEuclideanLoss,
            KLDivergenceLoss,
            SubspaceLoss,
            MixedMLPLoss,
        ):
            if getattr(loss, capability):
                for method in methods[capability]:
                    assert callable(getattr(loss, method, None)), (loss, method)
    # The methods every solver calls on any loss are in the base class.
    for method in ("reclassify", "partition_statistics", "loss_matrix"):
        assert callable(getattr(SumOfMinLoss, method))


# --------------------------------------------------------------------------------------
# The user guide's "Extending: a new loss family or a new solver", verbatim


class WeightedSquaredEuclideanLoss(SumOfMinLoss):
    """f_i(x) = 1/2 sum_l a_l (x_l - y_il)^2 with feature weights a_l > 0."""

    # The exact solver's capability; the gradient solvers would also need
    # lipschitz(), grad_sq_norm_vector() and group_gradient().
    has_group_minimizer = True
    has_lipschitz_gradient = False

    def __init__(self, feature_weights):
        self.feature_weights = feature_weights

    def _set_data(self, X, y):
        self.X = np.asarray(X)  # dense data only, for brevity
        self.n_samples, self.n_features = self.X.shape
        self.a = np.asarray(self.feature_weights, dtype=self.X.dtype)

    def param_shape(self):
        return (self.n_features,)

    def loss_matrix(self, params, rows=slice(None)):
        diff = self.X[rows, None, :] - params[None, :, :]
        return 0.5 * np.einsum("ijl,l->ij", diff**2, self.a)

    def loss_vector(self, param):
        return 0.5 * ((self.X - param) ** 2) @ self.a

    def sample_min_values(self):
        return np.zeros(self.n_samples, dtype=self.X.dtype)

    def sample_minimizers(self, indices, random_state):
        return self.X[np.asarray(indices)].copy()

    def random_params(self, n_params, random_state, dtype):
        shape = (n_params, self.n_features)
        return random_state.standard_normal(shape).astype(dtype)

    def group_statistics(self, membership, rows=slice(None)):
        # Sums that add up over blocks of rows: the weighted sum of each group.
        return (np.asarray(membership @ self.X[rows]),)

    def group_minimizer(self, params, statistics, counts):
        # The weighted mean of every group; an empty group keeps its parameter.
        (sums,) = statistics
        means = params.copy()
        filled = counts > 0
        means[filled] = sums[filled] / counts[filled, None]
        return means


class DampedLloyd:
    """Lloyd moving every parameter a fraction of the way to its group minimizer."""

    name = "damped"  # the value of the ``solver`` option once registered
    requires = ("has_group_minimizer",)  # loss capabilities it needs

    def __init__(self, damping=0.5, max_iter=300, tol=1e-4):
        self.damping = damping
        self.max_iter = max_iter
        self.tol = tol

    def solve(self, problem, start, sample_weight, random_state, progress=None):
        params, history, converged = start, [], False
        n_clusters = start.shape[0]
        for n_iter in range(self.max_iter + 1):
            labels, _, objective, _ = problem.reclassify(params, sample_weight)
            history.append(objective)
            if n_iter and history[-2] - objective <= self.tol * abs(history[-2]):
                converged = True
                break
            if n_iter == self.max_iter:
                break
            statistics, counts = problem.partition_statistics(
                labels, sample_weight, n_clusters
            )
            target = problem.group_minimizer(params, statistics, counts)
            params = params + self.damping * (target - params)
        return SumOfMinResult.from_run(
            start, params, labels, history, n_iter, converged=converged
        )


def test_extending_example_runs():
    X, _ = make_blobs(n_samples=300, centers=3, random_state=0)
    loss = WeightedSquaredEuclideanLoss(feature_weights=[1.0, 4.0])

    # (a) The new loss family, through the engine: seeding, restarts, exact Lloyd.
    result = sum_of_minimum(X, 3, loss=loss, n_init=5, random_state=0)

    # (b) The new solver, on the bound loss, from a generalized k-means++ start.
    start, _ = generalized_kmeans_plusplus(X, 3, loss=loss, random_state=0)
    problem = loss.bind(X)
    damped = DampedLloyd().solve(
        problem, start, np.ones(len(X)), np.random.RandomState(0)
    )

    # (c) Both, through an estimator: the new loss and the new solver object.
    model = SumOfMinKMeans(3, loss=loss, solver=DampedLloyd(damping=0.8))
    model.fit(X)

    assert isinstance(result, SumOfMinResult)
    np.testing.assert_array_equal(model.labels_, model.predict(X))
    assert model.objective_history_[-1] <= model.objective_history_[0]
    losses = problem.loss_matrix(result.params)
    np.testing.assert_array_equal(result.labels, losses.argmin(axis=1))
    np.testing.assert_allclose(result.objective, losses.min(axis=1).mean())
    assert damped.converged
    assert damped.objective <= damped.objective_history[0]
    np.testing.assert_array_equal(
        damped.labels, problem.loss_matrix(damped.params).argmin(axis=1)
    )


def test_extending_loss_matches_brute_force_and_exact_lloyd():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((50, 2))
    a = np.array([1.0, 4.0])
    problem = WeightedSquaredEuclideanLoss(feature_weights=a).bind(X)
    params = rng.standard_normal((3, 2))
    expected = 0.5 * (((X[:, None, :] - params[None]) ** 2) * a).sum(axis=2)
    np.testing.assert_allclose(problem.loss_matrix(params), expected)
    np.testing.assert_allclose(problem.loss_vector(params[0]), expected[:, 0])
    # Scaling the features by sqrt(a) turns it into the k-means loss.
    scaled = X * np.sqrt(a)
    start = X[:3].copy()
    ours = ExactLloyd(tol=0).solve(problem, start, np.ones(50), rng)
    km = KMeans(3, init=start * np.sqrt(a), n_init=1, tol=0).fit(scaled)
    np.testing.assert_array_equal(ours.labels, km.labels_)
    np.testing.assert_allclose(ours.params * np.sqrt(a), km.cluster_centers_)


def test_extending_loss_refused_by_gradient_solvers_and_solver_registers(
    monkeypatch,
):
    X = np.random.RandomState(0).standard_normal((30, 2))
    loss = WeightedSquaredEuclideanLoss(feature_weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="solver='gd' needs Lipschitz gradients"):
        sum_of_minimum(X, 2, loss=loss, solver="gd")
    # Registering the solver is one entry in SOLVERS.
    monkeypatch.setitem(SOLVERS, DampedLloyd.name, DampedLloyd)
    solver = make_solver(loss.bind(X), "damped", damping=0.25, momentum=0.9)
    assert isinstance(solver, DampedLloyd) and solver.damping == 0.25


def test_solver_object_runs_with_its_own_hyper_parameters(global_random_seed):
    # Full damping is exact Lloyd: the same seeds give the same clustering as
    # the registered 'exact' solver, whatever the estimator's own options.
    X, _ = make_blobs(n_samples=200, centers=4, random_state=global_random_seed)
    damped = SumOfMinKMeans(
        4,
        solver=DampedLloyd(damping=1.0, tol=0),
        n_init=3,
        tol=0.5,
        max_iter=1,
        random_state=global_random_seed,
    ).fit(X)
    exact = SumOfMinKMeans(
        4, solver="exact", n_init=3, tol=0, random_state=global_random_seed
    ).fit(X)
    np.testing.assert_array_equal(damped.labels_, exact.labels_)
    np.testing.assert_allclose(damped.cluster_centers_, exact.cluster_centers_)
    # The estimator's max_iter=1 did not apply: more than one update ran.
    assert len(damped.objective_history_) > 2 and damped.n_iter_ > 1


def test_solver_object_without_a_capability_of_the_loss_is_refused():
    class GradientOnly(DampedLloyd):
        name = "gradient-only"
        requires = ("has_lipschitz_gradient",)

    X = np.abs(np.random.RandomState(0).standard_normal((30, 2)))
    with pytest.raises(ValueError, match="solver='gradient-only' needs Lipschitz"):
        SumOfMinKMeans(2, loss="kl", solver=GradientOnly()).fit(X)
    with pytest.raises(ValueError, match="solver='gradient-only' needs Lipschitz"):
        sum_of_minimum(X, 2, loss="kl", solver=GradientOnly())
