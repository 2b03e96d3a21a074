"""The legacy tensor types: `minitorch.FloatTensor`, ... on the CPU and
`minitorch.cuda.FloatTensor`, ... on the GPU, each a dtype on a device type, as PyTorch's.

Code written before dtypes existed uses them three ways, which all work here:

- calling one makes a tensor of its dtype on its device: `LongTensor([1, 2])` copies the data,
  `cuda.FloatTensor(2, 3)` makes zeros of that shape;
- `isinstance(t, minitorch.cuda.FloatTensor)` asks whether `t` is a float32 tensor on cuda;
- `t.type(minitorch.cuda.FloatTensor)` converts `t` to that dtype and device.
"""

from __future__ import annotations

from .. import dtypes
from ..backends import has_backend
from . import creation
from .base import TensorBase
from .device import legacy_constructor_device


class LegacyTensorType(type):
    """The class of a legacy tensor type: its `dtype`, and `is_cuda` for the GPU's."""

    dtype: dtypes.DType
    is_cuda: bool

    def __instancecheck__(cls, instance) -> bool:
        return (
            isinstance(instance, TensorBase)
            and instance.dtype is cls.dtype
            and instance.is_cuda == cls.is_cuda
        )

    def __call__(cls, *args, device=None):
        if cls.is_cuda and not has_backend("cuda"):
            raise TypeError(
                f"type {cls.__module__}.{cls.__name__} not available: minitorch has no CUDA device "
                "(minitorch.cuda.is_available() is False)"
            )
        on_device = legacy_constructor_device(device, "cuda" if cls.is_cuda else "cpu")
        if len(args) == 1 and not isinstance(args[0], int):
            return creation.tensor(args[0], dtype=cls.dtype, device=on_device)
        return creation.zeros(*args, dtype=cls.dtype, device=on_device)


# the dtypes of the legacy types, in the order minitorch and minitorch.cuda list them
LEGACY_DTYPES = (
    dtypes.float32,
    dtypes.float64,
    dtypes.int64,
    dtypes.int32,
    dtypes.int16,
    dtypes.int8,
    dtypes.uint8,
    dtypes.bool_,
)


def legacy_types(is_cuda: bool) -> tuple[LegacyTensorType, ...]:
    """The legacy types of LEGACY_DTYPES on the GPU (`is_cuda`) or the CPU, named as
    `Tensor.type()` names them (`minitorch.cuda.FloatTensor`)."""
    module = "minitorch.cuda" if is_cuda else "minitorch"
    where = " on cuda" if is_cuda else ""
    return tuple(
        LegacyTensorType(
            dtype.tensor_type,
            (),
            {
                "dtype": dtype,
                "is_cuda": is_cuda,
                "__module__": module,
                "__doc__": f"A {dtype} tensor type{where}.",
            },
        )
        for dtype in LEGACY_DTYPES
    )
