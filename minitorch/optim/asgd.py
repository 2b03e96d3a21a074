"""`ASGD`: averaged stochastic gradient descent (Polyak & Juditsky): plain SGD steps with a
decaying rate, and a running average of the iterates kept as `state["ax"]`."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..tensors.creation import tensor
from .moments import counted_state
from .optimizer import Optimizer, descent_gradient
from .options import declared_init


class ASGD(Optimizer):
    """ASGD: at step $t$, with rate $\\eta$ (`lr` at first) and averaging weight $\\mu$ (1 at
    first),

    $$w \\leftarrow (1 - \\lambda \\eta) w - \\eta g, \\quad
    \\bar w \\leftarrow \\bar w + \\mu (w - \\bar w),$$
    $$\\eta \\leftarrow \\frac{\\mathrm{lr}}{(1 + \\lambda\\, \\mathrm{lr}\\, t)^\\alpha},
    \\quad \\mu \\leftarrow \\frac{1}{\\max(1, t - t_0)}.$$

    $\\eta$ and $\\mu$ are float32 0-dim tensors in the state, as PyTorch keeps them, and
    rounded to float32 at each step; they and the step count are on the parameter's device,
    where PyTorch's other optimizers keep their count on the CPU.
    """

    __init__ = declared_init(
        """lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
        differentiable=False, capturable=False""",
        checked="lr weight_decay",
    )

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        eta_at_first = ("eta", lambda: tensor(float(group["lr"]), device=p.device))
        mu_at_first = ("mu", lambda: tensor(1.0, device=p.device))
        state, t = counted_state(
            self.state, p, eta_at_first, mu_at_first, "ax", step_on_params_device=True
        )
        grad = descent_gradient(p, group)
        lr, lambd = group["lr"], group["lambd"]
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        eta_value = eta.item()
        p.mul_(1 - lambd * eta_value)
        p.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(p.sub(ax).mul_(mu.item()))
        else:
            ax.copy_(p)
        # the new values pass through float32 tensors, as PyTorch's do, whatever the state's dtype
        eta.copy_(tensor(lr / ((1 + lambd * lr * t) ** group["alpha"])))
        mu.copy_(tensor(1 / max(1, t - group["t0"])))
