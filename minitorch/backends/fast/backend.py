"""`FastBackend`: the kernels of this package behind the backend interface.

Each kernel body is compiled twice (`kernel_cache.compile_kernel`): with
`parallel=True`, and without, for small tensors, where starting threads costs
more than the work (`FastBackend.parallel_threshold`); matmul compiles the
packed `_matmul` both ways and has a third, short body for the smallest
products (`_matmul_rows`). Nothing compiles before a kernel's first call, for
each dtype it is called with, and compiled kernels are cached on disk.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numba

from ..fused import storage_at
from ..interface import TRAINING_KERNELS, WINDOW_KERNELS, HostMemory, OptionalKernels
from ..kernel_cache import compile_kernel, make_jitable
from ..tensor_data import TensorData
from ..tensor_ops import added, replaced
from .adam import ADAM_KERNELS
from .elementwise import _where, flat_map, flat_zip, tensor_map, tensor_zip
from .indexing import _scatter_along, _take, tensor_put_reduce
from .matmul import _matmul, _matmul_rows
from .reductions import accumulator_start, tensor_arg_reduce, tensor_reduce, tensor_scan
from .sorting import _sort
from .threads import one_at_a_time
from .training import TrainingKernels
from .transcendentals import polynomial_form
from .windows import WindowKernels


class FastBackend(HostMemory, WindowKernels, TrainingKernels, OptionalKernels):
    """Numba-compiled kernels with the interface of `tensor_ops.SimpleBackend`: the tuned ones,
    plus the optional kernels `adam_step` (`adam.py`), one-pass convolution and max
    pooling (`windows.py`) and the training step's cross-entropy and ReLU gradient
    (`training.py`).

    Below `parallel_threshold` elements (`matmul_parallel_threshold`
    multiply-adds for matmul) the serial version of a kernel runs, above it
    the parallel one: starting threads costs more than small work (tutorial 03a
    measures where they cross). Matmul runs the packed and tiled `_matmul`, serial or
    parallel, and below `matmul_rows_threshold` multiply-adds `_matmul_rows` (short, quick
    to compile: a process whose products are all tiny never compiles `_matmul`).
    """

    name = "fast"
    optional_kernels = ("adam_step", *WINDOW_KERNELS, *TRAINING_KERNELS)
    parallel_threshold = 1 << 20
    matmul_parallel_threshold = 1 << 23
    # Up to 64³ multiply-adds: a process's first 64 x 64 product compiles `_matmul_rows`
    # (about 1 s of CPU) rather than the packed kernel (about 2 s), at no cost the user feels.
    matmul_rows_threshold = 64**3 + 1
    # The matmul bodies: `matmul_serial_body` below `matmul_rows_threshold` (compiled serial),
    # `matmul_body` above it (compiled serial, and parallel above `matmul_parallel_threshold`),
    # and their fastmath flags (LLVM may fuse and reorder the row kernel's sums; the register
    # block fuses its own multiply-adds). `fast_ops.StudentBackend` plugs in its own.
    matmul_serial_body = staticmethod(_matmul_rows)
    matmul_body = staticmethod(_matmul)
    matmul_fastmath: tuple = ("reassoc", "contract")

    def __init__(self):
        super().__init__()
        # (factory, scalar function) -> (serial kernel, parallel kernel)
        self._kernels: dict = {}
        self._where_kernels = (
            compile_kernel(_where, None, False),
            compile_kernel(_where, None, True),
        )
        self._take_kernels = (compile_kernel(_take, None, False), compile_kernel(_take, None, True))
        fastmath = set(self.matmul_fastmath) or False
        self._matmul_kernels = (
            compile_kernel(self.matmul_serial_body, None, False, fastmath),
            compile_kernel(self.matmul_body, None, False, fastmath),
            compile_kernel(self.matmul_body, None, True, fastmath),
        )
        self._sort_kernels = (compile_kernel(_sort, None, False), compile_kernel(_sort, None, True))
        self._scatter_kernels = (
            compile_kernel(_scatter_along, None, False),
            compile_kernel(_scatter_along, None, True),
        )

    def kernels(self, factory: Callable, fn: Callable):
        """The serial and parallel kernels that `factory` builds around `fn` (made once).

        `fn` is a plain Python function that the kernels compile where they call it
        (`kernel_cache.make_jitable`): every factory's scalar function goes through here.
        """
        pair = self._kernels.get((factory, fn))
        if pair is None:
            body = factory(make_jitable(fn))
            fastmath = {"reassoc"} if factory is tensor_reduce else False
            pair = (
                compile_kernel(body, fn, parallel=False, fastmath=fastmath),
                compile_kernel(body, fn, parallel=True, fastmath=fastmath),
            )
            self._kernels[(factory, fn)] = pair
        return pair

    def choose(self, pair, work: int, threshold: int):
        """The serial kernel (one chunk) below `threshold` units of work, else the parallel one.

        The parallel one with one chunk per thread, and run by one Python thread at a time.
        """
        if work < threshold:
            return pair[0], 1
        return one_at_a_time(pair[1]), numba.get_num_threads()

    def map(self, fn: Callable, out: TensorData, a: TensorData) -> None:
        """$out[i] = fn(a[i])$ for every index $i$ of `out`, with `a` broadcast."""
        fn = polynomial_form(fn, out.storage.dtype, a.storage.dtype)
        size = math.prod(out.shape)
        if out.row_major and a.row_major and a.shape == out.shape:
            pair = self._kernels.get((flat_map, fn)) or self.kernels(flat_map, fn)
            if size < self.parallel_threshold:  # `choose`'s serial case, without its call
                pair[0](out.storage, out.offset, a.storage, a.offset, size, 1)
                return
            kernel, n_chunks = self.choose(pair, size, self.parallel_threshold)
            kernel(out.storage, out.offset, a.storage, a.offset, size, n_chunks)
            return
        pair = self._kernels.get((tensor_map, fn)) or self.kernels(tensor_map, fn)
        kernel, n_chunks = self.choose(pair, size, self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            n_chunks,
        )  # fmt: skip

    def zip(self, fn: Callable, out: TensorData, a: TensorData, b: TensorData) -> None:
        """$out[i] = fn(a[i], b[i])$ for every index $i$ of `out`, with `a` and `b` broadcast."""
        size = math.prod(out.shape)
        if out.row_major and a.row_major and b.row_major and a.shape == out.shape == b.shape:
            pair = self._kernels.get((flat_zip, fn)) or self.kernels(flat_zip, fn)
            if size < self.parallel_threshold:  # `choose`'s serial case, without its call
                pair[0](out.storage, out.offset, a.storage, a.offset, b.storage, b.offset, size, 1)
                return
            kernel, n_chunks = self.choose(pair, size, self.parallel_threshold)
            kernel(
                out.storage, out.offset, a.storage, a.offset, b.storage, b.offset, size, n_chunks
            )
            return
        pair = self._kernels.get((tensor_zip, fn)) or self.kernels(tensor_zip, fn)
        kernel, n_chunks = self.choose(pair, size, self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            b.storage, b.shape_array, b.strides_array, b.offset,
            n_chunks,
        )  # fmt: skip

    def reduce(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Fold dimension `dim` of `a` with `fn` from `start` into `out` (size 1 in `dim`)."""
        self.fold_along(tensor_reduce, fn, out, a, dim, start)

    def arg_reduce(
        self, better: Callable, values: TensorData, indices: TensorData, a: TensorData, dim: int
    ) -> None:
        """The first element along `dim` that no later one is `better` than, and its position."""
        pair = self._kernels.get((tensor_arg_reduce, better)) or self.kernels(
            tensor_arg_reduce, better
        )
        kernel, n_chunks = self.choose(pair, math.prod(a.shape), self.parallel_threshold)
        kernel(
            values.storage, values.shape_array, values.strides_array, values.offset,
            indices.storage, indices.strides_array, indices.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            dim, n_chunks,
        )  # fmt: skip

    def where(self, out: TensorData, condition: TensorData, a: TensorData, b: TensorData) -> None:
        """$out[i] = a[i]$ where $condition[i]$ is true, else $b[i]$ (all broadcast)."""
        work = math.prod(out.shape)
        kernel, n_chunks = self.choose(self._where_kernels, work, self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            condition.storage, condition.shape_array, condition.strides_array, condition.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            b.storage, b.shape_array, b.strides_array, b.offset,
            n_chunks,
        )  # fmt: skip

    def matmul(self, out: TensorData, a: TensorData, b: TensorData) -> None:
        """$out[\\ldots, i, j] = \\sum_k a[\\ldots, i, k] b[\\ldots, k, j]$, batches broadcast."""
        work = math.prod(out.shape) * a.shape[-1]
        rows, serial, parallel = self._matmul_kernels
        if work < self.matmul_rows_threshold:
            kernel = rows
        else:
            kernel, _ = self.choose((serial, parallel), work, self.matmul_parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            b.storage, b.shape_array, b.strides_array, b.offset,
        )  # fmt: skip

    # -- scans and sorting along one dimension ------------------------------

    def scan(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Running folds of `fn` from `start` along `dim` (cumsum, cumprod)."""
        self.fold_along(tensor_scan, fn, out, a, dim, start)

    def fold_along(
        self, factory: Callable, fn: Callable, out: TensorData, a: TensorData, dim: int, start
    ) -> None:
        """Launch the fold along `dim` that `factory` (`tensor_reduce`, `tensor_scan`) builds
        around `fn`: both kernels take the same arguments, the accumulator's start in its type."""
        pair = self._kernels.get((factory, fn)) or self.kernels(factory, fn)
        kernel, n_chunks = self.choose(pair, math.prod(a.shape), self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            dim, accumulator_start(start, a.storage.dtype), n_chunks,
        )  # fmt: skip

    def sort(
        self, values: TensorData, indices: TensorData, a: TensorData, dim: int, descending: bool
    ) -> None:
        """Each line along `dim` sorted stably (NaN largest), and the positions it came from."""
        kernel, n_chunks = self.choose(
            self._sort_kernels, math.prod(a.shape), self.parallel_threshold
        )
        kernel(
            values.storage, values.strides_array, values.offset,
            indices.storage, indices.strides_array, indices.offset,
            a.storage, a.shape_array, a.strides_array, a.offset,
            dim, descending, n_chunks,
        )  # fmt: skip

    def scatter_along(
        self, out: TensorData, source: TensorData, index: TensorData, dim: int
    ) -> None:
        """$out[i|index[i|j]] = source[i|j]$ along `dim` (positions distinct within a line)."""
        kernel, n_chunks = self.choose(
            self._scatter_kernels, math.prod(source.shape), self.parallel_threshold
        )
        kernel(
            out.storage, out.strides_array, out.offset,
            source.storage, source.shape_array, source.strides_array, source.offset,
            index.storage, index.strides_array, index.offset,
            dim, n_chunks,
        )  # fmt: skip

    def take(self, out: TensorData, a: TensorData, positions: TensorData) -> None:
        """$out_i = a.storage[positions_i]$ for every index $i$ of `out`."""
        kernel, n_chunks = self.choose(self._take_kernels, out.numel(), self.parallel_threshold)
        kernel(
            out.storage, out.shape_array, out.strides_array, out.offset,
            a.storage,
            positions.storage, positions.shape_array, positions.strides_array, positions.offset,
            n_chunks,
        )  # fmt: skip

    def put(
        self, a: TensorData, positions: TensorData, values: TensorData, accumulate: bool
    ) -> None:
        """$a.storage[positions_i] = values_i$ (or `+=`), `values` broadcast, in order: the
        folding put with a replacing or adding fold, as in the reference backend."""
        self.put_reduce(added if accumulate else replaced, a, positions, values)

    def adam_step(self, param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, settings) -> None:
        """One Adam step of each element of the five contiguous layouts (`adam.py`)."""
        size = param.numel()
        kernel, n_chunks = self.choose(ADAM_KERNELS, size, self.parallel_threshold)
        layouts = (param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq)
        kernel(*(x for layout in layouts for x in storage_at(layout)), size, settings, n_chunks)

    def put_reduce(
        self, fn: Callable, a: TensorData, positions: TensorData, values: TensorData
    ) -> None:
        """$a.storage[positions_i] = fn(a.storage[positions_i], values_i)$, in order (serial)."""
        serial, _ = self._kernels.get((tensor_put_reduce, fn)) or self.kernels(
            tensor_put_reduce, fn
        )
        serial(
            a.storage,
            positions.storage, positions.shape_array, positions.strides_array, positions.offset,
            values.storage, values.shape_array, values.strides_array, values.offset,
        )  # fmt: skip
