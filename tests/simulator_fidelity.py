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
from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray, FakeWithinKernelCUDAArray
from numba.cuda.simulator.kernelapi import Dim3
from numba.np import numpy_support


def patch_the_simulator() -> None:
    """All the changes below."""
    share_one_array_per_line()
    make_local_arrays_without_looking_up_their_dtype()
    store_integers_as_the_cuda_target()
    run_blocks_with_fewer_threads()
    call_device_functions_directly()


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


def make_local_arrays_without_looking_up_their_dtype() -> None:
    """Make the simulator's `cuda.local.array` convert a Numba dtype to NumPy's once, not on
    every call: the index kernels ask for a local array in every thread. The conversions are
    kept by the dtype's identity, as hashing a Numba type runs Python code."""
    converted: dict[int, tuple] = {}  # id(dtype) -> (dtype, NumPy's dtype)

    def array(self, shape, dtype, alignment=None):
        if alignment is not None:
            raise RuntimeError("Array alignment is not supported in cudasim")
        known = converted.get(id(dtype))
        if known is None or known[0] is not dtype:
            as_numpy = (
                numpy_support.as_dtype(dtype) if isinstance(dtype, numba_types.Type) else dtype
            )
            known = converted[id(dtype)] = (dtype, as_numpy)
        return np.empty(shape, known[1])

    kernelapi.FakeCUDALocal.array = array


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


class DeviceMemory(np.ndarray):
    """A kernel's array argument as its threads index it: NumPy's own indexing, where the
    simulator wraps the array in two Python objects whose `__getitem__` runs for every element
    read (most of a simulated kernel's time). Its stores wrap an out-of-range integer to the
    element's width, as the CUDA target's do (`store_integers_as_the_cuda_target`)."""

    def __setitem__(self, index, value):
        try:
            super().__setitem__(index, value)
        except OverflowError:
            super().__setitem__(index, np.array(value).astype(self.dtype))


def in_device_memory(args: tuple) -> tuple:
    """A launch's arguments with each array the simulator wrapped as a `DeviceMemory` view of
    the same memory: what the threads write, the simulator copies back as before."""
    return tuple(
        arg._item._ary.view(DeviceMemory) if isinstance(arg, FakeWithinKernelCUDAArray) else arg
        for arg in args
    )


# What a kernel may call that needs the other threads of its block beside it: the block's
# barriers and shared memory (`BLOCK_LEVEL`), and what works across a warp or the grid
# (`WARP_LEVEL`, left to the simulator's own way of running a block).
BLOCK_LEVEL = frozenset(
    {"syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or", "shared"}
)
WARP_LEVEL = frozenset({
    "syncwarp", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync",
    "any_sync", "eq_sync", "ballot_sync", "match_any_sync", "match_all_sync", "activemask",
    "this_grid", "sync",
})  # fmt: skip


@cache
def names_reached(function) -> frozenset:
    """The global and attribute names that `function` (a kernel's Python function) uses, and
    those of the functions it reaches through its globals or closure (device functions,
    scalar functions)."""
    seen: set[int] = set()
    pending, reached = [function], set()
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
        reached |= names
        pending.extend(_contents(cell) for cell in current.__closure__ or ())
        pending.extend(current.__globals__[n] for n in names if n in current.__globals__)
    return frozenset(reached)


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


@cache
def threads_of_a_block(block_dim: tuple[int, int, int]) -> tuple[tuple[Dim3, int], ...]:
    """Each thread's `threadIdx` and its number in the block (x fastest), for blocks of
    `block_dim` threads: made once, as every block of a launch runs the same threads."""
    x_size, y_size, _ = block_dim
    return tuple(
        (Dim3(x, y, z), x + x_size * (y + y_size * z)) for x, y, z in np.ndindex(*block_dim)
    )


class BarrierBroken(RuntimeError):
    """Raised in the threads of a block waiting at a barrier when another of them failed."""


class BlockBarrier:
    """`syncthreads` for the threads of one block: each waits until every thread still running
    has arrived (a thread that has returned no longer counts, as on a GPU). `abort` wakes
    them all with an error, when one of them failed."""

    def __init__(self, threads: int):
        self.condition = threading.Condition()
        self.running, self.arrived, self.generation, self.broken = threads, 0, 0, False

    def wait(self) -> None:
        with self.condition:
            generation = self.generation
            self.arrived += 1
            if self.arrived == self.running:
                self._release()
            while generation == self.generation and not self.broken:
                self.condition.wait()
            if self.broken:
                raise BarrierBroken("another thread of the block failed")

    def leave(self) -> None:
        with self.condition:
            self.running -= 1
            if self.arrived and self.arrived == self.running:
                self._release()

    def abort(self) -> None:
        with self.condition:
            self.broken = True
            self.condition.notify_all()

    def _release(self) -> None:
        self.arrived, self.generation = 0, self.generation + 1
        self.condition.notify_all()


class BarrierThread(threading.Thread):
    """One CUDA thread of a block whose kernel synchronizes: the simulator's kernel API reads
    its indices and calls its `syncthreads` (the `_count`, `_and`, `_or` forms as the
    simulator computes them, on the block's shared `votes`)."""

    def __init__(self, kernel_function, args, barrier, votes, block_index, thread_index):
        super().__init__(daemon=True)
        self.kernel_function, self.args = kernel_function, args
        self.barrier, self.votes, self.error = barrier, votes, None
        self.blockIdx, self.threadIdx = Dim3(*block_index), Dim3(*thread_index)
        x, y, z = thread_index
        self.thread_id = x + votes.shape[0] * (y + votes.shape[1] * z)

    def run(self) -> None:
        try:
            with np.errstate(all="ignore"):  # a GPU's arithmetic warns of nothing
                self.kernel_function(*self.args)
        except Exception as error:  # noqa: BLE001 -- raised again by the launching thread
            self.error = (error, sys.exc_info()[2])
            self.barrier.abort()
        finally:
            self.barrier.leave()

    def syncthreads(self) -> None:
        self.barrier.wait()

    def _vote(self, value, count) -> int:
        self.votes[tuple(self.threadIdx)] = value
        self.barrier.wait()
        result = count(self.votes)
        self.barrier.wait()
        return result

    def syncthreads_count(self, value) -> int:
        return self._vote(value, np.count_nonzero)

    def syncthreads_and(self, value) -> int:
        return self._vote(value, lambda votes: int(np.all(votes)))

    def syncthreads_or(self, value) -> int:
        return self._vote(value, lambda votes: int(np.any(votes)))


def raise_as_the_simulator(error: Exception, traceback, thread) -> None:
    """Raise `error` of a CUDA thread named as the simulator names it (`tid=... ctaid=...`)."""
    where = f"tid={list(thread.threadIdx)} ctaid={list(thread.blockIdx)}"
    message = f"{where}: {error}" if str(error) else where
    raise type(error)(message).with_traceback(traceback) from None


def run_blocks_with_fewer_threads() -> None:
    """Run each block of a kernel launch in the cheapest way that keeps what the kernel needs.

    - A kernel without barriers, shared memory or warp-level calls runs its threads one after
      another in the launching thread. Such a kernel may not depend on how its threads
      interleave (an atomic is one step either way), so running them in turn is one of the
      schedules a GPU may choose. It spares a Python thread per CUDA thread.
    - A kernel with `syncthreads` or shared memory runs a Python thread per CUDA thread, which
      wait for each other at a `BlockBarrier`; the launching thread only joins them. The
      simulator's own way polls every thread for as long as the block runs.
    - Warp-level calls (shuffles, votes) and the debug mode keep the simulator's own way.

    The first two index the launch's arrays as `DeviceMemory`.
    """
    virtual = threading.local()
    real_threading = kernelapi.threading

    def current_thread():
        return getattr(virtual, "thread", None) or real_threading.current_thread()

    kernelapi.threading = types.SimpleNamespace(
        current_thread=current_thread, Lock=real_threading.Lock
    )
    run_as_the_simulator = kernel.BlockManager.run

    def run(self, grid_point, *args):
        names = names_reached(self._f)
        if self._debug or names & WARP_LEVEL:
            return run_as_the_simulator(self, grid_point, *args)
        args = in_device_memory(args)
        if names & BLOCK_LEVEL:
            return run_with_barriers(self, grid_point, args)
        block_dim = tuple(self._block_dim)
        thread = SequentialThread(grid_point, block_dim)
        virtual.thread = thread
        try:
            with np.errstate(all="ignore"):  # a GPU's arithmetic warns of nothing
                for thread.threadIdx, thread.thread_id in threads_of_a_block(block_dim):
                    try:
                        self._f(*args)
                    except Exception as error:  # noqa: BLE001 -- raised again, named
                        raise_as_the_simulator(error, sys.exc_info()[2], thread)
        finally:
            virtual.thread = None

    kernel.BlockManager.run = run


def run_with_barriers(manager, grid_point, args) -> None:
    """One block of `manager` (the simulator's BlockManager), a `BarrierThread` per thread."""
    block_dim = tuple(manager._block_dim)
    barrier = BlockBarrier(int(np.prod(block_dim)))
    votes = np.zeros(block_dim, dtype=np.bool_)
    threads = [
        BarrierThread(manager._f, args, barrier, votes, grid_point, index)
        for index in np.ndindex(*block_dim)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failed = [t for t in threads if t.error is not None]
    # the first error is the one that broke the barrier; the others are its consequence
    first = next((t for t in failed if not isinstance(t.error[0], BarrierBroken)), None)
    first = first or (failed[0] if failed else None)
    if first is not None:
        raise_as_the_simulator(*first.error, first)


def call_device_functions_directly() -> None:
    """Call a device function without the simulator's swap of its module's `cuda` for the
    launch's fake one, where its module has no `cuda` to swap (the index and scalar functions).

    The simulator swaps on every call, and scans all the module's globals to do it: a tenth of
    a simulated training step's time.
    """
    from numba import cuda as real_cuda

    call_as_the_simulator = kernel.FakeCUDAKernel.__call__

    @cache
    def names_cuda(function) -> bool:
        return any(
            value is real_cuda or isinstance(value, kernelapi.FakeCUDAModule)
            for value in function.__globals__.values()
        )

    def call(self, *args):
        if self._device and not names_cuda(self.fn):
            return self.fn(*args)
        return call_as_the_simulator(self, *args)

    kernel.FakeCUDAKernel.__call__ = call
