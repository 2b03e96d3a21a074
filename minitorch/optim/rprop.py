"""`Rprop`: resilient backpropagation (Riedmiller & Braun): each weight moves by its own step
size, grown while its gradient keeps its sign and shrunk when the sign flips."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..ops.selection import where
from ..tensors.creation import full_like, ones_like, zeros_like
from .moments import counted_state
from .optimizer import Optimizer
from .options import declared_init


class Rprop(Optimizer):
    """Rprop: with the previous gradient $g'$ and per-element step sizes $s$ (`lr` at first),

    $$s \\leftarrow \\operatorname{clamp}(s \\cdot \\eta, s_\\min, s_\\max), \\quad
    \\eta = \\eta_+ \\text{ if } g g' > 0,\\ \\eta_- \\text{ if } g g' < 0,\\ 1 \\text{ else},$$
    $$w \\leftarrow w - \\operatorname{sign}(g)\\, s,$$

    where a sign flip also sets $g$ to 0 (no move, and no flip counted next step).
    """

    __init__ = declared_init(
        """lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
        maximize=False, differentiable=False""",
        checked="lr etas",
        stored="lr etas step_sizes foreach maximize differentiable capturable",
    )

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        state, _ = counted_state(
            self.state, p, "prev", ("step_size", lambda: full_like(p.grad, group["lr"]))
        )
        grad = -p.grad if group["maximize"] else p.grad
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        agreement = grad * state["prev"]
        flipped = agreement < 0
        step_size = state["step_size"]
        # the factors in the step sizes' dtype: an eta in float32 would round it
        factor = where(agreement > 0, etaplus, where(flipped, etaminus, ones_like(step_size)))
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        grad = where(flipped, zeros_like(grad), grad)
        p.addcmul_(grad.sign(), step_size, value=-1)
        state["prev"].copy_(grad)
