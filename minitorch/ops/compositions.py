"""PyTorch's functions that are short compositions of existing operations:
selections (`select`, `take_along_dim`, `ravel`), scatters into a copy
(`slice_scatter`, `select_scatter`, `diagonal_scatter`), products (`trace`, `vdot`,
`tensordot`, `chain_matmul`, `cdist`), statistics (`var_mean`, `std_mean`, `cov`,
`corrcoef`) and elementwise odds and ends (`positive`, `rsub`, `sgn`, `fmax`/`fmin`,
`ldexp`, `isreal`).

A scatter into a copy writes `src` into a clone with an indexing assignment, which
autograd records as any in-place write into a view: `a`'s gradient is zero where `src`
went, and `src` gets the gradient of the region.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from .. import dtypes
from ..backends.tensor_data import normalize_dim
from ..tensors.base import TensorBase
from ..tensors.creation import ones
from .arithmetic import div, mul, sub, tensor_pow
from .comparisons import where
from .copies import clone, to
from .gather import gather
from .joins import diagonal, split
from .linalg import matmul
from .public import public
from .reductions import mean, tensor_sum
from .statistics import var, vector_norm
from .unary import sqrt
from .views import expand, flatten, permute, reshape

if TYPE_CHECKING:
    from .._tensor import Tensor


@public()
def select(a: Tensor, dim: int, index: int) -> Tensor:
    """The slice of `a` at `index` along `dim`, that dim removed (a view: `a[..., index]`)."""
    dim = normalize_dim(dim, a.ndim)
    size = a.shape[dim]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(a.shape)} at "
            f"dimension {dim}"
        )
    return a[(slice(None),) * dim + (index,)]


@public()
def take_along_dim(a: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """`gather` with `indices` broadcast against `a` (all elements, flattened, if no dim)."""
    if dim is None:
        return gather(flatten(a), 0, flatten(indices))
    dim = normalize_dim(dim, a.ndim)
    shape_a, shape_i = list(a.shape), list(indices.shape)
    shape_a[dim] = shape_i[dim] = 1
    common = [max(x, y) for x, y in zip(shape_a, shape_i, strict=True)]
    a_shape, i_shape = list(common), list(common)
    a_shape[dim], i_shape[dim] = a.shape[dim], indices.shape[dim]
    return gather(expand(a, *a_shape), dim, expand(indices, *i_shape))


@public()
def ravel(a: Tensor) -> Tensor:
    """`a` as one row (a view when its layout allows)."""
    return reshape(a, -1)


def scattered(a: Tensor, key: tuple, src: Tensor) -> Tensor:
    """A copy of `a` with `src` written at `a[key]` (recorded for autograd)."""
    out = clone(a)
    out[key] = src
    return out


@public()
def slice_scatter(a: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1):
    """A copy of `a` with `src` written at `a[start:end:step]` along `dim`."""
    dim = normalize_dim(dim, a.ndim)
    return scattered(a, (slice(None),) * dim + (slice(start, end, step),), src)


@public()
def select_scatter(a: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of `a` with `src` written at `select(a, dim, index)`."""
    dim = normalize_dim(dim, a.ndim)
    return scattered(a, (slice(None),) * dim + (index,), src)


@public()
def diagonal_scatter(a: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """A copy of `a` with `src` written on `diagonal(a, offset, dim1, dim2)`."""
    out = clone(a)
    view = diagonal(out, offset, dim1, dim2)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(view.shape)}"
        )
    view.copy_(src)
    return out


@public()
def trace(a: Tensor) -> Tensor:
    """The sum of a matrix's main diagonal."""
    if a.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    return tensor_sum(diagonal(a))


@public()
def vdot(a: Tensor, b: Tensor) -> Tensor:
    """$\\sum_i a_i b_i$ of two vectors (real tensors: `dot`)."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return tensor_sum(mul(a, b))


@public(method=False)
def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    """The sum over `a`'s last `dims` dims against `b`'s first (or over the pairs of dims
    in `dims = (dims_a, dims_b)`)."""
    if isinstance(dims, int):
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    dims_a = [normalize_dim(d, a.ndim) for d in dims_a]
    dims_b = [normalize_dim(d, b.ndim) for d in dims_b]
    for x, y in zip(dims_a, dims_b, strict=True):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[x]} in dim "
                f"{x} and second has size {b.shape[y]} in dim {y}"
            )
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    inner = 1
    for d in dims_a:
        inner *= a.shape[d]
    left = reshape(permute(a, *free_a, *dims_a), -1, inner)
    right = reshape(permute(b, *dims_b, *free_b), inner, -1)
    shape = [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]
    return reshape(matmul(left, right), *shape)


@public(method=False)
def chain_matmul(*matrices) -> Tensor:
    """The product of the matrices, left to right."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    return functools.reduce(matmul, matrices)


@public(method=False)
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode=None) -> Tensor:
    """The `p`-norm distances between each row of `x1` and each row of `x2` (batched)."""
    gaps = sub(x1.unsqueeze(-2), x2.unsqueeze(-3))
    return vector_norm(gaps, p, dim=-1)


def moments(a: Tensor, dim, correction, keepdim: bool, root: bool) -> tuple:
    spread = var(a, dim, keepdim=keepdim, correction=1 if correction is None else correction)
    centre = mean(a, dim, keepdim) if dim is not None else mean(a)
    if keepdim and dim is None:
        centre = reshape(centre, *([1] * a.ndim))
    return (sqrt(spread) if root else spread), centre


@public(method=False)
def var_mean(a: Tensor, dim=None, *, correction=None, keepdim: bool = False) -> tuple:
    """`(var, mean)` over `dim` (all elements by default)."""
    return moments(a, dim, correction, keepdim, False)


@public(method=False)
def std_mean(a: Tensor, dim=None, *, correction=None, keepdim: bool = False) -> tuple:
    """`(std, mean)` over `dim` (all elements by default)."""
    return moments(a, dim, correction, keepdim, True)


@public()
def cov(a: Tensor, *, correction: int = 1, fweights=None, aweights=None) -> Tensor:
    """The covariance matrix of the variables in `a`'s rows, observed in its columns."""
    if a.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{a.ndim} dimensions"
        )
    x = a.reshape(1, -1) if a.ndim < 2 else a
    x = x if x.dtype.is_floating_point else to(x, dtypes.get_default_dtype())
    weights = None
    if fweights is not None:
        weights = to(fweights, x.dtype)
    if aweights is not None:
        weights = to(aweights, x.dtype) if weights is None else mul(weights, aweights)
    if weights is None:
        centred = sub(x, mean(x, 1, keepdim=True))
        n = x.shape[1]
        result = div(matmul(centred, centred.t()), max(n - correction, 0))
    else:
        total = tensor_sum(weights)
        centre = div(tensor_sum(mul(x, weights), 1, keepdim=True), total)
        centred = sub(x, centre)
        if aweights is None or correction == 0:
            norm = sub(total, correction) if correction else total
        else:
            norm = sub(total, div(tensor_sum(mul(weights, aweights)), total) * correction)
        result = div(matmul(mul(centred, weights), centred.t()), norm)
    return result.reshape(()) if a.ndim < 2 else result


@public()
def corrcoef(a: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the variables in `a`'s rows (in $[-1, 1]$)."""
    c = cov(a)
    if c.ndim == 0:
        return div(c, c)
    d = sqrt(diagonal(c))
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)


@public()
def positive(a: Tensor) -> Tensor:
    """`a` itself (unary plus); booleans are refused, as in PyTorch."""
    if a.dtype is dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return a


@public()
def rsub(a, b, *, alpha=1) -> Tensor:
    """$b - \\alpha a$ (subtraction with the operands reversed)."""
    return sub(b, a if alpha == 1 else mul(a, alpha))


@public(inplace=True)
def sgn(a: Tensor) -> Tensor:
    """The sign of each element (for real tensors, `sign`)."""
    return a.sign()


@public()
def fmax(a: Tensor, b) -> Tensor:
    """The larger of $a$ and $b$ elementwise, ignoring a NaN when the other is a number."""
    b = b if isinstance(b, TensorBase) else a.new_tensor(b)
    return where((a >= b) | (b != b), a, b)  # a tie's gradient goes to `a`, as torch's


@public()
def fmin(a: Tensor, b) -> Tensor:
    """The smaller of $a$ and $b$ elementwise, ignoring a NaN when the other is a number."""
    b = b if isinstance(b, TensorBase) else a.new_tensor(b)
    return where((a <= b) | (b != b), a, b)


@public(inplace=True)
def ldexp(a: Tensor, b) -> Tensor:
    """$a \\cdot 2^b$."""
    exponent = to(b, dtypes.get_default_dtype()) if isinstance(b, TensorBase) else float(b)
    return mul(a, tensor_pow(2.0, exponent))


@public()
def isreal(a: Tensor) -> Tensor:
    """Whether each element is real: always, for minitorch's tensors."""
    return ones(tuple(a.shape), dtype=dtypes.bool_, device=a.device)


@public()
def split_with_sizes(a: Tensor, split_sizes, dim: int = 0) -> tuple:
    """`a` split along `dim` into pieces of `split_sizes` (which must add up to the dim)."""
    return split(a, list(split_sizes), dim)
