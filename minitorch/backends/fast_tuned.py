"""Module 3, under the hood: the tuned Numba kernels of `FastBackend` (name `"fast"`), the default.

They compute what the plain kernels of `fast_ops.py` (the exercises) compute,
with the tuning that makes them compete with NumPy:

- **Strides walked by rows.** A kernel computes a tensor index once per run
  along the last dimension and then steps through storage by the strides,
  instead of dividing the ordinal into an index for every element.
- **Fast paths.** When every operand has the output's shape and strides and
  fills its memory without gaps (contiguous, or permuted the same way), the
  kernel is one flat loop that LLVM vectorizes.
- **Chunks.** `prange` runs over `n_chunks` chunks, one per thread, not over
  elements; a reduction with few outputs folds segments of each in parallel
  (`MIN_SEGMENT`), and one over a dimension that is not the last folds blocks
  of columns together (`COLUMN_BLOCK`), so memory is read in order.
- **Matmul.** Operands packed into contiguous tiles (`_pack`), and 4 x 4
  blocks of the output summed in registers (`_tile_4x4`). Small products
  (serial) take `_matmul_rows` instead: no packing, and a body short enough
  to compile in a fraction of the time, so a first small matmul starts fast.
- **Storage positions are unsigned.** Numba wraps negative indices as Python
  does; that check in an inner loop stops LLVM from vectorizing it. Positions
  are never negative, so kernels index storage with `_pos(p)` (an unsigned
  cast) and the check disappears.

Each kernel body is compiled twice (`kernel_cache.compile_kernel`): with
`parallel=True`, and without, for small tensors, where starting threads costs
more than the work (`FastBackend.parallel_threshold`); matmul has a body for
each (`_matmul_rows` serial, `_matmul` parallel). Nothing compiles before a
kernel's first call, for each dtype it is called with, and compiled kernels
are cached on disk.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable

import numba
import numpy as np
from numba import njit, prange
from numba.np.ufunc.parallel import _launch_threads  # starts the threads (no public API)

from .. import operators
from .fast_windows import WindowKernels
from .fused import ADAM_KERNELS, storage_at
from .interface import HostMemory
from .kernel_cache import (
    broadcast_index,
    compile_kernel,
    index_to_position,
    make_jitable,
    to_index,
)
from .tensor_data import TensorData

# Numba's threading layer is its own default (GNU OpenMP here; NUMBA_THREADING_LAYER picks
# another). Idle OpenMP threads spin: on a loaded 2-core machine that cost 4-12 ms per parallel
# kernel. OMP_WAIT_POLICY=PASSIVE makes them sleep, and libgomp reads it once, when Numba loads
# it to start its threads. So minitorch sets it only for that moment (unless the user set it)
# and puts the environment back: no other library loaded later and no child process sees it.
# Parallel launches take a lock: the `workqueue` layer, if chosen, aborts on concurrent ones.
_PARALLEL_LAUNCH = threading.Lock()
_threads_started = False


def _start_threads() -> None:
    """Start Numba's worker threads, sleeping when idle, leaving `os.environ` as it was."""
    global _threads_started
    with _PARALLEL_LAUNCH:
        if "OMP_WAIT_POLICY" in os.environ:
            _launch_threads()
        else:
            os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
            try:
                _launch_threads()
            finally:
                del os.environ["OMP_WAIT_POLICY"]
        _threads_started = True


# A reduction with fewer outputs than chunks splits each fold into segments of
# at least this many elements, folded in parallel and then combined in order.
MIN_SEGMENT = 4096
# Most columns folded together when a reduction runs over a dimension that is not the last
# (their float64 totals, 16 KiB, stay in the L1 cache), and rows of `a` added per pass
# over them (fewer loads and stores of the totals: 8 rows read 2048 x 2048 floats 1.7x faster).
COLUMN_BLOCK = 2048
ROWS_PER_PASS = 8
# Matmul tiles: rows of `a` per work item, `k` per pass, columns of `b` per pass.
# The register-blocked inner kernel computes a 4 x 4 tile of the output.
MATMUL_ROWS = 64
MATMUL_DEPTH = 1024
MATMUL_COLUMNS = 128
TILE = 4
# Packing copies strided operands in square tiles of this size.
PACK_TILE = 16
# Below this depth (the summed dimension) the 4 x 4 tiles' k loops are too short to
# vectorize; rows of b scaled into rows of the output are vectorized instead.
SHALLOW_DEPTH = 16

# ---------------------------------------------------------------------------
# Small helpers shared by the kernels (layouts, chunks, positions)
# ---------------------------------------------------------------------------


@njit(inline="always")
def _pos(position):
    """A storage position as an unsigned integer: Numba then skips negative-index wrapping."""
    return np.uint64(position)


@njit(inline="always")
def _numel(shape) -> int:
    """$\\prod_k s_k$"""
    size = 1
    for k in range(len(shape)):
        size *= shape[k]
    return size


@njit(inline="always")
def _chunk_bounds(total: int, n_chunks: int, chunk: int):
    """The half-open range of `total` work items that chunk `chunk` of `n_chunks` does."""
    return chunk * total // n_chunks, (chunk + 1) * total // n_chunks


@njit(inline="always")
def _is_dense(shape, strides) -> bool:
    """Whether the layout fills `numel` consecutive positions, in some order of its dimensions.

    Walking dimensions from the smallest stride, each stride must equal the
    number of elements the smaller ones span (row-major is the case where that
    order is last-to-first).
    """
    expected = 1
    for _ in range(len(shape)):
        found = False
        for k in range(len(shape)):
            if shape[k] > 1 and strides[k] == expected:
                expected *= shape[k]
                found = True
                break
        if not found:
            break
    return expected == _numel(shape)


@njit(inline="always")
def _same_layout(shape, strides, other_shape, other_strides) -> bool:
    """Same shape, and the same strides wherever a dimension has more than one element."""
    if len(shape) != len(other_shape):
        return False
    for k in range(len(shape)):
        if shape[k] != other_shape[k] or (shape[k] > 1 and strides[k] != other_strides[k]):
            return False
    return True


@njit(inline="always")
def _row_step(out_shape, shape, strides) -> int:
    """The storage step of an operand broadcast to `out_shape` along the output's last dimension."""
    if len(shape) == 0 or len(out_shape) == 0 or shape[len(shape) - 1] == 1:
        return 0
    return strides[len(strides) - 1]


@njit(inline="always")
def _last(index) -> int:
    """The last entry of an index (0 for a 0-dim tensor)."""
    return index[len(index) - 1] if len(index) > 0 else 0


@njit(inline="always")
def _operand_position(out_index, out_shape, shape, strides, offset, index) -> int:
    """Storage position of the operand element that output index `out_index` reads."""
    broadcast_index(out_index, out_shape, shape, index)
    return offset + index_to_position(index, strides)


# ---------------------------------------------------------------------------
# Kernel bodies. Each factory closes over a scalar function and returns a plain
# Python function; `FastBackend` compiles it serial and parallel.
# ---------------------------------------------------------------------------


def tensor_map(fn: Callable) -> Callable:
    """The body of a map kernel: $out_i = fn(a_i)$, `a` broadcast to `out`."""
    fn = make_jitable(fn)

    def _map(out, out_shape, out_strides, out_offset, a, a_shape, a_strides, a_offset, n_chunks):
        size = _numel(out_shape)
        if _is_dense(out_shape, out_strides) and _same_layout(
            out_shape, out_strides, a_shape, a_strides
        ):
            for chunk in prange(n_chunks):
                begin, end = _chunk_bounds(size, n_chunks, chunk)
                for i in range(begin, end):
                    out[_pos(out_offset + i)] = fn(a[_pos(a_offset + i)])
            return
        row = out_shape[len(out_shape) - 1] if len(out_shape) > 0 else 1
        out_step = out_strides[len(out_strides) - 1] if len(out_strides) > 0 else 0
        a_step = _row_step(out_shape, a_shape, a_strides)
        for chunk in prange(n_chunks):
            out_index = np.empty(len(out_shape), np.int64)
            a_index = np.empty(len(a_shape), np.int64)
            ordinal, end = _chunk_bounds(size, n_chunks, chunk)
            while ordinal < end:
                to_index(ordinal, out_shape, out_index)
                o = out_offset + index_to_position(out_index, out_strides)
                p = _operand_position(out_index, out_shape, a_shape, a_strides, a_offset, a_index)
                count = min(row - _last(out_index), end - ordinal)
                for j in range(count):
                    out[_pos(o + j * out_step)] = fn(a[_pos(p + j * a_step)])
                ordinal += count

    return _map


def tensor_zip(fn: Callable) -> Callable:
    """The body of a zip kernel: $out_i = fn(a_i, b_i)$, both broadcast to `out`."""
    fn = make_jitable(fn)

    def _zip(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        b, b_shape, b_strides, b_offset,
        n_chunks,
    ):  # fmt: skip
        size = _numel(out_shape)
        if (
            _is_dense(out_shape, out_strides)
            and _same_layout(out_shape, out_strides, a_shape, a_strides)
            and _same_layout(out_shape, out_strides, b_shape, b_strides)
        ):
            for chunk in prange(n_chunks):
                begin, end = _chunk_bounds(size, n_chunks, chunk)
                for i in range(begin, end):
                    out[_pos(out_offset + i)] = fn(a[_pos(a_offset + i)], b[_pos(b_offset + i)])
            return
        row = out_shape[len(out_shape) - 1] if len(out_shape) > 0 else 1
        out_step = out_strides[len(out_strides) - 1] if len(out_strides) > 0 else 0
        a_step = _row_step(out_shape, a_shape, a_strides)
        b_step = _row_step(out_shape, b_shape, b_strides)
        for chunk in prange(n_chunks):
            out_index = np.empty(len(out_shape), np.int64)
            a_index = np.empty(len(a_shape), np.int64)
            b_index = np.empty(len(b_shape), np.int64)
            ordinal, end = _chunk_bounds(size, n_chunks, chunk)
            while ordinal < end:
                to_index(ordinal, out_shape, out_index)
                o = out_offset + index_to_position(out_index, out_strides)
                p = _operand_position(out_index, out_shape, a_shape, a_strides, a_offset, a_index)
                q = _operand_position(out_index, out_shape, b_shape, b_strides, b_offset, b_index)
                count = min(row - _last(out_index), end - ordinal)
                for j in range(count):
                    out[_pos(o + j * out_step)] = fn(
                        a[_pos(p + j * a_step)], b[_pos(q + j * b_step)]
                    )
                ordinal += count

    return _zip


def tensor_reduce(fn: Callable) -> Callable:
    """The body of a reduce kernel: fold dimension `dim` of `a` with `fn`, from `start`.

    The accumulator has `start`'s type (float64 for floating tensors), so a
    float32 sum adds in float64 and rounds once. Two loop orders:

    - `dim` is the last dimension that counts: each output folds one run of
      `a` (split into segments folded in parallel when there are few outputs);
    - otherwise a block of columns (the last dimension) is folded together,
      a few rows of `a` at a time, so memory is read in order.
    """
    fn = make_jitable(fn)

    def _reduce(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        dim, start, n_chunks,
    ):  # fmt: skip
        ndim = len(a_shape)
        length = a_shape[dim]
        step = a_strides[dim]
        out_size = _numel(out_shape)
        if dim != ndim - 1 and a_shape[ndim - 1] > 1:
            columns = a_shape[ndim - 1]
            out_rows = out_size // columns
            # long blocks stream memory best; split them only to give every chunk work
            block = min(COLUMN_BLOCK, -(-columns // max(1, n_chunks // max(out_rows, 1))))
            column_blocks = -(-columns // block)
            a_column_step = a_strides[ndim - 1]
            out_column_step = out_strides[ndim - 1]
            items = out_rows * column_blocks
            for chunk in prange(n_chunks):
                index = np.empty(ndim, np.int64)
                totals = np.full(block, start)
                begin, end = _chunk_bounds(items, n_chunks, chunk)
                for item in range(begin, end):
                    first_column = (item % column_blocks) * block
                    count = min(block, columns - first_column)
                    to_index((item // column_blocks) * columns + first_column, out_shape, index)
                    p = a_offset + index_to_position(index, a_strides)
                    o = out_offset + index_to_position(index, out_strides)
                    for c in range(count):
                        totals[c] = start
                    whole_passes = length - length % ROWS_PER_PASS
                    for k in range(0, whole_passes, ROWS_PER_PASS):  # several rows per pass
                        row = p + k * step
                        for c in range(count):
                            q = row + c * a_column_step
                            total = totals[c]
                            for r in range(ROWS_PER_PASS):
                                total = fn(total, a[_pos(q + r * step)])
                            totals[c] = total
                    for k in range(whole_passes, length):
                        for c in range(count):
                            totals[c] = fn(totals[c], a[_pos(p + k * step + c * a_column_step)])
                    for c in range(count):
                        out[_pos(o + c * out_column_step)] = totals[c]
            return
        segments = 1
        if out_size < n_chunks:
            segments = max(1, min(n_chunks // max(out_size, 1), length // MIN_SEGMENT))
        segment_length = (length + segments - 1) // segments
        partials = np.full(out_size * segments if segments > 1 else 0, start)
        for chunk in prange(n_chunks):
            index = np.empty(ndim, np.int64)
            begin, end = _chunk_bounds(out_size * segments, n_chunks, chunk)
            for item in range(begin, end):
                segment = item % segments
                to_index(item // segments, out_shape, index)
                first = segment * segment_length
                count = min(segment_length, length - first)
                p = a_offset + index_to_position(index, a_strides) + first * step
                total = start
                skip = 0
                if segment > 0:  # later segments start from their first element
                    total = a[_pos(p)]
                    skip = 1
                for j in range(skip, count):
                    total = fn(total, a[_pos(p + j * step)])
                if segments == 1:
                    out[_pos(out_offset + index_to_position(index, out_strides))] = total
                else:
                    partials[item] = total
        if segments > 1:
            index = np.empty(ndim, np.int64)
            for item in range(out_size):
                to_index(item, out_shape, index)
                total = partials[item * segments]
                for segment in range(1, segments):
                    total = fn(total, partials[item * segments + segment])
                out[_pos(out_offset + index_to_position(index, out_strides))] = total

    return _reduce


def tensor_arg_reduce(better: Callable) -> Callable:
    """The body of an arg-reduce kernel: the first best element along `dim`, and where it is."""
    better = make_jitable(better)

    def _arg_reduce(
        values, values_shape, values_strides, values_offset,
        indices, indices_strides, indices_offset,
        a, a_shape, a_strides, a_offset,
        dim, n_chunks,
    ):  # fmt: skip
        length = a_shape[dim]
        step = a_strides[dim]
        size = _numel(values_shape)
        for chunk in prange(n_chunks):
            index = np.empty(len(values_shape), np.int64)
            begin, end = _chunk_bounds(size, n_chunks, chunk)
            for item in range(begin, end):
                to_index(item, values_shape, index)
                p = a_offset + index_to_position(index, a_strides)
                best = a[_pos(p)]
                best_at = 0
                for j in range(1, length):
                    candidate = a[_pos(p + j * step)]
                    if better(candidate, best):
                        best = candidate
                        best_at = j
                values[_pos(values_offset + index_to_position(index, values_strides))] = best
                indices[_pos(indices_offset + index_to_position(index, indices_strides))] = best_at

    return _arg_reduce


def _where(
    out, out_shape, out_strides, out_offset,
    condition, c_shape, c_strides, c_offset,
    a, a_shape, a_strides, a_offset,
    b, b_shape, b_strides, b_offset,
    n_chunks,
):  # fmt: skip
    """$out_i = a_i$ where $condition_i$ else $b_i$, all three broadcast to `out`."""
    size = _numel(out_shape)
    if (
        _is_dense(out_shape, out_strides)
        and _same_layout(out_shape, out_strides, c_shape, c_strides)
        and _same_layout(out_shape, out_strides, a_shape, a_strides)
        and _same_layout(out_shape, out_strides, b_shape, b_strides)
    ):
        for chunk in prange(n_chunks):
            begin, end = _chunk_bounds(size, n_chunks, chunk)
            for i in range(begin, end):
                x, y = a[_pos(a_offset + i)], b[_pos(b_offset + i)]  # read both: no branch
                out[_pos(out_offset + i)] = x if condition[_pos(c_offset + i)] else y
        return
    row = out_shape[len(out_shape) - 1] if len(out_shape) > 0 else 1
    out_step = out_strides[len(out_strides) - 1] if len(out_strides) > 0 else 0
    c_step = _row_step(out_shape, c_shape, c_strides)
    a_step = _row_step(out_shape, a_shape, a_strides)
    b_step = _row_step(out_shape, b_shape, b_strides)
    for chunk in prange(n_chunks):
        out_index = np.empty(len(out_shape), np.int64)
        c_index = np.empty(len(c_shape), np.int64)
        a_index = np.empty(len(a_shape), np.int64)
        b_index = np.empty(len(b_shape), np.int64)
        ordinal, end = _chunk_bounds(size, n_chunks, chunk)
        while ordinal < end:
            to_index(ordinal, out_shape, out_index)
            o = out_offset + index_to_position(out_index, out_strides)
            r = _operand_position(out_index, out_shape, c_shape, c_strides, c_offset, c_index)
            p = _operand_position(out_index, out_shape, a_shape, a_strides, a_offset, a_index)
            q = _operand_position(out_index, out_shape, b_shape, b_strides, b_offset, b_index)
            count = min(row - _last(out_index), end - ordinal)
            for j in range(count):
                x, y = a[_pos(p + j * a_step)], b[_pos(q + j * b_step)]
                out[_pos(o + j * out_step)] = x if condition[_pos(r + j * c_step)] else y
            ordinal += count


# ---------------------------------------------------------------------------
# Gathering and scattering by storage position (advanced indexing, gather, scatter)
# ---------------------------------------------------------------------------


def _take(
    out, out_shape, out_strides, out_offset,
    a,
    positions, p_shape, p_strides, p_offset,
    n_chunks,
):  # fmt: skip
    """$out_i = a[positions_i]$, `positions` (absolute storage positions) of `out`'s shape."""
    size = _numel(out_shape)
    if _is_dense(out_shape, out_strides) and _same_layout(
        out_shape, out_strides, p_shape, p_strides
    ):
        for chunk in prange(n_chunks):
            begin, end = _chunk_bounds(size, n_chunks, chunk)
            for i in range(begin, end):
                out[_pos(out_offset + i)] = a[_pos(positions[_pos(p_offset + i)])]
        return
    for chunk in prange(n_chunks):
        index = np.empty(len(out_shape), np.int64)
        begin, end = _chunk_bounds(size, n_chunks, chunk)
        for ordinal in range(begin, end):
            to_index(ordinal, out_shape, index)
            position = positions[_pos(p_offset + index_to_position(index, p_strides))]
            out[_pos(out_offset + index_to_position(index, out_strides))] = a[_pos(position)]


def _put(
    a,
    positions, p_shape, p_strides, p_offset,
    values, v_shape, v_strides, v_offset,
    accumulate,
):  # fmt: skip
    """$a[positions_i] = values_i$ (or `+=`), in order, `values` broadcast: always serial,
    so that repeated positions add up exactly and the last write wins."""
    index = np.empty(len(p_shape), np.int64)
    value_index = np.empty(len(v_shape), np.int64)
    for ordinal in range(_numel(p_shape)):
        to_index(ordinal, p_shape, index)
        position = _pos(positions[_pos(p_offset + index_to_position(index, p_strides))])
        value = values[
            _pos(_operand_position(index, p_shape, v_shape, v_strides, v_offset, value_index))
        ]
        if accumulate:
            a[position] += value
        else:
            a[position] = value


def tensor_put_reduce(fn: Callable) -> Callable:
    """The body of a folding put: $a[positions_i] = fn(a[positions_i], values_i)$, in order."""
    fn = make_jitable(fn)

    def _put_reduce(
        a,
        positions, p_shape, p_strides, p_offset,
        values, v_shape, v_strides, v_offset,
    ):  # fmt: skip
        # serial, like `_put`: the values of a repeated position fold in order
        index = np.empty(len(p_shape), np.int64)
        value_index = np.empty(len(v_shape), np.int64)
        for ordinal in range(_numel(p_shape)):
            to_index(ordinal, p_shape, index)
            position = _pos(positions[_pos(p_offset + index_to_position(index, p_strides))])
            value = values[
                _pos(_operand_position(index, p_shape, v_shape, v_strides, v_offset, value_index))
            ]
            a[position] = fn(a[position], value)

    return _put_reduce


# ---------------------------------------------------------------------------
# Matrix multiplication
# ---------------------------------------------------------------------------


@njit(inline="always")
def _row_major_ordinal(index, shape) -> int:
    """The inverse of `to_index`: the row-major ordinal of `index` in `shape`."""
    ordinal = 0
    for k in range(len(shape)):
        ordinal = ordinal * shape[k] + index[k]
    return ordinal


@njit
def _pack(packed, first_row, source, position, count, row_step, depth, k_step):
    """$packed[first\\_row + i, k] = source[position + i \\cdot row\\_step + k \\cdot k\\_step]$.

    For $i <$ `count` and $k <$ `depth`. Rows that are contiguous in `source`
    are copied whole; otherwise the copy goes in `PACK_TILE`-square tiles, so
    that both the reads and the writes stay within a few cache lines (a
    transposed matrix is read down its columns).
    """
    # Element loops, not slice assignments: those compile Numba's shape checks, a third of
    # a cold matmul's compile time.
    if k_step == 1:
        for i in range(count):
            start = position + i * row_step
            for k in range(depth):
                packed[first_row + i, k] = source[_pos(start + k)]
        return
    for i0 in range(0, count, PACK_TILE):
        for k0 in range(0, depth, PACK_TILE):
            for i in range(i0, min(i0 + PACK_TILE, count)):
                row = position + i * row_step
                for k in range(k0, min(k0 + PACK_TILE, depth)):
                    packed[first_row + i, k] = source[_pos(row + k * k_step)]


@njit(fastmath={"reassoc", "contract"}, inline="always")
def _tile_4x4(c, ci, cj, a_pack, ai, b_pack, bj, k0, k1):
    """$c[ci{+}r, cj{+}s] \\mathrel{+}= \\sum_{k_0 \\le k < k_1} A[ai{+}r, k] \\, B^T[bj{+}s, k]$.

    Register blocking: the 16 sums live in registers for the whole `k` loop,
    and each step loads 8 numbers for 16 multiply-adds. LLVM vectorizes the
    `k` loop (16 vector accumulators), which `reassoc` allows. Rows are sliced
    first so that the loop index starts at 0 and needs no wraparound check.
    """
    a0 = a_pack[ai, k0:k1]
    a1 = a_pack[ai + 1, k0:k1]
    a2 = a_pack[ai + 2, k0:k1]
    a3 = a_pack[ai + 3, k0:k1]
    b0 = b_pack[bj, k0:k1]
    b1 = b_pack[bj + 1, k0:k1]
    b2 = b_pack[bj + 2, k0:k1]
    b3 = b_pack[bj + 3, k0:k1]
    c00, c01, c02, c03 = c[ci, cj], c[ci, cj + 1], c[ci, cj + 2], c[ci, cj + 3]
    c10, c11, c12, c13 = c[ci + 1, cj], c[ci + 1, cj + 1], c[ci + 1, cj + 2], c[ci + 1, cj + 3]
    c20, c21, c22, c23 = c[ci + 2, cj], c[ci + 2, cj + 1], c[ci + 2, cj + 2], c[ci + 2, cj + 3]
    c30, c31, c32, c33 = c[ci + 3, cj], c[ci + 3, cj + 1], c[ci + 3, cj + 2], c[ci + 3, cj + 3]
    for k in range(k1 - k0):
        x0, x1, x2, x3 = a0[k], a1[k], a2[k], a3[k]
        y0, y1, y2, y3 = b0[k], b1[k], b2[k], b3[k]
        c00 += x0 * y0
        c01 += x0 * y1
        c02 += x0 * y2
        c03 += x0 * y3
        c10 += x1 * y0
        c11 += x1 * y1
        c12 += x1 * y2
        c13 += x1 * y3
        c20 += x2 * y0
        c21 += x2 * y1
        c22 += x2 * y2
        c23 += x2 * y3
        c30 += x3 * y0
        c31 += x3 * y1
        c32 += x3 * y2
        c33 += x3 * y3
    c[ci, cj], c[ci, cj + 1], c[ci, cj + 2], c[ci, cj + 3] = c00, c01, c02, c03
    c[ci + 1, cj], c[ci + 1, cj + 1], c[ci + 1, cj + 2], c[ci + 1, cj + 3] = c10, c11, c12, c13
    c[ci + 2, cj], c[ci + 2, cj + 1], c[ci + 2, cj + 2], c[ci + 2, cj + 3] = c20, c21, c22, c23
    c[ci + 3, cj], c[ci + 3, cj + 1], c[ci + 3, cj + 2], c[ci + 3, cj + 3] = c30, c31, c32, c33


def _matmul_rows(
    out, out_shape, out_strides, out_offset,
    a, a_shape, a_strides, a_offset,
    b, b_shape, b_strides, b_offset,
):  # fmt: skip
    """$out[\\ldots, i, j] = \\sum_k a[\\ldots, i, k] \\, b[\\ldots, k, j]$, a row at a time.

    For small products. No packing, no tiles: for each row $i$, each $a_{ik}$ scales row $k$ of `b`
    into a row of sums `c` (the `j` loop, which LLVM vectorizes when the rows of `b`
    are contiguous), then `c` is written into row $i$ of `out`. A short function
    compiles fast, so a process's first small matmul does not wait for `_matmul`.
    """
    ndim = len(out_shape)
    rows, columns, depth = out_shape[ndim - 2], out_shape[ndim - 1], a_shape[ndim - 1]
    batch_shape = out_shape[: ndim - 2]
    a_row, a_step = a_strides[ndim - 2], a_strides[ndim - 1]
    b_row, b_step = b_strides[ndim - 2], b_strides[ndim - 1]
    out_row, out_step = out_strides[ndim - 2], out_strides[ndim - 1]
    out_index = np.empty(ndim - 2, np.int64)
    a_index = np.empty(ndim - 2, np.int64)
    b_index = np.empty(ndim - 2, np.int64)
    c = np.empty(columns, out.dtype)
    for batch in range(_numel(batch_shape)):
        to_index(batch, batch_shape, out_index)
        broadcast_index(out_index, batch_shape, a_shape[: ndim - 2], a_index)
        broadcast_index(out_index, batch_shape, b_shape[: ndim - 2], b_index)
        o = out_offset + index_to_position(out_index, out_strides[: ndim - 2])
        p = a_offset + index_to_position(a_index, a_strides[: ndim - 2])
        q = b_offset + index_to_position(b_index, b_strides[: ndim - 2])
        for i in range(rows):
            for j in range(columns):
                c[j] = 0
            for k in range(depth):
                x = a[_pos(p + i * a_row + k * a_step)]
                first = q + k * b_row
                for j in range(columns):
                    c[j] += x * b[_pos(first + j * b_step)]
            for j in range(columns):
                out[_pos(o + i * out_row + j * out_step)] = c[j]


def _matmul(
    out, out_shape, out_strides, out_offset,
    a, a_shape, a_strides, a_offset,
    b, b_shape, b_strides, b_offset,
):  # fmt: skip
    """$out[\\ldots, i, j] = \\sum_k a[\\ldots, i, k] \\, b[\\ldots, k, j]$, batch dims broadcast.

    1. Pack each batch of `b` transposed into rows of `k` (`b_pack`), padded
       with zeros to a multiple of 4 columns (`_pack`): whatever the strides of
       `b` (transposed, sliced, expanded), the inner kernel reads contiguous rows.
    2. Each work item takes one batch and `MATMUL_ROWS` rows of `a`, packs
       them the same way, and sums 4 x 4 output tiles (`_tile_4x4`) over
       `MATMUL_DEPTH` values of `k` at a time into a local block `c`, in
       column blocks of `MATMUL_COLUMNS` so that the `b` rows it reuses stay
       in cache. Below `SHALLOW_DEPTH`, `b` is packed untransposed and each
       $a_{ik}$ scales row $k$ of `b` into row $i$ of `c` instead.
    3. The block is written into `out` through its strides.
    """
    ndim = len(out_shape)
    rows = out_shape[ndim - 2]
    columns = out_shape[ndim - 1]
    depth = a_shape[ndim - 1]
    if rows == 0 or columns == 0:
        return
    padded_columns = (columns + TILE - 1) // TILE * TILE
    batch_shape = out_shape[: ndim - 2]
    a_batch_shape = a_shape[: ndim - 2]
    b_batch_shape = b_shape[: ndim - 2]
    batches = _numel(batch_shape)
    b_batches = _numel(b_batch_shape)

    shallow = depth < SHALLOW_DEPTH
    if shallow:  # b as it is, rows of columns (a few rows per batch: not worth threads)
        b_pack = np.zeros((b_batches * depth, padded_columns), b.dtype)
        batch_index = np.empty(ndim - 2, np.int64)
        for b_batch in range(b_batches):
            to_index(b_batch, b_batch_shape, batch_index)
            p = b_offset + index_to_position(batch_index, b_strides[: ndim - 2])
            row_step, column_step = b_strides[ndim - 2], b_strides[ndim - 1]
            _pack(b_pack, b_batch * depth, b, p, depth, row_step, columns, column_step)
    else:  # b transposed: rows of k, in groups of columns
        b_pack = np.zeros((b_batches * padded_columns, depth), b.dtype)
        column_groups = (columns + PACK_TILE - 1) // PACK_TILE
        for item in prange(b_batches * column_groups):
            batch_index = np.empty(ndim - 2, np.int64)
            b_batch = item // column_groups
            to_index(b_batch, b_batch_shape, batch_index)
            first_column = (item % column_groups) * PACK_TILE
            p = b_offset + index_to_position(batch_index, b_strides[: ndim - 2])
            p += first_column * b_strides[ndim - 1]
            count = min(PACK_TILE, columns - first_column)
            first_packed = b_batch * padded_columns + first_column
            row_step, column_step = b_strides[ndim - 2], b_strides[ndim - 1]
            _pack(b_pack, first_packed, b, p, count, column_step, depth, row_step)

    row_blocks = (rows + MATMUL_ROWS - 1) // MATMUL_ROWS
    for item in prange(batches * row_blocks):
        batch = item // row_blocks
        first_row = (item % row_blocks) * MATMUL_ROWS
        block_rows = min(MATMUL_ROWS, rows - first_row)
        padded_rows = (block_rows + TILE - 1) // TILE * TILE
        out_index = np.empty(ndim - 2, np.int64)
        a_index = np.empty(ndim - 2, np.int64)
        b_index = np.empty(ndim - 2, np.int64)
        to_index(batch, batch_shape, out_index)
        broadcast_index(out_index, batch_shape, a_batch_shape, a_index)
        broadcast_index(out_index, batch_shape, b_batch_shape, b_index)
        b_batch = _row_major_ordinal(b_index, b_batch_shape)

        a_pack = np.zeros((padded_rows, depth), a.dtype)
        p = a_offset + index_to_position(a_index, a_strides[: ndim - 2])
        p += first_row * a_strides[ndim - 2]
        _pack(a_pack, 0, a, p, block_rows, a_strides[ndim - 2], depth, a_strides[ndim - 1])

        c = np.zeros((padded_rows, padded_columns), out.dtype)
        if shallow:  # a few rows of b, each scaled into a whole row of c (vectorized over j)
            for i in range(block_rows):
                c_row = c[i]
                for k in range(depth):
                    x = a_pack[i, k]
                    b_row = b_pack[b_batch * depth + k]
                    for j in range(padded_columns):
                        c_row[j] += x * b_row[j]
        else:
            b_first = b_batch * padded_columns
            for k0 in range(0, depth, MATMUL_DEPTH):
                k1 = min(k0 + MATMUL_DEPTH, depth)
                for j0 in range(0, padded_columns, MATMUL_COLUMNS):
                    j1 = min(j0 + MATMUL_COLUMNS, padded_columns)
                    for i in range(0, padded_rows, TILE):
                        for j in range(j0, j1, TILE):
                            _tile_4x4(c, i, j, a_pack, i, b_pack, b_first + j, k0, k1)

        o = out_offset + index_to_position(out_index, out_strides[: ndim - 2])
        o += first_row * out_strides[ndim - 2]
        for i in range(block_rows):
            for j in range(columns):
                out[_pos(o + i * out_strides[ndim - 2] + j * out_strides[ndim - 1])] = c[i, j]


# ---------------------------------------------------------------------------
# Scans and sorting along one dimension (one line of `a` per work item)
# ---------------------------------------------------------------------------


@njit(inline="always")
def _line_shape(shape, dim):
    """`shape` with size 1 in `dim`: its indices are the first elements of the lines along `dim`."""
    lines = shape.copy()
    lines[dim] = 1
    return lines


def tensor_scan(fn: Callable) -> Callable:
    """The body of a scan kernel: running folds of `fn` from `start` along `dim`."""
    fn = make_jitable(fn)

    def _scan(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        dim, start, n_chunks,
    ):  # fmt: skip
        length = a_shape[dim]
        line_shape = _line_shape(a_shape, dim)
        lines = _numel(line_shape) if length > 0 else 0
        step, out_step = a_strides[dim], out_strides[dim]
        for chunk in prange(n_chunks):
            index = np.empty(len(a_shape), np.int64)
            begin, end = _chunk_bounds(lines, n_chunks, chunk)
            for line in range(begin, end):
                to_index(line, line_shape, index)
                p = a_offset + index_to_position(index, a_strides)
                o = out_offset + index_to_position(index, out_strides)
                total = start
                for j in range(length):
                    total = fn(total, a[_pos(p + j * step)])
                    out[_pos(o + j * out_step)] = total

    return _scan


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
    line_shape = _line_shape(a_shape, dim)
    lines = _numel(line_shape) if length > 0 else 0
    step = a_strides[dim]
    for chunk in prange(n_chunks):
        index = np.empty(len(a_shape), np.int64)
        keys = np.empty(length, a.dtype)
        order = np.empty(length, np.int64)
        spare = np.empty(length, np.int64)
        begin, end = _chunk_bounds(lines, n_chunks, chunk)
        for line in range(begin, end):
            to_index(line, line_shape, index)
            p = a_offset + index_to_position(index, a_strides)
            for j in range(length):
                keys[j] = a[_pos(p + j * step)]
                order[j] = j
            _merge_sort(keys, order, spare, descending)
            v = values_offset + index_to_position(index, values_strides)
            i = indices_offset + index_to_position(index, indices_strides)
            for j in range(length):
                values[_pos(v + j * values_strides[dim])] = keys[order[j]]
                indices[_pos(i + j * indices_strides[dim])] = order[j]


def _scatter_along(
    out, out_strides, out_offset,
    source, source_shape, source_strides, source_offset,
    index, index_strides, index_offset,
    dim, n_chunks,
):  # fmt: skip
    """$out[i|index[i|j]] = source[i|j]$ for each line $i$ of `source` along `dim`."""
    length = source_shape[dim]
    line_shape = _line_shape(source_shape, dim)
    lines = _numel(line_shape) if length > 0 else 0
    for chunk in prange(n_chunks):
        at = np.empty(len(source_shape), np.int64)
        begin, end = _chunk_bounds(lines, n_chunks, chunk)
        for line in range(begin, end):
            to_index(line, line_shape, at)
            s = source_offset + index_to_position(at, source_strides)
            i = index_offset + index_to_position(at, index_strides)
            o = out_offset + index_to_position(at, out_strides)
            for j in range(length):
                value = source[_pos(s + j * source_strides[dim])]
                out[_pos(o + index[_pos(i + j * index_strides[dim])] * out_strides[dim])] = value


# ---------------------------------------------------------------------------
# The backend
# ---------------------------------------------------------------------------


class FastBackend(HostMemory, WindowKernels):
    """Numba-compiled kernels with the interface of `tensor_ops.SimpleBackend`: the tuned ones,
    plus one-pass convolution and max pooling (`fast_windows.py`).

    Below `parallel_threshold` elements (`matmul_parallel_threshold`
    multiply-adds for matmul) the serial version of a kernel runs, above it
    the parallel one. Matmul has two bodies: `_matmul_rows` (short, quick to
    compile) for small products, serial, and the packed and tiled `_matmul`
    for the others, parallel. Measured on 2 cores: an add of 1M float32 takes 80 us
    either way, 4M take 600 us serially and 280-650 us in parallel, depending
    on what else the machine runs.
    """

    name = "fast"
    parallel_threshold = 1 << 20
    matmul_parallel_threshold = 1 << 20
    # The matmul bodies: `matmul_serial_body` below `matmul_parallel_threshold` (compiled
    # serial), `matmul_body` above it (compiled parallel), and their fastmath flags (`reassoc`
    # lets LLVM vectorize the 4 x 4 tiles' sums). `fast_ops.StudentBackend` plugs in its own.
    matmul_serial_body = staticmethod(_matmul_rows)
    matmul_body = staticmethod(_matmul)
    matmul_fastmath: tuple = ("reassoc", "contract")

    def __init__(self):
        # (factory, scalar function) -> (serial kernel, parallel kernel)
        self._kernels: dict = {}
        self._where_kernels = (
            compile_kernel(_where, None, False),
            compile_kernel(_where, None, True),
        )
        self._take_kernels = (compile_kernel(_take, None, False), compile_kernel(_take, None, True))
        self._put_kernel = compile_kernel(_put, None, False)
        fastmath = set(self.matmul_fastmath) or False
        self._matmul_kernels = (
            compile_kernel(self.matmul_serial_body, None, False, fastmath),
            compile_kernel(self.matmul_body, None, True, fastmath),
        )
        self._sort_kernels = (compile_kernel(_sort, None, False), compile_kernel(_sort, None, True))
        self._scatter_kernels = (
            compile_kernel(_scatter_along, None, False),
            compile_kernel(_scatter_along, None, True),
        )

    def kernels(self, factory: Callable, fn: Callable):
        """The serial and parallel kernels that `factory` builds around `fn` (made once)."""
        pair = self._kernels.get((factory, fn))
        if pair is None:
            body = factory(fn)
            fastmath = {"reassoc"} if factory is tensor_reduce else False
            pair = (
                compile_kernel(body, fn, parallel=False, fastmath=fastmath),
                compile_kernel(body, fn, parallel=True, fastmath=fastmath),
            )
            self._kernels[(factory, fn)] = pair
        return pair

    def choose(self, pair, work: int, threshold: int):
        """The serial kernel (one chunk) below `threshold` units of work, else the parallel one.

        The parallel one with one chunk per thread, and run by one Python thread at a time.
        """
        if work < threshold:
            return pair[0], 1
        if not _threads_started:
            _start_threads()
        return _one_at_a_time(pair[1]), numba.get_num_threads()

    def map(self, fn: Callable, out: TensorData, a: TensorData) -> None:
        """$out[i] = fn(a[i])$ for every index $i$ of `out`, with `a` broadcast."""
        if fn in VECTOR_MATH and _vector_math(self, fn, out, a):
            return
        pair = self._kernels.get((tensor_map, fn)) or self.kernels(tensor_map, fn)
        kernel, n_chunks = self.choose(pair, math.prod(out.shape), self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            n_chunks,
        )  # fmt: skip

    def zip(self, fn: Callable, out: TensorData, a: TensorData, b: TensorData) -> None:
        """$out[i] = fn(a[i], b[i])$ for every index $i$ of `out`, with `a` and `b` broadcast."""
        pair = self._kernels.get((tensor_zip, fn)) or self.kernels(tensor_zip, fn)
        kernel, n_chunks = self.choose(pair, math.prod(out.shape), self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            b.storage, b.shape_array, b.strides_array, b.offset,
            n_chunks,
        )  # fmt: skip

    def reduce(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Fold dimension `dim` of `a` with `fn` from `start` into `out` (size 1 in `dim`)."""
        pair = self._kernels.get((tensor_reduce, fn)) or self.kernels(tensor_reduce, fn)
        kernel, n_chunks = self.choose(pair, math.prod(a.shape), self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            dim, accumulator_start(start, a.storage.dtype), n_chunks,
        )  # fmt: skip

    def arg_reduce(
        self, better: Callable, values: TensorData, indices: TensorData, a: TensorData, dim: int
    ) -> None:
        """The first element along `dim` that no later one is `better` than, and its position."""
        pair = self._kernels.get((tensor_arg_reduce, better)) or self.kernels(
            tensor_arg_reduce, better
        )
        kernel, n_chunks = self.choose(pair, math.prod(a.shape), self.parallel_threshold)
        kernel(
            values.storage, values.shape_array, values.strides_array, values.offset,
            indices.storage, indices.strides_array, indices.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            dim, n_chunks,
        )  # fmt: skip

    def where(self, out: TensorData, condition: TensorData, a: TensorData, b: TensorData) -> None:
        """$out[i] = a[i]$ where $condition[i]$ is true, else $b[i]$ (all broadcast)."""
        work = math.prod(out.shape)
        kernel, n_chunks = self.choose(self._where_kernels, work, self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            condition.storage, condition.shape_array, condition.strides_array, condition.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            b.storage, b.shape_array, b.strides_array, b.offset,
            n_chunks,
        )  # fmt: skip

    def matmul(self, out: TensorData, a: TensorData, b: TensorData) -> None:
        """$out[\\ldots, i, j] = \\sum_k a[\\ldots, i, k] b[\\ldots, k, j]$, batches broadcast."""
        work = math.prod(out.shape) * a.shape[-1]
        kernel, _ = self.choose(self._matmul_kernels, work, self.matmul_parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            b.storage, b.shape_array, b.strides_array, b.offset,
        )  # fmt: skip

    # -- scans and sorting along one dimension ------------------------------

    def scan(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Running folds of `fn` from `start` along `dim` (cumsum, cumprod)."""
        pair = self._kernels.get((tensor_scan, fn)) or self.kernels(tensor_scan, fn)
        kernel, n_chunks = self.choose(pair, math.prod(a.shape), self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            dim, accumulator_start(start, a.storage.dtype), n_chunks,
        )  # fmt: skip

    def sort(
        self, values: TensorData, indices: TensorData, a: TensorData, dim: int, descending: bool
    ) -> None:
        """Each line along `dim` sorted stably (NaN largest), and the positions it came from."""
        kernel, n_chunks = self.choose(
            self._sort_kernels, math.prod(a.shape), self.parallel_threshold
        )
        kernel(
            values.storage, values.strides_array, values.offset,
            indices.storage, indices.strides_array, indices.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            dim, descending, n_chunks,
        )  # fmt: skip

    def scatter_along(
        self, out: TensorData, source: TensorData, index: TensorData, dim: int
    ) -> None:
        """$out[i|index[i|j]] = source[i|j]$ along `dim` (positions distinct within a line)."""
        kernel, n_chunks = self.choose(
            self._scatter_kernels, math.prod(source.shape), self.parallel_threshold
        )
        kernel(
            out.storage, out.strides_array, out.offset,
            source.storage, source.shape_array, source.strides_array, source.offset,
            index.storage, index.strides_array, index.offset,
            dim, n_chunks,
        )  # fmt: skip

    def take(self, out: TensorData, a: TensorData, positions: TensorData) -> None:
        """$out_i = a.storage[positions_i]$ for every index $i$ of `out`."""
        kernel, n_chunks = self.choose(self._take_kernels, out.numel(), self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage,
            positions.storage, positions.shape_array, positions.strides_array, positions.offset,
            n_chunks,
        )  # fmt: skip

    def put(
        self, a: TensorData, positions: TensorData, values: TensorData, accumulate: bool
    ) -> None:
        """$a.storage[positions_i] = values_i$ (or `+=`), `values` broadcast, in order."""
        self._put_kernel(
            a.storage,
            positions.storage, positions.shape_array, positions.strides_array, positions.offset,
            values.storage, values.shape_array, values.strides_array, values.offset,
            accumulate,
        )  # fmt: skip

    def adam(
        self,
        param: TensorData,
        grad: TensorData,
        exp_avg: TensorData,
        exp_avg_sq: TensorData,
        max_exp_avg_sq: TensorData,
        settings: np.ndarray,
    ) -> None:
        """One Adam step of each element of the five contiguous layouts (`fused.py`)."""
        size = param.numel()
        kernel, n_chunks = self.choose(ADAM_KERNELS, size, self.parallel_threshold)
        layouts = (param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq)
        kernel(*(x for layout in layouts for x in storage_at(layout)), size, settings, n_chunks)

    def put_reduce(
        self, fn: Callable, a: TensorData, positions: TensorData, values: TensorData
    ) -> None:
        """$a.storage[positions_i] = fn(a.storage[positions_i], values_i)$, in order (serial)."""
        serial, _ = self._kernels.get((tensor_put_reduce, fn)) or self.kernels(
            tensor_put_reduce, fn
        )
        serial(
            a.storage,
            positions.storage, positions.shape_array, positions.strides_array, positions.offset,
            values.storage, values.shape_array, values.strides_array, values.offset,
        )  # fmt: skip


# ---------------------------------------------------------------------------
# Vectorized transcendental math
# ---------------------------------------------------------------------------

# Numba calls libm's scalar `exp`, `log`, `tanh` (this llvmlite has no SVML); NumPy's loops
# are SIMD. Measured on 4M float32: NumPy's exp 4.8x faster than the compiled scalar loop,
# log 6x, tanh 24x. Below `VECTOR_MATH_MIN` elements the kernel is as fast.
VECTOR_MATH_MIN = 4096


def _sigmoid_from_exp(x: float, e: float) -> float:
    """$\\sigma(x)$ from $e = e^{-|x|}$: $1/(1+e)$ for $x \\ge 0$, $e/(1+e)$ below."""
    return (1.0 if x >= 0.0 else e) / (1.0 + e)


def _vector_math(backend: FastBackend, fn: Callable, out: TensorData, a: TensorData) -> bool:
    """Run `fn` with NumPy's SIMD loops when `out` and `a` are contiguous float arrays alike.

    Returns whether it did; otherwise the map kernel runs. NaN stays NaN, overflow gives
    $\\pm\\infty$, $\\ln 0 = -\\infty$ and $\\ln x$ is NaN below 0, as `operators` says
    and PyTorch does; NumPy's warnings about them are silenced.
    """
    dtype = out.storage.dtype
    if (
        a.storage.dtype != dtype
        or dtype not in (np.float32, np.float64)
        or a.shape != out.shape
        or a.strides != out.strides
        or not out.is_contiguous()
    ):
        return False
    size = out.numel()
    if size < VECTOR_MATH_MIN:
        return False
    x = a.storage[a.offset : a.offset + size]
    y = out.storage[out.offset : out.offset + size]
    with np.errstate(all="ignore"):
        if fn is operators.sigmoid:
            np.negative(np.abs(x, out=y), out=y)
            np.exp(y, out=y)
            backend.zip(_sigmoid_from_exp, out, a, out)  # reads e from out, in order
        else:
            VECTOR_MATH[fn](x, out=y)
    return True


VECTOR_MATH = {
    operators.exp: np.exp,
    operators.log: np.log,
    operators.tanh: np.tanh,
    operators.sigmoid: None,  # exp, then `_sigmoid_from_exp`
}


def _one_at_a_time(kernel: Callable) -> Callable:
    """`kernel`, called while holding the lock of parallel launches."""

    def launch(*args) -> None:
        with _PARALLEL_LAUNCH:
            kernel(*args)

    return launch


def accumulator_start(start, dtype: np.dtype):
    """`start` as the accumulator type: float64 for floating tensors, else int64 when exact."""
    if dtype.kind != "f" and float(start).is_integer():
        return int(start)
    return float(start)
