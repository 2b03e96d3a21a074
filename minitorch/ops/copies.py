"""Copies and conversions: `clone`, `to` (another dtype or device), `detach`.

`Copy` writes `a`'s elements into a fresh contiguous tensor; its backward
hands the gradient back unchanged (the autograd layer casts it to the
input's dtype). `detach` copies nothing: it is `a`'s storage outside the graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.graph import GraphContext
from ..dtypes import DType
from ..tensors.base import TensorBase
from ..tensors.device import check_device
from ..tensors.device import device as Device
from ..tensors.kernels import alias, apply_map, converted, moved
from .functions import Op
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


class Copy(Op):
    """A contiguous copy: `clone()` (kind Clone), or a dtype or device change (kind ToCopy)."""

    @staticmethod
    def forward(
        ctx: GraphContext, a: Tensor, dtype: DType, kind: str = "Clone", device=None
    ) -> Tensor:
        """A contiguous copy of `a` with `dtype`, on `device` (`a`'s when None)"""
        ctx.source_device = a.device
        if device is None or device == a.device:
            return apply_map(operators.identity, a, dtype)
        return converted(moved(a, device), dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ on the input's device (cast back to its dtype by the autograd layer)"""
        return grad if grad.device == ctx.source_device else moved(grad, ctx.source_device)


@public()
def clone(a: Tensor) -> Tensor:
    """A contiguous copy of `a` with its own storage."""
    return Copy.apply(a, dtype=a.dtype)


def to_targets(args: tuple, dtype=None, device=None) -> tuple:
    """(dtype, device) that the arguments of `to` name: positionally a dtype, a device (or its
    name) or a tensor (its dtype and device), else the keywords; None where none is named."""
    for arg in args:
        if isinstance(arg, TensorBase):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, (str, Device)):
            device = arg
        else:
            dtype = arg
    return dtype, device


@public(torch=False)
def to(a: Tensor, *args, dtype=None, device=None, copy=False, non_blocking=False) -> Tensor:
    """`a` with another dtype and/or device; `a` itself when nothing changes."""
    target_dtype, target_device = to_targets(args, dtype, device)
    new_dtype = a.dtype if target_dtype is None else dtypes.to_dtype(target_dtype)
    new_device = a.device if target_device is None else check_device(Device(target_device))
    if new_dtype is a.dtype and new_device == a.device and not copy:
        return a
    return Copy.apply(a, dtype=new_dtype, kind="ToCopy", device=new_device)


@public(torch=False)
def type_as(a: Tensor, other: Tensor) -> Tensor:
    """`a` converted to `other`'s dtype."""
    return to(a, other.dtype)


@public()
def detach(a: Tensor) -> Tensor:
    """`a`'s storage and layout, outside the autograd graph (shares the version counter)."""
    return alias(a)
