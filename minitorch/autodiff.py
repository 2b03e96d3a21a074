"""Module 1: the graph engine of reverse-mode automatic differentiation.

This file knows nothing about `Scalar` or `Tensor`. It works on any
*variable* that offers the small protocol `Variable` below: the scalar
autodiff of module 1 and the tensor autograd of module 2 run on the same
`topological_sort` and `backpropagate`.

Both are iterative, not recursive: a chain of a million operations is walked
with an explicit stack and never reaches Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol


def central_difference(
    f: Callable[..., float], *vals: float, arg: int = 0, epsilon: float = 1e-6
) -> float:
    r"""Approximate $\partial f / \partial x_{arg}$ at `vals` by a central difference.

    $$\frac{\partial f}{\partial x_i} \approx
      \frac{f(\ldots, x_i + \epsilon, \ldots) - f(\ldots, x_i - \epsilon, \ldots)}{2 \epsilon}$$

    The error shrinks like $\epsilon^2$ (a one-sided difference only like
    $\epsilon$), which makes it the reference our derivatives are tested against.
    """
    # BEGIN SOLUTION 1.1
    if not 0 <= arg < len(vals):
        raise IndexError(f"arg={arg} is out of range for {len(vals)} value(s)")
    up = list(vals)
    down = list(vals)
    up[arg] = vals[arg] + epsilon
    down[arg] = vals[arg] - epsilon
    return (f(*up) - f(*down)) / (2.0 * epsilon)
    # END SOLUTION 1.1


class Variable(Protocol):
    """What the engine needs from a node of the graph.

    - `unique_id`: an int that identifies the node.
    - `parents`: the variables this one was computed from.
    - `is_leaf()`: True for inputs that collect a derivative.
    - `is_constant()`: True for values that need no derivative at all.
    - `chain_rule(d_output)`: pairs `(parent, d_output * d self / d parent)`
      for each parent that is not constant.
    - `accumulate_derivative(d)`: add `d` to a leaf's derivative.
    """

    @property
    def unique_id(self) -> int: ...

    @property
    def parents(self) -> Iterable[Variable]: ...

    def is_leaf(self) -> bool: ...

    def is_constant(self) -> bool: ...

    def chain_rule(self, d_output: Any) -> Iterable[tuple[Variable, Any]]: ...

    def accumulate_derivative(self, d: Any) -> None: ...


def topological_sort(variable: Variable) -> list[Variable]:
    """Every non-constant variable that `variable` depends on, itself first.

    In the returned order a variable always comes before the variables it was
    computed from, so walking it once passes each node's derivative on only
    after every use of that node has contributed to it.

    Iterative depth-first search: a node is appended after all its parents
    (post-order) and the list is reversed at the end.
    """
    # BEGIN SOLUTION 1.4
    order: list[Variable] = []
    visited: set[int] = set()
    stack: list[tuple[Variable, bool]] = [(variable, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
            continue
        if node.unique_id in visited or node.is_constant():
            continue
        visited.add(node.unique_id)
        stack.append((node, True))
        for parent in node.parents:
            if parent.unique_id not in visited:
                stack.append((parent, False))
    order.reverse()
    return order
    # END SOLUTION 1.4


def backpropagate(variable: Variable, d_output: Any) -> None:
    """Run the chain rule from `variable` back to the leaves.

    `d_output` is $\\partial L / \\partial \\text{variable}$ (1.0 for a scalar
    loss). Each node's derivative is summed over all its uses before it is
    passed on, and leaves get their total through `accumulate_derivative`.
    """
    # BEGIN SOLUTION 1.4
    derivatives: dict[int, Any] = {variable.unique_id: d_output}
    for node in topological_sort(variable):
        d_node = derivatives.pop(node.unique_id, None)
        if d_node is None:
            continue
        if node.is_leaf():
            node.accumulate_derivative(d_node)
            continue
        for parent, d_parent in node.chain_rule(d_node):
            key = parent.unique_id
            if key in derivatives:
                derivatives[key] = derivatives[key] + d_parent
            else:
                derivatives[key] = d_parent
    # END SOLUTION 1.4


class Context:
    """What a function's forward leaves for its backward.

    `save_for_backward(*values)` stores the values backward will need;
    `saved_values` returns them. With `no_grad=True` nothing is stored, since
    no backward will run.
    """

    # Class-level defaults and no __init__: a Context is made for every
    # operation, and creating one without running Python code is cheaper.
    no_grad: bool = False
    saved_values: tuple[Any, ...] = ()

    def save_for_backward(self, *values: Any) -> None:
        """Store `values` for the backward pass (skipped under `no_grad`)."""
        if not self.no_grad:
            self.saved_values = values

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """PyTorch's name for `saved_values`."""
        return self.saved_values
