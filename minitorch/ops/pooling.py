"""Pooling: `max_pool1d/2d`, `avg_pool1d/2d`, `adaptive_avg_pool1d/2d`.

Pooling reuses convolution's windows (`sliding_windows`, a strided view of the
padded input): max pooling copies the windows into rows of kH * kW elements
and takes the backend's arg-max along them; average pooling sums the view
directly. Both backwards put the gradient back through the same windows
(`add_windows`). Adaptive average pooling, whose windows vary in size, is two
matrix products with averaging matrices. 1-D pooling is 2-D pooling of
height 1, recorded as PyTorch records it (Unsqueeze, the 2-D node, Squeeze).
On a backend with the optional window kernels (`window_kernels`: the default
cpu backend and cuda have them), floating-point max pooling is one kernel call each way,
which records the maxima's positions (`tuned_max_pool`); on one with `avg_pool2d` (cuda),
so is average pooling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..autograd.graph import GraphContext
from ..backends import backend_for
from ..backends.tensor_data import prod
from ..dtypes import int64
from ..operators import greater_or_nan
from ..tensors.creation import arange, tensor, zeros
from ..tensors.kernels import arg_reduce, new_tensor
from .convolution import add_windows, interior, padded, sliding_windows, window_kernels
from .functions import Op
from .public import public
from .reductions import mean
from .views import squeeze, unsqueeze

if TYPE_CHECKING:
    from .._tensor import Tensor


def pooled_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """Output length of a pooling: $\\lfloor (L + 2p - d(k - 1) - 1) / s \\rfloor + 1$
    (rounded up in `ceil_mode`, as long as the last window starts inside the input)."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def pool_padding(shape, kernel, stride, padding, dilation, out_size) -> tuple[tuple, tuple]:
    """Padding before and after each spatial dim: `padding`, plus whatever the last window
    of `ceil_mode` reaches past it."""
    after = tuple(
        max(p, (o - 1) * s + d * (k - 1) + 1 - n - p)
        for n, k, s, p, d, o in zip(shape, kernel, stride, padding, dilation, out_size, strict=True)
    )
    return tuple(padding), after


def lowest(t: Tensor) -> float:
    """The padding of max pooling: $-\\infty$, or the smallest integer of `t`'s dtype."""
    kind = t.dtype.numpy_dtype
    return -np.inf if t.dtype.is_floating_point else int(np.iinfo(kind).min)


def window_maxima(windows: Tensor) -> tuple[Tensor, Tensor]:
    """The largest element of each window of `windows` (N, C, kH, kW, oH, oW), shape
    (N, C, oH, oW, 1), and its offset $k = i \\cdot kW + j$ in the window (the first on ties)."""
    # BEGIN SOLUTION 4.3
    n, c, kh, kw, oh, ow = windows.shape
    rows = windows.permute(0, 1, 4, 5, 2, 3).contiguous().view(n * c * oh * ow, kh * kw)
    values, best = arg_reduce(greater_or_nan, rows, 1)  # a 2-D layout: cheap index math
    return values.view(n, c, oh, ow, 1), best.view(n, c, oh, ow, 1)
    # END SOLUTION 4.3


def max_to_windows(grad: Tensor, best: Tensor, kernel: tuple) -> Tensor:
    """The gradient of each window (N, C, kH, kW, oH, oW): `grad` (N, C, oH, oW) at the
    window's maximum (offset `best`, (N, C, oH, oW, 1)), 0 elsewhere."""
    # BEGIN SOLUTION 4.3
    n, c, oh, ow = grad.shape
    rows = grad.view(n, c, oh, ow, 1).where(arange(prod(kernel), device=grad.device) == best, 0.0)
    return rows.view(n, c, oh, ow, *kernel).permute(0, 1, 4, 5, 2, 3)
    # END SOLUTION 4.3


def back_through_windows(ctx: GraphContext, windows_grad: Tensor, dilation: tuple) -> Tensor:
    """The input's gradient: `windows_grad` added up through the windows of the padded
    input (col2im), without the padding."""
    image_shape, padded_shape, input_shape = ctx.shapes
    grad_padded = new_tensor(padded_shape, windows_grad.dtype, windows_grad.device)
    add_windows(grad_padded, windows_grad, ctx.stride, dilation)
    inside = interior(grad_padded, ctx.before, tuple(image_shape[2:]))
    return inside.contiguous().view(input_shape)


class MaxPool2DWithIndices(Op):
    """$y[n, c, y, x] = \\max$ of the window at (y, x); indices point into each input plane."""

    once_differentiable = True  # its backward calls kernels: no second derivative

    @staticmethod
    def forward(ctx, x, kernel, stride, padding, dilation, out_size, with_indices):
        """The windows copied into rows of kH * kW elements; arg-max along them (one kernel
        call on a backend with window kernels)"""
        image = x if x.ndim == 4 else unsqueeze(x, 0)
        shape = tuple(x.shape[:-2]) + tuple(out_size)
        ctx.tuned = window_kernels(x) is not None
        if ctx.tuned:
            values, indices = tuned_max_pool(image, kernel, stride, padding, dilation, out_size)
            empty = empty_windows(
                image.shape[2:], kernel, stride, padding, dilation, out_size, x.device
            )
            # PyTorch's index of an empty window can name an element of the input; the
            # backward kernel passes nothing on for an index outside the plane
            ctx.save_for_backward(indices if empty is None else indices.where(~empty, -1))
            ctx.shapes = (image.shape, x.shape)
            return (values.view(shape), indices.view(shape)) if with_indices else values.view(shape)
        before, after = pool_padding(image.shape[2:], kernel, stride, padding, dilation, out_size)
        xp = padded(image, before, after, lowest(x))
        values, best = window_maxima(sliding_windows(xp, kernel, stride, dilation))
        ctx.save_for_backward(best)
        ctx.shapes, ctx.before, ctx.stride = (image.shape, xp.shape, x.shape), before, stride
        ctx.kernel, ctx.dilation = kernel, dilation
        if not with_indices:
            return values.view(shape)
        # the index of each maximum in its input plane: row * W + column
        top = arange(out_size[0], device=x.device).view(-1, 1, 1) * stride[0] - padding[0]
        left = arange(out_size[1], device=x.device).view(1, -1, 1) * stride[1] - padding[1]
        row = top + (best // kernel[1]) * dilation[0]
        col = left + (best % kernel[1]) * dilation[1]
        # A maximum in the padding (no element of the window above it): PyTorch names the
        # window's first position at or after the input's start, where its loops begin, which
        # lies past the input for a window wholly in the padding.
        height, width = image.shape[2:]
        outside = (row < 0) | (row >= height) | (col < 0) | (col >= width)
        row = row.where(~outside, first_tap(top, dilation[0]))
        col = col.where(~outside, first_tap(left, dilation[1]))
        return values.view(shape), (row * width + col).view(shape)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ to the element that won each window (summed where windows overlap)"""
        if ctx.tuned:
            return tuned_max_pool_backward(ctx, grad)
        (best,) = ctx.saved_tensors
        windows_grad = max_to_windows(grad.reshape(best.shape[:4]), best, ctx.kernel)
        return back_through_windows(ctx, windows_grad, ctx.dilation)


def empty_windows(size, kernel, stride, padding, dilation, out_size, device) -> Tensor | None:
    """Which windows (an (oH, oW) bool tensor on `device`) have no tap inside the input, or
    None when none: their maximum is $-\\infty$, a constant, and passes no gradient on."""
    empty = [
        [all(not 0 <= i * s - p + j * d < length for j in range(k)) for i in range(n)]
        for length, k, s, p, d, n in zip(
            size, kernel, stride, padding, dilation, out_size, strict=True
        )
    ]
    if not any(any(line) for line in empty):
        return None
    return tensor(empty[0], device=device).view(-1, 1) | tensor(empty[1], device=device).view(1, -1)


def first_tap(start: Tensor, dilation: int) -> Tensor:
    """The first tap $start + k d \\ge 0$ of windows that start at `start`."""
    return start + ((-start).clamp(min=0) + dilation - 1) // dilation * dilation


def tuned_max_pool(image, kernel, stride, padding, dilation, out_size) -> tuple[Tensor, Tensor]:
    """Max pooling of `image` (N, C, H, W) in one kernel call: the maxima and their positions
    in the input planes, (N, C, oH, oW) each."""
    shape = (*image.shape[:2], *out_size)
    values, indices = (
        new_tensor(shape, image.dtype, image.device),
        new_tensor(shape, int64, image.device),
    )
    backend_for(image.device).kernel("max_pool2d")(
        values._layout, indices._layout, image._layout, kernel, stride, dilation, padding
    )
    return values, indices


def tuned_max_pool_backward(ctx: GraphContext, grad: Tensor) -> Tensor:
    """Each gradient added at its window's maximum, in one kernel call."""
    (indices,) = ctx.saved_tensors
    image_shape, input_shape = ctx.shapes
    grad_x = new_tensor(image_shape, grad.dtype, grad.device)
    backend_for(grad.device).kernel("max_pool2d_backward")(
        grad_x._layout, grad.reshape(indices.shape)._layout, indices._layout
    )
    return grad_x.view(input_shape)


def averaging_sizes(size, k, s, p, out, count_include_pad, dtype, device) -> Tensor:
    """How many elements each window along one dim averages, as PyTorch counts them: the
    window $[i s - p, i s - p + k)$ clipped to the padded input, or to the input itself
    without `count_include_pad`."""
    start = arange(out, device=device) * s - p
    end = (start + k).clamp(max=size + p)
    if not count_include_pad:
        start, end = start.clamp(min=0), end.clamp(max=size)
    return (end - start).to(dtype)


def window_means(windows: Tensor, divisor: Tensor) -> Tensor:
    """The sum of each window of `windows` (N, C, kH, kW, oH, oW) divided by `divisor`
    (oH, oW): shape (N, C, oH, oW)."""
    # BEGIN SOLUTION 4.3
    return windows.sum((2, 3)) / divisor
    # END SOLUTION 4.3


def mean_to_windows(grad: Tensor, divisor: Tensor, kernel: tuple) -> Tensor:
    """The gradient of each window (N, C, kH, kW, oH, oW): $g / \\text{divisor}$ for each of
    its elements (an expanded view, no copy)."""
    # BEGIN SOLUTION 4.3
    share = (grad / divisor).unsqueeze(2).unsqueeze(3)
    return share.expand(*share.shape[:2], *kernel, *share.shape[4:])
    # END SOLUTION 4.3


class AvgPool2D(Op):
    """$y[n, c, y, x]$ = the sum of the window at (y, x) / its size"""

    once_differentiable = True  # its backward calls kernels: no second derivative

    @staticmethod
    def forward(ctx, x, kernel, stride, padding, out_size, count_include_pad, divisor_override):
        """The sum over the windows' view (no copy), divided by each window's divisor"""
        image = x if x.ndim == 4 else unsqueeze(x, 0)
        shape = tuple(x.shape[:-2]) + tuple(out_size)
        backend = backend_for(x.device)
        ctx.tuned = backend.kernel("avg_pool2d") is not None
        if ctx.tuned:
            ctx.settings = (kernel, stride, padding, count_include_pad, divisor_override or 0)
            ctx.shapes = (image.shape, x.shape)
            out = new_tensor((*image.shape[:2], *out_size), x.dtype, x.device)
            backend.kernel("avg_pool2d")(out._layout, image._layout, *ctx.settings)
            return out.view(shape)
        height, width = image.shape[2:]
        before, after = pool_padding((height, width), kernel, stride, padding, (1, 1), out_size)
        if divisor_override:
            divisor = tensor(float(divisor_override), dtype=x.dtype, device=x.device)
        else:
            sizes = (height, width)
            rows, cols = (
                averaging_sizes(n, k, s, p, o, count_include_pad, x.dtype, x.device)
                for n, k, s, p, o in zip(sizes, kernel, stride, padding, out_size, strict=True)
            )
            divisor = rows.view(-1, 1) * cols.view(1, -1)
        xp = padded(image, before, after)
        out = window_means(sliding_windows(xp, kernel, stride, (1, 1)), divisor)
        ctx.save_for_backward(divisor)
        ctx.shapes, ctx.before, ctx.stride = (image.shape, xp.shape, x.shape), before, stride
        ctx.kernel = kernel
        return out.view(shape)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g / \\text{divisor}$ to every element of each window"""
        if ctx.tuned:
            image_shape, input_shape = ctx.shapes
            grad_x = new_tensor(image_shape, grad.dtype, grad.device)
            grad = grad.reshape(*image_shape[:2], *grad.shape[-2:])
            backend_for(grad.device).kernel("avg_pool2d_backward")(
                grad_x._layout, grad._layout, *ctx.settings
            )
            return grad_x.view(input_shape)
        (divisor,) = ctx.saved_tensors
        batch = ctx.shapes[0][:2]
        windows_grad = mean_to_windows(grad.reshape(*batch, *grad.shape[-2:]), divisor, ctx.kernel)
        return back_through_windows(ctx, windows_grad, (1, 1))


def averaging_matrix(out: int, size: int, dtype, device) -> Tensor:
    """(out, size): row i averages input positions $\\lfloor i L / o \\rfloor$ to
    $\\lceil (i + 1) L / o \\rceil$ (exclusive), the windows of adaptive pooling."""
    if out == 0:
        return zeros(0, size, dtype=dtype, device=device)
    i, j = arange(out, device=device).view(-1, 1), arange(size, device=device).view(1, -1)
    start, end = (i * size) // out, ((i + 1) * size + out - 1) // out
    inside = (j >= start) & (j < end)
    return inside.to(dtype) / (end - start).to(dtype)


class AdaptiveAvgPool2D(Op):
    """$Y = A_H X A_W^T$ for each plane $X$, $A$ the averaging matrices"""

    @staticmethod
    def forward(ctx: GraphContext, x: Tensor, out_size: tuple) -> Tensor:
        rows = averaging_matrix(out_size[0], x.shape[-2], x.dtype, x.device)
        cols = averaging_matrix(out_size[1], x.shape[-1], x.dtype, x.device)
        ctx.save_for_backward(rows, cols)
        return (rows @ x @ cols.transpose(0, 1)).contiguous()

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$A_H^T G A_W$"""
        rows, cols = ctx.saved_tensors
        return rows.transpose(0, 1) @ grad @ cols


# ---------------------------------------------------------------------------
# The functions users call: argument checks with PyTorch's messages
# ---------------------------------------------------------------------------


def pool_param(
    value, name: str, fn: str, default=None, text="a single int, or a tuple of two ints"
):
    """An int or a pair as a pair (`default` when None); `text` says what else was expected."""
    if value is None:
        return default
    if isinstance(value, int):
        return (value, value)
    value = tuple(value)
    if len(value) == 1:
        return value * 2
    if len(value) != 2:
        raise RuntimeError(f"{fn}: {name} must either be {text}")
    return value


def check_pool(x, kernel, stride, padding, dilation, ceil_mode) -> tuple:
    """PyTorch's checks of a 2-D pooling; the output size."""
    if x.ndim not in (3, 4) or x.numel() == 0 and x.ndim == 3:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if any(size == 0 for size in x.shape[-3:]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{list(x.shape)}"
        )
    if any(k <= 0 for k in kernel):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}"
        )
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {dilation[0]} "
            f"dilationW: {dilation[1]}"
        )
    if any(p < 0 for p in padding):
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    for k, p, d in zip(kernel, padding, dilation, strict=True):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )
    plane = tuple(x.shape[-2:])
    out = tuple(
        pooled_size(n, k, s, p, d, ceil_mode)
        for n, k, s, p, d in zip(plane, kernel, stride, padding, dilation, strict=True)
    )
    if any(o <= 0 for o in out):
        c = x.shape[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{plane[0]}x{plane[1]}). Calculated output size: "
            f"({c}x{out[0]}x{out[1]}). Output size is too small"
        )
    return out


@public(method=False, functional=True)
def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """The maximum of each kH x kW window of `input` (N, C, H, W) or (C, H, W).

    `stride` defaults to the kernel size; windows reach into `padding` ($-\\infty$) only.
    With `return_indices`, also the position of each maximum in its (H * W) input plane.

    >>> import minitorch
    >>> minitorch.max_pool2d(minitorch.arange(16.0).view(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
    """
    kernel = pool_param(kernel_size, "kernel_size", "max_pool2d")
    stride = pool_param(stride, "stride", "max_pool2d", kernel) or kernel
    padding = pool_param(padding, "padding", "max_pool2d")
    dilation = pool_param(dilation, "dilation", "max_pool2d")
    out = check_pool(input, kernel, stride, padding, dilation, ceil_mode)
    settings = (kernel, stride, padding, dilation, out, return_indices)
    return MaxPool2DWithIndices.apply(input, *settings)


@public(method=False, functional=True)
def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """The maximum of each window of `input` (N, C, L) or (C, L): 2-D pooling of height 1.

    >>> import minitorch
    >>> minitorch.max_pool1d(minitorch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[3., 2.]])
    """
    if input.ndim not in (2, 3) or any(size == 0 for size in input.shape[-2:]):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{list(input.shape)}"
        )
    k = pool_param(kernel_size, "kernel_size", "max_pool1d")[0]
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    s = k if stride is None or stride == () else pool_param(stride, "stride", "max_pool1d")[0]
    p = pool_param(padding, "padding", "max_pool1d")[0]
    d = pool_param(dilation, "dilation", "max_pool1d")[0]
    if s > 0 and p >= 0 and d > 0 and pooled_size(input.shape[-1], k, s, p, d, ceil_mode) <= 0:
        size = pooled_size(input.shape[-1], k, s, p, d, ceil_mode)
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {size}")
    pooled = max_pool2d(
        unsqueeze(input, -2), (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices
    )
    if return_indices:
        return squeeze(pooled[0], -2), squeeze(pooled[1], -2)
    return squeeze(pooled, -2)


@public(torch=False, method=False, functional=True)
def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
) -> Tensor:
    """The mean of each kH x kW window of `input` (N, C, H, W) or (C, H, W).

    Padding counts as zeros in the mean unless `count_include_pad=False`;
    `divisor_override` replaces the window size.

    >>> import minitorch
    >>> minitorch.nn.functional.avg_pool2d(minitorch.arange(16.0).view(1, 4, 4), 2)
    tensor([[[ 2.5000,  4.5000],
             [10.5000, 12.5000]]])
    """
    kernel = pool_param(kernel_size, "kernel_size", "avg_pool2d")
    stride = pool_param(stride, "stride", "avg_pool2d", kernel) or kernel
    padding = pool_param(padding, "padding", "avg_pool2d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"avg_pool2d: minitorch pools floating-point tensors only, not {input.dtype}"
        )
    out = check_pool(input, kernel, stride, padding, (1, 1), ceil_mode)
    return AvgPool2D.apply(input, kernel, stride, padding, out, count_include_pad, divisor_override)


@public(method=False, functional=True)
def avg_pool1d(
    input: Tensor, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
) -> Tensor:
    """The mean of each window of `input` (N, C, L) or (C, L): 2-D pooling of height 1.

    >>> import minitorch
    >>> minitorch.avg_pool1d(minitorch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[2., 1.]])
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for avg_pool1d)"
        )
    k = pool_param(kernel_size, "kernel_size", "avg_pool1d")[0]
    s = k if stride is None or stride == () else pool_param(stride, "stride", "avg_pool1d")[0]
    p = pool_param(padding, "padding", "avg_pool1d")[0]
    out = avg_pool2d(unsqueeze(input, -2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return squeeze(out, -2)


@public(torch=False, method=False, functional=True)
def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average pooling to a given `output_size` (an int, or a pair; None keeps that size):
    output row i averages input rows $\\lfloor iH/o \\rfloor$ to $\\lceil (i+1)H/o \\rceil$.

    >>> import minitorch
    >>> minitorch.nn.functional.adaptive_avg_pool2d(minitorch.arange(9.0).view(1, 3, 3), 2)
    tensor([[[2., 3.],
             [5., 6.]]])
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}"
        )
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    out = tuple(n if o is None else o for o, n in zip(output_size, input.shape[-2:], strict=True))
    if out == (1, 1):  # a global average: PyTorch takes the mean (MeanBackward1)
        return mean(input, (-1, -2), keepdim=True)
    return AdaptiveAvgPool2D.apply(input, out_size=out)


@public(method=False, functional=True)
def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Average pooling of `input` (N, C, L) or (C, L) to length `output_size`."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {list(input.shape)}"
        )
    size = output_size if isinstance(output_size, int) else tuple(output_size)[0]
    return squeeze(adaptive_avg_pool2d(unsqueeze(input, -2), (1, size)), -2)
