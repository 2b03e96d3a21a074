"""`ConvTranspose1d` and `ConvTranspose2d`: learned transposed convolutions, with PyTorch's
arguments, parameters, initialisation and repr."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional
from .conv import ConvNd


class ConvTransposeNd(ConvNd):
    """What `ConvTranspose1d` and `ConvTranspose2d` share (and with `ConvNd`: checks, repr).

    `weight` has shape (in_channels, out_channels / groups, *kernel_size) and `bias`
    (out_channels,), both uniform in $\\pm 1/\\sqrt{\\text{fan\\_in}}$ with fan_in the weight's
    $\\text{out\\_channels} / \\text{groups} \\cdot \\prod \\text{kernel\\_size}$ (PyTorch's
    Kaiming-uniform with $a = \\sqrt 5$, computed on the weight as stored).
    """

    transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups: int = 1,
        bias: bool = True,
        dilation=1,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise TypeError(
                f"conv_transpose{self.dims}d(): argument 'padding' must be tuple of ints, not str"
            )
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
            padding_mode, device, dtype, output_padding,
        )  # fmt: skip

    def output_padding_for(self, input: Tensor, output_size) -> tuple:  # noqa: A002
        """The output padding that gives `output_size` (its spatial sizes, or all sizes), or
        the layer's own when it is None; PyTorch's ValueError for a size out of reach."""
        if output_size is None:
            return self.output_padding
        dims = self.dims
        leading = 2 if input.ndim == dims + 2 else 1
        if len(output_size) == leading + dims:
            output_size = output_size[leading:]
        if len(output_size) != dims:
            raise ValueError(
                f"ConvTranspose{dims}D: for {input.ndim}D input, output_size must have {dims} "
                f"or {leading + dims} elements (got {len(output_size)})"
            )
        smallest = [
            (input.shape[d + leading] - 1) * s - 2 * p + dl * (k - 1) + 1
            for d, (s, p, k, dl) in enumerate(
                zip(self.stride, self.padding, self.kernel_size, self.dilation, strict=True)
            )
        ]
        largest = [m + s - 1 for m, s in zip(smallest, self.stride, strict=True)]
        if any(not lo <= n <= hi for n, lo, hi in zip(output_size, smallest, largest, strict=True)):
            raise ValueError(
                f"requested an output size of {output_size}, but valid sizes range from "
                f"{smallest} to {largest} (for an input of {input.shape[2:]})"
            )
        return tuple(n - m for n, m in zip(output_size, smallest, strict=True))

    def transpose(self, input: Tensor, output_size, conv) -> Tensor:  # noqa: A002
        return conv(
            input, self.weight, self.bias, self.stride, self.padding,
            self.output_padding_for(input, output_size), self.groups, self.dilation,
        )  # fmt: skip


class ConvTranspose1d(ConvTransposeNd):
    """1-D transposed convolution of (N, C_in, L) (or (C_in, L)) inputs: the gradient of a
    `Conv1d` with respect to its input; $L_{out} = (L - 1) s - 2 p + d (k - 1) + p_{out} + 1$.

    >>> import minitorch
    >>> layer = minitorch.nn.ConvTranspose1d(2, 3, kernel_size=3, stride=2)
    >>> layer(minitorch.ones(4, 2, 5)).shape
    minitorch.Size([4, 3, 11])
    >>> layer
    ConvTranspose1d(2, 3, kernel_size=(3,), stride=(2,))
    """

    dims = 1

    def forward(self, input: Tensor, output_size=None) -> Tensor:  # noqa: A002
        return self.transpose(input, output_size, functional.conv_transpose1d)


class ConvTranspose2d(ConvTransposeNd):
    """2-D transposed convolution of (N, C_in, H, W) (or (C_in, H, W)) inputs: the gradient of
    a `Conv2d` with respect to its input; `output_size` picks among the sizes a strided
    convolution maps to the input's.

    >>> import minitorch
    >>> layer = minitorch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
    >>> layer(minitorch.ones(1, 4, 5, 5), output_size=(10, 10)).shape
    minitorch.Size([1, 2, 10, 10])
    """

    dims = 2

    def forward(self, input: Tensor, output_size=None) -> Tensor:  # noqa: A002
        return self.transpose(input, output_size, functional.conv_transpose2d)
