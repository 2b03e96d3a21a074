"""`CachingAllocator`: device storages cut from cached blocks, as PyTorch's caching allocator.

Asking the driver for memory (`cuMemAlloc`) and giving it back (`cuMemFree`, which waits for
the device) costs microseconds to milliseconds, and a training step makes dozens of
temporaries. So a storage's block, once the storage is garbage, goes to a free list of its
size instead of back to the driver, and the next request of that size takes it. Sizes are
rounded up to multiples of `BLOCK_BYTES` so that blocks of nearby sizes are shared.

Reusing a block while a kernel that used it may still run is safe because every kernel of
the backend goes to the same (default) stream, which runs them in launch order.

The counts follow torch's meaning: *allocated* is the bytes of the blocks that live storages
hold, *reserved* is those plus the cached free blocks (what the driver has given out), and the
peaks are the largest values since the start or the last `reset_peak()`.
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Callable

import numpy as np

BLOCK_BYTES = 512


def rounded(nbytes: int) -> int:
    """The block size for `nbytes`: the next multiple of `BLOCK_BYTES`."""
    return -(-nbytes // BLOCK_BYTES) * BLOCK_BYTES


class CachingAllocator:
    """Storages of `dtype` from blocks that `raw_alloc(nbytes)` makes (a byte array on the
    device) and that this allocator caches when their storage dies.

    `out_of_memory` is the exception type `raw_alloc` raises when the device is full: the
    allocator then frees its cached blocks and asks once more, as torch does.
    """

    def __init__(
        self,
        raw_alloc: Callable[[int], object],
        out_of_memory: type[BaseException] = MemoryError,
    ):
        self._raw_alloc = raw_alloc
        self._out_of_memory = out_of_memory
        self._free: dict[int, list] = defaultdict(list)
        self.allocated = self.reserved = 0
        self.peak_allocated = self.peak_reserved = 0
        self.driver_calls = 0

    def storage(self, size: int, dtype: np.dtype):
        """A device array of `size` elements of `dtype`; its values are whatever the block
        held before."""
        dtype = np.dtype(dtype)
        nbytes = size * dtype.itemsize
        if nbytes == 0:  # an empty storage holds no device memory
            return self._raw_alloc(0).view(dtype)
        block_bytes = rounded(nbytes)
        block = self._take(block_bytes)
        array = block[:nbytes].view(dtype)
        self.allocated += block_bytes
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        weakref.finalize(array, self._give_back, block, block_bytes)
        return array

    def _take(self, block_bytes: int):
        cached = self._free[block_bytes]
        if cached:
            return cached.pop()
        try:
            block = self._new_block(block_bytes)
        except self._out_of_memory:
            self.empty_cache()
            block = self._new_block(block_bytes)
        self.reserved += block_bytes
        self.peak_reserved = max(self.peak_reserved, self.reserved)
        return block

    def _new_block(self, block_bytes: int):
        self.driver_calls += 1
        return self._raw_alloc(block_bytes)

    def _give_back(self, block, block_bytes: int) -> None:
        self.allocated -= block_bytes
        self._free[block_bytes].append(block)

    def cached(self) -> int:
        """Bytes of the free blocks the allocator holds."""
        return self.reserved - self.allocated

    def empty_cache(self) -> None:
        """Let go of every free block (the driver frees them once nothing refers to them)."""
        for size, blocks in self._free.items():
            self.reserved -= size * len(blocks)
        self._free.clear()

    def reset_peak(self) -> None:
        """Start the peaks again from the present counts."""
        self.peak_allocated, self.peak_reserved = self.allocated, self.reserved
