"""Element types of tensors and PyTorch's type-promotion rules.

A tensor's `dtype` says how its storage stores each element. minitorch has
PyTorch's everyday ones, printed like PyTorch's: `minitorch.float32` (the
default for floating values) and `minitorch.float64`; the integers
`minitorch.int64` (the default for integer values), `int32`, `int16`, `int8`
and the unsigned `uint8`; and `minitorch.bool`.

When an operation mixes dtypes, the result type follows PyTorch:

- two dtypes promote to the smallest one that holds both (`promote_types`):
  `int8 + int32 -> int32`, `uint8 + int8 -> int16` (neither holds the other),
  `int64 + float32 -> float32` (a floating type beats any integer);
- dtypes are ordered by *category*: bool < integer < floating;
- tensors with at least one dimension decide the result, unless a 0-dim
  tensor or a Python number belongs to a higher category;
- a Python `float` counts as the default float dtype (`float32`), a Python
  `int` as `int64`, a Python `bool` as `bool`.

So `int64 * float32 -> float32`, `int64 + 2.5 -> float32`,
`float32 * float64 -> float64`, but `float32 * <0-dim float64> -> float32`,
`uint8 + 1000 -> uint8` (the 1000 wraps, as the result does) and
`bool + 1 -> int64`.
"""

from __future__ import annotations

import math

import numpy as np


class DType:
    """One element type: its name, NumPy dtype and category (bool, integer or floating)."""

    __slots__ = ("name", "numpy_dtype", "category", "torch_scalar_name", "tensor_type")

    def __init__(self, name: str, numpy_dtype: type, category: int, scalar: str, tensor_type: str):
        self.name = name
        self.numpy_dtype = np.dtype(numpy_dtype)
        # 0 = bool, 1 = integer, 2 = floating point
        self.category = category
        # PyTorch's C++ scalar-type name, used in its error messages ("Float", "Long")
        self.torch_scalar_name = scalar
        # the name of PyTorch's legacy tensor type, `t.type()` ("torch.IntTensor")
        self.tensor_type = tensor_type

    @property
    def is_floating_point(self) -> bool:
        """True for `float32` and `float64`."""
        return self.category == 2

    @property
    def is_complex(self) -> bool:
        """False: minitorch has no complex dtypes."""
        return False

    @property
    def is_signed(self) -> bool:
        """Whether the dtype holds negative numbers (False for `uint8` and `bool`)."""
        return self.category > 0 and self.numpy_dtype.kind != "u"

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.numpy_dtype.itemsize

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"

    def __reduce__(self) -> str:
        # pickling a dtype gives back the module-level singleton
        return self.name if self.name != "bool" else "bool_"


float32 = DType("float32", np.float32, 2, "Float", "FloatTensor")
float64 = DType("float64", np.float64, 2, "Double", "DoubleTensor")
int64 = DType("int64", np.int64, 1, "Long", "LongTensor")
int32 = DType("int32", np.int32, 1, "Int", "IntTensor")
int16 = DType("int16", np.int16, 1, "Short", "ShortTensor")
int8 = DType("int8", np.int8, 1, "Char", "CharTensor")
uint8 = DType("uint8", np.uint8, 1, "Byte", "ByteTensor")
bool_ = DType("bool", np.bool_, 0, "Bool", "BoolTensor")

ALL_DTYPES = (float32, float64, int64, int32, int16, int8, uint8, bool_)
_BY_NUMPY = {d.numpy_dtype: d for d in ALL_DTYPES}
# the signed integer dtype of each size in bytes
_SIGNED = {d.itemsize: d for d in (int8, int16, int32, int64)}

_default_float = float32


def get_default_dtype() -> DType:
    """The dtype of floating tensors created from Python floats (`float32`)."""
    return _default_float


def set_default_dtype(dtype: DType) -> None:
    """Make `dtype` (float32 or float64) the dtype of new floating tensors."""
    global _default_float
    dtype = to_dtype(dtype)
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = dtype


def from_numpy_dtype(numpy_dtype: np.dtype) -> DType:
    """The minitorch dtype storing NumPy's `numpy_dtype`; TypeError when there is none."""
    dtype = _BY_NUMPY.get(np.dtype(numpy_dtype))
    if dtype is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(numpy_dtype).type.__name__}. "
            "The only supported types are: float64, float32, int64, int32, int16, int8, "
            "uint8, and bool."
        )
    return dtype


def promote_types(a: DType, b: DType) -> DType:
    """The smallest dtype that holds every value of `a` and of `b` (`minitorch.promote_types`).

    A higher category wins (bool < integer < floating); within one, the larger
    dtype wins, except that `uint8` with a signed integer of its size or
    smaller needs the next signed size (`uint8, int8 -> int16`).

    >>> promote_types(uint8, int8)
    minitorch.int16
    """
    if not isinstance(a, DType) or not isinstance(b, DType):
        position, bad = (1, a) if not isinstance(a, DType) else (2, b)
        raise TypeError(
            f"promote_types(): argument 'type{position}' (position {position}) must be "
            f"minitorch.dtype, not {type(bad).__name__}"
        )
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.is_signed == b.is_signed:
        return a if a.itemsize >= b.itemsize else b
    signed, unsigned = (a, b) if a.is_signed else (b, a)
    return signed if signed.itemsize > unsigned.itemsize else _SIGNED[2 * unsigned.itemsize]


def scalar_dtype(value: bool | int | float) -> DType:
    """The dtype a Python number takes in an operation: bool, int64 or the default float."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return _default_float
    raise TypeError(f"expected a Python number, got {type(value).__name__}")


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    """Merge the result of a higher-priority group with a lower-priority one.

    The lower group only matters when it is of a higher category (a float
    among integers, an integer among bools), or when the higher group is
    empty.
    """
    if higher is None:
        return lower
    if lower is None or higher.is_floating_point:
        return higher
    if lower.category > higher.category:
        return promote_types(higher, lower)
    return higher


def result_type(*operands) -> DType:
    """PyTorch's result dtype for an operation on `operands`.

    Each operand is a tensor (anything with `dtype` and `dim()`) or a Python
    number. Tensors with dimensions outrank 0-dim tensors, which outrank
    Python numbers, unless a lower group reaches a higher category.
    """
    groups: list[DType | None] = [None, None, None]  # dimensioned, 0-dim, Python numbers
    for operand in operands:
        if hasattr(operand, "dtype") and hasattr(operand, "dim"):
            group, dtype = (0 if operand.dim() > 0 else 1), operand.dtype
        else:
            group, dtype = 2, scalar_dtype(operand)
        current = groups[group]
        groups[group] = dtype if current is None else promote_types(current, dtype)
    result = _combine(groups[0], _combine(groups[1], groups[2]))
    if result is None:
        raise TypeError("result_type needs at least one operand")
    return result


def can_cast(source: DType, target: DType) -> bool:
    """Whether an in-place op may store a `source` result into a `target` tensor.

    PyTorch forbids only going down a category: floating to integer or bool,
    integer to bool. Narrowing within a category (`int64` into `uint8`) is allowed.
    """
    return source.category <= target.category


def to_dtype(value) -> DType:
    """Accept a minitorch dtype, or a NumPy dtype/type it stores, and return the minitorch dtype."""
    if isinstance(value, DType):
        return value
    try:
        return from_numpy_dtype(np.dtype(value))
    except TypeError:
        raise TypeError(f"expected a minitorch dtype, got {value!r}") from None


def wrap_integer(value: int, dtype: DType) -> int:
    """The Python int `value` wrapped into the range of the integer `dtype` (two's complement).

    PyTorch wraps a Python integer that joins an operation on a narrower tensor:
    `uint8 + 300` adds 44 (300 mod 256), `int8 + 200` adds -56.
    """
    bits = 8 * dtype.itemsize
    value = int(value) & ((1 << bits) - 1)
    return value - (1 << bits) if dtype.is_signed and value >> (bits - 1) else value


def overflows(value, dtype: DType) -> bool:
    """Whether PyTorch refuses to convert the number `value` to `dtype` ("without overflow").

    An integer dtype takes numbers within its range (a float is truncated
    toward zero; NaN and infinities never fit); as in PyTorch, an unsigned one
    also takes a negative integer down to minus its maximum (`-1` is 255 in
    `uint8`). A floating dtype takes any number but a finite float beyond its
    largest value.
    """
    if dtype is bool_ or isinstance(value, (bool, np.bool_)):
        return False
    if dtype.is_floating_point:
        if not isinstance(value, (float, np.floating)) or not math.isfinite(value):
            return False
        return abs(value) > float(np.finfo(dtype.numpy_dtype).max)
    info = np.iinfo(dtype.numpy_dtype)
    if isinstance(value, (float, np.floating)):
        return not info.min <= value <= info.max
    lowest = -int(info.max) if not dtype.is_signed else int(info.min)
    return not lowest <= int(value) <= int(info.max)


def any_overflows(values: np.ndarray, dtype: DType) -> bool:
    """`overflows` for a NumPy array of numbers at once (integers, floats or bools)."""
    if dtype.category != 1 or values.size == 0 or values.dtype.kind not in "iuf":
        return any(overflows(v, dtype) for v in values.reshape(-1).tolist())
    info = np.iinfo(dtype.numpy_dtype)
    if values.dtype.kind == "f":  # NaN fails both comparisons
        return not bool(np.all((values >= info.min) & (values <= info.max)))
    lowest = -int(info.max) if not dtype.is_signed else int(info.min)
    return int(values.min()) < lowest or int(values.max()) > int(info.max)


# PyTorch's C++ names of the element types, in its "without overflow" error
_CPP_NAMES = {"float32": "float", "float64": "double", "int32": "int", "bool": "bool"}


def checked(value, dtype: DType):
    """`value`, after PyTorch's check that it fits `dtype` (`full`, `fill_`, `clamp`, ...)."""
    if overflows(value, dtype):
        name = _CPP_NAMES.get(dtype.name, f"{dtype.name}_t")
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return value


class iinfo:  # noqa: N801 -- PyTorch's name
    """The range of an integer dtype: `minitorch.iinfo(minitorch.int8).max` is 127.

    >>> iinfo(uint8)
    iinfo(min=0, max=255, dtype=uint8)
    """

    def __init__(self, dtype: DType):
        if not isinstance(dtype, DType) or dtype.category != 1:
            if dtype is bool_:
                raise TypeError("minitorch.bool is not supported by minitorch.iinfo")
            raise TypeError(
                "minitorch.iinfo() requires an integer input type. Use minitorch.finfo to "
                "handle 'minitorch.iinfo'"
            )
        info = np.iinfo(dtype.numpy_dtype)
        self.bits, self.min, self.max, self.dtype = (
            info.bits,
            int(info.min),
            int(info.max),
            dtype.name,
        )

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


class finfo:  # noqa: N801 -- PyTorch's name
    """The numbers of a floating dtype (the default one without an argument).

    `eps` is the gap between 1 and the next number, `tiny` (= `smallest_normal`)
    the smallest positive normal number, `resolution` $10^{-precision}$.

    >>> finfo(float32).eps
    1.1920928955078125e-07
    """

    def __init__(self, dtype: DType | None = None):
        dtype = _default_float if dtype is None else dtype
        if not isinstance(dtype, DType) or not dtype.is_floating_point:
            raise TypeError(
                "minitorch.finfo() requires a floating point input type. Use minitorch.iinfo to "
                "handle 'minitorch.finfo'"
            )
        info = np.finfo(dtype.numpy_dtype)
        self.bits, self.eps, self.resolution = info.bits, float(info.eps), 10.0**-info.precision
        self.min, self.max = float(info.min), float(info.max)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.dtype = dtype.name

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )
