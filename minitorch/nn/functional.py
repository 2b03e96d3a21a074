"""`minitorch.nn.functional`, as `torch.nn.functional`: activations, losses and layers as functions.

>>> import minitorch
>>> import minitorch.nn.functional as F
>>> F.relu(minitorch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""

from __future__ import annotations

import warnings

from .._tensor import Tensor
from ..autograd import Function

# convolution and pooling (ops/convolution.py, ops/pooling.py)
from ..ops.api import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    avg_pool1d,
    avg_pool2d,
    conv1d,
    conv2d,
    log_softmax,
    max_pool1d,
    max_pool2d,
    pad,
    relu,
    sigmoid,
    softmax,
    tanh,
    unfold,
)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """$y = x W^T + b$: `weight` has shape (out_features, in_features), as in PyTorch."""
    output = input @ weight.T
    return output if bias is None else output + bias


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    """Per-element losses combined as PyTorch's `reduction=` says: mean, sum or none."""
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    if reduction == "none":
        return losses
    raise ValueError(f"{reduction} is not a valid value for reduction")


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """$(x_i - y_i)^2$, averaged (or summed) over the elements.

    Shapes that differ broadcast, as in PyTorch, with its warning: a (n, 1) prediction against
    (n,) targets gives an (n, n) table of every prediction against every target.
    """
    if input.shape != target.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=2,
        )
    difference = input - target
    return _reduce(difference * difference, reduction)


class BinaryCrossEntropyWithLogits(Function):
    """$-[y \\ln \\sigma(z) + (1 - y) \\ln(1 - \\sigma(z))]$ per element, from the logits $z$.

    Forward uses the stable form $\\max(z, 0) - z y + \\ln(1 + e^{-|z|})$, which never takes
    $\\ln 0$ and never overflows. Its pieces have kinks at $z = 0$ that the loss does not
    have, so backward is written out, as in PyTorch:
    $\\partial L / \\partial z = \\sigma(z) - y$ and $\\partial L / \\partial y = -z$.
    """

    @staticmethod
    def forward(ctx, logits: Tensor, target: Tensor, reduction: str) -> Tensor:
        ctx.save_for_backward(logits, target)
        ctx.scale = 1 / logits.numel() if reduction == "mean" else 1.0
        softplus = ((-logits.abs()).exp() + 1).log()
        return _reduce(logits.relu() - logits * target + softplus, reduction)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        logits, target = ctx.saved_tensors
        grad = grad * ctx.scale
        d_logits = (logits.sigmoid() - target) * grad if ctx.needs_input_grad[0] else None
        d_target = -logits * grad if ctx.needs_input_grad[1] else None
        return d_logits, d_target


def binary_cross_entropy_with_logits(
    input: Tensor,  # noqa: A002
    target: Tensor,
    reduction: str = "mean",
) -> Tensor:
    """The binary cross-entropy of $\\sigma(z)$ against `target`, computed from the logits $z$
    (`input`) without ever taking $\\ln 0$; `target` must have the shape of `input`.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.binary_cross_entropy_with_logits(minitorch.tensor([0.0, 50.0]), minitorch.ones(2))
    tensor(0.3466)
    """
    if input.shape != target.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    return BinaryCrossEntropyWithLogits.apply(input, target, reduction=reduction)


__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "conv1d",
    "conv2d",
    "max_pool1d",
    "max_pool2d",
    "pad",
    "binary_cross_entropy_with_logits",
    "linear",
    "log_softmax",
    "mse_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
    "unfold",
]
