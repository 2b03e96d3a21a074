"""Writes at flat positions (`put`) and reductions into slices (`index_reduce`), composed
from `index_put` and `scatter_reduce`, so their gradients are those operations'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..backends.tensor_data import normalize_dim
from .indexing import index_put_
from .public import public
from .scatter_reduce import scatter_reduce

if TYPE_CHECKING:
    from .._tensor import Tensor

INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


@public(inplace=True)
def put(a: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of `a` with `source` written at the flat (row-major) positions `index`
    (added up if `accumulate`; negative positions count from the end).

    >>> import minitorch
    >>> minitorch.zeros(2, 2).put(minitorch.tensor([3, 0]), minitorch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 1.]])
    """
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {index.dtype.torch_scalar_name}"
        )
    if source.dtype is not a.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{a.dtype.torch_scalar_name} and source.dtype = {source.dtype.torch_scalar_name}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    count = a.numel()
    flat = index.reshape(-1)
    if flat.numel():
        lowest, highest = int(flat.min().item()), int(flat.max().item())
        for position in (highest, lowest):
            if position >= count or position < -count:
                raise IndexError(
                    f"out of range: tried to access index {position} on a tensor of {count} "
                    "elements."
                )
    written = index_put_(a.reshape(-1).clone(), (flat,), source.reshape(-1), accumulate)
    return written.view(a.shape)


@public(inplace=True)
def index_reduce(
    a: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True
) -> Tensor:
    """A copy of `a` whose slice `index[i]` along `dim` is folded with slice `i` of `source`
    by `reduce` ("prod", "mean", "amax", "amin"), starting from `a`'s own slice unless
    `include_self=False` (slices no index names stay as they are).

    >>> import minitorch
    >>> x = minitorch.ones(3)
    >>> x.index_reduce(0, minitorch.tensor([0, 0, 2]), minitorch.tensor([2.0, 3.0, 4.0]), "prod")
    tensor([6., 1., 4.])
    """
    if reduce not in INDEX_REDUCTIONS:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    if index.dtype not in (dtypes.int32, dtypes.int64):
        raise RuntimeError(
            "index_reduce_(): Expected dtype int32/int64 for index but got: "
            f"{index.dtype.torch_scalar_name}"
        )
    d = normalize_dim(dim, max(a.ndim, 1))
    length = source.shape[d] if source.ndim else 1
    if index.numel() != length:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({length}), for dim: {dim}"
        )
    size = a.shape[d] if a.ndim else 1
    flat = index.reshape(-1).long()
    if flat.numel() and (int(flat.min().item()) < 0 or int(flat.max().item()) >= size):
        raise IndexError("index out of range in self")
    if a.ndim == 0:
        return scatter_reduce(a, 0, flat.reshape(()), source, reduce, include_self=include_self)
    shape = [1] * source.ndim
    shape[d] = length
    spread = flat.view(shape).expand(source.shape)
    return scatter_reduce(a, d, spread, source, reduce, include_self=include_self)
