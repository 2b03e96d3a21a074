"""`exp`, `log`, `tanh` and `sigmoid` as arithmetic that LLVM vectorises: no libm call.

Numba compiles `math.exp` to a call of libm's scalar `exp` (the pip wheels of llvmlite have
no vector math library), and a loop with a call in it runs one element at a time. Written
as range reduction plus a polynomial, with the exponent set by integer arithmetic on the
float's bits, the loop is only multiplies, adds, compares and selects, which LLVM turns
into SIMD instructions (tutorial 03a).

- $e^x$: $x = k \\ln 2 + r$ with $|r| \\le \\ln 2 / 2$ ($\\ln 2$ in two parts, so that
  $k \\ln 2$ is exact), $e^r$ by its Taylor polynomial, $e^x = 2^k e^r$ with $2^k$ built
  from bits (in two halves, so that subnormal results round once).
- $\\ln x$: $x = 2^k m$ with $m \\in [\\sqrt{1/2}, \\sqrt 2)$ read from the bits,
  $\\ln m = 2\\,\\mathrm{atanh}(s)$ with $s = (m - 1)/(m + 1)$, its odd series in $s$.
- $\\tanh x$ with $x$'s sign from $a = |x|$: $u / (u + 2)$ and $1 - 2 / (u + 2)$ with
  $u = e^{2a} - 1$ from the same reduction without the 1, each where it has no
  cancellation.
- $\\sigma(x) = 1 / (1 + e^{-x})$ for $x \\ge 0$ and $e^x / (1 + e^x)$ below.

Each function is written once over a table of its dtype's constants (`F64`, `F32`). The
`float32` forms compute in `float32`, with the shorter polynomials single precision needs:
a vector register holds twice as many `float32` as `float64`, and a `float32` input
widened to `float64` would halve the lanes. Numba types a float literal as `float64` and
promotes any `float32` it meets, so no literal appears in the arithmetic: every constant
comes from the table. Every function is within 2 ulp of libm over the whole range of its
type, with $\\pm\\infty$, NaN, subnormals and overflow as libm has them
(tests/test_transcendentals.py).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ... import operators

# The integer type of each float type's width, for reading and writing its bits.
BIT_TYPES = {types.float64: types.int64, types.float32: types.int32}


@intrinsic
def _bits(typingctx, x):
    """The bits of a float as a signed integer of its width (a reinterpretation)."""
    if x not in BIT_TYPES:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(x.bitwidth))

    return BIT_TYPES[x](x), codegen


@intrinsic
def _from_bits(typingctx, n, like):
    """The float of `like`'s type whose bits are the low bits of the integer `n`."""
    if like not in BIT_TYPES or not isinstance(n, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        width = ir.IntType(like.bitwidth)
        value = args[0]
        if n.bitwidth > like.bitwidth:
            value = builder.trunc(value, width)
        elif n.bitwidth < like.bitwidth:
            value = builder.sext(value, width)
        return builder.bitcast(value, context.get_value_type(like))

    return like(n, like), codegen


@intrinsic
def _mul_add(typingctx, a, b, c):
    """$a b + c$, in one rounding where the CPU has a fused multiply-add (LLVM's `fmuladd`
    leaves the choice to the code generator: a multiply and an add elsewhere, never a call)."""
    if a not in BIT_TYPES or not a == b == c:
        return None

    def codegen(context, builder, signature, args):
        float_type = args[0].type
        function_type = ir.FunctionType(float_type, [float_type] * 3)
        fused = builder.module.declare_intrinsic("llvm.fmuladd", [float_type], function_type)
        return builder.call(fused, args)

    return a(a, b, c), codegen


@intrinsic
def _constants_of(typingctx, x):
    """The table of `x`'s dtype (`F64` or `F32`), chosen when the caller compiles."""
    table = {types.float64: F64, types.float32: F32}.get(x)
    if table is None:
        return None
    table_type = numba.typeof(table)

    def codegen(context, builder, signature, args):
        return context.get_constant_generic(builder, table_type, table)

    return table_type(x), codegen


if numba.config.DISABLE_JIT:  # plain Python (NUMBA_DISABLE_JIT=1): the same arithmetic
    NUMPY_BITS = {np.float64: np.int64, np.float32: np.int32}

    def _bits(x):
        return int(np.asarray(x).view(NUMPY_BITS[type(x)]))

    def _from_bits(n, like):
        width = NUMPY_BITS[type(like)]
        return np.array([n]).astype(width).view(type(like))[0]

    def _mul_add(a, b, c):
        return a * b + c

    def _constants_of(x):
        return F32 if isinstance(x, np.float32) else F64


Constants = namedtuple(
    "Constants",
    [
        # floats, of the table's dtype
        "zero", "half", "one", "two", "inf", "nan",
        "log2_e", "ln2_high", "ln2_low",  # ln 2 = ln2_high + ln2_low, k * ln2_high exact
        "exp_low", "exp_high",  # x clamped to these before the reduction
        "exp_overflow",  # above: e^x is past the largest finite float
        "exp_underflow",  # below: e^x rounds to 0
        "rounder",  # 1.5 * 2^mantissa_bits: x + rounder rounds x to an integer in the bits
        "smallest_normal", "subnormal_scale",  # 2^subnormal_shift
        "sqrt_2",
        "tanh_middle_end",  # ln(3) / 2: u / (u + 2) below, 1 - 2 / (u + 2) above
        "tanh_one",  # above: tanh rounds to 1 (and e^{2a} may overflow)
        "inverse_factorials",  # 1/n!, the Taylor series of e^r
        "atanh_coefficients",  # 2/(2j + 1), the series of ln m in s
        # how many terms of each series the dtype's precision needs (`_expm1_taylor`)
        "exp_terms", "log_terms", "tanh_terms",
        # integers: the layout of the bits
        "mantissa_bits", "exponent_mask", "bias", "mantissa_mask", "one_bits", "sign",
        "magnitude", "rounder_bits", "subnormal_shift",
    ],
)  # fmt: skip


# The constants that differ by dtype, each with its float64 and its float32 value.
DTYPE_CONSTANTS = {
    "ln2_high": (6.93147180369123816490e-01, 0.693359375),  # 21 and 15 trailing zero bits
    "ln2_low": (1.90821492927058770002e-10, -2.1219444e-4),  # ln 2 - ln2_high, to the dtype
    "exp_low": (-746.0, -104.0),
    "exp_high": (710.0, 89.0),
    "exp_overflow": (709.782712893384, 88.72283172607422),
    "exp_underflow": (-745.1332191019412, -103.97207641601562),
    "rounder": (6755399441055744.0, 12582912.0),
    "rounder_bits": (0x4338000000000000, 0x4B400000),
    "smallest_normal": (2.2250738585072014e-308, 1.1754943508222875e-38),
    "subnormal_scale": (18014398509481984.0, 33554432.0),
    "subnormal_shift": (54, 25),
    "tanh_one": (22.0, 10.0),
    "exp_terms": (13, 7),
    "log_terms": (11, 4),
    "tanh_terms": (18, 9),
    "mantissa_bits": (52, 23),
    "exponent_mask": (0x7FF, 0xFF),
    "bias": (1023, 127),
    "mantissa_mask": (0x000FFFFFFFFFFFFF, 0x007FFFFF),
    "one_bits": (0x3FF0000000000000, 0x3F800000),
    "sign": (-0x8000000000000000, -0x80000000),
    "magnitude": (0x7FFFFFFFFFFFFFFF, 0x7FFFFFFF),
}
DTYPES = (np.float64, np.float32)  # the columns of `DTYPE_CONSTANTS`


def _constants(dtype) -> Constants:
    """The table for `dtype`: its column of `DTYPE_CONSTANTS` and the constants that every
    dtype shares, floats and series rounded to it."""
    column = {name: values[DTYPES.index(dtype)] for name, values in DTYPE_CONSTANTS.items()}
    floats = {name: dtype(value) for name, value in column.items() if isinstance(value, float)}
    ints = {name: value for name, value in column.items() if isinstance(value, int)}
    return Constants(
        zero=dtype(0.0), half=dtype(0.5), one=dtype(1.0), two=dtype(2.0),
        inf=dtype(math.inf), nan=dtype(math.nan),
        log2_e=dtype(1 / math.log(2)),
        sqrt_2=dtype(math.sqrt(2)), tanh_middle_end=dtype(math.log(3) / 2),
        inverse_factorials=tuple(dtype(1.0 / math.factorial(n)) for n in range(20)),
        atanh_coefficients=tuple(dtype(2.0 / (2 * j + 1)) for j in range(20)),
        **floats, **ints,
    )  # fmt: skip


F64, F32 = (_constants(dtype) for dtype in DTYPES)


@njit(inline="always")
def _power_of_two(k, c):
    """$2^k$ for an integer $k$ in the normal exponents, from its bits."""
    return _from_bits((k + c.bias) << c.mantissa_bits, c.one)


@njit(inline="always")
def _as_float(k, c):
    """The integer `k` (far below $2^{mantissa\\_bits}$) as a float, through `rounder`'s
    bits: an integer add and a subtraction, which vectorise where an int-to-float
    conversion may not."""
    return _from_bits(c.rounder_bits + k, c.one) - c.rounder


@njit(inline="always")
def _reduce(x, c):
    """$(k, r)$ with $x = k \\ln 2 + r$, $|r| \\le \\ln 2 / 2$, $k$ an integer; $x$ first
    clamped to where $e^x$ is a finite float or its underflow (NaN stays NaN).

    Adding `rounder` ($1.5 \\cdot 2^{mantissa\\_bits}$) rounds $x \\log_2 e$ to an integer,
    which then stands in the float's low bits: no float-to-int conversion."""
    x = c.exp_low if x < c.exp_low else (c.exp_high if x > c.exp_high else x)
    return _reduce_shifted(x, x * c.log2_e + c.rounder, c)


@njit(inline="always")
def _reduce_down(x, c):
    """$(k, r)$ with $x = k \\ln 2 + r$, $0 \\le r < \\ln 2$ (to rounding), for
    $0 \\le x \\le 2\\,$`tanh_one`: $k = \\lfloor x \\log_2 e \\rfloor$, so that $k = 0$
    for all $x < \\ln 2$, where $e^x - 1$ then needs no scaling."""
    return _reduce_shifted(x, _mul_add(x, c.log2_e, -c.half) + c.rounder, c)


@njit(inline="always")
def _reduce_shifted(x, shifted, c):
    """$(k, x - k \\ln 2)$ for `shifted` $= k +$ `rounder`."""
    k = _bits(shifted) - c.rounder_bits
    k_float = shifted - c.rounder
    return k, _mul_add(-k_float, c.ln2_low, _mul_add(-k_float, c.ln2_high, x))


@njit(inline="always")
def _scale(p, k, c):
    """$p \\cdot 2^k$, as two powers of two so that each is a normal float."""
    half = k >> 1
    return p * _power_of_two(half, c) * _power_of_two(k - half, c)


@njit(inline="always")
def _expm1_taylor(r, c, terms):
    """$e^r - 1 = \\sum_{n=1}^{terms} r^n / n!$, by Horner. For $|r| \\le \\ln 2 / 2$
    (`_reduce`) 13 terms leave an error below $2^{-56}$ and 7 below $2^{-27}$; for
    $|r| < \\ln 2$ (`_reduce_down`) 18 below $2^{-56}$ and 9 below $2^{-26}$."""
    q = c.inverse_factorials[terms]
    for n in range(terms - 1, 1, -1):
        q = _mul_add(r, q, c.inverse_factorials[n])
    return _mul_add(r, r * q, r)


@njit(inline="always")
def _exp(x, c, terms):
    """$e^x$ with `terms` Taylor terms: overflow to $\\infty$, underflow to 0, NaN kept."""
    k, r = _reduce(x, c)
    y = _scale(c.one + _expm1_taylor(r, c, terms), k, c)
    y = c.inf if x > c.exp_overflow else (c.zero if x < c.exp_underflow else y)
    return x if x != x else y


def exp_polynomial(x):
    """$e^x$ of a float32 or float64, in its own dtype."""
    c = _constants_of(x)
    return _exp(x, c, c.exp_terms)


@njit(inline="always")
def _atanh_series(z, c, terms):
    """$\\sum_{j=1}^{terms} 2 z^j / (2j + 1)$, by Horner."""
    total = c.atanh_coefficients[terms]
    for j in range(terms - 1, 0, -1):
        total = _mul_add(z, total, c.atanh_coefficients[j])
    return z * total


@njit(inline="always")
def _log_positive(x, c, terms):
    """$\\ln x$ for a finite $x > 0$, subnormals scaled into the normal range first."""
    subnormal = x < c.smallest_normal
    bits = _bits(x * c.subnormal_scale if subnormal else x)
    k = ((bits >> c.mantissa_bits) & c.exponent_mask) - c.bias
    k = k - (c.subnormal_shift if subnormal else 0)
    m = _from_bits((bits & c.mantissa_mask) | c.one_bits, c.one)  # in [1, 2)
    above = m > c.sqrt_2
    m = m * c.half if above else m
    k = _as_float(k + (1 if above else 0), c)
    f = m - c.one  # exact: m is within a factor of 2 of 1
    s = f / (c.two + f)
    half_square = c.half * f * f
    log_m = f - _mul_add(-s, half_square + _atanh_series(s * s, c, terms), half_square)
    return _mul_add(k, c.ln2_high, _mul_add(k, c.ln2_low, log_m))


@njit(inline="always")
def _log(x, c, terms):
    """$\\ln x$ with `terms` terms of the series: $\\ln 0 = -\\infty$, NaN below 0."""
    y = _log_positive(x, c, terms)
    y = c.inf if x == c.inf else y
    y = -c.inf if x == c.zero else y
    return c.nan if x < c.zero else (x if x != x else y)


def log_polynomial(x):
    """$\\ln x$ of a float32 or float64, in its own dtype."""
    c = _constants_of(x)
    return _log(x, c, c.log_terms)


@njit(inline="always")
def _tanh(x, c, terms):
    """$\\tanh x$ from $a = |x|$, with the sign bit of `x` (so that tanh(-0) is -0); NaN
    for NaN, through the arithmetic.

    $u = e^{2a} - 1 = 2^k (e^r - 1) + (2^k - 1)$ is a sum of positive terms ($r \\ge 0$),
    and for $2a < \\ln 2$ just $e^r - 1$: no step of it cancels. One division serves
    both forms: $u / (u + 2)$ and $1 - 2 / (u + 2)$. (A Taylor series near 0 would be a
    third branch, which stops LLVM vectorising.)"""
    a = abs(x)
    a_capped = c.tanh_one if a > c.tanh_one else a
    k, r = _reduce_down(c.two * a_capped, c)
    two_k = _power_of_two(k, c)
    u = _mul_add(two_k, _expm1_taylor(r, c, terms), two_k - c.one)  # e^{2a} - 1
    middle = a < c.tanh_middle_end
    q = (u if middle else c.two) / (u + c.two)
    magnitude = q if middle else c.one - q
    return _from_bits((_bits(magnitude) & c.magnitude) | (_bits(x) & c.sign), c.one)


def tanh_polynomial(x):
    """$\\tanh x$ of a float32 or float64, in its own dtype."""
    c = _constants_of(x)
    return _tanh(x, c, c.tanh_terms)


@njit(inline="always")
def _sigmoid(x, c, terms):
    """$\\sigma(x) = 1 / (1 + e^{-x})$ from $e = e^{-|x|}$ (which never overflows):
    $1 / (1 + e)$ for $x \\ge 0$, $e / (1 + e)$ below."""
    e = _exp(-abs(x), c, terms)
    return (c.one if x >= c.zero else e) / (c.one + e)


def sigmoid_polynomial(x):
    """$\\sigma(x)$ of a float32 or float64, in its own dtype."""
    c = _constants_of(x)
    return _sigmoid(x, c, c.exp_terms)


# The scalar functions `FastBackend.map` runs in place of `operators`' (which call libm),
# for tensors of these dtypes whose input and output dtypes agree.
POLYNOMIAL_FORMS = {
    operators.exp: exp_polynomial,
    operators.log: log_polynomial,
    operators.tanh: tanh_polynomial,
    operators.sigmoid: sigmoid_polynomial,
}
POLYNOMIAL_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))


def polynomial_form(fn, out_dtype: np.dtype, in_dtype: np.dtype):
    """The vectorisable form of `fn` for this dtype, or `fn` itself."""
    if in_dtype != out_dtype or out_dtype not in POLYNOMIAL_DTYPES:
        return fn
    return POLYNOMIAL_FORMS.get(fn, fn)
