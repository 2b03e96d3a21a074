"""More reductions: `cumsum`, `cumprod`, `var`, `std`, `norm`, `logsumexp`, `amax`, `amin`, ...

The running sums and products run the backend's `scan` kernel along one
dimension; the others are folds (`reduce_dims`) and elementwise kernels.
Each `Function` is followed by the functions users call; `minitorch.linalg`
holds `linalg.norm` and `linalg.vector_norm`.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.graph import GraphContext
from ..backends.tensor_data import normalize_dim, prod
from ..tensors.creation import zeros_like
from ..tensors.kernels import (
    apply_map,
    apply_zip,
    converted,
    drop_dims,
    float_version,
    reduce_dims,
    scalar_tensor,
    scan_dim,
)
from ..tensors.shapes import reduction_dims
from .comparisons import where
from .functions import Op
from .joins import reversed_view
from .public import public
from .reductions import accumulation_dtype, expand_reduced, ties

if TYPE_CHECKING:
    from .._tensor import Tensor


# ---------------------------------------------------------------------------
# Running sums and products
# ---------------------------------------------------------------------------


def flipped(a: Tensor, dim: int) -> Tensor:
    """A copy of `a` in reverse order along `dim`."""
    return apply_map(operators.identity, reversed_view(a, (dim,)), a.dtype)


def reverse_cumsum(a: Tensor, dim: int) -> Tensor:
    """$\\sum_{k \\ge j} a_k$ along `dim`: the running sum from the end."""
    return flipped(scan_dim(operators.add, flipped(a, dim), dim, 0, a.dtype), dim)


class Cumsum(Op):
    once_differentiable = True  # its backward calls kernels: no second derivative

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim: int, dtype=None) -> Tensor:
        """$out_j = \\sum_{k \\le j} a_k$ along `dim` (a 0-dim tensor: itself)"""
        ctx.dim = dim
        if a.ndim == 0:
            return converted(a, accumulation_dtype(a, dtype)).clone()
        return scan_dim(operators.add, a, dim, 0, accumulation_dtype(a, dtype))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$\\sum_{j \\ge k} g_j$: each $a_k$ is in every later running sum"""
        return reverse_cumsum(grad, ctx.dim) if grad.ndim else grad


class Cumprod(Op):
    once_differentiable = True  # its backward calls kernels: no second derivative

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim: int, dtype=None) -> Tensor:
        """$out_j = \\prod_{k \\le j} a_k$ along `dim` (a 0-dim tensor: itself)"""
        if a.ndim == 0:
            ctx.dim = None
            return converted(a, accumulation_dtype(a, dtype)).clone()
        out = scan_dim(operators.mul, a, dim, 1, accumulation_dtype(a, dtype))
        ctx.dim = dim
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$\\sum_{j \\ge k} g_j \\prod_{i \\le j, i \\ne k} a_i$, without dividing by zero.

        Before a line's first zero this is $\\sum_{j \\ge k} g_j out_j / a_k$; at that zero,
        $\\sum_{j \\ge k} g_j q_j$, with $q$ the running product with the zero made 1; after
        it, 0 (every product holds the zero).
        """
        if ctx.dim is None:
            return grad
        a, out = ctx.saved_tensors
        dim = ctx.dim
        is_zero = a == 0
        zeros_so_far = scan_dim(operators.add, is_zero, dim, 0, dtypes.int64)
        before_zero = zeros_so_far == 0
        first_zero = is_zero & (zeros_so_far == 1)
        safe_a = a.where(before_zero, 1.0)
        before = reverse_cumsum((grad * out).where(before_zero, 0.0), dim) / safe_a
        skipping_zero = scan_dim(operators.mul, a.where(~first_zero, 1.0), dim, 1, a.dtype)
        at_zero = reverse_cumsum((grad * skipping_zero).where(zeros_so_far == 1, 0.0), dim)
        return before.where(before_zero, 0.0) + at_zero.where(first_zero, 0.0)


def scan_dim_of(a: Tensor, dim: int) -> int:
    """`dim` as a dimension of `a` (of a 0-dim tensor seen as one element)."""
    return normalize_dim(dim, max(a.ndim, 1))


@public()
def cumsum(a: Tensor, dim: int, dtype=None) -> Tensor:
    """The running sums along `dim` (integers and bools sum as int64).

    >>> import minitorch
    >>> minitorch.tensor([1, 2, 3]).cumsum(0)
    tensor([1, 3, 6])
    """
    return Cumsum.apply(a, dim=scan_dim_of(a, dim), dtype=dtype)


@public()
def cumprod(a: Tensor, dim: int, dtype=None) -> Tensor:
    """The running products along `dim`."""
    return Cumprod.apply(a, dim=scan_dim_of(a, dim), dtype=dtype)


# ---------------------------------------------------------------------------
# Variance and standard deviation
# ---------------------------------------------------------------------------


def deviations(a: Tensor, dims: tuple[int, ...]) -> tuple[Tensor, int]:
    """$a - \\bar a$ over `dims` (the mean broadcast back), and the count $n$ averaged over."""
    count = prod(a.shape[d] for d in dims)
    total = reduce_dims(operators.add, a, dims, 0, a.dtype)
    mean = apply_zip(operators.div, total, scalar_tensor(count, a.dtype), a.dtype)
    return apply_zip(operators.sub, a, mean, a.dtype), count


class Var(Op):
    once_differentiable = True  # its backward calls kernels: no second derivative

    """The variance over `dim`; `root` makes it the standard deviation (node `StdBackward0`)."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim, correction, keepdim: bool, root: bool):
        """$\\frac{1}{\\max(0, n - c)} \\sum (a - \\bar a)^2$ over `dim` (its square root for
        `std`): $n \\le c$ divides by zero, NaN or infinity as in PyTorch."""
        dims = reduction_dims(dim, a.ndim)
        centered, count = deviations(a, dims)
        # PyTorch's count is numel(a) / numel(out): 0 for an empty input, whatever `dim` is
        if (count if a.numel() else 0) - correction <= 0:
            warnings.warn(
                f"{'std' if root else 'var'}(): degrees of freedom is <= 0. Correction should "
                "be strictly less than the reduction factor (input numel divided by output "
                "numel).",
                stacklevel=5,
            )
        squares = apply_zip(operators.mul, centered, centered, a.dtype)
        total = reduce_dims(operators.add, squares, dims, 0, a.dtype)
        divisor = scalar_tensor(max(0, count - correction), a.dtype)
        out = apply_zip(operators.div, total, divisor, a.dtype)
        if root:
            out = apply_map(operators.sqrt, out, a.dtype)
        out = drop_dims(out, dims, keepdim)
        ctx.shape, ctx.dims, ctx.keepdim = tuple(a.shape), dims, keepdim
        ctx.dof, ctx.root, ctx.whole = count - correction, root, dim is None or a.ndim == 0
        ctx.save_for_backward(centered, out)
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\cdot 2 (a - \\bar a) / (n - c)$; for `std`, $g / (2 \\, out)$ in place of $g$,
        0 where $out = 0$ (PyTorch's `std_backward`: no NaN where all values are equal)."""
        centered, out = ctx.saved_tensors
        if ctx.root:
            grad = (grad / (2 * out)).masked_fill(out == 0, 0)
        grad = expand_reduced(grad, ctx.shape, ctx.dims, ctx.keepdim)
        if ctx.whole and ctx.dof <= 0:  # PyTorch's `var_backward` of the whole tensor
            return grad * where(centered == 0, math.nan, math.inf)
        return grad * centered * (2.0 / ctx.dof if ctx.dof else math.inf)


def var_std(a: Tensor, dim, unbiased, keepdim: bool, correction, root: bool) -> Tensor:
    """`var` or (`root`) `std`, with PyTorch's ways to choose the correction."""
    if isinstance(dim, bool):  # var(x, True): PyTorch's `var(input, unbiased)` form
        dim, unbiased = None, dim
    if not a.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return Var.apply(a, dim=dim, correction=correction, keepdim=keepdim, root=root)


@public()
def var(a: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """$\\frac{1}{n - c} \\sum (a - \\bar a)^2$ over `dim`, $c$ = `correction` (1 by default;
    `unbiased=False` is $c = 0$)."""
    return var_std(a, dim, unbiased, keepdim, correction, root=False)


@public()
def std(a: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """$\\sqrt{\\operatorname{var}(a)}$ over `dim` (see `var` for the correction)."""
    return var_std(a, dim, unbiased, keepdim, correction, root=True)


# ---------------------------------------------------------------------------
# Largest and smallest, log-sum-exp, norms
# ---------------------------------------------------------------------------


class Amax(Op):
    """`amax` (`largest`) or `amin` over `dim`: the gradient is shared evenly by ties."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim, keepdim: bool, largest: bool) -> Tensor:
        """$\\max$ (or $\\min$) over `dim`"""
        dims = reduction_dims(None if dim == () else dim, a.ndim)
        name = "amax" if largest else "amin"
        if a.numel() == 0 and dim in ((), None):
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        for d in dims:
            if a.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return reduced(ctx, a, extreme_over(a, dims, largest), dims, keepdim)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g / k$ to each of the $k$ elements equal to the result, 0 to the others"""
        a, out = ctx.saved_tensors
        winners = ties(a, out)
        count = reduce_dims(operators.add, winners, ctx.dims, 0, a.dtype)
        return (spread(ctx, grad, a) / count).where(winners, 0.0)


def reduced(ctx: GraphContext, a: Tensor, out: Tensor, dims, keepdim: bool) -> Tensor:
    """`out` (reduced over `dims`, kept with size 1) without `dims` unless `keepdim`; saves
    `a`, `out` and the dims for the backward (`spread`)."""
    ctx.save_for_backward(a, out)
    ctx.dims, ctx.keepdim = dims, keepdim
    return drop_dims(out, dims, keepdim)


def spread(ctx: GraphContext, grad: Tensor, a: Tensor) -> Tensor:
    """The gradient of a `reduced` result spread back over the shape of its input `a`."""
    return expand_reduced(grad, tuple(a.shape), ctx.dims, ctx.keepdim)


def extreme_over(a: Tensor, dims: tuple[int, ...], largest: bool) -> Tensor:
    """$\\max$ (`largest`) or $\\min$ of `a` over `dims`, kept with size 1 (NaN wins)."""
    if a.dtype.is_floating_point:
        start = -math.inf if largest else math.inf
    elif a.dtype is dtypes.bool_:
        start = not largest
    else:
        start = -(2**63) if largest else 2**63 - 1
    return reduce_dims(operators.maximum if largest else operators.minimum, a, dims, start, a.dtype)


@public()
def amax(a: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The largest element over `dim` (all dims by default); ties share the gradient."""
    return Amax.apply(a, dim=dim, keepdim=keepdim, largest=True)


@public()
def amin(a: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The smallest element over `dim` (all dims by default); ties share the gradient."""
    return Amax.apply(a, dim=dim, keepdim=keepdim, largest=False)


class Logsumexp(Op):
    once_differentiable = True  # its backward calls kernels: no second derivative

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dim, keepdim: bool) -> Tensor:
        """$m + \\ln \\sum e^{a - m}$ over `dim`, $m$ the maximum (stable; $m$ is taken as 0
        where it is infinite)"""
        a = float_version(a)
        dims = reduction_dims(dim, a.ndim)
        largest = extreme_over(a, dims, True)
        shift = largest.where(largest.isfinite(), 0.0)
        exps = apply_map(operators.exp, apply_zip(operators.sub, a, shift, a.dtype), a.dtype)
        total = reduce_dims(operators.add, exps, dims, 0, a.dtype)
        out = apply_zip(operators.add, apply_map(operators.log, total, a.dtype), shift, a.dtype)
        return reduced(ctx, a, out, dims, keepdim)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\, e^{a - out}$ (the softmax of $a$ over `dim`)"""
        a, out = ctx.saved_tensors
        return spread(ctx, grad, a) * (a - out).exp()


@public()
def logsumexp(a: Tensor, dim, keepdim: bool = False) -> Tensor:
    """$\\ln \\sum e^{a}$ over `dim`, computed stably (integers give floats).

    >>> import minitorch
    >>> minitorch.logsumexp(minitorch.tensor([1000.0, 1000.0]), 0)
    tensor(1000.6932)
    """
    return Logsumexp.apply(a, dim=dim, keepdim=keepdim)


class VectorNorm(Op):
    once_differentiable = True  # its backward calls kernels: no second derivative

    """$\\|a\\|_p$ over `dim` (node `LinalgVectorNormBackward0`, as PyTorch)."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, p: float, dim, keepdim: bool) -> Tensor:
        """$(\\sum |a|^p)^{1/p}$ over `dim`; $\\max |a|$ for $p = \\infty$, $\\min |a|$ for
        $-\\infty$, the number of non-zero elements for $p = 0$"""
        dims = reduction_dims(dim, a.ndim)
        size = abs(a)
        if math.isinf(p):
            out = extreme_over(size, dims, p > 0)
        elif p == 0:
            out = reduce_dims(operators.add, converted(a != 0, a.dtype), dims, 0, a.dtype)
        elif p == 1:
            out = reduce_dims(operators.add, size, dims, 0, a.dtype)
        elif p == 2:
            squares = apply_zip(operators.mul, a, a, a.dtype)
            total = reduce_dims(operators.add, squares, dims, 0, a.dtype)
            out = apply_map(operators.sqrt, total, a.dtype)
        else:
            powers = apply_zip(operators.power, size, scalar_tensor(p, a.dtype), a.dtype)
            total = reduce_dims(operators.add, powers, dims, 0, a.dtype)
            out = apply_zip(operators.power, total, scalar_tensor(1.0 / p, a.dtype), a.dtype)
        ctx.p = p
        return reduced(ctx, a, out, dims, keepdim)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g \\operatorname{sign}(a) |a|^{p-1} / out^{p-1}$ ($g \\, a / out$ for $p = 2$; 0
        where $out = 0$); for $\\pm\\infty$ shared evenly by the elements that reach it"""
        a, out = ctx.saved_tensors
        p = ctx.p
        g = spread(ctx, grad, a)
        norm = expand_reduced(out, tuple(a.shape), ctx.dims, True)
        if p == 0:
            return zeros_like(a)
        sign = a.sign()
        if p == 1:
            return g * sign
        if math.isinf(p):
            reaches = abs(a) == norm
            count = reduce_dims(operators.add, reaches, ctx.dims, 0, a.dtype)
            return (g * sign / count).where(reaches, 0.0)
        if p == 2:
            return (g * a / norm).where(norm != 0, 0.0)
        return (g * sign * (abs(a) / norm) ** (p - 1)).where(norm != 0, 0.0)


def vector_norm(a: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """$\\|a\\|_{ord}$ of `a` seen as a vector over `dim` (all dims by default)."""
    if not a.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {a.dtype.torch_scalar_name}"
        )
    if dtype is not None:
        a = converted(a, dtypes.to_dtype(dtype))
    if isinstance(dim, int):
        dim = (dim,)
    return VectorNorm.apply(a, p=float(ord), dim=dim, keepdim=keepdim)


@public()
def norm(a: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """The `p`-norm over `dim` (all elements by default): 2 ('fro'), 1, inf, -inf, 0, any $p$.

    >>> import minitorch
    >>> minitorch.tensor([3.0, 4.0]).norm()
    tensor(5.)
    """
    if p == "fro":
        p = 2
    elif isinstance(p, str):
        raise NotImplementedError(f"norm(): p='{p}' is not supported by minitorch")
    return vector_norm(a, p, dim, keepdim, dtype=dtype)


def linalg_norm(a: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """`minitorch.linalg.norm`: the 2-norm of all elements by default, or the vector norm
    `ord` over `dim`; `ord='fro'` is the 2-norm over two dims."""
    if ord is None or ord == "fro":
        return vector_norm(a, 2, dim, keepdim, dtype=dtype)
    if (
        isinstance(ord, str)
        or (dim is None and a.ndim == 2)
        or (isinstance(dim, (tuple, list)) and len(dim) == 2)
    ):
        raise NotImplementedError(
            f"linalg.norm: the matrix norm ord={ord!r} is not supported by minitorch"
        )
    if dim is None and a.ndim != 1:
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {a.ndim}D."
        )
    return vector_norm(a, ord, dim, keepdim, dtype=dtype)


@public()
def count_nonzero(a: Tensor, dim=None) -> Tensor:
    """The number of non-zero elements over `dim` (all dims by default), int64."""
    nonzero = apply_zip(operators.ne, a, scalar_tensor(0, a.dtype), dtypes.bool_)
    dims = reduction_dims(dim, a.ndim)
    return drop_dims(reduce_dims(operators.add, nonzero, dims, 0, dtypes.int64), dims, False)
