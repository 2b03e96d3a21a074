"""`gumbel_softmax`: a differentiable sample of a categorical distribution (the Gumbel-softmax,
or concrete, relaxation), as in `torch.nn.functional`.

$y = \\mathrm{softmax}((x + g) / \\tau)$ with $g_i = -\\ln e_i$, $e_i \\sim \\mathrm{Exp}(1)$
Gumbel noise: $\\arg\\max_i (x_i + g_i)$ is distributed as $\\mathrm{softmax}(x)$. `hard=True`
returns the one-hot of that argmax, with the gradient of $y$ (the straight-through estimator):
$y_\\text{hard} - \\text{detach}(y) + y$.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from .public import public
from .reductions import softmax

if TYPE_CHECKING:
    from .._tensor import Tensor


@public(torch=False, method=False, functional=True)
def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """$\\mathrm{softmax}((x + g) / \\tau)$ along `dim` for fresh Gumbel noise $g$ (drawn from
    the default generator); with `hard`, its one-hot argmax, differentiated as the soft
    sample. `eps` is deprecated and unused, as in PyTorch."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -logits.new_empty(logits.shape).exponential_().log()
    soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    one_hot = logits.new_zeros(logits.shape).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft
