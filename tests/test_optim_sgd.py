"""minitorch.optim.SGD against torch.optim: its steps on a small network, zero_grad, and the
errors on bad params; compared with torch live, skipped without it.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import types_named_for_the_test_device
from optim_cases import (
    RNG,
)

import minitorch
import minitorch.nn.functional as F


def twin_models(torch):
    """A 3 -> 4 -> 1 tanh network in each library, in float64, with the same weights."""
    ours = [
        minitorch.nn.Linear(3, 4, dtype=minitorch.float64),
        minitorch.nn.Linear(4, 1, dtype=minitorch.float64),
    ]
    theirs = [
        torch.nn.Linear(3, 4, dtype=torch.float64),
        torch.nn.Linear(4, 1, dtype=torch.float64),
    ]
    with torch.no_grad():
        for layer, twin in zip(ours, theirs, strict=True):
            twin.weight.copy_(torch.tensor(layer.weight.detach().numpy()))
            twin.bias.copy_(torch.tensor(layer.bias.detach().numpy()))
    return ours, theirs


def forward(layers, x, activation):
    return layers[1](activation(layers[0](x))).view(-1)


def assert_same_parameters(ours, theirs, step: int):
    for k, (layer, twin) in enumerate(zip(ours, theirs, strict=True)):
        for name in ("weight", "bias"):
            np.testing.assert_allclose(
                getattr(layer, name).detach().numpy(),
                getattr(twin, name).detach().numpy(),
                rtol=1e-12,
                atol=1e-14,
                err_msg=f"layer {k} {name} after step {step}",
            )


@pytest.mark.parametrize("lr", [0.05, 0.5])
def test_sgd_trajectory_matches_torch(torch, lr):
    x_values, y_values = RNG.normal(size=(8, 3)), RNG.normal(size=8)
    ours, theirs = twin_models(torch)
    x, y = minitorch.tensor(x_values), minitorch.tensor(y_values)
    tx, ty = torch.tensor(x_values), torch.tensor(y_values)
    optimizer = minitorch.optim.SGD([p for layer in ours for p in layer.parameters()], lr=lr)
    reference = torch.optim.SGD([p for layer in theirs for p in layer.parameters()], lr=lr)
    losses, expected_losses = [], []
    for step in range(6):
        loss = F.mse_loss(forward(ours, x, minitorch.tanh), y)
        expected = torch.nn.functional.mse_loss(forward(theirs, tx, torch.tanh), ty)
        optimizer.zero_grad()
        reference.zero_grad()
        loss.backward()
        expected.backward()
        optimizer.step()
        reference.step()
        losses.append(loss.item())
        expected_losses.append(expected.item())
        assert_same_parameters(ours, theirs, step)
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-12)
    assert losses[-1] < losses[0], "SGD did not descend"


def test_without_zero_grad_gradients_accumulate_into_the_steps_as_in_torch(torch):
    start = RNG.normal(size=3)
    w = minitorch.tensor(start, requires_grad=True)
    tw = torch.tensor(start, requires_grad=True)
    optimizer, reference = minitorch.optim.SGD([w], lr=0.1), torch.optim.SGD([tw], lr=0.1)
    for _ in range(3):
        (w * w * w).sum().backward()
        (tw * tw * tw).sum().backward()
        optimizer.step()
        reference.step()
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


def test_step_skips_parameters_without_a_gradient():
    used, unused = minitorch.ones(2, requires_grad=True), minitorch.ones(2, requires_grad=True)
    optimizer = minitorch.optim.SGD([used, unused], lr=0.5)
    (used * 3).sum().backward()
    optimizer.step()
    assert used.tolist() == [-0.5, -0.5]  # 1 - 0.5 * 3
    assert unused.tolist() == [1.0, 1.0] and unused.grad is None


def test_step_records_no_graph():
    w = minitorch.ones(2, requires_grad=True)
    optimizer = minitorch.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    optimizer.step()
    assert w.is_leaf and w.grad_fn is None and w.requires_grad


def test_a_loaded_state_goes_to_its_parameters_device_and_dtype_as_in_torch():
    """load_state_dict copies each saved state tensor onto its parameter's device, in its
    dtype: a state saved on the host (or in float32) goes on with a float64 run on cuda."""
    w = minitorch.ones(2, dtype=minitorch.float64, requires_grad=True)
    optimizer = minitorch.optim.SGD([w], lr=0.5, momentum=0.9)
    (w * 3).sum().backward()
    optimizer.step()  # w = 1 - 0.5 * 3, and the momentum buffer holds the gradient, 3
    saved = optimizer.state_dict()
    saved["state"][0] = {"momentum_buffer": saved["state"][0]["momentum_buffer"].cpu().float()}
    resumed = minitorch.optim.SGD([w], lr=0.5, momentum=0.9)
    resumed.load_state_dict(saved)
    buffer = resumed.state[w]["momentum_buffer"]
    assert (buffer.device, buffer.dtype) == (w.device, minitorch.float64)
    resumed.step()  # the buffer becomes 0.9 * 3 + 3 and w drops by 0.5 times that
    assert w.tolist() == pytest.approx([-0.5 - 0.5 * 5.7] * 2, rel=1e-12)


def test_sgd_accepts_module_parameters():
    layer = minitorch.nn.Linear(2, 2)
    before = layer.weight.detach().clone()
    optimizer = minitorch.optim.SGD(layer.parameters(), lr=1.0)
    layer(minitorch.ones(1, 2)).sum().backward()
    optimizer.step()
    # d(sum of x W^T + b)/dW = 1 everywhere for x = (1, 1): every weight drops by lr
    np.testing.assert_allclose(layer.weight.detach().numpy(), before.numpy() - 1.0, rtol=1e-6)


def test_zero_grad_sets_gradients_to_none_by_default_as_torch(torch):
    w, tw = minitorch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    optimizer, reference = minitorch.optim.SGD([w], lr=0.1), torch.optim.SGD([tw], lr=0.1)
    (w * 2).sum().backward()
    (tw * 2).sum().backward()
    optimizer.zero_grad()
    reference.zero_grad()
    assert w.grad is None and tw.grad is None


def test_zero_grad_without_set_to_none_zeroes_the_same_tensor_as_torch(torch):
    w, tw = minitorch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    optimizer, reference = minitorch.optim.SGD([w], lr=0.1), torch.optim.SGD([tw], lr=0.1)
    (w * 2).sum().backward()
    (tw * 2).sum().backward()
    grad, torch_grad = w.grad, tw.grad
    optimizer.zero_grad(set_to_none=False)
    reference.zero_grad(set_to_none=False)
    assert (w.grad is grad) == (tw.grad is torch_grad) is True
    assert w.grad.tolist() == tw.grad.tolist() == [0.0, 0.0]
    (w * 3).sum().backward()  # accumulates into the zeroed tensor
    assert w.grad.tolist() == [3.0, 3.0]


BAD_PARAMS = {
    "negative lr": (lambda m: m.optim.SGD([m.ones(1, requires_grad=True)], lr=-0.1)),
    "empty list": (lambda m: m.optim.SGD([], lr=0.1)),
    "a bare tensor": (lambda m: m.optim.SGD(m.ones(3, requires_grad=True), lr=0.1)),
    "a non-leaf": (lambda m: m.optim.SGD([m.ones(3, requires_grad=True) * 2], lr=0.1)),
    "a number": (lambda m: m.optim.SGD([1.0], lr=0.1)),
    "an array": (lambda m: m.optim.SGD([np.ones(2)], lr=0.1)),
}


@pytest.mark.parametrize("case", sorted(BAD_PARAMS))
def test_bad_params_raise_torchs_error(torch, case):
    make = BAD_PARAMS[case]
    with pytest.raises((TypeError, ValueError)) as expected:
        make(torch)
    with pytest.raises(expected.type) as got:
        make(minitorch)
    expected_text = str(expected.value).replace("torch.", "minitorch.")
    assert str(got.value) == types_named_for_the_test_device(expected_text)
