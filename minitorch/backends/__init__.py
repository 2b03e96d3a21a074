"""Module 3 (and the reference of module 2): the kernels tensors run on, per device.

Read in this order: `tensor_data.py` (the layout and its index math, compiled
by every backend), `interface.py` (what a backend provides: the core kernels and
the optional ones), `tensor_ops.py` (the reference backend: plain loops),
`fast_ops.py` (the plain parallel Numba kernels of module 3's exercises),
`kernel_cache.py` (compiling them, cached on disk), `fast/` (the tuned kernels
`cpu` tensors run on by default, a file per kernel family), `cuda/` (the GPU's)
and `registry.py` (which backend a device uses). Nothing here knows about tensors
or autograd: backends see storages and layouts only.

The registrations below are the whole list of devices and their backends: a new
device is one backend module and one `register_backend` line here (or in a
program of its own: `tests/test_backend_registry.py` registers one).
"""

from . import cuda
from .fast import FastBackend
from .fast_ops import StudentBackend
from .flags import cudnn, mps
from .interface import OPTIONAL_KERNELS, Backend
from .registry import (
    backend_for,
    device_types,
    get_backend,
    has_backend,
    register_backend,
    register_device_type,
    set_backend,
    unregister_backend,
)
from .tensor_data import TensorData
from .tensor_ops import SimpleBackend

register_backend("cpu", FastBackend())  # the first of a device type is its default
register_backend("cpu", SimpleBackend())
register_backend("cpu", StudentBackend())
register_device_type("cuda")  # known without a GPU, as in PyTorch
if cuda.available():  # a GPU, or Numba's simulator (NUMBA_ENABLE_CUDASIM=1)
    register_backend("cuda", cuda.CudaBackend())

__all__ = [
    "cudnn",
    "mps",
    "OPTIONAL_KERNELS",
    "Backend",
    "TensorData",
    "backend_for",
    "device_types",
    "get_backend",
    "has_backend",
    "register_backend",
    "register_device_type",
    "set_backend",
    "unregister_backend",
]
