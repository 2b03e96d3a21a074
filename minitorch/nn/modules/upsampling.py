"""`Upsample`, `UpsamplingNearest2d` and `UpsamplingBilinear2d`: `functional.interpolate` as
layers."""

from __future__ import annotations

from .. import functional
from .function_layer import FunctionLayer


class Upsample(FunctionLayer):
    """`functional.interpolate` of the input with the layer's `size` or `scale_factor`, `mode`,
    `align_corners` and `recompute_scale_factor`.

    >>> import minitorch
    >>> minitorch.nn.Upsample(scale_factor=2, mode="bilinear")(minitorch.ones(1, 1, 2, 3)).shape
    minitorch.Size([1, 1, 4, 6])
    >>> minitorch.nn.Upsample(size=(3, 5))
    Upsample(size=(3, 5), mode='nearest')
    """

    function = staticmethod(functional.interpolate)
    OPTIONS = ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor")

    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """`Upsample` in mode nearest.

    >>> import minitorch
    >>> minitorch.nn.UpsamplingNearest2d(scale_factor=2)(minitorch.ones(1, 1, 2, 2)).shape
    minitorch.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """`Upsample` in mode bilinear with aligned corners.

    >>> import minitorch
    >>> minitorch.nn.UpsamplingBilinear2d(size=3)(minitorch.tensor([[[[0.0, 2.0]]]]))[0, 0, 0]
    tensor([0., 1., 2.])
    """

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
