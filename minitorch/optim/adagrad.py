"""`Adagrad`: steps divided by the root of the summed squared gradients."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..tensors.creation import full_like, tensor
from .optimizer import Optimizer, descent_gradient
from .options import declared_init


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.): for a parameter $w$ with gradient $g$, at step $t$,

    $$s \\leftarrow s + g^2, \\quad
    w \\leftarrow w - \\frac{\\mathrm{lr}}{1 + (t - 1)\\,\\mathrm{lr\\_decay}}
    \\frac{g}{\\sqrt{s} + \\epsilon},$$

    $s$ starting at `initial_accumulator_value`; weight decay $\\lambda$ adds $\\lambda w$ to $g$.
    """

    __init__ = declared_init(
        """lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
        foreach=None, *, maximize=False, differentiable=False, fused=None""",
        checked="lr lr_decay weight_decay initial_accumulator_value eps",
        stored="""lr lr_decay eps weight_decay initial_accumulator_value foreach maximize
        differentiable fused""",
    )

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add the group, and its parameters' state: PyTorch makes Adagrad's state up front,
        so `state_dict()` has it before any step."""
        super().add_param_group(param_group)
        for p in param_group["params"]:
            self.state[p]["step"] = tensor(0.0)
            self.state[p]["sum"] = full_like(p, param_group["initial_accumulator_value"])

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        state = self.state[p]
        state["step"] += 1
        grad = descent_gradient(p, group)
        clr = group["lr"] / (1 + (state["step"].item() - 1) * group["lr_decay"])
        state["sum"].addcmul_(grad, grad, value=1)
        std = state["sum"].sqrt().add_(group["eps"])
        p.addcdiv_(grad, std, value=-clr)
