"""Elementwise functions of one tensor: $-a$, $|a|$, $e^a$, $\\ln a$, $\\sqrt{a}$, ..., relu.

They are one family, declared once: the class `Unary` runs a scalar function
$f$ of `minitorch.operators` on every element (forward) and a gradient
function $g \\cdot f'(a)$ written with tensor operations (backward). Each
member is one row of the table below: its name, $f$, its gradient, which
tensor the gradient reads (the input `a` or the output `out`), and whether
integer inputs become floats. `Relu`, which keeps integers as integers, is
written out after it. The functions users call (`minitorch.exp`, ...) follow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import GraphContext
from ..backends import backend_for
from ..backends.tensor_data import TensorData
from ..tensors.base import make_tensor
from ..tensors.kernels import apply_map, apply_zip, float_version, scalar_tensor
from ..tensors.shapes import not_implemented
from .functions import Op
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


class Unary(Op):
    """$out = f(a)$ elementwise; a row of the table below sets the class attributes."""

    f: Callable[[float], float]  # the scalar function, from `minitorch.operators`
    gradient: Callable[..., Tensor]  # (g, saved tensor) -> $g \cdot f'(a)$
    saves: str | None  # what `gradient` reads: "a" (the input), "out" (the output) or None
    to_float: bool  # integer and bool inputs give the default float dtype

    @classmethod
    def forward(cls, ctx: GraphContext, a: Tensor) -> Tensor:
        """$f(a_i)$ for every element $a_i$ (of `a` as a float tensor if `to_float`)"""
        if cls.to_float:
            a = float_version(a)
        # BEGIN SOLUTION 2.4
        out = apply_map(cls.f, a, a.dtype)
        # END SOLUTION 2.4
        if cls.saves is not None:
            ctx.save_for_backward(a if cls.saves == "a" else out)
        return out

    @classmethod
    def backward(cls, ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\cdot f'(a)$, computed by the row's `gradient`"""
        return cls.gradient(grad, *ctx.saved_tensors)


def unary(name: str, f, gradient, saves: str | None, to_float: bool) -> type[Unary]:
    """The `Unary` function `name`: $f$ on every element, `gradient` for backward."""
    members = {
        "__module__": __name__,
        "__qualname__": name,
        "__doc__": f"`operators.{f.__name__}` on every element; backward: {gradient.__doc__}",
        "f": staticmethod(f),
        "gradient": staticmethod(gradient),
        "saves": saves,
        "to_float": to_float,
    }
    return type(name, (Unary,), members)


def neg_gradient(grad: Tensor) -> Tensor:
    """$-g$"""
    # BEGIN SOLUTION 2.5
    return -grad
    # END SOLUTION 2.5


def abs_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g \\cdot \\operatorname{sign}(a)$ (0 at $a = 0$, as PyTorch)"""
    return grad * ((a > 0).to(a.dtype) - (a < 0).to(a.dtype))


def exp_gradient(grad: Tensor, out: Tensor) -> Tensor:
    """$g \\cdot e^a$, which is $g \\cdot out$"""
    # BEGIN SOLUTION 2.5
    return grad * out
    # END SOLUTION 2.5


def log_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g / a$"""
    # BEGIN SOLUTION 2.5
    return grad / a
    # END SOLUTION 2.5


def sqrt_gradient(grad: Tensor, out: Tensor) -> Tensor:
    """$g / (2 \\sqrt{a})$, which is $g / (2 \\, out)$"""
    return grad / (out * 2)


def sigmoid_gradient(grad: Tensor, out: Tensor) -> Tensor:
    """$g \\cdot \\sigma(a) (1 - \\sigma(a))$, with $\\sigma(a) = out$"""
    # BEGIN SOLUTION 2.5
    return grad * (out * (1 - out))
    # END SOLUTION 2.5


def tanh_gradient(grad: Tensor, out: Tensor) -> Tensor:
    """$g \\cdot (1 - \\tanh^2 a)$, with $\\tanh a = out$"""
    return grad * (1 - out * out)


def reciprocal_gradient(grad: Tensor, out: Tensor) -> Tensor:
    """$-g / a^2$, which is $-g \\cdot out^2$"""
    return -(grad * (out * out))


# fmt: off
#                 name          f                    gradient             saves  to_float
Neg        = unary("Neg",        operators.neg,      neg_gradient,        None,  False)
Abs        = unary("Abs",        operators.absolute, abs_gradient,        "a",   False)
Exp        = unary("Exp",        operators.exp,      exp_gradient,        "out", True)
Log        = unary("Log",        operators.log,      log_gradient,        "a",   True)
Sqrt       = unary("Sqrt",       operators.sqrt,     sqrt_gradient,       "out", True)
Sigmoid    = unary("Sigmoid",    operators.sigmoid,  sigmoid_gradient,    "out", True)
Tanh       = unary("Tanh",       operators.tanh,     tanh_gradient,       "out", True)
Reciprocal = unary("Reciprocal", operators.inv,      reciprocal_gradient, "out", True)
# fmt: on


class Relu(Op):
    """$\\max(a, 0)$: a `Unary` but for integers, which stay integers."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        """$\\max(a, 0)$"""
        ctx.save_for_backward(a)
        if a.dtype.is_floating_point:
            return apply_map(operators.relu, a, a.dtype)
        # relu's 0.0 would make a compiled kernel round int64 through float64
        return apply_zip(operators.maximum, a, scalar_tensor(0, a.dtype), a.dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """0 where $a \\le 0$, else $g$ (a NaN input passes $g$ on, as PyTorch's)"""
        fused = relu_backward_in_one_pass(grad, *ctx.saved_tensors)
        if fused is not None:
            return fused
        # BEGIN SOLUTION 2.5
        (a,) = ctx.saved_tensors
        return grad.where(~(a <= 0), 0.0)
        # END SOLUTION 2.5


def relu_backward_in_one_pass(grad: Tensor, a: Tensor) -> Tensor | None:
    """ReLU's gradient by the backend's optional kernel `relu_backward`: one pass where the
    composition (compare, invert, select) makes three and two temporary tensors. None where
    the backend has no such kernel, or the gradient itself is differentiated
    (`create_graph=True`: the composition records its steps)."""
    backend = backend_for(grad.device)
    kernel = backend.kernel("relu_backward")
    if kernel is None or is_grad_enabled() or grad.dtype is not a.dtype or grad.shape != a.shape:
        return None
    out = TensorData.empty(a._layout.shape, a.dtype, backend.empty)  # the kernel fills it
    kernel(out, a._layout, grad._layout)
    return make_tensor(out, a.dtype, a.device)


@public(inplace=True, aliases=("negative",), keywords=1)
def neg(a: Tensor) -> Tensor:
    """$-a$ elementwise (not for bool tensors)."""
    if a.dtype is dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return Neg.apply(a)


@public("abs", inplace=True, keywords=1)
def tensor_abs(a: Tensor) -> Tensor:
    """$|a|$ elementwise (`minitorch.abs`)."""
    if a.dtype is dtypes.bool_:
        raise not_implemented("abs_cpu", a.dtype)
    return Abs.apply(a)


@public(inplace=True, keywords=1)
def exp(a: Tensor) -> Tensor:
    """$e^a$ elementwise (integers give the default float dtype).

    >>> import minitorch
    >>> minitorch.exp(minitorch.tensor([0.0, 1.0]))
    tensor([1.0000, 2.7183])
    """
    return Exp.apply(a)


@public(inplace=True, keywords=1)
def log(a: Tensor) -> Tensor:
    """$\\ln a$ elementwise."""
    return Log.apply(a)


@public(inplace=True, keywords=1)
def sqrt(a: Tensor) -> Tensor:
    """$\\sqrt{a}$ elementwise."""
    return Sqrt.apply(a)


@public(inplace=True, functional=True, keywords=1)
def sigmoid(a: Tensor) -> Tensor:
    """$1 / (1 + e^{-a})$ elementwise."""
    return Sigmoid.apply(a)


@public(inplace=True, functional=True, keywords=1)
def tanh(a: Tensor) -> Tensor:
    """$\\tanh a$ elementwise."""
    return Tanh.apply(a)


@public(keywords=1)
def reciprocal(a: Tensor) -> Tensor:
    """$1 / a$ elementwise (integers give the default float dtype)."""
    return Reciprocal.apply(a)


@public(inplace=True, functional=True, keywords=1)
def relu(a: Tensor) -> Tensor:
    """$\\max(a, 0)$ elementwise."""
    if a.dtype is dtypes.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return Relu.apply(a)
