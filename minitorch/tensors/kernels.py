"""Running a backend's kernels on tensors: allocation, dtype promotion, map/zip/reduce.

Every operation of `minitorch.ops` is made of these. `new_tensor` allocates on
the tensor's device through its backend; `apply_map` and `apply_zip` fill a
contiguous result with the backend's `map` or `zip` kernel; `converted` and
`as_operands` convert dtypes first (PyTorch's promotion rules);
`reduce_dims`, `arg_reduce` and `write_into` run the reduce, arg-reduce and
copying kernels. Nothing here records an autograd graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes, operators
from ..backends import backend_for
from ..backends.tensor_data import TensorData, shape_broadcast
from ..dtypes import DType
from .base import TensorBase, make_tensor
from .device import CPU, check_same_device
from .device import device as Device

if TYPE_CHECKING:
    from .._tensor import Tensor

Number = bool | int | float

# ---------------------------------------------------------------------------
# Allocating results and running kernels
# ---------------------------------------------------------------------------


def new_tensor(shape: Sequence[int], dtype: DType, on_device: Device = CPU) -> Tensor:
    """A fresh contiguous tensor of zeros, in the memory of `on_device`."""
    zeros = backend_for(on_device).zeros
    return make_tensor(TensorData.empty(tuple(shape), dtype, zeros), dtype, on_device)


def view_of(t: Tensor, layout: TensorData) -> Tensor:
    """A view: a tensor over `t`'s storage with another layout, sharing its version counter.

    Its `_base` is the tensor that owns the storage (for in-place autograd).
    """
    view = make_tensor(layout, t.dtype, t.device, t._version_counter)
    view._base = t if t._base is None else t._base
    view._inference = t._inference  # a view of an inference tensor is one, and only that
    return view


def alias(t: Tensor) -> Tensor:
    """`t`'s storage and layout in a new tensor outside the graph (not a view of `t`)."""
    same = make_tensor(t._layout, t.dtype, t.device, t._version_counter)
    same._inference = t._inference
    return same


def with_shape(fresh: Tensor, shape: tuple) -> Tensor:
    """A freshly computed contiguous tensor given another shape of the same size."""
    layout = TensorData.contiguous(fresh._layout.storage, shape, fresh._layout.offset)
    return make_tensor(layout, fresh.dtype, fresh.device, fresh._version_counter)


def scalar_tensor(value: Number, dtype: DType, on_device: Device = CPU) -> Tensor:
    """A 0-dim tensor holding the Python number `value` in `dtype`.

    An integer wraps into a narrower integer dtype, as in PyTorch (`uint8 + 300` adds 44).
    """
    if isinstance(value, (int, np.integer)) and dtype.category == 1 and dtype.itemsize < 8:
        value = dtypes.wrap_integer(value, dtype)
    storage = backend_for(on_device).from_host(np.array([value], dtype=dtype.numpy_dtype))
    return make_tensor(TensorData.contiguous(storage, ()), dtype, on_device)


def moved(t: Tensor, target: Device) -> Tensor:
    """A contiguous copy of `t` in the memory of `target` (through host memory)."""
    host = np.ascontiguousarray(t._host_values()).reshape(-1)
    storage = backend_for(target).from_host(host)
    return make_tensor(TensorData.contiguous(storage, tuple(t.shape)), t.dtype, target)


def on_device(t: Tensor, target: Device) -> Tensor:
    """`t` for an operation on `target`: itself, or a copy of a 0-dim `cpu` tensor.

    PyTorch lets a CPU scalar tensor join an operation on any device; any
    other tensor on another device is its "same device" error.
    """
    if t.device is target or t.device == target:
        return t
    if t.ndim == 0 and t.device.type == "cpu":
        return moved(t, target)
    check_same_device(target, t.device)
    return t


def on_one_device(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """`a` and `b` on one device (a 0-dim `cpu` tensor joins the other's), or torch's error."""
    if a.device is b.device or a.device == b.device:
        return a, b
    if a.ndim == 0 and a.device.type == "cpu":
        return moved(a, b.device), b
    return a, on_device(b, a.device)


def converted(t: Tensor, dtype: DType) -> Tensor:
    """`t` itself when it has `dtype`, else a copy converted to `dtype`."""
    if t.dtype is dtype:
        return t
    out = new_tensor(t.shape, dtype, t.device)
    backend_for(t.device).map(operators.identity, out._layout, t._layout)
    return out


def as_operands(a: Tensor | Number, b: Tensor | Number) -> tuple[Tensor, Tensor, DType]:
    """Both operands as tensors of their common (promoted) dtype, and that dtype.

    Python numbers become 0-dim tensors of the promoted dtype, so `float64 +
    0.1` uses 0.1 in double precision.
    """
    if isinstance(a, TensorBase) and isinstance(b, TensorBase) and a.dtype is b.dtype:
        return a, b, a.dtype  # nothing to promote (the common case, checked first)
    # a floating tensor and a Python float: the tensor's dtype (`x * 0.5`, `p - lr * g`)
    if type(b) is float and isinstance(a, TensorBase) and a.dtype.is_floating_point:
        return a, scalar_tensor(b, a.dtype, a.device), a.dtype
    if type(a) is float and isinstance(b, TensorBase) and b.dtype.is_floating_point:
        return scalar_tensor(a, b.dtype, b.device), b, b.dtype
    dtype = dtypes.result_type(a, b)
    on = a.device if isinstance(a, TensorBase) else b.device if isinstance(b, TensorBase) else CPU
    a = a if isinstance(a, TensorBase) else scalar_tensor(a, dtype, on)
    b = b if isinstance(b, TensorBase) else scalar_tensor(b, dtype, on)
    return converted(a, dtype), converted(b, dtype), dtype


def apply_map(fn, a: Tensor, out_dtype: DType) -> Tensor:
    """A new tensor with $fn(a_i)$ for every element of `a`."""
    backend = backend_for(a.device)
    out = TensorData.empty(a._layout.shape, out_dtype, backend.empty)  # the kernel fills it
    backend.map(fn, out, a._layout)
    return make_tensor(out, out_dtype, a.device)


def apply_zip(fn, a: Tensor, b: Tensor, out_dtype: DType) -> Tensor:
    """A new tensor with $fn(a_i, b_i)$ over the broadcast shape of `a` and `b`."""
    if a.device is not b.device:
        a, b = on_one_device(a, b)
    device, a_layout, b_layout = a.device, a._layout, b._layout
    shape = a_layout.shape
    if b_layout.shape != shape:
        shape = shape_broadcast(shape, b_layout.shape)
    backend = backend_for(device)
    out = TensorData.empty(shape, out_dtype, backend.empty)  # the kernel fills it
    backend.zip(fn, out, a_layout, b_layout)
    return make_tensor(out, out_dtype, device)


def arg_reduce(better, a: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    """The best values along `dim` (kept with size 1) and their int64 positions."""
    shape = list(a.shape)
    shape[dim] = 1
    values = new_tensor(shape, a.dtype, a.device)
    indices = new_tensor(shape, dtypes.int64, a.device)
    backend_for(a.device).arg_reduce(better, values._layout, indices._layout, a._layout, dim)
    return values, indices


def write_into(target: Tensor, source: Tensor) -> None:
    """Copy `source` (broadcast, converted to `target`'s dtype) into `target`'s storage."""
    if source.device != target.device:
        source = moved(source, target.device)  # copy_ crosses devices, as in PyTorch
    elif source._layout.storage is target._layout.storage:
        source = apply_map(operators.identity, source, source.dtype)  # the copy may overlap
    backend_for(target.device).map(operators.identity, target._layout, source._layout)
    target._bump_version()


def float_version(t: Tensor) -> Tensor:
    """`t` converted to the default float dtype unless it is floating already."""
    return t if t.dtype.is_floating_point else converted(t, dtypes.get_default_dtype())


def drop_dims(t: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """Remove the size-1 dims `dims` of a reduction result unless `keepdim`."""
    if keepdim:
        return t
    return with_shape(t, tuple(size for d, size in enumerate(t.shape) if d not in dims))


def reduce_dims(fn, a: Tensor, dims: tuple[int, ...], start: Number, dtype: DType) -> Tensor:
    """Fold `a` over `dims` with `fn` from `start`; the result keeps each dim with size 1.

    Every dim of a contiguous tensor is one run of memory: `a` is then seen as 1-D
    and folded by one kernel call (faster, and a float sum rounds once).
    """
    if len(dims) > 1 and len(dims) == a.ndim and a.is_contiguous():
        layout = TensorData.contiguous(a._layout.storage, (a.numel(),), a._layout.offset)
        flat = reduce_dims(fn, view_of(a, layout), (0,), start, dtype)
        return with_shape(flat, (1,) * a.ndim)
    # BEGIN SOLUTION 2.4
    result = converted(a, dtype)
    for dim in dims:
        shape = list(result.shape)
        shape[dim] = 1
        out = new_tensor(shape, dtype, a.device)
        backend_for(a.device).reduce(fn, out._layout, result._layout, dim, start)
        result = out
    return result if result is not a else a.clone()
    # END SOLUTION 2.4


# ---------------------------------------------------------------------------
# Scans and sorting along one dimension
# ---------------------------------------------------------------------------


def scan_dim(fn, a: Tensor, dim: int, start: Number, dtype: DType) -> Tensor:
    """Running folds of `fn` from `start` along `dim` of `a` (converted to `dtype`)."""
    source = converted(a, dtype)
    out = new_tensor(a.shape, dtype, a.device)
    backend_for(a.device).scan(fn, out._layout, source._layout, dim, start)
    return out


def sort_dim(a: Tensor, dim: int, descending: bool) -> tuple[Tensor, Tensor]:
    """`a` sorted stably along `dim` (NaN largest), and the int64 positions of its elements."""
    values = new_tensor(a.shape, a.dtype, a.device)
    indices = new_tensor(a.shape, dtypes.int64, a.device)
    backend = backend_for(a.device)
    backend.sort(values._layout, indices._layout, a._layout, dim, descending)
    return values, indices


def scatter_along(shape: Sequence[int], source: Tensor, index: Tensor, dim: int) -> Tensor:
    """Zeros of `shape` with each line of `source` along `dim` put at the positions `index`
    names (distinct within a line): the gradient of picking `index` out of each line."""
    out = new_tensor(shape, source.dtype, source.device)
    backend_for(source.device).scatter_along(out._layout, source._layout, index._layout, dim)
    return out
