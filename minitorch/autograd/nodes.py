"""Module 2: the graph a forward records, one node per operation.

When grad mode is on and an input of an operation requires grad,
`Function.apply` (in `function.py`) calls `record`, which makes a *node*: an
object that knows the operation's `backward`, the `Context` its forward saved
(a `GraphContext`, which checks saved tensors' versions), and the nodes of its
inputs (`next_functions`). The output tensor's `grad_fn` is that node; a leaf
tensor that requires grad is represented by an `AccumulateGrad` node that adds
the gradient into its `.grad`. Printing the graph gives PyTorch's names:

>>> import minitorch
>>> x = minitorch.ones(3, requires_grad=True)
>>> y = (x ** 2).sum()
>>> y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()
('SumBackward0', 'PowBackward0')

Nodes implement the `Variable` protocol of `autodiff.py` (`parents`,
`chain_rule`, ...), which `graph.py` walks backward.

`sum_to` undoes broadcasting: the gradient of an input that was broadcast
is summed back to the input's shape before it flows on (`fit_gradient`,
called by `Node.chain_rule` for each input).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..autodiff import Context
from ..tensors import creation
from ..tensors.base import TensorBase, make_tensor
from .anomaly_mode import anomaly, check_backward_results, remember_forward
from .grad_mode import _state
from .hooks import after_accumulation, hooked, leaf_gradient

if TYPE_CHECKING:
    from .._tensor import Tensor


SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class SavedTensor:
    """A tensor saved for backward, with the version it had then.

    An op's own output is saved as a detached alias (same storage and version
    counter, no `grad_fn`), so that node and output do not reference each
    other; `output_of` names the node for the error message, `index` which of
    its outputs it is.
    """

    __slots__ = ("tensor", "version", "output_of", "node", "index")

    def __init__(self, tensor: Tensor, output_of: str | None = None, node=None, index=0) -> None:
        self.tensor = tensor
        self.version = tensor._version
        self.output_of = output_of
        self.node = node  # a weak reference to the node whose output this is
        self.index = index

    def unpack(self) -> Tensor:
        """The saved tensor; torch's error if it was modified in place since.

        While a backward with `create_graph=True` runs, a saved output comes
        back with its node as `grad_fn`, so that what backward computes from
        it is differentiable again.
        """
        if self.tensor._version != self.version:
            node_name = self.output_of
            if node_name is None and self.tensor.grad_fn is not None:
                node_name = self.tensor.grad_fn.name()
            origin = ""
            if node_name is not None:
                operation = re.sub(r"Backward\d*$", "", node_name)
                origin = f", which is output 0 of {operation},"
            shape = ", ".join(str(size) for size in self.tensor.shape)
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{self.tensor.type()} [{shape}]]{origin} is at version "
                f"{self.tensor._version}; expected version {self.version} instead."
            )
        node = None if self.node is None or not _state.enabled else self.node()
        if node is not None and node.outputs is not None:
            return self.output_of_several(node)
        if node is not None:
            alias = make_tensor(
                self.tensor._layout,
                self.tensor.dtype,
                self.tensor.device,
                self.tensor._version_counter,
            )
            alias.grad_fn = node
            return alias
        return self.tensor

    def output_of_several(self, node) -> Tensor:
        """Output `index` of a Function of several outputs, with `node` as `grad_fn`: the
        output itself while it lives, else an alias that the node then knows by that number
        (the node finds its outputs' numbers by identity)."""
        ref, *meta = node.outputs[self.index]
        output = ref() if ref is not None else None
        if output is not None:
            return output
        alias = make_tensor(
            self.tensor._layout, self.tensor.dtype, self.tensor.device, self.tensor._version_counter
        )
        alias.grad_fn = node
        outputs = list(node.outputs)
        outputs[self.index] = (weakref.ref(alias), *meta)
        node.outputs = tuple(outputs)
        return alias


class GraphContext(Context):
    """A `Context` that checks saved tensors' versions and can be freed after backward.

    `needs_input_grad[i]` tells whether input `i` of the forward requires grad,
    so forward can save only what the needed derivatives use.
    """

    needs_input_grad: tuple[bool, ...] = ()
    freed = False
    materialize_grads = True
    non_differentiable: tuple = ()

    def save_for_backward(self, *values: Any) -> None:
        if not self.no_grad:
            self.saved_values = values

    def mark_non_differentiable(self, *outputs: Tensor) -> None:
        """Outputs of forward that get no `grad_fn` (their gradient in backward is zeros)."""
        self.non_differentiable = self.non_differentiable + outputs

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward gets zeros (True, the default) or None for outputs without a
        gradient."""
        self.materialize_grads = value

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        if self.freed:
            raise RuntimeError(SECOND_BACKWARD)
        return tuple(v.unpack() if isinstance(v, SavedTensor) else v for v in self.saved_values)

    def release(self) -> None:
        """Drop the saved tensors; a later backward through this node raises."""
        if self.saved_values:
            self.saved_values = ()
            self.freed = True


class Node:
    """A recorded operation: what PyTorch shows as `grad_fn` (`AddBackward0`, ...).

    `next_functions` holds one `(node, 0)` pair per input of the operation:
    the input's `grad_fn`, its `AccumulateGrad` if it is a leaf that requires
    grad, or None when no gradient flows into it.

    A node is a `Variable` of `autodiff.py`: its parents are its next
    functions and `chain_rule` runs the operation's backward.
    """

    __slots__ = (
        "next_functions",
        "function",
        "ctx",
        "input_meta",
        "retained",
        "outputs",
        "hooks",
        "__weakref__",
    )

    def __init__(self, function, ctx: GraphContext, next_functions, input_meta) -> None:
        self.function = function
        self.ctx = ctx
        self.next_functions = next_functions
        self.input_meta = input_meta
        self.retained = None
        self.hooks = None  # {handle id: (output number, hook)} from register_hook
        # for a Function of several outputs: (weakref, shape, dtype, device) each
        self.outputs = None

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"

    # -- the Variable protocol of autodiff.py --------------------------------

    @property
    def unique_id(self) -> int:
        return id(self)

    @property
    def parents(self) -> Iterable[Node]:
        return [node for node, _ in self.next_functions if node is not None]

    def is_leaf(self) -> bool:
        return False

    def is_constant(self) -> bool:
        return False

    def chain_rule(self, d_output: Tensor) -> list[tuple[Node, Tensor]]:
        """Pairs (input node, gradient for that input) from the operation's backward."""
        if self.hooks is not None:  # register_hook on the tensor(s) this node made
            d_output = self.hooked_gradients(d_output)
        if _state.captured is not None:
            capture(self, d_output)
        if self.retained is not None:  # retain_grad() fills .grad in autograd.grad too
            self.keep_retained(d_output)
        recorder = _state.profiler
        if recorder is not None:  # inside `minitorch.profiler.profile`: timed
            recorder.begin(self.name())
        try:
            if self.outputs is None:
                gradients = self.function.backward(self.ctx, d_output)
            else:
                gradients = self.function.backward(self.ctx, *self.output_gradients(d_output))
        finally:
            if recorder is not None:
                recorder.end()
        if not isinstance(gradients, tuple):
            gradients = (gradients,)
        if anomaly.enabled and anomaly.check_nan:
            check_backward_results(self, gradients)
        if _state.enabled and self.function.once_differentiable:
            gradients = tuple(
                g if g is None else once_differentiable_result(g, self.name()) for g in gradients
            )
        if not _state.retain_graph:
            self.ctx.release()
        pairs = []
        for index, ((node, nr), meta, gradient) in enumerate(
            zip(self.next_functions, self.input_meta, gradients, strict=False)
        ):
            if node is not None and gradient is not None:
                gradient = fit_gradient(gradient, *meta, self.name(), index)
                pairs.append((node, OutputGradients.of(node, nr, gradient)))
        return pairs

    def hooked_gradients(self, d_output):
        """`d_output` after the hooks registered on this node's output tensors."""
        if self.outputs is None:
            return hooked([hook for _, hook in self.hooks.values()], d_output)
        grads = list(d_output.grads)
        for nr, hook in list(self.hooks.values()):
            if grads[nr] is not None:
                grads[nr] = hooked([hook], grads[nr])
        return OutputGradients(grads)

    def keep_retained(self, d_output) -> None:
        """Add the gradient of the tensor that called `retain_grad()` into its `.grad`
        (one output per node: the last of a several-output node's that asked)."""
        retained = self.retained()
        if retained is not None and self.outputs is not None:
            d_output = d_output.grads[self.output_nr(retained)]
        if d_output is not None:
            keep_gradient(retained, d_output)

    def output_gradients(self, d_output: OutputGradients) -> list:
        """One gradient per output of a several-output Function: zeros (or None, if
        the ctx does not materialize grads) for those that got none."""
        grads = list(d_output.grads)
        if self.ctx.materialize_grads:
            for k, (_, shape, dtype, device) in enumerate(self.outputs):
                if grads[k] is None and shape is not None:
                    grads[k] = creation.zeros(shape, dtype=dtype, device=device)
        return grads

    def output_nr(self, t: Tensor) -> int:
        """Which output of this node `t` is (0 for a node of one output)."""
        if self.outputs is not None:
            for k, (ref, *_) in enumerate(self.outputs):
                if ref is not None and ref() is t:
                    return k
        return 0

    def accumulate_derivative(self, d: Tensor) -> None:
        raise RuntimeError(f"{self.name()} is not a leaf: it passes gradients on")


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds incoming gradients to `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor) -> None:
        super().__init__(None, None, (), ())
        self.variable = variable

    def name(self) -> str:
        return "minitorch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def is_leaf(self) -> bool:
        return True

    def accumulate_derivative(self, d: Tensor) -> None:
        d = leaf_gradient(self.variable, d)
        if _state.captured is not None:
            capture(self, d)
        else:
            keep_gradient(self.variable, d)
            after_accumulation(self.variable)


class DelayedError:
    """The node behind a gradient whose backward formula is not itself differentiable
    (an operation with `once_differentiable = True`): differentiating it raises."""

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor):
        raise RuntimeError(
            f"trying to differentiate twice the backward of {ctx.node_name}, which is not "
            "differentiable (it calls kernels directly): its second derivative is not "
            "implemented"
        )


def once_differentiable_result(gradient: Tensor, node_name: str) -> Tensor:
    """`gradient` under `create_graph=True`, with a node that raises if backpropagated
    through: an error, where a silently wrong second derivative would be worse."""
    alias = make_tensor(gradient._layout, gradient.dtype, gradient.device)
    ctx = GraphContext()
    ctx.node_name = node_name
    meta = ((gradient.shape, gradient.dtype),)
    alias.grad_fn = node_class("DelayedError")(DelayedError, ctx, (edge(gradient),), meta)
    return alias


class OutputGradients:
    """The gradients flowing into a node of several outputs, one slot per output.

    Gradients for the same node are summed by `backpropagate` with `+`, slot by slot.
    """

    __slots__ = ("grads",)

    def __init__(self, grads: list) -> None:
        self.grads = grads

    @staticmethod
    def of(node: Node, nr: int, gradient: Tensor):
        """`gradient` as what flows into output `nr` of `node`."""
        if node.outputs is None:
            return gradient
        grads = [None] * len(node.outputs)
        grads[nr] = gradient
        return OutputGradients(grads)

    def __add__(self, other: OutputGradients) -> OutputGradients:
        return OutputGradients(
            [
                a if b is None else b if a is None else a + b
                for a, b in zip(self.grads, other.grads, strict=True)
            ]
        )


def capture(node: Node, d: Tensor) -> None:
    """Inside `autograd.grad`: keep `d` if `node` is one whose gradient was asked for."""
    if id(node) in _state.captured:
        previous = _state.captured[id(node)]
        _state.captured[id(node)] = d if previous is None else previous + d


def keep_gradient(tensor: Tensor | None, d: Tensor) -> None:
    """Add `d` to `tensor.grad` (a fresh copy the first time, so no two grads alias)."""
    if tensor is None:
        return
    if tensor._grad is None:
        tensor._grad = d.clone() if d.dtype is tensor.dtype else d.to(tensor.dtype)
    else:
        tensor._grad.add_(d)


_node_classes: dict[str, type[Node]] = {}


def node_class(name: str) -> type[Node]:
    """The node class called `name` (`MulBackward0`, ...), made once and cached.

    A qualified name (`minitorch::autograd::CopySlices`) is what `name()`
    returns; the class (and `repr`) use its last part, as PyTorch does.
    """
    cls = _node_classes.get(name)
    if cls is None:
        members = {"__slots__": (), "name": lambda self: name}
        cls = _node_classes[name] = type(name.split("::")[-1], (Node,), members)
    return cls


def gradient_edge(t: Tensor) -> Node | None:
    """The node a gradient for `t` flows into: its grad_fn, its AccumulateGrad, or None."""
    if t.grad_fn is not None:
        return t.grad_fn
    if not t._requires_grad:
        return None
    accumulator = t._grad_accumulator() if t._grad_accumulator is not None else None
    if accumulator is None:
        accumulator = AccumulateGrad(t)
        t._grad_accumulator = weakref.ref(accumulator)
    return accumulator


def edge(t: Tensor) -> tuple[Node | None, int]:
    """`(node, output number)`: where a gradient for `t` flows."""
    node = gradient_edge(t)
    return node, 0 if node is None else node.output_nr(t)


def record(
    function,
    ctx: GraphContext,
    inputs: tuple,
    output: Tensor | list,
    name: str,
    differentiable: list | None = None,
) -> None:
    """Make `output.grad_fn` a `name` node over `inputs` (tensors and numbers).

    `output` may be the list of what a Function of several outputs returned:
    then its `differentiable` tensors all get the same node (each its own
    output number) and backward gets one gradient per element of the list.
    """
    edges, meta = [], []
    for x in inputs:
        if isinstance(x, TensorBase):
            edges.append(edge(x))
            meta.append((x._layout.shape, x.dtype))
        else:
            edges.append((None, 0))
            meta.append(None)
    node = node_class(name)(function, ctx, tuple(edges), tuple(meta))
    outputs = [output] if differentiable is None else differentiable
    if differentiable is not None:
        node.outputs = tuple(
            (weakref.ref(t), t.shape, t.dtype, t.device)
            if isinstance(t, TensorBase)
            else (None, None, None, None)
            for t in output
        )
    for v in ctx.saved_values:
        if isinstance(v, TensorBase) and v._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or "
                "use `minitorch.no_grad()` instead of `minitorch.inference_mode()`."
            )
    ctx.saved_values = tuple(
        saved_form(v, outputs, node) if isinstance(v, TensorBase) else v for v in ctx.saved_values
    )
    if anomaly.enabled:
        remember_forward(node)
    for t in outputs:
        t.grad_fn = node


def saved_form(t: Tensor, outputs: list, node: Node) -> SavedTensor:
    """How forward's saved tensor `t` is kept: its own output as an alias without history
    (and a weak reference to the node, for `create_graph`)."""
    if any(t is out for out in outputs):
        alias = make_tensor(t._layout, t.dtype, t.device, t._version_counter)
        if node.outputs is None:
            return SavedTensor(alias, node.name(), weakref.ref(node))
        index = next(
            k for k, (ref, *_) in enumerate(node.outputs) if ref is not None and ref() is t
        )
        return SavedTensor(alias, node.name(), weakref.ref(node), index)
    return SavedTensor(t)


def fit_gradient(gradient: Tensor, shape, dtype, node_name: str, index: int) -> Tensor:
    """`gradient` summed over broadcast dims down to `shape` and cast to `dtype`.

    A backward must return, for input `index`, a gradient of the input's shape
    or of a shape the input broadcasts to; anything else is a bug in that
    backward, reported with PyTorch's message (never reshaped to fit).
    """
    shape = tuple(shape)
    if tuple(gradient.shape) != shape:
        if not broadcasts_to(shape, tuple(gradient.shape)):
            raise RuntimeError(
                f"Function {node_name} returned an invalid gradient at index {index} - got "
                f"{list(gradient.shape)} but expected shape compatible with {list(shape)}"
            )
        gradient = sum_to(gradient, shape)
    return gradient if gradient.dtype is dtype else gradient.to(dtype)


def broadcasts_to(shape: tuple, target: tuple) -> bool:
    """Whether `shape` expands to `target` (aligned on the right, sizes equal or 1)."""
    if len(shape) > len(target):
        return False
    aligned = target[len(target) - len(shape) :]
    return all(size in (1, wanted) for size, wanted in zip(shape, aligned, strict=True))


def sum_to(grad: Tensor, shape: tuple) -> Tensor:
    """Undo broadcasting: sum `grad` down to `shape` (the shape of an input that was broadcast).

    An input element read by several output elements (a size-1 or missing
    dimension, repeated) collects the sum of their gradients:
    $\\partial L / \\partial a_j = \\sum_{i \\text{ reading } a_j} \\partial L / \\partial out_i$.

    >>> import minitorch
    >>> sum_to(minitorch.ones(2, 3), (3,))
    tensor([2., 2., 2.])
    """
    # BEGIN SOLUTION 2.5
    extra = grad.ndim - len(shape)
    dims = tuple(range(extra)) + tuple(
        extra + k for k, size in enumerate(shape) if size == 1 and grad.shape[extra + k] != 1
    )
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.reshape(shape)
    # END SOLUTION 2.5
