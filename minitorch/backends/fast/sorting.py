"""`FastBackend`'s sort: each line along a dimension merge-sorted, stably, in a work item.

NaN sorts as the largest value (PyTorch's order); equal elements keep their order.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..kernel_cache import index_to_position
from .layout import _chunk_bounds, _line_start, _lines, _pos


@njit(inline="always")
def _before(x, y, descending) -> bool:
    """Whether `x` sorts strictly before `y` (NaN is the largest value)."""
    if descending:
        return x > y or (x != x and y == y)
    return x < y or (y != y and x == x)


@njit
def _merge_sort(keys, order, spare, descending) -> None:
    """Sort the positions `order` by `keys`, stably: bottom-up merges of runs of 1, 2, 4, ..."""
    n = len(order)
    source, target = order, spare
    in_spare = False  # whether the sorted runs are in `spare`
    width = 1
    while width < n:
        for low in range(0, n, 2 * width):
            middle, high = min(low + width, n), min(low + 2 * width, n)
            i, j = low, middle
            for k in range(low, high):  # the left run wins ties: stable
                if j < high and (
                    i >= middle or _before(keys[source[j]], keys[source[i]], descending)
                ):
                    target[k] = source[j]
                    j += 1
                else:
                    target[k] = source[i]
                    i += 1
        source, target = target, source
        in_spare = not in_spare
        width *= 2
    if in_spare:
        order[:] = spare


def _sort(
    values, values_strides, values_offset,
    indices, indices_strides, indices_offset,
    a, a_shape, a_strides, a_offset,
    dim, descending, n_chunks,
):  # fmt: skip
    """Each line of `a` along `dim` sorted stably into `values`; its positions into `indices`."""
    length = a_shape[dim]
    line_shape, lines = _lines(a_shape, dim)
    step = a_strides[dim]
    for chunk in prange(n_chunks):
        index = np.empty(len(a_shape), np.int64)
        keys = np.empty(length, a.dtype)
        order = np.empty(length, np.int64)
        spare = np.empty(length, np.int64)
        begin, end = _chunk_bounds(lines, n_chunks, chunk)
        for line in range(begin, end):
            p = _line_start(line, line_shape, index, a_strides, a_offset)
            for j in range(length):
                keys[j] = a[_pos(p + j * step)]
                order[j] = j
            _merge_sort(keys, order, spare, descending)
            v = values_offset + index_to_position(index, values_strides)
            i = indices_offset + index_to_position(index, indices_strides)
            for j in range(length):
                values[_pos(v + j * values_strides[dim])] = keys[order[j]]
                indices[_pos(i + j * indices_strides[dim])] = order[j]
