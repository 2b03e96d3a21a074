"""The distance layers of `minitorch.nn`, as in `torch.nn.modules.distance`:
`CosineSimilarity` and `PairwiseDistance`, each calling its `nn.functional` function."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from ..module import Module


class PairwiseDistance(Module):
    """$\\lVert x_1 - x_2 + \\epsilon \\rVert_p$ over the last dimension
    (`F.pairwise_distance`)."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """$\\sum \\hat x_1 \\hat x_2$ along `dim`, each normalised by $\\max(\\lVert x \\rVert,
    \\epsilon)$ (`F.cosine_similarity`)."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
