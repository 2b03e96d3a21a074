"""Padding layers, as `torch.nn`'s: `ZeroPad`, `ConstantPad`, `ReflectionPad`, `ReplicationPad`
and `CircularPad`, each in 1, 2 and 3 dims.

Each holds `padding` as a tuple (left, right, top, bottom, front, back), an int standing
for all of them, and calls `nn.functional.pad` with its mode.
"""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional
from ..module import Module


def padding_tuple(padding, dims: int) -> tuple:
    """`padding` as PyTorch keeps it: a sequence as a tuple, an int repeated `2 dims` times."""
    if isinstance(padding, int):
        return (padding,) * (2 * dims)
    return tuple(padding)


class PadNd(Module):
    """The settings of a padding of `dims` trailing dims in `mode`."""

    mode = "constant"
    dims = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = padding_tuple(padding, self.dims)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ConstantPadNd(PadNd):
    """Padding with the number `value`."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(ConstantPadNd):
    """The last dim of (C, W) or (N, C, W) inputs padded with `value`.

    >>> import minitorch
    >>> minitorch.nn.ConstantPad1d((1, 2), 3.5)(minitorch.ones(1, 2))
    tensor([[3.5000, 1.0000, 1.0000, 3.5000, 3.5000]])
    """


class ConstantPad2d(ConstantPadNd):
    """The last two dims padded with `value`."""

    dims = 2


class ConstantPad3d(ConstantPadNd):
    """The last three dims padded with `value`."""

    dims = 3


class ZeroPadNd(ConstantPadNd):
    """Padding with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(ZeroPadNd, ConstantPad1d):
    """The last dim padded with zeros.

    >>> import minitorch
    >>> minitorch.nn.ZeroPad1d(1)
    ZeroPad1d((1, 1))
    """


class ZeroPad2d(ZeroPadNd, ConstantPad2d):
    """The last two dims padded with zeros."""


class ZeroPad3d(ZeroPadNd, ConstantPad3d):
    """The last three dims padded with zeros."""


class ReflectionPadNd(PadNd):
    """Padding by mirroring."""

    mode = "reflect"


class ReflectionPad1d(ReflectionPadNd):
    """The last dim mirrored about its edges (the edge itself not repeated).

    >>> import minitorch
    >>> minitorch.nn.ReflectionPad1d(2)(minitorch.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 2., 1., 2., 3., 2., 1.]])
    """


class ReflectionPad2d(ReflectionPadNd):
    """The last two dims mirrored about their edges."""

    dims = 2


class ReflectionPad3d(ReflectionPadNd):
    """The last three dims mirrored about their edges."""

    dims = 3


class ReplicationPadNd(PadNd):
    """Padding by repeating the edges."""

    mode = "replicate"


class ReplicationPad1d(ReplicationPadNd):
    """The last dim extended by repeating its edge elements.

    >>> import minitorch
    >>> minitorch.nn.ReplicationPad1d((2, 1))(minitorch.tensor([[1.0, 2.0, 3.0]]))
    tensor([[1., 1., 1., 2., 3., 3.]])
    """


class ReplicationPad2d(ReplicationPadNd):
    """The last two dims extended by repeating their edges."""

    dims = 2


class ReplicationPad3d(ReplicationPadNd):
    """The last three dims extended by repeating their edges."""

    dims = 3


class CircularPadNd(PadNd):
    """Padding by wrapping around; the input must have `dims` + 1 or + 2 dims."""

    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.ndim not in (self.dims + 1, self.dims + 2):
            raise ValueError(
                f"expected {self.dims + 1}D or {self.dims + 2}D input (got {input.ndim}D input)"
            )
        return super().forward(input)


class CircularPad1d(CircularPadNd):
    """The last dim wrapped around: the left padding is the end of the input, and so on.

    >>> import minitorch
    >>> minitorch.nn.CircularPad1d(1)(minitorch.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 1., 2., 3., 1.]])
    """


class CircularPad2d(CircularPadNd):
    """The last two dims wrapped around."""

    dims = 2


class CircularPad3d(CircularPadNd):
    """The last three dims wrapped around."""

    dims = 3
