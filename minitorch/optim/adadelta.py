"""`Adadelta`: steps whose size comes from running averages of squared gradients and of
squared past steps, so no learning rate needs tuning (Zeiler)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from .moments import counted_state
from .optimizer import Optimizer, descent_gradient
from .options import declared_init


class Adadelta(Optimizer):
    """Adadelta: with $E[g^2]$ and $E[\\Delta^2]$ running averages (decay $\\rho$),

    $$E[g^2] \\leftarrow \\rho E[g^2] + (1 - \\rho) g^2, \\quad
    \\Delta = \\frac{\\sqrt{E[\\Delta^2] + \\epsilon}}{\\sqrt{E[g^2] + \\epsilon}}\\, g,$$
    $$E[\\Delta^2] \\leftarrow \\rho E[\\Delta^2] + (1 - \\rho) \\Delta^2, \\quad
    w \\leftarrow w - \\mathrm{lr}\\,\\Delta.$$
    """

    __init__ = declared_init(
        """lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
        maximize=False, differentiable=False""",
        checked="lr rho eps weight_decay",
        stored="lr rho eps weight_decay maximize capturable foreach differentiable",
    )

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        state, _ = counted_state(self.state, p, "square_avg", "acc_delta")
        grad = descent_gradient(p, group)
        rho, eps = group["rho"], group["eps"]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        delta = acc_delta.add(eps).sqrt_().div_(square_avg.add(eps).sqrt_()).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-group["lr"])
