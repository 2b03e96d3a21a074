"""Selecting by a condition: masked_fill, masked_select, nonzero, where, unique, counting.

`masked_fill` is the `where` kernel with a constant; `masked_select` is
`a[mask]` (an advanced index). `nonzero` and `unique` have a size that
depends on the values: they run on the backend's kernels (a scan gives each
kept element its place, a put writes it there) and read one number, that
size, in host memory (as PyTorch synchronises with the GPU for it); `unique`
sorts first and keeps the first of each run of equal values. `bincount` and
`histc` add ones at computed positions (the backend's `put`, accumulating);
`searchsorted` runs PyTorch's binary search for all values at once, one
halving per step of kernels. `unique(dim=...)` reads the slices in host memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes, operators
from ..autograd.graph import GraphContext
from ..backends import backend_for
from ..backends.tensor_data import TensorData, shape_broadcast
from ..tensors.base import TensorBase
from ..tensors.creation import zeros
from ..tensors.kernels import (
    apply_zip,
    converted,
    float_version,
    new_tensor,
    scalar_tensor,
    scan_dim,
    scatter_along,
    sort_dim,
    view_of,
    with_shape,
    write_into,
)
from ..tensors.shapes import not_implemented
from .comparisons import where as where3
from .functions import Op
from .indexing import AdvancedIndex, IndexPlan
from .inplace import inplace
from .positions import grid_positions, host_result, nonzero_ordinals, put, scaled, take, unraveled
from .public import public
from .views import expand

if TYPE_CHECKING:
    from .._tensor import Tensor

# ---------------------------------------------------------------------------
# masked_fill, masked_select
# ---------------------------------------------------------------------------


class MaskedFill(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, value: Tensor, mask: Tensor) -> Tensor:
        """$value$ where $mask_i$, else $a_i$ (broadcast), in `a`'s dtype"""
        ctx.save_for_backward(mask)
        shape = shape_broadcast(tuple(a.shape), tuple(mask.shape))
        out = new_tensor(shape, a.dtype, a.device)
        value = converted(value, a.dtype)
        backend_for(a.device).where(out._layout, mask._layout, value._layout, a._layout)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor]:
        """$g$ where the mask is false to `a`; the sum of $g$ where it is true to `value`"""
        (mask,) = ctx.saved_tensors
        return grad.where(~mask, 0.0), grad.where(mask, 0.0)


def mask_check(mask, name: str) -> None:
    if not isinstance(mask, TensorBase) or mask.dtype is not dtypes.bool_:
        found = mask.dtype.torch_scalar_name.lower() if isinstance(mask, TensorBase) else "?"
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype {found}")


@public()
def masked_fill(a: Tensor, mask: Tensor, value) -> Tensor:
    """`value` where `mask` is True, `a` elsewhere.

    >>> import minitorch
    >>> x = minitorch.tensor([1.0, -2.0, 3.0])
    >>> x.masked_fill(x < 0, 0.0)
    tensor([1., 0., 3.])
    """
    mask_check(mask, "masked_fill_")
    if isinstance(value, TensorBase):
        if value.ndim:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
    else:
        value = scalar_tensor(dtypes.checked(value, a.dtype), a.dtype, a.device)
    return MaskedFill.apply(a, value, mask=mask)


@public(torch=False)
def masked_fill_(a: Tensor, mask: Tensor, value) -> Tensor:
    """`masked_fill` in place."""
    return inplace(a, masked_fill, mask, value)


class MaskedSelect(AdvancedIndex):
    """`a.masked_select(mask)`: `a[mask]` (1-D) under its own node name."""


@public()
def masked_select(a: Tensor, mask: Tensor) -> Tensor:
    """The elements of `a` where `mask` is True (both broadcast), as a 1-D tensor.

    >>> import minitorch
    >>> x = minitorch.tensor([[1, 2], [3, 4]])
    >>> x.masked_select(x > 1)
    tensor([2, 3, 4])
    """
    if not isinstance(mask, TensorBase) or mask.dtype is not dtypes.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = shape_broadcast(tuple(a.shape), tuple(mask.shape))
    a = a if tuple(a.shape) == shape else expand(a, shape)
    mask = mask if tuple(mask.shape) == shape else expand(mask, shape)
    if not shape:
        a, mask = a.reshape(1), mask.reshape(1)
    return MaskedSelect.apply(a, plan=IndexPlan(tuple(a.shape), mask))


# ---------------------------------------------------------------------------
# nonzero, argwhere, one-argument where
# ---------------------------------------------------------------------------


@public()
def nonzero(a: Tensor, *, as_tuple: bool = False):
    """The indices of the nonzero elements: an (n, ndim) int64 tensor, one row per element.

    With `as_tuple=True`, one 1-D tensor per dim instead (what `a[...]` takes).
    >>> import minitorch
    >>> minitorch.tensor([[0, 1], [2, 0]]).nonzero()
    tensor([[0, 1],
            [1, 0]])
    """
    ordinals = nonzero_ordinals(a)  # on the backend's kernels: a scan, then a put
    if as_tuple:
        return tuple(unraveled(ordinals, tuple(a.shape) or (1,)))
    count = ordinals.shape[0]
    out = new_tensor((count, a.ndim), dtypes.int64, a.device)
    for k, column in enumerate(unraveled(ordinals, tuple(a.shape))):
        write_into(view_of(out, TensorData(out._layout.storage, (count,), (a.ndim,), k)), column)
    return out


@public()
def argwhere(a: Tensor) -> Tensor:
    """`nonzero(a)`: one row of indices per nonzero element."""
    return nonzero(a)


@public(method=False)
def where(condition: Tensor, input=None, other=None):
    """`input` where `condition` is True, else `other`; with the condition alone, its
    nonzero indices (`nonzero(condition, as_tuple=True)`)."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() takes a condition and two values, or the condition alone")
    return where3(condition, input, other)


# ---------------------------------------------------------------------------
# unique, searchsorted, bincount, histc
# ---------------------------------------------------------------------------


@public()
def unique(
    a: Tensor,
    sorted: bool = True,  # the values always come out sorted
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
):
    """The distinct values of `a` (or distinct slices along `dim`), sorted.

    `return_inverse`: also where each element of `a` went; `return_counts`:
    also how often each value occurs.
    >>> import minitorch
    >>> minitorch.tensor([3, 1, 3, 2]).unique(return_counts=True)
    (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    if dim is not None:
        return unique_along(a, dim, return_inverse, return_counts)
    flat = a.reshape(-1)
    values, order = sort_dim(flat, 0, False) if flat.numel() else (flat, None)
    return distinct(values, order, tuple(a.shape), return_inverse, return_counts)


@public()
def unique_consecutive(
    a: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
):
    """`a` with each run of equal consecutive values kept once (of slices along `dim`).

    >>> import minitorch
    >>> minitorch.tensor([1, 1, 2, 2, 1]).unique_consecutive(return_counts=True)
    (tensor([1, 2, 1]), tensor([2, 2, 1]))
    """
    if dim is not None:
        return unique_along(a, dim, return_inverse, return_counts, consecutive=True)
    return distinct(a.reshape(-1), None, tuple(a.shape), return_inverse, return_counts)


def distinct(values: Tensor, order, shape: tuple, return_inverse: bool, return_counts: bool):
    """The runs of equal values of the 1-D `values` (sorted, or in their order), on the
    backend's kernels: a flag where a run starts ($v_i \ne v_{i-1}$, so each NaN is its
    own), a scan of the flags (each element's run), a put of each run's value.

    `order`: where each sorted value came from (None: `values` are in `a`'s order).
    """
    size, device = values.shape[0], values.device
    flags = new_tensor((size,), dtypes.int64, device)
    if size:
        write_into(part(flags, 0, 1), scalar_tensor(1, dtypes.int64, device))
        starts = apply_zip(
            operators.ne, part(values, 1, size), part(values, 0, size - 1), dtypes.int64
        )
        write_into(part(flags, 1, size), starts)
    runs = scan_dim(operators.add, flags, 0, -1, dtypes.int64)
    count = int(runs[size - 1].item()) + 1 if size else 0
    found = new_tensor((count,), values.dtype, device)
    put(found, runs, values, False)
    result = [found]
    if return_inverse:
        inverse = runs if order is None else scatter_along((size,), runs, order, 0)
        result.append(with_shape(inverse.contiguous(), shape))
    if return_counts:
        counts = new_tensor((count,), dtypes.int64, device)
        put(counts, runs, scalar_tensor(1, dtypes.int64, device), True)
        result.append(counts)
    return result[0] if len(result) == 1 else tuple(result)


def part(t: Tensor, start: int, stop: int) -> Tensor:
    """The view `t[start:stop]` of a 1-D tensor."""
    layout = t._layout
    step = layout.strides[0]
    return view_of(
        t, TensorData(layout.storage, (stop - start,), (step,), layout.offset + start * step)
    )


def unique_along(a: Tensor, dim: int, return_inverse: bool, return_counts: bool, consecutive=False):
    """`unique` of the slices along `dim`, read in host memory (NumPy's `unique`)."""
    values = a._host_values()
    axis = dim % max(a.ndim, 1)
    if consecutive:
        moved = np.moveaxis(values, axis, 0).reshape(values.shape[axis] if values.ndim else 1, -1)
        starts = np.ones(len(moved), dtype=bool)
        starts[1:] = (moved[1:] != moved[:-1]).any(axis=1)
        inverse = np.cumsum(starts) - 1
        found = np.take(values, np.flatnonzero(starts), axis=axis)
        counts = np.diff(np.append(np.flatnonzero(starts), len(moved)))
    else:
        found, inverse, counts = np.unique(
            values, return_inverse=True, return_counts=True, axis=axis
        )
    result = [host_result(found, a.device)]
    if return_inverse:
        result.append(host_result(inverse.reshape(-1).astype(np.int64), a.device))
    if return_counts:
        result.append(host_result(counts.astype(np.int64), a.device))
    return result[0] if len(result) == 1 else tuple(result)


def searchsorted_checks(sorted_sequence: Tensor, values, right: bool, side, sorter) -> bool:
    """`right` as `side` says, after PyTorch's checks of the arguments."""
    name = "torch.searchsorted()"
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{name}: side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(
                f"{name}: side and right can't be set to opposites, got side of left while "
                "right was True"
            )
        right = side == "right"
    shape = tuple(sorted_sequence.shape)
    if sorter is not None:
        if tuple(sorter.shape) != shape:
            raise RuntimeError(
                f"{name}: boundary and sorter must have the same size, but got boundary tensor "
                f"{list(shape)}and got sorter tensor {list(sorter.shape)}"
            )
        if sorter.dtype is not dtypes.int64:
            raise RuntimeError(
                f"{name}: sorter must be a tensor of long dtype but got dtype "
                f"{sorter.dtype.torch_scalar_name}"
            )
        if sorter.numel() and (int(sorter.min()) < 0 or int(sorter.max()) >= shape[-1]):
            raise RuntimeError(f"{name}: sorter index out of range")
    if values.ndim == 0 and len(shape) != 1:
        raise RuntimeError(
            f"{name}: input value can be a scalar only when boundaries tensor dimension is 1, "
            f"but we got boundaries tensor dim({len(shape)}) and input value's dim(0) numel(1)"
        )
    if not shape:
        raise RuntimeError(
            f"{name}: boundaries tensor should have positive dimension, but got 0 dimension"
        )
    if len(shape) > 1 and (values.ndim != len(shape) or values.shape[:-1] != shape[:-1]):
        raise RuntimeError(
            f"{name}: boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            "boundaries tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(shape)} and input value tensor {list(values.shape)}"
        )
    return right


def line_starts(t: Tensor) -> tuple[Tensor, int]:
    """The storage position of the first element of each line of `t` along its last dim
    (shaped to broadcast against those lines), and the step along them."""
    layout = t._layout
    starts = grid_positions(layout.shape[:-1], layout.strides[:-1], layout.offset, t.device)
    if len(layout.shape) > 1:  # one line per value's line; a 1-D tensor's serves all values
        starts = starts.view((*layout.shape[:-1], 1))
    return starts, layout.strides[-1]


def int64_zip(fn, a: Tensor, b: Tensor) -> Tensor:
    return apply_zip(fn, a, b, dtypes.int64)


def chosen(condition: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """$a_i$ where $condition_i$, else $b_i$ (int64, `b`'s shape)."""
    out = new_tensor(tuple(b.shape), dtypes.int64, b.device)
    backend_for(b.device).where(out._layout, condition._layout, a._layout, b._layout)
    return out


def bisect(boundaries: Tensor, values: Tensor, sorter, right: bool) -> Tensor:
    """For each value, PyTorch's binary search of its line of `boundaries` (last dim).

    The search keeps $[start, end)$ and halves it with $mid = \\lfloor (start + end)/2
    \rfloor$: it goes right of $mid$ unless $b_{mid} \\ge v$ ($b_{mid} > v$ if `right`),
    so a NaN anywhere gives PyTorch's answer too. All lines move together, one step of
    kernels per halving ($\\lfloor \\log_2 n \rfloor + 1$ of them), each line reading
    its element $b_{mid}$ (or $b_{sorter_{mid}}$) with the backend's `take`.
    """
    n, device = boundaries.shape[-1], values.device
    rows, step = line_starts(boundaries)
    if sorter is not None:
        sorter_rows, sorter_step = line_starts(sorter)
    number = lambda k: scalar_tensor(k, dtypes.int64, device)  # noqa: E731
    start = new_tensor(tuple(values.shape), dtypes.int64, device)
    end = int64_zip(operators.add, start, number(n))
    stop_at = operators.gt if right else operators.ge
    for _ in range(n.bit_length()):
        mid = int64_zip(operators.floor_divide, int64_zip(operators.add, start, end), number(2))
        at = int64_zip(operators.minimum, mid, number(n - 1))
        if sorter is not None:
            at = take(sorter, int64_zip(operators.add, sorter_rows, scaled(at, sorter_step)))
        at = int64_zip(operators.add, rows, scaled(at, step))
        stop = apply_zip(stop_at, take(boundaries, at), values, dtypes.bool_)
        active = apply_zip(operators.lt, start, end, dtypes.bool_)
        go_right = apply_zip(operators.lt, stop, active, dtypes.bool_)  # active, not stop
        stop = apply_zip(operators.logical_and, stop, active, dtypes.bool_)
        start = chosen(go_right, int64_zip(operators.add, mid, number(1)), start)
        end = chosen(stop, mid, end)
    return start


@public(method=False)
def searchsorted(
    sorted_sequence: Tensor,
    values,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    r"""For each value, where to insert it into its line of `sorted_sequence` (the last dim)
    to keep the order: the first position $i$ with $b_i \ge v$ ($b_i > v$ for `right=True`
    or `side="right"`), $n$ if none. `sorter` gives the order of an unsorted sequence
    (what `argsort` returns); `out_int32` the result's dtype.

    >>> import minitorch
    >>> minitorch.searchsorted(minitorch.tensor([1, 3, 5, 7]), minitorch.tensor([3, 6]))
    tensor([1, 3])
    """
    if not isinstance(values, TensorBase):
        values = scalar_tensor(values, dtypes.result_type(values), sorted_sequence.device)
    right = searchsorted_checks(sorted_sequence, values, right, side, sorter)
    dtype = dtypes.promote_types(sorted_sequence.dtype, values.dtype)
    if dtype is dtypes.bool_:
        raise not_implemented("searchsorted_out_cpu", dtype)
    found = bisect(converted(sorted_sequence, dtype), converted(values, dtype), sorter, right)
    return converted(found, dtypes.int32) if out_int32 else found


@public(method=False)
def bucketize(
    input: Tensor, boundaries: Tensor, *, out_int32: bool = False, right: bool = False
) -> Tensor:
    """The bucket of each element of `input` among the 1-D sorted `boundaries`:
    `searchsorted(boundaries, input, right=right)`.

    >>> import minitorch
    >>> minitorch.bucketize(minitorch.tensor([0.5, 3.0]), minitorch.tensor([1.0, 3.0]))
    tensor([0, 1])
    """
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


@public()
def bincount(a: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How many times each of $0, 1, \\ldots$ occurs in the 1-D int tensor `a` (the sum of
    `weights` at its occurrences, with weights).

    >>> import minitorch
    >>> minitorch.bincount(minitorch.tensor([1, 3, 3, 0]))
    tensor([1, 1, 0, 2])
    """
    if a.dtype.is_floating_point or a.dtype is dtypes.bool_:
        raise not_implemented("bincount_cpu", a.dtype)
    if a.ndim != 1 or (a.numel() and int(a.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    length = max(int(a.max()) + 1 if a.numel() else 0, minlength)
    if weights is None:
        counts = zeros(length, dtype=dtypes.int64, device=a.device)
        put(counts, a.contiguous(), scalar_tensor(1, dtypes.int64, a.device), True)
        return counts
    dtype = weights.dtype if weights.dtype.is_floating_point else dtypes.float64
    counts = zeros(length, dtype=dtype, device=a.device)
    put(counts, a.contiguous(), converted(weights.detach(), dtype), True)
    return counts


@public()
def histc(a: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """A histogram: counts of the elements in `bins` equal-width bins over `[min, max]`
    (the data's range when both are 0); elements outside are not counted."""
    if not a.dtype.is_floating_point:
        raise not_implemented("histogram_cpu", a.dtype)
    low, high = float(min), float(max)
    if low == high and a.numel():
        low, high = float(a.min()), float(a.max())
    if low == high:
        low, high = low - 1, high + 1
    x = a.detach()
    inside = (x >= low).logical_and(x <= high)
    scaled = float_version((x - low) * bins / (high - low))
    position = converted(scaled.clamp(0, bins - 1), dtypes.int64)
    counts = zeros(bins, dtype=a.dtype, device=a.device)
    put(counts, position.contiguous(), converted(inside, a.dtype), True)
    return counts
