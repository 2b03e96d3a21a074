"""Module 2: tensor autograd on the graph engine of `autodiff.py`.

When grad mode is on and an input of an operation requires grad,
`Function.apply` (in `tensor_functions.py`) records a *node*: an object that
knows the operation's `backward`, the `Context` its forward saved, and the
nodes of its inputs (`next_functions`). The output tensor's `grad_fn` is that
node; a leaf tensor that requires grad is represented by an `AccumulateGrad`
node that adds the gradient into its `.grad`. Printing the graph gives
PyTorch's names:

>>> import minitorch
>>> x = minitorch.ones(3, requires_grad=True)
>>> y = (x ** 2).sum()
>>> y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()
('SumBackward0', 'PowBackward0')

Nodes implement the `Variable` protocol of `autodiff.py`, so
`Tensor.backward` is `autodiff.backpropagate` started at the output's node:
the same topological sort and the same chain rule as the scalars of module 1.

This file also holds grad mode (`no_grad`, `enable_grad`,
`set_grad_enabled`, `is_grad_enabled`) and `grad_check`.
"""

from __future__ import annotations

import functools
import re
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from .autodiff import Context, backpropagate

if TYPE_CHECKING:
    from .tensor import Tensor

# ---------------------------------------------------------------------------
# Grad mode
# ---------------------------------------------------------------------------


class _GradState(threading.local):
    """Per-thread switches: is grad mode on, and does this backward keep the graph."""

    enabled = True
    retain_graph = False


_state = _GradState()


def is_grad_enabled() -> bool:
    """Whether operations are recorded for backward right now."""
    return _state.enabled


class _GradMode:
    """A context manager and decorator that sets grad mode and restores it on exit."""

    mode = True

    def __enter__(self) -> None:
        self._previous = _state.enabled
        _state.enabled = self.mode

    def __exit__(self, *exc_info) -> None:
        _state.enabled = self._previous

    def __call__(self, function: Callable) -> Callable:
        mode = self.mode

        @functools.wraps(function)
        def with_mode(*args, **kwargs):
            previous = _state.enabled
            _state.enabled = mode
            try:
                return function(*args, **kwargs)
            finally:
                _state.enabled = previous

        return with_mode


class no_grad(_GradMode):  # noqa: N801 -- PyTorch's name
    """Record no graph inside: `with minitorch.no_grad(): ...` or `@minitorch.no_grad()`.

    >>> import minitorch
    >>> x = minitorch.ones(2, requires_grad=True)
    >>> with minitorch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    mode = False


class enable_grad(_GradMode):  # noqa: N801 -- PyTorch's name
    """Record the graph inside, even within `no_grad`."""

    mode = True


class set_grad_enabled(_GradMode):  # noqa: N801 -- PyTorch's name
    """Set grad mode to `mode` now; used with `with`, the previous mode comes back on exit."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self._previous = _state.enabled
        _state.enabled = self.mode

    def __enter__(self) -> None:
        pass


# ---------------------------------------------------------------------------
# Graph nodes
# ---------------------------------------------------------------------------

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
    other; `output_of` names the node for the error message.
    """

    __slots__ = ("tensor", "version", "output_of")

    def __init__(self, tensor: Tensor, output_of: str | None = None) -> None:
        self.tensor = tensor
        self.version = tensor._version
        self.output_of = output_of

    def unpack(self) -> Tensor:
        """The saved tensor; torch's error if it was modified in place since."""
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
        return self.tensor


class GraphContext(Context):
    """A `Context` that checks saved tensors' versions and can be freed after backward.

    `needs_input_grad[i]` tells whether input `i` of the forward requires grad,
    so forward can save only what the needed derivatives use.
    """

    needs_input_grad: tuple[bool, ...] = ()
    freed = False

    def save_for_backward(self, *values: Any) -> None:
        if not self.no_grad:
            self.saved_values = values

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

    __slots__ = ("next_functions", "function", "ctx", "input_meta", "retained", "__weakref__")

    def __init__(self, function, ctx: GraphContext, next_functions, input_meta) -> None:
        self.function = function
        self.ctx = ctx
        self.next_functions = next_functions
        self.input_meta = input_meta
        self.retained = None

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
        if self.retained is not None:
            keep_gradient(self.retained(), d_output)
        gradients = self.function.backward(self.ctx, d_output)
        if not isinstance(gradients, tuple):
            gradients = (gradients,)
        if not _state.retain_graph:
            self.ctx.release()
        pairs = []
        for index, ((node, _), meta, gradient) in enumerate(
            zip(self.next_functions, self.input_meta, gradients, strict=False)
        ):
            if node is not None and gradient is not None:
                pairs.append((node, fit_gradient(gradient, *meta, self.name(), index)))
        return pairs

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
        keep_gradient(self.variable, d)


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


def record(function, ctx: GraphContext, inputs: tuple, output: Tensor, name: str) -> None:
    """Make `output.grad_fn` a `name` node over `inputs` (tensors and numbers)."""
    from .tensor import Tensor

    edges, meta = [], []
    for x in inputs:
        if isinstance(x, Tensor):
            edges.append((gradient_edge(x), 0))
            meta.append((x.shape, x.dtype))
        else:
            edges.append((None, 0))
            meta.append(None)
    ctx.saved_values = tuple(
        saved_form(v, output, name) if isinstance(v, Tensor) else v for v in ctx.saved_values
    )
    output.grad_fn = node_class(name)(function, ctx, tuple(edges), tuple(meta))


def saved_form(t: Tensor, output: Tensor, name: str) -> SavedTensor:
    """How forward's saved tensor `t` is kept: its own output as an alias without history."""
    if t is output:
        alias = type(t)(t._layout, t.dtype, t.device, t._version_counter)
        return SavedTensor(alias, output_of=name)
    return SavedTensor(t)


def fit_gradient(gradient: Tensor, shape, dtype, node_name: str, index: int) -> Tensor:
    """`gradient` summed over broadcast dims down to `shape` and cast to `dtype`.

    A backward must return, for input `index`, a gradient of the input's shape
    or of a shape the input broadcasts to; anything else is a bug in that
    backward, reported with PyTorch's message instead of being reshaped.
    """
    from .tensor_functions import sum_to

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


# ---------------------------------------------------------------------------
# Backward
# ---------------------------------------------------------------------------


def run_backward(tensor: Tensor, gradient=None, retain_graph: bool | None = None) -> None:
    """$\\partial L / \\partial x$ into `x.grad` for every leaf $x$ below `tensor` (= L).

    `gradient` is $\\partial L / \\partial \\text{tensor}$, implicitly 1 for a
    one-element tensor. The graph's saved tensors are freed afterwards
    unless `retain_graph`.
    """
    from .tensor import Tensor
    from .tensor_creation import ones_like
    from .tensor_creation import tensor as make_tensor

    if not tensor.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if gradient is None:
        if tensor.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        gradient = ones_like(tensor)
    else:
        gradient = gradient if isinstance(gradient, Tensor) else make_tensor(gradient)
        if tuple(gradient.shape) != tuple(tensor.shape):
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {gradient.shape} and "
                f"output[0] has a shape of {tensor.shape}."
            )
        gradient = (
            gradient.detach() if gradient.dtype is tensor.dtype else gradient.to(tensor.dtype)
        )
    root = gradient_edge(tensor)
    previous = _state.enabled, _state.retain_graph
    _state.enabled, _state.retain_graph = False, bool(retain_graph)
    try:
        backpropagate(root, gradient)
    finally:
        _state.enabled, _state.retain_graph = previous


# ---------------------------------------------------------------------------
# Checking gradients
# ---------------------------------------------------------------------------


class GradcheckError(RuntimeError):
    """A gradient from backward differs from its central-difference estimate."""


def grad_check(
    fn: Callable[..., Tensor],
    *inputs: Tensor,
    eps: float = 1e-6,
    atol: float | None = None,
    rtol: float | None = None,
    seed: int = 0,
) -> bool:
    r"""Check backward's gradients of `fn` at `inputs` against central differences.

    A fixed random weighting $w$ turns the output into a number,
    $L = \sum_i w_i \, fn(inputs)_i$, so that every entry of the
    vector-Jacobian product is tested, not only its sum. For every element
    $x_j$ of every input that requires grad, backward's $\partial L / \partial x_j$
    must match $(L(x_j + \epsilon) - L(x_j - \epsilon)) / 2\epsilon$,
    computed in float64. Raises `GradcheckError` naming the input, the index
    and both values; returns True otherwise.

    >>> import minitorch
    >>> x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    >>> minitorch.grad_check(lambda t: (t * t).sum(), x)
    True
    """
    from .dtypes import float32, float64
    from .tensor_creation import tensor as make_tensor

    low_precision = any(x.dtype is float32 for x in inputs)
    atol = (1e-3 if low_precision else 1e-6) if atol is None else atol
    rtol = (1e-2 if low_precision else 1e-5) if rtol is None else rtol
    for x in inputs:
        x.grad = None
    output = fn(*inputs)
    weights = np.random.default_rng(seed).uniform(0.5, 1.5, size=tuple(output.shape))
    (output * make_tensor(weights, dtype=output.dtype)).sum().backward()

    originals = [np.array(x.detach().numpy(), dtype=np.float64) for x in inputs]

    def weighted_output(arrays: list[np.ndarray]) -> float:
        with no_grad():
            tensors = [make_tensor(a, dtype=float64) for a in arrays]
            out = fn(*tensors).detach().numpy()
        return float(np.sum(np.asarray(out, dtype=np.float64) * weights))

    for k, x in enumerate(inputs):
        if not x.requires_grad:
            continue
        analytic = (
            np.zeros(originals[k].shape)
            if x.grad is None
            else np.asarray(x.grad.numpy(), dtype=np.float64)
        )
        for index in np.ndindex(*originals[k].shape):
            arrays = [a.copy() for a in originals]
            arrays[k][index] += eps
            up = weighted_output(arrays)
            arrays[k][index] -= 2 * eps
            down = weighted_output(arrays)
            numeric = (up - down) / (2 * eps)
            if not abs(analytic[index] - numeric) <= atol + rtol * abs(numeric):
                raise GradcheckError(
                    f"grad_check: the gradient of input {k} at index {tuple(map(int, index))} "
                    f"is {float(analytic[index])!r} by backward but {numeric!r} by central "
                    "differences"
                )
    return True
