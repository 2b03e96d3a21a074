"""Compiling Python for the GPU: the index functions and the scalar functions as device functions.

The index math of `tensor_data.py` and the scalar functions of `operators.py`
are plain Python; `cuda.jit(device=True)` compiles them into functions that
kernels call. A scalar function that calls other plain Python functions
(`sigmoid_back` calls `sigmoid`) is compiled as a copy of itself whose globals
name the device versions of those (`device_function`). The kernels that run a
thread per element start with one more device function, `thread_index`
(`thread_index_function`): which element, if any, is this thread's; the blocked
matmul starts with `batch_start` (`batch_start_function`): where each operand's matrix of
the block's batch begins.
"""

from __future__ import annotations

import dis
import types
from collections.abc import Callable

import numba

from ..kernel_cache import INDEX_FUNCTIONS
from .driver import cuda

# Index buffers are per-thread local arrays of a fixed size: the most dimensions a kernel takes.
MAX_DIMS = 16


def index_functions() -> tuple:
    """`to_index`, `index_to_position`, `broadcast_index` (`tensor_data.py`) as device functions."""
    if not _index_functions:
        _index_functions.extend(cuda.jit(device=True)(f) for f in INDEX_FUNCTIONS)
    return tuple(_index_functions)


_index_functions: list = []


def thread_index_function():
    """`thread_index(size, shape, index)` as a device function: the set-up of a kernel that runs
    a thread per element (of an output, a position list, a set of lines).

    Whether this thread of the 1-D grid has an element (its ordinal `cuda.grid(1)` is below
    `size`) and, when it has, that element's index in `shape`, written into `index`.
    """
    if not _thread_index:
        to_index = index_functions()[0]

        def thread_index(size, shape, index) -> bool:
            i = cuda.grid(1)
            if i >= size:
                return False
            to_index(i, shape, index)
            return True

        _thread_index.append(cuda.jit(device=True)(thread_index))
    return _thread_index[0]


_thread_index: list = []


def batch_start_function():
    """`batch_start(batch, out_shape, shape, strides, offset)` as a device function: the
    position of element (batch, 0, 0) of a matmul operand of `shape`, whose batch dimensions
    broadcast to those of `out_shape`; `batch` is an ordinal of `out_shape[:-2]`.
    """
    if not _batch_start:
        to_index, index_to_position, broadcast_index = index_functions()

        def batch_start(batch, out_shape, shape, strides, offset) -> int:
            ndim = len(out_shape)
            out_index = cuda.local.array(MAX_DIMS, numba.int64)[:ndim]
            index = cuda.local.array(MAX_DIMS, numba.int64)[: len(shape)]
            out_index[ndim - 2] = 0
            out_index[ndim - 1] = 0
            to_index(batch, out_shape[: ndim - 2], out_index[: ndim - 2])
            broadcast_index(out_index, out_shape, shape, index)
            return offset + index_to_position(index, strides)

        _batch_start.append(cuda.jit(device=True)(batch_start))
    return _batch_start[0]


_batch_start: list = []


def device_function(fn: Callable):
    """The scalar function `fn` (from `operators.py`) compiled for the GPU, once.

    The plain Python (or `njit`) functions `fn` calls (`sigmoid_back` calls `sigmoid`)
    are compiled too, and `fn` is compiled as a copy that sees them under their names.
    """
    compiled = _device_functions.get(fn)
    if compiled is None:
        scope = dict(fn.__globals__)
        for instruction in dis.get_instructions(fn):
            if instruction.opname != "LOAD_GLOBAL":
                continue
            called = scope.get(instruction.argval)
            called = getattr(called, "py_func", called)  # an `njit` function: its Python
            if isinstance(called, types.FunctionType):
                scope[instruction.argval] = device_function(called)
        code = fn.__code__
        copy = types.FunctionType(code, scope, fn.__name__, fn.__defaults__, fn.__closure__)
        compiled = _device_functions[fn] = cuda.jit(device=True)(copy)
    return compiled


_device_functions: dict[Callable, Callable] = {}
