"""Adaptive and fractional max pooling, max unpooling, power-average pooling,
and the `_with_indices` names of max pooling.

Adaptive and fractional max pooling take windows whose places a rule gives (not a stride):
each output position $(y, x)$ has a list of input positions $p = r W + c$ in its plane, the
rows $r$ of its window times the columns $c$. `WindowMax` gathers them, takes each
window's first maximum (`arg_reduce`, as max pooling) and adds each gradient back at its
maximum (`scatter_add`). Adaptive windows along a dim of size $L$ to $o$ outputs are
$[\\lfloor iL/o \\rfloor, \\lceil (i+1)L/o \\rceil)$, shorter ones padded with their last
position (a repeat comes later, so it never wins a tie); fractional windows of size $k$
start at $\\lfloor (i + u)\\alpha \\rfloor - \\lfloor u\\alpha \\rfloor$ with
$\\alpha = (L - k)/(o - 1)$, $u \\in [0, 1)$ drawn per plane, the last at $L - k$.

Max unpooling writes each value at its index into a zero plane (`scatter`) and reads the
gradient back from there (`gather`). Power-average pooling is
$(k \\cdot \\operatorname{avg\\_pool}(x^p))^{1/p}$, a composition.
"""

from __future__ import annotations

import inspect
import sys
from typing import TYPE_CHECKING

from ..backends.tensor_data import prod
from ..dtypes import int64
from ..operators import greater_or_nan
from ..tensors.creation import arange, zeros
from ..tensors.kernels import arg_reduce
from .functions import Op
from .gather import gather, scatter, scatter_add
from .pooling import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from .public import public
from .views import squeeze, unsqueeze

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._tensor import Tensor


class WindowMax(Op):
    """$y = \\max$ of each window, the windows given as positions in the input planes."""

    @staticmethod
    def forward(ctx, x: Tensor, positions: Tensor, kind: str) -> tuple[Tensor, Tensor]:
        """`positions` (N or 1, C or 1, oH, oW, K): each window's K positions in its plane"""
        image = x if x.ndim == 4 else unsqueeze(x, 0)
        n, c, h, w = image.shape
        oh, ow, k = positions.shape[-3:]
        full = positions.expand(n, c, oh, ow, k).contiguous().view(n, c, oh * ow * k)
        ctx.shape, ctx.image_shape = tuple(x.shape), (n, c, h * w)
        shape = tuple(x.shape[:-2]) + (oh, ow)
        if n * c * oh * ow == 0:
            ctx.indices = zeros(n, c, oh * ow, dtype=int64, device=x.device)
            return zeros(*shape, dtype=x.dtype, device=x.device), zeros(
                *shape, dtype=int64, device=x.device
            )
        picked = gather(image.contiguous().view(n, c, h * w), 2, full)
        values, best = arg_reduce(greater_or_nan, picked.view(n * c * oh * ow, k), 1)
        indices = gather(full.view(n * c * oh * ow, k), 1, best)
        ctx.indices = indices.view(n, c, oh * ow)
        return values.view(shape), indices.view(shape)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        """$g$ added at each window's maximum"""
        n, c, plane = ctx.image_shape
        target = zeros(n, c, plane, dtype=grad.dtype, device=grad.device)
        grad_x = scatter_add(target, 2, ctx.indices, grad.reshape(n, c, -1))
        return grad_x.view(ctx.shape)

    @classmethod
    def node_name(cls, *inputs, kind: str, **settings) -> str:
        return kind


def plane_positions(rows: Tensor, cols: Tensor, width: int) -> Tensor:
    """Each window's positions $r W + c$: `rows` (..., oH, kH) and `cols` (..., oW, kW) give
    (..., oH, oW, kH * kW), row by row."""
    *batch, oh, kh = rows.shape
    ow, kw = cols.shape[-2:]
    r = rows.view(*batch, oh, 1, kh, 1)
    c = cols.view(*cols.shape[:-2], 1, ow, 1, kw)
    return (r * width + c).reshape(*batch, oh, ow, kh * kw)


def adaptive_windows(size: int, out: int, device) -> Tensor:
    """(out, K): the positions of each adaptive window along a dim of `size`, each padded to
    the longest, K, with its last position."""
    if out == 0:
        return zeros(0, 1, dtype=int64, device=device)
    i = arange(out, device=device).view(-1, 1)
    start, end = (i * size) // out, ((i + 1) * size + out - 1) // out
    longest = max(((j + 1) * size + out - 1) // out - (j * size) // out for j in range(out))
    taps = start + arange(longest, device=device).view(1, -1)
    return taps.where(taps < end, end - 1)


def check_floating(input: Tensor, name: str) -> None:  # noqa: A002
    if not input.dtype.is_floating_point:
        kind = {"int64": "Long", "int32": "Int", "bool": "Bool"}.get(input.dtype.name, "Long")
        raise NotImplementedError(f"\"{name}\" not implemented for '{kind}'")


def check_planes(input: Tensor, name: str, text: str) -> None:  # noqa: A002
    """PyTorch's check that every dim but the batch dim is non-empty."""
    for d in range(1, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, "
                + text.format(shape=list(input.shape), dim=d)
            )


@public(torch=False, method=False, functional=True)
def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False):  # noqa: A002
    """`adaptive_max_pool2d` with the position of each maximum in its (H * W) input plane."""
    if not isinstance(output_size, int) and len(tuple(output_size)) >= input.ndim:
        raise ValueError(f"Input dimension should be at least {len(tuple(output_size)) + 1}")
    sizes = (output_size,) * 2 if isinstance(output_size, int) else tuple(output_size)
    sizes = tuple(
        n if o is None else o for o, n in zip(sizes, input.shape[-len(sizes) :], strict=False)
    )
    if len(sizes) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}"
        )
    check_planes(
        input, "adaptive_max_pool2d", "but input has sizes {shape} with dimension {dim} being empty"
    )
    check_floating(input, "adaptive_max_pool2d")
    if min(sizes) < 0:
        shape = [*input.shape[:-2], *sizes]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {shape}")
    height, width = input.shape[-2:]
    rows, cols = (
        adaptive_windows(n, o, input.device) for n, o in zip((height, width), sizes, strict=True)
    )
    positions = plane_positions(rows, cols, width)
    return WindowMax.apply(input, positions, kind="AdaptiveMaxPool2DBackward0")


@public(torch=False, method=False, functional=True)
def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):  # noqa: A002
    """Max pooling of (N, C, H, W) or (C, H, W) `input` to `output_size` (an int or a pair;
    None keeps that size): output row i takes input rows $\\lfloor iH/o \\rfloor$ to
    $\\lceil (i+1)H/o \\rceil$; with `return_indices`, also each maximum's position in its plane.

    >>> import minitorch
    >>> x = minitorch.arange(9.0).view(1, 3, 3)
    >>> minitorch.nn.functional.adaptive_max_pool2d(x, 2)
    tensor([[[4., 5.],
             [7., 8.]]])
    """
    pooled = adaptive_max_pool2d_with_indices(input, output_size)
    return pooled if return_indices else pooled[0]


def single_size(output_size, name: str) -> int:
    """`output_size` of a 1-D pooling: an int, or a sequence of one."""
    if isinstance(output_size, int):
        return output_size
    sizes = tuple(output_size)
    if len(sizes) != 1:
        raise RuntimeError(
            f"{name}() argument 'output_size' should contain one int (got {len(sizes)})"
        )
    return sizes[0]


@public("adaptive_max_pool1d", method=False)
def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False):  # noqa: A002
    """Adaptive max pooling of (N, C, L) or (C, L) `input` to length `output_size`, and the
    position of each maximum: 2-D pooling of height 1."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for adaptive_max_pool1d)"
        )
    size = single_size(output_size, "adaptive_max_pool1d")
    values, indices = adaptive_max_pool2d_with_indices(unsqueeze(input, -2), (1, size))
    return squeeze(values, -2), squeeze(indices, -2)


@public("adaptive_max_pool1d", torch=False, method=False, functional=True)
def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):  # noqa: A002
    """Adaptive max pooling of (N, C, L) or (C, L) `input` to length `output_size` (the
    indices too with `return_indices`).

    >>> import minitorch
    >>> minitorch.nn.functional.adaptive_max_pool1d(minitorch.tensor([[1.0, 4.0, 2.0]]), 2)
    tensor([[4., 4.]])
    """
    pooled = adaptive_max_pool1d_with_indices(input, output_size)
    return pooled if return_indices else pooled[0]


@public("adaptive_max_pool1d_with_indices", torch=False, method=False, functional=True)
def functional_adaptive_max_pool1d_with_indices(
    input: Tensor,  # noqa: A002
    output_size,
    return_indices: bool = False,
):
    """`adaptive_max_pool1d` with the indices."""
    return adaptive_max_pool1d_with_indices(input, output_size)


def with_indices(pool: Callable, doc: str, **forms) -> Callable:
    """`<pool>_with_indices`: `pool` (a max pooling with `return_indices`) asked for its
    indices whatever `return_indices` says, as PyTorch's; it takes `pool`'s arguments."""
    signature = inspect.signature(pool).replace(return_annotation=inspect.Signature.empty)

    def function(*args, **kwargs):
        arguments = signature.bind(*args, **kwargs)
        arguments.arguments["return_indices"] = True
        return pool(*arguments.args, **arguments.kwargs)

    function.__name__ = function.__qualname__ = f"{pool.__name__}_with_indices"
    function.__doc__ = doc
    function.__signature__ = signature
    # the calling module, as `declare` (ops/public.py) finds it: the stubs re-export from there
    function.__module__ = sys._getframe(1).f_globals["__name__"]
    return public(method=False, functional=True, **forms)(function)


max_pool1d_with_indices = with_indices(
    max_pool1d, "`max_pool1d` and the position of each maximum along the input's length."
)
max_pool2d_with_indices = with_indices(
    max_pool2d,
    "`max_pool2d` and the position of each maximum in its (H * W) input plane.",
    torch=False,
)


# ---------------------------------------------------------------------------
# Max unpooling
# ---------------------------------------------------------------------------


class MaxUnpool2D(Op):
    """$y[p_i] = x_i$ in planes of zeros, $p$ the indices max pooling returned."""

    @staticmethod
    def forward(ctx, x: Tensor, indices: Tensor, size: tuple) -> Tensor:
        """`scatter` of each plane's values at their indices"""
        image = x if x.ndim == 4 else unsqueeze(x, 0)
        n, c = image.shape[:2]
        flat = indices.reshape(n, c, -1)
        ctx.flat, ctx.shape = flat, tuple(x.shape)
        target = zeros(n, c, size[0] * size[1], dtype=x.dtype, device=x.device)
        out = scatter(target, 2, flat, image.reshape(n, c, -1))
        return out.view(*x.shape[:-2], *size)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor, None]:
        """$g[p_i]$ for each input $x_i$"""
        n, c = ctx.flat.shape[:2]
        return gather(grad.reshape(n, c, -1), 2, ctx.flat).view(ctx.shape), None


def unpool_size(input: Tensor, kernel, stride, padding, output_size) -> list:  # noqa: A002
    """The output size of max unpooling: $(L - 1)s + k - 2p$, or `output_size` (with or
    without its batch and channel dims) where it is within a stride of that."""
    dims = len(kernel)
    default = [
        (input.shape[-dims + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(dims)
    ]
    if output_size is None:
        return default
    if len(output_size) == dims + 2:
        output_size = output_size[2:]
    if len(output_size) != dims:
        raise ValueError(
            f"output_size should be a sequence containing {dims} or {dims + 2} elements, but "
            f"it has a length of '{len(output_size)}'"
        )
    for d in range(dims):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(
                f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})'
            )
    return list(output_size)


def as_pair(value) -> tuple:
    return (value, value) if isinstance(value, int) else tuple(value)


def unpool2d(input: Tensor, indices: Tensor, size) -> Tensor:  # noqa: A002
    """PyTorch's checks of a 2-D max unpooling into planes of `size`; the unpooling."""
    if indices.dtype is not int64:
        kind = {"int32": "Int", "float32": "Float", "float64": "Double"}.get(indices.dtype.name)
        raise RuntimeError(f"elements in indices should be type int64 but got: {kind}")
    if input.ndim not in (3, 4):
        raise RuntimeError(
            "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
            f"{input.ndim} dimensions."
        )
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    check_planes(
        input,
        "max_unpooling2d_forward_out_cpu",
        "but got {shape} with dimension {dim} being empty.",
    )
    check_floating(input, "max_unpool2d")
    plane = size[0] * size[1]
    invalid = (indices < 0) | (indices >= plane)
    if invalid.any():
        bad = indices[invalid][0]
        raise RuntimeError(
            f"Found an invalid max index: {int(bad)} (output volumes are of size "
            f"{size[0]}x{size[1]})"
        )
    return MaxUnpool2D.apply(input, indices, size=tuple(size))


def as_single(value) -> tuple:
    return (value,) if isinstance(value, int) else tuple(value)


def unpool_form(dims: int, doc: str) -> Callable:
    """`max_unpool<dims>d`: 1-D unpooling is 2-D unpooling of width 1."""
    as_tuple = as_pair if dims == 2 else as_single

    def function(
        input: Tensor,  # noqa: A002
        indices: Tensor,
        kernel_size,
        stride=None,
        padding=0,
        output_size=None,
    ) -> Tensor:
        kernel = as_tuple(kernel_size)
        stride = kernel if stride is None else as_tuple(stride)
        size = unpool_size(input, kernel, stride, as_tuple(padding), output_size)
        if dims == 2:
            return unpool2d(input, indices, size)
        out = unpool2d(unsqueeze(input, -1), unsqueeze(indices, -1), [*size, 1])
        return squeeze(out, -1)

    function.__name__ = function.__qualname__ = f"max_unpool{dims}d"
    function.__doc__ = doc
    return public(torch=False, method=False, functional=True)(function)


max_unpool2d = unpool_form(
    2,
    """The inverse of `max_pool2d` where it is one: each value of `input` at its index (of
    `max_pool2d(..., return_indices=True)`) in planes of zeros of `output_size`.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> values, indices = F.max_pool2d(minitorch.arange(4.0).view(1, 2, 2), 2, return_indices=True)
    >>> F.max_unpool2d(values, indices, 2)
    tensor([[[0., 0.],
             [0., 3.]]])
    """,
)
max_unpool1d = unpool_form(
    1, """The inverse of `max_pool1d` where it is one: 2-D unpooling of width 1."""
)


# ---------------------------------------------------------------------------
# Power-average pooling
# ---------------------------------------------------------------------------


def power_mean_root(pooled: Tensor, count: int, norm_type: float) -> Tensor:
    """$(\\operatorname{sign}(m) \\operatorname{relu}(|m|) \\cdot k)^{1/p}$ of window means
    $m$ of $x^p$ ($k$ elements a window), as PyTorch computes it."""
    return (pooled.sign() * pooled.abs().relu()).mul(count).pow(1.0 / norm_type)


def lp_form(dims: int, doc: str) -> Callable:
    """`lp_pool<dims>d`: $(k \\cdot \\text{mean}_{window} x^p)^{1/p}$, the max of $|x|$ for
    $p = \\pm\\infty$ (its negation for $-\\infty$)."""
    max_pool, avg_pool = (max_pool2d, avg_pool2d) if dims == 2 else (max_pool1d, avg_pool1d)
    as_tuple = as_pair if dims == 2 else as_single

    def function(
        input: Tensor,  # noqa: A002
        norm_type,
        kernel_size,
        stride=None,
        ceil_mode: bool = False,
    ) -> Tensor:
        if norm_type == float("inf"):
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        pooled = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
        return power_mean_root(pooled, prod(as_tuple(kernel_size)), norm_type)

    function.__name__ = function.__qualname__ = f"lp_pool{dims}d"
    function.__doc__ = doc
    return public(torch=False, method=False, functional=True)(function)


lp_pool2d = lp_form(
    2,
    """$(\\sum_{window} x^p)^{1/p}$ over each kH x kW window ($p = \\infty$: the max of $|x|$).

    >>> import minitorch
    >>> minitorch.nn.functional.lp_pool2d(minitorch.ones(1, 2, 2), 2, 2)
    tensor([[[2.]]])
    """,
)
lp_pool1d = lp_form(
    1, """$(\\sum_{window} x^p)^{1/p}$ over each window of (N, C, L) or (C, L) `input`."""
)
