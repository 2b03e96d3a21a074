"""Full backward hooks of a `Module`, as PyTorch's `register_full_backward_pre_hook` and
`register_full_backward_hook`: functions called with the gradients of a module's outputs
and of its inputs during `backward`.

A call of a module with such hooks passes its tensor inputs, and then its tensor outputs,
through one identity node each (`BackwardHookFunctionBackward`, PyTorch's name). When the
gradients of the outputs reach the outer node, the pre-hooks see them, `hook(module,
grad_output)`, and may replace them; when the gradients of the inputs reach the inner
node, the hooks see both, `hook(module, grad_input, grad_output)`, and may replace
`grad_input`. As in PyTorch, an output that got no gradient has None in `grad_output`, an
input that got none has zeros in `grad_input`, and when no input requires grad the hooks
run at the outputs with None for every input (and a warning).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..autograd import Function, is_grad_enabled


class BackwardHookFunction(Function):
    """The identity of several tensors, whose backward hands the gradients to
    `on_backward` and passes on what it returns."""

    several_outputs = True

    @classmethod
    def node_name(cls, *inputs, **params) -> str:
        return "BackwardHookFunctionBackward"

    @staticmethod
    def forward(ctx, *tensors: Tensor, on_backward: Callable, materialize: bool):
        ctx.on_backward = on_backward
        ctx.set_materialize_grads(materialize)
        ctx.mark_non_differentiable(*(t for t in tensors if not t.requires_grad))
        return tuple(t.view_as(t) if t.requires_grad else t for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return tuple(ctx.on_backward(tuple(grads)))


def _through_hook_node(values: tuple, on_backward: Callable, materialize: bool) -> tuple:
    """`values` with each tensor replaced by its output of one `BackwardHookFunction`."""
    positions = [k for k, v in enumerate(values) if isinstance(v, Tensor)]
    tensors = [values[k] for k in positions]
    replaced = list(values)
    outputs = BackwardHookFunction.apply(*tensors, on_backward=on_backward, materialize=materialize)
    for k, t in zip(positions, outputs, strict=True):
        replaced[k] = t
    return tuple(replaced)


def _checked(result: Any, expected: int, what: str, kind: str = "hook") -> tuple:
    if len(result) != expected:
        raise RuntimeError(
            f"Backward {kind} returned an invalid number of {what}, got {len(result)}, but "
            f"expected {expected}"
        )
    return tuple(result)


class BackwardHook:
    """The backward hooks of one call of `module`: wraps its inputs and outputs, and keeps
    the gradients of the outputs until those of the inputs arrive."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.input_count = 0
        self.inputs_wrapped = False
        self.grad_outputs: tuple | None = None

    def _hooks(self, name: str) -> list[Callable]:
        return list(self.module.__dict__.get(name, {}).values())

    def setup_input(self, args: tuple) -> tuple:
        """`args`, its tensors passed through the node that calls the hooks."""
        tensors = [a for a in args if isinstance(a, Tensor)]
        self.input_count = len(tensors)
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args
        self.inputs_wrapped = True
        return _through_hook_node(args, self._inputs_backward, materialize=True)

    def setup_output(self, output: Any) -> Any:
        """`output` (a tensor, or a tuple with tensors), passed through the node that calls
        the pre-hooks."""
        values = (output,) if isinstance(output, Tensor) else output
        if not isinstance(values, tuple) or not is_grad_enabled():
            return output
        if not any(isinstance(v, Tensor) and v.requires_grad for v in values):
            return output
        wrapped = _through_hook_node(values, self._outputs_backward, materialize=False)
        return wrapped[0] if isinstance(output, Tensor) else wrapped

    def _outputs_backward(self, grad_outputs: tuple) -> tuple:
        for hook in self._hooks("_backward_pre_hooks"):
            result = hook(self.module, grad_outputs)
            if result is not None:
                result = (result,) if isinstance(result, Tensor) else result
                grad_outputs = _checked(result, len(grad_outputs), "grad_output", "pre hook")
        self.grad_outputs = grad_outputs
        hooks = self._hooks("_backward_hooks")
        if hooks and not self.inputs_wrapped:
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to "
                "module outputs since no inputs require gradients. See "
                "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.register_full_backward_hook for more details.",
                stacklevel=2,
            )
            grad_input = (None,) * self.input_count
            for hook in hooks:
                result = hook(self.module, grad_input, grad_outputs)
                if result is not None and any(r is not None for r in result):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should "
                        "always return None or None for all gradients."
                    )
        return grad_outputs

    def _inputs_backward(self, grad_input: tuple) -> tuple:
        for hook in self._hooks("_backward_hooks"):
            result = hook(self.module, grad_input, self.grad_outputs)
            if result is not None:
                result = (result,) if isinstance(result, Tensor) else result
                grad_input = _checked(result, len(grad_input), "grad_input")
        return grad_input


def has_backward_hooks(module: Any) -> bool:
    return bool(
        module.__dict__.get("_backward_hooks") or module.__dict__.get("_backward_pre_hooks")
    )
