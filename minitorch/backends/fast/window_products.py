"""The small matrix products inside `FastBackend`'s convolution kernels (`windows.py`): a
block of the weight times an image's block of columns, and the dot products of the
gradient's rows with the columns' rows, each vectorized along the rows."""

from __future__ import annotations

import numpy as np
from numba import njit

FASTMATH = {"reassoc", "contract"}  # lets LLVM vectorize the sums over a row


@njit(fastmath=FASTMATH)
def _add_product(out, a, b) -> None:
    """$out \\mathrel{+}= a\\, b$ for `out` (M, L), `a` (M, K), `b` (K, L), all contiguous.

    Four rows of `out` take four rows of `b` per pass along L (16 multiply-adds for 8
    loads and 4 stores, vectorized over L); the rows and depths left over go one by one.
    """
    rows, depth = a.shape
    length = b.shape[1]
    depth4 = depth - depth % 4
    for i in range(0, rows, 4):
        if i + 4 <= rows:
            o0, o1, o2, o3 = out[i], out[i + 1], out[i + 2], out[i + 3]
            for k in range(0, depth4, 4):
                b0, b1, b2, b3 = b[k], b[k + 1], b[k + 2], b[k + 3]
                w00, w01, w02, w03 = a[i, k], a[i, k + 1], a[i, k + 2], a[i, k + 3]
                w10, w11, w12, w13 = a[i + 1, k], a[i + 1, k + 1], a[i + 1, k + 2], a[i + 1, k + 3]
                w20, w21, w22, w23 = a[i + 2, k], a[i + 2, k + 1], a[i + 2, k + 2], a[i + 2, k + 3]
                w30, w31, w32, w33 = a[i + 3, k], a[i + 3, k + 1], a[i + 3, k + 2], a[i + 3, k + 3]
                for t in range(length):
                    c0, c1, c2, c3 = b0[t], b1[t], b2[t], b3[t]
                    o0[t] += w00 * c0 + w01 * c1 + w02 * c2 + w03 * c3
                    o1[t] += w10 * c0 + w11 * c1 + w12 * c2 + w13 * c3
                    o2[t] += w20 * c0 + w21 * c1 + w22 * c2 + w23 * c3
                    o3[t] += w30 * c0 + w31 * c1 + w32 * c2 + w33 * c3
            for k in range(depth4, depth):
                b0 = b[k]
                w0, w1, w2, w3 = a[i, k], a[i + 1, k], a[i + 2, k], a[i + 3, k]
                for t in range(length):
                    o0[t] += w0 * b0[t]
                    o1[t] += w1 * b0[t]
                    o2[t] += w2 * b0[t]
                    o3[t] += w3 * b0[t]
        else:
            for r in range(i, rows):
                o0 = out[r]
                for k in range(0, depth4, 4):
                    b0, b1, b2, b3 = b[k], b[k + 1], b[k + 2], b[k + 3]
                    w0, w1, w2, w3 = a[r, k], a[r, k + 1], a[r, k + 2], a[r, k + 3]
                    for t in range(length):
                        o0[t] += w0 * b0[t] + w1 * b1[t] + w2 * b2[t] + w3 * b3[t]
                for k in range(depth4, depth):
                    b0 = b[k]
                    w0 = a[r, k]
                    for t in range(length):
                        o0[t] += w0 * b0[t]


@njit(fastmath=FASTMATH)
def _add_dots(out, a, b) -> None:
    """$out \\mathrel{+}= a\\, b^T$ for `out` (M, N) (float64), `a` (M, L), `b` (N, L): the
    dot products of rows (summed in the type of `a`), a 2 x 4 block of them per pass along L."""
    rows, columns = out.shape
    length = a.shape[1]
    columns4 = columns - columns % 4
    zero = np.zeros(1, a.dtype)[0]  # sums in the operands' type: vectorized
    for i in range(0, rows, 2):
        pair = i + 2 <= rows
        a0, a1 = a[i], a[i + 1 if pair else i]
        for j in range(0, columns4, 4):
            b0, b1, b2, b3 = b[j], b[j + 1], b[j + 2], b[j + 3]
            s00 = s01 = s02 = s03 = s10 = s11 = s12 = s13 = zero
            for t in range(length):
                x0, x1 = a0[t], a1[t]
                y0, y1, y2, y3 = b0[t], b1[t], b2[t], b3[t]
                s00 += x0 * y0
                s01 += x0 * y1
                s02 += x0 * y2
                s03 += x0 * y3
                s10 += x1 * y0
                s11 += x1 * y1
                s12 += x1 * y2
                s13 += x1 * y3
            out[i, j] += s00
            out[i, j + 1] += s01
            out[i, j + 2] += s02
            out[i, j + 3] += s03
            if pair:
                out[i + 1, j] += s10
                out[i + 1, j + 1] += s11
                out[i + 1, j + 2] += s12
                out[i + 1, j + 3] += s13
        for r in range(i, i + 2 if pair else i + 1):
            for j in range(columns4, columns):
                total = zero
                for t in range(length):
                    total += a[r, t] * b[j, t]
                out[r, j] += total
