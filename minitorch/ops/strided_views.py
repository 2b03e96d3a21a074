"""Strided views: `as_strided`, `Tensor.unfold`, and `frombuffer` (a tensor over a buffer).

`as_strided` and `unfold` are layouts (shape, strides, offset) over the input's
storage that may repeat elements; their backward adds the gradient of every
element of the view at its storage position and reads the input's elements
back from there.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..autograd.graph import GraphContext
from ..backends.tensor_data import TensorData, normalize_dim, strides_from_shape
from ..tensors.creation import from_numpy, parse_shape
from ..tensors.kernels import view_of
from .functions import Op
from .positions import grid_positions
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


def gathered_back(grad: Tensor, view: tuple, length: int, base: tuple) -> Tensor:
    """The gradient of a strided view's input, from the view's gradient `grad`.

    `view` and `base` are (shape, strides, offset) layouts over one storage of
    `length` elements, the view's and the input's: the storage gets the sum of
    the gradients of the view's elements at each position, and an input element
    its position's share (divided by how many of the input's elements share it).
    """
    on_device = grad.device
    positions = grid_positions(*view, on_device).reshape(-1)
    storage = grad.new_zeros(length).index_add(0, positions, grad.reshape(-1))
    reads = grid_positions(*base, on_device)
    counts = grad.new_zeros(length).index_add(0, reads.reshape(-1), grad.new_ones(reads.numel()))
    return storage[reads] / counts[reads]


class AsStrided(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, size: tuple, stride: tuple, offset: int) -> Tensor:
        """The layout (`size`, `stride`, `offset`) over `a`'s storage"""
        layout = a._layout
        ctx.settings = (size, stride, offset)
        ctx.base = (layout.shape, layout.strides, layout.offset)
        ctx.length = layout.storage.shape[0]
        return view_of(a, TensorData(layout.storage, size, stride, offset))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """Each storage position gets the sum of its view elements' gradients"""
        return gathered_back(grad, ctx.settings, ctx.length, ctx.base)


@public()
def as_strided(a: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A view of `a`'s storage with shape `size`, strides `stride`, and `storage_offset`
    (`a`'s own by default): element $i$ is $storage[offset + \\sum_k i_k stride_k]$.

    >>> import minitorch
    >>> minitorch.arange(6).as_strided((2, 2), (1, 2))
    tensor([[0, 2],
            [1, 3]])
    """
    size, stride = parse_shape((size,)), parse_shape((stride,))
    offset = a._layout.offset if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    if any(s < 0 for s in size):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)}"
        )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    available = a._layout.storage.shape[0]
    needed = (
        0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
    )
    if needed > available:
        item = a.dtype.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {item} requiring a storage size of {needed * item} are out of "
            f"bounds for storage of size {available * item}"
        )
    return AsStrided.apply(a, size=size, stride=stride, offset=offset)


class Unfold(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim: int, size: int, step: int) -> Tensor:
        """Windows of `size` elements every `step` along `dim`, as a new last dim"""
        shape, strides = list(a.shape), list(a._layout.strides)
        ctx.input_shape = tuple(a.shape)
        window = (*view_shape(shape, dim, size, step), size)
        if a.ndim == 0:
            ctx.view = (window, (1,), 0)
            return view_of(a, TensorData(a._layout.storage, window, (1,), a._layout.offset))
        steps = (*strides[:dim], strides[dim] * step, *strides[dim + 1 :], strides[dim])
        plain = strides_from_shape(ctx.input_shape)
        ctx.view = (window, (*plain[:dim], plain[dim] * step, *plain[dim + 1 :], plain[dim]), 0)
        return view_of(a, TensorData(a._layout.storage, window, steps, a._layout.offset))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """Each input element gets the sum of its windows' gradients"""
        shape = ctx.input_shape
        length = 1 if not shape else int(np.prod(shape))
        base = (shape, strides_from_shape(shape), 0)
        return gathered_back(grad, ctx.view, length, base)


def view_shape(shape: list, dim: int, size: int, step: int) -> list:
    """`shape` with dim `dim` the number of windows of `size` every `step` (no dim if 0-dim)."""
    length = shape[dim] if shape else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {dim} is {length} but size is {size}"
        )
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if not shape:
        return []
    return [*shape[:dim], (length - size) // step + 1, *shape[dim + 1 :]]


@public(torch=False)
def unfold(a: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Every window of `size` elements, `step` apart, along `dimension`, as a view with the
    windows in a new last dim of size `size`: shape $(n - size) // step + 1$ along `dimension`.

    >>> import minitorch
    >>> minitorch.arange(5).unfold(0, 2, 2)
    tensor([[0, 1],
            [2, 3]])
    """
    dim = normalize_dim(dimension, max(a.ndim, 1))
    return Unfold.apply(a, dim=dim, size=int(size), step=int(step))


@public(method=False)
def frombuffer(
    buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False
) -> Tensor:
    """A 1-dim tensor sharing the memory of `buffer` (an object with Python's buffer
    protocol): `count` elements of `dtype` (all, if -1) from byte `offset` on.

    >>> import minitorch
    >>> minitorch.frombuffer(bytearray(b"\\x01\\x00\\x02\\x00"), dtype=minitorch.int16)
    tensor([1, 2], dtype=minitorch.int16)
    """
    try:
        raw = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, item = raw.nbytes, dtypes.to_dtype(dtype).itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % item:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must "
                f"be a multiple of element size ({item})"
            )
        count = (length - offset) // item
    elif offset + count * item > length:
        raise ValueError(
            f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({length} bytes)"
        )
    array = np.frombuffer(raw, dtype=dtypes.to_dtype(dtype).numpy_dtype, count=count, offset=offset)
    if raw.readonly:
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors. This means you can write to the underlying (supposedly non-writable) "
            "buffer using the tensor. You may want to copy the buffer to protect its data or "
            "make it writable before converting it to a tensor.",
            UserWarning,
            stacklevel=2,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        t = from_numpy(array)
    return t.requires_grad_() if requires_grad else t
