"""`ChannelShuffle`: the channels of each group interleaved (ShuffleNet)."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional
from ..module import Module


class ChannelShuffle(Module):
    """(N, C, *) with its channels split into `groups` and interleaved
    (`functional.channel_shuffle`).

    >>> import minitorch
    >>> minitorch.nn.ChannelShuffle(3)(minitorch.arange(6.0).view(1, 6, 1)).flatten()
    tensor([0., 2., 4., 1., 3., 5.])
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
