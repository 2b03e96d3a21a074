"""Tensor autograd functions: each differentiable operation, forward and backward side by side.

Each operation is a `Function` subclass. Its static `forward(ctx, ...)`
computes the result with the backend's kernels (through `tensor_kernels.py`)
and saves on `ctx` what `backward(ctx, grad)` needs; `backward` returns the
vector-Jacobian product for each input, written with tensor operations
(`grad * out`, `grad.where(a > 0, 0.0)`). `Function.apply` runs forward and,
when an input requires grad, records the graph node (see `autograd.py`).
`sum_to` undoes broadcasting for the gradients of broadcast inputs.

The functions users call (`minitorch.add`, `minitorch.sum`, ...) are in
`tensor_api.py`; in-place operations and indexing in `tensor_inplace.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.function import Function
from ..autograd.graph import GraphContext, sum_to
from ..backends.tensor_data import TensorData, normalize_dim, prod, shape_broadcast
from ..dtypes import DType
from ..operators import greater_or_nan, less_or_nan
from ..tensors.base import TensorBase
from ..tensors.creation import tensor
from ..tensors.kernels import (
    Number,
    apply_map,
    apply_zip,
    arg_reduce,
    as_operands,
    backend_for,
    converted,
    drop_dims,
    float_version,
    new_tensor,
    reduce_dims,
    scalar_tensor,
    view_of,
    with_shape,
    write_into,
)
from ..tensors.shapes import (
    check_matmul_operands,
    index_layout,
    infer_shape,
    normalize_key,
    not_implemented,
    reduction_dims,
)

if TYPE_CHECKING:
    from .._tensor import Tensor


def sign(a: Tensor) -> Tensor:
    """$+1$, $-1$ or $0$ elementwise (the derivative of $|a|$), in `a`'s dtype."""
    return (a > 0).to(a.dtype) - (a < 0).to(a.dtype)


# ---------------------------------------------------------------------------
# Elementwise functions
# ---------------------------------------------------------------------------


class Neg(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        """$-a$"""
        # BEGIN SOLUTION 2.4
        return apply_map(operators.neg, a, a.dtype)
        # END SOLUTION 2.4

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$-g$"""
        # BEGIN SOLUTION 2.5
        return -grad
        # END SOLUTION 2.5


class Abs(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        """$|a|$"""
        ctx.save_for_backward(a)
        return apply_map(operators.absolute, a, a.dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\cdot \\operatorname{sign}(a)$ (0 at $a = 0$, as PyTorch)"""
        (a,) = ctx.saved_tensors
        return grad * sign(a)


class Exp(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        """$e^a$ (integers give the default float dtype)"""
        # BEGIN SOLUTION 2.4
        a = float_version(a)
        out = apply_map(operators.exp, a, a.dtype)
        # END SOLUTION 2.4
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\cdot e^a$ (the saved output)"""
        # BEGIN SOLUTION 2.5
        (out,) = ctx.saved_tensors
        return grad * out
        # END SOLUTION 2.5


class Log(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        """$\\ln a$"""
        a = float_version(a)
        ctx.save_for_backward(a)
        return apply_map(operators.log, a, a.dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g / a$"""
        # BEGIN SOLUTION 2.5
        (a,) = ctx.saved_tensors
        return grad / a
        # END SOLUTION 2.5


class Sqrt(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        """$\\sqrt{a}$"""
        a = float_version(a)
        out = apply_map(operators.sqrt, a, a.dtype)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g / (2 \\sqrt{a})$"""
        (out,) = ctx.saved_tensors
        return grad / (out * 2)


class Sigmoid(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        """$\\sigma(a) = 1 / (1 + e^{-a})$"""
        a = float_version(a)
        out = apply_map(operators.sigmoid, a, a.dtype)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\cdot \\sigma(a) (1 - \\sigma(a))$"""
        # BEGIN SOLUTION 2.5
        (out,) = ctx.saved_tensors
        return grad * (out * (1 - out))
        # END SOLUTION 2.5


class Tanh(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        """$\\tanh a$"""
        a = float_version(a)
        out = apply_map(operators.tanh, a, a.dtype)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\cdot (1 - \\tanh^2 a)$"""
        (out,) = ctx.saved_tensors
        return grad * (1 - out * out)


class Relu(Function):
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
        """$g$ where $a > 0$, else 0"""
        # BEGIN SOLUTION 2.5
        (a,) = ctx.saved_tensors
        return grad.where(a > 0, 0.0)
        # END SOLUTION 2.5


class Add(Function):
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


class Sub(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$a - b$, broadcast"""
        a, b, dtype = as_operands(a, b)
        return apply_zip(operators.sub, a, b, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor]:
        """$(g, -g)$"""
        return grad, -grad


class Rsub(Function):
    """`number - a`: the number is a setting (keyword), as in PyTorch's `rsub(Tensor, Scalar)`."""

    @classmethod
    def node_name(cls, a, number) -> str:
        return "RsubBackward1"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, number: Number) -> Tensor:
        """$number - a$"""
        number, a, dtype = as_operands(number, a)
        return apply_zip(operators.sub, number, a, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$-g$"""
        return -grad


class Mul(Function):
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


class Div(Function):
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


class Pow(Function):
    """$a^b$; a number exponent is passed as the keyword `b` (it gets no gradient)."""

    @classmethod
    def node_name(cls, a, b=None) -> str:
        return "PowBackward1" if isinstance(b, TensorBase) else "PowBackward0"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$a^b$, broadcast"""
        a, b, dtype = as_operands(a, b)
        out = apply_zip(operators.power, a, b, dtype)
        ctx.save_for_backward(a, b, out)
        return out

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


class Rpow(Function):
    """`number ** b`: the number is a setting (keyword), as in PyTorch's `pow(Scalar, Tensor)`."""

    @classmethod
    def node_name(cls, b, number) -> str:
        return "PowBackward2"

    @staticmethod
    def forward(ctx: GraphContext, b: Tensor, number: Number) -> Tensor:
        """$number^b$"""
        a, b, dtype = as_operands(number, b)
        out = apply_zip(operators.power, a, b, dtype)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\, number^b \\ln(number)$"""
        a, b, out = ctx.saved_tensors
        return exponent_gradient(grad, a, b, out)


def exponent_gradient(grad: Tensor, a: Tensor, b: Tensor, out: Tensor) -> Tensor:
    """$g \\, a^b \\ln a$, the gradient of $out = a^b$ for $b$; 0 where $a = 0$ and $b \\ge 0$
    ($\\ln a$ is $-\\infty$ there but $a^b$ is flat), as PyTorch."""
    flat = (a == 0) & (b >= 0)
    return (grad * (out * a.log())).where(~flat, 0.0)


class Reciprocal(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        """$1 / a$ (integers give the default float dtype)"""
        a = float_version(a)
        out = apply_map(operators.inv, a, a.dtype)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$-g / a^2 = -g \\cdot out^2$"""
        (out,) = ctx.saved_tensors
        return -(grad * (out * out))


class Remainder(Function):
    """$a \\bmod b$; a number divisor is passed as the keyword `b` (it gets no gradient)."""

    @classmethod
    def node_name(cls, a, b) -> str:
        return "RemainderBackward1" if isinstance(b, TensorBase) else "RemainderBackward0"

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


class Maximum(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$\\max(a, b)$ elementwise, NaN-propagating"""
        a, b, dtype = as_operands(a, b)
        ctx.save_for_backward(a, b)
        return apply_zip(operators.maximum, a, b, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$g$ to the larger input, $g/2$ to each on a tie (as PyTorch)"""
        a, b = ctx.saved_tensors
        return split_at_ties(grad, a, b, a < b), split_at_ties(grad, a, b, a > b)


class Minimum(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$\\min(a, b)$ elementwise, NaN-propagating"""
        a, b, dtype = as_operands(a, b)
        ctx.save_for_backward(a, b)
        return apply_zip(operators.minimum, a, b, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$g$ to the smaller input, $g/2$ to each on a tie (as PyTorch)"""
        a, b = ctx.saved_tensors
        return split_at_ties(grad, a, b, a > b), split_at_ties(grad, a, b, a < b)


def split_at_ties(grad: Tensor, a: Tensor, b: Tensor, loses: Tensor) -> Tensor:
    """`grad` where an input won, half of it on ties, 0 where it `loses`."""
    return (grad / 2).where(a == b, grad.where(~loses, 0.0))


class Clamp(Function):
    @classmethod
    def node_name(cls, a, low=None, high=None) -> str:
        return "ClampBackward1"

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


class Where(Function):
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
        shape = shape_broadcast(condition.shape, shape_broadcast(a.shape, b.shape))
        out = new_tensor(shape, dtype, a.device)
        backend_for(a).where(out._layout, condition._layout, a._layout, b._layout)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$g$ to `a` where the condition holds, to `b` elsewhere"""
        (condition,) = ctx.saved_tensors
        return grad.where(condition, 0.0), grad.where(~condition, 0.0)


def check_integer_divisor(b: Tensor) -> None:
    """PyTorch raises for integer division by zero instead of returning garbage."""
    if not b.dtype.is_floating_point and (b == 0).any().item():
        raise RuntimeError("ZeroDivisionError")


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def accumulation_dtype(a: Tensor, dtype: DType | None) -> DType:
    """Sums and products of bools and integers are int64, as in PyTorch."""
    if dtype is not None:
        return dtypes.to_dtype(dtype)
    return a.dtype if a.dtype.is_floating_point else dtypes.int64


def expand_reduced(grad: Tensor, shape: tuple, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """A reduction's output gradient put back over the reduced `dims` of `shape`."""
    if not keepdim:
        for d in dims:
            grad = grad.unsqueeze(d)
    return grad.expand(shape)


class Sum(Function):
    @classmethod
    def node_name(cls, a, dim=None, keepdim=False, dtype=None) -> str:
        return "SumBackward0" if dim is None else "SumBackward1"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim=None, keepdim=False, dtype=None) -> Tensor:
        """$\\sum$ over `dim` (all dims when None)"""
        # BEGIN SOLUTION 2.4
        dims = reduction_dims(dim, a.ndim)
        out_dtype = accumulation_dtype(a, dtype)
        total = reduce_dims(operators.add, a, dims, 0, out_dtype)
        keepdim = keepdim or dim is None and a.ndim == 0
        # END SOLUTION 2.4
        ctx.shape, ctx.dims, ctx.keepdim = tuple(a.shape), dims, keepdim
        return drop_dims(total, dims, keepdim)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """Every summed element gets $g$: $g$ expanded back over the reduced dims"""
        # BEGIN SOLUTION 2.6
        return expand_reduced(grad, ctx.shape, ctx.dims, ctx.keepdim)
        # END SOLUTION 2.6


class Mean(Function):
    @classmethod
    def node_name(cls, a, dim=None, keepdim=False, dtype=None) -> str:
        return "MeanBackward0" if dim is None else "MeanBackward1"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim=None, keepdim=False, dtype=None) -> Tensor:
        """$\\frac{1}{n}\\sum$ over `dim` (floating dtypes only)"""
        out_dtype = dtypes.to_dtype(dtype) if dtype is not None else a.dtype
        if not out_dtype.is_floating_point:
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {a.dtype.torch_scalar_name}"
            )
        dims = reduction_dims(dim, a.ndim)
        count = prod(a.shape[d] for d in dims)
        total = reduce_dims(operators.add, a, dims, 0, out_dtype)
        mean = apply_zip(operators.div, total, scalar_tensor(count, out_dtype), out_dtype)
        ctx.shape, ctx.dims, ctx.keepdim, ctx.count = tuple(a.shape), dims, keepdim, count
        return drop_dims(mean, dims, keepdim)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g / n$ expanded back over the reduced dims"""
        # BEGIN SOLUTION 2.6
        return expand_reduced(grad / ctx.count, ctx.shape, ctx.dims, ctx.keepdim)
        # END SOLUTION 2.6


class Prod(Function):
    @classmethod
    def node_name(cls, a, dim=None, keepdim=False, dtype=None) -> str:
        return "ProdBackward0" if dim is None else "ProdBackward1"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim=None, keepdim=False, dtype=None) -> Tensor:
        """$\\prod$ over `dim` (all dims when None)"""
        ctx.save_for_backward(a)
        dims = reduction_dims(dim, a.ndim)
        ctx.dims, ctx.keepdim = dims, keepdim
        out_dtype = accumulation_dtype(a, dtype)
        return drop_dims(reduce_dims(operators.mul, a, dims, 1, out_dtype), dims, keepdim)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\prod_{j \\ne i} a_j$: the product divided by $a_i$, done without
        dividing by zero (with one zero only its own slot gets the others' product)."""
        (a,) = ctx.saved_tensors
        dims = ctx.dims
        is_zero = a == 0
        product = reduce_dims(operators.mul, a, dims, 1, a.dtype)
        others_if_zero = reduce_dims(operators.mul, a.where(~is_zero, 1.0), dims, 1, a.dtype)
        zero_count = reduce_dims(operators.add, is_zero, dims, 0, dtypes.int64)
        at_zero = others_if_zero.where(zero_count == 1, 0.0)
        others = at_zero.where(is_zero, product / a)
        return expand_reduced(grad, tuple(a.shape), dims, ctx.keepdim) * others


class MaxDim(Function):
    """`max(dim)` and `min(dim)`: values and the index of the first winner."""

    @classmethod
    def node_name(cls, a, dim, keepdim, largest) -> str:
        return "MaxBackward0" if largest else "MinBackward0"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim: int, keepdim: bool, largest: bool):
        ctx.shape, ctx.keepdim = tuple(a.shape), keepdim
        if a.ndim == 0:
            normalize_dim(dim, 0)
            ctx.dim = None
            return a.clone(), scalar_tensor(0, dtypes.int64)
        dim = normalize_dim(dim, a.ndim)
        if a.shape[dim] == 0:
            name = "max" if largest else "min"
            raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
        values, indices = arg_reduce(greater_or_nan if largest else less_or_nan, a, dim)
        ctx.dim = dim
        ctx.save_for_backward(indices)
        return drop_dims(values, (dim,), keepdim), drop_dims(indices, (dim,), keepdim)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ to the element that won along `dim`, 0 to the others"""
        # BEGIN SOLUTION 2.6
        if ctx.dim is None:
            return grad
        (indices,) = ctx.saved_tensors
        if not ctx.keepdim:
            grad = grad.unsqueeze(ctx.dim)
        won = positions_along(ctx.dim, ctx.shape) == indices
        return grad.where(won, 0.0)
        # END SOLUTION 2.6


def positions_along(dim: int, shape: tuple) -> Tensor:
    """The positions $0, 1, \\ldots$ along dimension `dim` of `shape` (int64; size 1 elsewhere)."""
    sizes = [1] * len(shape)
    sizes[dim] = shape[dim]
    return tensor(list(range(shape[dim]))).view(sizes)


class MaxAll(Function):
    """`max()` and `min()` of all elements: a 0-dim tensor."""

    @classmethod
    def node_name(cls, a, largest) -> str:
        return "MaxBackward1" if largest else "MinBackward1"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, largest: bool) -> Tensor:
        if a.numel() == 0:
            name = "max" if largest else "min"
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        flat = a.reshape(-1)
        values, _ = arg_reduce(greater_or_nan if largest else less_or_nan, flat, 0)
        out = with_shape(values, ())
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ shared evenly by all elements equal to the result (as PyTorch)"""
        a, out = ctx.saved_tensors
        winners = (a == out) | ((a != a) & (out != out))
        return (grad / winners.sum()).where(winners, 0.0)


class Softmax(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim: int) -> Tensor:
        """$e^{a_i - m} / \\sum_j e^{a_j - m}$ along `dim`, $m$ the maximum (stable)"""
        if not a.dtype.is_floating_point:
            raise not_implemented("softmax_lastdim_kernel_impl", a.dtype)
        shifted = shifted_by_max(a, dim)
        exps = apply_map(operators.exp, shifted, a.dtype)
        out = apply_zip(operators.div, exps, sum_keepdim(exps, dim), a.dtype)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$s \\odot (g - \\sum_j g_j s_j)$ along `dim`, $s$ the softmax"""
        (out,) = ctx.saved_tensors
        return out * (grad - sum_keepdim(grad * out, ctx.dim))


class LogSoftmax(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim: int) -> Tensor:
        """$a_i - m - \\ln \\sum_j e^{a_j - m}$ along `dim` (stable)"""
        if not a.dtype.is_floating_point:
            raise not_implemented("log_softmax_lastdim_kernel_impl", a.dtype)
        shifted = shifted_by_max(a, dim)
        exps = apply_map(operators.exp, shifted, a.dtype)
        log_total = apply_map(operators.log, sum_keepdim(exps, dim), a.dtype)
        out = apply_zip(operators.sub, shifted, log_total, a.dtype)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g - e^{out} \\sum_j g_j$ along `dim`"""
        (out,) = ctx.saved_tensors
        return grad - out.exp() * sum_keepdim(grad, ctx.dim)


def shifted_by_max(a: Tensor, dim: int) -> Tensor:
    """$a - \\max(a)$ along `dim`: the largest becomes 0, so $e^x$ cannot overflow."""
    if a.ndim == 0:
        return apply_zip(operators.sub, a, a, a.dtype)
    dim = normalize_dim(dim, a.ndim)
    if a.shape[dim] == 0:
        return a
    largest, _ = arg_reduce(greater_or_nan, a, dim)
    return apply_zip(operators.sub, a, largest, a.dtype)


def sum_keepdim(a: Tensor, dim: int) -> Tensor:
    return reduce_dims(operators.add, a, reduction_dims(dim, a.ndim), 0, a.dtype)


# ---------------------------------------------------------------------------
# Matrix multiplication
# ---------------------------------------------------------------------------


class MatMul(Function):
    @classmethod
    def node_name(cls, a, b) -> str:
        names = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0"}
        return names.get((a.ndim, b.ndim), "BmmBackward0")

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$c_{ik} = \\sum_j a_{ij} b_{jk}$; 1-D operands and batch dimensions as `torch.matmul`"""
        check_matmul_operands(a, b)
        needs_a, needs_b = ctx.needs_input_grad
        ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
        # A vector is a matrix with one row (on the left) or one column (on the right),
        # and that extra dimension is dropped from the result.
        a_matrix = a.unsqueeze(0) if a.ndim == 1 else a
        b_matrix = b.unsqueeze(1) if b.ndim == 1 else b
        batch = shape_broadcast(a_matrix.shape[:-2], b_matrix.shape[:-2])
        ndim = len(batch) + 2
        a_matrix = a_matrix.view((1,) * (ndim - a_matrix.ndim) + tuple(a_matrix.shape))
        b_matrix = b_matrix.view((1,) * (ndim - b_matrix.ndim) + tuple(b_matrix.shape))
        out = new_tensor(batch + (a_matrix.shape[-2], b_matrix.shape[-1]), a.dtype, a.device)
        backend_for(a).matmul(out._layout, a_matrix._layout, b_matrix._layout)
        shape = tuple(out.shape)
        if b.ndim == 1:
            shape = shape[:-1]
        if a.ndim == 1:
            shape = shape[:-2] + shape[-1:] if b.ndim > 1 else shape[:-1]
        ctx.a_ndim, ctx.b_ndim = a.ndim, b.ndim
        return with_shape(out, shape)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(g B^T, A^T g)$, vectors seen as one-row / one-column matrices; batch dims
        that were broadcast are summed away by `sum_to`."""
        # BEGIN SOLUTION 2.6
        a, b = ctx.saved_tensors
        if ctx.b_ndim == 1:
            grad = grad.unsqueeze(-1)
        if ctx.a_ndim == 1:
            grad = grad.unsqueeze(-2)
        grad_a = grad_b = None
        if b is not None:
            grad_a = grad @ (b.unsqueeze(1) if b.ndim == 1 else b).transpose(-1, -2)
            grad_a = grad_a.squeeze(-2) if ctx.a_ndim == 1 else grad_a
        if a is not None:
            grad_b = (a.unsqueeze(0) if a.ndim == 1 else a).transpose(-1, -2) @ grad
            grad_b = grad_b.squeeze(-1) if ctx.b_ndim == 1 else grad_b
        return grad_a, grad_b
        # END SOLUTION 2.6


# ---------------------------------------------------------------------------
# Views, indexing and copies
# ---------------------------------------------------------------------------


class View(Function):
    @classmethod
    def node_name(cls, a, shape, kind="View") -> str:
        return kind + "Backward0"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, shape: tuple, kind: str = "View") -> Tensor:
        """The same elements in `shape`; an error when the strides do not allow it"""
        ctx.input_shape = tuple(a.shape)
        shape = infer_shape(shape, a.numel())
        # BEGIN SOLUTION 2.4
        layout = a._layout.view(shape)
        if layout is None:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            )
        return view_of(a, layout)
        # END SOLUTION 2.4

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ seen in the input's shape"""
        # BEGIN SOLUTION 2.6
        return grad.reshape(ctx.input_shape)
        # END SOLUTION 2.6


class Permute(Function):
    """Reordered dimensions; `transpose`, `t()` and `.T` are permutations too."""

    @classmethod
    def node_name(cls, a, dims, kind="Permute") -> str:
        return kind + "Backward0"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dims: tuple, kind: str = "Permute") -> Tensor:
        """Dimension k of the result is dimension `dims[k]` of `a`"""
        if len(dims) != a.ndim:
            raise RuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input does not match "
                "the length of the desired ordering of dimensions i.e. input.dim() = "
                f"{a.ndim} is not equal to len(dims) = {len(dims)}"
            )
        order = tuple(normalize_dim(d, a.ndim) for d in dims)
        if len(set(order)) != len(order):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        ctx.order = order
        # BEGIN SOLUTION 2.4
        return view_of(a, a._layout.permute(*order))
        # END SOLUTION 2.4

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ permuted back by the inverse permutation"""
        # BEGIN SOLUTION 2.6
        inverse = [0] * len(ctx.order)
        for k, d in enumerate(ctx.order):
            inverse[d] = k
        return grad.permute(*inverse)
        # END SOLUTION 2.6


class Expand(Function):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, sizes: tuple) -> Tensor:
        """Repeat size-1 dimensions (stride 0) and add leading ones, without copying"""
        if len(sizes) < a.ndim:
            raise RuntimeError(
                f"expand({a.type()}{{{list(a.shape)}}}, size={list(sizes)}): the number of sizes "
                f"provided ({len(sizes)}) must be greater or equal to the number of dimensions "
                f"in the tensor ({a.ndim})"
            )
        extra = len(sizes) - a.ndim
        target = list(sizes)
        for k, size in enumerate(a.shape):
            wanted = sizes[k + extra]
            if wanted == -1:
                target[k + extra] = size
            elif size != 1 and wanted != size:
                raise RuntimeError(
                    f"The expanded size of the tensor ({wanted}) must match the existing size "
                    f"({size}) at non-singleton dimension {k + extra}.  Target sizes: "
                    f"{list(sizes)}.  Tensor sizes: {list(a.shape)}"
                )
        if any(size < 0 for size in target):
            raise RuntimeError(f"expand: invalid target sizes {list(sizes)}")
        ctx.input_shape = tuple(a.shape)
        return view_of(a, a._layout.expand(tuple(target)))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """Each input element was repeated: it gets the sum of its copies' gradients"""
        # BEGIN SOLUTION 2.6
        return sum_to(grad, ctx.input_shape)
        # END SOLUTION 2.6


class Restride(Function):
    """A view that only adds or drops size-1 dimensions (squeeze, unsqueeze)."""

    @classmethod
    def node_name(cls, a, shape, strides, name) -> str:
        return name

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, shape: tuple, strides: tuple, name: str) -> Tensor:
        ctx.input_shape = tuple(a.shape)
        return view_of(a, TensorData(a._layout.storage, shape, strides, a.storage_offset()))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ with the size-1 dimensions put back or taken out"""
        return grad.reshape(ctx.input_shape)


class Index(Function):
    @classmethod
    def node_name(cls, a, key) -> str:
        parts = [k for k in normalize_key(key) if k is not Ellipsis]
        kinds = {int: "Select", slice: "Slice", type(None): "Unsqueeze"}
        kind = kinds.get(type(parts[-1]), "Select") if parts else "Alias"
        return kind + "Backward0"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, key) -> Tensor:
        """`a[key]` for ints, slices, `...` and None: a view"""
        ctx.input_shape, ctx.key = tuple(a.shape), key
        return view_of(a, index_layout(a._layout, key))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ in the selected region of a zero tensor of the input's shape"""
        # BEGIN SOLUTION 2.6
        grad_input = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        write_into(view_of(grad_input, index_layout(grad_input._layout, ctx.key)), grad)
        return grad_input
        # END SOLUTION 2.6


class IndexRows(Function):
    """`a[index]` with an index list or tensor, or a bool mask: a copy of the chosen rows."""

    @classmethod
    def node_name(cls, a, positions, shape) -> str:
        return "IndexBackward0"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, positions: list, shape: tuple) -> Tensor:
        ctx.input_shape, ctx.positions = tuple(a.shape), positions
        out = new_tensor(shape, a.dtype, a.device)
        rows = out.view((len(positions),) + tuple(a.shape[len(positions[0]) if positions else 1 :]))
        for row, position in enumerate(positions):
            write_into(rows[row], Index.apply(a, key=position))
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """Each row's gradient added into its source row (a row chosen twice gets both)"""
        positions = ctx.positions
        grad_input = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        rows = grad.reshape(
            (len(positions),) + ctx.input_shape[len(positions[0]) if positions else 1 :]
        )
        for row, position in enumerate(positions):
            target = view_of(grad_input, index_layout(grad_input._layout, position))
            write_into(target, target + rows[row])
        return grad_input


class Copy(Function):
    """A contiguous copy: `clone()` (CloneBackward0) or a dtype change (ToCopyBackward0)."""

    @classmethod
    def node_name(cls, a, dtype, kind="Clone") -> str:
        return kind + "Backward0"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dtype: DType, kind: str = "Clone") -> Tensor:
        """A contiguous copy of `a` with `dtype`"""
        return apply_map(operators.identity, a, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ (cast back to the input's dtype by the autograd layer)"""
        return grad
