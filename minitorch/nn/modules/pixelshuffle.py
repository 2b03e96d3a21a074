"""`PixelShuffle` and `PixelUnshuffle`: channels to blocks of pixels and back."""

from __future__ import annotations

from .. import functional
from .function_layer import FunctionLayer


class PixelShuffle(FunctionLayer):
    """(*, C r^2, H, W) -> (*, C, H r, W r) (`functional.pixel_shuffle`).

    >>> import minitorch
    >>> minitorch.nn.PixelShuffle(3)(minitorch.ones(1, 9, 4, 4)).shape
    minitorch.Size([1, 1, 12, 12])
    """

    function = staticmethod(functional.pixel_shuffle)
    OPTIONS = ("upscale_factor",)

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor


class PixelUnshuffle(FunctionLayer):
    """(*, C, H r, W r) -> (*, C r^2, H, W) (`functional.pixel_unshuffle`).

    >>> import minitorch
    >>> minitorch.nn.PixelUnshuffle(2)(minitorch.ones(1, 1, 4, 6)).shape
    minitorch.Size([1, 4, 2, 3])
    """

    function = staticmethod(functional.pixel_unshuffle)
    OPTIONS = ("downscale_factor",)

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor
