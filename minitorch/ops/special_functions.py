"""Elementwise special functions: the inverse hyperbolics, $2^a$, $\\operatorname{erfc}$,
$\\operatorname{erf}^{-1}$, and degrees to radians and back.

More rows of `unary.py`'s table: each is a scalar function of floats that the backends
compile (with its domain written out, since `math.acosh` and friends raise outside it and a
kernel must give NaN, as PyTorch does), a gradient written with tensor operations, and the
declared function users call. Integers give the default float dtype.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .public import declare
from .unary import unary

if TYPE_CHECKING:
    from .._tensor import Tensor

TWO_OVER_ROOT_PI = 2.0 / math.sqrt(math.pi)


def scalar_asinh(x: float) -> float:
    """$f(x) = \\operatorname{asinh} x = \\ln(x + \\sqrt{x^2 + 1})$"""
    return math.asinh(x)


def scalar_acosh(x: float) -> float:
    """$f(x) = \\operatorname{acosh} x = \\ln(x + \\sqrt{x^2 - 1})$; NaN below 1"""
    return math.acosh(x) if x >= 1.0 else math.nan


def scalar_atanh(x: float) -> float:
    """$f(x) = \\operatorname{atanh} x = \\frac{1}{2} \\ln \\frac{1 + x}{1 - x}$; $\\pm\\infty$
    at $\\pm 1$, NaN outside $[-1, 1]$"""
    if -1.0 < x < 1.0:
        return math.atanh(x)
    if x == 1.0 or x == -1.0:
        return math.copysign(math.inf, x)
    return math.nan


def scalar_exp2(x: float) -> float:
    """$f(x) = 2^x$ ($+\\infty$ past the largest float, 0 below the smallest)"""
    if x > 1024.0:
        return math.inf
    if x < -1100.0:
        return 0.0
    return 2.0**x


def scalar_erfc(x: float) -> float:
    """$f(x) = 1 - \\operatorname{erf} x$, accurate where $\\operatorname{erf} x$ is near 1"""
    return math.erfc(x)


def scalar_erfinv(y: float) -> float:
    """$f(y) = \\operatorname{erf}^{-1} y$: $\\pm\\infty$ at $\\pm 1$, NaN outside $[-1, 1]$.

    A closed-form guess good to about $10^{-3}$ (Winitzki's, $a = 0.147$), then Newton's
    steps on $\\operatorname{erf} x = y$, each squaring the error; near $\\pm 1$ the step
    solves $\\operatorname{erfc} x = 1 - |y|$ instead, which keeps the digits that
    $\\operatorname{erf} x - y$ would cancel.
    """
    if not -1.0 < y < 1.0:
        if y == 1.0 or y == -1.0:
            return math.copysign(math.inf, y)
        return math.nan
    if y == 0.0:
        return y  # keeps the sign of zero
    a = abs(y)
    w = math.log((1.0 - a) * (1.0 + a))
    t = 2.0 / (math.pi * 0.147) + 0.5 * w
    x = math.sqrt(math.sqrt(t * t - w / 0.147) - t)
    for _ in range(4):
        residual = math.erf(x) - a if a <= 0.5 else (1.0 - a) - math.erfc(x)
        x -= residual / (TWO_OVER_ROOT_PI * math.exp(-x * x))
    return x if y > 0.0 else -x


def scalar_deg2rad(x: float) -> float:
    """$f(x) = x \\pi / 180$"""
    return x * (math.pi / 180.0)


def scalar_rad2deg(x: float) -> float:
    """$f(x) = 180 x / \\pi$"""
    return x * (180.0 / math.pi)


def asinh_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g / \\sqrt{a^2 + 1}$"""
    return grad / (a * a + 1).sqrt()


def acosh_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g / \\sqrt{a^2 - 1}$"""
    return grad / (a * a - 1).sqrt()


def atanh_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$g / (1 - a^2)$"""
    return grad / (1 - a * a)


def exp2_gradient(grad: Tensor, out: Tensor) -> Tensor:
    """$g \\, 2^a \\ln 2$, which is $g \\cdot out \\cdot \\ln 2$"""
    return grad * out * math.log(2.0)


def erfc_gradient(grad: Tensor, a: Tensor) -> Tensor:
    """$-g \\frac{2}{\\sqrt{\\pi}} e^{-a^2}$"""
    return grad * ((-(a * a)).exp() * -TWO_OVER_ROOT_PI)


def erfinv_gradient(grad: Tensor, out: Tensor) -> Tensor:
    """$g \\frac{\\sqrt{\\pi}}{2} e^{out^2}$, the inverse of erf's slope at $out$"""
    return grad * ((out * out).exp() / TWO_OVER_ROOT_PI)


def deg2rad_gradient(grad: Tensor) -> Tensor:
    """$g \\pi / 180$"""
    return grad * (math.pi / 180.0)


def rad2deg_gradient(grad: Tensor) -> Tensor:
    """$180 g / \\pi$"""
    return grad * (180.0 / math.pi)


# fmt: off
#                   name       f                gradient          saves  to_float
Asinh   = unary("Asinh",   scalar_asinh,   asinh_gradient,   "a",   True)
Acosh   = unary("Acosh",   scalar_acosh,   acosh_gradient,   "a",   True)
Atanh   = unary("Atanh",   scalar_atanh,   atanh_gradient,   "a",   True)
Exp2    = unary("Exp2",    scalar_exp2,    exp2_gradient,    "out", True)
Erfc    = unary("Erfc",    scalar_erfc,    erfc_gradient,    "a",   True)
Erfinv  = unary("Erfinv",  scalar_erfinv,  erfinv_gradient,  "out", True)
Deg2Rad = unary("Deg2Rad", scalar_deg2rad, deg2rad_gradient, None,  True)
Rad2Deg = unary("Rad2Deg", scalar_rad2deg, rad2deg_gradient, None,  True)
# fmt: on


# The functions users call: name, docstring, what it computes, the example that ends the
# docstring (a tensor's values and what the call prints), the forms.
# fmt: off
asinh = declare(
    "asinh",
    """$\\operatorname{asinh} a = \\ln(a + \\sqrt{a^2 + 1})$ elementwise, the inverse of
    $\\sinh$ (integers give the default float dtype).""",
    Asinh.apply, example=([0.0, 1.0], "tensor([0.0000, 0.8814])"), inplace=True,
    aliases=("arcsinh",),
)
acosh = declare(
    "acosh",
    """$\\operatorname{acosh} a$ elementwise, the inverse of $\\cosh$ on $[1, \\infty)$ (NaN
    below 1).""",
    Acosh.apply, example=([1.0, 2.0], "tensor([0.0000, 1.3170])"), inplace=True,
    aliases=("arccosh",),
)
atanh = declare(
    "atanh",
    """$\\operatorname{atanh} a$ elementwise, the inverse of $\\tanh$ ($\\pm\\infty$ at $\\pm 1$,
    NaN outside $[-1, 1]$).""",
    Atanh.apply, example=([0.0, 0.5], "tensor([0.0000, 0.5493])"), inplace=True,
    aliases=("arctanh",),
)
exp2 = declare("exp2", "$2^a$ elementwise.", Exp2.apply,
               example=([3.0, -1.0], "tensor([8.0000, 0.5000])"), inplace=True)
erfc = declare("erfc", "The complementary error function $1 - \\operatorname{erf} a$ elementwise.",
               Erfc.apply, example=([0.0, 2.0], "tensor([1.0000, 0.0047])"), inplace=True)
erfinv = declare(
    "erfinv",
    """The inverse error function elementwise: $x$ with $\\operatorname{erf} x = a$
    ($\\pm\\infty$ at $\\pm 1$, NaN outside $[-1, 1]$).""",
    Erfinv.apply, example=([0.0, 0.5, 1.0], "tensor([0.0000, 0.4769,    inf])"), inplace=True,
)
deg2rad = declare("deg2rad", "Degrees to radians, $a \\pi / 180$, elementwise.", Deg2Rad.apply,
                  example=([180.0, 90.0], "tensor([3.1416, 1.5708])"), inplace=True)
rad2deg = declare("rad2deg", "Radians to degrees, $180 a / \\pi$, elementwise.", Rad2Deg.apply,
                  example=([3.141592653589793], "tensor([180.])"), inplace=True)
# fmt: on
