"""The table of the kernels `CudaBackend` launches, and the argument types of their launches.

Every launch names its kernel here (`CudaBackend.compiled(name, *settings)`), so the table
is the whole set of kernels the backend can run. Each row says which body factory builds
the kernel, which scalar functions its settings take (`scalar`: a `map` runs a function of
one value, a `zip`, `reduce` or `scan` one of two, an `arg_reduce` a comparison), the
other settings it is launched with, and the Numba types of the arguments a launch passes
for a given element dtype. `scripts/check_cuda_compile.py` reads it to compile every
kernel with the real CUDA target, on a machine without a GPU.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numba
import numpy as np
from numba import types

from .cuda_ops import cuda_map, cuda_matmul, cuda_reduce, cuda_zip
from .driver import GPU_MATMUL_BLOCKS
from .elementwise import cuda_adam, cuda_fill, cuda_where
from .folds import cuda_fold_runs, cuda_target_keys
from .indexing import cuda_put, cuda_scatter_along, cuda_scatter_claims, cuda_take
from .matmul import cuda_matmul_blocked
from .reductions import WARP, cuda_arg_reduce, cuda_reduce_shuffled, cuda_scan
from .sorting import cuda_line_keys, cuda_merge_round, cuda_sorted_lines
from .windows import (
    cuda_avg_pool2d,
    cuda_avg_pool2d_backward,
    cuda_conv2d,
    cuda_conv2d_input_grad,
    cuda_conv2d_weight_grad,
    cuda_max_pool2d,
    cuda_max_pool2d_backward,
)

INDEX = types.Array(types.int64, 1, "C")  # a shape or strides buffer on the device
# The element dtypes a kernel is checked in: the arithmetic ones, and bool where it moves masks.
ARITHMETIC = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64))
ANY = (*ARITHMETIC, np.dtype(np.bool_))
POSITIONS = (np.dtype(np.int64),)  # kernels over positions only, whatever the tensors' dtype
FLOATING = ARITHMETIC[:2]  # the window kernels' (convolution and pooling of floats only)
# (stride, dilation, padding) pairs, flattened (`interface.window_settings`), and a pool's
# kernel size
WINDOW = types.UniTuple(types.int64, 6)
KERNEL_SIZE = types.UniTuple(types.int64, 2)
# an average pool's last arguments (`windows.pool_settings`): kernel size, settings, whether
# the padding counts, the divisor
AVG_POOL = (KERNEL_SIZE, WINDOW, types.boolean, types.int64)


def storage(dtype: np.dtype) -> types.Array:
    """The Numba type of a storage of `dtype`: a 1-D contiguous device array."""
    return types.Array(numba.from_dtype(dtype), 1, "C")


def layout(dtype: np.dtype) -> tuple:
    """(storage, shape, strides, offset) of `CudaBackend.layout_args`."""
    return (storage(dtype), INDEX, INDEX, types.int64)


def window_out(dtype: np.dtype) -> tuple:
    """(storage, shape, offset, size): a window kernel's contiguous output, a thread an element."""
    return (storage(dtype), INDEX, types.int64, types.int64)


def strided(dtype: np.dtype) -> tuple:
    """(storage, strides, offset): an output a kernel writes at its input's index."""
    return (storage(dtype), INDEX, types.int64)


# (line shape, lines) of a kernel that runs a thread per line (`CudaBackend.lines`)
LINES = (INDEX, types.int64)


def fold_start(dtype: np.dtype) -> tuple:
    """(numba type of the partial folds, numpy type of the start): float64 for floating
    tensors, int64 for the others, as on the CPU."""
    return (numba.float64, np.float64) if np.dtype(dtype).kind == "f" else (numba.int64, np.int64)


@dataclass(frozen=True)
class Kernel:
    """A row of the table: `factory(*settings)` is the kernel body.

    `settings(fn, dtype, sizes)` gives the settings tuples of its launches on tensors of
    `dtype`, with the scalar function `fn` when `scalar` is set (else None) and `sizes` the
    backend's (threads, block, tile); `args(dtype)` the argument types of such a launch;
    `dtypes` the element dtypes it is checked in.
    """

    factory: Callable
    args: Callable[[np.dtype], tuple]
    settings: Callable[..., Iterable[tuple]] = lambda *_: [()]
    scalar: str | None = None
    dtypes: tuple = ARITHMETIC


def elementwise_args(inputs: int) -> Callable[[np.dtype], tuple]:
    """out layout, size, then `inputs` layouts (`CudaBackend.elementwise`)."""
    return lambda dtype: (*layout(dtype), types.int64, *(layout(dtype) * inputs))


def element_settings(_, dtype: np.dtype, sizes) -> list[tuple]:
    """The settings of a launch whose sums run in the tensors' type: that Numba type."""
    return [(numba.from_dtype(dtype),)]


def reduce_settings(fn: Callable, block: int, dtype: np.dtype) -> tuple:
    """The settings of a reduce launch: the fold, the block, the partials' type."""
    return (fn, block, fold_start(dtype)[0])


def shuffle_lanes(length: int, block: int) -> int:
    """The threads of the shuffled reduce per line of `length`: the power of two at least
    `length`, at least a warp and at most `block` (itself at least a warp)."""
    block = max(block, WARP)
    lanes = WARP
    while lanes < length and lanes < block:
        lanes *= 2
    return lanes


def lane_counts(block: int) -> list[int]:
    """Every number of lanes per line `shuffle_lanes` gives with `block`: 32, 64, ..."""
    return [WARP << k for k in range((max(block, WARP) // WARP).bit_length())]


def shuffled_settings(fn: Callable, block: int, length: int, dtype: np.dtype) -> tuple:
    """The settings of a shuffled reduce launch over lines of `length`: the fold, the block
    (at least a warp), the lanes per line, the partials' type."""
    block = max(block, WARP)
    return (fn, block, shuffle_lanes(length, block), fold_start(dtype)[0])


def matmul_settings(tile, dtype: np.dtype) -> tuple:
    """The settings of a matmul launch: the tile (of the blocked kernel: its five sizes),
    the tiles' element type, the sum's start."""
    sizes = tile if isinstance(tile, tuple) else (tile,)
    return (*sizes, numba.from_dtype(dtype), np.dtype(dtype).type(0))


KERNELS: dict[str, Kernel] = {
    "map": Kernel(cuda_map, elementwise_args(1), lambda fn, dtype, sizes: [(fn,)], "unary"),
    "zip": Kernel(cuda_zip, elementwise_args(2), lambda fn, dtype, sizes: [(fn,)], "binary"),
    "where": Kernel(
        cuda_where,
        lambda dtype: (*layout(dtype), types.int64, *layout(np.bool_), *layout(dtype) * 2),
        dtypes=ANY,
    ),
    "fill": Kernel(cuda_fill, lambda dtype: (storage(dtype), types.int64), dtypes=ANY),
    "reduce": Kernel(
        cuda_reduce,
        lambda dtype: (*layout(dtype) * 2, types.int64, fold_start(dtype)[0]),
        lambda fn, dtype, sizes: [reduce_settings(fn, sizes[1], dtype)],
        "binary",
    ),
    "reduce_shuffled": Kernel(
        cuda_reduce_shuffled,
        lambda dtype: (*layout(dtype) * 2, types.int64, fold_start(dtype)[0], types.int64),
        # lines of every length: each power of two of lanes from a warp to the block
        lambda fn, dtype, sizes: [
            shuffled_settings(fn, sizes[1], lanes, dtype) for lanes in lane_counts(sizes[1])
        ],
        "binary",
    ),
    "arg_reduce": Kernel(
        cuda_arg_reduce,
        lambda dtype: (
            storage(dtype),
            storage(np.int64),
            INDEX,
            INDEX,
            types.int64,
            types.int64,
            INDEX,
            types.int64,
            *layout(dtype),
            types.int64,
        ),
        lambda fn, dtype, sizes: [(fn,)],
        "comparison",
    ),
    "matmul": Kernel(
        cuda_matmul,
        lambda dtype: layout(dtype) * 3,
        lambda _, dtype, sizes: [matmul_settings(sizes[2], dtype)],
    ),
    "matmul_blocked": Kernel(
        cuda_matmul_blocked,
        lambda dtype: layout(dtype) * 3,
        lambda _, dtype, sizes: [matmul_settings(GPU_MATMUL_BLOCKS, dtype)],
    ),
    "scan": Kernel(
        cuda_scan,
        lambda dtype: (*strided(dtype), *layout(dtype), *LINES, types.int64, fold_start(dtype)[0]),
        lambda fn, dtype, sizes: [(fn,)],
        "binary",
    ),
    "take": Kernel(
        cuda_take,
        lambda dtype: (*layout(dtype), types.int64, *layout(np.int64), storage(dtype)),
        dtypes=ANY,
    ),
    "put": Kernel(
        cuda_put,
        lambda dtype: (storage(dtype), *layout(np.int64), types.int64, *layout(dtype)),
        lambda _, dtype, sizes: [(False, dtype == np.bool_), (True, dtype == np.bool_)],
        dtypes=ANY,
    ),
    "target_keys": Kernel(
        cuda_target_keys,
        lambda dtype: (*(storage(np.int64),) * 2, *layout(np.int64), types.int64),
        dtypes=POSITIONS,
    ),
    "fold_runs": Kernel(
        cuda_fold_runs,
        lambda dtype: (
            storage(dtype),
            *(storage(np.int64),) * 2,
            types.int64,
            INDEX,
            *layout(dtype),
        ),
        lambda fn, dtype, sizes: [(fn,)],
        "binary",
    ),
    "line_keys": Kernel(
        cuda_line_keys,
        lambda dtype: (
            storage(dtype),
            storage(np.int64),
            *layout(dtype),
            INDEX,
            *(types.int64,) * 2,
        ),
        dtypes=ANY,
    ),
    # the sort's rounds, and the folding put's over its int64 target positions
    "merge_round": Kernel(
        cuda_merge_round,
        lambda dtype: (
            *(storage(dtype), storage(np.int64)) * 2,
            *(types.int64,) * 3,
            types.boolean,
        ),
        dtypes=ANY,
    ),
    "sorted_lines": Kernel(
        cuda_sorted_lines,
        lambda dtype: (
            *strided(dtype),
            *strided(np.int64),
            storage(dtype),
            storage(np.int64),
            INDEX,
            INDEX,
            *(types.int64,) * 2,
        ),
        dtypes=ANY,
    ),
    "adam": Kernel(
        cuda_adam,
        lambda dtype: (*(storage(dtype), types.int64) * 5, types.int64, storage(dtype)),
        dtypes=FLOATING,
    ),
    "scatter_claims": Kernel(
        cuda_scatter_claims,
        lambda dtype: (
            storage(np.int64),
            INDEX,
            INDEX,
            types.int64,
            *strided(np.int64),
            types.int64,
        ),
        dtypes=POSITIONS,
    ),
    "scatter_along": Kernel(
        cuda_scatter_along,
        lambda dtype: (
            *strided(dtype),
            *layout(dtype),
            types.int64,
            *strided(np.int64),
            storage(np.int64),
            INDEX,
            types.int64,
        ),
        dtypes=ANY,
    ),
    "conv2d": Kernel(
        cuda_conv2d,
        lambda dtype: (
            *window_out(dtype),
            *layout(dtype) * 2,
            *(storage(dtype), types.int64, types.int64, types.boolean),
            WINDOW,
            types.int64,
        ),
        element_settings,
        dtypes=FLOATING,
    ),
    "conv2d_input_grad": Kernel(
        cuda_conv2d_input_grad,
        lambda dtype: (*window_out(dtype), *layout(dtype) * 2, WINDOW, types.int64),
        element_settings,
        dtypes=FLOATING,
    ),
    "conv2d_weight_grad": Kernel(
        cuda_conv2d_weight_grad,
        lambda dtype: (
            *(storage(dtype), types.int64, types.int64) * 2,
            *layout(dtype) * 2,
            INDEX,
            WINDOW,
            types.int64,
        ),
        dtypes=FLOATING,
    ),
    "max_pool2d": Kernel(
        cuda_max_pool2d,
        lambda dtype: (
            *window_out(dtype),
            storage(np.int64),
            types.int64,
            *layout(dtype),
            KERNEL_SIZE,
            WINDOW,
        ),
        dtypes=FLOATING,
    ),
    "avg_pool2d": Kernel(
        cuda_avg_pool2d,
        lambda dtype: (*window_out(dtype), *layout(dtype), *AVG_POOL),
        dtypes=FLOATING,
    ),
    "avg_pool2d_backward": Kernel(
        cuda_avg_pool2d_backward,
        lambda dtype: (*window_out(dtype), *layout(dtype), *AVG_POOL),
        dtypes=FLOATING,
    ),
    "max_pool2d_backward": Kernel(
        cuda_max_pool2d_backward,
        lambda dtype: (
            storage(dtype),
            types.int64,
            types.int64,
            *layout(dtype),
            types.int64,
            storage(np.int64),
            types.int64,
        ),
        dtypes=FLOATING,
    ),
}
