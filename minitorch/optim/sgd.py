"""`SGD`: stochastic gradient descent, with momentum, Nesterov momentum and weight decay."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..ops.inplace import _fused_sgd_
from ..tensors.creation import zeros_like
from .optimizer import Optimizer, descent_gradient
from .options import declared_init


def check_nesterov(defaults: dict[str, Any]) -> None:
    """Nesterov momentum needs a momentum and no dampening."""
    if defaults["nesterov"] and (defaults["momentum"] <= 0 or defaults["dampening"] != 0):
        raise ValueError("Nesterov momentum requires a momentum and zero dampening")


class SGD(Optimizer):
    """Gradient descent: each step moves every parameter against its gradient.

    With weight decay $\\lambda$, momentum $\\mu$ and dampening $\\tau$, for a
    parameter $w$ with gradient $g$:

    $$g \\leftarrow g + \\lambda w, \\quad b \\leftarrow \\mu b + (1 - \\tau) g
    \\ (b = g \\text{ at the first step}), \\quad
    w \\leftarrow w - \\mathrm{lr} \\cdot b$$

    (Nesterov: $w \\leftarrow w - \\mathrm{lr} (g + \\mu b)$). `maximize` climbs instead.
    With `fused=True` each parameter takes the step in one pass over its memory
    (`minitorch._fused_sgd_`, one backend kernel), with the same values.
    """

    __init__ = declared_init(
        """lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
        foreach=None, differentiable=False, fused=None""",
        checked="lr momentum weight_decay",
        check=check_nesterov,
    )

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        """$w \\leftarrow w - \\mathrm{lr} \\cdot d$, $d$ the gradient or its momentum."""
        if group["fused"] and fusable(p, self.state[p]):
            fused_step(p, self.state[p], group)
            return
        grad = descent_gradient(p, group)
        if group["momentum"] != 0:
            grad = momentum_direction(grad, self.state[p], group)
        p.add_(grad, alpha=-group["lr"])


def momentum_direction(grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> Tensor:
    """The direction of a momentum step, updating the buffer `state["momentum_buffer"]`.

    $b \\leftarrow \\mu b + (1 - \\tau) g$, with $b = g$ (a copy) at the first step;
    the direction is $b$, or $g + \\mu b$ with Nesterov momentum ($\\mu$ = `group["momentum"]`,
    $\\tau$ = `group["dampening"]`). The buffer is updated in place.
    """
    # BEGIN SOLUTION 4.6
    momentum = group["momentum"]
    buf = state.get("momentum_buffer")
    if buf is None:
        buf = grad.detach().clone()
        state["momentum_buffer"] = buf
    else:
        buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
    return grad.add(buf, alpha=momentum) if group["nesterov"] else buf
    # END SOLUTION 4.6


def fusable(p: Tensor, state: dict[str, Any]) -> bool:
    """Whether `fused_step` can update `p`: a contiguous floating parameter whose gradient and
    momentum buffer (when it has one) share its dtype, device and shape, the buffer its layout."""
    buf = state.get("momentum_buffer")
    return (
        p.is_floating_point()
        and p.is_contiguous()
        and all(
            x.dtype is p.dtype and x.device == p.device and x.shape == p.shape
            for x in (p.grad, *([buf] if buf is not None else []))
        )
        and (buf is None or buf.is_contiguous())
    )


def fused_step(p: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
    """What `_update` computes (weight decay, `momentum_direction` and the step) in one pass
    over memory: `minitorch._fused_sgd_`, as `torch.optim.SGD(fused=True)`."""
    buffers = []
    first = "momentum_buffer" not in state
    if group["momentum"] != 0:
        if first:
            state["momentum_buffer"] = zeros_like(p)
        buffers = [state["momentum_buffer"]]
    options = ("weight_decay", "momentum", "lr", "dampening", "nesterov", "maximize")
    _fused_sgd_(
        [p],
        [p.grad.contiguous()],
        buffers,
        **{name: group[name] for name in options},
        is_first_step=first,
    )
