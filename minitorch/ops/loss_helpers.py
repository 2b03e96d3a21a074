"""What the losses of `margin_losses.py`, `likelihood_losses.py` and `ctc.py` share: PyTorch's
deprecated `size_average`/`reduce` arguments, the integer `reduction` of the `minitorch.*`
forms, and a clamp that autograd does not see.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from .losses import check_reduction

if TYPE_CHECKING:
    from .._tensor import Tensor

# The `reduction` of the `minitorch.*` forms of the losses is PyTorch's enumeration.
REDUCTION_NAMES = {0: "none", 1: "mean", 2: "sum"}


def functional_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """The `reduction` a call means: `reduction` itself, checked, unless the deprecated
    `size_average` or `reduce` is given, which then decides it, with PyTorch's warning."""
    if size_average is None and reduce is None:
        check_reduction(reduction)
        return reduction
    reduce = True if reduce is None else reduce
    size_average = True if size_average is None else size_average
    meant = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{meant}' instead.",
        stacklevel=3,
    )
    return meant


def reduction_of(enum: int) -> str:
    """The reduction named by PyTorch's enumeration: 0 none, 1 mean, 2 sum."""
    if enum not in REDUCTION_NAMES:
        raise RuntimeError(f"{enum} is not a valid value for reduction")
    return REDUCTION_NAMES[enum]


def clamp_min_unseen(x: Tensor, low: float) -> Tensor:
    """$\\max(x, \\text{low})$ in value, with the gradient of $x$ itself: PyTorch clamps such
    terms in place with autograd off (the variance of the Gaussian likelihood, the norms of
    the cosine similarity)."""
    return x + (x.clamp(min=low) - x).detach()
