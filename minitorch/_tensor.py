"""`minitorch.Tensor`: the tensor users hold, with every operation as a method.

It subclasses `TensorBase` (the data: layout, dtype, device, autograd fields;
`tensors/base.py`). Its operation methods are the functions of `minitorch.ops`
themselves, attached from their declarations (`ops/public.py`): `t.exp` is
`minitorch.exp`, so `t.exp()` is `exp(t)` — read that function, next to its
`Function`, for what the method does. Written out here are only what is not
an operation: conversions (`float()`, `cuda()`), `backward`, the Python
operator protocol (`__add__`, `__getitem__`, ...), and the `new_*` factories.
The stubs `__init__.pyi` and `_stubs/tensor_methods.pyi` list every method for IDEs.

This file sits above the operations, so the arrows point one way: operations
never import it, and make their results with `tensors.base.make_tensor`, which
builds this class.
"""

from __future__ import annotations

from . import dtypes
from .autograd.graph import backward as backward_into
from .autograd.graph import run_backward
from .autograd.hooks import RemovableHandle, register_hook, register_post_accumulate_grad_hook
from .backends.tensor_data import TensorData
from .dtypes import DType
from .ops import (
    arithmetic,
    comparisons,
    copies,
    indexing,
    linalg,
    unary,
)
from .ops.api import TENSOR_METHODS
from .tensors import creation
from .tensors.base import Size, TensorBase, set_tensor_class
from .tensors.device import CPU, legacy_constructor_device
from .tensors.kernels import new_tensor
from .tensors.strides import contiguous_format


def conversion(name: str, dtype: DType):
    """The method `Tensor.<name>()`: `to(dtype)`, the tensor itself when it has `dtype`."""

    def convert(self) -> Tensor:
        return copies.to(self, dtype)

    convert.__name__ = name
    convert.__qualname__ = f"Tensor.{name}"
    convert.__doc__ = f"This tensor as {dtype.name} (itself if it is {dtype.name} already)."
    return convert


class Tensor(TensorBase):
    """A multi-dimensional array over a flat storage, with autograd (see the module docstring)."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        """`Tensor(layout, dtype, device, version_counter)` inside minitorch.

        Users may call PyTorch's legacy constructor: `minitorch.Tensor(data)` (a
        copy of `data` in the default float dtype) or `minitorch.Tensor(2, 3)`.
        """
        if args and isinstance(args[0], TensorData):
            super().__init__(*args, **kwargs)
            return
        made = legacy_tensor(args, kwargs)
        super().__init__(made._layout, made.dtype, made.device)

    @property
    def T(self) -> Tensor:  # noqa: N802 -- PyTorch's name
        """All dimensions reversed (the transpose of a matrix)."""
        return self.permute(*range(self.ndim - 1, -1, -1))

    @property
    def mT(self) -> Tensor:  # noqa: N802 -- PyTorch's name
        """The last two dimensions swapped (a batch of transposed matrices)."""
        return self.transpose(-2, -1)

    def register_hook(self, hook) -> RemovableHandle:
        """Call `hook(grad)` with this tensor's gradient whenever backward computes it; a
        returned tensor replaces the gradient. `handle.remove()` takes it away.

        >>> import minitorch
        >>> x = minitorch.ones(2, requires_grad=True)
        >>> handle = x.register_hook(lambda grad: grad * 10)
        >>> (x * 3).sum().backward()
        >>> x.grad
        tensor([30., 30.])
        """
        return register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
        """Call `hook(self)` after backward has added into this leaf's `.grad`."""
        return register_post_accumulate_grad_hook(self, hook)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs=None,
    ) -> None:
        """Add $\\partial \\text{self} / \\partial x$ to `x.grad` for every leaf $x$ below.

        `gradient` weighs the outputs (a vector-Jacobian product); it may be
        left out for a one-element tensor. The graph's saved tensors are freed
        unless `retain_graph=True`. With `create_graph=True` the gradients get a
        graph of their own (for second derivatives); with `inputs`, only those
        tensors get gradients.

        >>> import minitorch
        >>> x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4.])
        """
        if inputs is None:
            run_backward(self, gradient, retain_graph, create_graph)
        else:
            backward_into(self, gradient, retain_graph, create_graph, inputs)

    @property
    def data(self) -> Tensor:
        """This tensor's values outside the graph (`detach()`)."""
        return self.detach()

    @data.setter
    def data(self, value: Tensor) -> None:
        """`w.data = t`: `w` now holds `t`'s values (its storage), outside the graph."""
        # `p.data = t` points this tensor at `t`'s values: Module.to keeps a Parameter the
        # same object while changing its dtype or device.
        if not isinstance(value, TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._layout, self.dtype, self.device = value._layout, value.dtype, value.device

    def cpu(self) -> Tensor:
        """This tensor on the CPU (itself when it is there already)."""
        return copies.to(self, CPU)

    def cuda(self, device=None, non_blocking: bool = False) -> Tensor:
        """This tensor on the GPU (itself when it is there already); `device` an index or name."""
        target = device if device is not None else "cuda"
        return copies.to(self, f"cuda:{target}" if isinstance(target, int) else target)

    def type(self, dtype=None, non_blocking: bool = False):
        """Convert to `dtype` (a dtype, legacy type or its name); without it, PyTorch's type
        name (`'minitorch.FloatTensor'`, `'minitorch.cuda.FloatTensor'` on a GPU)."""
        return copies.type_(self, dtype, non_blocking)

    # fmt: off
    float  = conversion("float",  dtypes.float32)
    double = conversion("double", dtypes.float64)
    long   = conversion("long",   dtypes.int64)
    bool   = conversion("bool",   dtypes.bool_)
    int    = conversion("int",    dtypes.int32)
    short  = conversion("short",  dtypes.int16)
    char   = conversion("char",   dtypes.int8)
    byte   = conversion("byte",   dtypes.uint8)
    # fmt: on

    def __lshift__(self, other):
        return comparisons.bitwise_left_shift(self, other)

    def __rlshift__(self, other):
        return comparisons.bitwise_left_shift(other, self)

    def __rshift__(self, other):
        return comparisons.bitwise_right_shift(self, other)

    def __rrshift__(self, other):
        return comparisons.bitwise_right_shift(other, self)

    def contiguous(self, memory_format=contiguous_format) -> Tensor:
        """This tensor if contiguous, else a contiguous (row-major) copy."""
        if memory_format is not contiguous_format:
            raise RuntimeError(f"contiguous() supports only {contiguous_format!r}")
        return self if self.is_contiguous() else copies.contiguous_copy(self)

    def __getitem__(self, key) -> Tensor:
        return indexing.getitem(self, key)

    def __setitem__(self, key, value) -> None:
        indexing.setitem(self, key, value)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False) -> Tensor:
        """A copy of `data` with this tensor's dtype and device unless given."""
        return creation.tensor(data, dtype or self.dtype, device or self.device, requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False) -> Tensor:
        return creation.zeros(*size, dtype=dtype or self.dtype, device=device or self.device,
                              requires_grad=requires_grad)  # fmt: skip

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False) -> Tensor:
        return creation.ones(*size, dtype=dtype or self.dtype, device=device or self.device,
                             requires_grad=requires_grad)  # fmt: skip

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False) -> Tensor:
        return creation.empty(*size, dtype=dtype or self.dtype, device=device or self.device,
                              requires_grad=requires_grad)  # fmt: skip

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
        return creation.full(size, fill_value, dtype=dtype or self.dtype,
                             device=device or self.device, requires_grad=requires_grad)  # fmt: skip

    def nelement(self) -> int:
        """`numel()`: the number of elements."""
        return self.numel()

    def ndimension(self) -> int:
        """`dim()`: the number of dimensions."""
        return self.dim()

    # A tensor hashes by identity, as PyTorch's (an optimizer's `state` is keyed by its
    # parameters); defining `__eq__` below would otherwise leave the class unhashable.
    __hash__ = TensorBase.__hash__

    # ------------------------------------------------------------------ Python's operators
    # `a + b`, `a += b`, ...: each protocol method is the operation of ops/ it stands for.

    def __add__(self, other):
        return arithmetic.add(self, other)

    def __radd__(self, other):
        return arithmetic.add(self, other)  # `2 + x` is recorded as `x + 2`, as in PyTorch

    def __sub__(self, other):
        return arithmetic.sub(self, other)

    def __rsub__(self, other):
        return arithmetic.sub(other, self)

    def __mul__(self, other):
        return arithmetic.mul(self, other)

    def __rmul__(self, other):
        return arithmetic.mul(self, other)  # `2 * x` is recorded as `x * 2`, as in PyTorch

    def __truediv__(self, other):
        return arithmetic.div(self, other)

    def __rtruediv__(self, other):
        return arithmetic.div(other, self)

    def __floordiv__(self, other):
        return arithmetic.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return arithmetic.floor_divide(other, self)

    def __mod__(self, other):
        return arithmetic.remainder(self, other)

    def __rmod__(self, other):
        return arithmetic.remainder(other, self)

    def __pow__(self, other):
        return arithmetic.tensor_pow(self, other)

    def __rpow__(self, other):
        return arithmetic.tensor_pow(other, self)

    def __matmul__(self, other):
        return linalg.matmul(self, other)

    def __rmatmul__(self, other):
        return linalg.matmul(other, self)

    def __neg__(self):
        return unary.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return unary.tensor_abs(self)

    def __lt__(self, other):
        return comparisons.lt(self, other)

    def __le__(self, other):
        return comparisons.le(self, other)

    def __gt__(self, other):
        return comparisons.gt(self, other)

    def __ge__(self, other):
        return comparisons.ge(self, other)

    def __eq__(self, other):  # type: ignore[override]
        return comparisons.eq(self, other)

    def __ne__(self, other):  # type: ignore[override]
        return comparisons.ne(self, other)

    def __and__(self, other):
        return comparisons.bitwise_and(self, other)

    __rand__ = __and__

    def __or__(self, other):
        return comparisons.bitwise_or(self, other)

    __ror__ = __or__

    def __xor__(self, other):
        return comparisons.bitwise_xor(self, other)

    __rxor__ = __xor__

    def __invert__(self):
        return comparisons.bitwise_not(self)

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    # ------------------------------------------------------------------ subclasses
    # (torch.Tensor._make_subclass: how nn.Parameter becomes a tensor)

    @staticmethod
    def _make_subclass(cls: type, data: TensorBase, require_grad: bool = False) -> Tensor:
        """A leaf of class `cls` (a subclass, e.g. `nn.Parameter`) over `data`'s storage."""
        if not isinstance(data, TensorBase):
            raise TypeError(
                "_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                f"{type(data).__name__}"
            )
        made = TensorBase.__new__(cls)
        TensorBase.__init__(made, data._layout, data.dtype, data.device, data._version_counter)
        made.requires_grad = require_grad
        return made

    # ------------------------------------------------------------------ random draws
    # The methods of tensors/creation.py's random functions, taking `generator=`.

    def bernoulli(self, p=None, *, generator=None) -> Tensor:
        """`minitorch.bernoulli(self)`: 1 with probability `self` (or `p`) elementwise."""
        return creation.bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples: int, replacement=False, *, generator=None) -> Tensor:
        """`minitorch.multinomial(self, ...)`: indices drawn with weights `self`."""
        return creation.multinomial(self, num_samples, replacement, generator=generator)


def legacy_tensor(args: tuple, kwargs: dict) -> TensorBase:
    """What PyTorch's legacy `Tensor(...)` makes: sizes give zeros, data a float copy."""
    if set(kwargs) - {"device"}:
        raise TypeError(
            f"new() received an invalid combination of arguments - got {sorted(kwargs)}"
        )
    on_device = legacy_constructor_device(kwargs.get("device"))
    dtype = dtypes.get_default_dtype()
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args) and args:
        return new_tensor(args, dtype, on_device)
    if len(args) > 1:
        raise TypeError("new() received an invalid combination of arguments")
    return creation.tensor(args[0] if args else [], dtype=dtype, device=on_device)


def add_operation_methods(cls: type) -> None:
    """Give `cls` a method for every operation declared with one in ops/ (`ops/api.py`)."""
    for name, function in TENSOR_METHODS.items():
        if hasattr(cls, name):
            raise TypeError(f"Tensor.{name} is written in _tensor.py and declared in ops/")
        setattr(cls, name, function)


add_operation_methods(Tensor)
set_tensor_class(Tensor)
