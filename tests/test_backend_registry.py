"""Devices come from the backend registry: a device type registered from this file runs a
network, without any change to the library, and is gone again once unregistered.

The toy device `toy` is the reference backend's kernels (`SimpleBackend`) over storage
of its own: `ToyStorage`, a NumPy array subclass, so that a test can tell toy memory from
cpu memory and every copy between them goes through the backend's `from_host`/`to_host`.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.backends import (
    OPTIONAL_KERNELS,
    device_types,
    get_backend,
    has_backend,
    register_backend,
    unregister_backend,
)
from minitorch.backends.interface import AVG_POOL_KERNELS
from minitorch.backends.tensor_ops import SimpleBackend


class ToyStorage(np.ndarray):
    """Memory of the toy device: a host array of its own type."""


class ToyBackend(SimpleBackend):
    """The reference kernels on `ToyStorage`; no optional kernels (every fused step composed)."""

    name = "toy"
    optional_kernels = ()

    def zeros(self, size: int, dtype: np.dtype):
        return np.zeros(size, dtype=dtype).view(ToyStorage)

    def empty(self, size: int, dtype: np.dtype):
        return np.empty(size, dtype=dtype).view(ToyStorage)

    def from_host(self, array: np.ndarray):
        return np.array(array, copy=True).view(ToyStorage)

    def to_host(self, storage) -> np.ndarray:
        return np.array(storage.view(np.ndarray), copy=True)


@pytest.fixture
def toy():
    """The `toy` device type, registered for one test and unregistered after it."""
    backend = ToyBackend()
    register_backend("toy", backend)
    yield backend
    unregister_backend("toy")


def train(device: str, steps: int = 5) -> tuple[list[float], minitorch.nn.Module]:
    """A few SGD steps of a two-layer network on `device`: the losses and the model."""
    minitorch.manual_seed(0)
    model = minitorch.nn.Sequential(
        minitorch.nn.Linear(3, 4), minitorch.nn.ReLU(), minitorch.nn.Linear(4, 1)
    ).to(device)
    x = minitorch.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3), device=device)
    y = (x.sum(dim=1, keepdim=True) * 0.5).tanh()
    optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, model


def test_a_toy_device_trains_a_network_as_the_cpu_does(toy):
    assert "toy" in device_types() and has_backend("toy")
    toy_losses, model = train("toy")
    cpu_losses, _ = train("cpu")
    assert toy_losses[-1] < toy_losses[0]
    np.testing.assert_allclose(toy_losses, cpu_losses, rtol=1e-5, atol=1e-7)
    for p in model.parameters():
        assert p.device == minitorch.device("toy:0")
        assert isinstance(p._layout.storage, ToyStorage)  # the toy's memory, not the cpu's
        assert isinstance(p.grad._layout.storage, ToyStorage)
    assert not isinstance(p.detach().cpu()._layout.storage, ToyStorage)


def test_a_toy_device_follows_torchs_device_rules(toy):
    x = minitorch.ones(2, device="toy")
    assert str(x.device) == "toy:0" and x.to("toy") is x
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x + minitorch.ones(2, device="cpu")
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        minitorch.ones(2, device="toy:1")
    with pytest.raises(RuntimeError, match=r"Expected one of cpu, cuda, toy device type"):
        minitorch.device("tpu")


def test_adam_without_a_fused_kernel_composes_the_fused_step(toy):
    """`_fused_adam_` on a backend without `adam_step` computes what the fused kernel does."""
    assert toy.kernel("adam_step") is None and get_backend("cpu").kernel("adam_step")
    rng = np.random.default_rng(3)
    for amsgrad, decoupled in ((False, False), (True, False), (False, True)):
        values = [rng.standard_normal(6).astype(np.float32) for _ in range(4)]
        values[2] = np.abs(values[2])  # a second moment
        values[3] = values[2] + 0.5  # the largest second moment so far
        results = []
        for device in ("cpu", "toy"):
            p, g, v, v_max = (minitorch.tensor(x, device=device) for x in values)
            m = minitorch.tensor(values[1] * 0.3, device=device)
            step = minitorch._fused_adamw_ if decoupled else minitorch._fused_adam_
            step(
                [p], [g], [m], [v], [v_max] if amsgrad else [], [minitorch.tensor(3.0)],
                lr=0.1, beta1=0.9, beta2=0.99, weight_decay=0.1, eps=1e-8,
                amsgrad=amsgrad, maximize=False,
            )  # fmt: skip
            results.append([t.cpu().numpy() for t in (p, m, v, v_max)])
        for fused, composed in zip(*results, strict=True):
            np.testing.assert_allclose(composed, fused, rtol=1e-6, atol=1e-7)


def test_unregistering_forgets_the_device_type():
    register_backend("toy", ToyBackend())
    unregister_backend("toy")
    assert "toy" not in device_types() and not has_backend("toy")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type"):
        minitorch.device("toy")
    assert minitorch.device("cuda").type == "cuda"  # known without a GPU, as in PyTorch


def test_optional_kernels_are_looked_up_by_known_names():
    fast = get_backend("cpu")
    assert fast.name == "fast"
    # every optional kernel but average pooling's, which only cuda registers (on the CPU
    # average pooling sums window views)
    cpu_kernels = set(OPTIONAL_KERNELS) - set(AVG_POOL_KERNELS)
    assert set(fast.optional_kernels) == cpu_kernels
    for name in OPTIONAL_KERNELS:
        assert callable(fast.kernel(name)) == (name in cpu_kernels), name
    assert SimpleBackend().kernel("conv2d") is None
    with pytest.raises(ValueError, match="unknown optional kernel 'adam'"):
        fast.kernel("adam")
    toy = ToyBackend()
    toy.register_kernel("adam_step", fast.kernel("adam_step"))
    assert toy.kernel("adam_step") is not None
    toy.unregister_kernel("adam_step")
    assert toy.kernel("adam_step") is None
