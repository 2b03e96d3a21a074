"""`scatter_reduce`: the values of `src` that meet at a position of `a`, folded into it.

`scatter_add` adds the values an index sends to one position; `scatter_reduce`
folds them with `sum`, `prod`, `mean`, `amax` or `amin` (with or without the
value already there, `include_self`), on the backend's `put_reduce` kernel.
Its backward follows PyTorch's: `amax`/`amin` split the gradient among the
tied winners, `prod` divides the product by each factor (and handles zeros),
`mean` divides by the count.
"""

from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes, operators
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import GraphContext
from ..tensors.base import TensorBase
from ..tensors.kernels import (
    Number,
    alias,
    apply_map,
    apply_zip,
    converted,
    new_tensor,
    scalar_tensor,
)
from .functions import Op
from .gather import Gather, Scatter, along_dim_positions, as_vector, padded, region, scatter_checks
from .inplace import inplace
from .positions import (
    put,
    put_reduce,
)
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor

# The fold of each reduction (None: the adding `put`), and PyTorch's aliases
FOLDS = {"sum": None, "mean": None, "prod": operators.mul, "amax": operators.maximum}
FOLDS["amin"] = operators.minimum
ALIASES = {"max": "amax", "min": "amin"}


def fold_start(reduce: str, dtype: dtypes.DType) -> Number:
    """The value a fold starts from: 0, 1, or the lowest (highest) value of `dtype`."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.is_floating_point:
        return -math.inf if reduce == "amax" else math.inf
    if dtype is dtypes.bool_:
        return reduce == "amin"
    limits = np.iinfo(dtype.numpy_dtype)
    return int(limits.min if reduce == "amax" else limits.max)


class ScatterReduce(Op):
    """`a` with the values of `src` folded (by `reduce`) into it along `dim` at `index`."""

    @staticmethod
    def forward(
        ctx: GraphContext, a: Tensor, src: Tensor, dim: int, index: Tensor, reduce: str,
        include_self: bool,
    ) -> Tensor:  # fmt: skip
        """$out_p = reduce(\\{a_p\\} \\cup \\{src_i : p_i = p\\})$ ($a_p$ left out unless
        `include_self`, where some $p_i = p$); `mean` divides by the count (floor for ints)"""
        kind = ALIASES.get(reduce, reduce)  # "max" folds as "amax" (and has no backward)
        out = apply_map(operators.identity, a, a.dtype)
        positions = along_dim_positions(out._layout, dim, index, a.device)
        values = region(src, tuple(index.shape))
        if not include_self:
            start = scalar_tensor(fold_start(kind, a.dtype), a.dtype, a.device)
            put(out, positions, start, False)
        if FOLDS[kind] is None:
            put(out, positions, values, True)
        else:
            put_reduce(FOLDS[kind], out, positions, values)
        if kind == "mean":
            counts = new_tensor(tuple(a.shape), a.dtype, a.device)
            put(counts, positions, scalar_tensor(1, a.dtype, a.device), True)
            start = scalar_tensor(1 if include_self else 0, a.dtype, a.device)
            counts = apply_zip(operators.add, counts, start, a.dtype)
            counts = apply_zip(
                operators.maximum, counts, scalar_tensor(1, a.dtype, a.device), a.dtype
            )
            divide = operators.div if a.dtype.is_floating_point else operators.floor_divide
            out = apply_zip(divide, out, counts, a.dtype)
        ctx.save_for_backward(a, src, out)
        ctx.dim, ctx.index, ctx.reduce, ctx.include_self = dim, index, reduce, include_self
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor]:
        """PyTorch's formulas, from differentiable operations (so `create_graph=True` works):
        sum: $g$ and $g$ gathered; mean: both divided by the count; amax, amin: $g$ shared
        evenly by the elements equal to the result; prod: $g \\cdot out / x$ (with zeros
        handled apart)"""
        a, src, out = ctx.saved_tensors
        dim, index, reduce = ctx.dim, ctx.index, ctx.reduce
        src_part = src if tuple(src.shape) == tuple(index.shape) else region_of(src, index)
        if reduce not in FOLDS:
            raise RuntimeError(
                "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got "
                f"{reduce}."
            )
        if reduce == "sum":
            grad_a, grad_src = grad, gathered(grad, dim, index)
        elif reduce == "mean":
            counts = scatter_added(
                grad.new_ones(grad.shape) if ctx.include_self else grad.new_zeros(grad.shape),
                dim, index, src_part.new_ones(src_part.shape),
            )  # fmt: skip
            counts = counts.masked_fill(counts == 0, 1)
            grad_a, grad_src = (
                grad / counts,
                gathered(grad, dim, index) / gathered(counts, dim, index),
            )
        elif reduce in ("amax", "amin"):
            value = gathered(out, dim, index)
            a_wins, src_wins = a == out, src_part == value
            shares = scatter_added(
                converted(a_wins, grad.dtype), dim, index, converted(src_wins, grad.dtype)
            )
            shared = grad / shares
            grad_a, grad_src = a_wins * shared, src_wins * gathered(shared, dim, index)
        else:
            grad_a, grad_src = prod_gradients(a, src_part, out, grad, dim, index, ctx.include_self)
        if not ctx.include_self:
            grad_a = Scatter.apply(
                grad_a,
                scalar_tensor(0, grad.dtype, grad.device),
                dim=dim,
                index=index,
                accumulate=False,
            )
        return grad_a, padded(grad_src, tuple(src.shape))


def gathered(t: Tensor, dim: int, index: Tensor) -> Tensor:
    """`t.gather(dim, index)`, `index` already checked."""
    return Gather.apply(t, dim=dim, index=index)


def scatter_added(t: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """`t.scatter_add(dim, index, src)`, `index` already checked."""
    return Scatter.apply(t, src, dim=dim, index=index, accumulate=True)


def region_of(src: Tensor, index: Tensor) -> Tensor:
    """`src[:n_0, :n_1, ...]` for `index`'s shape $(n_0, n_1, \\ldots)$, differentiably."""
    return src[tuple(slice(0, size) for size in index.shape)]


def prod_gradients(a, src, out, grad, dim, index, include_self) -> tuple[Tensor, Tensor]:
    """The gradients of a scatter product: $g \\cdot out / x$ for each factor $x$, where a
    zero factor is replaced by 1 (it is the only one that does not vanish), as PyTorch."""
    masked_a = a.masked_fill(a == 0, 1)
    grad_a = (
        grad
        * masked_a.scatter_reduce(dim, index, src, "prod", include_self=include_self)
        / masked_a
    )
    src_zero = src == 0
    zeros_there = gathered(
        scatter_added(a.new_zeros(a.shape), dim, index, converted(src_zero, a.dtype)), dim, index
    )
    single_zero = src_zero & (zeros_there == 1)
    without_zero = a.scatter_reduce(
        dim, index, src.masked_fill(single_zero, 1), "prod", include_self=include_self
    )
    grad_src = gathered(grad * without_zero, dim, index).where(
        single_zero, gathered(grad * out, dim, index) / src.masked_fill(src_zero, 1)
    )
    if is_grad_enabled() and bool((zeros_there > 1).any()):
        grad_src = DoubleBackwardError.apply(grad_src)
    return grad_a, grad_src


class DoubleBackwardError(Op):
    """A gradient whose own gradient is PyTorch's error (several zeros in one product)."""

    @classmethod
    def node_name(cls, *inputs, **settings) -> str:
        return "Error"

    @staticmethod
    def forward(ctx: GraphContext, grad: Tensor) -> Tensor:
        return alias(grad)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor):
        raise RuntimeError(
            "scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
            "scattered to the same position in self"
        )


@public()
def scatter_reduce(
    a: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True
) -> Tensor:
    """A copy of `a` with the elements of `src` that `index` sends to the same position
    folded together with `reduce` ("sum", "prod", "mean", "amax", "amin"), with the
    element of `a` there unless `include_self=False`.

    >>> import minitorch
    >>> x = minitorch.tensor([1.0, 2.0])
    >>> x.scatter_reduce(0, minitorch.tensor([0, 0, 1]), minitorch.tensor([3.0, 4.0, 5.0]), "amax")
    tensor([4., 5.])
    """
    if not isinstance(src, TensorBase):
        raise TypeError(
            f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not "
            f"{type(src).__name__}"
        )
    if reduce not in FOLDS and reduce not in ALIASES:
        raise RuntimeError(
            "reduce argument must be either sum, prod, mean, amax or amin, got " + str(reduce)
        )
    dim, checked = scatter_checks(a, dim, index, src)
    if a.ndim == 0:
        return scatter_reduce(
            as_vector(a), 0, as_vector(index), as_vector(src), reduce, include_self=include_self
        ).reshape(())
    return ScatterReduce.apply(
        a, as_vector(src), dim=dim, index=checked, reduce=reduce, include_self=include_self
    )


@public(torch=False)
def scatter_reduce_(
    a: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True
) -> Tensor:
    """`scatter_reduce` in place."""
    return inplace(a, partial(scatter_reduce, include_self=include_self), dim, index, src, reduce)
