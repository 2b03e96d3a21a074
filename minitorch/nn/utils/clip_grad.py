"""Gradient clipping: scale the gradients so their total norm is at most `max_norm`, or
clamp each gradient element into $[-c, c]$.

The total norm of order $p$ over gradients $g_1, \\dots, g_k$ is the norm of their norms,
$\\lVert (\\lVert g_1 \\rVert_p, \\dots, \\lVert g_k \\rVert_p) \\rVert_p$: for $p > 0$
and $p = \\pm\\infty$ the $p$-norm of all their elements together (the largest $|g|$ for
$\\infty$), for $p = 0$ the number of nonzero gradients, as PyTorch computes it.
`foreach` is accepted as in PyTorch: the gradients are updated one tensor at a time on
every device, which gives the same numbers as PyTorch's batched (`_foreach_`) kernels.
"""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Iterable

from ..._tensor import Tensor
from ...autograd import no_grad
from ...ops.joins import stack
from ...ops.statistics import vector_norm
from ...tensors.creation import tensor as new_tensor

TensorOrTensors = Tensor | Iterable[Tensor]


def _as_list(tensors: TensorOrTensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(
    tensors: TensorOrTensors,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The $p$-norm ($p$ = `norm_type`, `inf` allowed) of all elements of `tensors`, as a
    0-dim tensor (`tensor(0.)` for none); a `RuntimeError` when it is NaN or infinite and
    `error_if_nonfinite`."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return new_tensor(0.0)
    with no_grad():
        first_device = tensors[0].device
        norms = [vector_norm(t, norm_type).to(first_device) for t in tensors]
        total_norm = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and (total_norm.isnan() | total_norm.isinf()).item():
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total_norm


def clip_grads_with_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    total_norm: Tensor,
    foreach: bool | None = None,
) -> None:
    """Multiply every gradient by $\\min(1, \\text{max\\_norm} / (\\text{total\\_norm} +
    10^{-6}))$, so their total norm becomes at most `max_norm`."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.device))


def clip_grad_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients of `parameters` in place so their total `norm_type`-norm is at
    most `max_norm`; returns the total norm before clipping (see `get_total_norm`)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=2,
            )
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


@functools.wraps(clip_grad_norm_, assigned=("__module__", "__annotations__"))
def clip_grad_norm(*args, **kwargs) -> Tensor:
    """`clip_grad_norm_`, under its deprecated name (with PyTorch's `FutureWarning`); its
    signature is `clip_grad_norm_`'s (`__wrapped__`)."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(*args, **kwargs)


def clip_grad_value_(
    parameters: TensorOrTensors, clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient element of `parameters` into $[-c, c]$, $c$ = `clip_value`."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
