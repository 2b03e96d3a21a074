"""The GPU's take, put and scatter along a dim (indexing, gather, scatter): one thread per
position read or written."""

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


def cuda_put(accumulate: bool, boolean: bool) -> Callable:
    """The body of the put kernel: $a.storage[positions_i] = values_i$, `values` broadcast.

    With `accumulate`, $a.storage[positions_i] \\mathrel{+}= values_i$ as an atomic add, so that
    threads adding to the same position all count; without it one of them wins. A `boolean`
    storage has no atomic add: its sum is $a \\lor v$, which the threads whose value is true
    write as true (all writers write the same, so no update is lost).
    """
    _, index_to_position, broadcast_index = index_functions()
    thread_index = thread_index_function()
    store = cuda.jit(device=True)((or_into if boolean else add_to) if accumulate else write_to)

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


def or_into(a, position, value) -> None:
    if value:
        a[position] = True


def cuda_scatter_claims() -> Callable:
    """The body of the first step of a scatter along `dim`, $out[i|index[i|j]] = source[i|j]$,
    where a repeated position keeps the last value of its line (as on the CPU): thread
    $(i|j)$ claims its target with $claims[i|index[i|j]] = \\max(\\ldots, j)$, an atomic max
    (`claims` has `out`'s shape, starts at zero and is contiguous).

    Only elements of one line share targets: a target differs from its element only in `dim`.
    """
    _, index_to_position, _ = index_functions()
    thread_index = thread_index_function()

    def _claim(
        claims, claims_strides, source_shape, size,
        index, index_strides, index_offset, dim,
    ):  # fmt: skip
        at = cuda.local.array(MAX_DIMS, numba.int64)[: len(source_shape)]
        if not thread_index(size, source_shape, at):
            return
        j = at[dim]
        at[dim] = index[index_offset + index_to_position(at, index_strides)]
        cuda.atomic.max(claims, index_to_position(at, claims_strides), j)

    return _claim


def cuda_scatter_along() -> Callable:
    """The body of the second step: thread $(i|j)$ writes $source[i|j]$ to its target if its
    claim won, $claims[i|index[i|j]] = j$."""
    _, index_to_position, _ = index_functions()
    thread_index = thread_index_function()

    def _scatter_along(
        out, out_strides, out_offset,
        source, source_shape, source_strides, source_offset, size,
        index, index_strides, index_offset,
        claims, claims_strides, dim,
    ):  # fmt: skip
        at = cuda.local.array(MAX_DIMS, numba.int64)[: len(source_shape)]
        if not thread_index(size, source_shape, at):
            return
        j = at[dim]
        value = source[source_offset + index_to_position(at, source_strides)]
        at[dim] = index[index_offset + index_to_position(at, index_strides)]
        if claims[index_to_position(at, claims_strides)] == j:
            out[out_offset + index_to_position(at, out_strides)] = value

    return _scatter_along
