"""The GPU's convolution and pooling: the optional window kernels, a thread per result.

`CudaBackend` registers them under the names `FastBackend` uses (`conv2d`,
`conv2d_backward`, `max_pool2d`, `max_pool2d_backward`: `interface.OPTIONAL_KERNELS`), with
the same arguments, and `avg_pool2d`, `avg_pool2d_backward`, so convolution and pooling on
`cuda` tensors run these instead of the exercise path (windows copied into columns, a
batched matmul, col2im). Each thread computes one element and loops over the taps that
reach it:

- **Convolution** (`cuda_conv2d`): a thread per output element sums its window times the
  weight. Its input gradient (`cuda_conv2d_input_grad`) is a gather, a thread per input
  element over the outputs whose windows cover it, so no two threads write one element; its
  weight gradient (`cuda_conv2d_weight_grad`) a thread per weight element over the batch
  and the output plane (and a thread per bias element), summed in float64 as on the CPU.
- **Average pooling** (`cuda_avg_pool2d`): a thread per window sums the window's taps
  inside the input and divides by its count as PyTorch counts it (padding included or not)
  or by the divisor given; the backward (`cuda_avg_pool2d_backward`) is a gather, a thread
  per input element over the windows that cover it.
- **Max pooling** (`cuda_max_pool2d`): a thread per window, clipped to the input as
  PyTorch clips it, records the maximum and its position in the input plane; the backward
  (`cuda_max_pool2d_backward`) adds each gradient there with an atomic add, since
  overlapping windows can share a maximum.

The settings are (stride, dilation, padding before) as pairs flattened into one tuple:
$(s_H, s_W, d_H, d_W, p_H, p_W)$.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numba
import numpy as np

from ..interface import bias_arguments, window_settings
from ..tensor_data import TensorData
from .compiler import device_function
from .driver import cuda


def window_sum(total, x, x_at, x_strides, plane_dim, x_shape, y, y_at, y_steps, extent, taps):
    """`total` plus the products of a window of `x` (N, C, H, W) with a block of `y`, the sum
    that both the convolution and its weight gradient are (a device function of both).

    With extent $(P, R, Q)$, taps $(h_0, \\delta_h, v_0, \\delta_v)$ and `y_steps`
    $(t_p, t_r, t_q)$: $\\sum_{p < P, r < R, q < Q} x[x_{at} + p\\, s_{plane} + h s_2 + v s_3]
    \\cdot y[y_{at} + p t_p + r t_r + q t_q]$ with $h = h_0 + r \\delta_h$ and
    $v = v_0 + q \\delta_v$, over the $(h, v)$ inside x's plane; $s_{plane}$ is the stride of
    x's dim `plane_dim` (0: the batch, 1: the channels). Summed in `total`'s type.
    """
    h0, h_step, v0, v_step = taps
    for p in range(extent[0]):
        xp = x_at + p * x_strides[plane_dim]
        yp = y_at + p * y_steps[0]
        for r in range(extent[1]):
            h = h0 + r * h_step
            if 0 <= h < x_shape[2]:
                for q in range(extent[2]):
                    v = v0 + q * v_step
                    if 0 <= v < x_shape[3]:
                        total += (
                            x[xp + h * x_strides[2] + v * x_strides[3]]
                            * y[yp + r * y_steps[1] + q * y_steps[2]]
                        )
    return total


def element_index(e, shape) -> tuple:
    """The index $(n, c, h, w)$ of element $e$ of a contiguous layout of `shape` $(N, C, H, W)$,
    the element a thread of the convolution's kernels and of max pooling computes:
    $e = ((n C + c) H + h) W + w$."""
    channels, height, width = shape[1], shape[2], shape[3]
    plane = height * width
    return e // (plane * channels), e // plane % channels, e // width % height, e % width


def window_taps(y, t, settings) -> tuple:
    """Where window $(y, t)$ starts in its input plane and the steps between its taps,
    $(y s_H - p_H, d_H, t s_W - p_W, d_W)$: the `taps` of `window_sum` (a device function of
    the convolution and of max pooling)."""
    sh, sw, dh, dw, ph, pw = settings
    return y * sh - ph, dh, t * sw - pw, dw


def cuda_conv2d(element) -> Callable:
    """The body of the convolution: thread $e$ computes element (n, o, y, x) of the contiguous
    `out`, $b_o + \\sum_{c, i, j} W[o, c, i, j]\\, x[n, g C_g + c, y s_H + i d_H - p_H,
    x s_W + j d_W - p_W]$ for the group $g$ of $o$, summed in `element` (out's type)."""
    sum_window, index_of = device_function(window_sum), device_function(element_index)
    taps_of = device_function(window_taps)

    def _conv2d(
        out, out_shape, out_offset, size,
        x, x_shape, x_strides, x_offset,
        w, w_shape, w_strides, w_offset,
        bias, b_stride, b_offset, has_bias, settings, groups,
    ):  # fmt: skip
        e = cuda.grid(1)
        if e >= size:
            return
        o_count, c_group, kh, kw = w_shape[0], w_shape[1], w_shape[2], w_shape[3]
        n, o, y, t = index_of(e, out_shape)
        first = o // (o_count // groups) * c_group  # the group's first input channel
        out[out_offset + e] = sum_window(
            bias[b_offset + o * b_stride] if has_bias else element(0),
            x, x_offset + n * x_strides[0] + first * x_strides[1], x_strides, 1, x_shape,
            w, w_offset + o * w_strides[0], (w_strides[1], w_strides[2], w_strides[3]),
            (c_group, kh, kw), taps_of(y, t, settings),
        )  # fmt: skip

    return _conv2d


def cuda_conv2d_input_grad(element) -> Callable:
    """The body of the convolution's input gradient: thread $e$ computes element (n, c, h, v)
    of the contiguous `grad_x`, $\\sum g[n, o, y, x]\\, W[o, c - g C_g, i, j]$ over the outputs
    $o$ of the group of $c$ and the taps with $y s_H + i d_H - p_H = h$, $x s_W + j d_W - p_W
    = v$, summed in `element`."""
    index_of = device_function(element_index)

    def _conv2d_input_grad(
        grad_x, x_shape, gx_offset, size,
        grad, g_shape, g_strides, g_offset,
        w, w_shape, w_strides, w_offset, settings, groups,
    ):  # fmt: skip
        e = cuda.grid(1)
        if e >= size:
            return
        sh, sw, dh, dw, ph, pw = settings
        o_count, c_group, kh, kw = w_shape[0], w_shape[1], w_shape[2], w_shape[3]
        n, c, h, v = index_of(e, x_shape)
        group_out = o_count // groups
        first = c // c_group * group_out  # the group's first output channel
        gn = g_offset + n * g_strides[0]
        wc = w_offset + (c % c_group) * w_strides[1]
        total = element(0)
        for i in range(kh):
            top = h + ph - i * dh  # y s_H, when this tap of some window y lands on h
            if top < 0 or top % sh != 0 or top // sh >= g_shape[2]:
                continue
            for j in range(kw):
                left = v + pw - j * dw
                if left < 0 or left % sw != 0 or left // sw >= g_shape[3]:
                    continue
                q = gn + top // sh * g_strides[2] + left // sw * g_strides[3]
                p = wc + i * w_strides[2] + j * w_strides[3]
                for o in range(first, first + group_out):
                    total += grad[q + o * g_strides[1]] * w[p + o * w_strides[0]]
        grad_x[gx_offset + e] = total

    return _conv2d_input_grad


def cuda_conv2d_weight_grad() -> Callable:
    """The body of the convolution's weight and bias gradients: thread $e < $ `w_count`
    computes element (o, c, i, j) of the contiguous `grad_w`, $\\sum_{n, y, x} g[n, o, y, x]\\,
    x[n, g C_g + c, y s_H + i d_H - p_H, x s_W + j d_W - p_W]$; the next `b_count` threads
    element $o$ of `grad_b`, $\\sum_{n, y, x} g[n, o, y, x]$. Sums over the batch are float64."""
    sum_window, index_of = device_function(window_sum), device_function(element_index)

    def _conv2d_weight_grad(
        grad_w, gw_offset, w_count, grad_b, gb_offset, b_count,
        grad, g_shape, g_strides, g_offset,
        x, x_shape, x_strides, x_offset,
        w_shape, settings, groups,
    ):  # fmt: skip
        e = cuda.grid(1)
        if e >= w_count + b_count:
            return
        sh, sw, dh, dw, ph, pw = settings
        o_count, c_group = w_shape[0], w_shape[1]
        out_h, out_w = g_shape[2], g_shape[3]
        total = 0.0
        if e >= w_count:
            o = e - w_count
            for n in range(g_shape[0]):
                for y in range(out_h):
                    q = g_offset + n * g_strides[0] + o * g_strides[1] + y * g_strides[2]
                    for t in range(out_w):
                        total += grad[q + t * g_strides[3]]
            grad_b[gb_offset + o] = total
            return
        o, c, i, j = index_of(e, w_shape)
        channel = o // (o_count // groups) * c_group + c
        grad_w[gw_offset + e] = sum_window(
            total,
            x, x_offset + channel * x_strides[1], x_strides, 0, x_shape,
            grad, g_offset + o * g_strides[1], (g_strides[0], g_strides[2], g_strides[3]),
            (g_shape[0], out_h, out_w), (i * dh - ph, sh, j * dw - pw, sw),
        )  # fmt: skip

    return _conv2d_weight_grad


def cuda_max_pool2d() -> Callable:
    """The body of max pooling: thread $e$ takes window (n, c, y, x) of `x` clipped to the
    input, and writes its maximum into the contiguous `values` and its position $h W + w$ in
    the input plane into `indices`. As on the CPU (and in PyTorch): the first maximum wins,
    a NaN beats everything (the last NaN wins), and a window wholly in the padding gives
    $-\\infty$ at its first tap at or after the input's start."""
    index_of, taps_of = device_function(element_index), device_function(window_taps)

    def _max_pool2d(
        values, v_shape, v_offset, size, indices, i_offset,
        x, x_shape, x_strides, x_offset, kernel, settings,
    ):  # fmt: skip
        e = cuda.grid(1)
        if e >= size:
            return
        height, width = x_shape[2], x_shape[3]
        n, c, y, t = index_of(e, v_shape)
        top, dh, left, dw = taps_of(y, t, settings)
        i0, j0 = max(0, -(top // dh)), max(0, -(left // dw))  # the first taps inside
        base = x_offset + n * x_strides[0] + c * x_strides[1]
        best = -math.inf
        best_at = (top + i0 * dh) * width + left + j0 * dw
        for i in range(i0, kernel[0]):
            h = top + i * dh
            if h < height:
                for j in range(j0, kernel[1]):
                    v = left + j * dw
                    if v < width:
                        value = x[base + h * x_strides[2] + v * x_strides[3]]
                        if value > best or value != value:
                            best, best_at = value, h * width + v
        values[v_offset + e] = best
        indices[i_offset + e] = best_at

    return _max_pool2d


def cuda_max_pool2d_backward() -> Callable:
    """The body of max pooling's backward: thread $e$ adds $g[n, c, y, x]$ into the contiguous
    `grad_x` at position `indices[e]` of plane (n, c), atomically (windows that overlap can
    share a maximum); a position outside the plane (a window wholly in the padding) adds
    nothing."""

    def _max_pool2d_backward(
        grad_x, gx_offset, plane, grad, g_shape, g_strides, g_offset, size, indices, i_offset
    ):
        e = cuda.grid(1)
        if e >= size:
            return
        at = indices[i_offset + e]
        if at < 0 or at >= plane:
            return
        channels, out_h, out_w = g_shape[1], g_shape[2], g_shape[3]
        t, y = e % out_w, e // out_w % out_h
        item = e // (out_w * out_h)  # n C + c
        q = g_offset + item // channels * g_strides[0] + item % channels * g_strides[1]
        value = grad[q + y * g_strides[2] + t * g_strides[3]]
        cuda.atomic.add(grad_x, gx_offset + item * plane + at, value)

    return _max_pool2d_backward


def window_span(y, k, s, p, size, count_include_pad) -> tuple:
    """Window $y$ of average pooling along one dim: the first and the end of its taps inside
    the input, and how many elements it averages as PyTorch counts them. The window is
    $[y s - p, \\min(y s - p + k, L + p))$, clipped to $[0, L)$ for its taps, and also for
    its count without `count_include_pad` (a device function of both average pools)."""
    start = y * s - p
    end = min(start + k, size + p)
    first, last = max(start, 0), min(end, size)
    return first, last, (end - start) if count_include_pad else (last - first)


def cuda_avg_pool2d() -> Callable:
    """The body of average pooling: thread $e$ writes the mean of window (n, c, y, x) of `x`
    into the contiguous `values`: its sum (in float64, as the CPU's sums) divided by
    `divisor`, or by the window's count (`window_span`) when `divisor` is 0."""
    index_of, span_of = device_function(element_index), device_function(window_span)

    def _avg_pool2d(
        values, v_shape, v_offset, size,
        x, x_shape, x_strides, x_offset, kernel, settings, count_include_pad, divisor,
    ):  # fmt: skip
        e = cuda.grid(1)
        if e >= size:
            return
        sh, sw, _, _, ph, pw = settings
        n, c, y, t = index_of(e, v_shape)
        top, bottom, rows = span_of(y, kernel[0], sh, ph, x_shape[2], count_include_pad)
        left, right, columns = span_of(t, kernel[1], sw, pw, x_shape[3], count_include_pad)
        base = x_offset + n * x_strides[0] + c * x_strides[1]
        total = 0.0
        for h in range(top, bottom):
            for v in range(left, right):
                total += x[base + h * x_strides[2] + v * x_strides[3]]
        values[v_offset + e] = total / (divisor if divisor != 0 else rows * columns)

    return _avg_pool2d


def covering_windows(h, k, s, p, windows) -> tuple:
    """The first and the end of the windows $y$ along one dim whose taps $[y s - p,
    y s - p + k)$ cover position $h$: $\\lceil (h + p - k + 1) / s \\rceil \\le y \\le
    \\lfloor (h + p) / s \\rfloor$, within $[0, \\text{windows})$."""
    reach = h + p - k + 1
    first = 0 if reach <= 0 else (reach + s - 1) // s
    return first, min((h + p) // s + 1, windows)


def cuda_avg_pool2d_backward() -> Callable:
    """The body of average pooling's backward: thread $e$ computes element (n, c, h, v) of the
    contiguous `grad_x`, $\\sum g[n, c, y, x] / \\text{divisor}(y, x)$ over the windows that
    cover (h, v) (`covering_windows`), in float64: a gather, so no two threads write one
    element."""
    index_of, span_of = device_function(element_index), device_function(window_span)
    cover = device_function(covering_windows)

    def _avg_pool2d_backward(
        grad_x, x_shape, gx_offset, size,
        grad, g_shape, g_strides, g_offset, kernel, settings, count_include_pad, divisor,
    ):  # fmt: skip
        e = cuda.grid(1)
        if e >= size:
            return
        sh, sw, _, _, ph, pw = settings
        n, c, h, v = index_of(e, x_shape)
        y0, y1 = cover(h, kernel[0], sh, ph, g_shape[2])
        t0, t1 = cover(v, kernel[1], sw, pw, g_shape[3])
        base = g_offset + n * g_strides[0] + c * g_strides[1]
        total = 0.0
        for y in range(y0, y1):
            rows = span_of(y, kernel[0], sh, ph, x_shape[2], count_include_pad)[2]
            for t in range(t0, t1):
                columns = span_of(t, kernel[1], sw, pw, x_shape[3], count_include_pad)[2]
                share = divisor if divisor != 0 else rows * columns
                total += grad[base + y * g_strides[2] + t * g_strides[3]] / share
        grad_x[gx_offset + e] = total

    return _avg_pool2d_backward


# ---------------------------------------------------------------------------
# The kernels as methods of `CudaBackend`
# ---------------------------------------------------------------------------


def element_type(layout: TensorData):
    """The Numba type of `layout`'s elements: what a kernel's sums run in."""
    return numba.from_dtype(np.dtype(layout.storage.dtype))


def pool_settings(kernel_size, stride, padding, count_include_pad, divisor) -> tuple:
    """The last arguments of both average-pooling kernels: the kernel size, (stride, dilation
    1, padding) as `window_settings`, whether the padding counts, the divisor (0: the count)."""
    kernel = tuple(int(k) for k in kernel_size)
    settings = window_settings(stride, (1, 1), padding)
    return kernel, settings, bool(count_include_pad), int(divisor or 0)


class WindowKernels:
    """Convolution and max pooling, a thread per result (mixed into `CudaBackend`, whose
    `compiled`, `launch` and `layout_args` they use): the optional kernels of those names, as
    `interface.OPTIONAL_KERNELS` describes them. Inputs have any strides; outputs are
    contiguous layouts that the caller allocated; `padding` is the padding before each
    spatial dim."""

    def launch_per_element(self, kernel: Callable, out: TensorData, *args) -> None:
        """Launch `kernel` with a thread per element of the contiguous `out`, whose storage,
        shape, offset and size are its first arguments (`kernels.window_out`), then `args`
        (`launch` starts nothing for an empty `out`)."""
        size = out.numel()
        storage, shape, _, offset = self.layout_args(out)
        self.launch(kernel, size, storage, shape, offset, size, *args)

    def conv2d(
        self, out: TensorData, x: TensorData, weight: TensorData, bias: TensorData | None,
        stride: tuple, dilation: tuple, padding: tuple, groups: int,
    ) -> None:  # fmt: skip
        """A thread per element of `out` (`cuda_conv2d`), summed in out's dtype."""
        self.launch_per_element(
            self.compiled("conv2d", element_type(out)), out,
            *self.layout_args(x), *self.layout_args(weight), *bias_arguments(bias, x),
            window_settings(stride, dilation, padding), int(groups),
        )  # fmt: skip

    def conv2d_backward(
        self, grad_x: TensorData | None, grad_w: TensorData | None, grad_b: TensorData | None,
        grad: TensorData, x: TensorData, weight: TensorData,
        stride: tuple, dilation: tuple, padding: tuple, groups: int,
    ) -> None:  # fmt: skip
        """The input's gradient in one kernel, a thread per element of `grad_x`
        (`cuda_conv2d_input_grad`), the weight's and the bias's together in another, a thread
        per element of `grad_w` and of `grad_b` (`cuda_conv2d_weight_grad`)."""
        settings = window_settings(stride, dilation, padding)
        if grad_x is not None:
            self.launch_per_element(
                self.compiled("conv2d_input_grad", element_type(grad_x)), grad_x,
                *self.layout_args(grad), *self.layout_args(weight), settings, int(groups),
            )  # fmt: skip
        w_count = 0 if grad_w is None else grad_w.numel()
        b_count = 0 if grad_b is None else grad_b.numel()
        if w_count + b_count == 0:
            return
        # A gradient not wanted is given another storage of the dtype, which no thread writes.
        gw = grad_w if grad_w is not None else grad_b
        gb = grad_b if grad_b is not None else grad_w
        self.launch(
            self.compiled("conv2d_weight_grad"), w_count + b_count,
            gw.storage, gw.offset, w_count, gb.storage, gb.offset, b_count,
            *self.layout_args(grad), *self.layout_args(x), self.layout_args(weight)[1],
            settings, int(groups),
        )  # fmt: skip

    def max_pool2d(
        self, values: TensorData, indices: TensorData, x: TensorData,
        kernel_size: tuple, stride: tuple, dilation: tuple, padding: tuple,
    ) -> None:  # fmt: skip
        """A thread per window (`cuda_max_pool2d`)."""
        self.launch_per_element(
            self.compiled("max_pool2d"), values, indices.storage, indices.offset,
            *self.layout_args(x),
            tuple(int(k) for k in kernel_size), window_settings(stride, dilation, padding),
        )  # fmt: skip

    def avg_pool2d(
        self, values: TensorData, x: TensorData, kernel_size: tuple, stride: tuple,
        padding: tuple, count_include_pad: bool, divisor: int,
    ) -> None:  # fmt: skip
        """A thread per window (`cuda_avg_pool2d`), summed in float64."""
        self.launch_per_element(
            self.compiled("avg_pool2d"), values, *self.layout_args(x),
            *pool_settings(kernel_size, stride, padding, count_include_pad, divisor),
        )  # fmt: skip

    def avg_pool2d_backward(
        self, grad_x: TensorData, grad: TensorData, kernel_size: tuple, stride: tuple,
        padding: tuple, count_include_pad: bool, divisor: int,
    ) -> None:  # fmt: skip
        """A thread per element of `grad_x` over the windows that cover it
        (`cuda_avg_pool2d_backward`), summed in float64."""
        self.launch_per_element(
            self.compiled("avg_pool2d_backward"), grad_x, *self.layout_args(grad),
            *pool_settings(kernel_size, stride, padding, count_include_pad, divisor),
        )  # fmt: skip

    def max_pool2d_backward(
        self, grad_x: TensorData, grad: TensorData, indices: TensorData
    ) -> None:
        """A thread per element of `grad`, each adding it atomically at its window's
        maximum (`cuda_max_pool2d_backward`)."""
        size = grad.numel()
        if size == 0:
            return
        plane = grad_x.shape[2] * grad_x.shape[3]
        self.launch(
            self.compiled("max_pool2d_backward"), size,
            grad_x.storage, grad_x.offset, plane, *self.layout_args(grad), size,
            indices.storage, indices.offset,
        )  # fmt: skip
