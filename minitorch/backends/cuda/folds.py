"""The GPU's folding put, $a.storage[positions_i] = fn(a.storage[positions_i], values_i)$ in
the order of $i$, exactly as the CPU backend's serial loop, for any fold `fn`.

Threads that fold into one position must take their turns in order, so the positions are
first grouped by target, a counting sort: count the positions of each target (atomic adds),
turn the counts into where each target's group ends (a running sum), and write each
ordinal $i$ into its target's group (atomic adds on those ends, which leaves each end at its
group's start). Then a thread per target sorts its group's ordinals (atomics wrote them in
any order; a heap sort) and folds its values in that order.
"""

from __future__ import annotations

from collections.abc import Callable

import numba

from .compiler import MAX_DIMS, device_function, index_functions
from .driver import cuda


def position_function():
    """`position_of(i, positions..., index)`: ordinal $i$'s storage position, its index in
    `positions`' shape left in `index`."""
    to_index, index_to_position, _ = index_functions()

    def position_of(i, positions, shape, strides, offset, index):
        to_index(i, shape, index)
        return positions[offset + index_to_position(index, strides)]

    return cuda.jit(device=True)(position_of)


def cuda_count_targets() -> Callable:
    """The body of the first step: $counts[positions_i] \\mathrel{+}= 1$."""
    position_of = position_function()

    def _count(counts, positions, shape, strides, offset, size):
        i = cuda.grid(1)
        if i < size:
            index = cuda.local.array(MAX_DIMS, numba.int64)[: len(shape)]
            cuda.atomic.add(counts, position_of(i, positions, shape, strides, offset, index), 1)

    return _count


def cuda_group_ends() -> Callable:
    """The body of the second step, one thread: $ends_p = \\sum_{q \\le p} counts_q$."""

    def _ends(counts, ends):
        if cuda.grid(1) == 0:
            total = 0
            for p in range(counts.shape[0]):
                total += counts[p]
                ends[p] = total

    return _ends


def cuda_group_ordinals() -> Callable:
    """The body of the third step: ordinal $i$ goes to a free place of its target's group,
    $groups[ends_p - 1] = i$ with $ends_p$ counted down atomically."""
    position_of = position_function()

    def _group(ends, groups, positions, shape, strides, offset, size):
        i = cuda.grid(1)
        if i < size:
            index = cuda.local.array(MAX_DIMS, numba.int64)[: len(shape)]
            p = position_of(i, positions, shape, strides, offset, index)
            groups[cuda.atomic.sub(ends, p, 1) - 1] = i

    return _group


def cuda_fold_groups(fn: Callable) -> Callable:
    """The body of the last step: the thread of target $p$ sorts its group (from $starts_p$,
    $counts_p$ long; a heap sort, in place) and folds $a_p = fn(a_p, values_i)$ over it in
    order."""
    to_index, index_to_position, broadcast_index = index_functions()
    sift = cuda.jit(device=True)(sift_down)
    fn = device_function(fn)

    def _fold(a, counts, starts, groups, shape, values, v_shape, v_strides, v_offset):
        p = cuda.grid(1)
        if p >= counts.shape[0] or counts[p] == 0:
            return
        first, n = starts[p], counts[p]
        for root in range(n // 2 - 1, -1, -1):  # a heap of the group, largest ordinal on top
            sift(groups, first, root, n)
        for end in range(n - 1, 0, -1):  # the top goes to the end, the heap shrinks
            groups[first], groups[first + end] = groups[first + end], groups[first]
            sift(groups, first, 0, end)
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(shape)]
        value_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(v_shape)]
        total = a[p]
        for k in range(first, first + n):
            to_index(groups[k], shape, index)
            broadcast_index(index, shape, v_shape, value_index)
            total = fn(total, values[v_offset + index_to_position(value_index, v_strides)])
        a[p] = total

    return _fold


def sift_down(heap, base, root, n) -> None:
    """Move `heap[base + root]` down the max-heap of the `n` items from `base` to its place."""
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and heap[base + child] < heap[base + child + 1]:
            child += 1
        if heap[base + root] >= heap[base + child]:
            return
        heap[base + root], heap[base + child] = heap[base + child], heap[base + root]
        root = child
