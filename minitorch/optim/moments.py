"""What the Adam family of optimizers share: the step count and running moments they keep
per parameter, and weight decay applied either way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..tensors.creation import tensor, zeros_like
from .optimizer import descent_gradient


def counted_state(
    states: dict[Tensor, dict[str, Any]],
    p: Tensor,
    *entries: str | tuple[str, Callable[[], Tensor]],
    step_on_params_device: bool = False,
) -> tuple[dict[str, Any], int]:
    """`p`'s state in `states`, with one added to its `state["step"]`, and the new count $t$.

    On the first step the state is made, in PyTorch's order: `step`, a float32 0-dim
    tensor at 0, then `entries`, each a name (zeros shaped as `p`) or a (name, function
    that makes the starting tensor) pair. `step` is made on the default device (the CPU unless
    one is set) whatever `p`'s device, as most of PyTorch's optimizers make it; with
    `step_on_params_device`, on `p`'s.
    """
    state = states[p]
    if not state:
        state["step"] = tensor(0.0, device=p.device if step_on_params_device else None)
        for entry in entries:
            name, make = (entry, lambda: zeros_like(p)) if isinstance(entry, str) else entry
            state[name] = make()
    state["step"] += 1
    return state, int(state["step"].item())


def decayed_gradient(p: Tensor, group: dict[str, Any]) -> Tensor:
    """The gradient to step against: with `decoupled_weight_decay` the parameter itself
    shrinks by $1 - \\mathrm{lr}\\,\\lambda$ (AdamW's rule) and the gradient is left as it is;
    otherwise $\\lambda w$ is added to it (L2 regularisation). `maximize` negates it."""
    if group["weight_decay"] != 0 and group.get("decoupled_weight_decay"):
        p.mul_(1 - group["lr"] * group["weight_decay"])
        return -p.grad if group["maximize"] else p.grad
    return descent_gradient(p, group)


def update_moments(grad: Tensor, state: dict[str, Any], betas: tuple[float, float]) -> None:
    """$m \\leftarrow \\beta_1 m + (1 - \\beta_1) g$ and
    $v \\leftarrow \\beta_2 v + (1 - \\beta_2) g^2$, in `state["exp_avg"]` and
    `state["exp_avg_sq"]`."""
    beta1, beta2 = betas
    state["exp_avg"].lerp_(grad, 1 - beta1)
    state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
