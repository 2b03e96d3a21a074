"""`RAdam`: Adam whose adaptive step is switched on, and scaled, only once the variance of
its second moment is tractable (Liu et al.)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from .moments import counted_state, decayed_gradient, update_moments
from .optimizer import Optimizer
from .options import declared_init


class RAdam(Optimizer):
    """RAdam: after Adam's moments at step $t$, with $\\rho_\\infty = 2 / (1 - \\beta_2) - 1$
    and $\\rho_t = \\rho_\\infty - 2 t \\beta_2^t / (1 - \\beta_2^t)$, the bias-corrected
    $\\hat m = m / (1 - \\beta_1^t)$ steps as

    $$w \\leftarrow w - \\mathrm{lr}\\, \\hat m\\, r_t
    \\frac{\\sqrt{1 - \\beta_2^t}}{\\sqrt v + \\epsilon}, \\quad
    r_t = \\sqrt{\\frac{(\\rho_t - 4)(\\rho_t - 2)\\rho_\\infty}
    {(\\rho_\\infty - 4)(\\rho_\\infty - 2)\\rho_t}}$$

    when $\\rho_t > 5$, and as plain momentum, $w \\leftarrow w - \\mathrm{lr}\\,\\hat m$, before.
    """

    __init__ = declared_init(
        """lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False, *,
        foreach=None, maximize=False, capturable=False, differentiable=False""",
        checked="lr eps betas weight_decay",
        stored="""lr betas eps weight_decay maximize foreach capturable decoupled_weight_decay
        differentiable""",
    )

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        state, t = counted_state(self.state, p, "exp_avg", "exp_avg_sq")
        grad = decayed_gradient(p, group)
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        update_moments(grad, state, group["betas"])
        bias_correction2 = 1 - beta2**t
        corrected = state["exp_avg"] / (1 - beta1**t)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * t * (beta2**t) / bias_correction2
        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            adaptive = bias_correction2**0.5 / state["exp_avg_sq"].sqrt().add_(group["eps"])
            p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            p.add_(corrected * lr, alpha=-1.0)
