"""`Function`: a differentiable operation, its forward and backward side by side.

Every operation of `minitorch.ops` is a subclass, and so are the operations
users write, as with `torch.autograd.Function`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..tensors.base import TensorBase
from ..tensors.dual import dual_state
from .forward_ad import apply_with_tangents
from .grad_mode import _state
from .nodes import GraphContext, record

if TYPE_CHECKING:
    from .._tensor import Tensor


class Function:
    """A differentiable operation: `forward` and `backward` side by side.

    `Fn.apply(*inputs, **params)` runs `Fn.forward(ctx, *inputs, **params)`
    (or, PyTorch 2 style, `Fn.forward(*inputs, **params)` then
    `Fn.setup_context(ctx, inputs, output)` when the class defines `setup_context`).
    Positional inputs are what gradients flow into (tensors, or numbers that
    get none); keyword params are settings (a dim, a shape). When grad mode is
    on and an input requires grad, `apply` records a node named
    `Fn.node_name(...)` as the output's `grad_fn`. Its `Fn.backward(ctx, grad)`
    returns one gradient per positional input (None where none flows); the
    autograd layer sums each over the dims its input was broadcast along.

    A forward may return a tuple: its floating-point tensors (less those
    given to `ctx.mark_non_differentiable`) share one node, and backward gets
    one gradient per element of the tuple (zeros where none flowed, or None
    after `ctx.set_materialize_grads(False)`, and None for non-tensors).
    """

    # True where backward calls kernels directly: with create_graph=True its gradients
    # then raise when differentiated again, where they would give a wrong second derivative
    once_differentiable = False
    # True for a Function of minitorch whose tuple of outputs is differentiated element by
    # element, as users' Functions are (minitorch's own operations that return a tuple,
    # `(values, indices)`, differentiate only the first)
    several_outputs = False

    @staticmethod
    def forward(ctx: GraphContext, *inputs, **params):
        raise NotImplementedError

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor):
        raise NotImplementedError

    @staticmethod
    def setup_context(ctx: GraphContext, inputs: tuple, output) -> None:
        """PyTorch 2 style: save for backward what `forward(*inputs)` (without ctx) gave."""
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
        if _state.profiler is not None or dual_state.level is not None:
            return run_with_hooks(cls, inputs, params)
        for x in inputs:  # run_and_record's test, without making its tuple
            if isinstance(x, TensorBase) and (x._requires_grad or x.grad_fn is not None):
                return cls.run_and_record(*inputs, **params)
        # No input requires grad (the common case: inference, optimizer steps, data), so no
        # node: forward runs here, two Python calls sooner than through run_and_record
        if cls.setup_context is Function.setup_context:
            return cls.forward(_no_node_contexts[len(inputs)](), *inputs, **params)
        return run_without_node(cls, inputs, params, (False,) * len(inputs))

    @classmethod
    def run_and_record(cls, *inputs, **params):
        """`forward`, then the graph node when grad mode is on and an input needs grad."""
        # a tensor requires grad when it is a leaf that asked to or has a grad_fn (read
        # off the slots: this runs for every operation)
        needs = tuple(
            [isinstance(x, TensorBase) and (x._requires_grad or x.grad_fn is not None)
             for x in inputs]
        )  # fmt: skip
        if not (_state.enabled and True in needs):  # nothing to record
            return run_without_node(cls, inputs, params, needs)
        ctx = GraphContext()
        ctx.needs_input_grad = needs
        pytorch2_style = cls.setup_context is not Function.setup_context
        _state.enabled = False  # the steps inside forward are not recorded on their own
        try:
            if pytorch2_style:
                output = cls.forward(*inputs, **params)
                cls.setup_context(ctx, inputs, output)
            else:
                output = cls.forward(ctx, *inputs, **params)
        finally:
            _state.enabled = True  # as it was: recording needs grad mode on
        name = cls.node_name(*inputs, **params)
        own = cls.__module__.partition(".")[0] == __package__.partition(".")[0]
        if not own:
            check_saved(ctx.saved_values)
        if not isinstance(output, tuple):
            marked = any(output is t for t in ctx.non_differentiable)
            if output.dtype.is_floating_point and not marked:  # integers have no gradient
                record(cls, ctx, inputs, output, name)
            return output
        if own and not cls.several_outputs:
            if output[0].dtype.is_floating_point:  # minitorch's own: (values, indices)
                record(cls, ctx, inputs, output[0], name)
            return output
        excluded = {id(t) for t in ctx.non_differentiable}
        differentiable = [
            t
            for t in output
            if isinstance(t, TensorBase) and t.dtype.is_floating_point and id(t) not in excluded
        ]
        if differentiable:
            record(cls, ctx, inputs, list(output), name, differentiable)
        return output


class NoNodeContext(GraphContext):
    """The ctx of a forward that records no node: it saves nothing, since no backward runs."""

    no_grad = True


class _ContextClasses(dict):
    """Number of inputs -> the subclass of `NoNodeContext` whose `needs_input_grad` says that
    none needs grad: the fields are class attributes, so making a ctx sets nothing."""

    def __missing__(self, n_inputs: int) -> type[NoNodeContext]:
        fields = {"needs_input_grad": (False,) * n_inputs}
        made = self[n_inputs] = type("NoNodeContext", (NoNodeContext,), fields)
        return made


_no_node_contexts = _ContextClasses()


def run_without_node(function: type[Function], inputs: tuple, params: dict, needs: tuple):
    """`function`'s forward when no node is recorded: its ctx saves nothing, since no
    backward will run."""
    ctx = GraphContext()
    ctx.no_grad = True
    ctx.needs_input_grad = needs
    if function.setup_context is Function.setup_context:
        return function.forward(ctx, *inputs, **params)
    output = function.forward(*inputs, **params)  # PyTorch 2 style
    function.setup_context(ctx, inputs, output)
    return output


def run_with_hooks(function: type[Function], inputs: tuple, params: dict):
    """`function.apply` inside a profile (the call is timed) or a dual level (the outputs
    get tangents too, unless this runs inside another operation whose tangent is found)."""
    run = function.run_and_record
    if dual_state.level is not None and not dual_state.propagating:

        def run(*xs, **ps):
            return apply_with_tangents(function, xs, ps)

    if _state.profiler is not None:
        return _state.profiler.timed(function.__name__, run, inputs, params)
    return run(*inputs, **params)


def check_saved(values: tuple) -> None:
    """PyTorch's error when a Function's forward saved something other than tensors."""
    for k, v in enumerate(values):
        if v is not None and not isinstance(v, TensorBase):
            raise TypeError(
                f"save_for_backward can only save variables, but argument {k} is of type "
                f"{type(v).__name__}"
            )
