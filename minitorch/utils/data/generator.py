"""The random numbers of the samplers and of `random_split`.

torch's samplers take a `torch.Generator`. minitorch's random numbers come from a NumPy
`numpy.random.Generator` (the object `minitorch.manual_seed` seeds and returns), so that is
what `generator=` takes here; a standard-library `random.Random` is accepted as well. With
`generator=None` a fresh seed is drawn from minitorch's global generator, so
`minitorch.manual_seed(s)` makes every shuffle of a run reproducible, as `torch.manual_seed`
does in PyTorch. The orders differ from torch's (another random number generator); the
guarantees are the same: the same seed gives the same orders, each pass draws a new one.
"""

from __future__ import annotations

import random

import numpy as np

from ...tensors.creation import randint

Generator = np.random.Generator | random.Random


def check_generator(generator) -> None:
    """Raise `TypeError` unless `generator` is None, a NumPy Generator or a `random.Random`."""
    if generator is not None and not isinstance(generator, (np.random.Generator, random.Random)):
        raise TypeError(
            "generator must be a numpy.random.Generator (what minitorch.manual_seed returns) "
            f"or a random.Random, got {type(generator).__name__}"
        )


def resolve(generator: Generator | None) -> Generator:
    """`generator`, or a new one seeded from minitorch's global generator when it is None."""
    check_generator(generator)
    if generator is None:
        return np.random.default_rng(int(randint(0, 2**62, (1,)).item()))
    return generator


def permutation(n: int, generator: Generator | None) -> list[int]:
    """A uniformly random order of `range(n)`."""
    rng = resolve(generator)
    if isinstance(rng, random.Random):
        order = list(range(n))
        rng.shuffle(order)
        return order
    return rng.permutation(n).tolist()


def integers(n: int, count: int, generator: Generator | None) -> list[int]:
    """`count` independent uniform draws from `range(n)` (sampling with replacement)."""
    rng = resolve(generator)
    if isinstance(rng, random.Random):
        return [rng.randrange(n) for _ in range(count)]
    return rng.integers(0, n, size=count).tolist()
