"""The tensor functions users call: `minitorch.add`, `minitorch.sum`, `minitorch.view`, ...

Each checks its arguments the way PyTorch does and runs the `Function` of
`tensor_functions.py` that computes it (and records it for autograd), or,
for operations without a gradient (comparisons, logical and bitwise
operations, `argmax`), calls the kernels directly. `Tensor` methods forward
here (`t.exp()` is `minitorch.exp(t)`). Names that would shadow Python
built-ins are defined with a `tensor_` prefix (`tensor_sum`, `tensor_max`,
...) and exported under PyTorch's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..backends.tensor_data import normalize_dim, prod, view_strides
from ..operators import greater_or_nan, less_or_nan
from ..tensors.base import TensorBase
from ..tensors.creation import parse_shape
from ..tensors.device import check_device
from ..tensors.device import device as Device
from ..tensors.kernels import (
    Number,
    alias,
    apply_map,
    apply_zip,
    arg_reduce,
    as_operands,
    converted,
    drop_dims,
    reduce_dims,
    scalar_tensor,
)
from ..tensors.shapes import (
    infer_shape,
    not_implemented,
    reduction_dims,
)
from .functions import (
    Abs,
    Add,
    Clamp,
    Copy,
    Div,
    Exp,
    Expand,
    Log,
    LogSoftmax,
    MatMul,
    MaxAll,
    MaxDim,
    Maximum,
    Mean,
    Minimum,
    Mul,
    Neg,
    Permute,
    Pow,
    Prod,
    Reciprocal,
    Relu,
    Remainder,
    Restride,
    Rpow,
    Rsub,
    Sigmoid,
    Softmax,
    Sqrt,
    Sub,
    Sum,
    Tanh,
    View,
    Where,
    check_integer_divisor,
)

if TYPE_CHECKING:
    from .._tensor import Tensor

# ---------------------------------------------------------------------------
# Elementwise arithmetic and functions
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
    b = b if alpha == 1 else mul(b, alpha)
    return Sub.apply(a, b) if isinstance(a, TensorBase) else Rsub.apply(b, number=a)


def mul(a, b) -> Tensor:
    """$a \\cdot b$ elementwise, broadcast."""
    return Mul.apply(a, b)


def div(a, b) -> Tensor:
    """$a / b$ elementwise (true division: integers give floats).

    A number divided by a tensor is `reciprocal(b) * a`, computed as PyTorch does.
    """
    if isinstance(b, TensorBase) and not isinstance(a, TensorBase):
        return mul(reciprocal(b), a)
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
    return Remainder.apply(a, b) if isinstance(b, TensorBase) else Remainder.apply(a, b=b)


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


def reciprocal(a: Tensor) -> Tensor:
    """$1 / a$ elementwise (integers give the default float dtype)."""
    return Reciprocal.apply(a)


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


# ---------------------------------------------------------------------------
# Comparisons, logical and bitwise operations (no gradient)
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Reductions, softmax and matrix products
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


def extreme(a: Tensor, dim, keepdim: bool, largest: bool, other):
    if isinstance(dim, TensorBase):
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
    """Matrix product `a @ b`: vectors, matrices and batches (batch dims broadcast).

    Two cases are recorded as PyTorch records them: a vector times a matrix is a
    one-row matrix product (Unsqueeze, Mm, Squeeze), and a batch times a matrix
    or vector folds the batch into rows (View, Mm or Mv, UnsafeView).
    """
    if a.ndim == 1 and b.ndim == 2:
        row = MatMul.apply(unsqueeze(a, 0), b)
        shape, strides = tuple(row.shape[1:]), row.stride()[1:]
        return Restride.apply(row, shape=shape, strides=strides, name="SqueezeBackward4")
    if a.ndim >= 3 and b.ndim in (1, 2):
        rows = MatMul.apply(reshape(a, prod(a.shape[:-1]), a.shape[-1]), b)
        return View.apply(rows, shape=tuple(a.shape[:-1] + b.shape[1:]), kind="UnsafeView")
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
# Views, copies and conversions
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
        if isinstance(arg, TensorBase):
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
