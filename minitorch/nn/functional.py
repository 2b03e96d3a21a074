"""`minitorch.nn.functional`, as `torch.nn.functional`: activations, losses and layers as functions.

>>> import minitorch
>>> import minitorch.nn.functional as F
>>> F.relu(minitorch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""

from __future__ import annotations

import warnings

from .._tensor import Tensor
from ..ops.api import (
    batch_norm,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    l1_loss,
    layer_norm,
    mse_loss,
    nll_loss,
    normalize,
    relu,
    sigmoid,
    smooth_l1_loss,
    tanh,
)
from ..ops.api import log_softmax as ops_log_softmax
from ..ops.api import softmax as ops_softmax


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """$y = x W^T + b$: `weight` has shape (out_features, in_features), as in PyTorch."""
    output = input @ weight.T
    return output if bias is None else output + bias


# ---------------------------------------------------------------------------
# Softmax, losses and normalization (the functions live in minitorch/ops/losses.py and
# normalization.py; softmax's implicit dim is PyTorch's functional-only behaviour)
# ---------------------------------------------------------------------------


def _softmax_dim(ndim: int, name: str) -> int:
    """PyTorch's legacy choice of dim when none is given (dim 0 for 0-, 1- and 3-D inputs)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:  # noqa: A002
    """$e^{x_i} / \\sum_j e^{x_j}$ along `dim`, computed stably (in `dtype` when given)."""
    if dim is None:
        dim = _softmax_dim(input.ndim, "softmax")
    return ops_softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:  # noqa: A002
    """$x_i - \\ln \\sum_j e^{x_j}$ along `dim`, computed stably (in `dtype` when given)."""
    if dim is None:
        dim = _softmax_dim(input.ndim, "log_softmax")
    return ops_log_softmax(input, dim, dtype)


__all__ = [
    "linear",
    "relu",
    "sigmoid",
    "tanh",
    # softmax, losses and normalization
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "huber_loss",
    "l1_loss",
    "layer_norm",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "normalize",
    "smooth_l1_loss",
    "softmax",
]
