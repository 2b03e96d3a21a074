"""`NAdam`: Adam with Nesterov momentum (Dozat), its momentum warmed up over the steps."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..tensors.creation import tensor
from .moments import counted_state, decayed_gradient, update_moments
from .optimizer import Optimizer
from .options import declared_init


class NAdam(Optimizer):
    """NAdam: with the momentum schedule $\\mu_t = \\beta_1 (1 - \\tfrac12 0.96^{t \\psi})$
    ($\\psi$ = `momentum_decay`) and $\\Pi_t = \\prod_{i \\le t} \\mu_i$, after Adam's moments,

    $$w \\leftarrow w - \\mathrm{lr} \\left( \\frac{1 - \\mu_t}{1 - \\Pi_t} g
    + \\frac{\\mu_{t+1}}{1 - \\Pi_{t+1}} m \\right) \\Big/
    \\left( \\sqrt{v / (1 - \\beta_2^t)} + \\epsilon \\right).$$

    $\\Pi_t$ is kept as `state["mu_product"]`, a float32 0-dim tensor as PyTorch keeps it
    (so its rounding is PyTorch's too).
    """

    __init__ = declared_init(
        """lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
        decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
        differentiable=False""",
        checked="lr eps betas weight_decay momentum_decay",
        stored="lr betas eps weight_decay momentum_decay decoupled_weight_decay maximize foreach"
        " capturable differentiable",
    )

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        state, t = counted_state(
            self.state, p, ("mu_product", lambda: tensor(1.0)), "exp_avg", "exp_avg_sq"
        )
        grad = decayed_gradient(p, group)
        beta1, beta2 = group["betas"]
        lr, decay = group["lr"], group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * decay))
        mu_product = state["mu_product"]
        mu_product.mul_(tensor(mu, dtype=mu_product.dtype))
        update_moments(grad, state, group["betas"])
        denom = state["exp_avg_sq"].div(1 - beta2**t).sqrt().add_(group["eps"])
        product = mu_product.item()
        p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - product))
        p.addcdiv_(state["exp_avg"], denom, value=-lr * mu_next / (1.0 - product * mu_next))
