"""What every kernel of `FastBackend` needs about layouts: sizes, chunks, storage positions.

**Inlined or called.** The helpers a kernel runs for every element or every row (`_pos`,
`_run`, `_last`, `_operand_position`, `_line_start`) are compiled into it
(`njit(inline="always")`), where LLVM optimises them with the loop around them; a call per
row would cost more than a short row's work. The ones it runs once per call or per chunk
(sizes, layout tests, chunk bounds) are plain `njit` functions that it calls: a call costs
nanoseconds once, and Numba does not copy and re-type their loops into every kernel, which
is a large part of compile time (tutorial 03a, section 9).

**Storage positions are unsigned**: Numba wraps negative indices as Python does, and
that check in an inner loop stops LLVM from vectorizing it. Positions are never
negative, so kernels index storage with `_pos(p)` (an unsigned cast) and the check
disappears.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernel_cache import broadcast_index, index_to_position, to_index


@njit(inline="always")
def _pos(position):
    """A storage position as an unsigned integer: Numba then skips negative-index wrapping."""
    return np.uint64(position)


@njit
def _numel(shape) -> int:
    """$\\prod_k s_k$"""
    size = 1
    for k in range(len(shape)):
        size *= shape[k]
    return size


@njit
def _chunk_bounds(total: int, n_chunks: int, chunk: int):
    """The half-open range of `total` work items that chunk `chunk` of `n_chunks` does."""
    return chunk * total // n_chunks, (chunk + 1) * total // n_chunks


@njit
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


@njit
def _same_layout(shape, strides, other_shape, other_strides) -> bool:
    """Same shape, and the same strides wherever a dimension has more than one element."""
    if len(shape) != len(other_shape):
        return False
    for k in range(len(shape)):
        if shape[k] != other_shape[k] or (shape[k] > 1 and strides[k] != other_strides[k]):
            return False
    return True


@njit
def _dense_like(out_shape, out_strides, shape, strides) -> bool:
    """Whether element $i$ of the output and of the operand is at offset + $i$: the output
    fills its memory without gaps and the operand has its layout (the kernels' flat path)."""
    dense = _is_dense(out_shape, out_strides)
    return dense and _same_layout(out_shape, out_strides, shape, strides)


@njit
def _rows(shape, strides):
    """The length of a row (the last dimension; 1 for a 0-dim tensor) and the storage step
    along it."""
    if len(shape) == 0:
        return 1, 0
    return shape[len(shape) - 1], strides[len(strides) - 1]


@njit(inline="always")
def _run(ordinal, end, row, out_shape, out_strides, out_offset, out_index):
    """The output elements from ordinal `ordinal` to the end of its row (of length `row`) or to
    `end`: their first index (written into `out_index`), its storage position, and their count."""
    to_index(ordinal, out_shape, out_index)
    position = out_offset + index_to_position(out_index, out_strides)
    return position, min(row - _last(out_index), end - ordinal)


@njit
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


@njit
def _lines(shape, dim):
    """The lines of `shape` along `dim`: `shape` with size 1 in `dim` (its indices are the lines'
    first elements) and how many there are (none when `dim` has size 0)."""
    line_shape = shape.copy()
    line_shape[dim] = 1
    return line_shape, _numel(line_shape) if shape[dim] > 0 else 0


@njit(inline="always")
def _line_start(line, line_shape, index, strides, offset) -> int:
    """The storage position of the first element of line `line`, whose index goes into `index`."""
    to_index(line, line_shape, index)
    return offset + index_to_position(index, strides)
