"""Rearrangements of channels: `pixel_shuffle`, `pixel_unshuffle` and `channel_shuffle`.

Each is a view (a reshape and a permutation) copied once into a new contiguous
tensor, and each one's backward is the inverse rearrangement of the gradient:
`pixel_unshuffle` for `pixel_shuffle` and back, `channel_shuffle` with the
other factor of the channels for `channel_shuffle`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..autograd.graph import GraphContext
from .functions import Op
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


def shuffled(x: Tensor, r: int) -> Tensor:
    """$y[\\ldots, c, h r + i, w r + j] = x[\\ldots, c r^2 + i r + j, h, w]$"""
    *batch, channels, height, width = x.shape
    blocks = x.reshape(*batch, channels // (r * r), r, r, height, width)
    k = len(batch)
    order = (*range(k), k, k + 3, k + 1, k + 4, k + 2)
    out = blocks.permute(*order).contiguous()
    return out.view(*batch, channels // (r * r), height * r, width * r)


def unshuffled(x: Tensor, r: int) -> Tensor:
    """$y[\\ldots, c r^2 + i r + j, h, w] = x[\\ldots, c, h r + i, w r + j]$"""
    *batch, channels, height, width = x.shape
    blocks = x.reshape(*batch, channels, height // r, r, width // r, r)
    k = len(batch)
    order = (*range(k), k, k + 2, k + 4, k + 1, k + 3)
    out = blocks.permute(*order).contiguous()
    return out.view(*batch, channels * r * r, height // r, width // r)


def channels_shuffled(x: Tensor, groups: int) -> Tensor:
    """The channels (dim 1), seen as (groups, C / groups), transposed: channel $g C/groups + k$
    moves to $k\\, groups + g$."""
    n, channels, *rest = x.shape
    blocks = x.reshape(n, groups, channels // groups, *rest)
    return blocks.transpose(1, 2).contiguous().view(n, channels, *rest)


def channels_unshuffled(x: Tensor, groups: int) -> Tensor:
    """`channels_shuffled`'s inverse: the shuffle by the other factor of the channels."""
    return channels_shuffled(x, x.shape[1] // groups)


# node kind -> (the rearrangement, its inverse), each of a tensor and the factor
REARRANGEMENTS = {
    "PixelShuffle": (shuffled, unshuffled),
    "PixelUnshuffle": (unshuffled, shuffled),
    "ChannelShuffle": (channels_shuffled, channels_unshuffled),
}


class Rearrange(Op):
    """One of `REARRANGEMENTS`, `kind`; its backward is the inverse rearrangement."""

    @classmethod
    def node_name(cls, x, kind: str, factor: int) -> str:
        return f"{kind}Backward0"

    @staticmethod
    def forward(ctx: GraphContext, x: Tensor, kind: str, factor: int) -> Tensor:
        ctx.kind, ctx.factor = kind, factor
        return REARRANGEMENTS[kind][0](x, factor)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        return REARRANGEMENTS[ctx.kind][1](grad, ctx.factor)


def check_factor(x: Tensor, factor, name: str, what: str) -> None:
    """PyTorch's checks of a pixel (un)shuffle's input and factor."""
    if not isinstance(factor, int) or isinstance(factor, bool):
        raise TypeError(
            f"{name}(): argument '{what}' (position 2) must be int, not {type(factor).__name__}"
        )
    if x.ndim < 3:
        raise RuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got input with "
            f"{x.ndim} dimension(s)"
        )
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")


@public(method=False, functional=True)
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    """(*, C r^2, H, W) -> (*, C, H r, W r): each group of $r^2$ channels becomes an
    r x r block of pixels (sub-pixel convolution's upsampling).

    >>> import minitorch
    >>> minitorch.pixel_shuffle(minitorch.arange(4.0).view(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    check_factor(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    channels = input.shape[-3]
    if channels % (upscale_factor * upscale_factor) != 0:
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={channels} is not divisible by "
            f"{upscale_factor * upscale_factor}"
        )
    return Rearrange.apply(input, kind="PixelShuffle", factor=upscale_factor)


@public(method=False, functional=True)
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    """(*, C, H r, W r) -> (*, C r^2, H, W): each r x r block of pixels becomes $r^2$
    channels (`pixel_shuffle`'s inverse).

    >>> import minitorch
    >>> minitorch.pixel_unshuffle(minitorch.arange(4.0).view(1, 1, 2, 2), 2).flatten()
    tensor([0., 1., 2., 3.])
    """
    check_factor(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    for dim, side in ((-2, "height"), (-1, "width")):
        if input.shape[dim] % downscale_factor != 0:
            raise RuntimeError(
                f"pixel_unshuffle expects {side} to be divisible by downscale_factor, but "
                f"input.size({dim})={input.shape[dim]} is not divisible by {downscale_factor}"
            )
    return Rearrange.apply(input, kind="PixelUnshuffle", factor=downscale_factor)


@public(method=False, functional=True)
def channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """The channels of (N, C, *) split into `groups` and interleaved: channel
    $g\\, C/groups + k$ moves to $k\\, groups + g$ (ShuffleNet).

    >>> import minitorch
    >>> minitorch.channel_shuffle(minitorch.arange(6.0).view(1, 6, 1), 2).flatten()
    tensor([0., 3., 1., 4., 2., 5.])
    """
    if input.ndim <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if input.shape[1] % groups != 0:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {input.shape[1]} channels "
            f"and {groups} groups."
        )
    return Rearrange.apply(input, kind="ChannelShuffle", factor=groups)
