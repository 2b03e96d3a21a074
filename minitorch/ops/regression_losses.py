"""Regression losses: how far a real-valued prediction is from its target.

$\\ell(x, y)$ per element, then combined as `reduction=` says (`losses.reduce_loss`):
`mse_loss` $(x - y)^2$, `l1_loss` $|x - y|$, `smooth_l1_loss` (quadratic below `beta`,
linear above) and `huber_loss` (the same, scaled by `delta`). Those PyTorch records as nodes
of their own are `PairLoss` ops, forward and backward side by side; `l1_loss` is composed.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from ..autograd.graph import GraphContext
from ..backends.tensor_data import shape_broadcast
from ..tensors.shapes import not_implemented
from .functions import Op
from .losses import check_reduction, loss_scale, reduce_loss
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


def broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """`input` and `target` expanded to one shape, with PyTorch's warning when they differ."""
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    warnings.warn(
        f"Using a target size ({target.shape}) that is different to the input size "
        f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
        "Please ensure they have the same size.",
        stacklevel=3,
    )
    shape = shape_broadcast(tuple(input.shape), tuple(target.shape))
    return input.expand(shape), target.expand(shape)


class PairLoss(Op):
    """A loss of the difference $d = x - y$: `loss(d)` forward, `slope(d)` = $\\ell'(d)$ back."""

    @classmethod
    def forward(cls, ctx, input: Tensor, target: Tensor, reduction: str, size: float):
        difference = input - target
        losses = cls.loss(difference, size)
        ctx.save_for_backward(difference)
        ctx.size, ctx.scale = size, loss_scale(losses, reduction)
        return reduce_loss(losses, reduction)

    @classmethod
    def backward(cls, ctx: GraphContext, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        (difference,) = ctx.saved_tensors
        d_input = cls.slope(difference, ctx.size) * (grad * ctx.scale)
        return (
            d_input if ctx.needs_input_grad[0] else None,
            -d_input if ctx.needs_input_grad[1] else None,
        )


class MseLoss(PairLoss):
    """$\\ell = d^2$, $\\ell' = 2d$"""

    @staticmethod
    def loss(d: Tensor, size: float) -> Tensor:
        return d * d

    @staticmethod
    def slope(d: Tensor, size: float) -> Tensor:
        return 2 * d


class SmoothL1Loss(PairLoss):
    """$\\ell = d^2 / 2\\beta$ where $|d| < \\beta$, else $|d| - \\beta / 2$; $\\ell' =
    \\mathrm{clamp}(d / \\beta, -1, 1)$"""

    @staticmethod
    def loss(d: Tensor, beta: float) -> Tensor:
        size = d.abs()
        return (0.5 * d * d / beta).where(size < beta, size - 0.5 * beta)

    @staticmethod
    def slope(d: Tensor, beta: float) -> Tensor:
        return (d / beta).clamp(-1.0, 1.0)


class HuberLoss(PairLoss):
    """$\\ell = d^2 / 2$ where $|d| < \\delta$, else $\\delta (|d| - \\delta / 2)$; $\\ell' =
    \\mathrm{clamp}(d, -\\delta, \\delta)$"""

    @staticmethod
    def loss(d: Tensor, delta: float) -> Tensor:
        size = d.abs()
        return (0.5 * d * d).where(size < delta, delta * (size - 0.5 * delta))

    @staticmethod
    def slope(d: Tensor, delta: float) -> Tensor:
        return d.clamp(-delta, delta)


def check_floating(input: Tensor, target: Tensor, kernel: str) -> None:
    """PyTorch's NotImplementedError when neither operand is floating (e.g. "mse_cpu")."""
    if not (input.dtype.is_floating_point or target.dtype.is_floating_point):
        raise not_implemented(kernel, input.dtype)


@public(torch=False, method=False, functional=True)
def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """$(x_i - y_i)^2$, averaged (or summed) over the elements.

    Shapes that differ broadcast, as in PyTorch, with its warning: a (n, 1) prediction against
    (n,) targets gives an (n, n) table of every prediction against every target.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.mse_loss(minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 4.0]))
    tensor(2.)
    """
    check_reduction(reduction)
    input, target = broadcast_pair(input, target)  # noqa: A001
    check_floating(input, target, "mse_cpu")
    return MseLoss.apply(input, target, reduction=reduction, size=0.0)


@public(torch=False, method=False, functional=True)
def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """$|x_i - y_i|$, averaged (or summed) over the elements."""
    check_reduction(reduction)
    input, target = broadcast_pair(input, target)  # noqa: A001
    return reduce_loss((input - target).abs(), reduction)


@public(torch=False, method=False, functional=True)
def smooth_l1_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", beta: float = 1.0
) -> Tensor:
    """$0.5 d^2 / \\beta$ where $|d| < \\beta$, else $|d| - 0.5 \\beta$, for $d = x - y$
    (the L1 loss when $\\beta = 0$)."""
    check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction)
    input, target = broadcast_pair(input, target)  # noqa: A001
    check_floating(input, target, "smooth_l1_cpu")
    return SmoothL1Loss.apply(input, target, reduction=reduction, size=beta)


@public(torch=False, method=False, functional=True)
def huber_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0
) -> Tensor:
    """$0.5 d^2$ where $|d| < \\delta$, else $\\delta (|d| - 0.5 \\delta)$, for $d = x - y$."""
    check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = broadcast_pair(input, target)  # noqa: A001
    check_floating(input, target, "huber_cpu")
    return HuberLoss.apply(input, target, reduction=reduction, size=delta)
