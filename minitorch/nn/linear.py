"""`Linear`: the fully connected layer $y = x W^T + b$, with PyTorch's shapes and initialisation."""

from __future__ import annotations

import math

from .._tensor import Tensor
from ..tensors.creation import rand
from . import functional
from .module import Module, Parameter


class Linear(Module):
    """$y = x W^T + b$ for inputs whose last dimension has `in_features` elements.

    `weight` has shape (out_features, in_features) and `bias` (out_features,),
    both uniform in $\\pm 1/\\sqrt{\\text{in\\_features}}$: the distribution of
    PyTorch's default (Kaiming-uniform with $a = \\sqrt 5$), made with `dtype` and on
    `device` (the defaults when None).

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
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0

        def uniform(*shape: int) -> Tensor:
            return rand(*shape, dtype=dtype, device=device) * (2 * bound) - bound

        self.weight = Parameter(uniform(out_features, in_features))
        self.bias = Parameter(uniform(out_features)) if bias else None

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        bias = None if self.bias is None else self.bias.value
        return functional.linear(input, self.weight.value, bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )
