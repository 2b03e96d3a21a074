"""Convolution: `conv1d`, `conv2d` (`ConvolutionBackward0`) and constant padding (`pad`).

A convolution is a matrix product in disguise. Pad the input, look at it
through `sliding_windows` — a strided view whose element
`[n, c, i, j, y, x]` is `padded[n, c, y * stride + i * dilation, ...]`, no
copy — copy that view once into a contiguous matrix of columns (im2col), and
multiply by the weight seen as a matrix. The backward is two more products
and `add_windows` (col2im): the columns' gradient added back through the
same windows, one whole-tensor kernel call per kernel offset. A 1-D
convolution is the 2-D one with height 1.

That is the exercise path, and every backend can run it. A backend that offers
the optional kernels `conv2d` and `conv2d_backward` (the default one does,
`backends/fast/windows.py`) runs each direction of a floating-point
convolution as one kernel call instead (`tuned_convolution`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import operators
from ..autograd.graph import GraphContext
from ..backends import backend_for
from ..backends.tensor_data import TensorData, prod
from ..tensors.kernels import new_tensor, scalar_tensor, view_of, write_into
from .functions import Op
from .public import public
from .views import squeeze, unsqueeze

if TYPE_CHECKING:
    from .._tensor import Tensor


# ---------------------------------------------------------------------------
# Windows: the strided views that convolution and pooling are made of
# ---------------------------------------------------------------------------


def sliding_windows(padded: Tensor, kernel: tuple, stride: tuple, dilation: tuple) -> Tensor:
    """The windows of `padded` (N, C, H, W) as a view of shape (N, C, kH, kW, oH, oW).

    $w[n, c, i, j, y, x] = p[n, c, y s_H + i d_H, x s_W + j d_W]$: the window at output
    position (y, x) has offsets (i, j). Nothing is copied; only strides change.
    """
    # BEGIN SOLUTION 4.1
    n, c, height, width = padded.shape
    sn, sc, sh, sw = padded.stride()
    out_h = (height - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    out_w = (width - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    shape = (n, c, kernel[0], kernel[1], out_h, out_w)
    strides = (sn, sc, dilation[0] * sh, dilation[1] * sw, stride[0] * sh, stride[1] * sw)
    layout = TensorData(padded._layout.storage, shape, strides, padded.storage_offset())
    return view_of(padded, layout)
    # END SOLUTION 4.1


def add_windows(target: Tensor, windows_grad: Tensor, stride: tuple, dilation: tuple) -> None:
    """col2im: add `windows_grad` (N, C, kH, kW, oH, oW) into `target` (N, C, H, W) through
    `sliding_windows(target)`; overlapping windows add up. One zip kernel per offset (i, j)."""
    # BEGIN SOLUTION 4.2
    kernel = tuple(windows_grad.shape[2:4])
    windows = sliding_windows(target, kernel, stride, dilation)
    zip_kernel = backend_for(target.device).zip
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            into = windows[:, :, i, j]._layout
            zip_kernel(operators.add, into, into, windows_grad[:, :, i, j]._layout)
    # END SOLUTION 4.2


def padded(x: Tensor, before: tuple, after: tuple, value: float = 0.0) -> Tensor:
    """`x` (N, C, H, W) in a new tensor with `before`/`after` rows and columns of `value`
    around it (`x` itself when there is no padding)."""
    if not any(before) and not any(after):
        return x
    n, c, height, width = x.shape
    shape = (n, c, height + before[0] + after[0], width + before[1] + after[1])
    out = new_tensor(shape, x.dtype, x.device)
    if value != 0:
        write_into(out, scalar_tensor(value, x.dtype, x.device))
    write_into(interior(out, before, (height, width)), x)
    return out


def interior(t: Tensor, before: tuple, size: tuple) -> Tensor:
    """The view of `t` (N, C, H, W) without its padding: `size` rows and columns from `before`."""
    sn, sc, sh, sw = t.stride()
    offset = t.storage_offset() + before[0] * sh + before[1] * sw
    shape = tuple(t.shape[:2]) + tuple(size)
    return view_of(t, TensorData(t._layout.storage, shape, (sn, sc, sh, sw), offset))


def as_2d(t: Tensor) -> Tensor:
    """A 1-D signal (N, C, L) seen as an image of height 1 (N, C, 1, L); images unchanged."""
    return t if t.ndim == 4 else unsqueeze(t, 2)


# ---------------------------------------------------------------------------
# Convolution
# ---------------------------------------------------------------------------


class Convolution(Op):
    """$y[n, o] = b[o] + \\sum_{c, i, j} w[o, c, i, j]\\, x_{pad}[n, c, y s + i d, x s + j d]$,
    with the channels split into `groups`; 1-D or 2-D."""

    once_differentiable = True  # its backward calls kernels: no second derivative

    @staticmethod
    def forward(ctx, x, weight, bias, stride, before, after, dilation, groups) -> Tensor:
        """im2col (a strided view, copied once) and one batched matmul (one kernel call on a
        backend with window kernels)"""
        image, kernel = as_2d(x), as_2d(weight)
        ctx.input_shape, ctx.weight_shape, ctx.before = x.shape, weight.shape, before
        ctx.settings, ctx.groups = (stride, dilation), groups
        ctx.tuned = window_kernels(x) is not None
        if ctx.tuned:
            out = tuned_convolution(image, kernel, bias, stride, before, after, dilation, groups)
            ctx.save_for_backward(image, kernel)
            return out if x.ndim == 4 else out.view(*out.shape[:2], out.shape[3])
        xp = padded(image, before, after)
        windows = sliding_windows(xp, tuple(kernel.shape[2:]), stride, dilation)
        out, columns, matrix = windows_times_weight(windows, kernel, bias, groups)
        ctx.save_for_backward(columns, matrix)
        ctx.image_shape, ctx.padded_shape = image.shape, xp.shape
        ctx.windows_shape = windows.shape
        spatial = windows.shape[4:] if x.ndim == 4 else windows.shape[5:]
        return out.view(image.shape[0], weight.shape[0], *spatial)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$\\partial W = g\\, C^T$ (summed over the batch), $\\partial b = \\sum g$, and
        $\\partial x$ = col2im($W^T g$)"""
        if ctx.tuned:
            return tuned_convolution_backward(ctx, grad)
        columns, matrix = ctx.saved_tensors
        needs_x, needs_w, needs_b = ctx.needs_input_grad[:3]
        stride, dilation = ctx.settings
        # BEGIN SOLUTION 4.2
        n, groups, depth, length = columns.shape
        rows = grad.reshape(n, groups, matrix.shape[1], length)  # like `out` in forward
        grad_x = grad_w = grad_b = None
        if needs_b:
            grad_b = rows.sum((0, 3)).view(-1)
        if needs_w:
            grad_w = (rows @ columns.transpose(-1, -2)).sum(0).view(ctx.weight_shape)
        if needs_x:
            grad_columns = (matrix.transpose(-1, -2) @ rows).view(ctx.windows_shape)
            grad_padded = new_tensor(ctx.padded_shape, grad.dtype, grad.device)
            add_windows(grad_padded, grad_columns, stride, dilation)
            inside = interior(grad_padded, ctx.before, tuple(ctx.image_shape[2:]))
            grad_x = inside.contiguous().view(ctx.input_shape)
        return grad_x, grad_w, grad_b
        # END SOLUTION 4.2


def windows_times_weight(windows: Tensor, kernel: Tensor, bias, groups: int) -> tuple:
    """The convolution as a matrix product: `windows` (N, C, kH, kW, oH, oW) copied into
    columns (N, groups, C / groups * kH * kW, oH * oW), times the weight (O, C / groups, kH, kW)
    seen as (groups, O / groups, C / groups * kH * kW), plus the bias.

    Returns the product (N, groups, O / groups, oH * oW), the columns and the weight matrix
    (what backward needs).
    """
    # BEGIN SOLUTION 4.1
    n, channels = windows.shape[:2]
    out_channels = kernel.shape[0]
    depth = channels // groups * prod(windows.shape[2:4])
    columns = windows.contiguous().view(n, groups, depth, prod(windows.shape[4:]))
    matrix = kernel.reshape(groups, out_channels // groups, depth)
    out = matrix @ columns
    if bias is not None:
        out += bias.view(1, groups, out_channels // groups, 1)
    return out, columns, matrix
    # END SOLUTION 4.1


# ---------------------------------------------------------------------------
# The one-pass kernels of backends that offer them (the optional kernels of interface.py)
# ---------------------------------------------------------------------------


def window_kernels(x: Tensor):
    """`x`'s backend when it has one-pass convolution and pooling kernels for `x`'s dtype
    (floating point), else None: the operations then run the exercise path above."""
    backend = backend_for(x.device)
    names = ("conv2d", "conv2d_backward", "max_pool2d", "max_pool2d_backward")  # optional kernels
    if x.dtype.is_floating_point and all(backend.kernel(name) is not None for name in names):
        return backend
    return None


def out_length(size: int, kernel: int, stride: int, dilation: int) -> int:
    """How many windows fit: $\\lfloor (L - d (k - 1) - 1) / s \\rfloor + 1$."""
    return (size - dilation * (kernel - 1) - 1) // stride + 1


def tuned_convolution(image, kernel, bias, stride, before, after, dilation, groups) -> Tensor:
    """`Convolution`'s forward in one kernel call: `image` (N, C, H, W), `kernel` 4-D."""
    spatial = tuple(
        out_length(n + b + a, k, s, d)
        for n, b, a, k, s, d in zip(
            image.shape[2:], before, after, kernel.shape[2:], stride, dilation, strict=True
        )
    )
    out = new_tensor((image.shape[0], kernel.shape[0], *spatial), image.dtype, image.device)
    b = None if bias is None else bias._layout
    backend_for(image.device).kernel("conv2d")(
        out._layout, image._layout, kernel._layout, b, stride, dilation, before, groups
    )
    return out


def tuned_convolution_backward(ctx: GraphContext, grad: Tensor) -> tuple:
    """`Convolution`'s three gradients in one kernel call."""
    image, kernel = ctx.saved_tensors
    needs = ctx.needs_input_grad[:3]
    shapes = (image.shape, kernel.shape, kernel.shape[:1])
    grads = [
        new_tensor(s, grad.dtype, grad.device) if n else None
        for s, n in zip(shapes, needs, strict=True)
    ]
    grad4 = grad if grad.ndim == 4 else unsqueeze(grad, 2)
    backend_for(grad.device).kernel("conv2d_backward")(
        *(None if g is None else g._layout for g in grads),
        grad4._layout, image._layout, kernel._layout, *ctx.settings, ctx.before, ctx.groups,
    )  # fmt: skip
    grad_x, grad_w, grad_b = grads
    return (
        None if grad_x is None else grad_x.view(ctx.input_shape),
        None if grad_w is None else grad_w.view(ctx.weight_shape),
        grad_b,
    )


class Im2Col(Op):
    """`unfold`: the windows of `x` (N, C, H, W) as columns (N, C * kH * kW, oH * oW)"""

    once_differentiable = True  # its backward calls kernels: no second derivative

    @staticmethod
    def forward(ctx, x, kernel, dilation, padding, stride) -> Tensor:
        """The window view of the padded input, copied"""
        image = x if x.ndim == 4 else unsqueeze(x, 0)
        xp = padded(image, padding, padding)
        windows = sliding_windows(xp, kernel, stride, dilation)
        ctx.shapes = (image.shape, xp.shape, windows.shape, x.shape)
        ctx.settings, ctx.before = (stride, dilation), padding
        n, c, kh, kw, oh, ow = windows.shape
        columns = windows.contiguous().view(n, c * kh * kw, oh * ow)
        return columns if x.ndim == 4 else columns.squeeze(0)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """col2im: each column entry's gradient added back where it was copied from"""
        image_shape, padded_shape, windows_shape, input_shape = ctx.shapes
        grad_padded = new_tensor(padded_shape, grad.dtype, grad.device)
        add_windows(grad_padded, grad.reshape(windows_shape), *ctx.settings)
        inside = interior(grad_padded, ctx.before, tuple(image_shape[2:]))
        return inside.contiguous().view(input_shape)


@public(torch=False, method=False, functional=True)
def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """im2col: the sliding kH x kW windows of `input` (N, C, H, W) or (C, H, W) as columns,
    (N, C * kH * kW, L) with L the number of windows (`torch.nn.functional.unfold`).

    >>> import minitorch
    >>> minitorch.nn.functional.unfold(minitorch.arange(6.0).view(1, 1, 2, 3), 2)
    tensor([[[0., 1.],
             [1., 2.],
             [3., 4.],
             [4., 5.]]])
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)"
        )
    kernel = expand_param(kernel_size, 2, "kernel_size")
    settings = [expand_param(v, 2, n) for v, n in ((dilation, "dilation"), (padding, "padding"))]
    stride = expand_param(stride, 2, "stride")
    if min(stride) <= 0:
        raise RuntimeError(
            f"stride should be greater than zero, but got stride_height: {stride[0]} "
            f"stride_width: {stride[1]}"
        )
    blocks = tuple(
        (n + 2 * p - d * (k - 1) - 1) // s + 1
        for n, k, d, p, s in zip(input.shape[-2:], kernel, *settings, stride, strict=True)
    )
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size {tuple(input.shape[-2:])}, kernel_size={kernel}, "
            f"dilation={settings[0]}, padding={settings[1]}, calculated shape of the array of "
            f"sliding blocks as {blocks}, but its components must be at least one."
        )
    return Im2Col.apply(input, kernel, settings[0], settings[1], stride)


def expand_param(value, n: int, name: str) -> tuple:
    """An int or a sequence of `n` ints as a tuple of `n` (PyTorch's error otherwise)."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match "
            f"the convolution dimensions, but got {name}={list(value)}"
        )
    return value


def same_padding(kernel: tuple, dilation: tuple) -> tuple[tuple, tuple]:
    """padding='same': $d (k - 1)$ in all, the odd one at the end (as PyTorch)."""
    total = [d * (k - 1) for k, d in zip(kernel, dilation, strict=True)]
    return tuple(t // 2 for t in total), tuple(t - t // 2 for t in total)


def check_ranks(x: Tensor, weight: Tensor, groups: int, dims: int, name: str) -> None:
    """PyTorch's first checks of a (transposed) convolution: the operands' ranks, `groups`."""
    if x.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {name}, "
            f"but got input of size: {list(x.shape)}"
        )
    if weight.ndim != dims + 2:
        raise RuntimeError(
            f"expected stride to be a single integer value or a list of {weight.ndim - 2} "
            f"values to match the convolution dimensions, but got stride={[1] * dims}"
        )
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")


def check_conv(x: Tensor, weight: Tensor, bias, groups: int, dims: int, name: str) -> None:
    """PyTorch's checks of a convolution's operands, with its messages."""
    check_ranks(x, weight, groups, dims, name)
    if bias is not None and bias.dtype is not x.dtype:
        raise RuntimeError(
            f"Input type ({x.dtype.torch_scalar_name.lower()}) and bias type "
            f"({bias.dtype.torch_scalar_name.lower()}) should be the same"
        )
    if weight.dtype is not x.dtype:
        raise RuntimeError(
            f"expected scalar type {x.dtype.torch_scalar_name} but found "
            f"{weight.dtype.torch_scalar_name}"
        )
    channels = x.shape[-dims - 1]
    if weight.shape[0] % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(weight.shape)}] instead"
        )
    if weight.shape[1] * groups != channels:
        batched = x.shape if x.ndim == dims + 2 else (1,) + tuple(x.shape)
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(batched)} to have {weight.shape[1] * groups} channels, but got "
            f"{channels} channels instead"
        )
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(
            f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
            f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead"
        )


def convolution(x, weight, bias, stride, padding, dilation, groups, dims: int, name: str):
    """Checks the arguments of `conv1d`/`conv2d` and runs `Convolution`."""
    check_conv(x, weight, bias, groups, dims, name)
    stride = expand_param(stride, dims, "stride")
    dilation = expand_param(dilation, dims, "dilation")
    kernel = tuple(weight.shape[2:])
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        before, after = same_padding(kernel, dilation) if padding == "same" else ((0,) * dims,) * 2
    else:
        before = after = expand_param(padding, dims, "padding")
        if any(p < 0 for p in before):
            raise RuntimeError("negative padding is not supported")
    size = tuple(x.shape[-dims:])
    padded_size = tuple(s + b + a for s, b, a in zip(size, before, after, strict=True))
    reach = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True))
    if any(p < r for p, r in zip(padded_size, reach, strict=True)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded_size))}). "
            f"Kernel size: ({' x '.join(map(str, reach))}). "
            "Kernel size can't be greater than actual input size"
        )
    if dims == 1:  # 1-D: height 1, nothing before or after it
        stride, dilation, before, after = (
            (1,) + stride,
            (1,) + dilation,
            (0,) + before,
            (0,) + after,
        )
    unbatched = x.ndim == dims + 1
    batch = unsqueeze(x, 0) if unbatched else x
    out = Convolution.apply(batch, weight, bias, stride, before, after, dilation, groups)
    return squeeze(out, 0) if unbatched else out


@public(method=False, functional=True)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation) of `input` (N, C, L) with `weight` (O, C/groups, k).

    >>> import minitorch
    >>> x = minitorch.tensor([[[1.0, 2.0, 3.0, 4.0]]])
    >>> minitorch.conv1d(x, minitorch.tensor([[[1.0, 0.0, -1.0]]]))
    tensor([[[-2., -2.]]])
    """
    return convolution(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@public(method=False, functional=True)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of `input` (N, C, H, W) with `weight` (O, C/groups, kH, kW).

    `padding` is an int, a pair, `"valid"` (none) or `"same"` (output size = input size).

    >>> import minitorch
    >>> x = minitorch.arange(9.0).view(1, 1, 3, 3)
    >>> minitorch.conv2d(x, minitorch.ones(1, 1, 2, 2))
    tensor([[[[ 8., 12.],
              [20., 24.]]]])
    """
    return convolution(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


# ---------------------------------------------------------------------------
# Constant padding
# ---------------------------------------------------------------------------


def pad_region(shape: tuple, pad: tuple) -> tuple[list, list, list]:
    """For `pad` (last dim first, pairs before/after, negative crops): the padded shape,
    and per dim where the kept input starts in the input and in the result."""
    new_shape, source, target = list(shape), [0] * len(shape), [0] * len(shape)
    for k in range(len(pad) // 2):
        d = len(shape) - 1 - k
        before, after = pad[2 * k], pad[2 * k + 1]
        new_shape[d] = shape[d] + before + after
        source[d], target[d] = max(-before, 0), max(before, 0)
    return new_shape, source, target


def region(t: Tensor, start: list, shape: list) -> Tensor:
    """The view of `t` of `shape` starting at index `start`."""
    offset = t.storage_offset() + sum(s * st for s, st in zip(start, t.stride(), strict=True))
    return view_of(t, TensorData(t._layout.storage, tuple(shape), t.stride(), offset))


class ConstantPadNd(Op):
    once_differentiable = True  # its backward calls kernels: no second derivative

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, pad: tuple, value: float) -> Tensor:
        """`a` inside a border of `value`: `pad` lists (before, after) from the last dim"""
        new_shape, source, target = pad_region(tuple(a.shape), pad)
        kept = [
            min(s - src, n - tgt)
            for s, n, src, tgt in zip(a.shape, new_shape, source, target, strict=True)
        ]
        out = new_tensor(new_shape, a.dtype, a.device)
        if value != 0:
            write_into(out, scalar_tensor(value, a.dtype, a.device))
        if all(k > 0 for k in kept):
            write_into(region(out, target, kept), region(a, source, kept))
        ctx.input_shape, ctx.where = tuple(a.shape), (source, target, kept)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """The gradient of the kept elements; 0 for the cropped ones"""
        source, target, kept = ctx.where
        grad_a = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        if all(k > 0 for k in kept):
            write_into(region(grad_a, source, kept), region(grad, target, kept))
        return grad_a


def check_pad_length(input: Tensor, pad) -> tuple:
    """`pad` as a tuple, after PyTorch's checks of its length (pairs, at most two a dim)."""
    pad = tuple(pad)
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.ndim}"
        )
    return pad


def pad_constant(input: Tensor, pad: tuple, value=None) -> Tensor:
    """`input` padded with `value` (0 by default): `pad` = (left, right, top, bottom, ...),
    starting from the last dimension; negative amounts crop (`pad`'s constant mode).

    >>> import minitorch
    >>> minitorch.nn.functional.pad(minitorch.tensor([1.0, 2.0]), (1, 2))
    tensor([0., 1., 2., 0., 0.])
    """
    pad = check_pad_length(input, pad)
    new_shape = pad_region(tuple(input.shape), pad)[0]
    if any(size < 0 for size in new_shape):
        raise RuntimeError("narrow(): length must be non-negative.")
    return ConstantPadNd.apply(input, pad=pad, value=0.0 if value is None else value)


@public(method=False)
def constant_pad_nd(input: Tensor, pad: tuple, value=0) -> Tensor:
    """`pad` in constant mode (`minitorch.constant_pad_nd`, as `torch.constant_pad_nd`)."""
    return pad_constant(input, pad, value)
