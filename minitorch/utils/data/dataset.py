"""Datasets, as in `torch.utils.data.dataset`: `Dataset`, `TensorDataset`, `Subset`,
`ConcatDataset`, `StackDataset` and `random_split`; and the iterable ones, `IterableDataset`
and `ChainDataset`.

>>> from minitorch.utils.data import ConcatDataset, Subset
>>> both = ConcatDataset([range(3), range(10, 12)])
>>> len(both), both[3], both[-1], Subset(both, [4, 0])[0]
(5, 10, 11, 11)
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Sequence

from ..._tensor import Tensor
from . import generator as rng


class Dataset:
    """A collection of examples: subclasses define `__getitem__(index)` and `__len__()`.

    `a + b` is `ConcatDataset([a, b])`.
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of examples: subclasses define `__iter__`. A `DataLoader` with workers gives
    each worker its own copy, so `__iter__` reads `get_worker_info()` to yield only that
    worker's share (else every example comes once per worker).

    `a + b` is `ChainDataset([a, b])`.
    """

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> ChainDataset:
        return ChainDataset([self, other])


def only_iterable(datasets: Iterable) -> Iterable:
    for dataset in datasets:
        if not isinstance(dataset, IterableDataset):
            raise AssertionError("ChainDataset only supports IterableDataset")
        yield dataset


class ChainDataset(IterableDataset):
    """The examples of each iterable dataset in turn, read lazily."""

    def __init__(self, datasets: Iterable) -> None:
        self.datasets = datasets

    def __iter__(self):
        for dataset in only_iterable(self.datasets):
            yield from dataset

    def __len__(self) -> int:
        return sum(len(dataset) for dataset in only_iterable(self.datasets))


class StackDataset(Dataset):
    """Datasets of one length side by side: `StackDataset(a, b)[i] = (a[i], b[i])`, and
    `StackDataset(x=a, y=b)[i] = {"x": a[i], "y": b[i]}`."""

    def __init__(self, *args, **kwargs) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                "input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args or kwargs
        parts = list(args or kwargs.values())
        self._length = len(parts[0])
        if any(len(dataset) != self._length for dataset in parts):
            raise ValueError("Size mismatch between datasets")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list[int]) -> list:
        """A batch at once, each part read with its dataset's `__getitems__` when it has one."""
        named = isinstance(self.datasets, dict)
        columns = []
        for dataset in self.datasets.values() if named else self.datasets:
            if callable(getattr(dataset, "__getitems__", None)):
                column = dataset.__getitems__(indices)
                if len(column) != len(indices):
                    raise ValueError(
                        "Nested dataset's output size mismatch. "
                        f"Expected {len(indices)}, got {len(column)}"
                    )
            else:
                column = [dataset[k] for k in indices]
            columns.append(column)
        rows = zip(*columns, strict=True)
        if named:
            return [dict(zip(self.datasets, row, strict=True)) for row in rows]
        return [tuple(row) for row in rows]

    def __len__(self) -> int:
        return self._length


class TensorDataset(Dataset):
    """Example `i` is `(t[i] for t in tensors)`: the tensors share their first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        if any(t.ndim == 0 for t in tensors):
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The examples of `dataset` at `indices`, in that order: `Subset(d, ix)[k] = d[ix[k]]`."""

    def __init__(self, dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[k] for k in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: list[int]) -> list:
        """A batch at once: the `DataLoader` calls this when the dataset defines it."""
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[k] for k in indices])
        return [self.dataset[self.indices[k]] for k in indices]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """The examples of each dataset in turn; `cumulative_sizes[k]` counts those of the first
    `k + 1` datasets, and a bisection over it finds the dataset of an index."""

    def __init__(self, datasets: Iterable) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


def split_lengths(n: int, lengths: Sequence[int | float]) -> list[int]:
    """Lengths as given, or, when `lengths` are fractions summing to 1, $\\lfloor f_k n \\rfloor$
    each with the remainder handed out one by one from the first split on (torch's rule)."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for k, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {k} is not between 0 and 1")
        sizes = [math.floor(n * fraction) for fraction in lengths]
        for k in range(n - sum(sizes)):
            sizes[k % len(sizes)] += 1
        for k, size in enumerate(sizes):
            if size == 0:
                warnings.warn(
                    f"Length of split at index {k} is 0. This might result in an empty dataset.",
                    stacklevel=3,
                )
        return sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    return list(lengths)


def random_split(dataset, lengths: Sequence[int | float], generator=None) -> list[Subset]:
    """Split `dataset` into non-overlapping `Subset`s of the given lengths (or fractions) after
    one random permutation drawn from `generator` (see `generator.py` for what it may be)."""
    sizes = split_lengths(len(dataset), lengths)
    order = rng.permutation(sum(sizes), generator)
    ends = list(itertools.accumulate(sizes))
    return [Subset(dataset, order[end - size : end]) for end, size in zip(ends, sizes, strict=True)]
