"""Differences, integrals and running extremes along a dim: `diff`, `trapezoid`
(`trapz`), `cumulative_trapezoid`, `cummax`/`cummin`, `logcumsumexp`; and `aminmax`,
`histogram`.

`cummax` finds its indices with one running fold (the latest position holding the running
extreme, as PyTorch's ties resolve) and reads its values with `gather`, whose backward
sends each gradient to the position it came from.
"""

from __future__ import annotations

import collections
import math
from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..backends.tensor_data import normalize_dim
from ..tensors.base import TensorBase
from ..tensors.creation import arange, linspace, tensor
from ..tensors.kernels import scan_dim
from .arithmetic import add, div, mul, sub
from .comparisons import where
from .copies import to
from .gather import gather
from .joins import cat, narrow
from .public import public
from .reductions import ReturnTypes
from .statistics import amax, amin, cumsum
from .unary import exp, log
from .views import reshape

if TYPE_CHECKING:
    from .._tensor import Tensor


@public()
def diff(a: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """The `n`-th forward difference $a_{i+1} - a_i$ along `dim` (after joining `prepend`
    and `append`); booleans give `a_{i+1} != a_i`."""
    if a.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    dim = normalize_dim(dim, a.ndim)
    pieces = [p for p in (prepend, a, append) if p is not None]
    x = cat(pieces, dim) if len(pieces) > 1 else a
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break
        later, earlier = narrow(x, dim, 1, length - 1), narrow(x, dim, 0, length - 1)
        x = later != earlier if x.dtype is dtypes.bool_ else sub(later, earlier)
    return x


def trapezoid_areas(y: Tensor, x, dx, dim: int) -> Tensor:
    """The areas of the trapezoids between neighbours along `dim`."""
    dim = normalize_dim(dim, y.ndim)
    length = y.shape[dim]
    heights = div(add(narrow(y, dim, 1, length - 1), narrow(y, dim, 0, length - 1)), 2)
    if isinstance(x, TensorBase):
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[dim] = x.shape[0]
            x = reshape(x, *shape)
        xdim = normalize_dim(dim, x.ndim)
        widths = sub(narrow(x, xdim, 1, x.shape[xdim] - 1), narrow(x, xdim, 0, x.shape[xdim] - 1))
        return mul(heights, widths)
    step = x if x is not None else (dx if dx is not None else 1)
    return heights if step == 1 else mul(heights, step)


@public(method=False, aliases=("trapz",))
def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """$\\int y \\, dx$ along `dim` by the trapezoid rule, at points `x` (a tensor) or a
    spacing `dx` (or `x` a number; 1 by default)."""
    if y.shape[normalize_dim(dim, y.ndim)] == 0:
        return to(y, y.dtype).sum(dim)
    return trapezoid_areas(y, x, dx, dim).sum(dim)


@public(method=False)
def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoid integrals along `dim` (one fewer than `y` has)."""
    areas = trapezoid_areas(y, x, dx, dim)
    return cumsum(areas, normalize_dim(dim, y.ndim))


def running_extreme(a: Tensor, dim: int, largest: bool, name: str) -> ReturnTypes:
    """(values, indices) of the running max (`largest`) or min along `dim`; NaN wins."""
    dim = normalize_dim(dim, a.ndim) if a.ndim else 0
    if a.ndim == 0:
        return ReturnTypes(name, a.clone(), tensor(0, device=a.device))
    fold = operators.maximum if largest else operators.minimum
    if a.dtype.is_floating_point:
        start = -math.inf if largest else math.inf
    elif a.dtype is dtypes.bool_:
        start = not largest
    else:
        info = dtypes.iinfo(a.dtype)
        start = info.min if largest else info.max
    fold_dtype = a.dtype if a.dtype is not dtypes.bool_ else dtypes.int64
    running = scan_dim(fold, a.detach(), dim, start, fold_dtype)
    x = to(a.detach(), fold_dtype)
    holds = (x == running) | (x != x)
    shape = [1] * a.ndim
    shape[dim] = a.shape[dim]
    positions = reshape(arange(a.shape[dim], device=a.device), *shape)
    marked = where(holds, positions, 0)
    indices = scan_dim(operators.maximum, marked, dim, 0, dtypes.int64)
    return ReturnTypes(name, gather(a, dim, indices), indices)


@public()
def cummax(a: Tensor, dim: int):
    """The running maxima along `dim` and where each was (the latest of equal ones)."""
    return running_extreme(a, dim, True, "cummax")


@public()
def cummin(a: Tensor, dim: int):
    """The running minima along `dim` and where each was (the latest of equal ones)."""
    return running_extreme(a, dim, False, "cummin")


@public()
def logcumsumexp(a: Tensor, dim: int) -> Tensor:
    """$\\log \\sum_{j \\le i} e^{a_j}$ along `dim`, shifted by the maximum so that it does not
    overflow."""
    if not a.dtype.is_floating_point:
        a = to(a, dtypes.get_default_dtype())
    dim = normalize_dim(dim, a.ndim) if a.ndim else 0
    if a.ndim == 0:
        return a.clone()
    top = amax(a.detach(), dim, keepdim=True)
    top = where((top == math.inf) | (top == -math.inf) | (top != top), 0.0, top)
    return add(log(cumsum(exp(sub(a, top)), dim)), top)


def result_pair(name: str, first: str, second: str) -> type:
    """A pair type as `torch.return_types.<name>`: a tuple whose two items have names."""
    pair = collections.namedtuple(name, (first, second))

    def __repr__(self) -> str:
        return f"minitorch.return_types.{name}(\n{first}={self[0]!r},\n{second}={self[1]!r})"

    return type(name, (pair,), {"__slots__": (), "__repr__": __repr__})


MinMax = result_pair("aminmax", "min", "max")
Histogram = result_pair("histogram", "hist", "bin_edges")


@public()
def aminmax(a: Tensor, *, dim: int | None = None, keepdim: bool = False):
    """`(min, max)` over `dim` (all elements by default), as `amin` and `amax` give them."""
    dims = () if dim is None else dim
    if a.numel() == 0 and dim is None:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
            "identity."
        )
    low, high = amin(a, dims, keepdim), amax(a, dims, keepdim)
    if keepdim and dim is None:
        low, high = low.reshape((1,) * a.ndim), high.reshape((1,) * a.ndim)
    return MinMax(low, high)


@public()
def histogram(a: Tensor, bins=100, *, range=None, weight=None, density=False):
    """Counts (or summed `weight`s) of `a`'s elements in `bins` equal bins over `range`
    (the data's min and max by default), or between the edges of a `bins` tensor; the last
    bin includes its right edge. `density` divides by the total and the bin widths."""
    if not a.dtype.is_floating_point:
        raise RuntimeError(
            f"torch.histogram: input tensor and bins tensors should have the same dtype, but "
            f"got input {a.dtype.torch_scalar_name} and bins {a.dtype.torch_scalar_name}"
        )
    flat = a.detach().reshape(-1)
    if isinstance(bins, TensorBase):
        edges = bins
    else:
        if range is not None:
            low, high = float(range[0]), float(range[1])
        elif flat.numel():
            low, high = flat.min().item(), flat.max().item()
        else:
            low, high = 0.0, 0.0
        if low == high:
            low, high = low - 0.5, high + 0.5
        if low > high:
            raise RuntimeError(
                f"torch.histogram(): min should not exceed max, but got min {low} max {high}"
            )
        edges = linspace(low, high, bins + 1, dtype=a.dtype, device=a.device)
    n = edges.numel() - 1
    inside = (flat >= edges[0]) & (flat <= edges[-1])
    # bin k holds edges[k] <= x < edges[k + 1]; the last also holds its right edge
    above = (flat.unsqueeze(-1) >= edges[1:-1]).sum(-1) if n > 1 else flat.long() * 0
    one_hot = (above.unsqueeze(-1) == arange(n, device=a.device)) & inside.unsqueeze(-1)
    weights = to(one_hot, a.dtype)
    if weight is not None:
        weights = mul(weights, weight.detach().reshape(-1, 1))
    hist = weights.sum(0)
    if density:
        widths = sub(edges[1:], edges[:-1])
        hist = div(hist, mul(hist.sum(), widths))
    return Histogram(hist, edges)
