"""The GPU's folds that keep an order: arg_reduce and scan, one thread per line."""

from __future__ import annotations

from collections.abc import Callable

import numba

from .compiler import MAX_DIMS, device_function, index_functions, thread_index_function
from .driver import cuda


def cuda_arg_reduce(better: Callable) -> Callable:
    """The body of the arg-reduce kernel: the first element no later one is `better` than."""
    _, index_to_position, _ = index_functions()
    thread_index = thread_index_function()
    better = device_function(better)

    def _arg_reduce(
        values, indices, out_shape, out_strides, out_offset, out_size,
        index_strides, index_offset,
        a, a_shape, a_strides, a_offset, dim,
    ):  # fmt: skip
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        if not thread_index(out_size, out_shape, index):
            return
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


def cuda_scan(fn: Callable) -> Callable:
    """The body of a scan kernel: thread $i$ folds line $i$ along `dim` in order,
    $out[i|j] = fn(\\ldots fn(start, a[i|0]) \\ldots, a[i|j])$.

    `line_shape` is `a`'s shape with size 1 in `dim`: thread $i$'s line starts at its
    index $i$ in that shape. The partial fold stays in a register, in `start`'s type.
    """
    _, index_to_position, _ = index_functions()
    thread_index = thread_index_function()
    fn = device_function(fn)

    def _scan(
        out, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        line_shape, lines, dim, start,
    ):  # fmt: skip
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(a_shape)]
        if not thread_index(lines, line_shape, index):
            return
        p = a_offset + index_to_position(index, a_strides)
        o = out_offset + index_to_position(index, out_strides)
        total = start
        for j in range(a_shape[dim]):
            total = fn(total, a[p + j * a_strides[dim]])
            out[o + j * out_strides[dim]] = total

    return _scan
