"""`ChannelShuffle`: the channels of each group interleaved (ShuffleNet)."""

from __future__ import annotations

from .. import functional
from .function_layer import FunctionLayer


class ChannelShuffle(FunctionLayer):
    """(N, C, *) with its channels split into `groups` and interleaved
    (`functional.channel_shuffle`).

    >>> import minitorch
    >>> minitorch.nn.ChannelShuffle(3)(minitorch.arange(6.0).view(1, 6, 1)).flatten()
    tensor([0., 2., 4., 1., 3., 5.])
    """

    function = staticmethod(functional.channel_shuffle)
    OPTIONS = ("groups",)

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups
