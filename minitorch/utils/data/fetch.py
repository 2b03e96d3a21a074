"""How one batch is read from a dataset, the same in the main process and in a worker.

A map-style dataset is read at the indices the sampler gives; an iterable one is read from
its iterator, `batch_size` examples at a time (the sampler only says "one more batch").
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator


class InfiniteSampler:
    """The sampler of an `IterableDataset`: `None` forever, one per example or batch asked."""

    def __iter__(self) -> Iterator[None]:
        return itertools.repeat(None)


class MapFetcher:
    """`collate_fn` of the examples at `indices` (of one index without auto-collation)."""

    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, indices):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[indices])
        many = getattr(self.dataset, "__getitems__", None)
        if callable(many):
            return self.collate_fn(many(indices))
        return self.collate_fn([self.dataset[k] for k in indices])


class IterableFetcher:
    """The next `len(indices)` examples of the dataset's iterator, collated; `StopIteration`
    when it is exhausted (or when only a short batch is left and `drop_last` is set)."""

    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool):
        self.examples = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, indices):
        if not self.auto_collation:
            return self.collate_fn(next(self.examples))
        batch = list(itertools.islice(self.examples, len(indices)))
        if not batch or (self.drop_last and len(batch) < len(indices)):
            raise StopIteration
        return self.collate_fn(batch)


def make_fetcher(iterable: bool, dataset, auto_collation, collate_fn, drop_last):
    kind = IterableFetcher if iterable else MapFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)
