"""Module 0: the scalar functions everything else is built from.

Each function takes and returns numbers. The `*_back` helpers are
derivatives written once here and reused by every layer above: the scalar
autodiff (module 1) and every tensor backend (modules 2 and 3). The section
after the exercises adds what tensors need beyond module 0 (`sub`, `div`,
`remainder`, comparisons, bitwise and logical operators).

The functions are written with nothing but arithmetic, comparisons and the
`math` module, so that the Numba backends can compile the very same code.

The higher-order helpers at the end (`map_list`, `zip_with`, `reduce`) are the
list versions of the tensor kernels `map`, `zip` and `reduce` of module 2.
Names avoid Python's built-ins (`identity`, not `id`; `maximum`, not `max`;
`absolute`, not `abs`; `power`, not `pow`; `map_list`, not `map`; `sum_list`,
not `sum`).
"""

import math
from collections.abc import Callable, Iterable

# $\ln$ of the largest float64: `math.exp` overflows above it.
LOG_MAX_FLOAT = 709.782712893384

# ---------------------------------------------------------------------------
# Task 0.1: basic operators
# ---------------------------------------------------------------------------


def mul(x: float, y: float) -> float:
    """$f(x, y) = x \\cdot y$"""
    # BEGIN SOLUTION 0.1
    return x * y
    # END SOLUTION 0.1


def identity(x: float) -> float:
    """$f(x) = x$"""
    # BEGIN SOLUTION 0.1
    return x
    # END SOLUTION 0.1


def add(x: float, y: float) -> float:
    """$f(x, y) = x + y$"""
    # BEGIN SOLUTION 0.1
    return x + y
    # END SOLUTION 0.1


def neg(x: float) -> float:
    """$f(x) = -x$"""
    # BEGIN SOLUTION 0.1
    return -x
    # END SOLUTION 0.1


def lt(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $x < y$ else $0$"""
    # BEGIN SOLUTION 0.1
    return 1.0 if x < y else 0.0
    # END SOLUTION 0.1


def eq(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $x = y$ else $0$"""
    # BEGIN SOLUTION 0.1
    return 1.0 if x == y else 0.0
    # END SOLUTION 0.1


def maximum(x: float, y: float) -> float:
    """$f(x, y) = x$ if $x > y$ else $y$; NaN if either is NaN, as PyTorch."""
    # BEGIN SOLUTION 0.1
    return x if x > y or math.isnan(x) else y
    # END SOLUTION 0.1


def is_close(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $|x - y| < 10^{-2}$ else $0$"""
    # BEGIN SOLUTION 0.1
    return 1.0 if abs(x - y) < 1e-2 else 0.0
    # END SOLUTION 0.1


# ---------------------------------------------------------------------------
# Task 0.2: activations, logs and exponentials, and their derivatives
# ---------------------------------------------------------------------------


def sigmoid(x: float) -> float:
    r"""$f(x) = \frac{1}{1 + e^{-x}}$

    Computed as $\frac{e^{x}}{1 + e^{x}}$ when $x < 0$, so that $e^{-x}$ never
    overflows: the function is stable for any finite $x$.
    """
    # BEGIN SOLUTION 0.2
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    exp_x = math.exp(x)
    return exp_x / (1.0 + exp_x)
    # END SOLUTION 0.2


def sigmoid_back(x: float, d: float) -> float:
    r"""$d \cdot \sigma'(x)$ where $\sigma'(x) = \sigma(x)(1 - \sigma(x))$"""
    # BEGIN SOLUTION 0.2
    s = sigmoid(x)
    return d * s * (1.0 - s)
    # END SOLUTION 0.2


def relu(x: float) -> float:
    """$f(x) = 0$ if $x < 0$ else $x$; NaN and $-0$ stay as they are, as PyTorch."""
    # BEGIN SOLUTION 0.2
    return 0.0 if x < 0.0 else x
    # END SOLUTION 0.2


def relu_back(x: float, d: float) -> float:
    """$d \\cdot f'(x)$ where $f'(x) = 1$ if $x > 0$ else $0$ (0 at the kink, as PyTorch)"""
    # BEGIN SOLUTION 0.2
    return d if x > 0.0 else 0.0
    # END SOLUTION 0.2


def log(x: float) -> float:
    r"""$f(x) = \ln x$; $-\infty$ at 0 and NaN below 0, as PyTorch."""
    # BEGIN SOLUTION 0.2
    if x > 0.0:
        return math.log(x)
    if x == 0.0:
        return -math.inf
    return math.nan
    # END SOLUTION 0.2


def log_back(x: float, d: float) -> float:
    """$d \\cdot f'(x)$ where $f(x) = \\ln x$, so $f'(x) = 1/x$"""
    # BEGIN SOLUTION 0.2
    return d / x
    # END SOLUTION 0.2


def exp(x: float) -> float:
    """$f(x) = e^{x}$ ($+\\infty$ on overflow, as PyTorch)."""
    # BEGIN SOLUTION 0.2
    if x > LOG_MAX_FLOAT:
        return math.inf
    return math.exp(x)
    # END SOLUTION 0.2


def exp_back(x: float, d: float) -> float:
    """$d \\cdot f'(x)$ where $f(x) = e^{x}$, so $f'(x) = e^{x}$"""
    # BEGIN SOLUTION 0.2
    return d * exp(x)
    # END SOLUTION 0.2


def inv(x: float) -> float:
    """$f(x) = 1/x$"""
    # BEGIN SOLUTION 0.2
    return 1.0 / x
    # END SOLUTION 0.2


def inv_back(x: float, d: float) -> float:
    """$d \\cdot f'(x)$ where $f(x) = 1/x$, so $f'(x) = -1/x^2$"""
    # BEGIN SOLUTION 0.2
    return -d / (x * x)
    # END SOLUTION 0.2


def tanh(x: float) -> float:
    r"""$f(x) = \tanh x = \frac{e^{x} - e^{-x}}{e^{x} + e^{-x}}$"""
    return math.tanh(x)


def tanh_back(x: float, d: float) -> float:
    r"""$d \cdot f'(x)$ where $f'(x) = 1 - \tanh^2 x$"""
    t = math.tanh(x)
    return d * (1.0 - t * t)


# ---------------------------------------------------------------------------
# The rest of the scalar functions tensors need (module 2; no exercise).
#
# The tensor kernels apply them to NumPy or Numba numbers, which follow IEEE
# arithmetic as PyTorch does: dividing a float by zero gives inf or NaN, a
# negative base to a fractional power gives NaN. Plain Python floats keep
# Python's rules there (ZeroDivisionError, a complex power). Comparisons
# return 1.0 or 0.0, like `lt` and `eq`; the tensor layer stores them as bools.
# ---------------------------------------------------------------------------


def sub(x: float, y: float) -> float:
    """$f(x, y) = x - y$"""
    return x - y


def div(x: float, y: float) -> float:
    """$f(x, y) = x / y$"""
    return x / y


def floor_divide(x: float, y: float) -> float:
    """$f(x, y) = \\lfloor x / y \\rfloor$ (rounded towards $-\\infty$, as Python's `//`).

    The smallest integer divided by -1 wraps around to itself, as in PyTorch
    (it is the one $x \\ne 0$ with $x = -x$).
    """
    if y == -1 and x == -x and x != 0:
        return x
    return x // y


def remainder(x: float, y: float) -> float:
    """$f(x, y) = x - y \\lfloor x / y \\rfloor$: the sign of $y$, as Python's `%` and
    `torch.remainder` (C's `fmod` takes the sign of $x$)."""
    return x % y


def power(x: float, y: float) -> float:
    """$f(x, y) = x^y$"""
    return x**y


def root_power(x: float, y: float) -> float:
    """$f(x, y) = x^y$ for $y = \\pm 1/2$, as $\\sqrt{x}$ or $1/\\sqrt{x}$: NaN for every $x < 0$,
    $-\\infty$ included (where `pow` gives $+\\infty$), as PyTorch."""
    root = math.sqrt(x) if x >= 0.0 else math.nan
    return root if y > 0 else 1.0 / root if root != 0.0 else math.inf


def sqrt(x: float) -> float:
    """$f(x) = \\sqrt{x}$; NaN for $x < 0$ (where `math.sqrt` raises)."""
    return math.sqrt(x) if x >= 0.0 else math.nan


def absolute(x: float) -> float:
    """$f(x) = |x|$ ($|-0| = +0$)"""
    return abs(x)


def minimum(x: float, y: float) -> float:
    """$f(x, y) = x$ if $x < y$ else $y$; NaN if either is NaN, as PyTorch."""
    return x if x < y or math.isnan(x) else y


def ne(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $x \\ne y$ else $0$"""
    return 1.0 if x != y else 0.0


def le(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $x \\le y$ else $0$"""
    return 1.0 if x <= y else 0.0


def gt(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $x > y$ else $0$"""
    return 1.0 if x > y else 0.0


def ge(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $x \\ge y$ else $0$"""
    return 1.0 if x >= y else 0.0


def logical_and(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $x \\ne 0$ and $y \\ne 0$ else $0$"""
    return 1.0 if x != 0 and y != 0 else 0.0


def logical_or(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $x \\ne 0$ or $y \\ne 0$ else $0$"""
    return 1.0 if x != 0 or y != 0 else 0.0


def logical_not(x: float) -> float:
    """$f(x) = 1$ if $x = 0$ else $0$"""
    return 1.0 if x == 0 else 0.0


def bitwise_and(x: int, y: int) -> int:
    """$f(x, y) = x \\mathbin{\\&} y$, bit by bit (logical and on bools)"""
    return x & y


def bitwise_or(x: int, y: int) -> int:
    """$f(x, y) = x \\mathbin{|} y$, bit by bit (logical or on bools)"""
    return x | y


def bitwise_xor(x: int, y: int) -> int:
    """$f(x, y) = x \\oplus y$, bit by bit (logical xor on bools)"""
    return x ^ y


def bitwise_not(x: int) -> int:
    """$f(x) = \\lnot x$, bit by bit: $-x - 1$ for integers (logical not on NumPy bools)"""
    return ~x


def left_shift(x: int, y: int) -> int:
    """$f(x, y) = x \\cdot 2^y$, bits shifted left; 0 when $y < 0$ or $y \\ge 64$, as PyTorch"""
    if y < 0 or y >= 64:
        return x - x
    return x << y


def right_shift(x: int, y: int) -> int:
    """$f(x, y) = \\lfloor x / 2^y \\rfloor$, bits shifted right; for $y < 0$ or $y \\ge 64$
    every bit is shifted out: $-1$ for negative $x$, else 0 (PyTorch's rule)"""
    if y < 0 or y >= 64:
        return (x - x) - 1 if x < 0 else x - x
    return x >> y


def greater_or_nan(x: float, best: float) -> bool:
    """Whether `x` beats `best` for a maximum: $x > best$, or $x$ is the first NaN (as PyTorch)."""
    return x > best or (math.isnan(x) and not math.isnan(best))


def less_or_nan(x: float, best: float) -> bool:
    """Whether `x` beats `best` for a minimum: $x < best$, or $x$ is the first NaN (as PyTorch)."""
    return x < best or (math.isnan(x) and not math.isnan(best))


# ---------------------------------------------------------------------------
# More elementwise math for tensors (trigonometry, rounding, tests for NaN and
# infinity). Each keeps IEEE results where the `math` module would raise on a
# plain Python float: NaN outside the domain, infinities on overflow.
# ---------------------------------------------------------------------------

# $2^{52}$: every float64 at least this large (in magnitude) is an integer.
INTEGRAL_FLOAT = 4503599627370496.0


def sin(x: float) -> float:
    """$f(x) = \\sin x$ (NaN at $\\pm\\infty$)"""
    return math.sin(x) if x - x == 0.0 else math.nan


def cos(x: float) -> float:
    """$f(x) = \\cos x$ (NaN at $\\pm\\infty$)"""
    return math.cos(x) if x - x == 0.0 else math.nan


def tan(x: float) -> float:
    """$f(x) = \\tan x$ (NaN at $\\pm\\infty$)"""
    return math.tan(x) if x - x == 0.0 else math.nan


def asin(x: float) -> float:
    """$f(x) = \\arcsin x$; NaN outside $[-1, 1]$"""
    return math.asin(x) if -1.0 <= x <= 1.0 else math.nan


def acos(x: float) -> float:
    """$f(x) = \\arccos x$; NaN outside $[-1, 1]$"""
    return math.acos(x) if -1.0 <= x <= 1.0 else math.nan


def atan(x: float) -> float:
    """$f(x) = \\arctan x$"""
    return math.atan(x)


def sinh(x: float) -> float:
    """$f(x) = \\sinh x$ ($\\pm\\infty$ on overflow)"""
    if abs(x) > LOG_MAX_FLOAT + 1.0:
        return math.copysign(math.inf, x)
    return math.sinh(x)


def cosh(x: float) -> float:
    """$f(x) = \\cosh x$ ($+\\infty$ on overflow)"""
    if abs(x) > LOG_MAX_FLOAT + 1.0:
        return math.inf
    return math.cosh(x)


def log2(x: float) -> float:
    """$f(x) = \\log_2 x$; $-\\infty$ at 0 and NaN below 0"""
    if x > 0.0:
        return math.log2(x)
    return -math.inf if x == 0.0 else math.nan


def log10(x: float) -> float:
    """$f(x) = \\log_{10} x$; $-\\infty$ at 0 and NaN below 0"""
    if x > 0.0:
        return math.log10(x)
    return -math.inf if x == 0.0 else math.nan


def log1p(x: float) -> float:
    """$f(x) = \\ln(1 + x)$, accurate for small $x$; $-\\infty$ at $-1$, NaN below"""
    if x > -1.0:
        return math.log1p(x)
    return -math.inf if x == -1.0 else math.nan


def expm1(x: float) -> float:
    """$f(x) = e^x - 1$, accurate for small $x$ ($+\\infty$ on overflow)"""
    return math.inf if x > LOG_MAX_FLOAT else math.expm1(x)


def erf(x: float) -> float:
    """$f(x) = \\frac{2}{\\sqrt{\\pi}} \\int_0^x e^{-t^2} dt$"""
    return math.erf(x)


def rsqrt(x: float) -> float:
    """$f(x) = 1 / \\sqrt{x}$; $\\pm\\infty$ at $\\pm 0$, NaN below 0"""
    if x == 0.0:
        return math.copysign(math.inf, x)
    return 1.0 / math.sqrt(x) if x > 0.0 else math.nan


def trunc(x: float) -> float:
    """$f(x)$ = the integer part of $x$, rounded towards 0 (the sign kept: $-0.5 \\to -0$)"""
    if abs(x) < INTEGRAL_FLOAT:  # also False for NaN and infinities, which stay
        return math.copysign(float(int(x)), x)
    return x


def floor(x: float) -> float:
    """$f(x) = \\lfloor x \\rfloor$"""
    t = trunc(x)
    return t - 1.0 if t > x else t


def ceil(x: float) -> float:
    """$f(x) = \\lceil x \\rceil$"""
    t = trunc(x)
    return t + 1.0 if t < x else t


def round_half_even(x: float) -> float:
    """$f(x)$ = the nearest integer to $x$, halves to the even one ($2.5 \\to 2$), as PyTorch"""
    f = floor(x)
    rest = x - f
    if rest > 0.5 or (rest == 0.5 and f % 2.0 != 0.0):
        f += 1.0
    return math.copysign(f, x) if f == 0.0 else f


def frac(x: float) -> float:
    """$f(x) = x - \\operatorname{trunc}(x)$ (the sign of $x$)"""
    return x - trunc(x)


def sign(x: float) -> float:
    """$f(x) = 1$ if $x > 0$, $-1$ if $x < 0$, else 0 (also for NaN, as PyTorch)"""
    if x > 0:
        return 1
    return -1 if x < 0 else 0


def atan2(y: float, x: float) -> float:
    """$f(y, x)$ = the angle of the point $(x, y)$, in $(-\\pi, \\pi]$"""
    return math.atan2(y, x)


def hypot(x: float, y: float) -> float:
    """$f(x, y) = \\sqrt{x^2 + y^2}$, without overflow in the squares"""
    return math.hypot(x, y)


def fmod(x: float, y: float) -> float:
    """$f(x, y) = x - y \\operatorname{trunc}(x / y)$: C's `fmod`, the sign of $x$ (floats)"""
    if y == 0.0 or x - x != 0.0:
        return math.nan
    r = abs(x) % abs(y)  # exact: Python's `%` adjusts only when the signs differ
    return -r if x < 0.0 else r


def integer_fmod(x: int, y: int) -> int:
    """C's `fmod` for integers: the remainder of the division rounded towards 0"""
    r = abs(x) % abs(y)
    return -r if x < 0 else r


def is_nan(x: float) -> bool:
    """Whether $x$ is NaN"""
    return x != x


def is_inf(x: float) -> bool:
    """Whether $x$ is $+\\infty$ or $-\\infty$"""
    return x == math.inf or x == -math.inf


def is_finite(x: float) -> bool:
    """Whether $x$ is neither NaN nor infinite"""
    return x - x == 0


# ---------------------------------------------------------------------------
# Task 0.3: higher-order functions
# ---------------------------------------------------------------------------


def map_list(fn: Callable[[float], float]) -> Callable[[Iterable[float]], list[float]]:
    """Lift a one-argument function to lists: `map_list(fn)([x1, x2]) == [fn(x1), fn(x2)]`."""

    def apply(values: Iterable[float]) -> list[float]:
        # BEGIN SOLUTION 0.3
        return [fn(x) for x in values]
        # END SOLUTION 0.3

    return apply


def zip_with(
    fn: Callable[[float, float], float],
) -> Callable[[Iterable[float], Iterable[float]], list[float]]:
    """Lift a two-argument function to pairs of lists, element by element.

    `zip_with(fn)([x1, x2], [y1, y2]) == [fn(x1, y1), fn(x2, y2)]`. The lists
    must have the same length; a `ValueError` says so otherwise.
    """

    def apply(xs: Iterable[float], ys: Iterable[float]) -> list[float]:
        # BEGIN SOLUTION 0.3
        xs, ys = list(xs), list(ys)
        if len(xs) != len(ys):
            raise ValueError(f"zip_with: lists differ in length ({len(xs)} and {len(ys)})")
        return [fn(x, y) for x, y in zip(xs, ys, strict=True)]
        # END SOLUTION 0.3

    return apply


def reduce(fn: Callable[[float, float], float], start: float) -> Callable[[Iterable[float]], float]:
    r"""Fold a list into one value from the left.

    `reduce(fn, start)([x1, x2, x3]) == fn(fn(fn(start, x1), x2), x3)`; an
    empty list gives `start`.
    """

    def apply(values: Iterable[float]) -> float:
        # BEGIN SOLUTION 0.3
        total = start
        for x in values:
            total = fn(total, x)
        return total
        # END SOLUTION 0.3

    return apply


def neg_list(values: Iterable[float]) -> list[float]:
    """Negate every element, using `map_list`."""
    return map_list(neg)(values)


def add_lists(xs: Iterable[float], ys: Iterable[float]) -> list[float]:
    """Add two lists element by element, using `zip_with`."""
    return zip_with(add)(xs, ys)


def sum_list(values: Iterable[float]) -> float:
    """Sum a list, using `reduce` (0 for an empty list)."""
    return reduce(add, 0.0)(values)


def prod_list(values: Iterable[float]) -> float:
    """Multiply the elements of a list, using `reduce` (1 for an empty list)."""
    return reduce(mul, 1.0)(values)
