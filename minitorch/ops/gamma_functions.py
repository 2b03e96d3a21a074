"""The log-gamma function and its derivatives: `lgamma`, `digamma` ($\\psi$).

Rows of `unary.py`'s table with scalar functions the backends compile: `lgamma`
from `math.lgamma` (its poles written out as $+\\infty$, where Python's raises),
$\\psi$ and $\\psi'$ by the recurrence $\\psi(x) = \\psi(x + 1) - 1/x$ up to
$x \\ge 10$, then their asymptotic series, with the reflection formula below 0.
$\\psi'$ (trigamma) is `digamma`'s gradient; its own gradient is not implemented.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .public import public
from .unary import unary

if TYPE_CHECKING:
    from .._tensor import Tensor

ASYMPTOTIC_FROM = 10.0  # the series below are accurate to about 1e-15 from here on


def is_pole(x: float) -> bool:
    """Whether $x$ is 0 or a negative integer (a pole of $\\Gamma$)"""
    return x <= 0.0 and x == math.floor(x)


def scalar_lgamma(x: float) -> float:
    """$f(x) = \\ln |\\Gamma(x)|$ ($+\\infty$ at the poles and at $\\pm\\infty$)"""
    if x != x:
        return x
    if x == math.inf or x == -math.inf or is_pole(x):
        return math.inf
    return math.lgamma(x)


def scalar_digamma(x: float) -> float:
    """$f(x) = \\psi(x) = \\Gamma'(x) / \\Gamma(x)$ ($-\\infty$ at 0, NaN at negative integers)"""
    if x != x or x == -math.inf:
        return math.nan
    if x == math.inf:
        return x
    if x == 0.0:
        return -math.inf
    if is_pole(x):
        return math.nan
    total = 0.0
    if x < 0.0:  # psi(x) = psi(1 - x) - pi / tan(pi x)
        total = -math.pi / math.tan(math.pi * x)
        x = 1.0 - x
    while x < ASYMPTOTIC_FROM:
        total -= 1.0 / x
        x += 1.0
    s = 1.0 / (x * x)
    series = s * (1 / 12 - s * (1 / 120 - s * (1 / 252 - s * (1 / 240 - s * (1 / 132)))))
    return total + math.log(x) - 0.5 / x - series


def scalar_trigamma(x: float) -> float:
    """$f(x) = \\psi'(x)$ ($+\\infty$ at the poles)"""
    if x != x or x == -math.inf:
        return math.nan
    if x == math.inf:
        return 0.0
    if is_pole(x):
        return math.inf
    total, sign = 0.0, 1.0
    if x < 0.0:  # psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x)
        total = (math.pi / math.sin(math.pi * x)) ** 2
        sign, x = -1.0, 1.0 - x
    shifted = 0.0
    while x < ASYMPTOTIC_FROM:
        shifted += 1.0 / (x * x)
        x += 1.0
    s = 1.0 / (x * x)
    series = (1 + s * (1 / 6 - s * (1 / 30 - s * (1 / 42 - s * (1 / 30 - s * (5 / 66)))))) / x
    return total + sign * (shifted + 0.5 * s + series)


def lgamma_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g \\, \\psi(a)$"""
    return grad * Digamma.apply(a)


def digamma_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g \\, \\psi'(a)$"""
    return grad * Trigamma.apply(a)


def trigamma_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """not implemented: $\\psi''$ (an error)"""
    raise RuntimeError("the derivative of trigamma (polygamma(2, x)) is not implemented")


# fmt: off
#                   name        f                gradient           saves  to_float
Lgamma   = unary("Lgamma",   scalar_lgamma,   lgamma_gradient,   "a",   True)
Digamma  = unary("Digamma",  scalar_digamma,  digamma_gradient,  "a",   True)
Trigamma = unary("Trigamma", scalar_trigamma, trigamma_gradient, "a",   True)
# fmt: on


@public(inplace=True)
def lgamma(a: Tensor) -> Tensor:
    """$\\ln |\\Gamma(a)|$ elementwise ($+\\infty$ at $0, -1, -2, \\dots$; integers give the
    default float dtype).

    >>> import minitorch
    >>> minitorch.lgamma(minitorch.tensor([1.0, 3.0, 0.5]))
    tensor([0.0000, 0.6931, 0.5724])
    """
    return Lgamma.apply(a)


@public(inplace=True)
def digamma(a: Tensor) -> Tensor:
    """$\\psi(a) = \\frac{d}{da} \\ln \\Gamma(a)$ elementwise ($-\\infty$ at 0, NaN at the
    negative integers); its gradient is $\\psi'(a)$, once differentiable.

    >>> import minitorch
    >>> minitorch.digamma(minitorch.tensor([1.0, 0.5]))
    tensor([-0.5772, -1.9635])
    """
    return Digamma.apply(a)
