"""The GPU's work along lines: the reduce of lines contiguous in memory with warp shuffles,
and what keeps an order (arg_reduce and scan), one thread per line; sort is `sorting.py`.

The reduce kernel of the exercises (`cuda_ops.cuda_reduce`) folds a line in a block through a
tree in shared memory, whatever the line's stride. A line of stride 1 (the last dim of a
contiguous tensor: a softmax's sum, a loss's mean) reads faster with neighbouring threads on
neighbouring elements and folds faster in registers: `cuda_reduce_shuffled` gives each line
`lanes` threads (a power of two, at least a warp) that fold it in steps of `lanes` and then
combine their partials with `shfl_down_sync`, five steps within each warp, plus one round
through shared memory when a line has more than one warp.
"""

from __future__ import annotations

from collections.abc import Callable

import numba

from .compiler import MAX_DIMS, device_function, index_functions, thread_index_function
from .driver import cuda

WARP = 32
ALL_LANES = 0xFFFFFFFF


def warp_fold_function(fn: Callable) -> Callable:
    """`warp_fold(value)` as a device function: the fold with `fn` of the 32 values of a warp's
    lanes, in lane 0 ($v_l = fn(v_l, v_{l + \\delta})$ for $\\delta = 16, 8, 4, 2, 1$). Every
    lane of the warp calls it."""
    fn = device_function(fn)

    def warp_fold(value):
        delta = WARP // 2
        while delta > 0:
            value = fn(value, cuda.shfl_down_sync(ALL_LANES, value, delta))
            delta //= 2
        return value

    return cuda.jit(device=True)(warp_fold)


def cuda_reduce_shuffled(fn: Callable, block: int, lanes: int, accumulator) -> Callable:
    """The body of the reduce kernel of lines of stride 1: `lanes` threads per output element
    (a power of two, $32 \\le lanes \\le block$), $block / lanes$ of them per block.

    Lane $l$ of a line folds its elements $j = l, l + lanes, \\ldots$ from `start` in
    `accumulator` (float64 for floating tensors), each warp folds its lanes with shuffles,
    and a line of several warps folds their partials, put in shared memory, once more. Every
    thread runs every shuffle and `syncthreads` (a thread without a line folds `start`), so
    each warp stays whole.
    """
    to_index, index_to_position, _ = index_functions()
    fn, warp_fold = device_function(fn), warp_fold_function(fn)
    warps = lanes // WARP  # per line
    per_block = block // lanes  # lines
    block_warps = block // WARP

    def _reduce_shuffled(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        dim, start, lines,
    ):  # fmt: skip
        thread = cuda.threadIdx.x
        lane = thread % lanes
        line = cuda.blockIdx.x * per_block + thread // lanes
        index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        total = start
        if line < lines:
            to_index(line, out_shape, index)
            first = a_offset + index_to_position(index, a_strides)
            for j in range(lane, a_shape[dim], lanes):
                total = fn(total, a[first + j])
        total = warp_fold(total)
        if warps > 1:
            partial = cuda.shared.array(block_warps, accumulator)
            if thread % WARP == 0:
                partial[thread // WARP] = total
            cuda.syncthreads()
            # every warp of the line folds the line's partials; the first one's lane 0 writes
            own = thread % WARP
            total = partial[thread // lanes * warps + own] if own < warps else start
            total = warp_fold(total)
        if lane == 0 and line < lines:
            out[out_offset + index_to_position(index, out_strides)] = total

    return _reduce_shuffled


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
