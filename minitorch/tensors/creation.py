"""Creating tensors: from data (`tensor`, `from_numpy`), filled (`zeros`, `full`, ...),
ranges (`arange`, `linspace`, `eye`) and random ones (`rand`, `randn`, ...).

Every factory takes PyTorch's keywords `dtype=`, `device=` and `requires_grad=`.
Random tensors come from one NumPy generator, reseeded by `manual_seed`.
"""

from __future__ import annotations

import builtins
import functools
import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..backends import backend_for
from ..backends.tensor_data import TensorData, prod
from ..dtypes import DType
from .base import TensorBase, make_tensor
from .device import check_device, get_default_device
from .device import device as Device

if TYPE_CHECKING:
    from .._tensor import Tensor

Number = bool | int | float


def parse_shape(args) -> tuple:
    """Sizes given as `(2, 3)`, `[2, 3]`, a Size, or as separate arguments `2, 3`."""
    if len(args) == 1 and isinstance(args[0], Sequence):
        args = tuple(args[0])
    if all([type(size) is int for size in args]):  # the common case, checked first
        return args
    for size in args:
        if not isinstance(size, (int, np.integer)) or isinstance(size, bool):
            raise TypeError(f"sizes must be integers, got {size!r}")
    return tuple(int(size) for size in args)


class Generator:
    """`minitorch.Generator`: a seedable source of random numbers (NumPy's PCG64 inside).

    Pass one as `generator=` to a random function for a stream of its own.
    The numbers differ from PyTorch's (another algorithm); a seed gives the
    same numbers every run. `get_state` gives the state as an int64 tensor
    (PyTorch's is a uint8 one), for `set_state`.
    """

    def __init__(self, device="cpu") -> None:
        self.device = device if isinstance(device, Device) else Device(device)
        self.seed()

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from `seed`; returns the generator."""
        self._initial_seed = int(seed)
        self.rng = np.random.default_rng(int(seed) & (2**64 - 1))
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        seed = int(np.random.SeedSequence().entropy) & (2**63 - 1)
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        """The seed this stream started from."""
        return self._initial_seed

    def get_state(self) -> Tensor:
        """The stream's position, as an int64 tensor that `set_state` accepts."""
        state = self.rng.bit_generator.state
        words = [state["state"]["state"], state["state"]["inc"]]
        parts = [(w >> shift) & 0xFFFFFFFF for w in words for shift in (96, 64, 32, 0)]
        parts += [state["has_uint32"], state["uinteger"], self._initial_seed]
        return tensor(parts, dtype=dtypes.int64)

    def set_state(self, new_state: Tensor) -> Generator:
        """Go back to a position `get_state` gave."""
        parts = [int(v) for v in new_state.tolist()]
        if len(parts) != 11:
            raise RuntimeError("Generator.set_state: expected a state from Generator.get_state")
        words = [
            sum(p << shift for p, shift in zip(parts[k : k + 4], (96, 64, 32, 0), strict=True))
            for k in (0, 4)
        ]
        self.rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": words[0], "inc": words[1]},
            "has_uint32": parts[8],
            "uinteger": parts[9],
        }
        self._initial_seed = parts[10]
        return self


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed `default_generator`, behind `rand`, `randn`, `uniform_`, ... without `generator=`."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed `default_generator` from the operating system's entropy."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed `default_generator` started from."""
    return default_generator.initial_seed()


def flatten_nested(data, dim: int = 0) -> tuple[tuple, list]:
    """The shape and row-major values of nested sequences of numbers (ragged ones refused)."""
    if isinstance(data, TensorBase):
        if data.numel() != 1 or data.ndim:
            return tuple(data.shape), data.reshape(-1).tolist()
        return (), [data.item()]
    if isinstance(data, np.ndarray):
        return data.shape, data.reshape(-1).tolist()
    if isinstance(data, (bool, int, float, np.bool_, np.integer, np.floating)):
        return (), [data]
    if not isinstance(data, Sequence) or isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if len(data) == 0:
        return (0,), []
    shapes, values = [], []
    for item in data:
        shape, flat = flatten_nested(item, dim + 1)
        shapes.append(shape)
        values.extend(flat)
    for shape in shapes[1:]:
        if shape != shapes[0]:
            expected = shapes[0][0] if shapes[0] else 0
            got = shape[0] if shape else 0
            raise ValueError(f"expected sequence of length {expected} at dim {dim + 1} (got {got})")
    return (len(data),) + shapes[0], values


def inferred_dtype(values: list) -> DType:
    """PyTorch's dtype for Python data: the promoted dtype of its elements, where a Python
    float is the default float, an int int64, a bool bool, and a NumPy number keeps its own
    (`[np.int8(1), np.uint8(2)]` gives int16, `[np.int32(1), 2.5]` the default float)."""
    if not values:
        return dtypes.get_default_dtype()
    result = None
    for kind in {type(v) for v in values}:
        if issubclass(kind, (np.number, np.bool_)):
            found = dtypes.from_numpy_dtype(kind)
        elif issubclass(kind, bool):
            found = dtypes.bool_
        elif issubclass(kind, int):
            found = dtypes.int64
        else:
            found = dtypes.get_default_dtype()
        result = found if result is None else dtypes.promote_types(result, found)
    return result


def stored(values: list, dtype: DType) -> np.ndarray:
    """`values` as a flat NumPy array of `dtype`, converted as PyTorch converts them.

    Into an integer dtype floats are truncated toward zero and a number outside its range is
    PyTorch's "without overflow" error (`uint8` also takes -255 to -1, wrapped).
    """
    if dtype.category != 1:
        return np.array(values, dtype=dtype.numpy_dtype).reshape(-1)
    wide = np.array(values).reshape(-1)  # int64, float64 or bool
    if dtypes.any_overflows(wide, dtype):
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    return wide.astype(dtype.numpy_dtype)


def finish(t: Tensor, on_device, requires_grad: bool) -> Tensor:
    """Apply the `device=` and `requires_grad=` keywords of a factory function.

    `t` was made in host memory; another device gets a copy in its own memory.
    """
    if on_device is None:
        on_device = get_default_device()
    if on_device is not t.device and (target := check_device(Device(on_device))) != t.device:
        layout = t._layout
        storage = backend_for(target).from_host(layout.storage)
        t._layout = TensorData(storage, layout.shape, layout.strides, layout.offset)
        t.device = target
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t.requires_grad = True
    return t


def tensor(data, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of `data` (nested lists, numbers, arrays or tensors).

    >>> import minitorch
    >>> minitorch.tensor([[1, 2], [3, 4]]).dtype
    minitorch.int64
    >>> minitorch.tensor([1.5]).dtype
    minitorch.float32
    """
    if isinstance(data, np.ndarray) and dtype is None:
        dtype = dtypes.from_numpy_dtype(data.dtype)
    elif isinstance(data, TensorBase) and dtype is None:
        dtype = data.dtype
    shape, values = flatten_nested(data)
    dtype = inferred_dtype(values) if dtype is None else dtypes.to_dtype(dtype)
    storage = stored(values, dtype)
    return finish(make_tensor(TensorData(storage, shape), dtype), device, requires_grad)


def filled(size, value: Number, dtype, on_device, requires_grad: bool, name: str) -> Tensor:
    shape = parse_shape(size)
    if builtins.any(s < 0 for s in shape):
        raise RuntimeError(f"{name}: Dimension size must be non-negative.")
    dtype = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    value = dtypes.checked(value, dtype)
    if dtype.category == 1 and not isinstance(value, float):
        value = dtypes.wrap_integer(value, dtype)  # -1 in uint8 is 255
    storage = np.full(prod(shape), value, dtype=dtype.numpy_dtype)
    return finish(make_tensor(TensorData(storage, shape), dtype), on_device, requires_grad)


def takes_size_keyword(factory):
    """`factory(size=(2, 3))` as well as `factory(2, 3)`: PyTorch's keyword for the sizes."""

    @functools.wraps(factory)
    def make(*size, **kwargs):
        if "size" in kwargs:
            if size:
                raise TypeError(f"{factory.__name__}() got multiple values for argument 'size'")
            size = (kwargs.pop("size"),)
        return factory(*size, **kwargs)

    return make


@takes_size_keyword
def zeros(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor of zeros: `zeros(2, 3)` or `zeros((2, 3))`."""
    return filled(size, 0, dtype, device, requires_grad, "zeros")


@takes_size_keyword
def ones(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor of ones."""
    return filled(size, 1, dtype, device, requires_grad, "ones")


@takes_size_keyword
def empty(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor whose values are unspecified (zeros here)."""
    return filled(size, 0, dtype, device, requires_grad, "empty")


def full(size, fill_value: Number, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A tensor filled with `fill_value` (whose type sets the dtype unless given)."""
    dtype = dtypes.scalar_dtype(fill_value) if dtype is None else dtype
    return filled((size,), fill_value, dtype, device, requires_grad, "full")


def arange(
    start: Number,
    end: Number | None = None,
    step: Number = 1,
    dtype=None,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """`start, start + step, ...` up to (not including) `end`; `arange(n)` is `0..n-1`."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        floating = builtins.any(isinstance(v, float) for v in (start, end, step))
        dtype = dtypes.get_default_dtype() if floating else dtypes.int64
    dtype = dtypes.to_dtype(dtype)
    count = math.ceil((end - start) / step)
    values = (
        start + np.arange(count, dtype=np.float64 if dtype.is_floating_point else np.int64) * step
    )
    return finish(tensor(values.astype(dtype.numpy_dtype)), device, requires_grad)


def linspace(
    start: float, end: float, steps: int, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """`steps` evenly spaced values from `start` to `end` inclusive."""
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    dtype = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
    values = np.linspace(start, end, steps, dtype=np.float64).astype(dtype.numpy_dtype)
    return finish(tensor(values), device, requires_grad)


def eye(
    n: int, m: int | None = None, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    """The `n × m` identity matrix (ones on the diagonal)."""
    dtype = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
    values = np.eye(n, n if m is None else m, dtype=dtype.numpy_dtype)
    return finish(tensor(values), device, requires_grad)


def random_tensor(values: np.ndarray, dtype, on_device, requires_grad) -> Tensor:
    dtype = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
    return finish(tensor(np.asarray(values).astype(dtype.numpy_dtype)), on_device, requires_grad)


@takes_size_keyword
def rand(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Uniform samples from $[0, 1)$ (reproducible after `manual_seed`)."""
    values = rng_of(generator).random(parse_shape(size))
    return random_tensor(values, dtype, device, requires_grad)


@takes_size_keyword
def randn(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Standard normal samples (reproducible after `manual_seed`)."""
    values = rng_of(generator).standard_normal(parse_shape(size))
    return random_tensor(values, dtype, device, requires_grad)


def randint(
    low: int, high: int | None = None, size=None, *, generator=None, dtype=None, device=None
) -> Tensor:
    """Integers uniform in `[low, high)` (`randint(high, size)` starts at 0), int64."""
    if size is None:
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    values = rng_of(generator).integers(low, high, size=parse_shape((size,)))
    return random_tensor(values, dtype or dtypes.int64, device, False)


def rng_of(chosen: Generator | None) -> np.random.Generator:
    """The NumPy stream of a `generator=` argument (`default_generator` for None)."""
    if chosen is not None and not isinstance(chosen, Generator):
        raise TypeError(f"generator must be a minitorch.Generator, not {type(chosen).__name__}")
    return (default_generator if chosen is None else chosen).rng


def normal(
    mean=0.0,
    std=1.0,
    size=None,
    *,
    generator=None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """Samples of $\\mathcal{N}(mean, std^2)$: numbers with a `size`, or elementwise for
    tensor `mean` and/or `std` (broadcast; their dtype)."""
    tensors = [v for v in (mean, std) if isinstance(v, TensorBase)]
    if tensors:
        if size is not None:
            raise TypeError("normal(): size is given only with a number mean and std")
        means, stds = (
            np.asarray(v._host_values() if isinstance(v, TensorBase) else v, dtype=np.float64)
            for v in (mean, std)
        )
        if np.any(stds < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        values = rng_of(generator).normal(means, stds)
        dtype = dtype or tensors[0].dtype
        if not dtype.is_floating_point:
            raise NotImplementedError(
                f"\"normal_kernel_cpu\" not implemented for '{dtype.torch_scalar_name}'"
            )
        on_device = tensors[0].device if device is None else device
        return random_tensor(np.asarray(values), dtype, on_device, requires_grad)
    if size is None:
        raise TypeError("normal() missing required argument 'size' (with a number mean and std)")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    values = rng_of(generator).normal(mean, std, parse_shape((size,)))
    return random_tensor(values, dtype, device, requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A random permutation of $0, ..., n-1$ (int64)."""
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    values = rng_of(generator).permutation(int(n))
    return random_tensor(values, dtype or dtypes.int64, device, requires_grad)


def bernoulli(input: Tensor, p: float | None = None, *, generator=None) -> Tensor:  # noqa: A002
    """1 with probability `input` (or `p`) elementwise, else 0; `input`'s dtype and shape."""
    probabilities = np.asarray(input._host_values() if p is None else p, dtype=np.float64)
    if np.any(~((probabilities >= 0) & (probabilities <= 1))):
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    draws = rng_of(generator).random(tuple(input.shape)) < probabilities
    return random_tensor(draws, input.dtype, input.device, False)


def multinomial(
    input: Tensor,  # noqa: A002
    num_samples: int,
    replacement: bool = False,
    *,  # noqa: A002
    generator=None,
) -> Tensor:
    """`num_samples` indices per row of `input` (1-D or 2-D, weights), int64.

    With replacement: inverse CDF of uniform draws. Without: the
    $k$ smallest of $E_i / w_i$ with $E_i$ exponential (an index of weight 0
    comes only after all the others)."""
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    weights = np.asarray(input._host_values(), dtype=np.float64).reshape(-1, input.shape[-1])
    n = weights.shape[1]
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if np.any(~np.isfinite(weights)) or np.any(weights < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = weights.sum(axis=1, keepdims=True)
    if np.any(totals <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = rng_of(generator)
    if replacement:
        cdf = np.cumsum(weights / totals, axis=1)
        draws = rng.random((weights.shape[0], num_samples))
        picks = np.minimum((draws[:, :, None] >= cdf[:, None, :]).sum(axis=2), n - 1)
    else:
        with np.errstate(divide="ignore"):
            keys = rng.exponential(size=weights.shape) / weights
        picks = np.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    shape = (num_samples,) if input.ndim == 1 else (weights.shape[0], num_samples)
    return random_tensor(picks.reshape(shape), dtypes.int64, input.device, False)


def _like(factory, a: Tensor, dtype, device, requires_grad: bool, *args) -> Tensor:
    """`factory(a.shape, *args, ...)` with `a`'s dtype and device unless others are given."""
    return factory(
        a.shape,
        *args,
        dtype=dtype or a.dtype,
        device=device or a.device,
        requires_grad=requires_grad,
    )


def zeros_like(a: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Zeros of `a`'s shape (and dtype and device, unless given)."""
    return _like(zeros, a, dtype, device, requires_grad)


def ones_like(a: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Ones of `a`'s shape (and dtype and device, unless given)."""
    return _like(ones, a, dtype, device, requires_grad)


def empty_like(a: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    """An uninitialised tensor of `a`'s shape (zeros here)."""
    return _like(empty, a, dtype, device, requires_grad)


def full_like(a: Tensor, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
    """`fill_value` everywhere, in `a`'s shape (and dtype and device, unless given)."""
    return _like(full, a, dtype, device, requires_grad, fill_value)


def rand_like(a: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Uniform samples from $[0, 1)$ in `a`'s shape."""
    return _like(rand, a, dtype, device, requires_grad)


def randn_like(a: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Standard normal samples in `a`'s shape."""
    return _like(randn, a, dtype, device, requires_grad)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing `array`'s memory (writes show through both ways) and its dtype.

    >>> import numpy as np, minitorch
    >>> a = np.zeros(3)
    >>> t = minitorch.from_numpy(a)
    >>> t[0] = 5
    >>> a[0]
    np.float64(5.0)
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtype = dtypes.from_numpy_dtype(array.dtype)
    itemsize = array.itemsize
    if builtins.any(s < 0 for s in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) "
        )
    if builtins.any(s % itemsize for s in array.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the numpy "
            "array to reallocate the memory."
        )
    if not array.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You "
            "may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor.",
            UserWarning,
            stacklevel=2,
        )
    strides = tuple(s // itemsize for s in array.strides)
    if array.size == 0:
        storage = np.empty(0, dtype=array.dtype)
    else:
        span = 1 + builtins.sum(
            (size - 1) * stride for size, stride in zip(array.shape, strides, strict=True)
        )
        storage = np.lib.stride_tricks.as_strided(array, shape=(span,), strides=(itemsize,))
    return make_tensor(TensorData(storage, array.shape, strides), dtype)


def is_tensor(value) -> bool:
    return isinstance(value, TensorBase)
