"""Number theory of integers (`gcd`, `lcm`) and the binary split of floats (`frexp`).

`gcd` and `lcm` are elementwise zips of integer tensors; their scalar
functions are plain Python that the Numba backends compile. `frexp` splits
$x = m \\cdot 2^e$ with $0.5 \\le |m| < 1$ into two maps.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import dtypes
from ..tensors.base import TensorBase
from ..tensors.kernels import apply_map, apply_zip, as_operands
from ..tensors.shapes import not_implemented
from .functions import Op
from .inplace import inplace
from .public import declare, public
from .running import result_pair

if TYPE_CHECKING:
    from .._tensor import Tensor
    from ..autograd.graph import GraphContext


def greatest_divisor(x: int, y: int) -> int:
    """$\\gcd(|x|, |y|)$ by Euclid's algorithm ($\\gcd(0, 0) = 0$)"""
    a, b = abs(x), abs(y)
    while b != 0:
        a, b = b, a % b
    return a


def least_multiple(x: int, y: int) -> int:
    """$|x \\cdot y| / \\gcd(x, y)$, 0 when either is 0"""
    g = greatest_divisor(x, y)
    if g == 0:
        return 0
    return abs(x // g * y)


def other_tensor(name: str, b, position: int) -> None:
    """PyTorch's error when `other` is not a tensor."""
    if not isinstance(b, TensorBase):
        raise TypeError(
            f"{name}(): argument 'other' (position {position}) must be Tensor, not "
            f"{type(b).__name__}"
        )


def integer_zip(fn, name: str, a: Tensor, b: Tensor) -> Tensor:
    """`fn` elementwise on integer tensors; PyTorch's errors for numbers, floats and bools."""
    other_tensor(name, b, 2)
    x, y, dtype = as_operands(a, b)
    if dtype.is_floating_point or dtype is dtypes.bool_:
        raise not_implemented(f"{name}_cpu", dtype)
    return apply_zip(fn, x, y, dtype)


# fmt: off
gcd = declare(
    "gcd", "The greatest common divisor of $|a|$ and $|b|$ elementwise (integers).",
    integer_zip, greatest_divisor, "gcd", operands=2,
)
lcm = declare(
    "lcm", "The least common multiple of $|a|$ and $|b|$ elementwise (integers; 0 if either is 0).",
    integer_zip, least_multiple, "lcm", operands=2,
)
# fmt: on


def integer_write(operation, name: str, a: Tensor, b: Tensor) -> Tensor:
    """`a <- operation(a, b)`, refusing a result type `a` cannot hold before computing it."""
    other_tensor(name, b, 1)
    result = dtypes.result_type(a, b)
    if not dtypes.can_cast(result, a.dtype):
        raise RuntimeError(
            f"result type {result.torch_scalar_name} can't be cast to the desired output type "
            f"{a.dtype.torch_scalar_name}"
        )
    return inplace(a, operation, b)


@public()
def gcd_(a: Tensor, b: Tensor) -> Tensor:
    """In-place version of `gcd`: the result is written into the tensor."""
    return integer_write(gcd, "gcd_", a, b)


@public()
def lcm_(a: Tensor, b: Tensor) -> Tensor:
    """In-place version of `lcm`: the result is written into the tensor."""
    return integer_write(lcm, "lcm_", a, b)


def mantissa_of(x: float) -> float:
    """$m$ of $x = m \\cdot 2^e$, $0.5 \\le |m| < 1$ ($x$ itself for 0, infinities and NaN)"""
    if x == 0.0 or x != x or x == math.inf or x == -math.inf:
        return x
    return math.frexp(x)[0]


def exponent_of(x: float) -> int:
    """$e$ of $x = m \\cdot 2^e$, $0.5 \\le |m| < 1$ (0 for 0, infinities and NaN)"""
    if x == 0.0 or x != x or x == math.inf or x == -math.inf:
        return 0
    return math.frexp(x)[1]


FrexpResult = result_pair("frexp", "mantissa", "exponent")


class Frexp(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        """$m$ of $a = m \\cdot 2^e$ elementwise"""
        ctx.exponent = apply_map(exponent_of, a, dtypes.int32)
        return apply_map(mantissa_of, a, a.dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g / 2^e$: the exponent is constant where it is differentiable"""
        return grad / (2.0 ** ctx.exponent.to(grad.dtype))


@public()
def frexp(a: Tensor) -> tuple:
    """(mantissa, exponent) with $a = mantissa \\cdot 2^{exponent}$ and $0.5 \\le |mantissa| < 1$
    (exponent int32; 0 and 0 for zeros).

    >>> import minitorch
    >>> minitorch.frexp(minitorch.tensor([8.0, -0.75]))
    minitorch.return_types.frexp(
    mantissa=tensor([ 0.5000, -0.7500]),
    exponent=tensor([4, 0], dtype=minitorch.int32))
    """
    if not a.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return FrexpResult(Frexp.apply(a), apply_map(exponent_of, a, dtypes.int32))
