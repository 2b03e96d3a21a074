"""Module 1: the differentiable functions of one or two floats.

Each function is a class with `forward` and `backward` side by side:

- `forward(ctx, *inputs)` computes the output from plain floats and saves on
  `ctx` what the derivative will need;
- `backward(ctx, d_output)` returns $d_{output} \\cdot \\partial f / \\partial x_i$
  for each input $x_i$ (a tuple, one entry per input).

Both sides reuse the scalar operators of module 0. The functions know nothing
about graphs: `minitorch.scalar.apply` runs `forward` and records the graph.
"""

from __future__ import annotations

import math

from .. import operators
from ..autodiff import Context


def real_power(a: float, b: float) -> float:
    """$a^b$ with IEEE results where Python raises: $0^{-1} = \\infty$, overflow gives
    $\\infty$, and a negative base with a fractional exponent gives NaN (as PyTorch)."""
    try:
        out = a**b
    except ZeroDivisionError:
        return math.inf
    except OverflowError:
        return math.inf if a > 0.0 or float(b).is_integer() and b % 2 == 0 else -math.inf
    return math.nan if isinstance(out, complex) else out


class ScalarFunction:
    """Base class: subclasses define `forward` and `backward` as static methods."""

    @staticmethod
    def forward(ctx: Context, *inputs: float) -> float:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        raise NotImplementedError


class Add(ScalarFunction):
    """$f(a, b) = a + b$"""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        return operators.add(a, b)
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        return d_output, d_output
        # END SOLUTION 1.5


class Sub(ScalarFunction):
    """$f(a, b) = a - b$"""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        return operators.add(a, operators.neg(b))
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        return d_output, operators.neg(d_output)
        # END SOLUTION 1.5


class Mul(ScalarFunction):
    """$f(a, b) = a b$"""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        ctx.save_for_backward(a, b)
        return operators.mul(a, b)
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        a, b = ctx.saved_values
        return operators.mul(d_output, b), operators.mul(d_output, a)
        # END SOLUTION 1.5


class Div(ScalarFunction):
    r"""$f(a, b) = a / b$, so $\partial f/\partial a = 1/b$ and $\partial f/\partial b = -a/b^2$"""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        ctx.save_for_backward(a, b)
        return operators.mul(a, operators.inv(b))
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        a, b = ctx.saved_values
        return d_output / b, operators.inv_back(b, d_output * a)
        # END SOLUTION 1.5


class Neg(ScalarFunction):
    """$f(a) = -a$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        return operators.neg(a)
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        return (operators.neg(d_output),)
        # END SOLUTION 1.5


class Inv(ScalarFunction):
    """$f(a) = 1/a$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        ctx.save_for_backward(a)
        return operators.inv(a)
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        (a,) = ctx.saved_values
        return (operators.inv_back(a, d_output),)
        # END SOLUTION 1.5


class Pow(ScalarFunction):
    r"""$f(a, b) = a^b$

    $\partial f/\partial a = b a^{b-1}$ and $\partial f/\partial b = a^b \ln a$.
    """

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        out = real_power(a, b)
        ctx.save_for_backward(a, b, out)
        return out
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        a, b, out = ctx.saved_values
        d_a = d_output * b * real_power(a, b - 1.0) if b != 0.0 else 0.0
        # ln a is undefined for a <= 0; PyTorch gives 0 there when a^b is 0
        d_b = d_output * out * math.log(a) if a > 0.0 else (0.0 if out == 0.0 else math.nan)
        return d_a, d_b
        # END SOLUTION 1.5


class Log(ScalarFunction):
    r"""$f(a) = \ln a$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        ctx.save_for_backward(a)
        return operators.log(a)
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        (a,) = ctx.saved_values
        return (operators.log_back(a, d_output),)
        # END SOLUTION 1.5


class Exp(ScalarFunction):
    """$f(a) = e^a$, its own derivative"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        out = operators.exp(a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        (out,) = ctx.saved_values
        return (operators.mul(d_output, out),)
        # END SOLUTION 1.5


class Sigmoid(ScalarFunction):
    r"""$f(a) = \sigma(a) = 1 / (1 + e^{-a})$, with $\sigma'(a) = \sigma(a)(1 - \sigma(a))$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        out = operators.sigmoid(a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        (out,) = ctx.saved_values
        return (d_output * out * (1.0 - out),)
        # END SOLUTION 1.5


class ReLU(ScalarFunction):
    """$f(a) = \\max(a, 0)$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        ctx.save_for_backward(a)
        return operators.relu(a)
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        (a,) = ctx.saved_values
        return (operators.relu_back(a, d_output),)
        # END SOLUTION 1.5


class Tanh(ScalarFunction):
    r"""$f(a) = \tanh a$, with $f'(a) = 1 - \tanh^2 a$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2
        out = operators.tanh(a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        (out,) = ctx.saved_values
        return (d_output * (1.0 - out * out),)
        # END SOLUTION 1.5


class LT(ScalarFunction):
    """$f(a, b) = 1$ if $a < b$ else $0$; flat, so both derivatives are 0"""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        return operators.lt(a, b)
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        return 0.0, 0.0
        # END SOLUTION 1.5


class EQ(ScalarFunction):
    """$f(a, b) = 1$ if $a = b$ else $0$; flat, so both derivatives are 0"""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2
        return operators.eq(a, b)
        # END SOLUTION 1.2

    @staticmethod
    def backward(ctx: Context, d_output: float) -> tuple[float, ...]:
        # BEGIN SOLUTION 1.5
        return 0.0, 0.0
        # END SOLUTION 1.5
