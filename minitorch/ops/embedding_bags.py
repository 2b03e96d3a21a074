"""Rows of an embedding table picked by index, one by one (`minitorch.embedding`) or
combined in bags (`nn.functional.embedding_bag`: the sum, mean or max of each bag's rows).

Both are composed from `index_select`, comparisons and a matmul, so autograd differentiates
them: the gradient of a row is the sum of the gradients of the positions that picked it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..tensors.creation import arange, tensor
from .joins import cat
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor

MODES = ("sum", "mean", "max")


def check_indices(indices: Tensor, rows: int) -> None:
    """PyTorch's errors for indices that are not integers or not rows of the table (the
    wording of one of its kernels: the others word it differently)."""
    if indices.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {indices.type()} instead (while checking arguments for "
            "embedding_bag)"
        )
    outside = (indices < 0) | (indices >= rows)
    if indices.numel() and outside.any().item():
        first = outside.reshape(-1).long().argmax().item()
        value = indices.reshape(-1)[first].item()
        raise RuntimeError(
            f"Index {first} of input takes value {value} which is not in the valid range "
            f"[0, {rows})"
        )


def picked_rows(weight: Tensor, indices: Tensor, padding_idx: int | None) -> Tensor:
    """`weight[indices]` for 1-D `indices`; the rows picked by `padding_idx` pass no
    gradient (their value is the row's)."""
    rows = weight.index_select(0, indices.long())
    if padding_idx is None:
        return rows
    return rows.where((indices != padding_idx).unsqueeze(1), rows.detach())


@public(method=False)
def embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """`weight[indices]`: a row of `weight` for each index, the row `padding_idx` passing no
    gradient (PyTorch's `torch.embedding`; -1, or any negative index, is no padding).

    >>> import minitorch
    >>> minitorch.embedding(minitorch.eye(3), minitorch.tensor([[2, 0]]))
    tensor([[[0., 0., 1.],
             [1., 0., 0.]]])
    """
    if scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "minitorch's embedding does not support scale_grad_by_freq or sparse"
        )
    if indices.numel() and ((indices < 0) | (indices >= weight.shape[0])).any().item():
        raise IndexError("index out of range in self")
    rows = picked_rows(weight, indices.reshape(-1), padding_idx if padding_idx >= 0 else None)
    return rows.reshape(*indices.shape, weight.shape[1])


def type_name(value) -> str:
    """`str(type(value))`, a tensor's type written as its public name."""
    kind = type(value)
    return "<class 'minitorch.Tensor'>" if kind.__name__ == "Tensor" else str(kind)


def bag_bounds(input: Tensor, offsets, include_last_offset: bool) -> tuple[Tensor, Tensor, Tensor]:  # noqa: A002
    """The 1-D indices and each bag's first and one-past-last position among them."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                "of fixed length sequences. However, found offsets of type "
                f"{type_name(offsets)}"
            )
        bags, length = input.shape
        starts = arange(0, bags * length, max(length, 1), device=input.device)[:bags]
        return input.reshape(-1), starts, starts + length
    if input.ndim != 1:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}"
        )
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    count = input.shape[0]
    bounds = offsets.long()
    if bounds.numel():
        if bounds[0].item() != 0:
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                f"from position 0. However, got {bounds[0].item()}"
            )
        if bounds[-1].item() > count:
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {count} but got "
                f"offsets[-1] of {bounds[-1].item()}"
            )
    if include_last_offset:
        return input, bounds[:-1], bounds[1:]
    end = tensor([count], dtype=dtypes.int64, device=input.device)
    return input, bounds, cat([bounds[1:], end])


@public(torch=False, method=False, functional=True)
def embedding_bag(
    input: Tensor,  # noqa: A002
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """The sum, mean or max of the rows of `weight` in each bag: the rows of a 2-D `input`,
    or the runs of a 1-D `input` that `offsets` start (with the end as its last entry when
    `include_last_offset`). "sum" scales each row by its `per_sample_weights`; indices equal
    to `padding_idx` count for nothing; an empty bag gives zeros.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> table = minitorch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> F.embedding_bag(minitorch.tensor([0, 2, 1]), table, minitorch.tensor([0, 2]), mode="sum")
    tensor([[6., 8.],
            [3., 4.]])
    """
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then "
            f"it must have the same shape as the input ({input.shape})"
        )
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "minitorch's embedding_bag does not support max_norm, scale_grad_by_freq or sparse"
        )
    indices, starts, ends = bag_bounds(input, offsets, include_last_offset)
    if mode not in MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    rows_count = weight.shape[0]
    if padding_idx is not None:
        if not -rows_count <= padding_idx < rows_count:
            raise RuntimeError(
                f"padding_idx must be within the number of embeddings, -{rows_count} through "
                f"{rows_count - 1}, but got {padding_idx}"
            )
        padding_idx %= rows_count
    check_indices(indices, rows_count)
    rows = picked_rows(weight, indices, padding_idx)
    positions = arange(indices.shape[0], device=weight.device)
    member = (positions >= starts.unsqueeze(1)) & (positions < ends.unsqueeze(1))
    if padding_idx is not None:
        member = member & (indices != padding_idx)
    counts = member.sum(1, keepdim=True)
    if mode == "max" and indices.numel():  # no indices at all: every bag is empty, zeros
        scores = rows.unsqueeze(0).where(member.unsqueeze(2), float("-inf")).amax(1)
        return scores.where(counts > 0, 0.0)
    share = member.to(weight.dtype)
    if per_sample_weights is not None:
        share = share * per_sample_weights.reshape(-1)
    total = share @ rows
    return total / counts.clamp(min=1).to(weight.dtype) if mode == "mean" else total
