"""`Fold` and `Unfold`: col2im and im2col as layers (`functional.fold`, `functional.unfold`)."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional
from ..module import Module


class Fold(Module):
    """Columns (N, C kH kW, L) summed into images (N, C, *output_size), as `unfold` took them.

    >>> import minitorch
    >>> minitorch.nn.Fold(output_size=(3, 3), kernel_size=2)(minitorch.ones(1, 4, 4))[0, 0]
    tensor([[1., 2., 1.],
            [2., 4., 2.],
            [1., 2., 1.]])
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """The sliding windows of images (N, C, H, W) as columns (N, C kH kW, L).

    >>> import minitorch
    >>> minitorch.nn.Unfold(kernel_size=2)(minitorch.ones(1, 3, 4, 4)).shape
    minitorch.Size([1, 12, 9])
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = (
            kernel_size, dilation, padding, stride,
        )  # fmt: skip

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding},"
            f" stride={self.stride}"
        )
