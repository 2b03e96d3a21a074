"""`exp`, `log`, `tanh` and `sigmoid` of contiguous float arrays with NumPy's SIMD loops.

Numba calls libm's scalar `exp`, `log` and `tanh` (the pip wheels of llvmlite have no
SVML), while NumPy's loops are vectorized: several times faster on large arrays
(tutorial 03a measures it). `FastBackend.map` takes this path for those functions.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ... import operators
from ..tensor_data import TensorData

# Below this many elements the compiled map kernel is as fast as NumPy's loops.
VECTOR_MATH_MIN = 4096


def _sigmoid_from_exp(x: float, e: float) -> float:
    """$\\sigma(x)$ from $e = e^{-|x|}$: $1/(1+e)$ for $x \\ge 0$, $e/(1+e)$ below."""
    return (1.0 if x >= 0.0 else e) / (1.0 + e)


def _vector_math(backend, fn: Callable, out: TensorData, a: TensorData) -> bool:
    """Run `fn` with NumPy's SIMD loops when `out` and `a` are contiguous float arrays alike.

    Returns whether it did; otherwise the map kernel runs. NaN stays NaN, overflow gives
    $\\pm\\infty$, $\\ln 0 = -\\infty$ and $\\ln x$ is NaN below 0, as `operators` says
    and PyTorch does; NumPy's warnings about them are silenced.
    """
    dtype = out.storage.dtype
    if (
        a.storage.dtype != dtype
        or dtype not in (np.float32, np.float64)
        or a.shape != out.shape
        or a.strides != out.strides
        or not out.is_contiguous()
    ):
        return False
    size = out.numel()
    if size < VECTOR_MATH_MIN:
        return False
    x = a.storage[a.offset : a.offset + size]
    y = out.storage[out.offset : out.offset + size]
    with np.errstate(all="ignore"):
        if fn is operators.sigmoid:
            np.negative(np.abs(x, out=y), out=y)
            np.exp(y, out=y)
            backend.zip(_sigmoid_from_exp, out, a, out)  # reads e from out, in order
        else:
            VECTOR_MATH[fn](x, out=y)
    return True


VECTOR_MATH = {
    operators.exp: np.exp,
    operators.log: np.log,
    operators.tanh: np.tanh,
    operators.sigmoid: None,  # exp, then `_sigmoid_from_exp`
}
