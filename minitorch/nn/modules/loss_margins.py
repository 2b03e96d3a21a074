"""The margin-loss layers of `minitorch.nn`, as in `torch.nn.modules.loss`: each keeps its
settings and calls its `nn.functional` function (see `ops/margin_losses.py` for the math)."""

from __future__ import annotations

from collections.abc import Callable

from ..._tensor import Tensor
from .. import functional as F
from .distance import PairwiseDistance
from .loss import _Loss, _WeightedLoss


class _MarginLoss(_Loss):
    """A loss layer with a `margin`."""

    def __init__(self, margin: float, size_average=None, reduce=None, reduction="mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def _loss(self, function: Callable[..., Tensor], *inputs: Tensor) -> Tensor:
        return function(*inputs, margin=self.margin, reduction=self.reduction)


class MarginRankingLoss(_MarginLoss):
    """$\\max(0, -y (x_1 - x_2) + \\text{margin})$ (`F.margin_ranking_loss`)."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return self._loss(F.margin_ranking_loss, input1, input2, target)


class HingeEmbeddingLoss(_MarginLoss):
    """$x$ where $y = 1$, $\\max(0, \\text{margin} - x)$ where $y = -1$
    (`F.hinge_embedding_loss`)."""

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return self._loss(F.hinge_embedding_loss, input, target)


class CosineEmbeddingLoss(_MarginLoss):
    """$1 - \\cos(x_1, x_2)$ where $y = 1$, $\\max(0, \\cos(x_1, x_2) - \\text{margin})$
    where $y = -1$ (`F.cosine_embedding_loss`)."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return self._loss(F.cosine_embedding_loss, input1, input2, target)


class SoftMarginLoss(_Loss):
    """$\\ln(1 + e^{-y x})$ (`F.soft_margin_loss`)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """The mean over classes of the weighted binary cross-entropy of $\\sigma(x)$
    (`F.multilabel_soft_margin_loss`)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class MultiLabelMarginLoss(_Loss):
    """Every listed target class a margin of 1 above every other class
    (`F.multilabel_margin_loss`)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss $\\frac1C \\sum_{c \\ne y} w_y \\max(0, \\text{margin} -
    x_y + x_c)^p$ (`F.multi_margin_loss`)."""

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight: Tensor | None = None,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D "
                "instead"
            )
        super().__init__(weight, size_average, reduce, reduction)
        self.p, self.margin = p, margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.multi_margin_loss(
            input, target, p=self.p, margin=self.margin, weight=self.weight,
            reduction=self.reduction,
        )  # fmt: skip


def check_triplet_margin(layer: str, margin: float) -> None:
    if margin <= 0:
        raise ValueError(f"{layer}: expected margin to be greater than 0, got {margin} instead")


class TripletMarginLoss(_Loss):
    """$\\max(0, \\text{margin} + d(a, p) - d(a, n))$ with the `p`-norm distance
    (`F.triplet_margin_loss`)."""

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        check_triplet_margin("TripletMarginLoss", margin)
        super().__init__(size_average, reduce, reduction)
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(
            anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
            swap=self.swap, reduction=self.reduction,
        )  # fmt: skip


class TripletMarginWithDistanceLoss(_Loss):
    """`TripletMarginLoss` with any `distance_function` (a `PairwiseDistance` layer when
    None) (`F.triplet_margin_with_distance_loss`)."""

    def __init__(
        self,
        *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        check_triplet_margin("TripletMarginWithDistanceLoss", margin)
        super().__init__(reduction=reduction)
        self.distance_function = distance_function or PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction,
        )  # fmt: skip
