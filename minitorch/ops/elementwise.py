"""More elementwise math: trigonometry, $\\log_2$, rounding, `atan2`, `hypot`, `fmod`, `lerp`, ...

The functions of one tensor are more rows of `unary.py`'s table (a scalar
function of `minitorch.operators` forward, a tensor gradient backward).
Rounding (`floor`, `ceil`, `round`, `trunc`) and `sign` keep integer
tensors as they are, as PyTorch does, and have a zero gradient. The
functions of two tensors are written out like `arithmetic.py`'s; the tests
(`isnan`, `isclose`, `equal`, ...) have no gradient.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes, operators
from ..autograd.graph import GraphContext
from ..tensors.base import TensorBase
from ..tensors.creation import zeros_like
from ..tensors.kernels import (
    apply_map,
    apply_zip,
    as_operands,
    converted,
    float_version,
    scalar_tensor,
)
from ..tensors.shapes import not_implemented
from .arithmetic import check_integer_divisor, tensor_pow
from .comparisons import where
from .copies import clone
from .functions import Op
from .public import declare, public
from .unary import unary

if TYPE_CHECKING:
    from .._tensor import Tensor


def sin_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g \\cos a$"""
    return grad * a.cos()


def cos_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$-g \\sin a$"""
    return -(grad * a.sin())


def tan_gradient(grad: Tensor, out: Tensor) -> Tensor:
    """$g (1 + \\tan^2 a)$, with $\\tan a = out$"""
    return grad * (1 + out * out)


def asin_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g / \\sqrt{1 - a^2}$"""
    return grad / (1 - a * a).sqrt()


def acos_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$-g / \\sqrt{1 - a^2}$"""
    return -(grad / (1 - a * a).sqrt())


def atan_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g / (1 + a^2)$"""
    return grad / (1 + a * a)


def sinh_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g \\cosh a$"""
    return grad * a.cosh()


def cosh_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g \\sinh a$"""
    return grad * a.sinh()


def log2_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g / (a \\ln 2)$"""
    return grad / (a * math.log(2.0))


def log10_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g / (a \\ln 10)$"""
    return grad / (a * math.log(10.0))


def log1p_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g / (1 + a)$"""
    return grad / (a + 1)


def expm1_gradient(grad: Tensor, out: Tensor) -> Tensor:
    """$g e^a$, which is $g (out + 1)$"""
    return grad * (out + 1)


def erf_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g \\frac{2}{\\sqrt{\\pi}} e^{-a^2}$"""
    return grad * ((-(a * a)).exp() * (2.0 / math.sqrt(math.pi)))


def rsqrt_gradient(grad: Tensor, out: Tensor) -> Tensor:
    """$-g / (2 a^{3/2})$, which is $-g \\, out^3 / 2$"""
    return grad * (out * out * out * -0.5)


def frac_gradient(grad: Tensor) -> Tensor:
    """$g$ (the integer part is locally constant)"""
    return grad


def zero_gradient(grad: Tensor) -> Tensor:
    """0: a step function is flat wherever it has a slope"""
    return zeros_like(grad)


# fmt: off
#             name       f                          gradient        saves  to_float
Sin   = unary("Sin",     operators.sin,             sin_gradient,   "a",   True)
Cos   = unary("Cos",     operators.cos,             cos_gradient,   "a",   True)
Tan   = unary("Tan",     operators.tan,             tan_gradient,   "out", True)
Asin  = unary("Asin",    operators.asin,            asin_gradient,  "a",   True)
Acos  = unary("Acos",    operators.acos,            acos_gradient,  "a",   True)
Atan  = unary("Atan",    operators.atan,            atan_gradient,  "a",   True)
Sinh  = unary("Sinh",    operators.sinh,            sinh_gradient,  "a",   True)
Cosh  = unary("Cosh",    operators.cosh,            cosh_gradient,  "a",   True)
Log2  = unary("Log2",    operators.log2,            log2_gradient,  "a",   True)
Log10 = unary("Log10",   operators.log10,           log10_gradient, "a",   True)
Log1P = unary("Log1P",   operators.log1p,           log1p_gradient, "a",   True)
Expm1 = unary("Expm1",   operators.expm1,           expm1_gradient, "out", True)
Erf   = unary("Erf",     operators.erf,             erf_gradient,   "a",   True)
Rsqrt = unary("Rsqrt",   operators.rsqrt,           rsqrt_gradient, "out", True)
Frac  = unary("Frac",    operators.frac,            frac_gradient,  None,  False)
Floor = unary("Floor",   operators.floor,           zero_gradient,  None,  False)
Ceil  = unary("Ceil",    operators.ceil,            zero_gradient,  None,  False)
Trunc = unary("Trunc",   operators.trunc,           zero_gradient,  None,  False)
Round = unary("Round",   operators.round_half_even, zero_gradient,  None,  False)
Sign  = unary("Sign",    operators.sign,            zero_gradient,  None,  False)
# fmt: on


# fmt: off
#                name      docstring                                              computes
sin   = declare("sin",   "$\\sin a$ elementwise (integers give the default float dtype).",
                Sin.apply, example=([0.0, 1.0], "tensor([0.0000, 0.8415])"))
cos   = declare("cos",   "$\\cos a$ elementwise.",                               Cos.apply)
tan   = declare("tan",   "$\\tan a$ elementwise.",                               Tan.apply)
asin  = declare("asin",  "$\\arcsin a$ elementwise (NaN outside $[-1, 1]$).",     Asin.apply,
                aliases=("arcsin",))
acos  = declare("acos",  "$\\arccos a$ elementwise (NaN outside $[-1, 1]$).",     Acos.apply,
                aliases=("arccos",))
atan  = declare("atan",  "$\\arctan a$ elementwise.",                            Atan.apply,
                aliases=("arctan",))
sinh  = declare("sinh",  "$\\sinh a$ elementwise.",                              Sinh.apply)
cosh  = declare("cosh",  "$\\cosh a$ elementwise.",                              Cosh.apply)
log2  = declare("log2",  "$\\log_2 a$ elementwise.",                             Log2.apply)
log10 = declare("log10", "$\\log_{10} a$ elementwise.",                          Log10.apply)
log1p = declare("log1p", "$\\ln(1 + a)$ elementwise, accurate for small $a$.",    Log1P.apply)
expm1 = declare("expm1", "$e^a - 1$ elementwise, accurate for small $a$.",        Expm1.apply)
erf   = declare("erf",   "The error function $\\frac{2}{\\sqrt{\\pi}} \\int_0^a e^{-t^2} dt$ "
                         "elementwise.",                                          Erf.apply)
rsqrt = declare("rsqrt", "$1 / \\sqrt{a}$ elementwise.",                          Rsqrt.apply)
# fmt: on


@public()
def square(a: Tensor) -> Tensor:
    """$a^2$ elementwise (`a ** 2`: integers stay integers, bools become int64)."""
    return tensor_pow(converted(a, dtypes.int64) if a.dtype is dtypes.bool_ else a, 2)


@public()
def frac(a: Tensor) -> Tensor:
    """$a - \\operatorname{trunc}(a)$ elementwise (floating tensors only)."""
    if not a.dtype.is_floating_point:
        raise not_implemented("frac_cpu", a.dtype)
    return Frac.apply(a)


def rounding(fn: type[Op], kernel: str, a: Tensor) -> Tensor:
    """`fn` on a floating tensor; integers are already whole (a copy); bools raise."""
    if a.dtype is dtypes.bool_:
        raise not_implemented(kernel, a.dtype)
    return fn.apply(a) if a.dtype.is_floating_point else clone(a)


# fmt: off
floor = declare("floor", "$\\lfloor a \\rfloor$ elementwise.", rounding, Floor, "floor_vml_cpu")
ceil  = declare("ceil",  "$\\lceil a \\rceil$ elementwise.",   rounding, Ceil,  "ceil_vml_cpu")
trunc = declare("trunc", "$a$ rounded towards 0 elementwise.",  rounding, Trunc, "trunc_vml_cpu",
                aliases=("fix",))
# fmt: on


class RoundDecimals(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, decimals: int) -> Tensor:
        """$\\operatorname{round}(a \\cdot 10^d) / 10^d$ (for $d < 0$: $\\operatorname{round}(a
        / 10^{-d}) \\cdot 10^{-d}$), halves to even"""
        scale = scalar_tensor(10.0 ** abs(decimals), a.dtype)
        up, down = (
            (operators.mul, operators.div) if decimals > 0 else (operators.div, operators.mul)
        )
        scaled = apply_zip(up, a, scale, a.dtype)
        rounded = apply_map(operators.round_half_even, scaled, a.dtype)
        return apply_zip(down, rounded, scale, a.dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """0"""
        return zeros_like(grad)


@public("round")
def tensor_round(a: Tensor, decimals: int = 0) -> Tensor:
    """$a$ rounded to `decimals` decimal places, halves to even (`minitorch.round`).

    >>> import minitorch
    >>> minitorch.round(minitorch.tensor([0.5, 1.5, 2.25]))
    tensor([0., 2., 2.])
    """
    if decimals == 0:
        return rounding(Round, "round_vml_cpu", a)
    if not a.dtype.is_floating_point:
        raise not_implemented("round_cpu", a.dtype)
    return RoundDecimals.apply(a, decimals=decimals)


@public()
def sign(a: Tensor) -> Tensor:
    """$-1$, 0 or 1 by the sign of each element (0 for NaN; bools unchanged)."""
    return clone(a) if a.dtype is dtypes.bool_ else Sign.apply(a)


# ---------------------------------------------------------------------------
# Functions of two tensors
# ---------------------------------------------------------------------------


def float_operands(a, b) -> tuple[Tensor, Tensor, dtypes.DType]:
    """Both operands in their promoted dtype, made the default float dtype if not floating."""
    x, y, dtype = as_operands(a, b)
    if not dtype.is_floating_point:
        dtype = dtypes.get_default_dtype()
        x, y = converted(x, dtype), converted(y, dtype)
    return x, y, dtype


class Atan2(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """The angle of the point $(b, a)$, broadcast (integers give floats)"""
        a, b, dtype = float_operands(a, b)
        ctx.save_for_backward(a, b)
        return apply_zip(operators.atan2, a, b, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(g \\, b / (a^2 + b^2), -g \\, a / (a^2 + b^2))$"""
        a, b = ctx.saved_tensors
        scale = grad / (a * a + b * b)
        return scale * b, -(scale * a)


atan2 = declare(
    "atan2",
    "$\\arctan(a / b)$ in the quadrant of the point $(b, a)$, elementwise (`arctan2`).",
    Atan2.apply,
    operands=2,
    aliases=("arctan2",),
)


class Hypot(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$\\sqrt{a^2 + b^2}$, broadcast (floating tensors only)"""
        a, b, dtype = as_operands(a, b)
        if not dtype.is_floating_point:
            raise not_implemented("hypot_cpu", dtype)
        out = apply_zip(operators.hypot, a, b, dtype)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(g \\, a / out, g \\, b / out)$"""
        a, b, out = ctx.saved_tensors
        return grad * a / out, grad * b / out


hypot = declare(
    "hypot",
    "$\\sqrt{a^2 + b^2}$ elementwise, without overflow in the squares.",
    Hypot.apply,
    operands=2,
)


class Fmod(Op):
    """C's `fmod`; a number divisor is passed as the keyword `b` (it gets no gradient)."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$a - b \\operatorname{trunc}(a / b)$, broadcast: the sign of $a$"""
        a, b, dtype = as_operands(a, b)
        if dtype is dtypes.bool_:
            raise not_implemented("fmod_cpu", dtype)
        check_integer_divisor(b)
        ctx.save_for_backward(a, b)
        fn = operators.fmod if dtype.is_floating_point else operators.integer_fmod
        return apply_zip(fn, a, b, dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(g, -g \\operatorname{trunc}(a / b))$"""
        a, b = ctx.saved_tensors
        grad_b = -(grad * (a / b).trunc()) if (ctx.needs_input_grad + (False,))[1] else None
        return grad, grad_b


@public()
def fmod(a: Tensor, b) -> Tensor:
    """The remainder of $a / b$ rounded towards 0: the sign of $a$ (C's `fmod`)."""
    return Fmod.apply(a, b) if isinstance(b, TensorBase) else Fmod.apply(a, b=b)


class Lerp(Op):
    """$a + w (b - a)$; a number weight is passed as the keyword `weight`."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor, weight) -> Tensor:
        """$a + w (b - a)$, broadcast"""
        for name, x in (("end", b), ("weight", weight)):
            if isinstance(x, TensorBase) and x.dtype is not a.dtype:
                raise RuntimeError(
                    f"expected dtype {a.dtype.name} for `{name}` but got dtype {x.dtype.name}"
                )
        if not a.dtype.is_floating_point:
            raise not_implemented("lerp_kernel_scalar", a.dtype)
        ctx.save_for_backward(a, b, weight if isinstance(weight, TensorBase) else None)
        ctx.weight = weight
        step = apply_zip(operators.sub, *as_operands(b, a)[:2], a.dtype)
        w = weight if isinstance(weight, TensorBase) else scalar_tensor(weight, a.dtype)
        return apply_zip(operators.add, a, apply_zip(operators.mul, w, step, a.dtype), a.dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(g (1 - w), g w, g (b - a))$"""
        a, b, weight = ctx.saved_tensors
        w = ctx.weight if weight is None else weight
        grad_weight = grad * (b - a) if weight is not None else None
        return grad * (1 - w), grad * w, grad_weight


@public()
def lerp(a: Tensor, b: Tensor, weight) -> Tensor:
    """$a + w (b - a)$ elementwise: from `a` (at $w = 0$) to `b` (at $w = 1$)."""
    if isinstance(weight, TensorBase):
        return Lerp.apply(a, b, weight)
    return Lerp.apply(a, b, weight=weight)


# ---------------------------------------------------------------------------
# Tests of values (no gradient) and nan_to_num
# ---------------------------------------------------------------------------


@public()
def isnan(a: Tensor) -> Tensor:
    """True where $a$ is NaN."""
    return apply_map(operators.is_nan, a, dtypes.bool_)


@public()
def isinf(a: Tensor) -> Tensor:
    """True where $a$ is $+\\infty$ or $-\\infty$."""
    return apply_map(operators.is_inf, as_number(a), dtypes.bool_)


@public()
def isfinite(a: Tensor) -> Tensor:
    """True where $a$ is neither NaN nor infinite."""
    return apply_map(operators.is_finite, as_number(a), dtypes.bool_)


def as_number(a: Tensor) -> Tensor:
    """`a`, with bools as int64 (a kernel cannot subtract bools)."""
    return converted(a, dtypes.int64) if a.dtype is dtypes.bool_ else a


class NanToNum(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, nan: float, posinf, neginf) -> Tensor:
        """NaN, $+\\infty$ and $-\\infty$ replaced by `nan`, `posinf` and `neginf`"""
        largest = float(np.finfo(a.dtype.numpy_dtype).max)
        out = a
        for bad, value in (
            (isnan(a), nan),
            (apply_zip(operators.eq, a, scalar_tensor(math.inf, a.dtype), dtypes.bool_),
             largest if posinf is None else posinf),
            (apply_zip(operators.eq, a, scalar_tensor(-math.inf, a.dtype), dtypes.bool_),
             -largest if neginf is None else neginf),
        ):  # fmt: skip
            out = where(bad, scalar_tensor(value, a.dtype), out)
        ctx.save_for_backward(isfinite(a))
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ where $a$ is finite, else 0"""
        (finite,) = ctx.saved_tensors
        return grad.where(finite, 0.0)


@public()
def nan_to_num(a: Tensor, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:
    """NaN to `nan`, $\\pm\\infty$ to `posinf`/`neginf` (the dtype's largest finite by default)."""
    if not a.dtype.is_floating_point:
        return clone(a)
    return NanToNum.apply(a, nan=nan, posinf=posinf, neginf=neginf)


@public()
def isclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan=False):
    """True where $|a - b| \\le atol + rtol \\, |b|$ (or $a = b$, infinities included)."""
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{a.dtype.torch_scalar_name} did not match {b.dtype.torch_scalar_name}")
    if a.dtype is dtypes.bool_ or (rtol == 0 and atol == 0):
        close = apply_zip(operators.eq, a, b, dtypes.bool_)
    else:
        x, y = float_version(a), float_version(b)
        if x.dtype is not dtypes.float64 and not a.dtype.is_floating_point:
            x, y = converted(a, dtypes.float64), converted(b, dtypes.float64)
        gap = apply_map(operators.absolute, apply_zip(operators.sub, x, y, x.dtype), x.dtype)
        allowed = apply_zip(
            operators.add,
            scalar_tensor(atol, x.dtype),
            apply_zip(operators.mul, scalar_tensor(rtol, x.dtype),
                      apply_map(operators.absolute, y, x.dtype), x.dtype),
            x.dtype,
        )  # fmt: skip
        within = apply_zip(operators.le, gap, allowed, dtypes.bool_)
        close = within | apply_zip(operators.eq, x, y, dtypes.bool_)
    if equal_nan:
        close = close | (isnan(a) & isnan(b))
    return close


@public()
def allclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan=False):
    """Whether every element of `a` is close to `b`'s (`isclose`), as a Python bool."""
    return bool(isclose(a, b, rtol, atol, equal_nan).all().item())


@public()
def equal(a: Tensor, b: Tensor) -> bool:
    """Whether `a` and `b` have the same shape and the same values (a Python bool)."""
    if tuple(a.shape) != tuple(b.shape):
        return False
    x, y, _ = as_operands(a, b)
    return bool(apply_zip(operators.eq, x, y, dtypes.bool_).all().item())
