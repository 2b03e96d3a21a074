"""`minitorch.cuda`, as `torch.cuda`: is a GPU there for tensors?

A device type is available when a backend is registered for it
(`minitorch/backends/registry.py`); no CUDA backend exists yet.

>>> import minitorch
>>> minitorch.cuda.is_available()
False
"""

from ..backends import has_backend


def is_available() -> bool:
    """Whether tensors can be placed on `cuda` (a CUDA backend is registered)."""
    return has_backend("cuda")


def device_count() -> int:
    """How many CUDA devices tensors can use (0 without a CUDA backend)."""
    return 1 if is_available() else 0


__all__ = ["device_count", "is_available"]
