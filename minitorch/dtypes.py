"""Element types of tensors and PyTorch's type-promotion rules.

A tensor's `dtype` says how its storage stores each element. minitorch has
four, printed like PyTorch's: `minitorch.float32` (the default for floating
values), `minitorch.float64`, `minitorch.int64` and `minitorch.bool`.

When an operation mixes dtypes, the result type follows PyTorch:

- dtypes are ordered by *category*: bool < integer < floating;
- tensors with at least one dimension decide the result, unless a 0-dim
  tensor or a Python number belongs to a higher category;
- a Python `float` counts as the default float dtype (`float32`), a Python
  `int` as `int64`, a Python `bool` as `bool`.

So `int64 * float32 -> float32`, `int64 + 2.5 -> float32`,
`float32 * float64 -> float64`, but `float32 * <0-dim float64> -> float32`
and `bool + 1 -> int64`.
"""

from __future__ import annotations

import numpy as np


class DType:
    """One element type: its name, NumPy dtype, size in bytes and category."""

    __slots__ = ("name", "numpy_dtype", "category", "rank", "torch_scalar_name")

    def __init__(self, name: str, numpy_dtype: type, category: int, rank: int, scalar: str):
        self.name = name
        self.numpy_dtype = np.dtype(numpy_dtype)
        # 0 = bool, 1 = integer, 2 = floating point
        self.category = category
        # order used by `promote_types`: a higher rank holds every lower one
        self.rank = rank
        # PyTorch's C++ scalar-type name, used in its error messages ("Float", "Long")
        self.torch_scalar_name = scalar

    @property
    def is_floating_point(self) -> bool:
        """True for `float32` and `float64`."""
        return self.category == 2

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.numpy_dtype.itemsize

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"

    def __reduce__(self) -> str:
        # pickling a dtype gives back the module-level singleton
        return self.name if self.name != "bool" else "bool_"


float32 = DType("float32", np.float32, category=2, rank=2, scalar="Float")
float64 = DType("float64", np.float64, category=2, rank=3, scalar="Double")
int64 = DType("int64", np.int64, category=1, rank=1, scalar="Long")
bool_ = DType("bool", np.bool_, category=0, rank=0, scalar="Bool")

ALL_DTYPES = (float32, float64, int64, bool_)
_BY_NUMPY = {d.numpy_dtype: d for d in ALL_DTYPES}

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
            "The only supported types are: float64, float32, int64, and bool."
        )
    return dtype


def promote_types(a: DType, b: DType) -> DType:
    """The smallest dtype that holds both `a` and `b` (`minitorch.promote_types`)."""
    return a if a.rank >= b.rank else b


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
    integer to bool.
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
