"""`DataLoader`, as `torch.utils.data.DataLoader`: batches of a dataset in the main process.

An epoch is one pass over the loader: the sampler gives indices (in order, or a new random
order each pass with `shuffle=True`), the batch sampler groups them, the dataset is read at
each index and `collate_fn` turns the examples into one batch.

>>> import minitorch
>>> from minitorch.utils.data import DataLoader, TensorDataset
>>> data = TensorDataset(minitorch.arange(5.0), minitorch.tensor([0, 1, 0, 1, 1]))
>>> [y.tolist() for _, y in DataLoader(data, batch_size=2)]
[[0, 1], [0, 1], [1]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .collate import default_collate, default_convert
from .sampler import BatchSampler, RandomSampler, SequentialSampler

NO_WORKERS = (
    "num_workers > 0 is not supported by minitorch: worker processes would be forked from a "
    "process whose Numba parallel kernels have started GNU OpenMP threads, and such a forked "
    "child is killed ('fork() called from a process already using GNU OpenMP'); use "
    "num_workers=0 (batches are read in the main process)"
)


class DataLoader:
    """Iterate over `dataset` in batches.

    - `batch_size` examples per batch (`None`: no batching, each example is passed through
      `default_convert` one at a time); `drop_last` drops a short last batch.
    - `shuffle=True` reads in a new random order each epoch, drawn from `generator` (a
      `numpy.random.Generator` as returned by `minitorch.manual_seed`, or a `random.Random`;
      `None` draws from minitorch's global generator). `sampler` (indices) or `batch_sampler`
      (lists of indices) replace the default order, with torch's mutual-exclusion rules.
    - `collate_fn(list of examples)` builds a batch (default: `default_collate`).
    - `num_workers` must be 0 (see `NO_WORKERS`); `pin_memory` is accepted and ignored
      (there is no pinned host memory here; moving a batch is `batch.to(device)`).
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
        *,
        generator=None,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; "
                "use num_workers=0 to disable multiprocessing."
            )
        if num_workers > 0:
            raise ValueError(NO_WORKERS)
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor "
                "to None."
            )
        if persistent_workers:
            raise ValueError("persistent_workers option needs num_workers > 0")
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
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
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
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    def _fetch(self, indices: list[int]) -> list:
        many = getattr(self.dataset, "__getitems__", None)
        if callable(many):
            return many(indices)
        return [self.dataset[k] for k in indices]

    def __iter__(self) -> Iterator:
        if self._auto_collation:
            for indices in self.batch_sampler:
                yield self.collate_fn(self._fetch(indices))
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def __len__(self) -> int:
        return len(self.batch_sampler if self._auto_collation else self.sampler)
