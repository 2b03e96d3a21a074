"""`Fold` and `Unfold`: col2im and im2col as layers (`functional.fold`, `functional.unfold`)."""

from __future__ import annotations

from .. import functional
from .function_layer import FunctionLayer


class Fold(FunctionLayer):
    """Columns (N, C kH kW, L) summed into images (N, C, *output_size), as `unfold` took them.

    >>> import minitorch
    >>> minitorch.nn.Fold(output_size=(3, 3), kernel_size=2)(minitorch.ones(1, 4, 4))[0, 0]
    tensor([[1., 2., 1.],
            [2., 4., 2.],
            [1., 2., 1.]])
    """

    function = staticmethod(functional.fold)
    OPTIONS = ("output_size", "kernel_size", "dilation", "padding", "stride")

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride


class Unfold(FunctionLayer):
    """The sliding windows of images (N, C, H, W) as columns (N, C kH kW, L).

    >>> import minitorch
    >>> minitorch.nn.Unfold(kernel_size=2)(minitorch.ones(1, 3, 4, 4)).shape
    minitorch.Size([1, 12, 9])
    """

    function = staticmethod(functional.unfold)
    OPTIONS = ("kernel_size", "dilation", "padding", "stride")

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride
