"""The activations of `minitorch.nn.functional` beyond `functional.py`'s: the softplus
family, the hard (piecewise-linear) ones, SELU/CELU, Mish, PReLU, GLU, the shrinkages.

The ones with kinks are `Pointwise` nodes, $y = f(x)$ with a derivative $f'(x)$ written
out, so the derivative at a kink is PyTorch's (e.g. `hardtanh`'s is 0 at its ends); the
smooth compositions (`softsign`, `tanhshrink`, `glu`, `prelu`, `softmin`) are left to
autograd.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..ops.activations import (
    as_mask,
    celu,
    celu_,
    hardshrink,
    pointwise,
    prelu,
    rrelu,
    rrelu_,
    selu,
    selu_,
    threshold,
    threshold_,
)
from ..ops.selection import where


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    """$\\frac{1}{\\beta} \\ln(1 + e^{\\beta x})$, and $x$ itself where $\\beta x >$
    `threshold` (where the two agree to rounding); derivative $\\sigma(\\beta x)$."""

    def value(a: Tensor) -> Tensor:
        return where(a * beta > threshold, a, (a * beta).exp().log1p() / beta)

    def slope(a: Tensor) -> Tensor:
        z = (a * beta).exp()
        return where(a * beta > threshold, 1.0, z / (z + 1))

    return pointwise(input, value, slope, "Softplus")


def hardtanh(
    input: Tensor,  # noqa: A002
    min_val: float = -1.0,
    max_val: float = 1.0,
    inplace: bool = False,
) -> Tensor:
    """$x$ clamped to $[\\text{min\\_val}, \\text{max\\_val}]$; derivative 1 strictly inside,
    else 0."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return pointwise(
        input,
        lambda a: a.clamp(min_val, max_val),
        lambda a: as_mask((a > min_val).logical_and(a < max_val), a),
        "Hardtanh",
        inplace,
    )


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:  # noqa: A002
    """`hardtanh` in place."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """$\\min(\\max(0, x), 6)$: `hardtanh` on $[0, 6]$."""
    return hardtanh(input, 0.0, 6.0, inplace)


# PyTorch's derivative of hardsigmoid is the float32 constant 1/6 in every dtype
ONE_SIXTH_IN_FLOAT32 = 0.1666666716337204


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """$\\operatorname{relu6}(x + 3) / 6$; derivative $1/6$ (rounded to float32, as
    PyTorch's) strictly inside $(-3, 3)$, else 0."""
    return pointwise(
        input,
        lambda a: (a + 3).clamp(0.0, 6.0) / 6,
        lambda a: as_mask((a > -3).logical_and(a < 3), a) * ONE_SIXTH_IN_FLOAT32,
        "Hardsigmoid",
        inplace,
    )


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """$x \\operatorname{relu6}(x + 3) / 6$ (Howard et al.); derivative 0 up to $-3$,
    $x / 3 + 1/2$ strictly between, 1 from $3$ on (PyTorch's values at the kinks)."""
    return pointwise(
        input,
        lambda a: a * (a + 3).clamp(0.0, 6.0) / 6,
        lambda a: where(a <= -3, 0.0, where(a < 3, a / 3 + 0.5, 1.0)),
        "Hardswish",
        inplace,
    )


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """$x \\tanh(\\ln(1 + e^x))$ (Misra); derivative
    $\\tanh s + x \\sigma(x) (1 - \\tanh^2 s)$ with $s = \\ln(1 + e^x)$."""

    def slope(a: Tensor) -> Tensor:
        t = a.exp().log1p().tanh()
        return t + a * a.sigmoid() * (1 - t * t)

    return pointwise(input, lambda a: a * a.exp().log1p().tanh(), slope, "Mish", inplace)


def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """$\\ln \\sigma(x) = \\min(x, 0) - \\ln(1 + e^{-|x|})$ (stable for large $|x|$);
    derivative $\\sigma(-x)$."""
    return pointwise(
        input,
        lambda a: a.clamp(max=0.0) - (-a.abs()).exp().log1p(),
        lambda a: (-a).sigmoid(),
        "LogSigmoid",
    )


def check_lambd(lambd: float) -> None:
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """$x - \\lambda$ above $\\lambda$, $x + \\lambda$ below $-\\lambda$, 0 between
    (derivative 0 on $[-\\lambda, \\lambda]$, else 1)."""
    check_lambd(lambd)
    return pointwise(
        input,
        lambda a: where(a > lambd, a - lambd, where(a < -lambd, a + lambd, 0.0)),
        lambda a: as_mask((a > lambd).logical_or(a < -lambd), a),
        "Softshrink",
    )


def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002
    """$x - \\tanh x$."""
    return input - input.tanh()


def softsign(input: Tensor) -> Tensor:  # noqa: A002
    """$x / (1 + |x|)$."""
    return input / (input.abs() + 1)


def glu(input: Tensor, dim: int = -1) -> Tensor:  # noqa: A002
    """The gated linear unit (Dauphin et al.): $a \\otimes \\sigma(b)$, $a$ and $b$ the two
    halves of `input` along `dim`."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim % input.ndim} is size {size}"
        )
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


__all__ = [
    "celu",
    "celu_",
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "logsigmoid",
    "mish",
    "prelu",
    "relu6",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "softplus",
    "softshrink",
    "softsign",
    "tanhshrink",
    "threshold",
    "threshold_",
]
