"""Module 3b: the GPU kernels of the exercises, `numba.cuda` kernels over device memory.

A kernel runs as a *grid* of *blocks* of *threads*; every thread runs the
kernel body with its own `cuda.threadIdx` / `cuda.blockIdx`. The layouts are
the CPU backends' (`TensorData`); the storages are device arrays, and results
stay in device memory from one operation to the next. The index math is the
very code of `tensor_data.py`, compiled as device functions (`compiler.py`).

- map, zip (task 3.3): one thread per output element.
- reduce (task 3.4): one block per output element; its threads fold strided
  parts of the reduced dimension, then combine them in shared memory in a
  tree of $\\log_2$ `block` steps, with `cuda.syncthreads()` between steps.
- matmul (task 3.5): one block per `tile`×`tile` block of the output; the
  threads load a tile of `a` and one of `b` into shared memory, multiply
  them, and move on along the inner dimension.

Each kernel is a body factory: a closure over the scalar function and the
compile-time sizes, which `CudaBackend` (`backend.py`) compiles and launches.
With `NUMBA_ENABLE_CUDASIM=1` Numba's simulator runs the kernels on the CPU
(one Python thread per CUDA thread: slow, for small tensors); see
`tutorials/03b_cuda.md`.
"""

from __future__ import annotations

from collections.abc import Callable

import numba

from .compiler import MAX_DIMS, device_function, index_functions
from .driver import cuda


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
