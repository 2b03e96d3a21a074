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
import math
from collections.abc import Sequence

import numpy as np

from . import dtypes, operators, tensor_ops
from .autodiff import Context
from .dtypes import DType
from .tensor import CPU, Tensor, check_device
from .tensor import device as Device
from .tensor_creation import from_numpy, generator, parse_shape, tensor
from .tensor_data import TensorData, normalize_dim, prod, shape_broadcast, view_strides

Number = bool | int | float

# ---------------------------------------------------------------------------
# Scalar functions the kernels apply element by element. They complement
# operators.py (module 0) with the operations tensors need beyond it, and are
# written, like it, with plain arithmetic so that Numba can compile them.
# ---------------------------------------------------------------------------


def sub_scalar(x: float, y: float) -> float:
    """$f(x, y) = x - y$"""
    return x - y


def div_scalar(x: float, y: float) -> float:
    """$f(x, y) = x / y$ (IEEE: $\\pm\\infty$ or NaN when $y = 0$)"""
    return x / y


def floor_divide_scalar(x: float, y: float) -> float:
    """$f(x, y) = \\lfloor x / y \\rfloor$"""
    return x // y


def remainder_scalar(x: float, y: float) -> float:
    """$f(x, y) = x - y \\lfloor x / y \\rfloor$ (the sign of $y$, as Python's `%`)"""
    return x % y


def pow_scalar(x: float, y: float) -> float:
    """$f(x, y) = x^y$"""
    return x**y


def sqrt_scalar(x: float) -> float:
    """$f(x) = \\sqrt{x}$; NaN for $x < 0$."""
    return math.sqrt(x) if x >= 0 else math.nan


def abs_scalar(x: float) -> float:
    """$f(x) = |x|$"""
    return -x if x < 0 else x


def maximum_scalar(x: float, y: float) -> float:
    """$\\max(x, y)$, NaN if either is NaN (as `torch.maximum`)."""
    return x if (x > y or x != x) else y


def minimum_scalar(x: float, y: float) -> float:
    """$\\min(x, y)$, NaN if either is NaN (as `torch.minimum`)."""
    return x if (x < y or x != x) else y


def relu_scalar(x: float) -> float:
    """$\\max(x, 0)$ keeping NaN, as `torch.relu`."""
    return x if (x > 0 or x != x) else 0 * x


def ne_scalar(x: float, y: float) -> bool:
    """$x \\ne y$"""
    return x != y


def le_scalar(x: float, y: float) -> bool:
    """$x \\le y$"""
    return x <= y


def gt_scalar(x: float, y: float) -> bool:
    """$x > y$"""
    return x > y


def ge_scalar(x: float, y: float) -> bool:
    """$x \\ge y$"""
    return x >= y


def bitwise_and_scalar(x: int, y: int) -> int:
    """`x & y` (logical and on bools)"""
    return x & y


def bitwise_or_scalar(x: int, y: int) -> int:
    """`x | y` (logical or on bools)"""
    return x | y


def bitwise_xor_scalar(x: int, y: int) -> int:
    """`x ^ y` (logical xor on bools)"""
    return x ^ y


def bitwise_not_scalar(x: int) -> int:
    """`~x` (logical not on bools)"""
    return ~x


def logical_and_scalar(x: float, y: float) -> bool:
    """True when both are non-zero."""
    return x != 0 and y != 0


def logical_or_scalar(x: float, y: float) -> bool:
    """True when either is non-zero."""
    return x != 0 or y != 0


def is_zero_scalar(x: float) -> bool:
    """True when $x = 0$ (`logical_not`)."""
    return x == 0


def greater_or_nan(x: float, best: float) -> bool:
    """Whether `x` beats `best` for a maximum: larger, or the first NaN (as PyTorch)."""
    return x > best or (x != x and best == best)


def less_or_nan(x: float, best: float) -> bool:
    """Whether `x` beats `best` for a minimum: smaller, or the first NaN (as PyTorch)."""
    return x < best or (x != x and best == best)


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
    """A tensor over `t`'s storage with another layout, sharing its version counter."""
    return Tensor(layout, t.dtype, t.device, t._version_counter)


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
    """A differentiable operation: `forward` here, `backward` added by the autograd layer.

    `Fn.apply(*inputs)` runs `Fn.forward(ctx, *inputs)` with a fresh `Context`.
    """

    @staticmethod
    def forward(ctx: Context, *inputs):
        raise NotImplementedError

    @classmethod
    def apply(cls, *inputs, **params):
        ctx = Context()
        ctx.no_grad = True  # no graph is recorded yet: nothing needs saving
        return cls.forward(ctx, *inputs, **params)


# ---------------------------------------------------------------------------
# Elementwise functions
# ---------------------------------------------------------------------------


class Neg(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        """$-a$"""
        # BEGIN SOLUTION 2.4
        return apply_map(operators.neg, a, a.dtype)
        # END SOLUTION 2.4


class Abs(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        """$|a|$"""
        ctx.save_for_backward(a)
        return apply_map(abs_scalar, a, a.dtype)


class Exp(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        """$e^a$ (integers give the default float dtype)"""
        # BEGIN SOLUTION 2.4
        a = float_version(a)
        out = apply_map(operators.exp, a, a.dtype)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION 2.4


class Log(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        """$\\ln a$"""
        a = float_version(a)
        ctx.save_for_backward(a)
        return apply_map(operators.log, a, a.dtype)


class Sqrt(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        """$\\sqrt{a}$"""
        a = float_version(a)
        out = apply_map(sqrt_scalar, a, a.dtype)
        ctx.save_for_backward(out)
        return out


class Sigmoid(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        """$\\sigma(a) = 1 / (1 + e^{-a})$"""
        a = float_version(a)
        out = apply_map(operators.sigmoid, a, a.dtype)
        ctx.save_for_backward(out)
        return out


class Tanh(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        """$\\tanh a$"""
        a = float_version(a)
        out = apply_map(operators.tanh, a, a.dtype)
        ctx.save_for_backward(out)
        return out


class Relu(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        """$\\max(a, 0)$"""
        ctx.save_for_backward(a)
        return apply_map(relu_scalar, a, a.dtype)


class Add(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        """$a + b$, broadcast"""
        # BEGIN SOLUTION 2.4
        a, b, dtype = as_operands(a, b)
        return apply_zip(operators.add, a, b, dtype)
        # END SOLUTION 2.4


class Sub(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        """$a - b$, broadcast"""
        a, b, dtype = as_operands(a, b)
        return apply_zip(sub_scalar, a, b, dtype)


class Mul(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        """$a \\cdot b$, broadcast"""
        # BEGIN SOLUTION 2.4
        ctx.save_for_backward(a, b)
        a, b, dtype = as_operands(a, b)
        return apply_zip(operators.mul, a, b, dtype)
        # END SOLUTION 2.4


class Div(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        """$a / b$, broadcast; integers divide as floats"""
        ctx.save_for_backward(a, b)
        a, b, dtype = as_operands(a, b)
        if not dtype.is_floating_point:
            dtype = dtypes.get_default_dtype()
            a, b = converted(a, dtype), converted(b, dtype)
        return apply_zip(div_scalar, a, b, dtype)


class Pow(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        """$a^b$, broadcast"""
        ctx.save_for_backward(a, b)
        a, b, dtype = as_operands(a, b)
        return apply_zip(pow_scalar, a, b, dtype)


class Remainder(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        """$a - b \\lfloor a / b \\rfloor$, broadcast"""
        a, b, dtype = as_operands(a, b)
        check_integer_divisor(b)
        return apply_zip(remainder_scalar, a, b, dtype)


class Maximum(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        """$\\max(a, b)$ elementwise, NaN-propagating"""
        a, b, dtype = as_operands(a, b)
        ctx.save_for_backward(a, b)
        return apply_zip(maximum_scalar, a, b, dtype)


class Minimum(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        """$\\min(a, b)$ elementwise, NaN-propagating"""
        a, b, dtype = as_operands(a, b)
        ctx.save_for_backward(a, b)
        return apply_zip(minimum_scalar, a, b, dtype)


class Clamp(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, low: Number | None, high: Number | None) -> Tensor:
        """$\\min(\\max(a, low), high)$"""
        ctx.save_for_backward(a)
        dtype = dtypes.result_type(a, *(v for v in (low, high) if v is not None))
        out = converted(a, dtype)
        if low is not None:
            out = apply_zip(maximum_scalar, out, scalar_tensor(low, dtype), dtype)
        if high is not None:
            out = apply_zip(minimum_scalar, out, scalar_tensor(high, dtype), dtype)
        return out if out is not a else a.clone()


class Where(Function):
    @staticmethod
    def forward(ctx: Context, condition: Tensor, a: Tensor, b: Tensor) -> Tensor:
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
    shape = tuple(size for d, size in enumerate(t.shape) if d not in dims)
    return view_of(t, TensorData(t._layout.storage, shape, None, t._layout.offset))


def accumulation_dtype(a: Tensor, dtype: DType | None) -> DType:
    """Sums and products of bools and integers are int64, as in PyTorch."""
    if dtype is not None:
        return dtypes.to_dtype(dtype)
    return a.dtype if a.dtype.is_floating_point else dtypes.int64


class Sum(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, dim=None, keepdim=False, dtype=None) -> Tensor:
        """$\\sum$ over `dim` (all dims when None)"""
        # BEGIN SOLUTION 2.4
        dims = reduction_dims(dim, a.ndim)
        out_dtype = accumulation_dtype(a, dtype)
        total = reduce_dims(operators.add, a, dims, 0, out_dtype)
        return drop_dims(total, dims, keepdim or dim is None and a.ndim == 0)
        # END SOLUTION 2.4


class Mean(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, dim=None, keepdim=False, dtype=None) -> Tensor:
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
        mean = apply_zip(div_scalar, total, scalar_tensor(count, out_dtype), out_dtype)
        return drop_dims(mean, dims, keepdim)


class Prod(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, dim=None, keepdim=False, dtype=None) -> Tensor:
        """$\\prod$ over `dim` (all dims when None)"""
        ctx.save_for_backward(a)
        dims = reduction_dims(dim, a.ndim)
        out_dtype = accumulation_dtype(a, dtype)
        return drop_dims(reduce_dims(operators.mul, a, dims, 1, out_dtype), dims, keepdim)


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

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int, keepdim: bool, largest: bool):
        if a.ndim == 0:
            normalize_dim(dim, 0)
            return a.clone(), scalar_tensor(0, dtypes.int64)
        dim = normalize_dim(dim, a.ndim)
        if a.shape[dim] == 0:
            name = "max" if largest else "min"
            raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
        values, indices = arg_reduce(greater_or_nan if largest else less_or_nan, a, dim)
        ctx.save_for_backward(indices)
        return drop_dims(values, (dim,), keepdim), drop_dims(indices, (dim,), keepdim)


class MaxAll(Function):
    """`max()` and `min()` of all elements: a 0-dim tensor."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, largest: bool) -> Tensor:
        if a.numel() == 0:
            name = "max" if largest else "min"
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        flat = reshape(a, -1)
        values, _ = arg_reduce(greater_or_nan if largest else less_or_nan, flat, 0)
        return view_of(values, TensorData(values._layout.storage, ()))


class Softmax(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int) -> Tensor:
        """$e^{a_i - m} / \\sum_j e^{a_j - m}$ along `dim`, $m$ the maximum (stable)"""
        if not a.dtype.is_floating_point:
            raise not_implemented("softmax_lastdim_kernel_impl", a.dtype)
        shifted = shifted_by_max(a, dim)
        exps = apply_map(operators.exp, shifted, a.dtype)
        out = apply_zip(div_scalar, exps, sum_keepdim(exps, dim), a.dtype)
        ctx.save_for_backward(out)
        return out


class LogSoftmax(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int) -> Tensor:
        """$a_i - m - \\ln \\sum_j e^{a_j - m}$ along `dim` (stable)"""
        if not a.dtype.is_floating_point:
            raise not_implemented("log_softmax_lastdim_kernel_impl", a.dtype)
        shifted = shifted_by_max(a, dim)
        exps = apply_map(operators.exp, shifted, a.dtype)
        log_total = apply_map(operators.log, sum_keepdim(exps, dim), a.dtype)
        out = apply_zip(sub_scalar, shifted, log_total, a.dtype)
        ctx.save_for_backward(out)
        return out


def shifted_by_max(a: Tensor, dim: int) -> Tensor:
    """$a - \\max(a)$ along `dim`: the largest becomes 0, so $e^x$ cannot overflow."""
    if a.ndim == 0:
        return apply_zip(sub_scalar, a, a, a.dtype)
    dim = normalize_dim(dim, a.ndim)
    if a.shape[dim] == 0:
        return a
    largest, _ = arg_reduce(greater_or_nan, a, dim)
    return apply_zip(sub_scalar, a, largest, a.dtype)


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
    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        """$c_{ik} = \\sum_j a_{ij} b_{jk}$; 1-D operands and batch dimensions as `torch.matmul`"""
        if a.dtype is not b.dtype:
            raise RuntimeError(
                "expected m1 and m2 to have the same dtype, but got: "
                f"{_CPP_TYPE_NAMES[a.dtype.name]} != {_CPP_TYPE_NAMES[b.dtype.name]}"
            )
        if a.dtype is dtypes.bool_:
            raise not_implemented("addmm_impl_cpu_", a.dtype)
        check_matmul_shapes(a, b)
        ctx.save_for_backward(a, b)
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
        return view_of(out, TensorData(out._layout.storage, shape))


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
    @staticmethod
    def forward(ctx: Context, a: Tensor, shape: tuple) -> Tensor:
        """The same elements in `shape`; an error when the strides do not allow it"""
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


class Permute(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple) -> Tensor:
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
        # BEGIN SOLUTION 2.4
        return view_of(a, a._layout.permute(*order))
        # END SOLUTION 2.4


class Expand(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, sizes: tuple) -> Tensor:
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
        return view_of(a, a._layout.expand(tuple(target)))


class Restride(Function):
    """A view with a given shape and strides over the same storage (squeeze, unsqueeze)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, shape: tuple, strides: tuple) -> Tensor:
        return view_of(a, TensorData(a._layout.storage, shape, strides, a.storage_offset()))


class Index(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, key) -> Tensor:
        """`a[key]` for ints, slices, `...` and None: a view"""
        return view_of(a, index_layout(a._layout, key))


class Copy(Function):
    @staticmethod
    def forward(ctx: Context, a: Tensor, dtype: DType) -> Tensor:
        """A contiguous copy of `a` with `dtype`"""
        return apply_map(operators.identity, a, dtype)


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
        return Index.apply(a, key)
    positions = advanced_positions(a, key)
    index = key if isinstance(key, Tensor) else tensor(key)
    if index.dtype is dtypes.bool_:
        shape = (len(positions),) + tuple(a.shape[index.ndim :])
    else:
        shape = tuple(index.shape) + tuple(a.shape[1:])
    out = new_tensor(shape, a.dtype, a.device)
    rows = view(out, (len(positions),) + tuple(a.shape[len(positions[0]) if positions else 1 :]))
    for row, position in enumerate(positions):
        copy_(rows[row], Index.apply(a, position))
    return out


def setitem(a: Tensor, key, value) -> None:
    """`a[key] = value`: write `value` (a number or a broadcastable tensor) into `a`'s view."""
    if is_advanced_key(key):
        positions = advanced_positions(a, key)
        values = value if isinstance(value, Tensor) and value.numel() > 1 else None
        for row, position in enumerate(positions):
            setitem(a, position, value if values is None else values[row])
        return
    target = Index.apply(a, key)
    source = value if isinstance(value, Tensor) else scalar_tensor(value, a.dtype)
    source = Expand.apply(source, tuple(target.shape))  # PyTorch's error when shapes differ
    write_into(target, source)


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
    return View.apply(a, parse_shape(shape))


def reshape(a: Tensor, *shape) -> Tensor:
    """Like `view`, copying only when `a`'s strides do not allow a view."""
    shape = infer_shape(parse_shape(shape), a.numel())
    if view_strides(a.shape, a.stride(), shape) is None:
        a = clone(a)
    return View.apply(a, shape)


def permute(a: Tensor, *dims) -> Tensor:
    """Reorder `a`'s dimensions (a view)."""
    return Permute.apply(a, parse_shape(dims))


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dimensions `dim0` and `dim1` (a view)."""
    if a.ndim == 0:
        normalize_dim(dim0, 0), normalize_dim(dim1, 0)
        return Permute.apply(a, ())
    order = list(range(a.ndim))
    d0, d1 = normalize_dim(dim0, a.ndim), normalize_dim(dim1, a.ndim)
    order[d0], order[d1] = order[d1], order[d0]
    return Permute.apply(a, tuple(order))


def t(a: Tensor) -> Tensor:
    """The transpose of a matrix; vectors and 0-dim tensors unchanged (a view)."""
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return transpose(a, 0, -1) if a.ndim == 2 else Permute.apply(a, tuple(range(a.ndim)))


def expand(a: Tensor, *sizes) -> Tensor:
    """Broadcast size-1 dimensions to `sizes` (a view with stride 0)."""
    return Expand.apply(a, parse_shape(sizes))


def broadcast_to(a: Tensor, shape) -> Tensor:
    return Expand.apply(a, parse_shape((shape,)))


def squeeze(a: Tensor, dim=None) -> Tensor:
    """Drop size-1 dimensions (all of them, or those in `dim`)."""
    dims = reduction_dims(dim, a.ndim)
    kept = [d for d in range(a.ndim) if d not in dims or a.shape[d] != 1]
    return Restride.apply(a, tuple(a.shape[d] for d in kept), tuple(a.stride()[d] for d in kept))


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dimension at `dim`."""
    dim = normalize_dim(dim, a.ndim + 1)
    shape, strides = list(a.shape), list(a.stride())
    stride = shape[dim] * strides[dim] if dim < a.ndim else 1
    shape.insert(dim, 1)
    strides.insert(dim, stride)
    return Restride.apply(a, tuple(shape), tuple(strides))


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
    return Copy.apply(a, a.dtype)


def detach(a: Tensor) -> Tensor:
    """`a`'s storage and layout, outside the autograd graph."""
    return view_of(a, a._layout)


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
    return Copy.apply(a, new_dtype)


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
    return apply_zip(floor_divide_scalar, x, y, dtype)


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
    return Pow.apply(a, b)


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
    return Clamp.apply(a, min, max)


clip = clamp


def where(condition: Tensor, a, b) -> Tensor:
    """`a` where `condition` is True, else `b` (broadcast)."""
    return Where.apply(condition, a, b)


def comparison(fn, a, b) -> Tensor:
    """A bool tensor of `fn(a_i, b_i)`, compared in the promoted dtype."""
    x, y, _ = as_operands(a, b)
    return apply_zip(fn, x, y, dtypes.bool_)


def eq(a, b) -> Tensor:
    """$a = b$ elementwise (bool)."""
    return comparison(operators.eq, a, b)


def ne(a, b) -> Tensor:
    """$a \\ne b$ elementwise (bool)."""
    return comparison(ne_scalar, a, b)


def lt(a, b) -> Tensor:
    """$a < b$ elementwise (bool)."""
    return comparison(operators.lt, a, b)


def le(a, b) -> Tensor:
    """$a \\le b$ elementwise (bool)."""
    return comparison(le_scalar, a, b)


def gt(a, b) -> Tensor:
    """$a > b$ elementwise (bool)."""
    return comparison(gt_scalar, a, b)


def ge(a, b) -> Tensor:
    """$a \\ge b$ elementwise (bool)."""
    return comparison(ge_scalar, a, b)


def bitwise(fn, kernel: str, a, b) -> Tensor:
    x, y, dtype = as_operands(a, b)
    if dtype.is_floating_point:
        raise not_implemented(kernel, dtype)
    return apply_zip(fn, x, y, dtype)


def bitwise_and(a, b) -> Tensor:
    """`a & b`: logical and of bools, bitwise and of integers."""
    return bitwise(bitwise_and_scalar, "bitwise_and_cpu", a, b)


def bitwise_or(a, b) -> Tensor:
    """`a | b`: logical or of bools, bitwise or of integers."""
    return bitwise(bitwise_or_scalar, "bitwise_or_cpu", a, b)


def bitwise_xor(a, b) -> Tensor:
    """`a ^ b`: logical xor of bools, bitwise xor of integers."""
    return bitwise(bitwise_xor_scalar, "bitwise_xor_cpu", a, b)


def bitwise_not(a: Tensor) -> Tensor:
    """`~a`: logical not of bools, bitwise not of integers."""
    if a.dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return apply_map(bitwise_not_scalar, a, a.dtype)


def logical_not(a: Tensor) -> Tensor:
    """True where `a` is zero."""
    return apply_map(is_zero_scalar, a, dtypes.bool_)


def logical_and(a: Tensor, b: Tensor) -> Tensor:
    """True where both are non-zero."""
    x, y, _ = as_operands(a, b)
    return apply_zip(logical_and_scalar, x, y, dtypes.bool_)


def logical_or(a: Tensor, b: Tensor) -> Tensor:
    """True where either is non-zero."""
    x, y, _ = as_operands(a, b)
    return apply_zip(logical_or_scalar, x, y, dtypes.bool_)


# ---------------------------------------------------------------------------
# Module-level API: reductions
# ---------------------------------------------------------------------------


def tensor_sum(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Sum over `dim` (int or tuple; all when None) (`minitorch.sum`).

    >>> import minitorch
    >>> minitorch.tensor([[1, 2], [3, 4]]).sum(0)
    tensor([4, 6])
    """
    return Sum.apply(a, dim, keepdim, dtype)


def mean(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Mean over `dim` (floating tensors only)."""
    return Mean.apply(a, dim, keepdim, dtype)


def tensor_prod(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Product over `dim` (`minitorch.prod`)."""
    return Prod.apply(a, dim, keepdim, dtype)


def extreme(a: Tensor, dim, keepdim: bool, largest: bool, other):
    if isinstance(dim, Tensor):
        dim, other = None, dim
    if other is not None:
        return maximum(a, other) if largest else minimum(a, other)
    if dim is None:
        return MaxAll.apply(a, largest)
    values, indices = MaxDim.apply(a, dim, keepdim, largest)
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
        reduce_dims(logical_and_scalar, truth, dims, True, dtypes.bool_), dims, keepdim
    )


def tensor_any(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True where some element along `dim` is non-zero (`minitorch.any`)."""
    dims = reduction_dims(dim, a.ndim)
    truth = converted(a, dtypes.bool_)
    return drop_dims(
        reduce_dims(logical_or_scalar, truth, dims, False, dtypes.bool_), dims, keepdim
    )


def softmax(a: Tensor, dim: int) -> Tensor:
    """$e^{a_i} / \\sum_j e^{a_j}$ along `dim`, computed stably."""
    return Softmax.apply(a, dim)


def log_softmax(a: Tensor, dim: int) -> Tensor:
    """$\\ln$ softmax along `dim`, computed stably."""
    return LogSoftmax.apply(a, dim)


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
# In-place operations: compute, check the dtype, write into the same storage
# ---------------------------------------------------------------------------


def assign_result(a: Tensor, result: Tensor) -> Tensor:
    """Write an operation's `result` into `a` (PyTorch's in-place rules) and return `a`."""
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
    write_into(a, result)
    return a


def add_(a: Tensor, b, alpha: Number = 1) -> Tensor:
    """$a \\leftarrow a + \\alpha b$ in place."""
    return assign_result(a, add(a, b, alpha))


def sub_(a: Tensor, b, alpha: Number = 1) -> Tensor:
    """$a \\leftarrow a - \\alpha b$ in place."""
    return assign_result(a, sub(a, b, alpha))


def mul_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a \\cdot b$ in place."""
    return assign_result(a, mul(a, b))


def div_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a / b$ in place."""
    return assign_result(a, div(a, b))


def pow_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a^b$ in place."""
    return assign_result(a, tensor_pow(a, b))


def neg_(a: Tensor) -> Tensor:
    return assign_result(a, neg(a))


def abs_(a: Tensor) -> Tensor:
    return assign_result(a, tensor_abs(a))


def exp_(a: Tensor) -> Tensor:
    return assign_result(a, exp(a))


def log_(a: Tensor) -> Tensor:
    return assign_result(a, log(a))


def sqrt_(a: Tensor) -> Tensor:
    return assign_result(a, sqrt(a))


def sigmoid_(a: Tensor) -> Tensor:
    return assign_result(a, sigmoid(a))


def tanh_(a: Tensor) -> Tensor:
    return assign_result(a, tanh(a))


def relu_(a: Tensor) -> Tensor:
    """$a \\leftarrow \\max(a, 0)$ in place."""
    return assign_result(a, relu(a))


def clamp_(a: Tensor, min=None, max=None) -> Tensor:  # noqa: A002
    """Clamp `a` to `[min, max]` in place."""
    return assign_result(a, clamp(a, min, max))


def fill_(a: Tensor, value: Number) -> Tensor:
    """Set every element of `a` to `value`."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        value = value.item()
    write_into(a, scalar_tensor(value, a.dtype))
    return a


def zero_(a: Tensor) -> Tensor:
    """Set every element of `a` to 0."""
    return fill_(a, 0)


def copy_(a: Tensor, source: Tensor) -> Tensor:
    """Copy `source` (broadcast to `a`'s shape, any dtype) into `a`."""
    source = source if isinstance(source, Tensor) else tensor(source)
    write_into(a, Expand.apply(source, tuple(a.shape)))
    return a


def t_(a: Tensor) -> Tensor:
    """Transpose `a` itself: its layout changes, its storage does not."""
    a._layout = t(a)._layout
    return a


def uniform_(a: Tensor, low: float = 0.0, high: float = 1.0) -> Tensor:
    """Fill `a` with samples from $U(low, high)$ drawn by the seeded generator."""
    values = generator().uniform(low, high, size=a.shape)
    write_into(a, from_numpy(np.asarray(values, dtype=a.dtype.numpy_dtype)))
    return a


def normal_(a: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fill `a` with samples from $N(mean, std^2)$ drawn by the seeded generator."""
    values = generator().normal(mean, std, size=a.shape)
    write_into(a, from_numpy(np.asarray(values, dtype=a.dtype.numpy_dtype)))
    return a
