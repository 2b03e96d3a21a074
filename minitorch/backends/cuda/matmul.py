"""The register-blocked matmul: each thread computes a small block of outputs.

The exercise's kernel (`cuda_ops.cuda_matmul`, task 3.5) gives each thread one output, so
for every multiply-add it reads two values from shared memory. Here a block of threads
computes a `rows` × `columns` block of the output (64 × 64 on a GPU) and each thread a
`thread_rows` × `thread_columns` block of it (4 × 4), kept in registers: per step along the
inner dimension a thread reads `thread_rows` values of `a` and `thread_columns` of `b` from
shared memory and does `thread_rows * thread_columns` multiply-adds with them, four times
the arithmetic per shared-memory read at 4 × 4. The tiles along the inner dimension are
`depth` deep.

A thread's outputs are strided by the thread grid (rows `ty`, `ty + threads_y`, ...;
columns `tx`, `tx + threads_x`, ...), so that neighbouring threads of a warp read
neighbouring words of shared memory and write neighbouring columns of `out`. The loads are
cooperative: the block's threads read the tiles of `a` and `b` element by element in the
order of memory for row-major operands (coalesced), and any strides work.
"""

from __future__ import annotations

from collections.abc import Callable

from .compiler import batch_start_function
from .driver import cuda


def cuda_matmul_blocked(
    rows: int, columns: int, depth: int, thread_rows: int, thread_columns: int, element, zero
) -> Callable:
    """The body of the blocked matmul: $out_{ij} = \\sum_k a_{ik} b_{kj}$ per batch.

    Block (x, y, z) computes output rows `y*rows ...`, columns `x*columns ...` of batch z
    with (`columns // thread_columns`, `rows // thread_rows`) threads.
    """
    batch_start = batch_start_function()
    threads_x, threads_y = columns // thread_columns, rows // thread_rows
    threads = threads_x * threads_y

    def _matmul(
        out, out_shape, out_strides, out_offset,
        a, a_shape, a_strides, a_offset,
        b, b_shape, b_strides, b_offset,
    ):  # fmt: skip
        a_tile = cuda.shared.array((depth, rows), element)  # a's block, transposed
        b_tile = cuda.shared.array((depth, columns), element)
        totals = cuda.local.array((thread_rows, thread_columns), element)
        a_values = cuda.local.array(thread_rows, element)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        thread = ty * threads_x + tx
        ndim = len(out_shape)
        n_rows, n_columns, n_depth = out_shape[ndim - 2], out_shape[ndim - 1], a_shape[ndim - 1]
        row0, column0 = cuda.blockIdx.y * rows, cuda.blockIdx.x * columns
        o = batch_start(cuda.blockIdx.z, out_shape, out_shape, out_strides, out_offset)
        p = batch_start(cuda.blockIdx.z, out_shape, a_shape, a_strides, a_offset)
        q = batch_start(cuda.blockIdx.z, out_shape, b_shape, b_strides, b_offset)
        a_row, a_step = a_strides[ndim - 2], a_strides[ndim - 1]
        b_step, b_column = b_strides[ndim - 2], b_strides[ndim - 1]
        for r in range(thread_rows):
            for c in range(thread_columns):
                totals[r, c] = zero
        for k0 in range(0, n_depth, depth):
            for e in range(thread, depth * rows, threads):  # consecutive e: along a's row
                r, kk = e // depth, e % depth
                i, k = row0 + r, k0 + kk
                a_tile[kk, r] = (
                    a[p + i * a_row + k * a_step] if i < n_rows and k < n_depth else zero
                )
            for e in range(thread, depth * columns, threads):  # consecutive e: along b's row
                kk, c = e // columns, e % columns
                k, j = k0 + kk, column0 + c
                inside = k < n_depth and j < n_columns
                b_tile[kk, c] = b[q + k * b_step + j * b_column] if inside else zero
            cuda.syncthreads()  # both tiles are loaded
            for kk in range(depth):
                for r in range(thread_rows):
                    a_values[r] = a_tile[kk, ty + r * threads_y]
                for c in range(thread_columns):
                    b_value = b_tile[kk, tx + c * threads_x]
                    for r in range(thread_rows):
                        totals[r, c] += a_values[r] * b_value
            cuda.syncthreads()  # everyone is done with the tiles before the next load
        for r in range(thread_rows):
            i = row0 + ty + r * threads_y
            for c in range(thread_columns):
                j = column0 + tx + c * threads_x
                if i < n_rows and j < n_columns:
                    out[o + i * out_strides[ndim - 2] + j * out_strides[ndim - 1]] = totals[r, c]

    return _matmul
