"""What the cuda backend's test files share: inputs, the same values on `cpu` and on `cuda`, the
check that a result is a cuda tensor in device memory equal to the cpu one, an operation of in-
place writes, and a context in which a copy to the host is an error. Importing it turns Numba's
CUDA simulator on first (tests/simulated_cuda.py).
"""

import contextlib

import numpy as np
import pytest
import simulated_cuda  # noqa: F401 -- imported before minitorch, it turns the simulator on

import minitorch
from minitorch.backends.cuda import backend as cuda_backend


def values(*shape, low=-2.0, high=2.0, seed=0, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(dtype)


def both(array: np.ndarray, requires_grad=False):
    """The same values as a cpu tensor and as a cuda tensor."""
    cpu = minitorch.tensor(array, requires_grad=requires_grad)
    gpu = minitorch.tensor(array, device="cuda", requires_grad=requires_grad)
    return cpu, gpu


def assert_matches(gpu, cpu, rtol=1e-5, atol=1e-6):
    """`gpu` is a cuda tensor in device memory with `cpu`'s shape, dtype and values."""
    assert gpu.device == minitorch.device("cuda:0")
    assert not isinstance(gpu._layout.storage, np.ndarray)  # device memory, not host
    assert tuple(gpu.shape) == tuple(cpu.shape)
    assert gpu.dtype is cpu.dtype
    np.testing.assert_allclose(gpu.cpu().numpy(), cpu.numpy(), rtol=rtol, atol=atol)


def written(z, y):
    """`z` after in-place writes: a number into a slice, a tensor into a row."""
    z[:, 1] = 5.0
    z[2] = y * 2
    return z


def refuse_host_copy(self, storage):
    raise AssertionError("a cuda storage was copied to the host")


@contextlib.contextmanager
def no_host_copies():
    """Inside, copying a cuda storage to the host is an error."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cuda_backend.CudaBackend, "to_host", refuse_host_copy)
        yield
