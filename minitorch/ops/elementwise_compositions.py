"""Elementwise functions composed from existing operations: `logit`, `xlogy`, `sinc`,
`heaviside`, `copysign`, `float_power`, `signbit`, `isin`, `isneginf`/`isposinf`,
`logaddexp`/`logaddexp2`, and the NaN-skipping reductions `nansum`/`nanmean`.

Where a formula is undefined at a point that the function defines by its limit
($\\operatorname{sinc} 0 = 1$, $0 \\log 0 = 0$), the input is first replaced there by a
harmless value and the result chosen with `where` (the "double where"), so the gradient
there is the limit's, not $0 \\cdot \\text{NaN}$.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import dtypes
from ..tensors.base import TensorBase
from ..tensors.creation import tensor
from ..tensors.kernels import apply_map
from .arithmetic import add, div, mul, sub, tensor_pow
from .comparisons import clamp, maximum, where
from .copies import to
from .elementwise import log1p, sin
from .public import public
from .unary import exp, log
from .unary import tensor_abs as absolute

if TYPE_CHECKING:
    from .._tensor import Tensor

LN2 = math.log(2.0)


def as_tensor_like(value, like: Tensor) -> Tensor:
    return value if isinstance(value, TensorBase) else tensor(value, device=like.device)


def float_of(a: Tensor) -> Tensor:
    """`a` itself if floating, else in the default float dtype (integers give floats)."""
    return a if a.dtype.is_floating_point else to(a, dtypes.get_default_dtype())


@public(inplace=True)
def logit(a: Tensor, eps: float | None = None) -> Tensor:
    """$\\log \\frac{a}{1 - a}$; with `eps`, $a$ clamped to $[\\epsilon, 1 - \\epsilon]$ first."""
    x = float_of(a)
    if eps is not None:
        x = clamp(x, eps, 1 - eps)
    return log(div(x, sub(1, x)))


@public(inplace=True)
def xlogy(a, b) -> Tensor:
    """$a \\log b$, and $0$ where $a = 0$ (unless $b$ is NaN)."""
    a = as_tensor_like(a, b) if not isinstance(a, TensorBase) else a
    b = as_tensor_like(b, a)
    product = mul(a, log(float_of(b)))
    return where((a == 0) & (b == b), 0.0, product)


@public(inplace=True)
def sinc(a: Tensor) -> Tensor:
    """$\\frac{\\sin \\pi a}{\\pi a}$, and $1$ at $a = 0$."""
    x = float_of(a)
    zero = x == 0
    safe = where(zero, 1.0, x)  # no 0/0 on the gradient's path either
    return where(zero, 1.0, div(sin(mul(safe, math.pi)), mul(safe, math.pi)))


@public(inplace=True)
def heaviside(a: Tensor, values: Tensor) -> Tensor:
    """The step function: $0$ for $a < 0$, `values` at $a = 0$, $1$ for $a > 0$ (no gradient)."""
    if a.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    step = to(a > 0, a.dtype)
    return where(a == 0, values, step).detach()


def sign_bit(x: float) -> bool:
    return math.copysign(1.0, x) < 0


@public()
def signbit(a: Tensor) -> Tensor:
    """Whether the sign bit is set: True for negatives, $-0.0$ and NaNs with the bit."""
    if not a.dtype.is_floating_point:
        return a < 0
    return apply_map(sign_bit, a, dtypes.bool_)


@public(inplace=True)
def copysign(a, b) -> Tensor:
    """$|a|$ with the sign of $b$ (its sign bit: $-0.0$ counts as negative)."""
    a = float_of(a if isinstance(a, TensorBase) else as_tensor_like(a, b))
    negative = signbit(as_tensor_like(b, a))
    magnitude = absolute(a)
    return where(negative, -magnitude, magnitude)


@public(inplace=True)
def float_power(a, b) -> Tensor:
    """$a^b$ in float64 (both operands converted first)."""
    x = to(a, dtypes.float64) if isinstance(a, TensorBase) else float(a)
    y = to(b, dtypes.float64) if isinstance(b, TensorBase) else float(b)
    return tensor_pow(x, y)


@public(method=False)
def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False):
    """Whether each element of `elements` is among `test_elements` (`invert`: is not)."""
    if not isinstance(elements, TensorBase):
        elements = tensor(elements)
    tests = as_tensor_like(test_elements, elements).reshape(-1)
    found = (elements.unsqueeze(-1) == tests).any(-1)
    return ~found if invert else found


@public()
def isneginf(a: Tensor) -> Tensor:
    """Whether each element is $-\\infty$."""
    if not a.dtype.is_floating_point:
        return a != a
    return a == -math.inf


@public()
def isposinf(a: Tensor) -> Tensor:
    """Whether each element is $+\\infty$."""
    if not a.dtype.is_floating_point:
        return a != a
    return a == math.inf


@public()
def logaddexp(a: Tensor, b: Tensor) -> Tensor:
    """$\\log(e^a + e^b) = \\max(a, b) + \\log(1 + e^{-|a - b|})$ (no overflow)."""
    a, b = float_of(a), float_of(as_tensor_like(b, a))
    high = maximum(a, b)
    gap = where(a == b, 0.0, sub(a, b))  # equal infinities: no inf - inf
    return add(high, log1p(exp(-absolute(gap))))


@public()
def logaddexp2(a: Tensor, b: Tensor) -> Tensor:
    """$\\log_2(2^a + 2^b)$."""
    return div(logaddexp(mul(float_of(a), LN2), mul(float_of(b), LN2)), LN2)


@public()
def nansum(a: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The sum over `dim` (all elements by default) with NaNs counted as zero."""
    x = where(a != a, 0, a) if a.dtype.is_floating_point else a
    total = x.sum(dim=dim, keepdim=keepdim) if dim is not None else x.sum()
    if keepdim and dim is None:
        total = total.reshape((1,) * a.ndim)
    return to(total, dtypes.to_dtype(dtype)) if dtype is not None else total


@public()
def nanmean(a: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The mean over `dim` of the elements that are not NaN."""
    if not a.dtype.is_floating_point:
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{a.dtype.torch_scalar_name}"
        )
    count = nansum(to(a == a, a.dtype), dim, keepdim)
    return div(nansum(a, dim, keepdim, dtype=dtype), count)
