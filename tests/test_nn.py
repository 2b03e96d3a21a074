"""minitorch.nn against torch.nn: `Linear` (output, parameters, initialisation, repr) and the
losses and activations of `minitorch.nn.functional`.

Skipped when torch is not installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import assert_close, pair

import minitorch
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(11)
TOL = 1e-12  # float64 throughout


def as_torch(t) -> torch.Tensor:
    """A minitorch tensor's values as a torch tensor of the same dtype (a copy, no history)."""
    return torch.tensor(t.detach().numpy())


# ---------------------------------------------------------------------------
# Linear
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batch", [(), (4,), (2, 3)])
def test_linear_is_x_times_w_transposed_plus_b_with_its_own_weights(bias, batch):
    layer = minitorch.nn.Linear(5, 3, bias=bias, dtype=minitorch.float64)
    x, tx = pair(RNG.normal(size=(*batch, 5)), "float64", requires_grad=True)
    out = layer(x)
    weight = as_torch(layer.weight).requires_grad_(True)
    b = as_torch(layer.bias).requires_grad_(True) if bias else None
    expected = TF.linear(tx, weight, b)
    assert_close(out, expected, "output", TOL)
    # gradients of a weighted sum reach the input, the weight and the bias as in torch
    g = RNG.normal(size=tuple(expected.shape))
    out.backward(minitorch.tensor(g, dtype=minitorch.float64))
    expected.backward(torch.tensor(g))
    assert_close(x.grad, tx.grad, "input grad", TOL)
    assert_close(layer.weight.grad, weight.grad, "weight grad", TOL)
    if bias:
        assert_close(layer.bias.grad, b.grad, "bias grad", TOL)


def test_functional_linear_matches_torch_on_given_weights():
    x, tx = pair(RNG.normal(size=(4, 3)), "float64")
    w, tw = pair(RNG.normal(size=(2, 3)), "float64")
    b, tb = pair(RNG.normal(size=(2,)), "float64")
    assert_close(F.linear(x, w, b), TF.linear(tx, tw, tb), "with bias", TOL)
    assert_close(F.linear(x, w), TF.linear(tx, tw), "without bias", TOL)


@pytest.mark.parametrize("bias", [True, False])
def test_linear_parameter_names_and_shapes_are_torchs(bias):
    ours = minitorch.nn.Linear(4, 7, bias=bias)
    theirs = torch.nn.Linear(4, 7, bias=bias)
    got = [(name, tuple(p.shape)) for name, p in ours.named_parameters()]
    expected = [(name, tuple(p.shape)) for name, p in theirs.named_parameters()]
    assert got == expected
    assert all(p.requires_grad and p.is_leaf for p in ours.parameters())
    assert (ours.bias is None) == (not bias)


def test_linear_initialisation_is_uniform_within_one_over_sqrt_fan_in():
    minitorch.manual_seed(3)
    layer = minitorch.nn.Linear(64, 200)
    bound = 1 / math.sqrt(64)
    weight = layer.weight.detach().numpy().ravel()
    bias = layer.bias.detach().numpy()
    for name, values in (("weight", weight), ("bias", bias)):
        assert np.abs(values).max() <= bound, f"{name} beyond ±{bound}"
    # uniform on [-a, a]: mean 0, standard deviation a / sqrt(3); 12800 draws for the weight
    assert abs(weight.mean()) < 0.05 * bound, weight.mean()
    assert weight.std() == pytest.approx(bound / math.sqrt(3), rel=0.03)
    assert np.abs(weight).max() > 0.95 * bound, "the draws do not fill the interval"
    assert np.mean(weight > 0) == pytest.approx(0.5, abs=0.03)
    assert len(np.unique(bias)) == 200 and bias.min() < 0 < bias.max()


def test_linear_initialisation_follows_manual_seed():
    minitorch.manual_seed(5)
    first = minitorch.nn.Linear(3, 4).weight.detach().numpy()
    minitorch.manual_seed(5)
    again = minitorch.nn.Linear(3, 4).weight.detach().numpy()
    other = minitorch.nn.Linear(3, 4).weight.detach().numpy()
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_dtype(dtype):
    layer = minitorch.nn.Linear(2, 3, dtype=getattr(minitorch, dtype))
    assert layer.weight.dtype is getattr(minitorch, dtype)
    assert layer.bias.dtype is getattr(minitorch, dtype)


@pytest.mark.parametrize("args", [(3, 2), (3, 2, False), (1, 10)])
def test_linear_repr_is_torchs(args):
    assert repr(minitorch.nn.Linear(*args)) == repr(torch.nn.Linear(*args))


def test_repr_of_a_model_of_linear_layers_is_torchs():
    def network(nn):
        class Network(nn.Module):
            def __init__(self):
                super().__init__()
                self.hidden = nn.Linear(2, 8)
                self.out = nn.Linear(8, 1, bias=False)

        return Network()

    assert repr(network(minitorch.nn)) == repr(network(torch.nn))


# ---------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------

LOSSES = {
    "mse_loss": (F.mse_loss, TF.mse_loss),
    "binary_cross_entropy_with_logits": (
        F.binary_cross_entropy_with_logits,
        TF.binary_cross_entropy_with_logits,
    ),
}


def loss_inputs(name: str, shape: tuple):
    """Predictions (logits spread over ±6 for BCE) and targets (in [0, 1] for BCE)."""
    prediction = RNG.normal(scale=3.0, size=shape)
    target = RNG.uniform(size=shape) if "entropy" in name else RNG.normal(size=shape)
    return prediction, target


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(5,), (3, 4)])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_values_and_gradients_match_torch(name, shape, reduction):
    ours_fn, torch_fn = LOSSES[name]
    prediction, target = loss_inputs(name, shape)
    x, tx = pair(prediction, "float64", requires_grad=True)
    y, ty = pair(target, "float64", requires_grad=True)
    out = ours_fn(x, y, reduction=reduction)
    expected = torch_fn(tx, ty, reduction=reduction)
    assert_close(out, expected, "loss", TOL)
    g = RNG.normal(size=tuple(expected.shape))
    out.backward(minitorch.tensor(g, dtype=minitorch.float64))
    expected.backward(torch.tensor(g))
    assert_close(x.grad, tx.grad, "input grad", TOL)
    assert_close(y.grad, ty.grad, "target grad", TOL)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_invalid_reduction_raises_torchs_error(name):
    ours_fn, torch_fn = LOSSES[name]
    with pytest.raises(ValueError) as expected:
        torch_fn(torch.zeros(2), torch.zeros(2), reduction="average")
    with pytest.raises(ValueError) as got:
        ours_fn(minitorch.zeros(2), minitorch.zeros(2), reduction="average")
    assert str(got.value) == str(expected.value)


def test_bce_with_logits_refuses_a_target_of_another_shape_as_torch_does():
    with pytest.raises(ValueError) as expected:
        TF.binary_cross_entropy_with_logits(torch.zeros(3, 1), torch.zeros(3))
    with pytest.raises(ValueError) as got:
        F.binary_cross_entropy_with_logits(minitorch.zeros(3, 1), minitorch.zeros(3))
    assert str(got.value) == str(expected.value).replace("torch.", "minitorch.")


def test_mse_loss_warns_as_torch_does_when_shapes_broadcast():
    with pytest.warns(UserWarning) as expected:
        torch_value = TF.mse_loss(torch.arange(3.0).view(3, 1), torch.arange(3.0))
    with pytest.warns(UserWarning) as got:
        value = F.mse_loss(minitorch.arange(3.0).view(3, 1), minitorch.arange(3.0))
    assert str(got[0].message) == str(expected[0].message).replace("torch.", "minitorch.")
    assert value.item() == pytest.approx(torch_value.item())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bce_with_logits_is_stable_for_large_logits(dtype):
    # z = 0 costs ln 2; a confident right answer (|z| = 50) about e^-50; a confident wrong one 50
    logits = [0.0, 50.0, -50.0, 50.0, -50.0]
    labels = [1.0, 1.0, 0.0, 0.0, 1.0]
    x = minitorch.tensor(logits, dtype=getattr(minitorch, dtype), requires_grad=True)
    tx = torch.tensor(logits, dtype=getattr(torch, dtype), requires_grad=True)
    y = minitorch.tensor(labels, dtype=getattr(minitorch, dtype))
    ty = torch.tensor(labels, dtype=getattr(torch, dtype))
    losses = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    np.testing.assert_allclose(losses.detach().numpy(), [math.log(2), 0, 0, 50, 50], atol=1e-6)
    loss = F.binary_cross_entropy_with_logits(x, y, reduction="sum")
    expected = TF.binary_cross_entropy_with_logits(tx, ty, reduction="sum")
    loss.backward()
    expected.backward()
    assert math.isfinite(loss.item())
    assert_close(loss, expected, "loss", rtol=1e-6, atol=1e-6)
    assert_close(x.grad, tx.grad, "grad", rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_bce_with_logits_node_is_torchs(reduction):
    x, tx = pair(RNG.normal(size=(3,)), "float64", requires_grad=True)
    y, ty = pair(RNG.uniform(size=(3,)), "float64")
    ours = F.binary_cross_entropy_with_logits(x, y, reduction=reduction)
    theirs = TF.binary_cross_entropy_with_logits(tx, ty, reduction=reduction)
    assert ours.grad_fn.name() == theirs.grad_fn.name()


# ---------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------

ACTIVATIONS = {
    "relu": lambda f, x: f.relu(x),
    "sigmoid": lambda f, x: f.sigmoid(x),
    "tanh": lambda f, x: f.tanh(x),
    "softmax": lambda f, x: f.softmax(x, dim=1),
    "log_softmax": lambda f, x: f.log_softmax(x, dim=0),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_torch(name):
    x, tx = pair(RNG.normal(scale=2.0, size=(3, 4)), "float64", requires_grad=True)
    out, expected = ACTIVATIONS[name](F, x), ACTIVATIONS[name](TF, tx)
    assert_close(out, expected, "values", TOL)
    g = RNG.normal(size=(3, 4))
    out.backward(minitorch.tensor(g, dtype=minitorch.float64))
    expected.backward(torch.tensor(g))
    assert_close(x.grad, tx.grad, "grad", TOL)
