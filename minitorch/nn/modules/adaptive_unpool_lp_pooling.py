"""Adaptive, unpooling, power-average and fractional pooling layers: `AdaptiveMaxPool1d/2d`,
`AdaptiveAvgPool1d`, `MaxUnpool1d/2d`, `LPPool1d/2d` and `FractionalMaxPool2d`, with
PyTorch's settings and reprs.

Each holds its settings and calls its function of `minitorch.nn.functional`.
"""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional
from ..module import Module
from .function_layer import options_repr
from .pooling import AdaptivePoolNd


def repeated(value, n: int) -> tuple:
    """A number or a sequence as a tuple of `n` (`torch.nn.modules.utils._ntuple`)."""
    return (value,) * n if isinstance(value, (int, float)) else tuple(value)


class AdaptiveMaxPoolNd(AdaptivePoolNd):
    """The settings of adaptive max pooling."""

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(AdaptiveMaxPoolNd):
    """Max pooling of (N, C, L) or (C, L) inputs to length `output_size`.

    >>> import minitorch
    >>> minitorch.nn.AdaptiveMaxPool1d(2)(minitorch.tensor([[1.0, 4.0, 2.0]]))
    tensor([[4., 4.]])
    """

    def forward(self, input: Tensor):  # noqa: A002
        return functional.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(AdaptiveMaxPoolNd):
    """Max pooling of (N, C, H, W) or (C, H, W) inputs to `output_size` (None keeps a size).

    >>> import minitorch
    >>> minitorch.nn.AdaptiveMaxPool2d((3, None))
    AdaptiveMaxPool2d(output_size=(3, None))
    """

    def forward(self, input: Tensor):  # noqa: A002
        return functional.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveAvgPool1d(AdaptivePoolNd):
    """Average pooling of (N, C, L) or (C, L) inputs to length `output_size`.

    >>> import minitorch
    >>> minitorch.nn.AdaptiveAvgPool1d(2)(minitorch.tensor([[1.0, 4.0, 2.0]]))
    tensor([[2.5000, 3.0000]])
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.adaptive_avg_pool1d(input, self.output_size)


class MaxUnpoolNd(Module):
    """The settings of max unpooling; `stride` defaults to `kernel_size`."""

    dims = 1

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = repeated(kernel_size, self.dims)
        self.stride = repeated(stride if stride is not None else kernel_size, self.dims)
        self.padding = repeated(padding, self.dims)

    def extra_repr(self) -> str:
        return options_repr(self, ("kernel_size", "stride", "padding"))


class MaxUnpool1d(MaxUnpoolNd):
    """The inverse of `MaxPool1d` where it is one: each value at its index, zeros elsewhere.

    >>> import minitorch
    >>> minitorch.nn.MaxUnpool1d(3, 2, 1)
    MaxUnpool1d(kernel_size=(3,), stride=(2,), padding=(1,))
    """

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:  # noqa: A002
        settings = (self.kernel_size, self.stride, self.padding, output_size)
        return functional.max_unpool1d(input, indices, *settings)


class MaxUnpool2d(MaxUnpoolNd):
    """The inverse of `MaxPool2d` where it is one: each value at its index, zeros elsewhere.

    >>> import minitorch
    >>> minitorch.nn.MaxUnpool2d(2)
    MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
    """

    dims = 2

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:  # noqa: A002
        settings = (self.kernel_size, self.stride, self.padding, output_size)
        return functional.max_unpool2d(input, indices, *settings)


class LPPoolNd(Module):
    """The settings of power-average pooling."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def extra_repr(self) -> str:
        return options_repr(self, ("norm_type", "kernel_size", "stride", "ceil_mode"))

    def pool(self, input: Tensor, fn) -> Tensor:  # noqa: A002
        return fn(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(LPPoolNd):
    """$(\\sum_{window} x^p)^{1/p}$ over each window of (N, C, L) or (C, L) inputs.

    >>> import minitorch
    >>> minitorch.nn.LPPool1d(1.5, 3, 2, True)
    LPPool1d(norm_type=1.5, kernel_size=3, stride=2, ceil_mode=True)
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self.pool(input, functional.lp_pool1d)


class LPPool2d(LPPoolNd):
    """$(\\sum_{window} x^p)^{1/p}$ over each kH x kW window of (N, C, H, W) inputs."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self.pool(input, functional.lp_pool2d)


class FractionalMaxPool2d(Module):
    """Max pooling of kH x kW windows at pseudo-random, non-integer steps to `output_size`, or
    to `output_ratio` (each in (0, 1)) of the input's size; `_random_samples` (a buffer) fixes
    the steps.

    >>> import minitorch
    >>> minitorch.nn.FractionalMaxPool2d(3, output_ratio=0.5)
    FractionalMaxPool2d()
    """

    def __init__(
        self,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices: bool = False,
        _random_samples=None,
    ) -> None:
        super().__init__()
        self.kernel_size = repeated(kernel_size, 2)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = repeated(output_size, 2) if output_size is not None else None
        self.output_ratio = repeated(output_ratio, 2) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):  # noqa: A002
        return functional.fractional_max_pool2d(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )
