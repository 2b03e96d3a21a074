"""Views: `view`, `reshape`, `permute`, `transpose`, `t`, `expand`, `squeeze`, `unsqueeze`, ...

A view is a new layout (shape, strides, offset) over the same storage: its
forward copies nothing, and its backward puts the gradient back in the
input's layout. `reshape` and `flatten` copy only when the strides do not
allow a view. Each `Function` is followed by the functions users call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..autograd.graph import GraphContext, sum_to
from ..backends.tensor_data import TensorData, normalize_dim, prod, view_strides
from ..tensors.creation import parse_shape
from ..tensors.kernels import view_of
from ..tensors.shapes import infer_shape, reduction_dims
from .copies import contiguous_copy
from .functions import Op
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


class View(Op):
    """`a` in another shape; kind UnsafeView where `reshape` viewed a copy."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, shape: tuple, kind: str = "View") -> Tensor:
        """The same elements in `shape`; an error when the strides do not allow it"""
        ctx.input_shape = a._layout.shape
        shape = infer_shape(shape, a.numel())
        # BEGIN SOLUTION 2.4
        layout = a._layout.view(shape)
        if layout is None:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            )
        return view_of(a, layout)
        # END SOLUTION 2.4

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ seen in the input's shape"""
        # BEGIN SOLUTION 2.6
        return grad.reshape(ctx.input_shape)
        # END SOLUTION 2.6


@public(torch=False)
def view(a: Tensor, *shape) -> Tensor:
    """`a` seen with another shape, sharing storage (one size may be -1).

    >>> import minitorch
    >>> minitorch.arange(6).view(2, 3).stride()
    (3, 1)
    """
    return View.apply(a, shape=parse_shape(shape))


@public(torch=False)
def view_as(a: Tensor, other: Tensor) -> Tensor:
    """`a` seen with `other`'s shape (`view`)."""
    return view(a, other.shape)


@public()
def reshape(a: Tensor, *shape) -> Tensor:
    """Like `view`, copying only when `a`'s strides do not allow a view."""
    shape = infer_shape(parse_shape(shape), a.numel())
    if view_strides(a.shape, a.stride(), shape) is None:
        return View.apply(contiguous_copy(a), shape=shape, kind="UnsafeView")
    return View.apply(a, shape=shape)


@public(torch=False)
def reshape_as(a: Tensor, other: Tensor) -> Tensor:
    """`a` with `other`'s shape (`reshape`)."""
    return reshape(a, other.shape)


@public()
def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions `start_dim` to `end_dim` into one (a view when possible)."""
    if a.ndim == 0:
        return reshape(a, 1)
    start, end = normalize_dim(start_dim, a.ndim), normalize_dim(end_dim, a.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = a.shape[:start] + (prod(a.shape[start : end + 1]),) + a.shape[end + 1 :]
    return a if shape == tuple(a.shape) else reshape(a, shape)


class Permute(Op):
    """Reordered dimensions; `transpose` (kind Transpose) and `t()` (kind T) are ones too."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, dims: tuple, kind: str = "Permute") -> Tensor:
        """Dimension k of the result is dimension `dims[k]` of `a`"""
        if len(dims) != a.ndim:
            raise RuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input does not match "
                "the length of the desired ordering of dimensions i.e. input.dim() = "
                f"{a.ndim} is not equal to len(dims) = {len(dims)}"
            )
        order = tuple(normalize_dim(d, a.ndim) for d in dims)
        if len(set(order)) != len(order):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        ctx.order = order
        # BEGIN SOLUTION 2.4
        return view_of(a, a._layout.permute(*order))
        # END SOLUTION 2.4

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ permuted back by the inverse permutation"""
        # BEGIN SOLUTION 2.6
        inverse = [0] * len(ctx.order)
        for k, d in enumerate(ctx.order):
            inverse[d] = k
        return grad.permute(*inverse)
        # END SOLUTION 2.6


@public()
def permute(a: Tensor, *dims) -> Tensor:
    """Reorder `a`'s dimensions (a view)."""
    return Permute.apply(a, dims=parse_shape(dims))


@public(aliases=("swapaxes", "swapdims"))
def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dimensions `dim0` and `dim1` (a view)."""
    if a.ndim == 0:
        normalize_dim(dim0, 0), normalize_dim(dim1, 0)
        return Permute.apply(a, dims=(), kind="Transpose")
    order = list(range(a.ndim))
    d0, d1 = normalize_dim(dim0, a.ndim), normalize_dim(dim1, a.ndim)
    order[d0], order[d1] = order[d1], order[d0]
    return Permute.apply(a, dims=tuple(order), kind="Transpose")


@public()
def t(a: Tensor) -> Tensor:
    """The transpose of a matrix; vectors and 0-dim tensors unchanged (a view)."""
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    order = tuple(range(a.ndim - 1, -1, -1))
    return Permute.apply(a, dims=order, kind="T")


class Expand(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, sizes: tuple) -> Tensor:
        """Repeat size-1 dimensions (stride 0) and add leading ones, without copying"""
        if len(sizes) < a.ndim:
            raise RuntimeError(
                f"expand({a.type()}{{{list(a.shape)}}}, size={list(sizes)}): the number of sizes "
                f"provided ({len(sizes)}) must be greater or equal to the number of dimensions "
                f"in the tensor ({a.ndim})"
            )
        extra = len(sizes) - a.ndim
        target = list(sizes)
        for k, size in enumerate(a.shape):
            wanted = sizes[k + extra]
            if wanted == -1:
                target[k + extra] = size
            elif size != 1 and wanted != size:
                raise RuntimeError(
                    f"The expanded size of the tensor ({wanted}) must match the existing size "
                    f"({size}) at non-singleton dimension {k + extra}.  Target sizes: "
                    f"{list(sizes)}.  Tensor sizes: {list(a.shape)}"
                )
        if any(size < 0 for size in target):
            raise RuntimeError(f"expand: invalid target sizes {list(sizes)}")
        ctx.input_shape = tuple(a.shape)
        return view_of(a, a._layout.expand(tuple(target)))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """Each input element was repeated: it gets the sum of its copies' gradients"""
        # BEGIN SOLUTION 2.6
        return sum_to(grad, ctx.input_shape)
        # END SOLUTION 2.6


@public()
def expand(a: Tensor, *sizes) -> Tensor:
    """Broadcast size-1 dimensions to `sizes` (a view with stride 0)."""
    return Expand.apply(a, sizes=parse_shape(sizes))


@public(torch=False)
def expand_as(a: Tensor, other: Tensor) -> Tensor:
    """`a` broadcast to `other`'s shape (`expand`)."""
    return expand(a, other.shape)


@public()
def broadcast_to(a: Tensor, shape) -> Tensor:
    """`a` expanded to `shape`, as broadcasting would (a view)."""
    return Expand.apply(a, sizes=parse_shape((shape,)))


class Restride(Op):
    """A view that only adds or drops size-1 dimensions; `kind` is the PyTorch operation
    (`squeeze`, `squeeze.dim`, `squeeze_.dim`, `unsqueeze`)."""

    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, shape: tuple, strides: tuple, kind: str) -> Tensor:
        """`a` with `shape` and `strides` (the same elements, size-1 dimensions changed)"""
        ctx.input_shape = tuple(a.shape)
        return view_of(a, TensorData(a._layout.storage, shape, strides, a.storage_offset()))

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$g$ with the size-1 dimensions put back or taken out"""
        return grad.reshape(ctx.input_shape)


@public()
def squeeze(a: Tensor, dim=None) -> Tensor:
    """Drop size-1 dimensions (all of them, or those in `dim`)."""
    dims = reduction_dims(dim, a.ndim, empty_is_all=False)
    kept = [d for d in range(a.ndim) if d not in dims or a.shape[d] != 1]
    shape, strides = tuple(a.shape[d] for d in kept), tuple(a.stride()[d] for d in kept)
    kind = "squeeze" if dim is None else "squeeze.dim"
    return Restride.apply(a, shape=shape, strides=strides, kind=kind)


@public()
def unsqueeze(a: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dimension at `dim`."""
    dim = normalize_dim(dim, a.ndim + 1)
    shape, strides = list(a.shape), list(a.stride())
    stride = shape[dim] * strides[dim] if dim < a.ndim else 1
    shape.insert(dim, 1)
    strides.insert(dim, stride)
    return Restride.apply(a, shape=tuple(shape), strides=tuple(strides), kind="unsqueeze")
