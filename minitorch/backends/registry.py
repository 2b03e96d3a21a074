"""Which backend runs a tensor's operations: a table keyed by device type.

A tensor reaches its kernels through its device: `backend_for(t.device)`.
Each device type has one active backend; `cpu` has three to choose from,
switched with `set_backend`: the tuned Numba kernels (`"fast"`, the default,
`fast_tuned.py`), the plain Numba kernels module 3's exercises ask for
(`"student"`, `fast_ops.py`) and the plain-Python reference (`"simple"`,
`tensor_ops.py`, for learning and debugging).
`cuda` has one, `cuda_ops.CudaBackend`, registered when a GPU or Numba's CUDA
simulator is there. Adding a device is one new backend module and one
`register_backend` line below.
"""

from __future__ import annotations

from . import cuda_ops
from .fast_ops import StudentBackend
from .fast_tuned import FastBackend
from .interface import Backend
from .tensor_ops import SimpleBackend

# device type -> {backend name -> backend}; the first one registered is active
_BACKENDS: dict[str, dict[str, Backend]] = {}
_ACTIVE: dict[str, Backend] = {}


def register_backend(device_type: str, backend: Backend) -> None:
    """Make `backend` available to tensors on `device_type` (active if it is the first)."""
    _BACKENDS.setdefault(device_type, {})[backend.name] = backend
    _ACTIVE.setdefault(device_type, backend)


register_backend("cpu", FastBackend())
register_backend("cpu", SimpleBackend())
register_backend("cpu", StudentBackend())
if cuda_ops.available():  # a GPU, or Numba's simulator (NUMBA_ENABLE_CUDASIM=1)
    register_backend("cuda", cuda_ops.CudaBackend())


def backend_for(device) -> Backend:
    """The backend that runs operations on tensors of `device` (a `minitorch.device`)."""
    return _ACTIVE[device.type]


def has_backend(device_type: str) -> bool:
    """Whether tensors can live on `device_type`."""
    return device_type in _ACTIVE


def set_backend(name: str, device_type: str = "cpu") -> None:
    """Choose the backend of `cpu` tensors: `"fast"` (the default), `"student"` or `"simple"`.

    >>> import minitorch
    >>> minitorch.get_backend().name
    'fast'
    >>> minitorch.set_backend("simple")  # the reference loops, for learning and debugging
    >>> minitorch.get_backend().name
    'simple'
    >>> minitorch.set_backend("fast")
    """
    choices = _BACKENDS.get(device_type, {})
    if name not in choices:
        raise ValueError(f"unknown backend {name!r}; choose one of {sorted(choices)}")
    _ACTIVE[device_type] = choices[name]


def get_backend(device_type: str = "cpu") -> Backend:
    """The backend `device_type` tensors currently run on."""
    return _ACTIVE[device_type]
