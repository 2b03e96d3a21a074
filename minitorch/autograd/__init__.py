"""`minitorch.autograd`, as `torch.autograd`: differentiable functions and the backward pass.

Module 2 builds it on the graph engine of module 1 (`minitorch/autodiff.py`):
`function.py` (`Function`, forward and backward side by side), `nodes.py`
(the nodes a forward records, `sum_to`), `graph.py` (`backward`, `grad`),
`grad_mode.py` (`no_grad`, ...), `gradcheck.py` (central differences), `functional.py`
(Jacobians, Hessians and their products with vectors), `forward_ad.py` (dual tensors:
forward mode), `variable.py` (pre-0.4 names: `Variable`) and `anomaly_mode.py` (which forward
call made a NaN gradient).
"""

from . import forward_ad, functional
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .function import Function
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, grad_check, gradcheck, gradgradcheck
from .graph import backward, grad
from .nodes import SavedTensor
from .variable import (
    Variable,
    is_multithreading_enabled,
    is_view_replay_enabled,
    set_multithreading_enabled,
    variable,
)

# by the module each name comes from, in the order of the imports
__all__ = [
    "forward_ad",
    "functional",
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_detect_anomaly",
    "Function",
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
    "GradcheckError",
    "grad_check",
    "gradcheck",
    "gradgradcheck",
    "backward",
    "grad",
    "SavedTensor",
    "Variable",
    "is_multithreading_enabled",
    "is_view_replay_enabled",
    "set_multithreading_enabled",
    "variable",
]
