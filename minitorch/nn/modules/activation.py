"""Activations as modules: `ReLU`, `LeakyReLU`, `GELU`, `SiLU`, `ELU`, `Sigmoid`, `Tanh`,
`Softmax`, `LogSoftmax`; each calls its function in `nn.functional`."""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from .. import functional
from ..module import Module


class ReLU(Module):
    """$\\max(0, x)$ elementwise."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.relu_() if self.inplace else functional.relu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """$x$ for $x > 0$, else `negative_slope` $\\cdot x$."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """$x \\Phi(x)$ (or its tanh approximation with `approximate="tanh"`)."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """$x \\sigma(x)$ elementwise."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ELU(Module):
    """$x$ for $x > 0$, else $\\alpha (e^x - 1)$."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Sigmoid(Module):
    """$1 / (1 + e^{-x})$ elementwise."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.sigmoid(input)


class Tanh(Module):
    """$\\tanh x$ elementwise."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.tanh(input)


def _dim_or_implicit(dim: int | None, name: str, ndim: int) -> int:
    """`dim`, or PyTorch's deprecated guess when it is None (0 for 0-, 1- and 3-d input,
    else 1), with its warning."""
    if dim is not None:
        return dim
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


class Softmax(Module):
    """$e^{x_i} / \\sum_j e^{x_j}$ along `dim`."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.softmax(input, _dim_or_implicit(self.dim, "softmax", input.ndim))

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """$x_i - \\ln \\sum_j e^{x_j}$ along `dim`."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        dim = _dim_or_implicit(self.dim, "log_softmax", input.ndim)
        return functional.log_softmax(input, dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"
