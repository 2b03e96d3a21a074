"""Creation and layout compositions: grids, moved and rotated dims, splits, block matrices.

Each is a short composition of views and joins that already have their
gradients (`permute`, `reshape`, `expand`, `flip`, `cat`, `where`, ...), so it
needs no `Function` of its own: autograd records the steps.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

from .. import dtypes
from ..backends.tensor_data import normalize_dim, shape_broadcast
from ..tensors.base import Size, TensorBase
from ..tensors.creation import eye, linspace, tensor
from .arithmetic import tensor_pow
from .comparisons import where
from .convolution import constant_pad_nd
from .copies import to
from .joins import atleast, cat, checked_tensors, diag, flip, hstack, stack, tensor_split
from .public import public
from .views import expand, flatten, permute, reshape, transpose, unsqueeze

if TYPE_CHECKING:
    from .._tensor import Tensor


def tensors_of(tensors: tuple) -> tuple:
    """`f(a, b)` and `f([a, b])` alike: the tensors of a varargs call."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(tensors[0])
    return tensors


@public(method=False)
def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Grids of coordinates: output $k$ repeats the 1-D `tensors[k]` along every other dim.

    `indexing="ij"` gives shape `(len(t0), len(t1), ...)`; `"xy"` swaps the first two
    (`(len(t1), len(t0), ...)`, as in NumPy's default).
    """
    tensors = tensors_of(tensors)
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}"
            )
    if any(t.dtype is not tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0
    ordered = [tensors[k].reshape(-1) for k in order]
    shape = tuple(t.shape[0] for t in ordered)
    grids = []
    for k, t in enumerate(ordered):
        sizes = [1] * len(ordered)
        sizes[k] = -1
        grids.append(expand(t.reshape(*sizes), *shape))
    return tuple(grids[order.index(k)] for k in range(len(tensors)))


@public(method=False)
def logspace(
    start, end, steps: int, base: float = 10.0, *, dtype=None, device=None, requires_grad=False
) -> Tensor:
    """`steps` values $base^{x}$ for $x$ evenly spaced from `start` to `end`."""
    exponents = linspace(start, end, steps, dtype=dtypes.float64, device=device)
    values = to(tensor_pow(base, exponents), dtypes.to_dtype(dtype or dtypes.get_default_dtype()))
    return values.requires_grad_(requires_grad) if requires_grad else values


@public(method=False)
def column_stack(tensors) -> Tensor:
    """The tensors side by side as columns: vectors (and numbers) become `n x 1` columns."""
    tensors = checked_tensors(tensors, "column_stack")
    columns = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors]
    return hstack(columns)


@public()
def unflatten(a: Tensor, dim: int, sizes) -> Tensor:
    """`a` with dim `dim` split into `sizes` (one of them may be -1)."""
    dim = normalize_dim(dim, a.ndim)
    sizes = list(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        sizes[sizes.index(-1)] = a.shape[dim] // known if known else 0
    if math.prod(sizes) != a.shape[dim]:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{dim} ({a.shape[dim]}) in the input tensor"
        )
    return reshape(a, *a.shape[:dim], *sizes, *a.shape[dim + 1 :])


@public(aliases=("moveaxis",))
def movedim(a: Tensor, source, destination) -> Tensor:
    """`a` with dims `source` moved to positions `destination` (ints or sequences), the
    other dims keeping their order (a view)."""
    if isinstance(source, int) != isinstance(destination, int):
        raise TypeError(
            "movedim() received an invalid combination of arguments - got "
            f"({type(source).__name__}, {type(destination).__name__}): source and destination "
            "are both ints or both sequences of ints"
        )
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    if len(source) != len(destination):
        raise RuntimeError(
            "movedim: Invalid source or destination dims: source "
            f"({source} dims) should contain the same number of dims as destination "
            f"({destination} dims)"
        )
    source = [normalize_dim(d, a.ndim) for d in source]
    destination = [normalize_dim(d, a.ndim) for d in destination]
    if len(set(source)) != len(source) or len(set(destination)) != len(destination):
        raise RuntimeError("movedim: repeated dim in `source` or `destination`")
    order = [None] * a.ndim
    for s, d in zip(source, destination, strict=True):
        order[d] = s
    rest = iter(d for d in range(a.ndim) if d not in source)
    return permute(a, *[next(rest) if d is None else d for d in order])


def atleast_nd(tensors: tuple, ndim: int):
    """One tensor for one tensor given; a tuple for several, or for a list of them."""
    if len(tensors) == 1 and isinstance(tensors[0], TensorBase):
        return atleast(tensors[0], ndim)
    return tuple(atleast(t, ndim) for t in tensors_of(tensors))


@public(method=False)
def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (a number becomes a vector); one tensor, or a tuple."""
    return atleast_nd(tensors, 1)


@public(method=False)
def atleast_2d(*tensors):
    """Each tensor with at least 2 dims (a vector becomes a `1 x n` row)."""
    return atleast_nd(tensors, 2)


@public(method=False)
def atleast_3d(*tensors):
    """Each tensor with at least 3 dims (a vector becomes `1 x n x 1`, a matrix `m x n x 1`)."""
    return atleast_nd(tensors, 3)


@public()
def fliplr(a: Tensor) -> Tensor:
    """`a` with its columns (dim 1) in reverse order."""
    if a.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(a, 1)


@public()
def flipud(a: Tensor) -> Tensor:
    """`a` with its rows (dim 0) in reverse order."""
    if a.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(a, 0)


@public()
def rot90(a: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """`a` turned by `k` quarter turns in the plane of `dims`, from the first dim towards
    the second."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if a.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {a.ndim}")
    d0, d1 = (normalize_dim(d, a.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    k %= 4
    if k == 1:
        return transpose(flip(a, d1), d0, d1)
    if k == 2:
        return flip(a, d0, d1)
    if k == 3:
        return transpose(flip(a, d0), d0, d1)
    return a.clone()


def split_along(a: Tensor, sections, dim: int, name: str, least: int) -> tuple:
    """`tensor_split` along `dim`, with an int `sections` that must divide the dim."""
    if a.ndim < least:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {least} dimension, but got a tensor "
            f"with {a.ndim} dimensions!"
        )
    if isinstance(sections, int):
        if sections == 0 or a.shape[dim] % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {a.shape[dim]} is not divisible by the split_size {sections}!"
            )
    return tensor_split(a, sections, dim)


@public()
def hsplit(a: Tensor, sections) -> tuple:
    """`a` split along its columns (dim 1; dim 0 of a vector)."""
    return split_along(a, sections, 0 if a.ndim == 1 else 1, "hsplit", 1)


@public()
def vsplit(a: Tensor, sections) -> tuple:
    """`a` split along its rows (dim 0)."""
    return split_along(a, sections, 0, "vsplit", 2)


@public()
def dsplit(a: Tensor, sections) -> tuple:
    """`a` split along its depth (dim 2)."""
    return split_along(a, sections, 2, "dsplit", 3)


@public(method=False)
def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of `shapes` broadcast to together."""
    result: tuple = ()
    for shape in shapes:
        result = shape_broadcast(result, (shape,) if isinstance(shape, int) else tuple(shape))
    return Size(result)


@public(method=False)
def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common broadcast shape (views)."""
    tensors = tensors_of(tensors)
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(expand(t, *shape) for t in tensors)


def triangle_indices(row: int, col: int, offset: int, lower: bool, dtype, device) -> Tensor:
    """The (row, column) positions of a `row x col` matrix's triangle, row by row."""
    rows, cols = [], []
    for i in range(row):
        js = range(0, min(col, i + offset + 1)) if lower else range(max(0, i + offset), col)
        rows += [i] * len(js)
        cols += list(js)
    return tensor([rows, cols], dtype=dtype or dtypes.int64, device=device)


@public(method=False)
def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None) -> Tensor:
    """The `2 x n` positions of the lower triangle (on and below diagonal `offset`)."""
    return triangle_indices(row, col, offset, True, dtype, device)


@public(method=False)
def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None) -> Tensor:
    """The `2 x n` positions of the upper triangle (on and above diagonal `offset`)."""
    return triangle_indices(row, col, offset, False, dtype, device)


@public(method=False)
def block_diag(*tensors) -> Tensor:
    """A block-diagonal matrix of the tensors (numbers and vectors count as one row)."""
    blocks = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]
    for k, b in enumerate(blocks):
        if b.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {k} "
                f"has {b.ndim} dimensions"
            )
    if not blocks:
        return tensor([], dtype=dtypes.get_default_dtype()).reshape(1, 0)
    dtype = dtypes.result_type(*blocks)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        padding = (left, width - left - b.shape[1])
        rows.append(constant_pad_nd(to(b, dtype), padding))
        left += b.shape[1]
    return cat(rows, 0)


@public(method=False)
def cartesian_prod(*tensors) -> Tensor:
    """Every combination of one element of each vector, as the rows of a matrix."""
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([flatten(g) for g in grids], 1)


@public()
def diag_embed(a: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices whose diagonal `offset` (in dims `dim1`, `dim2`) holds `a`'s last dim."""
    out_ndim = a.ndim + 1
    d1, d2 = normalize_dim(dim1, out_ndim), normalize_dim(dim2, out_ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = a.shape[-1] if a.ndim else 1
    on_diagonal = eye(n, dtype=dtypes.bool_, device=a.device)
    square = where(on_diagonal, unsqueeze(a, -1), tensor(0, dtype=a.dtype, device=a.device))
    k = abs(offset)
    padding = (k, 0, 0, k) if offset > 0 else (0, k, k, 0)
    matrices = constant_pad_nd(square, padding) if k else square
    return movedim(matrices, (-2, -1), (d1, d2))


@public()
def diagflat(a: Tensor, offset: int = 0) -> Tensor:
    """A matrix with `a`'s elements (flattened) on diagonal `offset`."""
    return diag(flatten(a), offset)
