"""`Adamax`: Adam with the infinity norm of past gradients in place of their RMS."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from .moments import counted_state
from .optimizer import Optimizer, descent_gradient
from .options import declared_init


class Adamax(Optimizer):
    """Adamax (Kingma & Ba): at step $t$,

    $$m \\leftarrow \\beta_1 m + (1 - \\beta_1) g, \\quad
    u \\leftarrow \\max(\\beta_2 u, |g| + \\epsilon), \\quad
    w \\leftarrow w - \\frac{\\mathrm{lr}}{1 - \\beta_1^t} \\frac{m}{u}.$$
    """

    __init__ = declared_init(
        """lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *, maximize=False,
        differentiable=False, capturable=False""",
        checked="lr eps betas weight_decay",
    )

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        state, t = counted_state(self.state, p, "exp_avg", "exp_inf")
        grad = descent_gradient(p, group)
        beta1, beta2 = group["betas"]
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_inf.copy_(exp_inf.mul_(beta2).maximum(grad.abs().add_(group["eps"])))
        p.addcdiv_(exp_avg, exp_inf, value=-group["lr"] / (1 - beta1**t))
