"""`minitorch.Tensor`: the tensor users hold, with every operation as a method.

It subclasses `TensorBase` (the data: layout, dtype, device, autograd fields;
`tensors/base.py`) and adds one short method per operation, each calling the
function of the same name in its family's module of `minitorch.ops`
(`t.exp()` is `unary.exp(t)`, which is `minitorch.exp(t)`): read that
function, next to its `Function`, for what the method does. This file sits above the
operations, so the arrows point one way: operations never import it, and make
their results with `tensors.base.make_tensor`, which builds this class.
"""

from __future__ import annotations

from . import dtypes
from .autograd.graph import backward as backward_into
from .autograd.graph import run_backward
from .backends.tensor_data import TensorData
from .dtypes import DType
from .ops import (
    arithmetic,
    comparisons,
    copies,
    elementwise,
    gather,
    indexing,
    inplace,
    joins,
    linalg,
    reductions,
    selection,
    sorting,
    statistics,
    unary,
    views,
)
from .ops.keywords import torch_keywords
from .tensors import creation
from .tensors.base import Size, TensorBase, set_tensor_class
from .tensors.device import CPU, device
from .tensors.kernels import Number, new_tensor


class Tensor(TensorBase):
    """A multi-dimensional array over a flat storage, with autograd (see the module docstring)."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        """`Tensor(layout, dtype, device, version_counter)` inside minitorch.

        Users may call PyTorch's legacy constructor: `minitorch.Tensor(data)` (a
        copy of `data` in the default float dtype) or `minitorch.Tensor(2, 3)`.
        """
        if args and isinstance(args[0], TensorData):
            super().__init__(*args, **kwargs)
            return
        made = legacy_tensor(args, kwargs)
        super().__init__(made._layout, made.dtype, made.device)

    @property
    def T(self) -> Tensor:  # noqa: N802 -- PyTorch's name
        """All dimensions reversed (the transpose of a matrix)."""
        return self.permute(*range(self.ndim - 1, -1, -1))

    @property
    def mT(self) -> Tensor:  # noqa: N802 -- PyTorch's name
        """The last two dimensions swapped (a batch of transposed matrices)."""
        return self.transpose(-2, -1)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs=None,
    ) -> None:
        """Add $\\partial \\text{self} / \\partial x$ to `x.grad` for every leaf $x$ below.

        `gradient` weighs the outputs (a vector-Jacobian product); it may be
        left out for a one-element tensor. The graph's saved tensors are freed
        unless `retain_graph=True`. With `create_graph=True` the gradients get a
        graph of their own (for second derivatives); with `inputs`, only those
        tensors get gradients.

        >>> import minitorch
        >>> x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4.])
        """
        if inputs is None:
            run_backward(self, gradient, retain_graph, create_graph)
        else:
            backward_into(self, gradient, retain_graph, create_graph, inputs)

    @property
    def data(self) -> Tensor:
        """This tensor's values outside the graph (`detach()`)."""
        return self.detach()

    @data.setter
    def data(self, value: Tensor) -> None:
        """`w.data = t`: `w` now holds `t`'s values (its storage), outside the graph."""
        # nn core: `p.data = t` points this tensor at `t`'s values (Module.to keeps a
        # Parameter the same object while changing its dtype or device).
        if not isinstance(value, TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._layout, self.dtype, self.device = value._layout, value.dtype, value.device

    def to(self, *args, **kwargs) -> Tensor:
        """This tensor with another dtype and/or device (itself when nothing changes).

        Accepts a dtype, a device (or its name), or another tensor whose dtype
        and device to take: `t.to(minitorch.float64)`, `t.to('cpu')`, `t.to(other)`.
        """
        return copies.to(self, *args, **kwargs)

    def cpu(self) -> Tensor:
        """This tensor on the CPU (itself when it is there already)."""
        return copies.to(self, CPU)

    def cuda(self, device=None, non_blocking: bool = False) -> Tensor:
        """This tensor on the GPU (itself when it is there already); `device` an index or name."""
        target = device if device is not None else "cuda"
        return copies.to(self, f"cuda:{target}" if isinstance(target, int) else target)

    def type(self, dtype: DType | None = None):
        """Convert to `dtype`; without it, PyTorch's type name (`'minitorch.FloatTensor'`)."""
        if dtype is None:
            return f"minitorch.{self.dtype.tensor_type}"
        return copies.to(self, dtypes.to_dtype(dtype))

    def float(self) -> Tensor:
        """A float32 version of this tensor (itself if it is float32)."""
        return copies.to(self, dtypes.float32)

    def double(self) -> Tensor:
        """A float64 version of this tensor (itself if it is float64)."""
        return copies.to(self, dtypes.float64)

    def long(self) -> Tensor:
        """An int64 version of this tensor (itself if it is int64)."""
        return copies.to(self, dtypes.int64)

    def bool(self) -> Tensor:
        """A bool version of this tensor (itself if it is bool)."""
        return copies.to(self, dtypes.bool_)

    # -- integer dtypes (dtypes area): PyTorch's names for them

    def int(self) -> Tensor:
        """An int32 version of this tensor (itself if it is int32)."""
        return copies.to(self, dtypes.int32)

    def short(self) -> Tensor:
        """An int16 version of this tensor (itself if it is int16)."""
        return copies.to(self, dtypes.int16)

    def char(self) -> Tensor:
        """An int8 version of this tensor (itself if it is int8)."""
        return copies.to(self, dtypes.int8)

    def byte(self) -> Tensor:
        """A uint8 version of this tensor (itself if it is uint8)."""
        return copies.to(self, dtypes.uint8)

    def bitwise_left_shift(self, other) -> Tensor:
        """The bits of this integer tensor shifted left by `other` (`self << other`)."""
        return comparisons.bitwise_left_shift(self, other)

    def bitwise_right_shift(self, other) -> Tensor:
        """The bits of this integer tensor shifted right by `other` (`self >> other`)."""
        return comparisons.bitwise_right_shift(self, other)

    def __lshift__(self, other):
        return comparisons.bitwise_left_shift(self, other)

    def __rlshift__(self, other):
        return comparisons.bitwise_left_shift(other, self)

    def __rshift__(self, other):
        return comparisons.bitwise_right_shift(self, other)

    def __rrshift__(self, other):
        return comparisons.bitwise_right_shift(other, self)

    def type_as(self, other: Tensor) -> Tensor:
        """This tensor converted to `other`'s dtype."""
        return copies.to(self, other.dtype)

    # ------------------------------------------------------------------ views

    def view(self, *shape) -> Tensor:
        """The same elements with another shape, never copying (one size may be -1)."""
        return views.view(self, *shape)

    def view_as(self, other: Tensor) -> Tensor:
        return views.view(self, other.shape)

    def reshape(self, *shape) -> Tensor:
        """Like `view`, but copies when the strides do not allow a view."""
        return views.reshape(self, *shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        return views.reshape(self, other.shape)

    def permute(self, *dims) -> Tensor:
        """Reorder the dimensions (a view): dimension k of the result is `dims[k]`."""
        return views.permute(self, *dims)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions (a view)."""
        return views.transpose(self, dim0, dim1)

    swapaxes = transpose

    def t(self) -> Tensor:
        """Transpose a matrix (a view); 0-D and 1-D tensors come back as they are."""
        return views.t(self)

    def expand(self, *sizes) -> Tensor:
        """Repeat size-1 dimensions to `sizes` without copying (-1 keeps a size)."""
        return views.expand(self, *sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        return views.expand(self, other.shape)

    def squeeze(self, dim=None) -> Tensor:
        """Drop dimensions of size 1 (all of them, or `dim` if it has size 1)."""
        return views.squeeze(self, dim)

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a dimension of size 1 at `dim`."""
        return views.unsqueeze(self, dim)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge dimensions `start_dim..end_dim` into one (a view when possible)."""
        return views.flatten(self, start_dim, end_dim)

    def contiguous(self) -> Tensor:
        """This tensor if contiguous, else a contiguous copy."""
        return self if self.is_contiguous() else copies.clone(self)

    def clone(self) -> Tensor:
        """A contiguous copy with its own storage."""
        return copies.clone(self)

    def detach(self) -> Tensor:
        """The same storage, cut from the autograd graph."""
        return copies.detach(self)

    def __getitem__(self, key) -> Tensor:
        return indexing.getitem(self, key)

    def __setitem__(self, key, value) -> None:
        indexing.setitem(self, key, value)

    def where(self, condition: Tensor, other) -> Tensor:
        """This tensor where `condition` holds, else `other`: `where(condition, self, other)`."""
        return comparisons.where(condition, self, other)

    # ------------------------------------------------------------------ gather/scatter, selection
    # Index arithmetic ops (ops/gather.py, ops/selection.py, ops/indexing.py).

    def gather(self, dim: int, index: Tensor) -> Tensor:
        return gather.gather(self, dim, index)

    def scatter(self, dim: int, index: Tensor, src=None, value=None, reduce=None) -> Tensor:
        return gather.scatter(self, dim, index, src, value, reduce)

    def scatter_(self, dim: int, index: Tensor, src=None, value=None, reduce=None) -> Tensor:
        return gather.scatter_(self, dim, index, src, value, reduce)

    def scatter_add(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return gather.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return gather.scatter_add_(self, dim, index, src)

    def index_select(self, dim: int, index: Tensor) -> Tensor:
        return gather.index_select(self, dim, index)

    def index_add(self, dim: int, index: Tensor, source: Tensor, alpha: Number = 1) -> Tensor:
        return gather.index_add(self, dim, index, source, alpha)

    def index_add_(self, dim: int, index: Tensor, source: Tensor, alpha: Number = 1) -> Tensor:
        return gather.index_add_(self, dim, index, source, alpha)

    def index_fill(self, dim: int, index: Tensor, value) -> Tensor:
        return gather.index_fill(self, dim, index, value)

    def index_fill_(self, dim: int, index: Tensor, value) -> Tensor:
        return gather.index_fill_(self, dim, index, value)

    def index_put_(self, indices: tuple, values: Tensor, accumulate: bool = False) -> Tensor:
        return indexing.index_put_(self, tuple(indices), values, accumulate)

    def take(self, index: Tensor) -> Tensor:
        return gather.tensor_take(self, index)

    def masked_fill(self, mask: Tensor, value) -> Tensor:
        return selection.masked_fill(self, mask, value)

    def masked_fill_(self, mask: Tensor, value) -> Tensor:
        return selection.masked_fill_(self, mask, value)

    def masked_select(self, mask: Tensor) -> Tensor:
        return selection.masked_select(self, mask)

    def nonzero(self, *, as_tuple: bool = False):
        return selection.nonzero(self, as_tuple=as_tuple)

    def argwhere(self) -> Tensor:
        return selection.argwhere(self)

    def unique(self, sorted: bool = True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
        return selection.unique(self, sorted, return_inverse, return_counts, dim)

    def bincount(self, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
        return selection.bincount(self, weights, minlength)

    def histc(self, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
        return selection.histc(self, bins, min, max)

    # issue 9's leftovers (apileft): scatter's reductions, unique_consecutive

    def scatter_reduce(
        self, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self=True
    ):
        return gather.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return selection.unique_consecutive(self, return_inverse, return_counts, dim)

    def scatter_reduce_(
        self, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self=True
    ):
        return gather.scatter_reduce_(self, dim, index, src, reduce, include_self=include_self)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False) -> Tensor:
        """A copy of `data` with this tensor's dtype and device unless given."""
        return creation.tensor(data, dtype or self.dtype, device or self.device, requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False) -> Tensor:
        return creation.zeros(*size, dtype=dtype or self.dtype, device=device or self.device,
                              requires_grad=requires_grad)  # fmt: skip

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False) -> Tensor:
        return creation.ones(*size, dtype=dtype or self.dtype, device=device or self.device,
                             requires_grad=requires_grad)  # fmt: skip

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False) -> Tensor:
        return creation.empty(*size, dtype=dtype or self.dtype, device=device or self.device,
                              requires_grad=requires_grad)  # fmt: skip

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
        return creation.full(size, fill_value, dtype=dtype or self.dtype,
                             device=device or self.device, requires_grad=requires_grad)  # fmt: skip

    def nelement(self) -> int:
        """`numel()`: the number of elements."""
        return self.numel()

    def ndimension(self) -> int:
        """`dim()`: the number of dimensions."""
        return self.dim()

    # ------------------------------------------------------------------ operations
    # Each is the function of the same name in ops/ (`t.exp()` is `unary.exp(t)`).

    def add(self, other, alpha: Number = 1) -> Tensor:
        return arithmetic.add(self, other, alpha)

    def sub(self, other, alpha: Number = 1) -> Tensor:
        return arithmetic.sub(self, other, alpha)

    def mul(self, other) -> Tensor:
        return arithmetic.mul(self, other)

    def div(self, other) -> Tensor:
        return arithmetic.div(self, other)

    def true_divide(self, other) -> Tensor:
        return arithmetic.true_divide(self, other)

    def floor_divide(self, other) -> Tensor:
        return arithmetic.floor_divide(self, other)

    def remainder(self, other) -> Tensor:
        return arithmetic.remainder(self, other)

    def pow(self, other) -> Tensor:
        return arithmetic.tensor_pow(self, other)

    def neg(self) -> Tensor:
        return unary.neg(self)

    def negative(self) -> Tensor:
        return unary.negative(self)

    def abs(self) -> Tensor:
        return unary.tensor_abs(self)

    def reciprocal(self) -> Tensor:
        return unary.reciprocal(self)

    def exp(self) -> Tensor:
        return unary.exp(self)

    def log(self) -> Tensor:
        return unary.log(self)

    def sqrt(self) -> Tensor:
        return unary.sqrt(self)

    def sigmoid(self) -> Tensor:
        return unary.sigmoid(self)

    def relu(self) -> Tensor:
        return unary.relu(self)

    def tanh(self) -> Tensor:
        return unary.tanh(self)

    def maximum(self, other: Tensor) -> Tensor:
        return comparisons.maximum(self, other)

    def minimum(self, other: Tensor) -> Tensor:
        return comparisons.minimum(self, other)

    def clamp(self, min: Number | None = None, max: Number | None = None) -> Tensor:  # noqa: A002
        return comparisons.clamp(self, min, max)

    def clip(self, min: Number | None = None, max: Number | None = None) -> Tensor:  # noqa: A002
        return comparisons.clip(self, min, max)

    def eq(self, other) -> Tensor:
        return comparisons.eq(self, other)

    def ne(self, other) -> Tensor:
        return comparisons.ne(self, other)

    def lt(self, other) -> Tensor:
        return comparisons.lt(self, other)

    def le(self, other) -> Tensor:
        return comparisons.le(self, other)

    def gt(self, other) -> Tensor:
        return comparisons.gt(self, other)

    def ge(self, other) -> Tensor:
        return comparisons.ge(self, other)

    def logical_not(self) -> Tensor:
        return comparisons.logical_not(self)

    def logical_and(self, other: Tensor) -> Tensor:
        return comparisons.logical_and(self, other)

    def logical_or(self, other: Tensor) -> Tensor:
        return comparisons.logical_or(self, other)

    def sum(self, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
        return reductions.tensor_sum(self, dim, keepdim, dtype)

    def mean(self, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
        return reductions.mean(self, dim, keepdim, dtype)

    def prod(self, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
        return reductions.tensor_prod(self, dim, keepdim, dtype)

    def max(self, dim=None, keepdim: bool = False, *, other=None):
        return reductions.tensor_max(self, dim, keepdim, other=other)

    def min(self, dim=None, keepdim: bool = False, *, other=None):
        return reductions.tensor_min(self, dim, keepdim, other=other)

    def argmax(self, dim=None, keepdim: bool = False) -> Tensor:
        return reductions.argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim: bool = False) -> Tensor:
        return reductions.argmin(self, dim, keepdim)

    def all(self, dim=None, keepdim: bool = False) -> Tensor:
        return reductions.tensor_all(self, dim, keepdim)

    def any(self, dim=None, keepdim: bool = False) -> Tensor:
        return reductions.tensor_any(self, dim, keepdim)

    def softmax(self, dim: int, dtype=None) -> Tensor:
        return reductions.softmax(self, dim, dtype)

    def log_softmax(self, dim: int, dtype=None) -> Tensor:
        return reductions.log_softmax(self, dim, dtype)

    def matmul(self, other: Tensor) -> Tensor:
        return linalg.matmul(self, other)

    def mm(self, other: Tensor) -> Tensor:
        return linalg.mm(self, other)

    def dot(self, other: Tensor) -> Tensor:
        return linalg.dot(self, other)

    # ------------------------------------------------------------------ tensor API part A:
    # more math, reductions, sorting, joins and splits

    def sin(self) -> Tensor:
        return elementwise.sin(self)

    def cos(self) -> Tensor:
        return elementwise.cos(self)

    def tan(self) -> Tensor:
        return elementwise.tan(self)

    def asin(self) -> Tensor:
        return elementwise.asin(self)

    def acos(self) -> Tensor:
        return elementwise.acos(self)

    def atan(self) -> Tensor:
        return elementwise.atan(self)

    def sinh(self) -> Tensor:
        return elementwise.sinh(self)

    def cosh(self) -> Tensor:
        return elementwise.cosh(self)

    def log2(self) -> Tensor:
        return elementwise.log2(self)

    def log10(self) -> Tensor:
        return elementwise.log10(self)

    def log1p(self) -> Tensor:
        return elementwise.log1p(self)

    def expm1(self) -> Tensor:
        return elementwise.expm1(self)

    def erf(self) -> Tensor:
        return elementwise.erf(self)

    def floor(self) -> Tensor:
        return elementwise.floor(self)

    def ceil(self) -> Tensor:
        return elementwise.ceil(self)

    def trunc(self) -> Tensor:
        return elementwise.trunc(self)

    def fix(self) -> Tensor:
        return elementwise.fix(self)

    def frac(self) -> Tensor:
        return elementwise.frac(self)

    def sign(self) -> Tensor:
        return elementwise.sign(self)

    def rsqrt(self) -> Tensor:
        return elementwise.rsqrt(self)

    def square(self) -> Tensor:
        return elementwise.square(self)

    def isfinite(self) -> Tensor:
        return elementwise.isfinite(self)

    def isnan(self) -> Tensor:
        return elementwise.isnan(self)

    def isinf(self) -> Tensor:
        return elementwise.isinf(self)

    arcsin, arccos, arctan = asin, acos, atan

    def round(self, decimals: int = 0) -> Tensor:
        return elementwise.tensor_round(self, decimals=decimals)

    def atan2(self, other: Tensor) -> Tensor:
        return elementwise.atan2(self, other)

    arctan2 = atan2

    def hypot(self, other: Tensor) -> Tensor:
        return elementwise.hypot(self, other)

    def fmod(self, other) -> Tensor:
        return elementwise.fmod(self, other)

    def lerp(self, end: Tensor, weight) -> Tensor:
        return elementwise.lerp(self, end, weight)

    def nan_to_num(self, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:
        return elementwise.nan_to_num(self, nan, posinf, neginf)

    def isclose(self, other: Tensor, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:
        return elementwise.isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other: Tensor, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
        return elementwise.allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other: Tensor) -> bool:
        return elementwise.equal(self, other)

    def cumsum(self, dim: int, dtype=None) -> Tensor:
        return statistics.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim: int, dtype=None) -> Tensor:
        return statistics.cumprod(self, dim, dtype=dtype)

    def var(self, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
        return statistics.var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
        return statistics.std(self, dim, unbiased, keepdim, correction=correction)

    def norm(self, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
        return statistics.norm(self, p, dim, keepdim, dtype)

    def logsumexp(self, dim, keepdim: bool = False) -> Tensor:
        return statistics.logsumexp(self, dim, keepdim)

    def amax(self, dim=(), keepdim: bool = False) -> Tensor:
        return statistics.amax(self, dim, keepdim)

    def amin(self, dim=(), keepdim: bool = False) -> Tensor:
        return statistics.amin(self, dim, keepdim)

    def count_nonzero(self, dim=None) -> Tensor:
        return statistics.count_nonzero(self, dim)

    def sort(self, dim: int = -1, descending: bool = False, stable: bool = False):
        return sorting.sort(self, dim, descending, stable)

    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
        return sorting.argsort(self, dim, descending, stable)

    def msort(self) -> Tensor:
        return sorting.msort(self)

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
        return sorting.topk(self, k, dim, largest, sorted)

    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False):
        return sorting.kthvalue(self, k, dim, keepdim)

    def median(self, dim=None, keepdim: bool = False):
        return sorting.median(self, dim, keepdim)

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        return joins.narrow(self, dim, start, length)

    def split(self, split_size, dim: int = 0) -> tuple:
        return joins.split(self, split_size, dim)

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        return joins.chunk(self, chunks, dim)

    def tensor_split(self, indices_or_sections, dim: int = 0) -> tuple:
        return joins.tensor_split(self, indices_or_sections, dim)

    def unbind(self, dim: int = 0) -> tuple:
        return joins.unbind(self, dim)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        return joins.diagonal(self, offset, dim1, dim2)

    def diag(self, diagonal: int = 0) -> Tensor:
        return joins.diag(self, diagonal)

    def repeat(self, *repeats) -> Tensor:
        return joins.repeat(self, *repeats)

    def tile(self, dims) -> Tensor:
        return joins.tile(self, dims)

    def repeat_interleave(self, repeats, dim=None) -> Tensor:
        return joins.repeat_interleave(self, repeats, dim)

    def flip(self, *dims) -> Tensor:
        return joins.flip(self, *dims)

    def roll(self, shifts, dims=None) -> Tensor:
        return joins.roll(self, shifts, dims)

    def tril(self, diagonal: int = 0) -> Tensor:
        return joins.tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Tensor:
        return joins.triu(self, diagonal)

    def outer(self, other: Tensor) -> Tensor:
        return joins.outer(self, other)

    def bmm(self, other: Tensor) -> Tensor:
        return joins.bmm(self, other)

    def addmm(self, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
        return joins.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    # ------------------------------------------------------------------ in place

    def add_(self, other, alpha: Number = 1) -> Tensor:
        return inplace.add_(self, other, alpha)

    def sub_(self, other, alpha: Number = 1) -> Tensor:
        return inplace.sub_(self, other, alpha)

    def mul_(self, other) -> Tensor:
        return inplace.mul_(self, other)

    def div_(self, other) -> Tensor:
        return inplace.div_(self, other)

    def pow_(self, other) -> Tensor:
        return inplace.pow_(self, other)

    def neg_(self) -> Tensor:
        return inplace.neg_(self)

    def abs_(self) -> Tensor:
        return inplace.abs_(self)

    def exp_(self) -> Tensor:
        return inplace.exp_(self)

    def log_(self) -> Tensor:
        return inplace.log_(self)

    def sqrt_(self) -> Tensor:
        return inplace.sqrt_(self)

    def sigmoid_(self) -> Tensor:
        return inplace.sigmoid_(self)

    def tanh_(self) -> Tensor:
        return inplace.tanh_(self)

    def relu_(self) -> Tensor:
        return inplace.relu_(self)

    def clamp_(self, min=None, max=None) -> Tensor:  # noqa: A002
        return inplace.clamp_(self, min, max)

    def zero_(self) -> Tensor:
        return inplace.zero_(self)

    def fill_(self, value: Number) -> Tensor:
        return inplace.fill_(self, value)

    def copy_(self, source: Tensor) -> Tensor:
        return inplace.copy_(self, source)

    def t_(self) -> Tensor:
        return inplace.t_(self)

    def uniform_(self, low: float = 0.0, high: float = 1.0, *, generator=None) -> Tensor:
        return inplace.uniform_(self, low, high, generator=generator)

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
        return inplace.normal_(self, mean, std, generator=generator)

    # optim: a tensor hashes by identity, as PyTorch's (an optimizer's `state` is keyed by its
    # parameters); defining `__eq__` below would otherwise leave the class unhashable
    __hash__ = TensorBase.__hash__

    # optim: the in-place updates optimizers write
    def addcmul_(self, tensor1: Tensor, tensor2: Tensor, *, value: Number = 1) -> Tensor:
        return inplace.addcmul_(self, tensor1, tensor2, value)

    def addcdiv_(self, tensor1: Tensor, tensor2: Tensor, *, value: Number = 1) -> Tensor:
        return inplace.addcdiv_(self, tensor1, tensor2, value)

    def lerp_(self, end: Tensor, weight) -> Tensor:
        return inplace.lerp_(self, end, weight)

    # ------------------------------------------------------------------ arithmetic

    def __add__(self, other):
        return arithmetic.add(self, other)

    def __radd__(self, other):
        return arithmetic.add(self, other)  # `2 + x` is recorded as `x + 2`, as in PyTorch

    def __sub__(self, other):
        return arithmetic.sub(self, other)

    def __rsub__(self, other):
        return arithmetic.sub(other, self)

    def __mul__(self, other):
        return arithmetic.mul(self, other)

    def __rmul__(self, other):
        return arithmetic.mul(self, other)  # `2 * x` is recorded as `x * 2`, as in PyTorch

    def __truediv__(self, other):
        return arithmetic.div(self, other)

    def __rtruediv__(self, other):
        return arithmetic.div(other, self)

    def __floordiv__(self, other):
        return arithmetic.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return arithmetic.floor_divide(other, self)

    def __mod__(self, other):
        return arithmetic.remainder(self, other)

    def __rmod__(self, other):
        return arithmetic.remainder(other, self)

    def __pow__(self, other):
        return arithmetic.tensor_pow(self, other)

    def __rpow__(self, other):
        return arithmetic.tensor_pow(other, self)

    def __matmul__(self, other):
        return linalg.matmul(self, other)

    def __rmatmul__(self, other):
        return linalg.matmul(other, self)

    def __neg__(self):
        return unary.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return unary.tensor_abs(self)

    def __lt__(self, other):
        return comparisons.lt(self, other)

    def __le__(self, other):
        return comparisons.le(self, other)

    def __gt__(self, other):
        return comparisons.gt(self, other)

    def __ge__(self, other):
        return comparisons.ge(self, other)

    def __eq__(self, other):  # type: ignore[override]
        return comparisons.eq(self, other)

    def __ne__(self, other):  # type: ignore[override]
        return comparisons.ne(self, other)

    def __and__(self, other):
        return comparisons.bitwise_and(self, other)

    __rand__ = __and__

    def __or__(self, other):
        return comparisons.bitwise_or(self, other)

    __ror__ = __or__

    def __xor__(self, other):
        return comparisons.bitwise_xor(self, other)

    __rxor__ = __xor__

    def __invert__(self):
        return comparisons.bitwise_not(self)

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    # ------------------------------------------------------------------ nn core
    # (torch.Tensor._make_subclass: how nn.Parameter becomes a tensor)

    @staticmethod
    def _make_subclass(cls: type, data: TensorBase, require_grad: bool = False) -> Tensor:
        """A leaf of class `cls` (a subclass, e.g. `nn.Parameter`) over `data`'s storage."""
        if not isinstance(data, TensorBase):
            raise TypeError(
                "_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                f"{type(data).__name__}"
            )
        made = TensorBase.__new__(cls)
        TensorBase.__init__(made, data._layout, data.dtype, data.device, data._version_counter)
        made.requires_grad = require_grad
        return made

    # ------------------------------------------------------------------ creation (autograd2)
    # Random methods taking `generator=`.

    def bernoulli(self, p=None, *, generator=None) -> Tensor:
        """`minitorch.bernoulli(self)`: 1 with probability `self` (or `p`) elementwise."""
        return creation.bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples: int, replacement=False, *, generator=None) -> Tensor:
        """`minitorch.multinomial(self, ...)`: indices drawn with weights `self`."""
        return creation.multinomial(self, num_samples, replacement, generator=generator)


def legacy_tensor(args: tuple, kwargs: dict) -> TensorBase:
    """What PyTorch's legacy `Tensor(...)` makes: sizes give zeros, data a float copy."""
    if set(kwargs) - {"device"}:
        raise TypeError(
            f"new() received an invalid combination of arguments - got {sorted(kwargs)}"
        )
    on_device = kwargs.get("device")
    dtype = dtypes.get_default_dtype()
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args) and args:
        return new_tensor(args, dtype, device(on_device) if on_device else CPU)
    if len(args) > 1:
        raise TypeError("new() received an invalid combination of arguments")
    return creation.tensor(args[0] if args else [], dtype=dtype, device=on_device)


# NumPy's axis=/keepdims= on the reductions, as PyTorch accepts them (ops/keywords.py)
for _name in ("sum", "mean", "prod", "max", "min", "argmax", "argmin", "all", "any"):
    setattr(Tensor, _name, torch_keywords(getattr(Tensor, _name)))

set_tensor_class(Tensor)
