"""The GPU's folding put, $a.storage[positions_i] = fn(a.storage[positions_i], values_i)$ in
the order of $i$, exactly as the CPU backend's serial loop, for any fold `fn`.

Threads that fold into one position must take their turns in order, so the ordinals $i$ are
first sorted by their target position, stably (`sorting.py`'s merge rounds, keys the targets,
`cuda_target_keys`): each target's ordinals then stand together, in order. A thread per
sorted place that starts a target's run folds that run's values into the target
(`cuda_fold_runs`). The work depends on the number of positions, not on the storage's size.
"""

from __future__ import annotations

from collections.abc import Callable

import numba

from .compiler import MAX_DIMS, device_function, index_functions
from .driver import cuda


def cuda_target_keys() -> Callable:
    """The body of the first step: $keys_i = positions_i$, $order_i = i$, the keys to sort."""
    to_index, index_to_position, _ = index_functions()

    def _keys(keys, order, positions, shape, strides, offset, size):
        i = cuda.grid(1)
        if i < size:
            index = cuda.local.array(MAX_DIMS, numba.int64)[: len(shape)]
            to_index(i, shape, index)
            keys[i] = positions[offset + index_to_position(index, strides)]
            order[i] = i

    return _keys


def cuda_fold_runs(fn: Callable) -> Callable:
    """The body of the last step: the thread of sorted place $k$ where a target's run begins
    folds $a_p = fn(a_p, values_i)$ over the run's ordinals $i$, in order (`keys` sorted, the
    ordinals of equal keys in `order` in their first order)."""
    to_index, index_to_position, broadcast_index = index_functions()
    fn = device_function(fn)

    def _fold(a, keys, order, size, shape, values, v_shape, v_strides, v_offset):
        k = cuda.grid(1)
        if k >= size or (k > 0 and keys[k - 1] == keys[k]):
            return
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(shape)]
        value_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(v_shape)]
        target = keys[k]
        total = a[target]
        while k < size and keys[k] == target:
            to_index(order[k], shape, index)
            broadcast_index(index, shape, v_shape, value_index)
            total = fn(total, values[v_offset + index_to_position(value_index, v_strides)])
            k += 1
        a[target] = total

    return _fold
