"""`minitorch.cuda`, as `torch.cuda`: the GPU that `cuda` tensors live on.

`cuda` is available when its backend is registered (`backends/__init__.py`):
on a machine with an NVIDIA GPU and the `cuda` extra installed, or anywhere in
Numba's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`, set before minitorch is
imported). minitorch places tensors on one GPU, `cuda:0`.

>>> import minitorch
>>> device = "cuda" if minitorch.cuda.is_available() else "cpu"
>>> minitorch.ones(2, device=device).sum().item()
2.0
"""

from ..backends import get_backend, has_backend
from ..backends.cuda import driver
from ..tensors import creation
from ..tensors.legacy_types import legacy_types


def is_available() -> bool:
    """Whether tensors can be placed on `cuda` (a GPU or the simulator is there)."""
    return has_backend("cuda")


def device_count() -> int:
    """How many CUDA devices Numba sees (0 without a CUDA backend)."""
    return len(driver.cuda.gpus) if is_available() else 0


def current_device() -> int:
    """The index of the GPU `cuda` tensors go to: always 0."""
    check_available()
    return 0


def synchronize(device=None) -> None:
    """Wait until every kernel launched so far has finished (launches do not wait)."""
    check_available()
    driver.cuda.synchronize()


def manual_seed(seed: int) -> None:
    """Seed the random numbers of `cuda` tensors.

    minitorch draws random tensors on the host and copies them to the device,
    so this seeds the one generator `minitorch.manual_seed` seeds too.
    """
    creation.manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed the random numbers of every GPU (there is one): `manual_seed`."""
    creation.manual_seed(seed)


def _allocator():
    """The cuda backend's caching allocator (backends/cuda/memory.py), or None without cuda."""
    return get_backend("cuda").memory if is_available() else None


def _count(name: str) -> int:
    """The allocator's count `name` in bytes; 0 without cuda, as torch's."""
    allocator = _allocator()
    return getattr(allocator, name) if allocator else 0


def memory_allocated(device=None) -> int:
    """Bytes of device memory that live tensors occupy (in the allocator's 512-byte blocks)."""
    return _count("allocated")


def max_memory_allocated(device=None) -> int:
    """The largest `memory_allocated()` since the start or `reset_peak_memory_stats()`."""
    return _count("peak_allocated")


def memory_reserved(device=None) -> int:
    """Bytes the allocator holds from the driver: the live tensors' blocks and its cache."""
    return _count("reserved")


def max_memory_reserved(device=None) -> int:
    """The largest `memory_reserved()` since the start or `reset_peak_memory_stats()`."""
    return _count("peak_reserved")


def reset_peak_memory_stats(device=None) -> None:
    """Start the peaks of `max_memory_allocated` and `max_memory_reserved` from now."""
    check_available()
    _allocator().reset_peak()


def empty_cache() -> None:
    """Give the cached free blocks back to the driver (memory other programs can then use);
    the memory of live tensors stays. Nothing to do without cuda."""
    allocator = _allocator()
    if allocator:
        allocator.empty_cache()


def check_available() -> None:
    """Raise torch's error when there is no CUDA device."""
    if not is_available():
        raise RuntimeError(
            "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
            "and installed a driver from http://www.nvidia.com/Download/index.aspx"
        )


# The legacy tensor types on the GPU: `cuda.FloatTensor(2, 3)` makes zeros there, and
# `isinstance(t, minitorch.cuda.FloatTensor)` asks for a float32 tensor on cuda.
(
    FloatTensor,
    DoubleTensor,
    LongTensor,
    IntTensor,
    ShortTensor,
    CharTensor,
    ByteTensor,
    BoolTensor,
) = legacy_types(is_cuda=True)

__all__ = [
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "current_device",
    "device_count",
    "empty_cache",
    "is_available",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "reset_peak_memory_stats",
    "synchronize",
]
