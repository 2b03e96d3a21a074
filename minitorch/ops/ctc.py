"""The connectionist temporal classification loss (`ctc_loss`): $-\\ln p(l \\mid x)$, the
probability of a target sequence $l$ summed over every alignment of it with the $T$ inputs.

The forward pass is the alpha recursion in log space over the extended target $l'$ ($l$
with a blank before, between and after its labels, $2|l| + 1$ states):
$\\alpha_t(s) = (\\alpha_{t-1}(s) \\oplus \\alpha_{t-1}(s - 1) \\oplus [\\alpha_{t-1}(s - 2)])
+ \\ln y_t(l'_s)$, the last term only where $l'_s$ is a label unlike $l'_{s-2}$ (a blank
may be skipped between different labels), $\\oplus$ the log-sum-exp. All samples of the batch
step together, each frozen after its own input length. Autograd differentiates the
recursion: the gradient is the exact derivative of the loss in `log_probs`.

PyTorch's own backward differs in one term: it adds $e^{\\ln y} \\cdot g$, as if `log_probs`
were normalised by a log-softmax, through which the term cancels; the gradients of logits
fed through `log_softmax` are the same in both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..tensors.creation import full, tensor
from ..tensors.shapes import not_implemented
from .joins import cat, stack
from .loss_helpers import reduction_of
from .losses import check_reduction
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor

NEG_INF = float("-inf")


def log_add(*terms: Tensor) -> Tensor:
    """$\\ln \\sum_k e^{x_k}$ elementwise, $-\\infty$ where every term is, with gradient 0
    there (not the nan of $0 \\cdot \\infty$): unreachable states pass no gradient."""
    stacked = stack(terms)
    top = stacked.amax(0).detach()
    reachable = top > NEG_INF
    shift = top.where(reachable, 0.0)
    total = (stacked - shift).exp().sum(0).where(reachable, 1.0)
    return (shift + total.log()).where(reachable, NEG_INF)


def lengths_of(lengths, batch: int, name: str) -> list[int]:
    """A batch's lengths (a tensor, a number or a sequence) as ints, one per sample."""
    values = lengths.reshape(-1).tolist() if hasattr(lengths, "tolist") else lengths
    values = [int(values)] if isinstance(values, (int, float)) else [int(v) for v in values]
    if len(values) != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return values


def target_rows(targets: Tensor, target_lengths: list[int], batch: int) -> list[list[int]]:
    """Each sample's labels: rows of a padded (N, S) `targets`, or consecutive runs of a
    concatenated 1-D one."""
    values = targets.tolist()
    if targets.ndim == 2:
        longest = max(target_lengths, default=0)
        if targets.shape[1] < longest:
            raise RuntimeError(
                f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for "
                "ctc_loss_allocate_outputs)"
            )
        return [values[n][: target_lengths[n]] for n in range(batch)]
    if sum(target_lengths) != len(values):
        raise RuntimeError(
            f"Expected tensor to have size {sum(target_lengths)} at dimension 0, but got size "
            f"{len(values)} for argument #2 'targets' (while checking arguments for "
            "ctc_loss_allocate_outputs)"
        )
    rows, start = [], 0
    for length in target_lengths:
        rows.append(values[start : start + length])
        start += length
    return rows


def extended_labels(rows: list[list[int]], blank: int) -> tuple[list, list]:
    """$l'$ for every sample, padded with blanks to one width, and where each state may be
    reached by skipping the blank before it."""
    width = 2 * max((len(r) for r in rows), default=0) + 1
    labels, skips = [], []
    for row in rows:
        extended = [blank] * width
        extended[1 : 2 * len(row) : 2] = row
        labels.append(extended)
        skips.append(
            [s % 2 == 1 and s >= 2 and extended[s] != extended[s - 2] for s in range(width)]
        )
    return labels, skips


def negative_log_likelihoods(log_probs: Tensor, rows, input_lengths, blank: int) -> Tensor:
    """$-\\ln p(l_n \\mid x_n)$ for each sample of (T, N, C) `log_probs`."""
    steps, batch, _ = log_probs.shape
    device, dtype = log_probs.device, log_probs.dtype
    labels, skips = extended_labels(rows, blank)
    width = len(labels[0])
    index = tensor(labels, dtype=dtypes.int64, device=device)
    emissions = log_probs.gather(2, index.unsqueeze(0).expand(steps, batch, width))
    skip = tensor(skips, dtype=dtypes.bool_, device=device)
    ends = [2 * len(row) for row in rows]
    states = tensor([list(range(width))] * batch, device=device)
    lengths = tensor(input_lengths, device=device).unsqueeze(1)
    # after no input, only the first state is reached (with probability 1)
    nothing = full((batch, width), 0.0, dtype=dtype, device=device).where(states == 0, NEG_INF)
    alpha = emissions[0].where(states < 2, NEG_INF).where(lengths > 0, nothing)
    one_gap = full((batch, 1), NEG_INF, dtype=dtype, device=device)
    two_gaps = full((batch, 2), NEG_INF, dtype=dtype, device=device)
    for t in range(1, steps):
        stay, advance = alpha, cat([one_gap, alpha[:, :-1]], 1)
        jump = cat([two_gaps, alpha[:, :-2]], 1).where(skip, NEG_INF)
        alpha = (log_add(stay, advance, jump) + emissions[t]).where(t < lengths, alpha)
    last = tensor(ends, device=device).unsqueeze(1)
    before = (last - 1).clamp(min=0)
    final = alpha.gather(1, last).squeeze(1)
    penultimate = alpha.gather(1, before).squeeze(1).where(last.squeeze(1) > 0, NEG_INF)
    return -log_add(final, penultimate)


def ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    """The loss of (T, N, C) or unbatched (T, C) `log_probs` (see the module docstring)."""
    if log_probs.ndim not in (2, 3):
        raise RuntimeError(
            f"ctc_loss(): log_probs must be 2-D (T, C) or 3-D (T, N, C), got {log_probs.ndim}-D"
        )
    if not log_probs.dtype.is_floating_point:
        raise not_implemented("ctc_loss_cpu", log_probs.dtype)
    batched = log_probs.ndim == 3
    if not batched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0)
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    input_lengths = lengths_of(input_lengths, batch, "input_lengths")
    target_lengths = lengths_of(target_lengths, batch, "target_lengths")
    for length in input_lengths:
        if length > steps:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {steps}, but got value {length} "
                "(while checking arguments for ctc_loss_allocate_outputs)"
            )
    rows = target_rows(targets, target_lengths, batch)
    losses = negative_log_likelihoods(log_probs, rows, input_lengths, blank)
    if zero_infinity:
        losses = losses.where(losses != float("inf"), 0.0)
    if reduction == "mean":
        divisors = tensor([max(n, 1) for n in target_lengths], dtype=losses.dtype)
        return (losses / divisors.to(losses.device)).mean()
    if reduction == "sum":
        return losses.sum()
    return losses if batched else losses.squeeze(0)


@public(torch=False, method=False, functional=True)
def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """$-\\ln p(l \\mid x)$ over every alignment of each target $l$ with its inputs, from
    (T, N, C) (or (T, C)) log-probabilities; `targets` padded (N, S) or concatenated 1-D;
    "mean" divides each loss by its target length, then averages; `zero_infinity` makes the
    loss (and gradient) of an impossible alignment 0."""
    check_reduction(reduction)
    return ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)


@public("ctc_loss", method=False)
def torch_ctc_loss(
    log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False
) -> Tensor:
    """`nn.functional.ctc_loss` with PyTorch's enumerated `reduction`."""
    return ctc(
        log_probs, targets, input_lengths, target_lengths, blank, reduction_of(reduction),
        zero_infinity,
    )  # fmt: skip
