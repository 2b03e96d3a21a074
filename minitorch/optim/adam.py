"""`Adam` and `AdamW`: steps scaled by running averages of the gradient and of its square."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..ops.inplace import _fused_adam_, _fused_adamw_
from .moments import counted_state, decayed_gradient
from .optimizer import Optimizer
from .options import declared_init


def check_float_betas(defaults: dict[str, Any]) -> None:
    """Adam's betas are floats (PyTorch takes a pair of tensors too; minitorch does not)."""
    if not all(isinstance(beta, float) for beta in defaults["betas"]):
        raise ValueError("betas must be either both floats or both Tensors")


class Adam(Optimizer):
    """Adam (Kingma & Ba): for a parameter $w$ with gradient $g$, at step $t$,

    $$m \\leftarrow \\beta_1 m + (1 - \\beta_1) g, \\quad
    v \\leftarrow \\beta_2 v + (1 - \\beta_2) g^2,$$
    $$w \\leftarrow w - \\frac{\\mathrm{lr}}{1 - \\beta_1^t}
    \\frac{m}{\\sqrt{v} / \\sqrt{1 - \\beta_2^t} + \\epsilon}.$$

    Weight decay $\\lambda$ adds $\\lambda w$ to $g$; with `decoupled_weight_decay`
    (AdamW) it shrinks $w$ by $1 - \\mathrm{lr}\\,\\lambda$ instead. `amsgrad` divides
    by the largest $v$ seen so far.
    """

    __init__ = declared_init(
        """lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, foreach=None,
        maximize=False, capturable=False, differentiable=False, fused=None,
        decoupled_weight_decay=False""",
        checked="lr eps betas weight_decay",
        stored="""lr betas eps weight_decay amsgrad maximize foreach capturable differentiable fused
        decoupled_weight_decay""",
        check=check_float_betas,
    )

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        """Weight decay, then the Adam step of `p` (its moments live in `state[p]`)."""
        amsgrad = ("max_exp_avg_sq",) if group["amsgrad"] else ()
        state, _ = counted_state(self.state, p, "exp_avg", "exp_avg_sq", *amsgrad)
        if group["fused"] is not False and fusable(p, state, group):
            fused_step(p, state, group)
            return
        adam_step(p, decayed_gradient(p, group), state, group)


def adam_step(p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
    """Update the moments `state["exp_avg"]` ($m$) and `state["exp_avg_sq"]` ($v$) in place,
    then take the bias-corrected step at step $t$ = `state["step"].item()`:

    $$m \\leftarrow \\beta_1 m + (1 - \\beta_1) g, \\quad
    v \\leftarrow \\beta_2 v + (1 - \\beta_2) g^2, \\quad
    w \\leftarrow w - \\frac{\\mathrm{lr}}{1 - \\beta_1^t}
    \\frac{m}{\\sqrt{v} / \\sqrt{1 - \\beta_2^t} + \\epsilon}$$

    With `group["amsgrad"]`, `state["max_exp_avg_sq"]` keeps the largest $v$ so far
    and the step divides by it instead.
    """
    # BEGIN SOLUTION 4.7
    beta1, beta2 = group["betas"]
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    if group["amsgrad"]:
        exp_avg_sq = state["max_exp_avg_sq"].copy_(state["max_exp_avg_sq"].maximum(exp_avg_sq))
    t = state["step"].item()
    bias_correction1 = 1 - beta1**t
    bias_correction2 = 1 - beta2**t
    denom = (exp_avg_sq.sqrt() / bias_correction2**0.5).add_(group["eps"])
    p.addcdiv_(exp_avg, denom, value=-group["lr"] / bias_correction1)
    # END SOLUTION 4.7


def fusable(p: Tensor, state: dict[str, Any], group: dict[str, Any]) -> bool:
    """Whether `fused_step` can update `p`: a contiguous floating parameter whose gradient
    and moments share its dtype, device and shape (and the moments its layout)."""
    moments = [state[k] for k in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if k in state]
    return (
        p.is_floating_point()
        and p.is_contiguous()
        and all(
            x.dtype is p.dtype and x.device == p.device and x.shape == p.shape
            for x in (p.grad, *moments)
        )
        and all(m.is_contiguous() for m in moments)
    )


def fused_step(p: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
    """What `_update` computes (weight decay and `adam_step`), in one pass over memory:
    `minitorch._fused_adam_`, one backend kernel (as `torch.optim.Adam(fused=True)`)."""
    beta1, beta2 = group["betas"]
    amsgrad = group["amsgrad"]
    step = _fused_adamw_ if group["decoupled_weight_decay"] else _fused_adam_
    step(
        [p],
        [p.grad.contiguous()],
        [state["exp_avg"]],
        [state["exp_avg_sq"]],
        [state["max_exp_avg_sq"]] if amsgrad else [],
        [state["step"]],
        lr=group["lr"],
        beta1=beta1,
        beta2=beta2,
        weight_decay=group["weight_decay"],
        eps=group["eps"],
        amsgrad=amsgrad,
        maximize=group["maximize"],
    )


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter):
    $w \\leftarrow (1 - \\mathrm{lr}\\,\\lambda) w$ before the Adam step, where Adam
    adds $\\lambda w$ to the gradient.
    """

    __init__ = declared_init(
        """lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
        maximize=False, foreach=None, capturable=False, differentiable=False, fused=None""",
        checked="lr eps betas weight_decay",
        fixed={"decoupled_weight_decay": True},
        check=check_float_betas,
    )
