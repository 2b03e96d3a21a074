"""Pooling layers: `MaxPool1d/2d`, `AvgPool1d/2d`, `AdaptiveAvgPool2d`, with PyTorch's reprs.

Each holds its settings and calls its function of `minitorch.nn.functional`.
"""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional
from ..module import Module
from .conv import as_tuple
from .function_layer import options_repr


class MaxPoolNd(Module):
    """The settings of max pooling; `stride` defaults to `kernel_size`."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        names = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
        return options_repr(self, names)

    def pool(self, input: Tensor, fn):  # noqa: A002
        return fn(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class MaxPool1d(MaxPoolNd):
    """The maximum of each window of (N, C, L) inputs.

    >>> import minitorch
    >>> minitorch.nn.MaxPool1d(2)(minitorch.tensor([[[1.0, 5.0, 2.0, 0.0]]]))
    tensor([[[5., 2.]]])
    """

    def forward(self, input: Tensor):  # noqa: A002
        return self.pool(input, functional.max_pool1d)


class MaxPool2d(MaxPoolNd):
    """The maximum of each kH x kW window of (N, C, H, W) inputs.

    >>> import minitorch
    >>> minitorch.nn.MaxPool2d(2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    def forward(self, input: Tensor):  # noqa: A002
        return self.pool(input, functional.max_pool2d)


class AvgPoolNd(Module):
    """The settings of average pooling; `stride` defaults to `kernel_size`."""

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self) -> str:
        return options_repr(self, ("kernel_size", "stride", "padding"))

    def pool(self, input: Tensor, fn, *settings) -> Tensor:  # noqa: A002
        """`fn` (an average pooling of `functional`) of `input` with these settings, and
        then any of `settings` that only that pooling takes."""
        args = (self.kernel_size, self.stride, self.padding, self.ceil_mode)
        return fn(input, *args, self.count_include_pad, *settings)


class AvgPool1d(AvgPoolNd):
    """The mean of each window of (N, C, L) inputs.

    >>> import minitorch
    >>> minitorch.nn.AvgPool1d(3)
    AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))
    """

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
    ) -> None:
        # Kept as 1-tuples, which is how PyTorch prints them.
        stride = as_tuple(stride if stride is not None else kernel_size, 1)
        kernel_size, padding = as_tuple(kernel_size, 1), as_tuple(padding, 1)
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self.pool(input, functional.avg_pool1d)


class AvgPool2d(AvgPoolNd):
    """The mean of each kH x kW window of (N, C, H, W) inputs.

    >>> import minitorch
    >>> minitorch.nn.AvgPool2d(2)
    AvgPool2d(kernel_size=2, stride=2, padding=0)
    """

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override=None,
    ) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self.pool(input, functional.avg_pool2d, self.divisor_override)


class AdaptivePoolNd(Module):
    """The setting of an adaptive pooling: its `output_size`."""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(AdaptivePoolNd):
    """Average pooling of (N, C, H, W) inputs to a fixed `output_size`.

    >>> import minitorch
    >>> minitorch.nn.AdaptiveAvgPool2d((5, 7))
    AdaptiveAvgPool2d(output_size=(5, 7))
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.adaptive_avg_pool2d(input, self.output_size)
