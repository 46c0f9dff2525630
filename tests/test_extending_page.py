"""The user guide's "Extending skcgm" page runs as written.

Its code blocks are executed in order in one namespace, as a reader would
paste them; the checks below hold the page's claims: the new loss family
fits through the engine, the new solver runs on the bound loss and through
an estimator, and a solver the loss lacks a capability for is refused.
"""

import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

PAGE = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "extending.rst"


def _code_blocks(text):
    """The bodies of the page's ``.. code-block:: python`` directives."""
    blocks = []
    for match in re.finditer(
        r"^\.\. code-block:: python\n\n((?:    .*\n|\n)+)", text, re.M
    ):
        lines = [line[4:] for line in match.group(1).split("\n")]
        blocks.append("\n".join(lines).strip("\n") + "\n")
    return blocks


@pytest.fixture(scope="module")
def namespace():
    blocks = _code_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 4
    scope = {"__name__": "extending_page"}
    for block in blocks:
        exec(compile(block, str(PAGE), "exec"), scope)
    return scope


def test_the_new_loss_fits_through_the_engine(namespace):
    # The weighted loss is the squared Euclidean one on X scaled by sqrt(a):
    # KMeans there is an independent oracle of partition, centers and value.
    X, result = namespace["X"], namespace["result"]
    scale = np.sqrt([1.0, 4.0])
    reference = KMeans(3, n_init=10, random_state=0).fit(X * scale)
    assert adjusted_rand_score(reference.labels_, result.labels) == 1.0
    centers = reference.cluster_centers_ / scale
    order = [np.argmin(np.linalg.norm(centers - p, axis=1)) for p in result.params]
    np.testing.assert_allclose(result.params, centers[order], rtol=1e-10)
    # The engine reports the mean of the minimum losses.
    assert np.isclose(result.objective, reference.inertia_ / 2 / len(X))


def test_the_new_solver_never_increases_the_objective(namespace):
    damped = namespace["damped"]
    history = np.asarray(damped.objective_history)
    assert np.all(np.diff(history) <= 1e-9 * np.abs(history[:-1]))


def test_the_estimator_runs_the_new_loss_and_solver(namespace):
    model, X = namespace["model"], namespace["X"]
    np.testing.assert_array_equal(model.labels_, model.predict(X))
    assert model.cluster_centers_.shape == (3, 2)


def test_a_missing_capability_is_refused(namespace):
    from skcgm.cluster import SumOfMinKMeans

    with pytest.raises(ValueError, match="[Ll]ipschitz"):
        SumOfMinKMeans(3, loss=namespace["loss"], solver="gd").fit(namespace["X"])
