"""The activations of `minitorch.nn.functional` beyond `functional.py`'s: the softplus
family, the hard (piecewise-linear) ones, SELU/CELU, Mish, PReLU, GLU, the shrinkages.

The ones with kinks are `Pointwise` nodes, $y = f(x)$ with a derivative $f'(x)$ written
out, so the derivative at a kink is PyTorch's (e.g. `hardtanh`'s is 0 at its ends); the
smooth compositions (`softsign`, `tanhshrink`, `glu`, `prelu`, `softmin`) are left to
autograd.
"""

from __future__ import annotations

from collections.abc import Callable

from .._tensor import Tensor
from ..autograd import Function
from ..ops.selection import where
from ..tensors.creation import empty_like, ones_like

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


class Pointwise(Function):
    """$y = f(x)$ elementwise with $\\partial L / \\partial x = g \\cdot f'(x)$; `value` and
    `slope` are $f$ and $f'$ as functions of tensors, `name` PyTorch's node name."""

    @staticmethod
    def forward(ctx, a: Tensor, value: Callable, slope: Callable, name: str) -> Tensor:
        ctx.save_for_backward(a)
        ctx.slope = slope
        return value(a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * ctx.slope(a)

    @classmethod
    def node_name(cls, *inputs, **params) -> str:
        return params["name"] + "Backward0"


def _pointwise(input: Tensor, value: Callable, slope: Callable, name: str) -> Tensor:  # noqa: A002
    return Pointwise.apply(input, value=value, slope=slope, name=name)


def _inplace(input: Tensor, result: Tensor, inplace: bool) -> Tensor:  # noqa: A002
    """`result`, written into `input` when `inplace` (PyTorch's `inplace=True`)."""
    return input.copy_(result) if inplace else result


def _mask(condition: Tensor, like: Tensor) -> Tensor:
    return condition.to(like.dtype)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    """$\\frac{1}{\\beta} \\ln(1 + e^{\\beta x})$, and $x$ itself where $\\beta x >$
    `threshold` (where the two agree to rounding); derivative $\\sigma(\\beta x)$."""

    def value(a: Tensor) -> Tensor:
        return where(a * beta > threshold, a, (a * beta).exp().log1p() / beta)

    def slope(a: Tensor) -> Tensor:
        z = (a * beta).exp()
        return where(a * beta > threshold, 1.0, z / (z + 1))

    return _pointwise(input, value, slope, "Softplus")


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
    result = _pointwise(
        input,
        lambda a: a.clamp(min_val, max_val),
        lambda a: _mask((a > min_val).logical_and(a < max_val), a),
        "Hardtanh",
    )
    return _inplace(input, result, inplace)


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
    result = _pointwise(
        input,
        lambda a: (a + 3).clamp(0.0, 6.0) / 6,
        lambda a: _mask((a > -3).logical_and(a < 3), a) * ONE_SIXTH_IN_FLOAT32,
        "Hardsigmoid",
    )
    return _inplace(input, result, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """$x \\operatorname{relu6}(x + 3) / 6$ (Howard et al.); derivative 0 up to $-3$,
    $x / 3 + 1/2$ strictly between, 1 from $3$ on (PyTorch's values at the kinks)."""
    result = _pointwise(
        input,
        lambda a: a * (a + 3).clamp(0.0, 6.0) / 6,
        lambda a: where(a <= -3, 0.0, where(a < 3, a / 3 + 0.5, 1.0)),
        "Hardswish",
    )
    return _inplace(input, result, inplace)


def _exponential_unit(
    input: Tensor,  # noqa: A002
    scale: float,
    alpha: float,
    input_scale: float,
    name: str,
) -> Tensor:
    """$s x$ for $x > 0$, else $s \\alpha (e^{c x} - 1)$ (ELU's family, PyTorch's
    `elu(x, alpha, scale, input_scale)`), derivative $s$ or $s \\alpha c e^{c x}$."""
    return _pointwise(
        input,
        lambda a: where(a > 0, a * scale, ((a * input_scale).exp() - 1) * (alpha * scale)),
        lambda a: where(a > 0, scale, (a * input_scale).exp() * (alpha * scale * input_scale)),
        name,
    )


def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """$\\lambda x$ for $x > 0$, else $\\lambda \\alpha (e^x - 1)$, with Klambauer et al.'s
    $\\alpha \\approx 1.6733$ and $\\lambda \\approx 1.0507$ (self-normalising)."""
    result = _exponential_unit(input, SELU_SCALE, SELU_ALPHA, 1.0, "Elu")
    return _inplace(input, result, inplace)


def selu_(input: Tensor) -> Tensor:  # noqa: A002
    """`selu` in place."""
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """$\\max(0, x) + \\min(0, \\alpha (e^{x / \\alpha} - 1))$ (Barron)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    result = _exponential_unit(input, 1.0, alpha, 1.0 / alpha, "Celu")
    return _inplace(input, result, inplace)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """`celu` in place."""
    return celu(input, alpha, inplace=True)


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """$x \\tanh(\\ln(1 + e^x))$ (Misra); derivative
    $\\tanh s + x \\sigma(x) (1 - \\tanh^2 s)$ with $s = \\ln(1 + e^x)$."""

    def slope(a: Tensor) -> Tensor:
        t = a.exp().log1p().tanh()
        return t + a * a.sigmoid() * (1 - t * t)

    result = _pointwise(input, lambda a: a * a.exp().log1p().tanh(), slope, "Mish")
    return _inplace(input, result, inplace)


def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """$\\ln \\sigma(x) = \\min(x, 0) - \\ln(1 + e^{-|x|})$ (stable for large $|x|$);
    derivative $\\sigma(-x)$."""
    return _pointwise(
        input,
        lambda a: a.clamp(max=0.0) - (-a.abs()).exp().log1p(),
        lambda a: (-a).sigmoid(),
        "LogSigmoid",
    )


def threshold(
    input: Tensor,  # noqa: A002
    threshold: float,
    value: float,
    inplace: bool = False,
) -> Tensor:
    """$x$ where $x >$ `threshold`, else `value`; derivative 1 or 0."""
    return _inplace(input, _thresholded(input, threshold, value), inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    """`threshold` in place."""
    return input.copy_(_thresholded(input, threshold, value))


def _thresholded(input: Tensor, level: float, value: float) -> Tensor:  # noqa: A002
    return _pointwise(
        input, lambda a: where(a > level, a, value), lambda a: _mask(a > level, a), "Threshold"
    )


def _check_lambd(lambd: float) -> None:
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """$x - \\lambda$ above $\\lambda$, $x + \\lambda$ below $-\\lambda$, 0 between
    (derivative 0 on $[-\\lambda, \\lambda]$, else 1)."""
    _check_lambd(lambd)
    return _pointwise(
        input,
        lambda a: where(a > lambd, a - lambd, where(a < -lambd, a + lambd, 0.0)),
        lambda a: _mask((a > lambd).logical_or(a < -lambd), a),
        "Softshrink",
    )


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """$x$ where $|x| > \\lambda$, else 0 (derivative 1 or 0)."""
    _check_lambd(lambd)
    outside = lambda a: (a > lambd).logical_or(a < -lambd)  # noqa: E731
    return _pointwise(
        input, lambda a: where(outside(a), a, 0.0), lambda a: _mask(outside(a), a), "Hardshrink"
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


def rrelu(
    input: Tensor,  # noqa: A002
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """The randomized leaky ReLU (Xu et al.): $x$ for $x > 0$, else $a x$ with a slope
    $a \\sim U(\\text{lower}, \\text{upper})$ drawn per element while `training`, and
    $a = (\\text{lower} + \\text{upper}) / 2$ otherwise."""
    if training:
        slopes = where(input > 0, 1.0, empty_like(input).uniform_(lower, upper))
        return _inplace(input, input * slopes, inplace)
    slope = (lower + upper) / 2
    result = _pointwise(
        input,
        lambda a: where(a > 0, a, a * slope),
        lambda a: where(a > 0, ones_like(a), slope),
        "RreluWithNoise",
    )
    return _inplace(input, result, inplace)


def rrelu_(
    input: Tensor,  # noqa: A002
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
) -> Tensor:
    """`rrelu` in place."""
    return rrelu(input, lower, upper, training, inplace=True)


def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    """$\\max(0, x) + w \\min(0, x)$ with a learned slope $w$: one for all, or one per
    channel (dimension 1) when `weight` has as many elements as channels."""
    count = weight.numel()
    if count != 1:
        channels = input.shape[1] if input.ndim >= 2 else 1
        if input.ndim == 0 or count != channels:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {count} and channel size = {channels}."
            )
        weight = weight.reshape(channels, *([1] * (input.ndim - 2)))
    return where(input > 0, input, weight * input)


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
