"""Comparing elements: `maximum`, `minimum`, `clamp`, `where`; `==`, `<`, ...; logic and bits.

`maximum`, `minimum`, `clamp` and `where` choose between values, so a
gradient flows to the one chosen. Comparisons (`eq`, `lt`, ...), logical
operations and bitwise operations give bools or integers, which have no
gradient: they run the kernels directly, without a `Function`.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.graph import GraphContext
from ..backends import backend_for
from ..backends.tensor_data import shape_broadcast
from ..tensors.base import TensorBase
from ..tensors.kernels import (
    Number,
    apply_map,
    apply_zip,
    as_operands,
    converted,
    new_tensor,
    on_one_device,
    scalar_tensor,
)
from ..tensors.shapes import not_implemented
from .functions import Op
from .public import declare, public

if TYPE_CHECKING:
    from .._tensor import Tensor


class Maximum(Op):
    """$\\max(a, b)$ elementwise, NaN-propagating; `Minimum` is the same with `f` and `wins` set."""

    f = staticmethod(operators.maximum)
    wins = staticmethod(operator.gt)  # whether the first input is chosen over the second

    @classmethod
    def forward(cls, ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$f(a, b)$ elementwise"""
        a, b, dtype = as_operands(a, b)
        ctx.save_for_backward(a, b)
        return apply_zip(cls.f, a, b, dtype)

    @classmethod
    def backward(cls, ctx: GraphContext, grad: Tensor) -> tuple:
        """$g$ to the input chosen, $g/2$ to each on a tie (as PyTorch)"""
        a, b = ctx.saved_tensors
        return split_at_ties(grad, a, b, cls.wins(b, a)), split_at_ties(grad, a, b, cls.wins(a, b))


class Minimum(Maximum):
    """$\\min(a, b)$ elementwise, NaN-propagating."""

    f = staticmethod(operators.minimum)
    wins = staticmethod(operator.lt)


# fmt: off
maximum = declare("maximum", "Elementwise maximum of two tensors (NaN wins).", Maximum.apply,
                  operands=2, keywords=2)
minimum = declare("minimum", "Elementwise minimum of two tensors (NaN wins).", Minimum.apply,
                  operands=2, keywords=2)
# fmt: on


def split_at_ties(grad: Tensor, a: Tensor, b: Tensor, loses: Tensor) -> Tensor:
    """`grad` where an input won, half of it on ties, 0 where it `loses`."""
    return (grad / 2).where(a == b, grad.where(~loses, 0.0))


class Clamp(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, low: Number | None, high: Number | None) -> Tensor:
        """$\\min(\\max(a, low), high)$"""
        ctx.low, ctx.high = low, high
        ctx.save_for_backward(a)
        dtype = dtypes.result_type(a, *(v for v in (low, high) if v is not None))
        out = converted(a, dtype)
        if low is not None:
            out = apply_zip(operators.maximum, out, scalar_tensor(low, dtype), dtype)
        if high is not None:
            out = apply_zip(operators.minimum, out, scalar_tensor(high, dtype), dtype)
        return out if out is not a else a.clone()

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$g$ where $low \\le a \\le high$, else 0"""
        (a,) = ctx.saved_tensors
        inside = a >= ctx.low if ctx.low is not None else None
        if ctx.high is not None:
            below = a <= ctx.high
            inside = below if inside is None else inside & below
        return grad.where(inside, 0.0)


@public(inplace=True, aliases=("clip",), keywords=1)
def clamp(a: Tensor, min: Number | None = None, max: Number | None = None) -> Tensor:
    """Limit every element to `[min, max]` (either bound may be None)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if any(isinstance(v, TensorBase) for v in (min, max)):  # tensor bounds, broadcast
        low = a if min is None else maximum(a, min)
        return low if max is None else minimum(low, max)
    return Clamp.apply(a, low=min, high=max)


class Where(Op):
    """The condition is a setting (keyword): gradients flow only to `a` and `b`."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor, condition: Tensor) -> Tensor:
        """$a_i$ where $condition_i$, else $b_i$ (all broadcast)"""
        if condition.dtype is not dtypes.bool_:
            raise RuntimeError(
                "where expected condition to be a boolean tensor, but got a tensor with dtype "
                f"{condition.dtype.torch_scalar_name}"
            )
        ctx.save_for_backward(condition)
        a, b, dtype = as_operands(a, b)
        # one device for the three; 0-dim cpu tensors (numbers among them) join the others'
        a, b = on_one_device(a, b)
        condition, a = on_one_device(condition, a)
        a, b = on_one_device(a, b)
        shape = shape_broadcast(condition.shape, shape_broadcast(a.shape, b.shape))
        out = new_tensor(shape, dtype, a.device)
        backend_for(a.device).where(out._layout, condition._layout, a._layout, b._layout)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$g$ to `a` where the condition holds, to `b` elsewhere"""
        (condition,) = ctx.saved_tensors
        return grad.where(condition, 0.0), grad.where(~condition, 0.0)


def where(condition: Tensor, a, b) -> Tensor:
    """`a` where `condition` is True, else `b` (broadcast)."""
    return Where.apply(a, b, condition=condition)


@public("where", torch=False)
def tensor_where(a: Tensor, condition: Tensor, other) -> Tensor:
    """The method `a.where(condition, other)`: `where(condition, a, other)`."""
    return where(condition, a, other)


# ---------------------------------------------------------------------------
# Comparisons, logical and bitwise operations (no gradient)
# ---------------------------------------------------------------------------


def bool_zip(fn, a, b) -> Tensor:
    """A bool tensor of `fn(a_i, b_i)`, computed in the promoted dtype."""
    x, y, _ = as_operands(a, b)
    return apply_zip(fn, x, y, dtypes.bool_)


def bitwise(fn, kernel: str, a, b) -> Tensor:
    """`fn` on bools or integers; PyTorch names the missing float `kernel` in its error."""
    x, y, dtype = as_operands(a, b)
    if dtype.is_floating_point:
        raise not_implemented(kernel, dtype)
    return apply_zip(fn, x, y, dtype)


def shift(fn, kernel: str, a, b) -> Tensor:
    """`fn` on integers (a bool tensor with a number is promoted first, as in PyTorch)."""
    x, y, dtype = as_operands(a, b)
    if dtype.is_floating_point or dtype is dtypes.bool_:
        raise not_implemented(kernel, dtype)
    return apply_zip(fn, x, y, dtype)


@public()
def logical_not(a: Tensor) -> Tensor:
    """True where `a` is zero."""
    return apply_map(operators.logical_not, a, dtypes.bool_)


# fmt: off
#            name  docstring                 computes: body and its settings    forms
eq = declare("eq", "$a = b$ elementwise (bool).", bool_zip, operators.eq, operands=2, keywords=2)
ne = declare("ne", "$a \\ne b$ elementwise (bool).", bool_zip, operators.ne, operands=2, keywords=2)
lt = declare("lt", "$a < b$ elementwise (bool).", bool_zip, operators.lt, operands=2, keywords=2)
le = declare("le", "$a \\le b$ elementwise (bool).", bool_zip, operators.le, operands=2, keywords=2)
gt = declare("gt", "$a > b$ elementwise (bool).", bool_zip, operators.gt, operands=2, keywords=2)
ge = declare("ge", "$a \\ge b$ elementwise (bool).", bool_zip, operators.ge, operands=2, keywords=2)
logical_and = declare(
    "logical_and", "True where both are non-zero.", bool_zip, operators.logical_and, operands=2
)
logical_or = declare(
    "logical_or", "True where either is non-zero.", bool_zip, operators.logical_or, operands=2
)
bitwise_and = declare(
    "bitwise_and", "`a & b`: logical and of bools, bitwise and of integers.",
    bitwise, operators.bitwise_and, "bitwise_and_cpu", operands=2,
)
bitwise_or = declare(
    "bitwise_or", "`a | b`: logical or of bools, bitwise or of integers.",
    bitwise, operators.bitwise_or, "bitwise_or_cpu", operands=2,
)
bitwise_xor = declare(
    "bitwise_xor", "`a ^ b`: logical xor of bools, bitwise xor of integers.",
    bitwise, operators.bitwise_xor, "bitwise_xor_cpu", operands=2,
)
bitwise_left_shift = declare(
    "bitwise_left_shift",
    "`a << b`: the bits of integers shifted left by `b` ($a \\cdot 2^b$, wrapping).",
    shift, operators.left_shift, "lshift_cpu", operands=2,
)
bitwise_right_shift = declare(
    "bitwise_right_shift",
    "`a >> b`: the bits of integers shifted right by `b` ($\\lfloor a / 2^b \\rfloor$).",
    shift, operators.right_shift, "rshift_cpu", operands=2,
)
# fmt: on


@public()
def bitwise_not(a: Tensor) -> Tensor:
    """`~a`: logical not of bools, bitwise not of integers."""
    if a.dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return apply_map(operators.bitwise_not, a, a.dtype)
