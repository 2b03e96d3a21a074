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

The `float32` forms compute in `float64` with the shorter polynomials that single precision
needs, and round once at the end. Every function is within 2 ulp of libm over the whole
range of its type, with $\\pm\\infty$, NaN, subnormals and overflow as libm has them
(tests/test_transcendentals.py).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ... import operators


@intrinsic
def _bits(typingctx, x):
    """The bits of a float64 as an int64 (a reinterpretation, no conversion)."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def _from_bits(typingctx, n):
    """The float64 whose bits are the int64 `n`."""
    if n != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


if numba.config.DISABLE_JIT:  # plain Python (NUMBA_DISABLE_JIT=1): the same reinterpretations

    def _bits(x):
        return int(np.float64(x).view(np.int64))

    def _from_bits(n):
        return float(np.int64(n).view(np.float64))


LOG2_E = 1.4426950408889634
# ln 2 = LN2_HIGH + LN2_LOW, LN2_HIGH with 21 trailing zero bits: k * LN2_HIGH is exact.
LN2_HIGH = 6.93147180369123816490e-01
LN2_LOW = 1.90821492927058770002e-10
EXP_OVERFLOW = 709.782712893384  # above: e^x is past the largest float64
EXP_UNDERFLOW = -745.1332191019412  # below: e^x rounds to 0
SIGN = -0x8000000000000000
MAGNITUDE = 0x7FFFFFFFFFFFFFFF
MANTISSA = 0x000FFFFFFFFFFFFF
ONE_BITS = 0x3FF0000000000000
SMALLEST_NORMAL = 2.2250738585072014e-308
TWO_54 = 18014398509481984.0
SQRT_2 = 1.4142135623730951
ROUNDER = 6755399441055744.0  # 1.5 * 2^52: x + ROUNDER rounds x to an integer, kept in the bits
ROUNDER_BITS = 0x4338000000000000


@njit(inline="always")
def _power_of_two(k):
    """$2^k$ for an int64 $-1022 \\le k \\le 1023$, from its bits."""
    return _from_bits((k + 1023) << 52)


@njit(inline="always")
def _as_float(k):
    """The int64 `k` ($|k| < 2^{51}$) as a float64, through ROUNDER's bits: an integer add
    and a subtraction, which vectorise where an int-to-float conversion may not."""
    return _from_bits(ROUNDER_BITS + k) - ROUNDER


@njit(inline="always")
def _reduce(x):
    """$(k, r)$ with $x = k \\ln 2 + r$, $|r| \\le \\ln 2 / 2$, $k$ an int64; $x$ first
    clamped to where $e^x$ is a finite float64 or its underflow (NaN stays NaN).

    Adding ROUNDER ($1.5 \\cdot 2^{52}$) rounds $x \\log_2 e$ to an integer, which then
    stands in the float's low bits: no float-to-int conversion."""
    x = -746.0 if x < -746.0 else (710.0 if x > 710.0 else x)
    shifted = x * LOG2_E + ROUNDER
    k = _bits(shifted) - ROUNDER_BITS
    k_float = shifted - ROUNDER
    return k, (x - k_float * LN2_HIGH) - k_float * LN2_LOW


@njit(inline="always")
def _reduce_down(x):
    """$(k, r)$ with $x = k \\ln 2 + r$, $0 \\le r < \\ln 2$ (to rounding), for
    $0 \\le x \\le 44$: $k = \\lfloor x \\log_2 e \\rfloor$, so that $k = 0$ for all
    $x < \\ln 2$, where $e^x - 1$ then needs no scaling."""
    shifted = (x * LOG2_E - 0.5) + ROUNDER
    k = _bits(shifted) - ROUNDER_BITS
    k_float = shifted - ROUNDER
    return k, (x - k_float * LN2_HIGH) - k_float * LN2_LOW


@njit(inline="always")
def _scale(p, k):
    """$p \\cdot 2^k$, as two powers of two so that each is a normal float64."""
    half = k >> 1
    return p * _power_of_two(half) * _power_of_two(k - half)


# 1/n! for the Taylor series of e^r
INVERSE_FACTORIALS = tuple(1.0 / math.factorial(n) for n in range(20))


@njit(inline="always")
def _expm1_taylor(r, terms):
    """$e^r - 1 = \\sum_{n=1}^{terms} r^n / n!$, by Horner. For $|r| \\le \\ln 2 / 2$
    (`_reduce`) 13 terms leave an error below $2^{-56}$ and 8 meet float32's needs; for
    $|r| < \\ln 2$ (`_reduce_down`) 18 and 11 do."""
    q = INVERSE_FACTORIALS[terms]
    for n in range(terms - 1, 1, -1):
        q = INVERSE_FACTORIALS[n] + r * q
    return r + r * (r * q)


@njit(inline="always")
def _exp(x, terms):
    """$e^x$ of a float64 with `terms` Taylor terms: overflow to $\\infty$, underflow to 0,
    NaN kept."""
    k, r = _reduce(x)
    y = _scale(1.0 + _expm1_taylor(r, terms), k)
    y = math.inf if x > EXP_OVERFLOW else (0.0 if x < EXP_UNDERFLOW else y)
    return x if x != x else y


def exp_double(x):
    """$e^x$ of a float64."""
    return _exp(np.float64(x), 13)


def exp_single(x):
    """$e^x$ of a float32 (computed in float64 with the shorter polynomial)."""
    return np.float32(_exp(np.float64(x), 8))


@njit(inline="always")
def _log_series(z, terms):
    """$\\sum_{j=1}^{terms} 2 z^j / (2j + 1)$, by Horner."""
    total = 0.0
    for j in range(terms, 0, -1):
        total = z * (2.0 / (2 * j + 1) + total)
    return total


@njit(inline="always")
def _log_positive(x, terms):
    """$\\ln x$ for a finite $x > 0$, subnormals scaled into the normal range first."""
    subnormal = x < SMALLEST_NORMAL
    bits = _bits(x * TWO_54 if subnormal else x)
    k = ((bits >> 52) & 0x7FF) - 1023 - (54 if subnormal else 0)
    m = _from_bits((bits & MANTISSA) | ONE_BITS)  # in [1, 2)
    above = m > SQRT_2
    m = m * 0.5 if above else m
    k = _as_float(k + (1 if above else 0))
    f = m - 1.0  # exact: m is within a factor of 2 of 1
    s = f / (2.0 + f)
    half_square = 0.5 * f * f
    log_m = f - (half_square - s * (half_square + _log_series(s * s, terms)))
    return k * LN2_HIGH + (log_m + k * LN2_LOW)


@njit(inline="always")
def _log(x, terms):
    """$\\ln x$ of a float64 with `terms` terms of the series: $\\ln 0 = -\\infty$, NaN
    below 0."""
    y = _log_positive(x, terms)
    y = math.inf if x == math.inf else y
    y = -math.inf if x == 0.0 else y
    return math.nan if x < 0.0 else (x if x != x else y)


def log_double(x):
    """$\\ln x$ of a float64."""
    return _log(np.float64(x), 11)


def log_single(x):
    """$\\ln x$ of a float32 (in float64: no float32 is subnormal there)."""
    return np.float32(_log(np.float64(x), 5))


@njit(inline="always")
def _with_sign_of(magnitude, x):
    """|`magnitude`| with the sign bit of `x` (so that tanh(-0) is -0 and tanh(0) is 0)."""
    return _from_bits((_bits(magnitude) & MAGNITUDE) | (_bits(x) & SIGN))


# Below TANH_MIDDLE_END u / (u + 2) with u = e^{2a} - 1, past it 1 - 2 / (u + 2): neither
# cancels. (A Taylor series near 0 would be a third branch, which stops LLVM vectorising.)
TANH_MIDDLE_END = 0.5493061443340549  # ln(3) / 2
TANH_ONE = 22.0  # above: tanh rounds to 1 (and e^{2a} may overflow)


@njit(inline="always")
def _tanh_magnitude(a, terms):
    """$\\tanh a$ for $a \\ge 0$; NaN for NaN, through the arithmetic.

    $u = e^{2a} - 1 = 2^k (e^r - 1) + (2^k - 1)$ is a sum of positive terms ($r \\ge 0$),
    and for $2a < \\ln 2$ just $e^r - 1$: no step of it cancels."""
    a_capped = TANH_ONE if a > TANH_ONE else a
    k, r = _reduce_down(2.0 * a_capped)
    u_r = _expm1_taylor(r, terms)
    two_k = _power_of_two(k)
    u = two_k * u_r + (two_k - 1.0)  # e^{2a} - 1
    middle = u / (u + 2.0)
    far = 1.0 - 2.0 / (u + 2.0)
    return middle if a < TANH_MIDDLE_END else far


def tanh_double(x):
    """$\\tanh x$ of a float64."""
    x = np.float64(x)
    return _with_sign_of(_tanh_magnitude(abs(x), 18), x)


def tanh_single(x):
    """$\\tanh x$ of a float32."""
    x = np.float64(x)
    return np.float32(_with_sign_of(_tanh_magnitude(abs(x), 11), x))


@njit(inline="always")
def _sigmoid(x, terms):
    """$\\sigma(x) = 1 / (1 + e^{-x})$ from $e = e^{-|x|}$ (which never overflows):
    $1 / (1 + e)$ for $x \\ge 0$, $e / (1 + e)$ below."""
    e = _exp(-abs(x), terms)
    return (1.0 if x >= 0.0 else e) / (1.0 + e)


def sigmoid_double(x):
    """$\\sigma(x)$ of a float64."""
    return _sigmoid(np.float64(x), 13)


def sigmoid_single(x):
    """$\\sigma(x)$ of a float32."""
    return np.float32(_sigmoid(np.float64(x), 8))


# The scalar functions `FastBackend.map` runs in place of `operators`' (which call libm),
# by the dtype of tensors whose input and output dtypes agree.
POLYNOMIAL_FORMS = {
    operators.exp: {np.dtype(np.float64): exp_double, np.dtype(np.float32): exp_single},
    operators.log: {np.dtype(np.float64): log_double, np.dtype(np.float32): log_single},
    operators.tanh: {np.dtype(np.float64): tanh_double, np.dtype(np.float32): tanh_single},
    operators.sigmoid: {
        np.dtype(np.float64): sigmoid_double,
        np.dtype(np.float32): sigmoid_single,
    },
}


def polynomial_form(fn, out_dtype: np.dtype, in_dtype: np.dtype):
    """The vectorisable form of `fn` for this dtype, or `fn` itself."""
    forms = POLYNOMIAL_FORMS.get(fn)
    if forms is None or in_dtype != out_dtype:
        return fn
    return forms.get(out_dtype, fn)
