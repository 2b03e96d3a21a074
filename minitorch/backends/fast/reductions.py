"""`FastBackend`'s folds along one dimension: reduce, arg_reduce (max, argmax) and scan (cumsum).

A reduction with few outputs folds segments of each in parallel (`MIN_SEGMENT`),
and one over a dimension that is not the last folds blocks of columns together
(`COLUMN_BLOCK`), so memory is read in order. Accumulators have the type of
`accumulator_start(start, dtype)`: float64 for floating tensors.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import prange

from ..kernel_cache import index_to_position, to_index
from .layout import _chunk_bounds, _line_start, _lines, _numel, _pos

# A reduction with fewer outputs than chunks splits each fold into segments of
# at least this many elements, folded in parallel and then combined in order.
MIN_SEGMENT = 4096
# Most columns folded together when a reduction runs over a dimension that is not the last
# (their float64 totals, 16 KiB, stay in the L1 cache), and rows of `a` added per pass
# over them (fewer loads and stores of the totals than one row per pass).
COLUMN_BLOCK = 2048
ROWS_PER_PASS = 8


def tensor_reduce(fn: Callable) -> Callable:
    """The body of a reduce kernel: fold dimension `dim` of `a` with `fn`, from `start`.

    The accumulator has `start`'s type (float64 for floating tensors), so a
    float32 sum adds in float64 and rounds once. Two loop orders:

    - `dim` is the last dimension that counts: each output folds one run of
      `a` (split into segments folded in parallel when there are few outputs);
    - otherwise a block of columns (the last dimension) is folded together,
      a few rows of `a` at a time, so memory is read in order.
    """

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
            for item in range(begin, end):  # `values_shape` is `a`'s lines' shape
                p = _line_start(item, values_shape, index, a_strides, a_offset)
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


def tensor_scan(fn: Callable) -> Callable:
    """The body of a scan kernel: running folds of `fn` from `start` along `dim`."""

    def _scan(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        dim, start, n_chunks,
    ):  # fmt: skip
        length = a_shape[dim]
        line_shape, lines = _lines(a_shape, dim)
        step, out_step = a_strides[dim], out_strides[dim]
        for chunk in prange(n_chunks):
            index = np.empty(len(a_shape), np.int64)
            begin, end = _chunk_bounds(lines, n_chunks, chunk)
            for line in range(begin, end):
                p = _line_start(line, line_shape, index, a_strides, a_offset)
                o = out_offset + index_to_position(index, out_strides)
                total = start
                for j in range(length):
                    total = fn(total, a[_pos(p + j * step)])
                    out[_pos(o + j * out_step)] = total

    return _scan


def accumulator_start(start, dtype: np.dtype):
    """`start` as the accumulator type: float64 for floating tensors, else int64 when exact."""
    if dtype.kind != "f" and float(start).is_integer():
        return int(start)
    return float(start)
