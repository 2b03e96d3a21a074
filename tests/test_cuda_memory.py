"""The cuda backend's caching allocator (`backends/cuda/memory.py`) on host arrays, and
`minitorch.cuda`'s memory counts where there is no cuda device.

The allocator only slices and reinterprets the byte blocks it is given, so NumPy byte arrays
stand in for device memory here; tests/test_cuda_allocator.py runs it on cuda tensors in
Numba's CUDA simulator.
"""

import gc
import weakref

import numpy as np
import pytest

import minitorch
from minitorch.backends.cuda.memory import BLOCK_BYTES, CachingAllocator, rounded


class HostDevice:
    """`raw_alloc` over host memory with a capacity: MemoryError past it, like a full GPU."""

    def __init__(self, capacity=1 << 20):
        self.capacity, self.used = capacity, 0

    def __call__(self, nbytes):
        if self.used + nbytes > self.capacity:
            raise MemoryError("out of memory")
        self.used += nbytes
        block = np.zeros(nbytes, np.uint8)
        # the device gets the memory back when the allocator lets go of the block
        weakref.finalize(block, self.release, nbytes)
        return block

    def release(self, nbytes):
        self.used -= nbytes


def test_sizes_round_up_to_whole_blocks():
    assert [rounded(n) for n in (1, 511, 512, 513, 4000)] == [512, 512, 512, 1024, 4096]
    assert BLOCK_BYTES == 512


def test_a_storage_has_its_size_and_dtype_and_counts_its_block():
    allocator = CachingAllocator(HostDevice())
    storage = allocator.storage(1000, np.float32)
    assert storage.shape == (1000,) and storage.dtype == np.float32
    assert allocator.allocated == allocator.reserved == 4096
    storage[:] = 2.5
    assert storage.sum() == 2500.0


def test_a_dead_storage_block_is_cached_and_the_next_request_of_its_size_reuses_it():
    device = HostDevice()
    allocator = CachingAllocator(device)
    first = allocator.storage(100, np.float32)  # 400 bytes: one block
    address = first.__array_interface__["data"][0]
    del first
    gc.collect()
    assert allocator.allocated == 0 and allocator.reserved == 512 and allocator.cached() == 512
    second = allocator.storage(120, np.float32)  # 480 bytes: the same block size
    assert second.__array_interface__["data"][0] == address
    assert allocator.driver_calls == 1 and device.used == 512
    third = allocator.storage(120, np.float32)  # the cache is empty again: a new block
    assert third.__array_interface__["data"][0] != address
    assert allocator.driver_calls == 2 and allocator.allocated == 1024


def test_empty_cache_gives_the_free_blocks_back_and_keeps_the_live_ones():
    device = HostDevice()
    allocator = CachingAllocator(device)
    kept = allocator.storage(10, np.float64)
    dropped = allocator.storage(1000, np.float64)
    del dropped
    gc.collect()
    assert allocator.reserved == 512 + 8192 and device.used == 512 + 8192
    allocator.empty_cache()
    gc.collect()
    assert allocator.reserved == allocator.allocated == 512 and device.used == 512
    kept[:] = 1.0
    assert kept.sum() == 10.0


def test_a_full_device_frees_the_cache_and_asks_again_then_raises():
    device = HostDevice(capacity=4096)
    allocator = CachingAllocator(device)
    cached = allocator.storage(1024, np.float32)  # the whole device
    del cached
    gc.collect()
    again = allocator.storage(512, np.float32)  # 2048 bytes: another size, cache in the way
    assert allocator.reserved == 2048 and allocator.driver_calls == 3  # refused, then granted
    with pytest.raises(MemoryError):
        allocator.storage(1024, np.float32)
    assert again.shape == (512,)


def test_peaks_follow_the_largest_counts_until_reset():
    allocator = CachingAllocator(HostDevice())
    big = allocator.storage(2048, np.float32)
    del big
    gc.collect()
    small = allocator.storage(10, np.int64)
    assert allocator.peak_allocated == 8192 and allocator.allocated == 512
    assert allocator.peak_reserved == 8192 + 512
    allocator.reset_peak()
    assert allocator.peak_allocated == 512 and allocator.peak_reserved == 8192 + 512
    assert small.dtype == np.int64


def test_an_empty_storage_takes_no_block():
    allocator = CachingAllocator(HostDevice())
    empty = allocator.storage(0, np.float32)
    assert empty.shape == (0,) and allocator.allocated == allocator.reserved == 0


def test_without_cuda_the_counts_are_zero_and_emptying_the_cache_does_nothing(monkeypatch):
    monkeypatch.setattr(minitorch.cuda, "is_available", lambda: False)
    counts = (
        minitorch.cuda.memory_allocated(),
        minitorch.cuda.max_memory_allocated(),
        minitorch.cuda.memory_reserved(),
        minitorch.cuda.max_memory_reserved(),
    )
    assert counts == (0, 0, 0, 0)
    assert minitorch.cuda.empty_cache() is None
    with pytest.raises(RuntimeError, match="NVIDIA driver"):
        minitorch.cuda.reset_peak_memory_stats()
