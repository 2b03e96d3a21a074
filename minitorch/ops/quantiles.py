"""Order statistics composed from `sort` and `gather`: `quantile`/`nanquantile` (with
PyTorch's five interpolations), `nanmedian`, and `renorm`.

The $q$-quantile of $n$ sorted values sits at position $q (n - 1)$; between the values at
its floor and ceiling, `linear` interpolates, `lower`/`higher` take one of them,
`nearest` the closer (halves to even), `midpoint` their mean. `nanquantile` counts only
the values that are not NaN (which `sort` puts last); `quantile` of a slice with a NaN is
NaN.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import dtypes
from ..backends.tensor_data import normalize_dim
from ..tensors.base import TensorBase
from ..tensors.creation import tensor
from .arithmetic import add, div, mul, sub
from .comparisons import where
from .copies import to
from .gather import gather
from .public import public
from .reductions import ReturnTypes
from .sorting import sort
from .statistics import vector_norm

if TYPE_CHECKING:
    from .._tensor import Tensor

INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def quantiles(a: Tensor, q, dim, keepdim: bool, interpolation: str, skip_nan: bool):
    """`quantile` (`nanquantile` with `skip_nan`), after PyTorch's checks in PyTorch's order,
    each naming `quantile()`; a tensor `q`'s values are checked on the CPU only, as PyTorch
    spares an accelerator the wait."""
    q_is_tensor = isinstance(q, TensorBase)
    if not q_is_tensor and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {float(q):g}")
    if interpolation not in INTERPOLATIONS:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    if a.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q_is_tensor and q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if a.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q_is_tensor and q.dtype is not a.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if q_is_tensor and q.device != a.device:
        raise RuntimeError("quantile() q tensor must be on the same device as the input tensor")
    qs = q.reshape(-1) if q_is_tensor else tensor([q], dtype=a.dtype, device=a.device)
    if a.device.type == "cpu" and ((qs < 0) | (qs > 1)).any().item():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    x = a.reshape(-1) if dim is None else a
    d = 0 if dim is None else normalize_dim(dim, a.ndim)
    x = x.movedim(d, -1).unsqueeze(0)  # (1, ..., n): the quantiles go in front
    values = sort(x, -1).values
    n = x.shape[-1]
    nan = values != values
    count = n - nan.sum(-1, keepdim=True) if skip_nan else tensor(n, device=a.device)
    q_shape = (qs.shape[0],) + (1,) * (x.ndim - 1)
    position = mul(qs.reshape(*q_shape), to(sub(count, 1), a.dtype).clamp(min=0))
    low, high = position.floor(), position.ceil()
    if interpolation == "lower":
        high = low
    elif interpolation == "higher":
        low = high
    elif interpolation == "nearest":
        low = high = position.round()
    shape = (qs.shape[0],) + tuple(x.shape[1:-1]) + (1,)
    below = gather(values.expand(*shape[:-1], n), -1, to(low, dtypes.int64).expand(*shape))
    above = gather(values.expand(*shape[:-1], n), -1, to(high, dtypes.int64).expand(*shape))
    if interpolation == "midpoint":
        result = div(add(below, above), 2)
    else:
        result = add(below, mul(sub(above, below), sub(position, low)))
    if skip_nan:
        result = where(count.expand(*shape) == 0, math.nan, result)
    else:
        result = where(nan.any(-1, keepdim=True).expand(*shape), math.nan, result)
    result = result.squeeze(-1)
    if keepdim:
        result = (
            result.unsqueeze(-1).movedim(-1, d + 1)
            if dim is not None
            else result.reshape(qs.shape[0], *([1] * a.ndim))
        )
    return result[0] if not q_is_tensor or q.ndim == 0 else result


@public()
def quantile(a: Tensor, q, dim=None, keepdim: bool = False, *, interpolation="linear"):
    """The `q`-quantiles (a number or a 1-D tensor of them, in $[0, 1]$) along `dim` (of all
    elements by default); several `q` give a first dim of their own."""
    return quantiles(a, q, dim, keepdim, interpolation, False)


@public()
def nanquantile(a: Tensor, q, dim=None, keepdim: bool = False, *, interpolation="linear"):
    """`quantile` of the values that are not NaN."""
    return quantiles(a, q, dim, keepdim, interpolation, True)


@public()
def nanmedian(a: Tensor, dim=None, keepdim: bool = False):
    """The lower median of the values that are not NaN (NaN if there are none); along `dim`,
    `(values, indices)` with where each came from."""
    if dim is None:
        flat = a.reshape(-1)
        if flat.numel() == 0:
            return tensor(math.nan, dtype=a.dtype, device=a.device)
        values, order = sort(flat, 0)
        count = flat.numel() - int((flat != flat).sum().item())
        return values[max((count or flat.numel()) - 1, 0) // 2]
    d = normalize_dim(dim, a.ndim) if a.ndim else 0
    if a.ndim == 0:
        return ReturnTypes("nanmedian", a.clone(), tensor(0, device=a.device))
    if a.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    values, order = sort(a, d)
    count = (values == values).sum(d, keepdim=True)
    # a slice of NaNs only: its middle position, as torch's
    count = where(count == 0, a.shape[d], count)
    at = div(sub(count, 1).clamp(min=0), 2, rounding_mode="floor")
    picked, index = gather(values, d, at), gather(order, d, at)
    if not keepdim:
        picked, index = picked.squeeze(d), index.squeeze(d)
    return ReturnTypes("nanmedian", picked, index)


@public(inplace=True)
def renorm(a: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """`a` with each slice along `dim` whose `p`-norm exceeds `maxnorm` scaled down to it."""
    d = normalize_dim(dim, a.ndim)
    others = tuple(k for k in range(a.ndim) if k != d)
    norms = vector_norm(a, p, dim=others, keepdim=True)
    scale = where(norms > maxnorm, div(maxnorm, add(norms, 1e-7)), 1.0)
    return mul(a, scale)
