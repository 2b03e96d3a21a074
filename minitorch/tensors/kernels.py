"""Tensor building blocks below autograd: backend kernels run on tensors, and shape rules.

Every operation of `tensor_functions.py` is made of these. `apply_map` and
`apply_zip` allocate a contiguous result and fill it with the backend's `map`
or `zip` kernel; `converted` and `as_operands` convert dtypes first
(PyTorch's promotion rules); `arg_reduce` and `write_into` run the
`arg_reduce` and copying kernels. The shape rules (`reduction_dims`,
`infer_shape`, `index_layout`) turn PyTorch's arguments into dims and
layouts, with PyTorch's errors. Nothing here records an autograd graph.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes, operators
from ..backends import backend_for as device_backend
from ..backends.tensor_data import TensorData, normalize_dim, prod, shape_broadcast
from ..dtypes import DType
from .base import TensorBase, make_tensor
from .device import CPU
from .device import device as Device

if TYPE_CHECKING:
    from .._tensor import Tensor

Number = bool | int | float

# ---------------------------------------------------------------------------
# Allocating results and running kernels
# ---------------------------------------------------------------------------


def backend_for(t: Tensor):
    """The kernels that run `t`'s operations (chosen by its device)."""
    return device_backend(t.device)


def new_tensor(shape: Sequence[int], dtype: DType, on_device: Device = CPU) -> Tensor:
    """A fresh contiguous tensor of zeros."""
    return make_tensor(TensorData.empty(tuple(shape), dtype), dtype, on_device)


def view_of(t: Tensor, layout: TensorData) -> Tensor:
    """A view: a tensor over `t`'s storage with another layout, sharing its version counter.

    Its `_base` is the tensor that owns the storage (for in-place autograd).
    """
    view = make_tensor(layout, t.dtype, t.device, t._version_counter)
    view._base = t if t._base is None else t._base
    return view


def alias(t: Tensor) -> Tensor:
    """`t`'s storage and layout in a new tensor outside the graph (not a view of `t`)."""
    return make_tensor(t._layout, t.dtype, t.device, t._version_counter)


def with_shape(fresh: Tensor, shape: tuple) -> Tensor:
    """A freshly computed contiguous tensor given another shape of the same size."""
    layout = TensorData.contiguous(fresh._layout.storage, shape, fresh._layout.offset)
    return make_tensor(layout, fresh.dtype, fresh.device, fresh._version_counter)


def scalar_tensor(value: Number, dtype: DType) -> Tensor:
    """A 0-dim tensor holding the Python number `value` in `dtype`."""
    storage = np.array([value], dtype=dtype.numpy_dtype)
    return make_tensor(TensorData.contiguous(storage, ()), dtype)


def converted(t: Tensor, dtype: DType) -> Tensor:
    """`t` itself when it has `dtype`, else a copy converted to `dtype`."""
    if t.dtype is dtype:
        return t
    out = new_tensor(t.shape, dtype, t.device)
    backend_for(t).map(operators.identity, out._layout, t._layout)
    return out


def as_operands(a: Tensor | Number, b: Tensor | Number) -> tuple[Tensor, Tensor, DType]:
    """Both operands as tensors of their common (promoted) dtype, and that dtype.

    Python numbers become 0-dim tensors of the promoted dtype, so `float64 +
    0.1` uses 0.1 in double precision.
    """
    if isinstance(a, TensorBase) and isinstance(b, TensorBase) and a.dtype is b.dtype:
        return a, b, a.dtype  # nothing to promote (the common case, checked first)
    dtype = dtypes.result_type(a, b)
    a = a if isinstance(a, TensorBase) else scalar_tensor(a, dtype)
    b = b if isinstance(b, TensorBase) else scalar_tensor(b, dtype)
    return converted(a, dtype), converted(b, dtype), dtype


def apply_map(fn, a: Tensor, out_dtype: DType) -> Tensor:
    """A new tensor with $fn(a_i)$ for every element of `a`."""
    out = new_tensor(a._layout.shape, out_dtype, a.device)
    backend_for(a).map(fn, out._layout, a._layout)
    return out


def apply_zip(fn, a: Tensor, b: Tensor, out_dtype: DType) -> Tensor:
    """A new tensor with $fn(a_i, b_i)$ over the broadcast shape of `a` and `b`."""
    shape = a._layout.shape
    if b._layout.shape != shape:
        shape = shape_broadcast(shape, b._layout.shape)
    out = new_tensor(shape, out_dtype, a.device)
    backend_for(a).zip(fn, out._layout, a._layout, b._layout)
    return out


def arg_reduce(better, a: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    """The best values along `dim` (kept with size 1) and their int64 positions."""
    shape = list(a.shape)
    shape[dim] = 1
    values = new_tensor(shape, a.dtype, a.device)
    indices = new_tensor(shape, dtypes.int64, a.device)
    backend_for(a).arg_reduce(better, values._layout, indices._layout, a._layout, dim)
    return values, indices


def write_into(target: Tensor, source: Tensor) -> None:
    """Copy `source` (broadcast, converted to `target`'s dtype) into `target`'s storage."""
    if source._layout.storage is target._layout.storage:
        source = apply_map(operators.identity, source, source.dtype)  # the copy may overlap
    backend_for(target).map(operators.identity, target._layout, source._layout)
    target._bump_version()


def float_version(t: Tensor) -> Tensor:
    """`t` converted to the default float dtype unless it is floating already."""
    return t if t.dtype.is_floating_point else converted(t, dtypes.get_default_dtype())


def not_implemented(kernel: str, dtype: DType) -> NotImplementedError:
    """PyTorch's error for a kernel that has no version for `dtype`."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.torch_scalar_name}'")


# ---------------------------------------------------------------------------
# Shape rules: reduced dims, inferred view shapes, index layouts, matmul operands
# ---------------------------------------------------------------------------


def reduction_dims(dim, ndim: int) -> tuple[int, ...]:
    """The dims a reduction runs over: all for None, else `dim` (an int or a sequence)."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    normalized = tuple(sorted({normalize_dim(d, ndim) for d in dims}))
    return normalized if ndim else ()


def drop_dims(t: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """Remove the size-1 dims `dims` of a reduction result unless `keepdim`."""
    if keepdim:
        return t
    return with_shape(t, tuple(size for d, size in enumerate(t.shape) if d not in dims))


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Replace one -1 in `shape` so that it holds `numel` elements (PyTorch's errors)."""
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
        and k.dtype is not dtypes.bool_
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


_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}


def check_matmul_operands(a: Tensor, b: Tensor) -> None:
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
