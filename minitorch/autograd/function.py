"""`Function`: a differentiable operation, its forward and backward side by side.

Every operation of `minitorch.ops` is a subclass, and so are the operations
users write, as with `torch.autograd.Function`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..tensors.base import TensorBase
from .grad_mode import is_grad_enabled, no_grad
from .graph import GraphContext, record

if TYPE_CHECKING:
    from .._tensor import Tensor


class Function:
    """A differentiable operation: `forward` and `backward` side by side.

    `Fn.apply(*inputs, **params)` runs `Fn.forward(ctx, *inputs, **params)`.
    Positional inputs are what gradients flow into (tensors, or numbers that
    get none); keyword params are settings (a dim, a shape). When grad mode is
    on and an input requires grad, `apply` records a node named
    `Fn.node_name(...)` as the output's `grad_fn`. Its `Fn.backward(ctx, grad)`
    returns one gradient per positional input (None where none flows); the
    autograd layer sums each over the dims its input was broadcast along.
    """

    @staticmethod
    def forward(ctx: GraphContext, *inputs, **params):
        raise NotImplementedError

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor):
        raise NotImplementedError

    @classmethod
    def node_name(cls, *inputs, **params) -> str:
        """PyTorch's name for this operation's node.

        PyTorch names the nodes of its own operations `AddBackward0`, ... and
        those of Functions its users define `CubeBackward` (no number).
        """
        in_minitorch = cls.__module__.partition(".")[0] == __package__.partition(".")[0]
        return cls.__name__ + ("Backward0" if in_minitorch else "Backward")

    @classmethod
    def apply(cls, *inputs, **params):
        ctx = GraphContext()
        ctx.needs_input_grad = tuple(
            [isinstance(x, TensorBase) and x.requires_grad for x in inputs]
        )
        recording = True in ctx.needs_input_grad and is_grad_enabled()
        if not recording:
            ctx.no_grad = True  # no backward will run: nothing needs saving
            return cls.forward(ctx, *inputs, **params)
        with no_grad():  # the steps inside forward are not recorded on their own
            output = cls.forward(ctx, *inputs, **params)
        result = output[0] if isinstance(output, tuple) else output
        if result.dtype.is_floating_point:  # integer and bool outputs have no gradient
            record(cls, ctx, inputs, result, cls.node_name(*inputs, **params))
        return output
