"""Numba's CUDA simulator, made to behave as the CUDA target does where the tests need it, and
to run the kernels that need no threads without them.

tests/conftest.py applies `patch_the_simulator` when the simulator is on
(`NUMBA_ENABLE_CUDASIM=1`) and numba-cuda is installed.
"""

import sys
import threading
import types
from functools import cache

import numpy as np
from numba.core import types as numba_types
from numba.cuda.simulator import kernel, kernelapi
from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
from numba.cuda.simulator.kernelapi import Dim3
from numba.np import numpy_support


def patch_the_simulator() -> None:
    """All the changes below."""
    share_one_array_per_line()
    store_integers_as_the_cuda_target()
    run_blocks_without_barriers_in_one_thread()


def share_one_array_per_line() -> None:
    """Make the simulator's `cuda.shared.array` give every thread of a block the same array.

    The simulator finds a block's shared array by the line that asks for it, with a look-up
    and then an insertion that two threads of the block can interleave: each then fills an
    array of its own, and the block computes with tiles that its other threads never see
    (a matmul or a reduction that is wrong at random). Here one lock makes the look-up and the
    insertion one step; the caller's frame is read directly, which also spares the
    simulator's walk of the whole stack on every call.
    """
    ask_simulator = kernelapi.FakeCUDAShared.array
    lock = threading.Lock()

    def array(self, shape, dtype, alignment=None):
        if shape == 0 or alignment is not None:  # dynamic shared memory, or the refusal
            return ask_simulator(self, shape, dtype, alignment)
        caller = sys._getframe(1)
        line = (caller.f_code.co_filename, caller.f_lineno)
        with lock:
            found = self._allocations.get(line)
            if found is None:
                if isinstance(dtype, numba_types.Type):
                    dtype = numpy_support.as_dtype(dtype)
                found = self._allocations[line] = np.empty(shape, dtype)
        return found

    kernelapi.FakeCUDAShared.array = array


def store_integers_as_the_cuda_target():
    """Make the simulator's array stores wrap an out-of-range integer to the element's width.

    A compiled kernel converts an int64 to a narrower integer by truncating it (two's
    complement: 300 stored in an int8 is 44), as the CPU kernels do; the simulator stores
    through NumPy, which raises OverflowError instead. Only the refused stores take the
    conversion here, so the others keep NumPy's own path.
    """
    numpy_store = FakeCUDAArray.__setitem__

    def store(self, index, value):
        try:
            return numpy_store(self, index, value)
        except OverflowError:
            return numpy_store(self, index, np.array(value).astype(self._ary.dtype))

    FakeCUDAArray.__setitem__ = store


# What a kernel calls that needs the other threads of its block running beside it: barriers,
# warp-level exchanges and votes, shared memory, a grid-wide sync.
NEEDS_THREADS = frozenset({
    "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or", "syncwarp",
    "shared", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync",
    "any_sync", "eq_sync", "ballot_sync", "match_any_sync", "match_all_sync", "activemask",
    "this_grid", "sync",
})  # fmt: skip


@cache
def needs_threads(function) -> bool:
    """Whether `function` (a kernel's Python function), or a function it reaches through its
    globals or closure (device functions, scalar functions), names one of NEEDS_THREADS."""
    seen: set[int] = set()
    pending = [function]
    while pending:
        current = pending.pop()
        current = getattr(current, "fn", current)  # a device function's Python function
        if not isinstance(current, types.FunctionType) or id(current) in seen:
            continue
        seen.add(id(current))
        codes, names = [current.__code__], set()
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        if names & NEEDS_THREADS:
            return True
        pending.extend(_contents(cell) for cell in current.__closure__ or ())
        pending.extend(current.__globals__[n] for n in names if n in current.__globals__)
    return False


def _contents(cell):
    """What a closure variable holds; None while it is not assigned yet."""
    try:
        return cell.cell_contents
    except ValueError:
        return None


class SequentialThread:
    """What the simulator's kernel API reads from "the current thread": its indices in the
    grid, for a thread that runs in the launching Python thread."""

    def __init__(self, block_index, block_dim):
        self.blockIdx = Dim3(*block_index)
        self.block_dim = Dim3(*block_dim)

    def at(self, thread_index) -> "SequentialThread":
        self.threadIdx = Dim3(*thread_index)
        x, y, z = self.threadIdx
        self.thread_id = x + self.block_dim.x * (y + self.block_dim.y * z)
        return self


def run_blocks_without_barriers_in_one_thread() -> None:
    """Run a block's threads one after another in the launching thread, where the kernel needs
    no threads beside it (`needs_threads`), instead of starting a Python thread for each.

    Without barriers, warp exchanges or shared memory, a kernel may not depend on how its
    threads interleave (an atomic is one step either way), so running them in turn is one of
    the schedules a GPU may choose. It spares starting and polling a Python thread per CUDA
    thread, most of a small kernel's time in the simulator. Kernels that need threads run as
    the simulator runs them.
    """
    virtual = threading.local()
    real_threading = kernelapi.threading

    def current_thread():
        return getattr(virtual, "thread", None) or real_threading.current_thread()

    kernelapi.threading = types.SimpleNamespace(
        current_thread=current_thread, Lock=real_threading.Lock
    )
    run_in_threads = kernel.BlockManager.run

    def run(self, grid_point, *args):
        if self._debug or needs_threads(self._f):
            return run_in_threads(self, grid_point, *args)
        thread = SequentialThread(grid_point, self._block_dim)
        virtual.thread = thread
        try:
            for thread_index in np.ndindex(*self._block_dim):
                thread.at(thread_index)
                try:
                    self._f(*args)
                except Exception as error:  # named as the simulator names a thread's error
                    where = f"tid={list(thread.threadIdx)} ctaid={list(thread.blockIdx)}"
                    message = f"{where}: {error}" if str(error) else where
                    raise type(error)(message).with_traceback(sys.exc_info()[2]) from None
        finally:
            virtual.thread = None

    kernel.BlockManager.run = run
