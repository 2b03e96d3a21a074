"""The `Tensor` class: a strided view over a storage, with PyTorch's API.

A tensor is a `TensorData` layout (storage, shape, strides, offset) plus a
`dtype`, a `device` and the fields autograd uses (`requires_grad`, `grad`,
`grad_fn`, and a version counter shared by all views of one storage).
Operations live in `tensor_api.py` (in-place ones and indexing in
`tensor_inplace.py`); the methods here are thin wrappers with PyTorch's names.
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np

from . import dtypes
from .backends.tensor_data import TensorData, normalize_dim, prod
from .dtypes import DType


class Size(tuple):
    """A tensor's shape: a tuple that prints as `minitorch.Size([2, 3])`."""

    def __repr__(self) -> str:
        return f"minitorch.Size({list(self)})"

    def __getitem__(self, key):
        result = super().__getitem__(key)
        return Size(result) if isinstance(key, slice) else result

    def numel(self) -> int:
        """The number of elements of a tensor of this shape."""
        return prod(self)


class device:  # noqa: N801 -- PyTorch's name
    """Where a tensor's storage lives: `minitorch.device('cpu')`, `device('cuda:0')`."""

    __slots__ = ("type", "index")

    def __init__(self, spec: str | device, index: int | None = None):
        if isinstance(spec, device):
            spec, index = spec.type, spec.index if index is None else index
        kind, _, number = str(spec).partition(":")
        if kind not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {spec}"
            )
        self.type = kind
        self.index = int(number) if number else index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")


class _CudaNamespace:
    """`minitorch.cuda`: GPU queries (no GPU backend exists yet)."""

    @staticmethod
    def is_available() -> bool:
        """False: minitorch has no CUDA backend yet."""
        return False

    @staticmethod
    def device_count() -> int:
        return 0


cuda = _CudaNamespace()


def check_device(target: device) -> device:
    """`target` if tensors can live there; a clear RuntimeError otherwise."""
    if target.type == "cuda" and not cuda.is_available():
        raise RuntimeError(
            f"cannot place a tensor on '{target}': minitorch has no CUDA device available "
            "(minitorch.cuda.is_available() is False)"
        )
    return target


class VersionCounter:
    """Counts in-place writes to a storage; shared by a tensor and all its views."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class StorageRef:
    """What `tensor.storage()` returns: the flat buffer behind a tensor and its views."""

    __slots__ = ("array", "dtype")

    def __init__(self, array: np.ndarray, dtype: DType):
        self.array = array
        self.dtype = dtype

    def data_ptr(self) -> int:
        """Address of the first element of the storage."""
        return self.array.__array_interface__["data"][0]

    def size(self) -> int:
        """Number of elements in the storage."""
        return self.array.shape[0]

    def __len__(self) -> int:
        return self.array.shape[0]

    def element_size(self) -> int:
        return self.dtype.itemsize

    def tolist(self) -> list:
        return self.array.tolist()


class Tensor:
    """A multi-dimensional array over a flat storage (see the module docstring).

    Create tensors with `minitorch.tensor`, `zeros`, `rand`, ... rather than
    with this constructor.
    """

    __slots__ = (
        "_layout",
        "dtype",
        "device",
        "_requires_grad",
        "_grad",
        "grad_fn",
        "_grad_accumulator",
        "_base",
        "_version_counter",
        "__weakref__",
    )
    # NumPy defers to our reflected operators (`np.float32(2) * t` gives a Tensor)
    __array_priority__ = 1000

    def __init__(
        self,
        layout: TensorData,
        dtype: DType,
        on_device: device = CPU,
        version_counter: VersionCounter | None = None,
    ):
        self._layout = layout
        self.dtype = dtype
        self.device = on_device
        self._requires_grad = False
        self._grad: Tensor | None = None
        self.grad_fn = None  # the autograd Node that produced this tensor (None for leaves)
        self._grad_accumulator = None  # weak reference to this leaf's AccumulateGrad node
        self._base: Tensor | None = None  # the tensor whose storage this view shares
        self._version_counter = version_counter or VersionCounter()

    # ------------------------------------------------------------------ attributes

    @property
    def shape(self) -> Size:
        """The size of each dimension, e.g. `minitorch.Size([2, 3])`."""
        return Size(self._layout.shape)

    def size(self, dim: int | None = None):
        """The shape, or the size of dimension `dim`."""
        if dim is None:
            return self.shape
        return self._layout.shape[normalize_dim(dim, self.ndim)] if self.ndim else 1

    def dim(self) -> int:
        """Number of dimensions."""
        return len(self._layout.shape)

    @property
    def ndim(self) -> int:
        return len(self._layout.shape)

    def numel(self) -> int:
        """Number of elements."""
        return self._layout.numel()

    def stride(self, dim: int | None = None):
        """Elements to skip in storage to move by one along each dimension (or along `dim`)."""
        if dim is None:
            return self._layout.strides
        return self._layout.strides[normalize_dim(dim, self.ndim)] if self.ndim else 1

    def storage_offset(self) -> int:
        """Position of this tensor's first element in its storage."""
        return self._layout.offset

    def storage(self) -> StorageRef:
        """The flat storage this tensor views (shared by its views)."""
        return StorageRef(self._layout.storage, self.dtype)

    def untyped_storage(self) -> StorageRef:
        return self.storage()

    def data_ptr(self) -> int:
        """Address of this tensor's first element."""
        return self.storage().data_ptr() + self._layout.offset * self.dtype.itemsize

    def element_size(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    def is_contiguous(self) -> bool:
        """Whether elements are laid out in row-major order with no gaps."""
        return self._layout.is_contiguous()

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def _version(self) -> int:
        """How many in-place writes this tensor's storage has seen (shared with views)."""
        return self._version_counter.value

    def _bump_version(self) -> None:
        self._version_counter.value += 1

    @property
    def T(self) -> Tensor:  # noqa: N802 -- PyTorch's name
        """All dimensions reversed (the transpose of a matrix)."""
        return self.permute(*range(self.ndim - 1, -1, -1))

    @property
    def mT(self) -> Tensor:  # noqa: N802 -- PyTorch's name
        """The last two dimensions swapped (a batch of transposed matrices)."""
        return self.transpose(-2, -1)

    # ------------------------------------------------------------------ autograd fields

    @property
    def requires_grad(self) -> bool:
        """Whether autograd records operations on this tensor (always, for a non-leaf)."""
        return self._requires_grad or self.grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if self.grad_fn is not None:
            if not flag:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach()."
                )
            return
        if flag and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set `requires_grad` in place and return this tensor."""
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded operation."""
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """$\\partial L / \\partial \\text{self}$ summed over every `L.backward()` so far.

        None until a backward pass reaches this leaf. A non-leaf keeps no
        gradient unless `retain_grad()` was called (reading it warns, as PyTorch).
        """
        if self.grad_fn is not None and not self.retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if tuple(value.shape) != tuple(self.shape):
                raise RuntimeError("assigned grad has data of a different size")
            if value.dtype is not self.dtype:
                raise RuntimeError("assigned grad has data of a different type")
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        """Whether this non-leaf keeps its `.grad` (see `retain_grad`)."""
        node = self.grad_fn
        return node is not None and node.retained is not None and node.retained() is self

    def retain_grad(self) -> None:
        """Keep this non-leaf's gradient in `.grad` during backward (leaves always do)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None:
            self.grad_fn.retained = weakref.ref(self)

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None) -> None:
        """Add $\\partial \\text{self} / \\partial x$ to `x.grad` for every leaf $x$ below.

        `gradient` weighs the outputs (a vector-Jacobian product); it may be
        left out for a one-element tensor. The graph's saved tensors are freed
        unless `retain_graph=True`.

        >>> import minitorch
        >>> x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4.])
        """
        run_backward(self, gradient, retain_graph)

    def detach_(self) -> Tensor:
        """Cut this tensor from the graph in place: it becomes a leaf that needs no grad."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """This tensor's values outside the graph (`detach()`)."""
        return self.detach()

    # ------------------------------------------------------------------ conversions

    def numpy(self) -> np.ndarray:
        """A NumPy array sharing this tensor's memory (CPU only)."""
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        return self._layout.numpy_view()

    def __array__(self, dtype=None, copy=None):
        values = self._layout.numpy_view()
        if dtype is not None and np.dtype(dtype) != values.dtype:
            return values.astype(dtype)
        return values.copy() if copy else values

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        return self._layout.storage.item(self._layout.offset)

    def tolist(self):
        """Nested Python lists of Python numbers (a number for a 0-dim tensor)."""
        return self._layout.numpy_view().tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._layout.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._layout.shape[0]))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        from .tensor_format import format_tensor

        grad_fn = self.grad_fn
        return format_tensor(
            np.array(self._layout.numpy_view(), order="C"),
            dtype_name=self.dtype.name,
            default_dtype=self.dtype is dtypes.get_default_dtype(),
            device=None if self.device.type == "cpu" else str(self.device),
            requires_grad=self.requires_grad and grad_fn is None,
            grad_fn_name=None if grad_fn is None else type(grad_fn).__name__,
        )

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self.ndim == 0 and spec:
            return format(self.item(), spec)
        return format(str(self), spec)

    def __deepcopy__(self, memo) -> Tensor:
        copied = self.clone()
        copied.requires_grad = self.requires_grad
        memo[id(self)] = copied
        return copied

    def to(self, *args, **kwargs) -> Tensor:
        """This tensor with another dtype and/or device (itself when nothing changes).

        Accepts a dtype, a device (or its name), or another tensor whose dtype
        and device to take: `t.to(minitorch.float64)`, `t.to('cpu')`, `t.to(other)`.
        """
        return F.to(self, *args, **kwargs)

    def cpu(self) -> Tensor:
        """This tensor on the CPU (itself when it is there already)."""
        return F.to(self, CPU)

    def cuda(self) -> Tensor:
        return F.to(self, device("cuda"))

    def type(self, dtype: DType | None = None):
        """Convert to `dtype`; without it, PyTorch's type name (`'minitorch.FloatTensor'`)."""
        if dtype is None:
            names = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}
            return f"minitorch.{names[self.dtype.name]}Tensor"
        return F.to(self, dtypes.to_dtype(dtype))

    def float(self) -> Tensor:
        """A float32 version of this tensor (itself if it is float32)."""
        return F.to(self, dtypes.float32)

    def double(self) -> Tensor:
        """A float64 version of this tensor (itself if it is float64)."""
        return F.to(self, dtypes.float64)

    def long(self) -> Tensor:
        """An int64 version of this tensor (itself if it is int64)."""
        return F.to(self, dtypes.int64)

    def bool(self) -> Tensor:
        """A bool version of this tensor (itself if it is bool)."""
        return F.to(self, dtypes.bool_)

    def type_as(self, other: Tensor) -> Tensor:
        """This tensor converted to `other`'s dtype."""
        return F.to(self, other.dtype)

    # ------------------------------------------------------------------ views

    def view(self, *shape) -> Tensor:
        """The same elements with another shape, never copying (one size may be -1)."""
        return F.view(self, *shape)

    def view_as(self, other: Tensor) -> Tensor:
        return F.view(self, other.shape)

    def reshape(self, *shape) -> Tensor:
        """Like `view`, but copies when the strides do not allow a view."""
        return F.reshape(self, *shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        return F.reshape(self, other.shape)

    def permute(self, *dims) -> Tensor:
        """Reorder the dimensions (a view): dimension k of the result is `dims[k]`."""
        return F.permute(self, *dims)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions (a view)."""
        return F.transpose(self, dim0, dim1)

    swapaxes = transpose

    def t(self) -> Tensor:
        """Transpose a matrix (a view); 0-D and 1-D tensors come back as they are."""
        return F.t(self)

    def expand(self, *sizes) -> Tensor:
        """Repeat size-1 dimensions to `sizes` without copying (-1 keeps a size)."""
        return F.expand(self, *sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        return F.expand(self, other.shape)

    def squeeze(self, dim=None) -> Tensor:
        """Drop dimensions of size 1 (all of them, or `dim` if it has size 1)."""
        return F.squeeze(self, dim)

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a dimension of size 1 at `dim`."""
        return F.unsqueeze(self, dim)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge dimensions `start_dim..end_dim` into one (a view when possible)."""
        return F.flatten(self, start_dim, end_dim)

    def contiguous(self) -> Tensor:
        """This tensor if contiguous, else a contiguous copy."""
        return self if self.is_contiguous() else F.clone(self)

    def clone(self) -> Tensor:
        """A contiguous copy with its own storage."""
        return F.clone(self)

    def detach(self) -> Tensor:
        """The same storage, cut from the autograd graph."""
        return F.detach(self)

    def __getitem__(self, key) -> Tensor:
        return tensor_inplace.getitem(self, key)

    def __setitem__(self, key, value) -> None:
        tensor_inplace.setitem(self, key, value)

    def where(self, condition: Tensor, other) -> Tensor:
        """This tensor where `condition` holds, else `other`: `where(condition, self, other)`."""
        return F.where(condition, self, other)

    # ------------------------------------------------------------------ arithmetic

    def __add__(self, other):
        return F.add(self, other)

    def __radd__(self, other):
        return F.add(self, other)  # `2 + x` is recorded as `x + 2`, as in PyTorch

    def __sub__(self, other):
        return F.sub(self, other)

    def __rsub__(self, other):
        return F.sub(other, self)

    def __mul__(self, other):
        return F.mul(self, other)

    def __rmul__(self, other):
        return F.mul(self, other)  # `2 * x` is recorded as `x * 2`, as in PyTorch

    def __truediv__(self, other):
        return F.div(self, other)

    def __rtruediv__(self, other):
        return F.div(other, self)

    def __floordiv__(self, other):
        return F.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return F.floor_divide(other, self)

    def __mod__(self, other):
        return F.remainder(self, other)

    def __rmod__(self, other):
        return F.remainder(other, self)

    def __pow__(self, other):
        return F.tensor_pow(self, other)

    def __rpow__(self, other):
        return F.tensor_pow(other, self)

    def __matmul__(self, other):
        return F.matmul(self, other)

    def __rmatmul__(self, other):
        return F.matmul(other, self)

    def __neg__(self):
        return F.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return F.tensor_abs(self)

    def __lt__(self, other):
        return F.lt(self, other)

    def __le__(self, other):
        return F.le(self, other)

    def __gt__(self, other):
        return F.gt(self, other)

    def __ge__(self, other):
        return F.ge(self, other)

    def __eq__(self, other):  # type: ignore[override]
        return F.eq(self, other)

    def __ne__(self, other):  # type: ignore[override]
        return F.ne(self, other)

    def __and__(self, other):
        return F.bitwise_and(self, other)

    __rand__ = __and__

    def __or__(self, other):
        return F.bitwise_or(self, other)

    __ror__ = __or__

    def __xor__(self, other):
        return F.bitwise_xor(self, other)

    __rxor__ = __xor__

    def __invert__(self):
        return F.bitwise_not(self)

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)


NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)

# The operation modules import Tensor from this module, so they are imported after the class.
from . import tensor_api as F  # noqa: E402
from . import tensor_inplace  # noqa: E402
from .autograd import run_backward  # noqa: E402

# Every method below forwards to the module-level function of the same name in
# tensor_api.py or tensor_inplace.py (`t.exp()` is `minitorch.exp(t)`); names of
# Python built-ins are defined there with a `tensor_` prefix.
_FORWARDED_METHODS = (
    "add sub mul div true_divide floor_divide remainder pow neg negative abs reciprocal exp log "
    "sqrt sigmoid relu tanh maximum minimum clamp clip eq ne lt le gt ge logical_not "
    "logical_and logical_or sum mean prod max min argmax argmin all any softmax log_softmax "
    "matmul mm dot"
).split()
_FORWARDED_INPLACE_METHODS = (
    "add_ sub_ mul_ div_ pow_ neg_ abs_ exp_ log_ sqrt_ sigmoid_ tanh_ relu_ clamp_ zero_ fill_ "
    "copy_ t_ uniform_ normal_"
).split()
_BUILTIN_NAMES = {"sum", "max", "min", "abs", "all", "any", "pow", "prod"}


def _forwarder(name: str, module):
    function = getattr(module, "tensor_" + name if name in _BUILTIN_NAMES else name)

    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = function.__doc__
    return method


for _name in _FORWARDED_METHODS:
    setattr(Tensor, _name, _forwarder(_name, F))
for _name in _FORWARDED_INPLACE_METHODS:
    setattr(Tensor, _name, _forwarder(_name, tensor_inplace))
