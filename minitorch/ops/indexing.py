"""Indexing: `a[key]` reads, `a[key] = value` writes.

A basic key (ints, slices, `...`, None) gives a view (`Index`); an index
list or tensor, or a bool mask, gives a copy of the chosen rows
(`IndexRows`). `a[key] = value` writes `value` through the view `a[key]`,
an in-place write (`inplace.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import GraphContext
from ..tensors.base import TensorBase
from ..tensors.creation import tensor
from ..tensors.kernels import new_tensor, scalar_tensor, view_of, write_into
from ..tensors.shapes import index_layout, normalize_key
from .functions import Op
from .inplace import copied_into, inplace

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


class IndexRows(Op):
    """`a[index]` with an index list or tensor, or a bool mask: a copy of the chosen rows."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, positions: list, shape: tuple) -> Tensor:
        ctx.input_shape, ctx.positions = tuple(a.shape), positions
        out = new_tensor(shape, a.dtype, a.device)
        rows = out.view((len(positions),) + tuple(a.shape[len(positions[0]) if positions else 1 :]))
        for row, position in enumerate(positions):
            write_into(rows[row], Index.apply(a, key=position))
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """Each row's gradient added into its source row (a row chosen twice gets both)"""
        positions = ctx.positions
        grad_input = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        rows = grad.reshape(
            (len(positions),) + ctx.input_shape[len(positions[0]) if positions else 1 :]
        )
        for row, position in enumerate(positions):
            target = view_of(grad_input, index_layout(grad_input._layout, position))
            write_into(target, target + rows[row])
        return grad_input


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
    positions = advanced_positions(a, key)
    index = key if isinstance(key, TensorBase) else tensor(key)
    if index.dtype is dtypes.bool_:
        shape = (len(positions),) + tuple(a.shape[index.ndim :])
    else:
        shape = tuple(index.shape) + tuple(a.shape[1:])
    return IndexRows.apply(a, positions=positions, shape=shape)


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
    """`a[key] = value`: write `value` (a number or a broadcastable tensor) into `a`'s view."""
    if is_advanced_key(key):
        positions = advanced_positions(a, key)
        values = value if isinstance(value, TensorBase) and value.numel() > 1 else None
        for row, position in enumerate(positions):
            setitem(a, position, value if values is None else values[row])
        return
    target = Index.apply(a, key=key)
    source = value if isinstance(value, TensorBase) else scalar_tensor(value, a.dtype)
    inplace(target, copied_into, source, checked=False)


def advanced_positions(a: Tensor, key) -> list[tuple]:
    """The basic keys that `a[key]` selects for an index list/tensor or a bool mask.

    Only one such key is supported, in the first position.
    """
    index = key if isinstance(key, TensorBase) else tensor(key)
    if index.dtype is dtypes.bool_:
        for k, (mask_size, size) in enumerate(zip(index.shape, a.shape, strict=False)):
            if mask_size != size:
                raise IndexError(
                    f"The shape of the mask {list(index.shape)} at index {k} does not match the "
                    f"shape of the indexed tensor {list(a.shape)} at index {k}"
                )
        return [tuple(int(i) for i in true) for true in np.argwhere(index.cpu().numpy())]
    if index.dtype is not dtypes.int64:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return [(int(i),) for i in index.cpu().numpy().reshape(-1)]


def is_advanced_key(key) -> bool:
    return isinstance(key, (list, TensorBase)) and not (
        isinstance(key, TensorBase) and key.ndim == 0 and key.dtype is dtypes.int64
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
