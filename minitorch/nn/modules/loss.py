"""The loss layers of `minitorch.nn` (`nn.CrossEntropyLoss`, `nn.MSELoss`, ...), as in
`torch.nn.modules.loss`: each keeps its settings and calls its function of
`minitorch.nn.functional` on `(input, target)`. Class weights are buffers, as in PyTorch.
"""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from .. import functional as F
from ..module import Module


def legacy_reduction(size_average: bool | None, reduce: bool | None) -> str:
    """The `reduction` that PyTorch's deprecated `size_average` and `reduce` arguments mean."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(
        "size_average and reduce args will be deprecated, please use "
        f"reduction='{reduction}' instead.",
        stacklevel=4,
    )
    return reduction


class _Loss(Module):
    """A loss layer: `reduction` is "mean", "sum" or "none"."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        legacy = size_average is not None or reduce is not None
        self.reduction = legacy_reduction(size_average, reduce) if legacy else reduction


class _WeightedLoss(_Loss):
    """A loss layer with per-class weights, kept as the buffer `weight`."""

    def __init__(
        self, weight: Tensor | None = None, size_average=None, reduce=None, reduction="mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """$|x - y|$, reduced (`F.l1_loss`)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """$(x - y)^2$, reduced (`F.mse_loss`).

    >>> import minitorch
    >>> minitorch.nn.MSELoss()(minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 4.0]))
    tensor(2.)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic for $|x - y| < \\beta$, linear beyond (`F.smooth_l1_loss`)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Quadratic for $|x - y| < \\delta$, $\\delta$-sloped beyond (`F.huber_loss`)."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    """$-w [y \\ln p + (1 - y) \\ln(1 - p)]$ of probabilities (`F.binary_cross_entropy`)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """The binary cross-entropy of $\\sigma(z)$, computed stably from the logits $z$
    (`F.binary_cross_entropy_with_logits`); `pos_weight` scales the positive term."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class NLLLoss(_WeightedLoss):
    """$-w_{t} x_{t}$: the negative log-likelihood of the target classes (`F.nll_loss`)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.nll_loss(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class CrossEntropyLoss(_WeightedLoss):
    """The negative log-likelihood of the log-softmax of logits (`F.cross_entropy`).

    >>> import minitorch
    >>> loss = minitorch.nn.CrossEntropyLoss()
    >>> loss(minitorch.tensor([[2.0, 0.0], [0.0, 0.0]]), minitorch.tensor([0, 1]))
    tensor(0.4100)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.cross_entropy(
            input,
            target,
            self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )
