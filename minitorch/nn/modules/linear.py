"""`Linear` ($y = x W^T + b$), `Bilinear` and `Identity`, with PyTorch's shapes and
initialisation."""

from __future__ import annotations

import math

from ..._tensor import Tensor
from ...tensors.creation import empty
from .. import functional, init
from ..module import Module
from ..parameter import Parameter


def add_weight_and_bias(
    module: Module, weight_shape: tuple, bias: bool, dtype, device, outputs: int | None = None
) -> None:
    """Give `module` a `weight` of `weight_shape` and a `bias` of `outputs` elements (by default
    `weight_shape[0]`; registered as None without `bias`), made with `dtype` on `device` and not
    yet drawn: the layer's `reset_parameters` fills them. Shared by `Linear`, `Bilinear` and
    `ConvNd`.
    """
    module.weight = Parameter(empty(*weight_shape, dtype=dtype, device=device))
    size = weight_shape[0] if outputs is None else outputs
    learned_bias = Parameter(empty(size, dtype=dtype, device=device)) if bias else None
    module.register_parameter("bias", learned_bias)


def reset_fan_in_uniform(weight: Parameter, bias: Parameter | None) -> None:
    """PyTorch's default start of `Linear` and convolution weights: `weight` Kaiming-uniform
    with $a = \\sqrt 5$, which is uniform in $\\pm 1/\\sqrt{\\text{fan\\_in}}$, and `bias`
    uniform in the same bound."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Identity(Module):
    """Returns its input unchanged (any constructor arguments are ignored, as in PyTorch)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input


class Linear(Module):
    """$y = x W^T + b$ for inputs whose last dimension has `in_features` elements.

    `weight` has shape (out_features, in_features) and `bias` (out_features,).
    Both start as PyTorch's do: `weight` Kaiming-uniform with $a = \\sqrt 5$, which is
    uniform in $\\pm 1/\\sqrt{\\text{in\\_features}}$, and `bias` uniform in the same
    bound; made with `dtype` and on `device` (the defaults when None).

    >>> import minitorch
    >>> layer = minitorch.nn.Linear(3, 2)
    >>> layer(minitorch.ones(4, 3)).shape
    minitorch.Size([4, 2])
    >>> layer
    Linear(in_features=3, out_features=2, bias=True)
    """

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        add_weight_and_bias(self, (out_features, in_features), bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weights again from PyTorch's default distribution."""
        reset_fan_in_uniform(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Bilinear(Module):
    """$y_k = x_1^T A_k x_2 + b_k$: `weight` (out_features, in1_features, in2_features) and
    `bias` (out_features,) start uniform in $\\pm 1/\\sqrt{\\text{in1\\_features}}$, as in PyTorch.

    >>> import minitorch
    >>> minitorch.nn.Bilinear(2, 3, 4)(minitorch.ones(5, 2), minitorch.ones(5, 3)).shape
    minitorch.Size([5, 4])
    """

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        shape = (out_features, in1_features, in2_features)
        add_weight_and_bias(self, shape, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weights again from PyTorch's default distribution."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return functional.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
