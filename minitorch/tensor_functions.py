"""Tensor operations: differentiable `Function`s and the module-level API.

Every operation computes its result through the backend's kernels (`map`,
`zip`, `reduce`, `arg_reduce`, `where`, `matmul`) on layouts, so that the
same code runs on every backend. Each differentiable operation is a
`Function` subclass with a static `forward(ctx, ...)`; the autograd layer
adds `backward` beside it and makes `Function.apply` record the graph.

The module-level functions (`add`, `exp`, `matmul`, ...) are what
`minitorch.<name>` exports (tensor creation lives in `tensor_creation.py`);
`Tensor` methods forward to them. Names that would shadow Python built-ins
are defined with a `tensor_` prefix (`tensor_sum`, `tensor_max`, ...) and
exported under PyTorch's name.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np

from . import dtypes, operators, tensor_ops
from .autograd import GraphContext, is_grad_enabled, no_grad, record
from .dtypes import DType
from .operators import greater_or_nan, less_or_nan
from .tensor import CPU, Tensor, check_device
from .tensor import device as Device
from .tensor_creation import from_numpy, generator, parse_shape, tensor
from .tensor_data import TensorData, normalize_dim, prod, shape_broadcast, view_strides

Number = bool | int | float

# ---------------------------------------------------------------------------
# Helpers: allocation, conversion, kernels
# ---------------------------------------------------------------------------


def backend_for(t: Tensor):
    """The kernels that run `t`'s operations (chosen by its device)."""
    return tensor_ops.get_backend()


def new_tensor(shape: Sequence[int], dtype: DType, on_device: Device = CPU) -> Tensor:
    """A fresh contiguous tensor of zeros."""
    return Tensor(TensorData.empty(tuple(shape), dtype), dtype, on_device)


def view_of(t: Tensor, layout: TensorData) -> Tensor:
    """A view: a tensor over `t`'s storage with another layout, sharing its version counter.

    Its `_base` is the tensor that owns the storage (for in-place autograd).
    """
    view = Tensor(layout, t.dtype, t.device, t._version_counter)
    view._base = t if t._base is None else t._base
    return view


def alias(t: Tensor) -> Tensor:
    """`t`'s storage and layout in a new tensor outside the graph (not a view of `t`)."""
    return Tensor(t._layout, t.dtype, t.device, t._version_counter)


def with_shape(fresh: Tensor, shape: tuple) -> Tensor:
    """A freshly computed contiguous tensor given another shape of the same size."""
    layout = TensorData(fresh._layout.storage, shape, None, fresh._layout.offset)
    return Tensor(layout, fresh.dtype, fresh.device, fresh._version_counter)


def scalar_tensor(value: Number, dtype: DType) -> Tensor:
    """A 0-dim tensor holding the Python number `value` in `dtype`."""
    storage = np.array([value], dtype=dtype.numpy_dtype)
    return Tensor(TensorData(storage, ()), dtype)


def converted(t: Tensor, dtype: DType) -> Tensor:
    """`t` itself when it has `dtype`, else a copy converted to `dtype`."""
    if t.dtype is dtype:
        return t
    out = new_tensor(t.shape, dtype, t.device)
    backend_for(t).map(operators.identity, out._layout, t._layout)
    return out


def as_operands(a: Tensor | Number, b: Tensor | Number) -> tuple[Tensor, Tensor, DType]:
    """Both operands as tensors of their common (promoted) dtype, and that dtype.

    Python numbers become 0-dim tensors of the promoted dtype, so `float64 +
    0.1` uses 0.1 in double precision.
    """
    dtype = dtypes.result_type(a, b)
    a = a if isinstance(a, Tensor) else scalar_tensor(a, dtype)
    b = b if isinstance(b, Tensor) else scalar_tensor(b, dtype)
    return converted(a, dtype), converted(b, dtype), dtype


def apply_map(fn, a: Tensor, out_dtype: DType) -> Tensor:
    """A new tensor with $fn(a_i)$ for every element of `a`."""
    out = new_tensor(a.shape, out_dtype, a.device)
    backend_for(a).map(fn, out._layout, a._layout)
    return out


def apply_zip(fn, a: Tensor, b: Tensor, out_dtype: DType) -> Tensor:
    """A new tensor with $fn(a_i, b_i)$ over the broadcast shape of `a` and `b`."""
    out = new_tensor(shape_broadcast(a.shape, b.shape), out_dtype, a.device)
    backend_for(a).zip(fn, out._layout, a._layout, b._layout)
    return out


def float_version(t: Tensor) -> Tensor:
    """`t` converted to the default float dtype unless it is floating already."""
    return t if t.dtype.is_floating_point else converted(t, dtypes.get_default_dtype())


def not_implemented(kernel: str, dtype: DType) -> NotImplementedError:
    """PyTorch's error for a kernel that has no version for `dtype`."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.torch_scalar_name}'")


class Function:
    """A differentiable operation: `forward` and `backward` side by side.

    `Fn.apply(*inputs, **params)` runs `Fn.forward(ctx, *inputs, **params)`.
    Positional inputs are what gradients flow into (tensors, or numbers that
    get none); keyword params are settings (a dim, a shape). When grad mode is
    on and an input requires grad, `apply` records a node named
    `Fn.node_name(...)` as the output's `grad_fn`. Its `Fn.backward(ctx, grad)`
    returns one gradient per positional input (None where none flows); the
    autograd layer sums each over the dims its input was broadcast along.
    """

    @staticmethod
    def forward(ctx: GraphContext, *inputs, **params):
        raise NotImplementedError

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor):
        raise NotImplementedError

    @classmethod
    def node_name(cls, *inputs, **params) -> str:
        """PyTorch's name for this operation's node.

        PyTorch names the nodes of its own operations `AddBackward0`, ... and
        those of Functions its users define `CubeBackward` (no number).
        """
        return cls.__name__ + ("Backward0" if cls.__module__ == __name__ else "Backward")

    @classmethod
    def apply(cls, *inputs, **params):
        ctx = GraphContext()
        ctx.needs_input_grad = tuple(isinstance(x, Tensor) and x.requires_grad for x in inputs)
        recording = is_grad_enabled() and builtins.any(ctx.needs_input_grad)
        if not recording:
            ctx.no_grad = True  # no backward will run: nothing needs saving
            return cls.forward(ctx, *inputs, **params)
        with no_grad():  # the steps inside forward are not recorded on their own
            output = cls.forward(ctx, *inputs, **params)
        result = output[0] if isinstance(output, tuple) else output
        if result.dtype.is_floating_point:  # integer and bool outputs have no gradient
            record(cls, ctx, inputs, result, cls.node_name(*inputs, **params))
        return output


def sum_to(grad: Tensor, shape: tuple) -> Tensor:
    """Undo broadcasting: sum `grad` down to `shape` (the shape of an input that was broadcast).

    An input element read by several output elements (a size-1 or missing
    dimension, repeated) collects the sum of their gradients:
    $\\partial L / \\partial a_j = \\sum_{i \\text{ reading } a_j} \\partial L / \\partial out_i$.

    >>> import minitorch
    >>> sum_to(minitorch.ones(2, 3), (3,))
    tensor([2., 2., 2.])
    """
    # BEGIN SOLUTION 2.5
    extra = grad.ndim - len(shape)
    dims = tuple(range(extra)) + tuple(
        extra + k for k, size in enumerate(shape) if size == 1 and grad.shape[extra + k] != 1
    )
    if dims:
        grad = tensor_sum(grad, dims, keepdim=True)
    return reshape(grad, shape)
    # END SOLUTION 2.5


def sign(a: Tensor) -> Tensor:
    """$+1$, $-1$ or $0$ elementwise (the derivative of $|a|$), in `a`'s dtype."""
    return sub(converted(gt(a, 0), a.dtype), converted(lt(a, 0), a.dtype))


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
        return neg(grad)
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
        return mul(grad, sign(a))


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
        return mul(grad, out)
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
        return div(grad, a)
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
        return div(grad, mul(out, 2))


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
        return mul(grad, mul(out, sub(1, out)))
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
        return mul(grad, sub(1, mul(out, out)))


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
        return where(gt(a, 0), grad, 0.0)
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
    @classmethod
    def node_name(cls, a, b) -> str:
        return "SubBackward0" if isinstance(a, Tensor) else "RsubBackward1"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$a - b$, broadcast"""
        a, b, dtype = as_operands(a, b)
        return apply_zip(operators.sub, a, b, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor]:
        """$(g, -g)$"""
        return grad, neg(grad)


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
        return (None if b is None else mul(grad, b)), (None if a is None else mul(grad, a))
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
        grad_b = neg(div(mul(grad, a), mul(b, b))) if ctx.needs_input_grad[1] else None
        return div(grad, b), grad_b
        # END SOLUTION 2.5


class Pow(Function):
    """$a^b$; a number exponent is passed as the keyword `b` (it gets no gradient)."""

    @classmethod
    def node_name(cls, a, b=None) -> str:
        if not isinstance(a, Tensor):
            return "PowBackward2"
        return "PowBackward1" if isinstance(b, Tensor) else "PowBackward0"

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
            grad_a = where(eq(b, 0), 0.0, mul(grad, mul(b, tensor_pow(a, sub(b, 1)))))
        if needs[1]:  # 0 where a = 0 and b >= 0 (where ln a is -inf but a^b is flat)
            flat = logical_and(eq(a, 0), ge(b, 0))
            grad_b = where(flat, 0.0, mul(grad, mul(out, log(a))))
        return grad_a, grad_b


class Remainder(Function):
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
        return grad, neg(mul(grad, floor_divide(a, b)))


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
        return split_at_ties(grad, a, b, lt(a, b)), split_at_ties(grad, a, b, gt(a, b))


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
        return split_at_ties(grad, a, b, gt(a, b)), split_at_ties(grad, a, b, lt(a, b))


def split_at_ties(grad: Tensor, a: Tensor, b: Tensor, loses: Tensor) -> Tensor:
    """`grad` where an input won, half of it on ties, 0 where it `loses`."""
    return where(eq(a, b), div(grad, 2), where(loses, 0.0, grad))


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
        inside = ge(a, ctx.low) if ctx.low is not None else None
        if ctx.high is not None:
            below = le(a, ctx.high)
            inside = below if inside is None else logical_and(inside, below)
        return where(inside, grad, 0.0)


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
        return where(condition, grad, 0.0), where(condition, 0.0, grad)


def check_integer_divisor(b: Tensor) -> None:
    """PyTorch raises for integer division by zero instead of returning garbage."""
    if not b.dtype.is_floating_point and tensor_any(b == 0).item():
        raise RuntimeError("ZeroDivisionError")


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def reduction_dims(dim, ndim: int) -> tuple[int, ...]:
    """The dims a reduction runs over: all for None, else `dim` (an int or a sequence)."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    normalized = tuple(sorted({normalize_dim(d, ndim) for d in dims}))
    return normalized if ndim else ()


def reduce_dims(fn, a: Tensor, dims: tuple[int, ...], start: Number, dtype: DType) -> Tensor:
    """Fold `a` over `dims` with `fn` from `start`; the result keeps each dim with size 1."""
    # BEGIN SOLUTION 2.4
    result = converted(a, dtype)
    for dim in dims:
        shape = list(result.shape)
        shape[dim] = 1
        out = new_tensor(shape, dtype, a.device)
        backend_for(a).reduce(fn, out._layout, result._layout, dim, start)
        result = out
    return result if result is not a else a.clone()
    # END SOLUTION 2.4


def drop_dims(t: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """Remove the size-1 dims `dims` of a reduction result unless `keepdim`."""
    if keepdim:
        return t
    return with_shape(t, tuple(size for d, size in enumerate(t.shape) if d not in dims))


def accumulation_dtype(a: Tensor, dtype: DType | None) -> DType:
    """Sums and products of bools and integers are int64, as in PyTorch."""
    if dtype is not None:
        return dtypes.to_dtype(dtype)
    return a.dtype if a.dtype.is_floating_point else dtypes.int64


def expand_reduced(grad: Tensor, shape: tuple, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """A reduction's output gradient put back over the reduced `dims` of `shape`."""
    if not keepdim:
        for d in dims:
            grad = unsqueeze(grad, d)
    return expand(grad, shape)


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
        return expand_reduced(div(grad, ctx.count), ctx.shape, ctx.dims, ctx.keepdim)
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
        is_zero = eq(a, 0)
        product = reduce_dims(operators.mul, a, dims, 1, a.dtype)
        others_if_zero = reduce_dims(operators.mul, where(is_zero, 1.0, a), dims, 1, a.dtype)
        zero_count = reduce_dims(operators.add, is_zero, dims, 0, dtypes.int64)
        at_zero = where(eq(zero_count, 1), others_if_zero, 0.0)
        others = where(is_zero, at_zero, div(product, a))
        return mul(expand_reduced(grad, tuple(a.shape), dims, ctx.keepdim), others)


def arg_reduce(better, a: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    """The best values along `dim` (kept with size 1) and their int64 positions."""
    shape = list(a.shape)
    shape[dim] = 1
    values = new_tensor(shape, a.dtype, a.device)
    indices = new_tensor(shape, dtypes.int64, a.device)
    backend_for(a).arg_reduce(better, values._layout, indices._layout, a._layout, dim)
    return values, indices


class ReturnTypes(tuple):
    """`(values, indices)` as `max(dim)` returns them, also readable by name."""

    def __new__(cls, name: str, values: Tensor, indices: Tensor):
        result = super().__new__(cls, (values, indices))
        result.name = name
        return result

    @property
    def values(self) -> Tensor:
        return self[0]

    @property
    def indices(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"minitorch.return_types.{self.name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


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
            grad = unsqueeze(grad, ctx.dim)
        positions = [1] * len(ctx.shape)
        positions[ctx.dim] = ctx.shape[ctx.dim]
        won = eq(view(tensor(list(range(ctx.shape[ctx.dim]))), positions), indices)
        return where(won, grad, 0.0)
        # END SOLUTION 2.6


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
        flat = reshape(a, -1)
        values, _ = arg_reduce(greater_or_nan if largest else less_or_nan, flat, 0)
        out = with_shape(values, ())
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ shared evenly by all elements equal to the result (as PyTorch)"""
        a, out = ctx.saved_tensors
        winners = logical_or(eq(a, out), logical_and(ne(a, a), ne(out, out)))
        count = tensor_sum(winners)
        return where(winners, div(grad, count), 0.0)


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
        return mul(out, sub(grad, sum_keepdim(mul(grad, out), ctx.dim)))


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
        return sub(grad, mul(exp(out), sum_keepdim(grad, ctx.dim)))


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

_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}


def check_matmul_shapes(a: Tensor, b: Tensor) -> None:
    """Raise PyTorch's error when the inner sizes of `a @ b` differ."""
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D"
        )
    inner_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if a.shape[-1] == inner_b:
        return
    if a.ndim == 1 and b.ndim == 1:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
            "to have the same number of elements, but got "
            f"{a.shape[0]} and {b.shape[0]} elements respectively"
        )
    rows = prod(a.shape[:-1])
    if b.ndim == 1:
        raise RuntimeError(
            f"size mismatch, got input ({rows}), mat ({rows}x{a.shape[-1]}), vec ({b.shape[0]})"
        )
    if b.ndim == 2:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a.shape[-1]} and "
            f"{b.shape[0]}x{b.shape[1]})"
        )
    batch = prod(shape_broadcast(a.shape[:-2], b.shape[:-2]))
    raise RuntimeError(
        "Expected size for first two dimensions of batch2 tensor to be: "
        f"[{batch}, {a.shape[-1]}] but got: [{batch}, {b.shape[-2]}]."
    )


class MatMul(Function):
    @classmethod
    def node_name(cls, a, b) -> str:
        names = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0"}
        return names.get((a.ndim, b.ndim), "MmBackward0" if b.ndim == 2 else "BmmBackward0")

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$c_{ik} = \\sum_j a_{ij} b_{jk}$; 1-D operands and batch dimensions as `torch.matmul`"""
        if a.dtype is not b.dtype:
            raise RuntimeError(
                "expected m1 and m2 to have the same dtype, but got: "
                f"{_CPP_TYPE_NAMES[a.dtype.name]} != {_CPP_TYPE_NAMES[b.dtype.name]}"
            )
        if a.dtype is dtypes.bool_:
            raise not_implemented("addmm_impl_cpu_", a.dtype)
        check_matmul_shapes(a, b)
        needs_a, needs_b = ctx.needs_input_grad
        ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
        # A vector is a matrix with one row (on the left) or one column (on the right),
        # and that extra dimension is dropped from the result.
        a_matrix = unsqueeze(a, 0) if a.ndim == 1 else a
        b_matrix = unsqueeze(b, 1) if b.ndim == 1 else b
        batch = shape_broadcast(a_matrix.shape[:-2], b_matrix.shape[:-2])
        ndim = len(batch) + 2
        a_matrix = view(a_matrix, (1,) * (ndim - a_matrix.ndim) + tuple(a_matrix.shape))
        b_matrix = view(b_matrix, (1,) * (ndim - b_matrix.ndim) + tuple(b_matrix.shape))
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
            grad = unsqueeze(grad, -1)
        if ctx.a_ndim == 1:
            grad = unsqueeze(grad, -2)
        grad_a = grad_b = None
        if b is not None:
            grad_a = matmul(grad, transpose(unsqueeze(b, 1) if b.ndim == 1 else b, -1, -2))
            grad_a = squeeze(grad_a, -2) if ctx.a_ndim == 1 else grad_a
        if a is not None:
            grad_b = matmul(transpose(unsqueeze(a, 0) if a.ndim == 1 else a, -1, -2), grad)
            grad_b = squeeze(grad_b, -1) if ctx.b_ndim == 1 else grad_b
        return grad_a, grad_b
        # END SOLUTION 2.6


# ---------------------------------------------------------------------------
# Views: new layouts over the same storage
# ---------------------------------------------------------------------------


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Replace one -1 in `shape` so that it holds `numel` elements (PyTorch's errors)."""
    unknown = [k for k, size in enumerate(shape) if size == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = prod(size for size in shape if size != -1)
    invalid = f"shape '{list(shape)}' is invalid for input of size {numel}"
    if any(size < -1 for size in shape):
        raise RuntimeError(f"invalid shape dimension {min(shape)}")
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(invalid)
        shape = shape[: unknown[0]] + (numel // known,) + shape[unknown[0] + 1 :]
    if prod(shape) != numel:
        raise RuntimeError(invalid)
    return shape


class View(Function):
    @classmethod
    def node_name(cls, a, shape, kind="View") -> str:
        return kind + "Backward0"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, shape: tuple, kind: str = "View") -> Tensor:
        """The same elements in `shape`; an error when the strides do not allow it"""
        ctx.input_shape = tuple(a.shape)
        # BEGIN SOLUTION 2.4
        shape = infer_shape(shape, a.numel())
        strides = view_strides(a.shape, a.stride(), shape)
        if strides is None:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            )
        return view_of(a, TensorData(a._layout.storage, shape, strides, a.storage_offset()))
        # END SOLUTION 2.4

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ seen in the input's shape"""
        # BEGIN SOLUTION 2.6
        return reshape(grad, ctx.input_shape)
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
        return permute(grad, *inverse)
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
        return reshape(grad, ctx.input_shape)


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
        rows = view(
            out, (len(positions),) + tuple(a.shape[len(positions[0]) if positions else 1 :])
        )
        for row, position in enumerate(positions):
            write_into(rows[row], Index.apply(a, key=position))
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """Each row's gradient added into its source row (a row chosen twice gets both)"""
        positions = ctx.positions
        grad_input = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        rows = reshape(
            grad, (len(positions),) + ctx.input_shape[len(positions[0]) if positions else 1 :]
        )
        for row, position in enumerate(positions):
            target = view_of(grad_input, index_layout(grad_input._layout, position))
            write_into(target, add(target, rows[row]))
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


class CopySlices(Function):
    """The history of a tensor after an in-place write into its view `region`.

    Outside the region the tensor still holds its old values (their gradient
    flows to the old history); inside it holds `result` (its gradient flows there).
    """

    @classmethod
    def node_name(cls, base, result, region) -> str:
        return "minitorch::autograd::CopySlices"

    @staticmethod
    def forward(ctx: GraphContext, base: Tensor, result: Tensor, region: TensorData) -> Tensor:
        if not base.is_contiguous():
            raise RuntimeError(
                "autograd cannot record an in-place write into a view of a non-contiguous tensor"
            )
        ctx.region = region_in(base, region)
        return alias(base)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor]:
        """$g$ outside the region to the old history, $g$ inside it to `result`"""
        grad_base = clone(grad)
        shape, strides, offset = ctx.region
        in_region = view_of(
            grad_base, TensorData(grad_base._layout.storage, shape, strides, offset)
        )
        grad_result = clone(in_region)
        write_into(in_region, scalar_tensor(0, grad.dtype))
        return grad_base, grad_result


class AsStrided(Function):
    """A view `region` of `base` read again after an in-place write (its new history)."""

    @staticmethod
    def forward(ctx: GraphContext, base: Tensor, region: TensorData) -> Tensor:
        ctx.input_shape = tuple(base.shape)
        ctx.region = region_in(base, region)
        return view_of(base, region)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        shape, strides, offset = ctx.region
        grad_base = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        write_into(
            view_of(grad_base, TensorData(grad_base._layout.storage, shape, strides, offset)), grad
        )
        return grad_base


def region_in(base: Tensor, region: TensorData) -> tuple:
    """(shape, strides, offset) of view `region` relative to its contiguous `base`."""
    return tuple(region.shape), tuple(region.strides), region.offset - base.storage_offset()


def normalize_key(key) -> tuple:
    """An indexing key as a tuple; 0-dim integer tensors become ints."""
    key = key if isinstance(key, tuple) else (key,)
    return tuple(
        k.item()
        if isinstance(k, Tensor)
        and k.ndim == 0
        and not k.dtype.is_floating_point
        and k.dtype is not dtypes.bool_
        else k
        for k in key
    )


def index_layout(layout: TensorData, key) -> TensorData:
    """The layout of `tensor[key]` for basic keys (ints, slices, Ellipsis, None)."""
    key = normalize_key(key)
    if builtins.sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consuming = builtins.sum(k is not None and k is not Ellipsis for k in key)
    if consuming > layout.ndim:
        raise IndexError(f"too many indices for tensor of dimension {layout.ndim}")
    shape, strides, offset, dim = [], [], layout.offset, 0
    for k in key:
        if k is Ellipsis:
            for _ in range(layout.ndim - consuming):
                shape.append(layout.shape[dim])
                strides.append(layout.strides[dim])
                dim += 1
        elif k is None:
            shape.append(1)
            strides.append(layout.shape[dim] * layout.strides[dim] if dim < layout.ndim else 1)
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            start, stop, step = k.indices(layout.shape[dim])
            shape.append(max(0, -(-(stop - start) // step)))
            strides.append(layout.strides[dim] * step)
            offset += start * layout.strides[dim]
            dim += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            size = layout.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
            offset += (k % size) * layout.strides[dim]
            dim += 1
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got " + type(k).__name__ + ")"
            )
    shape.extend(layout.shape[dim:])
    strides.extend(layout.strides[dim:])
    if builtins.any(size == 0 for size in shape):
        offset = min(offset, layout.storage.shape[0])
    return TensorData(layout.storage, shape, strides, offset)


def advanced_positions(a: Tensor, key) -> list[tuple]:
    """The basic keys that `a[key]` selects for an index list/tensor or a bool mask.

    Only one such key is supported, in the first position.
    """
    index = key if isinstance(key, Tensor) else tensor(key)
    if index.dtype is dtypes.bool_:
        for k, (mask_size, size) in enumerate(zip(index.shape, a.shape, strict=False)):
            if mask_size != size:
                raise IndexError(
                    f"The shape of the mask {list(index.shape)} at index {k} does not match the "
                    f"shape of the indexed tensor {list(a.shape)} at index {k}"
                )
        return [tuple(int(i) for i in where_true) for where_true in np.argwhere(index.numpy())]
    if index.dtype is not dtypes.int64:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return [(int(i),) for i in index.numpy().reshape(-1)]


def is_advanced_key(key) -> bool:
    return isinstance(key, (list, Tensor)) and not (
        isinstance(key, Tensor) and key.ndim == 0 and key.dtype is dtypes.int64
    )


def getitem(a: Tensor, key) -> Tensor:
    """`a[key]`: a view for ints, slices, `...` and None; a copy for an index tensor or mask."""
    if not is_advanced_key(key):
        return Index.apply(a, key=key)
    positions = advanced_positions(a, key)
    index = key if isinstance(key, Tensor) else tensor(key)
    if index.dtype is dtypes.bool_:
        shape = (len(positions),) + tuple(a.shape[index.ndim :])
    else:
        shape = tuple(index.shape) + tuple(a.shape[1:])
    return IndexRows.apply(a, positions=positions, shape=shape)


def setitem(a: Tensor, key, value) -> None:
    """`a[key] = value`: write `value` (a number or a broadcastable tensor) into `a`'s view."""
    if is_advanced_key(key):
        positions = advanced_positions(a, key)
        values = value if isinstance(value, Tensor) and value.numel() > 1 else None
        for row, position in enumerate(positions):
            setitem(a, position, value if values is None else values[row])
        return
    target = Index.apply(a, key=key)
    source = value if isinstance(value, Tensor) else scalar_tensor(value, a.dtype)
    inplace(target, copied_into, source, checked=False)


def write_into(target: Tensor, source: Tensor) -> None:
    """Copy `source` (broadcast, converted to `target`'s dtype) into `target`'s storage."""
    if source._layout.storage is target._layout.storage:
        source = apply_map(operators.identity, source, source.dtype)  # the copy may overlap
    backend_for(target).map(operators.identity, target._layout, source._layout)
    target._bump_version()


# ---------------------------------------------------------------------------
# Module-level API: view operations
# ---------------------------------------------------------------------------


def view(a: Tensor, *shape) -> Tensor:
    """`a` seen with another shape, sharing storage (one size may be -1).

    >>> import minitorch
    >>> minitorch.arange(6).view(2, 3).stride()
    (3, 1)
    """
    return View.apply(a, shape=parse_shape(shape))


def reshape(a: Tensor, *shape) -> Tensor:
    """Like `view`, copying only when `a`'s strides do not allow a view."""
    shape = infer_shape(parse_shape(shape), a.numel())
    if view_strides(a.shape, a.stride(), shape) is None:
        return View.apply(clone(a), shape=shape, kind="UnsafeView")
    return View.apply(a, shape=shape)


def permute(a: Tensor, *dims) -> Tensor:
    """Reorder `a`'s dimensions (a view)."""
    return Permute.apply(a, dims=parse_shape(dims))


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dimensions `dim0` and `dim1` (a view)."""
    if a.ndim == 0:
        normalize_dim(dim0, 0), normalize_dim(dim1, 0)
        return Permute.apply(a, dims=(), kind="Transpose")
    order = list(range(a.ndim))
    d0, d1 = normalize_dim(dim0, a.ndim), normalize_dim(dim1, a.ndim)
    order[d0], order[d1] = order[d1], order[d0]
    return Permute.apply(a, dims=tuple(order), kind="Transpose")


def t(a: Tensor) -> Tensor:
    """The transpose of a matrix; vectors and 0-dim tensors unchanged (a view)."""
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    order = tuple(range(a.ndim - 1, -1, -1))
    return Permute.apply(a, dims=order, kind="T")


def expand(a: Tensor, *sizes) -> Tensor:
    """Broadcast size-1 dimensions to `sizes` (a view with stride 0)."""
    return Expand.apply(a, sizes=parse_shape(sizes))


def broadcast_to(a: Tensor, shape) -> Tensor:
    return Expand.apply(a, sizes=parse_shape((shape,)))


def squeeze(a: Tensor, dim=None) -> Tensor:
    """Drop size-1 dimensions (all of them, or those in `dim`)."""
    dims = reduction_dims(dim, a.ndim)
    kept = [d for d in range(a.ndim) if d not in dims or a.shape[d] != 1]
    shape, strides = tuple(a.shape[d] for d in kept), tuple(a.stride()[d] for d in kept)
    name = "SqueezeBackward0" if dim is None else "SqueezeBackward1"
    return Restride.apply(a, shape=shape, strides=strides, name=name)


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dimension at `dim`."""
    dim = normalize_dim(dim, a.ndim + 1)
    shape, strides = list(a.shape), list(a.stride())
    stride = shape[dim] * strides[dim] if dim < a.ndim else 1
    shape.insert(dim, 1)
    strides.insert(dim, stride)
    return Restride.apply(a, shape=tuple(shape), strides=tuple(strides), name="UnsqueezeBackward0")


def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions `start_dim` to `end_dim` into one (a view when possible)."""
    if a.ndim == 0:
        return reshape(a, 1)
    start, end = normalize_dim(start_dim, a.ndim), normalize_dim(end_dim, a.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = a.shape[:start] + (prod(a.shape[start : end + 1]),) + a.shape[end + 1 :]
    return a if shape == tuple(a.shape) else reshape(a, shape)


def clone(a: Tensor) -> Tensor:
    """A contiguous copy of `a` with its own storage."""
    return Copy.apply(a, dtype=a.dtype)


def detach(a: Tensor) -> Tensor:
    """`a`'s storage and layout, outside the autograd graph (shares the version counter)."""
    return alias(a)


def to(a: Tensor, *args, dtype=None, device=None, copy=False, non_blocking=False) -> Tensor:
    """`a` with another dtype and/or device; `a` itself when nothing changes."""
    target_dtype, target_device = dtype, device
    for arg in args:
        if isinstance(arg, Tensor):
            target_dtype, target_device = arg.dtype, arg.device
        elif isinstance(arg, (str, Device)):
            target_device = arg
        else:
            target_dtype = arg
    new_dtype = a.dtype if target_dtype is None else dtypes.to_dtype(target_dtype)
    new_device = a.device if target_device is None else check_device(Device(target_device))
    if new_dtype is a.dtype and new_device == a.device and not copy:
        return a
    return Copy.apply(a, dtype=new_dtype, kind="ToCopy")


# ---------------------------------------------------------------------------
# Module-level API: elementwise operations
# ---------------------------------------------------------------------------


def add(a, b, alpha: Number = 1) -> Tensor:
    """$a + \\alpha b$, broadcast, with PyTorch's type promotion.

    >>> import minitorch
    >>> minitorch.add(minitorch.tensor([1, 2]), 0.5)
    tensor([1.5000, 2.5000])
    """
    return Add.apply(a, b if alpha == 1 else mul(b, alpha))


def sub(a, b, alpha: Number = 1) -> Tensor:
    """$a - \\alpha b$, broadcast."""
    if dtypes.result_type(a, b) is dtypes.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    return Sub.apply(a, b if alpha == 1 else mul(b, alpha))


def mul(a, b) -> Tensor:
    """$a \\cdot b$ elementwise, broadcast."""
    return Mul.apply(a, b)


def div(a, b) -> Tensor:
    """$a / b$ elementwise (true division: integers give floats)."""
    return Div.apply(a, b)


true_divide = div


def floor_divide(a, b) -> Tensor:
    """$\\lfloor a / b \\rfloor$ elementwise."""
    x, y, dtype = as_operands(a, b)
    if dtype is dtypes.bool_:
        raise not_implemented("div_floor_cpu", dtype)
    check_integer_divisor(y)
    return apply_zip(operators.floor_divide, x, y, dtype)


def remainder(a, b) -> Tensor:
    """$a \\bmod b$ with the sign of $b$ (Python's `%`)."""
    return Remainder.apply(a, b)


def tensor_pow(a, b) -> Tensor:
    """$a^b$ elementwise (`minitorch.pow`)."""
    exponent_dtype = b.dtype if isinstance(b, Tensor) else dtypes.scalar_dtype(b)
    base_dtype = a.dtype if isinstance(a, Tensor) else dtypes.scalar_dtype(a)
    if (
        not isinstance(b, Tensor)
        and not base_dtype.is_floating_point
        and not exponent_dtype.is_floating_point
        and b < 0
    ):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return Pow.apply(a, b) if isinstance(b, Tensor) else Pow.apply(a, b=b)


def neg(a: Tensor) -> Tensor:
    """$-a$ (not for bool tensors)."""
    if a.dtype is dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return Neg.apply(a)


negative = neg


def tensor_abs(a: Tensor) -> Tensor:
    """$|a|$ elementwise (`minitorch.abs`)."""
    if a.dtype is dtypes.bool_:
        raise not_implemented("abs_cpu", a.dtype)
    return Abs.apply(a)


def exp(a: Tensor) -> Tensor:
    """$e^a$ elementwise."""
    return Exp.apply(a)


def log(a: Tensor) -> Tensor:
    """$\\ln a$ elementwise."""
    return Log.apply(a)


def sqrt(a: Tensor) -> Tensor:
    """$\\sqrt{a}$ elementwise."""
    return Sqrt.apply(a)


def sigmoid(a: Tensor) -> Tensor:
    """$1 / (1 + e^{-a})$ elementwise."""
    return Sigmoid.apply(a)


def tanh(a: Tensor) -> Tensor:
    """$\\tanh a$ elementwise."""
    return Tanh.apply(a)


def relu(a: Tensor) -> Tensor:
    """$\\max(a, 0)$ elementwise."""
    if a.dtype is dtypes.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return Relu.apply(a)


def maximum(a: Tensor, b: Tensor) -> Tensor:
    """Elementwise maximum of two tensors (NaN wins)."""
    return Maximum.apply(a, b)


def minimum(a: Tensor, b: Tensor) -> Tensor:
    """Elementwise minimum of two tensors (NaN wins)."""
    return Minimum.apply(a, b)


def clamp(a: Tensor, min: Number | None = None, max: Number | None = None) -> Tensor:  # noqa: A002
    """Limit every element to `[min, max]` (either bound may be None)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return Clamp.apply(a, low=min, high=max)


clip = clamp


def where(condition: Tensor, a, b) -> Tensor:
    """`a` where `condition` is True, else `b` (broadcast)."""
    return Where.apply(a, b, condition=condition)


def comparison(fn, a, b) -> Tensor:
    """A bool tensor of `fn(a_i, b_i)`, compared in the promoted dtype."""
    x, y, _ = as_operands(a, b)
    return apply_zip(fn, x, y, dtypes.bool_)


def eq(a, b) -> Tensor:
    """$a = b$ elementwise (bool)."""
    return comparison(operators.eq, a, b)


def ne(a, b) -> Tensor:
    """$a \\ne b$ elementwise (bool)."""
    return comparison(operators.ne, a, b)


def lt(a, b) -> Tensor:
    """$a < b$ elementwise (bool)."""
    return comparison(operators.lt, a, b)


def le(a, b) -> Tensor:
    """$a \\le b$ elementwise (bool)."""
    return comparison(operators.le, a, b)


def gt(a, b) -> Tensor:
    """$a > b$ elementwise (bool)."""
    return comparison(operators.gt, a, b)


def ge(a, b) -> Tensor:
    """$a \\ge b$ elementwise (bool)."""
    return comparison(operators.ge, a, b)


def bitwise(fn, kernel: str, a, b) -> Tensor:
    x, y, dtype = as_operands(a, b)
    if dtype.is_floating_point:
        raise not_implemented(kernel, dtype)
    return apply_zip(fn, x, y, dtype)


def bitwise_and(a, b) -> Tensor:
    """`a & b`: logical and of bools, bitwise and of integers."""
    return bitwise(operators.bitwise_and, "bitwise_and_cpu", a, b)


def bitwise_or(a, b) -> Tensor:
    """`a | b`: logical or of bools, bitwise or of integers."""
    return bitwise(operators.bitwise_or, "bitwise_or_cpu", a, b)


def bitwise_xor(a, b) -> Tensor:
    """`a ^ b`: logical xor of bools, bitwise xor of integers."""
    return bitwise(operators.bitwise_xor, "bitwise_xor_cpu", a, b)


def bitwise_not(a: Tensor) -> Tensor:
    """`~a`: logical not of bools, bitwise not of integers."""
    if a.dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return apply_map(operators.bitwise_not, a, a.dtype)


def logical_not(a: Tensor) -> Tensor:
    """True where `a` is zero."""
    return apply_map(operators.logical_not, a, dtypes.bool_)


def logical_and(a: Tensor, b: Tensor) -> Tensor:
    """True where both are non-zero."""
    x, y, _ = as_operands(a, b)
    return apply_zip(operators.logical_and, x, y, dtypes.bool_)


def logical_or(a: Tensor, b: Tensor) -> Tensor:
    """True where either is non-zero."""
    x, y, _ = as_operands(a, b)
    return apply_zip(operators.logical_or, x, y, dtypes.bool_)


# ---------------------------------------------------------------------------
# Module-level API: reductions
# ---------------------------------------------------------------------------


def tensor_sum(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Sum over `dim` (int or tuple; all when None) (`minitorch.sum`).

    >>> import minitorch
    >>> minitorch.tensor([[1, 2], [3, 4]]).sum(0)
    tensor([4, 6])
    """
    return Sum.apply(a, dim=dim, keepdim=keepdim, dtype=dtype)


def mean(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Mean over `dim` (floating tensors only)."""
    return Mean.apply(a, dim=dim, keepdim=keepdim, dtype=dtype)


def tensor_prod(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Product over `dim` (`minitorch.prod`)."""
    return Prod.apply(a, dim=dim, keepdim=keepdim, dtype=dtype)


def extreme(a: Tensor, dim, keepdim: bool, largest: bool, other):
    if isinstance(dim, Tensor):
        dim, other = None, dim
    if other is not None:
        return maximum(a, other) if largest else minimum(a, other)
    if dim is None:
        return MaxAll.apply(a, largest=largest)
    values, indices = MaxDim.apply(a, dim=dim, keepdim=keepdim, largest=largest)
    return ReturnTypes("max" if largest else "min", values, indices)


def tensor_max(a: Tensor, dim=None, keepdim: bool = False, *, other=None):
    """The largest element; with `dim`, `(values, indices)` along it (`minitorch.max`).

    `max(a, b)` with two tensors is `maximum(a, b)`.
    """
    return extreme(a, dim, keepdim, True, other)


def tensor_min(a: Tensor, dim=None, keepdim: bool = False, *, other=None):
    """The smallest element; with `dim`, `(values, indices)` along it (`minitorch.min`)."""
    return extreme(a, dim, keepdim, False, other)


def arg_extreme(a: Tensor, dim, keepdim: bool, largest: bool) -> Tensor:
    name = "argmax" if largest else "argmin"
    if a.dtype is dtypes.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    better = greater_or_nan if largest else less_or_nan
    if dim is None:
        if a.numel() == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        _, index = arg_reduce(better, reshape(a, -1), 0)
        return reshape(index, (1,) * a.ndim if keepdim else ())
    if a.ndim == 0:
        normalize_dim(dim, 0)
        return scalar_tensor(0, dtypes.int64)
    dim = normalize_dim(dim, a.ndim)
    if a.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    _, indices = arg_reduce(better, a, dim)
    return drop_dims(indices, (dim,), keepdim)


def argmax(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (the first one on ties), flattened when `dim` is None."""
    return arg_extreme(a, dim, keepdim, True)


def argmin(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (the first one on ties), flattened when `dim` is None."""
    return arg_extreme(a, dim, keepdim, False)


def tensor_all(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True where every element along `dim` is non-zero (`minitorch.all`)."""
    dims = reduction_dims(dim, a.ndim)
    truth = converted(a, dtypes.bool_)
    return drop_dims(
        reduce_dims(operators.logical_and, truth, dims, True, dtypes.bool_), dims, keepdim
    )


def tensor_any(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True where some element along `dim` is non-zero (`minitorch.any`)."""
    dims = reduction_dims(dim, a.ndim)
    truth = converted(a, dtypes.bool_)
    return drop_dims(
        reduce_dims(operators.logical_or, truth, dims, False, dtypes.bool_), dims, keepdim
    )


def softmax(a: Tensor, dim: int) -> Tensor:
    """$e^{a_i} / \\sum_j e^{a_j}$ along `dim`, computed stably."""
    return Softmax.apply(a, dim=dim)


def log_softmax(a: Tensor, dim: int) -> Tensor:
    """$\\ln$ softmax along `dim`, computed stably."""
    return LogSoftmax.apply(a, dim=dim)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product `a @ b`: vectors, matrices and batches (batch dims broadcast)."""
    return MatMul.apply(a, b)


def mm(a: Tensor, b: Tensor) -> Tensor:
    """Product of two matrices."""
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError("self must be a matrix" if a.ndim != 2 else "mat2 must be a matrix")
    return MatMul.apply(a, b)


def dot(a: Tensor, b: Tensor) -> Tensor:
    """Inner product of two vectors."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return MatMul.apply(a, b)


# ---------------------------------------------------------------------------
# In-place operations: compute, check the dtype, write into the same storage.
# With autograd on, the written tensor's history is rebased onto the result
# (and a view's base gets a CopySlices node), as in PyTorch.
# ---------------------------------------------------------------------------


def inplace(a: Tensor, operation, *args, checked: bool = True) -> Tensor:
    """`a <- operation(a, *args)` in `a`'s storage; bumps `a`'s version counter.

    `checked`: PyTorch's in-place rules (the result must keep `a`'s shape and
    be castable to its dtype); copies (`copy_`, `fill_`, setitem) only broadcast.
    """
    recording = is_grad_enabled() and (
        a.requires_grad or builtins.any(isinstance(x, Tensor) and x.requires_grad for x in args)
    )
    if recording:
        check_inplace_allowed(a)
        # the operation may save its input for backward: give it the values before the write
        result = operation(snapshot(a), *args)
    else:
        result = operation(a, *args)
    if checked:
        check_inplace_result(a, result)
    write_into(a, result)
    if recording:
        rebase_history(a, result)
    return a


def check_inplace_allowed(a: Tensor) -> None:
    """PyTorch's errors for writing into a leaf that requires grad (or a view of one)."""
    if a.is_leaf and a._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    base = a._base
    if base is not None and base.is_leaf and base._requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )


def snapshot(a: Tensor) -> Tensor:
    """A copy of `a`'s values that stands for `a` in the graph (same `grad_fn`)."""
    copy = apply_map(operators.identity, a, a.dtype)
    copy.grad_fn = a.grad_fn
    return copy


def rebase_history(a: Tensor, result: Tensor) -> None:
    """After `a` was overwritten with `result`: `a`'s history is now `result`'s."""
    if a._base is None:
        a.grad_fn = result.grad_fn
        return
    base = a._base
    base.grad_fn = CopySlices.apply(base, result, region=a._layout).grad_fn
    a.grad_fn = AsStrided.apply(base, region=a._layout).grad_fn


def check_inplace_result(a: Tensor, result: Tensor) -> None:
    """An in-place result must have `a`'s shape and a dtype castable to `a`'s."""
    if not dtypes.can_cast(result.dtype, a.dtype):
        raise RuntimeError(
            f"result type {result.dtype.torch_scalar_name} can't be cast to the desired output "
            f"type {a.dtype.torch_scalar_name}"
        )
    if tuple(result.shape) != tuple(a.shape):
        raise RuntimeError(
            f"output with shape {list(a.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )


def copied_into(a: Tensor, source: Tensor) -> Tensor:
    """`source` broadcast to `a`'s shape and cast to its dtype (what `copy_` writes)."""
    return to(Expand.apply(source, sizes=tuple(a.shape)), a.dtype)


def add_(a: Tensor, b, alpha: Number = 1) -> Tensor:
    """$a \\leftarrow a + \\alpha b$ in place."""
    return inplace(a, add, b, alpha)


def sub_(a: Tensor, b, alpha: Number = 1) -> Tensor:
    """$a \\leftarrow a - \\alpha b$ in place."""
    return inplace(a, sub, b, alpha)


def mul_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a \\cdot b$ in place."""
    return inplace(a, mul, b)


def div_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a / b$ in place."""
    return inplace(a, div, b)


def pow_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a^b$ in place."""
    return inplace(a, tensor_pow, b)


def neg_(a: Tensor) -> Tensor:
    return inplace(a, neg)


def abs_(a: Tensor) -> Tensor:
    return inplace(a, tensor_abs)


def exp_(a: Tensor) -> Tensor:
    return inplace(a, exp)


def log_(a: Tensor) -> Tensor:
    return inplace(a, log)


def sqrt_(a: Tensor) -> Tensor:
    return inplace(a, sqrt)


def sigmoid_(a: Tensor) -> Tensor:
    return inplace(a, sigmoid)


def tanh_(a: Tensor) -> Tensor:
    return inplace(a, tanh)


def relu_(a: Tensor) -> Tensor:
    """$a \\leftarrow \\max(a, 0)$ in place."""
    return inplace(a, relu)


def clamp_(a: Tensor, min=None, max=None) -> Tensor:  # noqa: A002
    """Clamp `a` to `[min, max]` in place."""
    return inplace(a, clamp, min, max)


def fill_(a: Tensor, value: Number) -> Tensor:
    """Set every element of `a` to `value`."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        value = value.item()
    return inplace(a, copied_into, scalar_tensor(value, a.dtype), checked=False)


def zero_(a: Tensor) -> Tensor:
    """Set every element of `a` to 0."""
    return fill_(a, 0)


def copy_(a: Tensor, source: Tensor) -> Tensor:
    """Copy `source` (broadcast to `a`'s shape, any dtype) into `a`."""
    source = source if isinstance(source, Tensor) else tensor(source)
    return inplace(a, copied_into, source, checked=False)


def t_(a: Tensor) -> Tensor:
    """Transpose `a` itself: its layout changes, its storage does not."""
    a._layout = t(a)._layout
    return a


def uniform_(a: Tensor, low: float = 0.0, high: float = 1.0) -> Tensor:
    """Fill `a` with samples from $U(low, high)$ drawn by the seeded generator."""
    values = generator().uniform(low, high, size=a.shape)
    return copy_(a, from_numpy(np.asarray(values, dtype=a.dtype.numpy_dtype)))


def normal_(a: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fill `a` with samples from $N(mean, std^2)$ drawn by the seeded generator."""
    values = generator().normal(mean, std, size=a.shape)
    return copy_(a, from_numpy(np.asarray(values, dtype=a.dtype.numpy_dtype)))
