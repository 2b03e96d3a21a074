"""Module 3 (and the reference of module 2): the kernels tensors run on, per device.

Read in this order: `tensor_data.py` (the layout and its index math, compiled
by every backend), `interface.py` (what a backend provides), `tensor_ops.py`
(the reference backend: plain loops), `fast_ops.py` (the plain parallel Numba
kernels of module 3's exercises), `kernel_cache.py` (compiling them, cached
on disk), `fast_tuned.py` (the tuned kernels `cpu` tensors run on by default)
and `registry.py` (which backend a device uses). Nothing here knows about
tensors or autograd: backends see storages and layouts only.
"""

from .interface import Backend
from .registry import backend_for, get_backend, has_backend, register_backend, set_backend
from .tensor_data import TensorData

__all__ = [
    "Backend",
    "TensorData",
    "backend_for",
    "get_backend",
    "has_backend",
    "register_backend",
    "set_backend",
]
