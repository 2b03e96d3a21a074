"""Indexing: `a[key]` reads, `a[key] = value` writes.

A basic key (ints, slices, `...`, None) gives a view (`Index`). A key with
index tensors (lists, ranges, arrays) or bool masks among its parts is the
one exception to "indexing is a view": `x[idx, t]` picks elements no strides
can describe, so it is a copy (`AdvancedIndex`). `IndexPlan` resolves such a
key as NumPy and PyTorch do: index tensors broadcast together, their shape
replaces the indexed dims when those are adjacent and goes first otherwise;
a mask stands for the indices of its true elements. The picked storage
positions are computed with tensor arithmetic (`positions.py`) and read by
the backend's `take`; `a[key] = value` writes them with `put`.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes, operators
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import GraphContext
from ..backends.tensor_data import TensorData, shape_broadcast
from ..tensors.base import TensorBase
from ..tensors.creation import tensor
from ..tensors.kernels import (
    apply_map,
    converted,
    new_tensor,
    scalar_tensor,
    view_of,
    with_shape,
    write_into,
)
from ..tensors.shapes import index_layout, normalize_key
from .functions import Op
from .inplace import check_writable, copied_into, inplace
from .positions import (
    along,
    as_index,
    broadcast_indices,
    checked_index,
    contiguous_int64,
    nonzero_indices,
    plus,
    put,
    scaled,
    take,
)
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


class Index(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, key) -> Tensor:
        """`a[key]` for ints, slices, `...` and None: a view"""
        ctx.input_shape, ctx.key = tuple(a.shape), key
        return view_of(a, index_layout(a._layout, key))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ in the selected region of a zero tensor of the input's shape"""
        if is_grad_enabled():  # backward(create_graph=True): the same, differentiable
            return Unindex.apply(grad, shape=ctx.input_shape, key=ctx.key)
        # BEGIN SOLUTION 2.6
        grad_input = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        write_into(view_of(grad_input, index_layout(grad_input._layout, ctx.key)), grad)
        return grad_input
        # END SOLUTION 2.6


class AdvancedIndex(Op):
    """`a[key]` with index tensors or masks in the key: a copy of the chosen elements."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, plan: IndexPlan) -> Tensor:
        """$out_i = a[p_i]$, $p$ the storage positions the key picks"""
        ctx.input_shape, ctx.plan = tuple(a.shape), plan
        return take(a, plan.positions(a._layout, a.device))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ added into a zero tensor at the picked positions (picked twice: both)"""
        grad_input = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        if is_grad_enabled():  # backward(create_graph=True): the same, differentiable
            return IndexPut.apply(grad_input, grad, plan=ctx.plan, accumulate=True)
        put(grad_input, ctx.plan.positions(grad_input._layout, grad.device), grad, True)
        return grad_input


class IndexPut(Op):
    """`a` with `values` written (added, if `accumulate`) at an advanced key.

    `a[key] = values` records it when autograd is on; `index_add_` and
    `index_fill_` are the same write under their own node names.
    """

    @staticmethod
    def forward(
        ctx: GraphContext, a: Tensor, values: Tensor, plan: IndexPlan, accumulate: bool = False
    ) -> Tensor:
        """A copy of $a$ with $a[p_i] = v_i$ (or `+=`)"""
        out = apply_map(operators.identity, a, a.dtype)
        positions = plan.positions(out._layout, a.device)
        put(out, positions, converted(values, a.dtype), accumulate)
        ctx.accumulate, ctx.plan = accumulate, plan
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor]:
        """$g$ to $a$ (zeros where written over); $g$ at the positions to `values`"""
        if is_grad_enabled():  # backward(create_graph=True): the same, differentiable
            zero = scalar_tensor(0, grad.dtype, grad.device)
            grad_a = grad if ctx.accumulate else IndexPut.apply(grad, zero, plan=ctx.plan)
            return grad_a, AdvancedIndex.apply(grad, plan=ctx.plan)
        grad_a = grad
        if not ctx.accumulate:
            grad_a = grad.clone()
            written = ctx.plan.positions(grad_a._layout, grad.device)
            put(grad_a, written, scalar_tensor(0, grad.dtype, grad.device), False)
        # positions in `grad`'s own layout: it may be a view (an expanded one, after a sum)
        return grad_a, take(grad, ctx.plan.positions(grad._layout, grad.device))


class IndexAdd(IndexPut):
    """`a.index_add(dim, index, source)`: `IndexPut` with adding."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, values: Tensor, plan: IndexPlan) -> Tensor:
        return IndexPut.forward(ctx, a, values, plan, True)


class IndexFill(IndexPut):
    """`a.index_fill(dim, index, value)`: `IndexPut` of one value."""


class IndexPlan:
    """An advanced key resolved against a shape: a basic key, then index tensors on its dims.

    `a[key]` is the view `a[basic]` (ints, slices, None, `...`, with `:` where the
    key has an index tensor) indexed along `dims` by the broadcast `indices`
    (checked and wrapped to be non-negative). A bool mask stands for the index
    tensors of its true elements, one per dim it covers.
    """

    def __init__(self, shape: tuple, key):
        parts = [as_key_part(k) for k in normalize_key(key)]
        if sum(k is Ellipsis for k in parts) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        consumed = sum(key_part_dims(k) for k in parts)
        if consumed > len(shape):
            raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
        basic, dims, indices, dim, source_dim = [], [], [], 0, 0
        for k in parts:
            if isinstance(k, TensorBase) and k.dtype is dtypes.bool_:
                check_mask(k, shape, source_dim)
                if k.ndim == 0:  # True adds a dim of size 1 and keeps it, False of size 0
                    basic.append(None)
                    dims.append(dim)
                    indices.append(tensor([0] if k.item() else [], dtype=dtypes.int64))
                for found in nonzero_indices(k) if k.ndim else []:
                    basic.append(slice(None))
                    dims.append(dim)
                    indices.append(found)
                    dim, source_dim = dim + 1, source_dim + 1
                dim += k.ndim == 0
            elif isinstance(k, TensorBase):
                basic.append(slice(None))
                dims.append(dim)
                indices.append(k)
                dim, source_dim = dim + 1, source_dim + 1
            else:
                basic.append(k)
                skipped = len(shape) - consumed if k is Ellipsis else 1
                dim += 0 if isinstance(k, (int, np.integer)) else skipped
                source_dim += 0 if k is None else skipped
        self.basic = tuple(basic)
        self.dims = dims
        self.shape = broadcast_indices(indices)
        self.view_sizes = self.view_shape(shape)
        self.indices = [
            checked_index(index, self.view_sizes[d], k)
            for k, (d, index) in enumerate(zip(dims, indices, strict=True))
        ]

    def view_shape(self, shape: tuple) -> tuple:
        """The shape of `a[basic]` for `a` of `shape`."""
        storage = np.empty(1)
        return index_layout(TensorData(storage, shape, (0,) * len(shape)), self.basic).shape

    def result_shape(self) -> tuple:
        """The shape of `a[key]`: index shape replaces adjacent indexed dims, else goes first"""
        before, after = self.placement()
        return before + self.shape + after

    def placement(self) -> tuple[tuple, tuple]:
        """The sizes of the view's other dims before and after the index shape in the result."""
        rest = [d for d in range(len(self.view_sizes)) if d not in self.dims]
        adjacent = self.dims == list(range(self.dims[0], self.dims[0] + len(self.dims)))
        first = self.dims[0] if adjacent else 0
        before = tuple(self.view_sizes[d] for d in rest if d < first)
        after = tuple(self.view_sizes[d] for d in rest if d >= first)
        return before, after

    def positions(self, layout: TensorData, on_device) -> Tensor:
        """The storage position of each element of `a[key]`, `a` with `layout`."""
        view = index_layout(layout, self.basic)
        before, after = self.placement()
        ndim = len(before) + len(self.shape) + len(after)
        total = scalar_tensor(view.offset, dtypes.int64, on_device)
        for d, index in zip(self.dims, self.indices, strict=True):
            # index tensors may live on the CPU while `a` lives elsewhere, as PyTorch allows
            total = plus(total, scaled(index.to(on_device), view.strides[d]))
        total = with_shape(
            contiguous_int64(total, self.shape), (1,) * len(before) + self.shape + (1,) * len(after)
        )
        rest = [d for d in range(view.ndim) if d not in self.dims]
        for place, d in enumerate(rest):
            at = place if place < len(before) else place + len(self.shape)
            total = plus(total, along(at, ndim, view.shape[d], view.strides[d], on_device))
        return contiguous_int64(total, self.result_shape())


def as_key_part(k):
    """One part of an indexing key: a sequence or a bool becomes a tensor.

    A uint8 tensor is a mask, as in PyTorch, which warns that this is deprecated.
    """
    if isinstance(k, bool):
        return tensor(k)
    if isinstance(k, (list, tuple, range, np.ndarray)):
        k = as_index(k)
    if isinstance(k, TensorBase) and k.dtype is dtypes.uint8:
        warnings.warn(
            "indexing with dtype minitorch.uint8 is now deprecated, please use a dtype "
            "minitorch.bool instead.",
            UserWarning,
            stacklevel=6,
        )
        return converted(k, dtypes.bool_)
    return k


def key_part_dims(k) -> int:
    """How many dims of the indexed tensor the key part `k` consumes."""
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, TensorBase) and k.dtype is dtypes.bool_:
        return k.ndim
    return 1


def check_mask(mask: Tensor, shape: tuple, source_dim: int) -> None:
    """PyTorch's error for a bool mask whose shape differs from the dims it covers."""
    for k, size in enumerate(mask.shape):
        if size != shape[source_dim + k]:
            raise IndexError(
                f"The shape of the mask {list(mask.shape)} at index {k} does not match the "
                f"shape of the indexed tensor {list(shape)} at index {source_dim + k}"
            )


def getitem(a: Tensor, key) -> Tensor:
    """`a[key]`: a view for ints, slices, `...` and None; a copy for an index tensor or mask.

    Recorded for autograd, a key of several parts is one view per part, as PyTorch
    records it: `x[0, 1]` is SelectBackward0 over SelectBackward0.
    """
    if not is_advanced_key(key):
        if not (isinstance(key, tuple) and is_grad_enabled() and a.requires_grad):
            return Index.apply(a, key=key)
        index_layout(a._layout, key)  # PyTorch's errors, for the key as a whole
        for step in index_steps(key, tuple(a.shape)):
            a = Index.apply(a, key=step)
        return a
    return AdvancedIndex.apply(a, plan=IndexPlan(tuple(a.shape), key))


def index_steps(key: tuple, shape: tuple) -> list[tuple]:
    """The one-part keys PyTorch applies in turn for the basic `key` on a tensor of `shape`.

    Each is a key of its own on the result of the one before: an int selects (its
    dim goes away), a slice slices (a full one is skipped), None inserts a dim and
    `...` passes over dims. With nothing left to apply, the result is an alias (key `()`).
    """
    key = normalize_key(key)
    skipped = len(shape) - sum(k is not None and k is not Ellipsis for k in key)
    steps, dim, source_dim = [], 0, 0  # dim: in the result so far; source_dim: in `shape`
    for k in key:
        if k is Ellipsis:
            dim, source_dim = dim + skipped, source_dim + skipped
        elif k is None:
            steps.append((slice(None),) * dim + (None,))
            dim += 1
        elif isinstance(k, slice):
            if k.indices(shape[source_dim]) != (0, shape[source_dim], 1):
                steps.append((slice(None),) * dim + (k,))
            dim, source_dim = dim + 1, source_dim + 1
        else:
            steps.append((slice(None),) * dim + (k,))
            source_dim += 1
    return steps or [()]


def setitem(a: Tensor, key, value) -> None:
    """`a[key] = value`: write `value` (a number or a broadcastable tensor) into `a`'s view.

    As in PyTorch, a tensor `value` loses its leading size-1 dims first, so that a `[1, 27]`
    value fits a `[27]` target (`index_put_` itself keeps them).
    """
    if isinstance(value, TensorBase):
        value = without_leading_ones(value)
    if is_advanced_key(key):
        put_at(a, key, value)
        return
    target = Index.apply(a, key=key)
    if not isinstance(value, TensorBase):
        value = scalar_tensor(dtypes.checked(value, a.dtype), a.dtype)  # overflow: an error
    inplace(target, copied_into, value, checked=False)


def fills_one_mask(key, value: Tensor) -> bool:
    """Whether `a[key] = value` is PyTorch's masked fill: one element written where the one
    index tensor of `key`, a bool (or uint8) mask, is True (`canDispatchToMaskedFill`)."""
    parts = [k for k in (key if isinstance(key, tuple) else (key,)) if is_advanced_key(k)]
    return (
        value.numel() == 1
        and len(parts) == 1
        and isinstance(parts[0], TensorBase)
        and parts[0].dtype in (dtypes.bool_, dtypes.uint8)
    )


def without_leading_ones(value: Tensor) -> Tensor:
    """`value` as a view without its leading dims of size 1 (PyTorch's `slicePrefix1sSize`)."""
    shape = tuple(value.shape)
    ones = next((k for k, size in enumerate(shape) if size != 1), len(shape))
    return value.reshape(shape[ones:]) if ones else value


def put_at(a: Tensor, key, value, accumulate: bool = False) -> Tensor:
    """`a[key] = value` for an advanced key: `value` broadcast to the shape `a[key]` has
    (added, with repeated elements adding up, if `accumulate`).

    Every check (index bounds, the value's shape) comes before the first write.
    """
    check_writable(a, overlap_ok=True)  # PyTorch only warns on an expanded tensor here
    plan = IndexPlan(tuple(a.shape), key)
    source = value if isinstance(value, TensorBase) else scalar_tensor(value, a.dtype, a.device)
    if source.dtype is not a.dtype and not accumulate and fills_one_mask(key, source):
        source = source.to(a.dtype)  # PyTorch runs masked_fill_, which takes any dtype
    if source.dtype is not a.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{a.dtype.torch_scalar_name} for the destination and "
            f"{source.dtype.torch_scalar_name} for the source."
        )
    shape = plan.result_shape()
    try:
        fits = shape_broadcast(tuple(source.shape), shape) == shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(source.shape)} cannot be broadcast "
            f"to indexing result of shape {list(shape)}"
        )
    if is_grad_enabled() and (a.requires_grad or source.requires_grad):
        return inplace(a, index_put, source, plan, accumulate, checked=False)
    put(a, plan.positions(a._layout, a.device), converted(source, a.dtype), accumulate)
    return a


@public(torch=False)
def index_put_(a: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """`a[indices] = values` for a tuple of index tensors (added up if `accumulate`)."""
    return put_at(a, tuple(indices), values, accumulate)


def index_put(a: Tensor, values: Tensor, plan: IndexPlan, accumulate: bool) -> Tensor:
    """A copy of `a` with `values` written at `plan`'s elements (IndexPutBackward0)."""
    return IndexPut.apply(a, values, plan=plan, accumulate=accumulate)


def is_advanced_key(key) -> bool:
    """Whether `key` holds an index tensor, sequence, array or mask (a copy, not a view)."""
    return any(
        isinstance(k, (list, tuple, range, np.ndarray, bool))
        or (isinstance(k, TensorBase) and (k.ndim > 0 or k.dtype in (dtypes.bool_, dtypes.uint8)))
        for k in (key if isinstance(key, tuple) else (key,))
    )


class Unindex(Op):
    """Index's backward as an operation, for second derivatives: `g` placed at `key` in
    zeros of `shape`; its own backward reads `key` back."""

    @staticmethod
    def forward(ctx: GraphContext, grad: Tensor, shape: tuple, key) -> Tensor:
        """zeros of `shape` with `grad` written at `key`"""
        ctx.key = key
        out = new_tensor(shape, grad.dtype, grad.device)
        write_into(view_of(out, index_layout(out._layout, key)), grad)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g[key]$"""
        return Index.apply(grad, key=ctx.key)
