"""The GPU's sort: every element of every line merged into place by its rank, a thread each.

A sort by one thread per line (the CPU's merge sort, `fast/sorting.py`) leaves a GPU idle on
a few long lines: one thread would sort a million elements alone. Here the lines are copied
into scratch lines of keys and of positions (`cuda_line_keys`), and the bottom-up merge sort's
rounds run as kernels: in the round of runs `width` long, each pair of neighbouring runs is
merged by a thread per element, which works out where its element lands without looking at
any other thread's work. An element at place $i$ of its run lands at

$$low + i + (\\text{elements of the other run that sort before it})$$

where $low$ is the start of the pair, and the count is a binary search of the other run,
sorted already. Ties go to the left run (its elements count the right run's that sort
strictly before them; the right run's count the left run's that do not sort after them),
so the sort is stable, as PyTorch's and the CPU's. After $\\lceil \\log_2 n \\rceil$ rounds
each line is one run, and `cuda_sorted_lines` writes it out. NaN sorts as the largest value.

The folding put (`folds.py`) sorts its target positions with the same rounds.
"""

from __future__ import annotations

from collections.abc import Callable

import numba

from ..fast.sorting import _before
from .compiler import MAX_DIMS, device_function, index_functions
from .driver import cuda


def line_place_function():
    """`line_place(t, n, line_shape, index)` as a device function: element $t$ of the scratch
    lines is place $t \\bmod n$ of line $t // n$, whose index in `line_shape` (the sorted
    tensor's shape with size 1 in the sorted dim) it writes into `index`; returns the place."""
    to_index = index_functions()[0]

    def line_place(t, n, line_shape, index):
        to_index(t // n, line_shape, index)
        return t % n

    return cuda.jit(device=True)(line_place)


def cuda_line_keys() -> Callable:
    """The body of the first step: thread $t$ copies element $j = t \\bmod n$ of line
    $t // n$ of `a` (lines of $n$ along `dim`, found by their index in `line_shape`, which is
    `a`'s shape with size 1 in `dim`) to $keys_t$, with $order_t = j$: where it came from."""
    index_to_position = index_functions()[1]
    line_place = line_place_function()

    def _keys(keys, order, a, a_shape, a_strides, a_offset, line_shape, size, dim):
        t = cuda.grid(1)
        if t < size:
            index = cuda.local.array(MAX_DIMS, numba.int64)[: len(a_shape)]
            j = line_place(t, a_shape[dim], line_shape, index)
            keys[t] = a[a_offset + index_to_position(index, a_strides) + j * a_strides[dim]]
            order[t] = j

    return _keys


def cuda_merge_round() -> Callable:
    """The body of a round: thread $t$ moves its key and position from `keys`/`order`, where
    the lines of `length` are runs `width` long, to their place in the runs twice as long
    of `merged_keys`/`merged_order`."""
    before = device_function(_before.py_func)

    def _merge(keys, order, merged_keys, merged_order, length, size, width, descending):
        t = cuda.grid(1)
        if t >= size:
            return
        line = t - t % length  # where t's line starts
        j = t - line
        low = j - j % (2 * width)  # t's pair of runs: [low, middle) and [middle, high)
        middle = min(low + width, length)
        high = min(low + 2 * width, length)
        key = keys[t]
        left = j < middle
        # the other run's elements that go before `key` make a prefix of it: find its end
        first, last = (middle, high) if left else (low, middle)
        while first < last:
            half = (first + last) // 2
            other = keys[line + half]
            if before(other, key, descending) if left else not before(key, other, descending):
                first = half + 1
            else:
                last = half
        own_start, other_start = (low, middle) if left else (middle, low)
        place = line + low + (j - own_start) + (first - other_start)
        merged_keys[place] = key
        merged_order[place] = order[t]

    return _merge


def cuda_sorted_lines() -> Callable:
    """The body of the last step: thread $t$ writes the sorted key $keys_t$ and where it came
    from, $order_t$, to place $t \\bmod n$ of its line in `values` and `indices`."""
    index_to_position = index_functions()[1]
    line_place = line_place_function()

    def _write(
        values, values_strides, values_offset, indices, indices_strides, indices_offset,
        keys, order, a_shape, line_shape, size, dim,
    ):  # fmt: skip
        t = cuda.grid(1)
        if t < size:
            index = cuda.local.array(MAX_DIMS, numba.int64)[: len(a_shape)]
            j = line_place(t, a_shape[dim], line_shape, index)
            v = values_offset + index_to_position(index, values_strides)
            i = indices_offset + index_to_position(index, indices_strides)
            values[v + j * values_strides[dim]] = keys[t]
            indices[i + j * indices_strides[dim]] = order[t]

    return _write
