"""`CudaBackend`: device memory, the compiled kernels of this package, and their launches.

Every operation runs on the device: storages come to the host only when asked
(`to_host`: printing, `.item()`, `.cpu()`). Storages come from a caching allocator
(`memory.py`), so a training step's temporaries reuse device blocks instead of calling the
driver. The optional kernel `adam_step` is one kernel over the five tensors of a parameter;
the window kernels (convolution, max and average pooling, `windows.py`) a thread per
result.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..interface import AVG_POOL_KERNELS, WINDOW_KERNELS, OptionalKernels
from ..tensor_data import TensorData
from .compiler import MAX_DIMS
from .driver import DEFAULT_MATMUL_BLOCKS, DEFAULT_SIZES, cuda
from .kernels import KERNELS, fold_start, matmul_settings, reduce_settings, shuffled_settings
from .memory import CachingAllocator
from .windows import WindowKernels

# A grid has at most 65535 blocks along y and z (matmul's row blocks and batch).
MAX_GRID_YZ = 65535


def blocks(size: int, threads: int) -> int:
    """Blocks of `threads` threads to cover `size` elements: $\\lceil size / threads \\rceil$"""
    return (size + threads - 1) // threads


def check_dims(*layouts: TensorData) -> None:
    """Refuse tensors with more dimensions than the kernels' index buffers hold."""
    for layout in layouts:
        if layout.ndim > MAX_DIMS:
            raise RuntimeError(
                f"the cuda backend handles tensors of at most {MAX_DIMS} dimensions, "
                f"got {layout.ndim}"
            )


class CudaBackend(WindowKernels, OptionalKernels):
    """`cuda` tensors: device memory and `numba.cuda` kernels.

    `threads` (threads per block of the elementwise kernels), `block` (of the
    reduction, a power of two) and `tile` (of the exercise's matmul) are settings (see
    `DEFAULT_SIZES`), and so are `matmul_blocks` (of the blocked matmul,
    `DEFAULT_MATMUL_BLOCKS`) and `matmul_kernel`, the one products run: `"matmul_blocked"`,
    or `"matmul"` for the exercise's kernel (tests/test_cuda_backend.py grades task 3.5
    with it), and `warp_shuffles`, whether reductions along a dim of stride 1 run the
    shuffled kernel (`reductions.py`, blocks of `block` threads or a warp) rather than the
    exercise's. The tests lower the sizes so that the simulator covers multi-block cases on
    tiny tensors.
    """

    name = "cuda"
    optional_kernels = ("adam_step", *WINDOW_KERNELS, *AVG_POOL_KERNELS)

    def __init__(self, sizes: tuple[int, int, int] = DEFAULT_SIZES):
        super().__init__()
        threads, block, tile = sizes
        if block & (block - 1):
            raise ValueError(f"the reduction's block must be a power of two, got {block}")
        self.threads, self.block, self.tile = threads, block, tile
        self.matmul_blocks = DEFAULT_MATMUL_BLOCKS
        self.matmul_kernel = "matmul_blocked"
        # Lines of stride 1 reduce with warp shuffles (`reductions.py`) where numba.cuda has
        # them: on a GPU, not in the simulator of numba-cuda 0.30, which has no
        # `shfl_down_sync` (the tests give it one).
        self.warp_shuffles = hasattr(cuda, "shfl_down_sync")
        self._kernels: dict[tuple, Callable] = {}
        self._layout_arrays: dict[tuple, tuple] = {}
        self.memory = CachingAllocator(
            lambda nbytes: cuda.device_array(nbytes, np.uint8),
            out_of_memory=cuda.cudadrv.driver.CudaAPIError,
        )

    # -- memory -------------------------------------------------------------

    def zeros(self, size: int, dtype: np.dtype):
        storage = self.empty(size, dtype)
        if size:
            self.launch(self.compiled("fill"), size, storage, 0)
        return storage

    def empty(self, size: int, dtype: np.dtype):
        """Device memory left as it is: for a result whose every element a kernel writes."""
        return self.memory.storage(size, dtype)

    def from_host(self, array: np.ndarray):
        array = np.ascontiguousarray(array)
        storage = self.empty(array.size, array.dtype)
        if array.size:
            storage.copy_to_device(array.reshape(-1))
        return storage

    def to_host(self, storage) -> np.ndarray:
        return storage.copy_to_host()

    # -- compiling and launching --------------------------------------------

    def compiled(self, name: str, *settings) -> Callable:
        """The kernel `name` of the table (`kernels.KERNELS`) built with `settings` and
        compiled with `cuda.jit`, once per kernel and settings."""
        key = (name, *settings)
        compiled = self._kernels.get(key)
        if compiled is None:
            compiled = self._kernels[key] = cuda.jit(KERNELS[name].factory(*settings))
        return compiled

    def launch(self, kernel: Callable, size: int, *args) -> None:
        """Launch `kernel` with `size` threads (one per element, line or position), in blocks
        of `threads`, or one block of `size` threads when that is fewer: a thread with no
        element costs a GPU next to nothing, but a Python thread in the simulator."""
        if size == 0:
            return  # CUDA refuses an empty grid
        threads = min(self.threads, size)
        kernel[blocks(size, threads), threads](*args)

    def layout_args(self, layout: TensorData) -> tuple:
        """(storage, shape, strides, offset) for a kernel, shape and strides in device memory."""
        key = (layout.shape, layout.strides)
        arrays = self._layout_arrays.get(key)
        if arrays is None:
            if len(self._layout_arrays) >= 4096:
                self._layout_arrays.clear()
            arrays = self._layout_arrays[key] = (
                cuda.to_device(layout.shape_array),
                cuda.to_device(layout.strides_array),
            )
        return (layout.storage, *arrays, layout.offset)

    def elementwise(self, kernel: Callable, out: TensorData, *inputs: TensorData) -> None:
        """Launch `kernel` with one thread per element of `out`."""
        check_dims(out, *inputs)
        size = out.numel()
        if size == 0:
            return
        args = self.layout_args(out) + (size,)
        for layout in inputs:
            args += self.layout_args(layout)
        self.launch(kernel, size, *args)

    # -- kernels ------------------------------------------------------------

    def map(self, fn: Callable, out: TensorData, a: TensorData) -> None:
        """$out_i = fn(a_i)$, `a` broadcast to `out`'s shape."""
        self.elementwise(self.compiled("map", fn), out, a)

    def zip(self, fn: Callable, out: TensorData, a: TensorData, b: TensorData) -> None:
        """$out_i = fn(a_i, b_i)$, both broadcast."""
        self.elementwise(self.compiled("zip", fn), out, a, b)

    def where(self, out: TensorData, condition: TensorData, a: TensorData, b: TensorData) -> None:
        """$out_i = a_i$ where $condition_i$, else $b_i$ (all broadcast)."""
        self.elementwise(self.compiled("where"), out, condition, a, b)

    def reduce(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Fold dimension `dim` of `a` with `fn` from `start` into `out` (size 1 in `dim`)."""
        check_dims(out, a)
        if out.numel() == 0:
            return
        start = fold_start(a.storage.dtype)[1](start)
        args = self.layout_args(out) + self.layout_args(a) + (dim, start)
        if self.warp_shuffles and a.strides[dim] == 1:
            settings = shuffled_settings(fn, self.block, a.shape[dim], a.storage.dtype)
            _, block, lanes, _ = settings
            lines = out.numel()
            kernel = self.compiled("reduce_shuffled", *settings)
            kernel[blocks(lines, block // lanes), block](*args, lines)
            return
        kernel = self.compiled("reduce", *reduce_settings(fn, self.block, a.storage.dtype))
        kernel[out.numel(), self.block](*args)

    def arg_reduce(
        self, better: Callable, values: TensorData, indices: TensorData, a: TensorData, dim: int
    ) -> None:
        """The first element along `dim` no later one is `better` than, and its position."""
        check_dims(values, a)
        size = values.numel()
        if size == 0:
            return
        _, _, index_strides, index_offset = self.layout_args(indices)
        storage, shape, strides, offset = self.layout_args(values)
        args = (storage, indices.storage, shape, strides, offset, size, index_strides, index_offset)
        kernel = self.compiled("arg_reduce", better)
        self.launch(kernel, size, *args, *self.layout_args(a), dim)

    def matmul(self, out: TensorData, a: TensorData, b: TensorData) -> None:
        """Batched matrix product, batch dimensions broadcast; any strides."""
        check_dims(out, a, b)
        if out.numel() == 0:
            return
        if self.matmul_kernel == "matmul":
            sizes = self.tile
            block_rows = block_columns = self.tile
            threads = (self.tile, self.tile)
        else:
            sizes = self.matmul_blocks
            block_rows, block_columns, _, thread_rows, thread_columns = sizes
            threads = (block_columns // thread_columns, block_rows // thread_rows)
        kernel = self.compiled(self.matmul_kernel, *matmul_settings(sizes, out.storage.dtype))
        rows, columns = out.shape[-2], out.shape[-1]
        batches = out.numel() // (rows * columns)
        if batches > MAX_GRID_YZ or blocks(rows, block_rows) > MAX_GRID_YZ:
            raise RuntimeError(
                f"the cuda matmul takes at most {MAX_GRID_YZ} matrices of at most "
                f"{MAX_GRID_YZ * block_rows} rows, got {batches} of {rows}"
            )
        grid = (blocks(columns, block_columns), blocks(rows, block_rows), batches)
        args = self.layout_args(out) + self.layout_args(a) + self.layout_args(b)
        kernel[grid, threads](*args)

    def lines(self, a: TensorData, dim: int) -> tuple:
        """(`a`'s shape with size 1 in `dim`, in device memory; how many lines `a` has along
        `dim`) for a kernel that runs a thread per line; no shape when there are none."""
        length = a.shape[dim]
        lines = a.numel() // length if length else 0
        if lines == 0:
            return None, 0
        line = TensorData.contiguous(a.storage, a.shape[:dim] + (1,) + a.shape[dim + 1 :])
        return self.layout_args(line)[1], lines

    def scan(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Running folds of `fn` from `start` along `dim` (cumsum, cumprod): a thread a line."""
        check_dims(out, a)
        line_shape, lines = self.lines(a, dim)
        if lines == 0:
            return
        storage, _, strides, offset = self.layout_args(out)
        start = fold_start(a.storage.dtype)[1](start)
        args = (storage, strides, offset, *self.layout_args(a), line_shape, lines, dim, start)
        self.launch(self.compiled("scan", fn), lines, *args)

    def take(self, out: TensorData, a: TensorData, positions: TensorData) -> None:
        """$out_i = a.storage[positions_i]$: a thread per element of `out`."""
        check_dims(out, positions)
        size = out.numel()
        if size == 0:
            return
        args = self.layout_args(out) + (size,) + self.layout_args(positions) + (a.storage,)
        self.launch(self.compiled("take"), size, *args)

    def put(
        self, a: TensorData, positions: TensorData, values: TensorData, accumulate: bool
    ) -> None:
        """$a.storage[positions_i] = values_i$ (`+=` if `accumulate`, $\\lor$ for bools): a
        thread per position."""
        check_dims(positions, values)
        size = positions.numel()
        if size == 0:
            return
        args = (a.storage, *self.layout_args(positions), size, *self.layout_args(values))
        kernel = self.compiled("put", accumulate, a.storage.dtype == np.bool_)
        self.launch(kernel, size, *args)

    def scatter_along(
        self, out: TensorData, source: TensorData, index: TensorData, dim: int
    ) -> None:
        """$out[i|index[i|j]] = source[i|j]$ along `dim`, the last $j$ of a repeated position
        winning: each element claims its target (an atomic max of $j$), then the winners
        write; a thread per element (`indexing.py`)."""
        check_dims(out, source, index)
        size = source.numel()
        if size == 0:
            return
        claims = TensorData.contiguous(self.zeros(out.numel(), np.dtype(np.int64)), out.shape)
        claims_strides = self.layout_args(claims)[2]
        index_storage, _, index_strides, index_offset = self.layout_args(index)
        where = (index_storage, index_strides, index_offset)
        source_args = self.layout_args(source)
        args = (claims.storage, claims_strides, source_args[1], size, *where, dim)
        self.launch(self.compiled("scatter_claims"), size, *args)
        storage, _, strides, offset = self.layout_args(out)
        args = (storage, strides, offset, *source_args, size, *where, claims.storage)
        self.launch(self.compiled("scatter_along"), size, *args, claims_strides, dim)

    def sort(
        self, values: TensorData, indices: TensorData, a: TensorData, dim: int, descending: bool
    ) -> None:
        """Each line along `dim` sorted stably (NaN largest), and the positions it came from:
        the lines copied to scratch keys, merged in rounds, written out (`sorting.py`)."""
        check_dims(values, indices, a)
        line_shape, lines = self.lines(a, dim)
        if lines == 0:
            return
        size, length = a.numel(), a.shape[dim]
        keys, order = self.empty(size, a.storage.dtype), self.empty(size, np.dtype(np.int64))
        a_args = self.layout_args(a)
        self.launch(self.compiled("line_keys"), size, keys, order, *a_args, line_shape, size, dim)
        keys, order = self.merge_rounds(keys, order, length, descending)
        (v, _, v_strides, v_offset), (i, _, i_strides, i_offset) = map(
            self.layout_args, (values, indices)
        )
        args = (v, v_strides, v_offset, i, i_strides, i_offset, keys, order)
        args += (a_args[1], line_shape, size, dim)
        self.launch(self.compiled("sorted_lines"), size, *args)

    def merge_rounds(self, keys, order, length: int, descending: bool) -> tuple:
        """Sort each line of `length` of the scratch `keys`, the positions `order` with them,
        stably: rounds that merge runs of 1, 2, 4, ... (`sorting.cuda_merge_round`). Returns
        the pair of buffers that holds the sorted lines: the given one or its spare."""
        size = keys.shape[0]
        spare_keys, spare_order = self.empty(size, keys.dtype), self.empty(size, order.dtype)
        kernel = self.compiled("merge_round")
        width = 1
        while width < length:
            args = (keys, order, spare_keys, spare_order, length, size, width, descending)
            self.launch(kernel, size, *args)
            keys, order, spare_keys, spare_order = spare_keys, spare_order, keys, order
            width *= 2
        return keys, order

    def adam_step(self, param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, settings) -> None:
        """One Adam step of each element of the five contiguous layouts (`fused.adam_element`),
        with `settings` (a few numbers of the tensors' dtype) copied to the device."""
        size = param.numel()
        if size == 0:
            return
        layouts = (param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq)
        args = [x for layout in layouts for x in (layout.storage, layout.offset)]
        kernel = self.compiled("adam")
        self.launch(kernel, size, *args, size, cuda.to_device(settings))

    def put_reduce(
        self, fn: Callable, a: TensorData, positions: TensorData, values: TensorData
    ) -> None:
        """$a.storage[positions_i] = fn(a.storage[positions_i], values_i)$ in the order of $i$:
        the ordinals sorted by target, then a thread per target's run (`folds.py`)."""
        check_dims(positions, values)
        size = positions.numel()
        if size == 0:
            return
        keys, order = self.empty(size, np.dtype(np.int64)), self.empty(size, np.dtype(np.int64))
        positions_args = self.layout_args(positions)
        self.launch(self.compiled("target_keys"), size, keys, order, *positions_args, size)
        keys, order = self.merge_rounds(keys, order, size, False)
        args = (a.storage, keys, order, size, positions_args[1], *self.layout_args(values))
        self.launch(self.compiled("fold_runs", fn), size, *args)
