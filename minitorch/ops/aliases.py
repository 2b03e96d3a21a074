"""PyTorch's other names for operations declared elsewhere, and the in-place forms of
operations declared without one.

An alias is a second declaration of the same function (`minitorch.multiply` is
`minitorch.mul`); an in-place form (`sin_`) is declared `only_inplace=True`, so it is
made as every generated in-place form is (`ops/api.py`), with the version-counter and
leaf checks. The comparisons write 1 or 0 in the tensor's dtype (`x.lt_(0)`), as torch's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .arithmetic import div, floor_divide, mul, remainder, sub
from .comparisons import (
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    clamp,
    eq,
    ge,
    gt,
    le,
    logical_and,
    logical_not,
    logical_or,
    lt,
    ne,
)
from .elementwise import (
    acos,
    asin,
    atan,
    atan2,
    ceil,
    cos,
    cosh,
    erf,
    expm1,
    floor,
    fmod,
    frac,
    hypot,
    log1p,
    log2,
    log10,
    nan_to_num,
    rsqrt,
    sign,
    sin,
    sinh,
    square,
    tan,
    tensor_round,
    trunc,
)
from .joins import addmm, chunk, split, tril, triu, vstack
from .products import addbmm, addmv, addr, baddbmm
from .public import public
from .statistics import cumprod, cumsum
from .unary import reciprocal, tensor_abs

if TYPE_CHECKING:
    from .._tensor import Tensor

for function, name, aliases in [
    (gt, "greater", ()), (ge, "greater_equal", ()), (lt, "less", ()), (le, "less_equal", ()),
    (ne, "not_equal", ()), (mul, "multiply", ()), (sub, "subtract", ()), (div, "divide", ()),
]:  # fmt: skip
    public(name, inplace=True, aliases=aliases, keywords=2)(function)
public("absolute", inplace=True, keywords=1)(tensor_abs)
public("row_stack", method=False)(vstack)
public("unsafe_chunk")(chunk)
public("unsafe_split")(split)

for function, name, aliases in [
    (eq, "eq", ()), (ne, "ne", ()), (lt, "lt", ()), (le, "le", ()), (gt, "gt", ()),
    (ge, "ge", ()), (logical_and, "logical_and", ()), (logical_or, "logical_or", ()),
    (logical_not, "logical_not", ()), (bitwise_and, "bitwise_and", ()),
    (bitwise_or, "bitwise_or", ()), (bitwise_xor, "bitwise_xor", ()),
    (bitwise_not, "bitwise_not", ()), (bitwise_left_shift, "bitwise_left_shift", ()),
    (bitwise_right_shift, "bitwise_right_shift", ()), (reciprocal, "reciprocal", ()),
    (floor_divide, "floor_divide", ()), (remainder, "remainder", ()), (tril, "tril", ()),
    (triu, "triu", ()), (cumsum, "cumsum", ()), (cumprod, "cumprod", ()), (sin, "sin", ()),
    (cos, "cos", ()), (tan, "tan", ()), (asin, "asin", ("arcsin",)),
    (acos, "acos", ("arccos",)), (atan, "atan", ("arctan",)), (sinh, "sinh", ()),
    (cosh, "cosh", ()), (log2, "log2", ()), (log10, "log10", ()), (log1p, "log1p", ()),
    (expm1, "expm1", ()), (erf, "erf", ()), (rsqrt, "rsqrt", ()), (square, "square", ()),
    (frac, "frac", ()), (floor, "floor", ()), (ceil, "ceil", ()), (trunc, "trunc", ("fix",)),
    (tensor_round, "round", ()), (sign, "sign", ()), (atan2, "atan2", ("arctan2",)),
    (hypot, "hypot", ()), (fmod, "fmod", ()), (nan_to_num, "nan_to_num", ()),
    (div, "true_divide", ()), (addmm, "addmm", ()), (addmv, "addmv", ()), (addr, "addr", ()),
    (baddbmm, "baddbmm", ()), (addbmm, "addbmm", ()),
]:  # fmt: skip
    public(name, only_inplace=True, aliases=aliases)(function)


@public(inplace=True)
def clamp_min(a: Tensor, min) -> Tensor:
    """$\\max(a, min)$ elementwise (`clamp(a, min=min)`)."""
    return clamp(a, min=min)


@public(inplace=True)
def clamp_max(a: Tensor, max) -> Tensor:
    """$\\min(a, max)$ elementwise (`clamp(a, max=max)`)."""
    return clamp(a, max=max)


@public(inplace=True)
def logical_xor(a: Tensor, b: Tensor) -> Tensor:
    """Whether exactly one of $a$, $b$ is nonzero, elementwise."""
    return logical_or(a, b) & ~logical_and(a, b)
