"""The GPU's take and put: one thread per position read or written (indexing, gather, scatter)."""

from __future__ import annotations

from collections.abc import Callable

import numba

from .compiler import MAX_DIMS, index_functions, thread_index_function
from .driver import cuda


def cuda_take() -> Callable:
    """The body of the take kernel: $out_i = a.storage[positions_i]$."""
    _, index_to_position, _ = index_functions()
    thread_index = thread_index_function()

    def _take(
        out, out_shape, out_strides, out_offset, out_size,
        positions, positions_shape, positions_strides, positions_offset,
        a,
    ):  # fmt: skip
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        if not thread_index(out_size, out_shape, index):
            return
        position = positions[positions_offset + index_to_position(index, positions_strides)]
        out[out_offset + index_to_position(index, out_strides)] = a[position]

    return _take


def cuda_put(accumulate: bool) -> Callable:
    """The body of the put kernel: $a.storage[positions_i] = values_i$, `values` broadcast.

    With `accumulate`, $a.storage[positions_i] \\mathrel{+}= values_i$ as an atomic add, so that
    threads adding to the same position all count; without it one of them wins.
    """
    _, index_to_position, broadcast_index = index_functions()
    thread_index = thread_index_function()
    store = cuda.jit(device=True)(add_to if accumulate else write_to)

    def _put(
        a, positions, positions_shape, positions_strides, positions_offset, size,
        values, values_shape, values_strides, values_offset,
    ):  # fmt: skip
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(positions_shape)]
        if not thread_index(size, positions_shape, index):
            return
        value_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(values_shape)]
        broadcast_index(index, positions_shape, values_shape, value_index)
        position = positions[positions_offset + index_to_position(index, positions_strides)]
        store(a, position, values[values_offset + index_to_position(value_index, values_strides)])

    return _put


def write_to(a, position, value) -> None:
    a[position] = value


def add_to(a, position, value) -> None:
    cuda.atomic.add(a, position, value)
