"""`DistributedSampler`, as `torch.utils.data.distributed.DistributedSampler`: the share of
a dataset's indices one of `num_replicas` processes (rank `rank`) reads each epoch.

The indices (shuffled with seed `seed + epoch` when `shuffle`, the same in every process)
are padded by repeating the first ones until their count $T$ is a multiple of
`num_replicas` (or, with `drop_last`, cut down to one), and replica `r` reads positions
$r, r + R, r + 2R, \\dots$: each reads $T / R$ indices.

>>> from minitorch.utils.data import DistributedSampler
>>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
[1, 3, 0]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sized

from ...tensors.creation import Generator
from . import generator as rng
from .sampler import Sampler


class DistributedSampler(Sampler):
    """Replica `rank` of `num_replicas`' indices of `dataset`; `set_epoch(e)` before each
    epoch gives a new shuffle, the same in all replicas.

    Without `num_replicas` and `rank`, torch asks its default process group; minitorch has
    no distributed package, so both must be given.
    """

    def __init__(
        self,
        dataset: Sized,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            raise RuntimeError("Requires distributed package to be available")
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        size = len(dataset)
        if drop_last and size % num_replicas:
            self.num_samples = math.ceil((size - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(size / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        size = len(self.dataset)
        if self.shuffle:
            stream = Generator().manual_seed(self.seed + self.epoch)
            indices = rng.permutation(size, stream)
        else:
            indices = list(range(size))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:
            missing = self.total_size - size
            indices += (indices * math.ceil(missing / size))[:missing] if missing else []
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """The epoch whose shuffle the next pass uses."""
        self.epoch = epoch
