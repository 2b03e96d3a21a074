"""Copies and conversions: `clone`, `to` (another dtype or device), `detach`.

`Copy` writes `a`'s elements into a fresh tensor, contiguous or with the
strides `clone`'s memory format asks for (`tensors/strides.py`); its backward
hands the gradient back unchanged (the autograd layer casts it to the
input's dtype). `detach` copies nothing: it is `a`'s storage outside the graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.graph import GraphContext
from ..backends.tensor_data import TensorData
from ..dtypes import DType
from ..tensors.base import TensorBase, make_tensor
from ..tensors.device import check_device
from ..tensors.device import device as Device
from ..tensors.kernels import alias, apply_map, converted, moved
from ..tensors.legacy_types import LegacyTensorType
from ..tensors.strides import MemoryFormat, preserve_format, preserved_strides
from .functions import Op
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


class Copy(Op):
    """A copy: `clone()` (kind Clone), or a dtype or device change (kind ToCopy)."""

    @staticmethod
    def forward(
        ctx: GraphContext, a: Tensor, dtype: DType, kind: str = "Clone", device=None, strides=None
    ) -> Tensor:
        """A copy of `a` with `dtype`, on `device` (`a`'s when None), contiguous or with
        `strides` (dense ones)"""
        ctx.source_device = a.device
        if device is not None and device != a.device:
            return converted(moved(a, device), dtype)
        if strides is None:
            return apply_map(operators.identity, a, dtype)
        # copied in the order of `strides` (largest outermost): row-major in that order is
        # the layout `strides` describe
        order = sorted(range(a.ndim), key=lambda d: -strides[d])
        layout = a._layout.permute(*order)
        ordered = apply_map(operators.identity, make_tensor(layout, a.dtype, a.device), dtype)
        out = TensorData(ordered._layout.storage, a.shape, strides)
        return make_tensor(out, dtype, a.device)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ on the input's device (cast back to its dtype by the autograd layer)"""
        return grad if grad.device == ctx.source_device else moved(grad, ctx.source_device)


@public()
def clone(a: Tensor, *, memory_format: MemoryFormat = preserve_format) -> Tensor:
    """A copy of `a` with its own storage: with `a`'s strides where its elements fill their
    storage densely (a transpose), else dense in the order of its strides
    (`memory_format=minitorch.preserve_format`); row-major with `contiguous_format`."""
    strides = preserved_strides(a.shape, a._layout.strides, memory_format)
    return Copy.apply(a, dtype=a.dtype, strides=strides)


def contiguous_copy(a: Tensor) -> Tensor:
    """A row-major copy of `a` (`clone(a, memory_format=contiguous_format)`)."""
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


def type_name(a: Tensor) -> str:
    """PyTorch's legacy type name of `a`: `minitorch.FloatTensor`, `minitorch.cuda.FloatTensor`
    on a GPU."""
    on_gpu = "cuda." if a.device.type == "cuda" else ""
    return f"minitorch.{on_gpu}{a.dtype.tensor_type}"


# the dtype of each legacy tensor type, by its name (`FloatTensor`)
LEGACY_TYPE_DTYPES = {d.tensor_type: d for d in dtypes.ALL_DTYPES}


def legacy_type_target(name: str) -> tuple[dtypes.DType, Device]:
    """(dtype, device) of a legacy type name, `'minitorch.cuda.LongTensor'`; code written for
    PyTorch spells it `'torch.LongTensor'`, which means the same."""
    prefix, _, rest = name.partition(".")
    on_gpu = rest.startswith("cuda.")
    tensor_type = rest.removeprefix("cuda.")
    if prefix not in ("minitorch", "torch") or tensor_type not in LEGACY_TYPE_DTYPES:
        raise ValueError(f"invalid type: {name!r}")
    return LEGACY_TYPE_DTYPES[tensor_type], Device("cuda" if on_gpu else "cpu")


def type_(a: Tensor, dtype=None, non_blocking: bool = False):
    """Without `dtype`, `a`'s legacy type name (`type_name`); else `a` converted to a dtype, or
    to the dtype and device of a legacy type (`minitorch.cuda.LongTensor`) or of its name
    (`'minitorch.cuda.LongTensor'`)."""
    if dtype is None:
        return type_name(a)
    if isinstance(dtype, str):
        new_dtype, device = legacy_type_target(dtype)
        return to(a, new_dtype, device=device)
    if isinstance(dtype, LegacyTensorType):
        return to(a, dtype.dtype, device="cuda" if dtype.is_cuda else "cpu")
    if not isinstance(dtype, dtypes.DType):
        raise TypeError("dtype must be a type, str, or dtype object")
    return to(a, dtype)


@public(torch=False)
def type_as(a: Tensor, other: Tensor) -> Tensor:
    """`a` converted to `other`'s dtype."""
    return to(a, other.dtype)


@public()
def detach(a: Tensor) -> Tensor:
    """`a`'s storage and layout, outside the autograd graph (shares the version counter)."""
    return alias(a)
