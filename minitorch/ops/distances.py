"""Distances and similarities between vectors: `cosine_similarity`, `pairwise_distance`,
`pdist`, each public as `minitorch.<name>` and `nn.functional.<name>`.

They are composed from norms and arithmetic, so autograd differentiates them; the checks of
their arguments are PyTorch's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dtypes import result_type
from .layouts import broadcast_tensors, triu_indices
from .loss_helpers import clamp_min_unseen
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


def clamped_norm(x: Tensor, dim: int, eps: float) -> Tensor:
    """$\\max(\\lVert x \\rVert_2, \\epsilon)$ along `dim` (kept), with the norm's gradient."""
    return clamp_min_unseen(x.norm(2, dim, keepdim=True), eps)


@public(method=False, functional=True)
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """$\\sum_d \\frac{x_1}{\\max(\\lVert x_1 \\rVert, \\epsilon)}
    \\frac{x_2}{\\max(\\lVert x_2 \\rVert, \\epsilon)}$ along `dim`, of `x1` and `x2`
    broadcast to one shape (each normalised first, so the value stays in $[-1, 1]$).

    >>> import minitorch
    >>> minitorch.cosine_similarity(minitorch.tensor([[1.0, 0.0]]), minitorch.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    common = result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(
            "expected common dtype to be floating point, yet common dtype is "
            f"{common.torch_scalar_name}"
        )
    x1, x2 = broadcast_tensors(x1.to(common), x2.to(common))
    return ((x1 / clamped_norm(x1, dim, eps)) * (x2 / clamped_norm(x2, dim, eps))).sum(dim)


@public(method=False, functional=True)
def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """$\\lVert x_1 - x_2 + \\epsilon \\rVert_p$ along the last dimension of the broadcast
    shape (PyTorch adds $\\epsilon$ to every difference, keeping the norm differentiable).

    >>> import minitorch
    >>> minitorch.pairwise_distance(minitorch.tensor([[3.0, 0.0]]), minitorch.zeros(1, 2), eps=0)
    tensor([3.])
    """
    last = max(x1.ndim, x2.ndim) - 1
    return (x1 - x2 + eps).norm(p, last, keepdim=keepdim)


@public(method=False, functional=True)
def pdist(input: Tensor, p: float = 2) -> Tensor:  # noqa: A002
    """$\\lVert x_i - x_j \\rVert_p$ for every pair of rows $i < j$ of a 2-D `input`, in row
    order: the upper triangle of the distance matrix, $n (n - 1) / 2$ values.

    >>> import minitorch
    >>> minitorch.pdist(minitorch.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
    tensor([5.0000, 1.0000, 4.2426])
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows = input.shape[0]
    pairs = triu_indices(rows, rows, 1, device=input.device)
    return (input[pairs[0]] - input[pairs[1]]).norm(p, 1)
