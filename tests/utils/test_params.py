"""Tests of ParamsMixin's validation: once per parameter change (issue 40)."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import copy
import pickle

import numpy as np
import pytest

from skcgm.oracles import BoxLMO, L2BallLMO, PolytopeLMO, ProductLMO, SimplexLMO
from skcgm.utils._params import ParamsMixin


@pytest.fixture
def n_validations(monkeypatch):
    """The number of runs of ParamsMixin._validate_params, as a list of one."""
    count = [0]
    validate = ParamsMixin._validate_params

    def counted(self):
        count[0] += 1
        return validate(self)

    monkeypatch.setattr(ParamsMixin, "_validate_params", counted)
    return count


def test_validation_runs_once_per_parameter_change(n_validations):
    lmo = SimplexLMO(n_features=3)
    grad = np.array([0.5, -1.0, 0.0])
    for _ in range(1000):
        lmo(grad)
        assert (lmo.radius, lmo.n_features) == (1.0, 3)
    # Before issue 40: 3000 (every call and every property read).
    assert n_validations[0] == 1
    assert lmo.n_calls_ == 1000

    lmo.set_params(radius=2.0)
    for _ in range(1000):
        vertex = lmo(grad).vertex
    assert n_validations[0] == 2
    np.testing.assert_array_equal(vertex, [0.0, 2.0, 0.0])

    # An assignment is a change too.
    lmo.radius = 3.0
    assert lmo(grad).vertex[1] == 3.0
    assert n_validations[0] == 3


def test_bad_parameter_still_raises_before_any_work():
    lmo = SimplexLMO(n_features=2)
    lmo(np.ones(2))
    lmo.set_params(radius=-1.0)
    with pytest.raises(ValueError, match="'radius' parameter of SimplexLMO"):
        lmo(np.ones(2))
    assert lmo.n_calls_ == 1
    # A failed validation caches nothing: it raises again, then passes once
    # the parameter is fixed.
    with pytest.raises(ValueError, match="'radius' parameter"):
        _ = lmo.radius
    lmo.radius = 1.0
    assert lmo(np.ones(2)).vertex[0] == 1.0


def test_cross_parameter_rules_are_rechecked_after_a_change():
    box = BoxLMO(lower=0.0, upper=1.0, n_features=2)
    box(np.ones(2))
    box.set_params(lower=2.0)
    with pytest.raises(ValueError, match="'lower' parameter of BoxLMO must be <="):
        box(np.ones(2))
    polytope = PolytopeLMO(A_ub=np.ones((1, 2)), b_ub=[1.0], bounds=(0, 1))
    polytope(np.ones(2))
    polytope.set_params(b_ub=[1.0, 2.0])
    with pytest.raises(ValueError, match="'b_ub' parameter of PolytopeLMO"):
        polytope(np.ones(2))


def test_a_component_change_invalidates_its_holder(n_validations):
    product = ProductLMO([SimplexLMO(n_features=2), L2BallLMO(n_features=2)])
    assert product.n_features == 4
    product(np.ones(4))
    before = n_validations[0]
    product(np.ones(4))
    assert n_validations[0] == before
    # Set on the factor itself, not through the product's set_params.
    product.lmos[1].n_features = 3
    assert product.n_features == 5
    assert product(np.ones(5)).vertex.shape == (5,)
    product.lmos[0].set_params(n_features=None)
    with pytest.raises(ValueError, match="has no dimension"):
        product(np.ones(5))


@pytest.mark.parametrize("duplicate", [pickle.loads, copy.deepcopy])
def test_a_copy_validates_afresh(n_validations, duplicate):
    # The cached validation's version counts the changes of this process;
    # another process's counter may reach the same number after a change,
    # so a copy must not carry the cache.
    lmo = BoxLMO(lower=[0.0, 0.0], upper=[1.0, 2.0])
    lmo(np.array([-1.0, -1.0]))
    copied = duplicate(pickle.dumps(lmo) if duplicate is pickle.loads else lmo)
    assert "_params_cache" not in vars(copied)
    np.testing.assert_array_equal(copied(np.array([-1.0, -1.0])).vertex, [1.0, 2.0])
    assert n_validations[0] == 2
