"""`DataLoader`, as `torch.utils.data.DataLoader`: batches of a dataset, read in the main
process or by worker processes.

An epoch is one pass over the loader: the sampler gives indices (in order, or a new random
order each pass with `shuffle=True`), the batch sampler groups them, the dataset is read at
each index and `collate_fn` turns the examples into one batch. An `IterableDataset` is read
from its iterator instead, `batch_size` examples at a time.

>>> import minitorch
>>> from minitorch.utils.data import DataLoader, TensorDataset
>>> data = TensorDataset(minitorch.arange(5.0), minitorch.tensor([0, 1, 0, 1, 1]))
>>> [y.tolist() for _, y in DataLoader(data, batch_size=2)]
[[0, 1], [0, 1], [1]]

Worker processes (`num_workers > 0`) are started by `forkserver` (`spawn` where there is
none), never by a plain `fork` of this process by default: minitorch's parallel Numba kernels
run on GNU OpenMP threads, and a child forked from a process that has them is killed
("fork() called from a process already using GNU OpenMP"). The server of `forkserver` is
started once per program; it imports minitorch and loads, from the on-disk kernel cache,
the kernels `default_collate` runs (`warm_start.py`), so a worker forked from it starts in
about a tenth of a second, with nothing to compile or load for its first batches. The
server's own start costs about what `import minitorch` does. `spawn` pays that in every
worker, every epoch (seconds), and `fork` is as fast as the forkserver's workers but safe
only before any parallel kernel has run. Any worker imports the main script again (as
under `spawn`), so its top level should be cheap: the work under
`if __name__ == "__main__":`, or `persistent_workers=True` to start the workers once.
`python scripts/bench.py --only loader` measures all of it.
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable

from . import generator as rng
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .fetch import InfiniteSampler, make_fetcher
from .sampler import BatchSampler, RandomSampler, SequentialSampler
from .workers import MultiProcessIter

# Attributes fixed once a loader is built, as in torch.
FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


def start_method(context) -> multiprocessing.context.BaseContext:
    """A `multiprocessing_context=` argument as a context (a start method's name, or one)."""
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(
                "multiprocessing_context option should specify a valid start method in "
                f"{methods!r}, but got multiprocessing_context={context!r}"
            )
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError(
            "multiprocessing_context option should be a valid context object or a string "
            f"specifying the start method, but got multiprocessing_context={context}"
        )
    return context


class DataLoader:
    """Iterate over `dataset` in batches.

    - `batch_size` examples per batch (`None`: no batching, each example is passed through
      `default_convert` one at a time); `drop_last` drops a short last batch.
    - `shuffle=True` reads in a new random order each epoch, drawn from `generator` (a
      `minitorch.Generator`, a `numpy.random.Generator` or a `random.Random`; `None` draws
      from minitorch's default generator). `sampler` (indices) or `batch_sampler` (lists of
      indices) replace the default order, with torch's mutual-exclusion rules.
    - `collate_fn(list of examples)` builds a batch (default: `default_collate`).
    - `num_workers` processes read the batches (see the module docstring): each is given
      `prefetch_factor` (default 2) batches ahead, calls `worker_init_fn(worker_id)` first,
      seeds `random`, NumPy and minitorch from `base_seed + worker_id` (`base_seed` drawn
      from `generator` each epoch) and sees `get_worker_info()`. `in_order=False` hands
      out batches as they are ready; `timeout` (seconds) bounds the wait for one batch;
      `persistent_workers` keeps the workers between epochs.
    - `pin_memory` is accepted and changes nothing (there is no pinned host memory here;
      moving a batch is `batch.to(device)`).
    """

    def __init__(
        self,
        dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler=None,
        batch_sampler=None,
        num_workers: int = 0,
        collate_fn: Callable | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable | None = None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; "
                "use num_workers=0 to disable multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor "
                "to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None:
            if num_workers == 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading "
                    f"(num_workers > 0), but got num_workers={num_workers}"
                )
            multiprocessing_context = start_method(multiprocessing_context)
        rng.check_generator(generator)

        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive "
                "with drop_last"
            )
        if sampler is None:
            if iterable:
                sampler = InfiniteSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.iterable = iterable
        if collate_fn is None:
            collate_fn = default_collate if self.auto_collation else default_convert
        self.collate_fn = collate_fn
        self._iterator = None
        self._initialized = True

    def __setattr__(self, name: str, value) -> None:
        if name in FROZEN and getattr(self, "_initialized", False):
            raise ValueError(
                f"{name} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(name, value)

    @property
    def auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def index_sampler(self):
        """What the iterator draws from: lists of indices, or single indices."""
        return self.batch_sampler if self.auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return SingleProcessIter(self)
        if not self.persistent_workers:
            return MultiProcessIter(self, rng.base_seed(self.generator))
        if self._iterator is None:
            self._iterator = MultiProcessIter(self, rng.base_seed(self.generator))
        else:
            self._iterator.reset()
        return self._iterator

    def __len__(self) -> int:
        if not self.iterable:
            return len(self.index_sampler)
        length = len(self.dataset)
        if self.batch_size is None:
            return length
        if self.drop_last:
            return length // self.batch_size
        return math.ceil(length / self.batch_size)


class SingleProcessIter:
    """An epoch read in the main process. It draws a worker base seed as the multi-process
    iterator does, so both consume the generator alike and shuffle into the same orders."""

    def __init__(self, loader: DataLoader) -> None:
        rng.base_seed(loader.generator)
        self.loader = loader
        self.batches = iter(loader.index_sampler)
        self.fetcher = make_fetcher(
            loader.iterable,
            loader.dataset,
            loader.auto_collation,
            loader.collate_fn,
            loader.drop_last,
        )

    def __iter__(self) -> SingleProcessIter:
        return self

    def __next__(self):
        return self.fetcher.fetch(next(self.batches))

    def __len__(self) -> int:
        return len(self.loader)
