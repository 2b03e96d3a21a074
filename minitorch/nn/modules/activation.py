"""Activations as modules: `ReLU`, `LeakyReLU`, `GELU`, `SiLU`, `ELU`, `Sigmoid`, `Tanh`,
`Softmax`, `LogSoftmax`, `Softplus`, `Hardtanh`, `ReLU6`, `SELU`, `CELU`, `Mish`,
`Hardswish`, `Hardsigmoid`, `PReLU` (with its learned slope), `Softsign`, `Tanhshrink`,
`LogSigmoid`, `Softmin`, `GLU`, `Threshold`, `Softshrink`, `Hardshrink`; each calls its
function in `nn.functional`."""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ...tensors.creation import empty
from .. import functional, init
from ..module import Module
from ..parameter import Parameter
from .function_layer import FunctionLayer


class ReLU(Module):
    """$\\max(0, x)$ elementwise."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.relu_() if self.inplace else functional.relu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(FunctionLayer):
    """$x$ for $x > 0$, else `negative_slope` $\\cdot x$."""

    function = staticmethod(functional.leaky_relu)
    OPTIONS = ("negative_slope", "inplace")

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace


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


class _WithAlpha(FunctionLayer):
    """An exponential-linear activation: `function(input, alpha, inplace)`."""

    OPTIONS = ("alpha", "inplace")

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace


class ELU(_WithAlpha):
    """$x$ for $x > 0$, else $\\alpha (e^x - 1)$."""

    function = staticmethod(functional.elu)


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


class _AlongDim(Module):
    """A normalisation along `dim` (softmax and its kin): `function` of the input and the
    dim, guessed as PyTorch does (with its warning) when `dim` is None."""

    function = staticmethod(functional.softmax)

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        function = type(self).function
        return function(input, _dim_or_implicit(self.dim, function.__name__, input.ndim))

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_AlongDim):
    """$e^{x_i} / \\sum_j e^{x_j}$ along `dim`."""


class LogSoftmax(_AlongDim):
    """$x_i - \\ln \\sum_j e^{x_j}$ along `dim`."""

    function = staticmethod(functional.log_softmax)


class Softplus(FunctionLayer):
    """$\\frac{1}{\\beta} \\ln(1 + e^{\\beta x})$ (linear above `threshold`)."""

    function = staticmethod(functional.softplus)
    OPTIONS = ("beta", "threshold")

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold


class Hardtanh(FunctionLayer):
    """$x$ clamped to $[\\text{min\\_val}, \\text{max\\_val}]$."""

    function = staticmethod(functional.hardtanh)
    OPTIONS = ("min_val", "max_val", "inplace")

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if max_val <= min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")


class ReLU6(Hardtanh):
    """$\\min(\\max(0, x), 6)$."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class _Inplace(Module):
    """An activation with only `inplace`, which its repr shows when set."""

    function = staticmethod(functional.selu)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return type(self).function(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class SELU(_Inplace):
    """$\\lambda x$ for $x > 0$, else $\\lambda \\alpha (e^x - 1)$ (self-normalising)."""


class Mish(_Inplace):
    """$x \\tanh(\\ln(1 + e^x))$."""

    function = staticmethod(functional.mish)


class Hardswish(_Inplace):
    """$x \\operatorname{relu6}(x + 3) / 6$."""

    function = staticmethod(functional.hardswish)

    def extra_repr(self) -> str:
        return ""


class Hardsigmoid(Hardswish):
    """$\\operatorname{relu6}(x + 3) / 6$."""

    function = staticmethod(functional.hardsigmoid)


class CELU(_WithAlpha):
    """$\\max(0, x) + \\min(0, \\alpha (e^{x / \\alpha} - 1))$."""

    function = staticmethod(functional.celu)


class PReLU(Module):
    """$\\max(0, x) + w \\min(0, x)$ with a learned slope `weight` $w$ (one, or one per
    channel), starting at `init`."""

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None
    ) -> None:
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class _Stateless(Module):
    """An activation without options: `function` of the input."""

    function = staticmethod(functional.softsign)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return type(self).function(input)


class Softsign(_Stateless):
    """$x / (1 + |x|)$."""


class Tanhshrink(_Stateless):
    """$x - \\tanh x$."""

    function = staticmethod(functional.tanhshrink)


class LogSigmoid(_Stateless):
    """$\\ln \\sigma(x)$."""

    function = staticmethod(functional.logsigmoid)


class RReLU(FunctionLayer):
    """$x$ for $x > 0$, else $a x$: $a \\sim U(\\text{lower}, \\text{upper})$ per element in
    training, $(\\text{lower} + \\text{upper}) / 2$ in eval mode."""

    OPTIONS = ("lower", "upper", "inplace")  # the repr's; forward passes `training` too

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.rrelu(input, self.lower, self.upper, self.training, self.inplace)


class Softmax2d(Module):
    """Softmax over the channels of each position of a (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return functional.softmax(input, -3)


class Softmin(_AlongDim):
    """$e^{-x_i} / \\sum_j e^{-x_j}$ along `dim`."""

    function = staticmethod(functional.softmin)


class GLU(FunctionLayer):
    """$a \\otimes \\sigma(b)$ for the halves $a$, $b$ of the input along `dim`."""

    function = staticmethod(functional.glu)
    OPTIONS = ("dim",)

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim


class Threshold(FunctionLayer):
    """$x$ where $x >$ `threshold`, else `value`."""

    function = staticmethod(functional.threshold)
    OPTIONS = ("threshold", "value", "inplace")

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace


class Softshrink(Module):
    """$x \\mp \\lambda$ outside $[-\\lambda, \\lambda]$, 0 inside."""

    function = staticmethod(functional.softshrink)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return type(self).function(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Softshrink):
    """$x$ outside $[-\\lambda, \\lambda]$, 0 inside."""

    function = staticmethod(functional.hardshrink)
