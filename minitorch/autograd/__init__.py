"""`minitorch.autograd`, as `torch.autograd`: differentiable functions and the backward pass.

Module 2 builds it on the graph engine of module 1 (`minitorch/autodiff.py`):
`function.py` (`Function`, forward and backward side by side), `nodes.py`
(the nodes a forward records, `sum_to`), `graph.py` (`backward`, `grad`),
`grad_mode.py` (`no_grad`, ...) and `gradcheck.py` (central differences).
"""

from .function import Function
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, grad_check, gradcheck, gradgradcheck
from .graph import backward, grad

__all__ = [
    "Function",
    "GradcheckError",
    "backward",
    "enable_grad",
    "grad",
    "grad_check",
    "gradcheck",
    "gradgradcheck",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]
