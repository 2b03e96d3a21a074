"""`Adagrad`: steps divided by the root of the summed squared gradients."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._tensor import Tensor
from ..tensors.creation import full_like, tensor
from .optimizer import Optimizer, check_options, check_supported, descent_gradient


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.): for a parameter $w$ with gradient $g$, at step $t$,

    $$s \\leftarrow s + g^2, \\quad
    w \\leftarrow w - \\frac{\\mathrm{lr}}{1 + (t - 1)\\,\\mathrm{lr\\_decay}}
    \\frac{g}{\\sqrt{s} + \\epsilon},$$

    $s$ starting at `initial_accumulator_value`; weight decay $\\lambda$ adds $\\lambda w$ to $g$.
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_options(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        check_supported(defaults)
        super().__init__(params, defaults)
        # PyTorch makes the state up front, so `state_dict()` has it before any step
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["step"] = tensor(0.0)
                self.state[p]["sum"] = full_like(p, group["initial_accumulator_value"])

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        state = self.state[p]
        state["step"] += 1
        grad = descent_gradient(p, group)
        clr = group["lr"] / (1 + (state["step"].item() - 1) * group["lr_decay"])
        state["sum"].addcmul_(grad, grad, value=1)
        std = state["sum"].sqrt().add_(group["eps"])
        p.addcdiv_(grad, std, value=-clr)
