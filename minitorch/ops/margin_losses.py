"""Margin losses: a penalty once a score, a similarity or a distance is on the wrong side of
a margin, as in `torch.nn.functional` (`margin_ranking_loss`, `hinge_embedding_loss`,
`soft_margin_loss`, `multilabel_soft_margin_loss`, `multilabel_margin_loss`,
`multi_margin_loss`, `cosine_embedding_loss`, `triplet_margin_loss`,
`triplet_margin_with_distance_loss`).

Each is composed from tensor operations, so autograd differentiates it. The
`nn.functional` forms take PyTorch's `reduction` names (and its deprecated `size_average`
and `reduce`); the `minitorch.*` forms, as `torch.*`'s, take its enumeration (0 none, 1 mean,
2 sum).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..tensors.creation import arange
from ..tensors.shapes import not_implemented
from .comparisons import minimum
from .distances import pairwise_distance
from .loss_helpers import functional_reduction, reduction_of
from .losses import check_reduction, reduce_loss
from .public import public

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._tensor import Tensor


def log_sigmoid(z: Tensor) -> Tensor:
    """$\\ln \\sigma(z) = \\min(z, 0) - \\ln(1 + e^{-|z|})$, finite for every $z$."""
    return z.clamp(max=0.0) - (-z.abs()).exp().log1p()


# ---------------------------------------------------------------------------
# Losses of a score and a +1/-1 label
# ---------------------------------------------------------------------------


def ranking(input1: Tensor, input2: Tensor, target: Tensor, margin: float, reduction: str):
    """$\\max(0, -y (x_1 - x_2) + \\text{margin})$"""
    return reduce_loss((-target * (input1 - input2) + margin).clamp(min=0.0), reduction)


def check_ranking_dims(input1: Tensor, input2: Tensor, target: Tensor) -> None:
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )


def pair_loss(name: str, loss: Callable, doc: str, check: Callable | None = None) -> tuple:
    """The `nn.functional.<name>(input1, input2, target, margin, ...)` form of `loss` (its
    `reduction` a name, inputs passed to `check` first) and its `minitorch.<name>` form (its
    `reduction` PyTorch's enumeration)."""

    def functional(
        input1: Tensor,
        input2: Tensor,
        target: Tensor,
        margin: float = 0,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> Tensor:
        reduction = functional_reduction(size_average, reduce, reduction)
        if check is not None:
            check(input1, input2, target)
        return loss(input1, input2, target, margin, reduction)

    def torch_form(input1, input2, target, margin=0.0, reduction=1) -> Tensor:
        return loss(input1, input2, target, margin, reduction_of(reduction))

    functional.__name__ = functional.__qualname__ = name
    functional.__doc__ = doc
    torch_form.__name__ = torch_form.__qualname__ = f"torch_{name}"
    torch_form.__doc__ = f"`nn.functional.{name}` with PyTorch's enumerated `reduction`."
    return (
        public(torch=False, method=False, functional=True)(functional),
        public(name, method=False)(torch_form),
    )


margin_ranking_loss, torch_margin_ranking_loss = pair_loss(
    "margin_ranking_loss",
    ranking,
    """$\\max(0, -y (x_1 - x_2) + \\text{margin})$: $x_1$ should rank above $x_2$ where
    $y = 1$, below where $y = -1$.""",
    check_ranking_dims,
)


def hinge(input: Tensor, target: Tensor, margin: float, reduction: str) -> Tensor:  # noqa: A002
    """$x$ where $y = 1$, $\\max(0, \\text{margin} - x)$ where $y = -1$"""
    below = (margin - input).clamp(min=0.0).where(target != 1, 0.0)
    return reduce_loss(below + input.where(target != -1, 0.0), reduction)


@public(torch=False, method=False, functional=True)
def hinge_embedding_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    margin: float = 1.0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """$x$ where $y = 1$ and $\\max(0, \\text{margin} - x)$ where $y = -1$, for distances
    $x$ of pairs labelled similar (1) or not (-1)."""
    return hinge(input, target, margin, functional_reduction(size_average, reduce, reduction))


@public("hinge_embedding_loss", method=False)
def torch_hinge_embedding_loss(input, target, margin=1.0, reduction=1) -> Tensor:  # noqa: A002
    """`nn.functional.hinge_embedding_loss` with PyTorch's enumerated `reduction`."""
    return hinge(input, target, margin, reduction_of(reduction))


def labelled_loss(name: str, loss: Callable, doc: str) -> Callable:
    """`nn.functional.<name>(input, target, ...)`: `loss(input, target, reduction)`, the
    `reduction` given by name (or PyTorch's deprecated `size_average` and `reduce`)."""

    def function(
        input: Tensor,  # noqa: A002
        target: Tensor,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> Tensor:
        return loss(input, target, functional_reduction(size_average, reduce, reduction))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return public(torch=False, method=False, functional=True)(function)


soft_margin_loss = labelled_loss(
    "soft_margin_loss",
    lambda x, y, reduction: reduce_loss((-y * x).exp().log1p(), reduction),
    """$\\ln(1 + e^{-y x})$: the logistic loss of scores $x$ for labels $y = \\pm 1$.""",
)


@public(torch=False, method=False, functional=True)
def multilabel_soft_margin_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """$-\\frac1C \\sum_c w_c [y_c \\ln \\sigma(x_c) + (1 - y_c) \\ln \\sigma(-x_c)]$ per
    sample, the classes on the last dimension."""
    if size_average is not None or reduce is not None:
        reduction = functional_reduction(size_average, reduce, reduction)
    losses = -(target * log_sigmoid(input) + (1 - target) * log_sigmoid(-input))
    if weight is not None:
        losses = losses * weight
    class_dim = input.ndim - 1
    losses = losses.sum(class_dim) / input.shape[class_dim]
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not valid")
    return reduce_loss(losses, reduction)


# ---------------------------------------------------------------------------
# Losses of scores for C classes
# ---------------------------------------------------------------------------


def check_class_scores(input: Tensor, name: str) -> tuple[int, int]:  # noqa: A002
    """(samples, classes) of (C) or (N, C) scores, with PyTorch's error for others."""
    if input.ndim > 2 or (input.ndim >= 1 and input.shape[-1] == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )
    if not input.dtype.is_floating_point:
        raise not_implemented(name, input.dtype)
    samples = input.shape[0] if input.ndim == 2 else 1
    return samples, (input.shape[-1] if input.ndim else 1)


def check_long_target(target: Tensor) -> None:
    if target.dtype is not dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.torch_scalar_name}")


@public(torch=False, method=False, functional=True)
def multi_margin_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """$\\frac1C \\sum_{c \\ne y} w_y \\max(0, \\text{margin} - x_y + x_c)^p$ per sample, for
    class indices $y$ and $p$ = 1 or 2 (the multi-class hinge loss).

    An empty batch reduces as any empty tensor: mean nan, sum 0 (PyTorch's are unset
    numbers).
    """
    reduction = functional_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    samples, count = check_class_scores(input, "multi_margin_loss_cpu_kernel")
    check_long_target(target)
    if target.ndim > 1 or target.numel() != samples:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{samples}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if weight is not None and weight.numel() != count:
        raise RuntimeError(
            f"inconsistent weight size, expected {count} but got {list(weight.shape)}"
        )
    if target.numel() and ((target < 0) | (target >= count)).any().item():
        raise RuntimeError("target out of range")
    scores = input.reshape(samples, count)
    classes = target.reshape(samples, 1)
    others = classes != arange(count, device=input.device)
    hinge = (margin - scores.gather(1, classes) + scores).clamp(min=0.0)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * weight[classes.reshape(-1)].reshape(samples, 1)
    losses = hinge.where(others, 0.0).sum(1) / count
    if reduction == "none" and target.ndim == 0:
        losses = losses.reshape(())
    return reduce_loss(losses, reduction)


def multilabel_margin(input: Tensor, target: Tensor, reduction: str) -> Tensor:  # noqa: A002
    """`multilabel_margin_loss` of a reduction given by name"""
    samples, count = check_class_scores(input, "multilabel_margin_loss_forward_out_frame")
    check_long_target(target)
    if (input.ndim <= 1 and (target.ndim > 1 or target.numel() != count)) or (
        input.ndim == 2 and tuple(target.shape) != tuple(input.shape)
    ):
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    if target.numel() and ((target < -1) | (target >= count)).any().item():
        raise RuntimeError("argument #2 'target' is out of range")
    scores = input.reshape(samples, count)
    labels = target.reshape(samples, count)
    listed = (labels != -1).long().cumprod(1).bool()  # the entries before the first -1
    classes = arange(count, device=input.device)
    chosen = ((labels.unsqueeze(2) == classes) & listed.unsqueeze(2)).any(1)
    picked = scores.gather(1, labels.clamp(min=0))
    hinge = (1 - picked.unsqueeze(2) + scores.unsqueeze(1)).clamp(min=0.0)
    counted = listed.unsqueeze(2) & ~chosen.unsqueeze(1)
    losses = hinge.where(counted, 0.0).sum((1, 2)) / count
    if input.ndim <= 1:
        losses = losses.reshape(())
    return reduce_loss(losses, reduction)


multilabel_margin_loss = labelled_loss(
    "multilabel_margin_loss",
    multilabel_margin,
    """$\\frac1C \\sum_{j} \\sum_{c \\notin y} \\max(0, 1 - (x_{y_j} - x_c))$ per sample:
    every target class $y_j$ should score a margin of 1 above every other class. `target`
    has the shape of `input` and lists the target classes before its first $-1$. An empty
    batch reduces as any empty tensor: mean nan, sum 0 (PyTorch's are unset numbers).""",
)


# ---------------------------------------------------------------------------
# Losses of embeddings: cosine similarity, triplets
# ---------------------------------------------------------------------------


def cosine_embedding(input1, input2, target, margin: float, reduction: str) -> Tensor:
    """$1 - \\cos(x_1, x_2)$ where $y = 1$, $\\max(0, \\cos(x_1, x_2) - \\text{margin})$
    where $y = -1$; $\\cos$ with $10^{-12}$ added to each squared norm."""
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    wanted = 2 if target.ndim == 1 else 1
    if input1.ndim != wanted or input2.ndim != wanted:
        raise RuntimeError(
            f"{target.ndim}D target tensor expects {wanted}D input tensors, but found inputs "
            f"with sizes {list(input1.shape)} and {list(input2.shape)}."
        )
    dim = target.ndim
    products = (input1 * input2).sum(dim)
    squares1 = (input1 * input1).sum(dim) + 1e-12
    squares2 = (input2 * input2).sum(dim) + 1e-12
    cos = products / (squares1 * squares2).sqrt()
    similar = (1 - cos).where(target == 1, 0.0)
    dissimilar = (cos - margin).clamp(min=0.0).where(target == -1, 0.0)
    return reduce_loss(similar + dissimilar, reduction)


cosine_embedding_loss, torch_cosine_embedding_loss = pair_loss(
    "cosine_embedding_loss",
    cosine_embedding,
    """$1 - \\cos(x_1, x_2)$ for pairs labelled similar ($y = 1$),
    $\\max(0, \\cos(x_1, x_2) - \\text{margin})$ for pairs labelled dissimilar ($y = -1$).""",
)


def triplet(anchor, positive, negative, margin, distance: Callable, swap: bool, reduction):
    """$\\max(0, \\text{margin} + d(a, p) - d(a, n))$, $d(a, n)$ replaced by
    $\\min(d(a, n), d(p, n))$ when `swap`."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs"
        )
    to_positive, to_negative = distance(anchor, positive), distance(anchor, negative)
    if swap:
        to_negative = minimum(to_negative, distance(positive, negative))
    return reduce_loss((margin + to_positive - to_negative).clamp(min=0.0), reduction)


def p_distance(p: float, eps: float) -> Callable:
    return lambda x1, x2: pairwise_distance(x1, x2, p, eps)


@public(torch=False, method=False, functional=True)
def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """$\\max(0, \\text{margin} + d(a, p) - d(a, n))$ with $d$ the `pairwise_distance` of
    norm `p`: the anchor should be nearer the positive than the negative by the margin."""
    reduction = functional_reduction(size_average, reduce, reduction)
    return triplet(anchor, positive, negative, margin, p_distance(p, eps), swap, reduction)


@public("triplet_margin_loss", method=False)
def torch_triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1
) -> Tensor:
    """`nn.functional.triplet_margin_loss` with PyTorch's enumerated `reduction`."""
    distance = p_distance(p, eps)
    return triplet(anchor, positive, negative, margin, distance, swap, reduction_of(reduction))


@public(torch=False, method=False, functional=True)
def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """`triplet_margin_loss` with any `distance_function` $d$ (`pairwise_distance` when
    None)."""
    check_reduction(reduction)
    distance = distance_function or pairwise_distance
    return triplet(anchor, positive, negative, margin, distance, swap, reduction)
