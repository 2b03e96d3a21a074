"""`AdaptiveLogSoftmaxWithLoss`: a softmax over many classes split by frequency, as in
`torch.nn.AdaptiveLogSoftmaxWithLoss` (Grave et al., efficient softmax approximation).

The head scores the `cutoffs[0]` most frequent classes and one entry per cluster of the
others; cluster $k$ has its own two-layer tail, of width `in_features // div_value**(k+1)`.
$\\ln p(c) = \\ln p_\\text{head}(c)$ for a class of the shortlist, else
$\\ln p_\\text{head}(k) + \\ln p_k(c)$ for the cluster $k$ that holds it.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

from ..._tensor import Tensor
from ...ops.joins import cat
from .. import functional as F
from ..module import Module
from .container import ModuleList, Sequential
from .linear import Linear

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """$\\ln p(\\text{target} \\mid x)$ for each sample (`output`) and the mean negative,
    `loss`; `log_prob` gives every class's, `predict` the most likely class."""

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Sequence[int],
        div_value: float = 4.0,
        head_bias: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        factory = {"device": device, "dtype": dtype}
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // div_value ** (i + 1))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **factory),
                    Linear(hidden, size, bias=False, **factory),
                )
            )

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for first, second in self.tail:
            first.reset_parameters()
            second.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input_.dim() != 2:
                raise RuntimeError(
                    "1D target tensor expects 2D input tensors, but found inputs with size "
                    f"{input_.size()}"
                )
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(
                    "0D target tensor expects 1D input tensors, but found inputs with size "
                    f"{input_.size()}"
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)  # noqa: A001
        target = target_ if batched else target_.unsqueeze(0)
        if target.numel() and (target.min().item() < 0 or target.max().item() >= self.n_classes):
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        # the cluster of each target: 0 for the shortlist, k for the k-th tail
        cluster = sum((target >= c).long() for c in self.cutoffs[:-1])
        head_index = target.where(cluster == 0, cluster + (self.shortlist_size - 1))
        head = F.log_softmax(self.head(input), dim=1)
        output = head.gather(1, head_index.unsqueeze(1)).squeeze(1)
        for k in range(1, self.n_clusters + 1):
            member = cluster == k
            if not member.any().item():
                continue
            low = self.cutoffs[k - 1]
            local = F.log_softmax(self.tail[k - 1](input), dim=1)
            relative = (target - low).clamp(0, self.cutoffs[k] - low - 1)
            picked = local.gather(1, relative.unsqueeze(1)).squeeze(1)
            output = output + picked.where(member, 0.0)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:  # noqa: A002
        head = F.log_softmax(head_output, dim=1)
        parts = [head[:, : self.shortlist_size]]
        for k, tail in enumerate(self.tail):
            cluster = head[:, self.shortlist_size + k].unsqueeze(1)
            parts.append(F.log_softmax(tail(input), dim=1) + cluster)
        return cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:  # noqa: A002
        """$\\ln p(c \\mid x)$ of every class $c$, (N, n_classes)."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:  # noqa: A002
        """The most likely class of each sample: the head's argmax where it is a shortlist
        class, else the argmax of every class's log-probability."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        outside = output >= self.shortlist_size
        if not outside.any().item():
            return output
        full = self._get_full_log_prob(input, head_output).argmax(dim=1)
        return full.where(outside, output)
