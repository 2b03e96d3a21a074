"""Writes into a copy (`index_copy`, `index_put`, `masked_scatter`), their in-place forms,
`fill_diagonal_`, `sum_to_size`, and the in-place view changes (`squeeze_`, `unsqueeze_`,
`transpose_`, `swapaxes_`, `swapdims_`), as `t_` does them: the tensor's layout changes,
its storage does not.

The copies are a `clone` and an indexing assignment, which autograd records as any
in-place write into a view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..backends.tensor_data import normalize_dim
from .copies import clone
from .joins import diagonal
from .public import public
from .views import expand, squeeze, transpose, unsqueeze

if TYPE_CHECKING:
    from .._tensor import Tensor


def along(dim: int, ndim: int, index) -> tuple:
    """The key of `index` along `dim` (every element of the other dims)."""
    return (slice(None),) * normalize_dim(dim, ndim) + (index,)


@public()
def index_copy(a: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of `a` with `source`'s slices written at positions `index` along `dim`."""
    out = clone(a)
    out[along(dim, a.ndim, index)] = source
    return out


@public(torch=False)
def index_copy_(a: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """`index_copy` written into `a`."""
    a[along(dim, a.ndim, index)] = source
    return a


@public()
def index_put(a: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """A copy of `a` with `values` written (or added) at `a[indices]`."""
    return clone(a).index_put_(indices, values, accumulate)


def mask_and_values(a: Tensor, mask: Tensor, source: Tensor) -> tuple:
    """The mask broadcast to `a`, and as many of `source`'s elements as it has True ones."""
    full = expand(mask, *a.shape)
    count = int(full.sum().item())
    if source.numel() < count:
        raise RuntimeError(
            "masked_scatter: expected source to have at least as many elements as the ones in mask"
        )
    return full, source.reshape(-1)[:count]


@public()
def masked_scatter(a: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of `a` whose elements where `mask` is True are `source`'s, in order."""
    full, values = mask_and_values(a, mask, source)
    out = clone(a)
    out[full] = values
    return out


@public(torch=False)
def masked_scatter_(a: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """`masked_scatter` written into `a`."""
    full, values = mask_and_values(a, mask, source)
    a[full] = values
    return a


@public(torch=False)
def fill_diagonal_(a: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Write `fill_value` on the main diagonal of `a` (all dims of one size beyond 2-D);
    a tall matrix with `wrap=True` starts a new diagonal every `columns + 1` rows."""
    if a.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if a.ndim > 2:
        for k in range(min(a.shape)):
            a[(k,) * a.ndim] = fill_value
        return a
    rows, columns = a.shape
    starts = range(0, rows, columns + 1) if wrap else (0,)
    for start in starts:
        diagonal(a[start:]).fill_(fill_value)
    return a


@public()
def sum_to_size(a: Tensor, *size) -> Tensor:
    """`a` summed over the dims along which `size` broadcasts to `a`'s shape."""
    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    lead = a.ndim - len(size)
    dims = [d for d in range(a.ndim) if d < lead or (size[d - lead] == 1 and a.shape[d] != 1)]
    if lead < 0 or any(s not in (1, a.shape[d + lead]) for d, s in enumerate(size)):
        raise RuntimeError(f"size {list(size)} is not expandable to size {list(a.shape)}.")
    summed = a.sum(dim=tuple(dims), keepdim=True) if dims else a
    return summed.reshape(*size) if lead else summed


@public(torch=False)
def squeeze_(a: Tensor, dim=None) -> Tensor:
    """`squeeze` of `a` itself: its layout changes."""
    a._layout = squeeze(a, dim)._layout
    return a


@public(torch=False)
def unsqueeze_(a: Tensor, dim: int) -> Tensor:
    """`unsqueeze` of `a` itself."""
    a._layout = unsqueeze(a, dim)._layout
    return a


@public(torch=False, aliases=("swapaxes_", "swapdims_"))
def transpose_(a: Tensor, dim0: int, dim1: int) -> Tensor:
    """`transpose` of `a` itself."""
    a._layout = transpose(a, dim0, dim1)._layout
    return a
