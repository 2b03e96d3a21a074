"""`PixelShuffle` and `PixelUnshuffle`: channels to blocks of pixels and back."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional
from ..module import Module


class PixelShuffle(Module):
    """(*, C r^2, H, W) -> (*, C, H r, W r) (`functional.pixel_shuffle`).

    >>> import minitorch
    >>> minitorch.nn.PixelShuffle(3)(minitorch.ones(1, 9, 4, 4)).shape
    minitorch.Size([1, 1, 12, 12])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H r, W r) -> (*, C r^2, H, W) (`functional.pixel_unshuffle`).

    >>> import minitorch
    >>> minitorch.nn.PixelUnshuffle(2)(minitorch.ones(1, 1, 4, 6)).shape
    minitorch.Size([1, 4, 2, 3])
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
