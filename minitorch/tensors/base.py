"""The data of a tensor: a strided layout over a storage, a dtype, a device, autograd fields.

`TensorBase` is what every layer below the operations sees: a `TensorData`
layout (storage, shape, strides, offset), a `dtype`, a `device`, and the
fields autograd uses (`requires_grad`, `grad`, `grad_fn`, and a version
counter shared by all views of one storage). It reads and converts, but does
not compute: the methods that run operations (`t + u`, `t.sum()`, `t.view(...)`)
are those of its subclass `minitorch.Tensor`, in `minitorch/_tensor.py`,
which sits above the operations. PyTorch is built the same way:
`torch.Tensor` subclasses the C++ `torch._C.TensorBase`.

The layers below make new tensors with `make_tensor`, which builds a
`minitorch.Tensor` once `_tensor.py` has handed its class over
(`set_tensor_class`, as PyTorch hands `torch.Tensor` to its C++ core).
"""

from __future__ import annotations

import copy
import threading
import warnings
import weakref

import numpy as np

from .. import dtypes
from ..backends import backend_for
from ..backends.tensor_data import TensorData, normalize_dim, prod
from ..dtypes import DType
from .device import CPU, device
from .dual import dual_state, tangent_of
from .format import format_tensor


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


class VersionCounter:
    """Counts in-place writes to a storage; shared by a tensor and all its views.

    It starts at the class attribute `value = 0` (no `__init__` to run: one is made
    for every operation's result); the first in-place write gives it its own.
    """

    value = 0


class StorageRef:
    """What `tensor.storage()` returns: the flat buffer behind a tensor and its views."""

    __slots__ = ("array", "dtype")

    def __init__(self, array: np.ndarray, dtype: DType):
        self.array = array
        self.dtype = dtype

    def data_ptr(self) -> int:
        """Address of the first element of the storage (in device memory for a GPU's)."""
        interface = getattr(self.array, "__cuda_array_interface__", None)
        return (interface or self.array.__array_interface__)["data"][0]

    def size(self) -> int:
        """Number of elements in the storage."""
        return self.array.shape[0]

    def __len__(self) -> int:
        return self.array.shape[0]

    def element_size(self) -> int:
        return self.dtype.itemsize

    def tolist(self) -> list:
        return self.array.tolist()


class _InferenceState(threading.local):
    """Whether tensors made on this thread now are inference tensors: the switch
    `minitorch.inference_mode` sets (autograd refuses to record those tensors later)."""

    enabled = False


inference_state = _InferenceState()


class TensorBase:
    """A tensor's data and autograd fields, without the operations (see the module docstring).

    `minitorch.Tensor` (in `_tensor.py`) subclasses it and adds the methods
    that compute. Create tensors with `minitorch.tensor`, `zeros`, `rand`, ...
    rather than with this constructor.
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
        "_inference",
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
        self._grad: TensorBase | None = None
        self.grad_fn = None  # the autograd Node that produced this tensor (None for leaves)
        self._grad_accumulator = None  # weak reference to this leaf's AccumulateGrad node
        self._base: TensorBase | None = None  # the tensor whose storage this view shares
        self._version_counter = version_counter or VersionCounter()
        self._inference = inference_state.enabled

    # ------------------------------------------------------------------ attributes

    @property
    def shape(self) -> Size:
        """The size of each dimension, e.g. `minitorch.Size([2, 3])`."""
        return Size(self._layout.shape)

    def size(self, dim: int | None = None):
        """The shape, or the size of dimension `dim`."""
        if dim is None:
            return self.shape
        return self._layout.shape[self._dimension(dim)]

    def _dimension(self, dim: int) -> int:
        """`dim` as an index into the shape (PyTorch's IndexError for a 0-dim tensor)."""
        if not self.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return normalize_dim(dim, self.ndim)

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
        return self._layout.strides[self._dimension(dim)]

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
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    @property
    def _version(self) -> int:
        """How many in-place writes this tensor's storage has seen (shared with views)."""
        return self._version_counter.value

    def _bump_version(self) -> None:
        self._version_counter.value += 1

    def is_inference(self) -> bool:
        """Whether this tensor was made inside `minitorch.inference_mode()`."""
        return self._inference

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
        if flag and self._inference and not inference_state.enabled:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad: bool = True) -> TensorBase:
        """Set `requires_grad` in place and return this tensor."""
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded operation."""
        return self.grad_fn is None

    @property
    def grad(self) -> TensorBase | None:
        """$\\partial L / \\partial \\text{self}$ summed over every `L.backward()` so far.

        None until a backward pass reaches this leaf. A non-leaf keeps no
        gradient unless `retain_grad()` was called (reading it warns, as PyTorch).
        """
        if self.grad_fn is not None and not self.retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: TensorBase | None) -> None:
        if value is not None:
            if not isinstance(value, TensorBase):
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

    def detach_(self) -> TensorBase:
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

    # ------------------------------------------------------------------ conversions

    def _host_values(self) -> np.ndarray:
        """This tensor's values as a NumPy array: a view of host memory, a copy from a device."""
        layout = self._layout
        host = backend_for(self.device).to_host(layout.storage)
        if host is not layout.storage:
            layout = TensorData(host, layout.shape, layout.strides, layout.offset)
        return layout.numpy_view()

    def numpy(self) -> np.ndarray:
        """A NumPy array sharing this tensor's memory (CPU only)."""
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        self._check_on_host()
        return self._layout.numpy_view()

    def _check_on_host(self) -> None:
        """PyTorch's error for a NumPy view of device memory: copy with `.cpu()` first."""
        if self.device.type != "cpu":
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to "
                "copy the tensor to host memory first."
            )

    def __array__(self, dtype=None, copy=None):
        self._check_on_host()
        values = self._host_values()
        if dtype is not None and np.dtype(dtype) != values.dtype:
            return values.astype(dtype)
        return values.copy() if copy else values

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        return self._host_values().item()

    def tolist(self):
        """Nested Python lists of Python numbers (a number for a 0-dim tensor)."""
        return self._host_values().tolist()

    def _python_scalar(self):
        """`item()` for Python's `float()`, `int()` and `complex()`, which raise PyTorch's
        ValueError (not item's RuntimeError) unless the tensor has one element."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self) -> float:
        return float(self._python_scalar())

    def __int__(self) -> int:
        return int(self._python_scalar())

    def __complex__(self) -> complex:
        return complex(self._python_scalar())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self.numel() != 1:
            many = "more than one value" if self.numel() else "no values"
            raise RuntimeError(f"Boolean value of Tensor with {many} is ambiguous")
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
        grad_fn = self.grad_fn
        return format_tensor(
            self._host_values(),  # a strided view: a summary reads only the corners it shows
            dtype_name=self.dtype.name,
            default_dtype=self.dtype is dtypes.get_default_dtype(),
            device=None if self.device.type == "cpu" else str(self.device),
            requires_grad=self.requires_grad and grad_fn is None,
            grad_fn_name=None if grad_fn is None else type(grad_fn).__name__,
            tangent=None if dual_state.level is None else _printed(tangent_of(self)),
        )

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:  # f"{loss}" and f"{loss:.4f}" format the number, as PyTorch
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __deepcopy__(self, memo) -> TensorBase:
        copied = self.clone()
        copied.requires_grad = self.requires_grad
        memo[id(self)] = copied
        return copied

    def __getstate__(self) -> tuple[dict | None, dict]:
        """What pickle saves: the attributes, with a device's storage read back to the host
        (`PickledStorage`), so that the tensor unpickles onto its device, as in PyTorch."""
        slots = {
            name: getattr(self, name)
            for cls in type(self).__mro__
            for name in getattr(cls, "__slots__", ())
            if name != "__weakref__" and hasattr(self, name)
        }
        if self.device.type != "cpu":
            layout = slots["_layout"] = copy.copy(self._layout)
            layout.storage = PickledStorage.of(self._layout.storage, self.device)
        return getattr(self, "__dict__", None), slots

    def __setstate__(self, state: tuple[dict | None, dict]) -> None:
        attributes, slots = state
        if attributes:
            self.__dict__.update(attributes)
        for name, value in slots.items():
            object.__setattr__(self, name, value)


class PickledStorage:
    """A device storage as pickle saves it: its values on the host and its device. It unpickles
    as a new storage on that device (`on_device`). One per storage (`of`), so that views of
    one storage pickle it once and share it again when unpickled."""

    # by the storage's id while it lives (device arrays are not hashable)
    _of_storage: dict[int, PickledStorage] = {}

    def __init__(self, storage, on_device: device):
        self.storage, self.device = weakref.ref(storage), on_device

    @classmethod
    def of(cls, storage, on_device: device) -> PickledStorage:
        found = cls._of_storage.get(id(storage))
        if found is None:
            found = cls._of_storage[id(storage)] = cls(storage, on_device)
            weakref.finalize(storage, cls._of_storage.pop, id(storage), None)
        return found

    def __reduce__(self):
        host = backend_for(self.device).to_host(self.storage())
        return PickledStorage.on_device, (host, str(self.device))

    @staticmethod
    def on_device(host: np.ndarray, name: str):
        """A new storage on device `name` holding `host`'s values."""
        return backend_for(device(name)).from_host(host)


NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


_tensor_class: type[TensorBase] = TensorBase


def set_tensor_class(cls: type[TensorBase]) -> None:
    """Make `make_tensor` build instances of `cls` (called once, by `_tensor.py`)."""
    global _tensor_class
    _tensor_class = cls


def _printed(t: TensorBase | None) -> str | None:
    return None if t is None else repr(t)


def make_tensor(
    layout: TensorData,
    dtype: DType,
    on_device: device = CPU,
    version_counter: VersionCounter | None = None,
) -> TensorBase:
    """A new `minitorch.Tensor` over `layout` (sharing `version_counter` when given).

    Every operation's result is made here, so the fields are set directly instead
    of through `Tensor.__init__` (which also parses PyTorch's legacy constructor):
    the same object, in a third of the time.
    """
    t = _new_object(_tensor_class)
    t._layout = layout
    t.dtype = dtype
    t.device = on_device
    t._requires_grad = False
    t._grad = None
    t.grad_fn = None
    t._grad_accumulator = None
    t._base = None
    t._version_counter = version_counter or VersionCounter()
    t._inference = inference_state.enabled
    return t


_new_object = object.__new__
