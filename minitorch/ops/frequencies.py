"""The most frequent value along a dim (`mode`), composed from comparisons and reductions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..backends.tensor_data import normalize_dim
from ..tensors.creation import arange, tensor
from .public import public
from .reductions import ReturnTypes

if TYPE_CHECKING:
    from .._tensor import Tensor


@public()
def mode(a: Tensor, dim: int = -1, keepdim: bool = False) -> ReturnTypes:
    """(values, indices): the value that occurs most often along `dim` (the smallest of
    those tied), and the last index where it occurs; the gradient flows to that element.

    >>> import minitorch
    >>> minitorch.tensor([3, 1, 3, 1, 2]).mode()
    minitorch.return_types.mode(
    values=tensor(1),
    indices=tensor(3))
    """
    d = normalize_dim(dim, max(a.ndim, 1))
    if a.ndim == 0:
        return ReturnTypes("mode", a.clone(), tensor(0, device=a.device))
    if a.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    x = a.detach().movedim(d, -1)
    counts = (x.unsqueeze(-1) == x.unsqueeze(-2)).sum(-1)
    most = counts == counts.amax(-1, keepdim=True)
    value = x.where(most, x.amax(-1, keepdim=True)).amin(-1, keepdim=True)
    positions = arange(x.shape[-1], device=a.device)
    index = positions.where(x == value, -1).amax(-1, keepdim=True)
    values = a.movedim(d, -1).gather(-1, index).movedim(-1, d)
    index = index.movedim(-1, d)
    if not keepdim:
        values, index = values.squeeze(d), index.squeeze(d)
    return ReturnTypes("mode", values, index)
