"""More of PyTorch's factories: `as_tensor`/`asarray` (no copy when nothing changes),
`scalar_tensor`, `range`, `randint_like`, `empty_strided`, the signal windows (`hann_window`,
`hamming_window`, `blackman_window`, `bartlett_window`, `kaiser_window`), `vander`,
`combinations` and `unravel_index`.

The windows are the textbook formulas over $n = 0, \\dots, N - 1$ with
$N$ = `window_length` (`periodic=True`, the default, computes $N + 1$ points and drops the
last, as for spectral analysis).
"""

from __future__ import annotations

import builtins
import itertools
import math
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..backends.tensor_data import TensorData
from ..tensors.base import TensorBase
from ..tensors.creation import arange, from_numpy, randint, tensor, zeros
from ..tensors.device import device as Device
from ..tensors.kernels import view_of
from .arithmetic import add, mul, sub, tensor_pow
from .copies import to
from .joins import stack
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


@public(method=False)
def as_tensor(data, dtype=None, device=None) -> Tensor:
    """`data` as a tensor: a tensor of the dtype and device asked for is returned itself,
    a NumPy array is shared (`from_numpy`) when its dtype is kept, anything else copied."""
    if isinstance(data, TensorBase):
        return to(data, dtype=dtype, device=device)
    if isinstance(data, np.ndarray) and dtype in (None, dtypes.from_numpy_dtype(data.dtype)):
        shared = from_numpy(data)
        return shared if device is None else to(shared, device=device)
    return tensor(data, dtype=dtype, device=device)


@public(method=False)
def asarray(obj, *, dtype=None, device=None, copy: bool | None = None, requires_grad=False):
    """`obj` as a tensor, sharing memory unless `copy=True` (or a conversion needs one)."""
    made = tensor(obj, dtype=dtype, device=device) if copy else as_tensor(obj, dtype, device)
    return made.requires_grad_(requires_grad) if requires_grad else made


@public(method=False)
def scalar_tensor(value, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A 0-dim tensor of `value`, in the default float dtype unless given."""
    made = tensor(value, dtype=dtype or dtypes.get_default_dtype(), device=device)
    return made.requires_grad_(requires_grad) if requires_grad else made


@public(method=False)
def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):  # noqa: A001
    """`start, start + step, ...` up to and including `end` (deprecated in PyTorch for
    `arange`, which stops before `end`), in the default float dtype unless given."""
    if end is None:
        start, end = 0, start
    count = int(math.floor((end - start) / step)) + 1
    values = add(mul(arange(max(count, 0), dtype=dtypes.float64), step), start)
    made = to(values, dtype or dtypes.get_default_dtype())
    if device is not None:
        made = to(made, device=Device(device))
    return made.requires_grad_(requires_grad) if requires_grad else made


@public(method=False)
def randint_like(a: Tensor, low: int = 0, high: int | None = None, *, dtype=None, device=None):
    """Random integers in `[low, high)` (`randint_like(a, high)`: from 0) in `a`'s shape, dtype
    and device unless given."""
    if high is None:
        low, high = 0, low
    made = randint(low, high, tuple(a.shape), dtype=dtype or a.dtype)
    return to(made, device=device or a.device)


@public(method=False)
def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """An uninitialised (zero) tensor of `size` laid out with strides `stride`."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
    extent = 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) if all(size) else 0
    storage = zeros(extent, dtype=dtype, device=device)
    if extent:
        made = view_of(storage, TensorData(storage._layout.storage, size, stride))
    else:
        made = zeros(*size, dtype=dtype, device=device)
    return made.requires_grad_(requires_grad) if requires_grad else made


def window_points(window_length: int, periodic: bool, device) -> tuple:
    """$n = 0..N-1$ (float64, on `device`) and the denominator $N - 1$ of the symmetric
    window."""
    if window_length < 0:
        raise RuntimeError(f"window_length must be non-negative, got {window_length}")
    n = arange(window_length, dtype=dtypes.float64, device=device)
    return n, (window_length if periodic else window_length - 1)


def window(values: Tensor, window_length: int, dtype, device, requires_grad) -> Tensor:
    if window_length == 1:
        values = values * 0 + 1
    made = to(values, dtype or dtypes.get_default_dtype())
    if device is not None:
        made = to(made, device=Device(device))
    return made.requires_grad_(requires_grad) if requires_grad else made


def cosine_window(window_length, periodic, coefficients, dtype, device, requires_grad):
    """$\\sum_k (-1)^k a_k \\cos(2 \\pi k n / (N - 1))$ (Hann, Hamming, Blackman)."""
    n, denominator = window_points(window_length, periodic, device)
    total = n * 0
    for k, a in enumerate(coefficients):
        total = add(
            total, mul(((n * (2 * math.pi * k / max(denominator, 1))).cos()), (-1) ** k * a)
        )
    return window(total, window_length, dtype, device, requires_grad)


@public(method=False)
def hann_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                requires_grad=False) -> Tensor:  # fmt: skip
    """$\\frac12 - \\frac12 \\cos \\frac{2 \\pi n}{N - 1}$."""
    return cosine_window(window_length, periodic, (0.5, 0.5), dtype, device, requires_grad)


@public(method=False)
def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
):
    """$\\alpha - \\beta \\cos \\frac{2 \\pi n}{N - 1}$."""
    return cosine_window(window_length, periodic, (alpha, beta), dtype, device, requires_grad)


@public(method=False)
def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                    requires_grad=False) -> Tensor:  # fmt: skip
    """$0.42 - 0.5 \\cos \\frac{2 \\pi n}{N - 1} + 0.08 \\cos \\frac{4 \\pi n}{N - 1}$."""
    return cosine_window(window_length, periodic, (0.42, 0.5, 0.08), dtype, device, requires_grad)


@public(method=False)
def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                    requires_grad=False) -> Tensor:  # fmt: skip
    """The triangle $1 - |\\frac{2n}{N - 1} - 1|$."""
    n, denominator = window_points(window_length, periodic, device)
    values = sub(1, (n * (2 / max(denominator, 1)) - 1).abs())
    return window(values, window_length, dtype, device, requires_grad)


def bessel_i0(x: Tensor) -> Tensor:
    """$I_0(x) = \\sum_k ((x/2)^k / k!)^2$, summed until the terms stop counting."""
    total, term = x * 0 + 1, x * 0 + 1
    for k in itertools.count(1):
        term = mul(term, (x / (2 * k)) ** 2)
        total = add(total, term)
        if (term <= total * 1e-17).all().item():
            return total


@public(method=False)
def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype=None, device=None, requires_grad=False) -> Tensor:  # fmt: skip
    """$I_0(\\beta \\sqrt{1 - (2n/(N-1) - 1)^2}) / I_0(\\beta)$."""
    n, denominator = window_points(window_length, periodic, device)
    ratio = n * (2 / max(denominator, 1)) - 1
    values = bessel_i0(sub(1, ratio**2).clamp(min=0).sqrt() * beta)
    values = values / bessel_i0(tensor(float(beta), dtype=dtypes.float64, device=n.device))
    return window(values, window_length, dtype, device, requires_grad)


@public(method=False)
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix: column $j$ is $x^{N-1-j}$ ($x^j$ if `increasing`)."""
    n = x.shape[0] if N is None else N
    powers = arange(n, device=x.device) if increasing else arange(n - 1, -1, -1, device=x.device)
    base = x.unsqueeze(1)
    if not x.dtype.is_floating_point:
        return to(tensor_pow(to(base, dtypes.int64), powers), dtypes.int64)
    return tensor_pow(base, to(powers, x.dtype))


@public(method=False)
def combinations(a: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-`r` combinations of the elements of vector `a`, as rows (in order)."""
    if a.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(a.shape)}")
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    chosen = list(pick(builtins.range(a.shape[0]), r))
    if not chosen:
        return a.new_zeros((0, r)) if r else a.new_zeros((0,))
    columns = tensor(chosen, dtype=dtypes.int64, device=a.device).t()
    return stack([a[c] for c in columns], 1)


@public(method=False)
def unravel_index(indices, shape) -> tuple:
    """The coordinates, one tensor per dim of `shape`, of flat positions `indices`."""
    flat = indices if isinstance(indices, TensorBase) else tensor(indices)
    if flat.dtype.is_floating_point or flat.dtype is dtypes.bool_:
        raise TypeError("expected 'indices' to be integer dtype, but got " + str(flat.dtype))
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = math.prod(shape)
    if ((flat < -total) | (flat >= total)).any().item():
        raise ValueError("index out of bounds for the shape")
    flat = (flat + total) % total if total else flat
    coordinates = []
    for size in reversed(shape):
        coordinates.append(flat % size)
        flat = flat.div(size, rounding_mode="floor")
    return tuple(reversed(coordinates))
