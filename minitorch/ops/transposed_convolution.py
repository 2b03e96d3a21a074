"""Transposed convolution (`conv_transpose1d`, `conv_transpose2d`) and col2im (`fold`).

A transposed convolution is the gradient of a convolution with respect to its
input: the weight (C_in, C_out / groups, kH, kW) read as the weight of a
convolution from C_out channels to C_in. Its forward is therefore
`Convolution`'s input gradient (the columns $W^T x$ added back through the
windows, col2im), and its gradients are the convolution's other two
directions: $\\partial x$ is the convolution of $g$ with $W$, and
$\\partial W$ is the convolution's weight gradient with the roles of input and
upstream gradient swapped. A backend with the window kernels runs each
direction as one call of `conv2d` or `conv2d_backward`; the others run the
exercise path of `convolution.py` (`sliding_windows`, `add_windows`).

`fold` is col2im alone: `unfold`'s backward, with `unfold` as its backward.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..autograd.graph import GraphContext
from ..backends import backend_for
from ..tensors.kernels import new_tensor
from .convolution import (
    Im2Col,
    add_windows,
    as_2d,
    check_ranks,
    expand_param,
    interior,
    padded,
    sliding_windows,
    window_kernels,
    windows_times_weight,
)
from .functions import Op
from .public import public
from .views import squeeze, unsqueeze

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._tensor import Tensor


def col2im(columns: Tensor, shape: tuple, settings: tuple, before: tuple) -> Tensor:
    """The windows' values `columns` (N, C, kH, kW, oH, oW) added into a new tensor of
    `shape` (N, C, H, W) padded by `before` on each side, through the windows of stride and
    dilation `settings`; returns the part inside the padding.

    The windows start at the top left and reach $(o - 1) s + d (k - 1) + 1$ along each dim,
    which may be short of the padded size: `add_windows` gets that region alone."""
    n, c, height, width = shape
    buffer = new_tensor(
        (n, c, height + 2 * before[0], width + 2 * before[1]), columns.dtype, columns.device
    )
    stride, dilation = settings
    reach = tuple(
        (o - 1) * s + d * (k - 1) + 1
        for o, k, s, d in zip(columns.shape[4:], columns.shape[2:4], stride, dilation, strict=True)
    )
    add_windows(interior(buffer, (0, 0), reach), columns, stride, dilation)
    return interior(buffer, before, (height, width)).contiguous()


class ConvTranspose(Op):
    """$y = \\text{col2im}(W^T x) + b$: the input gradient of the convolution whose weight is
    $W$, from C_out channels to C_in (1-D or 2-D)."""

    once_differentiable = True  # its backward calls kernels: no second derivative

    @classmethod
    def node_name(cls, *inputs, **settings) -> str:
        return "ConvolutionBackward0"  # PyTorch's one convolution node, transposed or not

    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, dilation, groups, size) -> Tensor:
        """`size` (H_out, W_out): the output's spatial size, output padding included"""
        image, kernel = as_2d(x), as_2d(weight)
        n, out_channels = image.shape[0], kernel.shape[1] * groups
        shape = (n, out_channels, *size)
        ctx.save_for_backward(image, kernel)
        ctx.shapes, ctx.settings = (x.shape, weight.shape, shape), (stride, dilation, padding)
        ctx.groups, ctx.has_bias = groups, bias is not None
        if window_kernels(x) is not None:
            out = new_tensor(shape, x.dtype, x.device)
            backend_for(x.device).kernel("conv2d_backward")(
                out._layout, None, None, image._layout, out._layout, kernel._layout,
                stride, dilation, padding, groups,
            )  # fmt: skip
        else:
            rows = image.reshape(n, groups, kernel.shape[0] // groups, -1)
            matrix = kernel.reshape(groups, kernel.shape[0] // groups, -1)
            columns = (matrix.transpose(-1, -2) @ rows).view(
                n, out_channels, *kernel.shape[2:], *image.shape[2:]
            )
            out = col2im(columns, shape, (stride, dilation), padding)
        if bias is not None:
            out += bias.view(1, out_channels, 1, 1)
        return out if x.ndim == 4 else out.view(*shape[:2], shape[3])

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$\\partial x$ = conv($g$, W), $\\partial W$ = the convolution's weight gradient of
        input $g$ and upstream $x$, $\\partial b = \\sum g$"""
        image, kernel = ctx.saved_tensors
        input_shape, weight_shape, shape = ctx.shapes
        stride, dilation, padding = ctx.settings
        needs_x, needs_w, needs_b = ctx.needs_input_grad[:3]
        grad4 = grad.reshape(shape)
        grad_x = grad_w = None
        if window_kernels(grad) is not None:
            if needs_x:
                grad_x = new_tensor(image.shape, grad.dtype, grad.device)
                backend_for(grad.device).kernel("conv2d")(
                    grad_x._layout, grad4._layout, kernel._layout, None,
                    stride, dilation, padding, ctx.groups,
                )  # fmt: skip
            if needs_w:
                grad_w = new_tensor(kernel.shape, grad.dtype, grad.device)
                backend_for(grad.device).kernel("conv2d_backward")(
                    None, grad_w._layout, None, image._layout, grad4._layout, kernel._layout,
                    stride, dilation, padding, ctx.groups,
                )  # fmt: skip
        elif needs_x or needs_w:
            windows = sliding_windows(
                padded(grad4, padding, padding), tuple(kernel.shape[2:]), stride, dilation
            )[..., : image.shape[2], : image.shape[3]]  # an output padding adds no window
            out, columns, _ = windows_times_weight(windows, kernel, None, ctx.groups)
            if needs_x:
                grad_x = out.view(image.shape)
            if needs_w:
                rows = image.reshape(*columns.shape[:2], -1, columns.shape[3])
                grad_w = (rows @ columns.transpose(-1, -2)).sum(0)
        grad_b = grad4.sum((0, 2, 3)) if needs_b and ctx.has_bias else None
        return (
            None if grad_x is None else grad_x.reshape(input_shape),
            None if grad_w is None else grad_w.reshape(weight_shape),
            grad_b,
        )


def check_transposed(x: Tensor, weight: Tensor, bias, groups: int, dims: int, name: str) -> None:
    """PyTorch's checks of a transposed convolution's operands, with its messages."""
    check_ranks(x, weight, groups, dims, name)
    if weight.dtype is not x.dtype:
        raise RuntimeError(
            f"expected scalar type {x.dtype.torch_scalar_name} but found "
            f"{weight.dtype.torch_scalar_name}"
        )
    if weight.shape[0] % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(weight.shape)}] instead"
        )
    channels = x.shape[-dims - 1]
    if weight.shape[0] != channels:
        batched = x.shape if x.ndim == dims + 2 else (1,) + tuple(x.shape)
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected "
            f"input{list(batched)} to have {weight.shape[0]} channels, but got "
            f"{channels} channels instead"
        )
    out_channels = weight.shape[1] * groups
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
            f"1-dimensional with {out_channels} elements, but got bias of size "
            f"{list(bias.shape)} instead"
        )


def transposed_size(size, kernel, stride, padding, output_padding, dilation) -> tuple:
    """$(L - 1) s - 2 p + d (k - 1) + p_{out} + 1$ along each spatial dim."""
    return tuple(
        (n - 1) * s - 2 * p + d * (k - 1) + o + 1
        for n, k, s, p, o, d in zip(
            size, kernel, stride, padding, output_padding, dilation, strict=True
        )
    )


def check_settings(stride, padding, output_padding, dilation) -> None:
    """PyTorch's checks of the (2-D) settings, in its order and words."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(o < 0 for o in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(
            "dilation should be greater than zero, but got "
            f"dilation_height: {dilation[0]}, dilation_width: {dilation[1]}"
        )
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation, strict=True)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {output_padding[0]} output_padding_width: "
            f"{output_padding[1]} stride_height: {stride[0]} stride_width: {stride[1]} "
            f"dilation_height: {dilation[0]} dilation_width: {dilation[1]}"
        )


def transposed_convolution(x, weight, bias, settings: tuple, groups: int, dims: int, name: str):
    """Checks the arguments of `conv_transpose1d`/`conv_transpose2d` and runs `ConvTranspose`;
    `settings` (stride, padding, output_padding, dilation) as given."""
    check_transposed(x, weight, bias, groups, dims, name)
    names = ("stride", "padding", "output_padding", "dilation")
    for value, setting in zip(settings, names, strict=True):
        if isinstance(value, str):
            raise TypeError(f"{name}(): argument '{setting}' must be tuple of ints, not str")
    stride, padding, output_padding, dilation = (
        (height,) * (2 - dims) + expand_param(v, dims, n)
        for v, n, height in zip(settings, names, (1, 0, 0, 1), strict=True)
    )  # a 1-D convolution is a 2-D one of height 1
    check_settings(stride, padding, output_padding, dilation)
    size = (1,) * (2 - dims) + tuple(x.shape[-dims:])
    kernel = (1,) * (2 - dims) + tuple(weight.shape[2:])
    out_size = transposed_size(size, kernel, stride, padding, output_padding, dilation)
    if min(out_size) < 1:
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, size))}). Calculated output "
            f"size per channel: ({' x '.join(map(str, out_size))}). Output size is too small"
        )
    if bias is not None and bias.dtype is not x.dtype:
        bias = bias.to(x.dtype)  # as PyTorch: the bias takes the input's type
    unbatched = x.ndim == dims + 1
    batch = unsqueeze(x, 0) if unbatched else x
    out = ConvTranspose.apply(batch, weight, bias, stride, padding, dilation, groups, out_size)
    return squeeze(out, 0) if unbatched else out


def transposed_form(dims: int, doc: str) -> Callable:
    """`conv_transpose<dims>d`: `transposed_convolution` over `dims` spatial dimensions."""
    name = f"conv_transpose{dims}d"

    def function(
        input,  # noqa: A002
        weight,
        bias=None,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        dilation=1,  # noqa: A002
    ):
        settings = (stride, padding, output_padding, dilation)
        return transposed_convolution(input, weight, bias, settings, groups, dims, name)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return public(method=False, functional=True)(function)


conv_transpose1d = transposed_form(
    1,
    """1-D transposed convolution of `input` (N, C_in, L) with `weight` (C_in, C_out/groups, k):
    the gradient of `conv1d` with respect to its input. Output length
    $(L - 1) s - 2 p + d (k - 1) + p_{out} + 1$.

    >>> import minitorch
    >>> minitorch.conv_transpose1d(minitorch.tensor([[[1.0, 2.0]]]), minitorch.ones(1, 1, 2))
    tensor([[[1., 3., 2.]]])
    """,
)
conv_transpose2d = transposed_form(
    2,
    """2-D transposed convolution of `input` (N, C_in, H, W) with `weight`
    (C_in, C_out/groups, kH, kW): the gradient of `conv2d` with respect to its input.

    >>> import minitorch
    >>> x = minitorch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> minitorch.conv_transpose2d(x, minitorch.ones(1, 1, 2, 2), stride=2)
    tensor([[[[1., 1., 2., 2.],
              [1., 1., 2., 2.],
              [3., 3., 4., 4.],
              [3., 3., 4., 4.]]]])
    """,
)


# ---------------------------------------------------------------------------
# fold (col2im)
# ---------------------------------------------------------------------------


class Col2Im(Op):
    """`fold`: columns (N, C kH kW, L) added into an image (N, C, H, W) where `unfold` took them"""

    once_differentiable = True  # its backward calls kernels: no second derivative

    @staticmethod
    def forward(ctx, columns, size, kernel, dilation, padding, stride, blocks) -> Tensor:
        """col2im of the columns seen as windows (N, C, kH, kW, oH, oW)"""
        batch = columns if columns.ndim == 3 else unsqueeze(columns, 0)
        n, depth = batch.shape[:2]
        shape = (n, depth // (kernel[0] * kernel[1]), *size)
        windows = batch.reshape(n, shape[1], *kernel, *blocks)
        out = col2im(windows, shape, (stride, dilation), padding)
        ctx.settings = (kernel, dilation, padding, stride)
        return out if columns.ndim == 3 else squeeze(out, 0)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """`unfold` of the gradient: each column entry gets the gradient of where it went"""
        return Im2Col.forward(GraphContext(), grad, *ctx.settings)


@public(torch=False, method=False, functional=True)
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:  # noqa: A002
    """col2im: columns (N, C kH kW, L) (or unbatched) summed into an image (N, C, H, W) of
    spatial `output_size`; where windows overlap their values add up
    (`torch.nn.functional.fold`, the adjoint of `unfold`).

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.fold(minitorch.ones(1, 4, 2), (2, 3), 2)
    tensor([[[[1., 2., 1.],
              [1., 2., 1.]]]])
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    size = expand_param(output_size, 2, "output_size")
    kernel = expand_param(kernel_size, 2, "kernel_size")
    dilation, padding, stride = (
        expand_param(v, 2, n)
        for v, n in ((dilation, "dilation"), (padding, "padding"), (stride, "stride"))
    )
    depth, length = input.shape[-2:]
    if depth % (kernel[0] * kernel[1]) != 0:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={depth} and kernel_size=({kernel[0]}, "
            f"{kernel[1]})."
        )
    blocks = tuple(
        (n + 2 * p - d * (k - 1) - 1) // s + 1
        for n, k, d, p, s in zip(size, kernel, dilation, padding, stride, strict=True)
    )
    if blocks[0] * blocks[1] != length:
        raise RuntimeError(
            f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
            f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), "
            f"stride=({stride[0]}, {stride[1]}), expected size of input's dimension 2 to "
            f"match the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
            f"{blocks[0] * blocks[1]}, but got input.size(2)={length}."
        )
    return Col2Im.apply(input, size, kernel, dilation, padding, stride, blocks)
