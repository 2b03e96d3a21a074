"""`minitorch.nn.functional`, as `torch.nn.functional`: activations, losses and layers as functions.

>>> import minitorch
>>> import minitorch.nn.functional as F
>>> F.relu(minitorch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""

from __future__ import annotations

from .._tensor import Tensor
from ..ops.api import log_softmax, relu, sigmoid, softmax, tanh


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
    """$(x_i - y_i)^2$, averaged (or summed) over the elements."""
    difference = input - target
    return _reduce(difference * difference, reduction)


def binary_cross_entropy_with_logits(
    input: Tensor,  # noqa: A002
    target: Tensor,
    reduction: str = "mean",
) -> Tensor:
    """$-[y \\ln \\sigma(z) + (1 - y) \\ln(1 - \\sigma(z))]$ from the logits $z$, stably:

    $$\\max(z, 0) - z y + \\ln(1 + e^{-|z|})$$

    which never takes $\\ln 0$ and never overflows.
    """
    softplus = ((-input.abs()).exp() + 1).log()
    return _reduce(input.relu() - input * target + softplus, reduction)


__all__ = [
    "binary_cross_entropy_with_logits",
    "linear",
    "log_softmax",
    "mse_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
]
