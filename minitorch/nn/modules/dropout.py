"""`Dropout`: zero random elements while training, the identity in eval mode."""

from __future__ import annotations

from ..._tensor import Tensor
from ...ops.dropouts import check_p
from .. import functional
from ..module import Module


class DropoutNd(Module):
    """The settings of a dropout: its probability `p` and whether it works in place; its
    forward is `function(input, p, training, inplace)`."""

    function = staticmethod(functional.dropout)

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        check_p(p)
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return type(self).function(input, self.p, self.training, self.inplace)


class Dropout(DropoutNd):
    """Each element zeroed with probability `p` in training, the rest scaled by $1/(1-p)$.

    >>> import minitorch
    >>> minitorch.nn.Dropout(0.3)
    Dropout(p=0.3, inplace=False)
    """
