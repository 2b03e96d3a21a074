"""PyTorch's shape rules and errors: reduced dims, inferred view shapes, index layouts, matmul.

These turn PyTorch's arguments (a `dim` that may be negative or a tuple, a
shape with a -1, an indexing key) into dims and layouts, with PyTorch's error
messages. Pure arithmetic on shapes: nothing here runs a kernel.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes
from ..backends.tensor_data import TensorData, normalize_dim, prod, shape_broadcast
from ..dtypes import DType
from .base import TensorBase


def not_implemented(kernel: str, dtype: DType) -> NotImplementedError:
    """PyTorch's error for a kernel that has no version for `dtype`."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.torch_scalar_name}'")


def reduction_dims(dim, ndim: int, empty_is_all: bool = True) -> tuple[int, ...]:
    """The dims a reduction runs over: all for None (and for `()`, as PyTorch's reductions,
    unless not `empty_is_all`), else `dim` (an int or a sequence without repeats)."""
    if dim is None or (empty_is_all and not isinstance(dim, int) and len(dim) == 0):
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    normalized = [normalize_dim(d, ndim) for d in dims]
    for k, d in enumerate(normalized):
        if d in normalized[:k]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(sorted(normalized)) if ndim else ()


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Replace one -1 in `shape` so that it holds `numel` elements (PyTorch's errors)."""
    if prod(shape) == numel and all([size >= 0 for size in shape]):
        return shape  # the common case, checked first: nothing to infer
    unknown = [k for k, size in enumerate(shape) if size == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = prod(size for size in shape if size != -1)
    invalid = f"shape '{list(shape)}' is invalid for input of size {numel}"
    if any(size < -1 for size in shape):
        raise RuntimeError(f"invalid shape dimension {min(shape)}")
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(invalid)
        shape = shape[: unknown[0]] + (numel // known,) + shape[unknown[0] + 1 :]
    if prod(shape) != numel:
        raise RuntimeError(invalid)
    return shape


def normalize_key(key) -> tuple:
    """An indexing key as a tuple; 0-dim integer tensors become ints."""
    key = key if isinstance(key, tuple) else (key,)
    return tuple(
        k.item()
        if isinstance(k, TensorBase)
        and k.ndim == 0
        and not k.dtype.is_floating_point
        and k.dtype not in (dtypes.bool_, dtypes.uint8)  # uint8 is a mask, as bool
        else k
        for k in key
    )


def index_layout(layout: TensorData, key) -> TensorData:
    """The layout of `tensor[key]` for basic keys (ints, slices, Ellipsis, None)."""
    key = normalize_key(key)
    if builtins.sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consuming = builtins.sum(k is not None and k is not Ellipsis for k in key)
    if consuming > layout.ndim:
        raise IndexError(f"too many indices for tensor of dimension {layout.ndim}")
    shape, strides, offset, dim = [], [], layout.offset, 0
    for k in key:
        if k is Ellipsis:
            for _ in range(layout.ndim - consuming):
                shape.append(layout.shape[dim])
                strides.append(layout.strides[dim])
                dim += 1
        elif k is None:
            shape.append(1)
            strides.append(layout.shape[dim] * layout.strides[dim] if dim < layout.ndim else 1)
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            start, stop, step = k.indices(layout.shape[dim])
            shape.append(max(0, -(-(stop - start) // step)))
            strides.append(layout.strides[dim] * step)
            offset += start * layout.strides[dim]
            dim += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            size = layout.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
            offset += (k % size) * layout.strides[dim]
            dim += 1
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got " + type(k).__name__ + ")"
            )
    shape.extend(layout.shape[dim:])
    strides.extend(layout.strides[dim:])
    if builtins.any(size == 0 for size in shape):
        offset = min(offset, layout.storage.shape[0])
    return TensorData(layout.storage, shape, strides, offset)


_CPP_TYPE_NAMES = {
    "float32": "float",
    "float64": "double",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def check_matmul_operands(a: TensorBase, b: TensorBase) -> None:
    """PyTorch's errors for `a @ b`: dtypes that differ or are bool, inner sizes that differ."""
    if a.dtype is not b.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_CPP_TYPE_NAMES[a.dtype.name]} != {_CPP_TYPE_NAMES[b.dtype.name]}"
        )
    if a.dtype is dtypes.bool_:
        raise not_implemented("addmm_impl_cpu_", a.dtype)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D"
        )
    inner_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if a.shape[-1] == inner_b:
        return
    if a.ndim == 1 and b.ndim == 1:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
            "to have the same number of elements, but got "
            f"{a.shape[0]} and {b.shape[0]} elements respectively"
        )
    rows = prod(a.shape[:-1])
    if b.ndim == 1:
        raise RuntimeError(
            f"size mismatch, got input ({rows}), mat ({rows}x{a.shape[-1]}), vec ({b.shape[0]})"
        )
    if b.ndim == 2:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a.shape[-1]} and "
            f"{b.shape[0]}x{b.shape[1]})"
        )
    batch = prod(shape_broadcast(a.shape[:-2], b.shape[:-2]))
    raise RuntimeError(
        "Expected size for first two dimensions of batch2 tensor to be: "
        f"[{batch}, {a.shape[-1]}] but got: [{batch}, {b.shape[-2]}]."
    )
