"""`Adafactor`: Adam's second moment kept as a row and a column factor, with a relative step.

For a matrix of shape (m, n) it keeps the mean squared gradient of each row and of each
column, m + n numbers instead of m n, and estimates each element's second moment from
their product; a vector keeps its full second moment. The step size follows the size of
the parameter itself (its RMS), and the update is clipped to an RMS of at most `d`.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..dtypes import finfo
from ..tensors.creation import zeros
from .moments import counted_state
from .optimizer import Optimizer
from .options import declared_init


def check_adafactor_options(defaults: dict[str, Any]) -> None:
    """PyTorch's checks of Adafactor's options, with its wording."""
    eps1, eps2 = defaults["eps"]
    checks = [
        (0.0 <= defaults["lr"], f"Learning rate should be >= 0 but is: {defaults['lr']}"),
        (defaults["beta2_decay"] <= 0.0,
         f"beta2_decay should be <= 0 but is: {defaults['beta2_decay']}"),
        (eps1 is None or 0.0 <= eps1, f"epsilon1 should be >= 0 but is: {eps1}"),
        (0.0 <= eps2, f"epsilon2 should be >= 0 but is: {eps2}"),
        (1.0 <= defaults["d"], f"Clipping threshold d should be >= 1 but is: {defaults['d']}"),
        (0.0 <= defaults["weight_decay"],
         f"weight_decay should be >= 0 but is: {defaults['weight_decay']}"),
    ]  # fmt: skip
    for holds, message in checks:
        if not holds:
            raise ValueError(message)


def factor_shape(p: Tensor, dim: int) -> tuple[int, ...]:
    """`p`'s shape with size 1 in `dim`: the shape of a row (dim -1) or column (-2) factor."""
    shape = list(p.shape)
    shape[dim] = 1
    return tuple(shape)


class Adafactor(Optimizer):
    """Adafactor (Shazeer & Stern), as PyTorch has it: at step $t$, with
    $\\hat\\beta_t = t^{\\text{beta2\\_decay}}$ (the weight of the new squared gradient),
    $\\rho_t = \\min(\\mathrm{lr}, 1/\\sqrt t)$ and $\\alpha_t = \\max(\\epsilon_2,
    \\mathrm{RMS}(w))\\,\\rho_t$,

    $$R \\leftarrow \\mathrm{lerp}(R, \\overline{g^2}_{\\text{rows}}, \\hat\\beta_t), \\quad
    C \\leftarrow \\mathrm{lerp}(C, \\overline{g^2}_{\\text{columns}}, \\hat\\beta_t), \\quad
    \\hat v = \\frac{R C}{\\max(\\bar R, \\epsilon_1)},$$

    (for a vector $\\hat v \\leftarrow \\mathrm{lerp}(\\hat v, g^2, \\hat\\beta_t)$), then
    $u = g / \\sqrt{\\max(\\hat v, \\epsilon_1^2)}$ and
    $w \\leftarrow w - \\alpha_t\\, u / \\max(1, \\mathrm{RMS}(u) / d)$. Weight decay shrinks
    $w$ by $1 - \\mathrm{lr}\\,\\lambda$ first; $\\epsilon_1$ = None is the dtype's epsilon.
    """

    __init__ = declared_init(
        """lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
        foreach=None, maximize=False""",
        checked="",
        check=check_adafactor_options,
    )

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        grad = -p.grad if group["maximize"] else p.grad
        factored = grad.ndim > 1
        if factored:
            entries = [
                (name, lambda dim=dim: zeros(factor_shape(p, dim), dtype=p.dtype, device=p.device))
                for name, dim in (("row_var", -1), ("col_var", -2))
            ]
        else:
            entries = ["variance"]
        state, t = counted_state(self.state, p, *entries)
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = finfo(p.dtype).eps
        new_weight = t ** group["beta2_decay"]
        alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * min(group["lr"], 1 / t**0.5)
        if group["weight_decay"] != 0:
            p.mul_(1 - group["lr"] * group["weight_decay"])
        if factored:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(grad.norm(dim=-1, keepdim=True).square().div(grad.shape[-1]), new_weight)
            col_var.lerp_(grad.norm(dim=-2, keepdim=True).square().div(grad.shape[-2]), new_weight)
            estimate = (row_var @ col_var).div(row_var.mean(dim=-2, keepdim=True).clamp(min=eps1))
        else:
            state["variance"].lerp_(grad * grad, new_weight)
            estimate = state["variance"]
        update = estimate.clamp(min=eps1 * eps1).rsqrt().mul(grad)
        clip = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * group["d"]))
        p.add_(update, alpha=-alpha / clip)
