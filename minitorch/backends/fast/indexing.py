"""`FastBackend`'s reads and writes at computed storage positions (advanced indexing, gather,
scatter), and `scatter_along`, which writes each line to the positions an index names
(a sort's backward).

`take` runs in parallel; the puts are serial, so that repeated positions add up
exactly, fold in order, and the last write wins.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import prange

from ..kernel_cache import index_to_position, to_index
from .layout import (
    _chunk_bounds,
    _dense_like,
    _line_start,
    _lines,
    _numel,
    _operand_position,
    _pos,
)


def _take(
    out, out_shape, out_strides, out_offset,
    a,
    positions, p_shape, p_strides, p_offset,
    n_chunks,
):  # fmt: skip
    """$out_i = a[positions_i]$, `positions` (absolute storage positions) of `out`'s shape."""
    size = _numel(out_shape)
    if _dense_like(out_shape, out_strides, p_shape, p_strides):
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


def tensor_put_reduce(fn: Callable) -> Callable:
    """The body of a folding put: $a[positions_i] = fn(a[positions_i], values_i)$, in order."""

    def _put_reduce(
        a,
        positions, p_shape, p_strides, p_offset,
        values, v_shape, v_strides, v_offset,
    ):  # fmt: skip
        # serial: the values of a repeated position fold in order, the last write wins
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


def _scatter_along(
    out, out_strides, out_offset,
    source, source_shape, source_strides, source_offset,
    index, index_strides, index_offset,
    dim, n_chunks,
):  # fmt: skip
    """$out[i|index[i|j]] = source[i|j]$ for each line $i$ of `source` along `dim`."""
    length = source_shape[dim]
    line_shape, lines = _lines(source_shape, dim)
    for chunk in prange(n_chunks):
        at = np.empty(len(source_shape), np.int64)
        begin, end = _chunk_bounds(lines, n_chunks, chunk)
        for line in range(begin, end):
            s = _line_start(line, line_shape, at, source_strides, source_offset)
            i = index_offset + index_to_position(at, index_strides)
            o = out_offset + index_to_position(at, out_strides)
            for j in range(length):
                value = source[_pos(s + j * source_strides[dim])]
                out[_pos(o + index[_pos(i + j * index_strides[dim])] * out_strides[dim])] = value
