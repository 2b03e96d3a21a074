"""Module 2: backward through the graph of `nodes.py` on the engine of `autodiff.py`.

`Tensor.backward` is `run_backward`: `autodiff.backpropagate` started at the
output's node, the same topological sort and the same chain rule as the
scalars of module 1, run once over the nodes the forward recorded.
`backward` and `grad` are `torch.autograd.backward` and `torch.autograd.grad`.

>>> import minitorch
>>> x = minitorch.ones(3, requires_grad=True)
>>> (x ** 2).sum().backward()
>>> x.grad
tensor([2., 2., 2.])

The graph's pieces that the operations use (`GraphContext`, `sum_to`, the node
classes) are defined in `nodes.py` and importable from here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..autodiff import backpropagate
from ..tensors import creation
from ..tensors.base import TensorBase
from .grad_mode import _state
from .nodes import AccumulateGrad, GraphContext, Node, OutputGradients, edge, keep_gradient, sum_to

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = [
    "AccumulateGrad",
    "GraphContext",
    "Node",
    "backward",
    "grad",
    "run_backward",
    "sum_to",
]


def run_backward(
    tensor: Tensor, gradient=None, retain_graph: bool | None = None, create_graph: bool = False
) -> None:
    """$\\partial L / \\partial x$ into `x.grad` for every leaf $x$ below `tensor` (= L).

    `gradient` is $\\partial L / \\partial \\text{tensor}$, implicitly 1 for a
    one-element tensor. The graph's saved tensors are freed afterwards
    unless `retain_graph` (which defaults to `create_graph`). With
    `create_graph`, the backward formulas run in grad mode, so the
    gradients have a graph of their own (for second derivatives).
    """
    if not tensor.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if gradient is None:
        if tensor.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        gradient = creation.ones_like(tensor)
    else:
        gradient = gradient if isinstance(gradient, TensorBase) else creation.tensor(gradient)
        if tuple(gradient.shape) != tuple(tensor.shape):
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {gradient.shape} and "
                f"output[0] has a shape of {tensor.shape}."
            )
        if not create_graph:
            gradient = gradient.detach()
        if gradient.dtype is not tensor.dtype:
            gradient = gradient.to(tensor.dtype)
    root, nr = edge(tensor)
    if retain_graph is None:
        retain_graph = create_graph
    previous = _state.enabled, _state.retain_graph
    _state.enabled, _state.retain_graph = bool(create_graph), bool(retain_graph)
    try:
        backpropagate(root, OutputGradients.of(root, nr, gradient))
    finally:
        _state.enabled, _state.retain_graph = previous


def check_differentiable(tensors: list) -> None:
    """PyTorch's error, naming the first of `tensors` that has no graph to go back through."""
    for k, t in enumerate(tensors):
        if not t.requires_grad:
            raise RuntimeError(
                f"element {k} of tensors does not require grad and does not have a grad_fn"
            )


def as_list(tensors) -> list:
    """A tensor, or a sequence of them, as a list."""
    return [tensors] if isinstance(tensors, TensorBase) else list(tensors)


def backward_from_each(
    tensors: list, gradients, retain_graph: bool | None, create_graph: bool = False
) -> None:
    """`run_backward` from each tensor with its gradient (one, or None, for all), keeping the
    graph for the next one."""
    if gradients is None or isinstance(gradients, TensorBase):
        gradients = [gradients] * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    for k, (t, g) in enumerate(zip(tensors, gradients, strict=True)):
        run_backward(t, g, retain_graph or k < len(tensors) - 1, create_graph)


def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs=None,
) -> None:
    """`torch.autograd.backward`: `t.backward(g)` for each tensor `t` (and gradient `g`).

    With `inputs`, only those tensors (leaves or not) get gradients added to their `.grad`.

    >>> import minitorch
    >>> x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    >>> minitorch.autograd.backward([(x * x).sum(), (3 * x).sum()])
    >>> x.grad
    tensor([5., 7.])
    """
    tensors = as_list(tensors)
    check_differentiable(tensors)
    if inputs is not None:
        inputs = as_list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        found = grad(tensors, inputs, grad_tensors, retain_graph, create_graph, allow_unused=True)
        for x, d in zip(inputs, found, strict=True):
            if d is not None and not x.retains_grad:  # a retained one already got it
                keep_gradient(x, d)
        return
    backward_from_each(tensors, grad_tensors, retain_graph, create_graph)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
) -> tuple:
    """`torch.autograd.grad`: $\\partial (\\sum_k g_k \\cdot outputs_k) / \\partial inputs_j$,
    returned, not added into `.grad` (no `.grad` changes).

    >>> import minitorch
    >>> x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    >>> minitorch.autograd.grad((x * x).sum(), x)
    (tensor([2., 4.]),)
    >>> x.grad is None
    True
    """
    outputs, inputs = as_list(outputs), as_list(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    check_differentiable(outputs)
    for x in inputs:
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    edges = [edge(x) for x in inputs]
    previous = _state.captured
    _state.captured = {id(node): None for node, _ in edges}
    try:
        backward_from_each(outputs, grad_outputs, retain_graph, create_graph)
        found = [_state.captured[id(node)] for node, _ in edges]
        found = [
            d.grads[nr] if isinstance(d, OutputGradients) else d
            for d, (_, nr) in zip(found, edges, strict=True)
        ]
    finally:
        _state.captured = previous
    unused = [k for k, d in enumerate(found) if d is None]
    if unused and not allow_unused:
        raise RuntimeError(
            f"The differentiated Tensor at index {unused[0]} appears to not have been "
            "used in the graph. Set allow_unused=True if this is the desired behavior."
        )
    return tuple(
        d if d is None or d.dtype is x.dtype else d.to(x.dtype)
        for d, x in zip(found, inputs, strict=True)
    )
