"""Questions about a tensor that PyTorch asks as functions: `is_floating_point`,
`is_nonzero`, `is_same_size`, `get_device`; and `random_`, which fills a tensor with
random integers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..tensors.creation import rng_of
from .inplace import copy_samples
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


def random_bound(dtype) -> int:
    """One past the largest integer `random_` draws by default: every integer the dtype holds
    exactly (up to $2^{24}$ for float32, $2^{53}$ for float64)."""
    if dtype is dtypes.bool_:
        return 2
    if dtype.is_floating_point:
        return 2 ** (24 if dtype is dtypes.float32 else 53)
    return dtypes.iinfo(dtype).max + 1


@public(torch=False)
def random_(a: Tensor, low: int = 0, high: int | None = None, *, generator=None) -> Tensor:
    """Fill `a` with integers drawn uniformly from $[low, high)$: `random_(high)` is
    $[0, high)$, and without bounds every integer the dtype holds exactly from 0."""
    if high is None and low != 0:
        low, high = 0, low
    high = random_bound(a.dtype) if high is None else high
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    return copy_samples(a, rng_of(generator).integers(low, high, size=tuple(a.shape)))
