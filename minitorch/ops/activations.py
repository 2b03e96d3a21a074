"""Activations that are `minitorch.*` functions too (`torch.selu`, `torch.hardshrink`, ...):
SELU/CELU, threshold, hardshrink, the randomized leaky ReLU and PReLU, and `Pointwise`, the
node of an activation with kinks that `nn.functional`'s other activations share.

A `Pointwise` node is $y = f(x)$ with its derivative $f'(x)$ written out, so the derivative
at a kink is PyTorch's (e.g. `hardshrink`'s is 0 at $\\pm\\lambda$). `nn.functional` takes
these functions from here (`nn/functional_activations.py`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..tensors.creation import empty_like, ones_like
from .functions import Op
from .inplace import inplace as write_in_place
from .public import public
from .selection import where
from .unary import relu

if TYPE_CHECKING:
    from .._tensor import Tensor

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


class Pointwise(Op):
    """$y = f(x)$ elementwise with $\\partial L / \\partial x = g \\cdot f'(x)$; `value` and
    `slope` are $f$ and $f'$ as functions of tensors, `name` PyTorch's node name."""

    @staticmethod
    def forward(ctx, a: Tensor, value: Callable, slope: Callable, name: str) -> Tensor:
        ctx.save_for_backward(a)
        ctx.slope = slope
        return value(a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * ctx.slope(a)

    @classmethod
    def node_name(cls, *inputs, **params) -> str:
        return params["name"] + "Backward0"


def pointwise(input: Tensor, value: Callable, slope: Callable, name: str, inplace=False):  # noqa: A002
    """The `Pointwise` node of $f$ = `value`, $f'$ = `slope`, written into `input` when
    `inplace`."""
    node = lambda a: Pointwise.apply(a, value=value, slope=slope, name=name)  # noqa: E731
    return written_back(input, node, inplace)


def written_back(input: Tensor, compute: Callable, inplace: bool) -> Tensor:  # noqa: A002
    """`compute(input)`, written into `input` when `inplace` (PyTorch's `inplace=True`); its
    backward then reads the values from before the write."""
    return write_in_place(input, compute) if inplace else compute(input)


def in_place_twin(function: Callable) -> Callable:
    """`torch.<name>_`, the public in-place form of the activation `function`: its arguments
    but `inplace`, and `function(..., inplace=True)`."""
    signature = inspect.signature(function)
    kept = [p for p in signature.parameters.values() if p.name != "inplace"]
    own = signature.replace(parameters=kept)

    def twin(*args, **kwargs) -> Tensor:
        own.bind(*args, **kwargs)  # Python's TypeError for what the twin does not take
        return function(*args, **kwargs, inplace=True)

    twin.__name__ = twin.__qualname__ = function.__name__ + "_"
    twin.__module__ = function.__module__
    twin.__doc__ = f"`{function.__name__}` in place."
    twin.__signature__ = own
    return public(method=False)(twin)


def as_mask(condition: Tensor, like: Tensor) -> Tensor:
    return condition.to(like.dtype)


def exponential_unit(
    input: Tensor,  # noqa: A002
    scale: float,
    alpha: float,
    input_scale: float,
    name: str,
    inplace: bool = False,
) -> Tensor:
    """$s x$ for $x > 0$, else $s \\alpha (e^{c x} - 1)$ (ELU's family, PyTorch's
    `elu(x, alpha, scale, input_scale)`), derivative $s$ or $s \\alpha c e^{c x}$."""
    return pointwise(
        input,
        lambda a: where(a > 0, a * scale, ((a * input_scale).exp() - 1) * (alpha * scale)),
        lambda a: where(a > 0, scale, (a * input_scale).exp() * (alpha * scale * input_scale)),
        name,
        inplace,
    )


@public(method=False)
def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """$\\lambda x$ for $x > 0$, else $\\lambda \\alpha (e^x - 1)$, with Klambauer et al.'s
    $\\alpha \\approx 1.6733$ and $\\lambda \\approx 1.0507$ (self-normalising)."""
    return exponential_unit(input, SELU_SCALE, SELU_ALPHA, 1.0, "Elu", inplace)


selu_ = in_place_twin(selu)


@public(method=False)
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """$\\max(0, x) + \\min(0, \\alpha (e^{x / \\alpha} - 1))$ (Barron)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return exponential_unit(input, 1.0, alpha, 1.0 / alpha, "Celu", inplace)


celu_ = in_place_twin(celu)


@public(method=False)
def threshold(
    input: Tensor,  # noqa: A002
    threshold: float,
    value: float,
    inplace: bool = False,
) -> Tensor:
    """$x$ where $x >$ `threshold`, else `value`; derivative 1 or 0."""
    return thresholded(input, threshold, value, inplace)


threshold_ = in_place_twin(threshold)


def thresholded(input: Tensor, level: float, value: float, inplace: bool) -> Tensor:  # noqa: A002
    return pointwise(
        input,
        lambda a: where(a > level, a, value),
        lambda a: as_mask(a > level, a),
        "Threshold",
        inplace,
    )


@public(functional=True)
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """$x$ where $|x| > \\lambda$, else 0 (derivative 1 or 0); a negative $\\lambda$ keeps
    every element, as PyTorch's."""
    outside = lambda a: (a > lambd).logical_or(a < -lambd)  # noqa: E731
    return pointwise(
        input, lambda a: where(outside(a), a, 0.0), lambda a: as_mask(outside(a), a), "Hardshrink"
    )


@public(method=False)
def rrelu(
    input: Tensor,  # noqa: A002
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """The randomized leaky ReLU (Xu et al.): $x$ for $x > 0$, else $a x$ with a slope
    $a \\sim U(\\text{lower}, \\text{upper})$ drawn per element while `training`, and
    $a = (\\text{lower} + \\text{upper}) / 2$ otherwise."""
    if training:
        slopes = where(input > 0, 1.0, empty_like(input).uniform_(lower, upper))
        return written_back(input, lambda a: a * slopes, inplace)
    slope = (lower + upper) / 2
    return pointwise(
        input,
        lambda a: where(a > 0, a, a * slope),
        lambda a: where(a > 0, ones_like(a), slope),
        "RreluWithNoise",
        inplace,
    )


rrelu_ = in_place_twin(rrelu)


@public(functional=True)
def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    """$\\max(0, x) + w \\min(0, x)$ with a learned slope $w$: one for all, or one per
    channel (dimension 1) when `weight` has as many elements as channels."""
    count = weight.numel()
    if count != 1:
        channels = input.shape[1] if input.ndim >= 2 else 1
        if input.ndim == 0 or count != channels:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {count} and channel size = {channels}."
            )
        weight = weight.reshape(channels, *([1] * (input.ndim - 2)))
    return where(input > 0, input, weight * input)


@public("relu_", torch=False, method=False, functional=True)
def functional_relu_(input: Tensor) -> Tensor:  # noqa: A002
    """`relu` written into `input` (`nn.functional.relu_`)."""
    return write_in_place(input, relu)
