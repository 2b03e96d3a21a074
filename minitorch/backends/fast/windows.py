"""Module 4, under the hood: `FastBackend`'s convolution and max-pooling kernels.

Module 4's exercises build convolution and pooling from the tensor layer: a
strided view of the windows, copied into columns (im2col), a batched matmul,
and the gradient added back one kernel offset at a time (col2im). Each of
those steps is a pass over memory and a kernel launch. These kernels compute
the same in one parallel pass over the batch:

- **Convolution** (`_conv2d_forward`, `_conv2d_backward`): each work item
  takes one image, copies its windows into a local block of columns
  (K = C kH kW rows of L = oH oW, small enough for the cache), multiplies it
  by the weight there (`window_products.py`), and writes the output (or the
  gradients) directly. At stride 1 each row of that block is one run of a
  zero-padded copy of the image, so the block is a copy of whole runs rather
  than of each output row's few elements, and the gradient of the block goes
  back into the padded copy's gradient as whole runs too (`_reading`).
  The backward recomputes the columns rather than saving them (as PyTorch
  saves only the input), sums $\\partial W$ and $\\partial b$ per work item in
  float64, and adds $W^T g$ straight back into the input's gradient.
- **Max pooling** (`_max_pool2d`, `_max_pool2d_backward`): one pass over
  each window, clipped to the input as PyTorch clips it, records the value
  and its position in the input plane; the backward adds each gradient at
  that position.

They are tested against the exercise path (`tests/test_nn_kernels.py`).
`FastBackend` registers them as its optional kernels `conv2d`, `conv2d_backward`,
`max_pool2d` and `max_pool2d_backward` (`interface.OPTIONAL_KERNELS`), as the cuda backend
registers its own (`backends/cuda/windows.py`); on backends without them (the reference, the
student's) the ops run the exercise path.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..interface import bias_arguments, window_settings
from ..kernel_cache import compile_kernel
from ..tensor_data import TensorData
from .layout import _pos
from .window_products import FASTMATH, _add_dots, _add_product


@njit(inline="always")
def _valid(size: int, count: int, step: int, start: int):
    """The half-open range of $t < count$ with $0 \\le t \\cdot step + start < size$."""
    low = max(0, -(start // step))  # ceil(-start / step)
    last = size - 1 - start
    high = min(count, last // step + 1) if last >= 0 else 0
    return low, max(low, high)


@njit(inline="always")
def _columns(cols, x, base, x_strides, height, width, kernel, settings, out_h, out_w):
    """im2col of one image: $cols[(c k_H + i) k_W + j, y o_W + x]$ =
    $x[c, y s_H + i d_H - p_H, x s_W + j d_W - p_W]$, 0 in the padding."""
    sh, sw, dh, dw, ph, pw = settings
    kh, kw = kernel
    channels = cols.shape[0] // (kh * kw)
    for c in range(channels):
        for i in range(kh):
            y0, y1 = _valid(height, out_h, sh, i * dh - ph)
            for j in range(kw):
                x0, x1 = _valid(width, out_w, sw, j * dw - pw)
                row = cols[(c * kh + i) * kw + j]
                row[:] = 0
                for y in range(y0, y1):
                    p = base + c * x_strides[1] + (y * sh + i * dh - ph) * x_strides[2]
                    p += (j * dw - pw) * x_strides[3]
                    step = sw * x_strides[3]
                    if step == 1:  # a contiguous run: a copy LLVM vectorizes
                        row[y * out_w + x0 : y * out_w + x1] = x[p + x0 : p + x1]
                    else:
                        for t in range(x0, x1):
                            row[y * out_w + t] = x[_pos(p + t * step)]


@njit(inline="always")
def _add_columns(grad_x, row, k, height, width, kernel, settings, out_h, out_w):
    """col2im of one row $k = (c k_H + i) k_W + j$ of columns: each entry added to the input
    element it was copied from (`grad_x` one contiguous image, plane by plane)."""
    sh, sw, dh, dw, ph, pw = settings
    kh, kw = kernel
    c, i, j = k // (kh * kw), (k // kw) % kh, k % kw
    y0, y1 = _valid(height, out_h, sh, i * dh - ph)
    x0, x1 = _valid(width, out_w, sw, j * dw - pw)
    for y in range(y0, y1):
        p = (c * height + y * sh + i * dh - ph) * width + j * dw - pw
        for t in range(x0, x1):  # a loop, not a slice +=: the runs are short
            grad_x[_pos(p + t * sw)] += row[y * out_w + t]


@njit
def _reading(x_shape, o_count, kernel, settings, out_size):
    """How an image's block of columns is made: whether from a padded copy (at stride 1),
    the row pitch of the columns, the padded planes' rows, the padded copy's size and where
    each row $k = (c k_H + i) k_W + j$ of the columns starts in it.

    At stride 1, row k of the columns is one run of the padded copy: output $(y, x)$ reads
    $padded[c, y + i d_H, x + j d_W]$, so with rows of `pitch` = $o_W + d_W (k_W - 1)$
    elements the run starts at $(c\\,rows + i d_H)\\, pitch + j d_W$: one long copy per row
    instead of one per output row. The last $d_W (k_W - 1)$ columns of each output row read
    past it; their results are dropped. That costs a copy of the result's rows ($O\\,o_H$
    runs) and of the input's ($C H$), so it is taken where it saves copies: the im2col
    block's $K o_H$ runs against those and $K$."""
    kh, kw = kernel
    dh, dw = settings[2], settings[3]
    out_h, out_w = out_size
    channels = x_shape[1]
    depth = channels * kh * kw
    starts = np.empty(depth, np.int64)
    runs_saved = depth * (out_h - 1) - o_count * out_h - channels * x_shape[2]
    if settings[0] == 1 and settings[1] == 1 and runs_saved > 0:
        pitch, rows = out_w + dw * (kw - 1), out_h + dh * (kh - 1)
        for c in range(channels):
            for i in range(kh):
                for j in range(kw):
                    starts[(c * kh + i) * kw + j] = (c * rows + i * dh) * pitch + j * dw
        return True, pitch, rows, channels * rows * pitch + dw * (kw - 1), starts
    return False, out_w, out_h, 0, starts


@njit(inline="always")
def _fill(cols, padded, reading, x, base, x_strides, x_shape, kernel, settings, out_size):
    """The block of columns (K, oH pitch) of one image, as `_reading` says: at stride 1 from
    its zero-padded copy in `padded` (planes of `rows` x `pitch`, then zeros)."""
    wide, pitch, rows, _, starts = reading
    channels, height, width = x_shape[1], x_shape[2], x_shape[3]
    if not wide:
        out_h, out_w = out_size
        _columns(cols, x, base, x_strides, height, width, kernel, settings, out_h, out_w)
        return
    ph, pw = settings[4], settings[5]
    padded[:] = 0
    for c in range(channels):
        for h in range(min(height, rows - ph)):
            p = base + c * x_strides[1] + h * x_strides[2]
            q = (c * rows + h + ph) * pitch + pw
            for w in range(min(width, pitch - pw)):
                padded[q + w] = x[_pos(p + w * x_strides[3])]
    length = cols.shape[1]
    for k in range(cols.shape[0]):
        cols[k, :] = padded[starts[k] : starts[k] + length]


@njit(inline="always")
def _weight_matrix(w, w_shape, w_strides, w_offset):
    """The weight (O, C/groups, kH, kW) as a contiguous (O, C/groups kH kW) matrix."""
    o_count, c_count, kh, kw = w_shape[0], w_shape[1], w_shape[2], w_shape[3]
    matrix = np.empty((o_count, c_count * kh * kw), w.dtype)
    for o in range(o_count):
        for c in range(c_count):
            for i in range(kh):
                for j in range(kw):
                    p = w_offset + o * w_strides[0] + c * w_strides[1] + i * w_strides[2]
                    matrix[o, (c * kh + i) * kw + j] = w[_pos(p + j * w_strides[3])]
    return matrix


def _conv2d_forward(
    out,
    x, x_shape, x_strides, x_offset,
    w, w_shape, w_strides, w_offset,
    bias, b_stride, b_offset, has_bias,
    settings, out_size, groups, n_chunks,
):  # fmt: skip
    """$out[n] = b + W\\, columns(x[n])$ for each image (`_image_forward`): `out` the
    contiguous (N, O, oH, oW) storage, `settings` (stride, dilation, padding before)."""
    n_images, o_count = x_shape[0], w_shape[0]
    kernel = (w_shape[2], w_shape[3])
    length = out_size[0] * out_size[1]
    reading = _reading(x_shape, o_count, kernel, settings, out_size)
    matrix = _weight_matrix(w, w_shape, w_strides, w_offset)
    start = np.zeros(o_count, out.dtype)
    if has_bias:
        for o in range(o_count):
            start[o] = bias[_pos(b_offset + o * b_stride)]
    for chunk in prange(n_chunks):
        padded = np.empty(reading[3], x.dtype)
        cols = np.empty((matrix.shape[1] * groups, out_size[0] * reading[1]), x.dtype)
        rows = np.empty((o_count, out_size[0] * reading[1]), x.dtype)
        begin, end = chunk * n_images // n_chunks, (chunk + 1) * n_images // n_chunks
        for n in range(begin, end):
            image = out[n * o_count * length : (n + 1) * o_count * length]
            _image_forward(
                image, cols, padded, rows, x, x_offset + n * x_strides[0], x_strides, x_shape,
                matrix, start, reading, kernel, settings, out_size, groups,
            )  # fmt: skip


@njit(fastmath=FASTMATH)
def _image_forward(
    image, cols, padded, rows, x, base, x_strides, x_shape, matrix, start, reading,
    kernel, settings, out_size, groups,
):  # fmt: skip
    """One image of `_conv2d_forward`: its columns, then $b + W\\, columns$ group by group
    (at stride 1 into `rows`, of the padded pitch, then copied).
    (A function that a parallel kernel calls compiles as plain code: its loops vectorize.)"""
    wide, pitch = reading[0], reading[1]
    o_count, depth = matrix.shape
    out_h, out_w = out_size
    _fill(cols, padded, reading, x, base, x_strides, x_shape, kernel, settings, out_size)
    target = rows if wide else image.reshape((o_count, out_h * out_w))
    for o in range(o_count):
        target[o, :] = start[o]
    group_out = o_count // groups
    for g in range(groups):
        outs = slice(g * group_out, (g + 1) * group_out)
        _add_product(target[outs], matrix[outs], cols[g * depth : (g + 1) * depth])
    if wide:
        for o in range(o_count):
            for y in range(out_h):
                q = (o * out_h + y) * out_w
                image[q : q + out_w] = rows[o, y * pitch : y * pitch + out_w]


def _conv2d_backward(
    grad_x, grad_w, grad_b,
    grad, g_strides, g_offset,
    x, x_shape, x_strides, x_offset,
    w, w_shape, w_strides, w_offset,
    settings, out_size, groups, needs, n_chunks,
):  # fmt: skip
    """The gradients of `_conv2d_forward` for the upstream `grad` (N, O, oH, oW), into
    contiguous storages: $\\partial x$ = col2im($W^T g$) (N, C, H, W), $\\partial W =
    \\sum_n g_n\\, columns(x[n])^T$ (O, C/groups kH kW) and $\\partial b = \\sum g$ (O);
    `needs` says which of the three to compute. Sums over the batch are float64."""
    n_images, o_count = x_shape[0], w_shape[0]
    kernel = (w_shape[2], w_shape[3])
    plane = x_shape[1] * x_shape[2] * x_shape[3]
    reading = _reading(x_shape, o_count, kernel, settings, out_size)
    length = out_size[0] * reading[1]
    matrix = _weight_matrix(w, w_shape, w_strides, w_offset)
    depth = matrix.shape[1]
    partial_w = np.zeros((n_chunks, o_count, depth), np.float64)
    partial_b = np.zeros((n_chunks, o_count), np.float64)
    for chunk in prange(n_chunks):
        padded = np.empty(reading[3], x.dtype)
        rows = np.empty((o_count, length), x.dtype)
        cols = np.empty((depth * groups, length), x.dtype)
        begin, end = chunk * n_images // n_chunks, (chunk + 1) * n_images // n_chunks
        for n in range(begin, end):
            _image_backward(
                grad_x[n * plane : (n + 1) * plane] if needs[0] else grad_x,
                partial_w[chunk], partial_b[chunk], cols, padded, rows,
                grad, g_offset + n * g_strides[0], g_strides,
                x, x_offset + n * x_strides[0], x_strides, x_shape,
                matrix, reading, kernel, settings, out_size, groups, needs,
            )  # fmt: skip
    # The chunks' partial sums are added in plain loops: in the parallel build an array
    # expression such as `partial_w[:, o, k].sum()` becomes a parallel loop of its own, and
    # starting one per weight costs far more than the whole gradient.
    if needs[1]:
        for o in range(o_count):
            for k in range(depth):
                total = 0.0
                for c in range(n_chunks):
                    total += partial_w[c, o, k]
                grad_w[o * depth + k] = total
    if needs[2]:
        for o in range(o_count):
            total = 0.0
            for c in range(n_chunks):
                total += partial_b[c, o]
            grad_b[o] = total


@njit(fastmath=FASTMATH)
def _image_backward(
    grad_x, partial_w, partial_b, cols, padded, rows,
    grad, g_base, g_strides, x, x_base, x_strides, x_shape,
    matrix, reading, kernel, settings, out_size, groups, needs,
):  # fmt: skip
    """One image of `_conv2d_backward`: its gradient copied into `rows` (O, oH pitch, 0 past
    each row's oW); $\\sum g$ and $g\\, columns^T$ added to `partial_b` and `partial_w`;
    col2im($W^T g$) into `grad_x`, at stride 1 a run of the padded copy per row."""
    wide, pitch, padded_rows, _, starts = reading
    o_count, depth = matrix.shape
    out_h, out_w = out_size
    channels, height, width = x_shape[1], x_shape[2], x_shape[3]
    group_out = o_count // groups
    for o in range(o_count):
        for y in range(out_h):
            q = g_base + o * g_strides[1] + y * g_strides[2]
            for t in range(out_w):
                rows[o, y * pitch + t] = grad[_pos(q + t * g_strides[3])]
            rows[o, y * pitch + out_w : (y + 1) * pitch] = 0
    if needs[2]:
        for o in range(o_count):
            partial_b[o] += rows[o].sum()
    if needs[1]:
        _fill(cols, padded, reading, x, x_base, x_strides, x_shape, kernel, settings, out_size)
        _add_weight_gradient(partial_w, rows, cols, groups)
    if needs[0]:
        cols[:] = 0  # now the columns' gradient, W^T g
        for g in range(groups):
            outs = slice(g * group_out, (g + 1) * group_out)
            _add_product(cols[g * depth : (g + 1) * depth], matrix[outs].T, rows[outs])
        grad_x[:] = 0
        if not wide:
            for k in range(depth * groups):
                _add_columns(grad_x, cols[k], k, height, width, kernel, settings, out_h, out_w)
            return
        padded[:] = 0  # the padded copy's gradient: each row of columns added as one run
        for k in range(depth * groups):
            run, row = padded[starts[k] :], cols[k]
            for t in range(row.size):
                run[t] += row[t]
        ph, pw = settings[4], settings[5]
        for c in range(channels):
            for h in range(min(height, padded_rows - ph)):
                q = (c * padded_rows + h + ph) * pitch + pw
                p = (c * height + h) * width
                grad_x[p : p + min(width, pitch - pw)] = padded[q : q + min(width, pitch - pw)]


# Outputs from which one group's weight gradient is a product vectorized over them rather
# than dot products along the rows (at 32 and more the product was faster at digits sizes).
PRODUCT_FROM = 32


@njit(fastmath=FASTMATH)
def _add_weight_gradient(partial_w, rows, cols, groups):
    """$\\partial W \\mathrel{+}= g\\, columns^T$ group by group, summed per image in the
    operands' type: with one group of `PRODUCT_FROM` outputs or more as the transpose of
    $columns\\, g^T$ (vectorized over the outputs), else as dot products of rows."""
    o_count, length = rows.shape
    depth = partial_w.shape[1]
    if groups == 1 and o_count >= PRODUCT_FROM:
        rows_t = np.empty((length, o_count), rows.dtype)
        for o in range(o_count):
            for t in range(length):
                rows_t[t, o] = rows[o, t]
        product = np.zeros((depth, o_count), rows.dtype)
        _add_product(product, cols, rows_t)
        for o in range(o_count):
            for k in range(depth):
                partial_w[o, k] += product[k, o]
        return
    group_out = o_count // groups
    for g in range(groups):
        outs = slice(g * group_out, (g + 1) * group_out)
        _add_dots(partial_w[outs], rows[outs], cols[g * depth : (g + 1) * depth])


def _max_pool2d(
    values, indices,
    x, x_shape, x_strides, x_offset,
    kernel, settings, out_size, n_chunks,
):  # fmt: skip
    """The maximum of each window of `x` (N, C, H, W), clipped to the input, and its position
    $h W + w$ in the input plane, into contiguous (N, C, oH, oW) storages. As PyTorch: the
    first maximum wins, a NaN beats everything (the last NaN wins)."""
    sh, sw, dh, dw, ph, pw = settings
    channels, height, width = x_shape[1], x_shape[2], x_shape[3]
    out_h, out_w = out_size
    planes = x_shape[0] * channels
    columns = np.empty((out_w, 2), np.int64)  # each window's columns inside the input
    for t in range(out_w):
        columns[t, 0], columns[t, 1] = _valid(width, kernel[1], dw, t * sw - pw)
    inside = (out_h - 1) * sh + 2 <= height and (out_w - 1) * sw + 2 <= width
    pairs = kernel[0] == 2 and kernel[1] == 2 and dh == 1 and dw == 1 and ph == 0 and pw == 0
    for chunk in prange(n_chunks):
        begin, end = chunk * planes // n_chunks, (chunk + 1) * planes // n_chunks
        for item in range(begin, end):
            base = x_offset + (item // channels) * x_strides[0] + (item % channels) * x_strides[1]
            o = item * out_h * out_w
            if pairs and inside:
                _max_pool_2x2(values, indices, x, base, x_strides, o, settings, out_size, width)
                continue
            for y in range(out_h):
                i0, i1 = _valid(height, kernel[0], dh, y * sh - ph)
                for t in range(out_w):
                    j0, j1 = columns[t, 0], columns[t, 1]
                    best = -np.inf  # as PyTorch: -inf at the window's first position
                    best_at = (y * sh - ph + i0 * dh) * width + t * sw - pw + j0 * dw
                    for i in range(i0, i1):
                        h = y * sh - ph + i * dh
                        for j in range(j0, j1):
                            w = t * sw - pw + j * dw
                            value = x[_pos(base + h * x_strides[2] + w * x_strides[3])]
                            if value > best or value != value:
                                best, best_at = value, h * width + w
                    values[o + y * out_w + t] = best
                    indices[o + y * out_w + t] = best_at


@njit(inline="always")
def _max_pool_2x2(values, indices, x, base, x_strides, o, settings, out_size, width):
    """`_max_pool2d` of one plane for 2 x 2 windows wholly inside it (no padding, no
    dilation): the four taps in order, without the loops over a window's rows and columns
    (2.4x faster at LeNet's and the digits' sizes)."""
    sh, sw = settings[0], settings[1]
    out_h, out_w = out_size
    right, down = x_strides[3], x_strides[2]
    for y in range(out_h):
        for t in range(out_w):
            h, w = y * sh, t * sw
            p = base + h * down + w * right
            best, at = x[_pos(p)], h * width + w
            value = x[_pos(p + right)]
            if value > best or value != value:
                best, at = value, h * width + w + 1
            value = x[_pos(p + down)]
            if value > best or value != value:
                best, at = value, (h + 1) * width + w
            value = x[_pos(p + down + right)]
            if value > best or value != value:
                best, at = value, (h + 1) * width + w + 1
            values[o + y * out_w + t] = best
            indices[o + y * out_w + t] = at


def _max_pool2d_backward(grad_x, grad, g_shape, g_strides, g_offset, indices, plane, n_chunks):
    """$\\partial x[n, c, index] \\mathrel{+}= g[n, c, y, x]$ for each output's `index` (from
    `_max_pool2d`, contiguous); `grad_x` contiguous, `plane` elements per (n, c)."""
    channels, out_h, out_w = g_shape[1], g_shape[2], g_shape[3]
    planes = g_shape[0] * channels
    for chunk in prange(n_chunks):
        begin, end = chunk * planes // n_chunks, (chunk + 1) * planes // n_chunks
        for item in range(begin, end):
            grad_x[item * plane : (item + 1) * plane] = 0
            p = g_offset + (item // channels) * g_strides[0] + (item % channels) * g_strides[1]
            o = item * out_h * out_w
            for y in range(out_h):
                for t in range(out_w):
                    at = indices[o + y * out_w + t]
                    if 0 <= at < plane:  # not a window wholly in the padding
                        grad_x[item * plane + at] += grad[
                            _pos(p + y * g_strides[2] + t * g_strides[3])
                        ]


# ---------------------------------------------------------------------------
# The kernels as methods of `FastBackend`
# ---------------------------------------------------------------------------

KERNELS = {
    body.__name__: (
        compile_kernel(body, None, False, FASTMATH),
        compile_kernel(body, None, True, FASTMATH),
    )
    for body in (_conv2d_forward, _conv2d_backward, _max_pool2d, _max_pool2d_backward)
}


class WindowKernels:
    """Convolution and max pooling in one pass each (mixed into `FastBackend`, whose `choose`
    picks the serial or the parallel build): the optional kernels of those names, as
    `interface.OPTIONAL_KERNELS` describes them. Inputs have any strides; outputs are
    contiguous layouts that the caller allocated; `padding` is the padding before each
    spatial dim."""

    # Work (multiply-adds, or elements read) from which the parallel builds run: measured on
    # two quiet cores, threads take 1.35-1.7x off the LeNet and digits convolutions (7.5M-38M
    # multiply-adds) and lose below 1M, where waking the second thread costs more than its half.
    window_parallel_threshold = 1 << 22

    def conv2d(
        self, out: TensorData, x: TensorData, weight: TensorData, bias: TensorData | None,
        stride: tuple, dilation: tuple, padding: tuple, groups: int,
    ) -> None:  # fmt: skip
        """Each image's columns times the weight matrix (`_conv2d_forward`), in parallel over
        the batch from `window_parallel_threshold` multiply-adds."""
        work = math.prod(out.shape) * math.prod(weight.shape[1:])
        kernel, n_chunks = self.choose(
            KERNELS["_conv2d_forward"], work, self.window_parallel_threshold
        )
        kernel(
            out.storage[out.offset : out.offset + out.numel()],
            x.storage, x.shape_array, x.strides_array, x.offset,
            weight.storage, weight.shape_array, weight.strides_array, weight.offset,
            *bias_arguments(bias, x),
            window_settings(stride, dilation, padding), tuple(out.shape[2:]), groups, n_chunks,
        )  # fmt: skip

    def conv2d_backward(
        self, grad_x: TensorData | None, grad_w: TensorData | None, grad_b: TensorData | None,
        grad: TensorData, x: TensorData, weight: TensorData,
        stride: tuple, dilation: tuple, padding: tuple, groups: int,
    ) -> None:  # fmt: skip
        """Each image's columns recomputed, its weight and bias gradients summed in float64
        and col2im($W^T g$) written into its part of `grad_x` (`_conv2d_backward`)."""
        work = 2 * math.prod(grad.shape) * math.prod(weight.shape[1:])
        kernel, n_chunks = self.choose(
            KERNELS["_conv2d_backward"], work, self.window_parallel_threshold
        )
        needs = (grad_x is not None, grad_w is not None, grad_b is not None)
        unused = np.empty(0, x.storage.dtype)
        gx, gw, gb = (
            (t.storage[t.offset : t.offset + t.numel()] if t is not None else unused)
            for t in (grad_x, grad_w, grad_b)
        )
        kernel(
            gx, gw, gb,
            grad.storage, grad.strides_array, grad.offset,
            x.storage, x.shape_array, x.strides_array, x.offset,
            weight.storage, weight.shape_array, weight.strides_array, weight.offset,
            window_settings(stride, dilation, padding), tuple(grad.shape[2:]), groups, needs,
            n_chunks,
        )  # fmt: skip

    def max_pool2d(
        self, values: TensorData, indices: TensorData, x: TensorData,
        kernel_size: tuple, stride: tuple, dilation: tuple, padding: tuple,
    ) -> None:  # fmt: skip
        """One pass over each window, clipped to the input (`_max_pool2d`)."""
        work = math.prod(values.shape) * math.prod(kernel_size)
        kernel, n_chunks = self.choose(KERNELS["_max_pool2d"], work, self.window_parallel_threshold)
        size = values.numel()
        kernel(
            values.storage[values.offset : values.offset + size],
            indices.storage[indices.offset : indices.offset + size],
            x.storage, x.shape_array, x.strides_array, x.offset,
            tuple(kernel_size), window_settings(stride, dilation, padding), tuple(values.shape[2:]),
            n_chunks,
        )  # fmt: skip

    def max_pool2d_backward(
        self, grad_x: TensorData, grad: TensorData, indices: TensorData
    ) -> None:
        """Each plane of `grad_x` zero-filled, then each gradient added at its window's maximum
        (`_max_pool2d_backward`)."""
        work = grad_x.numel()
        kernel, n_chunks = self.choose(
            KERNELS["_max_pool2d_backward"], work, self.window_parallel_threshold
        )
        kernel(
            grad_x.storage[grad_x.offset : grad_x.offset + grad_x.numel()],
            grad.storage, grad.shape_array, grad.strides_array, grad.offset,
            indices.storage[indices.offset : indices.offset + indices.numel()],
            math.prod(grad_x.shape[2:]), n_chunks,
        )  # fmt: skip
