"""`RMSprop`: steps divided by a running root-mean-square of the gradient."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from .moments import counted_state
from .optimizer import Optimizer, descent_gradient
from .options import declared_init


class RMSprop(Optimizer):
    """RMSprop (Hinton): for a parameter $w$ with gradient $g$,

    $$v \\leftarrow \\alpha v + (1 - \\alpha) g^2, \\quad
    w \\leftarrow w - \\mathrm{lr} \\frac{g}{\\sqrt{v} + \\epsilon}.$$

    `centered` subtracts the square of the running mean of $g$ from $v$ first;
    with `momentum` $\\mu$ the step goes through a buffer
    $b \\leftarrow \\mu b + g / (\\sqrt{v} + \\epsilon)$, $w \\leftarrow w - \\mathrm{lr}\\,b$.
    """

    __init__ = declared_init(
        """lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
        capturable=False, foreach=None, maximize=False, differentiable=False""",
        checked="lr eps momentum weight_decay alpha",
        stored="""lr momentum alpha eps centered weight_decay capturable foreach maximize
        differentiable""",
    )

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        entries = ["square_avg"]
        if group["momentum"] > 0:
            entries.append("momentum_buffer")
        if group["centered"]:
            entries.append("grad_avg")
        state, _ = counted_state(self.state, p, *entries)
        grad = descent_gradient(p, group)
        alpha, square_avg = group["alpha"], state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.sub(grad_avg * grad_avg).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(group["eps"])
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.mul_(group["momentum"]).addcdiv_(grad, avg)
            p.add_(buf, alpha=-group["lr"])
        else:
            p.addcdiv_(grad, avg, value=-group["lr"])
