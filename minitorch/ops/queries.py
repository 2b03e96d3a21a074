"""Questions about a tensor that PyTorch asks as functions: `is_floating_point`,
`is_signed`, `is_nonzero`, `is_same_size`, `get_device`, `numel`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


@public(method=False)
def is_floating_point(a: Tensor) -> bool:
    """Whether `a`'s dtype is a floating-point one."""
    return a.dtype.is_floating_point


@public()
def is_nonzero(a: Tensor) -> bool:
    """Whether the one element of `a` is nonzero (an error for any other number of them)."""
    if a.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if a.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return a.item() != 0


@public()
def is_same_size(a: Tensor, other: Tensor) -> bool:
    """Whether `a` and `other` have the same shape."""
    return tuple(a.shape) == tuple(other.shape)


@public()
def get_device(a: Tensor) -> int:
    """The index of `a`'s GPU, or -1 for a CPU tensor."""
    return -1 if a.device.type == "cpu" else (a.device.index or 0)


@public()
def is_signed(a: Tensor) -> bool:
    """Whether `a`'s dtype holds negative numbers (every one but uint8 and bool)."""
    return a.dtype not in (dtypes.uint8, dtypes.bool_)


@public(method=False)
def numel(a: Tensor) -> int:
    """The number of elements of `a`."""
    return a.numel()
