import numpy as np
import pytest

from skcgm.oracles import (
    HingeLoss,
    LogisticLoss,
    ModifiedHuberLoss,
    PerceptronLoss,
    SquaredHingeLoss,
)

_LOSSES = [HingeLoss, LogisticLoss, ModifiedHuberLoss, PerceptronLoss, SquaredHingeLoss]


@pytest.mark.parametrize("Loss", _LOSSES)
def test_margin_loss_derivative_matches_finite_differences_off_the_kinks(Loss):
    loss = Loss()
    # Off the kinks at -1, 0 and 1.
    z = np.array([-3.3, -0.7, -0.2, 0.4, 0.6, 1.7])
    h = 1e-6
    numeric = (loss.value(z + h) - loss.value(z - h)) / (2 * h)
    np.testing.assert_allclose(loss.derivative(z), numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("Loss", _LOSSES)
def test_margin_loss_keeps_float32_and_gives_scalars_for_scalars(Loss):
    loss = Loss()
    z = np.linspace(-2, 2, 7, dtype=np.float32)
    assert loss.value(z).dtype == np.float32
    assert loss.derivative(z).dtype == np.float32
    assert np.ndim(loss.value(0.5)) == 0 and np.ndim(loss.derivative(0.5)) == 0


@pytest.mark.parametrize("Loss", _LOSSES)
def test_margin_losses_are_equal_hashable_and_repr_their_class(Loss):
    assert Loss() == Loss() and hash(Loss()) == hash(Loss())
    assert repr(Loss()) == f"{Loss.__name__}()"
    assert all(Loss() != Other() for Other in _LOSSES if Other is not Loss)


def test_margin_loss_subgradients_at_the_kinks_are_sklearns():
    # SGDClassifier's Hinge uses z <= threshold: the kink takes the slope.
    assert HingeLoss().derivative(1.0) == -1.0
    assert PerceptronLoss().derivative(0.0) == -1.0
    assert ModifiedHuberLoss().derivative(-1.0) == -4.0
    assert ModifiedHuberLoss().value(-1.0) == 4.0
