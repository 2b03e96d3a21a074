"""Writing into tensors: in-place operations (`add_`, `+=`, `fill_`, `copy_`, ...) and indexing.

An in-place operation computes its result with the function of
`tensor_api.py`, checks it against PyTorch's in-place rules, writes it into
the tensor's storage and bumps the version counter that autograd checks.
`a[key]` is a view for basic keys (ints, slices, `...`, None) and a copy for
an index tensor or a bool mask; `a[key] = value` writes through that view.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes, operators
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import GraphContext
from ..backends.tensor_data import TensorData
from ..tensors.base import TensorBase
from ..tensors.creation import from_numpy, generator, tensor
from ..tensors.kernels import (
    Number,
    alias,
    apply_map,
    new_tensor,
    scalar_tensor,
    view_of,
    write_into,
)
from ..tensors.shapes import (
    index_layout,
    normalize_key,
)
from .api import (
    add,
    clamp,
    div,
    exp,
    log,
    mul,
    neg,
    relu,
    sigmoid,
    sqrt,
    sub,
    t,
    tanh,
    tensor_abs,
    tensor_pow,
    to,
)
from .functions import Expand, Index, IndexRows

if TYPE_CHECKING:
    from .._tensor import Tensor

# ---------------------------------------------------------------------------
# Writing in place: compute, check the dtype, write into the same storage.
# With autograd on, the written tensor's history is rebased onto the result
# (and a view's base gets a CopySlices node), as in PyTorch.
# ---------------------------------------------------------------------------


def inplace(a: Tensor, operation, *args, checked: bool = True) -> Tensor:
    """`a <- operation(a, *args)` in `a`'s storage; bumps `a`'s version counter.

    `checked`: PyTorch's in-place rules (the result must keep `a`'s shape and
    be castable to its dtype); copies (`copy_`, `fill_`, setitem) only broadcast.
    """
    recording = is_grad_enabled() and (
        a.requires_grad or builtins.any(isinstance(x, TensorBase) and x.requires_grad for x in args)
    )
    if recording:
        check_inplace_allowed(a)
        # the operation may save its input for backward: give it the values before the write
        result = operation(snapshot(a), *args)
    else:
        result = operation(a, *args)
    if checked:
        check_inplace_result(a, result)
    write_into(a, result)
    if recording:
        rebase_history(a, result)
    return a


def check_inplace_allowed(a: Tensor) -> None:
    """PyTorch's errors for writing into a leaf that requires grad (or a view of one)."""
    if a.is_leaf and a._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    base = a._base
    if base is not None and base.is_leaf and base._requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )


def snapshot(a: Tensor) -> Tensor:
    """A copy of `a`'s values that stands for `a` in the graph (same `grad_fn`)."""
    copy = apply_map(operators.identity, a, a.dtype)
    copy.grad_fn = a.grad_fn
    return copy


def rebase_history(a: Tensor, result: Tensor) -> None:
    """After `a` was overwritten with `result`: `a`'s history is now `result`'s."""
    if a._base is None:
        a.grad_fn = result.grad_fn
        return
    base = a._base
    base.grad_fn = CopySlices.apply(base, result, region=a._layout).grad_fn
    a.grad_fn = AsStrided.apply(base, region=a._layout).grad_fn


def check_inplace_result(a: Tensor, result: Tensor) -> None:
    """An in-place result must have `a`'s shape and a dtype castable to `a`'s."""
    if not dtypes.can_cast(result.dtype, a.dtype):
        raise RuntimeError(
            f"result type {result.dtype.torch_scalar_name} can't be cast to the desired output "
            f"type {a.dtype.torch_scalar_name}"
        )
    if tuple(result.shape) != tuple(a.shape):
        raise RuntimeError(
            f"output with shape {list(a.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )


def copied_into(a: Tensor, source: Tensor) -> Tensor:
    """`source` broadcast to `a`'s shape and cast to its dtype (what `copy_` writes)."""
    return to(Expand.apply(source, sizes=tuple(a.shape)), a.dtype)


class CopySlices(Function):
    """The history of a tensor after an in-place write into its view `region`.

    Outside the region the tensor still holds its old values (their gradient
    flows to the old history); inside it holds `result` (its gradient flows there).
    """

    @classmethod
    def node_name(cls, base, result, region) -> str:
        return "minitorch::autograd::CopySlices"

    @staticmethod
    def forward(ctx: GraphContext, base: Tensor, result: Tensor, region: TensorData) -> Tensor:
        if not base.is_contiguous():
            raise RuntimeError(
                "autograd cannot record an in-place write into a view of a non-contiguous tensor"
            )
        ctx.region = region_in(base, region)
        return alias(base)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor, Tensor]:
        """$g$ outside the region to the old history, $g$ inside it to `result`"""
        grad_base = grad.clone()
        shape, strides, offset = ctx.region
        in_region = view_of(
            grad_base, TensorData(grad_base._layout.storage, shape, strides, offset)
        )
        grad_result = in_region.clone()
        write_into(in_region, scalar_tensor(0, grad.dtype))
        return grad_base, grad_result


class AsStrided(Function):
    """A view `region` of `base` read again after an in-place write (its new history)."""

    @staticmethod
    def forward(ctx: GraphContext, base: Tensor, region: TensorData) -> Tensor:
        ctx.input_shape = tuple(base.shape)
        ctx.region = region_in(base, region)
        return view_of(base, region)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        shape, strides, offset = ctx.region
        grad_base = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        write_into(
            view_of(grad_base, TensorData(grad_base._layout.storage, shape, strides, offset)), grad
        )
        return grad_base


def region_in(base: Tensor, region: TensorData) -> tuple:
    """(shape, strides, offset) of view `region` relative to its contiguous `base`."""
    return tuple(region.shape), tuple(region.strides), region.offset - base.storage_offset()


# ---------------------------------------------------------------------------
# In-place operations: `add_`, `mul_`, ..., `fill_`, `copy_`, random fills
# ---------------------------------------------------------------------------


def add_(a: Tensor, b, alpha: Number = 1) -> Tensor:
    """$a \\leftarrow a + \\alpha b$ in place."""
    return inplace(a, add, b, alpha)


def sub_(a: Tensor, b, alpha: Number = 1) -> Tensor:
    """$a \\leftarrow a - \\alpha b$ in place."""
    return inplace(a, sub, b, alpha)


def mul_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a \\cdot b$ in place."""
    return inplace(a, mul, b)


def div_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a / b$ in place."""
    return inplace(a, div, b)


def pow_(a: Tensor, b) -> Tensor:
    """$a \\leftarrow a^b$ in place."""
    return inplace(a, tensor_pow, b)


def neg_(a: Tensor) -> Tensor:
    return inplace(a, neg)


def abs_(a: Tensor) -> Tensor:
    return inplace(a, tensor_abs)


def exp_(a: Tensor) -> Tensor:
    return inplace(a, exp)


def log_(a: Tensor) -> Tensor:
    return inplace(a, log)


def sqrt_(a: Tensor) -> Tensor:
    return inplace(a, sqrt)


def sigmoid_(a: Tensor) -> Tensor:
    return inplace(a, sigmoid)


def tanh_(a: Tensor) -> Tensor:
    return inplace(a, tanh)


def relu_(a: Tensor) -> Tensor:
    """$a \\leftarrow \\max(a, 0)$ in place."""
    return inplace(a, relu)


def clamp_(a: Tensor, min=None, max=None) -> Tensor:  # noqa: A002
    """Clamp `a` to `[min, max]` in place."""
    return inplace(a, clamp, min, max)


def fill_(a: Tensor, value: Number) -> Tensor:
    """Set every element of `a` to `value`."""
    if isinstance(value, TensorBase):
        if value.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        value = value.item()
    return inplace(a, copied_into, scalar_tensor(value, a.dtype), checked=False)


def zero_(a: Tensor) -> Tensor:
    """Set every element of `a` to 0."""
    return fill_(a, 0)


def copy_(a: Tensor, source: Tensor) -> Tensor:
    """Copy `source` (broadcast to `a`'s shape, any dtype) into `a`."""
    source = source if isinstance(source, TensorBase) else tensor(source)
    return inplace(a, copied_into, source, checked=False)


def t_(a: Tensor) -> Tensor:
    """Transpose `a` itself: its layout changes, its storage does not."""
    a._layout = t(a)._layout
    return a


def uniform_(a: Tensor, low: float = 0.0, high: float = 1.0) -> Tensor:
    """Fill `a` with samples from $U(low, high)$ drawn by the seeded generator."""
    values = generator().uniform(low, high, size=a.shape)
    return copy_(a, from_numpy(np.asarray(values, dtype=a.dtype.numpy_dtype)))


def normal_(a: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fill `a` with samples from $N(mean, std^2)$ drawn by the seeded generator."""
    values = generator().normal(mean, std, size=a.shape)
    return copy_(a, from_numpy(np.asarray(values, dtype=a.dtype.numpy_dtype)))


# ---------------------------------------------------------------------------
# Indexing: `a[key]` reads a view (or a copy for index tensors and masks), `a[key] = v` writes
# ---------------------------------------------------------------------------


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
    skipped = len(shape) - builtins.sum(k is not None and k is not Ellipsis for k in key)
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
        return [tuple(int(i) for i in where_true) for where_true in np.argwhere(index.numpy())]
    if index.dtype is not dtypes.int64:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return [(int(i),) for i in index.numpy().reshape(-1)]


def is_advanced_key(key) -> bool:
    return isinstance(key, (list, TensorBase)) and not (
        isinstance(key, TensorBase) and key.ndim == 0 and key.dtype is dtypes.int64
    )
