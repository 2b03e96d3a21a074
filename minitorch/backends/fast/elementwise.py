"""`FastBackend`'s elementwise kernels: map, zip and where, each output element from its inputs'.

- **Strides walked by rows.** A kernel computes a tensor index once per run
  along the last dimension and then steps through storage by the strides,
  rather than dividing the ordinal into an index for every element.
- **Fast paths.** When every operand has the output's shape and strides and
  fills its memory without gaps (contiguous, or permuted the same way), the
  kernel is one flat loop that LLVM vectorizes. When the backend already knows
  that every operand is row-major with the output's shape, it runs the flat
  kernels (`flat_map`, `flat_zip`): the same loop, called with a storage and an
  offset per operand instead of a storage, shape, strides and offset. Numba types
  every argument of every call, so a small tensor's add costs less with 8 than with 13.
- **Chunks.** `prange` runs over `n_chunks` chunks, one per thread, not over elements.

The factories close over a scalar function and return a plain Python function,
which `FastBackend.kernels` compiles serial and parallel (`kernel_cache.compile_kernel`),
the scalar function made compilable there (`kernel_cache.make_jitable`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import prange

from .layout import (
    _chunk_bounds,
    _dense_like,
    _numel,
    _operand_position,
    _pos,
    _row_step,
    _rows,
    _run,
    _same_layout,
)

# ---------------------------------------------------------------------------


def tensor_map(fn: Callable) -> Callable:
    """The body of a map kernel: $out_i = fn(a_i)$, `a` broadcast to `out`."""

    def _map(out, out_shape, out_strides, out_offset, a, a_shape, a_strides, a_offset, n_chunks):
        size = _numel(out_shape)
        if _dense_like(out_shape, out_strides, a_shape, a_strides):
            for chunk in prange(n_chunks):
                begin, end = _chunk_bounds(size, n_chunks, chunk)
                for i in range(begin, end):
                    out[_pos(out_offset + i)] = fn(a[_pos(a_offset + i)])
            return
        row, out_step = _rows(out_shape, out_strides)
        a_step = _row_step(out_shape, a_shape, a_strides)
        for chunk in prange(n_chunks):
            out_index = np.empty(len(out_shape), np.int64)
            a_index = np.empty(len(a_shape), np.int64)
            ordinal, end = _chunk_bounds(size, n_chunks, chunk)
            while ordinal < end:
                o, count = _run(ordinal, end, row, out_shape, out_strides, out_offset, out_index)
                p = _operand_position(out_index, out_shape, a_shape, a_strides, a_offset, a_index)
                for j in range(count):
                    out[_pos(o + j * out_step)] = fn(a[_pos(p + j * a_step)])
                ordinal += count

    return _map


def tensor_zip(fn: Callable) -> Callable:
    """The body of a zip kernel: $out_i = fn(a_i, b_i)$, both broadcast to `out`."""

    def _zip(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        b, b_shape, b_strides, b_offset,
        n_chunks,
    ):  # fmt: skip
        size = _numel(out_shape)
        if _dense_like(out_shape, out_strides, a_shape, a_strides) and _same_layout(
            out_shape, out_strides, b_shape, b_strides
        ):
            for chunk in prange(n_chunks):
                begin, end = _chunk_bounds(size, n_chunks, chunk)
                for i in range(begin, end):
                    out[_pos(out_offset + i)] = fn(a[_pos(a_offset + i)], b[_pos(b_offset + i)])
            return
        row, out_step = _rows(out_shape, out_strides)
        a_step = _row_step(out_shape, a_shape, a_strides)
        b_step = _row_step(out_shape, b_shape, b_strides)
        for chunk in prange(n_chunks):
            out_index = np.empty(len(out_shape), np.int64)
            a_index = np.empty(len(a_shape), np.int64)
            b_index = np.empty(len(b_shape), np.int64)
            ordinal, end = _chunk_bounds(size, n_chunks, chunk)
            while ordinal < end:
                o, count = _run(ordinal, end, row, out_shape, out_strides, out_offset, out_index)
                p = _operand_position(out_index, out_shape, a_shape, a_strides, a_offset, a_index)
                q = _operand_position(out_index, out_shape, b_shape, b_strides, b_offset, b_index)
                for j in range(count):
                    out[_pos(o + j * out_step)] = fn(
                        a[_pos(p + j * a_step)], b[_pos(q + j * b_step)]
                    )
                ordinal += count

    return _zip


def flat_map(fn: Callable) -> Callable:
    """The body of a map kernel over row-major operands of one shape: $out_i = fn(a_i)$."""

    def _flat_map(out, out_offset, a, a_offset, size, n_chunks):
        for chunk in prange(n_chunks):
            begin, end = _chunk_bounds(size, n_chunks, chunk)
            for i in range(begin, end):
                out[_pos(out_offset + i)] = fn(a[_pos(a_offset + i)])

    return _flat_map


def flat_zip(fn: Callable) -> Callable:
    """The body of a zip kernel over row-major operands of one shape: $out_i = fn(a_i, b_i)$."""

    def _flat_zip(out, out_offset, a, a_offset, b, b_offset, size, n_chunks):
        for chunk in prange(n_chunks):
            begin, end = _chunk_bounds(size, n_chunks, chunk)
            for i in range(begin, end):
                out[_pos(out_offset + i)] = fn(a[_pos(a_offset + i)], b[_pos(b_offset + i)])

    return _flat_zip


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
        _dense_like(out_shape, out_strides, c_shape, c_strides)
        and _same_layout(out_shape, out_strides, a_shape, a_strides)
        and _same_layout(out_shape, out_strides, b_shape, b_strides)
    ):
        for chunk in prange(n_chunks):
            begin, end = _chunk_bounds(size, n_chunks, chunk)
            for i in range(begin, end):
                x, y = a[_pos(a_offset + i)], b[_pos(b_offset + i)]  # read both: no branch
                out[_pos(out_offset + i)] = x if condition[_pos(c_offset + i)] else y
        return
    row, out_step = _rows(out_shape, out_strides)
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
            o, count = _run(ordinal, end, row, out_shape, out_strides, out_offset, out_index)
            r = _operand_position(out_index, out_shape, c_shape, c_strides, c_offset, c_index)
            p = _operand_position(out_index, out_shape, a_shape, a_strides, a_offset, a_index)
            q = _operand_position(out_index, out_shape, b_shape, b_strides, b_offset, b_index)
            for j in range(count):
                x, y = a[_pos(p + j * a_step)], b[_pos(q + j * b_step)]
                out[_pos(o + j * out_step)] = x if condition[_pos(r + j * c_step)] else y
            ordinal += count
