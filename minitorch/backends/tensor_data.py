"""Tensor layout: a flat storage, a shape, strides and an offset.

A tensor with shape $(s_0, \\ldots, s_{n-1})$ and strides
$(t_0, \\ldots, t_{n-1})$ keeps element $(i_0, \\ldots, i_{n-1})$ at

$$\\text{offset} + \\sum_k i_k t_k$$

of its one-dimensional storage. Views (transpose, slicing, expand, ...) are new
(shape, strides, offset) triples over the same storage; nothing is copied.

The index functions `index_to_position`, `to_index` and `broadcast_index`
work on NumPy int64 arrays with plain loops, so that the Numba backends can
compile the very same functions (`njit(inline="always")`,
`cuda.jit(device=True)`) instead of writing the index math again.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..dtypes import DType

# Internal index buffers (NumPy int64 arrays) and user-facing tuples.
Storage = npt.NDArray  # one-dimensional buffer of elements
Shape = npt.NDArray[np.int64]
Strides = npt.NDArray[np.int64]
Index = npt.NDArray[np.int64]
UserShape = tuple[int, ...]
UserStrides = tuple[int, ...]
UserIndex = tuple[int, ...]


def index_to_position(index: Index, strides: Strides) -> int:
    """The storage position of `index`, relative to the offset: $\\sum_k i_k t_k$."""
    # BEGIN SOLUTION 2.1
    position = 0
    for k in range(len(index)):
        position += index[k] * strides[k]
    return position
    # END SOLUTION 2.1


def to_index(ordinal: int, shape: Shape, out_index: Index) -> None:
    """Write into `out_index` the index of the `ordinal`-th element in row-major order.

    The last dimension moves fastest: with shape (2, 3), ordinals 0..5 map to
    (0,0) (0,1) (0,2) (1,0) (1,1) (1,2). This enumerates every index of a
    shape, whatever the strides of the tensor being walked.
    """
    # BEGIN SOLUTION 2.1
    remaining = ordinal
    for k in range(len(shape) - 1, -1, -1):
        out_index[k] = remaining % shape[k]
        remaining = remaining // shape[k]
    # END SOLUTION 2.1


def broadcast_index(big_index: Index, big_shape: Shape, shape: Shape, out_index: Index) -> None:
    """Map an index of the broadcast shape `big_shape` to an index of `shape`.

    `shape` is aligned with the trailing dimensions of `big_shape`; where it
    has size 1 the index is 0 (that one element is repeated), elsewhere it is
    the big index's entry.
    """
    # BEGIN SOLUTION 2.2
    extra = len(big_shape) - len(shape)
    for k in range(len(shape)):
        out_index[k] = big_index[k + extra] if shape[k] > 1 else 0
    # END SOLUTION 2.2


def shape_broadcast(shape_a: UserShape, shape_b: UserShape) -> UserShape:
    """The shape both `shape_a` and `shape_b` broadcast to.

    Shapes are aligned on the right; each pair of sizes must be equal or one
    of them 1. RuntimeError (PyTorch's text) otherwise.
    """
    # BEGIN SOLUTION 2.2
    ndim = max(len(shape_a), len(shape_b))
    padded_a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    padded_b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    result = [0] * ndim
    for k in range(ndim - 1, -1, -1):  # from the right, so errors name torch's dimension
        size_a, size_b = padded_a[k], padded_b[k]
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
                f"at non-singleton dimension {k}"
            )
        result[k] = size_b if size_a == 1 else size_a
    return tuple(result)
    # END SOLUTION 2.2


def strides_from_shape(shape: UserShape) -> UserStrides:
    """Row-major (contiguous) strides: each stride is the product of the sizes after it.

    Sizes of 0 count as 1, as in PyTorch: `(2, 0, 3)` has strides `(3, 3, 1)`.
    """
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def prod(sizes: Sequence[int]) -> int:
    """The product of `sizes` (1 for none): the number of elements of a shape."""
    result = 1
    for size in sizes:
        result *= size
    return result


def view_strides(shape: UserShape, strides: UserStrides, new_shape: UserShape):
    """Strides that show a tensor of (`shape`, `strides`) as `new_shape`, or None.

    PyTorch's rule for `view`: split the old dimensions into *chunks* in which
    each dimension steps exactly over the next one
    ($t_k = t_{k+1} s_{k+1}$). A view is possible when the new dimensions can
    be grouped, from the right, into runs whose sizes multiply to each
    chunk's number of elements; every run then walks its chunk with
    contiguous strides. `reshape` copies exactly when this returns None.
    """
    if len(shape) == 0:
        return (1,) * len(new_shape)
    numel = prod(shape)
    if numel == 0:
        return tuple(strides) if tuple(new_shape) == tuple(shape) else strides_from_shape(new_shape)
    new_strides = [0] * len(new_shape)
    new_dim = len(new_shape) - 1
    chunk_stride = strides[-1]  # stride of the innermost dimension of the current chunk
    chunk_numel = 1
    for old_dim in range(len(shape) - 1, -1, -1):
        chunk_numel *= shape[old_dim]
        chunk_ends = old_dim == 0 or (
            shape[old_dim - 1] != 1 and strides[old_dim - 1] != chunk_numel * chunk_stride
        )
        if not chunk_ends:
            continue
        run_numel = 1
        while new_dim >= 0 and (run_numel < chunk_numel or new_shape[new_dim] == 1):
            new_strides[new_dim] = run_numel * chunk_stride
            run_numel *= new_shape[new_dim]
            new_dim -= 1
        if run_numel != chunk_numel:
            return None
        if old_dim > 0:
            chunk_stride = strides[old_dim - 1]
            chunk_numel = 1
    if new_dim != -1:
        return None
    return tuple(new_strides)


def normalize_dim(dim: int, ndim: int) -> int:
    """`dim` as a non-negative dimension of an `ndim`-dimensional tensor.

    IndexError (PyTorch's text) when out of range; a 0-dim tensor accepts -1 and 0.
    """
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], "
            f"but got {dim})"
        )
    return dim % bound


# Row-major layouts by shape: (shape, strides, numel, shape array, strides array), shared by
# every contiguous TensorData of that shape, so that allocating a result builds no arrays.
# The kernels only read the arrays; nothing may write them.
_contiguous_layouts: dict[tuple, tuple] = {}
_MOST_CACHED_SHAPES = 4096
# The same for the (shape array, strides array, row-major) of strided layouts (views:
# transposes, expands, slices), keyed by (shape, strides).
_strided_arrays: dict[tuple, tuple] = {}


def is_row_major(shape: UserShape, strides: UserStrides) -> bool:
    """Whether element number $i$ (in row-major order) is at offset + $i$: the strides are
    row-major wherever a dimension has more than one element (PyTorch's `is_contiguous`)."""
    if prod(shape) == 0:
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides), strict=True):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def check_sizes(shape: tuple) -> None:
    """PyTorch's error for a negative size (a kernel would loop over it for ever)."""
    if any(size < 0 for size in shape):
        negative = next(size for size in shape if size < 0)
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {negative}: {list(shape)}"
        )


def contiguous_layout(shape: UserShape) -> tuple:
    """(shape, strides, numel, shape array, strides array) of the row-major layout of `shape`."""
    entry = _contiguous_layouts.get(shape)
    if entry is None:
        shape = tuple(map(int, shape))
        check_sizes(shape)
        strides = strides_from_shape(shape)
        entry = (
            shape,
            strides,
            prod(shape),
            np.array(shape, dtype=np.int64),
            np.array(strides, dtype=np.int64),
        )
        if len(_contiguous_layouts) >= _MOST_CACHED_SHAPES:
            _contiguous_layouts.clear()
        _contiguous_layouts[shape] = entry
    return entry


def strided_arrays(shape: tuple, strides: tuple) -> tuple:
    """The (shape array, strides array, row-major) of a layout, checked and made once per pair."""
    entry = _strided_arrays.get((shape, strides))
    if entry is None:
        check_sizes(shape)
        if len(strides) != len(shape):
            raise ValueError(f"shape {shape} and strides {strides} differ in length")
        entry = (
            np.array(shape, dtype=np.int64),
            np.array(strides, dtype=np.int64),
            is_row_major(shape, strides),
        )
        if len(_strided_arrays) >= _MOST_CACHED_SHAPES:
            _strided_arrays.clear()
        _strided_arrays[(shape, strides)] = entry
    return entry


class TensorData:
    """The layout of one tensor: storage, shape, strides, offset.

    `storage` is a one-dimensional NumPy array that several layouts (views) may
    share. `shape` and `strides` are tuples for Python code and int64 arrays
    (`shape_array`, `strides_array`) for the kernels, which only read them
    (contiguous layouts of one shape share theirs). `row_major` tells whether element
    number $i$ is at `offset` + $i$ (`is_contiguous`), found once per shape and strides.

    `TensorData.empty` and `TensorData.contiguous` are the fast constructors for
    results: a few hundred nanoseconds, against microseconds for the general one.
    """

    __slots__ = (
        "storage", "shape", "strides", "offset", "shape_array", "strides_array", "row_major"
    )  # fmt: skip

    def __init__(
        self, storage: Storage, shape: UserShape, strides: UserStrides | None = None, offset=0
    ):
        self.storage = storage
        self.offset = int(offset)
        if strides is None:
            entry = contiguous_layout(shape)
            self.shape, self.strides, _, self.shape_array, self.strides_array = entry
            self.row_major = True
        else:
            self.shape = tuple(map(int, shape))
            self.strides = tuple(map(int, strides))
            self.shape_array, self.strides_array, self.row_major = strided_arrays(
                self.shape, self.strides
            )
        self._check_bounds()

    @classmethod
    def contiguous(cls, storage: Storage, shape: UserShape, offset: int = 0) -> TensorData:
        """The row-major layout of `shape` at `offset` of `storage` (the fast constructor).

        Same as `TensorData(storage, shape, None, offset)` with `offset` an int;
        the only check is that the elements fit in `storage`.
        """
        layout = object.__new__(cls)
        layout.shape, layout.strides, numel, layout.shape_array, layout.strides_array = (
            contiguous_layout(shape)
        )
        if numel and (offset < 0 or offset + numel > storage.shape[0]):
            raise RuntimeError(
                f"layout with shape {list(layout.shape)}, strides {list(layout.strides)} and "
                f"offset {offset} reaches outside a storage of {storage.shape[0]} elements"
            )
        layout.storage = storage
        layout.offset = offset
        layout.row_major = True
        return layout

    @classmethod
    def empty(cls, shape: UserShape, dtype: DType, zeros=np.zeros) -> TensorData:
        """A new contiguous layout of `shape` over fresh zero-filled storage of `dtype`.

        `zeros(size, numpy_dtype)` allocates the storage: host memory by default,
        a backend's `zeros` for its device's memory.
        """
        layout = object.__new__(cls)
        layout.shape, layout.strides, numel, layout.shape_array, layout.strides_array = (
            _contiguous_layouts.get(shape) or contiguous_layout(shape)
        )
        layout.storage = zeros(numel, dtype.numpy_dtype)
        layout.offset = 0
        layout.row_major = True
        return layout

    def _check_bounds(self) -> None:
        """Refuse layouts that would reach outside the storage."""
        lowest = highest = self.offset
        for size, stride in zip(self.shape, self.strides, strict=True):
            if size == 0:
                return
            if stride < 0:
                lowest += (size - 1) * stride
            else:
                highest += (size - 1) * stride
        if lowest < 0 or highest >= self.storage.shape[0]:
            raise RuntimeError(
                f"layout with shape {list(self.shape)}, strides {list(self.strides)} and offset "
                f"{self.offset} reaches outside a storage of {self.storage.shape[0]} elements"
            )

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def numel(self) -> int:
        """Number of elements: the product of the shape."""
        return prod(self.shape)

    def is_contiguous(self) -> bool:
        """Whether the strides are row-major, ignoring dimensions of size 1 (PyTorch's rule)."""
        return self.row_major

    def position(self, index: Sequence[int]) -> int:
        """The storage position of the element at `index` (offset included)."""
        return self.offset + index_to_position(np.asarray(index, np.int64), self.strides_array)

    def indices(self):
        """Every index of the shape, in row-major order, as tuples."""
        index = np.zeros(self.ndim, dtype=np.int64)
        for ordinal in range(self.numel()):
            to_index(ordinal, self.shape_array, index)
            yield tuple(int(i) for i in index)

    def permute(self, *order: int) -> TensorData:
        """The same storage with dimensions reordered: dimension k of the result is `order[k]`."""
        return TensorData(
            self.storage,
            tuple(self.shape[d] for d in order),
            tuple(self.strides[d] for d in order),
            self.offset,
        )

    def view(self, new_shape: UserShape) -> TensorData | None:
        """The layout of `new_shape` over the same elements, or None when strides forbid it."""
        strides = view_strides(self.shape, self.strides, new_shape)
        if strides is None:
            return None
        return TensorData(self.storage, new_shape, strides, self.offset)

    def expand(self, new_shape: UserShape) -> TensorData:
        """Broadcast to `new_shape` without copying: repeated dimensions get stride 0.

        `new_shape` must already be checked against `shape` (same trailing sizes or 1s).
        """
        extra = len(new_shape) - self.ndim
        strides = [0] * extra
        for k, (size, stride) in enumerate(zip(self.shape, self.strides, strict=True)):
            strides.append(stride if size == new_shape[k + extra] else 0)
        return TensorData(self.storage, new_shape, strides, self.offset)

    def numpy_view(self) -> np.ndarray:
        """A NumPy array over the same memory (writes go through both ways)."""
        itemsize = self.storage.itemsize
        if self.numel() == 0:
            return np.empty(self.shape, dtype=self.storage.dtype)
        return np.lib.stride_tricks.as_strided(
            self.storage[self.offset :],
            shape=self.shape,
            strides=tuple(s * itemsize for s in self.strides),
        )

    def __repr__(self) -> str:
        return (
            f"TensorData(shape={self.shape}, strides={self.strides}, offset={self.offset}, "
            f"storage of {self.storage.shape[0]} {self.storage.dtype})"
        )
