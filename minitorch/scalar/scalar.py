"""Module 1: `Scalar`, a float that remembers how it was computed.

Every arithmetic operation on Scalars goes through `apply`, which runs the
function's `forward` on plain floats and, for the result, records the
function, its `Context` and its inputs. That record is the graph that
`backward()` walks with the engine of `autodiff.py`:

>>> x = Scalar(2.0)
>>> y = x * x + 3.0 * x
>>> y.backward()
>>> x.grad          # dy/dx = 2x + 3
7.0
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

from ..autodiff import Context, backpropagate, central_difference
from . import scalar_functions as sf

_unique_ids = itertools.count()


def operator_pair(name: str, function: type[sf.ScalarFunction]) -> tuple[Callable, Callable]:
    """`Scalar.__<name>__` and `Scalar.__r<name>__`: `a op b` is `apply(function, a, b)`; the
    reflected one, which Python calls for `b op a` when `b` is a number, `apply(function, b, a)`."""

    def forward(self: Scalar, b: float | Scalar) -> Scalar:
        return apply(function, self, b)

    def reflected(self: Scalar, b: float | Scalar) -> Scalar:
        return apply(function, b, self)

    for method, method_name in ((forward, f"__{name}__"), (reflected, f"__r{name}__")):
        method.__name__, method.__qualname__ = method_name, f"Scalar.{method_name}"
    return forward, reflected


class Scalar:
    """A float in a computation graph.

    - `data`: the value, a Python float.
    - `grad`: $\\partial L / \\partial \\text{self}$ after `L.backward()`; `None`
      until a backward pass reaches this scalar (set it to `None` to reset).
    - `function`, `ctx`, `inputs`: how it was computed (all `None` for a leaf,
      i.e. a scalar you created yourself).

    Python numbers mixed into an expression become *constants*: they take part
    in the computation but collect no gradient.
    """

    __slots__ = ("data", "grad", "function", "ctx", "inputs", "unique_id", "_constant", "name")

    def __init__(
        self,
        value: float,
        function: type[sf.ScalarFunction] | None = None,
        ctx: Context | None = None,
        inputs: tuple[Scalar, ...] | None = None,
        name: str | None = None,
        constant: bool = False,
    ) -> None:
        self.data = float(value)
        self.grad: float | None = None
        self.function = function
        self.ctx = ctx
        self.inputs = inputs
        self.unique_id = next(_unique_ids)
        self._constant = constant
        self.name = name

    def __repr__(self) -> str:
        return f"Scalar({self.data})"

    # -- the Variable protocol of autodiff.py --------------------------------

    def is_leaf(self) -> bool:
        """True for a scalar you created (not the output of an operation)."""
        return self.function is None

    def is_constant(self) -> bool:
        """True for a wrapped Python number: no gradient flows into it."""
        return self._constant

    @property
    def parents(self) -> Iterable[Scalar]:
        """The inputs this scalar was computed from (none for a leaf)."""
        return self.inputs or ()

    def chain_rule(self, d_output: float) -> Iterable[tuple[Scalar, float]]:
        r"""Pairs $(x_i, d_{output} \cdot \partial \text{self} / \partial x_i)$ for each
        input $x_i$ that is not a constant."""
        # BEGIN SOLUTION 1.3
        if self.function is None:
            raise RuntimeError("chain_rule called on a leaf Scalar: it has no inputs")
        derivatives = self.function.backward(self.ctx, d_output)
        return [(x, derivatives[i]) for i, x in enumerate(self.inputs) if not x._constant]
        # END SOLUTION 1.3

    def accumulate_derivative(self, d: float) -> None:
        """Add `d` to this leaf's `grad` (gradients of all backward passes add up)."""
        # BEGIN SOLUTION 1.3
        if not self.is_leaf():
            raise RuntimeError("only leaf Scalars accumulate derivatives")
        self.grad = d if self.grad is None else self.grad + d
        # END SOLUTION 1.3

    def backward(self, d_output: float = 1.0) -> None:
        """Compute $\\partial \\text{self} / \\partial x$ for every leaf $x$ below this
        scalar and add it to `x.grad`, scaled by `d_output`."""
        backpropagate(self, d_output)

    # -- operators -----------------------------------------------------------

    # `a + b` and `b + a` (`__add__`, `__radd__`), ...: the same function, both orders
    __add__, __radd__ = operator_pair("add", sf.Add)
    __sub__, __rsub__ = operator_pair("sub", sf.Sub)
    __mul__, __rmul__ = operator_pair("mul", sf.Mul)
    __truediv__, __rtruediv__ = operator_pair("truediv", sf.Div)
    __pow__, __rpow__ = operator_pair("pow", sf.Pow)

    def __neg__(self) -> Scalar:
        return apply(sf.Neg, self)

    def __lt__(self, b: float | Scalar) -> Scalar:
        return apply(sf.LT, self, b)

    def __gt__(self, b: float | Scalar) -> Scalar:
        return apply(sf.LT, b, self)

    def __eq__(self, b: object) -> Scalar:  # type: ignore[override]
        if not isinstance(b, (Scalar, int, float)):
            return NotImplemented  # Python then compares identities: `x == None` is False
        return apply(sf.EQ, self, b)

    # `==` builds a Scalar, so hashing falls back to identity, as for tensors.
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        return bool(self.data)

    def __float__(self) -> float:
        return self.data

    def log(self) -> Scalar:
        """$\\ln x$"""
        return apply(sf.Log, self)

    def exp(self) -> Scalar:
        """$e^x$"""
        return apply(sf.Exp, self)

    def sigmoid(self) -> Scalar:
        """$1 / (1 + e^{-x})$"""
        return apply(sf.Sigmoid, self)

    def relu(self) -> Scalar:
        """$\\max(x, 0)$"""
        return apply(sf.ReLU, self)

    def tanh(self) -> Scalar:
        """$\\tanh x$"""
        return apply(sf.Tanh, self)


def apply(function: type[sf.ScalarFunction], *values: float | Scalar) -> Scalar:
    """Run `function.forward` on the floats inside `values` and record the graph.

    Python numbers become constant Scalars. The result remembers `function`,
    the `Context` its forward filled, and the input Scalars, unless every
    input is constant, in which case the result is a constant too.
    """
    inputs = []
    floats = []
    all_constant = True
    for value in values:
        if not isinstance(value, Scalar):
            value = _constant(value)
        elif not value._constant:
            all_constant = False
        inputs.append(value)
        floats.append(value.data)
    ctx = Context()
    out = function.forward(ctx, *floats)
    if all_constant:
        return Scalar(out, constant=True)
    return Scalar(out, function, ctx, tuple(inputs))


def _constant(value: object) -> Scalar:
    """A Python number (bools count as 0 and 1, as in PyTorch) as a constant Scalar."""
    if not isinstance(value, (int, float)):
        raise TypeError(f"unsupported operand type for Scalar arithmetic: '{type(value).__name__}'")
    return Scalar(value, constant=True)


def derivative_check(f: Callable[..., Scalar], *scalars: Scalar, tolerance: float = 1e-2) -> None:
    """Check `f`'s derivatives by backward against central differences.

    Raises `AssertionError` naming the argument and both values on a mismatch.
    """
    for scalar in scalars:
        scalar.grad = None
    out = f(*scalars)
    out.backward()
    values = [s.data for s in scalars]
    for i, scalar in enumerate(scalars):
        expected = central_difference(lambda *xs: f(*[Scalar(x) for x in xs]).data, *values, arg=i)
        got = 0.0 if scalar.grad is None else scalar.grad
        if abs(got - expected) > tolerance * (1.0 + abs(expected)):
            raise AssertionError(
                f"derivative of {getattr(f, '__name__', f)} with respect to argument {i} "
                f"at {values}: backward gave {got}, central difference gave {expected}"
            )
