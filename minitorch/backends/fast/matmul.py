"""`FastBackend`'s matrix product: packed operands and 4 x 4 register tiles, or rows for small ones.

Operands are packed into contiguous tiles (`_pack`), and 4 x 4 blocks of the output
summed in registers (`_tile_4x4`). Small products (serial) take `_matmul_rows`: no
packing, and a body short enough to compile in a fraction of the time, so a first
small matmul starts fast.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..kernel_cache import broadcast_index, index_to_position, to_index
from .layout import _numel, _pos

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
    # Element loops, not slice assignments: those compile Numba's shape checks, which
    # lengthen a cold matmul's compile.
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
