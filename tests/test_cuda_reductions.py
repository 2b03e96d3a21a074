"""The cuda backend's reduce of lines of stride 1 with warp shuffles (`backends/cuda/reductions.py`)
against the cpu backend.

Sums and maxima along a dim of stride 1 (lines shorter and longer than a warp, of lengths
that are no multiple of 32, many lines over several blocks, lines of several warps, NaN and
infinities, float32, float64 and int64) must give what `cpu` gives, and must run the
shuffled kernel; a line of another stride runs the exercise's kernel. Numba-cuda's simulator
has no `shfl_down_sync`: `simulated_shuffles` gives it one, over the block's threads (the
kernel calls it from every thread, as it calls `syncthreads`). Like tests/test_cuda_windows.py
this file runs in the simulator (one of conftest's SIMULATOR_FILES).
"""

import threading

import numpy as np
import pytest
from cuda_checks import assert_matches, both, no_host_copies, values
from simulated_cuda import requires_cuda

import minitorch
from minitorch.backends import get_backend

pytestmark = requires_cuda


def simulated_shfl_down_sync(self, mask, value, delta):
    """`cuda.shfl_down_sync` in the simulator: lane $l$ gets the value of lane $l + \\delta$ of
    its warp, or its own where that lane is past the warp. Each thread puts its value in the
    block's table, waits for the block, reads, and waits again before the next shuffle."""
    thread = threading.current_thread()
    table = thread._manager.__dict__.setdefault("shuffled", {})
    me = thread.thread_id
    table[me] = value
    thread.syncthreads()
    got = table.get(me + delta, value) if me % 32 + delta < 32 else value
    thread.syncthreads()
    return got


@pytest.fixture
def kernels_run(monkeypatch):
    """The cuda backend with warp shuffles in the simulator and 64-thread reduction blocks;
    the names of the reduce kernels it compiles or takes from its cache, in order."""
    from numba import cuda
    from numba.cuda.simulator import kernelapi

    monkeypatch.setattr(kernelapi.FakeCUDAModule, "shfl_down_sync", simulated_shfl_down_sync, False)
    monkeypatch.setattr(cuda, "shfl_down_sync", simulated_shfl_down_sync, False)
    backend = get_backend("cuda")
    monkeypatch.setattr(backend, "warp_shuffles", True)
    monkeypatch.setattr(backend, "block", 64)
    names = []
    compiled = backend.compiled

    def counted(name, *settings):
        if name.startswith("reduce"):
            names.append((name, *settings[1:3]))
        return compiled(name, *settings)

    monkeypatch.setattr(backend, "compiled", counted)
    return names


def check_on_both(array, reduction, rtol=1e-6, atol=1e-6):
    """`reduction` of `array` on cuda (no host copies) equals it on cpu."""
    cpu, gpu = both(array)
    with no_host_copies():
        got = reduction(gpu)
    assert_matches(got, reduction(cpu), rtol=rtol, atol=atol)


def test_short_lines_over_several_blocks_sum_and_max_like_cpu(kernels_run):
    """9 lines of 7: a warp each (its lanes past 7 fold the start), 2 lines a block, 5
    blocks; float32 and float64 sums, an int64 sum and a maximum."""
    x = values(3, 3, 7, seed=40)
    check_on_both(x, lambda t: t.sum(-1))
    check_on_both(x.astype(np.float64), lambda t: t.sum(2, keepdim=True), rtol=1e-12)
    check_on_both(np.arange(-30, 33).reshape(9, 7), lambda t: t.sum(1))
    check_on_both(x, lambda t: t.amax(-1))
    assert kernels_run == [("reduce_shuffled", 64, 32)] * 4


def test_lines_of_several_warps_fold_through_shared_memory(kernels_run):
    """Lines of 45 and 100 (no multiple of 32): 64 lanes, two warps whose partials meet in
    shared memory; a whole contiguous tensor is one line."""
    check_on_both(values(3, 45, seed=41), lambda t: t.sum(1))
    check_on_both(values(3, 45, seed=42), lambda t: t.amax(1))
    check_on_both(values(4, 25, seed=43), lambda t: t.sum())
    assert kernels_run == [("reduce_shuffled", 64, 64)] * 3


def test_nan_wins_a_maximum_and_infinities_fold(kernels_run):
    """A NaN in the first, in the last and in a middle lane's share of a line wins its
    maximum; -inf and +inf lines give theirs; a sum with a NaN is NaN."""
    x = values(6, 40, seed=44)
    x[0, 0] = x[1, 39] = x[2, 33] = np.nan
    x[3, :] = -np.inf
    x[4, 5] = np.inf
    check_on_both(x, lambda t: t.amax(1))
    check_on_both(x, lambda t: t.sum(1))
    got = minitorch.tensor(x, device="cuda").amax(1).cpu().numpy()
    assert np.isnan(got[:3]).all() and got[3] == -np.inf and got[4] == np.inf
    assert all(name == "reduce_shuffled" for name, *_ in kernels_run)


def test_a_line_of_another_stride_runs_the_exercise_kernel(kernels_run):
    """A sum along dim 0 of a contiguous matrix (stride 7), and along the last dim of its
    transpose, read with the shared-memory tree."""
    x = values(9, 7, seed=45)
    check_on_both(x, lambda t: t.sum(0))
    check_on_both(x, lambda t: t.t().sum(1))
    assert [name for name, *_ in kernels_run] == ["reduce", "reduce"]
