"""Module 3b: the GPU backend, `numba.cuda` kernels over device memory (`cuda` tensors).

A kernel runs as a *grid* of *blocks* of *threads*; every thread runs the
kernel body with its own `cuda.threadIdx` / `cuda.blockIdx`. The layouts are
the CPU backends' (`TensorData`); the storages are device arrays, and results
stay in device memory from one operation to the next. The index math is the
very code of `tensor_data.py`, compiled as device functions.

- map, zip, where (task 3.3): one thread per output element.
- reduce (task 3.4): one block per output element; its threads fold strided
  parts of the reduced dimension, then combine them in shared memory in a
  tree of $\\log_2$ `block` steps, with `cuda.syncthreads()` between steps.
- matmul (task 3.5): one block per `tile`×`tile` block of the output; the
  threads load a tile of `a` and one of `b` into shared memory, multiply
  them, and move on along the inner dimension.
- scan (cumsum, cumprod): one thread per line along the scanned dimension.
- take and put (indexing, gather's and index_add's storage reads and writes):
  one thread per position; `put` with accumulation adds atomically.
- sort and scatter along a dimension still run on the host (see `on_host`).

With `NUMBA_ENABLE_CUDASIM=1` Numba's simulator runs the kernels on the CPU
(one Python thread per CUDA thread: slow, for small tensors); see
`tutorials/03b_cuda.md`. Each kernel is one short section below: a body
factory (the closure over the scalar function and the compile-time sizes) and
a launch method of `CudaBackend`.
"""

from __future__ import annotations

import contextlib
import ctypes
import dis
import os
import sys
import types
import warnings
from collections.abc import Callable

import numba
import numpy as np

from .fast_tuned import FastBackend
from .fused import AMSGRAD
from .kernel_cache import INDEX_FUNCTIONS
from .tensor_data import TensorData

# numba.cuda costs about a second to import (numba-cuda loads the CUDA bindings): it is
# imported only where kernels can run, on the simulator or with an NVIDIA driver.
SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
DRIVER_LIBRARY = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


def driver_present() -> bool:
    """Whether the NVIDIA driver library loads (a cheap test, before importing numba.cuda)."""
    try:
        ctypes.CDLL(DRIVER_LIBRARY)
    except OSError:
        return False
    return True


cuda = None  # stays None where kernels cannot run
if SIMULATOR or driver_present():
    with contextlib.suppress(ImportError):  # a Numba without its CUDA target: the `cuda` extra
        from numba import cuda
    # The grid follows the tensor's size: Numba's advice to launch at least 128 blocks, a
    # warning at every kernel on a small tensor, is not for the user of minitorch to act on.
    warnings.filterwarnings("ignore", message=r"Grid size \d+ will likely result in GPU")

# A grid has at most 65535 blocks along y and z (matmul's row blocks and batch).
MAX_GRID_YZ = 65535
# Index buffers are per-thread local arrays of a fixed size: the most dimensions a kernel takes.
MAX_DIMS = 16
# (threads per block of the elementwise kernels, threads per reduction block, matmul tile):
# a GPU runs 256-thread blocks well; the simulator starts one Python thread per CUDA thread.
DEFAULT_SIZES = (32, 8, 4) if SIMULATOR else (256, 256, 16)


def available() -> bool:
    """Whether `cuda` tensors can run here: the simulator is on, or numba sees a GPU."""
    return cuda is not None and cuda.is_available()


def index_functions() -> tuple:
    """`to_index`, `index_to_position`, `broadcast_index` (`tensor_data.py`) as device functions."""
    if not _index_functions:
        _index_functions.extend(cuda.jit(device=True)(f) for f in INDEX_FUNCTIONS)
    return tuple(_index_functions)


_index_functions: list = []


def device_function(fn: Callable):
    """The scalar function `fn` (from `operators.py`) compiled for the GPU, once.

    The plain Python functions `fn` calls (`sigmoid_back` calls `sigmoid`) are
    compiled too, and `fn` is compiled as a copy that sees them under their names.
    """
    compiled = _device_functions.get(fn)
    if compiled is None:
        scope = dict(fn.__globals__)
        for instruction in dis.get_instructions(fn):
            if instruction.opname != "LOAD_GLOBAL":
                continue
            called = scope.get(instruction.argval)
            if isinstance(called, types.FunctionType):
                scope[instruction.argval] = device_function(called)
        code = fn.__code__
        copy = types.FunctionType(code, scope, fn.__name__, fn.__defaults__, fn.__closure__)
        compiled = _device_functions[fn] = cuda.jit(device=True)(copy)
    return compiled


_device_functions: dict[Callable, Callable] = {}


# ---------------------------------------------------------------------------
# map and zip: one thread per output element (task 3.3)
# ---------------------------------------------------------------------------


def cuda_map(fn: Callable) -> Callable:
    """The body of a map kernel: thread $i$ writes $out_i = fn(a_i)$, `a` broadcast."""
    to_index, index_to_position, broadcast_index = index_functions()
    fn = device_function(fn)

    def _map(out, out_shape, out_strides, out_offset, out_size, a, a_shape, a_strides, a_offset):
        # BEGIN SOLUTION 3.3
        i = cuda.grid(1)
        if i >= out_size:
            return
        out_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        a_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(a_shape)]
        to_index(i, out_shape, out_index)
        broadcast_index(out_index, out_shape, a_shape, a_index)
        value = a[a_offset + index_to_position(a_index, a_strides)]
        out[out_offset + index_to_position(out_index, out_strides)] = fn(value)
        # END SOLUTION 3.3

    return _map


def cuda_zip(fn: Callable) -> Callable:
    """The body of a zip kernel: thread $i$ writes $out_i = fn(a_i, b_i)$, both broadcast."""
    to_index, index_to_position, broadcast_index = index_functions()
    fn = device_function(fn)

    def _zip(
        out, out_shape, out_strides, out_offset, out_size,
        a, a_shape, a_strides, a_offset,
        b, b_shape, b_strides, b_offset,
    ):  # fmt: skip
        # BEGIN SOLUTION 3.3
        i = cuda.grid(1)
        if i >= out_size:
            return
        out_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        a_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(a_shape)]
        b_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(b_shape)]
        to_index(i, out_shape, out_index)
        broadcast_index(out_index, out_shape, a_shape, a_index)
        broadcast_index(out_index, out_shape, b_shape, b_index)
        x = a[a_offset + index_to_position(a_index, a_strides)]
        y = b[b_offset + index_to_position(b_index, b_strides)]
        out[out_offset + index_to_position(out_index, out_strides)] = fn(x, y)
        # END SOLUTION 3.3

    return _zip


# ---------------------------------------------------------------------------
# where: one thread per output element
# ---------------------------------------------------------------------------


def cuda_where() -> Callable:
    """The body of the where kernel: $out_i = a_i$ where $condition_i$, else $b_i$."""
    to_index, index_to_position, broadcast_index = index_functions()

    def _where(
        out, out_shape, out_strides, out_offset, out_size,
        c, c_shape, c_strides, c_offset,
        a, a_shape, a_strides, a_offset,
        b, b_shape, b_strides, b_offset,
    ):  # fmt: skip
        i = cuda.grid(1)
        if i >= out_size:
            return
        out_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        index = cuda.local.array(MAX_DIMS, numba.int64)
        to_index(i, out_shape, out_index)
        broadcast_index(out_index, out_shape, c_shape, index[: len(c_shape)])
        if c[c_offset + index_to_position(index[: len(c_shape)], c_strides)]:
            broadcast_index(out_index, out_shape, a_shape, index[: len(a_shape)])
            value = a[a_offset + index_to_position(index[: len(a_shape)], a_strides)]
        else:
            broadcast_index(out_index, out_shape, b_shape, index[: len(b_shape)])
            value = b[b_offset + index_to_position(index[: len(b_shape)], b_strides)]
        out[out_offset + index_to_position(out_index, out_strides)] = value

    return _where


# ---------------------------------------------------------------------------
# reduce: a shared-memory tree per output element (task 3.4)
# ---------------------------------------------------------------------------


def cuda_reduce(fn: Callable, block: int, accumulator) -> Callable:
    """The body of a reduce kernel: block $o$ folds output $o$'s line of `a` with `fn`.

    `block` (a power of two) threads per block; `accumulator` is the numba
    type partial results are kept in (float64 for floating tensors, as on the CPU).
    """
    to_index, index_to_position, _ = index_functions()
    fn = device_function(fn)

    def _reduce(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        dim, start,
    ):  # fmt: skip
        # BEGIN SOLUTION 3.4
        partial = cuda.shared.array(block, accumulator)
        thread = cuda.threadIdx.x
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        to_index(cuda.blockIdx.x, out_shape, index)
        first = a_offset + index_to_position(index, a_strides)
        total = start
        for j in range(thread, a_shape[dim], block):  # thread t folds j = t, t + block, ...
            total = fn(total, a[first + j * a_strides[dim]])
        partial[thread] = total
        cuda.syncthreads()
        step = block // 2
        while step > 0:  # the tree: halve the live threads, each combining two partials
            if thread < step:
                partial[thread] = fn(partial[thread], partial[thread + step])
            cuda.syncthreads()
            step //= 2
        if thread == 0:
            out[out_offset + index_to_position(index, out_strides)] = partial[0]
        # END SOLUTION 3.4

    return _reduce


# ---------------------------------------------------------------------------
# arg_reduce: one thread per output element, scanning its line in order
# ---------------------------------------------------------------------------


def cuda_arg_reduce(better: Callable) -> Callable:
    """The body of the arg-reduce kernel: the first element no later one is `better` than."""
    to_index, index_to_position, _ = index_functions()
    better = device_function(better)

    def _arg_reduce(
        values, indices, out_shape, out_strides, out_offset, out_size,
        index_strides, index_offset,
        a, a_shape, a_strides, a_offset, dim,
    ):  # fmt: skip
        i = cuda.grid(1)
        if i >= out_size:
            return
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        to_index(i, out_shape, index)
        position = a_offset + index_to_position(index, a_strides)
        best = a[position]
        best_at = 0
        for j in range(1, a_shape[dim]):
            value = a[position + j * a_strides[dim]]
            if better(value, best):
                best = value
                best_at = j
        values[out_offset + index_to_position(index, out_strides)] = best
        indices[index_offset + index_to_position(index, index_strides)] = best_at

    return _arg_reduce


# ---------------------------------------------------------------------------
# matmul: shared-memory tiles (task 3.5)
# ---------------------------------------------------------------------------


def cuda_matmul(tile: int, element, zero) -> Callable:
    """The body of the tiled matmul kernel: $out_{ij} = \\sum_k a_{ik} b_{kj}$ per batch.

    Block (x, y, z) computes output rows `y*tile ...`, columns `x*tile ...`
    of batch z; thread (tx, ty) owns element (row ty, column tx) of that
    block. Neighbouring threads (consecutive tx) read neighbouring columns of
    `b` and write neighbouring columns of `out`: coalesced for row-major data.
    `element` is the numba type of the tiles, `zero` the sum's start in it.
    """
    to_index, index_to_position, broadcast_index = index_functions()

    def _matmul(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        b, b_shape, b_strides, b_offset,
    ):  # fmt: skip
        # BEGIN SOLUTION 3.5
        a_tile = cuda.shared.array((tile, tile), element)
        b_tile = cuda.shared.array((tile, tile), element)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        ndim = len(out_shape)
        rows, columns, depth = out_shape[ndim - 2], out_shape[ndim - 1], a_shape[ndim - 1]
        i = cuda.blockIdx.y * tile + ty
        j = cuda.blockIdx.x * tile + tx
        # element (batch, 0, 0) of out, a and b: the batch index, broadcast
        out_index = cuda.local.array(MAX_DIMS, numba.int64)[:ndim]
        a_index = cuda.local.array(MAX_DIMS, numba.int64)[:ndim]
        b_index = cuda.local.array(MAX_DIMS, numba.int64)[:ndim]
        out_index[ndim - 2] = 0
        out_index[ndim - 1] = 0
        to_index(cuda.blockIdx.z, out_shape[: ndim - 2], out_index[: ndim - 2])
        broadcast_index(out_index, out_shape, a_shape, a_index)
        broadcast_index(out_index, out_shape, b_shape, b_index)
        p = a_offset + index_to_position(a_index, a_strides)
        q = b_offset + index_to_position(b_index, b_strides)
        total = zero
        for k0 in range(0, depth, tile):
            k = k0 + tx  # thread (tx, ty) loads a[i, k0 + tx] and b[k0 + ty, j]
            if i < rows and k < depth:
                a_tile[ty, tx] = a[p + i * a_strides[ndim - 2] + k * a_strides[ndim - 1]]
            else:
                a_tile[ty, tx] = zero
            k = k0 + ty
            if k < depth and j < columns:
                b_tile[ty, tx] = b[q + k * b_strides[ndim - 2] + j * b_strides[ndim - 1]]
            else:
                b_tile[ty, tx] = zero
            cuda.syncthreads()  # both tiles are loaded
            for kk in range(tile):
                total += a_tile[ty, kk] * b_tile[kk, tx]
            cuda.syncthreads()  # everyone is done with them before the next load
        if i < rows and j < columns:
            o = out_offset + index_to_position(out_index, out_strides)
            out[o + i * out_strides[ndim - 2] + j * out_strides[ndim - 1]] = total
        # END SOLUTION 3.5

    return _matmul


# ---------------------------------------------------------------------------
# scan: one thread per line along the scanned dimension
# ---------------------------------------------------------------------------


def cuda_scan(fn: Callable) -> Callable:
    """The body of a scan kernel: thread $i$ folds line $i$ along `dim` in order,
    $out[i|j] = fn(\\ldots fn(start, a[i|0]) \\ldots, a[i|j])$.

    `line_shape` is `a`'s shape with size 1 in `dim`: thread $i$'s line starts at its
    index $i$ in that shape. The partial fold stays in a register, in `start`'s type.
    """
    to_index, index_to_position, _ = index_functions()
    fn = device_function(fn)

    def _scan(
        out, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        line_shape, lines, dim, start,
    ):  # fmt: skip
        i = cuda.grid(1)
        if i >= lines:
            return
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(a_shape)]
        to_index(i, line_shape, index)
        p = a_offset + index_to_position(index, a_strides)
        o = out_offset + index_to_position(index, out_strides)
        total = start
        for j in range(a_shape[dim]):
            total = fn(total, a[p + j * a_strides[dim]])
            out[o + j * out_strides[dim]] = total

    return _scan


# ---------------------------------------------------------------------------
# take and put: one thread per position read or written
# ---------------------------------------------------------------------------


def cuda_take() -> Callable:
    """The body of the take kernel: $out_i = a.storage[positions_i]$."""
    to_index, index_to_position, _ = index_functions()

    def _take(
        out, out_shape, out_strides, out_offset, out_size,
        positions, positions_shape, positions_strides, positions_offset,
        a,
    ):  # fmt: skip
        i = cuda.grid(1)
        if i >= out_size:
            return
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        to_index(i, out_shape, index)
        position = positions[positions_offset + index_to_position(index, positions_strides)]
        out[out_offset + index_to_position(index, out_strides)] = a[position]

    return _take


def cuda_put(accumulate: bool) -> Callable:
    """The body of the put kernel: $a.storage[positions_i] = values_i$, `values` broadcast.

    With `accumulate`, $a.storage[positions_i] \\mathrel{+}= values_i$ as an atomic add, so that
    threads adding to the same position all count; without it one of them wins.
    """
    to_index, index_to_position, broadcast_index = index_functions()
    store = cuda.jit(device=True)(add_to if accumulate else write_to)

    def _put(
        a, positions, positions_shape, positions_strides, positions_offset, size,
        values, values_shape, values_strides, values_offset,
    ):  # fmt: skip
        i = cuda.grid(1)
        if i >= size:
            return
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(positions_shape)]
        value_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(values_shape)]
        to_index(i, positions_shape, index)
        broadcast_index(index, positions_shape, values_shape, value_index)
        position = positions[positions_offset + index_to_position(index, positions_strides)]
        store(a, position, values[values_offset + index_to_position(value_index, values_strides)])

    return _put


def write_to(a, position, value) -> None:
    a[position] = value


def add_to(a, position, value) -> None:
    cuda.atomic.add(a, position, value)


# ---------------------------------------------------------------------------
# fill: zeros for new storages
# ---------------------------------------------------------------------------


def cuda_fill() -> Callable:
    """The body of the fill kernel: every element of a 1-D array set to `value`."""

    def _fill(out, value):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = value

    return _fill


# ---------------------------------------------------------------------------
# The backend: memory, kernel cache, launches
# ---------------------------------------------------------------------------


def blocks(size: int, threads: int) -> int:
    """Blocks of `threads` threads to cover `size` elements: $\\lceil size / threads \\rceil$"""
    return (size + threads - 1) // threads


def check_dims(*layouts: TensorData) -> None:
    """Refuse tensors with more dimensions than the kernels' index buffers hold."""
    for layout in layouts:
        if layout.ndim > MAX_DIMS:
            raise RuntimeError(
                f"the cuda backend handles tensors of at most {MAX_DIMS} dimensions, "
                f"got {layout.ndim}"
            )


class CudaBackend:
    """`cuda` tensors: device memory and `numba.cuda` kernels.

    `threads` (threads per block of the elementwise kernels), `block` (of the
    reduction, a power of two) and `tile` (of matmul) are settings (see
    `DEFAULT_SIZES`): the tests lower them so that the simulator covers
    multi-block cases on tiny tensors.
    """

    name = "cuda"

    def __init__(self, sizes: tuple[int, int, int] = DEFAULT_SIZES):
        threads, block, tile = sizes
        if block & (block - 1):
            raise ValueError(f"the reduction's block must be a power of two, got {block}")
        self.threads, self.block, self.tile = threads, block, tile
        self._kernels: dict[tuple, Callable] = {}
        self._layout_arrays: dict[tuple, tuple] = {}

    # -- memory -------------------------------------------------------------

    def zeros(self, size: int, dtype: np.dtype):
        storage = cuda.device_array(size, dtype)
        if size:
            self.kernel(cuda_fill)[blocks(size, self.threads), self.threads](storage, 0)
        return storage

    def empty(self, size: int, dtype: np.dtype):
        """Device memory left as it is: for a result whose every element a kernel writes."""
        return cuda.device_array(size, dtype)

    def from_host(self, array: np.ndarray):
        return cuda.to_device(np.ascontiguousarray(array))

    def to_host(self, storage) -> np.ndarray:
        return storage.copy_to_host()

    # -- compiling and launching --------------------------------------------

    def kernel(self, factory: Callable, *settings) -> Callable:
        """`factory(*settings)` compiled with `cuda.jit`, once per factory and settings."""
        key = (factory, *settings)
        compiled = self._kernels.get(key)
        if compiled is None:
            compiled = self._kernels[key] = cuda.jit(factory(*settings))
        return compiled

    def layout_args(self, layout: TensorData) -> tuple:
        """(storage, shape, strides, offset) for a kernel, shape and strides in device memory."""
        key = (layout.shape, layout.strides)
        arrays = self._layout_arrays.get(key)
        if arrays is None:
            if len(self._layout_arrays) >= 4096:
                self._layout_arrays.clear()
            arrays = self._layout_arrays[key] = (
                cuda.to_device(layout.shape_array),
                cuda.to_device(layout.strides_array),
            )
        return (layout.storage, *arrays, layout.offset)

    def elementwise(self, kernel: Callable, out: TensorData, *inputs: TensorData) -> None:
        """Launch `kernel` with one thread per element of `out`."""
        check_dims(out, *inputs)
        size = out.numel()
        if size == 0:
            return
        args = self.layout_args(out) + (size,)
        for layout in inputs:
            args += self.layout_args(layout)
        kernel[blocks(size, self.threads), self.threads](*args)

    # -- kernels ------------------------------------------------------------

    def map(self, fn: Callable, out: TensorData, a: TensorData) -> None:
        """$out_i = fn(a_i)$, `a` broadcast to `out`'s shape."""
        self.elementwise(self.kernel(cuda_map, fn), out, a)

    def zip(self, fn: Callable, out: TensorData, a: TensorData, b: TensorData) -> None:
        """$out_i = fn(a_i, b_i)$, both broadcast."""
        self.elementwise(self.kernel(cuda_zip, fn), out, a, b)

    def where(self, out: TensorData, condition: TensorData, a: TensorData, b: TensorData) -> None:
        """$out_i = a_i$ where $condition_i$, else $b_i$ (all broadcast)."""
        self.elementwise(self.kernel(cuda_where), out, condition, a, b)

    def reduce(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Fold dimension `dim` of `a` with `fn` from `start` into `out` (size 1 in `dim`)."""
        check_dims(out, a)
        if out.numel() == 0:
            return
        floating = a.storage.dtype.kind == "f"
        accumulator = numba.float64 if floating else numba.int64
        start = np.float64(start) if floating else np.int64(start)
        kernel = self.kernel(cuda_reduce, fn, self.block, accumulator)
        args = self.layout_args(out) + self.layout_args(a) + (dim, start)
        kernel[out.numel(), self.block](*args)

    def arg_reduce(
        self, better: Callable, values: TensorData, indices: TensorData, a: TensorData, dim: int
    ) -> None:
        """The first element along `dim` no later one is `better` than, and its position."""
        check_dims(values, a)
        size = values.numel()
        if size == 0:
            return
        _, _, index_strides, index_offset = self.layout_args(indices)
        storage, shape, strides, offset = self.layout_args(values)
        args = (storage, indices.storage, shape, strides, offset, size, index_strides, index_offset)
        kernel = self.kernel(cuda_arg_reduce, better)
        kernel[blocks(size, self.threads), self.threads](*args, *self.layout_args(a), dim)

    def matmul(self, out: TensorData, a: TensorData, b: TensorData) -> None:
        """Batched matrix product, batch dimensions broadcast; any strides."""
        check_dims(out, a, b)
        if out.numel() == 0:
            return
        dtype = out.storage.dtype
        kernel = self.kernel(cuda_matmul, self.tile, numba.from_dtype(dtype), dtype.type(0))
        tile = self.tile
        rows, columns = out.shape[-2], out.shape[-1]
        batches = out.numel() // (rows * columns)
        if batches > MAX_GRID_YZ or blocks(rows, tile) > MAX_GRID_YZ:
            raise RuntimeError(
                f"the cuda matmul takes at most {MAX_GRID_YZ} matrices of at most "
                f"{MAX_GRID_YZ * tile} rows, got {batches} of {rows}"
            )
        grid = (blocks(columns, tile), blocks(rows, tile), batches)
        args = self.layout_args(out) + self.layout_args(a) + self.layout_args(b)
        kernel[grid, (tile, tile)](*args)

    def scan(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Running folds of `fn` from `start` along `dim` (cumsum, cumprod): a thread a line."""
        check_dims(out, a)
        length = a.shape[dim]
        lines = a.numel() // length if length else 0
        if lines == 0:
            return
        line = TensorData.contiguous(a.storage, a.shape[:dim] + (1,) + a.shape[dim + 1 :])
        _, line_shape, _, _ = self.layout_args(line)  # `a`'s shape with size 1 in `dim`
        storage, _, strides, offset = self.layout_args(out)
        start = np.float64(start) if a.storage.dtype.kind == "f" else np.int64(start)
        args = (storage, strides, offset, *self.layout_args(a), line_shape, lines, dim, start)
        self.kernel(cuda_scan, fn)[blocks(lines, self.threads), self.threads](*args)

    def take(self, out: TensorData, a: TensorData, positions: TensorData) -> None:
        """$out_i = a.storage[positions_i]$: a thread per element of `out`."""
        check_dims(out, positions)
        size = out.numel()
        if size == 0:
            return
        args = self.layout_args(out) + (size,) + self.layout_args(positions) + (a.storage,)
        self.kernel(cuda_take)[blocks(size, self.threads), self.threads](*args)

    def put(
        self, a: TensorData, positions: TensorData, values: TensorData, accumulate: bool
    ) -> None:
        """$a.storage[positions_i] = values_i$ (`+=` if `accumulate`): a thread per position."""
        if accumulate and a.storage.dtype == np.bool_:  # no atomic add of bools
            self.on_host("put", (0,), a, positions, values, accumulate)
            return
        check_dims(positions, values)
        size = positions.numel()
        if size == 0:
            return
        args = (a.storage, *self.layout_args(positions), size, *self.layout_args(values))
        self.kernel(cuda_put, accumulate)[blocks(size, self.threads), self.threads](*args)

    # -- on the host, for now: sorts and scatters ------------------------------
    # These kernels have no numba.cuda version yet. A cuda tensor still gets the right
    # result: the storages go to the host, the CPU backend's kernel runs there, and the
    # storages it wrote come back (correct, and slow: two copies each way).

    def on_host(self, method: str, written: tuple[int, ...], *args) -> None:
        """Run the CPU kernel `method` on host copies of the layouts in `args`, then copy
        the storages of the arguments at the positions `written` back to the device."""
        host = [
            TensorData(self.to_host(x.storage), x.shape, x.strides, x.offset)
            if isinstance(x, TensorData)
            else x
            for x in args
        ]
        getattr(HOST_KERNELS, method)(*host)
        for k in written:
            args[k].storage.copy_to_device(host[k].storage)

    def sort(
        self, values: TensorData, indices: TensorData, a: TensorData, dim: int, descending: bool
    ) -> None:
        self.on_host("sort", (0, 1), values, indices, a, dim, descending)

    def scatter_along(
        self, out: TensorData, source: TensorData, index: TensorData, dim: int
    ) -> None:
        self.on_host("scatter_along", (0,), out, source, index, dim)

    def adam(
        self,
        param: TensorData,
        grad: TensorData,
        exp_avg: TensorData,
        exp_avg_sq: TensorData,
        max_exp_avg_sq: TensorData,
        settings: np.ndarray,
    ) -> None:
        """On the host, for now. Without amsgrad `max_exp_avg_sq` is `exp_avg_sq` unwritten:
        its host copy (the old values) must not go back over the new ones."""
        written = (0, 2, 3, 4) if settings[AMSGRAD] != 0 else (0, 2, 3)
        layouts = (param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq)
        self.on_host("adam", written, *layouts, settings)

    def put_reduce(
        self, fn: Callable, a: TensorData, positions: TensorData, values: TensorData
    ) -> None:
        self.on_host("put_reduce", (1,), fn, a, positions, values)


HOST_KERNELS = FastBackend()
