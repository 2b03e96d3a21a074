"""The GPU's work along lines that keeps an order: arg_reduce, scan and sort, one thread per
line."""

from __future__ import annotations

from collections.abc import Callable

import numba

from ..fast.sorting import _merge_sort
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


def cuda_sort() -> Callable:
    """The body of the sort kernel: thread $i$ sorts line $i$ of `a` along `dim` stably (NaN
    largest) with the CPU backend's merge sort (`fast/sorting.py`), in its own part of the
    scratch lines `keys`, `order` and `spare` (`lines` × length each)."""
    _, index_to_position, _ = index_functions()
    thread_index = thread_index_function()
    merge_sort = device_function(_merge_sort.py_func)

    def _sort(
        values, values_strides, values_offset,
        indices, indices_strides, indices_offset,
        a, a_shape, a_strides, a_offset,
        line_shape, lines, dim, descending,
        keys, order, spare,
    ):  # fmt: skip
        at = cuda.local.array(MAX_DIMS, numba.int64)[: len(a_shape)]
        if not thread_index(lines, line_shape, at):
            return
        n = a_shape[dim]
        part = slice(cuda.grid(1) * n, (cuda.grid(1) + 1) * n)
        keys, order, spare = keys[part], order[part], spare[part]
        p = a_offset + index_to_position(at, a_strides)
        for j in range(n):
            keys[j] = a[p + j * a_strides[dim]]
            order[j] = j
        merge_sort(keys, order, spare, descending)
        v = values_offset + index_to_position(at, values_strides)
        i = indices_offset + index_to_position(at, indices_strides)
        for j in range(n):
            values[v + j * values_strides[dim]] = keys[order[j]]
            indices[i + j * indices_strides[dim]] = order[j]

    return _sort
