"""Products composed from `matmul`, `bmm`, `outer` and broadcasting: the BLAS-style updates
(`addmv`, `addr`, `baddbmm`, `addbmm`), `mv`, `inner`, `kron`, `cross`, `dist`, and the
out-of-place `addcmul`/`addcdiv`.

The updates compute $\\beta \\cdot c + \\alpha \\cdot (\\text{product})$; with
$\\beta = 0$ the input `c` is ignored (its NaNs do not spread), as in PyTorch.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from ..backends.tensor_data import normalize_dim, shape_broadcast
from .arithmetic import add, div, mul, sub
from .joins import bmm, outer, stack
from .linalg import matmul
from .public import public
from .statistics import vector_norm
from .views import expand, reshape

if TYPE_CHECKING:
    from .._tensor import Tensor


def scaled_update(c: Tensor, product: Tensor, beta, alpha) -> Tensor:
    """$\\beta c + \\alpha \\cdot product$ ($c$ ignored when $\\beta = 0$)."""
    term = product if alpha == 1 else mul(product, alpha)
    if beta == 0:
        shape = shape_broadcast(tuple(c.shape), tuple(term.shape))
        return term if tuple(term.shape) == shape else expand(term, *shape).clone()
    return add(c if beta == 1 else mul(c, beta), term)


def check_ndim(t: Tensor, ndim: int, what: str) -> None:
    if t.ndim != ndim:
        raise RuntimeError(f"{what} must be a {ndim}D tensor, but got a {t.ndim}D tensor")


@public()
def mv(a: Tensor, v: Tensor) -> Tensor:
    """The matrix-vector product $a v$."""
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
            f"vec ({v.shape[0]})"
        )
    return matmul(a, v)


@public()
def addmv(c: Tensor, a: Tensor, v: Tensor, *, beta=1, alpha=1) -> Tensor:
    """$\\beta c + \\alpha \\, a v$."""
    return scaled_update(c, mv(a, v), beta, alpha)


@public()
def addr(c: Tensor, u: Tensor, v: Tensor, *, beta=1, alpha=1) -> Tensor:
    """$\\beta c + \\alpha \\, u v^T$."""
    check_ndim(u, 1, "addr: Expected 1-D argument vec1, but got")
    return scaled_update(c, outer(u, v), beta, alpha)


@public()
def baddbmm(c: Tensor, a: Tensor, b: Tensor, *, beta=1, alpha=1) -> Tensor:
    """$\\beta c + \\alpha \\, a_i b_i$ for each matrix $i$ of the batches."""
    return scaled_update(c, bmm(a, b), beta, alpha)


@public()
def addbmm(c: Tensor, a: Tensor, b: Tensor, *, beta=1, alpha=1) -> Tensor:
    """$\\beta c + \\alpha \\sum_i a_i b_i$ (the batch's products summed)."""
    return scaled_update(c, bmm(a, b).sum(0), beta, alpha)


@public()
def inner(a: Tensor, b: Tensor) -> Tensor:
    """The dot products over the last dims: shape `a.shape[:-1] + b.shape[:-1]`."""
    if a.ndim == 0 or b.ndim == 0:
        return mul(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(a.shape)} and {list(b.shape)}"
        )
    n = a.shape[-1]
    flat = matmul(reshape(a, -1, n), reshape(b, -1, n).t())
    return reshape(flat, *a.shape[:-1], *b.shape[:-1])


@public()
def kron(a: Tensor, b: Tensor) -> Tensor:
    """The Kronecker product: block $(i, j)$ is $a_{ij} \\, b$ (any number of dims)."""
    ndim = max(a.ndim, b.ndim)
    sa = (1,) * (ndim - a.ndim) + tuple(a.shape)
    sb = (1,) * (ndim - b.ndim) + tuple(b.shape)
    interleaved_a = [size for s in sa for size in (s, 1)]
    interleaved_b = [size for s in sb for size in (1, s)]
    product = mul(reshape(a, *interleaved_a), reshape(b, *interleaved_b))
    return reshape(product, *[x * y for x, y in zip(sa, sb, strict=True)])


@public()
def cross(a: Tensor, b: Tensor, dim: int | None = None) -> Tensor:
    """The cross product $a \\times b$ of 3-vectors along `dim` (by default the first dim of
    size 3, with PyTorch's deprecation warning)."""
    shape = shape_broadcast(tuple(a.shape), tuple(b.shape))
    a, b = expand(a, *shape), expand(b, *shape)
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=2,
        )
        dim = next((d for d, size in enumerate(shape) if size == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    dim = normalize_dim(dim, len(shape))
    if shape[dim] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[dim]} and "
            f"{b.shape[dim]}"
        )
    a1, a2, a3 = a.unbind(dim)
    b1, b2, b3 = b.unbind(dim)
    parts = [sub(a2 * b3, a3 * b2), sub(a3 * b1, a1 * b3), sub(a1 * b2, a2 * b1)]
    return stack(parts, dim)


@public()
def dist(a: Tensor, b: Tensor, p: float = 2) -> Tensor:
    """$\\|a - b\\|_p$ over all elements (after broadcasting)."""
    return vector_norm(sub(a, b), p)


@public()
def addcmul(a: Tensor, t1: Tensor, t2: Tensor, *, value=1) -> Tensor:
    """$a + \\mathrm{value} \\cdot t_1 t_2$."""
    product = mul(t1, t2)
    return add(a, product if value == 1 else mul(product, value))


@public()
def addcdiv(a: Tensor, t1: Tensor, t2: Tensor, *, value=1) -> Tensor:
    """$a + \\mathrm{value} \\cdot t_1 / t_2$."""
    quotient = div(t1, t2)
    return add(a, quotient if value == 1 else mul(quotient, value))
