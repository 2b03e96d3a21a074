"""`Conv1d` and `Conv2d`: learned convolutions with PyTorch's arguments, parameters and repr."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional
from ..module import Module
from .linear import add_weight_and_bias, reset_fan_in_uniform


def as_tuple(value, n: int) -> tuple:
    """An int or a sequence as a tuple of `n` ints (`torch.nn.modules.utils._pair`)."""
    return (value,) * n if isinstance(value, int) else tuple(value)


class ConvNd(Module):
    """What `Conv1d` and `Conv2d` share: arguments, checks, parameters and repr.

    `weight` has shape (out_channels, in_channels / groups, *kernel_size) and `bias`
    (out_channels,), both uniform in $\\pm 1/\\sqrt{\\text{fan\\_in}}$ with
    $\\text{fan\\_in} = \\text{in\\_channels} / \\text{groups} \\cdot \\prod \\text{kernel\\_size}$:
    PyTorch's default, Kaiming-uniform with $a = \\sqrt 5$ (gain $\\sqrt{2 / (1 + a^2)}$ times
    $\\sqrt{3 / \\text{fan\\_in}}$).
    """

    dims = 0
    transposed = False  # a transposed layer's weight is (in_channels, out_channels / groups, ...)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
        output_padding=0,
    ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.kernel_size = as_tuple(kernel_size, self.dims)
        self.stride = as_tuple(stride, self.dims)
        self.dilation = as_tuple(dilation, self.dims)
        if isinstance(padding, str):
            valid = {"same", "valid"}  # printed as a set, in the order Python gives (as torch)
            if padding not in valid:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = as_tuple(padding, self.dims)
        if padding_mode != "zeros":
            raise NotImplementedError(
                f"padding_mode={padding_mode!r}: minitorch pads convolutions with zeros only"
            )
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.padding_mode = padding_mode
        self.output_padding = as_tuple(output_padding, self.dims)
        channels = (in_channels, out_channels) if self.transposed else (out_channels, in_channels)
        weight_shape = (channels[0], channels[1] // groups, *self.kernel_size)
        add_weight_and_bias(self, weight_shape, bias, dtype, device, out_channels)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weights again from PyTorch's default distribution (see the class)."""
        reset_fan_in_uniform(self.weight, self.bias)

    def extra_repr(self) -> str:
        text = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * self.dims:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * self.dims:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.dims:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        return text

    def convolve(self, input: Tensor, conv) -> Tensor:  # noqa: A002
        return conv(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )


class Conv1d(ConvNd):
    """1-D convolution of (N, C_in, L) (or (C_in, L)) inputs: (N, C_out, L_out).

    >>> import minitorch
    >>> layer = minitorch.nn.Conv1d(2, 3, kernel_size=3, padding=1)
    >>> layer(minitorch.ones(4, 2, 10)).shape
    minitorch.Size([4, 3, 10])
    >>> layer
    Conv1d(2, 3, kernel_size=(3,), stride=(1,), padding=(1,))
    """

    dims = 1

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self.convolve(input, functional.conv1d)


class Conv2d(ConvNd):
    """2-D convolution of (N, C_in, H, W) (or (C_in, H, W)) inputs: (N, C_out, H_out, W_out).

    >>> import minitorch
    >>> layer = minitorch.nn.Conv2d(1, 6, 5, padding=2)
    >>> layer(minitorch.ones(2, 1, 28, 28)).shape
    minitorch.Size([2, 6, 28, 28])
    >>> layer
    Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1), padding=(2, 2))
    """

    dims = 2

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self.convolve(input, functional.conv2d)
