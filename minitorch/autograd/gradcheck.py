"""Checking a backward against central differences: `grad_check`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import float32, float64
from ..tensors import creation
from .grad_mode import no_grad

if TYPE_CHECKING:
    from .._tensor import Tensor


class GradcheckError(RuntimeError):
    """A gradient from backward differs from its central-difference estimate."""


def grad_check(
    fn: Callable[..., Tensor],
    *inputs: Tensor,
    eps: float = 1e-6,
    atol: float | None = None,
    rtol: float | None = None,
    seed: int = 0,
) -> bool:
    r"""Check backward's gradients of `fn` at `inputs` against central differences.

    A fixed random weighting $w$ turns the output into a number,
    $L = \sum_i w_i \, fn(inputs)_i$, so that every entry of the
    vector-Jacobian product is tested, not only its sum. For every element
    $x_j$ of every input that requires grad, backward's $\partial L / \partial x_j$
    must match $(L(x_j + \epsilon) - L(x_j - \epsilon)) / 2\epsilon$,
    computed in float64. Raises `GradcheckError` naming the input, the index
    and both values; returns True otherwise.

    >>> import minitorch
    >>> x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    >>> minitorch.grad_check(lambda t: (t * t).sum(), x)
    True
    """
    low_precision = any(x.dtype is float32 for x in inputs)
    atol = (1e-3 if low_precision else 1e-6) if atol is None else atol
    rtol = (1e-2 if low_precision else 1e-5) if rtol is None else rtol
    for x in inputs:
        x.grad = None
    output = fn(*inputs)
    weights = np.random.default_rng(seed).uniform(0.5, 1.5, size=tuple(output.shape))
    (output * creation.tensor(weights, dtype=output.dtype, device=output.device)).sum().backward()

    originals = [np.array(x.detach().cpu().numpy(), dtype=np.float64) for x in inputs]

    def weighted_output(arrays: list[np.ndarray]) -> float:
        """$L$ at `arrays`, each on its input's device."""
        with no_grad():
            tensors = [
                creation.tensor(a, dtype=float64, device=x.device)
                for a, x in zip(arrays, inputs, strict=True)
            ]
            out = fn(*tensors).detach().cpu().numpy()
        return float(np.sum(np.asarray(out, dtype=np.float64) * weights))

    for k, x in enumerate(inputs):
        if not x.requires_grad:
            continue
        analytic = (
            np.zeros(originals[k].shape)
            if x.grad is None
            else np.asarray(x.grad.cpu().numpy(), dtype=np.float64)
        )
        for index in np.ndindex(*originals[k].shape):
            arrays = [a.copy() for a in originals]
            arrays[k][index] += eps
            up = weighted_output(arrays)
            arrays[k][index] -= 2 * eps
            down = weighted_output(arrays)
            numeric = (up - down) / (2 * eps)
            if not abs(analytic[index] - numeric) <= atol + rtol * abs(numeric):
                raise GradcheckError(
                    f"grad_check: the gradient of input {k} at index {tuple(map(int, index))} "
                    f"is {float(analytic[index])!r} by backward but {numeric!r} by central "
                    "differences"
                )
    return True
