"""`SGD`: stochastic gradient descent, with momentum, Nesterov momentum and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._tensor import Tensor
from .optimizer import Optimizer, check_options, check_supported, descent_gradient


class SGD(Optimizer):
    """Gradient descent: each step moves every parameter against its gradient.

    With weight decay $\\lambda$, momentum $\\mu$ and dampening $\\tau$, for a
    parameter $w$ with gradient $g$:

    $$g \\leftarrow g + \\lambda w, \\quad b \\leftarrow \\mu b + (1 - \\tau) g
    \\ (b = g \\text{ at the first step}), \\quad
    w \\leftarrow w - \\mathrm{lr} \\cdot b$$

    (Nesterov: $w \\leftarrow w - \\mathrm{lr} (g + \\mu b)$). `maximize` climbs instead.
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_options(lr=lr, momentum=momentum, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        check_supported(defaults)
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        """$w \\leftarrow w - \\mathrm{lr} \\cdot d$, $d$ the gradient or its momentum."""
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
