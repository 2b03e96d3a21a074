"""`SGD`: stochastic gradient descent, $w \\leftarrow w - \\mathrm{lr} \\cdot g$."""

from __future__ import annotations

from collections.abc import Iterable

from ..autograd import no_grad
from .optimizer import Optimizer


class SGD(Optimizer):
    """Plain gradient descent: each step moves every parameter against its gradient."""

    def __init__(self, params: Iterable, lr: float = 1e-3) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(params, {"lr": lr})

    @no_grad()
    def step(self) -> None:
        """$w \\leftarrow w - \\mathrm{lr} \\cdot g$ for every parameter with a gradient $g$."""
        lr = self.defaults["lr"]
        for p in self.params:
            if p.grad is not None:
                p.sub_(p.grad, alpha=lr)
