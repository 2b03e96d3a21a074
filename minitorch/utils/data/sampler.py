"""Samplers, as in `torch.utils.data.sampler`: which indices a `DataLoader` reads, in which order
(`DistributedSampler` is in `distributed.py`).

>>> from minitorch.utils.data import BatchSampler, SequentialSampler
>>> list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
[[0, 1, 2], [3, 4, 5], [6]]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized

from ...dtypes import float64
from ...ops.factories import as_tensor
from ...tensors.creation import multinomial
from . import generator as rng


class Sampler:
    """An iterable of dataset indices (or of lists of them, for a batch sampler)."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """`0, 1, ..., len(data_source) - 1`, in order."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order of the indices; each pass draws a new one from `generator`.

    Without replacement, `num_samples` (default `len(data_source)`) indices are taken from
    as many whole permutations as needed; with replacement, each index is an independent
    uniform draw.
    """

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator=None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        rng.check_generator(generator)
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, "
                f"but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n, count = len(self.data_source), self.num_samples
        generator = rng.resolve(self.generator)
        if self.replacement:
            yield from rng.integers(n, count, generator)
            return
        for _ in range(count // n):
            yield from rng.permutation(n, generator)
        yield from rng.permutation(n, generator)[: count % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given `indices` in a random order, a new one each pass."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        rng.check_generator(generator)
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for k in rng.permutation(len(self.indices), self.generator):
            yield self.indices[k]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size`; `drop_last` drops a
    short last list. Its length is $\\lfloor n / b \\rfloor$
    with `drop_last`, else $\\lceil n / b \\rceil$.
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


class WeightedRandomSampler(Sampler):
    """`num_samples` indices of `range(len(weights))`, index `i` drawn with probability
    $w_i / \\sum_j w_j$ (`minitorch.multinomial`; with `replacement=False` each index at
    most once, the weights renormalised over those left)."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        rng.check_generator(generator)
        weights = as_tensor(weights, dtype=float64)
        if weights.ndim != 1:
            raise ValueError(
                "weights should be a 1d sequence but given "
                f"weights have shape {tuple(weights.shape)}"
            )
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(
            self.weights,
            self.num_samples,
            self.replacement,
            generator=rng.tensor_generator(self.generator),
        )
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples
