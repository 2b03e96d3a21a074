"""`minitorch.accelerator`, as `torch.accelerator`: the device beside the CPU, if any.

minitorch's one accelerator type is `cuda` (a GPU, or Numba's simulator):

>>> import minitorch
>>> device = minitorch.accelerator.current_accelerator() or minitorch.device("cpu")
>>> device.type in ("cpu", "cuda")
True
"""

from __future__ import annotations

from . import cuda
from .tensors.device import device


def is_available() -> bool:
    """Whether an accelerator (`cuda`) can hold tensors."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False) -> device | None:
    """`device("cuda")` where a GPU (or the simulator) is there, else None."""
    return device("cuda") if cuda.is_available() else None


def device_count() -> int:
    """How many accelerator devices there are (0 without one)."""
    return cuda.device_count()


def current_device_index() -> int:
    """The index of the accelerator tensors go to (0; -1 without one)."""
    return 0 if cuda.is_available() else -1


def synchronize(device_index=None) -> None:
    """Wait for the accelerator's kernels to finish."""
    cuda.synchronize()


__all__ = [
    "current_accelerator",
    "current_device_index",
    "device_count",
    "is_available",
    "synchronize",
]
