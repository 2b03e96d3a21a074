"""Module 3: parallel kernels compiled by Numba. `StudentBackend` (name `"student"`) runs them.

The exercises of module 3 are the kernel bodies of this file: the map, zip
and reduce kernels (task 3.1) and `_matmul` (task 3.2). They are the
reference backend's loops (`tensor_ops.SimpleBackend`) compiled by Numba, with
`prange` spreading the outputs over the threads; they call the index
functions of `tensor_data.py`, compiled inline (`kernel_cache.to_index`, ...).

`StudentBackend` is a `FastBackend` with these kernels plugged in: each body is
compiled twice, serial for small tensors and `parallel=True` above
`parallel_threshold`, lazily, and cached on disk (`kernel_cache.py`).
`minitorch.set_backend("student")` runs every `cpu` tensor on them.

`FastBackend` (name `"fast"`, the default of `cpu` tensors) computes the same
with tuned kernels: see the package `fast/`.
`NUMBA_DISABLE_JIT=1` runs every kernel as plain Python, for debugging.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numba import njit, prange

from .fast.backend import FastBackend
from .fast.layout import _numel
from .fast.reductions import accumulator_start
from .kernel_cache import broadcast_index, index_to_position, to_index
from .tensor_data import TensorData

# Matmul blocks: rows of `a` per parallel work item, values of `k` per pass over them.
BLOCK_ROWS = 64
BLOCK_DEPTH = 256


@njit(inline="always")
def _aligned(out_shape, out_strides, shape, strides) -> bool:
    """Whether element $i$ of both layouts is at $offset + i$: same shape, row-major strides."""
    if len(shape) != len(out_shape):
        return False
    expected = 1
    for k in range(len(shape) - 1, -1, -1):
        if shape[k] != out_shape[k]:
            return False
        if shape[k] > 1 and (strides[k] != expected or out_strides[k] != expected):
            return False
        expected *= shape[k]
    return True


def tensor_map(fn: Callable) -> Callable:
    """The body of a map kernel: $out_i = fn(a_i)$ for every index $i$ of `out`, `a` broadcast."""

    def _map(out, out_shape, out_strides, out_offset, a, a_shape, a_strides, a_offset):
        # BEGIN SOLUTION 3.1
        size = _numel(out_shape)
        if _aligned(out_shape, out_strides, a_shape, a_strides):
            for i in prange(size):
                out[out_offset + i] = fn(a[a_offset + i])
            return
        for i in prange(size):
            out_index = np.empty(len(out_shape), np.int64)
            a_index = np.empty(len(a_shape), np.int64)
            to_index(i + 0, out_shape, out_index)  # a copy of i: see the tutorial, section 4
            broadcast_index(out_index, out_shape, a_shape, a_index)
            value = a[a_offset + index_to_position(a_index, a_strides)]
            out[out_offset + index_to_position(out_index, out_strides)] = fn(value)
        # END SOLUTION 3.1

    return _map


def tensor_zip(fn: Callable) -> Callable:
    """The body of a zip kernel: $out_i = fn(a_i, b_i)$, `a` and `b` broadcast to `out`."""

    def _zip(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        b, b_shape, b_strides, b_offset,
    ):  # fmt: skip
        # BEGIN SOLUTION 3.1
        size = _numel(out_shape)
        if _aligned(out_shape, out_strides, a_shape, a_strides) and _aligned(
            out_shape, out_strides, b_shape, b_strides
        ):
            for i in prange(size):
                out[out_offset + i] = fn(a[a_offset + i], b[b_offset + i])
            return
        for i in prange(size):
            out_index = np.empty(len(out_shape), np.int64)
            a_index = np.empty(len(a_shape), np.int64)
            b_index = np.empty(len(b_shape), np.int64)
            to_index(i + 0, out_shape, out_index)  # a copy of i: see the tutorial, section 4
            broadcast_index(out_index, out_shape, a_shape, a_index)
            broadcast_index(out_index, out_shape, b_shape, b_index)
            x = a[a_offset + index_to_position(a_index, a_strides)]
            y = b[b_offset + index_to_position(b_index, b_strides)]
            out[out_offset + index_to_position(out_index, out_strides)] = fn(x, y)
        # END SOLUTION 3.1

    return _zip


def tensor_reduce(fn: Callable) -> Callable:
    """The body of a reduce kernel: $out_i = fn(\\ldots fn(fn(start, a_{i|0}), a_{i|1}) \\ldots)$.

    $a_{i|j}$ is the element of `a` at `out`'s index $i$ with $j$ in dimension
    `dim` (where `out` has size 1). `start` is a float for floating tensors,
    so a `float32` sum adds in `float64` and rounds once when it is stored.
    """

    def _reduce(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        dim, start,
    ):  # fmt: skip
        # BEGIN SOLUTION 3.1
        step = a_strides[dim]
        for i in prange(_numel(out_shape)):
            index = np.empty(len(out_shape), np.int64)
            to_index(i + 0, out_shape, index)
            position = a_offset + index_to_position(index, a_strides)
            total = start
            for j in range(a_shape[dim]):
                total = fn(total, a[position + j * step])
            out[out_offset + index_to_position(index, out_strides)] = total
        # END SOLUTION 3.1

    return _reduce


def _matmul(
    out, out_shape, out_strides, out_offset,
    a, a_shape, a_strides, a_offset,
    b, b_shape, b_strides, b_offset,
):  # fmt: skip
    """$out[\\ldots, i, j] = \\sum_k a[\\ldots, i, k] \\, b[\\ldots, k, j]$, batch dims broadcast.

    All three have the same number of dimensions (at least 2). `prange` runs
    over (batch, block of `BLOCK_ROWS` rows) items; each sums its block in
    the order i-k-j (the inner loop runs along rows of `b`) into a local
    buffer, `BLOCK_DEPTH` values of `k` at a time so that those rows of `b`
    stay in cache for the whole block, then writes the block into `out`.
    """
    # BEGIN SOLUTION 3.2
    ndim = len(out_shape)
    rows, columns, depth = out_shape[ndim - 2], out_shape[ndim - 1], a_shape[ndim - 1]
    row_blocks = (rows + BLOCK_ROWS - 1) // BLOCK_ROWS
    for item in prange(_numel(out_shape[: ndim - 2]) * row_blocks):
        first_row = (item % row_blocks) * BLOCK_ROWS
        block_rows = min(BLOCK_ROWS, rows - first_row)
        # element (batch, 0, 0) of out, a and b: the batch index, broadcast
        out_index = np.zeros(ndim, np.int64)
        a_index = np.empty(ndim, np.int64)
        b_index = np.empty(ndim, np.int64)
        to_index(item // row_blocks, out_shape[: ndim - 2], out_index)
        broadcast_index(out_index, out_shape, a_shape, a_index)
        broadcast_index(out_index, out_shape, b_shape, b_index)
        o = out_offset + index_to_position(out_index, out_strides)
        p = a_offset + index_to_position(a_index, a_strides) + first_row * a_strides[ndim - 2]
        q = b_offset + index_to_position(b_index, b_strides)

        c = np.zeros((block_rows, columns), out.dtype)
        for k0 in range(0, depth, BLOCK_DEPTH):
            for i in range(block_rows):
                for k in range(k0, min(k0 + BLOCK_DEPTH, depth)):
                    x = a[p + i * a_strides[ndim - 2] + k * a_strides[ndim - 1]]
                    b_row = q + k * b_strides[ndim - 2]
                    for j in range(columns):
                        c[i, j] += x * b[b_row + j * b_strides[ndim - 1]]
        for i in range(block_rows):
            row = o + (first_row + i) * out_strides[ndim - 2]
            for j in range(columns):
                out[row + j * out_strides[ndim - 1]] = c[i, j]
    # END SOLUTION 3.2


class StudentBackend(FastBackend):
    """`FastBackend` with the map, zip, reduce and matmul kernels of this file.

    `where` and `arg_reduce` stay `FastBackend`'s (they are not exercises); convolution and
    pooling run module 4's exercises on these kernels: of `FastBackend`'s optional kernels
    only `adam_step` is registered, not the window kernels.
    """

    name = "student"
    optional_kernels = ("adam_step",)
    matmul_serial_body = matmul_body = staticmethod(_matmul)
    matmul_fastmath = ()

    def map(self, fn: Callable, out: TensorData, a: TensorData) -> None:
        """$out[i] = fn(a[i])$ for every index $i$ of `out`, with `a` broadcast."""
        self.launch(
            tensor_map, fn, math.prod(out.shape),
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
        )  # fmt: skip

    def zip(self, fn: Callable, out: TensorData, a: TensorData, b: TensorData) -> None:
        """$out[i] = fn(a[i], b[i])$ for every index $i$ of `out`, with `a` and `b` broadcast."""
        self.launch(
            tensor_zip, fn, math.prod(out.shape),
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            b.storage, b.shape_array, b.strides_array, b.offset,
        )  # fmt: skip

    def reduce(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Fold dimension `dim` of `a` with `fn` from `start` into `out` (size 1 in `dim`)."""
        self.launch(
            tensor_reduce, fn, math.prod(a.shape),
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            dim, accumulator_start(start, a.storage.dtype),
        )  # fmt: skip

    def launch(self, factory: Callable, fn: Callable, work: int, *args) -> None:
        """Run the kernel that `factory` builds around `fn` on `args`: serial below
        `parallel_threshold` elements of `work`, else parallel."""
        kernel, _ = self.choose(self.kernels(factory, fn), work, self.parallel_threshold)
        kernel(*args)
