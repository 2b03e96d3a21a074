"""`FastBackend`'s matrix product: a packed `b` and a register block, or rows for small ones.

`b` is packed into panels of columns (`_pack_panel`), and blocks of the output summed in
vector registers (`register_block._block_product`); `FastBackend` compiles `_matmul` serial
for medium products and parallel for large ones. The smallest products take `_matmul_rows`:
no packing, and a body short enough to compile in a fraction of the time, so a first tiny
matmul starts fast.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..kernel_cache import broadcast_index, index_to_position, to_index
from .layout import _numel, _pos
from .register_block import BLOCK_ROWS, _block_product, _panel_width

# A work item: MATMUL_ROWS rows x MATMUL_COLUMNS columns of the output (whole register
# blocks), summed over MATMUL_DEPTH values of `k` at a time: a panel of `b` (MATMUL_DEPTH x
# the register block's width) then stays in L1 while the item's rows of `a` meet it.
MATMUL_ROWS = 64
MATMUL_COLUMNS = 128
MATMUL_DEPTH = 256


@njit(inline="always")
def _row_major_ordinal(index, shape) -> int:
    """The inverse of `to_index`: the row-major ordinal of `index` in `shape`."""
    ordinal = 0
    for k in range(len(shape)):
        ordinal = ordinal * shape[k] + index[k]
    return ordinal


@njit
def _pack_panel(packed, item, width, b, b_offset, b_shape, b_strides):
    """Panel `item` of `b`: `width` of its columns, row $k$ of the panel their $k$-th numbers.

    $packed[(t P + p) \\cdot depth \\cdot w + k w + s] = b_t[k, p w + s]$ (zero past the
    last column) for panel $p$ of the $P$ of batch $t$, `item` $= t P + p$, $w$ = `width`:
    whatever the strides of `b` (transposed, sliced, expanded), the register block loads
    row $k$ of a panel as two vectors, and every panel is full, so it has no edge cases.
    """
    ndim = len(b_shape)
    depth, columns = b_shape[ndim - 2], b_shape[ndim - 1]
    k_step, column_step = b_strides[ndim - 2], b_strides[ndim - 1]
    panels = (columns + width - 1) // width
    batch_index = np.empty(ndim - 2, np.int64)
    to_index(item // panels, b_shape[: ndim - 2], batch_index)
    first_column = item % panels * width
    position = b_offset + index_to_position(batch_index, b_strides[: ndim - 2])
    position += first_column * column_step
    count = min(width, columns - first_column)
    start = item * depth * width
    # Element loops, not slice assignments: those compile Numba's shape checks, which
    # lengthen a cold matmul's compile. The inner loop reads along the shorter step.
    if abs(k_step) < abs(column_step):
        for s in range(count):
            first = position + s * column_step
            for k in range(depth):
                packed[_pos(start + k * width + s)] = b[_pos(first + k * k_step)]
    else:
        for k in range(depth):
            first = position + k * k_step
            for s in range(count):
                packed[_pos(start + k * width + s)] = b[_pos(first + s * column_step)]
    for k in range(depth):
        for s in range(count, width):
            packed[_pos(start + k * width + s)] = 0


def _matmul_rows(
    out, out_shape, out_strides, out_offset,
    a, a_shape, a_strides, a_offset,
    b, b_shape, b_strides, b_offset,
):  # fmt: skip
    """$out[\\ldots, i, j] = \\sum_k a[\\ldots, i, k] \\, b[\\ldots, k, j]$, a row at a time.

    For the smallest products. No packing, no tiles: for each row $i$, each $a_{ik}$ scales
    row $k$ of `b` into a row of sums `c` (the `j` loop, which LLVM vectorizes when the rows
    of `b` are contiguous), then `c` is written into row $i$ of `out`. A short function
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

    1. Pack each batch of `b` into panels of the register block's width in columns
       (`_pack_panel`), in parallel.
    2. Each work item takes one batch and a block of `MATMUL_ROWS` x `MATMUL_COLUMNS` of
       the output, and sums its register blocks (`_block_product`: `BLOCK_ROWS` rows of
       `a`, read through their strides, times a panel) over `MATMUL_DEPTH` values of `k`
       at a time into a local block `c`. Items cut both output dims, so a short and wide
       product keeps both threads busy too.
    3. Whole register blocks of a row-major `out` are summed in place; the others (the
       edges, or all of them where `out` has other strides) are summed in `c`, then copied
       into `out` through its strides.
    """
    ndim = len(out_shape)
    rows, columns, depth = out_shape[ndim - 2], out_shape[ndim - 1], a_shape[ndim - 1]
    if rows == 0 or columns == 0:
        return
    width = _panel_width(out)
    column_panels = (columns + width - 1) // width
    b_panels = _numel(b_shape[: ndim - 2]) * column_panels
    b_pack = np.empty(b_panels * depth * width, out.dtype)
    for item in prange(b_panels):
        _pack_panel(b_pack, item, width, b, b_offset, b_shape, b_strides)

    batch_shape = out_shape[: ndim - 2]
    item_columns = max(MATMUL_COLUMNS // width, 1) * width  # whole panels
    row_blocks = (rows + MATMUL_ROWS - 1) // MATMUL_ROWS
    column_blocks = (columns + item_columns - 1) // item_columns
    a_row, a_step = a_strides[ndim - 2], a_strides[ndim - 1]
    for item in prange(_numel(batch_shape) * row_blocks * column_blocks):
        batch, block = item // (row_blocks * column_blocks), item % (row_blocks * column_blocks)
        first_row = block // column_blocks * MATMUL_ROWS
        first_column = block % column_blocks * item_columns
        block_rows = min(MATMUL_ROWS, rows - first_row)
        block_panels = (min(item_columns, columns - first_column) + width - 1) // width
        out_index = np.empty(ndim - 2, np.int64)
        a_index = np.empty(ndim - 2, np.int64)
        b_index = np.empty(ndim - 2, np.int64)
        to_index(batch, batch_shape, out_index)
        broadcast_index(out_index, batch_shape, a_shape[: ndim - 2], a_index)
        broadcast_index(out_index, batch_shape, b_shape[: ndim - 2], b_index)
        p = a_offset + index_to_position(a_index, a_strides[: ndim - 2]) + first_row * a_row
        b_batch = _row_major_ordinal(b_index, b_shape[: ndim - 2])
        first_panel = b_batch * column_panels + first_column // width

        out_row, out_step = out_strides[ndim - 2], out_strides[ndim - 1]
        o = out_offset + index_to_position(out_index, out_strides[: ndim - 2])
        o += first_row * out_row + first_column * out_step
        block_columns = min(item_columns, columns - first_column)
        whole_rows = block_rows // BLOCK_ROWS * BLOCK_ROWS if out_step == 1 else 0
        whole_columns = block_columns // width * width if out_step == 1 else 0
        padded_rows = (block_rows + BLOCK_ROWS - 1) // BLOCK_ROWS * BLOCK_ROWS
        c = np.empty(padded_rows * item_columns, out.dtype)
        for k0 in range(0, max(depth, 1), MATMUL_DEPTH):
            k_count = min(MATMUL_DEPTH, depth - k0)
            for q in range(block_panels):
                b_start = ((first_panel + q) * depth + k0) * width
                for i in range(0, block_rows, BLOCK_ROWS):
                    a_start, a_rows = p + i * a_row + k0 * a_step, min(BLOCK_ROWS, block_rows - i)
                    if i < whole_rows and q * width < whole_columns:
                        sums, start, step = out, o + i * out_row + q * width, out_row
                    else:
                        sums, start, step = c, i * item_columns + q * width, item_columns
                    _block_product(
                        sums, start, step,
                        a, a_start, a_rows, a_row, a_step,
                        b_pack, b_start, k_count, k0 > 0,
                    )  # fmt: skip

        for i in range(block_rows):
            for j in range(whole_columns if i < whole_rows else 0, block_columns):
                out[_pos(o + i * out_row + j * out_step)] = c[i * item_columns + j]
