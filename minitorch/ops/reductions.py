"""Reductions: `sum`, `mean`, `prod`, `max`, `min`, `argmax`, `argmin`, `all`, `any`; softmax.

A reduction combines the elements along `dim` (an int, a tuple, or None for
all of them) with the backend's reduce kernel (`reduce_dims`); `keepdim`
keeps the reduced dimensions with size 1. Its backward spreads the
gradient back over the reduced dimensions. `softmax` and `log_softmax`
normalise along one dimension.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.graph import GraphContext
from ..backends.tensor_data import normalize_dim, prod
from ..dtypes import DType
from ..operators import greater_or_nan, less_or_nan
from ..tensors.base import TensorBase
from ..tensors.creation import tensor
from ..tensors.kernels import (
    apply_map,
    apply_zip,
    arg_reduce,
    converted,
    drop_dims,
    reduce_dims,
    scalar_tensor,
    with_shape,
)
from ..tensors.shapes import not_implemented, reduction_dims
from .comparisons import maximum, minimum
from .functions import Op
from .public import public
from .views import reshape

if TYPE_CHECKING:
    from .._tensor import Tensor


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


class Sum(Op):
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


@public("sum", keywords=1)
def tensor_sum(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Sum over `dim` (int or tuple; all when None) (`minitorch.sum`).

    >>> import minitorch
    >>> minitorch.tensor([[1, 2], [3, 4]]).sum(0)
    tensor([4, 6])
    """
    return Sum.apply(a, dim=dim, keepdim=keepdim, dtype=dtype)


class Mean(Op):
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


@public(keywords=1)
def mean(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Mean over `dim` (floating tensors only)."""
    return Mean.apply(a, dim=dim, keepdim=keepdim, dtype=dtype)


class Prod(Op):
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


@public("prod", keywords=1)
def tensor_prod(a: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Product over `dim` (`minitorch.prod`)."""
    return Prod.apply(a, dim=dim, keepdim=keepdim, dtype=dtype)


def checked_dim(a: Tensor, dim: int, name: str) -> int | None:
    """`dim` as a dimension of `a` to take `name` (max, argmax, ...) along; None if `a` is 0-D."""
    if a.ndim == 0:
        normalize_dim(dim, 0)
        return None
    dim = normalize_dim(dim, a.ndim)
    if a.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    return dim


class MaxDim(Op):
    """`max(dim)` and `min(dim)`: values and the index of the first winner."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim: int, keepdim: bool, largest: bool):
        ctx.shape, ctx.keepdim = tuple(a.shape), keepdim
        ctx.dim = dim = checked_dim(a, dim, "max" if largest else "min")
        if dim is None:
            return a.clone(), scalar_tensor(0, dtypes.int64, a.device)
        values, indices = arg_reduce(greater_or_nan if largest else less_or_nan, a, dim)
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
        won = positions_along(ctx.dim, ctx.shape, indices.device) == indices
        return grad.where(won, 0.0)
        # END SOLUTION 2.6


def positions_along(dim: int, shape: tuple, on_device=None) -> Tensor:
    """The positions $0, 1, \\ldots$ along dimension `dim` of `shape` (int64; size 1 elsewhere)."""
    sizes = [1] * len(shape)
    sizes[dim] = shape[dim]
    return tensor(list(range(shape[dim])), device=on_device).view(sizes)


def ties(a: Tensor, out: Tensor) -> Tensor:
    """Where `a` equals `out` (broadcast; NaN equal to NaN): the elements sharing its gradient."""
    return (a == out) | ((a != a) & (out != out))


class SharedByTies(Op):
    """A reduction of all elements to one of them (`max()`, `median()`): its forward saves
    `(a, out)`, and the gradient is shared evenly by the elements equal to `out`."""

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g / k$ to each of the $k$ elements equal to the result, 0 to the others (as PyTorch)"""
        a, out = ctx.saved_tensors
        winners = ties(a, out)
        return (grad / winners.sum()).where(winners, 0.0)


class MaxAll(SharedByTies):
    """`max()` and `min()` of all elements: a 0-dim tensor."""

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
    """`max` (`largest`) or `min`: of all elements, along `dim`, or of `a` and `other`."""
    if isinstance(dim, TensorBase):
        dim, other = None, dim
    if other is not None:
        return maximum(a, other) if largest else minimum(a, other)
    if dim is None:
        return MaxAll.apply(a, largest=largest)
    values, indices = MaxDim.apply(a, dim=dim, keepdim=keepdim, largest=largest)
    return ReturnTypes("max" if largest else "min", values, indices)


@public("max", keywords=1)
def tensor_max(a: Tensor, dim=None, keepdim: bool = False, *, other=None):
    """The largest element; with `dim`, `(values, indices)` along it (`minitorch.max`).

    `max(a, b)` with two tensors is `maximum(a, b)`.
    """
    return extreme(a, dim, keepdim, True, other)


@public("min", keywords=1)
def tensor_min(a: Tensor, dim=None, keepdim: bool = False, *, other=None):
    """The smallest element; with `dim`, `(values, indices)` along it (`minitorch.min`)."""
    return extreme(a, dim, keepdim, False, other)


def arg_extreme(a: Tensor, dim, keepdim: bool, largest: bool) -> Tensor:
    """`argmax` (`largest`) or `argmin`: no gradient, so no `Function`."""
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
    along = checked_dim(a, dim, name)
    if along is None:
        return scalar_tensor(0, dtypes.int64, a.device)
    _, indices = arg_reduce(better, a, along)
    return drop_dims(indices, (along,), keepdim)


@public(keywords=1)
def argmax(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (the first one on ties), flattened when `dim` is None."""
    return arg_extreme(a, dim, keepdim, True)


@public(keywords=1)
def argmin(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (the first one on ties), flattened when `dim` is None."""
    return arg_extreme(a, dim, keepdim, False)


def truth_reduce(fn, start: bool, a: Tensor, dim, keepdim: bool) -> Tensor:
    """`fn` (logical and / or) over the truth values of `a` along `dim`, from `start`."""
    dims = reduction_dims(dim, a.ndim)
    truth = converted(a, dtypes.bool_)
    result = drop_dims(reduce_dims(fn, truth, dims, start, dtypes.bool_), dims, keepdim)
    return converted(result, dtypes.uint8) if a.dtype is dtypes.uint8 else result  # as PyTorch


@public("all", keywords=1)
def tensor_all(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True where every element along `dim` is non-zero (`minitorch.all`)."""
    return truth_reduce(operators.logical_and, True, a, dim, keepdim)


@public("any", keywords=1)
def tensor_any(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True where some element along `dim` is non-zero (`minitorch.any`)."""
    return truth_reduce(operators.logical_or, False, a, dim, keepdim)


class Softmax(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim: int) -> Tensor:
        """$e^{a_i - m} / \\sum_j e^{a_j - m}$ along `dim`, $m$ the maximum (stable)"""
        # BEGIN SOLUTION 4.4
        _, exps, total = shifted_exponentials(a, dim, "softmax_lastdim_kernel_impl")
        out = apply_zip(operators.div, exps, total, a.dtype)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out
        # END SOLUTION 4.4

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$s \\odot (g - \\sum_j g_j s_j)$ along `dim`, $s$ the softmax"""
        # BEGIN SOLUTION 4.4
        (out,) = ctx.saved_tensors
        return out * (grad - tensor_sum(grad * out, ctx.dim, keepdim=True))
        # END SOLUTION 4.4


@public(keywords=1)
def softmax(a: Tensor, dim: int, dtype=None) -> Tensor:
    """$e^{a_i} / \\sum_j e^{a_j}$ along `dim`, computed stably (in `dtype` when given)."""
    return Softmax.apply(a if dtype is None else a.to(dtype), dim=dim)


class LogSoftmax(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim: int) -> Tensor:
        """$a_i - m - \\ln \\sum_j e^{a_j - m}$ along `dim` (stable)"""
        # BEGIN SOLUTION 4.4
        shifted, _, total = shifted_exponentials(a, dim, "log_softmax_lastdim_kernel_impl")
        log_total = apply_map(operators.log, total, a.dtype)
        out = apply_zip(operators.sub, shifted, log_total, a.dtype)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out
        # END SOLUTION 4.4

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g - e^{out} \\sum_j g_j$ along `dim`"""
        # BEGIN SOLUTION 4.4
        (out,) = ctx.saved_tensors
        return grad - out.exp() * tensor_sum(grad, ctx.dim, keepdim=True)
        # END SOLUTION 4.4


@public(keywords=1)
def log_softmax(a: Tensor, dim: int, dtype=None) -> Tensor:
    """$\\ln$ softmax along `dim`, computed stably (in `dtype` when given)."""
    return LogSoftmax.apply(a if dtype is None else a.to(dtype), dim=dim)


def shifted_exponentials(a: Tensor, dim: int, kernel: str) -> tuple[Tensor, Tensor, Tensor]:
    """$a - m$, $e^{a - m}$ and $\\sum_j e^{a_j - m}$ (kept as a size-1 dim) along `dim`,
    $m$ the maximum; integer inputs raise PyTorch's error, which names `kernel`."""
    if not a.dtype.is_floating_point:
        raise not_implemented(kernel, a.dtype)
    shifted = shifted_by_max(a, dim)
    exps = apply_map(operators.exp, shifted, a.dtype)
    return shifted, exps, sum_keepdim(exps, dim)


def shifted_by_max(a: Tensor, dim: int) -> Tensor:
    """$a - \\max(a)$ along `dim`: the largest becomes 0, so $e^x$ cannot overflow."""
    if a.ndim == 0:
        return apply_zip(operators.sub, a, a, a.dtype)
    dim = normalize_dim(dim, a.ndim)
    if a.shape[dim] == 0:
        return a
    # BEGIN SOLUTION 4.4
    largest, _ = arg_reduce(greater_or_nan, a, dim)
    return apply_zip(operators.sub, a, largest, a.dtype)
    # END SOLUTION 4.4


def sum_keepdim(a: Tensor, dim: int) -> Tensor:
    """$\\sum$ along `dim`, keeping it with size 1."""
    return reduce_dims(operators.add, a, reduction_dims(dim, a.ndim), 0, a.dtype)
