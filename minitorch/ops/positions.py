"""Index arithmetic on tensors: the storage positions an advanced index, gather or scatter reaches.

A strided view reaches element $(i_0, \\ldots, i_{n-1})$ at storage position
$offset + \\sum_k i_k \\, stride_k$. The ops that pick elements by computed
index (`x[idx]`, `gather`, `scatter`, `index_select`, `take`) compute that sum
as an int64 tensor of positions, with the ordinary broadcasting kernels
(`apply_zip`), and hand it to the backend's `take` (read) or `put` (write).
Nothing here records an autograd graph.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes, operators
from ..backends import backend_for
from ..backends.tensor_data import TensorData, shape_broadcast
from ..tensors.base import TensorBase
from ..tensors.creation import arange, from_numpy, tensor
from ..tensors.kernels import (
    apply_zip,
    converted,
    moved,
    new_tensor,
    scalar_tensor,
    scan_dim,
    view_of,
    with_shape,
)

if TYPE_CHECKING:
    from .._tensor import Tensor

INDEX_DTYPES_ERROR = "tensors used as indices must be long, int, byte or bool tensors"


def as_index(value) -> Tensor:
    """An index given as a tensor, list, tuple, range or NumPy array, as a tensor."""
    if isinstance(value, TensorBase):
        return value
    if isinstance(value, np.ndarray):
        return from_numpy(np.ascontiguousarray(value))
    value = list(value)
    return tensor(value, dtype=dtypes.int64) if len(value) == 0 else tensor(value)


def along(dim: int, ndim: int, size: int, stride: int, on_device) -> Tensor:
    """$i \\cdot stride$ for $i < size$, shaped to broadcast along `dim` of `ndim` dims."""
    steps = arange(size, device=on_device)
    steps = steps if stride == 1 else scaled(steps, stride)
    shape = [1] * ndim
    shape[dim] = size
    return steps.view(tuple(shape))


def scaled(t: Tensor, factor: int) -> Tensor:
    """$t \\cdot factor$ (int64)."""
    return apply_zip(operators.mul, t, scalar_tensor(factor, dtypes.int64, t.device), dtypes.int64)


def plus(a: Tensor, b: Tensor) -> Tensor:
    """$a + b$ (int64, broadcast)."""
    return apply_zip(operators.add, a, b, dtypes.int64)


def grid_positions(shape: tuple, strides: tuple, offset: int, on_device) -> Tensor:
    """The storage position of every element of the layout (`shape`, `strides`, `offset`)."""
    total = scalar_tensor(offset, dtypes.int64, on_device)
    for dim, (size, stride) in enumerate(zip(shape, strides, strict=True)):
        total = plus(total, along(dim, len(shape), size, stride, on_device))
    return contiguous_int64(total, shape)


def contiguous_int64(t: Tensor, shape: tuple) -> Tensor:
    """`t` broadcast to `shape` and written out as a fresh contiguous int64 tensor."""
    out = new_tensor(shape, dtypes.int64, t.device)
    backend_for(t.device).map(operators.identity, out._layout, t._layout)
    return out


OUT_OF_BOUNDS = "index {index} is out of bounds for dimension {dim} with size {size}"


def checked_index(
    index: Tensor,
    size: int,
    dim: int,
    error: type = IndexError,
    text: str = OUT_OF_BOUNDS,
    negative: bool = True,
) -> Tensor:
    """`index` with negative entries wrapped ($i + size$), after PyTorch's bounds check.

    Raises `error(text)` ("index 5 is out of bounds for dimension 0 with size 3")
    for the first entry outside $[-size, size)$ (outside $[0, size)$ unless `negative`).
    """
    if index.dtype is dtypes.int32:
        index = converted(index, dtypes.int64)
    elif index.dtype is not dtypes.int64:
        raise IndexError(INDEX_DTYPES_ERROR)
    if index.numel() == 0:
        return index
    lowest = scalar_tensor(-size if negative else 0, dtypes.int64)
    below = apply_zip(operators.lt, index, lowest, dtypes.bool_)
    above = apply_zip(operators.ge, index, scalar_tensor(size, dtypes.int64), dtypes.bool_)
    outside = apply_zip(operators.logical_or, below, above, dtypes.bool_)._host_values()
    if outside.any():
        first = index._host_values()[outside].reshape(-1)[0]
        raise error(text.format(index=first, dim=dim, size=size))
    return apply_zip(operators.remainder, index, scalar_tensor(size, dtypes.int64), dtypes.int64)


def broadcast_indices(indices: list[Tensor]) -> tuple:
    """The common shape of index tensors, with PyTorch's error when there is none."""
    shape: tuple = ()
    try:
        for index in indices:
            shape = shape_broadcast(shape, tuple(index.shape))
    except (IndexError, ValueError, RuntimeError):
        shapes = ", ".join(str(list(index.shape)) for index in indices)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    return shape


def nonzero_ordinals(a: Tensor) -> Tensor:
    """The row-major ordinals of the nonzero elements of `a` (NaN counts), in order, 1-D.

    A scan (running sum) of the nonzero flags gives each nonzero element its place
    in the result; their number, the result's size, is read once in host memory (as
    PyTorch synchronises with the GPU here); `put` writes each ordinal at its place,
    and those of the zero elements to one spare slot past the end.
    """
    size = math.prod(a.shape)
    flags = apply_zip(operators.ne, a, scalar_tensor(0, a.dtype, a.device), dtypes.int64)
    flags = with_shape(flags, (size,))
    places = scan_dim(operators.add, flags, 0, 0, dtypes.int64)
    count = int(places[size - 1].item()) if size else 0
    # place = flag * (running count - 1 - count) + count: zero elements go to slot `count`
    past_end = scalar_tensor(count + 1, dtypes.int64, a.device)
    places = apply_zip(operators.sub, places, past_end, dtypes.int64)
    places = apply_zip(operators.mul, flags, places, dtypes.int64)
    places = apply_zip(
        operators.add, places, scalar_tensor(count, dtypes.int64, a.device), dtypes.int64
    )
    ordinals = new_tensor((count + 1,), dtypes.int64, a.device)
    put(ordinals, places, arange(size, device=a.device), False)
    return view_of(ordinals, TensorData(ordinals._layout.storage, (count,), (1,), 0))


def unraveled(ordinals: Tensor, shape: tuple) -> list[Tensor]:
    """The index along each dim of `shape` of the elements at row-major `ordinals`:
    $\\lfloor o / \\prod_{j > k} s_j \\rfloor \\bmod s_k$ for dim $k$."""
    found, step = [], 1
    for size in reversed(shape):
        divided = apply_zip(
            operators.floor_divide,
            ordinals,
            scalar_tensor(step, dtypes.int64, ordinals.device),
            dtypes.int64,
        )
        found.append(
            apply_zip(
                operators.remainder,
                divided,
                scalar_tensor(size, dtypes.int64, ordinals.device),
                dtypes.int64,
            )
        )
        step *= size
    return found[::-1]


def nonzero_indices(mask: Tensor) -> list[Tensor]:
    """One int64 tensor per dim of `mask`: the indices of its true (nonzero) elements."""
    return unraveled(nonzero_ordinals(mask), tuple(mask.shape))


def host_result(array: np.ndarray, device) -> Tensor:
    """`array`, a result computed in host memory, as a tensor on `device` (its input's)."""
    t = from_numpy(np.ascontiguousarray(array))
    return t if device.type == "cpu" else moved(t, device)


def take(a: Tensor, positions: Tensor) -> Tensor:
    """A new tensor of `positions`' shape: $a.storage[positions_i]$."""
    out = new_tensor(tuple(positions.shape), a.dtype, a.device)
    backend_for(a.device).take(out._layout, a._layout, positions._layout)
    return out


def put(a: Tensor, positions: Tensor, values: Tensor, accumulate: bool) -> None:
    """$a.storage[positions_i] = values_i$ (`+=` if `accumulate`), values broadcast."""
    backend_for(a.device).put(a._layout, positions._layout, values._layout, accumulate)
    a._bump_version()


def put_reduce(fn, a: Tensor, positions: Tensor, values: Tensor) -> None:
    """$a.storage[positions_i] = fn(a.storage[positions_i], values_i)$, in order, values
    broadcast (converted to `a`'s dtype)."""
    values = converted(values, a.dtype)
    backend_for(a.device).put_reduce(fn, a._layout, positions._layout, values._layout)
    a._bump_version()
