"""Losses of distributions: `kl_div` (the Kullback-Leibler divergence),
`poisson_nll_loss` and `gaussian_nll_loss` (negative log-likelihoods), as in
`torch.nn.functional`, with the `minitorch.*` forms `kl_div`, `poisson_nll_loss` and
`binary_cross_entropy_with_logits`, which take PyTorch's enumerated `reduction` (0 none,
1 mean, 2 sum).

Composed from tensor operations, so autograd differentiates them.
"""

from __future__ import annotations

import math
import warnings
from numbers import Number
from typing import TYPE_CHECKING

from .elementwise_compositions import xlogy
from .loss_helpers import clamp_min_unseen, functional_reduction, reduction_of
from .losses import binary_cross_entropy_with_logits, reduce_loss
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


def divergence(input: Tensor, target: Tensor, reduction: str, log_target: bool) -> Tensor:  # noqa: A002
    """$y (\\ln y - x)$ pointwise, from log-probabilities $x$ and probabilities $y$
    ($e^{y} (y - x)$ for log-probabilities $y$ when `log_target`); $0 \\ln 0 = 0$."""
    if log_target:
        losses = target.exp() * (target - input)
    else:
        losses = xlogy(target, target) - target * input
    return reduce_loss(losses, reduction)


@public(torch=False, method=False, functional=True)
def kl_div(
    input: Tensor,  # noqa: A002
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """The Kullback-Leibler divergence $y (\\ln y - x)$ of log-probabilities $x$ (`input`)
    from the target distribution $y$.

    "batchmean" divides the sum by the batch size (the size of dim 0), the divergence of
    each sample's distribution; "mean" divides by the number of elements, with PyTorch's
    warning that it is not the divergence.
    """
    if size_average is not None or reduce is not None:
        return divergence(input, target, functional_reduction(size_average, reduce, ""), log_target)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            stacklevel=2,
        )
    if reduction == "batchmean":
        total = divergence(input, target, "sum", log_target)
        return total / input.shape[0] if input.ndim else total
    return divergence(input, target, functional_reduction(None, None, reduction), log_target)


@public("kl_div", method=False)
def torch_kl_div(input, target, reduction=1, log_target=False) -> Tensor:  # noqa: A002
    """`nn.functional.kl_div` with PyTorch's enumerated `reduction` (no "batchmean")."""
    return divergence(input, target, reduction_of(reduction), log_target)


def poisson(input, target, log_input: bool, full: bool, eps: float, reduction: str) -> Tensor:  # noqa: A002
    """$e^{x} - y x$ of log-rates $x$ (`log_input`), else $x - y \\ln(x + \\epsilon)$ of rates;
    `full` adds Stirling's $y \\ln y - y + \\frac12 \\ln(2 \\pi y)$ where $y > 1$."""
    if log_input:
        losses = input.exp() - target * input
    else:
        losses = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        losses = losses + stirling.where(target > 1, 0.0)
    return reduce_loss(losses, reduction)


@public(torch=False, method=False, functional=True)
def poisson_nll_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood of counts $y$ under Poisson rates $\\lambda$: $\\lambda -
    y \\ln \\lambda$ (without the constant $\\ln y!$, unless `full`), with $\\lambda = e^x$
    when `log_input`, else $\\lambda = x$ (its logarithm taken of $x + \\epsilon$)."""
    reduction = functional_reduction(size_average, reduce, reduction)
    return poisson(input, target, log_input, full, eps, reduction)


@public("poisson_nll_loss", method=False)
def torch_poisson_nll_loss(input, target, log_input, full, eps, reduction) -> Tensor:  # noqa: A002
    """`nn.functional.poisson_nll_loss`, every argument given, `reduction` enumerated."""
    return poisson(input, target, log_input, full, eps, reduction_of(reduction))


@public(torch=False, method=False, functional=True)
def gaussian_nll_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """$\\frac12 [\\ln \\max(\\sigma^2, \\epsilon) + (x - y)^2 / \\max(\\sigma^2, \\epsilon)]$
    (plus $\\frac12 \\ln 2\\pi$ when `full`): the negative log-likelihood of $y$ under
    $N(x, \\sigma^2)$.

    `var` is a number, or a tensor of the shape of `input`, of that shape without its last
    dimension (one variance per sample), or differing from it in one dimension of size 1;
    the clamp at $\\epsilon$ passes the gradient through, as PyTorch's.
    """
    if isinstance(var, Number):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = input.new_full(input.shape, float(var))
    elif (var < 0).any().item():
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif (
            input.ndim != var.ndim
            or sum(b for a, b in zip(input.shape, var.shape, strict=True) if a != b) != 1
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not valid")
    var = clamp_min_unseen(var, eps)
    losses = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        losses = losses + 0.5 * math.log(2 * math.pi)
    return reduce_loss(losses, reduction)


@public("binary_cross_entropy_with_logits", method=False)
def torch_bce_with_logits(
    input,  # noqa: A002
    target,
    weight=None,
    pos_weight=None,
    reduction=1,
) -> Tensor:
    """`nn.functional.binary_cross_entropy_with_logits`, `reduction` enumerated."""
    return binary_cross_entropy_with_logits(
        input, target, weight, reduction=reduction_of(reduction), pos_weight=pos_weight
    )
