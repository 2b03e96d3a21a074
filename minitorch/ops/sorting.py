"""Sorting along a dimension: `sort`, `argsort`, `topk`, `kthvalue`, `median`.

All of them run the backend's stable `sort` kernel along one dimension and
keep what they need of its result (the first `k` of each line, the one in
the middle, ...) as a view. The backward of each puts the gradient back at
the positions the kept elements came from (the backend's `scatter_along`).
`sort` returns `(values, indices)` as a named tuple, like PyTorch's
`torch.return_types.sort`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.graph import GraphContext
from ..backends.tensor_data import normalize_dim
from ..tensors.kernels import (
    apply_map,
    arg_reduce,
    converted,
    drop_dims,
    scalar_tensor,
    scatter_along,
    sort_dim,
    with_shape,
)
from .functions import Op
from .public import public
from .reductions import ReturnTypes, SharedByTies

if TYPE_CHECKING:
    from .._tensor import Tensor


class Sort(Op):
    """The first `k` elements of each line along `dim` in sorted order, and where they were.

    `sort` keeps all of them, `topk` the `k` largest (or smallest), `kthvalue`
    and `median` one, `at` (its dim dropped unless `keepdim`); for `median` a
    line with a NaN gives its first NaN (`nan_wins`). `kind` is the node's name.
    """

    @staticmethod
    def forward(
        ctx: GraphContext, a: Tensor, dim: int, descending: bool, at=None, k=None, keepdim=True,
        kind: str = "SortBackward0", nan_wins: bool = False,
    ) -> tuple[Tensor, Tensor]:  # fmt: skip
        ctx.shape, ctx.dim, ctx.keepdim = tuple(a.shape), dim, keepdim
        if a.ndim == 0:  # one element: it is its own sort
            ctx.save_for_backward(None)
            return a.clone(), scalar_tensor(0, dtypes.int64, a.device)
        values, indices = sort_dim(a, dim, descending)
        if at is not None:
            values, indices = values.narrow(dim, at, 1), indices.narrow(dim, at, 1)
            if nan_wins and a.dtype.is_floating_point:
                values, indices = first_nan_instead(a, dim, values, indices)
        elif k is not None:
            values, indices = values.narrow(dim, 0, k), indices.narrow(dim, 0, k)
        values, indices = values.contiguous(), indices.contiguous()
        ctx.save_for_backward(indices)
        if at is not None and not keepdim:
            return drop_dims(values, (dim,), False), drop_dims(indices, (dim,), False)
        return values, indices

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """Each kept element's $g$ at the position it came from, 0 elsewhere"""
        (indices,) = ctx.saved_tensors
        if indices is None:
            return grad
        if not ctx.keepdim:
            grad = grad.unsqueeze(ctx.dim)
        return scatter_along(ctx.shape, grad.contiguous(), indices, ctx.dim)


def first_nan_instead(a: Tensor, dim: int, values: Tensor, indices: Tensor):
    """`values` and `indices` (size 1 in `dim`), with NaN and the position of the first NaN
    along `dim` wherever a line of `a` has one."""
    nan = converted(apply_map(operators.is_nan, a, dtypes.bool_), dtypes.int64)
    has_nan, first_nan = arg_reduce(operators.greater_or_nan, nan, dim)
    has_nan = converted(has_nan, dtypes.bool_)
    return values.where(~has_nan, float("nan")), indices.where(~has_nan, first_nan)


def along(a: Tensor, dim: int) -> tuple[Tensor, int]:
    """`a` and `dim` as a dimension of it (0 for a 0-dim tensor, which has one element)."""
    return a, normalize_dim(dim, max(a.ndim, 1))


def restored(a: Tensor, values: Tensor, indices: Tensor, name: str) -> ReturnTypes:
    """The named tuple `name`."""
    return ReturnTypes(name, values, indices)


@public()
def sort(a: Tensor, dim: int = -1, descending: bool = False, stable: bool = False):
    """`(values, indices)`: each line along `dim` sorted (NaN largest), and where each came from.

    The sort is always stable (equal elements keep their order).

    >>> import minitorch
    >>> minitorch.tensor([3, 1, 2]).sort().indices
    tensor([1, 2, 0])
    """
    x, d = along(a, dim)
    kind = "SortBackward1" if stable else "SortBackward0"
    values, indices = Sort.apply(x, dim=d, descending=descending, kind=kind)
    return restored(a, values, indices, "sort")


@public()
def argsort(a: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The positions that sort each line along `dim` (`sort(...).indices`)."""
    x, d = along(a, dim)
    if a.ndim == 0:
        return scalar_tensor(0, dtypes.int64, a.device)
    return sort_dim(x, d, descending)[1]


@public()
def msort(a: Tensor) -> Tensor:
    """`a` sorted along its first dimension."""
    return sort(a, 0).values


@public()
def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """`(values, indices)` of the `k` largest (or smallest) elements along `dim`, in order."""
    x, d = along(a, dim)
    if not 0 <= k <= (x.shape[d] if x.ndim else 1):
        raise RuntimeError("selected index k out of range")
    values, indices = Sort.apply(x, dim=d, descending=largest, k=k, kind="TopkBackward0")
    return restored(a, values, indices, "topk")


@public()
def kthvalue(a: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    """`(values, indices)` of the `k`-th smallest element along `dim` (`k` from 1)."""
    x, d = along(a, dim)
    if not 1 <= k <= (x.shape[d] if x.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices = Sort.apply(
        x, dim=d, descending=False, at=k - 1, keepdim=keepdim or a.ndim == 0,
        kind="KthvalueBackward0",
    )  # fmt: skip
    return restored(a, values, indices, "kthvalue")


class MedianAll(SharedByTies):
    """The lower median of all elements (0-dim); its gradient is shared by ties, as PyTorch's."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor) -> Tensor:
        if a.numel() == 0:
            nan = float("nan")
            return scalar_tensor(nan, dtypes.promote_types(a.dtype, dtypes.float32), a.device)
        flat = a.reshape(-1)
        values, indices = sort_dim(flat, 0, False)
        middle = (flat.numel() - 1) // 2
        values, indices = values.narrow(0, middle, 1), indices.narrow(0, middle, 1)
        if a.dtype.is_floating_point:
            values, _ = first_nan_instead(flat, 0, values, indices)
        out = with_shape(values.contiguous(), ())
        ctx.save_for_backward(a, out)
        return out


@public()
def median(a: Tensor, dim=None, keepdim: bool = False):
    """The lower median: the $\\lceil n/2 \\rceil$-th smallest element (NaN if there is one).

    Of all elements (a 0-dim tensor), or along `dim` as `(values, indices)`.
    """
    if dim is None:
        return MedianAll.apply(a)
    x, d = along(a, dim)
    if x.ndim and x.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    values, indices = Sort.apply(
        x, dim=d, descending=False, at=(x.shape[d] - 1) // 2 if x.ndim else 0,
        keepdim=keepdim or a.ndim == 0, kind="MedianBackward1", nan_wins=True,
    )  # fmt: skip
    return restored(a, values, indices, "median")
