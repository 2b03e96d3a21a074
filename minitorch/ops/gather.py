"""Gather and scatter: reading and writing along a dim at positions given by an index tensor.

They are index arithmetic. For `out = a.gather(dim, index)`, element $i$ of
`out` (an index $(i_0, \\ldots, i_{n-1})$ of `index`'s shape) is read from `a`
at the same index with $i_{dim}$ replaced by $index_i$, so from storage position

$$p_i = offset + \\sum_{k \\ne dim} i_k \\, stride_k + index_i \\, stride_{dim}.$$

`positions.py` computes $p$ as an int64 tensor with the broadcasting kernels,
and the backend's `take` reads there. `scatter` writes at the same positions
(`put`); `scatter_add` adds, so an index that repeats adds up; each is the
other's gradient. `index_select`, `index_add_`, `index_fill_` and `take` are
the same with a 1-D index along one dim, or over the flattened tensor.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import GraphContext
from ..backends.tensor_data import TensorData, normalize_dim
from ..tensors.base import TensorBase
from ..tensors.kernels import (
    Number,
    apply_map,
    converted,
    new_tensor,
    scalar_tensor,
    view_of,
    write_into,
)
from ..tensors.shapes import index_layout
from .functions import Op
from .indexing import AdvancedIndex, IndexAdd, IndexFill, IndexPlan, Unindex
from .inplace import inplace
from .positions import (
    checked_index,
    contiguous_int64,
    grid_positions,
    plus,
    put,
    put_reduce,
    scaled,
    take,
)
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor

# ---------------------------------------------------------------------------
# Positions along one dim
# ---------------------------------------------------------------------------


def along_dim_positions(layout: TensorData, dim: int, index: Tensor, on_device) -> Tensor:
    """$p_i = offset + \\sum_{k \\ne dim} i_k stride_k + index_i stride_{dim}$ over `index`'s shape.

    `index` is already checked and wrapped (non-negative, in bounds).
    """
    strides = list(layout.strides)
    strides[dim] = 0
    grid = grid_positions(tuple(index.shape), tuple(strides), layout.offset, on_device)
    return contiguous_int64(plus(grid, scaled(index, layout.strides[dim])), tuple(index.shape))


def index_dtype_check(index: Tensor, name: str) -> None:
    if not isinstance(index, TensorBase) or index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")


def gather_checks(a: Tensor, dim: int, index: Tensor) -> tuple[int, Tensor]:
    """`dim` normalized and `index` wrapped, after PyTorch's checks for `gather`."""
    index_dtype_check(index, "gather")
    if max(index.ndim, 1) != max(a.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    dim = normalize_dim(dim, max(a.ndim, 1))
    a_shape, index_shape = tuple(a.shape) or (1,), tuple(index.shape) or (1,)
    for k in range(len(a_shape)):
        if k != dim and index_shape[k] > a_shape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(index.shape)} to be "
                f"no larger than self {list(a.shape)} apart from dimension {dim}"
            )
    return dim, as_vector(checked_runtime(index, a_shape[dim], dim))  # 0-dim: one element


def checked_runtime(index: Tensor, size: int, dim: int) -> Tensor:
    """`checked_index` with gather's and scatter's error type (RuntimeError)."""
    return checked_index(index, size, dim, RuntimeError, negative=False)


def region(t: Tensor, shape: tuple) -> Tensor:
    """The view `t[:shape[0], :shape[1], ...]` (its leading block of `shape`)."""
    key = tuple(slice(0, size) for size in shape)
    return view_of(t, index_layout(t._layout, key))


def as_vector(t: Tensor) -> Tensor:
    """A 0-dim tensor as a 1-D one of one element (gather and scatter treat them alike)."""
    return t.reshape(1) if isinstance(t, TensorBase) and t.ndim == 0 else t


class Gather(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim: int, index: Tensor) -> Tensor:
        """$out_i = a[i_0, \\ldots, index_i, \\ldots]$ (`index_i` in place of $i_{dim}$)"""
        ctx.input_shape, ctx.dim, ctx.index = tuple(a.shape), dim, index
        return take(a, along_dim_positions(a._layout, dim, index, a.device))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ added into zeros at the gathered positions (`scatter_add`)"""
        grad_input = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        if is_grad_enabled():  # backward(create_graph=True): the same, differentiable
            return Scatter.apply(grad_input, grad, dim=ctx.dim, index=ctx.index, accumulate=True)
        put(
            grad_input,
            along_dim_positions(grad_input._layout, ctx.dim, ctx.index, grad.device),
            grad,
            True,
        )
        return grad_input


@public()
def gather(a: Tensor, dim: int, index: Tensor) -> Tensor:
    """$out[i][j] = a[index[i][j]][j]$ for `dim=0` ($a[i][index[i][j]]$ for `dim=1`, ...).

    >>> import minitorch
    >>> minitorch.tensor([[1, 2], [3, 4]]).gather(1, minitorch.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
    """
    dim, checked = gather_checks(a, dim, index)
    if a.ndim == 0:
        return gather(as_vector(a), 0, as_vector(index)).reshape(())
    out = Gather.apply(a, dim=dim, index=checked)
    return out.reshape(()) if index.ndim == 0 else out


# ---------------------------------------------------------------------------
# Scatter: writes at the same positions; scatter_add adds (each is the other's gradient)
# ---------------------------------------------------------------------------


def scatter_checks(a: Tensor, dim: int, index: Tensor, src) -> tuple[int, Tensor]:
    """`dim` normalized and `index` wrapped, after PyTorch's checks for `scatter`."""
    index_dtype_check(index, "scatter")
    if isinstance(src, TensorBase) and src.dtype is not a.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if max(index.ndim, 1) != max(a.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    dim = normalize_dim(dim, max(a.ndim, 1))
    a_shape, index_shape = tuple(a.shape) or (1,), tuple(index.shape) or (1,)
    too_big = any(index_shape[k] > a_shape[k] for k in range(len(a_shape)) if k != dim)
    message = f"Expected index {list(index.shape)} to be no larger than self {list(a.shape)} "
    message += f"apart from dimension {dim}"
    if isinstance(src, TensorBase):
        src_shape = tuple(src.shape) or (1,)
        if len(src_shape) != len(index_shape):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        if too_big or any(n > m for n, m in zip(index_shape, src_shape, strict=True)):
            raise RuntimeError(f"{message} and to be no larger size than src {list(src.shape)}")
    elif too_big:
        raise RuntimeError(message)
    # a 0-dim index (the one-hot `zeros(10).scatter_(0, tensor(y), value=1)`) is one element
    return dim, as_vector(checked_runtime(index, a_shape[dim], dim))


class Scatter(Op):
    """`a` with `src` written (added, if `accumulate`) along `dim` at `index`."""

    @staticmethod
    def forward(
        ctx: GraphContext, a: Tensor, src: Tensor, dim: int, index: Tensor, accumulate: bool
    ) -> Tensor:
        """A copy of $a$ with $a[\\ldots, index_i, \\ldots] = src_i$ (or `+=`)"""
        out = apply_map(operators.identity, a, a.dtype)
        positions = along_dim_positions(out._layout, dim, index, a.device)
        values = region(src, tuple(index.shape)) if src.ndim else src
        put(out, positions, converted(values, a.dtype), accumulate)
        ctx.src_shape, ctx.accumulate, ctx.dim, ctx.index = tuple(src.shape), accumulate, dim, index
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor | None]:
        """$g$ to `a` (zeros where written over); $g$ at the written positions to `src`"""
        if is_grad_enabled():  # backward(create_graph=True): the same, differentiable
            return scatter_gradients(ctx, grad)
        grad_a = grad
        if not ctx.accumulate:
            grad_a = grad.clone()
            written = along_dim_positions(grad_a._layout, ctx.dim, ctx.index, grad.device)
            put(grad_a, written, scalar_tensor(0, grad.dtype, grad.device), False)
        if not ctx.src_shape:
            return grad_a, None
        grad_src = new_tensor(ctx.src_shape, grad.dtype, grad.device)
        # positions in `grad`'s own layout: it may be a view (an expanded one, after a sum)
        picked = take(grad, along_dim_positions(grad._layout, ctx.dim, ctx.index, grad.device))
        write_into(region(grad_src, tuple(ctx.index.shape)), picked)
        return grad_a, grad_src


def scatter_gradients(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor | None]:
    """`Scatter`'s gradients from differentiable operations (for `create_graph=True`):
    $g$ with zeros scattered over it to `a`, $g$ gathered at `index` to `src`."""
    grad_a = grad
    if not ctx.accumulate:
        zero = scalar_tensor(0, grad.dtype, grad.device)
        grad_a = Scatter.apply(grad, zero, dim=ctx.dim, index=ctx.index, accumulate=False)
    if not ctx.src_shape:
        return grad_a, None
    return grad_a, padded(Gather.apply(grad, dim=ctx.dim, index=ctx.index), ctx.src_shape)


def padded(t: Tensor, shape: tuple) -> Tensor:
    """`t` as the leading block of zeros of `shape` (the gradient of `region`), differentiably."""
    if tuple(t.shape) == shape:
        return t
    return Unindex.apply(t, shape=shape, key=tuple(slice(0, size) for size in t.shape))


class ScatterWithReduce(Op):
    """`scatter(..., reduce="add" | "multiply")`: as in PyTorch, it has no derivative."""

    @classmethod
    def node_name(cls, *inputs, **settings) -> str:
        return "minitorch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, src: Tensor, dim: int, index: Tensor, reduce: str):
        """A copy of $a$ with $a[\\ldots, index_i, \\ldots] \\mathrel{+}= src_i$ (or `*=`)"""
        out = apply_map(operators.identity, a, a.dtype)
        positions = along_dim_positions(out._layout, dim, index, a.device)
        values = converted(region(src, tuple(index.shape)) if src.ndim else src, a.dtype)
        if reduce == "add":
            put(out, positions, values, True)
        else:
            put_reduce(operators.mul, out, positions, values)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor):
        raise RuntimeError("derivative for aten::scatter is not implemented")


@public()
def scatter(a: Tensor, dim: int, index: Tensor, src=None, value=None, reduce=None) -> Tensor:
    """A copy of `a` with $a[index[i][j]][j] = src[i][j]$ for `dim=0` (and so on).

    `src` may be a number (or given as `value=`); `reduce="add"` adds and
    `reduce="multiply"` multiplies instead (without a gradient, as in PyTorch:
    `scatter_reduce` has more reductions, and gradients).
    >>> import minitorch
    >>> minitorch.zeros(2, 3).scatter(0, minitorch.tensor([[1, 0, 1]]), 5.0)
    tensor([[0., 5., 0.],
            [5., 0., 5.]])
    """
    src = value if src is None else src
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    dim, checked = scatter_checks(a, dim, index, src)
    if a.ndim == 0:
        return scatter(as_vector(a), 0, as_vector(index), as_vector(src), reduce=reduce).reshape(())
    if reduce is not None and isinstance(src, TensorBase):
        warnings.warn(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.",
            UserWarning,
            stacklevel=2,
        )
    src = as_vector(src) if isinstance(src, TensorBase) else scalar_tensor(src, a.dtype, a.device)
    if reduce is not None:
        return ScatterWithReduce.apply(a, src, dim=dim, index=checked, reduce=reduce)
    return Scatter.apply(a, src, dim=dim, index=checked, accumulate=False)


@public(torch=False)
def scatter_(a: Tensor, dim: int, index: Tensor, src=None, value=None, reduce=None) -> Tensor:
    """`scatter` in place."""
    return inplace(a, scatter, dim, index, src, value, reduce)


@public()
def scatter_add(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of `a` with $a[index[i][j]][j] \\mathrel{+}= src[i][j]$ for `dim=0` (repeats add)."""
    dim, checked = scatter_checks(a, dim, index, src)
    if a.ndim == 0:
        return scatter_add(as_vector(a), 0, as_vector(index), as_vector(src)).reshape(())
    return Scatter.apply(a, as_vector(src), dim=dim, index=checked, accumulate=True)


@public(torch=False)
def scatter_add_(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """`scatter_add` in place."""
    return inplace(a, scatter_add, dim, index, src)


# ---------------------------------------------------------------------------
# A 1-D index along one dim: index_select, index_add_, index_fill_
# ---------------------------------------------------------------------------


class IndexSelect(AdvancedIndex):
    """`a.index_select(dim, index)`: `a[:, ..., index]` under its own node name."""


def vector_index(index: Tensor, name: str) -> Tensor:
    """A 1-D int64 index (a 0-dim one becomes 1-D), after PyTorch's checks."""
    if not isinstance(index, TensorBase) or index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    if index.dtype is dtypes.int32 and name == "index_fill":
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index")
    return as_vector(converted(index, dtypes.int64))


@public()
def index_select(a: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of `a` along `dim` at `index`, in that order: `a[:, index]` for `dim=1`.

    >>> import minitorch
    >>> minitorch.tensor([[1, 2, 3], [4, 5, 6]]).index_select(1, minitorch.tensor([2, 0]))
    tensor([[3, 1],
            [6, 4]])
    """
    index = vector_index(index, "index_select")
    dim = normalize_dim(dim, max(a.ndim, 1))
    if a.ndim == 0:
        return index_select(as_vector(a), 0, index).reshape(())
    # PyTorch's CPU kernels word it by dim: its own check along dim 0, NumPy's text elsewhere
    if dim == 0:
        error, text = IndexError, "index out of range in self"
    else:
        error, text = (
            RuntimeError,
            "INDICES element is out of DATA bounds, id={index} axis_dim={size}",
        )
    checked_index(index, a.shape[dim], dim, error, text, negative=False)
    plan = IndexPlan(tuple(a.shape), (slice(None),) * dim + (index,))
    return IndexSelect.apply(a, plan=plan)


def along_plan(a: Tensor, dim: int, index: Tensor, name: str) -> IndexPlan:
    """The plan of `a[:, ..., index]` (`index` at `dim`) for index_add_ and index_fill_.

    index_add_ takes indices in $[0, size)$, index_fill_ in $[-size, size)$, as PyTorch.
    """
    index = vector_index(index, name)
    dim = normalize_dim(dim, max(a.ndim, 1))
    size = (tuple(a.shape) or (1,))[dim]
    if name == "index_add":
        checked_index(index, size, dim, RuntimeError, negative=False)
    else:
        checked_index(index, size, dim)
    return IndexPlan(tuple(a.shape), (slice(None),) * dim + (index,))


@public()
def index_add(a: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Number = 1) -> Tensor:
    """A copy of `a` with $\\alpha \\cdot source$ added at `index` along `dim` (repeats add up)."""
    plan = along_plan(a, dim, index, "index_add")
    if tuple(source.shape) != plan.result_shape():
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(a.shape)} source.shape = {list(source.shape)}"
        )
    return IndexAdd.apply(a, source if alpha == 1 else source * alpha, plan=plan)


@public(torch=False)
def index_add_(a: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Number = 1) -> Tensor:
    """`index_add` in place."""
    return inplace(a, index_add, dim, index, source, alpha)


@public()
def index_fill(a: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """A copy of `a` with `value` at `index` along `dim`."""
    plan = along_plan(a, dim, index, "index_fill")
    if isinstance(value, TensorBase) and value.ndim:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.ndim} dimension(s)."
        )
    value = value if isinstance(value, TensorBase) else scalar_tensor(value, a.dtype, a.device)
    return IndexFill.apply(a, value, plan=plan)


@public(torch=False)
def index_fill_(a: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """`index_fill` in place."""
    return inplace(a, index_fill, dim, index, value)


# ---------------------------------------------------------------------------
# take: an index into the flattened tensor
# ---------------------------------------------------------------------------


class Take(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, index: Tensor) -> Tensor:
        """$out_i = flat(a)_{index_i}$"""
        ctx.input_shape, ctx.index = tuple(a.shape), index
        layout = a._layout
        table = grid_positions(layout.shape, layout.strides, layout.offset, a.device)
        return take(a, take(table, index))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ added into zeros of the input's shape at the flat positions"""
        if is_grad_enabled():  # backward(create_graph=True): the same, differentiable
            flat = new_tensor((math.prod(ctx.input_shape),), grad.dtype, grad.device)
            index, grad = ctx.index.reshape(-1), grad.reshape(-1)
            flat = Scatter.apply(flat, grad, dim=0, index=index, accumulate=True)
            return flat.reshape(ctx.input_shape)
        grad_input = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        put(grad_input, ctx.index, grad, True)
        return grad_input


@public("take")
def tensor_take(a: Tensor, index: Tensor) -> Tensor:
    """The elements of `a`, seen as 1-D, at `index` (result of `index`'s shape).

    >>> import minitorch
    >>> minitorch.tensor([[4, 3], [5, 7]]).take(minitorch.tensor([0, 3, -1]))
    tensor([4, 7, 7])
    """
    if not isinstance(index, TensorBase) or index.dtype is not dtypes.int64:
        raise RuntimeError(
            "take(): Expected a long tensor for index, but got "
            + (
                index.dtype.torch_scalar_name
                if isinstance(index, TensorBase)
                else type(index).__name__
            )
        )
    text = "out of range: tried to access index {index} on a tensor of {size} elements."
    checked = checked_index(index, a.numel(), 0, IndexError, text)
    return Take.apply(a, index=checked)
