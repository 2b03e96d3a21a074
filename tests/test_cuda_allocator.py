"""cuda tensors through the caching allocator (`backends/cuda/memory.py`), and
`minitorch.cuda`'s memory counts, in Numba's CUDA simulator.

Like tests/test_cuda_backend.py, this file turns the simulator on when it is the first to
import minitorch; a run of the whole suite leaves it to tests/test_cuda_simulator.py.
"""

import gc

import numpy as np
import pytest
from simulated_cuda import requires_cuda

import minitorch
from minitorch.backends import get_backend

pytestmark = requires_cuda


@pytest.fixture
def allocator():
    gc.collect()
    return get_backend("cuda").memory


def test_a_cuda_tensor_counts_its_block_until_it_dies(allocator):
    before = minitorch.cuda.memory_allocated()
    x = minitorch.ones(1000, device="cuda")  # 4,000 bytes: a 4,096-byte block
    assert minitorch.cuda.memory_allocated() == before + 4096
    assert minitorch.cuda.memory_reserved() >= minitorch.cuda.memory_allocated()
    del x
    gc.collect()
    assert minitorch.cuda.memory_allocated() == before


def test_a_freed_block_holds_the_next_tensor_with_its_own_values(allocator):
    x = minitorch.full((300,), 7.0, device="cuda")
    del x
    gc.collect()
    calls = allocator.driver_calls
    y = minitorch.zeros(290, device="cuda")  # same 1,536-byte block size
    z = minitorch.arange(290, device="cuda", dtype=minitorch.float32)
    assert allocator.driver_calls <= calls + 1  # y reused the block; at most z asked the driver
    np.testing.assert_array_equal(y.cpu().numpy(), np.zeros(290, np.float32))
    np.testing.assert_array_equal(z.cpu().numpy(), np.arange(290, dtype=np.float32))


def test_training_steps_after_the_first_ask_the_driver_for_nothing(allocator):
    minitorch.manual_seed(0)
    model = minitorch.nn.Sequential(
        minitorch.nn.Linear(6, 16), minitorch.nn.ReLU(), minitorch.nn.Linear(16, 3)
    ).to("cuda")
    optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = minitorch.randn(8, 6, device="cuda")
    target = minitorch.tensor([0, 1, 2, 0, 1, 2, 0, 1], device="cuda")

    def step():
        optimizer.zero_grad()
        loss = minitorch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        optimizer.step()
        return loss.item()

    losses = [step(), step()]
    gc.collect()
    calls, reserved = allocator.driver_calls, minitorch.cuda.memory_reserved()
    losses += [step() for _ in range(3)]
    assert allocator.driver_calls == calls and minitorch.cuda.memory_reserved() == reserved
    assert losses[-1] < losses[0]


def test_empty_cache_leaves_only_the_live_tensors_reserved(allocator):
    kept = minitorch.ones(100, device="cuda")
    dropped = minitorch.ones(5000, device="cuda")
    del dropped
    gc.collect()
    assert minitorch.cuda.memory_reserved() > minitorch.cuda.memory_allocated()
    minitorch.cuda.empty_cache()
    assert minitorch.cuda.memory_reserved() == minitorch.cuda.memory_allocated()
    assert kept.sum().item() == 100.0


def test_the_peaks_and_their_reset(allocator):
    big = minitorch.ones(10_000, device="cuda")
    peak = minitorch.cuda.max_memory_allocated()
    assert peak >= minitorch.cuda.memory_allocated() >= 40_448  # 40,000 bytes in blocks
    del big
    gc.collect()
    assert minitorch.cuda.max_memory_allocated() == peak
    minitorch.cuda.reset_peak_memory_stats()
    assert minitorch.cuda.max_memory_allocated() == minitorch.cuda.memory_allocated()
    assert minitorch.cuda.max_memory_reserved() == minitorch.cuda.memory_reserved()
