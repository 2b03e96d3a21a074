"""The GPU's where and fill: one thread per output element."""

from __future__ import annotations

from collections.abc import Callable

import numba

from .compiler import MAX_DIMS, index_functions, thread_index_function
from .driver import cuda


def cuda_where() -> Callable:
    """The body of the where kernel: $out_i = a_i$ where $condition_i$, else $b_i$."""
    _, index_to_position, broadcast_index = index_functions()
    thread_index = thread_index_function()

    def _where(
        out, out_shape, out_strides, out_offset, out_size,
        c, c_shape, c_strides, c_offset,
        a, a_shape, a_strides, a_offset,
        b, b_shape, b_strides, b_offset,
    ):  # fmt: skip
        out_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        if not thread_index(out_size, out_shape, out_index):
            return
        index = cuda.local.array(MAX_DIMS, numba.int64)
        broadcast_index(out_index, out_shape, c_shape, index[: len(c_shape)])
        if c[c_offset + index_to_position(index[: len(c_shape)], c_strides)]:
            broadcast_index(out_index, out_shape, a_shape, index[: len(a_shape)])
            value = a[a_offset + index_to_position(index[: len(a_shape)], a_strides)]
        else:
            broadcast_index(out_index, out_shape, b_shape, index[: len(b_shape)])
            value = b[b_offset + index_to_position(index[: len(b_shape)], b_strides)]
        out[out_offset + index_to_position(out_index, out_strides)] = value

    return _where


def cuda_fill() -> Callable:
    """The body of the fill kernel: every element of a 1-D array set to `value`."""

    def _fill(out, value):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = value

    return _fill
