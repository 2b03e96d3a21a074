"""Elementwise arithmetic of two operands: $a + b$, $a - b$, $a \\cdot b$, $a / b$, $a^b$, ...

Either operand may be a number; tensors broadcast against each other and
their dtypes promote as in PyTorch (`as_operands`). Each `Function` is
followed by the function users call (`minitorch.add`, ...). A backward
returns each input's gradient in the broadcast shape; the autograd layer
sums it back to the input's shape (`sum_to`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.graph import GraphContext
from ..operators import floor_divide as floored
from ..tensors.base import TensorBase
from ..tensors.kernels import Number, apply_map, apply_zip, as_operands, converted
from ..tensors.shapes import not_implemented
from .functions import Op
from .public import public
from .unary import reciprocal

if TYPE_CHECKING:
    from .._tensor import Tensor


class Add(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$a + b$, broadcast"""
        # BEGIN SOLUTION 2.4
        a, b, dtype = as_operands(a, b)
        return apply_zip(operators.add, a, b, dtype)
        # END SOLUTION 2.4

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor]:
        """$(g, g)$: each input's share, summed over its broadcast dims by `sum_to`"""
        # BEGIN SOLUTION 2.5
        return grad, grad
        # END SOLUTION 2.5


@public(keywords=2)
def add(a, b, alpha: Number = 1) -> Tensor:
    """$a + \\alpha b$, broadcast, with PyTorch's type promotion.

    >>> import minitorch
    >>> minitorch.add(minitorch.tensor([1, 2]), 0.5)
    tensor([1.5000, 2.5000])
    """
    if alpha != 1 and dtypes.result_type(a, b) is dtypes.bool_:
        alpha = bool(alpha)  # PyTorch: bool + alpha * bool stays bool
    return Add.apply(a, b if alpha == 1 else mul(b, alpha))


class Sub(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$a - b$, broadcast"""
        a, b, dtype = as_operands(a, b)
        return apply_zip(operators.sub, a, b, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor]:
        """$(g, -g)$"""
        return grad, -grad


class Rsub(Op):
    """`number - a`: the number is a setting (keyword), as in PyTorch's `rsub(Tensor, Scalar)`."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, number: Number) -> Tensor:
        """$number - a$"""
        number, a, dtype = as_operands(number, a)
        return apply_zip(operators.sub, number, a, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$-g$"""
        return -grad


@public(keywords=2)
def sub(a, b, alpha: Number = 1) -> Tensor:
    """$a - \\alpha b$, broadcast."""
    bools = [
        x.dtype is dtypes.bool_ if isinstance(x, TensorBase) else x is True or x is False
        for x in (a, b)
    ]
    if all(bools):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if any(bools):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    b = b if alpha == 1 else mul(b, alpha)
    return Sub.apply(a, b) if isinstance(a, TensorBase) else Rsub.apply(b, number=a)


class Mul(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$a \\cdot b$, broadcast"""
        needs_a, needs_b = ctx.needs_input_grad
        ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
        # BEGIN SOLUTION 2.4
        a, b, dtype = as_operands(a, b)
        return apply_zip(operators.mul, a, b, dtype)
        # END SOLUTION 2.4

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(g \\cdot b, g \\cdot a)$"""
        # BEGIN SOLUTION 2.5
        a, b = ctx.saved_tensors
        return (None if b is None else grad * b), (None if a is None else grad * a)
        # END SOLUTION 2.5


@public(keywords=2)
def mul(a, b) -> Tensor:
    """$a \\cdot b$ elementwise, broadcast."""
    return Mul.apply(a, b)


class Div(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$a / b$, broadcast; integers divide as floats"""
        ctx.save_for_backward(a, b)
        a, b, dtype = as_operands(a, b)
        if not dtype.is_floating_point:
            dtype = dtypes.get_default_dtype()
            a, b = converted(a, dtype), converted(b, dtype)
        return apply_zip(operators.div, a, b, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(g / b, -g a / b^2)$"""
        # BEGIN SOLUTION 2.5
        a, b = ctx.saved_tensors
        grad_b = -(grad * a / (b * b)) if ctx.needs_input_grad[1] else None
        return grad / b, grad_b
        # END SOLUTION 2.5


@public(aliases=("true_divide",), keywords=2)
def div(a, b, *, rounding_mode: str | None = None) -> Tensor:
    """$a / b$ elementwise (true division: integers give floats); `rounding_mode="floor"`
    or `"trunc"` rounds the quotient down or towards zero, in the operands' dtype (no
    gradient).

    A number divided by a tensor is `reciprocal(b) * a`, computed as PyTorch does.
    """
    if rounding_mode is not None:
        return rounded_div(a, b, rounding_mode)
    if isinstance(b, TensorBase) and not isinstance(a, TensorBase):
        return mul(reciprocal(b), a)
    return Div.apply(a, b)


def truncated_divide(x: float, y: float) -> float:
    """$x / y$ rounded towards 0 (integers: exactly, without a float quotient)."""
    quotient = floored(x, y)
    if quotient < 0 and quotient * y != x:
        return quotient + 1
    return quotient


def rounded_div(a, b, rounding_mode: str) -> Tensor:
    """`div(a, b, rounding_mode=...)`: the quotient floored or truncated."""
    if rounding_mode == "floor":
        return floor_divide(a, b)
    if rounding_mode != "trunc":
        raise ValueError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    x, y, dtype = as_operands(a, b)
    if dtype.is_floating_point:
        return apply_map(operators.trunc, apply_zip(operators.div, x, y, dtype), dtype)
    check_integer_divisor(y)
    return apply_zip(truncated_divide, x, y, dtype)


def check_integer_divisor(b: Tensor) -> None:
    """PyTorch raises for integer division by zero instead of returning garbage."""
    if not b.dtype.is_floating_point and (b == 0).any().item():
        raise RuntimeError("ZeroDivisionError")


@public(keywords=2)
def floor_divide(a, b) -> Tensor:
    """$\\lfloor a / b \\rfloor$ elementwise (no gradient)."""
    x, y, dtype = as_operands(a, b)
    if dtype is dtypes.bool_:
        raise not_implemented("div_floor_cpu", dtype)
    check_integer_divisor(y)
    return apply_zip(operators.floor_divide, x, y, dtype)


class Remainder(Op):
    """$a \\bmod b$; a number divisor is passed as the keyword `b` (it gets no gradient)."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$a - b \\lfloor a / b \\rfloor$, broadcast"""
        a, b, dtype = as_operands(a, b)
        check_integer_divisor(b)
        ctx.save_for_backward(a, b)
        return apply_zip(operators.remainder, a, b, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(g, -g \\lfloor a / b \\rfloor)$"""
        a, b = ctx.saved_tensors
        grad_b = -(grad * (a // b)) if (ctx.needs_input_grad + (False,))[1] else None
        return grad, grad_b


@public(keywords=2)
def remainder(a, b) -> Tensor:
    """$a \\bmod b$ with the sign of $b$ (Python's `%`)."""
    return Remainder.apply(a, b) if isinstance(b, TensorBase) else Remainder.apply(a, b=b)


class Pow(Op):
    """$a^b$; a number exponent is passed as the keyword `b` (it gets no gradient)."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$a^b$, broadcast"""
        return power(ctx, a, b)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(g \\, b \\, a^{b-1},\\; g \\, a^b \\ln a)$, each 0 where PyTorch defines it so"""
        a, b, out = ctx.saved_tensors
        needs = ctx.needs_input_grad + (False,)
        grad_a = grad_b = None
        if needs[0]:  # 0 where b = 0, so that 0^0 has slope 0 and not NaN
            grad_a = (grad * (b * a ** (b - 1))).where(b != 0, 0.0)
        if needs[1]:
            grad_b = exponent_gradient(grad, a, b, out)
        return grad_a, grad_b


class Rpow(Op):
    """`number ** b`: the number is a setting (keyword), as in PyTorch's `pow(Scalar, Tensor)`."""

    @staticmethod
    def forward(ctx: GraphContext, b: Tensor, number: Number) -> Tensor:
        """$number^b$"""
        return power(ctx, number, b)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\, number^b \\ln(number)$"""
        a, b, out = ctx.saved_tensors
        return exponent_gradient(grad, a, b, out)


def power(ctx: GraphContext, a, b) -> Tensor:
    """$a^b$ in the promoted dtype; saves $a$, $b$ and $a^b$, which both gradients read."""
    root = isinstance(b, float) and b in (0.5, -0.5)
    a, b, dtype = as_operands(a, b)
    # PyTorch computes x ** 0.5 as sqrt(x) (and ** -0.5 as rsqrt): NaN at -inf
    out = apply_zip(operators.root_power if root else operators.power, a, b, dtype)
    ctx.save_for_backward(a, b, out)
    return out


def exponent_gradient(grad: Tensor, a: Tensor, b: Tensor, out: Tensor) -> Tensor:
    """$g \\, a^b \\ln a$, the gradient of $out = a^b$ for $b$; 0 where $a = 0$ and $b \\ge 0$
    ($\\ln a$ is $-\\infty$ there but $a^b$ is flat), as PyTorch."""
    flat = (a == 0) & (b >= 0)
    return (grad * (out * a.log())).where(~flat, 0.0)


@public("pow", inplace=True, keywords=2)
def tensor_pow(a, b) -> Tensor:
    """$a^b$ elementwise (`minitorch.pow`)."""
    exponent_dtype = b.dtype if isinstance(b, TensorBase) else dtypes.scalar_dtype(b)
    base_dtype = a.dtype if isinstance(a, TensorBase) else dtypes.scalar_dtype(a)
    if (
        not isinstance(b, TensorBase)
        and not base_dtype.is_floating_point
        and not exponent_dtype.is_floating_point
        and b < 0
    ):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if not isinstance(b, TensorBase):
        return Pow.apply(a, b=b)
    return Pow.apply(a, b) if isinstance(a, TensorBase) else Rpow.apply(b, number=a)
