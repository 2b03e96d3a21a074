"""Joining and splitting: `cat`, `stack`, `split`, `chunk`, `narrow`, `repeat`, `flip`, `roll`, ...

A join allocates its result and copies each input into a strided view of it
(`write_into`); its backward hands each input the matching view of the
gradient. Splits (`narrow`, `split`, `chunk`, `unbind`, `diagonal`) are
views, as in PyTorch. `einsum.py` builds on these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes, operators
from ..autograd.graph import GraphContext
from ..backends.tensor_data import TensorData, normalize_dim
from ..tensors.base import TensorBase
from ..tensors.creation import arange, parse_shape
from ..tensors.kernels import apply_map, new_tensor, scalar_tensor, view_of, write_into
from ..tensors.shapes import index_layout
from .functions import Op
from .indexing import Index
from .linalg import matmul
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


# ---------------------------------------------------------------------------
# Views: narrow, split, chunk, unbind, diagonal
# ---------------------------------------------------------------------------


class Piece(Op):
    """One of the views `split`, `chunk` and `unbind` return; `kind` names its node as PyTorch
    does (`Split`, `SplitWithSizes`, `Unbind`)."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, key: tuple, kind: str) -> Tensor:
        """`a[key]`: a view"""
        ctx.input_shape, ctx.key = tuple(a.shape), key
        return view_of(a, index_layout(a._layout, key))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ in the piece's place in a zero tensor of the input's shape"""
        grad_input = new_tensor(ctx.input_shape, grad.dtype, grad.device)
        write_into(view_of(grad_input, index_layout(grad_input._layout, ctx.key)), grad)
        return grad_input


@public()
def narrow(a: Tensor, dim: int, start: int, length: int) -> Tensor:
    """Elements `start` to `start + length` of `a` along `dim` (a view)."""
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = normalize_dim(dim, a.ndim)
    size = a.shape[dim]
    if not -size <= start <= size:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], "
            f"but got {start})"
        )
    start = start + size if start < 0 else start
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return Index.apply(a, key=(slice(None),) * dim + (slice(start, start + length),))


@public()
def split(a: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Pieces of `a` along `dim` (views): of `split_size_or_sections` elements each (the last
    may be shorter), or of the sizes in that list."""
    dim = normalize_dim(dim, a.ndim)
    size = a.shape[dim]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0 or (step == 0 and size > 0):
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
            )
        sizes = [min(step, size - start) for start in range(0, size, step)] if step else [0]
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {dim}), but got split_sizes={sizes}"
            )
    kind = "Split" if isinstance(split_size_or_sections, int) else "SplitWithSizes"
    pieces, start = [], 0
    for length in sizes:
        key = (slice(None),) * dim + (slice(start, start + length),)
        pieces.append(Piece.apply(a, key=key, kind=kind))
        start += length
    return tuple(pieces)


@public()
def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple:
    """`a` in `chunks` pieces along `dim` (views) of $\\lceil n / chunks \\rceil$ elements."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = a.shape[normalize_dim(dim, a.ndim)]
    return split(a, max(-(-size // chunks), 1), dim)


@public()
def tensor_split(a: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    """`a` split along `dim` (views): into `n` nearly equal pieces (the first ones one longer),
    or at the positions in a list."""
    dim = normalize_dim(dim, a.ndim)
    size = a.shape[dim]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        sizes = [size // n + (1 if k < size % n else 0) for k in range(n)]
        bounds = [sum(sizes[:k]) for k in range(n + 1)]
    else:
        bounds = [0, *indices_or_sections, size]
    pieces = []
    for begin, end in zip(bounds, bounds[1:], strict=False):
        begin, end = min(max(begin, 0), size), min(max(end, 0), size)
        pieces.append(narrow(a, dim, begin, max(end - begin, 0)))
    return tuple(pieces)


@public()
def unbind(a: Tensor, dim: int = 0) -> tuple:
    """The slices of `a` along `dim`, that dim removed (views)."""
    dim = normalize_dim(dim, a.ndim)
    keys = [(slice(None),) * dim + (k,) for k in range(a.shape[dim])]
    return tuple(Piece.apply(a, key=key, kind="Unbind") for key in keys)


def diagonal_layout(layout: TensorData, offset: int, dim1: int, dim2: int) -> TensorData:
    """The layout of the diagonal `offset` of dims `dim1` and `dim2`, moved to the end."""
    shape, strides = list(layout.shape), list(layout.strides)
    start = layout.offset
    if offset >= 0:
        length = max(min(shape[dim1], shape[dim2] - offset), 0)
        start += offset * strides[dim2] if length else 0
    else:
        length = max(min(shape[dim1] + offset, shape[dim2]), 0)
        start += -offset * strides[dim1] if length else 0
    step = strides[dim1] + strides[dim2]
    kept = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    return TensorData(
        layout.storage,
        tuple(shape[d] for d in kept) + (length,),
        tuple(strides[d] for d in kept) + (step,),
        start,
    )


class Diagonal(Op):
    @staticmethod
    def forward(
        ctx: GraphContext, a: Tensor, offset: int, dim1: int, dim2: int, copy: bool = False
    ) -> Tensor:
        """The elements $a_{i, i + offset}$ of dims `dim1`, `dim2`, as a last dim (a view, or
        a copy for `diag`)"""
        ctx.shape, ctx.settings = tuple(a.shape), (offset, dim1, dim2)
        view = view_of(a, diagonal_layout(a._layout, offset, dim1, dim2))
        return apply_map(operators.identity, view, a.dtype) if copy else view

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ on the diagonal of a zero tensor of the input's shape"""
        grad_input = new_tensor(ctx.shape, grad.dtype, grad.device)
        write_into(view_of(grad_input, diagonal_layout(grad_input._layout, *ctx.settings)), grad)
        return grad_input


@public()
def diagonal(a: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal `offset` (above the main one if positive) of dims `dim1` and `dim2`, a view.

    >>> import minitorch
    >>> minitorch.arange(9).view(3, 3).diagonal()
    tensor([0, 4, 8])
    """
    d1, d2 = normalize_dim(dim1, a.ndim), normalize_dim(dim2, a.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(a, offset=offset, dim1=d1, dim2=d2)


class DiagEmbed(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, offset: int) -> Tensor:
        """A square matrix with the vector `a` on its diagonal `offset`, zeros elsewhere"""
        n = a.shape[0] + abs(offset)
        out = new_tensor((n, n), a.dtype, a.device)
        write_into(view_of(out, diagonal_layout(out._layout, offset, 0, 1)), a)
        ctx.offset = offset
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """The diagonal `offset` of $g$"""
        return view_of(grad, diagonal_layout(grad._layout, ctx.offset, 0, 1))


@public()
def diag(a: Tensor, diagonal: int = 0) -> Tensor:
    """A vector's diagonal matrix, or a copy of a matrix's diagonal `diagonal`."""
    if a.ndim == 1:
        return DiagEmbed.apply(a, offset=diagonal)
    if a.ndim != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{a.ndim}D")
    return Diagonal.apply(a, offset=diagonal, dim1=0, dim2=1, copy=True)


# ---------------------------------------------------------------------------
# Joins: cat, stack, hstack, vstack, dstack
# ---------------------------------------------------------------------------


class Cat(Op):
    """The inputs joined along `dim`; `stack` joins them along a new dim (`StackBackward0`)."""

    @staticmethod
    def forward(ctx: GraphContext, *tensors: Tensor, dim: int, stack: bool = False) -> Tensor:
        if stack:
            tensors = tuple(t.unsqueeze(dim) for t in tensors)
        joined = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or tensors[:1]
        dtype = dtypes.result_type(*joined)
        shape = list(joined[0].shape)
        shape[dim] = sum(t.shape[dim] for t in joined)
        out = new_tensor(shape, dtype, joined[0].device)
        skipped = len(joined) < len(tensors)  # empty vectors join nothing
        ctx.sizes = [0 if skipped and t.numel() == 0 else t.shape[dim] for t in tensors]
        ctx.dim, ctx.stack = dim, stack
        start = 0
        for t in joined:
            write_into(narrow(out, dim, start, t.shape[dim]), t)
            start += t.shape[dim]
        return out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """Each input gets its part of $g$ (a view)"""
        parts, start = [], 0
        for size in ctx.sizes:
            part = narrow(grad, ctx.dim, start, size)
            parts.append(part.squeeze(ctx.dim) if ctx.stack else part)
            start += size
        return tuple(parts)


def checked_tensors(tensors, name: str) -> tuple:
    """The tensors of a join, checked as PyTorch does."""
    if isinstance(tensors, TensorBase):
        raise TypeError(f"{name}(): argument 'tensors' must be tuple of Tensors, not Tensor")
    tensors = tuple(tensors)
    if not tensors:
        raise (ValueError if name == "cat" else RuntimeError)(
            f"torch.{name}(): expected a non-empty list of Tensors"
        )
    return tensors


@public(method=False, aliases=("concat", "concatenate"))
def cat(tensors, dim: int = 0) -> Tensor:
    """The tensors joined along `dim` (their other sizes must match).

    >>> import minitorch
    >>> minitorch.cat([minitorch.tensor([1, 2]), minitorch.tensor([3])])
    tensor([1, 2, 3])
    """
    tensors = checked_tensors(tensors, "cat")
    for k, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated")
    joined = [(k, t) for k, t in enumerate(tensors) if not (t.ndim == 1 and t.shape[0] == 0)]
    if not joined:
        return Cat.apply(*tensors, dim=0)
    first = joined[0][1]
    dim = normalize_dim(dim, first.ndim)
    for k, t in joined[1:]:
        if t.ndim != first.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {first.ndim} and {t.ndim}"
            )
        for d in range(t.ndim):
            if d != dim and t.shape[d] != first.shape[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{first.shape[d]} but got size {t.shape[d]} for tensor number {k} in the list."
                )
    return Cat.apply(*tensors, dim=dim)


@public(method=False)
def stack(tensors, dim: int = 0) -> Tensor:
    """The tensors (all of one shape) joined along a new dimension `dim`."""
    tensors = checked_tensors(tensors, "stack")
    for k, t in enumerate(tensors):
        if tuple(t.shape) != tuple(tensors[0].shape):
            raise RuntimeError(
                "stack expects each tensor to be equal size, but got "
                f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at entry {k}"
            )
    return Cat.apply(*tensors, dim=normalize_dim(dim, tensors[0].ndim + 1), stack=True)


def atleast(t: Tensor, ndim: int) -> Tensor:
    """`t` with size-1 dims added as NumPy's `atleast_1d/2d/3d` add them (a view)."""
    if t.ndim >= ndim:
        return t
    if t.ndim == 0:
        return t.reshape((1,) * ndim)
    if t.ndim == 1:
        return t.unsqueeze(0) if ndim == 2 else t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1)


@public(method=False)
def hstack(tensors) -> Tensor:
    """The tensors joined along dim 1 (dim 0 for vectors)."""
    tensors = [atleast(t, 1) for t in checked_tensors(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


@public(method=False)
def vstack(tensors) -> Tensor:
    """The tensors, as rows (vectors become 1 x n), joined along dim 0."""
    return cat([atleast(t, 2) for t in checked_tensors(tensors, "vstack")], 0)


@public(method=False)
def dstack(tensors) -> Tensor:
    """The tensors, made at least 3-D, joined along dim 2."""
    return cat([atleast(t, 3) for t in checked_tensors(tensors, "dstack")], 2)


# ---------------------------------------------------------------------------
# Copies that rearrange: repeat, tile, repeat_interleave, flip, roll, tril, triu
# ---------------------------------------------------------------------------


class Repeat(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, repeats: tuple) -> Tensor:
        """`a` tiled `repeats[k]` times along dim k: an expanded view, copied"""
        source = a.reshape((1,) * (len(repeats) - a.ndim) + tuple(a.shape))
        interleaved, expanded = [], []
        for r, size in zip(repeats, source.shape, strict=True):
            interleaved += [1, size]
            expanded += [r, size]
        ctx.input_shape, ctx.expanded = tuple(a.shape), tuple(expanded)
        copy = source.reshape(interleaved).expand(expanded).contiguous()
        return copy.view([r * size for r, size in zip(repeats, source.shape, strict=True)])

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """The sum of the gradients of each element's copies"""
        tiled = grad.reshape(ctx.expanded)
        copies = tuple(range(0, len(ctx.expanded), 2))
        return tiled.sum(copies).reshape(ctx.input_shape)


@public()
def repeat(a: Tensor, *repeats) -> Tensor:
    """`a` tiled `repeats[k]` times along each dim k (more repeats than dims add dims)."""
    repeats = parse_shape(repeats)
    if len(repeats) < a.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    return Repeat.apply(a, repeats=repeats)


@public()
def tile(a: Tensor, dims) -> Tensor:
    """`a` tiled `dims[k]` times along dim k (missing leading repeats are 1)."""
    dims = parse_shape((dims,))
    return Repeat.apply(a, repeats=(1,) * (a.ndim - len(dims)) + dims)


@public()
def repeat_interleave(a: Tensor, repeats: int, dim=None) -> Tensor:
    """Each element repeated `repeats` times in place along `dim` (of the flattened `a` when
    None): `[1, 2]` gives `[1, 1, 2, 2]`."""
    if isinstance(repeats, TensorBase):
        if repeats.numel() != 1:
            raise NotImplementedError("repeat_interleave: only one number of repeats is supported")
        repeats = int(repeats.item())
    if repeats < 0:
        raise RuntimeError("repeats can not be negative")
    if dim is None:
        a, dim = a.reshape(-1), 0
    dim = normalize_dim(dim, a.ndim)
    shape = list(a.shape)
    expanded = shape[: dim + 1] + [repeats] + shape[dim + 1 :]
    shape[dim] *= repeats
    return a.unsqueeze(dim + 1).expand(expanded).contiguous().view(shape)


def reversed_view(a: Tensor, dims: tuple[int, ...]) -> Tensor:
    """`a` in reverse order along `dims`: a view with negative strides (for copying only)."""
    layout = a._layout
    strides, offset = list(layout.strides), layout.offset
    for d in dims:
        if a.shape[d] > 0:
            offset += (a.shape[d] - 1) * strides[d]
            strides[d] = -strides[d]
    return view_of(a, TensorData(layout.storage, layout.shape, tuple(strides), offset))


class Flip(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dims: tuple) -> Tensor:
        """A copy of `a` in reverse order along `dims`"""
        ctx.dims = dims
        return apply_map(operators.identity, reversed_view(a, dims), a.dtype)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ flipped back"""
        return Flip.apply(grad, dims=ctx.dims)


@public()
def flip(a: Tensor, *dims) -> Tensor:
    """A copy of `a` with the order of its elements along `dims` reversed."""
    dims = tuple(normalize_dim(d, max(a.ndim, 1)) for d in parse_shape(dims))
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    return Flip.apply(a, dims=dims if a.ndim else ())


class Roll(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, shifts: tuple, dims: tuple | None) -> Tensor:
        """`a` shifted by `shifts[k]` along `dims[k]`, what falls off one end coming in at the
        other: two copies per dim (`dims` None: along the flattened `a`)"""
        ctx.shifts, ctx.dims = shifts, dims
        if dims is None:
            out = Roll.forward(ctx, a.reshape(-1), shifts, (0,)).view(a.shape)
            ctx.dims = None
            return out
        out = a
        for shift, dim in zip(shifts, dims, strict=True):
            size = out.shape[dim]
            shift = shift % size if size else 0
            if shift == 0:
                continue
            rolled = new_tensor(out.shape, out.dtype, out.device)
            write_into(narrow(rolled, dim, shift, size - shift), narrow(out, dim, 0, size - shift))
            write_into(narrow(rolled, dim, 0, shift), narrow(out, dim, size - shift, shift))
            out = rolled
        return out.clone() if out is a else out

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ rolled back"""
        return Roll.apply(grad, shifts=tuple(-s for s in ctx.shifts), dims=ctx.dims)


@public()
def roll(a: Tensor, shifts, dims=None) -> Tensor:
    """`a` shifted cyclically by `shifts` along `dims` (of the flattened `a` when None)."""
    if dims is None:
        return Roll.apply(a, shifts=(int(shifts),), dims=None)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    return Roll.apply(a, shifts=shifts, dims=tuple(normalize_dim(d, a.ndim) for d in dims))


def triangle_mask(a: Tensor, diagonal: int, lower: bool) -> Tensor:
    """True on and below (`lower`) or on and above the diagonal `diagonal` of the last 2 dims."""
    rows = arange(a.shape[-2], device=a.device).view(-1, 1)
    columns = arange(a.shape[-1], device=a.device).view(1, -1)
    offset = columns - rows
    return offset <= diagonal if lower else offset >= diagonal


class Triangle(Op):
    """`tril` (`lower`) or `triu`: the part of each matrix on one side of a diagonal."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, diagonal: int, lower: bool) -> Tensor:
        if a.ndim < 2:
            name = "tril" if lower else "triu"
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        ctx.mask = triangle_mask(a, diagonal, lower)
        return a.where(ctx.mask, scalar_tensor(0, a.dtype))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ on the kept side, 0 elsewhere"""
        return grad.where(ctx.mask, 0.0)


@public()
def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of (each matrix of) `a`: zeros above the diagonal `diagonal`."""
    return Triangle.apply(a, diagonal=diagonal, lower=True)


@public()
def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of (each matrix of) `a`: zeros below the diagonal `diagonal`."""
    return Triangle.apply(a, diagonal=diagonal, lower=False)


# ---------------------------------------------------------------------------
# Products: outer, bmm, addmm
# ---------------------------------------------------------------------------


@public(aliases=("ger",))
def outer(a: Tensor, b: Tensor) -> Tensor:
    """$a_i b_j$ for vectors `a` and `b` (`ger`)."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(
            f"outer: Expected 1-D argument self, but got {a.ndim}-D"
            if a.ndim != 1
            else f"outer: Expected 1-D argument vec2, but got {b.ndim}-D"
        )
    return a.unsqueeze(1) * b.unsqueeze(0)


@public()
def bmm(a: Tensor, b: Tensor) -> Tensor:
    """Batched matrix product of two 3-D tensors with the same batch size (no broadcasting)."""
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}]."
        )
    return matmul(a, b)


class Addmm(Op):
    @staticmethod
    def forward(ctx: GraphContext, c: Tensor, a: Tensor, b: Tensor, beta=1, alpha=1) -> Tensor:
        """$\\beta c + \\alpha (a b)$, `c` broadcast to the product's shape"""
        ctx.save_for_backward(a, b)
        ctx.alpha, ctx.beta = alpha, beta
        product = matmul(a, b)
        product = product if alpha == 1 else product * alpha
        return product + (c if beta == 1 else c * beta) if beta != 0 else product

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(\\beta g, \\alpha g b^T, \\alpha a^T g)$"""
        a, b = ctx.saved_tensors
        scaled = grad * ctx.alpha if ctx.alpha != 1 else grad
        return grad * ctx.beta, scaled.matmul(b.t()), a.t().matmul(scaled)


@public()
def addmm(c: Tensor, a: Tensor, b: Tensor, *, beta=1, alpha=1) -> Tensor:
    """$\\beta c + \\alpha (a b)$ for matrices `a`, `b` (the affine map of `nn.Linear`)."""
    if a.ndim != 2 or b.ndim != 2:
        name, ndim = ("mat1", a.ndim) if a.ndim != 2 else ("mat2", b.ndim)
        raise RuntimeError(f"{name} must be a matrix, got {ndim}-D tensor")
    return Addmm.apply(c, a, b, beta=beta, alpha=alpha)
